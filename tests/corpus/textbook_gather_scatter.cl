// Gather (out[i] = in[idx[i]]) and scatter (out[idx[i]] = in[i]) through
// an index permutation.
// @kernel gs
// @range 8 / 4
// @arg buffer int [0, 5, 2, 7, 4, 1, 6, 3]
// @arg buffer int [0, 10, 20, 30, 40, 50, 60, 70]
// @arg buffer int zeros(8)
// @arg buffer int zeros(8)
// @expect 2 [0, 50, 20, 70, 40, 10, 60, 30]
// @expect 3 [0, 50, 20, 70, 40, 10, 60, 30]
__kernel void gs(__global const int *idx, __global const int *in, __global int *g, __global int *s)
{
    int i = get_global_id(0);
    g[i] = in[idx[i]];
    s[idx[i]] = in[i];
}
