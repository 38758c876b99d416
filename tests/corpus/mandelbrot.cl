// Escape-time iteration counts: a data-dependent while loop with && in the
// condition, float2 arithmetic and a conversion of the pixel coordinates.
// @kernel mandel
// @range 8,2 / 4,2
// @arg buffer int zeros(16)
// @arg value int 50
__kernel void mandel(__global int *out, int max_iter)
{
    int x = get_global_id(0), y = get_global_id(1);
    float2 c = (float2)(-2.0f + 0.375f * x, -0.5f + 0.5f * y);
    float2 z = (float2)(0.0f);
    int it = 0;
    while (it < max_iter && dot(z, z) <= 4.0f) {
        z = (float2)(z.x * z.x - z.y * z.y, 2.0f * z.x * z.y) + c;
        it++;
    }
    out[y * get_global_size(0) + x] = it;
}
// @expect 0 [1, 3, 4, 5, 50, 50, 50, 3, 50, 50, 50, 50, 50, 50, 50, 4]
