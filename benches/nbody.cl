// One n-body step: the acceleration on each body from all others
// (softened), then velocity and position updates.
kernel void nbody(global const float4* pos, global const float4* vel,
                  global float4* new_pos, global float4* new_vel,
                  int n, float dt, float eps2) {
    int i = get_global_id(0);
    float4 p = pos[i];
    float3 acc = (float3)(0.0f, 0.0f, 0.0f);
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float3 d = q.xyz - p.xyz;
        float r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
        float inv = rsqrt(r2);
        float s = q.w * inv * inv * inv;
        acc += d * s;
    }
    float4 v = vel[i];
    v.xyz += acc * dt;
    p.xyz += v.xyz * dt;
    new_pos[i] = p;
    new_vel[i] = v;
}
