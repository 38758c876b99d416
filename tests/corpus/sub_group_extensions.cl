// The cl_khr_subgroup_* extensions: votes, ballots, non-uniform
// arithmetic under divergent lanes, shuffles, relative shuffles,
// clustered reductions, rotates and the extended types, in groups of 13
// (partial sub-groups at every width).
// @kernel ext
// @range 39 / 13
// @options -cl-std=CL2.0
// @arg buffer int [5, -3, 12, 7, -8, 0, 4, 19, -1, 6, 2, 11, -14, 3, 9, 8, -2, 1, 15, -6, 10, 7, -9, 13, 0, 5, -4, 2, 18, -7, 3, 6, -11, 14, 1, -5, 9, 4, 4]
// @arg buffer int zeros(1560)
// @arg buffer float zeros(195)
__kernel void ext(__global const int *a, __global int *out, __global float *of)
{
    size_t i = get_global_id(0);
    int x = a[i];
    uint lid = get_sub_group_local_id();
    uint size = get_sub_group_size();
    __global int *o = out + 40 * i;
    // Votes and non-uniform arithmetic over the lanes where x is odd.
    if (x & 1) {
        o[0] = sub_group_elect();
        o[1] = sub_group_non_uniform_all(x > 0);
        o[2] = sub_group_non_uniform_any(x > 10);
        o[3] = sub_group_non_uniform_all_equal(x & 1);
        o[4] = sub_group_non_uniform_reduce_add(x);
        o[5] = sub_group_non_uniform_reduce_mul(x);
        o[6] = sub_group_non_uniform_reduce_and(x);
        o[7] = sub_group_non_uniform_reduce_or(x);
        o[8] = sub_group_non_uniform_reduce_xor(x);
        o[9] = sub_group_non_uniform_reduce_logical_and((int)(x > 2));
        o[10] = sub_group_non_uniform_scan_inclusive_max(x);
        o[11] = sub_group_non_uniform_scan_exclusive_logical_or((int)(x > 10));
        o[12] = sub_group_non_uniform_scan_inclusive_xor(x);
        o[13] = sub_group_non_uniform_broadcast(x, sub_group_broadcast_first(lid));
        o[14] = sub_group_broadcast_first(x * 3);
        o[15] = sub_group_non_uniform_reduce_logical_xor((int)(x > 4));
    } else {
        o[0] = sub_group_elect() + 100;
        o[4] = sub_group_non_uniform_reduce_min(x);
        o[5] = sub_group_non_uniform_scan_exclusive_add(x);
    }
    // Ballots.
    uint4 b = sub_group_ballot(x > 3);
    o[16] = b.x;
    o[17] = b.y | b.z | b.w;
    o[18] = sub_group_inverse_ballot(b);
    o[19] = sub_group_ballot_bit_extract(b, (lid + 1) % size);
    o[20] = sub_group_ballot_bit_count(b);
    o[21] = sub_group_ballot_inclusive_scan(b);
    o[22] = sub_group_ballot_exclusive_scan(b);
    o[23] = sub_group_ballot_find_lsb(b);
    o[24] = sub_group_ballot_find_msb(b);
    o[25] = get_sub_group_eq_mask().x ^ (get_sub_group_ge_mask().x << 1);
    o[26] = get_sub_group_gt_mask().x ^ (get_sub_group_le_mask().x << 2) ^ get_sub_group_lt_mask().x;
    // Shuffles: a result from a lane outside the sub-group is undefined.
    int t = sub_group_shuffle(x, (lid + 2) % size);
    o[27] = t;
    t = sub_group_shuffle_xor(x, 1);
    o[28] = (lid ^ 1) < size ? t : 0;
    t = sub_group_shuffle_up(x, 2);
    o[29] = lid >= 2 ? t : 0;
    t = sub_group_shuffle_down(x, 1);
    o[30] = lid + 1 < size ? t : 0;
    o[31] = sub_group_rotate(x, 3);
    t = sub_group_clustered_rotate(x, 1, 4);
    o[32] = (lid & ~3u) + 4 <= size ? t : 0;
    o[33] = sub_group_clustered_reduce_add(x, 4);
    o[34] = sub_group_clustered_reduce_max(x, 2);
    // Extended types: char, short, vectors.
    char c = (char)(x * 37);
    o[35] = sub_group_reduce_max(c) + sub_group_scan_exclusive_min(c);
    short s = (short)(x * 5000);
    o[36] = sub_group_reduce_add(s) + sub_group_scan_exclusive_max(s);
    uchar uc = (uchar)(x * 29);
    o[37] = sub_group_scan_inclusive_add(uc);
    int4 v = (int4)(x, x + 1, lid, -x);
    int4 w = sub_group_broadcast(v, 0);
    o[38] = w.x + w.y * 3 + w.z * 5 + w.w * 7;
    float4 fv = sub_group_shuffle((float4)(x, 0.5f * x, lid, 1.0f), (lid + 1) % size);
    of[5 * i] = fv.x;
    of[5 * i + 1] = fv.y;
    of[5 * i + 2] = fv.z;
    of[5 * i + 3] = fv.w;
    of[5 * i + 4] = sub_group_clustered_reduce_mul((float)x, 2);
    o[39] = (int)sub_group_non_uniform_reduce_max((ulong)x);
}
