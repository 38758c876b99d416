// FNV-1a hash of each item's index bytes: uint multiply wrap-around
// and byte extraction by shifts.
// @kernel fnv
// @range 16 / 4
// @arg buffer uint zeros(16)
// @expect 0 [1268118805, 4218009092, 3958272823, 2613195814, 182778065, 3132668352, 2872932083, 1527855074, 3438800285, 2093723276, 1833987007, 488909998, 2353459545, 1008382536, 748646267, 3698536554]
__kernel void fnv(__global uint *out)
{
    uint x = get_global_id(0);
    uint h = 2166136261u;
    for (int k = 0; k < 4; k++) {
        h ^= (x >> (8 * k)) & 0xffu;
        h *= 16777619u;
    }
    out[get_global_id(0)] = h;
}
