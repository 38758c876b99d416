/* Attacks on clEnqueueNDRangeKernel and what runs behind it, through the
 * ICD loader: offsets near SIZE_MAX, odd global and local sizes (those the
 * runtime merges into longer rows for kernels that cannot see their groups,
 * and those it cannot), the wide code's kernels on such launches, huge and
 * overflowing __local sizes, kernels and buffers released while their
 * launch waits, events waited on from several threads at once, clFinish on
 * queues whose kernels fail. Every call must return the code the
 * specification names, every result must be right, nothing may crash or
 * hang. Prints one line per failed check and "checks: N failed: M". */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            printf("FAIL line %d: %s: ", __LINE__, #cond);                   \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
        }                                                                    \
    } while (0)

static const char *SOURCE =
    /* Cannot see its groups: the runtime may merge one-row groups. */
    "kernel void ids(global uint *out) {\n"
    "  size_t i = get_global_id(0) - get_global_offset(0);\n"
    "  size_t j = get_global_id(1) - get_global_offset(1);\n"
    "  out[j * get_global_size(0) + i] = (uint)(get_global_id(0) * 3u + get_global_id(1) * 7u + 1u);\n"
    "}\n"
    /* The wide code's math on one-row groups. */
    "kernel void math(global const float *a, global float *b) {\n"
    "  size_t i = get_global_id(0) - get_global_offset(0);\n"
    "  float x = a[i];\n"
    "  float y = fma(x, 0.5f, 1.0f);\n"
    "  if (x > 3.0f) y = exp(x) - log(x);\n"
    "  b[i] = y;\n"
    "}\n"
    /* Sees its groups: local ids, a __local tile, barriers. */
    "kernel void tile(global uint *out, local uint *t) {\n"
    "  uint l = get_local_id(1) * get_local_size(0) + get_local_id(0);\n"
    "  uint n = get_local_size(0) * get_local_size(1);\n"
    "  t[l] = (uint)get_global_id(0) + 1000u * (uint)get_global_id(1);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = t[n - 1u - l];\n"
    "}\n"
    /* Fails under robust access when n is past the buffer. */
    "kernel void oob(global uint *a, uint n) { a[n + get_global_id(0)] = 7u; }\n"
    /* A barrier only some work-items reach. */
    "kernel void diverge(global uint *a) {\n"
    "  if (get_local_id(0) < 3) barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  a[get_global_id(0)] = 1u;\n"
    "}\n";

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

static cl_context ctx;
static cl_command_queue queue;
static cl_program program, robust;

/* Runs `ids` over (offset, global, local) in `dims` dimensions and checks
 * every word of the result. */
static void ids_launch(int line, cl_uint dims, const size_t *offset, const size_t *global,
                       const size_t *local) {
    size_t items = global[0] * (dims > 1 ? global[1] : 1);
    cl_int err;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, items * 4, NULL, &err);
    cl_kernel k = clCreateKernel(program, "ids", &err);
    clSetKernelArg(k, 0, sizeof buf, &buf);
    uint32_t *host = malloc(items * 4);
    memset(host, 0xab, items * 4);
    clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, items * 4, host, 0, NULL, NULL);
    err = clEnqueueNDRangeKernel(queue, k, dims, offset, global, local, 0, NULL, NULL);
    checks++;
    if (err != CL_SUCCESS) {
        failures++;
        printf("FAIL line %d: launch returned %d\n", line, err);
    } else {
        clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, items * 4, host, 0, NULL, NULL);
        size_t o0 = offset ? offset[0] : 0, o1 = (offset && dims > 1) ? offset[1] : 0;
        size_t bad = 0, first = 0;
        for (size_t j = 0; j < (dims > 1 ? global[1] : 1); j++)
            for (size_t i = 0; i < global[0]; i++) {
                uint32_t want = (uint32_t)((o0 + i) * 3u + (o1 + j) * 7u + 1u);
                if (host[j * global[0] + i] != want && bad++ == 0) first = j * global[0] + i;
            }
        checks++;
        if (bad) {
            failures++;
            printf("FAIL line %d: %zu of %zu words wrong, first at %zu: %#x\n", line, bad, items,
                   first, host[first]);
        }
    }
    free(host);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
}

