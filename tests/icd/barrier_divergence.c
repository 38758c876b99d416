/* A barrier under `if (gid < n)`, through the ICD loader: the program (two
 * kernels) builds, a launch where every group agrees on the condition gives
 * the right results, a launch where a group splits fails with
 * CL_OUT_OF_RESOURCES (event status, clFinish) and the context's pfn_notify
 * names the kernel, the barrier's line and the work-items on each side, and
 * the other kernel of the program still runs. Prints "barrier divergence
 * ok" (exit 0) or one line per failed check (exit 1). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *SOURCE =
    "kernel void split(global int *out, local int *tmp, int n) {\n"
    "    int gid = get_global_id(0);\n"
    "    int lid = get_local_id(0);\n"
    "    out[gid] = -1;\n"
    "    if (gid < n) {\n"
    "        tmp[lid] = gid;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        out[gid] = tmp[get_local_size(0) - 1 - lid];\n"
    "    }\n"
    "}\n"
    "kernel void twice(global int *data) { data[get_global_id(0)] *= 2; }\n";

#define ITEMS 64
#define GROUP 16

static int failures;

#define CHECK(call)                                                          \
    do {                                                                     \
        cl_int err_ = (call);                                                \
        if (err_ != CL_SUCCESS) {                                            \
            printf("FAIL line %d: %s returned %d\n", __LINE__, #call, err_); \
            return 1;                                                        \
        }                                                                    \
    } while (0)

static void report(const char *what) {
    failures++;
    printf("FAIL: %s\n", what);
}

static pthread_mutex_t notes_lock = PTHREAD_MUTEX_INITIALIZER;
static char notes[8192];

static void CL_CALLBACK record_note(const char *errinfo, const void *private_info, size_t cb, void *user_data) {
    (void)private_info;
    (void)cb;
    (void)user_data;
    pthread_mutex_lock(&notes_lock);
    size_t used = strlen(notes);
    snprintf(notes + used, sizeof notes - used, "%s\n", errinfo ? errinfo : "(null)");
    pthread_mutex_unlock(&notes_lock);
}

static int notes_mention(const char *word) {
    pthread_mutex_lock(&notes_lock);
    int found = strstr(notes, word) != NULL;
    pthread_mutex_unlock(&notes_lock);
    return found;
}

static cl_platform_id find_vecl(void) {
    cl_platform_id platforms[8];
    cl_uint n = 0;
    if (clGetPlatformIDs(8, platforms, &n) != CL_SUCCESS) return NULL;
    for (cl_uint i = 0; i < n; i++) {
        char name[64] = {0};
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "vecl") == 0) return platforms[i];
    }
    return NULL;
}

/* Runs `split` with bound `n`; returns clFinish's code, the event's status
 * in *status and the output in out. */
static cl_int run_split(cl_command_queue queue, cl_kernel kernel, cl_mem buf, int n, cl_int *status, int *out) {
    size_t global = ITEMS, local = GROUP;
    cl_event done;
    clSetKernelArg(kernel, 2, sizeof n, &n);
    cl_int err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, &done);
    if (err != CL_SUCCESS) return err;
    cl_int finished = clFinish(queue);
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *status, status, NULL);
    clReleaseEvent(done);
    clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, ITEMS * sizeof(int), out, 0, NULL, NULL);
    return finished;
}

int main(void) {
    cl_platform_id platform = find_vecl();
    if (!platform) {
        printf("FAIL: no vecl platform\n");
        return 1;
    }
    cl_device_id device;
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context ctx = clCreateContext(props, 1, &device, record_note, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    CHECK(err);
    cl_program program = clCreateProgramWithSource(ctx, 1, &SOURCE, NULL, &err);
    CHECK(err);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = {0};
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("FAIL: clBuildProgram returned %d: %s\n", err, log);
        return 1;
    }
    cl_kernel split = clCreateKernel(program, "split", &err);
    CHECK(err);
    cl_kernel twice = clCreateKernel(program, "twice", &err);
    CHECK(err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, ITEMS * sizeof(int), NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(split, 0, sizeof buf, &buf));
    CHECK(clSetKernelArg(split, 1, GROUP * sizeof(int), NULL));

    /* Groups 0 and 1 below the bound, 2 and 3 above: every group agrees. */
    int out[ITEMS];
    cl_int status = 1;
    err = run_split(queue, split, buf, 2 * GROUP, &status, out);
    if (err != CL_SUCCESS || status != CL_COMPLETE) report("the launch every group agrees on failed");
    for (int i = 0; i < ITEMS; i++) {
        int group = i / GROUP, lid = i % GROUP;
        int want = i < 2 * GROUP ? group * GROUP + GROUP - 1 - lid : -1;
        if (out[i] != want) {
            printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], want);
            failures++;
            break;
        }
    }
    if (notes_mention("split")) report("pfn_notify heard of a failure on the uniform launch");

    /* Group 1 splits: items 16..19 reach the barrier, 20..31 do not. */
    err = run_split(queue, split, buf, GROUP + 4, &status, out);
    if (err != CL_OUT_OF_RESOURCES) {
        printf("FAIL: clFinish after the divergent launch returned %d, expected CL_OUT_OF_RESOURCES\n", err);
        failures++;
    }
    if (status != CL_OUT_OF_RESOURCES) {
        printf("FAIL: the divergent launch's event status is %d, expected CL_OUT_OF_RESOURCES\n", status);
        failures++;
    }
    const char *words[] = {"kernel `split`", "barrier at line 7:", "local id (0, 0, 0) in group (1, 0, 0)",
                           "local id (4, 0, 0)"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        if (!notes_mention(words[i])) {
            printf("FAIL: pfn_notify did not mention \"%s\"; it heard: %s\n", words[i], notes);
            failures++;
        }
    }

    /* The program's other kernel still runs, and so does the queue. */
    int data[ITEMS];
    for (int i = 0; i < ITEMS; i++) data[i] = i;
    CHECK(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));
    CHECK(clSetKernelArg(twice, 0, sizeof buf, &buf));
    size_t global = ITEMS;
    CHECK(clEnqueueNDRangeKernel(queue, twice, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clFinish(queue));
    CHECK(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));
    for (int i = 0; i < ITEMS; i++) {
        if (data[i] != 2 * i) {
            printf("FAIL: after the failure, twice gave data[%d] = %d\n", i, data[i]);
            failures++;
            break;
        }
    }
    clReleaseMemObject(buf);
    clReleaseKernel(split);
    clReleaseKernel(twice);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    if (failures) return 1;
    printf("barrier divergence ok\n");
    return 0;
}
