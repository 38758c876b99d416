// Enumerations: implicit and explicit values, negative enumerators,
// enum values in switch labels and in constant expressions (array size).
// @kernel en
// @range 4 / 4
// @arg buffer int zeros(8)
// @expect 0 [10, 11, -1, 0, 20, 22, 5, 3]
enum colour { RED = 10, GREEN, BLUE = -1, BLACK };
typedef enum { SMALL = 1, BIG = 3 } size_e;
__kernel void en(__global int *out)
{
    int i = get_global_id(0);
    enum colour c = (i == 0) ? RED : (i == 1) ? GREEN : (i == 2) ? BLUE : BLACK;
    int arr[BIG + 2];
    arr[4] = 5;
    int r;
    switch (c) {
    case RED: r = 20; break;
    case GREEN: r = 22; break;
    default: r = arr[4];
    }
    out[i] = c;
    if (i < 2) out[4 + i] = r;
    if (i == 2) out[6] = r;
    if (i == 3) out[7] = BIG;
}
