// Each work-group sums its items as reduce.cl does, with sub-group
// reductions: every sub-group sums its items in registers and leaves one
// sum in __local memory; after one barrier the first sub-group sums those.
kernel void reduce_sub_group(global const float* in, global float* partial, local float* sums) {
    float s = sub_group_reduce_add(in[get_global_id(0)]);
    uint lane = get_sub_group_local_id();
    if (lane == 0) {
        sums[get_sub_group_id()] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_id() == 0) {
        float t = 0.0f;
        for (uint i = lane; i < get_num_sub_groups(); i += get_sub_group_size()) {
            t += sums[i];
        }
        t = sub_group_reduce_add(t);
        if (lane == 0) {
            partial[get_group_id(0)] = t;
        }
    }
}
