// Reduction with sequential addressing over float data, result per group.
// @kernel reduce
// @range 8 / 4
// @arg buffer float iota(8, 0.5)
// @arg buffer float zeros(2)
// @arg local 16
// @expect 1 [8, 24]
__kernel void reduce(__global const float *in, __global float *out, __local float *s)
{
    int lid = get_local_id(0);
    s[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = get_local_size(0) >> 1; h > 0; h >>= 1) {
        if (lid < h)
            s[lid] = s[lid] + s[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = s[0];
}
