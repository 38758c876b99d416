// Helper functions with out-parameters: a divmod returning through two
// private pointers, a min/max through a struct pointer, and a swap.
// @kernel op
// @range 8 / 4
// @arg buffer int [-20, -13, -6, 1, 8, 15, 22, 29]
// @arg buffer int zeros(32)
// @expect 1 [-6, -2, -20, 0, -4, -1, -13, 0, -2, 0, -6, 0, 0, 1, 0, 1, 2, 2, 0, 8, 5, 0, 0, 15, 7, 1, 0, 22, 9, 2, 0, 29]
typedef struct { int lo, hi; } range_t;
void divmod(int a, int b, int *q, int *r) { *q = a / b; *r = a % b; }
void bounds(int x, range_t *out) { out->lo = min(x, 0); out->hi = max(x, 0); }
void swap(int *a, int *b) { int t = *a; *a = *b; *b = t; }
__kernel void op(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    int q, r;
    divmod(in[i], 3, &q, &r);
    range_t b;
    bounds(in[i], &b);
    swap(&b.lo, &b.hi);
    swap(&b.lo, &b.hi);
    out[4 * i] = q; out[4 * i + 1] = r; out[4 * i + 2] = b.lo; out[4 * i + 3] = b.hi;
}
