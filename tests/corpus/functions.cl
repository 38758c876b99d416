// Functions calling functions, out-parameters through pointers, early return.
// @kernel functions
// @range 6 / 3
// @arg buffer int zeros(12)
// @expect 0 [0, 1, 1, 1, 1, 2, 2, 2, 6, 3, 24, 4]
int fact(int n)
{
    int r = 1;
    for (int i = 2; i <= n; i++)
        r *= i;
    return r;
}

void bits(uint x, int *count)
{
    *count = 0;
    while (x) {
        *count += x & 1;
        x >>= 1;
    }
}

int clamp_fact(int n)
{
    if (n == 0)
        return 0;
    return fact(n - 1);
}

__kernel void functions(__global int *out)
{
    int i = get_global_id(0);
    int c;
    bits(i + 1 + (i == 5 ? 8 : 0), &c);
    out[2 * i] = clamp_fact(i);
    out[2 * i + 1] = c + (i >= 3);
}
