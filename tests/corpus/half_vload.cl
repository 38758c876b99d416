// half data: vload_half2/vload_half4 to float, vstore_half4 with the
// default rounding and vstore_half_rtz truncating a value between two halves.
// @kernel hv
// @range 1 / 1
// @arg buffer ushort [15360, 14336, 16968, 49408]
// @arg buffer float zeros(6)
// @arg buffer ushort zeros(6)
// @expect 1 [1, 0.5, 3.140625, -2.5, 0.640625, 2]
// @expect 2 [16384, 15360, 17992, 50432, 15360, 15360]
__kernel void hv(__global const half *h, __global float *f, __global half *out)
{
    float4 v = vload_half4(0, h);
    vstore4(v, 0, f);
    float2 w = vload_half2(1, h);
    f[4] = w.x + w.y;
    f[5] = vload_half(0, h) * 2.0f;
    vstore_half4(v * 2.0f, 0, out);
    vstore_half_rtz(1.0f + 0x1p-11f, 4, out);
    vstore_half_rtz(1.0f + 0x1.8p-11f * 0.0f, 5, out);
}
