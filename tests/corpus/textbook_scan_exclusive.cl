// Exclusive prefix sum per work-group of 4: the items load into
// __local memory, item 0 scans, all read their result after a barrier.
// @kernel sx
// @range 16 / 4
// @arg buffer int [1, 4, 2, 5, 3, 1, 4, 2, 5, 3, 1, 4, 2, 5, 3, 1]
// @arg buffer int zeros(16)
// @arg local 16
// @expect 1 [0, 1, 5, 7, 0, 3, 4, 8, 0, 5, 8, 9, 0, 2, 7, 10]
__kernel void sx(__global const int *in, __global int *out, __local int *t)
{
    int l = get_local_id(0);
    t[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (int i = 0; i < get_local_size(0); i++) { int v = t[i]; t[i] = s; s += v; }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[l];
}
