//! `printf` in the JIT prints what the reference interpreter prints: scalar
//! and vector conversions, flags, width and precision, string literals,
//! and calls made by only some work-items (in divergent control flow), with
//! the return value 0 in every printing item.

use vecl_ir::interp::{run_kernel_capture, KernelArg, NdRange};
use vecl_jit::abi::Launch;
use vecl_jit::printf::PrintfCapture;
use vecl_testkit::*;

/// What the interpreter and the JIT print for kernel `k` over `n` items in
/// groups of `local`, with `a` (ints) as its first buffer and a zeroed int
/// buffer of `n` as its second. Also returns the JIT's second buffer.
fn both(src: &str, a: &[i32], n: usize, local: usize) -> (String, String, Vec<i32>) {
    let src = format!("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n{src}");
    let m = match vecl_clc::build(&src, "") {
        Ok(b) => b.module,
        Err(e) => panic!("{e}\n{src}"),
    };
    let mut want = Vec::new();
    let mut args = [
        KernelArg::Buffer(i32_bytes(a)),
        KernelArg::Buffer(vec![0; n * 4]),
    ];
    let range = NdRange::linear(n as u64, local as u64);
    if let Err(e) = run_kernel_capture(&m, "k", &mut args, &range, &mut want) {
        panic!("interpreter: {e}");
    }
    let k = compile(&m, "k", 8);
    let mut ab = i32_bytes(a);
    let mut rb = vec![0u8; n * 4];
    let cap = PrintfCapture::start();
    let mut launch = Launch::new(1, [0; 3], [n as u64, 1, 1], [local as u64, 1, 1]);
    run(&k, &mut [Arg::Buf(&mut ab), Arg::Buf(&mut rb)], &mut launch);
    let got = cap.take();
    drop(cap);
    (
        String::from_utf8_lossy(&want).into_owned(),
        String::from_utf8_lossy(&got).into_owned(),
        i32_from(&rb),
    )
}

fn data(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| i * 37 - 100).collect()
}

#[test]
fn scalar_conversions_match_the_interpreter() {
    let src = r#"
kernel void k(global const int* a, global int* r) {
    size_t i = get_global_id(0);
    int x = a[i];
    float f = (float)x / 7.0f;
    r[i] = printf("%d|%5d|%-5d|%05d|%+d|%u|%#x|%X|%o|%c|%%|%s|%5.2f|%-9.3e|%g|%ld|%.3s|\n",
                  x, x, x, x, x, x, x * 17, x, (int)i, 'a' + (int)i, "lit", f, f, f,
                  (long)x * 1000000007L, "abcdef");
}
"#;
    let n = 16;
    let (want, got, r) = both(src, &data(n), n, 8);
    assert_eq!(want.lines().count(), n, "{want}");
    assert!(want.starts_with("-100| -100|-100 |-0100|-100|"), "{want}");
    assert_eq!(got, want);
    assert_eq!(r, vec![0; n]);
}

#[test]
fn vector_conversions_match_the_interpreter() {
    let src = r#"
kernel void k(global const int* a, global int* r) {
    size_t i = get_global_id(0);
    int x = a[i];
    float4 v = (float4)((float)x, 0.5f, -2.25f, (float)i);
    short2 s = (short2)((short)x, (short)(x * 300));
    int4 w = (int4)(x, x + 1, 255, (int)i);
    uchar3 c = (uchar3)((uchar)x, 7, 250);
    double2 d = (double2)((double)x / 3.0, 1e300);
    printf("v=%v4f s=%v2hd w=%#v4hlx c=%v3hhu d=%.4v2e h=%8.2v4f\n", v, s, w, c, d, v);
}
"#;
    let n = 8;
    let (want, got, _) = both(src, &data(n), n, 8);
    assert_eq!(want.lines().count(), n, "{want}");
    assert!(
        want.starts_with("v=-100.000000,0.500000,-2.250000,0.000000 s=-100,"),
        "{want}"
    );
    assert_eq!(got, want);
}

#[test]
fn only_active_items_print_in_order() {
    // Items whose value is odd print once per loop trip, a varying number
    // of times; the others print in the else branch; some return early.
    let src = r#"
kernel void k(global const int* a, global int* r) {
    size_t i = get_global_id(0);
    int x = a[i];
    if (i % 5 == 4) return;
    int rc = 1;
    if (x & 1) {
        for (int t = 0; t < (int)(i % 3) + 1; t++)
            rc = printf("odd item %d trip %d of %d\n", (int)i, t, x);
    } else {
        rc = printf("even item %2d: %s %f\n", (int)i, "lit", (float)x * 0.25f);
    }
    r[i] = rc;
}
"#;
    let n = 24;
    let (want, got, r) = both(src, &data(n), n, 8);
    assert!(want.contains("odd item 1 trip 1 of -63"), "{want}");
    assert!(!want.contains("item 4 "), "{want}");
    assert_eq!(got, want);
    // rc starts at 1: every item that went on printed and got 0 back;
    // the items that returned early never stored.
    assert_eq!(r, vec![0; n]);
}

#[test]
fn two_chunks_of_a_group_print_every_line() {
    // With groups of 16 and chunks of 8, the JIT runs a group's first
    // chunk through both calls before the second chunk: the same lines as
    // the interpreter (which runs the group in lockstep), each whole.
    let src = r#"
kernel void k(global const int* a, global int* r) {
    size_t i = get_global_id(0);
    printf("first %d %v2d\n", (int)i, (int2)(a[i], -a[i]));
    if (a[i] > 0) printf("second %d\n", a[i]);
}
"#;
    let n = 32;
    let (want, got, _) = both(src, &data(n), n, 16);
    let sorted = |s: &str| {
        let mut v: Vec<String> = s.lines().map(str::to_string).collect();
        v.sort();
        v
    };
    assert!(want.lines().count() > n, "{want}");
    assert_eq!(sorted(&got), sorted(&want));
}
