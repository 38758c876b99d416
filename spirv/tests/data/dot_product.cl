// The twin of dot_product.spvasm: cl_khr_integer_dot_product's builtins.
kernel void dp(global const uint *a, global const uint *b, global const uint *acc,
               global uint *out) {
    size_t i = get_global_id(0);
    uint x = a[i], y = b[i];
    char4 sx = as_char4(x), sy = as_char4(y);
    uchar4 ux = as_uchar4(x), uy = as_uchar4(y);
    int c = (int)acc[i];
    global uint *o = out + i * 12;
    o[0] = (uint)dot(sx, sy);
    o[1] = dot(ux, uy);
    o[2] = (uint)dot(sx, uy);
    o[3] = (uint)dot_acc_sat(sx, sy, c);
    o[4] = dot_acc_sat(ux, uy, (uint)c);
    o[5] = (uint)dot_acc_sat(sx, uy, c);
    o[6] = (uint)dot_4x8packed_ss_int(x, y);
    o[7] = dot_4x8packed_uu_uint(x, y);
    o[8] = (uint)dot_4x8packed_su_int(x, y);
    o[9] = (uint)dot_acc_sat_4x8packed_ss_int(x, y, c);
    o[10] = dot_acc_sat_4x8packed_uu_uint(x, y, (uint)c);
    o[11] = (uint)dot_acc_sat_4x8packed_su_int(x, y, c);
}
