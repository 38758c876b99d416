// shuffle and shuffle2: reversing, broadcasting, picking from two
// vectors with mask bits beyond the width ignored.
// @kernel shf
// @range 1 / 1
// @arg buffer int zeros(16)
// @expect 0 [4, 3, 2, 1, 2, 2, 2, 2, 1, 5, 2, 6, 8, 7, 4, 3]
__kernel void shf(__global int *o)
{
    int4 a = (int4)(1, 2, 3, 4), b = (int4)(5, 6, 7, 8);
    vstore4(shuffle(a, (uint4)(3, 2, 1, 0)), 0, o);
    vstore4(shuffle(a, (uint4)(1, 5, 9, 13)), 1, o);
    vstore4(shuffle2(a, b, (uint4)(0, 4, 1, 5)), 2, o);
    vstore4(shuffle2(a, b, (uint4)(7, 6, 3, 2)), 3, o);
}
