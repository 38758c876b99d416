// Bitwise CRC-32 (reflected, polynomial 0xEDB88320) of a 16-byte block
// per work-item.
// @kernel crc
// @range 4 / 2
// @arg buffer uchar [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]
// @arg buffer uint zeros(4)
// @expect 1 [3469664904, 4104650087, 3122453846, 2155201209]
__kernel void crc(__global const uchar *data, __global uint *out)
{
    int i = get_global_id(0);
    uint c = 0xffffffffu;
    for (int k = 0; k < 16; k++) {
        c ^= data[16 * i + k];
        for (int b = 0; b < 8; b++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    out[i] = ~c;
}
