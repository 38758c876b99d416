// cl_khr_expect_assume: __builtin_expect gives its first argument (as a
// long) and __builtin_assume only evaluates its condition.
// @kernel hints
// @range 8 / 4
// @arg buffer int [3, -1, 0, 7, 100, -50, 2, 9]
// @arg buffer int zeros(8)
// @expect 1 [4, -1, 1, 8, 101, -50, 3, 10]
// (clang 15 compiling for SPIR-V, which has the builtins, does not define
// the extension's macro.)
#if !defined(cl_khr_expect_assume) && !defined(__SPIR__)
#error cl_khr_expect_assume is defined
#endif
__kernel void hints(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    int x = in[i];
    __builtin_assume(i >= 0);
    if (__builtin_expect(x >= 0, 1))
        x += 1;
    out[i] = (int)__builtin_expect((long)x, 0L);
}
