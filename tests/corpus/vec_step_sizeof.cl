// vec_step and sizeof on every vector width (a 3-vector has vec_step 4,
// as the specification says, and the size of 4 elements), on scalars,
// structs with padding, arrays.
// @kernel vs
// @range 1 / 1
// @arg buffer int zeros(16)
// @expect 0 [2, 4, 4, 8, 16, 1, 8, 16, 16, 32, 64, 4, 12, 16, 40, 8]
typedef struct { char c; int i; char d; } padded;
typedef struct { char c; double d; } dpad;
__kernel void vs(__global int *o)
{
    float3 f3;
    o[0] = vec_step(int2); o[1] = vec_step(f3); o[2] = vec_step(float4);
    o[3] = vec_step(char8); o[4] = vec_step(short16); o[5] = vec_step(float);
    o[6] = sizeof(int2); o[7] = sizeof(float3); o[8] = sizeof(int4);
    o[9] = sizeof(short16); o[10] = sizeof(long8);
    o[11] = sizeof(float);
    o[12] = sizeof(padded);
    o[13] = sizeof(dpad);
    int arr[10];
    o[14] = sizeof(arr);
    o[15] = sizeof(arr) / sizeof(arr[0]) - 2;
}
