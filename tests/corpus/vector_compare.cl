// Vector comparisons give -1/0 per component in the signed integer type
// of the operand width: int4, float4 (NaN unordered) and short8; logical
// ! on a vector; && of vectors.
// @kernel vc
// @range 1 / 1
// @arg buffer float [1.0, nan, 3.0, -1.0]
// @arg buffer int zeros(12)
// @arg buffer short zeros(8)
// @expect 1 [0, 0, -1, 0, -1, -1, 0, -1, -1, 0, 0, 0]
// @expect 2 [-1, 0, -1, 0, -1, 0, -1, 0]
__kernel void vc(__global const float4 *f, __global int4 *o, __global short8 *s)
{
    float4 v = f[0];
    o[0] = v > 2.0f;
    o[1] = v != 3.0f;
    int4 iv = (int4)(0, 5, 0, 7);
    o[2] = !iv && (int4)(1, 1, 0, 0) | (int4)(0);
    short8 a = (short8)(0, 1, 2, 3, 4, 5, 6, 7);
    s[0] = (a & (short8)1) == (short8)0;
}
