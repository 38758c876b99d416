// Anonymous struct and union members (C11, as pyopencl-complex.h uses them):
// the members of an anonymous struct inside a union alias the same bytes
// under two names, members are reached through `.` and `->`, designated
// initialisers name them, and sizeof sees the enclosing layout.
// @kernel anon
// @range 4 / 2
// @arg buffer float [1, 2, 3, 4, 5, 6, 7, 8]
// @arg buffer float zeros(16)
// @arg buffer int zeros(4)
typedef union {
    struct { float x, y; };
    struct { float real, imag; };
} cfloat_t;

typedef struct {
    int tag;
    union { int i; float f; };
    struct { short lo, hi; };
} tagged_t;

cfloat_t cmul(cfloat_t a, cfloat_t b)
{
    cfloat_t r;
    r.real = a.x * b.x - a.y * b.y;
    r.imag = a.x * b.y + a.y * b.x;
    return r;
}

__kernel void anon(__global const cfloat_t *in, __global float *out, __global int *sizes)
{
    int i = get_global_id(0);
    cfloat_t a = in[i];
    cfloat_t j = { .x = 0.0f, .y = 1.0f };
    cfloat_t p = cmul(a, j);
    out[4 * i + 0] = p.real;
    out[4 * i + 1] = p.imag;
    out[4 * i + 2] = in[i].imag;
    __global const cfloat_t *q = &in[i];
    out[4 * i + 3] = q->real + q->y;
    if (i == 0) {
        tagged_t t;
        t.tag = 7;
        t.f = 1.0f;
        t.lo = 3;
        t.hi = -2;
        sizes[0] = sizeof(cfloat_t);
        sizes[1] = sizeof(tagged_t);
        sizes[2] = t.i;
        sizes[3] = t.tag + t.lo * 10 + t.hi * 100;
    }
}
// @expect 1 [-2, 1, 2, 3, -4, 3, 4, 7, -6, 5, 6, 11, -8, 7, 8, 15]
// @expect 2 [8, 12, 1065353216, -163]
