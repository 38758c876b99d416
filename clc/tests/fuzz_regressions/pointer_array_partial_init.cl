// Found by mutating pointer_to_pointer.cl: an array of pointers with fewer
// initialisers than elements; the missing pointer must be zero-filled with
// IR the verifier accepts.
__kernel void pp2(__global int *a, __global int *b, __global int *out)
{
    int i = get_global_id(0);
    __global int *bufs[2] = {a, };
    out[i] = bufs[0][i];
}