static void offsets_and_sizes(void) {
    size_t g, l, o;
    /* Offsets near SIZE_MAX: valid while offset + global fits. */
    o = SIZE_MAX - 64;
    g = 64;
    ids_launch(__LINE__, 1, &o, &g, NULL);
    l = 16;
    ids_launch(__LINE__, 1, &o, &g, &l);
    o = SIZE_MAX - 100;
    g = 33;
    l = 1;
    ids_launch(__LINE__, 1, &o, &g, &l);
    o = SIZE_MAX - 20000;
    g = 16384;
    l = 16;
    ids_launch(__LINE__, 1, &o, &g, &l);
    {
        size_t o2[2] = {SIZE_MAX - 40, SIZE_MAX - 9}, g2[2] = {32, 8}, l2[2] = {16, 1};
        ids_launch(__LINE__, 2, o2, g2, l2);
    }
    /* Ids that end just below, at and past 2^31 and 2^32 (the wide code
     * keeps ids in 32-bit lanes and leaves larger ones to Cranelift's). */
    {
        size_t ends[] = {(size_t)1 << 31, (size_t)1 << 32};
        size_t sizes[][2] = {{64, 16}, {65, 0}, {48, 48}, {4096, 64}, {20000, 16}};
        for (int e = 0; e < 2; e++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                for (long d = -2; d <= 2; d++) {
                    size_t gg = sizes[s][0], ll = sizes[s][1];
                    size_t oo = ends[e] - gg + (size_t)(d * 7);
                    ids_launch(__LINE__, 1, &oo, &gg, ll ? &ll : NULL);
                }
        size_t o2[2] = {((size_t)1 << 31) - 40, ((size_t)1 << 31) - 3}, g2[2] = {64, 8}, l2[2] = {16, 1};
        ids_launch(__LINE__, 2, o2, g2, l2);
    }
    /* Past it: CL_INVALID_GLOBAL_OFFSET, nothing runs. */
    cl_int err;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_kernel k = clCreateKernel(program, "ids", &err);
    clSetKernelArg(k, 0, sizeof buf, &buf);
    o = SIZE_MAX - 7;
    g = 9;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, &o, &g, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_OFFSET);
    o = SIZE_MAX;
    g = 1;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, &o, &g, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_OFFSET);
    l = 1;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, &o, &g, &l, 0, NULL, NULL), CL_INVALID_GLOBAL_OFFSET);
    {
        size_t o2[2] = {0, SIZE_MAX - 1}, g2[2] = {4, 4};
        EXPECT(clEnqueueNDRangeKernel(queue, k, 2, o2, g2, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_OFFSET);
        size_t g3[3] = {SIZE_MAX / 2, 4, 1};
        EXPECT(clEnqueueNDRangeKernel(queue, k, 3, NULL, g3, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
        size_t g4[2] = {(size_t)1 << 33, (size_t)1 << 33};
        EXPECT(clEnqueueNDRangeKernel(queue, k, 2, NULL, g4, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    }
    /* Local sizes the device refuses. */
    g = 4096;
    l = 0;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    l = SIZE_MAX;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_INVALID_WORK_ITEM_SIZE);
    {
        size_t g2[2] = {64, 64}, l2[2] = {64, 64};
        EXPECT(clEnqueueNDRangeKernel(queue, k, 2, NULL, g2, l2, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
        size_t l3[2] = {(size_t)1 << 32, (size_t)1 << 32};
        cl_int e = clEnqueueNDRangeKernel(queue, k, 2, NULL, g2, l3, 0, NULL, NULL);
        CHECK(e == CL_INVALID_WORK_ITEM_SIZE || e == CL_INVALID_WORK_GROUP_SIZE, "got %d", e);
    }
    EXPECT(clFinish(queue), CL_SUCCESS);
    clReleaseKernel(k);
    clReleaseMemObject(buf);

    /* Odd sizes, with and without a local size; one-row groups the runtime
     * merges (the kernel cannot see them) and groups it keeps. */
    size_t globals[] = {1, 3, 15, 17, 63, 1000, 1023, 1025, 4097, 16383, 16384, 16400, 65536 + 48};
    size_t locals[] = {0, 1, 3, 16, 17, 48, 64, 1000, 1024};
    for (size_t a = 0; a < sizeof globals / sizeof *globals; a++)
        for (size_t b = 0; b < sizeof locals / sizeof *locals; b++) {
            size_t gg = globals[a], ll = locals[b], oo = (a * 7 + b) % 5;
            if (ll && gg % ll) continue; /* OpenCL 1.2 program: uniform groups */
            ids_launch(__LINE__, 1, &oo, &gg, ll ? &ll : NULL);
        }
    {
        size_t g2[2] = {1024, 17}, l2[2] = {16, 1};
        ids_launch(__LINE__, 2, NULL, g2, l2);
        size_t g3[2] = {17, 1024}, l3[2] = {1, 16};
        ids_launch(__LINE__, 2, NULL, g3, l3);
        size_t g4[2] = {1, 20000}, l4[2] = {1, 1};
        ids_launch(__LINE__, 2, NULL, g4, l4);
        size_t g5[2] = {20000, 1}, l5[2] = {1, 1};
        ids_launch(__LINE__, 2, NULL, g5, l5);
        size_t o6[2] = {5, 3};
        ids_launch(__LINE__, 2, o6, g5, l5);
    }
}

/* `math` (the wide code, when the CPU has it) over one-row groups of odd
 * sizes: every result must be what one work-item at a time computes. */
static void math_rows(void) {
    const size_t n = 20000;
    cl_int err;
    float *a = malloc(n * 4), *b = malloc(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++) a[i] = (float)(i % 97) * 0.25f - 2.0f;
    cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, a, &err);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
    cl_kernel k = clCreateKernel(program, "math", &err);
    clSetKernelArg(k, 0, sizeof da, &da);
    clSetKernelArg(k, 1, sizeof db, &db);
    /* The reference: groups of one work-item (no row merging changes it). */
    size_t g = n, l = 1;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_SUCCESS);
    EXPECT(clEnqueueReadBuffer(queue, db, CL_TRUE, 0, n * 4, want, 0, NULL, NULL), CL_SUCCESS);
    size_t sizes[][3] = {{20000, 16, 0}, {20000, 80, 0}, {20000, 400, 0}, {19999, 0, 0}, {16, 16, 0},
                         {17, 17, 0}, {4000, 1000, 0}, {20000, 16, ((size_t)1 << 31) - 20000},
                         {20000, 16, ((size_t)1 << 31) - 19999}, {20000, 16, ((size_t)1 << 31) - 10000},
                         {4096, 64, ((size_t)1 << 32) - 4000}, {4096, 64, SIZE_MAX - 4096}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        memset(b, 0, n * 4);
        clEnqueueWriteBuffer(queue, db, CL_TRUE, 0, n * 4, b, 0, NULL, NULL);
        g = sizes[s][0];
        l = sizes[s][1];
        size_t off = sizes[s][2];
        EXPECT(clEnqueueNDRangeKernel(queue, k, 1, &off, &g, l ? &l : NULL, 0, NULL, NULL), CL_SUCCESS);
        EXPECT(clEnqueueReadBuffer(queue, db, CL_TRUE, 0, n * 4, b, 0, NULL, NULL), CL_SUCCESS);
        size_t bad = 0;
        for (size_t i = 0; i < g; i++) bad += memcmp(&b[i], &want[i], 4) != 0;
        for (size_t i = g; i < n; i++) bad += b[i] != 0.0f;
        CHECK(bad == 0, "global %zu local %zu offset %zu: %zu wrong", g, l, off, bad);
    }
    clReleaseKernel(k);
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    free(a);
    free(b);
    free(want);
}

/* __local sizes: the device's whole local memory works, one byte more
 * and sizes whose sum overflows are refused at the launch. */
static void local_sizes(cl_device_id device) {
    cl_ulong local_mem = 0;
    clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    cl_int err;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * 64 * 4, NULL, &err);
    cl_kernel k = clCreateKernel(program, "tile", &err);
    EXPECT(clSetKernelArg(k, 0, sizeof buf, &buf), CL_SUCCESS);
    EXPECT(clSetKernelArg(k, 1, 0, NULL), CL_INVALID_ARG_SIZE);
    size_t g2[2] = {64, 64}, l2[2] = {16, 16};
    EXPECT(clSetKernelArg(k, 1, (size_t)local_mem, NULL), CL_SUCCESS);
    EXPECT(clEnqueueNDRangeKernel(queue, k, 2, NULL, g2, l2, 0, NULL, NULL), CL_SUCCESS);
    cl_int e = clSetKernelArg(k, 1, (size_t)local_mem + 1, NULL);
    if (e == CL_SUCCESS) {
        e = clEnqueueNDRangeKernel(queue, k, 2, NULL, g2, l2, 0, NULL, NULL);
        CHECK(e == CL_OUT_OF_RESOURCES, "local_mem + 1 bytes: launch returned %d", e);
    }
    e = clSetKernelArg(k, 1, SIZE_MAX, NULL);
    if (e == CL_SUCCESS) {
        e = clEnqueueNDRangeKernel(queue, k, 2, NULL, g2, l2, 0, NULL, NULL);
        CHECK(e == CL_OUT_OF_RESOURCES, "SIZE_MAX bytes: launch returned %d", e);
    } else {
        CHECK(e == CL_INVALID_ARG_SIZE, "SIZE_MAX bytes: set returned %d", e);
    }
    e = clSetKernelArg(k, 1, SIZE_MAX - 63, NULL);
    if (e == CL_SUCCESS) {
        e = clEnqueueNDRangeKernel(queue, k, 2, NULL, g2, l2, 0, NULL, NULL);
        CHECK(e == CL_OUT_OF_RESOURCES, "SIZE_MAX - 63 bytes: launch returned %d", e);
    }
    /* Back to a size that works: the kernel runs and is right. */
    EXPECT(clSetKernelArg(k, 1, 16 * 16 * 4, NULL), CL_SUCCESS);
    size_t sizes[][2] = {{16, 16}, {8, 8}, {16, 4}, {32, 2}, {64, 1}, {1, 64}, {4, 16}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        l2[0] = sizes[s][0];
        l2[1] = sizes[s][1];
        EXPECT(clEnqueueNDRangeKernel(queue, k, 2, NULL, g2, l2, 0, NULL, NULL), CL_SUCCESS);
        uint32_t *host = malloc(64 * 64 * 4);
        EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 64 * 64 * 4, host, 0, NULL, NULL), CL_SUCCESS);
        size_t bad = 0;
        for (uint32_t y = 0; y < 64; y++)
            for (uint32_t x = 0; x < 64; x++) {
                uint32_t lx = x % l2[0], ly = y % l2[1];
                uint32_t rl = (uint32_t)(l2[0] * l2[1]) - 1 - (ly * (uint32_t)l2[0] + lx);
                uint32_t sx = x - lx + rl % (uint32_t)l2[0], sy = y - ly + rl / (uint32_t)l2[0];
                bad += host[y * 64 + x] != sx + 1000u * sy;
            }
        CHECK(bad == 0, "tile %zux%zu: %zu words wrong", l2[0], l2[1], bad);
        free(host);
    }
    clReleaseKernel(k);
    clReleaseMemObject(buf);
}

