// Geometric builtins on float3/float4: dot, cross, length, distance,
// normalize (within 1e-6).
// @kernel geo
// @range 1 / 1
// @arg buffer float zeros(12)
// @expect 0 ~1e-6 [32, -3, 6, -3, 3.7416573867739413, 5.196152422706632, 0.2672612419124244, 0.5345224838248488, 0.8017837257372732, 0.6, 0.8, 0]
__kernel void geo(__global float *o)
{
    float3 a = (float3)(1.0f, 2.0f, 3.0f), b = (float3)(4.0f, 5.0f, 6.0f);
    o[0] = dot(a, b);
    float3 c = cross(a, b);
    o[1] = c.x; o[2] = c.y; o[3] = c.z;
    o[4] = length(a);
    o[5] = distance(a, b);
    float3 n = normalize(a);
    o[6] = n.x; o[7] = n.y; o[8] = n.z;
    float2 m = normalize((float2)(3.0f, 4.0f));
    o[9] = m.x; o[10] = m.y; o[11] = 0.0f;
}
