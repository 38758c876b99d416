// float8 arithmetic (*, +, / by a scalar widened to the vector) loaded and
// stored with vload8/vstore8 over two work-items.
// @kernel k
// @range 2 / 1
// @arg buffer float [1, 4, 0, 3, 6, 2, 5, 1, 4, 0, 3, 6, 2, 5, 1, 4]
// @arg buffer float [2, 7, 3, 8, 4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 0, 5]
// @arg buffer float zeros(16)
// @expect 2 [2, 28.5, -1.5, 23, 28, 2, 27.5, 1.5, 25, -1, 20.5, 22.5, 14, 23, 1, 21.5]
__kernel void k(__global const float *A, __global const float *B, __global float *C)
{
    int i = get_global_id(0);
    float8 a = vload8(i, A), b = vload8(i, B);
    vstore8(a * b + a - b / (float)2.0f, i, C);
}
