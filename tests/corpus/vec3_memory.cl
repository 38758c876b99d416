// 3-component vectors in memory take the space of 4: a float3 buffer has a
// 16-byte stride, vload3/vstore3 use a packed 12-byte stride, and
// sizeof(float3) is 16.
// @kernel v3m
// @range 2 / 2
// @arg buffer float [1, 2, 3, 99, 4, 5, 6, 99]
// @arg buffer float zeros(6)
// @arg buffer float zeros(8)
// @expect 1 [2, 4, 6, 8, 10, 12]
// @expect 2 [3, 2, 1, 0, 6, 5, 4, 0]
__kernel void v3m(__global const float3 *in, __global float *packed, __global float3 *rev)
{
    int i = get_global_id(0);
    float3 v = in[i];
    vstore3(v * 2.0f, i, packed);
    rev[i] = v.zyx;
}
