// The preprocessor: function-like and variadic macros, # and ##, #if with
// defined() and arithmetic, #elif, -D from the options, __LINE__.
// @kernel macros
// @range 1 / 1
// @options -DSCALE=3 -DUSE_FAST
// @arg buffer int zeros(8)
// @expect 0 [6, 42, 7, 3, 1, 2, 2, 5]
#define SQUARE(x) ((x) * (x))
#define CAT(a, b) a##b
#define FIRST(a, ...) (a)
#define COUNT(...) sizeof((int[]){__VA_ARGS__})
#define STR(x) #x
#define SELF SELF
#if defined(USE_FAST) && SCALE > 2
#define MODE 1
#elif SCALE == 2
#define MODE 2
#else
#define MODE 3
#endif
#ifndef SCALE
#error SCALE must be defined
#endif
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma some_unknown_pragma

__kernel void macros(__global int *out)
{
    int CAT(val, ue) = SQUARE(SCALE - 1) + 2;
    out[0] = value;
    out[1] = SQUARE(6) + SQUARE(1 + 1) + 2;
    out[2] = FIRST(7, 8, 9);
    out[3] = SCALE;
    out[4] = MODE;
    out[5] = __LINE__ - 33;
    out[6] = sizeof(STR(a)) ;
    int SELF = 5;
    out[7] = SELF;
}
