//! Private aggregates and scalar replacement (`vecl_ir::transform::sra`,
//! run by the JIT after inlining).
//!
//! - Every program of the OpenCL C corpus (`tests/corpus/*.cl`) gives the
//!   same bytes in the interpreter before and after the pass is run on
//!   every function of its module (the pass on its own, without inlining:
//!   slots passed to calls stay in memory there).
//! - Kernels that keep structs, unions and arrays in private memory
//!   (a counter-based random generator written like Random123's Philox,
//!   by-value struct arguments written by each work-item, struct copies to
//!   and from global memory, an array indexed by a loop counter) run on the
//!   JIT at W = 4, 8, 16 and agree with the interpreter byte for byte; the
//!   replaced ones leave no per-lane private access in the report.

use std::path::{Path, PathBuf};
use vecl_clc::corpus::{self, Arg};
use vecl_ir::interp::{run_kernel, KernelArg, NdRange};
use vecl_ir::transform::sra::scalar_replace_module;
use vecl_ir::verify::{format_errors, verify_module};
use vecl_ir::Module;
use vecl_jit::abi::Launch;
use vecl_testkit::groups::run_all_groups;
use vecl_testkit::{build, interp_args_for, run_jit, try_compile, Spec, WIDTHS};

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/corpus exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    files.sort();
    files
}

fn case_args(case: &corpus::Case) -> Vec<KernelArg> {
    case.args
        .iter()
        .map(|a| match a {
            Arg::Buffer { .. } => KernelArg::Buffer(a.bytes()),
            Arg::Value { .. } => KernelArg::Value(a.bytes()),
            Arg::Local { bytes } => KernelArg::Local(*bytes),
        })
        .collect()
}

fn case_range(case: &corpus::Case) -> NdRange {
    let mut range = NdRange {
        work_dim: case.global.len() as u32,
        global_offset: [0; 3],
        global_size: [1; 3],
        local_size: [1; 3],
    };
    for (d, (g, l)) in case.global.iter().zip(&case.local).enumerate() {
        range.global_size[d] = *g;
        range.local_size[d] = *l;
    }
    range
}