/* A kernel, its buffer and its program released while its launch waits on
 * a user event: the launch still runs, right, when the event completes. */
static void released_while_queued(void) {
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * 4, NULL, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * 4, NULL, &err);
    cl_kernel k = clCreateKernel(program, "ids", &err);
    clSetKernelArg(k, 0, sizeof buf, &buf);
    size_t g = 4096, l = 16;
    cl_event done;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 1, &gate, &done), CL_SUCCESS);
    EXPECT(clEnqueueCopyBuffer(queue, buf, out, 0, 0, 4096 * 4, 1, &done, NULL), CL_SUCCESS);
    EXPECT(clReleaseKernel(k), CL_SUCCESS);
    EXPECT(clReleaseMemObject(buf), CL_SUCCESS);
    EXPECT(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &done), CL_SUCCESS);
    uint32_t *host = malloc(4096 * 4);
    EXPECT(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, 4096 * 4, host, 0, NULL, NULL), CL_SUCCESS);
    size_t bad = 0;
    for (uint32_t i = 0; i < 4096; i++) bad += host[i] != i * 3u + 1u;
    CHECK(bad == 0, "%zu words wrong", bad);
    free(host);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(out);

    /* A gate that fails: the launch behind it must not run, and its
     * event must end with an error, not hang. */
    gate = clCreateUserEvent(ctx, &err);
    out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * 4, NULL, &err);
    k = clCreateKernel(program, "ids", &err);
    clSetKernelArg(k, 0, sizeof out, &out);
    g = 64;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 1, &gate, &done), CL_SUCCESS);
    clReleaseKernel(k);
    EXPECT(clSetUserEventStatus(gate, -1234), CL_SUCCESS);
    EXPECT(clWaitForEvents(1, &done), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    cl_int status = 0;
    clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    CHECK(status < 0, "status %d", status);
    EXPECT(clFinish(queue), CL_SUCCESS);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(out);
}

