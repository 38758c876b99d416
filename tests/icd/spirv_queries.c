/* cl_khr_spirv_queries through the ICD loader: the device names the
 * extension, answers the three queries, and every capability, extension
 * and extended instruction set it reports is accepted by
 * clCreateProgramWithIL + clBuildProgram in a module that declares it;
 * a capability it does not report (Pipes) and an unknown extension are
 * refused with a build log naming them.
 *
 * Prints "checks N failed M" last. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From cl_ext.h (OpenCL-Headers 2025+), here so that older headers do. */
#define SPIRV_EXTENDED_INSTRUCTION_SETS 0x12B9
#define SPIRV_EXTENSIONS 0x12BA
#define SPIRV_CAPABILITIES 0x12BB

static int checks, failed;

static void check(int ok, const char *what) {
    checks++;
    if (!ok) {
        failed++;
        printf("FAIL: %s\n", what);
    }
}

/* A module under construction. */
typedef struct {
    uint32_t w[256];
    size_t n;
} Words;

static void put(Words *m, uint32_t word) {
    if (m->n < 256) m->w[m->n++] = word;
}

static void inst(Words *m, uint32_t op, const uint32_t *ops, size_t k) {
    put(m, (uint32_t)((k + 1) << 16) | op);
    for (size_t i = 0; i < k; i++) put(m, ops[i]);
}

/* An instruction whose operands are `first` ids, then a string. */
static void inst_str(Words *m, uint32_t op, const uint32_t *first, size_t k,
                     const char *s) {
    size_t len = strlen(s) + 1, words = (len + 3) / 4;
    put(m, (uint32_t)((1 + k + words) << 16) | op);
    for (size_t i = 0; i < k; i++) put(m, first[i]);
    for (size_t i = 0; i < words; i++) {
        uint32_t w = 0;
        for (size_t b = 0; b < 4; b++) {
            size_t at = i * 4 + b;
            if (at < len) w |= (uint32_t)(unsigned char)s[at] << (8 * b);
        }
        put(m, w);
    }
}

enum { OpExtension = 10, OpExtInstImport = 11, OpMemoryModel = 14,
       OpEntryPoint = 15, OpCapability = 17, OpTypeVoid = 19,
       OpTypeFunction = 33, OpFunction = 54, OpFunctionEnd = 56,
       OpLabel = 248, OpReturn = 253 };
enum { CapAddresses = 4, CapLinkage = 5, CapKernel = 6, CapInt64 = 11,
       CapPipes = 17 };

/* A module with an empty kernel "k", declaring capability `cap` (0: none
 * beyond the base), extension `ext` and importing set `set` (NULL: none). */
static Words module(uint32_t cap, const char *ext, const char *set) {
    Words m = {.n = 0};
    put(&m, 0x07230203);
    put(&m, 0x00010000); /* SPIR-V 1.0 */
    put(&m, 0);
    put(&m, 10); /* bound */
    put(&m, 0);
    uint32_t base[] = {CapAddresses, CapLinkage, CapKernel, CapInt64};
    for (size_t i = 0; i < 4; i++) inst(&m, OpCapability, &base[i], 1);
    if (cap) inst(&m, OpCapability, &cap, 1);
    if (ext) inst_str(&m, OpExtension, NULL, 0, ext);
    if (set) {
        uint32_t id = 9;
        inst_str(&m, OpExtInstImport, &id, 1, set);
    }
    uint32_t mm[] = {2, 2}; /* Physical64, OpenCL */
    inst(&m, OpMemoryModel, mm, 2);
    uint32_t ep[] = {6, 3}; /* Kernel, %3 */
    inst_str(&m, OpEntryPoint, ep, 2, "k");
    uint32_t v[] = {1};
    inst(&m, OpTypeVoid, v, 1);
    uint32_t ft[] = {2, 1};
    inst(&m, OpTypeFunction, ft, 2);
    uint32_t f[] = {1, 3, 0, 2};
    inst(&m, OpFunction, f, 4);
    uint32_t l[] = {4};
    inst(&m, OpLabel, l, 1);
    inst(&m, OpReturn, NULL, 0);
    inst(&m, OpFunctionEnd, NULL, 0);
    return m;
}

/* Builds `m`; returns CL_SUCCESS or the error, the log in `log`. */
static cl_int build(cl_context ctx, cl_device_id dev, const Words *m,
                    char *log, size_t log_size) {
    cl_int err;
    log[0] = 0;
    cl_program p = clCreateProgramWithIL(ctx, m->w, m->n * 4, &err);
    if (err != CL_SUCCESS) return err;
    err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
    clReleaseProgram(p);
    return err;
}

