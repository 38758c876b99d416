// The sub-group queries on a 2-D launch whose rows (11 items) are not a
// multiple of the sub-group size, with a smaller last group (non-uniform
// work-groups): each row ends with a shorter sub-group.
// @kernel queries
// @range 26,3 / 11,3
// @options -cl-std=CL2.0
// @arg buffer uint zeros(468)
__kernel void queries(__global uint *out)
{
    size_t i = (get_global_id(1) * get_global_size(0) + get_global_id(0)) * 6;
    out[i + 0] = get_sub_group_size();
    out[i + 1] = get_max_sub_group_size();
    out[i + 2] = get_num_sub_groups();
    out[i + 3] = get_enqueued_num_sub_groups();
    out[i + 4] = get_sub_group_id();
    out[i + 5] = get_sub_group_local_id();
}
