//! The second generator (`vecl fuzz --wide`): `float` kernels in the shape
//! the wide AVX-512 code takes (`jit/src/wide/`), with the inputs that
//! reach its special paths.
//!
//! The integer generator ([`super::generate`]) keeps floats exact and
//! mostly produces kernels the wide code refuses (narrow types, private
//! arrays, helper functions). This one produces `float`, `int` and `uint`
//! scalars only (and bytes of its buffers, read and written through
//! `char` and `uchar` pointers): `+ - * /`, `fma`, `mad` and the FMA shapes the wide code
//! fuses (`a * b + c`, `c - a * b`, `-(a * b) + c`, `-fma(..)`), `exp`,
//! `log`, `sin`, `cos`, `sqrt`, `fmin`, `fmax`, `fabs`,
//! `floor` on NaN, ±Inf, ±0, subnormals, huge values and the edges of
//! `exp`'s range; `double` subexpressions (arithmetic, `exp`, `log`,
//! `sqrt`, `floor`, `fmin`, comparisons and conversions) rounded back to
//! `float`; the same subexpression repeated within a few operations;
//! adds read only by a masked store; `if` arms that run rarely or never;
//! loops left by `break`, `continue` and `return`, with constant and
//! varying trip counts; and in barrier kernels `__local` tiles written and
//! read across barriers, with tile loops over a group's row
//! (`tile[ly * lsx + k]`, `tile[k * lsx + lx]`) for the rows in flight of
//! 2-D groups of 16×16, 8×8, 16×4 and others, and trees over each row of a
//! `float` or `__local double` tile (`if (lx < s)`, whose later chunks
//! the wide code skips). A third of the kernels
//! never look at their groups (no local ids, no barriers): their launches
//! of one-row groups are merged into longer rows by the runtime
//! (`runtime/src/ndrange.rs`, `widened_rows`), which the large 1-D shape
//! reaches through the Rust API.
//!
//! Floats are folded into the work-item's hash with NaNs made one
//! pattern (`x != x`, which the wide code takes where it leaves `isnan`
//! to Cranelift's) (`OpenCL` leaves the payload of a NaN unspecified); nothing
//! else is rounded away. Kernels that call `exp`, `log`, `sin` or the
//! other transcendental functions are compared with Cranelift's code at
//! W = 16 instead of the interpreter (whose `libm` differs in the last
//! bit, within OpenCL's bounds): the wide code's routines are the same
//! algorithms and must agree bit for bit (`jit/src/wide/math.rs`).

use super::check::Shape;
use super::generate::Rng;

/// The functions whose results depend on the implementation (within
/// OpenCL's ULP bounds): a kernel that calls one is compared against
/// Cranelift's code rather than the interpreter.
pub const INEXACT: [&str; 6] = ["exp(", "log(", "exp2(", "log2(", "sin(", "cos("];

/// Whether `source` must be compared against Cranelift's code (division
/// and `sqrt` are correctly rounded everywhere).
pub fn needs_cranelift_reference(source: &str) -> bool {
    INEXACT.iter().any(|f| source.contains(f))
}

/// The special `float` literals the generator draws from.
const SPECIAL: [&str; 22] = [
    "0.0f",
    "-0.0f",
    "1.0f",
    "-1.0f",
    "0.5f",
    "3.0f",
    "INFINITY",
    "-INFINITY",
    "NAN",
    "0x1p-140f",
    "-0x1p-149f",
    "0x1.fffffcp-127f",
    "0x1p-126f",
    "88.72f",
    "88.7228394f",
    "-87.3f",
    "-103.9f",
    "1.0e6f",
    "3.0e7f",
    "1.0e30f",
    "-3.4028235e38f",
    "1.5707964f",
];

/// `f(x)` for `f` among `exp`, `log`, `sin`, `cos`. The Cranelift code
/// computes `exp` and `log` of a uniform value in double, correctly
/// rounded, and of varying values in single precision, as the wide code
/// does for both: `exp(15.0f)` is 0x4a478665 uniform and 0x4a478666
/// varying, both within OpenCL's 3 ULP
/// (`jit/src/lower/builtins/vmath.rs`). Their argument gets the varying
/// `-0.0` of `vz`, which changes no value, so that the two codes are
/// compared on the same algorithm.
fn math_call(f: &str, x: &str) -> String {
    match f {
        "exp" | "log" => format!("{f}({x} + vz)"),
        _ => format!("{f}({x})"),
    }
}

