// OpenCL C 2.0 generic pointers: to_global, to_local and to_private give
// the pointer back when it points into that space and null otherwise;
// get_fence gives CLK_LOCAL_MEM_FENCE for __local memory, else
// CLK_GLOBAL_MEM_FENCE. The pointers differ between work-items (each its
// own element, its own private variable), so every lane decides alone.
// @kernel gc
// @options -cl-std=CL2.0
// @range 16 / 8
// @arg buffer int zeros(32)
// @arg local 32
// @expect 0 [11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 11118, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101, 2101]
int read_any(int *p) { return *p; }

int where(int *p)
{
    return (to_global(p) != 0) * 1 + (to_local(p) != 0) * 10 + (to_private(p) != 0) * 100;
}

__kernel void gc(__global int *o, __local int *l)
{
    size_t g = get_global_id(0);
    size_t i = get_local_id(0);
    int priv = 3 + (int)g - (int)g;
    l[i] = 5;
    barrier(CLK_LOCAL_MEM_FENCE);
    int *gp = (int *)(o + g);
    int *lp = (int *)(l + i);
    int s = read_any(&priv) + read_any(lp);
    __global int *back = to_global(gp);
    __local int *none = to_local(gp);
    __private int *pp = to_private(&priv);
    int r = s + (back == o + g) * 10 + (none == 0) * 100 + (pp == &priv) * 1000
          + (get_fence(gp) == CLK_GLOBAL_MEM_FENCE) * 10000;
    int w = where(gp) * 1 + where(lp) * 10 + where(&priv) * 10;
    int f = get_fence(lp) == CLK_LOCAL_MEM_FENCE ? 1000 : 0;
    barrier(CLK_GLOBAL_MEM_FENCE);
    o[g] = r;
    o[16 + g] = w + f;
}
