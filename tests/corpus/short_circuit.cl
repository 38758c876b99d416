// && and || must not evaluate their right operand when the left decides:
// the guarded loads would be out of bounds. Also ?: with loads in the arms.
// @kernel guarded
// @range 8 / 4
// @arg buffer int iota(4, 1)
// @arg value int 4
// @arg buffer int zeros(8)
// @expect 2 [1, 1, 1, 1, 0, 0, 0, 0]
__kernel void guarded(__global const int *a, int n, __global int *out)
{
    int i = get_global_id(0);
    int ok = i < n && a[i] > 0;
    int alt = i >= n || a[i] == i + 1;
    int v = i < n ? a[i] : -a[0] * 0;
    out[i] = ok && alt && v == i + 1;
}
