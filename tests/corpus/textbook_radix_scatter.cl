// Radix sort, pass 2: stable scatter by 2-bit digit. Each key's rank is the
// number of keys with a smaller digit plus earlier keys with the same digit.
// @kernel scatter
// @range 16 / 8
// @arg buffer uint [5, 1, 7, 2, 8, 3, 3, 0, 12, 9, 6, 4, 15, 10, 11, 13]
// @arg buffer uint zeros(16)
// @arg value uint 0
// @expect 1 [8, 0, 12, 4, 5, 1, 9, 13, 2, 6, 10, 7, 3, 3, 15, 11]
__kernel void scatter(__global const uint *keys, __global uint *out, uint shift)
{
    uint i = get_global_id(0);
    uint n = get_global_size(0);
    uint mine = (keys[i] >> shift) & 3u;
    uint rank = 0;
    for (uint j = 0; j < n; j++) {
        uint d = (keys[j] >> shift) & 3u;
        if (d < mine || (d == mine && j < i))
            rank++;
    }
    out[rank] = keys[i];
}
