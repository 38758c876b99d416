// Bitwise operators on uint4 and ulong2 vectors: ~, &, |, ^, shifts by a
// vector of counts (modulo 32 and 64), and a popcount per lane.
// @kernel bw
// @range 1 / 1
// @arg buffer uint zeros(16)
// @expect 0 [4294967280, 3, 255, 240, 2, 2147483648, 134217728, 2, 4, 0, 0, 1, 32, 8, 16, 0]
__kernel void bw(__global uint *o)
{
    uint4 a = (uint4)(0xfu, 0xfu, 0xf0u, 0xffu);
    uint4 r;
    r.x = (~a).x;
    r.y = (a & (uint4)(3u)).y;
    r.z = (a | (uint4)(0x0fu)).z;
    r.w = (a ^ (uint4)(0x0fu)).w;
    vstore4(r, 0, o);
    uint4 s = (uint4)(1u) << (uint4)(33u, 31u, 0u, 1u);
    o[4] = s.x; o[5] = s.y;
    o[6] = 0x80000000u >> 4;
    o[7] = s.w;
    ulong2 l = (ulong2)(1ul, 2ul) << (ulong2)(66ul, 64ul);
    o[8] = (uint)l.x; o[9] = (uint)(l.x >> 32); o[10] = (uint)(l.y >> 32); o[11] = l.y == 2ul;
    uint4 pc = popcount((uint4)(0xffffffffu, 0xffu, 0xffffu, 0u));
    vstore4(pc, 3, o);
}
