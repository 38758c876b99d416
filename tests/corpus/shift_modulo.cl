// Shift counts are taken modulo the bit width of the left operand's
// (element) type: int, uint, long and char4 vectors, arithmetic right shift
// of negatives, and a run-time count.
// @kernel sh
// @range 1 / 1
// @arg buffer int zeros(8)
// @arg value int 33
// @expect 0 [2, 268435456, -4, 2, 2, 8, 3, 0]
__kernel void sh(__global int *out, int n)
{
    out[0] = 1 << n;
    out[1] = (int)(0x80000000u >> (n + 2));
    out[2] = -16 >> (n + 33);
    long one = 1;
    out[3] = (int)(one << (n + 32));
    char4 c = (char4)(1, 2, 3, 4);
    char4 s = (char4)(9, 10, 8, 15);
    char4 r = c << s;
    out[4] = r.x; out[5] = r.y; out[6] = r.z; out[7] = r.w;
}
