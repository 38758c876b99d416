// Matrix transpose through a padded __local tile (2-D local array) with a
// barrier; 2-D NDRange with 4x4 groups over an 8x8 matrix.
// @kernel transpose
// @range 8,8 / 4,4
// @arg buffer float iota(64)
// @arg buffer float zeros(64)
// @arg value int 8
#define TILE 4
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void transpose(__global const float *in, __global float *out, int n)
{
    __local float tile[TILE][TILE + 1];
    int lx = get_local_id(0), ly = get_local_id(1);
    int gx = get_group_id(0) * TILE, gy = get_group_id(1) * TILE;
    tile[ly][lx] = in[(gy + ly) * n + gx + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[(gx + ly) * n + gy + lx] = tile[lx][ly];
}
// @expect 1 [0, 8, 16, 24, 32, 40, 48, 56, 1, 9, 17, 25, 33, 41, 49, 57, 2, 10, 18, 26, 34, 42, 50, 58, 3, 11, 19, 27, 35, 43, 51, 59, 4, 12, 20, 28, 36, 44, 52, 60, 5, 13, 21, 29, 37, 45, 53, 61, 6, 14, 22, 30, 38, 46, 54, 62, 7, 15, 23, 31, 39, 47, 55, 63]
