// A struct holding a char and a float4: the float4 is 16-byte aligned, so
// the struct is 32 bytes; the kernel reads the struct array from a float
// buffer laid out with that padding and reports offsets.
// @kernel svm
// @range 2 / 2
// @arg buffer float [7, 0, 0, 0, 1, 2, 3, 4, 9, 0, 0, 0, 5, 6, 7, 8]
// @arg buffer float zeros(2)
// @arg buffer int zeros(2)
// @expect 1 [17, 35]
// @expect 2 [32, 16]
typedef struct { float tag; float4 v; } item;
__kernel void svm(__global const item *items, __global float *out, __global int *info)
{
    int i = get_global_id(0);
    item it = items[i];
    out[i] = it.tag + it.v.x + it.v.y + it.v.z + it.v.w;
    if (i == 0) {
        info[0] = sizeof(item);
        info[1] = (int)((__global const char *)&items[0].v - (__global const char *)&items[0]);
    }
}
