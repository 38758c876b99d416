// A tree reduction whose guard lets one work-item too many through: in
// the first step work-item 32 adds into t[32], which work-item 0 reads
// as t[0 + 32] in the same barrier region.
// @kernel tree_overlap
// @range 64 / 64
kernel void tree_overlap(global int *out) {
    local int t[128];
    int l = get_local_id(0);
    t[l] = l + 1;
    t[l + 64] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 32; s > 0; s >>= 1) {
        if (l <= s)
            t[l] += t[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[0];
}
