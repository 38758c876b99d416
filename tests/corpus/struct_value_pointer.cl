// Structs by value (copied: the callee's changes do not leak back), by
// pointer (changes do), struct assignment, a struct with an array member,
// and a __global struct array updated through ->.
// @kernel sv
// @range 4 / 2
// @arg buffer int [1, 2, 3, 4, 5, 6, 7, 8]
// @arg buffer int zeros(8)
// @expect 0 [101, 102, 103, 104, 105, 106, 107, 108]
// @expect 1 [3, 1001, 7, 1003, 11, 1005, 15, 1007]
typedef struct { int x, y; } P;
typedef struct { P p; int arr[3]; } Box;
int sum_by_value(P p) { p.x += 1000; return p.x + p.y - 1000; }
void bump(P *p) { p->x += 1000; }
__kernel void sv(__global P *pts, __global int *out)
{
    int i = get_global_id(0);
    P local_copy = pts[i];
    Box b;
    b.p = local_copy;
    b.arr[0] = b.p.x;
    out[2 * i] = sum_by_value(local_copy);
    bump(&local_copy);
    out[2 * i + 1] = local_copy.x;
    __global P *g = &pts[i];
    g->x = 100 + b.arr[0] * 0 + (2 * i + 1);
    g->y = 100 + 2 * i + 2;
}