/// `f(a, b)` for `f` among `fmin` and `fmax`, its zero made `+0.0f`.
/// Which zero `fmax(-0.0f, +0.0f)` returns OpenCL leaves open (the
/// interpreter and Cranelift's code differ), and the hash reads a zero's
/// sign through `as_uint`. Adding `+0.0f` changes nothing else (`-0.0f +
/// 0.0f` is `+0.0f` when rounding to nearest; any other value, NaN
/// included, stays), so the sign of zeros made elsewhere (`-0.0f * x`,
/// `floor`, `sqrt(-0.0f)`, a negated zero) is still compared bit for bit.
fn min_max(f: &str, a: &str, b: &str) -> String {
    format!("({f}({a}, {b}) + 0.0f)")
}

struct Gen {
    rng: Rng,
    out: Vec<String>,
    indent: usize,
    /// Declared `float` and `uint` variables in scope, per block.
    floats: Vec<Vec<String>>,
    uints: Vec<Vec<String>>,
    fresh: u32,
    /// The kernel may read its local ids and have barriers.
    groups: bool,
    /// Inside a loop (`break`/`continue` allowed).
    in_loop: bool,
    /// `return` allowed (no barrier follows).
    may_return: bool,
    /// Recently generated float expressions, repeated now and then.
    recent: Vec<String>,
    budget: i32,
    depth: u32,
    /// How the kernel's own element of `out` is written where the
    /// generator writes `out[idx]`: that, `out[sidx]` (a `size_t`
    /// row-major index) or `(out + sidx)[0]` (a pointer moved by it and
    /// indexed again).
    at: &'static str,
}

/// The kernel of `seed` for `vecl fuzz --wide`.
pub fn generate(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng::new(seed ^ 0x7769_6465),
        out: Vec::new(),
        indent: 0,
        floats: vec![Vec::new()],
        uints: vec![Vec::new()],
        fresh: 0,
        groups: false,
        in_loop: false,
        may_return: true,
        recent: Vec::new(),
        budget: 0,
        depth: 0,
        at: "out[idx]",
    };
    g.kernel(seed);
    let mut text = String::new();
    for l in &g.out {
        text.push_str(l);
        text.push('\n');
    }
    text
}

/// Whether the kernel of `seed` looks at its groups (the generator's
/// first choice, so that the shapes can follow it).
fn sees_groups(seed: u64) -> bool {
    Rng::new(seed ^ 0x7769_6465).below(3) != 0
}

/// The launch shapes of `seed` for `--wide`: 1-D groups of one to four
/// chunks, a partial last group from an offset, one 2-D shape whose rows
/// are one chunk (16×16, 16×4, 16×6, 16×3) or less (8×8, 4×4) or two
/// (32×2); for kernels that cannot see their groups, a 1-D launch of
/// 16-item groups long enough for the runtime to merge them into rows.
pub fn shapes(seed: u64) -> Vec<Shape> {
    let mut rng = Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5ea9f);
    let one = |offset: u64, global: u64, local: u64| Shape {
        dims: 1,
        offset: [offset, 0],
        global: [global, 1],
        local: [local, 1],
    };
    let mut out = vec![one(0, 64, rng.pick(&[16, 32, 64]))];
    out.push(one(0, 256, rng.pick(&[48, 64, 128, 256])));
    let l = rng.pick(&[16, 24, 32, 40]);
    out.push(one(rng.below(5), l * 2 + 1 + rng.below(l), l));
    let (lx, ly) = rng.pick(&[(16, 16), (8, 8), (16, 4), (16, 6), (16, 3), (32, 2), (4, 4)]);
    let gy = ly * (1 + rng.below(2));
    let offset = if rng.percent(30) {
        [rng.below(3), rng.below(3)]
    } else {
        [0, 0]
    };
    out.push(Shape {
        dims: 2,
        offset,
        global: [lx * 2, gy],
        local: [lx, ly],
    });
    // Partial last groups (OpenCL 2.0): fewer rows than the rows in
    // flight, or a partial chunk in every row.
    let (px, py) = match rng.below(3) {
        0 => (lx * 2, gy + 1 + rng.below(ly)),
        1 => (lx + 1 + rng.below(lx), gy),
        _ => (lx + 1 + rng.below(lx), gy + 1 + rng.below(ly)),
    };
    out.push(Shape {
        dims: 2,
        offset: [0, rng.below(2)],
        global: [px, py],
        local: [lx, ly],
    });
    if !sees_groups(seed) {
        let n = rng.pick(&[16384, 16432, 20480]);
        out.push(one(0, n, 16));
        // Rows of 2-D groups one item high, merged along dimension 0.
        let l = rng.pick(&[8, 16, 48]);
        out.push(Shape {
            dims: 2,
            offset: [0, 0],
            global: [l * 32, 24],
            local: [l, 1],
        });
    }
    out
}

