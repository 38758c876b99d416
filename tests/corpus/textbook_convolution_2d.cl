// 2-D convolution with a 3x3 mask from __constant memory over the valid
// region of a 4x4 image. The mask is symmetric and sums to 16, so on a
// linear image each output is 16 times the centre pixel.
// @kernel conv
// @range 2,2 / 2,2
// @arg buffer float iota(16)
// @arg buffer float [1, 2, 1, 2, 4, 2, 1, 2, 1]
// @arg buffer float zeros(4)
// @expect 2 [80, 96, 144, 160]
__kernel void conv(__global const float *img, __constant float *mask, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    const int w = 4;
    float acc = 0.0f;
    for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++)
            acc += mask[dy * 3 + dx] * img[(y + dy) * w + (x + dx)];
    out[y * get_global_size(0) + x] = acc;
}
