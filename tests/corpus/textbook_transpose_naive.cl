// Naive matrix transpose over a 2-D range of 6x4 with 2x2 work-groups.
// @kernel tr
// @range 6,4 / 2,2
// @arg buffer int iota(24)
// @arg buffer int zeros(24)
// @arg value int 6
// @arg value int 4
// @expect 1 [0, 6, 12, 18, 1, 7, 13, 19, 2, 8, 14, 20, 3, 9, 15, 21, 4, 10, 16, 22, 5, 11, 17, 23]
__kernel void tr(__global const int *in, __global int *out, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[x * h + y] = in[y * w + x];
}