impl Gen {
    fn line(&mut self, s: impl Into<String>) {
        let mut s = s.into();
        if self.at != "out[idx]" {
            s = s.replace("out[idx]", self.at);
        }
        self.out
            .push(format!("{}{}", "    ".repeat(self.indent), s));
    }

    fn name(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn any_float(&mut self) -> String {
        let all: Vec<String> = self.floats.iter().flatten().cloned().collect();
        all[self.rng.below(all.len() as u64) as usize].clone()
    }

    fn any_uint(&mut self) -> String {
        let all: Vec<String> = self.uints.iter().flatten().cloned().collect();
        all[self.rng.below(all.len() as u64) as usize].clone()
    }

    fn kernel(&mut self, seed: u64) {
        self.groups = sees_groups(seed);
        let _ = self.rng.below(3);
        let barriers = self.groups && self.rng.percent(70);
        self.line("kernel void fuzz(global uint *out, global const uint *in, global uint *gatom)");
        self.line("{");
        self.indent += 1;
        self.line("const uint gid = (uint)get_global_id(0);");
        // An `int` (the wide code takes its sign extension as an index).
        self.line("const int idx = (int)(get_global_id(1) - get_global_offset(1)) * (int)get_global_size(0) + (int)(get_global_id(0) - get_global_offset(0));");
        // Two kernels in three also index `out` in 64 bits, as real
        // kernels do (`size_t` arithmetic, a moved pointer); from the
        // seed, so that the rest of the kernel is what it was.
        match (seed / 7) % 3 {
            0 => {}
            form => {
                self.line("const size_t sidx = (get_global_id(1) - get_global_offset(1)) * get_global_size(0) + (get_global_id(0) - get_global_offset(0));");
                self.at = if form == 1 {
                    "out[sidx]"
                } else {
                    "(out + sidx)[0]"
                };
            }
        }
        self.uints[0].extend(["gid".to_string(), "idx".to_string()]);
        if self.groups {
            // `int`s, as `idx`: they index the tiles.
            self.line("const int lx = (int)get_local_id(0);");
            self.line("const int ly = (int)get_local_id(1);");
            self.line("const int lsx = (int)get_local_size(0);");
            self.line("const int lsy = (int)get_local_size(1);");
            self.line("const int lsz = lsx * lsy;");
            self.line("const int lid = ly * lsx + lx;");
            self.uints[0].extend(["lx".to_string(), "ly".to_string(), "lid".to_string()]);
        }
        if barriers {
            self.line("local float tile[256];");
            self.line("local float tb[256];");
            self.line("local double dt[256];");
        }
        // -0.0 in every lane, but varying as far as the compiler knows
        // (`idx` is below 2^31): `exp` and `log` take `x + vz` (= x), see
        // `math_call`.
        self.line("const float vz = as_float(0x80000000u | ((uint)idx & 0x80000000u));");
        self.line("uint h = 0x811c9dc5u ^ idx;");
        self.line("double dacc = 0.5;");
        // Inputs: raw bit patterns (NaNs, subnormals, huge values), small
        // integers, and special literals chosen by the work-item.
        for i in 0..3 {
            let v = self.name("f");
            let k = self.rng.below(64);
            let m = 1 + 2 * self.rng.below(16);
            let e = match i {
                0 => format!("as_float(in[(idx * {m}u + {k}u) & 63u])"),
                1 => format!(
                    "(float)(int)(in[(idx + {k}u) & 63u] & 0xfffu) * 0.125f - {}.0f",
                    self.rng.below(300)
                ),
                _ => {
                    let mut e = self.literal();
                    for j in 0..4 {
                        let lit = self.literal();
                        e = format!("(idx % 7u == {j}u) ? {lit} : {e}");
                    }
                    e
                }
            };
            self.line(format!("float {v} = {e};"));
            self.floats[0].push(v);
        }
        let u = self.name("u");
        self.line(format!("uint {u} = in[(idx * 3u + 1u) & 63u];"));
        self.uints[0].push(u.clone());
        // Bytes of `in` through a `char` or `uchar` pointer: lanes a byte
        // apart, further apart, one byte for every lane, or where a value
        // says.
        if self.rng.percent(40) {
            let b = self.name("b");
            let ty = if self.rng.percent(50) {
                "uchar"
            } else {
                "char"
            };
            let k = self.rng.below(256);
            let at = match self.rng.below(4) {
                0 => format!("(idx + {k}u) & 255u"),
                1 => format!("(idx * {}u + {k}u) & 255u", 3 + 2 * self.rng.below(8)),
                2 => format!("{k}u"),
                _ => format!("{u} & 255u"),
            };
            self.line(format!(
                "uint {b} = (uint)(int)((global const {ty} *)in)[{at}];"
            ));
            self.uints[0].push(b);
        }
        // A byte of the work-item's own word of `out`, stored before the
        // word is read back and hashed.
        let byte_store = self.rng.percent(25);
        // (The wide code leaves kernels with atomics to Cranelift's.)
        if self.rng.percent(10) {
            self.line("atomic_add(&gatom[0], 1u);");
        }
        if barriers && self.rng.percent(40) {
            self.tile_kernel();
            return;
        }
        // Small kernels (four chunks in flight) as often as large ones.
        let small = self.rng.percent(50);
        let sections = if small { 2 } else { 2 + self.rng.below(4) };
        for s in 0..sections {
            self.may_return = !barriers;
            if barriers && s > 0 {
                self.barrier_section();
            }
            self.budget = if small {
                1 + self.rng.below(3) as i32
            } else {
                3 + self.rng.below(6) as i32
            };
            while self.budget > 0 {
                self.statement();
            }
        }
        self.may_return = true;
        self.fold_all();
        // (The wide code leaves a `return` in a barrier kernel to
        // Cranelift's, and the returns above are in kernels without one.)
        if !barriers && self.rng.percent(30) {
            let c = self.cond();
            self.line(format!("if ({c}) {{ out[idx] = h ^ 0x5555u; return; }}"));
        }
        if byte_store {
            // A float stored as `out[idx]` may be a NaN, whose sign and
            // payload OpenCL leaves open: made one pattern before a byte
            // of it is replaced (after which it may no longer look like
            // a NaN).
            self.line("uint w = out[idx];");
            self.line("out[idx] = ((w & 0x7fffffffu) > 0x7f800000u) ? 0x7fc00000u : w;");
            let e = self.uint_expr(2);
            let k = self.rng.below(4);
            self.line(format!(
                "((global uchar *)out)[4 * idx + {k}] = (uchar)({e});"
            ));
        }
        self.line("uint o = out[idx];");
        self.line("o = ((o & 0x7fffffffu) > 0x7f800000u) ? 0x7fc00000u : o;");
        self.line("out[idx] = (o * 0x01000193u) ^ h;");
        self.indent -= 1;
        self.line("}");
    }

    /// The rest of a small matmul-shaped kernel (the rows in flight need
    /// few spills): tiles staged, one or two rounds of a loop over the
    /// group's row of one and column of the other, then the hash.
    fn tile_kernel(&mut self) {
        let acc = self.name("f");
        let init = self.float_expr(1);
        self.line(format!("float {acc} = {init};"));
        self.floats[0].push(acc.clone());
        for _ in 0..1 + self.rng.below(2) {
            let (a, b) = (self.float_expr(1), self.float_expr(1));
            self.line(format!(
                "tile[lid] = {a}; tb[lid] = {b}; barrier(CLK_LOCAL_MEM_FENCE);"
            ));
            // (`fmax`'s zero made `+0.0f`, as in `min_max`.)
            let step = self.rng.pick(&[
                "{v} = fma(tile[ly * lsx + k % lsx], tb[(k % lsy) * lsx + lx], {v});",
                "{v} += tile[ly * lsx + k % lsx] * tb[(k % lsy) * lsx + lx];",
                "{v} = {v} - tile[ly * lsx + k % lsx] * tb[(k % lsy) * lsx + lx];",
                "{v} = fma(tile[ly * lsx + k % lsx], tb[(k % lsy) * lsx + lx], {v}) * 0.5f;",
                "{v} += exp(tile[ly * lsx + k % lsx] + vz) * tb[(k % lsy) * lsx + lx];",
                "{v} = fmax({v}, tile[ly * lsx + k % lsx] * tb[(k % lsy) * lsx + lx] + tb[(k % lsy) * lsx + lx]) + 0.0f;",
            ]);
            let step = step.replace("{v}", &acc);
            let exit = match self.rng.below(4) {
                0 => {
                    let c = self.rng.pick(&[
                        "k == ly",
                        "k > lx",
                        "{v} != {v}",
                        "{v} > 1.0e30f",
                        "fabs({v}) == INFINITY",
                    ]);
                    let what = self.rng.pick(&["break", "continue"]);
                    format!(" if ({}) {what};", c.replace("{v}", &acc))
                }
                _ => String::new(),
            };
            // A constant trip (a bound read from the group's size keeps
            // the rows out of flight); `%` keeps `k` inside the group.
            let trips = self.rng.pick(&[2, 3, 4, 8, 16]);
            self.line(format!(
                "for (int k = 0; k < {trips}; k++) {{{exit} {step} }}"
            ));
            self.line("barrier(CLK_LOCAL_MEM_FENCE);");
            if self.rng.percent(50) {
                let c = self.cond();
                let e = self.float_expr(1);
                self.line(format!("if ({c}) out[idx] = as_uint({acc} + {e});"));
            }
        }
        self.fold_all();
        self.line("uint o = out[idx];");
        self.line("o = ((o & 0x7fffffffu) > 0x7f800000u) ? 0x7fc00000u : o;");
        self.line("out[idx] = (o * 0x01000193u) ^ h;");
        self.indent -= 1;
        self.line("}");
    }

    /// A tile staged in `__local` memory between two barriers, then read
    /// back: a neighbour's value, a loop over the row or the column of
    /// the group (the rows-in-flight shape of a matmul), or a tree over
    /// each row in `float` or `double`.
    fn barrier_section(&mut self) {
        let a = self.float_expr(2);
        let b = self.float_expr(2);
        self.line(format!(
            "tile[lid] = {a}; tb[lid] = {b}; barrier(CLK_LOCAL_MEM_FENCE);"
        ));
        let v = self.name("f");
        match self.rng.below(5) {
            0 => self.line(format!(
                "float {v} = tile[(lid + 1) % lsz] + tb[lsz - 1 - lid];"
            )),
            4 => {
                // A tree over each row of the group, in `float` or
                // `double` (`if (lx < s)`: the wide code skips the rest of
                // a row's chunks once one fails it); `s` is group-level.
                let (arr, cast) = match self.rng.percent(50) {
                    true => ("tile", ""),
                    false => ("dt", "(float)"),
                };
                if arr == "dt" {
                    let e = self.float_expr(1);
                    self.line(format!(
                        "dt[lid] = (double){e} * 1.5; barrier(CLK_LOCAL_MEM_FENCE);"
                    ));
                }
                self.line(format!(
                    "for (int s = lsx / 2; s > 0; s >>= 1) {{ if (lx < s) {arr}[lid] += {arr}[lid + s]; barrier(CLK_LOCAL_MEM_FENCE); }}"
                ));
                self.line(format!("float {v} = {cast}{arr}[ly * lsx];"));
            }
            1 => {
                let acc = self.float_expr(1);
                self.line(format!("float {v} = {acc};"));
                // (`fmax`'s zero made `+0.0f`, as in `min_max`.)
                let op = self.rng.pick(&[
                    "{v} = fma(tile[ly * lsx + k], tb[k * lsx + lx], {v});",
                    "{v} += tile[ly * lsx + k] * tb[k * lsx + lx];",
                    "{v} = {v} - tile[ly * lsx + k] * tb[k];",
                    "{v} = (fmax({v}, tile[ly * lsx + k]) + 0.0f) + tb[k];",
                ]);
                let op = op.replace("{v}", &v);
                // `k` stays below the group's rows and columns.
                self.line(format!(
                    "for (int k = 0; k < min(lsx, lsy); k++) {{ {op} }}"
                ));
            }
            2 => {
                let c = self.cond();
                self.line(format!(
                    "float {v} = ({c}) ? tile[lsz - 1 - lid] : tb[(lid * 5) % lsz];"
                ));
            }
            _ => self.line(format!("float {v} = tile[lx] * tb[ly * lsx];")),
        }
        self.floats.last_mut().expect("a scope").push(v.clone());
        self.line(format!("h = (h ^ ({v} != {v} ? 0x7fc00000u : as_uint({v}))) * 0x01000193u; barrier(CLK_LOCAL_MEM_FENCE);"));
    }

    fn literal(&mut self) -> String {
        self.rng.pick(&SPECIAL).to_string()
    }

    fn statement(&mut self) {
        self.budget -= 1;
        let nested = self.depth < 3;
        match self.rng.below(16) {
            0..=3 => {
                let e = self.float_expr(3);
                let v = self.name("f");
                self.line(format!("float {v} = {e};"));
                self.floats.last_mut().expect("a scope").push(v);
            }
            4 => {
                let e = self.uint_expr(2);
                let v = self.name("u");
                self.line(format!("uint {v} = {e};"));
                self.uints.last_mut().expect("a scope").push(v);
            }
            5 | 6 => {
                let v = self.any_float();
                let e = self.float_expr(3);
                let op = self.rng.pick(&["=", "+=", "*=", "-="]);
                self.line(format!("{v} {op} {e};"));
            }
            7 => {
                // A masked store of an add (one masked add in the wide
                // code), read back at the end.
                let c = self.cond();
                let e = if self.rng.percent(60) {
                    let (a, b) = (self.float_expr(1), self.float_expr(1));
                    format!("as_uint({a} + {b})")
                } else {
                    let (a, b) = (self.any_uint(), self.uint_expr(1));
                    format!("{a} + {b}")
                };
                self.line(format!("if ({c}) out[idx] = {e};"));
            }
            8 | 9 if nested => self.if_statement(),
            10 | 11 if nested => self.loop_statement(),
            12 => self.fold_one(),
            13 if self.in_loop => {
                let c = self.cond();
                let what = self.rng.pick(&["break", "continue"]);
                self.line(format!("if ({c}) {what};"));
            }
            14 if self.may_return => {
                let c = self.cond();
                self.line(format!("if ({c}) {{ out[idx] = h ^ 0xa5a5u; return; }}"));
            }
            15 => {
                // The `double` accumulator (a variable of two halves on
                // the wide code, its FMAs merged under masks).
                let (a, b) = (self.float_expr(2), self.float_expr(1));
                let line = match self.rng.below(4) {
                    0 => format!("dacc += (double){a} * (double){b};"),
                    1 => format!("dacc = fma((double){a}, 0.25, dacc);"),
                    2 => format!("dacc = dacc * 0.5 + (double){a};"),
                    _ => {
                        let c = self.cond();
                        format!("if ({c}) dacc -= (double){a};")
                    }
                };
                self.line(line);
            }
            _ => self.fold_one(),
        }
    }

    fn block(&mut self) {
        self.floats.push(Vec::new());
        self.uints.push(Vec::new());
        self.indent += 1;
        self.depth += 1;
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            self.statement();
        }
        // The block's variables reach the hash before they go.
        let mine: Vec<String> = self.floats.last().expect("a scope").clone();
        for v in mine {
            self.line(format!(
                "h = (h ^ ({v} != {v} ? 0x7fc00000u : as_uint({v}))) * 0x01000193u;"
            ));
        }
        let mine: Vec<String> = self.uints.last().expect("a scope").clone();
        for v in mine {
            self.line(format!("h = (h ^ {v}) * 0x01000193u;"));
        }
        self.depth -= 1;
        self.indent -= 1;
        // Repeated expressions may name the block's variables.
        self.recent.clear();
        self.floats.pop();
        self.uints.pop();
    }

