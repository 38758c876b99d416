// Literal forms: hex, octal, binary-free C99 integers with u/l/ul suffixes,
// character literals with escapes, hex floats, float exponents, and the
// type of an unsuffixed literal too big for int (long).
// @kernel lit
// @range 1 / 1
// @arg buffer long zeros(12)
// @arg buffer float zeros(4)
// @expect 0 [255, 8, 10, 92, 39, 65, 4294967295, 3000000000, 8, 16, 0, 1]
// @expect 1 [1, 0.375, 1500, 0.015625]
__kernel void lit(__global long *o, __global float *f)
{
    o[0] = 0xff;
    o[1] = 010;
    o[2] = '\n';
    o[3] = '\\';
    o[4] = '\'';
    o[5] = 'A';
    o[6] = 0xffffffffu;
    o[7] = 3000000000;
    o[8] = sizeof(3000000000);
    o[9] = sizeof(1UL) * 2;
    o[10] = '\0';
    o[11] = sizeof(1u) == 4;
    f[0] = 0x1p0f;
    f[1] = 0x1.8p-2f;
    f[2] = 1.5e3f;
    f[3] = 1.0f / 64;
}