#define WAITERS 8
#define LAUNCHES 24
static cl_event launched[LAUNCHES];
static int waiter_errors;

static void *waiter(void *arg) {
    size_t me = (size_t)arg;
    for (int round = 0; round < 3; round++) {
        cl_int e = clWaitForEvents(LAUNCHES - me, launched + me);
        if (e != CL_SUCCESS) __atomic_add_fetch(&waiter_errors, 1, __ATOMIC_SEQ_CST);
        for (int i = 0; i < LAUNCHES; i++) {
            cl_int status = 1;
            clGetEventInfo(launched[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
            if (i >= (int)me && status != CL_COMPLETE) __atomic_add_fetch(&waiter_errors, 1, __ATOMIC_SEQ_CST);
        }
        if (me % 2) clFinish(queue);
    }
    return NULL;
}

/* Events of many launches waited on from eight threads at once. */
static void threaded_waits(void) {
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16384 * 4, NULL, &err);
    cl_kernel k = clCreateKernel(program, "ids", &err);
    clSetKernelArg(k, 0, sizeof buf, &buf);
    for (int i = 0; i < LAUNCHES; i++) {
        size_t g = 16384, l = (size_t[]){1, 16, 64, 256}[i % 4];
        cl_int e = clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, i == 0, i == 0 ? &gate : NULL, &launched[i]);
        CHECK(e == CL_SUCCESS, "launch %d: %d", i, e);
    }
    pthread_t threads[WAITERS];
    for (size_t t = 0; t < WAITERS; t++) pthread_create(&threads[t], NULL, waiter, (void *)t);
    clSetUserEventStatus(gate, CL_COMPLETE);
    for (size_t t = 0; t < WAITERS; t++) pthread_join(threads[t], NULL);
    CHECK(waiter_errors == 0, "%d errors in the waiting threads", waiter_errors);
    for (int i = 0; i < LAUNCHES; i++) clReleaseEvent(launched[i]);
    clReleaseEvent(gate);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
}

