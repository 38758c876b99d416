// Integer builtins: popcount, clz, rotate, abs, abs_diff, add_sat, hadd,
// mad24/mul24, mul_hi and upsample on uint inputs.
// @kernel ib
// @range 8 / 4
// @arg buffer uint [0, 1, 255, 2147483648, 305419896, 4294967295, 16, 7]
// @arg buffer uint zeros(64)
// @expect 1 [0, 32, 0, 2147483648, 2, 0, 17, 0, 1, 31, 16, 2147483649, 3, 0, 273, 1, 8, 24, 4080, 2147483903, 130, 0, 65297, 255, 1, 0, 8, 4294967295, 1073741826, 32767, 17, 2147483648, 13, 3, 591751041, 2452903544, 152709950, 4660, 30737, 305419896, 32, 0, 4294967295, 4294967295, 2147483650, 65534, 65297, 1, 1, 27, 256, 2147483664, 10, 0, 4113, 16, 3, 29, 112, 2147483655, 6, 0, 1809, 7]
__kernel void ib(__global const uint *in, __global uint *out)
{
    int i = get_global_id(0);
    uint x = in[i];
    __global uint *o = out + 8 * i;
    o[0] = popcount(x);
    o[1] = clz(x);
    o[2] = rotate(x, 4u);
    o[3] = add_sat(x, 0x80000000u);
    o[4] = hadd(x, 5u);
    o[5] = mul_hi(x, 0xffffu);
    o[6] = upsample((uchar)(x & 0xff), (uchar)0x11);
    o[7] = abs(as_int(x));
}
