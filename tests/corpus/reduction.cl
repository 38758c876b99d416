// Work-group sum reduction in __local memory with barriers.
// @kernel reduce
// @range 32 / 8
// @arg buffer int iota(32)
// @arg buffer int zeros(4)
// @arg local 32
// @expect 1 [28, 92, 156, 220]
__kernel void reduce(__global const int *in, __global int *out, __local int *scratch)
{
    uint lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
