// Kernels in the shapes that SYCL (DPC++) and HIP-on-OpenCL compilers
// emit when they lower to OpenCL SPIR-V: an accessor decomposed into
// pointer, range and offset arguments; a lambda's captures as a private
// struct handed by pointer to its operator; generic pointers (the default
// address space of OpenCL C 2.0) cast from the global one; an early return
// for the work-items past the range; a loop whose loop-carried values
// become a web of OpPhi at -O2, left by a break from its middle.
// @kernel sycl_like
// @options -cl-std=CL2.0
// @range 40 / 8
// @arg buffer int iota(32)
// @arg value ulong 30
// @arg value ulong 2
// @arg buffer int zeros(40)
// @expect 3 [7551, 5472, 4146, 3048, 2019, 1011, 24905, 12125, 7559, 5480, 4154, 3056, 2027, 1019, 24913, 12133, 7567, 5488, 4162, 3064, 2035, 1027, 24921, 12141, 7575, 5496, 4170, 3072, 2043, 1035, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]

typedef struct {
    int *data;
    ulong offset;
    int scale;
} captures;

static int call_operator(const captures *self, ulong i)
{
    int *p = self->data + self->offset + i;
    int x = *p;
    int a = 0, b = 1, steps = 0;
    for (int k = 0; k < 16; ++k) {
        int t = a + b * self->scale;
        a = b;
        b = t & 0xffff;
        steps++;
        if (((x + k) & 7) == 7)
            break;
    }
    return a + b + steps * 1000 + x;
}

__kernel void sycl_like(__global int *acc_ptr, ulong acc_range, ulong acc_offset,
                        __global int *out)
{
    size_t gid = get_global_id(0);
    if (gid >= acc_range) {
        out[gid] = -1;
        return;
    }
    captures self = { (int *)acc_ptr, acc_offset, 3 };
    out[gid] = call_operator(&self, gid);
}
