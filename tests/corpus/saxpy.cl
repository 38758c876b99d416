// y = alpha * x + y with a bounds guard; the range overshoots n.
// @kernel saxpy
// @range 12 / 4
// @arg value float 2
// @arg buffer float iota(10)
// @arg buffer float fill(10, 1)
// @arg value int 10
// @expect 2 iota(10, 1, 2)
__kernel void saxpy(float alpha, __global const float *x, __global float *y, int n)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = alpha * x[i] + y[i];
}
