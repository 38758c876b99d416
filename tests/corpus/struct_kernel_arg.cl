// A struct passed to a kernel by value (its bytes given as an int4:
// fields a, b, c, d) and a float4 argument by value.
// @kernel ska
// @range 4 / 2
// @arg value int4 [3, 4, 5, 6]
// @arg value float4 [0.5, 1.5, 2.5, 3.5]
// @arg buffer float zeros(4)
// @expect 2 [34.5, 38.5, 42.5, 46.5]
typedef struct { int a, b; short c, pad; int d; } params;
__kernel void ska(params p, float4 f, __global float *out)
{
    int i = get_global_id(0);
    float fv[4] = {f.x, f.y, f.z, f.w};
    out[i] = p.a * i + p.b + fv[i] + p.c * p.d;
}
