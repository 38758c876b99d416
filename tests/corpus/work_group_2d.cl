// Work-group collectives in two-dimensional groups of 8 x 5 (40 items,
// not a multiple of the combine's blocks of eight in a row): local linear
// order across rows, float sums in the combine's order.
// @kernel grid
// @range 24,10 / 8,5
// @options -cl-std=CL2.0
// @arg buffer float zeros(2400)
// @arg buffer int zeros(2400)
__kernel void grid(__global float *of, __global int *oi)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t i = y * get_global_size(0) + x;
    // Exact products, so that a contracted multiply-add gives the same bits.
    float f = (float)((int)((x * 7 + y * 13) % 23) - 11) * 0.375f + (float)i * 0.0009765625f;
    int v = (int)((x * 31 + y * 17) % 29) - 14;
    __global float *pf = of + 5 * i;
    pf[0] = work_group_reduce_add(f);
    pf[1] = work_group_scan_inclusive_add(f);
    pf[2] = work_group_scan_exclusive_max(f);
    pf[3] = work_group_broadcast(f, 3, 2);
    pf[4] = work_group_reduce_min(f);
    __global int *pi = oi + 5 * i;
    pi[0] = work_group_reduce_add(v);
    pi[1] = work_group_scan_inclusive_add(v);
    pi[2] = work_group_scan_exclusive_add(v);
    pi[3] = work_group_all(v > -14);
    pi[4] = work_group_any(v == 14);
}
