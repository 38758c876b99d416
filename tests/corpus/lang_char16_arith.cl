// char16 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload16/vstore16 over two work-items.
// @kernel k
// @range 2 / 1
// @arg buffer char [1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3]
// @arg buffer char [2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4]
// @arg buffer char zeros(32)
// @expect 2 [2, 29, -1, 23, 28, 2, 28, 2, 25, -1, 21, 23, 14, 23, 1, 22, 0, 18, 17, 13, 19, 5, 18, 0, 16, 12, 11, 14, 5, 15, -4, 13]
__kernel void k(__global const char *A, __global const char *B, __global char *C)
{
    int i = get_global_id(0);
    char16 a = vload16(i, A), b = vload16(i, B);
    vstore16(a * b + a - b / (char)2, i, C);
}
