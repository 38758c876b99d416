// uint16 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload16/vstore16 over two work-items.
// @kernel k
// @range 2 / 1
// @arg buffer uint [1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3]
// @arg buffer uint [2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4]
// @arg buffer uint zeros(32)
// @expect 2 [2, 29, 4294967295, 23, 28, 2, 28, 2, 25, 4294967295, 21, 23, 14, 23, 1, 22, 0, 18, 17, 13, 19, 5, 18, 0, 16, 12, 11, 14, 5, 15, 4294967292, 13]
__kernel void k(__global const uint *A, __global const uint *B, __global uint *C)
{
    int i = get_global_id(0);
    uint16 a = vload16(i, A), b = vload16(i, B);
    vstore16(a * b + a - b / (uint)2, i, C);
}
