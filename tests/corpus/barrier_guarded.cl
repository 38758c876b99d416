// A barrier under `if (gid < n)`: varying within a work-group as far as the
// compiler can tell, uniform at run time because `n` is a multiple of the
// local size (whole groups on each side), so it is checked at run time.
// @kernel guarded
// @range 32 / 8
// @arg buffer int iota(32)
// @arg buffer int zeros(32)
// @arg value int 16
// @expect 1 [70, 61, 52, 43, 34, 25, 16, 7, 150, 141, 132, 123, 114, 105, 96, 87, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
__kernel void guarded(__global const int *in, __global int *out, int n)
{
    __local int tmp[8];
    int gid = get_global_id(0) - get_global_offset(0);
    int lid = get_local_id(0);
    out[gid] = -1;
    if (gid < n) {
        tmp[lid] = in[gid];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[gid] = tmp[7 - lid] * 10 + lid;
    }
}
