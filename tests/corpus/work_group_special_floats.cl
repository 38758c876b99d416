// Work-group reductions and scans of floats and doubles over special
// values (NaN, infinities, signed zeros, denormals) in groups of 300 (not
// a multiple of the combine's blocks of eight) with a partial last group:
// the JIT's combine and the interpreter must follow one order.
// @kernel special
// @range 700 / 300
// @options -cl-std=CL2.0
// @arg buffer float zeros(7000)
// @arg buffer double zeros(7000)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

float pick(uint i) {
    switch (i % 13) {
    case 3: return NAN;
    case 5: return -0.0f;
    case 7: return (i & 64) ? INFINITY : -INFINITY;
    case 9: return 1e-40f * (float)(i % 5);
    case 11: return 0.0f;
    default: return (float)((int)(i * 2654435761u >> 20) - 2048) * 0.013f;
    }
}

__kernel void special(__global float *of, __global double *od)
{
    size_t i = get_global_id(0);
    // Only some groups see NaNs and infinities.
    float f = pick(i);
    if (get_group_id(0) == 1 && !isfinite(f))
        f = 1.5f;
    double d = (double)f * 1.0000001;
    __global float *pf = of + 10 * i;
    pf[0] = work_group_reduce_add(f);
    pf[1] = work_group_reduce_min(f);
    pf[2] = work_group_reduce_max(f);
    pf[3] = work_group_scan_inclusive_add(f);
    pf[4] = work_group_scan_inclusive_min(f);
    pf[5] = work_group_scan_inclusive_max(f);
    pf[6] = work_group_scan_exclusive_add(f);
    pf[7] = work_group_scan_exclusive_min(f);
    pf[8] = work_group_scan_exclusive_max(f);
    pf[9] = work_group_broadcast(f, get_group_id(0) % 7);
    __global double *pd = od + 10 * i;
    pd[0] = work_group_reduce_add(d);
    pd[1] = work_group_reduce_min(d);
    pd[2] = work_group_reduce_max(d);
    pd[3] = work_group_scan_inclusive_add(d);
    pd[4] = work_group_scan_inclusive_min(d);
    pd[5] = work_group_scan_inclusive_max(d);
    pd[6] = work_group_scan_exclusive_add(d);
    pd[7] = work_group_scan_exclusive_min(d);
    pd[8] = work_group_scan_exclusive_max(d);
    pd[9] = work_group_broadcast(d, 0);
}
