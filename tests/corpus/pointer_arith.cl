// Pointer arithmetic: offsets, differences (ptrdiff_t), walking with ++,
// comparisons of pointers, pointers to private arrays, a pointer to a
// vector element, and indexing with a negative offset from a middle pointer.
// @kernel pa
// @range 1 / 1
// @arg buffer int iota(10, 1)
// @arg buffer int zeros(8)
// @expect 1 [55, 9, 10, 4, 6, 1, 3, 22]
__kernel void pa(__global const int *in, __global int *out)
{
    __global const int *p = in;
    __global const int *end = in + 10;
    int s = 0;
    while (p < end)
        s += *p++;
    out[0] = s;
    out[1] = (int)(end - in) - 1;
    out[2] = *(end - 1);
    __global const int *mid = in + 5;
    out[3] = mid[-2];
    out[4] = *(mid + 1) - 1 + 0 * (mid > in);
    int arr[4] = {1, 2, 3, 4};
    int *q = &arr[3];
    out[5] = *(q - 3);
    out[6] = (int)(q - arr);
    int4 v = (int4)(10, 11, 12, 13);
    int *e = (int *)&v;
    out[7] = e[1] + e[0] + 1;
}
