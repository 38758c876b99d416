// One radix-2 FFT stage, the twiddle factor of each butterfly computed
// from its index with sin and cos (the measurement of the wide code's
// sin/cos, docs/wide.md; not part of `vecl bench`'s suite). Real and
// imaginary parts in separate arrays of 2 × the global size.
__kernel void twiddle(__global const float *re, __global const float *im,
                      __global float *ore, __global float *oim, int half)
{
    int i = get_global_id(0);
    int k = i % half;
    int j = (i / half) * 2 * half + k;
    float a = -3.14159265f * (float)k / (float)half;
    float c = cos(a);
    float s = sin(a);
    float xr = re[j + half];
    float xi = im[j + half];
    float tr = c * xr - s * xi;
    float ti = c * xi + s * xr;
    ore[j] = re[j] + tr;
    oim[j] = im[j] + ti;
    ore[j + half] = re[j] - tr;
    oim[j + half] = im[j] - ti;
}
