// Tiled matrix multiply: 2x2 tiles of A and B staged through __local memory.
// @kernel matmul_tiled
// @range 4,4 / 2,2
// @arg buffer float iota(16)
// @arg buffer float iota(16, 1)
// @arg buffer float zeros(16)
// @arg value int 4
// @expect 2 [62, 68, 74, 80, 174, 196, 218, 240, 286, 324, 362, 400, 398, 452, 506, 560]
#define TILE 2
__kernel void matmul_tiled(__global const float *A, __global const float *B, __global float *C, int n)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}
