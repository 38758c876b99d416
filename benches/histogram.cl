// 256-bin histogram: each work-group counts into __local bins with atomics,
// then adds its bins to the global histogram.
kernel void histogram(global const uchar* data, global uint* bins, int per_item) {
    local uint local_bins[256];
    int lid = get_local_id(0);
    int n = get_local_size(0);
    for (int b = lid; b < 256; b += n) {
        local_bins[b] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t base = get_global_id(0) * per_item;
    for (int k = 0; k < per_item; k++) {
        atomic_inc(&local_bins[data[base + k]]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < 256; b += n) {
        atomic_add(&bins[b], local_bins[b]);
    }
}
