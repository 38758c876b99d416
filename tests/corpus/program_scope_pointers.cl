// OpenCL C 2.0 program-scope pointers initialised with addresses: into a
// __global array (&data[2], data), into __constant data (table + 1), and
// null. Each holds its address from the start.
// @kernel ptrs
// @options -cl-std=CL2.0
// @range 8 / 4
// @arg buffer int zeros(8)
// @expect 0 [1012003, 1023004, 1034003, 1042004, 1013003, 1024004, 1032003, 1043004]
__constant int table[4] = {10, 20, 30, 40};
__global int data[4] = {1, 2, 3, 4};
__global int *gp = &data[2];
__constant int *cp = table + 1;
__global int *gp0 = data;
__global int *nullp = 0;

__kernel void ptrs(__global int *out)
{
    int i = get_global_id(0);
    out[i] = gp[i % 2] + cp[i % 3] * 100 + gp0[i % 4] * 10000 + (nullp == 0) * 1000000;
}
