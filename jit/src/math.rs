//! Scalar math routines the generated code calls lane by lane for OpenCL
//! builtins Cranelift has no instruction for (`sin`, `exp`, `pow`…), plus
//! the masked byte copy used for struct assignment. They are registered
//! with the JIT by name ([`symbols`]).

macro_rules! unary_math {
    ($($cl:literal: $name:ident / $name64:ident => $f:ident),* $(,)?) => {
        $(
            extern "C" fn $name(x: f32) -> f32 { x.$f() }
            extern "C" fn $name64(x: f64) -> f64 { x.$f() }
        )*
        /// OpenCL names of the one-argument functions, with their symbols.
        pub(crate) const UNARY: &[(&str, &str, &str)] = &[
            $(($cl, stringify!($name), stringify!($name64))),*
        ];
        fn unary_symbols() -> Vec<(&'static str, *const u8)> {
            vec![$((stringify!($name), $name as *const u8), (stringify!($name64), $name64 as *const u8)),*]
        }
    };
}

unary_math! {
    "sin": vecl_sinf / vecl_sin => sin,
    "cos": vecl_cosf / vecl_cos => cos,
    "tan": vecl_tanf / vecl_tan => tan,
    "asin": vecl_asinf / vecl_asin => asin,
    "acos": vecl_acosf / vecl_acos => acos,
    "atan": vecl_atanf / vecl_atan => atan,
    "sinh": vecl_sinhf / vecl_sinh => sinh,
    "cosh": vecl_coshf / vecl_cosh => cosh,
    "tanh": vecl_tanhf / vecl_tanh => tanh,
    "asinh": vecl_asinhf / vecl_asinh => asinh,
    "acosh": vecl_acoshf / vecl_acosh => acosh,
    "atanh": vecl_atanhf / vecl_atanh => atanh,
    "exp": vecl_expf / vecl_exp => exp,
    "exp2": vecl_exp2f / vecl_exp2 => exp2,
    "expm1": vecl_expm1f / vecl_expm1 => exp_m1,
    "log": vecl_logf / vecl_log => ln,
    "log2": vecl_log2f / vecl_log2 => log2,
    "log10": vecl_log10f / vecl_log10 => log10,
    "log1p": vecl_log1pf / vecl_log1p => ln_1p,
    "cbrt": vecl_cbrtf / vecl_cbrt => cbrt,
    "round": vecl_roundf / vecl_round => round,
}

extern "C" fn vecl_exp10f(x: f32) -> f32 {
    10f32.powf(x)
}
extern "C" fn vecl_exp10(x: f64) -> f64 {
    10f64.powf(x)
}
extern "C" fn vecl_powf(x: f32, y: f32) -> f32 {
    x.powf(y)
}
extern "C" fn vecl_pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}
extern "C" fn vecl_atan2f(y: f32, x: f32) -> f32 {
    y.atan2(x)
}
extern "C" fn vecl_atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}
extern "C" fn vecl_hypotf(x: f32, y: f32) -> f32 {
    x.hypot(y)
}
extern "C" fn vecl_hypot(x: f64, y: f64) -> f64 {
    x.hypot(y)
}
extern "C" fn vecl_fmodf(x: f32, y: f32) -> f32 {
    x % y
}
extern "C" fn vecl_fmod(x: f64, y: f64) -> f64 {
    x % y
}
extern "C" fn vecl_pownf(x: f32, n: i32) -> f32 {
    x.powi(n)
}
extern "C" fn vecl_pown(x: f64, n: i32) -> f64 {
    x.powi(n)
}

/// Copies `n` bytes from `src` to `dst` when `active` is non-zero.
///
/// # Safety
/// When `active` is non-zero, both ranges must be valid and not overlap.
unsafe extern "C" fn vecl_copy_if(dst: *mut u8, src: *const u8, n: u64, active: i32) {
    if active != 0 {
        // SAFETY: the caller (generated code for an IR `Copy`, whose operands
        // are valid, non-overlapping objects of `n` bytes) guarantees this.
        unsafe { std::ptr::copy_nonoverlapping(src, dst, n as usize) }
    }
}

/// Two-argument functions: (OpenCL name, f32 symbol, f64 symbol).
pub(crate) const BINARY: &[(&str, &str, &str)] = &[
    ("pow", "vecl_powf", "vecl_pow"),
    ("powr", "vecl_powf", "vecl_pow"),
    ("atan2", "vecl_atan2f", "vecl_atan2"),
    ("hypot", "vecl_hypotf", "vecl_hypot"),
    ("fmod", "vecl_fmodf", "vecl_fmod"),
];

/// Every symbol the generated code may import.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut v = unary_symbols();
    v.extend([
        ("vecl_exp10f", vecl_exp10f as *const u8),
        ("vecl_exp10", vecl_exp10 as *const u8),
        ("vecl_powf", vecl_powf as *const u8),
        ("vecl_pow", vecl_pow as *const u8),
        ("vecl_atan2f", vecl_atan2f as *const u8),
        ("vecl_atan2", vecl_atan2 as *const u8),
        ("vecl_hypotf", vecl_hypotf as *const u8),
        ("vecl_hypot", vecl_hypot as *const u8),
        ("vecl_fmodf", vecl_fmodf as *const u8),
        ("vecl_fmod", vecl_fmod as *const u8),
        ("vecl_pownf", vecl_pownf as *const u8),
        ("vecl_pown", vecl_pown as *const u8),
        ("vecl_copy_if", vecl_copy_if as *const u8),
    ]);
    v
}
