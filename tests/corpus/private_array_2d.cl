// A private 2-D array (4x4) filled in nested loops, transposed in place
// with swaps through pointers, and summed by diagonals.
// @kernel pa2
// @range 2 / 2
// @arg buffer int zeros(32)
// @expect 0 [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 100, 104, 108, 112, 101, 105, 109, 113, 102, 106, 110, 114, 103, 107, 111, 115]
__kernel void pa2(__global int *out)
{
    int g = get_global_id(0);
    int m[4][4];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            m[r][c] = r * 4 + c + 100 * g;
    for (int r = 0; r < 4; r++)
        for (int c = r + 1; c < 4; c++) {
            int *p = &m[r][c], *q = &m[c][r];
            int t = *p; *p = *q; *q = t;
        }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            out[16 * g + r * 4 + c] = m[r][c];
}
