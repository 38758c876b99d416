// Dot product: per-item products summed per work-group in __local memory.
// @kernel dot
// @range 16 / 4
// @arg buffer int iota(16)
// @arg buffer int fill(16, 2)
// @arg buffer int zeros(4)
// @arg local 16
// @expect 2 [12, 44, 76, 108]
__kernel void dot(__global const int *a, __global const int *b, __global int *partial, __local int *tmp)
{
    size_t lid = get_local_id(0);
    size_t gid = get_global_id(0);
    tmp[lid] = a[gid] * b[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int sum = 0;
        for (size_t i = 0; i < get_local_size(0); i++)
            sum += tmp[i];
        partial[get_group_id(0)] = sum;
    }
}
