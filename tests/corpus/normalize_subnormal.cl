// normalize keeps a subnormal result component when the vector's largest
// component is huge: the small component must not be scaled into zero
// before the division (CTS geom_normalize). Bits of the float results;
// 12971 × 2^-149 is 1.1875·2^-65 / (1.5·2^70) rounded to nearest.
// @kernel ns
// @range 2 / 2
// @arg buffer float fill(2, 1)
// @arg buffer uint zeros(8)
// @expect 1 repeat(8, [1065353216, 12971, 0, 3212836864])
__kernel void ns(__global const float *s, __global uint *o)
{
    size_t i = get_global_id(0);
    float k = s[i];
    float2 n = normalize((float2)(0x1.8p70f, 0x1.3p-65f) * k);
    float2 m = normalize((float2)(0x1.3p-65f, -0x1.8p70f) * k);
    __global uint *r = o + 4 * i;
    r[0] = as_uint(n.x);
    r[1] = as_uint(n.y);
    r[2] = as_uint(m.x) == 12971 ? 0 : 1;
    r[3] = as_uint(m.y);
}
