// Integer hashing (xor-shift-multiply finaliser) with 32-bit wrap-around.
// @kernel hash
// @range 8 / 4
// @arg buffer uint zeros(8)
// @expect 0 [0, 824515495, 1722258072, 3753300549, 3444516145, 592649042, 3284760808, 148231923]
uint mix32(uint x)
{
    x = ((x >> 16) ^ x) * 0x45d9f3bu;
    x = ((x >> 16) ^ x) * 0x45d9f3bu;
    return (x >> 16) ^ x;
}

__kernel void hash(__global uint *out)
{
    uint i = get_global_id(0);
    out[i] = mix32(i);
}
