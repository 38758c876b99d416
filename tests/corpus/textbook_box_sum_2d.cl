// 3x3 box sum over a 5x5 image with zero padding outside the image, a
// 2-D range 5x5 with 5x1 work-groups.
// @kernel bs
// @range 5,5 / 5,1
// @arg buffer int [0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3]
// @arg buffer int zeros(25)
// @expect 1 [12, 14, 13, 12, 10, 19, 26, 28, 23, 16, 21, 29, 31, 26, 18, 16, 25, 27, 29, 20, 9, 13, 12, 18, 14]
__kernel void bs(__global const int *img, __global int *out)
{
    int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0), h = get_global_size(1);
    int s = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
            s += img[yy * w + xx];
        }
    out[y * w + x] = s;
}
