// Inclusive prefix sum within each work-group, as scan.cl computes it,
// with the work-group collective.
kernel void scan_work_group(global const int* in, global int* out) {
    size_t i = get_global_id(0);
    out[i] = work_group_scan_inclusive_add(in[i]);
}
