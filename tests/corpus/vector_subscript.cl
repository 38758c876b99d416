// Vector components chosen at run time: v[i] on register vectors (read and
// write) and on vectors in memory.
// @kernel vsub
// @range 4 / 4
// @arg buffer float [1, 2, 3, 4]
// @arg buffer float zeros(8)
// @expect 1 [1, 10, 2, 20, 3, 30, 4, 40]
__kernel void vsub(__global const float4 *in, __global float *out)
{
    int i = get_global_id(0);
    float4 v = in[0];
    float4 w = (float4)(0.0f);
    for (int k = 0; k < 4; k++)
        w[k] = v[k] * 10.0f;
    out[2 * i] = v[i];
    out[2 * i + 1] = w[i];
}
