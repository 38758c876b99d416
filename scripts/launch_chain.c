/* The bench's launch chain (2,000 launches of `advance` on a 256x256 grid
 * into one in-order queue, an argument set before each, clFinish at the
 * end) through the ICD loader, with each thread's CPU time at the end:
 *
 *     gcc -O2 -o /tmp/launch_chain scripts/launch_chain.c -lOpenCL
 *     echo /path/to/libvecl.so > /tmp/one/vecl.icd
 *     OCL_ICD_VENDORS=/tmp/one /tmp/launch_chain [RUNS]
 *
 * Prints wall and process CPU time per launch for each run (after one
 * untimed run of 200 launches), then every thread's CPU time
 * (`/proc/self/task/N/schedstat`) and context switches: which thread ran
 * the launches (the queue's executor, the application thread in
 * clFinish, a worker). Built against two libraries and alternated, it
 * tells a change in the launch path from one in the kernel's code
 * (`VECL_WIDE=0`, `VECL_THREADS=1`). docs/measurements.md ("the launch
 * chain's CPU") has the numbers. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LAUNCHES 2000
#define SIDE 256

static const char *source =
    "kernel void advance(global float *u, int t) {\n"
    "    size_t k = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "    u[k] += (float)t;\n"
    "}\n";

static double now(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void check(cl_int code, const char *what) {
    if (code != CL_SUCCESS) {
        fprintf(stderr, "%s: %d\n", what, code);
        exit(1);
    }
}

/* One line per thread: its name, CPU time and context switches. */
static void print_threads(void) {
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *task;
    while (tasks && (task = readdir(tasks))) {
        if (task->d_name[0] == '.')
            continue;
        char path[300], name[64] = "?", line[256];
        unsigned long long cpu_ns = 0;
        unsigned long voluntary = 0, involuntary = 0;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", task->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%llu", &cpu_ns) != 1)
                cpu_ns = 0;
            fclose(f);
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/status", task->d_name);
        f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f)) {
            sscanf(line, "Name: %63s", name);
            sscanf(line, "voluntary_ctxt_switches: %lu", &voluntary);
            sscanf(line, "nonvoluntary_ctxt_switches: %lu", &involuntary);
        }
        if (f)
            fclose(f);
        printf("  thread %-16s cpu %9.2f ms, switches %lu voluntary, %lu not\n", name,
               cpu_ns / 1e6, voluntary, involuntary);
    }
    if (tasks)
        closedir(tasks);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    cl_platform_id platform;
    cl_device_id device;
    cl_int code;
    check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &code);
    check(code, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &code);
    check(code, "clCreateCommandQueueWithProperties");
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &code);
    check(code, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &device, "", NULL, NULL), "clBuildProgram");
    cl_kernel kernel = clCreateKernel(program, "advance", &code);
    check(code, "clCreateKernel");
    size_t items = SIDE * SIDE;
    float *grid = calloc(items, sizeof(float));
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 4 * items, NULL, &code);
    check(code, "clCreateBuffer");
    check(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, 4 * items, grid, 0, NULL, NULL),
          "clEnqueueWriteBuffer");
    check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
    size_t global[2] = {SIDE, SIDE};
    int t = 0;
    long launched = 0;
    double sum = 0;
    for (int run = -1; run < runs; run++) {
        int launches = run < 0 ? LAUNCHES / 10 : LAUNCHES;
        double wall = now(CLOCK_MONOTONIC), cpu = now(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < launches; i++) {
            check(clSetKernelArg(kernel, 1, sizeof t, &t), "clSetKernelArg");
            check(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
                  "clEnqueueNDRangeKernel");
            sum += t;
            t = (t + 1) % 64;
        }
        check(clFinish(queue), "clFinish");
        wall = now(CLOCK_MONOTONIC) - wall;
        cpu = now(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        launched += launches;
        if (run >= 0)
            printf("wall %.2f us, cpu %.2f us per launch\n", wall / launches * 1e6,
                   cpu / launches * 1e6);
    }
    check(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, 4 * items, grid, 0, NULL, NULL),
          "clEnqueueReadBuffer");
    for (size_t i = 0; i < items; i++) {
        if (grid[i] != (float)sum) {
            fprintf(stderr, "element %zu is %g after %ld launches, not %g\n", i, grid[i],
                    launched, sum);
            return 1;
        }
    }
    print_threads();
    return 0;
}
