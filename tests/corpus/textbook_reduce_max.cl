// Tree reduction of the maximum in __local memory, one result per group
// of 16, the groups' maxima then folded by the first item with atomic_max.
// @kernel rmax
// @range 64 / 16
// @arg buffer int [-500, 419, 338, 257, 176, 95, 14, -67, -148, -229, -310, -391, -472, 447, 366, 285, 204, 123, 42, -39, -120, -201, -282, -363, -444, 475, 394, 313, 232, 151, 70, -11, -92, -173, -254, -335, -416, -497, 422, 341, 260, 179, 98, 17, -64, -145, -226, -307, -388, -469, 450, 369, 288, 207, 126, 45, -36, -117, -198, -279, -360, -441, 478, 397]
// @arg buffer int [-100000]
// @arg local 64
// @expect 1 [478]
__kernel void rmax(__global const int *in, __global int *out, __local int *tmp)
{
    int lid = get_local_id(0);
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            tmp[lid] = max(tmp[lid], tmp[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        atomic_max(out, tmp[0]);
}
