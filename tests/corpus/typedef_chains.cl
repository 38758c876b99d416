// Typedefs of typedefs, of vectors, of pointers to __global data, of
// arrays and of structs, and a typedef shadowed in a block scope.
// @kernel td
// @range 4 / 2
// @arg buffer int iota(4, 1)
// @arg buffer int zeros(4)
// @expect 1 [9, 12, 15, 18]
typedef int myint;
typedef myint count_t;
typedef __global const count_t *in_ptr;
typedef count_t trio[3];
typedef int2 pair;
typedef struct { trio t; pair p; } holder;
__kernel void td(in_ptr in, __global int *out)
{
    int i = get_global_id(0);
    holder h;
    for (count_t k = 0; k < 3; k++) h.t[k] = in[i];
    h.p = (pair)(2, 4);
    count_t s = h.t[0] + h.t[1] + h.t[2];
    {
        typedef float count_t;
        count_t f = 0.5f;
        s += (int)(f * 4.0f);
    }
    out[i] = s + h.p.y;
}
