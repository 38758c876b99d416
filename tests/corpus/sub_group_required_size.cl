// intel_reqd_sub_group_size(8): the kernel runs at W = 8 whatever width
// is asked for, so its sub-groups have 8 work-items (the last of each
// group of 20 has 4).
// @kernel required
// @range 40 / 20
// @options -cl-std=CL2.0
// @arg buffer int iota(40)
// @arg buffer int zeros(120)
// @expect 1 [8, 8, 0, 8, 8, 1, 8, 8, 2, 8, 8, 3, 8, 8, 4, 8, 8, 5, 8, 8, 6, 8, 8, 7, 8, 8, 8, 8, 8, 9, 8, 8, 10, 8, 8, 11, 8, 8, 12, 8, 8, 13, 8, 8, 14, 8, 8, 15, 4, 8, 16, 4, 8, 17, 4, 8, 18, 4, 8, 19, 8, 8, 0, 8, 8, 1, 8, 8, 2, 8, 8, 3, 8, 8, 4, 8, 8, 5, 8, 8, 6, 8, 8, 7, 8, 8, 8, 8, 8, 9, 8, 8, 10, 8, 8, 11, 8, 8, 12, 8, 8, 13, 8, 8, 14, 8, 8, 15, 4, 8, 16, 4, 8, 17, 4, 8, 18, 4, 8, 19]
__attribute__((intel_reqd_sub_group_size(8)))
__kernel void required(__global const int *a, __global int *out)
{
    size_t i = get_global_id(0);
    out[3 * i] = get_sub_group_size();
    out[3 * i + 1] = get_max_sub_group_size();
    out[3 * i + 2] = sub_group_broadcast(a[i], 0) + get_sub_group_local_id() - 20 * get_group_id(0);
}
