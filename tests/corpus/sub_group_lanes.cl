// get_sub_group_local_id as a consecutive index: a store and loads through
// it, reversed lanes, and the two-level sum of reduce_sub_group.cl (a
// uniform loop over the sub-groups' sums, lane-strided), with groups of 15
// (partial sub-groups at every width).
// @kernel lanes
// @range 45 / 15
// @options -cl-std=CL2.0
// @arg buffer int iota(45)
// @arg buffer int zeros(45)
// @arg buffer int zeros(3)
// @expect 2 [105, 330, 555]
__kernel void lanes(__global const int *in, __global int *out, __global int *partial)
{
    __local int sums[16];
    __local int stage[64];
    uint lane = get_sub_group_local_id();
    uint base = get_sub_group_id() * get_max_sub_group_size();
    int x = in[get_global_id(0)];
    stage[base + lane] = x * 3;
    int s = sub_group_reduce_add(x);
    if (lane == 0)
        sums[get_sub_group_id()] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = stage[base + (get_sub_group_size() - 1 - get_sub_group_local_id())];
    if (get_sub_group_id() == 0) {
        uint n = get_num_sub_groups();
        int t = 0;
        for (uint k = 0; k < n; k += get_sub_group_size()) {
            uint i = k + get_sub_group_local_id();
            t += i < n ? sums[i] : 0;
        }
        t = sub_group_reduce_add(t);
        if (get_sub_group_local_id() == 0)
            partial[get_group_id(0)] = t;
    }
}
