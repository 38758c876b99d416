// Inclusive prefix sum within each work-group (Hillis-Steele in __local memory).
kernel void scan(global const int* in, global int* out, local int* tmp) {
    int lid = get_local_id(0);
    int n = get_local_size(0);
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 1; offset < n; offset <<= 1) {
        int add = lid >= offset ? tmp[lid - offset] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = tmp[lid];
}
