// Functions returning structs (a complex-number type), used in
// initialisers, assignments, arguments and member access.
// @kernel cmul
// @range 2 / 2
// @arg buffer float [1, 2, 3, 4]
// @arg buffer float zeros(6)
// @expect 1 [-3, 4, -7, 24, 2, 1]
typedef struct { float re, im; } cfloat;

cfloat make(float re, float im)
{
    cfloat c = { re, im };
    return c;
}

cfloat mul(cfloat a, cfloat b)
{
    cfloat r;
    r.re = a.re * b.re - a.im * b.im;
    r.im = a.re * b.im + a.im * b.re;
    return r;
}

__kernel void cmul(__global const float *in, __global float *out)
{
    int i = get_global_id(0);
    cfloat z = make(in[2 * i], in[2 * i + 1]);
    cfloat sq;
    sq = mul(z, z);
    out[2 * i] = sq.re;
    out[2 * i + 1] = mul(z, z).im;
    if (i == 0) {
        out[4] = make(2.0f, 0.0f).re;
        out[5] = mul(make(0.0f, 1.0f), make(1.0f, 0.0f)).im;
    }
}
