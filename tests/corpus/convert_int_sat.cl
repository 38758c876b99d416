// Integer-to-integer conversions: plain (truncating modulo) versus _sat
// (clamping) for char, uchar, short, ushort from int, and uint from a
// negative int; vector forms convert_uchar4_sat.
// @kernel ci
// @range 1 / 1
// @arg buffer int [-300, -1, 0, 100, 255, 256, 70000, -2147483648]
// @arg buffer int zeros(48)
// @expect 1 [-44, -1, 0, 100, -1, 0, 112, 0, -128, -1, 0, 100, 127, 127, 127, -128, 0, 0, 0, 100, 255, 255, 255, 0, 65236, 65535, 0, 100, 255, 256, 4464, 0, 0, 0, 0, 100, 255, 256, 65535, 0, 0, 0, 0, 100, 255, 256, 70000, 0]
__kernel void ci(__global const int *in, __global int *out)
{
    for (int i = 0; i < 8; i += 4) {
        int4 v = vload4(i / 4, in);
        vstore4(convert_int4(convert_char4(v)), i / 4, out);
        vstore4(convert_int4(convert_char4_sat(v)), 2 + i / 4, out);
        vstore4(convert_int4(convert_uchar4_sat(v)), 4 + i / 4, out);
        vstore4(convert_int4(convert_ushort4(v)), 6 + i / 4, out);
        vstore4(convert_int4(convert_ushort4_sat(v)), 8 + i / 4, out);
        vstore4(as_int4(convert_uint4_sat(v)), 10 + i / 4, out);
    }
}
