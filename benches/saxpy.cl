// y = alpha * x + y.
kernel void saxpy(float alpha, global const float* x, global float* y) {
    size_t i = get_global_id(0);
    y[i] = alpha * x[i] + y[i];
}
