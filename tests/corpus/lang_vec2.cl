// float2/int2: construction, .xy/.yx/.s0/.s1, lo/hi, arithmetic with scalars.
// @kernel vec2
// @range 1 / 1
// @arg buffer int zeros(8)
// @expect 0 [3, 1, 4, 6, 1, 3, -2, 2]
__kernel void vec2(__global int *out)
{
    int2 a = (int2)(1, 3);
    int2 b = a.yx;
    out[0] = b.x;
    out[1] = b.s1;
    int2 c = a + 3;
    out[2] = c.x;
    out[3] = c.y;
    out[4] = a.lo;
    out[5] = a.hi;
    int2 d = (int2)(a.s0 - a.s1, a.even * 2);
    out[6] = d.x;
    out[7] = d.y;
}
