// A loop made of a label and a goto with a uniform trip count around two
// barriers: the structured loop passes the same barrier checks as a for
// loop. Each round every work-item takes its right neighbour's value + 1.
// @kernel rotate
// @range 8 / 8
// @arg buffer int zeros(8)
// @expect 0 [6, 7, 8, 9, 10, 3, 4, 5]
__kernel void rotate(__global int *out)
{
    __local int buf[8];
    int l = get_local_id(0);
    int round = 0;
    int acc = l;
again:
    buf[l] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    acc = buf[(l + 1) % 8] + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (++round < 3)
        goto again;
    out[get_global_id(0)] = acc;
}
