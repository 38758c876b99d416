// long4 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload4/vstore4 over two work-items.
// @kernel k
// @range 2 / 1
// @arg buffer long [1, 4, 0, 3, 6, 2, 5, 1]
// @arg buffer long [2, 7, 3, 8, 4, 0, 5, 1]
// @arg buffer long zeros(8)
// @expect 2 [2, 29, -1, 23, 28, 2, 28, 2]
__kernel void k(__global const long *A, __global const long *B, __global long *C)
{
    int i = get_global_id(0);
    long4 a = vload4(i, A), b = vload4(i, B);
    vstore4(a * b + a - b / (long)2, i, C);
}
