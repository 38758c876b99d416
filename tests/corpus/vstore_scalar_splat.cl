// vstoreN of a scalar: the scalar converts to the element type and is
// splatted, as the conformance suite's swizzle test does with
// `vstore3(value.x, 0, p)`; 3-component swizzles are 3-vectors.
// @kernel vstore_scalar_splat
// @range 1 / 1
// @arg value int4 [3, 4, 5, 6]
// @arg buffer int zeros(17)
// @expect 1 [3, 3, 3, 5, 4, 3, 3, 4, 5, 6, 6, -2, -2, -2, -2, 4, 4]
__kernel void vstore_scalar_splat(int4 value, __global int *dst)
{
    vstore3(value.x, 0, dst);
    vstore3(value.zyx, 1, dst);
    vstore3(value.s012, 2, dst);
    vstore2(value.w, 0, dst + 9);
    vstore4((short)-2, 0, dst + 11);
    vstore2(value.s1, 0, dst + 15);
}
