// One Jacobi relaxation step on a 1-D grid: interior points take the mean
// of their neighbours, boundary points are copied.
// @kernel jac
// @range 12 / 4
// @arg buffer float [0, 1, 4, 2, 2, 4, 1, 0, 1, 4, 2, 2]
// @arg buffer float zeros(12)
// @expect 1 [0, 2, 1.5, 3, 3, 1.5, 2, 1, 2, 1.5, 3, 2]
__kernel void jac(__global const float *u, __global float *v)
{
    int i = get_global_id(0), n = get_global_size(0);
    v[i] = (i == 0 || i == n - 1) ? u[i] : 0.5f * (u[i - 1] + u[i + 1]);
}
