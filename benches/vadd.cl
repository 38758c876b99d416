// Vector addition: c = a + b.
kernel void vadd(global const float* a, global const float* b, global float* c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
