// Reduction with interleaved addressing (the modulo form): stride doubles.
// @kernel reduce
// @range 16 / 8
// @arg buffer int iota(16)
// @arg buffer int zeros(2)
// @arg local 32
// @expect 1 [28, 92]
__kernel void reduce(__global const int *in, __global int *out, __local int *s)
{
    uint lid = get_local_id(0);
    s[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = 1; stride < get_local_size(0); stride *= 2) {
        if (lid % (2 * stride) == 0)
            s[lid] += s[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = s[0];
}
