// Histogram with atomic_inc on __global bins: 64 values in 10 bins,
// four work-groups contending for the same counters.
// @kernel hist
// @range 64 / 16
// @arg buffer int [3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4]
// @arg buffer uint zeros(10)
// @expect 1 [7, 6, 6, 7, 7, 6, 6, 7, 6, 6]
__kernel void hist(__global const int *data, __global uint *bins)
{
    atomic_inc(&bins[data[get_global_id(0)]]);
}
