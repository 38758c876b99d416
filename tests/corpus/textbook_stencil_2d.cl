// Five-point Laplacian on a 4x4 grid; the boundary is copied. A linear
// field has zero Laplacian, so the interior becomes zero.
// @kernel laplace
// @range 4,4 / 2,2
// @arg buffer int iota(16)
// @arg buffer int fill(16, -1)
// @expect 1 [0, 1, 2, 3, 4, 0, 0, 7, 8, 0, 0, 11, 12, 13, 14, 15]
__kernel void laplace(__global const int *in, __global int *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_global_size(0), h = get_global_size(1);
    int c = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[c] = in[c];
        return;
    }
    out[c] = 4 * in[c] - in[c - 1] - in[c + 1] - in[c - w] - in[c + w];
}