    fn if_statement(&mut self) {
        let c = if self.rng.percent(30) {
            // An arm no work-item or only a few take.
            self.rng
                .pick(&[
                    "idx == 100000u",
                    "idx == 3u",
                    "(idx & 31u) == 31u",
                    "gid > 0xfffff000u",
                ])
                .to_string()
        } else {
            self.cond()
        };
        self.line(format!("if ({c}) {{"));
        self.block();
        if self.rng.percent(40) {
            self.line("} else {");
            self.block();
        }
        self.line("}");
    }

    fn loop_statement(&mut self) {
        let i = self.name("i");
        let bound = match self.rng.below(4) {
            0 => format!("{}u", 1 + self.rng.below(6)),
            1 => "(idx & 3u) + 1u".to_string(),
            2 => format!("(in[(idx + {}u) & 63u] & 7u)", self.rng.below(64)),
            _ => "((idx >> 4) & 3u)".to_string(),
        };
        let was = self.in_loop;
        self.in_loop = true;
        match self.rng.below(3) {
            0 => {
                self.line(format!("uint {i} = {bound};"));
                self.line(format!("while ({i} > 0u) {{"));
                self.line(format!("    {i}--;"));
            }
            _ => self.line(format!("for (uint {i} = 0u; {i} < {bound}; {i}++) {{")),
        }
        self.uints.push(vec![i]);
        self.block();
        self.uints.pop();
        self.line("}");
        self.in_loop = was;
    }

