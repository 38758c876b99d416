// Brace elision after a designator: `.f = 1.5f, 2.5f` fills both members of
// the nested struct `f`, then `.t` designates the outer member again.
// @kernel k
// @range 1 / 1
// @arg buffer float zeros(4)
typedef struct { float a; float b; } A;
struct P { A f; int t; float u; };

__kernel void k(__global float *out)
{
    struct P x = { .f = 1.5f, 2.5f, .t = 3, 4.5f };
    out[0] = x.f.a;
    out[1] = x.f.b;
    out[2] = x.t;
    out[3] = x.u;
}
// @expect 0 [1.5, 2.5, 3, 4.5]
