// The conformance suite's barrier test: `i` first walks each work-item's
// elements, then is reused as the halving stride of a tree reduction whose
// loop holds the barrier; the loop's control depends only on the local
// size, so it is uniform across the group.
// @kernel compute_sum
// @range 13 / 13
// @arg buffer int iota(40)
// @arg value int 40
// @arg buffer int zeros(13)
// @arg buffer int zeros(1)
// @expect 3 [780]
__kernel void compute_sum(__global int *a, int n, __global int *tmp_sum,
                          __global int *sum)
{
    int tid = get_local_id(0);
    int lsize = get_local_size(0);
    int i;

    tmp_sum[tid] = 0;
    for (i = tid; i < n; i += lsize) tmp_sum[tid] += a[i];

    for (i = hadd(lsize, 1); lsize > 1; i = hadd(i, 1))
    {
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (tid + i < lsize) tmp_sum[tid] += tmp_sum[tid + i];
        lsize = i;
    }

    if (tid == 0) *sum = tmp_sum[0];
}
