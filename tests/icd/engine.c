/* What an asynchronous command engine must do, checked through the ICD
 * loader. `engine CASE` runs one case and prints "CASE ok" (exit 0) or a
 * line starting "CASE: FAIL" (exit 1); test_engine.py runs each case as its
 * own process with its own time limit. Cases:
 *
 *   nonblocking_kernel     a kernel that spins until another queue writes
 *                          its flag: the enqueue returns while it spins
 *   shared_inorder         8 threads x 10,002 commands into one in-order queue
 *   user_event_fanin       100,000 writes and markers behind one user event
 *   user_event_fanin_ooo   the same in an out-of-order queue
 *   callback_chain         a completion callback enqueues the next command,
 *                          200 deep
 *   callback_wait          a callback waits for an event already complete
 *   checked_failure        (VECL_CHECKED=1) an out-of-bounds store fails its
 *                          event with CL_OUT_OF_RESOURCES, its dependents
 *                          with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
 *                          and the context's pfn_notify names the kernel
 *   checked_failure_stderr (VECL_CHECKED=1) the same without pfn_notify; the
 *                          wrapper looks for the kernel's name on stderr
 *   rect_overflow          offsets, regions and pitches whose arithmetic
 *                          overflows are CL_INVALID_VALUE and touch nothing
 *   queue_on_device        CL_QUEUE_ON_DEVICE is CL_INVALID_VALUE
 *   ooo_concurrency        in one out-of-order queue, a write runs while a
 *                          kernel enqueued before it spins waiting for it
 *
 * A watchdog (alarm) turns a hang into a failure naming the call that hung.
 * Times printed as "(informational)" are never checked. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The kernels of every case. `spin` gives up after SPIN_LIMIT rounds (and
 * then writes -1) so that a driver that runs it synchronously does not keep
 * a core busy forever; the atomic read keeps the flag's load in the loop. */
static const char *SOURCE =
    "kernel void spin(volatile global int *flag, global int *out) {\n"
    "    long rounds = 0;\n"
    "    while (atomic_or(flag, 0) == 0 && rounds < SPIN_LIMIT) rounds++;\n"
    "    out[0] = atomic_or(flag, 0) != 0 ? 42 : -1;\n"
    "}\n"
    "kernel void bump(global int *data, int slot) { data[slot] += 1; }\n"
    "kernel void tally(global int *counter) { atomic_inc(counter); }\n"
    "kernel void oob_store_kernel(global int *data, int n) {\n"
    "    data[n + get_global_id(0)] = 7;\n"
    "}\n";
/* 2^28 rounds: about 30 s at the ~120 ns a round measured on vecl's quick
 * JIT tier, far longer than a correct engine needs to run the flag's write. */
#define SPIN_OPTIONS "-DSPIN_LIMIT=268435456L"

static const char *case_name = "engine";
/* What the case is doing now, for the watchdog's message. */
static const char *volatile stage = "setup";

/* Checks that fail without stopping the case (to report them all). */
static int failures;

static void print_failure(const char *format, va_list args) {
    printf("%s: FAIL: ", case_name);
    vprintf(format, args);
    printf("\n");
    fflush(stdout);
}

/* Reports a failed check; the case goes on. */
static void report(const char *format, ...) {
    va_list args;
    va_start(args, format);
    print_failure(format, args);
    va_end(args);
    failures++;
}

/* Reports a failed check and ends the process (_exit: other threads may
 * still be inside the driver). */
static void fail(const char *format, ...) {
    va_list args;
    va_start(args, format);
    print_failure(format, args);
    va_end(args);
    _exit(1);
}

static void on_signal(int signal) {
    char line[512];
    int n = signal == SIGALRM
                ? snprintf(line, sizeof line, "%s: FAIL: timed out (hung) during: %s\n", case_name, stage)
                : snprintf(line, sizeof line, "%s: FAIL: crashed (signal %d) during: %s\n", case_name, signal, stage);
    if (n > 0) {
        ssize_t written = write(STDOUT_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)written;
    }
    _exit(signal == SIGALRM ? 3 : 4);
}

/* Hangs (past `seconds`) and crashes end the process with a line naming
 * the stage. */
static void watchdog(unsigned seconds) {
    signal(SIGALRM, on_signal);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGABRT, on_signal);
    alarm(seconds);
}

#define CHECK(call)                                                          \
    do {                                                                     \
        cl_int got_ = (call);                                                \
        if (got_ != CL_SUCCESS) fail("%s returned %d", #call, got_);         \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static const char *status_name(cl_int status) {
    switch (status) {
    case CL_QUEUED: return "CL_QUEUED";
    case CL_SUBMITTED: return "CL_SUBMITTED";
    case CL_RUNNING: return "CL_RUNNING";
    case CL_COMPLETE: return "CL_COMPLETE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
        return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    default: return status < 0 ? "an error" : "unknown";
    }
}

static cl_int event_status(cl_event event) {
    cl_int status = 12345;
    CHECK(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    return status;
}

/* ---- setup ------------------------------------------------------------ */

typedef void(CL_CALLBACK *context_notify)(const char *, const void *, size_t, void *);

static cl_device_id device;
static cl_context ctx;
static cl_program program;

static void open_device(context_notify notify, void *user_data) {
    stage = "opening the device";
    cl_platform_id platforms[8];
    cl_uint n = 0;
    CHECK(clGetPlatformIDs(8, platforms, &n));
    cl_platform_id platform = NULL;
    for (cl_uint i = 0; i < n && i < 8; i++) {
        char name[64] = {0};
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "vecl") == 0) platform = platforms[i];
    }
    if (platform == NULL) fail("no vecl platform among %u", n);
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_int err;
    ctx = clCreateContext(NULL, 1, &device, notify, user_data, &err);
    CHECK(err);
}

