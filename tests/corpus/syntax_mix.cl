// Assorted syntax: multi-line macros, include guards, version tests,
// qualifier orders, literal forms, for(;;), comma operators, any/all on
// vector compares, aligned variables, typedef'd pointers, compound
// assignment through swizzles, nested ternaries.
// @kernel mix
// @range 1 / 1
// @arg buffer int zeros(12)
// @expect 0 [1, 2, 6, 65, 10, 1, 0, 7, 9, 3, 1, 2]
#ifndef MIX_GUARD
#define MIX_GUARD
#define ADD3(a, b, c) \
    ((a) +            \
     (b) + (c))
#endif
#if __OPENCL_C_VERSION__ >= CL_VERSION_2_0
#error "built as OpenCL C 1.2 by default"
#elif __OPENCL_C_VERSION__ == CL_VERSION_1_2
#define V12 1
#endif
typedef __global int *gint_ptr;

__kernel void mix(gint_ptr out)
{
    const __global int *restrict ro = out;
    unsigned char uc = 'A';
    float h = 0x1p1f + .5f + 5.f - 5.5f;
    int loops = 0, i, j;
    for (;;) {
        if (++loops == 3)
            break;
    }
    for (i = 0, j = 10; i < j; i += 2, j -= 2)
        ;
    int4 a = (int4)(1, 2, 3, 4), b = (int4)(0, 2, 5, 1);
    __attribute__((aligned(16))) float4 acc = (float4)(1.0f);
    acc.xz *= 3.0f;
    acc.s1 += acc.s2;
    int t = loops > 2 ? (i > 5 ? 7 : 8) : 9;
    out[0] = V12;
    out[1] = (int)h;
    out[2] = ADD3(1, 2, 3);
    out[3] = uc;
    out[4] = i + j;
    out[5] = any(a < b);
    out[6] = all(a < b);
    out[7] = t;
    out[8] = (int)(acc.x + acc.y + acc.z - acc.w);
    out[9] = loops;
    out[10] = ro == out;
    out[11] = sizeof(short) + (int)(sizeof(uchar4) == 4) - 1;
}
