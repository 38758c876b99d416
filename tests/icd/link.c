/* Separate compilation through the ICD loader: clCompileProgram keeps each
 * unit's options and headers, clLinkProgram resolves functions and
 * variables across units (static ones stay private, a struct may be written
 * in several units), reports missing and duplicate definitions in the log,
 * makes libraries that link again, and the binaries of objects, libraries
 * and executables come back through clCreateProgramWithBinary. Prints one
 * line per failed check and "checks: N failed: M"; exits non-zero if any
 * check failed. Run with vecl as the only platform, or it picks vecl. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks, failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            printf("FAIL line %d: ", __LINE__);                              \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
        }                                                                    \
    } while (0)

static cl_context ctx;
static cl_device_id device;
static cl_command_queue queue;

static cl_program source(const char *text) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
    CHECK(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    return p;
}

static cl_program compiled(const char *text, const char *options) {
    cl_program p = source(text);
    cl_int err = clCompileProgram(p, 1, &device, options, 0, NULL, NULL, NULL, NULL);
    CHECK(err == CL_SUCCESS, "clCompileProgram(%s): %d", options ? options : "", err);
    return p;
}

static char *build_log(cl_program p) {
    size_t size = 0;
    clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char *log = calloc(size + 1, 1);
    clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    return log;
}

static cl_program_binary_type binary_type(cl_program p) {
    cl_program_binary_type t = 0;
    cl_int err = clGetProgramBuildInfo(p, device, CL_PROGRAM_BINARY_TYPE, sizeof t, &t, NULL);
    CHECK(err == CL_SUCCESS, "CL_PROGRAM_BINARY_TYPE: %d", err);
    return t;
}

static cl_program link2(cl_program a, cl_program b, const char *options, cl_int *err) {
    cl_program inputs[2] = {a, b};
    return clLinkProgram(ctx, 1, &device, options, b ? 2 : 1, inputs, NULL, NULL, err);
}

/* Runs `kernel(global int *out)` on one work-item; out[0..n] into `got`. */
static void run(cl_program p, const char *name, int n, int *got) {
    cl_int err;
    memset(got, 0x55, sizeof(int) * n);
    cl_kernel k = clCreateKernel(p, name, &err);
    CHECK(err == CL_SUCCESS, "clCreateKernel(%s): %d", name, err);
    if (err != CL_SUCCESS) return;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(int) * n, NULL, &err);
    clSetKernelArg(k, 0, sizeof out, &out);
    size_t one = 1;
    err = clEnqueueNDRangeKernel(queue, k, 1, NULL, &one, &one, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "enqueue %s: %d", name, err);
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof(int) * n, got, 0, NULL, NULL);
    clReleaseMemObject(out);
    clReleaseKernel(k);
}

static unsigned char *binary_of(cl_program p, size_t *len) {
    *len = 0;
    cl_int err = clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof *len, len, NULL);
    CHECK(err == CL_SUCCESS && *len > 0, "CL_PROGRAM_BINARY_SIZES: %d, %zu", err, *len);
    unsigned char *bytes = malloc(*len);
    err = clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bytes, &bytes, NULL);
    CHECK(err == CL_SUCCESS, "CL_PROGRAM_BINARIES: %d", err);
    return bytes;
}

static cl_program from_binary(const unsigned char *bytes, size_t len, cl_int *status, cl_int *err) {
    return clCreateProgramWithBinary(ctx, 1, &device, &len, &bytes, status, err);
}

/* A kernel that uses three units' functions, each compiled with its own
 * -D and -cl-std. */
static const char *FIVE = "int five(void) { return N; }";
static const char *VERSION = "int version(void) { return __OPENCL_C_VERSION__; }";
static const char *USES_THEM =
    "int five(void);\n"
    "int version(void);\n"
    "kernel void k(global int *out) {\n"
    "    out[0] = five() * N;\n"
    "    out[1] = version();\n"
    "    out[2] = __OPENCL_C_VERSION__;\n"
    "}\n";

static void options_stay_with_their_unit(void) {
    cl_program a = compiled(FIVE, "-DN=5");
    cl_program b = compiled(VERSION, "-cl-std=CL2.0");
    cl_program c = compiled(USES_THEM, "-D N=3 -cl-std=CL1.2");
    cl_program inputs[3] = {a, b, c};
    cl_int err;
    cl_program linked = clLinkProgram(ctx, 1, &device, "", 3, inputs, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS && linked, "link: %d", err);
    int got[3];
    run(linked, "k", 3, got);
    CHECK(got[0] == 15, "five() * N = %d, expected 15", got[0]);
    CHECK(got[1] == 200 && got[2] == 120, "versions %d %d, expected 200 120", got[1], got[2]);
    CHECK(binary_type(linked) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "executable");
    clReleaseProgram(linked);
    clReleaseProgram(a);
    clReleaseProgram(b);
    clReleaseProgram(c);
}

