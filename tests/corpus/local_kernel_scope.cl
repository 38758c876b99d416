// A __local array declared at kernel scope (not an argument), a group
// sum computed by item 0 after a barrier and broadcast back.
// @kernel lks
// @range 12 / 4
// @arg buffer int iota(12)
// @arg buffer int zeros(12)
// @expect 1 [6, 5, 4, 3, 18, 17, 16, 15, 30, 29, 28, 27]
__kernel void lks(__global const int *in, __global int *out)
{
    __local int vals[4];
    __local int total;
    int l = get_local_id(0);
    vals[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) total = vals[0] + vals[1] + vals[2] + vals[3];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = total - vals[l];
}
