// 3-component vectors: vload3/vstore3 pack them, .xyz swizzles, cross product.
// @kernel v3
// @range 1 / 1
// @arg buffer float [1, 0, 0, 0, 1, 0]
// @arg buffer float zeros(6)
// @expect 1 [0, 0, 1, 3, 3, 3]
__kernel void v3(__global const float *in, __global float *out)
{
    float3 a = vload3(0, in);
    float3 b = vload3(1, in);
    vstore3(cross(a, b), 0, out);
    float3 t = (float3)(1.0f, 1.0f, 1.0f) * 3.0f;
    vstore3(t, 1, out);
}
