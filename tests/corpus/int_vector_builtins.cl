// Integer builtins on char4 vectors: add_sat/sub_sat at the bounds,
// abs_diff, min/max/clamp, rhadd and mad_sat.
// @kernel ivb
// @range 1 / 1
// @arg buffer char [-5, 100, -128, 127]
// @arg buffer char [3, -100, -1, 1]
// @arg buffer int zeros(28)
// @expect 2 [-2, 0, -128, 127, -8, 127, -127, 126, 8, 200, 127, 126, -5, -100, -128, 1, 3, 100, -1, 127, -5, 10, -10, 10, -1, 0, -64, 64]
__kernel void ivb(__global const char4 *pa, __global const char4 *pb, __global int *o)
{
    char4 a = pa[0], b = pb[0];
    vstore4(convert_int4(add_sat(a, b)), 0, o);
    vstore4(convert_int4(sub_sat(a, b)), 1, o);
    vstore4(convert_int4(abs_diff(a, b)), 2, o);
    vstore4(convert_int4(min(a, b)), 3, o);
    vstore4(convert_int4(max(a, b)), 4, o);
    vstore4(convert_int4(clamp(a, (char)-10, (char)10)), 5, o);
    vstore4(convert_int4(rhadd(a, b)), 6, o);
}
