// select() with a vector condition takes b where the condition's most
// significant bit is set, for unsigned narrow conditions too (the JIT
// compared zero-extended ushort/uchar lanes with 0 and never took b).
// @kernel select_unsigned_narrow
// @range 8 / 8
// @arg buffer ushort [32768, 1, 65535, 32767, 0, 32769, 16384, 49152]
// @arg buffer uchar [128, 1, 255, 127, 0, 129, 64, 192]
// @arg buffer int zeros(8)
// @expect 2 [46, 64, 46, 64, 64, 46, 64, 46]
__kernel void select_unsigned_narrow(__global const ushort *c16, __global const uchar *c8,
                                     __global int *out)
{
    int i = get_global_id(0);
    ushort2 c = (ushort2)(c16[i], c16[i] ^ (ushort)0x8000);
    short2 r = select((short2)(1, 2), (short2)(10, 20), c);
    uchar2 d = (uchar2)(c8[i], c8[i] ^ (uchar)0x80);
    char2 s = select((char2)(3, 4), (char2)(30, 40), d);
    out[i] = r.x + r.y + s.x + s.y;
}
