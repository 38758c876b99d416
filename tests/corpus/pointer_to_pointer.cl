// Private pointers to pointers: choosing a buffer through int **, an array
// of __global pointers indexed at run time, and writing through both.
// @kernel pp2
// @range 4 / 2
// @arg buffer int iota(4, 10)
// @arg buffer int iota(4, 20)
// @arg buffer int zeros(4)
// @expect 2 [30, 53, 36, 59]
__kernel void pp2(__global int *a, __global int *b, __global int *out)
{
    int i = get_global_id(0);
    __global int *bufs[2] = {a, b};
    __global int *pick = bufs[i & 1];
    __global int **pp = &pick;
    out[i] = (*pp)[i] * 2 + bufs[0][i];
}
