// Radix sort, pass 1: count the 2-bit digits of the keys at a given shift.
// @kernel count_digits
// @range 16 / 4
// @arg buffer uint [5, 1, 7, 2, 8, 3, 3, 0, 12, 9, 6, 4, 15, 10, 11, 13]
// @arg buffer uint zeros(4)
// @arg value uint 0
// @expect 1 [4, 4, 3, 5]
__kernel void count_digits(__global const uint *keys, __global uint *counts, uint shift)
{
    uint digit = (keys[get_global_id(0)] >> shift) & 3u;
    atomic_inc(counts + digit);
}
