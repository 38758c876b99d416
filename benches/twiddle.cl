// One radix-2 FFT stage, the twiddle factor of each butterfly computed
// from its index with sin and cos (the measurement of the wide code's
// sin/cos, docs/wide.md; not part of `vecl bench`'s suite). Real and
// imaginary parts in separate arrays of 2 × the global size.
__kernel void twiddle(__global const float *re, __global const float *im,
                      __global float *ore, __global float *oim, int m)
{
    int i = get_global_id(0);
    int k = i % m;
    int j = (i / m) * 2 * m + k;
    float a = -3.14159265f * (float)k / (float)m;
    float c = cos(a);
    float s = sin(a);
    float xr = re[j + m];
    float xi = im[j + m];
    float tr = c * xr - s * xi;
    float ti = c * xi + s * xr;
    ore[j] = re[j] + tr;
    oim[j] = im[j] + ti;
    ore[j + m] = re[j] - tr;
    oim[j + m] = im[j] - ti;
}
