// sincos through a private variable (split into sin, cos and a store that
// scalar replacement makes a register), in a loop of barrier stages that
// swap two __local float2 arrays and scatter into them at (t - k) * 2 + k
// as an FFT's stage does; also sincos of a float4 into a private float4,
// into an element of a private array chosen at run time (which stays in
// memory), under a divergent branch, and through a global pointer.
// @kernel stages
// @range 64 / 16
// @arg buffer float iota(256, 0.25, 0.125)
// @arg buffer float zeros(256)
// @arg buffer float zeros(640)
// @arg buffer float zeros(512)
// @arg buffer float zeros(320)
// @arg local 256
// @arg local 256
__kernel void stages(__global const float2 *in, __global float2 *out,
                     __global float *tw, __global float4 *q, __global float *ar,
                     __local float2 *a, __local float2 *b)
{
    int t = get_local_id(0), h = get_local_size(0), n = 2 * h;
    int g = get_global_id(0);
    __global const float2 *src = in + get_group_id(0) * n;
    a[t] = src[t];
    a[t + h] = src[t + h];
    barrier(CLK_LOCAL_MEM_FENCE);
    int stage = 0;
    for (int span = 1; span < n; span *= 2) {
        int k = t % span;
        float ang = -3.14159265f * (float)k / (float)span;
        float c, s = sincos(ang, &c);
        tw[10 * g + 2 * stage] = s;
        tw[10 * g + 2 * stage + 1] = c;
        float2 u = a[t], v = a[t + h];
        int j = (t - k) * 2 + k;
        b[j] = u + v + (float2)(k, span);
        b[j + span] = u - v;
        stage++;
        barrier(CLK_LOCAL_MEM_FENCE);
        __local float2 *tmp = a; a = b; b = tmp;
    }
    __global float2 *dst = out + get_group_id(0) * n;
    dst[t] = a[t];
    dst[t + h] = a[t + h];
    float4 x = (float4)(src[t], (float)t, -0.5f * (float)g);
    float4 c4, s4 = sincos(x, &c4);
    float arr[3];
    arr[0] = arr[1] = arr[2] = 0.0f;
    if (g % 3 != 2)
        arr[g % 3] = sincos(x.x, &arr[(g + 1) % 3]);
    ar[5 * g] = arr[0];
    ar[5 * g + 1] = arr[1];
    ar[5 * g + 2] = arr[2];
    ar[5 * g + 4] = sincos(x.w, &ar[5 * g + 3]);
    q[2 * g] = s4;
    q[2 * g + 1] = c4;
}
