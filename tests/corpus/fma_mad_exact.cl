// fma computes a*b+c with one rounding: fma(1+2^-12, 1+2^-12, -1)
// keeps the 2^-24 term that a separate multiply would round away; mad
// and plain arithmetic on exactly representable values.
// @kernel fm
// @range 1 / 1
// @arg buffer float zeros(4)
// @expect 0 [0.0004883408546447754, 0.00048828125, 7, 10]
__kernel void fm(__global float *o)
{
    volatile float e = 0x1p-12f;
    float a = 1.0f + e;
    o[0] = fma(a, a, -1.0f);
    float p = a * a;
    o[1] = p - 1.0f;
    o[2] = mad(2.0f, 3.0f, 1.0f);
    o[3] = fma(2.0f, 4.0f, 2.0f);
}
