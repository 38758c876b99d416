// SHA-256 and HMAC-SHA-256 per work-item (FIPS 180-4, RFC 2104): a long
// program of many small functions, as real kernels are. Work-item i hashes
// the first (37·i mod 121) bytes of its 128-byte record and authenticates
// them with the record's last 8 bytes as the key. Exercises: a __constant
// table, a struct with arrays passed by pointer to private functions,
// byte-wise big-endian packing, 32-bit rotations, loops with data-dependent
// trip counts (divergent), a switch with fall-through for the tail, and
// #define'd helpers. The expected digests come from Python's hashlib/hmac.
// @kernel sha256_batch
// @range 16 / 4
// @arg buffer uchar repeat(2048, [97, 3, 250, 17, 0, 128, 64, 255, 11, 200, 33, 7, 91, 180, 42, 5, 222, 69, 14, 160, 99, 1, 77, 240, 38, 126, 203, 58, 19])
// @arg buffer uint zeros(128)
// @arg buffer uint zeros(128)
// @expect 1 [3820012610, 2566659092, 2600203464, 2574235940, 665731556, 1687917388, 2761267483, 2018687061, 2966308319, 3161991136, 4133837345, 491810106, 3416736919, 599687318, 537931976, 258824042, 2523123846, 1905387944, 4123454797, 2699103783, 1407506491, 1234100894, 429001344, 4141312687, 122845058, 437810451, 117241350, 701163333, 3951152542, 208650625, 454247504, 277521864, 3567247334, 2121003648, 2376698718, 1926614198, 1451497375, 2203937197, 1143092673, 2599812225, 1634773545, 4149333291, 3389333527, 3063936225, 2247783623, 4091435647, 3482180282, 2432557695, 3323029053, 631801165, 1330946770, 1668803225, 3637981612, 303531234, 730130982, 772018116, 2014293941, 3090746354, 801968599, 2912921042, 2654715933, 3847982118, 1398590173, 2290265937, 1776117246, 2104457133, 2693385735, 117221080, 4286821212, 1046395492, 2338135644, 483898293, 360361113, 2575470738, 2604673021, 2106774547, 3460657722, 2402006859, 2617482625, 2627577042, 2690517981, 325801700, 2729940463, 1762466214, 1643481779, 570375548, 2364996557, 1011179075, 2661134722, 1103722016, 2226298871, 3967433630, 2061954220, 2774825707, 1946568760, 587410446, 1919231517, 515115952, 1886145458, 133468968, 1345213287, 3605432298, 1539175411, 2820363141, 2309732860, 963637881, 1441584339, 1316603710, 973656376, 2211725023, 1863099215, 1590798077, 3247299861, 1669596591, 1504684674, 2306968478, 1410078105, 4133518693, 3421826311, 2756830341, 3730084415, 1685090716, 1055894183, 4096680149, 1198355016, 3964227751, 3517109267, 1431500844]
// @expect 2 [2204480231, 1229807884, 1488192988, 389595898, 2506490958, 1587064072, 1904310976, 2012066737, 2967270839, 1281190818, 3268400403, 2387765515, 3051396703, 1624601076, 635096566, 2119459170, 2659878841, 3977223238, 3155101753, 2558040107, 2998716982, 1858425377, 2862960496, 77917588, 98361494, 500960732, 2419050091, 1770210042, 1186042623, 1369501455, 2181510474, 672842875, 827310875, 3783093663, 3511052718, 3432760966, 2997983995, 349056217, 3144394574, 2370602505, 1404207262, 3151982187, 227753412, 449279182, 3599785611, 4019263255, 3951188965, 715147913, 2033839419, 3484370927, 325100453, 2602947121, 835670114, 4132439117, 3773166282, 903644460, 3112773353, 603266052, 2082280804, 2215792615, 4058687095, 325727463, 3231315153, 4116163883, 3883916390, 3037840027, 1522107074, 654557656, 1844011778, 2637994990, 3521340489, 2043334947, 208701380, 3992073279, 2917129023, 4044408454, 2759077985, 174043255, 2895750744, 3664939916, 2912054057, 1681566211, 1829730293, 3434050953, 2344546582, 2684172062, 1564852934, 853026568, 3475303083, 3254849594, 922121031, 1024115117, 241964350, 3685268168, 1738035205, 1820465198, 454222910, 388068413, 531436621, 3148016947, 696472386, 3449094455, 3193827545, 2238866938, 2422744553, 2754233924, 644565000, 335022348, 3566372970, 3404911230, 4124370164, 605470025, 3504693336, 198288973, 4089761518, 1001906215, 3009793851, 2564854301, 237044094, 1044771594, 414919726, 2438846162, 4192491280, 2585703572, 1761665637, 3066383985, 712405537, 1104318371]

#define RECORD_BYTES 128u
#define KEY_BYTES 8u
#define BLOCK_BYTES 64u
#define HMAC_IPAD 0x36u
#define HMAC_OPAD 0x5cu

__constant uint K[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u
};

__constant uint H0[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
    0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u
};

// The running state of one hash: chaining value, the block being filled
// (as big-endian words), how many bytes of it are filled, and the total.
typedef struct {
    uint h[8];
    uint w[16];
    uint fill;
    ulong total;
} sha_ctx;

static uint rotr32(uint x, uint n)
{
    return (x >> n) | (x << (32u - n));
}

