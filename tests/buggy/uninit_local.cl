// Half of the group writes __local memory; every work-item reads a word
// after the barrier, half of them one nobody wrote.
// @kernel uninit_local
// @range 64 / 64
kernel void uninit_local(global int *out) {
    local int t[64];
    int l = get_local_id(0);
    if (l < 32)
        t[l] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[63 - l];
}
