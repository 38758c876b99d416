// Iteration counts of the Mandelbrot set over [-2, 1] x [-1.5, 1.5].
kernel void mandelbrot(global int* out, int width, int height, int max_iter) {
    int x = get_global_id(0);
    int y = get_global_id(1);
    float cr = -2.0f + 3.0f * x / width;
    float ci = -1.5f + 3.0f * y / height;
    float zr = 0.0f;
    float zi = 0.0f;
    int i = 0;
    while (i < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        i++;
    }
    out[y * width + x] = i;
}
