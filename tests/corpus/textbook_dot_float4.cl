// Dot product with the dot() builtin over float4 chunks, partial sums
// per item summed in __local memory.
// @kernel d4
// @range 4 / 4
// @arg buffer float iota(16)
// @arg buffer float iota(16, 15, -1)
// @arg buffer float zeros(1)
// @arg local 16
// @expect 2 [560]
__kernel void d4(__global const float4 *a, __global const float4 *b, __global float *out, __local float *t)
{
    int l = get_local_id(0);
    t[l] = dot(a[get_global_id(0)], b[get_global_id(0)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) out[0] = t[0] + t[1] + t[2] + t[3];
}
