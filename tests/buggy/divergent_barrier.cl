// A barrier reached only by the work-items of a group with a local id
// below 20.
// @kernel divergent_barrier
// @range 64 / 64
kernel void divergent_barrier(global int *out) {
    int l = get_local_id(0);
    if (l < 20) {
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = l;
}
