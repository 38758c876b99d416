// Stores of float2, int2 and float4 elements through indices that are not
// consecutive (one store of the whole element per lane): indices read from
// a buffer with repeats inside each work-group (the later work-item's
// element stays; work-items of different groups writing one element would
// race, and OpenCL leaves which one stays open), an odd element base,
// divergent lanes, a reversed float4 store, and two work-items per int2
// element.
// @kernel scatter
// @arg buffer float iota(80, 1, 0.5)
// @arg buffer int repeat(40, [3, 0, 0, 7, 5, 5, 1, 2])
// @arg buffer float zeros(82)
// @arg buffer float zeros(80)
// @arg buffer int zeros(80)
// @arg buffer float zeros(160)
// @arg value int 40
// @range 40 / 8
__kernel void scatter(__global const float2 *in, __global const int *perm,
                      __global float2 *a, __global float2 *b, __global int2 *c,
                      __global float4 *d, int n)
{
    int i = get_global_id(0);
    float2 v = in[i];
    int p = perm[i] + (i & ~7);
    a[1 + p] = v;
    if (p % 3 != 1)
        b[p] = v * 2.0f + (float2)(i, -i);
    c[i / 2] = (int2)(i, p - i);
    d[n - 1 - p] = (float4)(v, v.y - v.x, (float)i);
}
