// A barrier inside a loop with a uniform trip count: a prefix sum over a
// work-group in __local memory (Hillis-Steele).
// @kernel scan
// @range 8 / 8
// @arg buffer int fill(8, 1)
// @arg buffer int zeros(8)
// @expect 1 [1, 2, 3, 4, 5, 6, 7, 8]
__kernel void scan(__global const int *in, __global int *out)
{
    __local int buf[2][8];
    int l = get_local_id(0);
    int pin = 0;
    buf[0][l] = in[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < 8; off *= 2) {
        int pout = 1 - pin;
        buf[pout][l] = buf[pin][l] + (l >= off ? buf[pin][l - off] : 0);
        barrier(CLK_LOCAL_MEM_FENCE);
        pin = pout;
    }
    out[l] = buf[pin][l];
}
