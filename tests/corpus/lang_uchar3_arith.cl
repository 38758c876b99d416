// uchar3 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload3/vstore3 over two work-items.
// @kernel k
// @range 2 / 2
// @arg buffer uchar [1, 4, 0, 3, 6, 2]
// @arg buffer uchar [2, 7, 3, 8, 4, 0]
// @arg buffer uchar zeros(6)
// @expect 2 [2, 29, 255, 23, 28, 2]
__kernel void k(__global const uchar *A, __global const uchar *B, __global uchar *C)
{
    int i = get_global_id(0);
    uchar3 a = vload3(i, A), b = vload3(i, B);
    vstore3(a * b + a - b / (uchar)2, i, C);
}
