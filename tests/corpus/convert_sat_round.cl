// convert_T_sat_rXX on edge values: saturation to char/uchar/short/int
// bounds, NaN to 0, and each rounding mode (rtz, rte ties to even, rtp,
// rtn) on halves and out-of-range floats.
// @kernel cv
// @range 1 / 1
// @arg buffer float [-1.5, 2.5, 300.7, -200.2, 10000000000, -10000000000, nan, 127.5]
// @arg buffer int zeros(32)
// @expect 1 [-1, 2, 127, -128, 127, -128, 0, 127, 0, 2, 255, 0, 255, 0, 0, 128, -1, 3, 301, -200, 32767, -32768, 0, 128, -2, 2, 300, -201, 2147483647, -2147483648, 0, 127]
__kernel void cv(__global const float *in, __global int *out)
{
    for (int i = 0; i < 8; i++) {
        float x = in[i];
        out[i] = convert_char_sat_rtz(x);
        out[8 + i] = convert_uchar_sat_rte(x);
        out[16 + i] = convert_short_sat_rtp(x);
        out[24 + i] = convert_int_sat_rtn(x);
    }
}
