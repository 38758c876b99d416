// `rounds` barriers per work-group; compared with rounds = 0 it gives the
// cost of one barrier.
kernel void barriers(global int* out, int rounds) {
    local int slot[256];
    int lid = get_local_id(0);
    int acc = lid;
    for (int r = 0; r < rounds; r++) {
        slot[lid] = acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += slot[(lid + 1) % get_local_size(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = acc;
}
