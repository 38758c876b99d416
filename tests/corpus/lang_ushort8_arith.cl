// ushort8 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload8/vstore8 over two work-items.
// @kernel k
// @range 2 / 1
// @arg buffer ushort [1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4]
// @arg buffer ushort [2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 0, 5]
// @arg buffer ushort zeros(16)
// @expect 2 [2, 29, 65535, 23, 28, 2, 28, 2, 25, 65535, 21, 23, 14, 23, 1, 22]
__kernel void k(__global const ushort *A, __global const ushort *B, __global ushort *C)
{
    int i = get_global_id(0);
    ushort8 a = vload8(i, A), b = vload8(i, B);
    vstore8(a * b + a - b / (ushort)2, i, C);
}
