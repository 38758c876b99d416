// The comma operator in for headers and expressions, nested and chained
// ?: (right-associative), ?: as an lvalue-free value in arithmetic,
// and short-circuit side effects.
// @kernel ct
// @range 8 / 4
// @arg buffer int zeros(8)
// @arg buffer int zeros(8)
// @expect 0 [-10, -9, 2, 3, 14, 15, 16, 17]
// @expect 1 [1, 2, 1, 2, 1, 2, 1, 2]
__kernel void ct(__global int *o, __global int *o2)
{
    int i = get_global_id(0);
    int sign = i < 2 ? -1 : i < 4 ? 0 : 1;
    int n = 0;
    for (int a = 0, b = i; a < b; a++, n++)
        ;
    o[i] = (n, sign * 10 + n);
    int hits = 0;
    if ((i & 1) && ++hits) {}
    if ((i > 3) || ++hits > 100) hits++;
    else hits += 0;
    o2[i] = (i > 3) ? hits - 0 : hits;
}
