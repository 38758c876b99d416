// Argmax per row of 8 (first index of the maximum), one work-item per row.
// @kernel am
// @range 2 / 2
// @arg buffer int [3, 9, 2, 9, 1, 0, 7, 8, 4, 4, 4, 4, 5, 1, 5, 0]
// @arg buffer int zeros(2)
// @expect 1 [1, 4]
__kernel void am(__global const int *v, __global int *out)
{
    int r = get_global_id(0);
    __global const int *row = v + 8 * r;
    int best = 0;
    for (int i = 1; i < 8; i++)
        if (row[i] > row[best]) best = i;
    out[r] = best;
}
