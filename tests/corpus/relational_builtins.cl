// Relational builtins: isnan/isinf/isfinite on scalars (1/0) and
// vectors (-1/0), any/all on int4, signbit, isgreater with NaN.
// @kernel rel
// @range 1 / 1
// @arg buffer float [1.0, nan, inf, -0.0]
// @arg buffer int zeros(16)
// @expect 1 [0, 1, 0, 0, 0, -1, 0, 0, -1, 0, 0, -1, 1, 0, 1, 0]
__kernel void rel(__global const float4 *in, __global int *o)
{
    float4 v = in[0];
    o[0] = isnan(v.x); o[1] = isnan(v.y); o[2] = isinf(v.x); o[3] = isinf(v.w);
    int4 n = isnan(v);
    vstore4(n, 1, o);
    int4 f = isfinite(v);
    int4 s = signbit(v);
    o[8] = f.x; o[9] = f.y; o[10] = f.z; o[11] = s.w;
    o[12] = any((int4)(0, 0, -1, 0));
    o[13] = all((int4)(-1, -1, 0, -1));
    o[14] = isgreater(2.0f, 1.0f);
    o[15] = isgreater(v.y, 1.0f);
}
