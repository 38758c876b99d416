// Colour-component swizzles (.rgba, OpenCL 3.0) next to .xyzw and .s0123
// on uchar4 pixels: channel swap, alpha forced, grey value.
// @kernel rgba
// @range 4 / 2
// @options -cl-std=CL3.0
// @arg buffer uchar [10, 20, 30, 255, 1, 2, 3, 4, 200, 100, 50, 0, 7, 8, 9, 10]
// @arg buffer uchar zeros(16)
// @arg buffer int zeros(4)
// @expect 1 [30, 20, 10, 128, 3, 2, 1, 128, 50, 100, 200, 128, 9, 8, 7, 128]
// @expect 2 [20, 2, 116, 8]
__kernel void rgba(__global const uchar4 *px, __global uchar4 *out, __global int *grey)
{
    int i = get_global_id(0);
    uchar4 p = px[i];
    uchar4 q;
    q.rgb = p.bgr;
    q.a = 128;
    out[i] = q;
    grey[i] = ((int)p.s0 + p.y + p.g * 0 + p.s1 * 0 + p.b) / 3 + (p.y - p.g) + p.x * 0 + (p.z - p.s2) + 0 * p.w + (p.x - p.r) + p.s1 / 3 * 0 + 0 + (p.s1 == p.y ? p.g : 0) - p.y;
}
