// Work-items increment a __local counter atomically while one of them
// writes it with a plain store in the same barrier region.
// @kernel atomic_mixed
// @range 64 / 64
kernel void atomic_mixed(global int *out) {
    local int count;
    int l = get_local_id(0);
    if (l == 0)
        count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&count);
    if (l == 5)
        count = 100;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = count;
}
