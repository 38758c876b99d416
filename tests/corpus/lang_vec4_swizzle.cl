// float4 swizzles: .wzyx, repeated components, .odd/.even/.lo/.hi, and
// lvalue swizzles writing a subset of components.
// @kernel swz
// @range 1 / 1
// @arg buffer float zeros(16)
// @expect 0 [4, 3, 2, 1, 1, 1, 2, 2, 2, 4, 1, 3, 10, 2, 20, 4]
__kernel void swz(__global float4 *out)
{
    float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    out[0] = v.wzyx;
    out[1] = v.xxyy;
    out[2] = (float4)(v.odd, v.even);
    float4 w = v;
    w.xz = (float2)(10.0f, 20.0f);
    out[3] = w;
}