static cl_event gated_launch;
static cl_int gated_wait;

static void *wait_gated(void *arg) {
    (void)arg;
    gated_wait = clWaitForEvents(1, &gated_launch);
    return NULL;
}

/* Threads waiting on a launch whose wait list is not complete help with
 * nothing: the launch stays queued until its gate opens. */
static void waits_before_the_gate(void) {
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 16384 * 4, NULL, &err);
    cl_kernel k = clCreateKernel(program, "ids", &err);
    clSetKernelArg(k, 0, sizeof buf, &buf);
    uint32_t *host = calloc(16384, 4);
    EXPECT(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, 16384 * 4, host, 0, NULL, NULL), CL_SUCCESS);
    size_t g = 16384, l = 16;
    EXPECT(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 1, &gate, &gated_launch), CL_SUCCESS);
    pthread_t threads[3];
    for (int t = 0; t < 3; t++) pthread_create(&threads[t], NULL, wait_gated, NULL);
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    cl_int status = 0;
    clGetEventInfo(gated_launch, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    CHECK(status == CL_QUEUED || status == CL_SUBMITTED, "gated launch ran early: status %d", status);
    clSetUserEventStatus(gate, CL_COMPLETE);
    for (int t = 0; t < 3; t++) pthread_join(threads[t], NULL);
    CHECK(gated_wait == CL_SUCCESS, "wait returned %d", gated_wait);
    EXPECT(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, 16384 * 4, host, 0, NULL, NULL), CL_SUCCESS);
    size_t bad = 0;
    for (uint32_t i = 0; i < 16384; i++) bad += host[i] != i * 3u + 1u;
    CHECK(bad == 0, "%zu words wrong", bad);
    free(host);
    clReleaseEvent(gated_launch);
    clReleaseEvent(gate);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
}

