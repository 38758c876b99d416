// switch with fall-through between cases, two labels on one case,
// default in the middle, a nested loop whose break leaves only the loop,
// and a switch on a char.
// @kernel sw
// @range 8 / 4
// @arg buffer int iota(8, -1)
// @arg buffer int zeros(8)
// @arg buffer int zeros(8)
// @expect 0 [-1, 111, 110, 100, 1000, 1000, -1, -1]
// @expect 2 [0, 100, 201, 302, 303, 303, 303, 303]
__kernel void sw(__global const int *in, __global int *out, __global int *out2)
{
    int i = get_global_id(0);
    int x = in[i];
    int r = 0;
    switch (x) {
    case 0:
        r += 1;
    case 1:
        r += 10;
    case 2:
        r += 100;
        break;
    default:
        r = -1;
        break;
    case 3:
    case 4:
        r += 1000;
        break;
    }
    out[i] = r;
    char c = (char)x;
    int k = 0;
    switch (c) {
    cdefine: k = 0; break;
    case 0: k = 100; break;
    case 1: k = 200; break;
    default:
        k = 300;
        for (int j = 0; j < 10; j++) {
            if (j == 3) break;
            k++;
        }
        k -= 3;
    }
    int n = 0;
    for (int j = 0; j < x && j < 3; j++) {
        switch (j) { case 99: continue; default: n++; }
    }
    out2[i] = k + n;
}
