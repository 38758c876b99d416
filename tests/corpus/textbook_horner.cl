// Polynomial evaluation by Horner's rule with coefficients in a
// __constant array (exact in float for these inputs).
// @kernel hp
// @range 8 / 4
// @arg buffer float [-2, -1, 0, 0.5, 1, 2, 3, 4]
// @arg buffer float zeros(8)
// @expect 1 [-7, 2.5, 1, -0.125, 0.5, 13, 50.5, 125]
__constant float coef[4] = {1.0f, -3.0f, 0.5f, 2.0f};
__kernel void hp(__global const float *x, __global float *y)
{
    int i = get_global_id(0);
    float acc = coef[3];
    for (int k = 2; k >= 0; k--)
        acc = acc * x[i] + coef[k];
    y[i] = acc;
}
