// OpenCL C 2.0: a function-scope static variable lives once for the
// program in __global memory (explicitly, or when unqualified and not
// const), initialised by a constant expression; every work-item sees the
// same object, so atomic increments hand out distinct values (each slot
// below is marked once whatever the launch's count starts from, if it is
// a multiple of 32). A static const local stays __constant.
// @kernel count
// @options -cl-std=CL2.0
// @range 32 / 8
// @arg buffer int zeros(65)
// @expect 0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 7]
int bump(void)
{
    static int calls = 96;           // unqualified, not const: __global
    return atomic_inc(&calls);
}

__kernel void count(__global int *o)
{
    static global int seen = 0;
    static const int offsets[2] = {7, 0};
    int a = atomic_inc(&seen);
    int b = bump();
    o[a & 31] = 1;
    o[32 + (b & 31)] = 1;
    if (get_global_id(0) == 0)
        o[64] = offsets[0];
}