static uint ch(uint x, uint y, uint z) { return (x & y) ^ (~x & z); }
static uint maj(uint x, uint y, uint z) { return (x & y) ^ (x & z) ^ (y & z); }
static uint big_sigma0(uint x) { return rotr32(x, 2u) ^ rotr32(x, 13u) ^ rotr32(x, 22u); }
static uint big_sigma1(uint x) { return rotr32(x, 6u) ^ rotr32(x, 11u) ^ rotr32(x, 25u); }
static uint small_sigma0(uint x) { return rotr32(x, 7u) ^ rotr32(x, 18u) ^ (x >> 3); }
static uint small_sigma1(uint x) { return rotate(x, 15u) ^ rotate(x, 13u) ^ (x >> 10); }

static void sha_init(sha_ctx *c)
{
    for (int i = 0; i < 8; ++i)
        c->h[i] = H0[i];
    for (int i = 0; i < 16; ++i)
        c->w[i] = 0u;
    c->fill = 0u;
    c->total = 0ul;
}

// One compression of the filled block into the chaining value.
static void sha_block(sha_ctx *c)
{
    uint s[64];
    for (int t = 0; t < 16; ++t)
        s[t] = c->w[t];
    for (int t = 16; t < 64; ++t)
        s[t] = small_sigma1(s[t - 2]) + s[t - 7] + small_sigma0(s[t - 15]) + s[t - 16];

    uint a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
    uint e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
    for (int t = 0; t < 64; ++t) {
        uint t1 = h + big_sigma1(e) + ch(e, f, g) + K[t] + s[t];
        uint t2 = big_sigma0(a) + maj(a, b, cc);
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = cc;
        cc = b;
        b = a;
        a = t1 + t2;
    }
    c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d;
    c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
    for (int i = 0; i < 16; ++i)
        c->w[i] = 0u;
    c->fill = 0u;
}

// Appends one byte at the next big-endian position of the block.
static void sha_put(sha_ctx *c, uchar byte)
{
    uint word = c->fill >> 2;
    uint shift = 24u - 8u * (c->fill & 3u);
    c->w[word] |= (uint)byte << shift;
    c->fill += 1u;
    if (c->fill == BLOCK_BYTES)
        sha_block(c);
}

static void sha_update_global(sha_ctx *c, __global const uchar *p, uint n)
{
    for (uint i = 0; i < n; ++i)
        sha_put(c, p[i]);
    c->total += n;
}

static void sha_update_private(sha_ctx *c, const uchar *p, uint n)
{
    uint i = 0;
    // Four bytes at a time while they last, then the tail by fall-through.
    for (; i + 4u <= n; i += 4u) {
        sha_put(c, p[i]);
        sha_put(c, p[i + 1u]);
        sha_put(c, p[i + 2u]);
        sha_put(c, p[i + 3u]);
    }
    switch (n - i) {
    case 3: sha_put(c, p[i++]);
    case 2: sha_put(c, p[i++]);
    case 1: sha_put(c, p[i++]);
    default: break;
    }
    c->total += n;
}

// Padding: 0x80, zeros to 56 mod 64, the length in bits (big-endian).
static void sha_final(sha_ctx *c, uint out[8])
{
    ulong bits = c->total * 8ul;
    sha_put(c, (uchar)0x80);
    while (c->fill != 56u)
        sha_put(c, (uchar)0);
    for (int k = 7; k >= 0; --k)
        sha_put(c, (uchar)(bits >> (8 * k)));
    for (int i = 0; i < 8; ++i)
        out[i] = c->h[i];
}

static void digest_bytes(const uint d[8], uchar out[32])
{
    for (int i = 0; i < 8; ++i) {
        out[4 * i + 0] = (uchar)(d[i] >> 24);
        out[4 * i + 1] = (uchar)(d[i] >> 16);
        out[4 * i + 2] = (uchar)(d[i] >> 8);
        out[4 * i + 3] = (uchar)d[i];
    }
}

// HMAC with a key shorter than a block: H((K^opad) || H((K^ipad) || m)).
static void hmac_sha256(__global const uchar *key, __global const uchar *msg, uint n, uint out[8])
{
    uchar pad[BLOCK_BYTES];
    for (uint i = 0; i < BLOCK_BYTES; ++i)
        pad[i] = (i < KEY_BYTES ? key[i] : (uchar)0) ^ (uchar)HMAC_IPAD;

    sha_ctx inner;
    sha_init(&inner);
    sha_update_private(&inner, pad, BLOCK_BYTES);
    sha_update_global(&inner, msg, n);
    uint inner_digest[8];
    sha_final(&inner, inner_digest);

    uchar inner_bytes[32];
    digest_bytes(inner_digest, inner_bytes);
    for (uint i = 0; i < BLOCK_BYTES; ++i)
        pad[i] ^= (uchar)(HMAC_IPAD ^ HMAC_OPAD);

    sha_ctx outer;
    sha_init(&outer);
    sha_update_private(&outer, pad, BLOCK_BYTES);
    sha_update_private(&outer, inner_bytes, 32u);
    sha_final(&outer, out);
}

__kernel void sha256_batch(__global const uchar *records, __global uint *digests,
                           __global uint *macs)
{
    size_t i = get_global_id(0);
    uint n = (uint)((i * 37u) % 121u);
    __global const uchar *record = records + i * RECORD_BYTES;

    sha_ctx c;
    sha_init(&c);
    sha_update_global(&c, record, n);
    uint d[8];
    sha_final(&c, d);
    for (int k = 0; k < 8; ++k)
        digests[i * 8 + k] = d[k];

    uint m[8];
    hmac_sha256(record + RECORD_BYTES - KEY_BYTES, record, n, m);
    for (int k = 0; k < 8; ++k)
        macs[i * 8 + k] = m[k];
}
