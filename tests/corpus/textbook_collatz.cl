// Collatz step counts for 1..16: loops of very different trip counts
// across the items of one work-group.
// @kernel col
// @range 16 / 8
// @arg buffer int zeros(16)
// @expect 0 [0, 1, 7, 2, 5, 8, 16, 3, 19, 6, 14, 9, 9, 17, 17, 4]
__kernel void col(__global int *out)
{
    uint n = get_global_id(0) + 1;
    int steps = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    out[get_global_id(0)] = steps;
}
