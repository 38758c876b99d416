// CRC-32 (the zlib polynomial, reflected) of each work-item's 4 bytes,
// written as a state machine of labels: a byte loop and a bit loop made
// of gotos, and a goto-selected branch for the odd bit.
// @kernel crc
// @range 8 / 4
// @arg buffer uint [0, 1, 305419896, 3735928559, 4294967295, 42, 2147483648, 7]
// @arg buffer uint zeros(8)
// @expect 1 [558161692, 2583214201, 2943190994, 442130463, 4294967295, 4006318150, 3439090748, 3163809701]
__kernel void crc(__global const uint *data, __global uint *out)
{
    int i = get_global_id(0);
    uint word = data[i];
    uint crc = 0xFFFFFFFFu;
    int byte = 0;
    int bit;
next_byte:
    if (byte == 4)
        goto done;
    crc ^= (word >> (8 * byte)) & 0xFFu;
    bit = 0;
next_bit:
    if (crc & 1u)
        goto odd;
    crc >>= 1;
    goto bit_done;
odd:
    crc = (crc >> 1) ^ 0xEDB88320u;
bit_done:
    if (++bit < 8)
        goto next_bit;
    byte++;
    goto next_byte;
done:
    out[i] = ~crc;
}
