// Each work-group sums its items as reduce.cl does, with sub-group
// reductions: every sub-group sums its items in registers and leaves one
// sum in __local memory; after one barrier the first sub-group sums those.
kernel void reduce_sub_group(global const float* in, global float* partial, local float* sums) {
    float s = sub_group_reduce_add(in[get_global_id(0)]);
    if (get_sub_group_local_id() == 0) {
        sums[get_sub_group_id()] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_id() == 0) {
        uint n = get_num_sub_groups();
        float t = 0.0f;
        for (uint k = 0; k < n; k += get_sub_group_size()) {
            uint i = k + get_sub_group_local_id();
            t += i < n ? sums[i] : 0.0f;
        }
        t = sub_group_reduce_add(t);
        if (get_sub_group_local_id() == 0) {
            partial[get_group_id(0)] = t;
        }
    }
}
