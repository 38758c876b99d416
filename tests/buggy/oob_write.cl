// 256 work-items write a buffer of 16 floats (issue 30's unsound launch).
// @kernel oob_write
// @range 256 / 64
kernel void oob_write(global float *out) {
    int i = get_global_id(0);
    out[i] = (float)i;
}
