// OpenCL C 2.0: a conditional whose arms point into different named
// address spaces once one arm is cast to generic (the other converts to
// generic too: OpenCL C 2.0 6.5.5), chosen per work-item; and a static
// __global vector initialised by a scalar cast to its type.
// @kernel cond
// @options -cl-std=CL2.0
// @range 16 / 8
// @arg buffer int iota(16, 100)
// @arg buffer float zeros(16)
// @expect 1 [100.5, 1001.5, 102.5, 1003.5, 104.5, 1005.5, 106.5, 1007.5, 108.5, 1009.5, 110.5, 1011.5, 112.5, 1013.5, 114.5, 1015.5]
__kernel void cond(__global int *in, __global float *out)
{
    __local int lint[8];
    static __global float2 half_and_one = (float2)0.5f;
    int tid = get_global_id(0);
    int l = get_local_id(0);
    lint[l] = 1000 + tid;
    barrier(CLK_LOCAL_MEM_FENCE);
    int *ptr = (tid % 2) ? (int *)&lint[l] : &in[tid];
    int *other = (tid % 2) ? &in[tid] : (int *)&lint[l];
    out[tid] = *ptr + half_and_one.y + (*other - *other);
}
