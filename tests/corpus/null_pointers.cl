// Null pointer constants and integer <-> pointer conversions, as C has
// them: 0, NULL and (void *)0 for any pointer type and address space (in
// declarations, assignments, initialiser lists of structs and unions,
// comparisons, conditionals), and explicit casts between pointers and
// integers, including an address rebuilt from an integer and an offset.
// @kernel np
// @range 4 / 4
// @arg buffer int iota(8, 10)
// @arg buffer int zeros(40)
// @expect 1 [1, 1, 1, 1, 1, 1, 0, 1, 12, 13, 1, 1, 1, 1, 1, 1, 0, 1, 12, 14, 1, 1, 1, 1, 1, 1, 0, 1, 12, 15, 1, 1, 1, 1, 1, 1, 0, 1, 12, 16]
typedef struct { __global int *p; __global int *q; } Pair;
typedef union { __global int *p; ulong bits; } Word;
__kernel void np(__global int *in, __global int *out)
{
    size_t i = get_global_id(0);
    __global int *o = out + 10 * i;
    __global int *a = 0;
    __global int *b = NULL;
    __private int *c = (void *)0;
    Pair pair = { 0, in };
    Pair other = { (void *)0, &in[1] };
    Word w = { 0 };
    o[0] = a == 0;
    o[1] = b == NULL && !b;
    o[2] = c == NULL;
    o[3] = pair.p == NULL && pair.q == in;
    o[4] = other.p == 0 && other.q != NULL;
    o[5] = w.bits == 0;
    // A pointer that is not null compares unequal to 0.
    o[6] = in == 0;
    __global int *pick = i < 100 ? in : 0;
    o[7] = pick != NULL;
    // An address as an integer, moved by bytes, and a pointer again.
    ulong base = (ulong)in;
    __global int *third = (__global int *)(base + 2 * sizeof(int));
    o[8] = *third;
    __global int *mine = (__global int *)((uintptr_t)in + (3 + i) * sizeof(int));
    o[9] = *mine;
}