    fn fold_one(&mut self) {
        let v = self.any_float();
        self.line(format!(
            "h = (h ^ ({v} != {v} ? 0x7fc00000u : as_uint({v}))) * 0x01000193u;"
        ));
    }

    fn fold_all(&mut self) {
        self.line("float fdacc = (float)dacc;");
        self.line("h = (h ^ (fdacc != fdacc ? 0x7fc00000u : as_uint(fdacc))) * 0x01000193u;");
        let all: Vec<String> = self.floats.iter().flatten().cloned().collect();
        for v in all {
            self.line(format!(
                "h = (h ^ ({v} != {v} ? 0x7fc00000u : as_uint({v}))) * 0x01000193u;"
            ));
        }
        let all: Vec<String> = self.uints.iter().flatten().cloned().collect();
        for v in all {
            self.line(format!("h = (h ^ {v}) * 0x01000193u;"));
        }
    }

    fn cond(&mut self) -> String {
        match self.rng.below(6) {
            0 => {
                let (a, b) = (self.float_expr(1), self.float_expr(1));
                let op = self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                format!("{a} {op} {b}")
            }
            1 => {
                let e = self.float_expr(1);
                format!("{e} != {e}")
            }
            2 => format!("fabs({}) == INFINITY", self.any_float()),
            3 => {
                let u = self.any_uint();
                format!(
                    "({u} & {}u) == {}u",
                    1 + self.rng.below(7),
                    self.rng.below(2)
                )
            }
            4 => format!("{} > 0.0f", self.any_float()),
            _ => format!("(idx % {}u) == 0u", 2 + self.rng.below(5)),
        }
    }

