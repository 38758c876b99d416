// 5x5 convolution of a width x height image, clamping at the borders.
kernel void conv5x5(global const float* in, global float* out, constant float* weights, int width, int height) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    float acc = 0.0f;
    for (int dy = -2; dy <= 2; dy++) {
        int yy = clamp(y + dy, 0, height - 1);
        for (int dx = -2; dx <= 2; dx++) {
            int xx = clamp(x + dx, 0, width - 1);
            acc += weights[(dy + 2) * 5 + dx + 2] * in[yy * width + xx];
        }
    }
    out[y * width + x] = acc;
}
