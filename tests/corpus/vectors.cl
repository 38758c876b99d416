// Vector literals, swizzles as rvalues and lvalues, .lo/.hi/.even/.odd,
// vload4/vstore4, scalar widening and vector compares (0 / -1).
// @kernel vectors
// @range 2 / 2
// @arg buffer float iota(8)
// @arg buffer float zeros(16)
// @arg buffer int zeros(8)
// @expect 1 [3, 2, 1, 0, 10, 11, 0, 0, 7, 6, 5, 4, 14, 15, 4, 4]
// @expect 2 [0, 0, -1, -1, 0, 0, -1, -1]
__kernel void vectors(__global const float *in, __global float *out, __global int *mask)
{
    int i = get_global_id(0);
    float4 v = vload4(i, in);
    float4 r = v.wzyx;
    vstore4(r, 2 * i, out);
    float4 w = (float4)(v.lo, 0.0f, 0.0f);
    w.xy = w.yx + 10.0f - (float)(3 * i);
    w.hi = (float2)(v.s0 * i);
    w.even += (float2)(0.0f, 1.0f) * 0.0f;
    vstore4(w.yxzw + (float4)(i * 3, i * 3, 0, 0), 2 * i + 1, out);
    int4 m = v > (float4)(1.5f + 4 * i);
    vstore4(m, i, mask);
}