static void build(void) {
    stage = "clBuildProgram";
    cl_int err;
    program = clCreateProgramWithSource(ctx, 1, &SOURCE, NULL, &err);
    CHECK(err);
    err = clBuildProgram(program, 1, &device, SPIN_OPTIONS, NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[16384];
        log[0] = 0;
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fail("clBuildProgram returned %d; log:\n%s", err, log);
    }
}

static cl_command_queue new_queue(cl_command_queue_properties properties) {
    cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, properties, 0};
    cl_int err;
    cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, list, &err);
    CHECK(err);
    return queue;
}

static cl_mem new_buffer(size_t size, const void *init) {
    cl_int err;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0);
    cl_mem buffer = clCreateBuffer(ctx, flags, size, (void *)init, &err);
    CHECK(err);
    return buffer;
}

static cl_kernel new_kernel(const char *name) {
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    CHECK(err);
    return kernel;
}

static const size_t ONE = 1;

/* ---- nonblocking_kernel / ooo_concurrency ----------------------------- */

static cl_kernel spin_kernel(cl_mem flag, cl_mem out) {
    cl_kernel kernel = new_kernel("spin");
    CHECK(clSetKernelArg(kernel, 0, sizeof flag, &flag));
    CHECK(clSetKernelArg(kernel, 1, sizeof out, &out));
    return kernel;
}

static void check_spin_result(cl_command_queue queue, cl_mem out) {
    int result = 0;
    stage = "reading the spinning kernel's result";
    CHECK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof result, &result, 0, NULL, NULL));
    if (result == -1)
        fail("the kernel gave up spinning (out = -1): it never saw the flag written while it ran");
    if (result != 42) fail("out[0] = %d after the kernel, expected 42", result);
}

static void case_nonblocking_kernel(void) {
    watchdog(30);
    open_device(NULL, NULL);
    build();
    cl_command_queue a = new_queue(0), b = new_queue(0);
    int zero = 0, one = 1;
    cl_mem flag = new_buffer(sizeof zero, &zero), out = new_buffer(sizeof zero, &zero);
    cl_kernel kernel = spin_kernel(flag, out);
    cl_event spun;
    stage = "a non-blocking clEnqueueNDRangeKernel of a kernel that spins until its flag is set";
    double start = now_ms();
    cl_int err = clEnqueueNDRangeKernel(a, kernel, 1, NULL, &ONE, &ONE, 0, NULL, &spun);
    double took = now_ms() - start;
    CHECK(err);
    cl_int status = event_status(spun);
    printf("nonblocking_kernel: clEnqueueNDRangeKernel returned after %.3f ms, status %s (informational)\n",
           took, status_name(status));
    if (status != CL_QUEUED && status != CL_SUBMITTED && status != CL_RUNNING)
        fail("the kernel's event was %s (%d) when the non-blocking enqueue returned; expected "
             "CL_QUEUED, CL_SUBMITTED or CL_RUNNING (the kernel cannot finish before its flag is set)",
             status_name(status), status);
    stage = "clFlush of the kernel's queue";
    CHECK(clFlush(a));
    usleep(20000); /* let the kernel start spinning */
    stage = "a blocking clEnqueueWriteBuffer of the flag on a second queue while the kernel spins";
    CHECK(clEnqueueWriteBuffer(b, flag, CL_TRUE, 0, sizeof one, &one, 0, NULL, NULL));
    stage = "clFinish of the kernel's queue after the flag was written";
    CHECK(clFinish(a));
    check_spin_result(a, out);
    status = event_status(spun);
    if (status != CL_COMPLETE) fail("the kernel's event is %s after clFinish", status_name(status));
    clReleaseEvent(spun);
    clReleaseKernel(kernel);
    clReleaseMemObject(flag);
    clReleaseMemObject(out);
    clReleaseCommandQueue(a);
    clReleaseCommandQueue(b);
}

