// A function with a goto also lowers its do-while and switch through the
// control-flow graph: a case falling into the next, `break` out of the
// switch, `continue` to the do-while's test, and a goto out of the switch
// and the loop at once, taken by some work-items only.
// @kernel dw
// @range 8 / 4
// @arg buffer int zeros(8)
// @expect 0 [1142, 1131, 121, 121, 1142, 1131, 121, 121]
__kernel void dw(__global int *out)
{
    int i = get_global_id(0);
    int acc = 0;
    int k = 0;
    do {
        switch ((i + k) % 4) {
        case 0:
            acc += 1;
        case 1:
            acc += 10;
            break;
        case 2:
            k++;
            continue;
        default:
            if (acc > 30)
                goto leave;
            acc += 100;
        }
        k++;
    } while (k < 6);
    acc += 1000;
leave:
    out[i] = acc;
}
