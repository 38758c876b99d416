// Builtin overloads are chosen before integer promotion: select of char,
// uchar and short scalars keeps their type (the result is the argument
// type, not int), and a vector condition with two scalar operands of one
// small type gives a vector of that type.
// @kernel so
// @range 1 / 1
// @arg buffer int zeros(12)
// @expect 0 [-7, 200, -300, 5, 1, -1, -3, 9, 9, -3, 1, 2]
__kernel void so(__global int *o)
{
    char a = -3, b = -7, c = 1;
    uchar ua = 100, ub = 200;
    short x = -300, y = 5;
    o[0] = select(a, b, c);               // c != 0: b
    o[1] = select(ua, ub, (uchar)1);
    o[2] = select(y, x, (short)-1);
    o[3] = select(x, y, (short)2);
    // The result has the operands' type: char arithmetic wraps in char.
    o[4] = sizeof(select(a, b, c));
    char2 m = (char2)(0, -1);
    char2 v = m ? a : b;                  // m's MSB picks a, else b
    o[5] = sizeof(v) == 2 ? -1 : 0;
    o[6] = v.y;
    o[7] = (m ? (char)9 : (char)-3).y + 0 == 9 ? 9 : 0;
    o[8] = (m ? (char)9 : (char)-3).y;
    o[9] = (m ? (char)9 : (char)-3).x;
    o[10] = vec_step(m ? a : b) == 2 ? 1 : 0;
    o[11] = sizeof(m ? a : b);
}
