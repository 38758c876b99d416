// length, distance and normalize of float and double vectors whose squares
// overflow or underflow (huge and tiny components, subnormals), of zero
// vectors, and with infinite or NaN components. Both work-items compute
// the same values from s[i] = 1 (a varying operand: the vector path).
// @kernel geo
// @range 2 / 2
// @arg buffer float fill(2, 1)
// @arg buffer float zeros(32)
// @arg buffer double zeros(32)
// @expect 1 ~1e-6 repeat(32, [1.4142135623730951e30, 2e-30, 5e30, 5e-39, 0.6, 0, -0.8, -1, 0, 0, 0, 0, 0, 1, 1, 0.7071067811865476])
// @expect 2 ~1e-14 repeat(32, [1.4142135623730951e300, 2e-300, 5e300, 5e-310, 0.6, 0, -0.8, -1, 0, 0, 0, 0, 0, 1, 1, 0.7071067811865476])
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void geo(__global const float *s, __global float *o, __global double *p)
{
    size_t i = get_global_id(0);
    float k = s[i];
    __global float *f = o + 16 * i;
    f[0] = length((float2)(1e30f, 1e30f) * k);
    f[1] = length((float4)(1e-30f, 1e-30f, 1e-30f, 1e-30f) * k);
    f[2] = distance((float3)(3e30f, 0.0f, 0.0f) * k, (float3)(0.0f, -4e30f, 0.0f) * k);
    f[3] = length((float2)(3e-39f, 4e-39f) * k);
    float3 n = normalize((float3)(3e30f, 0.0f, -4e30f) * k);
    f[4] = n.x; f[5] = n.y; f[6] = n.z;
    n = normalize((float3)(-INFINITY, 5.0f, 1.0f) * k);
    f[7] = n.x; f[8] = n.y; f[9] = n.z;
    n = normalize((float3)(0.0f, 0.0f, 0.0f) * k);
    f[10] = n.x; f[11] = n.y; f[12] = n.z;
    f[13] = isnan(normalize((float2)(NAN, INFINITY) * k).y);
    f[14] = isinf(length((float2)(FLT_MAX, FLT_MAX) * k));
    f[15] = normalize((float2)(1e-30f, 1e-30f) * k).x;

    double d = (double)k;
    __global double *g = p + 16 * i;
    g[0] = length((double2)(1e300, 1e300) * d);
    g[1] = length((double4)(1e-300, 1e-300, 1e-300, 1e-300) * d);
    g[2] = distance((double3)(3e300, 0.0, 0.0) * d, (double3)(0.0, -4e300, 0.0) * d);
    g[3] = length((double2)(3e-310, 4e-310) * d);
    double3 m = normalize((double3)(3e300, 0.0, -4e300) * d);
    g[4] = m.x; g[5] = m.y; g[6] = m.z;
    m = normalize((double3)(-INFINITY, 5.0, 1.0) * d);
    g[7] = m.x; g[8] = m.y; g[9] = m.z;
    m = normalize((double3)(0.0, 0.0, 0.0) * d);
    g[10] = m.x; g[11] = m.y; g[12] = m.z;
    g[13] = isnan(normalize((double2)(NAN, INFINITY) * d).y);
    g[14] = isinf(length((double2)(DBL_MAX, DBL_MAX) * d));
    g[15] = normalize((double2)(1e-300, 1e-300) * d).x;
}
