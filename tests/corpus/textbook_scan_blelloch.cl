// Exclusive work-efficient scan (Blelloch): up-sweep, clear, down-sweep.
// Four work-items scan eight elements.
// @kernel scan
// @range 4 / 4
// @arg buffer int iota(8, 1)
// @arg buffer int zeros(8)
// @arg local 32
// @expect 1 [0, 1, 3, 6, 10, 15, 21, 28]
__kernel void scan(__global const int *in, __global int *out, __local int *t)
{
    int lid = get_local_id(0);
    int n = 2 * get_local_size(0);
    t[2 * lid] = in[2 * lid];
    t[2 * lid + 1] = in[2 * lid + 1];
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            int ai = offset * (2 * lid + 1) - 1;
            int bi = offset * (2 * lid + 2) - 1;
            t[bi] += t[ai];
        }
        offset *= 2;
    }
    if (lid == 0)
        t[n - 1] = 0;
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            int ai = offset * (2 * lid + 1) - 1;
            int bi = offset * (2 * lid + 2) - 1;
            int v = t[ai];
            t[ai] = t[bi];
            t[bi] += v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[2 * lid] = t[2 * lid];
    out[2 * lid + 1] = t[2 * lid + 1];
}
