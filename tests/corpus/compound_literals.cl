// Compound literals: an array literal indexed at run time, a struct
// literal passed by value, and a variadic macro counting its arguments.
// @kernel literals
// @range 4 / 4
// @arg buffer int zeros(12)
// @expect 0 [10, 5, 3, 20, 5, 3, 30, 5, 3, 40, 5, 3]
#define COUNT(...) (int)(sizeof((int[]){ __VA_ARGS__ }) / sizeof(int))
typedef struct { int a, b; } Pair;

int sum(Pair p) { return p.a + p.b; }

__kernel void literals(__global int *out)
{
    int i = get_global_id(0);
    out[3 * i] = ((int[]){ 10, 20, 30, 40 })[i];
    out[3 * i + 1] = sum((Pair){ .b = 3, .a = 2 });
    out[3 * i + 2] = COUNT(7, 8, 9);
}
