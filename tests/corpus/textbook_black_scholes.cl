// Black-Scholes call and put prices (K=100, T=1, r=0.05, sigma=0.2) with
// the cumulative normal from erf.
// @kernel black_scholes
// @range 4 / 4
// @arg buffer float [90, 100, 110, 120]
// @arg buffer float zeros(4)
// @arg buffer float zeros(4)
// @expect 1 ~1e-4 [5.0912221, 10.4505836, 17.6629537, 26.1690439]
// @expect 2 ~1e-4 [10.2141645, 5.5735260, 2.7858962, 1.2919864]
float cnd(float d)
{
    return 0.5f * (1.0f + erf(d * M_SQRT1_2_F));
}

__kernel void black_scholes(__global const float *spot, __global float *call, __global float *put)
{
    const float K = 100.0f, T = 1.0f, r = 0.05f, v = 0.2f;
    int i = get_global_id(0);
    float s = spot[i];
    float sq = v * sqrt(T);
    float d1 = (log(s / K) + (r + 0.5f * v * v) * T) / sq;
    float d2 = d1 - sq;
    float disc = K * exp(-r * T);
    call[i] = s * cnd(d1) - disc * cnd(d2);
    put[i] = disc * cnd(-d2) - s * cnd(-d1);
}
