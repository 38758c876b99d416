/* The 512-bit FMA peak and the divider's rate of one core, by hand-written
 * loops (thread CPU time, best of five):
 *
 *     gcc -O2 -o /tmp/fma_peak scripts/fma_peak.c && /tmp/fma_peak
 *
 * The clock comes from a chain of dependent integer adds (one a cycle);
 * the peak from twelve independent vfmadd231ps zmm chains; the divider
 * from independent vdivps / vsqrtps zmm and from a sqrt -> div chain
 * (nbody's 1/sqrt(r2) as OpenCL's rsqrt is computed). docs/wide.md
 * ("nbody's loop: masked FMAs, shifted broadcasts") has the numbers. */
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define FMA12 \
    "vfmadd231ps %%zmm14,%%zmm15,%%zmm0\n vfmadd231ps %%zmm14,%%zmm15,%%zmm1\n" \
    "vfmadd231ps %%zmm14,%%zmm15,%%zmm2\n vfmadd231ps %%zmm14,%%zmm15,%%zmm3\n" \
    "vfmadd231ps %%zmm14,%%zmm15,%%zmm4\n vfmadd231ps %%zmm14,%%zmm15,%%zmm5\n" \
    "vfmadd231ps %%zmm14,%%zmm15,%%zmm6\n vfmadd231ps %%zmm14,%%zmm15,%%zmm7\n" \
    "vfmadd231ps %%zmm14,%%zmm15,%%zmm8\n vfmadd231ps %%zmm14,%%zmm15,%%zmm9\n" \
    "vfmadd231ps %%zmm14,%%zmm15,%%zmm10\n vfmadd231ps %%zmm14,%%zmm15,%%zmm11\n"

#define CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
    "xmm8", "xmm9", "xmm10", "xmm11", "xmm14", "xmm15"

/* Best thread CPU time of five runs of `n` trips of `body`. */
#define TIME(best, n, body)                                                   \
    do {                                                                      \
        best = 1e9;                                                           \
        for (int r = 0; r < 5; r++) {                                         \
            long i = (n);                                                     \
            double t0 = now();                                                \
            __asm__ volatile("vbroadcastss %1,%%zmm14\n vbroadcastss %1,%%zmm15\n" \
                             "vxorps %%zmm0,%%zmm0,%%zmm0\n"                  \
                             "1:\n" body "dec %0\n jnz 1b\n"                   \
                             : "+r"(i) : "m"(x) : CLOBBERS);                   \
            double dt_ = now() - t0;                                          \
            if (dt_ < best) best = dt_;                                       \
        }                                                                     \
    } while (0)

int main(void) {
    const long n = 50000000;
    float x = 1.5f;
    double best_add = 1e9;
    for (int r = 0; r < 5; r++) {
        long i = n, y = 0;
        double t0 = now();
        __asm__ volatile("1: add $1,%0\n add $1,%0\n add $1,%0\n add $1,%0\n"
                         "add $1,%0\n add $1,%0\n add $1,%0\n add $1,%0\n"
                         "dec %1\n jnz 1b\n"
                         : "+r"(y), "+r"(i));
        double t = now() - t0;
        if (t < best_add) best_add = t;
    }
    double hz = 8.0 * n / best_add;
    printf("clock: %.2f GHz (dependent adds)\n", hz / 1e9);
    double t;
    TIME(t, n / 4, FMA12 FMA12);
    double fmas = 24.0 * (n / 4);
    printf("512-bit FMA: %.2f a cycle, %.1f GFLOP/s of f32 per core\n",
           fmas / t / hz, fmas * 32 / t / 1e9);
    TIME(t, n / 8, "vdivps %%zmm14,%%zmm15,%%zmm0\n vdivps %%zmm14,%%zmm15,%%zmm1\n"
                   "vdivps %%zmm14,%%zmm15,%%zmm2\n vdivps %%zmm14,%%zmm15,%%zmm3\n");
    printf("vdivps zmm, independent: %.2f cycles each\n", t * hz / (n / 8) / 4);
    TIME(t, n / 8, "vsqrtps %%zmm15,%%zmm0\n vsqrtps %%zmm15,%%zmm1\n"
                   "vsqrtps %%zmm15,%%zmm2\n vsqrtps %%zmm15,%%zmm3\n");
    printf("vsqrtps zmm, independent: %.2f cycles each\n", t * hz / (n / 8) / 4);
    TIME(t, n / 8, "vsqrtps %%zmm15,%%zmm0\n vdivps %%zmm14,%%zmm15,%%zmm1\n"
                   "vsqrtps %%zmm15,%%zmm2\n vdivps %%zmm14,%%zmm15,%%zmm3\n");
    printf("vsqrtps + vdivps zmm, independent pairs: %.2f cycles a pair\n",
           t * hz / (n / 8) / 2);
    TIME(t, n / 8, "vsqrtps %%zmm15,%%zmm0\n vdivps %%zmm0,%%zmm14,%%zmm15\n");
    printf("vsqrtps -> vdivps chain: %.2f cycles a link\n", t * hz / (n / 8));
    return 0;
}
