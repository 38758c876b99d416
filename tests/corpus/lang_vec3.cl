// int3: three components, swizzles, and vload3/vstore3 packing (12 bytes).
// @kernel vec3
// @range 2 / 1
// @arg buffer int iota(6, 1)
// @arg buffer int zeros(6)
// @expect 1 [3, 2, 11, 6, 5, 14]
__kernel void vec3(__global const int *in, __global int *out)
{
    size_t i = get_global_id(0);
    int3 v = vload3(i, in);
    int3 r = v.zyx;
    r.z = v.x + 10;
    vstore3(r, i, out);
}
