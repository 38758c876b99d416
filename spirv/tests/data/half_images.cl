// The twin of half_images.spvasm: read_imageh and write_imageh
// (cl_khr_fp16) with and without a sampler.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void hk(read_only image2d_t src, sampler_t s, write_only image2d_t dst,
               global half4 *out) {
    int x = get_global_id(0), y = get_global_id(1);
    int i = y * get_global_size(0) + x;
    half4 a = read_imageh(src, (int2)(x, y));
    half4 b = read_imageh(src, s, (float2)(x + 0.5f, y + 0.25f));
    out[2 * i] = a;
    out[2 * i + 1] = b;
    write_imageh(dst, (int2)(x, y), a + b);
}
