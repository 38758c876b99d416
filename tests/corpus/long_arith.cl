// 64-bit integer arithmetic: products beyond 32 bits, wrap-around of
// long, signed division truncating toward zero, modulo, shifts into the
// high word and ulong division; results stored as two uint halves.
// @kernel la
// @range 1 / 1
// @arg buffer long [1099511627781, -34359738368, 123456789012, 0]
// @arg buffer uint zeros(16)
// @expect 1 [15, 768, 3103621732, 2568623247, 527563524, 4281480233, 0, 2147483648, 3681400540, 4294967294, 418644, 0, 5242880, 268435456, 1431655765, 1431655765]
__kernel void la(__global const long *in, __global uint2 *out)
{
    long a = in[0], n = in[1], b = in[2], m = LONG_MAX + in[3];
    long r[8];
    r[0] = a * 3;
    r[1] = a * b;
    r[2] = (a * b) >> 7;
    r[3] = m + 1;
    r[4] = n / 7;
    r[5] = b % 1000003;
    r[6] = a << 20;
    r[7] = (long)(0xffffffffffffffffUL / 3);
    for (int i = 0; i < 8; i++)
        out[i] = as_uint2(r[i]);
}
