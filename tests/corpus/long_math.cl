// 64-bit integers and size_t: products beyond 32 bits, ulong shifts, mixed
// signed/unsigned comparisons, double arithmetic.
// @kernel longs
// @range 1 / 1
// @arg buffer long zeros(6)
// @expect 0 [6000000000, 4294967296, 1, -3, 1, 7]
__kernel void longs(__global long *out)
{
    long a = 3000000000L;
    out[0] = a * 2;
    ulong one = 1;
    out[1] = (long)(one << 32);
    out[2] = -1 < 1u ? 0 : 1;
    out[3] = -7 / 2;
    size_t gid = get_global_id(0);
    out[4] = sizeof(gid) == 8;
    double d = 3.5;
    out[5] = (long)(d * 2.0);
}
