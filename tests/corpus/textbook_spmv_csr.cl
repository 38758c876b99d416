// Sparse matrix-vector product, CSR format, one row per work-item.
// @kernel spmv
// @range 4 / 2
// @arg buffer int [0, 2, 3, 6, 7]
// @arg buffer int [0, 2, 1, 0, 1, 3, 3]
// @arg buffer float [1, 2, 3, 4, 5, 6, 7]
// @arg buffer float [1, 2, 3, 4]
// @arg buffer float zeros(4)
// @expect 4 [7, 6, 38, 28]
__kernel void spmv(__global const int *row_ptr, __global const int *cols,
                   __global const float *vals, __global const float *x, __global float *y)
{
    int row = get_global_id(0);
    float sum = 0.0f;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
        sum += vals[k] * x[cols[k]];
    y[row] = sum;
}