    fn uint_expr(&mut self, depth: u32) -> String {
        if depth == 0 {
            return match self.rng.below(3) {
                0 => format!("{}u", self.rng.below(1 << 16)),
                _ => self.any_uint(),
            };
        }
        match self.rng.below(7) {
            0 => {
                let f = self.any_float();
                format!("({f} != {f} ? 0x7fc00000u : as_uint({f}))")
            }
            1 => format!("(uint)({})", self.cond()),
            2 => {
                let e = self.float_expr(depth.saturating_sub(1));
                match self.rng.percent(5) {
                    // (A saturating float to `int` conversion is the
                    // plain one, as the interpreter converts.)
                    true => format!("(uint)convert_int_sat({e})"),
                    false => format!("(uint)(fabs({e}) < 1.0e6f ? (int)({e}) : -7)"),
                }
            }
            3 => {
                let (a, b) = (self.uint_expr(depth - 1), self.uint_expr(depth - 1));
                let op = self.rng.pick(&["+", "-", "*", "^", "&", "|"]);
                format!("({a} {op} {b})")
            }
            4 => {
                let (a, b) = (self.uint_expr(depth - 1), self.uint_expr(depth - 1));
                format!("({a} >> ({b} & 31u))")
            }
            5 => {
                let (a, b) = (self.uint_expr(depth - 1), self.uint_expr(depth - 1));
                format!("({a} % ({b} | 1u))")
            }
            _ => self.uint_expr(0),
        }
    }