static void case_ooo_concurrency(void) {
    watchdog(30);
    open_device(NULL, NULL);
    build();
    cl_command_queue queue = new_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    static const int zero = 0, one = 1;
    cl_mem flag = new_buffer(sizeof zero, &zero), out = new_buffer(sizeof zero, &zero);
    cl_kernel kernel = spin_kernel(flag, out);
    cl_event spun, written;
    stage = "clEnqueueNDRangeKernel of the spinning kernel into an out-of-order queue";
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &ONE, &ONE, 0, NULL, &spun));
    stage = "a non-blocking clEnqueueWriteBuffer of the flag into the same out-of-order queue";
    CHECK(clEnqueueWriteBuffer(queue, flag, CL_FALSE, 0, sizeof one, &one, 0, NULL, &written));
    stage = "clFlush";
    CHECK(clFlush(queue));
    stage = "polling the kernel's event";
    double start = now_ms();
    cl_int status;
    while ((status = event_status(spun)) > CL_COMPLETE && now_ms() - start < 15000) usleep(1000);
    if (status > CL_COMPLETE)
        fail("the kernel still spins (%s) 15 s after the independent write of its flag was enqueued "
             "into the same out-of-order queue: the write did not run while the kernel ran",
             status_name(status));
    if (status != CL_COMPLETE) fail("the kernel's event is %s (%d)", status_name(status), status);
    stage = "clWaitForEvents on the write";
    CHECK(clWaitForEvents(1, &written));
    check_spin_result(queue, out);
    CHECK(clFinish(queue));
    clReleaseEvent(spun);
    clReleaseEvent(written);
    clReleaseKernel(kernel);
    clReleaseMemObject(flag);
    clReleaseMemObject(out);
    clReleaseCommandQueue(queue);
}

/* ---- shared_inorder --------------------------------------------------- */

#define SHARED_THREADS 8
#define SHARED_ROUNDS 3334 /* 3 commands a round: 10,002 per thread */

static cl_command_queue shared_queue;
static cl_mem shared_data;
static int shared_src[SHARED_THREADS][SHARED_ROUNDS];
static int shared_dst[SHARED_THREADS][SHARED_ROUNDS];
static atomic_int shared_errors;
static atomic_long shared_commands;

static void *shared_worker(void *arg) {
    int slot = (int)(size_t)arg;
    cl_kernel kernel = new_kernel("bump");
    CHECK(clSetKernelArg(kernel, 0, sizeof shared_data, &shared_data));
    CHECK(clSetKernelArg(kernel, 1, sizeof slot, &slot));
    size_t at = slot * sizeof(int);
    for (int round = 0; round < SHARED_ROUNDS; round++) {
        shared_src[slot][round] = slot * 1000000 + round;
        cl_int err[3];
        err[0] = clEnqueueWriteBuffer(shared_queue, shared_data, CL_FALSE, at, sizeof(int),
                                      &shared_src[slot][round], 0, NULL, NULL);
        err[1] = clEnqueueNDRangeKernel(shared_queue, kernel, 1, NULL, &ONE, &ONE, 0, NULL, NULL);
        err[2] = clEnqueueReadBuffer(shared_queue, shared_data, CL_FALSE, at, sizeof(int),
                                     &shared_dst[slot][round], 0, NULL, NULL);
        for (int i = 0; i < 3; i++) {
            if (err[i] != CL_SUCCESS) {
                if (atomic_fetch_add(&shared_errors, 1) < 10)
                    printf("thread %d round %d: enqueue %d returned %d\n", slot, round, i, err[i]);
            } else {
                atomic_fetch_add(&shared_commands, 1);
            }
        }
    }
    clReleaseKernel(kernel);
    return NULL;
}

static void case_shared_inorder(void) {
    watchdog(50);
    open_device(NULL, NULL);
    build();
    shared_queue = new_queue(0);
    int zeros[SHARED_THREADS] = {0};
    shared_data = new_buffer(sizeof zeros, zeros);
    memset(shared_dst, 0xff, sizeof shared_dst);
    stage = "8 threads enqueueing into one in-order queue";
    double start = now_ms();
    pthread_t threads[SHARED_THREADS];
    for (int i = 0; i < SHARED_THREADS; i++)
        pthread_create(&threads[i], NULL, shared_worker, (void *)(size_t)i);
    for (int i = 0; i < SHARED_THREADS; i++) pthread_join(threads[i], NULL);
    double enqueued = now_ms() - start;
    stage = "clFinish of the shared queue";
    CHECK(clFinish(shared_queue));
    printf("shared_inorder: %ld commands enqueued in %.1f ms, finished after %.1f ms (informational)\n",
           (long)shared_commands, enqueued, now_ms() - start);
    if (shared_errors) fail("%d enqueues failed", (int)shared_errors);
    if (shared_commands < 80000) fail("only %ld commands enqueued", (long)shared_commands);
    int wrong = 0;
    for (int t = 0; t < SHARED_THREADS; t++)
        for (int r = 0; r < SHARED_ROUNDS; r++) {
            int want = t * 1000000 + r + 1;
            if (shared_dst[t][r] != want && wrong++ < 10)
                printf("thread %d round %d: read %d, expected %d\n", t, r, shared_dst[t][r], want);
        }
    if (wrong) fail("%d of %d results wrong", wrong, SHARED_THREADS * SHARED_ROUNDS);
    clReleaseMemObject(shared_data);
    clReleaseCommandQueue(shared_queue);
}

/* ---- user_event_fanin ------------------------------------------------- */

