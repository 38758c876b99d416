// gotos that skip code under a varying condition: multiples of 3 jump
// over the scaling, large scaled values over the offset too, so the
// work-items of one group take three different paths. A jump past an
// initialised declaration leaves it uninitialised, as in C; it is
// assigned after the label before it is read.
// @kernel skip
// @range 16 / 8
// @arg buffer int iota(16)
// @arg buffer int zeros(16)
// @expect 1 [7, 12, 17, 10, 27, 32, 13, 42, 47, 16, 50, 55, 19, 65, 70, 22]
__kernel void skip(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    int v = in[i];
    if (v % 3 == 0)
        goto skip_scale;
    v = v * 5;
    if (v > 40)
        goto skip_offset;
skip_scale:;
    int offset = 100;
    offset = 7;
    v = v + offset;
skip_offset:
    out[i] = v;
}
