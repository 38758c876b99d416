// Work-item functions over a 2-D range 4x6 with 2x3 groups: global,
// local and group ids, sizes, number of groups and the linear id.
// @kernel wi
// @range 4,6 / 2,3
// @arg buffer int zeros(24)
// @expect 0 [0, 10, 1000, 1010, 1, 11, 1001, 1011, 2, 12, 1002, 1012, 100, 110, 1100, 1110, 101, 111, 1101, 1111, 102, 112, 1102, 1112]
__kernel void wi(__global int *out)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    int v = get_group_id(0) * 1000 + get_group_id(1) * 100 + get_local_id(0) * 10 + get_local_id(1);
    v += (get_num_groups(0) != 2) + (get_num_groups(1) != 2) + (get_local_size(1) != 3) + (get_work_dim() != 2);
    v += (get_global_size(0) * get_global_size(1) != 24);
    out[y * get_global_size(0) + x] = v;
}
