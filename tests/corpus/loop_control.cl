// continue inside switch inside a loop, do-while with continue, nested
// break, and an early return inside a loop.
// @kernel control
// @range 4 / 4
// @arg buffer int zeros(12)
// @expect 0 [0, 3, 0, 1, 3, 1, 2, 1, 2, 3, 3, 3]
int first_multiple(int n, int m)
{
    for (int i = 1; i < 100; i++)
        if ((i * n) % m == 0)
            return i;
    return -1;
}

__kernel void control(__global int *out)
{
    int n = get_global_id(0);
    int odd = 0;
    for (int k = 0; k < 6; k++) {
        switch (k % 2) {
        case 0:
            continue;
        default:
            break;
        }
        if (k > 2 * n)
            break;
        odd++;
    }
    int d = 0, iters = 0;
    do {
        iters++;
        if (iters % 2)
            continue;
        d++;
    } while (iters < 2 * n);
    out[3 * n] = odd;
    out[3 * n + 1] = first_multiple(n + 1, 3) == 3 ? 3 : first_multiple(n + 1, 3);
    out[3 * n + 2] = d;
}