static void a_header_freed_after_compile_is_not_needed_at_link(void) {
    cl_program header = source("struct pair { int a, b; };\n#define SCALE 7\n");
    cl_program unit = source(
        "#include \"pair.h\"\n"
        "kernel void k(global int *out) { struct pair p = {2, 3}; out[0] = (p.a + p.b) * SCALE; }\n");
    const char *name = "pair.h";
    cl_int err = clCompileProgram(unit, 1, &device, NULL, 1, &header, &name, NULL, NULL);
    CHECK(err == CL_SUCCESS, "compile with a header: %d", err);
    clReleaseProgram(header);
    cl_program linked = link2(unit, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS && linked, "link: %d", err);
    int got;
    run(linked, "k", 1, &got);
    CHECK(got == 35, "got %d, expected 35", got);
    clReleaseProgram(linked);
    clReleaseProgram(unit);
}

static const char *SUM_PAIR =
    "struct pair { int a; int b; };\n"
    "int sum(struct pair *p) { return p->a + p->b; }\n"
    "struct pair swapped(struct pair p) { struct pair q = {p.b, p.a}; return q; }\n";
static const char *USES_PAIR =
    "struct pair { int a; int b; };\n"
    "int sum(struct pair *p);\n"
    "struct pair swapped(struct pair p);\n"
    "kernel void k(global int *out) {\n"
    "    struct pair p = {40, 2};\n"
    "    struct pair q = swapped(p);\n"
    "    out[0] = sum(&p);\n"
    "    out[1] = q.a;\n"
    "    out[2] = q.b;\n"
    "}\n";

