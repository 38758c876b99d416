// Sub-group and work-group functions on half (cl_khr_fp16 with
// cl_khr_subgroups and the shuffle, relative-shuffle, non-uniform and
// clustered extensions): reductions, scans, broadcasts and shuffles of
// half and half vectors, in groups of 15 (partial sub-groups at every
// width) and a partial last group. The values are rounded to integers
// (whatever inputs the harness picks), so every sum is exact in half and
// the order of the additions does not matter. Shuffles from lanes past
// the end of a partial sub-group are undefined and not stored.
// @kernel hc
// @range 37 / 15
// @options -cl-std=CL2.0
// @arg buffer float [1.5, -0.25, 3.75, 2.0, -7.5, 0.125, 4.0, 8.0, -1.0, 6.5, 0.5, 11.0, -14.0, 3.25, 9.0, 8.0, -2.0, 1.0, 15.0, -6.0, 10.0, 7.0, -9.0, 13.0, 0.0, 5.0, -4.0, 2.0, 18.0, -7.0, 3.0, 6.0, -11.0, 14.0, 1.0, -5.0, 9.0]
// @arg buffer float zeros(888)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void hc(__global const float *f, __global float *o)
{
    size_t i = get_global_id(0);
    uint lid = get_sub_group_local_id();
    uint size = get_sub_group_size();
    half x = convert_half(rint(f[i]));
    __global float *p = o + 24 * i;
    p[0] = sub_group_reduce_add(x);
    p[1] = sub_group_reduce_min(x);
    p[2] = sub_group_reduce_max(x);
    p[3] = sub_group_scan_inclusive_add(x);
    p[4] = sub_group_scan_exclusive_max(x);
    p[5] = sub_group_scan_inclusive_min(x);
    p[6] = sub_group_broadcast(x, size - 1);
    p[7] = sub_group_shuffle(x, (lid + 2) % size);
    half t = sub_group_shuffle_xor(x, 1);
    p[8] = (lid ^ 1) < size ? t : 0.0h;
    t = sub_group_shuffle_down(x, 1);
    p[9] = lid + 1 < size ? t : 0.0h;
    t = sub_group_shuffle_up(x, 1);
    p[10] = lid > 0 ? t : 0.0h;
    p[11] = sub_group_clustered_reduce_add(x, 2);
    if (x > 0.0h) {
        p[12] = sub_group_non_uniform_reduce_max(x);
        p[13] = sub_group_non_uniform_scan_inclusive_add(x);
        p[14] = sub_group_non_uniform_broadcast(x, sub_group_broadcast_first(lid));
    }
    p[15] = work_group_reduce_add(x);
    p[16] = work_group_reduce_min(x);
    p[17] = work_group_scan_inclusive_add(x);
    p[18] = work_group_scan_exclusive_max(x);
    p[19] = work_group_broadcast(x, 3);
    half2 v = (half2)(x, -x * 0.5h);
    half2 b = sub_group_broadcast(v, 0);
    p[20] = b.x;
    p[21] = b.y;
    half2 s = sub_group_shuffle(v, size - 1 - lid);
    p[22] = s.y;
    p[23] = sub_group_non_uniform_reduce_mul(x * 0.0h + (lid < 4 ? 1.5h : 1.0h));
}
