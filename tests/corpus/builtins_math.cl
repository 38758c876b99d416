// Math, common, integer and geometric builtins through overload resolution.
// @kernel math
// @range 1 / 1
// @arg buffer float zeros(10)
// @expect 0 ~1e-6 [3, 2, 0.5, 7, 5, 4, 1, 9, 30, 2]
__kernel void math(__global float *out)
{
    float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    out[0] = sqrt(9.0f);
    out[1] = fmax(1.0f, 2.0f);
    out[2] = clamp(0.7f, 0.0f, 0.5f);
    out[3] = mad(2.0f, 3.0f, 1.0f);
    out[4] = length((float2)(3.0f, 4.0f));
    out[5] = max(v, 2.0f).w;
    out[6] = (float)abs(-1);
    out[7] = (float)min(9, 12);
    out[8] = dot(v, v);
    out[9] = (float)popcount(3u);
}
