// Structs: by-value kernel argument, private struct with a designated
// initialiser, nested struct and array members, pointer to struct.
// @kernel structs
// @range 4 / 4
// @arg value float2 [2, 3]
// @arg buffer float zeros(8)
typedef struct {
    float scale;
    float bias;
} Affine;

struct Pair {
    Affine f;
    int tag[2];
};

static float apply(const Affine *a, float x)
{
    return a->scale * x + a->bias;
}

__kernel void structs(Affine af, __global float *out)
{
    int i = get_global_id(0);
    struct Pair p = { .f = af, .tag = { i, 2 * i } };
    struct Pair q;
    q = p;
    q.f.bias += 1.0f;
    out[2 * i] = apply(&q.f, (float)i);
    out[2 * i + 1] = (float)(q.tag[1] + sizeof(struct Pair));
}
// @expect 1 [4, 16, 6, 18, 8, 20, 10, 22]
