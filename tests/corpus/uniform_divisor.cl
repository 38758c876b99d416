// Unsigned division and remainder of varying values by a uniform divisor,
// a power of two (4, 8, 32: the JIT's shift-and-mask path) and not (3:
// lane by lane), for uint, uchar and ulong operands.
// @kernel udiv
// @range 16 / 8
// @arg buffer uint zeros(96)
// @arg value uint 4
// @arg value uint 3
// @arg value uchar 8
// @arg value ulong 32
// @expect 0 [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 5, 7, 2, 0, 2, 0, 2, 14, 3, 0, 0, 1, 7, 21, 0, 1, 1, 1, 4, 28, 1, 1, 2, 1, 1, 3, 2, 1, 0, 2, 6, 10, 3, 1, 1, 2, 3, 17, 0, 2, 2, 2, 0, 24, 1, 2, 0, 3, 5, 31, 2, 2, 1, 3, 2, 6, 3, 2, 2, 3, 7, 13, 0, 3, 0, 4, 4, 20, 1, 3, 1, 4, 1, 27, 2, 3, 2, 4, 6, 2, 3, 3, 0, 5, 3, 9]
__kernel void udiv(__global uint *o, uint p, uint q, uchar p8, ulong pl)
{
    uint i = get_global_id(0);
    uchar c = (uchar)(i * 37u);
    o[6 * i + 0] = i % p;
    o[6 * i + 1] = i / p;
    o[6 * i + 2] = i % q;
    o[6 * i + 3] = i / q;
    o[6 * i + 4] = c % p8;
    o[6 * i + 5] = (uint)((i * 1000000007ul) % pl);
}
