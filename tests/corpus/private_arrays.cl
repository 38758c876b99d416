// Private arrays indexed by variables, pointer arithmetic and pointer
// difference, and a pointer walking a private array.
// @kernel arrays
// @range 4 / 4
// @arg buffer int zeros(8)
// @expect 0 [10, 3, 11, 3, 13, 3, 16, 3]
__kernel void arrays(__global int *out)
{
    int i = get_global_id(0);
    int acc[4] = { 10, 0 };
    for (int k = 1; k < 4; k++)
        acc[k] = acc[k - 1] + k;
    int *p = acc;
    int *q = p + 3;
    __global int *o = out + 2 * i;
    *o = *(p + i);
    o[1] = (int)(q - p);
}
