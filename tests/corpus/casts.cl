// Explicit casts: float to int truncates toward zero, int to char keeps
// the low byte, unsigned to signed reinterprets, double to float rounds,
// bool of a float, a scalar cast widened to a vector, pointer casts
// between element types of the same buffer.
// @kernel cs
// @range 1 / 1
// @arg buffer float [-2.7, 2.7, 1e-3, 0.0]
// @arg buffer int zeros(12)
// @expect 1 [-2, 2, 0, 44, -1, 1, 0, 1, 3, 3, 3, 0]
__kernel void cs(__global const float *f, __global int *o)
{
    o[0] = (int)f[0];
    o[1] = (int)f[1];
    o[2] = (int)f[2];
    o[3] = (char)300;
    o[4] = (int)0xffffffffu;
    o[5] = (bool)f[2];
    o[6] = (bool)f[3];
    o[7] = (int)(bool)2;
    int4 v = (int4)3;
    o[8] = v.x; o[9] = v.w; o[10] = ((int4)(3)).y;
    __global uchar *bytes = (__global uchar *)f;
    float one = 1.0f;
    o[11] = ((uchar *)&one)[0];
}
