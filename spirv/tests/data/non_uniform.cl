// The OpenCL C twin of non_uniform.spvasm: the same builtins, in order.
__kernel void nu(__global const uint *in, __global uint *out)
{
    size_t i = get_global_id(0);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    uint x = in[i];
    __global uint *o = out + 24 * i;
    int odd = (x & 1) != 0;
    uint4 b = sub_group_ballot(odd);
    o[0] = sub_group_elect() ? 1 : 0;
    o[1] = sub_group_ballot_bit_count(b);
    o[2] = sub_group_ballot_inclusive_scan(b);
    o[3] = sub_group_shuffle_xor(x, 1);
    o[4] = sub_group_shuffle_down(x, 1);
    o[5] = sub_group_rotate(x, 1);
    o[6] = sub_group_non_uniform_scan_inclusive_mul(x);
    o[7] = (uint)sub_group_non_uniform_reduce_min((int)x);
    o[8] = sub_group_non_uniform_scan_exclusive_xor(x);
    o[9] = sub_group_clustered_reduce_add(x, 2);
    o[10] = sub_group_non_uniform_reduce_logical_or((int)(x > 100)) ? 1 : 0;
    o[11] = sub_group_broadcast_first(x);
    o[12] = sub_group_non_uniform_all_equal(x & 0) ? 1 : 0;
    o[13] = sub_group_inverse_ballot(b) ? 1 : 0;
    o[14] = sub_group_ballot_find_lsb(b);
    o[15] = sub_group_shuffle(x, 0);
    o[16] = sub_group_non_uniform_reduce_max(x);
    o[17] = (uint)(int)sub_group_non_uniform_reduce_add((float)(int)x);
    o[18] = sub_group_ballot_bit_extract(b, 0) ? 1 : 0;
    o[19] = sub_group_shuffle_up(x, 1);
    o[20] = (uint)sub_group_non_uniform_scan_inclusive_max((int)x);
    o[21] = sub_group_non_uniform_all(odd) ? 1 : 0;
    o[22] = sub_group_non_uniform_broadcast(x, 1);
    o[23] = get_sub_group_local_id() + get_sub_group_size() + get_sub_group_lt_mask().x * 1000;
}
