// Enums (with explicit and implicit values), unions for type punning,
// typedefs of vectors and arrays, sizeof/vec_step.
// @kernel misc
// @range 1 / 1
// @arg buffer int zeros(8)
// @expect 0 [0, 5, 6, 1065353216, 16, 4, 4, 16]
typedef enum { RED, GREEN = 5, BLUE } Colour;
typedef union { float f; uint u; } Pun;
typedef float4 vec;
typedef int row[4];

__kernel void misc(__global int *out)
{
    Colour c = RED;
    out[0] = c;
    out[1] = GREEN;
    out[2] = BLUE;
    Pun p;
    p.f = 1.0f;
    out[3] = p.u;
    out[4] = sizeof(vec);
    out[5] = vec_step(vec);
    out[6] = vec_step(float3);
    row r = { 1, 2, 3, 4 };
    out[7] = sizeof(r);
}
