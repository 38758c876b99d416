// OpenCL 2.0 atomics: fetch_add with explicit order and scope, a
// compare-exchange loop computing a maximum, load/store, atomic_flag.
// @kernel c11
// @range 8 / 4
// @options -cl-std=CL2.0
// @arg buffer int [3, 9, 1, 7, 5, 2, 8, 6]
// @arg buffer int zeros(4)
// @expect 1 [41, 9, 1, 9]
__kernel void c11(__global const int *in, __global atomic_int *out)
{
    int i = get_global_id(0);
    atomic_fetch_add_explicit(&out[0], in[i], memory_order_relaxed, memory_scope_device);
    int cur = atomic_load(&out[1]);
    while (cur < in[i] && !atomic_compare_exchange_strong(&out[1], &cur, in[i]))
        ;
    if (i == 0)
        atomic_store_explicit(&out[2], 1, memory_order_release);
    atomic_fetch_max(&out[3], in[i]);
}
