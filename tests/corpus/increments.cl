// Pre- and post-increment/decrement: values of the expressions, on
// pointers (stepping by the element size), on array elements, on a char
// wrapping around, and on a vector component.
// @kernel inc
// @range 1 / 1
// @arg buffer int zeros(10)
// @expect 0 [5, 7, 7, 5, 3, 20, -128, 2, 11, 5]
__kernel void inc(__global int *o)
{
    int a = 5;
    o[0] = a++;
    o[1] = ++a;
    o[2] = a--;
    o[3] = --a - 1 + 1 - 0 * a;
    int arr[3] = {10, 20, 30};
    int *p = arr;
    p++;
    o[4] = (int)(++p - arr) + 1;
    o[5] = *--p;
    char c = 127;
    c++;
    o[6] = c;
    int4 v = (int4)(1, 2, 3, 4);
    v.x++;
    ++v.y;
    o[7] = v.x;
    o[8] = v.y + 8;
    o[9] = arr[0]++ - 5;
}
