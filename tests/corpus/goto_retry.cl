// A retry loop written with a label and a backward goto: each work-item
// repeats x = 3x + 1 until x is a multiple of 4, at most 5 times, so the
// work-items leave the loop after different numbers of tries.
// @kernel retry
// @range 16 / 4
// @arg buffer int iota(16)
// @arg buffer int zeros(16)
// @expect 1 [42, 41, 6075, 8505, 402, 161, 15795, 18225, 762, 281, 25515, 27945, 1122, 401, 35235, 37665]
__kernel void retry(__global const int *in, __global int *out)
{
    int i = get_global_id(0);
    int x = in[i];
    int tries = 0;
again:
    tries++;
    x = x * 3 + 1;
    if (x % 4 != 0 && tries < 5)
        goto again;
    out[i] = x * 10 + tries;
}
