// Softmax over 8 values by one work-group of 8: max and sum reduced in
// __local memory by item 0, each item normalises its own value.
// @kernel smx
// @range 8 / 8
// @arg buffer float [1, 2, 3, 0.5, -1, 0, 2.5, 1.5]
// @arg buffer float zeros(8)
// @arg local 32
// @expect 1 ~1e-5 [0.054503357185306564, 0.14815548542683157, 0.4027283638222851, 0.03305795719015729, 0.007376227282019732, 0.020050664583298093, 0.24426710019412004, 0.08986084431598158]
__kernel void smx(__global const float *x, __global float *y, __local float *t)
{
    __local float mx, sum;
    int l = get_local_id(0), n = get_local_size(0);
    t[l] = x[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        mx = t[0];
        for (int i = 1; i < n; i++) mx = fmax(mx, t[i]);
        sum = 0.0f;
        for (int i = 0; i < n; i++) sum += exp(t[i] - mx);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    y[l] = exp(t[l] - mx) / sum;
}
