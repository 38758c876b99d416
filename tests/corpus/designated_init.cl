// Designated initialisers: struct members out of order, array indices,
// nested designators via braces, members left out are zero, an array of
// structs with [i].
// @kernel di
// @range 1 / 1
// @arg buffer int zeros(16)
// @expect 0 [3, 1, 2, 0, 0, 7, 0, 9, 5, 0, 6, 0, 0, 4, 10, 0]
typedef struct { int a, b, c; } T3;
typedef struct { int k; int v; } KV;
typedef struct { T3 t; int tail[2]; } Outer;
__kernel void di(__global int *o)
{
    T3 t = { .c = 2, .a = 3, .b = 1 };
    int arr[5] = { [2] = 7, [4] = 9 };
    KV kv[2] = { [1] = { .k = 6 }, [0] = { .k = 5 } };
    Outer u = { .tail = { [1] = 10 }, .t = { .b = 4 } };
    o[0] = t.a; o[1] = t.b; o[2] = t.c;
    for (int i = 0; i < 5; i++) o[3 + i] = arr[i];
    o[8] = kv[0].k; o[9] = kv[0].v; o[10] = kv[1].k; o[11] = kv[1].v;
    o[12] = u.t.a; o[13] = u.t.b; o[14] = u.tail[1]; o[15] = u.tail[0] + u.t.c;
}
