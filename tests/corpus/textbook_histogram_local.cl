// Histogram with per-group __local bins merged into global bins atomically.
// @kernel histogram
// @range 16 / 8
// @arg buffer int repeat(16, [0, 1, 1, 3])
// @arg buffer uint zeros(4)
// @expect 1 [4, 8, 0, 4]
__kernel void histogram(__global const int *data, __global uint *bins)
{
    __local uint local_bins[4];
    uint lid = get_local_id(0);
    if (lid < 4)
        local_bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&local_bins[data[get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4)
        atomic_add(&bins[lid], local_bins[lid]);
}