static void one_struct_written_in_two_units(void) {
    cl_program a = compiled(SUM_PAIR, NULL);
    cl_program b = compiled(USES_PAIR, NULL);
    cl_int err;
    cl_program linked = link2(b, a, NULL, &err);
    CHECK(err == CL_SUCCESS && linked, "link: %d", err);
    int got[3];
    run(linked, "k", 3, got);
    CHECK(got[0] == 42 && got[1] == 2 && got[2] == 40, "got %d %d %d, expected 42 2 40", got[0],
          got[1], got[2]);
    clReleaseProgram(linked);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

static void static_helpers_of_one_name_stay_apart(void) {
    cl_program a = compiled(
        "static int helper(void) { return 1; }\n"
        "static constant int table[2] = {3, 4};\n"
        "int from_a(void) { return helper() * 100 + table[1]; }\n"
        "kernel void ka(global int *out) { out[0] = helper(); }\n",
        NULL);
    cl_program b = compiled(
        "static int helper(void) { return 2; }\n"
        "static constant int table[2] = {5, 6};\n"
        "int from_a(void);\n"
        "kernel void kb(global int *out) { out[0] = helper() * 10 + table[1]; out[1] = from_a(); }\n",
        NULL);
    cl_int err;
    cl_program linked = link2(a, b, NULL, &err);
    CHECK(err == CL_SUCCESS && linked, "link: %d", err);
    int got[2];
    run(linked, "kb", 2, got);
    CHECK(got[0] == 26 && got[1] == 104, "kb: %d %d, expected 26 104", got[0], got[1]);
    run(linked, "ka", 1, got);
    CHECK(got[0] == 1, "ka: %d, expected 1", got[0]);
    char names[64] = {0};
    size_t count = 0;
    clGetProgramInfo(linked, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, NULL);
    clGetProgramInfo(linked, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
    CHECK(count == 2 && strcmp(names, "ka;kb") == 0, "kernels: %zu '%s'", count, names);
    clReleaseProgram(linked);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

static void an_extern_variable_is_defined_by_another_unit(void) {
    cl_program a = compiled("constant float scale = 4.0f;\n", NULL);
    cl_program b = compiled(
        "extern constant float scale;\n"
        "kernel void k(global int *out) { out[0] = (int)(scale * 10.0f); }\n",
        NULL);
    cl_int err;
    cl_program linked = link2(b, a, NULL, &err);
    CHECK(err == CL_SUCCESS && linked, "link: %d", err);
    int got;
    run(linked, "k", 1, &got);
    CHECK(got == 40, "got %d, expected 40", got);
    clReleaseProgram(linked);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

static int notified;
static cl_int notified_status;
static void CL_CALLBACK record_status(cl_program program, void *user) {
    (void)user;
    notified++;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS, sizeof notified_status,
                          &notified_status, NULL);
}

static void link_errors_name_the_function(void) {
    cl_program caller = compiled(
        "int missing(int);\n"
        "kernel void k(global int *out) { out[0] = missing(1); }\n",
        NULL);
    cl_int err;
    notified = 0;
    cl_program inputs[1] = {caller};
    cl_program failed =
        clLinkProgram(ctx, 1, &device, NULL, 1, inputs, record_status, NULL, &err);
    CHECK(err == CL_LINK_PROGRAM_FAILURE, "missing: %d, expected CL_LINK_PROGRAM_FAILURE", err);
    CHECK(notified == 1 && notified_status == CL_BUILD_ERROR, "callback %d, status %d", notified,
          notified_status);
    CHECK(failed != NULL, "a failed link returns its program for the log");
    if (failed) {
        char *log = build_log(failed);
        CHECK(strstr(log, "'missing'") != NULL, "log names the function: %s", log);
        free(log);
        cl_kernel k = clCreateKernel(failed, "k", &err);
        CHECK(k == NULL && err == CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed link: %d", err);
        clReleaseProgram(failed);
    }

    cl_program one = compiled("int twice(int x) { return 2 * x; }", NULL);
    cl_program two = compiled("int twice(int x) { return x + x; }", NULL);
    failed = link2(one, two, NULL, &err);
    CHECK(err == CL_LINK_PROGRAM_FAILURE, "duplicate: %d, expected CL_LINK_PROGRAM_FAILURE", err);
    if (failed) {
        char *log = build_log(failed);
        CHECK(strstr(log, "'twice'") && strstr(log, "more than one"), "log: %s", log);
        free(log);
        clReleaseProgram(failed);
    }
    clReleaseProgram(one);
    clReleaseProgram(two);
    clReleaseProgram(caller);
}

static void what_cannot_be_linked(void) {
    cl_int err;
    cl_program fresh = source("int f(void) { return 1; }");
    cl_program inputs[1] = {fresh};
    CHECK(clLinkProgram(ctx, 1, &device, NULL, 1, inputs, NULL, NULL, &err) == NULL &&
              err == CL_INVALID_OPERATION,
          "a program never compiled: %d", err);
    cl_program broken = source("int f(void) { return }");
    CHECK(clCompileProgram(broken, 1, &device, NULL, 0, NULL, NULL, NULL, NULL) ==
              CL_COMPILE_PROGRAM_FAILURE,
          "a syntax error fails the compile");
    inputs[0] = broken;
    CHECK(clLinkProgram(ctx, 1, &device, NULL, 1, inputs, NULL, NULL, &err) == NULL &&
              err == CL_INVALID_OPERATION,
          "a program whose compile failed: %d", err);
    cl_program built = source("kernel void k(global int *out) { out[0] = 1; }");
    clBuildProgram(built, 1, &device, NULL, NULL, NULL);
    inputs[0] = built;
    CHECK(clLinkProgram(ctx, 1, &device, NULL, 1, inputs, NULL, NULL, &err) == NULL &&
              err == CL_INVALID_OPERATION,
          "an executable: %d", err);
    cl_program object = compiled("int f(void) { return 1; }", NULL);
    inputs[0] = object;
    const char *bad[] = {"-enable-link-options", "-DX=1", "-cl-std=CL2.0", "-no-such-option"};
    for (int i = 0; i < 4; i++) {
        CHECK(clLinkProgram(ctx, 1, &device, bad[i], 1, inputs, NULL, NULL, &err) == NULL &&
                  err == CL_INVALID_LINKER_OPTIONS,
              "link options '%s': %d", bad[i], err);
    }
    cl_program linked = clLinkProgram(ctx, 1, &device, "-cl-fast-relaxed-math -cl-denorms-are-zero",
                                      1, inputs, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS, "link options of the specification: %d", err);
    char options[128] = {0};
    clGetProgramBuildInfo(linked, device, CL_PROGRAM_BUILD_OPTIONS, sizeof options, options, NULL);
    CHECK(strcmp(options, "-cl-fast-relaxed-math -cl-denorms-are-zero") == 0, "options '%s'",
          options);
    clReleaseProgram(linked);
    clReleaseProgram(object);
    clReleaseProgram(built);
    clReleaseProgram(broken);
    clReleaseProgram(fresh);
}

static void libraries_link_again(void) {
    cl_program a = compiled(FIVE, "-DN=5");
    cl_program b = compiled(VERSION, "-cl-std=CL2.0");
    cl_int err;
    notified = 0;
    cl_program pair[2] = {a, b};
    cl_program library = clLinkProgram(ctx, 1, &device, "-create-library -enable-link-options", 2,
                                       pair, record_status, NULL, &err);
    CHECK(err == CL_SUCCESS && library, "library: %d", err);
    CHECK(notified == 1 && notified_status == CL_BUILD_SUCCESS, "callback %d, status %d",
          notified, notified_status);
    CHECK(binary_type(library) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "a library");
    size_t count = 0;
    CHECK(clGetProgramInfo(library, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, NULL) ==
              CL_INVALID_PROGRAM_EXECUTABLE,
          "a library has no kernels to list");
    cl_program c = compiled(USES_THEM, "-DN=3");
    cl_program linked = link2(library, c, NULL, &err);
    CHECK(err == CL_SUCCESS && linked, "library + object: %d", err);
    int got[3];
    run(linked, "k", 3, got);
    CHECK(got[0] == 15 && got[1] == 200, "got %d %d, expected 15 200", got[0], got[1]);
    clReleaseProgram(linked);

    /* Binaries of the object and the library read back and link. */
    size_t object_len, library_len;
    unsigned char *object_bytes = binary_of(c, &object_len);
    unsigned char *library_bytes = binary_of(library, &library_len);
    cl_int status = 1;
    cl_program object2 = from_binary(object_bytes, object_len, &status, &err);
    CHECK(err == CL_SUCCESS && status == CL_SUCCESS, "object binary: %d %d", err, status);
    CHECK(binary_type(object2) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "an object");
    cl_program library2 = from_binary(library_bytes, library_len, &status, &err);
    CHECK(err == CL_SUCCESS && status == CL_SUCCESS, "library binary: %d %d", err, status);
    CHECK(binary_type(library2) == CL_PROGRAM_BINARY_TYPE_LIBRARY, "a library");
    linked = link2(object2, library2, NULL, &err);
    CHECK(err == CL_SUCCESS && linked, "reloaded object + library: %d", err);
    run(linked, "k", 3, got);
    CHECK(got[0] == 15 && got[1] == 200 && got[2] == 120, "got %d %d %d", got[0], got[1], got[2]);

    /* The executable's binary builds and runs. */
    size_t exe_len;
    unsigned char *exe_bytes = binary_of(linked, &exe_len);
    cl_program exe = from_binary(exe_bytes, exe_len, &status, &err);
    CHECK(err == CL_SUCCESS && binary_type(exe) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
          "executable binary: %d", err);
    CHECK(clBuildProgram(exe, 1, &device, NULL, NULL, NULL) == CL_SUCCESS, "build of a binary");
    got[0] = 0;
    run(exe, "k", 3, got);
    CHECK(got[0] == 15 && got[1] == 200 && got[2] == 120, "got %d %d %d", got[0], got[1], got[2]);

    /* Damage is CL_INVALID_BINARY, with the status, never a crash. */
    size_t cuts[] = {1, 20, library_len / 2, library_len - 1};
    for (int i = 0; i < 4; i++) {
        status = 1;
        cl_program none = from_binary(library_bytes, cuts[i], &status, &err);
        CHECK(none == NULL && err == CL_INVALID_BINARY && status == CL_INVALID_BINARY,
              "cut to %zu: %d %d", cuts[i], err, status);
    }
    library_bytes[library_len / 2] ^= 1;
    cl_program none = from_binary(library_bytes, library_len, &status, &err);
    CHECK(none == NULL && err == CL_INVALID_BINARY && status == CL_INVALID_BINARY,
          "a changed byte: %d %d", err, status);

    free(object_bytes);
    free(library_bytes);
    free(exe_bytes);
    clReleaseProgram(exe);
    clReleaseProgram(linked);
    clReleaseProgram(library2);
    clReleaseProgram(object2);
    clReleaseProgram(c);
    clReleaseProgram(library);
    clReleaseProgram(a);
    clReleaseProgram(b);
}

int main(void) {
    cl_platform_id platforms[8];
    cl_uint n = 0;
    clGetPlatformIDs(8, platforms, &n);
    cl_platform_id platform = NULL;
    for (cl_uint i = 0; i < n; i++) {
        char name[64] = {0};
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "vecl") == 0) platform = platforms[i];
    }
    if (!platform) {
        printf("no vecl platform\n");
        return 2;
    }
    cl_int err;
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);

    options_stay_with_their_unit();
    a_header_freed_after_compile_is_not_needed_at_link();
    one_struct_written_in_two_units();
    static_helpers_of_one_name_stay_apart();
    an_extern_variable_is_defined_by_another_unit();
    link_errors_name_the_function();
    what_cannot_be_linked();
    libraries_link_again();

    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    printf("checks: %d failed: %d\n", checks, failures);
    return failures ? 1 : 0;
}
