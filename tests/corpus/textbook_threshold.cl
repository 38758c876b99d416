// Binary threshold of uchar pixels at 128 with a 2-D range 4x4 / 2x2.
// @kernel th
// @range 4,4 / 2,2
// @arg buffer uchar [0, 29, 58, 87, 116, 145, 174, 203, 232, 5, 34, 63, 92, 121, 150, 179]
// @arg buffer uchar zeros(16)
// @expect 1 [0, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 0, 255, 255]
__kernel void th(__global const uchar *in, __global uchar *out)
{
    int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
    out[y * w + x] = in[y * w + x] >= 128 ? 255 : 0;
}
