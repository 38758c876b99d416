/* Drives libvecl.so through the ICD loader with wrong arguments: invalid,
 * released and mistyped handles, null pointers, wrong sizes and indices.
 * Each call must return the error code the OpenCL specification lists for
 * that mistake, and nothing may crash. Prints one line per failed check and
 * "checks: N failed: M"; exits non-zero if any check failed. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include <CL/cl.h>
#include <CL/cl_egl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

/* CL_DEVICE_IMAGE_SUPPORT: image calls that a device without images
 * answers with CL_INVALID_OPERATION check their arguments otherwise. */
static int images;
#define IMAGES_OR_NONE(code) (images ? (code) : CL_INVALID_OPERATION)

#define EXPECT(call, want)                                                   \
    do {                                                                     \
        cl_int got_ = (call);                                                \
        checks++;                                                            \
        if (got_ != (want)) {                                                \
            failures++;                                                      \
            printf("FAIL line %d: %s returned %d, expected %s (%d)\n",       \
                   __LINE__, #call, got_, #want, (want));                    \
        }                                                                    \
    } while (0)

/* For functions reporting through errcode_ret: the value must be NULL and
 * the code as given. */
#define EXPECT_NULL(expr, err, want)                                         \
    do {                                                                     \
        err = 12345;                                                         \
        void *got_ = (void *)(expr);                                         \
        checks++;                                                            \
        if (got_ != NULL || err != (want)) {                                 \
            failures++;                                                      \
            printf("FAIL line %d: %s gave %p / %d, expected NULL / %s\n",    \
                   __LINE__, #expr, got_, err, #want);                       \
        }                                                                    \
    } while (0)

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

/* Dummy callbacks: passing them makes a call's other arguments the only
 * thing wrong with it. */
static void CL_CALLBACK mem_notify(cl_mem mem, void *user) { (void)mem; (void)user; }
static int destroyed;
static void CL_CALLBACK count_destroyed(cl_mem mem, void *user) { (void)mem; (void)user; destroyed++; }
static void CL_CALLBACK context_destroyed(cl_context context, void *user) { (void)context; (void)user; }
static void CL_CALLBACK program_notify(cl_program program, void *user) { (void)program; (void)user; }
static void CL_CALLBACK event_notify(cl_event event, cl_int status, void *user) {
    (void)event; (void)status; (void)user;
}
static void CL_CALLBACK native_kernel(void *args) { (void)args; }

/* Every entry point of the dispatch table, in the order of the table, gets
 * handles of the wrong type, null pointers, wrong sizes and wrong indices.
 * Handles of the wrong type are vecl objects of another kind: the loader
 * routes them to vecl, which must tell them apart. */
static void every_entry_point(cl_platform_id platform, cl_device_id device) {
    cl_int err;
    char value[256];
    size_t size = 0;
    cl_uint count = 0;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_event user = clCreateUserEvent(ctx, &err);
    EXPECT(err, CL_SUCCESS);
    const char *source =
        "kernel void k(global int *a, int b, local int *c) { c[0] = b; a[get_global_id(0)] = c[0]; }";
    cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    /* Wrong handles: each object passed where another kind is expected. */
    cl_platform_id bad_platform = (cl_platform_id)ctx;
    cl_device_id bad_device = (cl_device_id)ctx;
    cl_context bad_ctx = (cl_context)queue;
    cl_command_queue bad_queue = (cl_command_queue)ctx;
    cl_mem bad_mem = (cl_mem)ctx;
    cl_program bad_program = (cl_program)ctx;
    cl_kernel bad_kernel = (cl_kernel)ctx;
    cl_event bad_event = (cl_event)ctx;
    cl_sampler bad_sampler = (cl_sampler)ctx;
    char host[256];
    size_t origin[3] = {0, 0, 0}, region[3] = {4, 4, 1};

    /* clGetPlatformIDs (answered by the loader itself). */
    cl_platform_id platforms[4];
    EXPECT(clGetPlatformIDs(0, platforms, NULL), CL_INVALID_VALUE);
    EXPECT(clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
    /* clGetPlatformInfo */
    EXPECT(clGetPlatformInfo(bad_platform, CL_PLATFORM_NAME, sizeof value, value, NULL), CL_INVALID_PLATFORM);
    EXPECT(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, 1, value, NULL), CL_INVALID_VALUE);
    /* clGetDeviceIDs */
    EXPECT(clGetDeviceIDs(bad_platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), CL_INVALID_PLATFORM);
    EXPECT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceIDs(platform, (cl_device_type)1 << 40, 0, NULL, &count), CL_INVALID_DEVICE_TYPE);
    /* clGetDeviceInfo */
    EXPECT(clGetDeviceInfo(bad_device, CL_DEVICE_NAME, sizeof value, value, NULL), CL_INVALID_DEVICE);
    EXPECT(clGetDeviceInfo(device, CL_DEVICE_NAME, 1, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceInfo(device, CL_DEVICE_NAME, 0, NULL, &size), CL_SUCCESS);
    /* clCreateContext */
    EXPECT_NULL(clCreateContext(props, 0, NULL, NULL, NULL, &err), err, CL_INVALID_VALUE);
    cl_device_id two[2] = {device, bad_device};
    EXPECT_NULL(clCreateContext(props, 2, two, NULL, NULL, &err), err, CL_INVALID_DEVICE);
    cl_context_properties bad_platform_props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx, 0};
    EXPECT_NULL(clCreateContext(bad_platform_props, 1, &device, NULL, NULL, &err), err, CL_INVALID_PLATFORM);
    /* clCreateContextFromType */
    EXPECT_NULL(clCreateContextFromType(props, 0, NULL, NULL, &err), err, CL_INVALID_DEVICE_TYPE);
    EXPECT_NULL(clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL, host, &err), err, CL_INVALID_VALUE);
    cl_context_properties bad_key[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0x7777, 1, 0};
    EXPECT_NULL(clCreateContextFromType(bad_key, CL_DEVICE_TYPE_ALL, NULL, NULL, &err), err, CL_INVALID_PROPERTY);
    /* clRetainContext, clReleaseContext */
    EXPECT(clRetainContext(bad_ctx), CL_INVALID_CONTEXT);
    EXPECT(clReleaseContext(bad_ctx), CL_INVALID_CONTEXT);
    /* clGetContextInfo */
    EXPECT(clGetContextInfo(bad_ctx, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, NULL), CL_INVALID_CONTEXT);
    EXPECT(clGetContextInfo(ctx, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, 1, value, NULL), CL_INVALID_VALUE);
    /* clCreateCommandQueue */
    EXPECT_NULL(clCreateCommandQueue(bad_ctx, device, 0, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateCommandQueue(ctx, bad_device, 0, &err), err, CL_INVALID_DEVICE);
    EXPECT_NULL(clCreateCommandQueue(ctx, device, (cl_command_queue_properties)1 << 30, &err), err, CL_INVALID_VALUE);
    /* clRetainCommandQueue, clReleaseCommandQueue */
    EXPECT(clRetainCommandQueue(bad_queue), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clReleaseCommandQueue(bad_queue), CL_INVALID_COMMAND_QUEUE);
    /* clGetCommandQueueInfo */
    EXPECT(clGetCommandQueueInfo(bad_queue, CL_QUEUE_CONTEXT, sizeof value, value, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clGetCommandQueueInfo(queue, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, 1, value, NULL), CL_INVALID_VALUE);
    /* clSetCommandQueueProperty */
    EXPECT(clSetCommandQueueProperty(bad_queue, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, NULL), CL_INVALID_COMMAND_QUEUE);
    /* clCreateBuffer */
    EXPECT_NULL(clCreateBuffer(bad_ctx, CL_MEM_READ_WRITE, 16, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)-1, NULL, &err), err, CL_INVALID_BUFFER_SIZE);
    EXPECT_NULL(clCreateBuffer(ctx, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 16, NULL, &err), err, CL_INVALID_VALUE);
    /* clCreateImage2D, clCreateImage3D */
    cl_image_format format = {CL_RGBA, CL_FLOAT};
    EXPECT_NULL(clCreateImage2D(bad_ctx, CL_MEM_READ_WRITE, &format, 4, 4, 0, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateImage2D(ctx, CL_MEM_READ_WRITE, &format, 0, 4, 0, NULL, &err), err, IMAGES_OR_NONE(CL_INVALID_IMAGE_SIZE));
    EXPECT_NULL(clCreateImage3D(bad_ctx, CL_MEM_READ_WRITE, &format, 4, 4, 4, 0, 0, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateImage3D(ctx, CL_MEM_READ_WRITE, &format, 4, 4, 1, 0, 0, NULL, &err), err, IMAGES_OR_NONE(CL_INVALID_IMAGE_SIZE));
    /* clRetainMemObject, clReleaseMemObject */
    EXPECT(clRetainMemObject(bad_mem), CL_INVALID_MEM_OBJECT);
    EXPECT(clReleaseMemObject(bad_mem), CL_INVALID_MEM_OBJECT);
    /* clGetSupportedImageFormats */
    EXPECT(clGetSupportedImageFormats(bad_ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count), CL_INVALID_CONTEXT);
    cl_image_format formats[2];
    EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, formats, NULL), CL_INVALID_VALUE);
    EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_BUFFER, 0, NULL, &count), CL_INVALID_VALUE);
    /* clGetMemObjectInfo */
    EXPECT(clGetMemObjectInfo(bad_mem, CL_MEM_SIZE, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clGetMemObjectInfo(buf, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetMemObjectInfo(buf, CL_MEM_SIZE, 1, value, NULL), CL_INVALID_VALUE);
    /* clGetImageInfo */
    EXPECT(clGetImageInfo(bad_mem, CL_IMAGE_WIDTH, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);
    /* clCreateSampler */
    EXPECT_NULL(clCreateSampler(bad_ctx, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_NONE, 0x7777, &err), err, IMAGES_OR_NONE(CL_INVALID_VALUE));
    /* clRetainSampler, clReleaseSampler, clGetSamplerInfo */
    EXPECT(clRetainSampler(bad_sampler), CL_INVALID_SAMPLER);
    EXPECT(clReleaseSampler(bad_sampler), CL_INVALID_SAMPLER);
    EXPECT(clGetSamplerInfo(bad_sampler, CL_SAMPLER_CONTEXT, sizeof value, value, NULL), CL_INVALID_SAMPLER);
    /* clCreateProgramWithSource */
    EXPECT_NULL(clCreateProgramWithSource(bad_ctx, 1, &source, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateProgramWithSource(ctx, 1, NULL, NULL, &err), err, CL_INVALID_VALUE);
    /* clCreateProgramWithBinary */
    const unsigned char junk[] = "junk";
    const unsigned char *junk_ptr = junk;
    size_t junk_len = sizeof junk, zero_len = 0;
    EXPECT_NULL(clCreateProgramWithBinary(bad_ctx, 1, &device, &junk_len, &junk_ptr, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateProgramWithBinary(ctx, 0, &device, &junk_len, &junk_ptr, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateProgramWithBinary(ctx, 1, NULL, &junk_len, &junk_ptr, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateProgramWithBinary(ctx, 1, &bad_device, &junk_len, &junk_ptr, NULL, &err), err, CL_INVALID_DEVICE);
    EXPECT_NULL(clCreateProgramWithBinary(ctx, 1, &device, NULL, &junk_ptr, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateProgramWithBinary(ctx, 1, &device, &junk_len, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateProgramWithBinary(ctx, 1, &device, &zero_len, &junk_ptr, NULL, &err), err, CL_INVALID_VALUE);
    /* clRetainProgram, clReleaseProgram */
    EXPECT(clRetainProgram(bad_program), CL_INVALID_PROGRAM);
    EXPECT(clReleaseProgram(bad_program), CL_INVALID_PROGRAM);
    /* clBuildProgram */
    EXPECT(clBuildProgram(bad_program, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    EXPECT(clBuildProgram(program, 1, &bad_device, NULL, NULL, NULL), CL_INVALID_DEVICE);
    EXPECT(clBuildProgram(program, 0, &device, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clBuildProgram(program, 0, NULL, "-cl-no-such-option", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    /* clUnloadCompiler */
    EXPECT(clUnloadCompiler(), CL_SUCCESS);
    /* clGetProgramInfo */
    EXPECT(clGetProgramInfo(bad_program, CL_PROGRAM_CONTEXT, sizeof value, value, NULL), CL_INVALID_PROGRAM);
    EXPECT(clGetProgramInfo(program, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetProgramInfo(program, CL_PROGRAM_CONTEXT, 1, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof size, &size, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    /* clGetProgramBuildInfo */
    EXPECT(clGetProgramBuildInfo(bad_program, device, CL_PROGRAM_BUILD_STATUS, sizeof value, value, NULL), CL_INVALID_PROGRAM);
    EXPECT(clGetProgramBuildInfo(program, bad_device, CL_PROGRAM_BUILD_STATUS, sizeof value, value, NULL), CL_INVALID_DEVICE);
    EXPECT(clGetProgramBuildInfo(program, device, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS, 1, value, NULL), CL_INVALID_VALUE);
    /* clCreateKernel, clCreateKernelsInProgram before a build */
    EXPECT_NULL(clCreateKernel(bad_program, "k", &err), err, CL_INVALID_PROGRAM);
    EXPECT(clCreateKernelsInProgram(bad_program, 0, NULL, &count), CL_INVALID_PROGRAM);
    EXPECT(clCreateKernelsInProgram(program, 0, NULL, &count), CL_INVALID_PROGRAM_EXECUTABLE);

    cl_kernel kernel = NULL;
    if (clBuildProgram(program, 0, NULL, NULL, NULL, NULL) == CL_SUCCESS) {
        kernel = clCreateKernel(program, "k", &err);
        EXPECT(err, CL_SUCCESS);
        cl_kernel kernels[1];
        EXPECT(clCreateKernelsInProgram(program, 0, kernels, NULL), CL_INVALID_VALUE);
        EXPECT(clCreateKernelsInProgram(program, 0, NULL, &count), CL_SUCCESS);
        EXPECT(count == 1 ? CL_SUCCESS : -1, CL_SUCCESS);
    } else {
        printf("FAIL: the kernel of every_entry_point did not build\n");
        failures++;
    }
    cl_kernel k = kernel ? kernel : bad_kernel;
    int int_value = 1;
    /* clRetainKernel, clReleaseKernel */
    EXPECT(clRetainKernel(bad_kernel), CL_INVALID_KERNEL);
    EXPECT(clReleaseKernel(bad_kernel), CL_INVALID_KERNEL);
    /* clSetKernelArg */
    EXPECT(clSetKernelArg(bad_kernel, 0, sizeof buf, &buf), CL_INVALID_KERNEL);
    EXPECT(clSetKernelArg(k, 3, sizeof int_value, &int_value), CL_INVALID_ARG_INDEX);
    EXPECT(clSetKernelArg(k, 1, sizeof int_value, NULL), CL_INVALID_ARG_VALUE);
    EXPECT(clSetKernelArg(k, 2, 16, &int_value), CL_INVALID_ARG_VALUE);
    EXPECT(clSetKernelArg(k, 2, 0, NULL), CL_INVALID_ARG_SIZE);
    EXPECT(clSetKernelArg(k, 0, 3, &buf), CL_INVALID_ARG_SIZE);
    EXPECT(clSetKernelArg(k, 0, sizeof bad_mem, &bad_mem), CL_INVALID_MEM_OBJECT);
    /* clGetKernelInfo */
    EXPECT(clGetKernelInfo(bad_kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, NULL), CL_INVALID_KERNEL);
    EXPECT(clGetKernelInfo(k, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 1, value, NULL), CL_INVALID_VALUE);
    /* clGetKernelWorkGroupInfo */
    EXPECT(clGetKernelWorkGroupInfo(bad_kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, NULL), CL_INVALID_KERNEL);
    EXPECT(clGetKernelWorkGroupInfo(k, bad_device, CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, NULL), CL_INVALID_DEVICE);
    EXPECT(clGetKernelWorkGroupInfo(k, device, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE, 1, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetKernelWorkGroupInfo(k, device, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof value, value, NULL), CL_INVALID_VALUE);
    /* clWaitForEvents */
    EXPECT(clWaitForEvents(1, NULL), CL_INVALID_VALUE);
    EXPECT(clWaitForEvents(1, &bad_event), CL_INVALID_EVENT);
    /* clGetEventInfo */
    EXPECT(clGetEventInfo(bad_event, CL_EVENT_CONTEXT, sizeof value, value, NULL), CL_INVALID_EVENT);
    EXPECT(clGetEventInfo(user, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    EXPECT(clGetEventInfo(user, CL_EVENT_CONTEXT, 1, value, NULL), CL_INVALID_VALUE);
    /* clRetainEvent, clReleaseEvent */
    EXPECT(clRetainEvent(bad_event), CL_INVALID_EVENT);
    EXPECT(clReleaseEvent(bad_event), CL_INVALID_EVENT);
    /* clGetEventProfilingInfo: the queue has no profiling. */
    cl_event marked;
    EXPECT(clEnqueueMarkerWithWaitList(queue, 0, NULL, &marked), CL_SUCCESS);
    EXPECT(clFinish(queue), CL_SUCCESS);
    cl_ulong t;
    EXPECT(clGetEventProfilingInfo(bad_event, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), CL_INVALID_EVENT);
    EXPECT(clGetEventProfilingInfo(marked, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), CL_PROFILING_INFO_NOT_AVAILABLE);
    /* clFlush, clFinish */
    EXPECT(clFlush(bad_queue), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clFinish(bad_queue), CL_INVALID_COMMAND_QUEUE);
    /* clEnqueueReadBuffer, clEnqueueWriteBuffer */
    EXPECT(clEnqueueReadBuffer(bad_queue, buf, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16, host, 0, &user, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueWriteBuffer(bad_queue, buf, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueWriteBuffer(queue, bad_mem, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, 16, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, 16, host, 1, &bad_event, NULL), CL_INVALID_EVENT_WAIT_LIST);
    /* clEnqueueCopyBuffer */
    EXPECT(clEnqueueCopyBuffer(bad_queue, buf, buf, 0, 128, 16, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueCopyBuffer(queue, bad_mem, buf, 0, 128, 16, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyBuffer(queue, buf, bad_mem, 0, 128, 16, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyBuffer(queue, buf, buf, 0, 128, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyBuffer(queue, buf, buf, 0, 250, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    /* Image commands: no memory object is an image. */
    EXPECT(clEnqueueReadImage(bad_queue, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueReadImage(queue, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueWriteImage(bad_queue, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueWriteImage(queue, buf, CL_TRUE, origin, region, 0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyImage(bad_queue, buf, buf, origin, origin, region, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueCopyImage(queue, buf, buf, origin, origin, region, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyImageToBuffer(bad_queue, buf, buf, origin, region, 0, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueCopyImageToBuffer(queue, buf, buf, origin, region, 0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyBufferToImage(bad_queue, buf, buf, 0, origin, region, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueCopyBufferToImage(queue, buf, buf, 0, origin, region, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    /* clEnqueueMapBuffer */
    EXPECT_NULL(clEnqueueMapBuffer(bad_queue, buf, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, NULL, &err), err, CL_INVALID_COMMAND_QUEUE);
    EXPECT_NULL(clEnqueueMapBuffer(queue, bad_mem, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL, NULL, &err), err, CL_INVALID_MEM_OBJECT);
    EXPECT_NULL(clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clEnqueueMapBuffer(queue, buf, CL_TRUE, (cl_map_flags)1 << 20, 0, 16, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    /* clEnqueueMapImage */
    size_t pitch;
    EXPECT_NULL(clEnqueueMapImage(bad_queue, buf, CL_TRUE, CL_MAP_READ, origin, region, &pitch, NULL, 0, NULL, NULL, &err), err, CL_INVALID_COMMAND_QUEUE);
    EXPECT_NULL(clEnqueueMapImage(queue, buf, CL_TRUE, CL_MAP_READ, origin, region, &pitch, NULL, 0, NULL, NULL, &err), err, CL_INVALID_MEM_OBJECT);
    /* clEnqueueUnmapMemObject */
    EXPECT(clEnqueueUnmapMemObject(bad_queue, buf, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueUnmapMemObject(queue, bad_mem, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueUnmapMemObject(queue, buf, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    /* clEnqueueNDRangeKernel */
    size_t global[3] = {64, 1, 1}, local[3] = {8, 1, 1}, huge[3] = {1 << 20, 1, 1};
    EXPECT(clEnqueueNDRangeKernel(bad_queue, k, 1, NULL, global, NULL, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueNDRangeKernel(queue, bad_kernel, 1, NULL, global, NULL, 0, NULL, NULL), CL_INVALID_KERNEL);
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, global, NULL, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    EXPECT(clSetKernelArg(k, 0, sizeof buf, &buf), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, sizeof int_value, &int_value), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 2, sizeof(int), NULL), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(queue, k, 4, NULL, global, NULL, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, global, huge, 0, NULL, NULL), CL_INVALID_WORK_ITEM_SIZE);
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, global, local, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, global, local, 1, &bad_event, NULL), CL_INVALID_EVENT_WAIT_LIST);
    /* clEnqueueTask */
    EXPECT(clEnqueueTask(bad_queue, k, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueTask(queue, bad_kernel, 0, NULL, NULL), CL_INVALID_KERNEL);
    EXPECT(clEnqueueTask(queue, k, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    /* clEnqueueNativeKernel: the device has no native kernels. */
    EXPECT(clEnqueueNativeKernel(bad_queue, native_kernel, NULL, 0, 0, NULL, NULL, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueNativeKernel(queue, native_kernel, NULL, 0, 0, NULL, NULL, 0, NULL, NULL), CL_INVALID_OPERATION);
    /* clEnqueueMarker, clEnqueueWaitForEvents, clEnqueueBarrier */
    EXPECT(clEnqueueMarker(bad_queue, &marked), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueMarker(queue, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWaitForEvents(bad_queue, 1, &user), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueWaitForEvents(queue, 0, &user), CL_INVALID_VALUE);
    EXPECT(clEnqueueWaitForEvents(queue, 1, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWaitForEvents(queue, 1, &bad_event), CL_INVALID_EVENT);
    EXPECT(clEnqueueBarrier(bad_queue), CL_INVALID_COMMAND_QUEUE);
    /* clGetExtensionFunctionAddress (exported by the loader and by vecl) */
    EXPECT(clGetExtensionFunctionAddress("clNoSuchFunctionVECL") == NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    /* OpenGL sharing: no context was created from a GL context. */
    EXPECT_NULL(clCreateFromGLBuffer(bad_ctx, CL_MEM_READ_WRITE, 1, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateFromGLTexture2D(ctx, CL_MEM_READ_WRITE, 0x0DE1, 0, 1, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateFromGLTexture3D(ctx, CL_MEM_READ_WRITE, 0x806F, 0, 1, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateFromGLRenderbuffer(ctx, CL_MEM_READ_WRITE, 1, &err), err, CL_INVALID_CONTEXT);
    cl_gl_object_type gl_type;
    cl_GLuint gl_name;
    EXPECT(clGetGLObjectInfo(bad_mem, &gl_type, &gl_name), CL_INVALID_MEM_OBJECT);
    EXPECT(clGetGLObjectInfo(buf, &gl_type, &gl_name), CL_INVALID_GL_OBJECT);
    EXPECT(clGetGLTextureInfo(bad_mem, CL_GL_TEXTURE_TARGET, sizeof value, value, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clGetGLTextureInfo(buf, CL_GL_TEXTURE_TARGET, sizeof value, value, NULL), CL_INVALID_GL_OBJECT);
    EXPECT(clEnqueueAcquireGLObjects(bad_queue, 1, &buf, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueAcquireGLObjects(queue, 1, &buf, 0, NULL, NULL), CL_INVALID_CONTEXT);
    EXPECT(clEnqueueReleaseGLObjects(bad_queue, 1, &buf, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueReleaseGLObjects(queue, 1, &buf, 0, NULL, NULL), CL_INVALID_CONTEXT);
    cl_context_properties gl_props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    EXPECT(clGetGLContextInfoKHR(gl_props, CL_CURRENT_DEVICE_FOR_GL_CONTEXT_KHR, sizeof value, value, NULL),
           CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR);
    /* clSetEventCallback */
    EXPECT(clSetEventCallback(bad_event, CL_COMPLETE, event_notify, NULL), CL_INVALID_EVENT);
    EXPECT(clSetEventCallback(user, 42, event_notify, NULL), CL_INVALID_VALUE);
    /* clCreateSubBuffer */
    cl_buffer_region sub_region = {0, 16};
    EXPECT_NULL(clCreateSubBuffer(bad_mem, 0, CL_BUFFER_CREATE_TYPE_REGION, &sub_region, &err), err, CL_INVALID_MEM_OBJECT);
    EXPECT_NULL(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err), err, CL_INVALID_VALUE);
    /* clSetMemObjectDestructorCallback */
    EXPECT(clSetMemObjectDestructorCallback(bad_mem, mem_notify, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clSetMemObjectDestructorCallback(buf, NULL, NULL), CL_INVALID_VALUE);
    /* clCreateUserEvent, clSetUserEventStatus */
    EXPECT_NULL(clCreateUserEvent(bad_ctx, &err), err, CL_INVALID_CONTEXT);
    EXPECT(clSetUserEventStatus(bad_event, CL_COMPLETE), CL_INVALID_EVENT);
    EXPECT(clSetUserEventStatus(marked, CL_COMPLETE), CL_INVALID_EVENT);
    /* clEnqueueReadBufferRect, clEnqueueWriteBufferRect, clEnqueueCopyBufferRect */
    size_t rect[3] = {4, 4, 1}, zero_rect[3] = {0, 4, 1}, big_rect[3] = {64, 64, 1};
    EXPECT(clEnqueueReadBufferRect(bad_queue, buf, CL_TRUE, origin, origin, rect, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueReadBufferRect(queue, bad_mem, CL_TRUE, origin, origin, rect, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueReadBufferRect(queue, buf, CL_TRUE, origin, origin, zero_rect, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBufferRect(queue, buf, CL_TRUE, origin, origin, big_rect, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBufferRect(queue, buf, CL_TRUE, origin, origin, rect, 2, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBufferRect(queue, buf, CL_TRUE, origin, origin, rect, 0, 0, 0, 0, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWriteBufferRect(bad_queue, buf, CL_TRUE, origin, origin, rect, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueWriteBufferRect(queue, bad_mem, CL_TRUE, origin, origin, rect, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueWriteBufferRect(queue, buf, CL_TRUE, origin, origin, big_rect, 0, 0, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueWriteBufferRect(queue, buf, CL_TRUE, origin, origin, rect, 0, 0, 2, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyBufferRect(bad_queue, buf, buf, origin, origin, rect, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueCopyBufferRect(queue, bad_mem, buf, origin, origin, rect, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyBufferRect(queue, buf, buf, origin, origin, rect, 0, 0, 0, 0, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueCopyBufferRect(queue, buf, buf, origin, origin, big_rect, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    /* clCreateSubDevicesEXT, clRetainDeviceEXT, clReleaseDeviceEXT */
    cl_device_partition_property_ext equally[] = {CL_DEVICE_PARTITION_EQUALLY_EXT, 1, CL_PROPERTIES_LIST_END_EXT};
    cl_device_id subs[4];
    EXPECT(clCreateSubDevicesEXT(bad_device, equally, 4, subs, &count), CL_INVALID_DEVICE);
    EXPECT(clRetainDeviceEXT(bad_device), CL_INVALID_DEVICE);
    EXPECT(clReleaseDeviceEXT(bad_device), CL_INVALID_DEVICE);
    EXPECT(clRetainDeviceEXT(device), CL_SUCCESS);
    EXPECT(clReleaseDeviceEXT(device), CL_SUCCESS);
    /* clCreateEventFromGLsyncKHR */
    EXPECT_NULL(clCreateEventFromGLsyncKHR(bad_ctx, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateEventFromGLsyncKHR(ctx, NULL, &err), err, CL_INVALID_CONTEXT);
    /* clCreateSubDevices: the device cannot be partitioned. */
    cl_device_partition_property split[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
    EXPECT(clCreateSubDevices(bad_device, split, 4, subs, &count), CL_INVALID_DEVICE);
    EXPECT(clCreateSubDevices(device, split, 4, subs, &count), CL_INVALID_VALUE);
    EXPECT(clCreateSubDevices(device, NULL, 4, subs, &count), CL_INVALID_VALUE);
    /* clRetainDevice, clReleaseDevice: root devices are not counted. */
    EXPECT(clRetainDevice(bad_device), CL_INVALID_DEVICE);
    EXPECT(clReleaseDevice(bad_device), CL_INVALID_DEVICE);
    EXPECT(clRetainDevice(device), CL_SUCCESS);
    EXPECT(clReleaseDevice(device), CL_SUCCESS);
    /* clCreateImage */
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = desc.image_height = 4;
    EXPECT_NULL(clCreateImage(bad_ctx, CL_MEM_READ_WRITE, &format, &desc, NULL, &err), err, CL_INVALID_CONTEXT);
    /* clCreateProgramWithBuiltInKernels: the device has none. */
    EXPECT_NULL(clCreateProgramWithBuiltInKernels(bad_ctx, 1, &device, "k", &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateProgramWithBuiltInKernels(ctx, 1, &device, "no_such_kernel", &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateProgramWithBuiltInKernels(ctx, 1, &device, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateProgramWithBuiltInKernels(ctx, 1, &bad_device, "k", &err), err, CL_INVALID_DEVICE);
    /* clCompileProgram */
    cl_program fresh = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    const char *header_name = "h.h";
    EXPECT(clCompileProgram(bad_program, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    EXPECT(clCompileProgram(fresh, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clCompileProgram(fresh, 1, &bad_device, NULL, 0, NULL, NULL, NULL, NULL), CL_INVALID_DEVICE);
    EXPECT(clCompileProgram(fresh, 0, NULL, NULL, 1, NULL, &header_name, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clCompileProgram(fresh, 0, NULL, NULL, 0, NULL, NULL, NULL, host), CL_INVALID_VALUE);
    /* clLinkProgram */
    EXPECT_NULL(clLinkProgram(bad_ctx, 0, NULL, NULL, 1, &fresh, NULL, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clLinkProgram(ctx, 0, NULL, NULL, 0, NULL, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clLinkProgram(ctx, 0, NULL, NULL, 1, NULL, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clLinkProgram(ctx, 0, NULL, NULL, 1, &bad_program, NULL, NULL, &err), err, CL_INVALID_PROGRAM);
    EXPECT_NULL(clLinkProgram(ctx, 1, NULL, NULL, 1, &fresh, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clLinkProgram(ctx, 0, NULL, NULL, 1, &fresh, NULL, host, &err), err, CL_INVALID_VALUE);
    /* clUnloadPlatformCompiler */
    EXPECT(clUnloadPlatformCompiler(bad_platform), CL_INVALID_PLATFORM);
    EXPECT(clUnloadPlatformCompiler(platform), CL_SUCCESS);
    /* clGetKernelArgInfo */
    EXPECT(clGetKernelArgInfo(bad_kernel, 0, CL_KERNEL_ARG_NAME, sizeof value, value, NULL), CL_INVALID_KERNEL);
    EXPECT(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_NAME, sizeof value, value, NULL), CL_INVALID_ARG_INDEX);
    EXPECT(clGetKernelArgInfo(k, 0, 0xdead, sizeof value, value, NULL), CL_INVALID_VALUE);
    /* clEnqueueFillBuffer */
    int pattern = 0;
    EXPECT(clEnqueueFillBuffer(bad_queue, buf, &pattern, 4, 0, 16, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueFillBuffer(queue, bad_mem, &pattern, 4, 0, 16, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueFillBuffer(queue, buf, NULL, 4, 0, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(queue, buf, &pattern, 0, 0, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(queue, buf, &pattern, 4, 0, 260, 0, NULL, NULL), CL_INVALID_VALUE);
    /* clEnqueueFillImage */
    float color[4] = {0};
    EXPECT(clEnqueueFillImage(bad_queue, buf, color, origin, region, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueFillImage(queue, buf, color, origin, region, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    /* clEnqueueMigrateMemObjects */
    EXPECT(clEnqueueMigrateMemObjects(bad_queue, 1, &buf, 0, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueMigrateMemObjects(queue, 0, &buf, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueMigrateMemObjects(queue, 1, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueMigrateMemObjects(queue, 1, &bad_mem, 0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueMigrateMemObjects(queue, 1, &buf, (cl_mem_migration_flags)1 << 20, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueMigrateMemObjects(queue, 1, &buf, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL), CL_SUCCESS);
    /* clEnqueueMarkerWithWaitList, clEnqueueBarrierWithWaitList */
    EXPECT(clEnqueueMarkerWithWaitList(bad_queue, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueMarkerWithWaitList(queue, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueMarkerWithWaitList(queue, 0, &user, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueBarrierWithWaitList(bad_queue, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueBarrierWithWaitList(queue, 1, &bad_event, NULL), CL_INVALID_EVENT_WAIT_LIST);
    /* clGetExtensionFunctionAddressForPlatform */
    EXPECT(clGetExtensionFunctionAddressForPlatform(platform, "clNoSuchFunctionVECL") == NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clGetExtensionFunctionAddressForPlatform(platform, "clIcdGetPlatformIDsKHR") != NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    /* clCreateFromGLTexture */
    EXPECT_NULL(clCreateFromGLTexture(bad_ctx, CL_MEM_READ_WRITE, 0x0DE1, 0, 1, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateFromGLTexture(ctx, CL_MEM_READ_WRITE, 0x0DE1, 0, 1, &err), err, CL_INVALID_CONTEXT);
    /* EGL sharing */
    EXPECT_NULL(clCreateFromEGLImageKHR(bad_ctx, NULL, NULL, CL_MEM_READ_WRITE, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateFromEGLImageKHR(ctx, NULL, NULL, CL_MEM_READ_WRITE, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT(clEnqueueAcquireEGLObjectsKHR(bad_queue, 1, &buf, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueReleaseEGLObjectsKHR(bad_queue, 1, &buf, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT_NULL(clCreateEventFromEGLSyncKHR(bad_ctx, NULL, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateEventFromEGLSyncKHR(ctx, NULL, NULL, &err), err, CL_INVALID_CONTEXT);
    /* clCreateCommandQueueWithProperties */
    cl_queue_properties bad_qkey[] = {0x7777, 0, 0};
    EXPECT_NULL(clCreateCommandQueueWithProperties(ctx, device, bad_qkey, &err), err, CL_INVALID_VALUE);
    cl_queue_properties size_without_device[] = {CL_QUEUE_SIZE, 16, 0};
    EXPECT_NULL(clCreateCommandQueueWithProperties(ctx, device, size_without_device, &err), err, CL_INVALID_VALUE);
    /* clCreatePipe, clGetPipeInfo */
    EXPECT_NULL(clCreatePipe(bad_ctx, 0, 4, 4, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT(clGetPipeInfo(bad_mem, CL_PIPE_MAX_PACKETS, sizeof count, &count, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clGetPipeInfo(buf, CL_PIPE_MAX_PACKETS, sizeof count, &count, NULL), CL_INVALID_MEM_OBJECT);
    /* SVM: coarse- and fine-grained buffer SVM; bad arguments. */
    EXPECT(clSVMAlloc(bad_ctx, CL_MEM_READ_WRITE, 64, 0) == NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 0, 0) == NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, 0) == NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 3) == NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clSVMAlloc(ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 64, 0) == NULL ? CL_SUCCESS : -1,
           CL_SUCCESS);
    clSVMFree(ctx, NULL);
    clSVMFree(bad_ctx, host);
    clSVMFree(ctx, host); /* not an SVM pointer: ignored */
    char *svm = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 256, 1024);
    EXPECT(svm != NULL && ((size_t)svm % 1024) == 0 ? CL_SUCCESS : -1, CL_SUCCESS);
    void *svm_ptrs[1] = {svm};
    EXPECT(clEnqueueSVMFree(bad_queue, 1, svm_ptrs, NULL, NULL, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueSVMFree(queue, 0, svm_ptrs, NULL, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMFree(queue, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemcpy(bad_queue, CL_TRUE, svm, svm + 8, 4, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueSVMMemcpy(queue, CL_TRUE, NULL, svm, 4, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemcpy(queue, CL_TRUE, svm, NULL, 4, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemcpy(queue, CL_TRUE, svm, svm + 2, 4, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueSVMMemFill(bad_queue, svm, &pattern, 4, 16, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueSVMMemFill(queue, NULL, &pattern, 4, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemFill(queue, svm, NULL, 4, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemFill(queue, svm, &pattern, 3, 15, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemFill(queue, svm + 2, &pattern, 4, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMemFill(queue, svm, &pattern, 4, 18, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMap(bad_queue, CL_TRUE, CL_MAP_READ, svm, 16, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, NULL, 16, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, svm, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, svm, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMUnmap(bad_queue, svm, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueSVMUnmap(queue, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    /* A fill, a copy, a map: the bytes arrive. */
    int fill = 0x01020304;
    EXPECT(clEnqueueSVMMemFill(queue, svm, &fill, 4, 128, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMMemcpy(queue, CL_TRUE, svm + 128, svm, 128, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, svm, 256, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(memcmp(svm + 252, &fill, 4) == 0 ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clEnqueueSVMUnmap(queue, svm, 0, NULL, NULL), CL_SUCCESS);
    /* clCreateSamplerWithProperties */
    /* clCreateSamplerWithProperties */
    EXPECT_NULL(clCreateSamplerWithProperties(bad_ctx, NULL, &err), err, CL_INVALID_CONTEXT);
    /* clSetKernelArgSVMPointer, clSetKernelExecInfo */
    EXPECT(clSetKernelArgSVMPointer(bad_kernel, 0, host), CL_INVALID_KERNEL);
    EXPECT(clSetKernelArgSVMPointer(k, 9, svm), CL_INVALID_ARG_INDEX);
    EXPECT(clSetKernelArgSVMPointer(k, 1, svm), CL_INVALID_ARG_VALUE);
    EXPECT(clSetKernelArgSVMPointer(k, 0, svm), CL_SUCCESS);
    EXPECT(clSetKernelExecInfo(bad_kernel, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof svm_ptrs, svm_ptrs), CL_INVALID_KERNEL);
    EXPECT(clSetKernelExecInfo(k, 0xdead, sizeof svm_ptrs, svm_ptrs), CL_INVALID_VALUE);
    EXPECT(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof svm_ptrs, svm_ptrs), CL_SUCCESS);
    cl_bool system_svm = CL_TRUE;
    EXPECT(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof system_svm, &system_svm),
           CL_INVALID_OPERATION);
    system_svm = CL_FALSE;
    EXPECT(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, sizeof system_svm, &system_svm),
           CL_SUCCESS);
    /* clGetKernelSubGroupInfoKHR, clGetKernelSubGroupInfo. */
    EXPECT(clGetKernelSubGroupInfoKHR(bad_kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR,
                                      sizeof global, global, sizeof size, &size, NULL), CL_INVALID_KERNEL);
    EXPECT(clGetKernelSubGroupInfo(bad_kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                   sizeof global, global, sizeof size, &size, NULL), CL_INVALID_KERNEL);
    EXPECT(clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                   sizeof global, global, sizeof size, &size, NULL), CL_SUCCESS);
    EXPECT(clGetKernelSubGroupInfo(k, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                   sizeof global, NULL, sizeof size, &size, NULL), CL_INVALID_VALUE);
    EXPECT(clGetKernelSubGroupInfo(k, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                   0, global, sizeof size, &size, NULL), CL_INVALID_VALUE);
    EXPECT(clGetKernelSubGroupInfo(k, device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                   sizeof global, global, 1, &size, NULL), CL_INVALID_VALUE);
    EXPECT(clGetKernelSubGroupInfo(k, device, CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof global, global, sizeof size, &size, NULL), CL_INVALID_VALUE);
    /* clCloneKernel */
    EXPECT_NULL(clCloneKernel(bad_kernel, &err), err, CL_INVALID_KERNEL);
    /* clCreateProgramWithIL */
    EXPECT_NULL(clCreateProgramWithIL(bad_ctx, junk, sizeof junk, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateProgramWithIL(ctx, NULL, 4, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateProgramWithIL(ctx, junk, 0, &err), err, CL_INVALID_VALUE);
    /* Not SPIR-V (no magic number): "does not contain well-formed intermediate language". */
    EXPECT_NULL(clCreateProgramWithIL(ctx, junk, sizeof junk, &err), err, CL_INVALID_VALUE);
    /* clEnqueueSVMMigrateMem */
    const void *svm_const[1] = {svm};
    const void *not_svm[1] = {host};
    size_t too_long[1] = {257};
    EXPECT(clEnqueueSVMMigrateMem(bad_queue, 1, svm_const, NULL, 0, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clEnqueueSVMMigrateMem(queue, 0, svm_const, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMigrateMem(queue, 1, not_svm, NULL, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMigrateMem(queue, 1, svm_const, too_long, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMigrateMem(queue, 1, svm_const, NULL, 0x40, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueSVMMigrateMem(queue, 1, svm_const, NULL, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(queue), CL_SUCCESS);
    EXPECT(clEnqueueSVMFree(queue, 1, svm_ptrs, NULL, NULL, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clFinish(queue), CL_SUCCESS);
    /* clGetDeviceAndHostTimer, clGetHostTimer */
    cl_ulong device_time, host_time;
    EXPECT(clGetDeviceAndHostTimer(bad_device, &device_time, &host_time), CL_INVALID_DEVICE);
    EXPECT(clGetDeviceAndHostTimer(device, NULL, &host_time), CL_INVALID_VALUE);
    EXPECT(clGetDeviceAndHostTimer(device, &device_time, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceAndHostTimer(device, &device_time, &host_time), CL_SUCCESS);
    EXPECT(clGetHostTimer(bad_device, &host_time), CL_INVALID_DEVICE);
    EXPECT(clGetHostTimer(device, NULL), CL_INVALID_VALUE);
    /* clSetDefaultDeviceCommandQueue: no device-side queues. */
    EXPECT(clSetDefaultDeviceCommandQueue(bad_ctx, device, queue), CL_INVALID_CONTEXT);
    EXPECT(clSetDefaultDeviceCommandQueue(ctx, bad_device, queue), CL_INVALID_DEVICE);
    EXPECT(clSetDefaultDeviceCommandQueue(ctx, device, NULL), CL_INVALID_OPERATION);
    EXPECT(clSetDefaultDeviceCommandQueue(ctx, device, queue), CL_INVALID_OPERATION);
    /* clSetProgramReleaseCallback, clSetProgramSpecializationConstant */
    EXPECT(clSetProgramReleaseCallback(bad_program, program_notify, NULL), CL_INVALID_PROGRAM);
    EXPECT(clSetProgramReleaseCallback(program, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clSetProgramSpecializationConstant(bad_program, 0, sizeof int_value, &int_value), CL_INVALID_PROGRAM);
    /* "CL_INVALID_PROGRAM if program is not a valid program object created from an intermediate language". */
    EXPECT(clSetProgramSpecializationConstant(program, 0, sizeof int_value, &int_value), CL_INVALID_PROGRAM);
    /* clCreateBufferWithProperties */
    cl_mem_properties bad_mprops[] = {0x7777, 0, 0};
    EXPECT_NULL(clCreateBufferWithProperties(bad_ctx, NULL, CL_MEM_READ_WRITE, 16, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateBufferWithProperties(ctx, bad_mprops, CL_MEM_READ_WRITE, 16, NULL, &err), err, CL_INVALID_PROPERTY);
    EXPECT_NULL(clCreateBufferWithProperties(ctx, NULL, CL_MEM_READ_WRITE, 0, NULL, &err), err, CL_INVALID_BUFFER_SIZE);
    /* clCreateImageWithProperties */
    EXPECT_NULL(clCreateImageWithProperties(bad_ctx, NULL, CL_MEM_READ_WRITE, &format, &desc, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateImageWithProperties(ctx, bad_mprops, CL_MEM_READ_WRITE, &format, &desc, NULL, &err), err, CL_INVALID_PROPERTY);
    /* clSetContextDestructorCallback */
    EXPECT(clSetContextDestructorCallback(bad_ctx, context_destroyed, NULL), CL_INVALID_CONTEXT);
    EXPECT(clSetContextDestructorCallback(ctx, NULL, NULL), CL_INVALID_VALUE);

    /* A buffer released while set as a kernel argument is destroyed then:
     * the argument does not keep it (its destructor callback runs). */
    if (kernel) {
        cl_mem arg = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
        EXPECT(clSetMemObjectDestructorCallback(arg, count_destroyed, NULL), CL_SUCCESS);
        EXPECT(clSetKernelArg(kernel, 0, sizeof arg, &arg), CL_SUCCESS);
        EXPECT(clReleaseMemObject(arg), CL_SUCCESS);
        EXPECT(destroyed == 1 ? CL_SUCCESS : -1, CL_SUCCESS);
    }
    EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    EXPECT(clFinish(queue), CL_SUCCESS);
    if (kernel) EXPECT(clReleaseKernel(kernel), CL_SUCCESS);
    EXPECT(clReleaseEvent(marked), CL_SUCCESS);
    EXPECT(clReleaseEvent(user), CL_SUCCESS);
    EXPECT(clReleaseProgram(fresh), CL_SUCCESS);
    EXPECT(clReleaseProgram(program), CL_SUCCESS);
    EXPECT(clReleaseMemObject(buf), CL_SUCCESS);
    EXPECT(clReleaseCommandQueue(queue), CL_SUCCESS);
    EXPECT(clReleaseContext(ctx), CL_SUCCESS);
}

/* A 2-D image of 8x8 pixels of `format`, or NULL. */
static cl_mem image_2d(cl_context ctx, cl_mem_flags flags, cl_channel_order order, cl_channel_type type) {
    cl_image_format format = {order, type};
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = desc.image_height = 8;
    cl_int err;
    cl_mem image = clCreateImage(ctx, flags, &format, &desc, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    return image;
}

/* Images, samplers and image kernel arguments with a device that has
 * images: bad formats, descriptors, regions, pitches, flags and handles. */
static void image_calls(cl_context ctx, cl_command_queue queue) {
    cl_int err;
    char host[4096];
    size_t size = 0;
    cl_uint count = 0;
    cl_image_format formats[2];
    EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE3D, 0, NULL, &count), CL_SUCCESS);
    EXPECT(count >= 11 ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 2, formats, NULL), CL_SUCCESS);
    EXPECT(clGetSupportedImageFormats(ctx, (cl_mem_flags)1 << 40, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &count), CL_INVALID_VALUE);

    /* clCreateImage: formats. */
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = desc.image_height = 8;
    cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
    cl_image_format bad_order = {0x7777, CL_FLOAT};
    cl_image_format intensity_int = {CL_INTENSITY, CL_SIGNED_INT8};
    cl_image_format rgbx_565 = {CL_RGBx, CL_UNORM_SHORT_565};
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, NULL, &desc, NULL, &err), err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &bad_order, &desc, NULL, &err), err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &intensity_int, &desc, NULL, &err), err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgbx_565, &desc, NULL, &err), err, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    /* Descriptors. */
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, NULL, NULL, &err), err, CL_INVALID_IMAGE_DESCRIPTOR);
    cl_image_desc bad = desc;
    bad.image_type = CL_MEM_OBJECT_BUFFER;
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &bad, NULL, &err), err, CL_INVALID_IMAGE_DESCRIPTOR);
    bad = desc;
    bad.image_width = 0;
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &bad, NULL, &err), err, CL_INVALID_IMAGE_DESCRIPTOR);
    bad = desc;
    bad.image_row_pitch = 64;
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &bad, NULL, &err), err, CL_INVALID_IMAGE_DESCRIPTOR);
    bad.image_row_pitch = 30;
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_COPY_HOST_PTR, &rgba8, &bad, host, &err), err, CL_INVALID_IMAGE_DESCRIPTOR);
    bad = desc;
    bad.num_mip_levels = 1;
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &bad, NULL, &err), err, CL_INVALID_IMAGE_DESCRIPTOR);
    bad = desc;
    bad.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &bad, NULL, &err), err, CL_INVALID_IMAGE_DESCRIPTOR);
    bad = desc;
    bad.image_width = (size_t)1 << 30;
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &bad, NULL, &err), err, CL_INVALID_IMAGE_SIZE);
    /* Flags and host pointers. */
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_USE_HOST_PTR, &rgba8, &desc, NULL, &err), err, CL_INVALID_HOST_PTR);
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &desc, host, &err), err, CL_INVALID_HOST_PTR);
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, &rgba8, &desc, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateImage(ctx, (cl_mem_flags)1 << 40, &rgba8, &desc, NULL, &err), err, CL_INVALID_VALUE);
    /* 1-D image buffers. */
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_ONLY, 256, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_image_desc over = {0};
    over.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    over.image_width = 64;
    over.buffer = buf;
    cl_mem view = clCreateImage(ctx, 0, &rgba8, &over, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    cl_mem_flags flags = 0;
    EXPECT(clGetMemObjectInfo(view, CL_MEM_FLAGS, sizeof flags, &flags, NULL), CL_SUCCESS);
    EXPECT(flags & CL_MEM_READ_ONLY ? CL_SUCCESS : -1, CL_SUCCESS);
    cl_mem associated = NULL;
    EXPECT(clGetImageInfo(view, CL_IMAGE_BUFFER, sizeof associated, &associated, NULL), CL_SUCCESS);
    EXPECT(associated == buf ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &over, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateImage(ctx, CL_MEM_ALLOC_HOST_PTR, &rgba8, &over, NULL, &err), err, CL_INVALID_VALUE);
    over.image_width = 65;
    EXPECT_NULL(clCreateImage(ctx, 0, &rgba8, &over, NULL, &err), err, CL_INVALID_IMAGE_SIZE);
    size_t origin[3] = {0, 0, 0}, region[3] = {8, 1, 1};
    EXPECT(clEnqueueCopyImageToBuffer(queue, view, buf, origin, region, 0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);

    /* Queries. */
    cl_mem img = image_2d(ctx, CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8);
    cl_mem flt = image_2d(ctx, CL_MEM_READ_WRITE, CL_R, CL_FLOAT);
    cl_mem wo = image_2d(ctx, CL_MEM_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, CL_RGBA, CL_UNORM_INT8);
    EXPECT(clGetImageInfo(img, 0xdead, sizeof size, &size, NULL), CL_INVALID_VALUE);
    EXPECT(clGetImageInfo(img, CL_IMAGE_WIDTH, 1, host, NULL), CL_INVALID_VALUE);
    EXPECT(clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof size, &size, NULL), CL_SUCCESS);
    EXPECT(size == 32 ? CL_SUCCESS : -1, CL_SUCCESS);
    cl_mem_object_type type = 0;
    EXPECT(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof type, &type, NULL), CL_SUCCESS);
    EXPECT(type == CL_MEM_OBJECT_IMAGE2D ? CL_SUCCESS : -1, CL_SUCCESS);
    cl_buffer_region sub = {0, 128};
    EXPECT_NULL(clCreateSubBuffer(img, 0, CL_BUFFER_CREATE_TYPE_REGION, &sub, &err), err, CL_INVALID_MEM_OBJECT);

    /* Reads and writes: regions, pitches, pointers, host access. */
    size_t full[3] = {8, 8, 1}, beyond[3] = {9, 8, 1}, zero[3] = {0, 8, 1}, deep[3] = {8, 8, 2};
    size_t slice1[3] = {0, 0, 1};
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, origin, full, 0, 0, host, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, origin, beyond, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, origin, zero, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, origin, deep, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, slice1, full, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, origin, full, 16, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, origin, full, 0, 0, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, NULL, full, 0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadImage(queue, buf, CL_TRUE, origin, full, 0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueReadImage(queue, img, CL_TRUE, origin, full, 0, 0, host, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueReadBuffer(queue, img, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueWriteImage(queue, wo, CL_TRUE, origin, full, 0, 0, host, 0, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(clEnqueueWriteImage(queue, img, CL_TRUE, origin, full, 0, 0, host, 0, NULL, NULL), CL_SUCCESS);

    /* Copies. */
    size_t half[3] = {4, 4, 1}, shifted[3] = {2, 2, 0};
    EXPECT(clEnqueueCopyImage(queue, img, flt, origin, origin, half, 0, NULL, NULL), CL_IMAGE_FORMAT_MISMATCH);
    EXPECT(clEnqueueCopyImage(queue, img, img, origin, shifted, half, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueCopyImage(queue, img, img, origin, origin, beyond, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyImage(queue, img, wo, origin, shifted, half, 0, NULL, NULL), CL_SUCCESS);
    cl_mem small = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    EXPECT(clEnqueueCopyImageToBuffer(queue, img, small, origin, half, 0, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueCopyImageToBuffer(queue, img, small, origin, half, 4, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyImageToBuffer(queue, small, img, origin, half, 0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyBufferToImage(queue, small, img, 0, shifted, half, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueCopyBufferToImage(queue, small, img, 0, shifted, full, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyBufferToImage(queue, img, small, 0, origin, half, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);

    /* Fills. */
    float color[4] = {1, 0.5f, 0, 1};
    EXPECT(clEnqueueFillImage(queue, img, NULL, origin, half, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillImage(queue, img, color, origin, beyond, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillImage(queue, img, color, shifted, half, 0, NULL, NULL), CL_SUCCESS);

    /* Maps. */
    size_t row_pitch = 0, slice_pitch = 99;
    EXPECT_NULL(clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_READ, origin, half, NULL, NULL, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clEnqueueMapImage(queue, img, CL_TRUE, (cl_map_flags)1 << 20, origin, half, &row_pitch, NULL, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clEnqueueMapImage(queue, img, CL_TRUE, CL_MAP_READ, origin, beyond, &row_pitch, NULL, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clEnqueueMapImage(queue, wo, CL_TRUE, CL_MAP_WRITE, origin, half, &row_pitch, NULL, 0, NULL, NULL, &err), err, CL_INVALID_OPERATION);
    cl_image_format r8 = {CL_R, CL_UNSIGNED_INT8};
    cl_image_desc cube = {0};
    cube.image_type = CL_MEM_OBJECT_IMAGE3D;
    cube.image_width = cube.image_height = cube.image_depth = 4;
    cl_mem vol = clCreateImage(ctx, CL_MEM_READ_WRITE, &r8, &cube, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    size_t all3[3] = {4, 4, 4};
    EXPECT_NULL(clEnqueueMapImage(queue, vol, CL_TRUE, CL_MAP_READ, origin, all3, &row_pitch, NULL, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    void *mapped = clEnqueueMapImage(queue, vol, CL_TRUE, CL_MAP_READ, origin, all3, &row_pitch, &slice_pitch, 0, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(row_pitch == 4 && slice_pitch == 16 ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clEnqueueUnmapMemObject(queue, vol, mapped, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueUnmapMemObject(queue, vol, mapped, 0, NULL, NULL), CL_INVALID_VALUE);

    /* Samplers. */
    EXPECT_NULL(clCreateSampler(ctx, CL_TRUE, 0x7777, CL_FILTER_LINEAR, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateSampler(ctx, 2, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, &err), err, CL_INVALID_VALUE);
    cl_sampler sampler = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
    EXPECT(err, CL_SUCCESS);
    cl_addressing_mode mode = 0;
    EXPECT(clGetSamplerInfo(sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof mode, &mode, NULL), CL_SUCCESS);
    EXPECT(mode == CL_ADDRESS_REPEAT ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clGetSamplerInfo(sampler, CL_SAMPLER_FILTER_MODE, 1, &mode, NULL), CL_INVALID_VALUE);
    EXPECT(clGetSamplerInfo(sampler, 0xdead, sizeof mode, &mode, NULL), CL_INVALID_VALUE);
    cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
    cl_sampler_properties unknown[] = {0x7777, 1, 0};
    cl_sampler_properties bad_value[] = {CL_SAMPLER_ADDRESSING_MODE, 0x7777, 0};
    EXPECT_NULL(clCreateSamplerWithProperties(ctx, twice, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateSamplerWithProperties(ctx, unknown, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateSamplerWithProperties(ctx, bad_value, &err), err, CL_INVALID_VALUE);
    cl_sampler_properties sprops[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE, 0};
    cl_sampler plain = clCreateSamplerWithProperties(ctx, sprops, &err);
    EXPECT(err, CL_SUCCESS);
    cl_bool normalized = CL_TRUE;
    EXPECT(clGetSamplerInfo(plain, CL_SAMPLER_NORMALIZED_COORDS, sizeof normalized, &normalized, NULL), CL_SUCCESS);
    EXPECT(normalized == CL_FALSE ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clGetSamplerInfo(plain, CL_SAMPLER_PROPERTIES, 0, NULL, &size), CL_SUCCESS);
    EXPECT(size == sizeof sprops ? CL_SUCCESS : -1, CL_SUCCESS);

    /* Image and sampler kernel arguments. */
    const char *source =
        "kernel void k(read_only image2d_t in, sampler_t s, global float4 *out, write_only image2d_t o) {"
        "  int2 p = (int2)(get_global_id(0), get_global_id(1));"
        "  out[p.y * 8 + p.x] = read_imagef(in, s, p); write_imagef(o, p, out[0]); }";
    cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    EXPECT(clBuildProgram(program, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    cl_kernel kernel = clCreateKernel(program, "k", &err);
    EXPECT(err, CL_SUCCESS);
    if (kernel) {
        char type_name[32] = {0};
        EXPECT(clGetKernelArgInfo(kernel, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof type_name, type_name, NULL), CL_SUCCESS);
        EXPECT(strcmp(type_name, "image2d_t") == 0 ? CL_SUCCESS : -1, CL_SUCCESS);
        cl_kernel_arg_access_qualifier access = 0;
        EXPECT(clGetKernelArgInfo(kernel, 3, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL), CL_SUCCESS);
        EXPECT(access == CL_KERNEL_ARG_ACCESS_WRITE_ONLY ? CL_SUCCESS : -1, CL_SUCCESS);
        cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * 16, NULL, &err);
        EXPECT(clSetKernelArg(kernel, 0, sizeof buf, &buf), CL_INVALID_MEM_OBJECT);
        EXPECT(clSetKernelArg(kernel, 0, 4, &img), CL_INVALID_ARG_SIZE);
        EXPECT(clSetKernelArg(kernel, 0, sizeof img, NULL), CL_INVALID_ARG_VALUE);
        EXPECT(clSetKernelArg(kernel, 0, sizeof vol, &vol), CL_INVALID_ARG_VALUE);
        EXPECT(clSetKernelArg(kernel, 0, sizeof wo, &wo), CL_INVALID_ARG_VALUE);
        EXPECT(clSetKernelArg(kernel, 0, sizeof sampler, &sampler), CL_INVALID_MEM_OBJECT);
        EXPECT(clSetKernelArg(kernel, 1, sizeof img, &img), CL_INVALID_SAMPLER);
        EXPECT(clSetKernelArg(kernel, 1, sizeof sampler, NULL), CL_INVALID_SAMPLER);
        EXPECT(clSetKernelArg(kernel, 1, 4, &sampler), CL_INVALID_ARG_SIZE);
        EXPECT(clSetKernelArg(kernel, 2, sizeof img, &img), CL_INVALID_MEM_OBJECT);
        EXPECT(clSetKernelArg(kernel, 0, sizeof img, &img), CL_SUCCESS);
        EXPECT(clSetKernelArg(kernel, 1, sizeof sampler, &sampler), CL_SUCCESS);
        EXPECT(clSetKernelArg(kernel, 2, sizeof out, &out), CL_SUCCESS);
        EXPECT(clSetKernelArg(kernel, 3, sizeof wo, &wo), CL_SUCCESS);
        size_t global[2] = {8, 8};
        EXPECT(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clFinish(queue), CL_SUCCESS);
        EXPECT(clReleaseKernel(kernel), CL_SUCCESS);
        EXPECT(clReleaseMemObject(out), CL_SUCCESS);
    }
    EXPECT(clReleaseProgram(program), CL_SUCCESS);

    cl_uint refs = 0;
    EXPECT(clRetainSampler(sampler), CL_SUCCESS);
    EXPECT(clGetSamplerInfo(sampler, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
    EXPECT(refs == 2 ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clReleaseSampler(sampler), CL_SUCCESS);
    EXPECT(clReleaseSampler(sampler), CL_SUCCESS);
    EXPECT(clReleaseSampler(sampler), CL_INVALID_SAMPLER);
    EXPECT(clReleaseSampler(plain), CL_SUCCESS);
    cl_mem objects[] = {view, buf, img, flt, wo, small, vol};
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++) {
        EXPECT(clReleaseMemObject(objects[i]), CL_SUCCESS);
    }
}

int main(void) {
    cl_int err;
    cl_platform_id platform = find_vecl();
    if (!platform) {
        printf("no vecl platform\n");
        return 2;
    }
    cl_device_id device;
    EXPECT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), CL_SUCCESS);
    cl_bool image_support = CL_FALSE;
    EXPECT(clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof image_support, &image_support, NULL), CL_SUCCESS);
    images = image_support == CL_TRUE;

    /* Platform and device queries. */
    char small[2];
    size_t size = 0;
    EXPECT(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof small, small, NULL), CL_INVALID_VALUE);
    EXPECT(clGetPlatformInfo(platform, 0xdead, 0, NULL, &size), CL_INVALID_VALUE);
    EXPECT(clGetPlatformInfo(platform, CL_PLATFORM_ICD_SUFFIX_KHR, 0, NULL, &size), CL_SUCCESS);
    EXPECT(size == 5 ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL), CL_DEVICE_NOT_FOUND);
    EXPECT(clGetDeviceIDs(platform, 0, 1, &device, NULL), CL_INVALID_DEVICE_TYPE);
    EXPECT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 0, &device, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL), CL_SUCCESS);
    cl_uint units = 0;
    EXPECT(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, 2, &units, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceInfo(device, 0xdead, sizeof units, &units, NULL), CL_INVALID_VALUE);
    EXPECT(clGetDeviceInfo((cl_device_id)platform, CL_DEVICE_NAME, 0, NULL, &size), CL_INVALID_DEVICE);

    /* Contexts. */
    EXPECT_NULL(clCreateContext(NULL, 0, &device, NULL, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateContext(NULL, 1, NULL, NULL, NULL, &err), err, CL_INVALID_VALUE);
    /* A handle of another type still carries vecl's dispatch table, so the
     * loader routes it to vecl, which must reject it. (A pointer that is no
     * OpenCL object at all never reaches the driver: the loader reads the
     * dispatch table through it.) */
    cl_device_id not_device = (cl_device_id)platform;
    EXPECT_NULL(clCreateContext(NULL, 1, &not_device, NULL, NULL, &err), err, CL_INVALID_DEVICE);
    cl_context_properties bad_props[] = {0x7777, 1, 0};
    EXPECT_NULL(clCreateContext(bad_props, 1, &device, NULL, NULL, &err), err, CL_INVALID_PROPERTY);
    cl_context_properties twice[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform,
                                     CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    EXPECT_NULL(clCreateContext(twice, 1, &device, NULL, NULL, &err), err, CL_INVALID_PROPERTY);
    EXPECT_NULL(clCreateContext(NULL, 1, &device, NULL, (void *)1, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateContextFromType(NULL, CL_DEVICE_TYPE_GPU, NULL, NULL, &err), err, CL_DEVICE_NOT_FOUND);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_context ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, 0, NULL, &size), CL_SUCCESS);
    EXPECT(size == sizeof props ? CL_SUCCESS : -1, CL_SUCCESS);

    /* Handles of the wrong type, and garbage. */
    EXPECT(clRetainContext((cl_context)device), CL_INVALID_CONTEXT);
    EXPECT(clRetainContext(NULL), CL_INVALID_CONTEXT);
    EXPECT(clReleaseMemObject((cl_mem)ctx), CL_INVALID_MEM_OBJECT);
    EXPECT(clReleaseCommandQueue((cl_command_queue)ctx), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clReleaseEvent((cl_event)ctx), CL_INVALID_EVENT);
    EXPECT(clReleaseProgram((cl_program)ctx), CL_INVALID_PROGRAM);
    EXPECT(clReleaseKernel((cl_kernel)ctx), CL_INVALID_KERNEL);
    EXPECT(clReleaseSampler((cl_sampler)ctx), CL_INVALID_SAMPLER);

    /* Queues. */
    EXPECT_NULL(clCreateCommandQueueWithProperties((cl_context)device, device, NULL, &err), err, CL_INVALID_CONTEXT);
    EXPECT_NULL(clCreateCommandQueueWithProperties(ctx, (cl_device_id)ctx, NULL, &err), err, CL_INVALID_DEVICE);
    cl_queue_properties bad_qprops[] = {CL_QUEUE_PROPERTIES, 1u << 20, 0};
    EXPECT_NULL(clCreateCommandQueueWithProperties(ctx, device, bad_qprops, &err), err, CL_INVALID_VALUE);
    cl_queue_properties on_device[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    EXPECT_NULL(clCreateCommandQueueWithProperties(ctx, device, on_device, &err), err, CL_INVALID_VALUE);
    cl_queue_properties qprops[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, qprops, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clFinish((cl_command_queue)device), CL_INVALID_COMMAND_QUEUE);

    /* Buffers. */
    EXPECT_NULL(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err), err, CL_INVALID_BUFFER_SIZE);
    EXPECT_NULL(clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 16, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 16, NULL, &err), err, CL_INVALID_HOST_PTR);
    char host[256];
    EXPECT_NULL(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16, host, &err), err, CL_INVALID_HOST_PTR);
    EXPECT_NULL(clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 16, host, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateBuffer(ctx, (cl_mem_flags)1 << 40, 16, NULL, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateBuffer((cl_context)queue, CL_MEM_READ_WRITE, 16, NULL, &err), err, CL_INVALID_CONTEXT);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 200, 100, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueReadBuffer(queue, (cl_mem)queue, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16, host, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    cl_event not_event = (cl_event)buf;
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16, host, 1, &not_event, NULL), CL_INVALID_EVENT_WAIT_LIST);
    EXPECT(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, 257, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueCopyBuffer(queue, buf, buf, 0, 8, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    EXPECT(clEnqueueCopyBuffer(queue, buf, buf, 0, 128, 128, 0, NULL, NULL), CL_SUCCESS);
    int pattern = 7;
    EXPECT(clEnqueueFillBuffer(queue, buf, &pattern, 3, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(queue, buf, &pattern, 4, 2, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueFillBuffer(queue, buf, &pattern, 4, 0, 256, 0, NULL, NULL), CL_SUCCESS);
    cl_mem readonly = clCreateBuffer(ctx, CL_MEM_HOST_WRITE_ONLY, 16, NULL, &err);
    EXPECT(clEnqueueReadBuffer(queue, readonly, CL_TRUE, 0, 16, host, 0, NULL, NULL), CL_INVALID_OPERATION);
    EXPECT(clReleaseMemObject(readonly), CL_SUCCESS);

    /* Sub-buffers. */
    cl_buffer_region region = {1, 16};
    EXPECT_NULL(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    region.origin = 0;
    region.size = 512;
    EXPECT_NULL(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), err, CL_INVALID_VALUE);
    region.size = 0;
    EXPECT_NULL(clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), err, CL_INVALID_BUFFER_SIZE);
    region.size = 64;
    EXPECT_NULL(clCreateSubBuffer(buf, 0, 0x9999, &region, &err), err, CL_INVALID_VALUE);
    EXPECT_NULL(clCreateSubBuffer(buf, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), err, CL_INVALID_VALUE);
    cl_mem sub = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT_NULL(clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err), err, CL_INVALID_MEM_OBJECT);
    EXPECT(clEnqueueCopyBuffer(queue, buf, sub, 0, 8, 16, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);

    /* Maps. */
    void *mapped = clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_READ, 0, 512, 0, NULL, NULL, &err);
    EXPECT(err, CL_INVALID_VALUE);
    mapped = clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clEnqueueUnmapMemObject(queue, buf, host, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clEnqueueUnmapMemObject(queue, buf, mapped, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueUnmapMemObject(queue, buf, mapped, 0, NULL, NULL), CL_INVALID_VALUE);

    /* Events. */
    EXPECT(clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    cl_event bad = (cl_event)buf;
    EXPECT(clWaitForEvents(1, &bad), CL_INVALID_EVENT);
    cl_event user = clCreateUserEvent(ctx, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT(clSetUserEventStatus(user, 5), CL_INVALID_VALUE);
    cl_event after;
    EXPECT(clEnqueueMarkerWithWaitList(queue, 1, &user, &after), CL_SUCCESS);
    cl_int status = 0;
    EXPECT(clGetEventInfo(after, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL), CL_SUCCESS);
    EXPECT(status == CL_QUEUED ? CL_SUCCESS : -1, CL_SUCCESS);
    cl_ulong t;
    EXPECT(clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    EXPECT(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
    EXPECT(clWaitForEvents(1, &after), CL_SUCCESS);
    EXPECT(clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), CL_SUCCESS);
    EXPECT(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL), CL_PROFILING_INFO_NOT_AVAILABLE);
    EXPECT(clSetEventCallback(after, CL_COMPLETE, NULL, NULL), CL_INVALID_VALUE);

    /* A failed user event fails the commands waiting on it. */
    cl_event failing = clCreateUserEvent(ctx, &err);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_FALSE, 0, 16, host, 1, &failing, NULL), CL_SUCCESS);
    EXPECT(clSetUserEventStatus(failing, -42), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16, host, 1, &failing, NULL), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);

    /* Programs and kernels. */
    EXPECT_NULL(clCreateProgramWithSource(ctx, 0, NULL, NULL, &err), err, CL_INVALID_VALUE);
    const char *null_source[] = {NULL};
    EXPECT_NULL(clCreateProgramWithSource(ctx, 1, null_source, NULL, &err), err, CL_INVALID_VALUE);
    const char *source = "kernel void k(global int *a, int b) { a[get_global_id(0)] = b; }";
    cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    EXPECT(err, CL_SUCCESS);
    EXPECT_NULL(clCreateKernel(program, "k", &err), err, CL_INVALID_PROGRAM_EXECUTABLE);
    EXPECT(clBuildProgram(program, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    EXPECT(clBuildProgram(program, 0, NULL, NULL, NULL, (void *)1), CL_INVALID_VALUE);
    const unsigned char junk[] = "not a binary";
    size_t junk_len = sizeof junk;
    const unsigned char *junk_ptr = junk;
    cl_int binary_status = 0;
    EXPECT_NULL(clCreateProgramWithBinary(ctx, 1, &device, &junk_len, &junk_ptr, &binary_status, &err), err, CL_INVALID_BINARY);
    EXPECT(binary_status, CL_INVALID_BINARY);
    /* IL programs are supported; bytes that are not SPIR-V are not well-formed IL. */
    EXPECT_NULL(clCreateProgramWithIL(ctx, junk, junk_len, &err), err, CL_INVALID_VALUE);
    if (clBuildProgram(program, 0, NULL, NULL, NULL, NULL) == CL_SUCCESS) {
        EXPECT_NULL(clCreateKernel(program, "missing", &err), err, CL_INVALID_KERNEL_NAME);
        EXPECT_NULL(clCreateKernel(program, NULL, &err), err, CL_INVALID_VALUE);
        cl_kernel kernel = clCreateKernel(program, "k", &err);
        EXPECT(err, CL_SUCCESS);
        int value = 3;
        EXPECT(clSetKernelArg(kernel, 2, sizeof value, &value), CL_INVALID_ARG_INDEX);
        EXPECT(clSetKernelArg(kernel, 1, 2, &value), CL_INVALID_ARG_SIZE);
        EXPECT(clSetKernelArg(kernel, 0, sizeof(cl_mem), &ctx), CL_INVALID_MEM_OBJECT);
        size_t global = 64, local = 7;
        EXPECT(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
        EXPECT(clSetKernelArg(kernel, 0, sizeof(cl_mem), &buf), CL_SUCCESS);
        EXPECT(clSetKernelArg(kernel, 1, sizeof value, &value), CL_SUCCESS);
        EXPECT(clEnqueueNDRangeKernel(queue, kernel, 0, NULL, &global, NULL, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
        EXPECT(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
        EXPECT(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clBuildProgram(program, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
        EXPECT(clReleaseKernel(kernel), CL_SUCCESS);
        EXPECT(clReleaseKernel(kernel), CL_INVALID_KERNEL);
    }

    /* Images and samplers, or their absence. */
    if (images) {
        image_calls(ctx, queue);
    } else {
        cl_image_format format = {CL_RGBA, CL_FLOAT};
        cl_image_desc desc = {0};
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = desc.image_height = 4;
        EXPECT_NULL(clCreateImage(ctx, CL_MEM_READ_WRITE, &format, &desc, NULL, &err), err, CL_INVALID_OPERATION);
        cl_uint formats = 99;
        EXPECT(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &formats), CL_SUCCESS);
        EXPECT(formats == 0 ? CL_SUCCESS : -1, CL_SUCCESS);
        cl_sampler_properties sprops[] = {0};
        EXPECT_NULL(clCreateSamplerWithProperties(ctx, sprops, &err), err, CL_INVALID_OPERATION);
    }

    /* Unsupported optional features. */
    EXPECT_NULL(clCreatePipe(ctx, 0, 4, 4, NULL, &err), err, CL_INVALID_OPERATION);
    EXPECT(clEnqueueNativeKernel(queue, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL), CL_INVALID_OPERATION);

    /* Reference counting: released handles become invalid. */
    cl_uint refs = 0;
    EXPECT(clRetainMemObject(buf), CL_SUCCESS);
    EXPECT(clGetMemObjectInfo(buf, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL), CL_SUCCESS);
    EXPECT(refs == 2 ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clReleaseMemObject(sub), CL_SUCCESS);
    EXPECT(clReleaseMemObject(sub), CL_INVALID_MEM_OBJECT);
    EXPECT(clReleaseMemObject(buf), CL_SUCCESS);
    EXPECT(clReleaseMemObject(buf), CL_SUCCESS);
    EXPECT(clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);
    EXPECT(clReleaseEvent(user), CL_SUCCESS);
    EXPECT(clReleaseEvent(user), CL_INVALID_EVENT);
    EXPECT(clReleaseEvent(after), CL_SUCCESS);
    EXPECT(clReleaseEvent(failing), CL_SUCCESS);
    EXPECT(clReleaseProgram(program), CL_SUCCESS);
    EXPECT(clReleaseCommandQueue(queue), CL_SUCCESS);
    EXPECT(clReleaseCommandQueue(queue), CL_INVALID_COMMAND_QUEUE);
    EXPECT(clReleaseContext(ctx), CL_SUCCESS);
    EXPECT(clReleaseContext(ctx), CL_INVALID_CONTEXT);

    every_entry_point(platform, device);

    printf("checks: %d failed: %d\n", checks, failures);
    return failures ? 1 : 0;
}
