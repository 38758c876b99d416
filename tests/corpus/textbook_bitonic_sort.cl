// Full bitonic sort of 16 keys inside one work-group.
// @kernel bitonic
// @range 16 / 16
// @arg buffer int [9, 3, 14, 0, 7, 12, 1, 15, 4, 10, 6, 2, 13, 8, 11, 5]
// @arg buffer int zeros(16)
// @arg local 64
// @expect 1 iota(16)
__kernel void bitonic(__global const int *in, __global int *out, __local int *l)
{
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    l[lid] = in[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 2; k <= n; k <<= 1) {
        for (uint j = k >> 1; j > 0; j >>= 1) {
            uint partner = lid ^ j;
            if (partner > lid) {
                int a = l[lid], b = l[partner];
                bool ascending = (lid & k) == 0;
                if ((ascending && a > b) || (!ascending && a < b)) {
                    l[lid] = b;
                    l[partner] = a;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    out[lid] = l[lid];
}
