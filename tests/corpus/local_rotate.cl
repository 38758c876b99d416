// __local memory shared within a work-group: each item writes its value,
// barrier, then reads its right neighbour (wrapping within the group).
// @kernel rot
// @range 16 / 4
// @arg buffer int iota(16, 10)
// @arg buffer int zeros(16)
// @arg local 16
// @expect 1 [11, 12, 13, 10, 15, 16, 17, 14, 19, 20, 21, 18, 23, 24, 25, 22]
__kernel void rot(__global const int *in, __global int *out, __local int *tmp)
{
    int l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[(l + 1) % n];
}
