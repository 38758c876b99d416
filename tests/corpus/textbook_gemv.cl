// gemv: y = alpha * A * x + beta * y.
// @kernel gemv
// @range 4 / 4
// @arg buffer float iota(16)
// @arg buffer float [1, 2, 3, 4]
// @arg buffer float fill(4, 1)
// @arg value int 4
// @arg value float 2
// @arg value float 1
// @expect 2 [41, 121, 201, 281]
__kernel void gemv(__global const float *A, __global const float *x, __global float *y,
                   int n, float alpha, float beta)
{
    int row = get_global_id(0);
    __global const float *r = A + row * n;
    float acc = 0.0f;
    for (int j = 0; j < n; j++)
        acc = fma(r[j], x[j], acc);
    y[row] = alpha * acc + beta * y[row];
}
