// Hillis-Steele inclusive scan in __local memory: `tmp[lid - offset]` is
// read only by the items with `lid >= offset`, so the first lanes of a
// chunk are off while the others read shifted, consecutive elements.
// @kernel scan
// @range 64 / 32
// @arg buffer int iota(64, 1)
// @arg buffer int zeros(64)
// @arg local 128
// @expect 1 [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78, 91, 105, 120, 136, 153, 171, 190, 210, 231, 253, 276, 300, 325, 351, 378, 406, 435, 465, 496, 528, 33, 67, 102, 138, 175, 213, 252, 292, 333, 375, 418, 462, 507, 553, 600, 648, 697, 747, 798, 850, 903, 957, 1012, 1068, 1125, 1183, 1242, 1302, 1363, 1425, 1488, 1552]
__kernel void scan(__global const int *in, __global int *out, __local int *tmp)
{
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
