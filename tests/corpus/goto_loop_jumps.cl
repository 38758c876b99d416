// gotos inside a for loop: one to a label at the end of the body (a
// `continue`), one to a label after the loop (a `break`); the loop
// variable tells where each work-item left.
// @kernel loopjump
// @range 16 / 8
// @arg buffer int zeros(16)
// @expect 0 [705, 1606, 4808, 7608, 10509, 19810, 18910, 24010, 29710, 27010, 33010, 39610, 35110, 42010, 49510, 43210]
__kernel void loopjump(__global int *out)
{
    int i = get_global_id(0);
    int sum = 0;
    int k;
    for (k = 0; k < 10; k++) {
        if ((k + i) % 3 == 0)
            goto next;
        if (k > i + 4)
            goto finish;
        sum += k * (i + 1);
    next:;
    }
finish:
    out[i] = sum * 100 + k;
}
