// Naive matrix product C = A * B with a 2-D range (one item per element
// of C): A is 3x4, B is 4x2, exact in float.
// @kernel mm
// @range 2,3 / 1,3
// @arg buffer float [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5]
// @arg buffer float [-3, -2, -1, 0, 1, 2, 3, 4]
// @arg buffer float zeros(6)
// @arg value int 4
// @arg value int 2
// @expect 2 [5, 8, 5, 16, 5, 24]
__kernel void mm(__global const float *A, __global const float *B, __global float *C, int K, int N)
{
    int col = get_global_id(0);
    int row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
