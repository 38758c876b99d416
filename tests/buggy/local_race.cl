// Each work-item reads its neighbour's __local word in the barrier region
// where the neighbour writes it: a data race.
// @kernel local_race
// @range 64 / 64
kernel void local_race(global int *out) {
    local int t[64];
    int l = get_local_id(0);
    t[l] = l;
    out[get_global_id(0)] = t[(l + 1) % 64];
}
