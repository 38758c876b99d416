// Program-scope __constant data with nested initialisers and a vector.
// @kernel lookup
// @range 6 / 6
// @arg buffer float zeros(6)
// @expect 0 [1, 2.5, 4, 40, 1.5, 0]
__constant float table[2][3] = { { 1.0f, 2.5f, 4.0f }, { 40.0f } };
__constant float4 offsets = (float4)(0.5f, 1.0f, 1.5f, 2.0f);

__kernel void lookup(__global float *out)
{
    int i = get_global_id(0);
    out[i] = i < 4 ? table[i / 3][i % 3] : (i == 4 ? offsets.z : table[1][2]);
}
