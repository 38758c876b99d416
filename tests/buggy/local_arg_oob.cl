// Each work-item stores one element past its own in a __local argument
// of one element per work-item: work-item 63 stores past its end.
// @kernel local_arg_oob
// @range 64 / 64
kernel void local_arg_oob(global int *out, local int *t) {
    int l = get_local_id(0);
    t[l + 1] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = l;
}
