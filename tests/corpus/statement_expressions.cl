// GNU statement expressions `({ ... })`, as clang takes them in OpenCL C
// and safe-math headers use them in macros: the statements run in a scope
// of their own (a name may shadow an outer one), the value is the last
// expression statement's, side effects happen once, and one whose last
// statement is not an expression is void.
// @kernel se
// @range 8 / 4
// @arg buffer int iota(8, -3)
// @arg buffer int zeros(32)
// @expect 1 [-3, 3, 6, 1, -2, 2, 4, 1, -1, 1, 2, 1, 0, 0, 0, 1, 1, 1, 2, 1, 2, 2, 4, 1, 3, 3, 6, 1, 4, 4, 8, 1]
#define ABS_ONCE(x) ({ int _v = (x); _v < 0 ? -_v : _v; })
#define SAFE_ADD(a, b, ok) ({ long _s = (long)(a) + (long)(b); *(ok) = _s == (int)_s; (int)_s; })

__kernel void se(__global const int *in, __global int *out)
{
    size_t i = get_global_id(0);
    int reads = 0;
    int v = ({ reads++; in[i]; });
    int _v = 100;  // shadowed inside ABS_ONCE
    int ok = 0;
    out[4 * i + 0] = v;
    out[4 * i + 1] = ABS_ONCE(in[i]);
    out[4 * i + 2] = SAFE_ADD(ABS_ONCE(v), ABS_ONCE(v), &ok);
    ({ if (reads != 1) ok = 0; });
    out[4 * i + 3] = ok && _v == 100;
}
