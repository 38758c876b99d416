// The OpenCL C twin of images.spvasm, which is this file compiled by
// `clang-15 -cl-std=CL2.0 -target spir64 -O2` and `llvm-spirv-15`
// (`spirv-dis`): image reads, writes, sampled reads with a constant and an
// argument sampler, size, format and order queries, a 1-D image array.
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void img(read_only image2d_t src, write_only image2d_t dst, __global float4 *outf, __global int *q, sampler_t s2)
{
    int x = get_global_id(0), y = get_global_id(1);
    int i = y * get_global_size(0) + x;
    int2 c = (int2)(x, y);
    float4 v = read_imagef(src, c);
    write_imagef(dst, c, v * 2.0f);
    outf[2 * i] = read_imagef(src, smp, (float2)(x + 0.5f, y - 0.5f));
    outf[2 * i + 1] = read_imagef(src, s2, (int2)(x - 1, y + 1));
    q[6 * i] = get_image_width(src);
    q[6 * i + 1] = get_image_height(dst);
    q[6 * i + 2] = get_image_channel_data_type(src);
    q[6 * i + 3] = get_image_channel_order(src);
    int2 d = get_image_dim(src);
    q[6 * i + 4] = d.x * 100 + d.y;
}
__kernel void img_int(read_only image2d_t src, write_only image2d_t dst, read_only image1d_array_t arr, __global uint *o)
{
    int x = get_global_id(0), y = get_global_id(1);
    int4 v = read_imagei(src, (int2)(x, y));
    write_imagei(dst, (int2)(x, y), v - 100);
    uint4 w = read_imageui(arr, (int2)(x, y));
    o[y * get_global_size(0) + x] = w.x + get_image_array_size(arr) * 1000;
}
