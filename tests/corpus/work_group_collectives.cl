// The work-group collectives for every type, in groups of 21 with a
// partial last group, one of them inside a loop and one under a branch
// that is uniform at run time.
// @kernel wg
// @range 50 / 21
// @options -cl-std=CL2.0
// @arg buffer int [5, -3, 12, 7, -8, 0, 4, 19, -1, 6, 2, 11, -14, 3, 9, 8, -2, 1, 15, -6, 10, 7, -9, 13, 0, 5, -4, 2, 18, -7, 3, 6, -11, 14, 1, -5, 9, 4, 4, 2, 7, -1, 0, 3, 8, 12, -6, 5, 1, 2]
// @arg buffer int zeros(700)
// @arg buffer long zeros(500)
// @arg buffer float zeros(500)
// @arg buffer double zeros(500)
// @arg value int 3
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define WG(x, o)                                                    \
    o[0] = work_group_reduce_add(x);                                \
    o[1] = work_group_reduce_min(x);                                \
    o[2] = work_group_reduce_max(x);                                \
    o[3] = work_group_scan_inclusive_add(x);                        \
    o[4] = work_group_scan_inclusive_min(x);                        \
    o[5] = work_group_scan_inclusive_max(x);                        \
    o[6] = work_group_scan_exclusive_add(x);                        \
    o[7] = work_group_scan_exclusive_min(x);                        \
    o[8] = work_group_scan_exclusive_max(x);                        \
    o[9] = work_group_broadcast(x, get_local_size(0) - 1);

__kernel void wg(__global const int *a, __global int *oi, __global long *ol,
                 __global float *of, __global double *od, int rounds)
{
    size_t i = get_global_id(0);
    int x = a[i];
    __global int *pi = oi + 14 * i;
    WG(x, pi);
    pi[10] = work_group_all(x > -12);
    pi[11] = work_group_any(x > 18);
    uint u = (uint)x * 2654435761u;
    pi[12] = (int)(work_group_reduce_max(u) ^ work_group_scan_exclusive_min(u));
    int acc = 0;
    for (int r = 0; r < rounds; r++)
        acc += work_group_scan_inclusive_add(x + r) * (r + 1);
    pi[13] = acc;
    long l = (long)x * 3000000000L;
    __global long *pl = ol + 10 * i;
    if (rounds > 1) {
        WG(l, pl);
        pl[0] ^= (long)work_group_reduce_min((ulong)l);
    }
    float f = (float)x * 0.37f + 1e-3f * (float)i;
    __global float *pf = of + 10 * i;
    WG(f, pf);
    double d = (double)f * 1e-3 + (double)x;
    __global double *pd = od + 10 * i;
    WG(d, pd);
}