static void *query(cl_device_id dev, cl_uint name, size_t *count, size_t elem) {
    size_t size = 0;
    cl_int err = clGetDeviceInfo(dev, name, 0, NULL, &size);
    check(err == CL_SUCCESS, "the size of a SPIR-V query");
    void *out = calloc(1, size ? size : 1);
    err = clGetDeviceInfo(dev, name, size, out, NULL);
    check(err == CL_SUCCESS, "a SPIR-V query");
    *count = size / elem;
    /* A buffer one element short is CL_INVALID_VALUE. */
    if (size >= elem) {
        err = clGetDeviceInfo(dev, name, size - elem, out, NULL);
        check(err == CL_INVALID_VALUE, "a short buffer is CL_INVALID_VALUE");
    }
    return out;
}

static int has_string(const char **list, size_t n, const char *s) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0) return 1;
    return 0;
}

int main(void) {
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
        printf("no device\n");
        return 1;
    }
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    char text[8192], log[8192], what[512];

    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof text, text, NULL);
    check(strstr(text, "cl_khr_spirv_queries") != NULL,
          "CL_DEVICE_EXTENSIONS names cl_khr_spirv_queries");

    size_t n_sets, n_exts, n_caps;
    const char **sets = query(dev, SPIRV_EXTENDED_INSTRUCTION_SETS, &n_sets, sizeof(char *));
    const char **exts = query(dev, SPIRV_EXTENSIONS, &n_exts, sizeof(char *));
    cl_uint *caps = query(dev, SPIRV_CAPABILITIES, &n_caps, sizeof(cl_uint));

    /* What the OpenCL environment requires of every device, and what
     * vecl's other queries imply (images, fp16, fp64, sub-groups…). */
    check(has_string(sets, n_sets, "OpenCL.std"), "OpenCL.std is reported");
    static const cl_uint required[] = {4,  5,  6,  7,  8,  9,  10, 11, 12, 13,
                                       14, 18, 20, 22, 38, 39, 43, 44, 46, 47,
                                       58, 61, 62, 63, 64, 65, 66, 67, 71,
                                       5629, 6017, 6018, 6019, 6025};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++) {
        int found = 0;
        for (size_t k = 0; k < n_caps; k++) found |= caps[k] == required[i];
        snprintf(what, sizeof what, "capability %u is reported", required[i]);
        check(found, what);
    }
    check(has_string(exts, n_exts, "SPV_KHR_integer_dot_product"),
          "SPV_KHR_integer_dot_product is reported");
    check(has_string(exts, n_exts, "SPV_KHR_subgroup_rotate"),
          "SPV_KHR_subgroup_rotate is reported");

    /* Everything reported builds. */
    for (size_t k = 0; k < n_caps; k++) {
        Words m = module(caps[k], NULL, NULL);
        err = build(ctx, dev, &m, log, sizeof log);
        snprintf(what, sizeof what, "a module declaring capability %u builds (%d: %.300s)",
                 caps[k], err, log);
        check(err == CL_SUCCESS, what);
    }
    for (size_t k = 0; k < n_exts; k++) {
        Words m = module(0, exts[k], NULL);
        err = build(ctx, dev, &m, log, sizeof log);
        snprintf(what, sizeof what, "a module declaring %s builds (%d: %.300s)", exts[k], err, log);
        check(err == CL_SUCCESS, what);
    }
    for (size_t k = 0; k < n_sets; k++) {
        Words m = module(0, NULL, sets[k]);
        err = build(ctx, dev, &m, log, sizeof log);
        snprintf(what, sizeof what, "a module importing %s builds (%d: %.300s)", sets[k], err, log);
        check(err == CL_SUCCESS, what);
    }

    /* What is not reported is refused, by name. */
    for (size_t k = 0; k < n_caps; k++) check(caps[k] != CapPipes, "Pipes is not reported");
    Words pipes = module(CapPipes, NULL, NULL);
    err = build(ctx, dev, &pipes, log, sizeof log);
    check(err == CL_BUILD_PROGRAM_FAILURE && strstr(log, "Pipes") != NULL,
          "a module declaring Pipes is refused, the log naming it");
    Words unknown = module(0, "SPV_INTEL_function_pointers", NULL);
    err = build(ctx, dev, &unknown, log, sizeof log);
    check(err == CL_BUILD_PROGRAM_FAILURE && strstr(log, "SPV_INTEL_function_pointers") != NULL,
          "a module declaring an unsupported extension is refused, the log naming it");
    Words set = module(0, NULL, "GLSL.std.450");
    err = build(ctx, dev, &set, log, sizeof log);
    check(err == CL_BUILD_PROGRAM_FAILURE && strstr(log, "GLSL.std.450") != NULL,
          "a module importing an unsupported set is refused, the log naming it");

    free(sets);
    free(exts);
    free(caps);
    clReleaseContext(ctx);
    printf("checks %d failed %d\n", checks, failed);
    return failed != 0;
}
