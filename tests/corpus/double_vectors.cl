// double2/double4 vectors: dot products, convert_float4 from double4
// (round to nearest), convert_double2 from int2, and mad.
// @kernel dv
// @range 1 / 1
// @arg buffer double [1.5, 2.5, 3.5, 4.5]
// @arg buffer double zeros(4)
// @arg buffer float zeros(4)
// @expect 1 [41, -3, 7, 6.5]
// @expect 2 [0.3333333432674408, 0.6666666865348816, 1, 0.10000000149011612]
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dv(__global const double4 *in, __global double *out, __global float4 *fo)
{
    double4 v = in[0];
    out[0] = dot(v, v);
    double2 c = convert_double2((int2)(-3, 7));
    out[1] = c.x;
    out[2] = c.y;
    out[3] = mad(v.x, 2.0, v.z);
    double4 t = (double4)(1.0 / 3.0, 2.0 / 3.0, 1.0, 0.1);
    fo[0] = convert_float4(t);
}
