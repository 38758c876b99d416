// Inclusive scan (Hillis-Steele) in one work-group.
// @kernel scan
// @range 8 / 8
// @arg buffer int iota(8, 1)
// @arg buffer int zeros(8)
// @arg local 32
// @expect 1 [1, 3, 6, 10, 15, 21, 28, 36]
__kernel void scan(__global const int *in, __global int *out, __local int *s)
{
    int lid = get_local_id(0);
    s[lid] = in[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < (int)get_local_size(0); off <<= 1) {
        int t = lid >= off ? s[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[lid] = s[lid];
}
