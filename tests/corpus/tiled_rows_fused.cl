// Tiled matrix multiply of 16x16 tiles, groups of 16x8 (rows in flight in
// the wide code), the row's tile element the second factor and a load of
// it read twice in a second loop (fused into the FMA once, then not).
// @kernel tiled_rows_fused
// @range 32,32 / 16,8
// @arg buffer float iota(1024)
// @arg buffer float iota(1024, 1)
// @arg buffer float zeros(1024)
// @arg value int 32
#define TILE 16
__kernel void tiled_rows_fused(__global const float *A, __global const float *B, __global float *C, int n)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    int h = get_local_size(1);
    float acc = 0.0f, other = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        As[ty][tx] = A[row * n + t * TILE + tx] * 0.001f;
        for (int r = ty; r < TILE; r += h)
            Bs[r][tx] = B[(t * TILE + r) * n + col] * 0.001f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += Bs[k][tx] * As[ty][k];
        for (int k = 0; k < TILE - (tx & 3); k++)
            other += As[ty][k] * (Bs[k][tx] + As[ty][k]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc + other * 0.5f;
}