#define FANIN 100000
#define FANIN_SLOTS 4096 /* in-order: writes overlap, the last one wins */

static int fanin_src[FANIN];

static void fanin(int out_of_order) {
    watchdog(40);
    open_device(NULL, NULL);
    cl_command_queue queue = new_queue(out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0);
    cl_command_queue other = new_queue(0);
    /* In order, write i goes to slot i % FANIN_SLOTS, so only the order
     * leaves the last one there; out of order, every write has its slot.
     * Every 100th command is a marker. */
    int slots = out_of_order ? FANIN : FANIN_SLOTS;
    int *init = malloc(slots * sizeof(int)), *want = malloc(slots * sizeof(int));
    int *got = malloc(slots * sizeof(int));
    for (int s = 0; s < slots; s++) init[s] = want[s] = -1;
    cl_mem data = new_buffer(slots * sizeof(int), init);
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    CHECK(err);
    cl_event first = NULL;
    stage = "enqueueing 100,000 commands behind one user event";
    int bad = 0;
    double start = now_ms();
    for (int i = 0; i < FANIN; i++) {
        if (i % 100 == 99) {
            err = clEnqueueMarkerWithWaitList(queue, 1, &gate, NULL);
        } else {
            int slot = i % slots;
            fanin_src[i] = i * 3 + 1;
            want[slot] = fanin_src[i];
            err = clEnqueueWriteBuffer(queue, data, CL_FALSE, slot * sizeof(int), sizeof(int), &fanin_src[i], 1,
                                       &gate, first ? NULL : &first);
        }
        if (err != CL_SUCCESS && bad++ < 10) printf("command %d: enqueue returned %d\n", i, err);
    }
    double took = now_ms() - start;
    printf("%s: %d commands enqueued behind a user event in %.1f ms (%.2f us each) (informational)\n", case_name,
           FANIN, took, took * 1e3 / FANIN);
    if (bad) fail("%d enqueues failed", bad);
    cl_int status = event_status(first);
    if (status != CL_QUEUED && status != CL_SUBMITTED)
        fail("the first write is %s before its user event completed", status_name(status));
    stage = "a blocking read on another queue while the writes wait for the user event";
    CHECK(clEnqueueReadBuffer(other, data, CL_TRUE, 0, slots * sizeof(int), got, 0, NULL, NULL));
    for (int s = 0; s < slots; s++)
        if (got[s] != -1) fail("slot %d was written (%d) before the user event completed", s, got[s]);
    stage = "clSetUserEventStatus(CL_COMPLETE) releasing 100,000 commands";
    start = now_ms();
    CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
    stage = "clFinish after the user event completed";
    CHECK(clFinish(queue));
    printf("%s: released and finished in %.1f ms (informational)\n", case_name, now_ms() - start);
    status = event_status(first);
    if (status != CL_COMPLETE) fail("the first write is %s after clFinish", status_name(status));
    stage = "reading the results";
    CHECK(clEnqueueReadBuffer(other, data, CL_TRUE, 0, slots * sizeof(int), got, 0, NULL, NULL));
    int wrong = 0;
    for (int s = 0; s < slots; s++)
        if (got[s] != want[s] && wrong++ < 10) printf("slot %d: %d, expected %d\n", s, got[s], want[s]);
    if (wrong) fail("%d of %d slots wrong", wrong, slots);
    clReleaseEvent(first);
    clReleaseEvent(gate);
    clReleaseMemObject(data);
    clReleaseCommandQueue(queue);
    clReleaseCommandQueue(other);
    free(init);
    free(want);
    free(got);
}

static void case_user_event_fanin(void) { fanin(0); }
static void case_user_event_fanin_ooo(void) { fanin(1); }

/* ---- callback_chain / callback_wait ----------------------------------- */

#define CHAIN 200

/* Set once by a callback; the main thread waits for it with a time limit. */
struct signal_flag {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int set;
};

static struct signal_flag chain_done = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

static void raise_flag(struct signal_flag *flag) {
    pthread_mutex_lock(&flag->lock);
    flag->set = 1;
    pthread_cond_broadcast(&flag->cond);
    pthread_mutex_unlock(&flag->lock);
}

/* Whether the flag was raised within `seconds`. */
static int wait_flag(struct signal_flag *flag, int seconds) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    pthread_mutex_lock(&flag->lock);
    while (!flag->set)
        if (pthread_cond_timedwait(&flag->cond, &flag->lock, &until) != 0) break;
    int set = flag->set;
    pthread_mutex_unlock(&flag->lock);
    return set;
}

static cl_command_queue chain_queue;
static cl_kernel chain_kernel;
static atomic_int chain_calls;
static atomic_int chain_error; /* first failure: 0 none */
static char chain_what[128];

static void chain_failed(const char *what, cl_int code) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&chain_error, &expected, code ? code : 1))
        snprintf(chain_what, sizeof chain_what, "%s (%d)", what, code);
    raise_flag(&chain_done);
}

/* On completion of command k: enqueue command k + 1 and register itself on
 * its event, until CHAIN commands have run. */
