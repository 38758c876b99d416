// Nested loops: continue in the inner for, break leaving only the inner
// loop, a while(1) loop left by break, and a do-while with continue that
// still evaluates its condition.
// @kernel nbc
// @range 8 / 4
// @arg buffer int zeros(8)
// @arg buffer int zeros(8)
// @expect 0 [21, 21, 20, 19, 18, 17, 16, 22]
// @expect 1 [0, 2, 3, 5, 6, 8, 9, 11]
__kernel void nbc(__global int *out, __global int *out2)
{
    int i = get_global_id(0);
    int s = 0;
    for (int j = 0; j < 10; j++) {
        if (j == i) continue;
        if (j > 6) break;
        int k = 0;
        while (1) {
            k++;
            if (k >= j) break;
        }
        s += k;
    }
    out[i] = s;
    int n = 0, c = 0;
    if (i > 0) {
        do {
            if (n % 2) continue;
            c++;
        } while (++n < i * 3);
    }
    out2[i] = c;
}
