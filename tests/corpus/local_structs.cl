// An array of structs in __local memory (declared at kernel scope),
// filled by each item and read back by its neighbour after a barrier.
// @kernel ls
// @range 8 / 4
// @arg buffer int iota(8)
// @arg buffer int zeros(8)
// @expect 1 [10, 1, 4, 7, 22, 13, 16, 19]
typedef struct { int v; int w; } pair_t;
__kernel void ls(__global const int *in, __global int *out)
{
    __local pair_t cells[4];
    int l = get_local_id(0);
    cells[l].v = in[get_global_id(0)];
    cells[l].w = 2 * cells[l].v + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    pair_t p = cells[(l + 3) % 4];
    out[get_global_id(0)] = p.v + p.w;
}
