// A 3-D range 2x2x2 with local size 1x2x2: every item writes its
// linearised global id at the position computed from the three ids.
// @kernel w3
// @range 2,2,2 / 1,2,2
// @arg buffer int zeros(8)
// @expect 0 [0, 1, 10, 11, 100, 101, 110, 111]
__kernel void w3(__global int *out)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    out[(z * get_global_size(1) + y) * get_global_size(0) + x] = z * 100 + y * 10 + x + (get_work_dim() - 3);
}
