// Cartesian to polar with a power of the radius: atan2, hypot and pow per
// work-item (the measurement of the wide code's atan2 and pow,
// docs/wide.md; not part of `vecl bench`'s suite).
__kernel void polar(__global const float *x, __global const float *y, __global float *r,
                    __global float *phi, float p)
{
    int i = get_global_id(0);
    float a = x[i];
    float b = y[i];
    phi[i] = atan2(b, a);
    r[i] = pow(hypot(a, b), p);
}
