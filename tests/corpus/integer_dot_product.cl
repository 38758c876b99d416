// cl_khr_integer_dot_product: dot and dot_acc_sat on uchar4/char4 in the
// four signedness pairs, and the same through the packed forms
// (dot_4x8packed_XY_T, dot_acc_sat_4x8packed_XY_T); inputs at the extremes
// of each type, accumulators that saturate up and down. Odd and even
// work-items take different paths to the same results (divergent lanes).
// @kernel dots
// @range 8 / 4
// @options -cl-std=CL3.0
// @arg buffer uint [0x0, 0xffffffff, 0x80808080, 0x7f7f7f7f, 0x1020304, 0xfe80017f, 0x12345678, 0x9abcdef0]
// @arg buffer uint [0xffffffff, 0xffffffff, 0x80808080, 0x80808080, 0x4030201, 0x7f01807f, 0x87654321, 0xfedcba9]
// @arg buffer int [0, 2147483647, -2147483648, 2147400000, -5, 123456, -2147480000, -1]
// @arg buffer int zeros(128)
// @expect 3 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 260100, 4, -1020, -1020, -2147223549, 2147483647, 2147482627, 2147482627, 260100, 4, -1020, -1020, -2147223549, 2147483647, 2147482627, 2147482627, 65536, 65536, -65536, -65536, -2147418112, -2147418112, -2147483648, -2147483648, 65536, 65536, -65536, -65536, -2147418112, -2147418112, -2147483648, -2147483648, 65024, -65024, -65024, 65024, 2147465024, 2147334976, 2147334976, 2147465024, 65024, -65024, -65024, 65024, 2147465024, 2147334976, 2147334976, 2147465024, 20, 20, 20, 20, -1, 15, 15, 15, 20, 20, 20, 20, -1, 15, 15, 15, 48643, 15619, 48387, 15875, 172099, 139075, 171843, 139331, 48643, 15619, 48387, 15875, 172099, 139075, 171843, 139331, 17404, 12796, 12796, 17404, -2147462596, -2147467204, -2147467204, -2147462596, 17404, 12796, 12796, 17404, -2147462596, -2147467204, -2147467204, -2147462596, 132492, 2956, -33908, -27252, -1, 2955, -33909, -27253, 132492, 2956, -33908, -27252, -1, 2955, -33909, -27253]
#if !defined(cl_khr_integer_dot_product) || !defined(__opencl_c_integer_dot_product_input_4x8bit) \
    || !defined(__opencl_c_integer_dot_product_input_4x8bit_packed)
#error the integer dot product and its features are defined
#endif
__kernel void dots(__global const uint *pa, __global const uint *pb, __global const int *acc,
                   __global int *out)
{
    int i = get_global_id(0);
    uint a = pa[i], b = pb[i];
    int c = acc[i];
    __global int *o = out + 16 * i;
    uchar4 ua = as_uchar4(a), ub = as_uchar4(b);
    char4 sa = as_char4(a), sb = as_char4(b);
    if (i & 1) {
        o[0] = dot(ua, ub);
        o[1] = dot(sa, sb);
        o[2] = dot(ua, sb);
        o[3] = dot(sa, ub);
        o[4] = dot_acc_sat(ua, ub, (uint)c);
        o[5] = dot_acc_sat(sa, sb, c);
        o[6] = dot_acc_sat(ua, sb, c);
        o[7] = dot_acc_sat(sa, ub, c);
    } else {
        uint uu = dot(ua, ub);
        int ss = dot(sa, sb), us = dot(ua, sb), su = dot(sa, ub);
        o[0] = uu;
        o[1] = ss;
        o[2] = us;
        o[3] = su;
        o[4] = dot_acc_sat(ua, ub, (uint)c);
        o[5] = dot_acc_sat(sa, sb, c);
        o[6] = dot_acc_sat(ua, sb, c);
        o[7] = dot_acc_sat(sa, ub, c);
    }
    o[8] = dot_4x8packed_uu_uint(a, b);
    o[9] = dot_4x8packed_ss_int(a, b);
    o[10] = dot_4x8packed_us_int(a, b);
    o[11] = dot_4x8packed_su_int(a, b);
    o[12] = dot_acc_sat_4x8packed_uu_uint(a, b, (uint)c);
    o[13] = dot_acc_sat_4x8packed_ss_int(a, b, c);
    o[14] = dot_acc_sat_4x8packed_us_int(a, b, c);
    o[15] = dot_acc_sat_4x8packed_su_int(a, b, c);
}
