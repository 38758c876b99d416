// Three-point 1-D stencil with clamp-to-edge boundaries.
// @kernel stencil
// @range 8 / 4
// @arg buffer int iota(8)
// @arg buffer int zeros(8)
// @expect 1 [1, 3, 6, 9, 12, 15, 18, 20]
__kernel void stencil(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    int n = get_global_size(0);
    int l = in[max(i - 1, 0)];
    int r = in[min(i + 1, n - 1)];
    out[i] = l + in[i] + r;
}
