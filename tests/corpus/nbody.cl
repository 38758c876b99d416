// One n-body step in the classic tiled form: positions staged through
// __local memory, float4 arithmetic with .xyz swizzles, rsqrt, a barrier
// inside the tile loop. Acceleration results within a tolerance.
// @kernel nbody
// @range 8 / 4
// @arg buffer float [0,0,0,1, 1,0,0,1, 0,1,0,2, 0,0,1,1, 1,1,0,1, 1,0,1,3, 0,1,1,1, 1,1,1,2]
// @arg buffer float zeros(32)
// @arg local 64
// @arg value float 0.01
__kernel void nbody(__global const float4 *pos, __global float4 *acc, __local float4 *tile, float eps2)
{
    int i = get_global_id(0);
    int l = get_local_id(0), nl = get_local_size(0);
    float4 p = pos[i];
    float3 a = (float3)(0.0f);
    for (int base = 0; base < get_global_size(0); base += nl) {
        tile[l] = pos[base + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < nl; j++) {
            float4 q = tile[j];
            float3 d = q.xyz - p.xyz;
            float inv = rsqrt(dot(d, d) + eps2);
            a += d * (q.w * inv * inv * inv);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc[i] = (float4)(a, 0.0f);
}
// @expect 1 ~1e-4 [2.771842, 3.055191, 2.771842, 0, -2.229432, 2.58035, 4.199802, 0, 2.612415, -2.261497, 2.612415, 0, 4.199802, 2.58035, -2.229432, 0, -2.863699, -2.58035, 3.565535, 0, -2.070005, 3.055191, -2.070005, 0, 3.565535, -2.58035, -2.863699, 0, -2.229432, -3.848884, -2.229432, 0]
