// Vector literals built from mixed parts: (float4)(float2, float2),
// (int8)(int4, 1, 2, int2), (int4)(scalar) splat, nested literals, and a
// literal of a swizzle.
// @kernel vl
// @range 1 / 1
// @arg buffer int zeros(20)
// @expect 0 [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 9, 10, 7, 7, 7, 7, 4, 3, 2, 1]
__kernel void vl(__global int *o)
{
    float2 a = (float2)(1.0f, 2.0f), b = (float2)(3.0f, 4.0f);
    int4 x = convert_int4((float4)(a, b));
    vstore4(x, 0, o);
    int8 y = (int8)((int4)(5, 6, 7, 8), 1, 2, (int2)(9, 10));
    vstore8(y, 0, o + 4);
    vstore4((int4)(7), 3, o);
    int4 r = (int4)(x.wz, (int2)(x.y, x.x));
    vstore4(r, 4, o);
}
