/* Drives libvecl.so through the ICD loader with wrong arguments: invalid,
 * released and mistyped handles, null pointers, wrong sizes and indices.
 * Each call must return the error code the OpenCL specification lists for
 * that mistake, and nothing may crash. Prints one line per failed check and
 * "checks: N failed: M"; exits non-zero if any check failed. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdio.h>
#include <string.h>

static int checks, failures;

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

int main(void) {
    cl_int err;
    cl_platform_id platform = find_vecl();
    if (!platform) {
        printf("no vecl platform\n");
        return 2;
    }
    cl_device_id device;
    EXPECT(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), CL_SUCCESS);

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
    EXPECT_NULL(clCreateCommandQueueWithProperties(ctx, device, on_device, &err), err, CL_INVALID_QUEUE_PROPERTIES);
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
    EXPECT_NULL(clCreateProgramWithIL(ctx, junk, junk_len, &err), err, CL_INVALID_OPERATION);
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
        EXPECT(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
        EXPECT(clBuildProgram(program, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
        EXPECT(clReleaseKernel(kernel), CL_SUCCESS);
        EXPECT(clReleaseKernel(kernel), CL_INVALID_KERNEL);
    }

    /* Unsupported optional features. */
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
    EXPECT_NULL(clCreatePipe(ctx, 0, 4, 4, NULL, &err), err, CL_INVALID_OPERATION);
    EXPECT(clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0) == NULL ? CL_SUCCESS : -1, CL_SUCCESS);
    EXPECT(clEnqueueSVMMemcpy(queue, CL_TRUE, host, host, 4, 0, NULL, NULL), CL_INVALID_OPERATION);
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

    printf("checks: %d failed: %d\n", checks, failures);
    return failures ? 1 : 0;
}
