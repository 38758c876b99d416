// Preprocessor: function-like macros with # and ##, variadic macros,
// #if arithmetic with defined(), -D values from the options, #undef and
// redefinition, __LINE__.
// @kernel pp
// @range 1 / 1
// @options -DSCALE=6 -D BASE=5
// @arg buffer int zeros(8)
// @expect 0 [12, 3, 21, 1, 42, 5, 7, 2]
#define CAT(a, b) a##b
#define STRLEN(s) (sizeof(#s) - 1)
#define SUM3(...) sum3(__VA_ARGS__)
#define SQUARE(x) ((x) * (x))
int sum3(int a, int b, int c) { return a + b + c; }
#if defined(SCALE) && SCALE > 5 && !defined(NOPE)
#define FACTOR 7
#else
#define FACTOR 1
#endif
#define TWO 2
#undef TWO
#define TWO (1 + 1)
__kernel void pp(__global int *o)
{
    int CAT(va, lue) = 12;
    o[0] = value;
    o[1] = STRLEN(abc);
    o[2] = SUM3(1, 10, 10);
    o[3] = __LINE__ - 27;
    o[4] = SQUARE(TWO) * 10 + TWO;
    o[5] = BASE;
    o[6] = FACTOR;
    o[7] = TWO * TWO / 2;
}
