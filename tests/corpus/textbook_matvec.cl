// Matrix-vector product, one row per work-item.
// @kernel matvec
// @range 4 / 2
// @arg buffer float iota(16)
// @arg buffer float [1, 2, 3, 4]
// @arg buffer float zeros(4)
// @arg value int 4
// @expect 2 [20, 60, 100, 140]
__kernel void matvec(__global const float *A, __global const float *x, __global float *y, int n)
{
    int row = get_global_id(0);
    float acc = 0.0f;
    for (int j = 0; j < n; j++)
        acc += A[row * n + j] * x[j];
    y[row] = acc;
}