static void CL_CALLBACK chain_next(cl_event event, cl_int status, void *user_data) {
    (void)event;
    (void)user_data;
    int calls = atomic_fetch_add(&chain_calls, 1) + 1;
    if (status != CL_COMPLETE) {
        chain_failed("a callback got a status other than CL_COMPLETE", status);
        return;
    }
    if (calls >= CHAIN) {
        raise_flag(&chain_done);
        return;
    }
    cl_event next;
    cl_int err = clEnqueueNDRangeKernel(chain_queue, chain_kernel, 1, NULL, &ONE, &ONE, 0, NULL, &next);
    if (err != CL_SUCCESS) {
        chain_failed("clEnqueueNDRangeKernel in a callback", err);
        return;
    }
    err = clFlush(chain_queue);
    if (err == CL_SUCCESS) err = clSetEventCallback(next, CL_COMPLETE, chain_next, NULL);
    if (err != CL_SUCCESS) chain_failed("clFlush or clSetEventCallback in a callback", err);
    clReleaseEvent(next);
}

static void case_callback_chain(void) {
    watchdog(30);
    open_device(NULL, NULL);
    build();
    chain_queue = new_queue(0);
    int zero = 0;
    cl_mem counter = new_buffer(sizeof zero, &zero);
    chain_kernel = new_kernel("tally");
    CHECK(clSetKernelArg(chain_kernel, 0, sizeof counter, &counter));
    stage = "the first command of the callback chain";
    cl_event first;
    CHECK(clEnqueueNDRangeKernel(chain_queue, chain_kernel, 1, NULL, &ONE, &ONE, 0, NULL, &first));
    CHECK(clSetEventCallback(first, CL_COMPLETE, chain_next, NULL));
    CHECK(clFlush(chain_queue));
    stage = "waiting for the last callback of the chain";
    if (!wait_flag(&chain_done, 20))
        fail("after 20 s only %d of %d callbacks had run", (int)chain_calls, CHAIN);
    if (chain_error) fail("%s", chain_what);
    stage = "clFinish after the chain";
    CHECK(clFinish(chain_queue));
    int count = 0;
    CHECK(clEnqueueReadBuffer(chain_queue, counter, CL_TRUE, 0, sizeof count, &count, 0, NULL, NULL));
    if (count != CHAIN) fail("the counter is %d after %d chained kernels", count, CHAIN);
    if (chain_calls != CHAIN) fail("%d callbacks ran, expected %d", (int)chain_calls, CHAIN);
    clReleaseEvent(first);
    clReleaseKernel(chain_kernel);
    clReleaseMemObject(counter);
    clReleaseCommandQueue(chain_queue);
}

struct wait_in_callback {
    cl_event complete; /* an event already CL_COMPLETE */
    cl_int result;
    struct signal_flag done;
};

static void CL_CALLBACK wait_for_complete(cl_event event, cl_int status, void *user_data) {
    (void)event;
    (void)status;
    struct wait_in_callback *w = user_data;
    w->result = clWaitForEvents(1, &w->complete);
    raise_flag(&w->done);
}

static void case_callback_wait(void) {
    watchdog(30);
    open_device(NULL, NULL);
    cl_command_queue queue = new_queue(0);
    int value = 5;
    cl_mem buffer = new_buffer(sizeof value, &value);
    cl_event complete;
    stage = "a blocking write";
    CHECK(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, sizeof value, &value, 0, NULL, &complete));
    if (event_status(complete) != CL_COMPLETE) fail("a blocking write's event is not complete");
    cl_int err;
    /* On a user event, and on a command's event. */
    for (int round = 0; round < 2; round++) {
        struct wait_in_callback w = {complete, 12345, {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0}};
        cl_event gate = clCreateUserEvent(ctx, &err);
        CHECK(err);
        cl_event watched = gate, command = NULL;
        if (round == 1) {
            CHECK(clEnqueueMarkerWithWaitList(queue, 1, &gate, &command));
            watched = command;
        }
        CHECK(clSetEventCallback(watched, CL_COMPLETE, wait_for_complete, &w));
        stage = round == 0 ? "clSetUserEventStatus whose callback calls clWaitForEvents on a complete event"
                           : "clSetUserEventStatus releasing a marker whose callback calls clWaitForEvents "
                             "on a complete event";
        CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
        if (!wait_flag(&w.done, 10))
            fail("a callback (%s) calling clWaitForEvents on a complete event did not return within 10 s",
                 round == 0 ? "of a user event" : "of a marker");
        if (w.result != CL_SUCCESS)
            fail("clWaitForEvents on a complete event returned %d inside a callback", w.result);
        stage = "clFinish";
        CHECK(clFinish(queue));
        if (command) clReleaseEvent(command);
        clReleaseEvent(gate);
    }
    clReleaseEvent(complete);
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(queue);
}

/* ---- checked_failure -------------------------------------------------- */

#define OOB_KERNEL "oob_store_kernel"
#define OOB_INTS 256

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

static atomic_int failed_callback_status = 12345;

static void CL_CALLBACK record_status(cl_event event, cl_int status, void *user_data) {
    (void)event;
    (void)user_data;
    atomic_store(&failed_callback_status, status);
}

