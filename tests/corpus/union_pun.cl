// Unions: a float/uint pun to extract the exponent, a union of int4
// and int[4], and a union of a struct and a byte array (little-endian).
// @kernel un
// @range 1 / 1
// @arg buffer float [1.0, 8.0, 0.75, -3.0]
// @arg buffer int zeros(12)
// @expect 1 [127, 130, 126, 128, 10, 40, 1, 2, 513, 0, 0, 4]
typedef union { float f; uint u; } fu;
typedef union { int4 v; int a[4]; } vu;
typedef union { struct { uchar a, b, c, d; } s; uchar bytes[4]; ushort h[2]; uint w; } bu;
__kernel void un(__global const float *in, __global int *o)
{
    for (int i = 0; i < 4; i++) {
        fu x;
        x.f = in[i];
        o[i] = (x.u >> 23) & 0xff;
    }
    vu v;
    v.v = (int4)(10, 20, 30, 40);
    o[4] = v.a[0];
    o[5] = v.a[3];
    bu b;
    b.w = 0x04030201u;
    o[6] = b.s.a;
    o[7] = b.bytes[1];
    o[8] = b.h[0];
    o[9] = 0;
    o[10] = 0;
    o[11] = sizeof(bu);
}
