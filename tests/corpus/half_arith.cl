// half (cl_khr_fp16) as an arithmetic type: literals with the h suffix,
// the usual arithmetic conversions (half op int is half, half op float is
// float), vectors with swizzles and literals, comparisons giving short
// vectors, convert_halfn in every rounding mode with ties, overflow to
// infinity or the largest half, denormals, saturated conversions from
// half (NaN to 0), as_halfn / as_shortn, and halves in private arrays.
// @kernel ha
// @range 1 / 1
// @arg buffer float [1.0, 3.0, 2049.0, 65519.0, 65520.0, 1e-8, 0.5, -2.5]
// @arg buffer float zeros(24)
// @arg buffer short zeros(20)
// @expect 1 [0.75, 4.0, 3.0, 0.333251953125, 7.0, 2048.0, 2048.0, 2050.0, 2048.0, 65504.0, 65504.0, 65504.0, 1024.0, 5.960464477539063e-08, 0.0, 5.960464477539063e-08, 5.5, 2.0, 6.0, 9.0, 1.0, 0.0, 1.5, 2.5]
// @expect 2 [-1, 0, -1, -1, 0, 127, 0, -3, 3, 15360, -16384, 15360, 0, 31743, 32767, -32768, 0, 1, 2, 3]
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

__kernel void ha(__global const float *in, __global float *o, __global short *s)
{
    half one = convert_half(in[0]);
    half three = (half)in[1];
    o[0] = one - 0.25h;                      // 0.75
    o[1] = one + three;                      // 4
    o[2] = one + 2;                          // half + int is half: 3
    o[3] = one / three;                      // 0x1.554p-2 (NumPy's float16 too)
    float f = three * 2.0f + one;            // half * float is float
    o[4] = f;
    float t = in[2];                         // 2049: a tie between 2048 and 2050
    o[5] = convert_half(t);                  // to even: 2048
    o[6] = convert_half_rtz(t);
    o[7] = convert_half_rtp(t);
    o[8] = convert_half_rtn(t);
    o[9] = convert_half(in[3]);              // 65519 rounds down to 65504
    o[10] = convert_half_rtz(in[4]);         // 65520 toward zero: the largest half
    o[11] = convert_half_rtn(in[4]);
    o[12] = isinf(convert_half(in[4])) ? 1024.0f : 0.0f; // to nearest: infinity
    o[13] = convert_half_rtp(in[5]);         // 1e-8 up: the smallest denormal
    o[14] = convert_half_rtz(in[5]);         // toward zero: 0
    o[15] = convert_half(in[5] * 6.0f);      // 6e-8 to nearest: 2^-24
    half4 v = (half4)(one, 2.5h, three, -one);
    half4 w = v.wzyx + (half4)(1.5h);
    o[16] = w.y + one;                       // (3 + 1.5) + 1 = 5.5
    o[17] = dot(v.xy, (half2)(0.0h, 0.8h));  // 2.5 * 0.8 = 2 (rounded)
    o[18] = (float)(v.x * 2.0h + v.z + 1);   // 6
    half arr[4];
    for (int i = 0; i < 4; i++)
        arr[i] = (half)(i * i);
    o[19] = arr[3];                          // 9
    o[20] = (float)(arr[1] < arr[2]);
    o[21] = (float)isnan(arr[0]);
    o[22] = fabs(in[7] + one);               // float: 1.5
    o[23] = -(-v.y);                         // 2.5
    short4 c = v < (half4)(2.0h);           // true is -1 in vectors
    s[0] = c.x;
    s[1] = c.y;
    s[2] = c.w;
    s[3] = any(c) ? -1 : 0;
    s[4] = all(c);
    s[5] = convert_char_sat(convert_half(in[4]));       // inf → 127
    s[6] = convert_short_sat(nan((ushort)1));          // NaN → 0
    s[7] = convert_short_sat_rtn(in[7] * one);              // -2.5 → -3
    s[8] = convert_short_sat_rte(-in[7] + 0.5f);            // 3
    s[9] = as_short(one);                               // 0x3c00
    s[10] = as_short((half)-2.0h);                      // 0xc000
    short2 pair = as_short2(as_half2((short2)(15360, 0)));
    s[11] = pair.x;
    s[12] = pair.y;
    s[13] = as_short(convert_half_rtz(in[4]));          // 0x7bff
    s[14] = convert_short_sat(convert_half(in[4]));     // inf → 32767
    s[15] = convert_short_sat(-convert_half(in[4]));
    s[16] = convert_short_sat_rtz(in[6] * one);         // 0.5 → 0
    s[17] = convert_short_sat_rtp(in[6] * one);             // 1
    s[18] = signbit(v.x) + 2 * signbit(-v.x);           // 2
    s[19] = isequal(v.z, three) + 2 * (v.z != three) + 2 * isless(v.w, v.x); // 3
}
