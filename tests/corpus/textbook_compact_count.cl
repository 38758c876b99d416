// Stream compaction by predicate: positive values counted with atomic_inc
// on a global counter (the count and the total of the kept values are
// order-independent).
// @kernel cc
// @range 16 / 4
// @arg buffer int [-5, 2, -2, 5, 1, -3, 4, 0, -4, 3, -1, -5, 2, -2, 5, 1]
// @arg buffer int zeros(2)
// @expect 1 [8, 23]
__kernel void cc(__global const int *in, __global int *acc)
{
    int v = in[get_global_id(0)];
    if (v > 0) {
        atomic_inc(&acc[0]);
        atomic_add(&acc[1], v);
    }
}
