// OpenCL C 2.0 atomics, the whole set: every atomic type; the plain and
// _explicit forms with every memory_order and memory_scope, constant or
// known only at run time (the last argument, memory_order_seq_cst); on
// __global, __local and generic pointers (a generic pointer whose lanes
// point into both); atomic_init, atomic_flag, atomic_work_item_fence,
// ATOMIC_VAR_INIT and ATOMIC_FLAG_INIT. Every result is independent of the
// order in which the work-items' atomics happen.
// @kernel c11_all
// @range 16 / 8
// @options -cl-std=CL3.0
// @arg buffer int iota(16, 1)
// @arg buffer int zeros(8)
// @arg buffer int zeros(20)
// @arg buffer long zeros(6)
// @arg buffer float zeros(1)
// @arg value int 5
// @expect 1 [136, -136, 131070, 16, 0, 16, -16, 8]
// @expect 2 [36, 1, -256, 4, 1, 36, 8, 7, 36, 101, 100, 9, -256, 4, 1, 100, 16, 7, 100, 101]
// @expect 3 [1168231104512, 17592186044416, -136, 281470681743360, -68719476736, 136]
// @expect 4 [0.25]
__kernel void c11_all(__global const int *in, __global atomic_int *gi, __global int *per_group,
                      __global long *gl, __global atomic_float *gf, int order_at_run_time)
{
    __local atomic_int li[7];
    __local atomic_flag lock;
    __local atomic_float lf;
    __local atomic_double ld;
    __local atomic_float lsum, lzero;
    __local int winners;
    int l = get_local_id(0);
    int i = get_global_id(0);
    int v = in[i];
    memory_order run_order = (memory_order)order_at_run_time;
    if (l == 0) {
        atomic_init(&li[0], ATOMIC_VAR_INIT(0));
        atomic_init(&li[1], 100);
        atomic_init(&li[2], -1);
        for (int k = 3; k < 7; k++)
            atomic_init(&li[k], 0);
        atomic_flag_clear_explicit(&lock, memory_order_release, memory_scope_work_group);
        atomic_init(&lf, 1.5f);
        atomic_init(&ld, 0.5);
        atomic_init(&lsum, 0.0f);
        atomic_init(&lzero, 0.0f);
        winners = ATOMIC_FLAG_INIT;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // __global int: each operation and order.
    atomic_fetch_add(&gi[0], v);
    atomic_fetch_sub_explicit(&gi[1], v, memory_order_relaxed);
    atomic_fetch_or_explicit(&gi[2], 1 << v, memory_order_acq_rel, memory_scope_device);
    atomic_fetch_xor_explicit(&gi[3], v, memory_order_seq_cst, memory_scope_all_devices);
    atomic_fetch_and_explicit(&gi[4], v, run_order, memory_scope_device);
    atomic_fetch_max_explicit(&gi[5], v, memory_order_acquire, memory_scope_device);
    atomic_fetch_min_explicit(&gi[6], -v, memory_order_release, memory_scope_work_group);

    // A generic pointer: even lanes count in __global, odd ones in __local.
    atomic_int *g = &gi[7];
    if (l & 1)
        g = &li[3];
    atomic_fetch_add_explicit(g, 1, run_order, memory_scope_device);

    // __local: each operation, the scope left out or given.
    atomic_fetch_add_explicit(&li[0], v, memory_order_relaxed, memory_scope_work_group);
    atomic_fetch_min_explicit(&li[1], v, memory_order_acquire, memory_scope_work_group);
    atomic_fetch_and_explicit(&li[2], ~(1 << l), memory_order_release);
    int old = atomic_exchange_explicit(&li[4], v, memory_order_acq_rel, memory_scope_work_group);
    atomic_fetch_add(&li[5], old);
    int cur = atomic_load_explicit(&li[6], memory_order_relaxed, memory_scope_work_group);
    while (cur < v
           && !atomic_compare_exchange_weak_explicit(&li[6], &cur, v, memory_order_acq_rel,
                                                     memory_order_relaxed, memory_scope_work_group))
        ;
    // A float compare-exchange loop (halves sum exactly in any order).
    float seen = atomic_load(&lsum);
    while (!atomic_compare_exchange_strong(&lsum, &seen, seen + 0.5f * v))
        ;
    if (!atomic_flag_test_and_set_explicit(&lock, memory_order_acquire, memory_scope_work_group))
        winners += 1;

    // 64-bit atomic types.
    atomic_fetch_add((__global atomic_long *)&gl[0], (long)v << 33);
    atomic_fetch_max_explicit((__global atomic_ulong *)&gl[1], (ulong)v << 40, memory_order_seq_cst);
    atomic_fetch_sub((__global atomic_intptr_t *)&gl[2], v);
    atomic_fetch_or_explicit((__global atomic_size_t *)&gl[3], 1ul << (v + 31), memory_order_relaxed,
                             memory_scope_device);
    atomic_fetch_min((__global atomic_ptrdiff_t *)&gl[4], -(long)v << 32);
    __global atomic_uintptr_t *sum = (__global atomic_uintptr_t *)&gl[5];
    uintptr_t expected = atomic_load(sum);
    while (!atomic_compare_exchange_strong_explicit(sum, &expected, expected + v, run_order,
                                                    memory_order_relaxed))
        ;

    if (i == 0)
        atomic_store_explicit(&gf[0], 0.25f, memory_order_release, memory_scope_device);
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_seq_cst,
                           memory_scope_work_group);
    atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, run_order, memory_scope_work_item);
    barrier(CLK_LOCAL_MEM_FENCE);

    if (l == 0) {
        __global int *out = per_group + 10 * get_group_id(0);
        out[0] = atomic_load(&li[0]);
        out[1] = atomic_load_explicit(&li[1], memory_order_acquire);
        out[2] = atomic_load_explicit(&li[2], memory_order_seq_cst, memory_scope_work_group);
        out[3] = atomic_load(&li[3]);
        out[4] = winners;
        out[5] = atomic_load(&li[4]) + atomic_load(&li[5]);
        out[6] = atomic_load(&li[6]);
        float f = atomic_exchange(&lf, 2.0f);
        atomic_store_explicit(&ld, atomic_load(&ld) * 2.0, memory_order_release);
        out[7] = (int)(f * 2.0f + atomic_load(&lf) + atomic_load(&ld) * 2.0);
        out[8] = (int)(atomic_load(&lsum) * 2.0f);
        // Compare-exchange compares bits: -0.0 does not match 0.0, and the
        // value found (+0.0) is written back.
        float minus_zero = -0.0f;
        bool swapped = atomic_compare_exchange_strong(&lzero, &minus_zero, 1.0f);
        out[9] = swapped * 10 + (as_int(minus_zero) == 0) + (atomic_load(&lzero) == 0.0f) * 100;
    }
}
