// as_T reinterprets bits: float <-> int/uint, float4 -> int4, a uchar4
// viewed as a uint (little-endian), a double viewed as two uints, and
// the sign bit flip through as_uint.
// @kernel ast
// @range 1 / 1
// @arg buffer uint zeros(12)
// @expect 0 [1065353216, 3223322624, 1056964608, 1077936128, 67305985, 0, 1072693248, 3212836864, 2139095040, 1078530011, 1, 2]
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void ast(__global uint *out)
{
    out[0] = as_uint(1.0f);
    out[1] = as_uint(-2.5f);
    int4 v = as_int4((float4)(0.5f, 3.0f, 0.0f, 0.0f));
    out[2] = v.x;
    out[3] = v.y;
    out[4] = as_uint((uchar4)(1, 2, 3, 4));
    uint2 d = as_uint2(1.0);
    out[5] = d.x;
    out[6] = d.y;
    out[7] = as_uint(as_float(as_uint(1.0f) ^ 0x80000000u));
    out[8] = as_uint(INFINITY);
    out[9] = as_uint(M_PI_F);
    out[10] = as_float(0x3f800000) == 1.0f;
    out[11] = as_int(as_float(2)) ;
}
