// Each work-group sums its items in __local memory (tree reduction) and
// writes one partial sum.
kernel void reduce(global const float* in, global float* partial, local float* scratch) {
    size_t lid = get_local_id(0);
    size_t n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (lid < s) {
            scratch[lid] += scratch[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        partial[get_group_id(0)] = scratch[0];
    }
}
