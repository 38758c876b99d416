// Barriers in loops whose control each work-item loads or computes from
// memory: a `for` bounded by `max(cnt[gid], rounds)` (every `cnt` is below
// `rounds`, so the whole group runs `rounds` iterations), a barrier in an
// `if` nested in it on that bound, and a `while` whose exit reads the
// work-item's own `__local` slot. None is proven uniform at compile time;
// all are at run time.
// @kernel counts
// @range 16 / 8
// @arg buffer int fill(16, 3)
// @arg buffer int zeros(16)
// @arg value int 7
__kernel void counts(__global const int *cnt, __global int *out, int rounds)
{
    __local int tmp[8];
    __local int flag[8];
    int gid = get_global_id(0) - get_global_offset(0);
    int lid = get_local_id(0);
    int n = max(cnt[gid], rounds);
    int acc = 0;
    tmp[lid] = lid;
    flag[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < n; ++i) {
        int x = tmp[(lid + 1) % 8];
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] = x + i;
        if (n - i > 2) {
            barrier(CLK_LOCAL_MEM_FENCE);
            acc += tmp[7 - lid];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    while (flag[lid] < rounds) {
        barrier(CLK_LOCAL_MEM_FENCE);
        int f = flag[(lid + 3) % 8];
        barrier(CLK_LOCAL_MEM_FENCE);
        flag[(lid + 3) % 8] = f + 1;
        acc += f * lid;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gid] = acc;
}
