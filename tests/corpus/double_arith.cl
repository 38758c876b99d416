// double arithmetic with cl_khr_fp64: 0.1 + 0.2 in double (not float),
// subnormal-range products, sqrt, division, float-to-double widening of
// 0.1f, and a double literal.
// @kernel dbl
// @range 1 / 1
// @arg buffer double [0.1, 0.2, 1e-300, 3]
// @arg buffer double zeros(6)
// @expect 1 [0.30000000000000004, 1, 1.4142135623730951, 0.42857142857142855, 0.10000000149011612, 0.3333333333333333]
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dbl(__global const double *in, __global double *out)
{
    out[0] = in[0] + in[1];
    out[1] = in[2] * 1e300;
    out[2] = sqrt(2.0);
    out[3] = in[3] / 7.0;
    float f = 0.1f;
    out[4] = f;
    out[5] = 1.0 / 3.0;
}
