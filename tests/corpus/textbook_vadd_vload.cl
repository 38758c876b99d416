// Vector add with vload4/vstore4 on a plain int buffer plus a scalar
// tail handled by the last work-item (n = 18).
// @kernel vaddv
// @range 4 / 2
// @arg buffer int iota(18)
// @arg buffer int iota(18, 100, 2)
// @arg buffer int zeros(18)
// @arg value int 18
// @expect 2 [100, 103, 106, 109, 112, 115, 118, 121, 124, 127, 130, 133, 136, 139, 142, 145, 148, 151]
__kernel void vaddv(__global const int *a, __global const int *b, __global int *c, int n)
{
    int i = get_global_id(0);
    vstore4(vload4(i, a) + vload4(i, b), i, c);
    if (i == get_global_size(0) - 1)
        for (int t = 4 * get_global_size(0); t < n; t++)
            c[t] = a[t] + b[t];
}
