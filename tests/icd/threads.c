/* Several threads share one context and use it at once: each creates its
 * own queue, buffers, sub-buffers and user events, writes, copies and reads
 * back data, and retains/releases objects, many times over. (Releasing a
 * handle twice is not tried here: with other threads creating objects, a
 * released handle may legitimately name a new object later.) Checks every
 * result; prints "threads ok" and exits 0 when all data came back intact. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 8
#define ROUNDS 200
#define N 1024

static cl_context ctx;
static cl_device_id device;
static int errors;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what, int thread, int round, cl_int code) {
    pthread_mutex_lock(&lock);
    errors++;
    printf("thread %d round %d: %s (%d)\n", thread, round, what, code);
    pthread_mutex_unlock(&lock);
}

static void *work(void *arg) {
    int id = (int)(size_t)arg;
    cl_int err;
    cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    if (err != CL_SUCCESS) {
        fail("queue", id, 0, err);
        return NULL;
    }
    int in[N], out[N];
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) in[i] = id * 1000000 + round * N + i;
        cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
        cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
        cl_buffer_region region = {0, sizeof in / 2};
        cl_mem half = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
        cl_event gate = clCreateUserEvent(ctx, &err);
        cl_event copied;
        err = clEnqueueCopyBuffer(queue, b, a, 0, 0, sizeof in, 1, &gate, &copied);
        if (err != CL_SUCCESS) fail("copy", id, round, err);
        clRetainMemObject(a);
        clSetUserEventStatus(gate, CL_COMPLETE);
        err = clEnqueueReadBuffer(queue, a, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
        if (err != CL_SUCCESS) fail("read", id, round, err);
        if (memcmp(in, out, sizeof in) != 0) fail("data", id, round, 0);
        int first = -1;
        err = clEnqueueReadBuffer(queue, half, CL_TRUE, 0, sizeof first, &first, 0, NULL, NULL);
        if (err != CL_SUCCESS || first != in[0]) fail("sub-buffer", id, round, err);
        cl_int status = 0;
        clGetEventInfo(copied, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        if (status != CL_COMPLETE) fail("event status", id, round, status);
        clReleaseEvent(copied);
        clReleaseEvent(gate);
        clReleaseMemObject(half);
        clReleaseMemObject(a);
        clReleaseMemObject(a);
        clReleaseMemObject(b);
    }
    clFinish(queue);
    clReleaseCommandQueue(queue);
    return NULL;
}

int main(void) {
    cl_platform_id platform;
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0) return 2;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) return 2;
    cl_int err;
    ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 2;
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, work, (void *)(size_t)i);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    clReleaseContext(ctx);
    if (errors) return 1;
    printf("threads ok\n");
    return 0;
}
