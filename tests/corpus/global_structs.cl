// Arrays of structs in global memory, accessed through -> and [].field,
// struct with a vector member (alignment 16).
// @kernel particles
// @range 2 / 2
// @arg buffer float [1, 2, 3, 0, 0.5, 0, 0, 0, 10, 20, 30, 0, 2, 0, 0, 0]
// @expect 0 [1.5, 2.5, 3.5, 0, 0.5, 0, 0, 0, 12, 22, 32, 0, 2, 0, 0, 0]
typedef struct {
    float4 pos;
    float mass;
} Particle;

__kernel void particles(__global Particle *ps)
{
    int i = get_global_id(0);
    __global Particle *p = &ps[i];
    p->pos.xyz += (float3)(ps[i].mass);
}
