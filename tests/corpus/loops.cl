// for with continue and break (and an unroll hint), while, do-while, nested loops.
// @kernel loops
// @range 4 / 4
// @arg buffer int zeros(16)
// @expect 0 [0, 0, 1, 0, 6, 4, 1, 1, 12, 8, 2, 2, 18, 12, 3, 3]
__kernel void loops(__global int *out)
{
    int n = get_global_id(0);
    int sum = 0;
    __attribute__((opencl_unroll_hint(2)))
    for (int k = 0; k < 100; k++) {
        if (k % 2)
            continue;
        if (k > 6)
            break;
        sum += k * n / 2;
    }
    int w = 0, j = 0;
    while (j < n) {
        w += 4;
        j++;
    }
    int d = 0;
    do {
        d++;
    } while (d < n);
    int cnt = 0;
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < 3; ++b) {
            if (b == 1) break;
            cnt++;
        }
    out[4 * n + 0] = sum;
    out[4 * n + 1] = w;
    out[4 * n + 2] = d > n ? d : n;
    out[4 * n + 3] = cnt;
}
