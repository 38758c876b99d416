// Integer promotions and the usual arithmetic conversions: uchar
// operands promote to int before arithmetic (so 200 + 100 is 300), signed
// vs unsigned comparison (-1 < 1u is false), short * short, char sign
// extension, and unsigned long mixing.
// @kernel prom
// @range 1 / 1
// @arg buffer int zeros(8)
// @arg value uchar 200
// @expect 0 [300, 0, 1, 1000000, -56, 200, 2, 2]
__kernel void prom(__global int *out, uchar a)
{
    uchar b = 100;
    out[0] = a + b;
    out[1] = -1 < 1u;
    out[2] = -1 < 1;
    short s = 1000;
    out[3] = s * s;
    char c = (char)a;
    out[4] = c;
    out[5] = (uchar)c;
    ulong big = 1;
    out[6] = (int)(big > -1 ? 0 : 1) + (sizeof(a + b) == 4);
    out[7] = (sizeof(s * s) == 4) + (sizeof(big + 1) == 8);
}
