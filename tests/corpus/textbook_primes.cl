// Trial-division primality of 0..31 with an early-exit for loop.
// @kernel pr
// @range 32 / 8
// @arg buffer int zeros(32)
// @expect 0 [0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1]
__kernel void pr(__global int *out)
{
    int n = get_global_id(0);
    int prime = n > 1;
    for (int d = 2; d * d <= n; d++) {
        if (n % d == 0) { prime = 0; break; }
    }
    out[n] = prime;
}
