//! Integer hashing operations on the wide AVX-512 code against the
//! interpreter: `rotate` by constant, negative, past-31 and varying
//! counts, `popcount`, `mul_hi`, `uint` and `int` division and remainder
//! by constants (the multiply-high of `wide::intmath`), a `uint` widened to
//! `size_t` whose low 32 bits only are read, and a `uint4` built a
//! component at a time; each over edge values (0, 1, `UINT_MAX`,
//! `INT_MIN`, `INT_MAX`, multiples of the divisors and their neighbours)
//! in even and odd lanes, each asserting that the wide code ran it. The
//! two application kernels that needed them (`benches/app_kernels.py`'s
//! `rng_hash` and `aes_like`) run too. The machine programs of `popcount`
//! without AVX512_VPOPCNTDQ and of `mul_hi` run directly against Rust's
//! arithmetic, so the fallback is tested on a CPU that has the
//! instruction.

use vecl_ir::interp::NdRange;
use vecl_jit::wide::{compile, intmath, supported, Allocator, Arg, Op, Program, Un, V};
use vecl_testkit::{range_1d, wide_agrees as agree, wide_refuses as refused, Spec};

/// Launches covering every pair of the edge values below (11 × 36 ids),
/// with offsets and partial chunks.
fn ranges() -> Vec<NdRange> {
    vec![
        range_1d(0, 400, 16),
        range_1d(3, 397, 64),
        range_1d(0, 7, 7),
        range_1d(5, 49, 49),
    ]
}

/// Edge values: 0, 1, `UINT_MAX`, `INT_MIN`, `INT_MAX`, 7, 6, `2^32 − 7`
/// and three hashes of the id.
const EDGES: &str = r#"
uint edge(uint e, uint i) {
    uint h = i * 0x9E3779B1u;
    return e == 0 ? 0u : e == 1 ? 1u : e == 2 ? 0xffffffffu : e == 3 ? 0x80000000u
        : e == 4 ? 0x7fffffffu : e == 5 ? 7u : e == 6 ? 6u : e == 7 ? 0xfffffff9u
        : e == 8 ? h : e == 9 ? h ^ (h >> 15) : (h << 7) | 3u;
}
"#;

fn out_and_n(per: usize, n: i32) -> impl Fn(&NdRange) -> Vec<Spec> {
    move |r: &NdRange| {
        let items = r.global_size[0] as usize;
        vec![Spec::Ints(per * items, 0), Spec::Int(n)]
    }
}

const ROTATE: &str = r#"
kernel void k(global uint* out, int n) {
    int i = get_global_id(0) - get_global_offset(0);
    uint x = edge(i % 11, i);
    int c = (int)(i / 11) % 36 - 2;
    out[12 * i + 0] = rotate(x, 0u);
    out[12 * i + 1] = rotate(x, 1u);
    out[12 * i + 2] = rotate(x, 7u);
    out[12 * i + 3] = rotate(x, 31u);
    out[12 * i + 4] = rotate(x, 32u);
    out[12 * i + 5] = rotate(x, 33u);
    out[12 * i + 6] = rotate(x, (uint)c);
    out[12 * i + 7] = (uint)rotate((int)x, c);
    out[12 * i + 8] = (uint)rotate((int)x, -1);
    out[12 * i + 9] = (uint)rotate((int)x, -33);
    out[12 * i + 10] = rotate(x, (uint)n);
    uint2 v = rotate((uint2)(x, ~x), (uint2)(3u, (uint)c));
    out[12 * i + 11] = v.x ^ v.y;
}
"#;

#[test]
fn rotate_by_constant_varying_and_uniform_counts_agrees() {
    let src = format!("{EDGES}{ROTATE}");
    for n in [0, 5, 31, 32, 45, -1, i32::MIN] {
        agree(&src, &ranges(), out_and_n(12, n));
    }
}

const POPCOUNT: &str = r#"
kernel void k(global uint* out, int n) {
    int i = get_global_id(0) - get_global_offset(0);
    uint x = edge(i % 11, i);
    uint y = edge((i / 11) % 11, i + 1);
    out[4 * i + 0] = popcount(x);
    out[4 * i + 1] = (uint)popcount((int)y);
    out[4 * i + 2] = popcount(x ^ y) + popcount((uint)n);
    uint4 v = popcount((uint4)(x, y, x & y, 0u));
    out[4 * i + 3] = v.x * 1000000u + v.y * 10000u + v.z * 100u + v.w;
}
"#;

#[test]
fn popcount_agrees() {
    let src = format!("{EDGES}{POPCOUNT}");
    for n in [0, -1, 0x1234_5678] {
        agree(&src, &ranges(), out_and_n(4, n));
    }
}

