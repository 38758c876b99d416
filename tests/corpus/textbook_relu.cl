// ReLU and leaky ReLU (slope 0.125) element-wise, with the vector forms
// fmax on float4 and select.
// @kernel relu
// @range 2 / 2
// @arg buffer float [-2, -0.5, 0, 0.5, 2, -8, 3, -1]
// @arg buffer float zeros(8)
// @arg buffer float zeros(8)
// @expect 1 [0, 0, 0, 0.5, 2, 0, 3, 0]
// @expect 2 [-0.25, -0.0625, 0, 0.5, 2, -1, 3, -0.125]
__kernel void relu(__global const float4 *x, __global float4 *y, __global float4 *z)
{
    int i = get_global_id(0);
    float4 v = x[i];
    y[i] = fmax(v, 0.0f);
    z[i] = select(v * 0.125f, v, v > 0.0f);
}
