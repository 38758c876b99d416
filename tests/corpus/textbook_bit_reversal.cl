// Bit-reversal permutation of eight elements (the FFT reordering step).
// @kernel bitrev
// @range 8 / 8
// @arg buffer int iota(8, 10)
// @arg buffer int zeros(8)
// @arg value uint 3
// @expect 1 [10, 14, 12, 16, 11, 15, 13, 17]
uint reverse_bits(uint v, uint bits)
{
    uint r = 0;
    for (uint b = 0; b < bits; b++) {
        r = (r << 1) | (v & 1u);
        v >>= 1;
    }
    return r;
}

__kernel void bitrev(__global const int *in, __global int *out, uint bits)
{
    uint i = get_global_id(0);
    out[reverse_bits(i, bits)] = in[i];
}
