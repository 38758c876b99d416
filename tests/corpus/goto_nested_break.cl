// goto out of two nested loops: the first (row, column) of a 4x4 table
// holding the work-item's key, or -1 (after the loops end normally).
// @kernel find2d
// @range 8 / 4
// @arg buffer int iota(16, 0, 3)
// @arg buffer int [0, 3, 4, 45, 21, 22, 30, 9]
// @arg buffer int zeros(8)
// @expect 2 [0, 1, -1, 33, 13, -1, 22, 3]
__kernel void find2d(__global const int *table, __global const int *keys,
                     __global int *out)
{
    int i = get_global_id(0);
    int key = keys[i];
    int r, c;
    for (r = 0; r < 4; r++)
        for (c = 0; c < 4; c++)
            if (table[r * 4 + c] == key)
                goto found;
    out[i] = -1;
    return;
found:
    out[i] = r * 10 + c;
}
