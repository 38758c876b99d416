// Function-scope static const arrays (placed in __constant memory) and
// const locals used as table lookups from a helper and a kernel.
// @kernel scl
// @range 8 / 4
// @arg buffer int zeros(8)
// @expect 0 [1, 2, 6, 15, 24, 121, 724, 5049]
int square_small(int i)
{
    static const int sq[4] = {0, 1, 4, 9};
    return sq[i & 3];
}
__kernel void scl(__global int *o)
{
    static const int fact[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
    const int i = get_global_id(0);
    o[i] = fact[i] + square_small(i);
}
