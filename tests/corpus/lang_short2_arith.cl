// short2 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload2/vstore2 over two work-items.
// @kernel k
// @range 2 / 1
// @arg buffer short [1, 4, 0, 3]
// @arg buffer short [2, 7, 3, 8]
// @arg buffer short zeros(4)
// @expect 2 [2, 29, -1, 23]
__kernel void k(__global const short *A, __global const short *B, __global short *C)
{
    int i = get_global_id(0);
    short2 a = vload2(i, A), b = vload2(i, B);
    vstore2(a * b + a - b / (short)2, i, C);
}
