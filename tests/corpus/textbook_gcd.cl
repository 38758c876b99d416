// Euclid's algorithm per work-item (a data-dependent while loop).
// @kernel gcd
// @range 8 / 4
// @arg buffer int [48, 18, 17, 5, 100, 75, 0, 9, 81, 27, 13, 13, 1071, 462, 270, 192]
// @arg buffer int zeros(8)
// @expect 1 [6, 1, 25, 9, 27, 13, 21, 6]
__kernel void gcd(__global const int2 *in, __global int *out)
{
    int i = get_global_id(0);
    int a = in[i].x, b = in[i].y;
    while (b != 0) { int t = a % b; a = b; b = t; }
    out[i] = a;
}
