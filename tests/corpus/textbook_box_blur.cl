// Horizontal three-tap box blur over the rows of a 4x4 buffer image with
// clamp-to-edge addressing.
// @kernel blur
// @range 4,4 / 4,1
// @arg buffer float iota(16)
// @arg buffer float zeros(16)
// @expect 1 ~1e-6 [0.33333333, 1, 2, 2.66666667, 4.33333333, 5, 6, 6.66666667, 8.33333333, 9, 10, 10.66666667, 12.33333333, 13, 14, 14.66666667]
__kernel void blur(__global const float *in, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_global_size(0);
    __global const float *row = in + y * w;
    float sum = row[clamp(x - 1, 0, w - 1)] + row[x] + row[clamp(x + 1, 0, w - 1)];
    out[y * w + x] = sum / 3.0f;
}
