// Integer vectors: wrap-around in uchar4, shifts per component, bitwise
// operators, logical not (0 / -1), vector ?: by sign bit, select, abs, rotate.
// @kernel intvec
// @range 1 / 1
// @arg buffer int zeros(16)
// @expect 0 [44, 255, 0, 128, 2, 8, -1, 0, 10, 2, 3, 40, 7, 5, 2, 2]
__kernel void intvec(__global int *out)
{
    uchar4 a = (uchar4)(200, 255, 0, 127);
    uchar4 b = a + (uchar4)(100, 0, 0, 1);
    vstore4(convert_int4(b), 0, out);
    int2 s = (int2)(1, 1) << (int2)(1, 3);
    out[4] = s.x;
    out[5] = s.y;
    int2 n = !(int2)(0, 7);
    out[6] = n.x;
    out[7] = n.y;
    int2 c = (int2)(-1, 0);
    int2 r = c ? (int2)(10, 20) : (int2)(1, 2);
    out[8] = r.x;
    out[9] = r.y;
    int2 sel = select((int2)(3, 4), (int2)(30, 40), (int2)(0, -1));
    out[10] = sel.x;
    out[11] = sel.y;
    out[12] = abs(-7);
    out[13] = (5 & 7) | (1 ^ 1);
    out[14] = rotate(1u, 1u);
    out[15] = (int)((0x80000000u >> 30));
}
