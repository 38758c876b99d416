// long2/ulong4 vectors: element-wise multiply with wrap-around, mul_hi on
// ulong, comparisons giving long -1/0, and convert_int4 of a long4.
// @kernel lv
// @range 1 / 1
// @arg buffer int zeros(12)
// @expect 0 [0, 0, 2, -1, 1, -1, 5, -6, 7, 0, 0, 0]
__kernel void lv(__global int *o)
{
    long2 a = (long2)(1L << 40, 3L);
    long2 b = (long2)(1L << 30, 5L);
    long2 p = a * b;
    o[0] = (int)(p.x >> 32);
    o[1] = (int)p.x;
    o[2] = (int)mul_hi(1UL << 63, 4UL);
    long2 c = a > b;
    o[3] = (int)c.x;
    o[4] = (int)(a.y > 4L ? 0 : 1) - 1 + (int)(c.y + 1);
    o[5] = (int)(a < (long2)(0L, 4L)).y;
    long4 w = (long4)(5L, -6L, 7L, (1L << 33));
    int4 n = convert_int4(w);
    o[6] = n.x; o[7] = n.y; o[8] = n.z; o[9] = n.w;
    o[10] = 0; o[11] = 0;
}
