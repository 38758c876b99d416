// A vector condition's most significant bit decides `select`, also when
// the condition is unsigned; `&&` and `||` with a vector on either side
// work per component on both operands (OpenCL C 6.3.h: no short circuit),
// a scalar operand broadcast; the result is a signed vector of -1/0.
// @kernel vl
// @range 4 / 4
// @arg buffer uchar [69, 88, 170, 47, 0, 3, 0, 9]
// @arg buffer uchar [161, 53, 52, 69, 7, 0, 0, 1]
// @arg buffer uchar [146, 7, 128, 127, 0, 0, 0, 0]
// @arg buffer int zeros(32)
// @expect 3 [161, 88, 52, 47, 0, 0, -1, -1, -1, -1, 0, -1, 0, 0, 0, 0, -1, -1, -1, -1, 7, 3, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0]
__kernel void vl(__global const uchar *a, __global const uchar *b,
                 __global const uchar *c, __global int *o)
{
    size_t g = get_global_id(0);
    if (g != 0) return;
    // Loaded at a varying index: the lanes hold work-items' own values.
    uchar4 s = select(vload4(g, a), vload4(g, b), vload4(g, c));
    o[0] = s.x; o[1] = s.y; o[2] = s.z; o[3] = s.w;
    uchar4 x = vload4(g + 1, a), y = vload4(g + 1, b);
    char flag = a[4];                       // 0
    char4 and1 = flag && convert_char4(y);  // scalar left, vector right
    char4 or1 = (char)1 || convert_char4(x);
    char4 and2 = convert_char4(x) && (char)5;
    char4 or2 = convert_char4(x) || convert_char4(y);
    int4 chain = (int)a[5] && (int4)(1, 0, 2, 0) && (int4)(3, 3, 0, 0);
    o[4] = and1.x; o[5] = and1.y;
    o[6] = or1.x; o[7] = or1.w;
    o[8] = sizeof(and1) == 4 ? -1 : 0; o[9] = and2.y; o[10] = and2.x; o[11] = and2.w;
    o[12] = or2.z; o[13] = 0; o[14] = 0; o[15] = 0;
    o[16] = or2.x; o[17] = or2.y; o[18] = or2.w; o[19] = sizeof(flag && (int4)0) == 16 ? -1 : 0;
    o[20] = y.x; o[21] = x.y; o[22] = 0; o[23] = 0;
    o[24] = chain.x; o[25] = chain.y; o[26] = chain.z; o[27] = 0 - chain.x;
    o[28] = 0; o[29] = 0; o[30] = 0; o[31] = 0;
}
