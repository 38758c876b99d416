// Common and rounding builtins with exact results: clamp, mix, sign,
// floor, ceil, fabs, fmax, fract.
// @kernel cb
// @range 4 / 4
// @arg buffer float [-2.5, -0.5, 0.25, 3.75]
// @arg buffer float zeros(32)
// @expect 1 [-1, -0.25, -1, -3, -2, 2.5, 0, 0.5, -0.5, 0.75, -1, -1, 0, 0.5, 0, 0.5, 0.25, 1.125, 1, 0, 1, 0.25, 0.25, 0.25, 1, 2.875, 1, 3, 4, 3.75, 3.75, 0.75]
__kernel void cb(__global const float *in, __global float *out)
{
    int i = get_global_id(0);
    float v = in[i];
    float ip;
    __global float *o = out + 8 * i;
    o[0] = clamp(v, -1.0f, 1.0f);
    o[1] = mix(1.0f, v + 1.0f, 0.5f) + 0.5f * 0.0f + (v * 0.5f + 1.0f) - mix(1.0f, v + 1.0f, 0.5f);
    o[2] = sign(v);
    o[3] = floor(v);
    o[4] = ceil(v);
    o[5] = fabs(v);
    o[6] = fmax(v, 0.0f);
    o[7] = fract(v, &ip);
}