    fn float_expr(&mut self, depth: u32) -> String {
        let e = self.float_expr_inner(depth);
        if depth >= 1 {
            self.recent.push(e.clone());
            if self.recent.len() > 6 {
                self.recent.remove(0);
            }
        }
        e
    }

    fn float_expr_inner(&mut self, depth: u32) -> String {
        if depth == 0 {
            return match self.rng.below(5) {
                0 => self.literal(),
                1 => format!("(float)(int)({} & 0xffu)", self.any_uint()),
                _ => self.any_float(),
            };
        }
        let d = depth - 1;
        match self.rng.below(20) {
            0..=2 => {
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                let op = self.rng.pick(&["+", "-", "*", "+", "*"]);
                format!("({a} {op} {b})")
            }
            3 => {
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                format!("({a} / {b})")
            }
            4 | 5 => {
                // The FMA shapes.
                let (a, b, c) = (self.float_expr(d), self.float_expr(d), self.float_expr(d));
                match self.rng.below(7) {
                    0 => format!("fma({a}, {b}, {c})"),
                    1 => format!("mad({a}, {b}, {c})"),
                    2 => format!("({a} * {b} + {c})"),
                    3 => format!("({c} - {a} * {b})"),
                    4 => format!("(-({a} * {b}) + {c})"),
                    5 => format!("(-fma({a}, {b}, {c}))"),
                    _ => format!("fma({a}, {b}, -({c}))"),
                }
            }
            6 | 7 => {
                // (Not `exp2` or `log2`: the wide code's differ from
                // Cranelift's in the last bit at times, `jit/src/wide/math.rs`.)
                let f = self.rng.pick(&["exp", "log", "sin", "cos"]);
                let x = self.float_expr(d);
                math_call(f, &x)
            }
            8 => {
                let f = self.rng.pick(&["sqrt", "fabs", "floor", "-"]);
                format!("{f}({})", self.float_expr(d))
            }
            9 => {
                let f = self.rng.pick(&["fmin", "fmax"]);
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                min_max(f, &a, &b)
            }
            10 => {
                let c = self.cond();
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                format!("(({c}) ? {a} : {b})")
            }
            11 | 12 if !self.recent.is_empty() => {
                // A repeated subexpression (the wide code shares it).
                let r = self.recent[self.rng.below(self.recent.len() as u64) as usize].clone();
                let other = self.float_expr(d);
                let op = self.rng.pick(&["+", "*", "-"]);
                format!("({r} {op} {other})")
            }
            15 | 16 => {
                // `double` arithmetic, conversions, comparisons and math
                // (two zmm halves on the wide code), rounded back.
                let (a, b) = (self.float_expr(d), self.float_expr(d));
                match self.rng.below(8) {
                    0 => format!("(float)((double){a} * (double){b} + 0.1)"),
                    1 => format!("(float)((double){a} / ((double){b} - 0.3))"),
                    2 => format!("(float)sqrt(fabs((double){a}) + (double){b})"),
                    3 => format!("(float)exp((double){a} * 0.25 + vz)"),
                    4 => format!("(float)log(fabs((double){a}) + vz)"),
                    5 => format!("(float)(fmin(floor((double){a} * 8.0), (double){b}) + 0.0f)"),
                    6 => format!("(float)((double)(int){a} + (double)(uint){b} * 0.5)"),
                    _ => format!("(((double){a} < (double){b} * 1.5) ? {a} : {b})"),
                }
            }
            13 => format!("(float){}", self.uint_expr(d.min(1))),
            14 => format!("(float)(int){}", self.uint_expr(d.min(1))),
            _ => self.float_expr(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_deterministic_and_varied() {
        assert_eq!(generate(7), generate(7));
        assert_ne!(generate(7), generate(8));
        let all: String = (0..200).map(generate).collect();
        for needle in [
            "barrier(",
            "break;",
            "continue;",
            "return;",
            "fma(",
            "exp(",
            "sin(",
            "NAN",
            "INFINITY",
            "0x1p-140f",
            "tile[ly * lsx + k]",
        ] {
            assert!(all.contains(needle), "{needle} never generated");
        }
    }

    #[test]
    fn kernels_are_valid_and_comparable() {
        for seed in 0..300 {
            let k = generate(seed);
            // A negated negative literal would be `--x` (not assignable);
            // the only `--` is a counter's decrement.
            for (at, _) in k.match_indices("--") {
                assert!(k[at + 2..].starts_with(';'), "{k}");
            }
            // `exp` and `log` only of varying arguments (`math_call`), and
            // neither `exp2` nor `log2` (the wide code's differ from
            // Cranelift's in the last bit).
            for f in ["exp(", "log("] {
                for (at, _) in k.match_indices(f) {
                    let call = &k[at..];
                    let end = call.find(';').unwrap_or(call.len());
                    assert!(call[..end].contains("+ vz)"), "{}", &call[..end]);
                }
            }
            assert!(!k.contains("exp2(") && !k.contains("log2("), "{k}");
        }
    }

    /// The text after the call that starts at `at` (`f(` … its `)`).
    fn after_call(k: &str, at: usize) -> &str {
        let mut depth = 0;
        for (i, c) in k[at..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 1 => return &k[at + i + 1..],
                ')' => depth -= 1,
                _ => {}
            }
        }
        ""
    }

    #[test]
    fn zeros_of_fmin_and_fmax_are_made_positive_and_no_others() {
        assert_eq!(min_max("fmax", "a", "b"), "(fmax(a, b) + 0.0f)");
        let (mut calls, mut negative_zeros) = (0, 0);
        for seed in 0..300 {
            let k = generate(seed);
            for f in ["fmin(", "fmax("] {
                for (at, _) in k.match_indices(f) {
                    calls += 1;
                    let rest = after_call(&k, at);
                    assert!(rest.starts_with(" + 0.0f"), "seed {seed}: {f}…{rest:.40}");
                }
            }
            // Other zeros keep their sign into the hash: the fold reads
            // `as_uint` of the value, only NaNs made one pattern.
            for line in k.lines().filter(|l| l.contains("h = (h ^")) {
                assert!(!line.contains("0.0f"), "seed {seed}: {line}");
            }
            negative_zeros += k.matches("-0.0f").count();
        }
        assert!(calls > 100, "{calls} calls of fmin and fmax");
        assert!(negative_zeros > 100, "{negative_zeros} literals -0.0f");
    }

    #[test]
    fn kernels_without_groups_get_the_long_launch() {
        let seed = (0..100).find(|&s| !sees_groups(s)).expect("one");
        let k = generate(seed);
        assert!(!k.contains("get_local_id") && !k.contains("barrier"));
        assert!(shapes(seed).iter().any(|s| s.global[0] >= 16384));
        let seed = (0..100).find(|&s| sees_groups(s)).expect("one");
        assert!(shapes(seed).iter().all(|s| s.global[0] < 16384));
    }
}
