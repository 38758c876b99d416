// Qualifiers and attributes that change nothing at run time but must be
// accepted: #pragma unroll, always_inline, inline, static functions,
// restrict, volatile, const pointers to __constant data; the pointer-sized
// integer types; half data read and written through vload_half/vstore_half.
// @kernel misc
// @range 8 / 4
// @arg buffer int iota(8)
// @arg buffer int zeros(8)
// @arg buffer long zeros(4)
// @arg buffer ushort [0x3c00, 0x4000, 0x4200, 0x4400, 0xbc00, 0x3800, 0x7bff, 0x0000]
// @arg buffer float zeros(8)
// @arg buffer ushort zeros(8)
__constant int weights[4] = {1, 2, 3, 4};

static inline int twice(int x) { return 2 * x; }
__attribute__((always_inline)) int plus_one(int x) { return x + 1; }
inline int weighted(__constant const int *const w, int i) { return w[i & 3] * i; }

__kernel void misc(__global const int *restrict in, __global int *restrict out,
                   __global long *sizes, __global const half *h, __global float *hf,
                   __global half *hout)
{
    size_t gid = get_global_id(0);
    volatile int acc = 0;
#pragma unroll
    for (int k = 0; k < 4; k++)
        acc += k;
#pragma unroll 2
    for (int k = 0; k < 4; k++)
        acc += weights[k];
    out[gid] = twice(in[gid]) + plus_one(acc) + weighted(weights, (int)gid);
    if (gid == 0) {
        sizes[0] = sizeof(size_t) + sizeof(ptrdiff_t);
        sizes[1] = sizeof(intptr_t) + sizeof(uintptr_t);
        ptrdiff_t d = &in[5] - &in[1];
        uintptr_t big = (uintptr_t)1 << 40;
        sizes[2] = d;
        sizes[3] = (long)(big >> 38);
    }
    float v = vload_half(gid, h);
    hf[gid] = v;
    vstore_half(v * 2.0f, gid, hout);
}
// weighted(i) = weights[i & 3] * i: 0, 2, 6, 12, 4, 10, 18, 28; acc = 6 + 10 = 16
// @expect 1 [17, 21, 27, 35, 29, 37, 47, 59]
// @expect 2 [16, 16, 4, 4]
// @expect 4 [1, 2, 3, 4, -1, 0.5, 65504, 0]
// @expect 5 [0x4000, 0x4400, 0x4600, 0x4800, 0xc000, 0x3c00, 0x7c00, 0x0000]
