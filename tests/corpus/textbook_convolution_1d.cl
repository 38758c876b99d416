// 1-D convolution with a 3-tap __constant kernel and clamped borders.
// @kernel c1
// @range 16 / 4
// @arg buffer float [0, 5, 1, 6, 2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3]
// @arg buffer float zeros(16)
// @expect 1 [1.25, 2.75, 3.25, 3.75, 4.25, 4.75, 5.25, 5.75, 4, 2.25, 2.75, 3.25, 3.75, 4.25, 4.75, 4]
__constant float taps[3] = {0.25f, 0.5f, 0.25f};
__kernel void c1(__global const float *in, __global float *out)
{
    int i = get_global_id(0), n = get_global_size(0);
    float acc = 0.0f;
    for (int j = 0; j < 3; j++)
        acc += taps[j] * in[clamp(i + j - 1, 0, n - 1)];
    out[i] = acc;
}
