/* OpenCL C source is bytes, as C compilers take it: a program whose
 * comments and string literals hold bytes that are not UTF-8 (Windows-1252
 * quotes, Latin-1 letters) builds, its literals keep those bytes, and
 * CL_PROGRAM_SOURCE gives back exactly what was given. Such a byte in the
 * code itself is a build error with a position in the log. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                            \
    do {                                                                       \
        cl_int err_ = (call);                                                  \
        if (err_ != CL_SUCCESS) {                                              \
            printf("FAIL line %d: %s = %d\n", __LINE__, #call, err_);          \
            return 1;                                                          \
        }                                                                      \
    } while (0)

static const char good[] =
    "// \x93quoted\x94 in a comment, and caf\xe9\n"
    "/* \x85 in a block comment */\n"
    "__kernel void k(__global uchar *o) {\n"
    "    const char s[] = \"\xe9t\xff\";\n"
    "    o[0] = s[0]; o[1] = s[1]; o[2] = s[2]; o[3] = '\xe8';\n"
    "}\n";

static const char bad[] = "__kernel void k(__global uchar *o) { o[0] = 1; \x93 }\n";

int main(void) {
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    CHECK(err);

    const char *src = good;
    cl_program program = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    char back[sizeof good + 16];
    size_t back_len = 0;
    CHECK(clGetProgramInfo(program, CL_PROGRAM_SOURCE, sizeof back, back, &back_len));
    if (back_len != sizeof good || memcmp(back, good, sizeof good) != 0) {
        printf("FAIL: CL_PROGRAM_SOURCE changed the source (%zu bytes back, %zu given)\n",
               back_len, sizeof good);
        return 1;
    }
    CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
    cl_kernel kernel = clCreateKernel(program, "k", &err);
    CHECK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
    size_t one = 1;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &one, &one, 0, NULL, NULL));
    unsigned char got[4] = {0};
    CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, 4, got, 0, NULL, NULL));
    if (got[0] != 0xE9 || got[1] != 't' || got[2] != 0xFF || got[3] != 0xE8) {
        printf("FAIL: the literals' bytes came back as %02x %02x %02x %02x\n", got[0], got[1],
               got[2], got[3]);
        return 1;
    }

    src = bad;
    cl_program broken = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    err = clBuildProgram(broken, 1, &device, "", NULL, NULL);
    if (err != CL_BUILD_PROGRAM_FAILURE) {
        printf("FAIL: a stray byte in the code built (%d)\n", err);
        return 1;
    }
    char log[4096] = {0};
    CHECK(clGetProgramBuildInfo(broken, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    if (strstr(log, ":1:") == NULL) {
        printf("FAIL: the build log does not say where: %s\n", log);
        return 1;
    }
    printf("source bytes ok\n");
    return 0;
}
