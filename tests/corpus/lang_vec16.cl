// int16 vectors: arithmetic, a reversed swizzle spelled with .sF…s0,
// upper-case and lower-case hex component names, .lo/.hi down to scalars.
// @kernel v16
// @range 1 / 1
// @arg buffer int iota(16)
// @arg buffer int zeros(16)
// @arg buffer int zeros(8)
// @expect 1 [30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15]
// @expect 2 [10, 11, 12, 13, 14, 15, 15, 15]
__kernel void v16(__global const int16 *in, __global int16 *out, __global int *o2)
{
    int16 v = in[0];
    int16 r = v.sFEDCBA9876543210;
    out[0] = r * 2 + v;
    o2[0] = v.sA; o2[1] = v.sb; o2[2] = v.sC; o2[3] = v.sd; o2[4] = v.sE; o2[5] = v.sf;
    o2[6] = v.lo.lo.lo.x + v.hi.hi.hi.y;
    o2[7] = v.lo.hi.hi.y + v.hi.lo.lo.x;
}
