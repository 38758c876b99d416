// atomic_max/atomic_min on a global int from 32 items in 4 groups,
// atomic_add returning old values whose total is checked, atomic_or of bits,
// and a cmpxchg-based float add loop.
// @kernel amm
// @range 32 / 8
// @arg buffer int [-50, -13, 24, -40, -3, 34, -30, 7, 44, -20, 17, -47, -10, 27, -37, 0, 37, -27, 10, 47, -17, 20, -44, -7, 30, -34, 3, 40, -24, 13, 50, -14]
// @arg buffer int [-1000, 1000, 0, 0]
// @arg buffer float [0]
// @expect 1 [50, -50, -14, -1]
// @expect 2 [248]
__kernel void amm(__global const int *v, __global int *r, __global float *fsum)
{
    int i = get_global_id(0);
    atomic_max(&r[0], v[i]);
    atomic_min(&r[1], v[i]);
    atomic_add(&r[2], v[i]);
    atomic_or(&r[3], 1 << i);
    float add = i * 0.5f;
    __global volatile int *p = (__global volatile int *)fsum;
    int old = *p, assumed;
    do {
        assumed = old;
        old = atomic_cmpxchg(p, assumed, as_int(as_float(assumed) + add));
    } while (old != assumed);
}
