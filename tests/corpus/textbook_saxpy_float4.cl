// saxpy over float4 (four elements per work-item): y = a*x + y.
// @kernel saxpy4
// @range 4 / 2
// @arg value float 1.5
// @arg buffer float iota(16)
// @arg buffer float fill(16, 2)
// @expect 2 [2, 3.5, 5, 6.5, 8, 9.5, 11, 12.5, 14, 15.5, 17, 18.5, 20, 21.5, 23, 24.5]
__kernel void saxpy4(float a, __global const float4 *x, __global float4 *y)
{
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
