// Row sums of a 4x5 int matrix, one work-item per row, and column sums
// with a second loop order.
// @kernel rs
// @range 4 / 2
// @arg buffer int iota(20)
// @arg buffer int zeros(4)
// @arg buffer int zeros(5)
// @expect 1 [10, 35, 60, 85]
// @expect 2 [30, 34, 38, 42, 46]
__kernel void rs(__global const int *m, __global int *rows, __global int *cols)
{
    int r = get_global_id(0);
    int s = 0;
    for (int c = 0; c < 5; c++) s += m[r * 5 + c];
    rows[r] = s;
    if (r == 0)
        for (int c = 0; c < 5; c++) {
            int t = 0;
            for (int k = 0; k < 4; k++) t += m[k * 5 + c];
            cols[c] = t;
        }
}