/* Kernels that fail (robust access past a buffer, a divergent barrier):
 * their events end with an error, clFinish returns, later work runs. */
static void failing_kernels(void) {
    cl_int err;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256 * 4, NULL, &err);
    cl_kernel oob = clCreateKernel(robust, "oob", &err);
    cl_kernel div = clCreateKernel(program, "diverge", &err);
    cl_uint n = 1u << 30;
    clSetKernelArg(oob, 0, sizeof buf, &buf);
    clSetKernelArg(oob, 1, sizeof n, &n);
    clSetKernelArg(div, 0, sizeof buf, &buf);
    cl_event ev[6];
    for (int i = 0; i < 6; i++) {
        size_t g = 256, l = 16;
        EXPECT(clEnqueueNDRangeKernel(queue, i % 2 ? div : oob, 1, NULL, &g, &l, 0, NULL, &ev[i]), CL_SUCCESS);
    }
    /* clFinish reports the first failure since the previous one (one of
     * its listed codes), once. */
    cl_int fin = clFinish(queue);
    CHECK(fin == CL_SUCCESS || fin == CL_OUT_OF_RESOURCES, "clFinish returned %d", fin);
    for (int i = 0; i < 6; i++) {
        cl_int status = 0;
        clGetEventInfo(ev[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        CHECK(status < 0, "failing launch %d: status %d", i, status);
        EXPECT(clWaitForEvents(1, &ev[i]), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        clReleaseEvent(ev[i]);
    }
    EXPECT(clFinish(queue), CL_SUCCESS);
    /* The queue still works. */
    size_t g = 256, l = 16;
    ids_launch(__LINE__, 1, NULL, &g, &l);
    clReleaseKernel(oob);
    clReleaseKernel(div);
    clReleaseMemObject(buf);
}

int main(void) {
    cl_platform_id platform = find_vecl();
    if (!platform) {
        printf("no vecl platform\n");
        return 2;
    }
    cl_device_id device;
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    queue = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
    program = clCreateProgramWithSource(ctx, 1, &SOURCE, NULL, &err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        printf("build failed\n");
        return 2;
    }
    robust = clCreateProgramWithSource(ctx, 1, &SOURCE, NULL, &err);
    if (clBuildProgram(robust, 1, &device, "-cl-vecl-robust-access", NULL, NULL) != CL_SUCCESS) {
        printf("robust build failed\n");
        return 2;
    }
    offsets_and_sizes();
    math_rows();
    local_sizes(device);
    released_while_queued();
    threaded_waits();
    waits_before_the_gate();
    failing_kernels();
    EXPECT(clFinish(queue), CL_SUCCESS);
    clReleaseProgram(program);
    clReleaseProgram(robust);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    printf("checks: %d failed: %d\n", checks, failures);
    return failures != 0;
}
