// switch with fall-through, default in the middle, and break.
// @kernel classify
// @range 8 / 8
// @arg buffer int zeros(8)
// @expect 0 [100, 111, 11, 1000, 1000, 5, 1000, 1000]
__kernel void classify(__global int *out)
{
    int i = get_global_id(0);
    int r = 0;
    switch (i) {
    case 0:
        r = 100;
        break;
    case 1:
        r += 100;
    case 2:
        r += 10;
    case 9:
        r += 1;
        break;
    default:
        r = 1000;
        break;
    case 5:
        r = 5;
    }
    out[i] = r;
}
