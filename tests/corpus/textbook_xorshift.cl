// xorshift32 random generator run five rounds per item from seed 1 + id.
// @kernel xs
// @range 16 / 4
// @arg buffer uint zeros(16)
// @expect 0 [2398689233, 3819972634, 1833517003, 3344977972, 1234782181, 617642030, 2854842367, 189827724, 2242485597, 3907035798, 1712960839, 3425753784, 1120521577, 796979874, 2709120371, 2817503589]
__kernel void xs(__global uint *out)
{
    uint s = get_global_id(0) + 1;
    for (int r = 0; r < 5; r++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
    }
    out[get_global_id(0)] = s;
}
