// The cl_khr_subgroups functions for every type, in groups of 15 (a
// partial last sub-group at every width) and a partial last group:
// reductions, scans, broadcast, all/any.
// @kernel reduce
// @range 37 / 15
// @options -cl-std=CL2.0
// @arg buffer int [5, -3, 12, 7, -8, 0, 4, 19, -1, 6, 2, 11, -14, 3, 9, 8, -2, 1, 15, -6, 10, 7, -9, 13, 0, 5, -4, 2, 18, -7, 3, 6, -11, 14, 1, -5, 9]
// @arg buffer float [1.5, -0.25, 3.75, 2.0, -7.5, 0.125, 4.0, 1e8, -1.0, 6.5, 0.1, 11.0, -14.0, 3.3, 9.0, 8.0, -2.0, 1.0, 15.0, -6.0, 10.0, 7.0, -9.0, 13.0, 0.0, 5.0, -4.0, 2.0, 18.0, -7.0, 3.0, 6.0, -11.0, 14.0, 1.0, -5.0, 9.0]
// @arg buffer int zeros(444)
// @arg buffer long zeros(370)
// @arg buffer float zeros(370)
// @arg buffer double zeros(370)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define SG(x, o)                                                    \
    o[0] = sub_group_reduce_add(x);                                 \
    o[1] = sub_group_reduce_min(x);                                 \
    o[2] = sub_group_reduce_max(x);                                 \
    o[3] = sub_group_scan_inclusive_add(x);                         \
    o[4] = sub_group_scan_inclusive_min(x);                         \
    o[5] = sub_group_scan_inclusive_max(x);                         \
    o[6] = sub_group_scan_exclusive_add(x);                         \
    o[7] = sub_group_scan_exclusive_min(x);                         \
    o[8] = sub_group_scan_exclusive_max(x);                         \
    o[9] = sub_group_broadcast(x, get_sub_group_size() - 1);

__kernel void reduce(__global const int *a, __global const float *f,
                     __global int *oi, __global long *ol,
                     __global float *of, __global double *od)
{
    size_t i = get_global_id(0);
    int x = a[i];
    __global int *pi = oi + 12 * i;
    SG(x, pi);
    pi[10] = sub_group_all(x > -12);
    pi[11] = sub_group_any(x > 17);
    uint u = (uint)x * 2654435761u;
    __global long *pl = ol + 10 * i;
    long l = (long)x * 3000000000L;
    SG(l, pl);
    ulong ul = (ulong)u * 77u;
    __global float *pf = of + 10 * i;
    SG(f[i], pf);
    double d = (double)f[i] * 1e-3 + (double)x;
    __global double *pd = od + 10 * i;
    SG(d, pd);
    // uint and ulong results, folded into the int and long ones.
    pi[0] ^= (int)sub_group_reduce_max(u);
    pi[1] ^= (int)sub_group_scan_inclusive_min(u);
    pi[2] ^= (int)sub_group_scan_exclusive_add(u);
    pl[0] ^= (long)sub_group_reduce_min(ul);
    pl[1] ^= (long)sub_group_scan_inclusive_max(ul);
    pl[2] ^= (long)sub_group_scan_exclusive_min(ul);
}
