// Program-scope __constant tables: a 1-D int table indexed at run time, a
// 2-D table, a __constant struct array, and a __constant pointer
// parameter passed down to a helper.
// @kernel cl
// @range 16 / 4
// @arg buffer int zeros(16)
// @expect 0 [30, 18, 54, 19, 71, 130, 58, 119, 60, 33, 63, 109, 106, 105, 142, 88]
__constant int digits[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
__constant int mul[4][4] = {{0, 0, 0, 0}, {0, 1, 2, 3}, {0, 2, 4, 6}, {0, 3, 6, 9}};
typedef struct { int k; int sq; } entry;
__constant entry squares[8] = {{0, 0}, {1, 1}, {2, 4}, {3, 9}, {4, 16}, {5, 25}, {6, 36}, {7, 49}};
__constant int pair[2] = {5, 7};

int pick(__constant int *t, int i) { return t[i]; }

__kernel void cl(__global int *out)
{
    int i = get_global_id(0);
    out[i] = digits[i] * 10 + squares[i % 8].sq + mul[i / 4][i % 4] + pick(pair, i % 2) * (i % 3);
}
