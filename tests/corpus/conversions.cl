// convert_T with saturation and rounding, as_T, integer promotion,
// unsigned wrap-around, shifts modulo the width, C casts.
// @kernel conversions
// @range 1 / 1
// @arg buffer int zeros(10)
// @expect 0 [255, 0, 2, 3, 1065353216, 300, 44, 2, -1, 128]
__kernel void conversions(__global int *out)
{
    out[0] = convert_uchar_sat(300);
    out[1] = convert_uchar_sat(-5);
    out[2] = convert_int_rte(2.5f);
    out[3] = convert_int_rtp(2.1f);
    out[4] = as_int(1.0f);
    uchar a = 200, b = 100;
    out[5] = a + b;
    uchar c = a + b;
    out[6] = c;
    int sh = 1;
    out[7] = sh << 33;
    out[8] = (char)255;
    uint u = 0x80000000u;
    out[9] = (int)(u >> 24);
}
