// A histogram with global atomics, and an atomic counter.
// @kernel histogram
// @range 16 / 4
// @arg buffer int repeat(16, [0, 1, 1, 3])
// @arg buffer uint zeros(4)
// @arg buffer uint zeros(1)
// @expect 1 [4, 8, 0, 4]
// @expect 2 [16]
__kernel void histogram(__global const int *data, __global uint *bins, __global uint *count)
{
    int i = get_global_id(0);
    atomic_inc(&bins[data[i]]);
    atomic_add(count, 1u);
}
