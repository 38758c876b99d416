// A 2-D NDRange: C = A * B for 4x4 matrices, row-major.
// @kernel matmul
// @range 4,4 / 2,2
// @arg buffer float iota(16)
// @arg buffer float [1,0,0,0, 0,2,0,0, 0,0,3,0, 0,0,0,4]
// @arg buffer float zeros(16)
// @arg value int 4
// @expect 2 [0, 2, 6, 12, 4, 10, 18, 28, 8, 18, 30, 44, 12, 26, 42, 60]
__kernel void matmul(__global const float *A, __global const float *B, __global float *C, int n)
{
    int col = get_global_id(0);
    int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}
