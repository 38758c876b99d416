// Black-Scholes with the cumulative normal from erf, N(d) = (1 + erf(d/√2))/2,
// one option per work-item (the measurement of the wide code's erf,
// docs/wide.md; not part of `vecl bench`'s suite).
float cnd(float d)
{
    return 0.5f * (1.0f + erf(d * M_SQRT1_2_F));
}

__kernel void erf_blackscholes(__global const float *spot, __global const float *strike,
                               __global const float *years, __global float *call,
                               __global float *put, float r, float v)
{
    int i = get_global_id(0);
    float s = 10.0f + fabs(spot[i]);
    float k = 10.0f + fabs(strike[i]);
    float t = 0.25f + fabs(years[i]);
    float sq = v * sqrt(t);
    float d1 = (log(s / k) + (r + 0.5f * v * v) * t) / sq;
    float d2 = d1 - sq;
    float disc = k * exp(-r * t);
    call[i] = s * cnd(d1) - disc * cnd(d2);
    put[i] = disc * cnd(-d2) - s * cnd(-d1);
}
