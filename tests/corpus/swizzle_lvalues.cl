// Swizzles as lvalues: .lo/.hi/.even/.odd on int8 and int4, compound
// assignment through .odd, a swizzle of a swizzle (.hi.even) on the left,
// and a right-hand side reading the same vector.
// @kernel swl
// @range 1 / 1
// @arg buffer int zeros(12)
// @expect 0 [10, 21, 30, 41, 100, 7, 200, 9, 2, 2, 2, 2]
__kernel void swl(__global int *out)
{
    int8 w = (int8)(1, 2, 3, 4, 5, 6, 7, 8);
    w.lo = (int4)(10, 20, 30, 40);
    w.odd += 1;
    w.hi.even = (int2)(100, 200);
    int4 x = (int4)(1, 2, 3, 4);
    x.even = x.odd;
    x.hi = x.lo.yx;
    vstore8(w, 0, out);
    vstore4(x, 2, out);
}
