// Reduction that adds two elements while loading and unrolls the last steps.
// @kernel reduce
// @range 16 / 8
// @arg buffer int iota(32)
// @arg buffer int zeros(2)
// @arg local 32
// @expect 1 [120, 376]
__kernel void reduce(__global const int *in, __global int *out, __local int *s)
{
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    uint i = get_group_id(0) * n * 2 + lid;
    s[lid] = in[i] + in[i + n];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = n / 2; stride > 2; stride >>= 1) {
        if (lid < stride)
            s[lid] += s[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 2)
        s[lid] += s[lid + 2];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 1)
        s[lid] += s[lid + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        out[get_group_id(0)] = s[0];
}