const MUL_HI: &str = r#"
kernel void k(global uint* out, int n) {
    int i = get_global_id(0) - get_global_offset(0);
    uint x = edge(i % 11, i);
    uint y = edge((i / 11) % 11, i + 5);
    out[5 * i + 0] = mul_hi(x, y);
    out[5 * i + 1] = (uint)mul_hi((int)x, (int)y);
    out[5 * i + 2] = mul_hi(x, 0x9E3779B1u);
    out[5 * i + 3] = (uint)mul_hi((int)x, -7);
    out[5 * i + 4] = mul_hi(x, (uint)n) ^ (uint)mul_hi((int)y, n);
}
"#;

#[test]
fn mul_hi_agrees() {
    let src = format!("{EDGES}{MUL_HI}");
    for n in [0, 1, -1, i32::MIN, i32::MAX] {
        agree(&src, &ranges(), out_and_n(5, n));
    }
}

/// Every divisor class of `wide::intmath::magic`: the plain multiplier
/// (3, 5, 10, 641, `2^31 + 1`, `2^32 − 3`, `UINT_MAX`), the 33-bit one
/// (7, `2^31 − 1`), powers of two (shifts) and 1; a dividend at each side of
/// a multiple of the divisor; a `ulong` below 2^31 narrowed to `uint`;
/// and two `int` divisions by constants (more below).
const DIVIDE: &str = r#"
kernel void k(global uint* out, int n) {
    int i = get_global_id(0) - get_global_offset(0);
    uint x = edge(i % 11, i);
    uint m = ((i / 11) % 36) * 0x0ccccccdu;
    uint near = m + (uint)((int)(i % 3) - 1);
    out[24 * i + 0] = x / 3u;
    out[24 * i + 1] = x % 3u;
    out[24 * i + 2] = x / 7u;
    out[24 * i + 3] = x % 7u;
    out[24 * i + 4] = x / 10u;
    out[24 * i + 5] = x % 10u;
    out[24 * i + 6] = x / 641u;
    out[24 * i + 7] = x % 0x7fffffffu;
    out[24 * i + 8] = x / 0x80000001u;
    out[24 * i + 9] = x % 0x80000001u;
    out[24 * i + 10] = x / 0xfffffffdu;
    out[24 * i + 11] = x % 0xffffffffu;
    out[24 * i + 12] = x / 1u + x % 1u;
    out[24 * i + 13] = x / 16u + x % 2u;
    out[24 * i + 14] = near / 5u;
    out[24 * i + 15] = near % 5u;
    out[24 * i + 16] = near / 7u;
    out[24 * i + 17] = near % 10u;
    out[24 * i + 18] = near / 0xfffffffdu;
    out[24 * i + 19] = (uint)((ulong)(x & 0x7fffffffu) / 7ul);
    out[24 * i + 20] = (uint)((ulong)(x & 0x7fffffffu) % 10ul);
    out[24 * i + 21] = (uint)((int)x / 7);
    out[24 * i + 22] = (uint)((int)x % -7);
    out[24 * i + 23] = (x / 7u) * 7u + x % 7u - x;
}
"#;

#[test]
fn uint_division_by_constants_agrees() {
    let src = format!("{EDGES}{DIVIDE}");
    agree(&src, &ranges(), out_and_n(24, 0));
}

/// `int` division and remainder by constants (`wide::intmath::
/// divide_const_signed`): positive and negative divisors, `INT_MIN`,
/// `INT_MAX`, powers of two negated; `-1` keeps the division in double
/// (`INT_MIN / -1`); a `long` narrowed to `int` lanes.
const DIVIDE_SIGNED: &str = r#"
kernel void k(global int* out, int n) {
    int i = get_global_id(0) - get_global_offset(0);
    int x = (int)edge(i % 11, i);
    int m = ((i / 11) % 36 - 18) * 0x05555555;
    int near = m + (i % 3) - 1;
    out[18 * i + 0] = x / 3;
    out[18 * i + 1] = x % 3;
    out[18 * i + 2] = x / -3;
    out[18 * i + 3] = x % -7;
    out[18 * i + 4] = x / 10;
    out[18 * i + 5] = x % -10;
    out[18 * i + 6] = x / INT_MIN;
    out[18 * i + 7] = x % INT_MIN;
    out[18 * i + 8] = x / INT_MAX;
    out[18 * i + 9] = x % -641;
    out[18 * i + 10] = x / -4 + x % -8;
    out[18 * i + 11] = x / -1 + x % -1;
    out[18 * i + 12] = near / 3;
    out[18 * i + 13] = near % 6;
    out[18 * i + 14] = near / -7;
    out[18 * i + 15] = near % 1000000007;
    out[18 * i + 16] = (int)((long)(x >> 1) / 7l);
    out[18 * i + 17] = (int)((long)(x >> 1) % -10l);
}
"#;

