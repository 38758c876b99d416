// Every compound assignment operator on int, on a uint with shifts, on a
// float4 with a scalar, and through an array element and a pointer.
// @kernel ca
// @range 1 / 1
// @arg buffer int zeros(12)
// @arg buffer float zeros(4)
// @expect 0 [10, 4, 21, 2, 1, 56, 3, 3, 15, 2, 103, 15]
// @expect 1 [3, 4.5, 6, 7.5]
__kernel void ca(__global int *o, __global float4 *f)
{
    int ops[11];
    for (int i = 0; i < 11; i++) ops[i] = 7;
    ops[0] += 3; ops[1] -= 3; ops[2] *= 3; ops[3] /= 3; ops[4] %= 3;
    ops[5] <<= 3; ops[6] >>= 1; ops[7] &= 3; ops[8] |= 8; ops[9] ^= 5;
    int x = 100;
    int *p = &x;
    *p -= 1; (*p)--; *p += 5;
    ops[10] = x;
    for (int i = 0; i < 11; i++) o[i] = ops[i];
    uint u = 0xF0u;
    u >>= 4;
    o[11] = u;
    float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    v *= 1.5f;
    v += 1.5f;
    f[0] = v;
}
