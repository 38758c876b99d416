// One n-body step, tiled: the acceleration on each body from all others
// (softened), then velocity and position updates. Each work-group stages a
// tile of positions (one per work-item, mass in w) in __local memory, waits
// at a barrier, accumulates the tile's pull on every body of the group, and
// waits again before the next tile overwrites it. `n` must be a multiple of
// the local size.
kernel void nbody(global const float4* pos, global const float4* vel,
                  global float4* new_pos, global float4* new_vel,
                  local float4* tile, int n, float dt, float eps2) {
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    float4 p = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (int base = 0; base < n; base += size) {
        tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < size; j++) {
            float4 q = tile[j];
            float3 d = q.xyz - p.xyz;
            float r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
            float inv = rsqrt(r2);
            float s = q.w * inv * inv * inv;
            acc += d * s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float4 v = vel[i];
    v.xyz += acc * dt;
    p.xyz += v.xyz * dt;
    new_pos[i] = p;
    new_vel[i] = v;
}
