// Matrix-vector product with the vector staged in __local memory by the
// work-group (one row per item, 2 groups of 2).
// @kernel mvl
// @range 4 / 2
// @arg buffer int iota(32)
// @arg buffer int [0, 1, 2, 0, 1, 2, 0, 1]
// @arg buffer int zeros(4)
// @arg local 32
// @expect 2 [26, 82, 138, 194]
__kernel void mvl(__global const int *m, __global const int *x, __global int *y, __local int *xs)
{
    int l = get_local_id(0), n = get_local_size(0);
    for (int k = l; k < 8; k += n) xs[k] = x[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = get_global_id(0), acc = 0;
    for (int k = 0; k < 8; k++) acc += m[r * 8 + k] * xs[k];
    y[r] = acc;
}
