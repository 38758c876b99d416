// The bool type: conversions from ints and floats (non-zero is true),
// bool arithmetic promotes to int, bool in conditions, bool arrays in
// private memory.
// @kernel bt
// @range 1 / 1
// @arg buffer int zeros(8)
// @expect 0 [1, 0, 1, 2, 1, 0, 1, 3]
__kernel void bt(__global int *o)
{
    bool a = 5, b = 0, c = -0.5f;
    o[0] = a; o[1] = b; o[2] = c;
    o[3] = a + c;
    bool flags[4] = {true, false, true, true};
    o[4] = flags[0] && !flags[1];
    o[5] = flags[1] || b;
    o[6] = (a == c);
    int n = 0;
    for (int i = 0; i < 4; i++) n += flags[i];
    o[7] = n;
}
