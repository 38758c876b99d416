// The vector ?: (chooses per component by the condition's most
// significant bit), select() with signed and unsigned masks on int4 and
// float4, and scalar select (any non-zero condition).
// @kernel sel
// @range 1 / 1
// @arg buffer int [1, -2, 3, -4]
// @arg buffer int zeros(8)
// @arg buffer float zeros(4)
// @arg buffer int zeros(2)
// @expect 1 [10, -1, 30, -1, 10, -1, 30, -1]
// @expect 2 [-1, 2.5, 3.5, -4]
// @expect 3 [7, 5]
__kernel void sel(__global const int4 *a, __global int4 *out, __global float4 *fo, __global int *so)
{
    int4 x = a[0];
    int4 b = (int4)(10, 20, 30, 40);
    int4 c = -1;
    out[0] = x > 0 ? b : c;
    out[1] = select(b, c, x < 0);
    uint4 m = (uint4)(0x80000000u, 0u, 0x7fffffffu, 0xffffffffu);
    fo[0] = select((float4)(1.5f, 2.5f, 3.5f, 4.5f), (float4)(-1.0f, -2.0f, -3.0f, -4.0f), m);
    so[0] = select(5, 7, 2);
    so[1] = select(5, 7, 0);
}
