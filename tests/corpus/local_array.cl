// A kernel-scope __local array (a module global) shared by a group:
// every item writes its id, then reads its neighbour's.
// @kernel rotate
// @range 8 / 4
// @arg buffer int zeros(8)
// @expect 0 [1, 2, 3, 0, 5, 6, 7, 4]
__kernel void rotate(__global int *out)
{
    __local int tile[4];
    int l = get_local_id(0);
    tile[l] = get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[(l + 1) % 4];
}