#[test]
fn int_division_by_constants_agrees() {
    let src = format!("{EDGES}{DIVIDE_SIGNED}");
    agree(&src, &ranges(), out_and_n(18, 0));
}

/// `get_global_id(0) ^ seed` and friends: a `uint` zero-extended to
/// `size_t` whose low 32 bits only are read, seeds past 2^31 included.
const WIDENED: &str = r#"
kernel void k(global uint* out, uint seed) {
    size_t g = get_global_id(0);
    int i = g - get_global_offset(0);
    uint x = g ^ seed;
    uint y = (g + seed) * 3u;
    int z = (int)((seed << 4) - g);
    uint w = (uint)(((size_t)seed | 1) * 0x9E3779B1u);
    out[4 * i + 0] = x;
    out[4 * i + 1] = y;
    out[4 * i + 2] = (uint)z;
    out[4 * i + 3] = w;
}
"#;

fn seeds() -> [i32; 6] {
    [0, 1, i32::MIN, -1, 0x9E37_79B1_u32 as i32, i32::MAX]
}

#[test]
fn uint_widened_to_size_t_read_in_its_low_half_agrees() {
    for seed in seeds() {
        agree(WIDENED, &ranges(), out_and_n(4, seed));
    }
}

/// The same widening where all 64 bits are read (a comparison, a
/// division) is still refused.
#[test]
fn uint_widened_and_read_whole_is_refused() {
    let compared = r#"
kernel void k(global uint* out, uint seed) {
    size_t g = get_global_id(0);
    out[g - get_global_offset(0)] = (g ^ seed) > 0x80000000ul ? 1u : 2u;
}
"#;
    let divided = r#"
kernel void k(global uint* out, uint seed) {
    size_t g = get_global_id(0);
    out[g - get_global_offset(0)] = (uint)((g + seed) / 3);
}
"#;
    for src in [compared, divided] {
        for seed in seeds() {
            refused(
                src,
                "a conversion from Scalar(U32) to Scalar(U64)",
                &ranges(),
                out_and_n(1, seed),
            );
        }
    }
}

/// `benches/app_kernels.py`'s `rng_hash`: xorshift, a multiply, a
/// rotate, `popcount` and `% 7u` in a loop.
const RNG_HASH: &str = r#"
kernel void k(global uint* out, uint seed) {
  uint x = get_global_id(0) ^ seed, acc = 0;
  for (int r = 0; r < 16; r++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    uint h = x * 0x9E3779B1u; h = rotate(h, 7u) ^ (h >> 3);
    acc += popcount(h) + (h % 7u);
  }
  out[get_global_id(0) - get_global_offset(0)] = acc;
}
"#;

#[test]
fn rng_hash_agrees() {
    for seed in seeds() {
        agree(RNG_HASH, &ranges(), out_and_n(1, seed));
    }
}

/// `benches/app_kernels.py`'s `aes_like`: table lookups through a
/// `constant uint*`, rotates, a `uint4` written a component at a time.
const AES_LIKE: &str = r#"
kernel void k(global const uint4* in, global uint4* out, constant uint* T0) {
  int i = get_global_id(0) - get_global_offset(0); uint4 s = in[i];
  for (int r = 0; r < 10; r++) {
    uint4 t;
    t.x = T0[s.x & 255] ^ rotate(T0[(s.y >> 8) & 255], 8u) ^ rotate(T0[(s.z >> 16) & 255], 16u) ^ rotate(T0[s.w >> 24], 24u);
    t.y = T0[s.y & 255] ^ rotate(T0[(s.z >> 8) & 255], 8u) ^ rotate(T0[(s.w >> 16) & 255], 16u) ^ rotate(T0[s.x >> 24], 24u);
    t.z = T0[s.z & 255] ^ rotate(T0[(s.w >> 8) & 255], 8u) ^ rotate(T0[(s.x >> 16) & 255], 16u) ^ rotate(T0[s.y >> 24], 24u);
    t.w = T0[s.w & 255] ^ rotate(T0[(s.x >> 8) & 255], 8u) ^ rotate(T0[(s.y >> 16) & 255], 16u) ^ rotate(T0[s.z >> 24], 24u);
    s = t ^ (uint4)(r);
  }
  out[i] = s;
}
"#;

#[test]
fn aes_like_agrees() {
    agree(AES_LIKE, &ranges(), |r| {
        let n = r.global_size[0] as usize;
        vec![
            Spec::Ints(4 * n, 3),
            Spec::Ints(4 * n, 0),
            Spec::Ints(256, 7),
        ]
    });
}

