// The OpenCL C twin of async_copy.spvasm.
__kernel void ac(__global uint *in, __global uint *out, __global uint *out2, __local uint *tmp)
{
    size_t g = get_group_id(0), l = get_local_id(0);
    event_t e = async_work_group_copy(tmp, in + 8 * g, 8, 0);
    wait_group_events(1, &e);
    out[get_global_id(0)] = tmp[7 - l] * 2;
    event_t e2 = async_work_group_strided_copy(out2 + 16 * g, tmp, 8, 2, 0);
    wait_group_events(1, &e2);
}
