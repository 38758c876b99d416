// European call and put prices (Black-Scholes), one option per work-item.
float cnd(float d) {
    const float a1 = 0.31938153f;
    const float a2 = -0.356563782f;
    const float a3 = 1.781477937f;
    const float a4 = -1.821255978f;
    const float a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float w = 1.0f - 0.39894228040143267794f * exp(-0.5f * d * d)
        * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d < 0.0f ? 1.0f - w : w;
}

kernel void blackscholes(global const float* spot, global const float* strike, global const float* years,
                         global float* call, global float* put, float rate, float vol) {
    size_t i = get_global_id(0);
    float s = spot[i];
    float x = strike[i];
    float t = years[i];
    float sq = sqrt(t);
    float d1 = (log(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sq);
    float d2 = d1 - vol * sq;
    float disc = exp(-rate * t);
    call[i] = s * cnd(d1) - x * disc * cnd(d2);
    put[i] = x * disc * (1.0f - cnd(d2)) - s * (1.0f - cnd(d1));
}
