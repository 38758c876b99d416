// Odd-even transposition sort of each work-group's 8 values in __local
// memory: 8 phases separated by barriers.
// @kernel oes
// @range 16 / 8
// @arg buffer int [11, 48, 35, 22, 9, 46, 33, 20, 7, 44, 31, 18, 5, 42, 29, 16]
// @arg buffer int zeros(16)
// @arg local 32
// @expect 1 [9, 11, 20, 22, 33, 35, 46, 48, 5, 7, 16, 18, 29, 31, 42, 44]
__kernel void oes(__global const int *in, __global int *out, __local int *t)
{
    int l = get_local_id(0), n = get_local_size(0);
    t[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int phase = 0; phase < n; phase++) {
        int i = 2 * l + (phase & 1);
        if (l < n / 2 && i + 1 < n) {
            int a = t[i], b = t[i + 1];
            if (a > b) { t[i] = b; t[i + 1] = a; }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = t[l];
}
