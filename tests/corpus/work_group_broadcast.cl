// work_group_broadcast from 2-D and 3-D local ids on 3-D groups.
// @kernel bcast
// @range 6,4,2 / 3,4,2
// @options -cl-std=CL2.0
// @arg buffer int iota(48)
// @arg buffer int zeros(144)
__kernel void bcast(__global const int *a, __global int *out)
{
    size_t i = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0)
               + get_global_id(0);
    int x = a[i] * 7 - 20;
    out[3 * i] = work_group_broadcast(x, 2, 3, 1);
    out[3 * i + 1] = work_group_broadcast(x * 2, 1, 2, 0);
    out[3 * i + 2] = work_group_broadcast(x + 1, 0, 1, 1);
}
