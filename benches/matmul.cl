// C = A * B for square n x n matrices, 16 x 16 tiles staged in __local memory.
#define TILE 16
kernel void matmul(global const float* a, global const float* b, global float* c, int n) {
    local float ta[TILE][TILE];
    local float tb[TILE][TILE];
    int col = get_global_id(0);
    int row = get_global_id(1);
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[ly][lx] = a[row * n + t + lx];
        tb[ly][lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) {
            acc += ta[ly][k] * tb[k][lx];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
