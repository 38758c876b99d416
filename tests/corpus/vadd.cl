// Element-wise addition: the first program every OpenCL device runs.
// @kernel vadd
// @range 16 / 4
// @arg buffer float iota(16)
// @arg buffer float iota(16, 0, 10)
// @arg buffer float zeros(16)
// @expect 2 iota(16, 0, 11)
__kernel void vadd(__global const float* a, __global const float* b, __global float* c)
{
    int i = get_global_id(0);
    c[i] = a[i] + b[i];
}