#[test]
fn corpus_gives_the_same_bytes_in_the_interpreter_after_the_pass() {
    let files = corpus_files();
    assert!(files.len() >= 150, "corpus has {} programs", files.len());
    let (mut slots, mut params, mut changed) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(path).expect("readable");
        let case = corpus::parse(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let before = build(&src, &case.options);
        let mut after = before.clone();
        let stats = scalar_replace_module(&mut after);
        if let Err(e) = verify_module(&after) {
            failures.push(format!(
                "{name}: invalid after the pass:\n{}",
                format_errors(&e)
            ));
            continue;
        }
        slots += stats.slots;
        params += stats.params;
        changed += usize::from(after != before);
        let range = case_range(&case);
        let (mut want, mut got) = (case_args(&case), case_args(&case));
        let r0 = run_kernel(&before, &case.kernel, &mut want, &range).map_err(|e| e.to_string());
        let r1 = run_kernel(&after, &case.kernel, &mut got, &range).map_err(|e| e.to_string());
        if r0 != r1 || want != got {
            let differs = want.iter().zip(&got).position(|(a, b)| a != b);
            failures.push(format!(
                "{name}: before {r0:?}, after {r1:?}; first differing argument {differs:?}: {:?} against {:?}",
                differs.map(|i| &want[i]),
                differs.map(|i| &got[i]),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus has private structs and arrays: the pass must find some.
    assert!(
        changed >= 10 && slots >= 20,
        "{changed} programs, {slots} slots, {params} params"
    );
}

/// Every buffer of `kernel` at every width over `ranges` equals the
/// interpreter's (on the unchanged module).
fn agree(m: &Module, kernel: &str, ranges: &[NdRange], args: impl Fn(&NdRange) -> Vec<KernelArg>) {
    for w in WIDTHS {
        let k = try_compile(m, kernel, w).unwrap_or_else(|e| panic!("{kernel} W={w}: {e}"));
        for range in ranges {
            let init = args(range);
            let mut want = init.clone();
            run_kernel(m, kernel, &mut want, range).unwrap_or_else(|e| panic!("{kernel}: {e}"));
            let (status, got) = run_jit(&k, &init, range);
            assert_eq!(status, 0, "{kernel} W={w} {range:?}");
            for (i, a) in want.iter().enumerate() {
                if let KernelArg::Buffer(b) = a {
                    assert!(*b == got[i], "{kernel} W={w} {range:?}: buffer {i} differs");
                }
            }
        }
    }
}

fn ranges() -> Vec<NdRange> {
    vec![
        NdRange::linear(64, 16),
        NdRange::linear(37, 37),
        NdRange {
            work_dim: 1,
            global_offset: [5, 0, 0],
            global_size: [23, 1, 1],
            local_size: [7, 1, 1],
        },
    ]
}

fn report(m: &Module, kernel: &str) -> String {
    try_compile(m, kernel, 8)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"))
        .explain()
        .to_string()
}

/// Philox-4x32 in the style of Random123 (as PyOpenCL ships it): counter
/// and key structs of arrays passed and returned by value, the rounds
/// unrolled through helper calls, the result read through a union.
const PHILOX: &str = r#"
typedef struct { uint v[4]; } ctr_t;
typedef struct { uint v[2]; } key_t;

uint mulhilo(uint a, uint b, uint *hip) {
    ulong p = (ulong)a * (ulong)b;
    *hip = (uint)(p >> 32);
    return (uint)p;
}

key_t bump(key_t k) {
    k.v[0] += 0x9E3779B9u;
    k.v[1] += 0xBB67AE85u;
    return k;
}

ctr_t round1(ctr_t c, key_t k) {
    uint hi0, hi1;
    uint lo0 = mulhilo(0xD2511F53u, c.v[0], &hi0);
    uint lo1 = mulhilo(0xCD9E8D57u, c.v[2], &hi1);
    ctr_t out = {{hi1 ^ c.v[1] ^ k.v[0], lo1, hi0 ^ c.v[3] ^ k.v[1], lo0}};
    return out;
}

ctr_t philox(ctr_t c, key_t k) {
    c = round1(c, k); k = bump(k);
    c = round1(c, k); k = bump(k);
    c = round1(c, k); k = bump(k);
    c = round1(c, k); k = bump(k);
    c = round1(c, k); k = bump(k);
    c = round1(c, k); k = bump(k);
    c = round1(c, k);
    return c;
}

uint4 gen(key_t *key, ctr_t *ctr) {
    union { ctr_t c; uint4 v; } u;
    u.c = philox(*ctr, *key);
    if (++ctr->v[0] == 0)
        ++ctr->v[1];
    return u.v;
}

kernel void rng(global uint4 *out, uint seed, int n) {
    size_t i = get_global_id(0);
    key_t k = {{(uint)i, seed}};
    ctr_t c = {{1u, 2u, 3u, 4u}};
    uint4 acc = (uint4)(0u);
    for (int j = 0; j < n; ++j)
        acc ^= gen(&k, &c);
    out[i] = acc + (uint4)(c.v[0], c.v[1], c.v[2], c.v[3]);
}
"#;

#[test]
fn philox_generator_agrees_and_keeps_nothing_in_private_memory() {
    let m = build(PHILOX, "");
    agree(&m, "rng", &ranges(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize * 4;
        let mut a = interp_args_for(&[Spec::Ints(n, 0)]);
        a.push(KernelArg::Value(0x1234_5678u32.to_le_bytes().to_vec()));
        a.push(KernelArg::Value(3i32.to_le_bytes().to_vec()));
        a
    });
    let e = report(&m, "rng");
    assert!(
        e.contains("loads: 0 vector (consecutive; 0 prefetching ahead, 0 of them by a loop's step), 0 interleaved (2 to 4 components of consecutive items), 0 uniform, 0 per lane"),
        "{e}"
    );
}

/// A struct argument is each work-item's own copy: writes to it must not
/// reach other work-items (nor the argument block).
const BYVAL: &str = r#"
typedef struct { float scale; float shift; int steps; } affine_t;

kernel void apply(global float *data, affine_t t) {
    size_t i = get_global_id(0);
    t.shift += (float)i;
    for (int s = 0; s < t.steps; ++s)
        data[i] = data[i] * t.scale + t.shift;
    t.steps = 0;
}
"#;

#[test]
fn by_value_struct_argument_written_by_each_work_item() {
    let m = build(BYVAL, "");
    let mut t = Vec::new();
    t.extend(0.5f32.to_le_bytes());
    t.extend(1.0f32.to_le_bytes());
    t.extend(3i32.to_le_bytes());
    for w in WIDTHS {
        let k = try_compile(&m, "apply", w).unwrap_or_else(|e| panic!("W={w}: {e}"));
        for range in ranges() {
            let n = (range.global_offset[0] + range.global_size[0]) as usize;
            let mut want = interp_args_for(&[Spec::Floats(n, 1)]);
            want.push(KernelArg::Value(t.clone()));
            let KernelArg::Buffer(data) = &want[0] else {
                unreachable!("a buffer first")
            };
            let mut got = data.clone();
            run_kernel(&m, "apply", &mut want, &range).unwrap_or_else(|e| panic!("{e}"));
            // The argument block: the buffer's address, then the struct.
            let slots = k.args();
            let mut block = vec![0u8; k.args_size().max(8)];
            let (p, s) = (slots[0].offset as usize, slots[1].offset as usize);
            block[p..p + 8].copy_from_slice(&(got.as_mut_ptr() as u64).to_le_bytes());
            block[s..s + t.len()].copy_from_slice(&t);
            let mut launch = Launch::new(
                range.work_dim,
                range.global_offset,
                range.global_size,
                range.local_size,
            );
            // SAFETY: the block matches `k.args()`; `got` holds every element
            // the launch addresses and outlives the call.
            let status = unsafe { run_all_groups(&k, &block, &mut launch, 0) };
            assert_eq!(status, 0, "W={w} {range:?}");
            assert!(
                KernelArg::Buffer(got) == want[0],
                "W={w} {range:?}: data differs"
            );
            // Each work-item wrote only its own copy.
            assert_eq!(
                &block[s..s + t.len()],
                &t[..],
                "W={w}: the argument block changed"
            );
        }
    }
}

/// Struct assignment between global memory and private copies, a `float4`
/// member updated by component, and a nested struct copied whole. (No
/// padding: the pass copies members, and padding bytes may differ.)
const COPIES: &str = r#"
typedef struct { float4 pos; float mass; int id; float2 vel; } body_t;
typedef struct { body_t b; uint4 flags; } wrapped_t;

body_t step(body_t b, float dt) {
    b.pos.x += dt * b.mass;
    b.pos.w = (float)b.id;
    b.id += 1;
    return b;
}

kernel void advance(global body_t *bodies, global wrapped_t *out, float dt) {
    size_t i = get_global_id(0);
    body_t b = bodies[i];
    wrapped_t w;
    w.b = step(step(b, dt), dt);
    w.flags = (uint4)((uint)w.b.id * 3u, 1u, 2u, (uint)i);
    bodies[i] = w.b;
    out[i] = w;
}
"#;

#[test]
fn struct_copies_to_and_from_global_memory() {
    let m = build(COPIES, "");
    agree(&m, "advance", &ranges(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        // body_t is 32 bytes, wrapped_t 48: fill both with small floats.
        let mut a = interp_args_for(&[Spec::Floats(n * 8, 3), Spec::Floats(n * 12, 0)]);
        a.push(KernelArg::Value(0.25f32.to_le_bytes().to_vec()));
        a
    });
}

/// An array indexed by a loop counter stays in memory; a struct beside it,
/// reached at constant offsets only, does not need to.
const MIXED: &str = r#"
typedef struct { uint lo; uint hi; } pair_t;

kernel void mixed(global uint *out, int n) {
    size_t i = get_global_id(0);
    uint hist[8];
    pair_t p = { (uint)i, 0u };
    for (int j = 0; j < 8; ++j)
        hist[j] = (uint)(j * 3) ^ p.lo;
    for (int j = 0; j < n; ++j) {
        p.hi += hist[(p.lo + (uint)j) & 7u];
        p.lo = p.lo * 1664525u + 1013904223u;
    }
    out[i] = p.hi ^ p.lo;
}
"#;

#[test]
fn dynamically_indexed_array_beside_a_replaced_struct() {
    let m = build(MIXED, "");
    agree(&m, "mixed", &ranges(), |r| {
        let n = (r.global_offset[0] + r.global_size[0]) as usize;
        let mut a = interp_args_for(&[Spec::Ints(n, 0)]);
        a.push(KernelArg::Value(5i32.to_le_bytes().to_vec()));
        a
    });
}

/// `tests/jit_scaling/sha256_hmac.cl` (private structs of arrays passed by
/// pointer through many helpers) gives the digests of its header — Python's
/// hashlib and hmac — on the JIT, as on the interpreter. W = 4 only: it is
/// the slowest program to compile that the tests build.
#[test]
fn sha256_hmac_program_gives_its_expected_digests_on_the_jit() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/jit_scaling/sha256_hmac.cl");
    let src = std::fs::read_to_string(&path).expect("readable");
    let case = corpus::parse(&src).expect("corpus header");
    let m = build(&src, &case.options);
    let k = try_compile(&m, &case.kernel, 4).unwrap_or_else(|e| panic!("{e}"));
    let range = case_range(&case);
    let (status, got) = run_jit(&k, &case_args(&case), &range);
    assert_eq!(status, 0);
    assert!(!case.expects.is_empty());
    for e in &case.expects {
        let Some(Arg::Buffer { elem, .. }) = case.args.get(e.arg) else {
            panic!("@expect {} is not a buffer", e.arg)
        };
        let values: Vec<f64> = got[e.arg]
            .chunks_exact(elem.size())
            .map(|c| elem.decode(c))
            .collect();
        assert_eq!(values, e.values, "argument {}", e.arg);
    }
}
