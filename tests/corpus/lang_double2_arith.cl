// double2 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload2/vstore2 over two work-items.
// @kernel k
// @range 2 / 1
// @arg buffer double [1, 4, 0, 3]
// @arg buffer double [2, 7, 3, 8]
// @arg buffer double zeros(4)
// @expect 2 [2, 28.5, -1.5, 23]
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global const double *A, __global const double *B, __global double *C)
{
    int i = get_global_id(0);
    double2 a = vload2(i, A), b = vload2(i, B);
    vstore2(a * b + a - b / (double)2.0, i, C);
}
