// int8: .s0-.s7 indices, .lo/.hi halves, .even/.odd, element-wise ops.
// @kernel vec8
// @range 1 / 1
// @arg buffer int iota(8)
// @arg buffer int zeros(24)
// @expect 1 [4, 5, 6, 7, 0, 1, 2, 3, 0, 2, 4, 6, 1, 3, 5, 7, 7, 6, 5, 4, 3, 2, 1, 0]
__kernel void vec8(__global const int *in, __global int *out)
{
    int8 v = vload8(0, in);
    int8 swapped = (int8)(v.hi, v.lo);
    vstore8(swapped, 0, out);
    vstore8((int8)(v.even, v.odd), 1, out);
    int8 rev = (int8)(v.s7, v.s6, v.s5, v.s4, v.s3, v.s2, v.s1, v.s0);
    vstore8(rev, 2, out);
}