static void checked_failure(int with_notify) {
    watchdog(30);
    const char *checked = getenv("VECL_CHECKED");
    if (checked == NULL || strcmp(checked, "1") != 0)
        fail("run this case with VECL_CHECKED=1 (the out-of-bounds store would be unchecked)");
    open_device(with_notify ? record_note : NULL, NULL);
    build();
    cl_command_queue queue = new_queue(0);
    int init[OOB_INTS];
    for (int i = 0; i < OOB_INTS; i++) init[i] = 1000 + i;
    cl_mem data = new_buffer(sizeof init, init);
    cl_kernel kernel = new_kernel(OOB_KERNEL);
    int n = OOB_INTS; /* data[n]: the int just past the end */
    CHECK(clSetKernelArg(kernel, 0, sizeof data, &data));
    CHECK(clSetKernelArg(kernel, 1, sizeof n, &n));
    cl_event failed, dependent;
    stage = "clEnqueueNDRangeKernel of a kernel storing out of bounds";
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &ONE, &ONE, 0, NULL, &failed));
    CHECK(clSetEventCallback(failed, CL_COMPLETE, record_status, NULL));
    int later = 99;
    stage = "a non-blocking write waiting for the failing kernel";
    CHECK(clEnqueueWriteBuffer(queue, data, CL_FALSE, 0, sizeof later, &later, 1, &failed, &dependent));
    CHECK(clFlush(queue));
    /* "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution status
     * of any of the events in event_list is a negative integer value." */
    stage = "clWaitForEvents on the failing kernel";
    cl_int err = clWaitForEvents(1, &failed);
    if (err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        report("clWaitForEvents on the failed kernel returned %d, expected "
               "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (-14)", err);
    cl_int status = event_status(failed);
    if (status != CL_OUT_OF_RESOURCES)
        report("the out-of-bounds kernel's event is %s (%d), expected CL_OUT_OF_RESOURCES (-5)",
               status_name(status), status);
    stage = "clWaitForEvents on the command waiting for the failed kernel";
    err = clWaitForEvents(1, &dependent);
    if (err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        report("clWaitForEvents on the write waiting for the failed kernel returned %d, expected "
               "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (-14)", err);
    status = event_status(dependent);
    if (status != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        report("a write with the failed kernel in its wait list is %s (%d), expected "
               "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (-14)",
               status_name(status), status);
    /* A blocking read: "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the
     * read and write operations are blocking and the execution status of
     * any of the events in event_wait_list is a negative integer value." */
    stage = "a blocking read waiting for the failed kernel";
    int one_value = 0;
    err = clEnqueueReadBuffer(queue, data, CL_TRUE, 0, sizeof one_value, &one_value, 1, &failed, NULL);
    if (err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        report("a blocking read with the failed kernel in its wait list returned %d, expected "
               "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (-14)", err);
    /* The CL_COMPLETE callback is also called "if the command terminated
     * abnormally", with the error as its status. */
    stage = "waiting for the failed kernel's callback";
    for (int i = 0; i < 500 && atomic_load(&failed_callback_status) == 12345; i++) usleep(10000);
    if (failed_callback_status != CL_OUT_OF_RESOURCES)
        report("the CL_COMPLETE callback of the failed kernel got status %d, expected CL_OUT_OF_RESOURCES (-5)",
               (int)failed_callback_status);
    if (with_notify) {
        stage = "waiting for the context's pfn_notify";
        for (int i = 0; i < 500 && !notes_mention(OOB_KERNEL); i++) usleep(10000);
        if (notes_mention(OOB_KERNEL))
            printf("%s: pfn_notify was told: %s", case_name, notes);
        else
            report("the context's pfn_notify got no message naming " OOB_KERNEL " (it got: \"%s\")", notes);
    }
    /* vecl's checked mode: the queue carries on and nothing was stored
     * (docs/jit.md, "Checked mode"). */
    stage = "clFinish after the failure";
    clFinish(queue);
    int got[OOB_INTS];
    stage = "a blocking read after the failure";
    CHECK(clEnqueueReadBuffer(queue, data, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    if (memcmp(got, init, sizeof got) != 0)
        report("the buffer changed: the write waiting for the failed kernel ran (got[0] = %d)", got[0]);
    clReleaseEvent(failed);
    clReleaseEvent(dependent);
    clReleaseKernel(kernel);
    clReleaseMemObject(data);
    clReleaseCommandQueue(queue);
}

static void case_checked_failure(void) { checked_failure(1); }
static void case_checked_failure_stderr(void) { checked_failure(0); }

/* ---- rect_overflow ---------------------------------------------------- */

#define RECT_BYTES 1024
#define HOST_BYTES 4096

static unsigned char host_mem[HOST_BYTES];

static unsigned char host_byte(int i) { return (unsigned char)(i * 7 + 3); }
static unsigned char buffer_byte(int k, int i) { return (unsigned char)(i * 13 + k); }

/* Reports (and repairs) any byte `call` changed in the host memory or the
 * two buffers. */
static void check_untouched(cl_command_queue queue, cl_mem a, cl_mem b, const char *call) {
    for (int i = 0; i < HOST_BYTES; i++)
        if (host_mem[i] != host_byte(i)) {
            report("%s wrote host memory at byte %d", call, i);
            break;
        }
    for (int i = 0; i < HOST_BYTES; i++) host_mem[i] = host_byte(i);
    cl_mem buffers[2] = {a, b};
    unsigned char seen[RECT_BYTES], init[RECT_BYTES];
    for (int k = 0; k < 2; k++) {
        CHECK(clEnqueueReadBuffer(queue, buffers[k], CL_TRUE, 0, RECT_BYTES, seen, 0, NULL, NULL));
        for (int i = 0; i < RECT_BYTES; i++) init[i] = buffer_byte(k, i);
        if (memcmp(seen, init, RECT_BYTES) != 0) {
            report("%s changed buffer %c", call, "ab"[k]);
            CHECK(clEnqueueWriteBuffer(queue, buffers[k], CL_TRUE, 0, RECT_BYTES, init, 0, NULL, NULL));
        }
    }
}

/* The call must fail with CL_INVALID_VALUE and leave every byte alone;
 * every call is tried, and each failure printed. */
#define EXPECT_INVALID(call)                                                 \
    do {                                                                     \
        stage = #call;                                                       \
        cl_int got_ = (call);                                                \
        if (got_ != CL_INVALID_VALUE) {                                      \
            report("line %d: %s returned %d, expected CL_INVALID_VALUE",    \
                   __LINE__, #call, got_);                                   \
            clFinish(queue);                                                 \
        }                                                                    \
        check_untouched(queue, a, b, #call);                                 \
    } while (0)

static void case_rect_overflow(void) {
    watchdog(30);
    open_device(NULL, NULL);
    cl_command_queue queue = new_queue(0);
    unsigned char init[2][RECT_BYTES];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < RECT_BYTES; i++) init[k][i] = buffer_byte(k, i);
    cl_mem a = new_buffer(RECT_BYTES, init[0]), b = new_buffer(RECT_BYTES, init[1]);
    for (int i = 0; i < HOST_BYTES; i++) host_mem[i] = host_byte(i);
    void *h = host_mem;
    const size_t zero[3] = {0, 0, 0};
    const size_t huge_region[3] = {SIZE_MAX / 2, 2, 1};
    const size_t huge_origin[3] = {SIZE_MAX - 3, 0, 0};
    const size_t huge_y_origin[3] = {0, (SIZE_MAX >> 4) + 1, 0}; /* 16 * y wraps to 0 */
    const size_t small[3] = {8, 1, 1};
    const size_t three_rows[3] = {4, 3, 1};
    const size_t three_slices[3] = {4, 2, 3};
    const size_t wrap_pitch = SIZE_MAX / 2 + 1; /* 2 * pitch wraps to 0 */
    const size_t huge_z_region[3] = {1, 1, SIZE_MAX};

    /* clEnqueueReadBufferRect */
    EXPECT_INVALID(clEnqueueReadBufferRect(queue, a, CL_TRUE, zero, zero, huge_region, 0, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueReadBufferRect(queue, a, CL_TRUE, huge_origin, zero, small, 0, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueReadBufferRect(queue, a, CL_TRUE, huge_y_origin, zero, small, 16, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueReadBufferRect(queue, a, CL_TRUE, zero, zero, three_rows, wrap_pitch, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueReadBufferRect(queue, a, CL_TRUE, zero, zero, three_slices, 16, wrap_pitch, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueReadBufferRect(queue, a, CL_TRUE, zero, zero, huge_z_region, 0, 0, 0, 0, h, 0, NULL, NULL));
    /* host side: the host offsets of rows 2 and 3 wrap around */
    EXPECT_INVALID(
        clEnqueueReadBufferRect(queue, a, CL_TRUE, zero, zero, three_rows, 0, 0, wrap_pitch, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueReadBufferRect(queue, a, CL_TRUE, zero, huge_origin, small, 0, 0, 0, 0, h, 0, NULL, NULL));

    /* clEnqueueWriteBufferRect */
    EXPECT_INVALID(clEnqueueWriteBufferRect(queue, a, CL_TRUE, zero, zero, huge_region, 0, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueWriteBufferRect(queue, a, CL_TRUE, huge_origin, zero, small, 0, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueWriteBufferRect(queue, a, CL_TRUE, huge_y_origin, zero, small, 16, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueWriteBufferRect(queue, a, CL_TRUE, zero, zero, three_rows, wrap_pitch, 0, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueWriteBufferRect(queue, a, CL_TRUE, zero, zero, three_slices, 16, wrap_pitch, 0, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueWriteBufferRect(queue, a, CL_TRUE, zero, zero, three_rows, 0, 0, wrap_pitch, 0, h, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueWriteBufferRect(queue, a, CL_TRUE, zero, huge_origin, small, 0, 0, 0, 0, h, 0, NULL, NULL));

    /* clEnqueueCopyBufferRect (then clFinish, in case it ran) */
    EXPECT_INVALID(clEnqueueCopyBufferRect(queue, a, b, zero, zero, huge_region, 0, 0, 0, 0, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueCopyBufferRect(queue, a, b, huge_origin, zero, small, 0, 0, 0, 0, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueCopyBufferRect(queue, a, b, zero, huge_origin, small, 0, 0, 0, 0, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueCopyBufferRect(queue, a, b, zero, zero, three_rows, wrap_pitch, 0, 0, 0, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueCopyBufferRect(queue, a, b, zero, zero, three_rows, 0, 0, wrap_pitch, 0, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueCopyBufferRect(queue, a, b, zero, zero, three_slices, 16, wrap_pitch, 16, 32, 0, NULL, NULL));
    EXPECT_INVALID(
        clEnqueueCopyBufferRect(queue, a, b, zero, zero, three_slices, 16, 32, 16, wrap_pitch, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueCopyBufferRect(queue, a, b, huge_y_origin, zero, small, 16, 0, 0, 0, 0, NULL, NULL));

    /* clEnqueueFillBuffer: offset + size wraps */
    const int pattern = 0x55555555;
    EXPECT_INVALID(clEnqueueFillBuffer(queue, a, &pattern, sizeof pattern, SIZE_MAX - 3, 8, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueFillBuffer(queue, a, &pattern, sizeof pattern, 4, SIZE_MAX - 3, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueFillBuffer(queue, a, &pattern, sizeof pattern, SIZE_MAX - 3, 4, 0, NULL, NULL));

    /* clEnqueueReadBuffer / WriteBuffer / CopyBuffer near SIZE_MAX */
    EXPECT_INVALID(clEnqueueReadBuffer(queue, a, CL_TRUE, SIZE_MAX - 3, 8, h, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueReadBuffer(queue, a, CL_TRUE, SIZE_MAX - 3, 4, h, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueReadBuffer(queue, a, CL_TRUE, 8, SIZE_MAX - 3, h, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueWriteBuffer(queue, a, CL_TRUE, SIZE_MAX - 3, 8, h, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueCopyBuffer(queue, a, b, SIZE_MAX - 3, 0, 8, 0, NULL, NULL));
    EXPECT_INVALID(clEnqueueCopyBuffer(queue, a, b, 0, SIZE_MAX - 3, 8, 0, NULL, NULL));

    stage = "clFinish";
    CHECK(clFinish(queue));
    check_untouched(queue, a, b, "the calls above");
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseCommandQueue(queue);
}

/* ---- queue_on_device -------------------------------------------------- */

static void case_queue_on_device(void) {
    watchdog(30);
    open_device(NULL, NULL);
    stage = "clCreateCommandQueueWithProperties";
    cl_command_queue_properties tried[2] = {CL_QUEUE_ON_DEVICE,
                                            CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
    for (int i = 0; i < 2; i++) {
        cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, tried[i], 0};
        cl_int err = 12345;
        cl_command_queue queue = clCreateCommandQueueWithProperties(ctx, device, list, &err);
        if (queue != NULL || err != CL_INVALID_VALUE)
            fail("CL_QUEUE_PROPERTIES = %s gave queue %p, error %d; expected NULL and CL_INVALID_VALUE (%d)",
                 i ? "CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE" : "CL_QUEUE_ON_DEVICE",
                 (void *)queue, err, CL_INVALID_VALUE);
    }
    /* A host queue still works. */
    cl_command_queue queue = new_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    CHECK(clFinish(queue));
    clReleaseCommandQueue(queue);
}

/* ---- main ------------------------------------------------------------- */

static const struct {
    const char *name;
    void (*run)(void);
} CASES[] = {
    {"nonblocking_kernel", case_nonblocking_kernel},
    {"shared_inorder", case_shared_inorder},
    {"user_event_fanin", case_user_event_fanin},
    {"user_event_fanin_ooo", case_user_event_fanin_ooo},
    {"callback_chain", case_callback_chain},
    {"callback_wait", case_callback_wait},
    {"checked_failure", case_checked_failure},
    {"checked_failure_stderr", case_checked_failure_stderr},
    {"rect_overflow", case_rect_overflow},
    {"queue_on_device", case_queue_on_device},
    {"ooo_concurrency", case_ooo_concurrency},
};

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; argc == 2 && i < sizeof CASES / sizeof CASES[0]; i++) {
        if (strcmp(argv[1], CASES[i].name) == 0) {
            case_name = CASES[i].name;
            CASES[i].run();
            if (failures) {
                printf("%s: %d checks failed\n", case_name, failures);
                fflush(stdout);
                _exit(1);
            }
            if (program) clReleaseProgram(program);
            clReleaseContext(ctx);
            printf("%s ok\n", case_name);
            fflush(stdout);
            return 0;
        }
    }
    fprintf(stderr, "usage: %s CASE, one of:", argv[0]);
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) fprintf(stderr, " %s", CASES[i].name);
    fprintf(stderr, "\n");
    return 2;
}