/// Runs `p` (16 lanes read at A0, `outs` vectors written at A1) over
/// `input`.
fn run(p: &Program, input: &[u32; 16], outs: usize) -> Option<Vec<u32>> {
    if !supported() {
        return None;
    }
    let code = compile(p, Allocator::Regalloc2).expect("compiles");
    let mut out = vec![0u32; 16 * outs];
    // SAFETY: the program reads 64 bytes at A0 and writes `outs` vectors
    // at A1.
    unsafe { code.call([input.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
    Some(out)
}

fn store(p: &mut Program, a: V, n: i32) {
    p.push(Op::Store {
        a,
        arg: Arg::A1,
        off: 64 * n,
    });
}

/// Inputs in groups of 16 lanes: edges, single bits, and hashes.
fn lane_inputs() -> Vec<[u32; 16]> {
    let mut all: Vec<u32> = vec![
        0,
        1,
        u32::MAX,
        0x8000_0000,
        0x7fff_ffff,
        0x5555_5555,
        0xaaaa_aaaa,
        0x0f0f_0f0f,
        0xff00_ff00,
        0x0001_0000,
        0xffff,
        3,
        7,
        0xffff_fffe,
        0x8000_0001,
        0x1234_5678,
    ];
    all.extend((0..32).map(|b| 1u32 << b));
    let mut r = 0x9e37_79b9u32;
    for _ in 0..160 {
        r ^= r << 13;
        r ^= r >> 17;
        r ^= r << 5;
        all.push(r);
    }
    all.chunks(16)
        .map(|c| {
            let mut a = [0u32; 16];
            a.copy_from_slice(c);
            a
        })
        .collect()
}

/// `popcount` without `vpopcntd` (the sequence a CPU without
/// AVX512_VPOPCNTDQ runs) and with it where the CPU has it.
#[test]
fn popcount_sequences_count_the_bits() {
    for input in lane_inputs() {
        let mut p = Program::new();
        let x = p.load(Arg::A0, 0);
        let s = intmath::popcount(&mut p, x);
        store(&mut p, s, 0);
        let native = vecl_jit::wide::has_vpopcntdq();
        if native {
            let n = p.un(Un::Popcnt, x);
            store(&mut p, n, 1);
        }
        let Some(out) = run(&p, &input, 1 + usize::from(native)) else {
            return;
        };
        for l in 0..16 {
            assert_eq!(out[l], input[l].count_ones(), "{:#x}", input[l]);
            if native {
                assert_eq!(out[16 + l], input[l].count_ones(), "{:#x}", input[l]);
            }
        }
    }
}

/// `mul_hi` of two varying operands and of a constant, in even and odd
/// lanes, against 64-bit products.
#[test]
fn mul_hi_sequences_give_the_high_halves() {
    let inputs = lane_inputs();
    for (j, input) in inputs.iter().enumerate() {
        let other = &inputs[(j + 1) % inputs.len()];
        let both: Vec<u32> = input.iter().chain(other).copied().collect();
        let mut p = Program::new();
        let x = p.load(Arg::A0, 0);
        let y = p.load(Arg::A0, 64);
        let y_odd = intmath::odd_lanes(&mut p, y);
        let u = intmath::mul_hi(&mut p, x, y, y_odd, false);
        let s = intmath::mul_hi(&mut p, x, y, y_odd, true);
        let c = p.constant(0xfffffff9);
        let uc = intmath::mul_hi(&mut p, x, c, c, false);
        store(&mut p, u, 0);
        store(&mut p, s, 1);
        store(&mut p, uc, 2);
        if !supported() {
            return;
        }
        let code = compile(&p, Allocator::Regalloc2).expect("compiles");
        let mut out = vec![0u32; 48];
        // SAFETY: the program reads 128 bytes at A0 and writes 192 at A1.
        unsafe { code.call([both.as_ptr() as u64, out.as_mut_ptr() as u64, 0, 0, 0]) };
        for l in 0..16 {
            let (a, b) = (input[l], other[l]);
            let hu = ((u64::from(a) * u64::from(b)) >> 32) as u32;
            let hs = ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32;
            let hc = ((u64::from(a) * 0xfffffff9) >> 32) as u32;
            assert_eq!(out[l], hu, "lane {l}: {a:#x} * {b:#x}");
            assert_eq!(out[16 + l], hs, "lane {l}: {a:#x} * {b:#x} signed");
            assert_eq!(out[32 + l], hc, "lane {l}: {a:#x} * 0xfffffff9");
        }
    }
}
