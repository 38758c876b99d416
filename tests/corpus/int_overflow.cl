// Integer wrap-around: signed overflow in int (two's complement in OpenCL
// CPU practice), unsigned modular arithmetic, char/short arithmetic that
// wraps when stored back, and mul_hi-free 32-bit products.
// @kernel ovf
// @range 1 / 1
// @arg buffer int zeros(8)
// @arg value int 1
// @expect 0 [-2147483648, 2147483647, -1, 44, -128, -32768, 1, -2147479015]
__kernel void ovf(__global int *out, int one)
{
    int big = 2147483647;
    out[0] = big + one;
    out[1] = (-big - one) - one;
    uint u = 65535u * one;
    out[2] = (int)(u * 65537u);
    uchar uc = 200;
    uc = uc + 100 * one;
    out[3] = uc;
    char sc = 127;
    sc += one;
    out[4] = sc;
    short s = -32768;
    s = s * -one;
    out[5] = s;
    uint m = 0xffffffffu * one;
    out[6] = (int)(m * m);
    int q = 46341 * one;
    out[7] = q * q;
}
