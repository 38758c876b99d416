// cl_khr_extended_bit_ops: bitfield_insert, bitfield_extract_signed and
// _unsigned and bit_reverse on uint, uchar4, short2 and ulong, with empty
// fields, whole-width fields, fields at the top and bottom bit, and a field
// placement that differs per work-item (in[2] packs offset | count << 8).
// @kernel bits
// @range 8 / 4
// @arg buffer uint [0x0, 0xffffffff, 0x80000001, 0x12345678, 0xdeadbeef, 0xf0f00f0, 0x7fffffff, 0xcafe1234]
// @arg buffer uint [0xffffffff, 0x0, 0x5a5a5a5a, 0x9abcdef0, 0x13, 0xffff0000, 0x1, 0x87654321]
// @arg buffer uint [0, 8192, 287, 2052, 3335, 4112, 7681, 1052]
// @arg buffer int zeros(128)
// @expect 3 [0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0, 0, 0, 0, 0, -1, -1, -1, 0, -1, -1, -1, -1, 0, -1, 0, 0, -1, 0, 0, 1, -1, 1, -2147483647, 1, -16777216, 16777344, -65536, -2147483647, 1515870810, 1515870810, 1073741825, -2, -1, 0, 0, 305422088, 103, 103, 510274632, -1564154360, 16975111, 1210870302, 2293863, 510274632, 259734873, -1709109264, 305419896, -17186, -1, 0, 0, -559937041, -1155, 7037, -142756485, 1580023535, -1, 2075491831, -4325507, -142756485, -939524096, -327661, -559038721, -4456448, -1, 0, 0, 240, 3855, 3855, 251719920, -65536, 252641520, -252706801, 252641520, 251719920, 65535, -65536, 65535, 252641520, 0, 0, 0, 3, -1, 1073741823, -2, 16843011, 1073741823, -16777217, 1073741823, -2, -2147483648, -7, 1073741827, -1073741824, -1, 0, 0, 452858420, -4, 12, 742948691, 2052993556, -50396925, 1400850476, -262143, 742948691, -2067618079, -2023406815, -553774540, -54, -1, 0, 0]
#ifndef cl_khr_extended_bit_ops
#error the extended bit operations are defined
#endif
__kernel void bits(__global const uint *xs, __global const uint *ys, __global const uint *oc,
                   __global int *out)
{
    int i = get_global_id(0);
    uint x = xs[i], y = ys[i];
    uint off = oc[i] & 255, cnt = oc[i] >> 8;
    __global int *o = out + 16 * i;
    o[0] = bitfield_insert(x, y, off, cnt);
    o[1] = bitfield_extract_signed(x, off, cnt);
    o[2] = bitfield_extract_unsigned(x, off, cnt);
    o[3] = bit_reverse(x);
    uint o8 = off & 7, c8 = min(cnt, 8 - o8);
    o[4] = as_int(bitfield_insert(as_uchar4(x), as_uchar4(y), o8, c8));
    char4 e8 = bitfield_extract_signed(as_uchar4(x), o8, c8);
    o[5] = as_int(e8);
    o[6] = as_int(bit_reverse(as_uchar4(x)));
    uint o16 = off & 15, c16 = min(cnt, 16 - o16);
    o[7] = as_int(bitfield_extract_signed(as_short2(x), o16, c16));
    ulong w = (ulong)x << 32 | y;
    long2 r;
    r.x = bit_reverse(w);
    uint o64 = off * 2, c64 = min(cnt * 2, 64 - o64);
    r.y = bitfield_insert(w, ~w, o64, c64);
    ((__global long2 *)(o + 8))[0] = r;
    ((__global long *)(o + 12))[0] = bitfield_extract_signed(w, o64, c64);
}
