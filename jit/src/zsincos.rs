//! `sincos` of whole 16-float blocks with AVX-512, for the Cranelift code.
//!
//! The Cranelift code computes a chunk's `sincos` (W = 16 or 32: four or
//! eight `f32x4` pieces) in one call of its `sincos` routine
//! (`lower/builtins/routines.rs`), piece by piece in 128-bit registers.
//! On a host with AVX-512F the chunk's call first goes to this routine,
//! which runs the same single-precision steps (`vmath.rs`,
//! `MathCx::sincos_f32`: the same operations in the same order, each
//! rounding once as there, so the same bits) on 16 lanes at a time, and
//! returns 1; when a lane's |x| exceeds the fast path's limit (2^20, or
//! the lanes' `fabs(x) > limit` as the Cranelift routine tests it) it
//! returns 0 at once and the caller runs the Cranelift routine, whose
//! exact per-lane path gives those lanes their results. The FFT of
//! `benches/programs.py` (W = 32, one `sincos` per butterfly) spent about
//! a third of its kernel time in the piecewise routine.
//!
//! The routine is assembled once per process, on first use, and shared by
//! every kernel (it depends on nothing a kernel chooses).

use iced_x86::code_asm::*;
use std::sync::OnceLock;

/// The symbol the Cranelift code imports the routine by.
pub(crate) const SYMBOL: &str = "vecl_sincos_f32_zmm";

/// `(x, out, blocks)`: the sines of the `16 * blocks` floats at `x` to
/// `out`, their cosines after them (`out + 16 * blocks`); 1 when done, 0
/// when a lane needs the exact path (`out` then holds nothing to use).
pub(crate) type Routine = unsafe extern "C" fn(*const f32, *mut f32, u64) -> u32;

struct Code {
    _memory: memmap2::Mmap,
    entry: Routine,
}

/// The assembled routine, when this host runs it.
fn code() -> Option<&'static Code> {
    static CODE: OnceLock<Option<Code>> = OnceLock::new();
    CODE.get_or_init(|| {
        if !crate::wide::supported() || !host_has_fma() {
            return None;
        }
        assemble().ok()
    })
    .as_ref()
}

fn host_has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The routine's address, or `None` on a host without AVX-512F and FMA.
pub(crate) fn address() -> Option<*const u8> {
    code().map(|c| c.entry as *const u8)
}

/// The routine itself (tests).
#[cfg(test)]
fn routine() -> Option<Routine> {
    code().map(|c| c.entry)
}

// The constants of `MathCx::sincos_f32` (`lower/builtins/vmath.rs`).
const TWO_OVER_PI: u32 = 0x3f22_f983;
const PIO2: [u32; 3] = [0x3fc9_0fdb, 0xb33b_bd2e, 0xa6f7_2ced];
const SIN: [u32; 3] = [0xbe2a_aaa2, 0x3c08_837c, 0xb94c_97de];
const COS: [u32; 3] = [0x3d2a_aaa5, 0xbab6_060c, 0x37cc_f1ae];
/// The fast path's limit on |x|: 2^20 (`TRIG_FAST_LIMIT`).
const LIMIT: u32 = 0x4980_0000;

fn assemble() -> Result<Code, String> {
    let mut a = CodeAssembler::new(64).map_err(|e| e.to_string())?;
    emit(&mut a).map_err(|e| e.to_string())?;
    let bytes = a.assemble(0).map_err(|e| e.to_string())?;
    let mut mem = memmap2::MmapMut::map_anon(bytes.len()).map_err(|e| e.to_string())?;
    mem.copy_from_slice(&bytes);
    let memory = mem.make_exec().map_err(|e| e.to_string())?;
    // SAFETY: the mapping holds the function just assembled, System V,
    // with `Routine`'s signature; it lives in the static with the pointer.
    let entry = unsafe { std::mem::transmute::<*const u8, Routine>(memory.as_ptr()) };
    Ok(Code {
        _memory: memory,
        entry,
    })
}

/// The routine's instructions (`rdi` the arguments, `rsi` the results,
/// `rdx` the blocks).
fn emit(a: &mut CodeAssembler) -> Result<(), IcedError> {
    let consts: [(AsmRegisterZmm, u32); 18] = [
        (zmm16, TWO_OVER_PI),
        (zmm17, PIO2[0]),
        (zmm18, PIO2[1]),
        (zmm19, PIO2[2]),
        (zmm20, SIN[0]),
        (zmm21, SIN[1]),
        (zmm22, SIN[2]),
        (zmm23, COS[0]),
        (zmm24, COS[1]),
        (zmm25, COS[2]),
        (zmm26, (-0.5f32).to_bits()),
        (zmm27, 1.0f32.to_bits()),
        (zmm28, 12_582_912.0f32.to_bits()),
        (zmm29, 0x7fff_ffff),
        (zmm30, LIMIT),
        (zmm31, 0x8000_0000),
        (zmm15, 1),
        (zmm14, 2),
    ];
    for (z, bits) in consts {
        a.mov(eax, bits)?;
        a.vpbroadcastd(z, eax)?;
    }
    a.vpxord(zmm13, zmm13, zmm13)?;
    // rcx: where the cosines go.
    a.mov(rcx, rdx)?;
    a.shl(rcx, 6)?;
    a.add(rcx, rsi)?;
    let mut next = a.create_label();
    let mut huge = a.create_label();
    a.test(rdx, rdx)?;
    let mut done = a.create_label();
    a.jz(done)?;
    a.set_label(&mut next)?;
    a.vmovups(zmm0, zmmword_ptr(rdi))?;
    // A lane past the fast path's limit: the caller's exact routine.
    a.vandps(zmm1, zmm0, zmm29)?;
    a.vcmpps(k1, zmm1, zmm30, 0x1e)?; // GT_OQ
    a.kortestw(k1, k1)?;
    a.jnz(huge)?;
    // k = rint(x * 2/pi); r = x - k * pi/2 in three steps.
    a.vmulps(zmm1, zmm0, zmm16)?;
    a.vrndscaleps(zmm1, zmm1, 8)?;
    a.vxorps(zmm2, zmm1, zmm31)?;
    a.vmovaps(zmm3, zmm0)?;
    a.vfmadd231ps(zmm3, zmm2, zmm17)?;
    a.vfmadd231ps(zmm3, zmm2, zmm18)?;
    a.vfmadd231ps(zmm3, zmm2, zmm19)?;
    // z = r^2; s = r + r*z * S(z).
    a.vmulps(zmm4, zmm3, zmm3)?;
    a.vmovaps(zmm5, zmm22)?;
    a.vfmadd213ps(zmm5, zmm4, zmm21)?;
    a.vfmadd213ps(zmm5, zmm4, zmm20)?;
    a.vmulps(zmm6, zmm3, zmm4)?;
    a.vfmadd213ps(zmm5, zmm6, zmm3)?;
    // c = 1 + (z*z * C(z) + z * -0.5).
    a.vmovaps(zmm7, zmm25)?;
    a.vfmadd213ps(zmm7, zmm4, zmm24)?;
    a.vfmadd213ps(zmm7, zmm4, zmm23)?;
    a.vmulps(zmm8, zmm4, zmm26)?;
    a.vmulps(zmm9, zmm4, zmm4)?;
    a.vfmadd213ps(zmm7, zmm9, zmm8)?;
    a.vaddps(zmm7, zmm7, zmm27)?;
    // The quadrant from the low bits of k + 1.5 * 2^23.
    a.vaddps(zmm10, zmm1, zmm28)?;
    a.vptestmd(k2, zmm10, zmm15)?;
    a.vblendmps(zmm11.k2(), zmm5, zmm7)?;
    a.vblendmps(zmm12.k2(), zmm7, zmm5)?;
    a.vpandd(zmm1, zmm10, zmm14)?;
    a.vpslld(zmm1, zmm1, 30)?;
    a.vpaddd(zmm2, zmm10, zmm15)?;
    a.vpandd(zmm2, zmm2, zmm14)?;
    a.vpslld(zmm2, zmm2, 30)?;
    a.vpxord(zmm11, zmm11, zmm1)?;
    a.vpxord(zmm12, zmm12, zmm2)?;
    // sin(±0) = ±0.
    a.vcmpps(k3, zmm0, zmm13, 0)?; // EQ_OQ
    a.vblendmps(zmm11.k3(), zmm11, zmm0)?;
    a.vmovups(zmmword_ptr(rsi), zmm11)?;
    a.vmovups(zmmword_ptr(rcx), zmm12)?;
    a.add(rdi, 64)?;
    a.add(rsi, 64)?;
    a.add(rcx, 64)?;
    a.dec(rdx)?;
    a.jnz(next)?;
    a.set_label(&mut done)?;
    a.mov(eax, 1)?;
    a.vzeroupper()?;
    a.ret()?;
    a.set_label(&mut huge)?;
    a.xor(eax, eax)?;
    a.vzeroupper()?;
    a.ret()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `MathCx::sincos_f32`'s steps in Rust (`mul_add` rounds once, as
    /// the vector FMA does).
    fn reference(x: f32) -> (f32, f32) {
        let f = f32::from_bits;
        let k = (x * f(TWO_OVER_PI)).round_ties_even();
        let nk = -k;
        let mut r = x;
        for c in PIO2 {
            r = nk.mul_add(f(c), r);
        }
        let z = r * r;
        let poly = |c: [u32; 3]| f(c[2]).mul_add(z, f(c[1])).mul_add(z, f(c[0]));
        let s = (r * z).mul_add(poly(SIN), r);
        let c = (z * z).mul_add(poly(COS), z * -0.5) + 1.0;
        let kb = (k + 12_582_912.0).to_bits();
        let (sv, cv) = if kb & 1 == 1 { (c, s) } else { (s, c) };
        let sn = f32::from_bits(sv.to_bits() ^ ((kb & 2) << 30));
        let cn = f32::from_bits(cv.to_bits() ^ ((kb.wrapping_add(1) & 2) << 30));
        (if x == 0.0 { x } else { sn }, cn)
    }

    fn run(xs: &[f32]) -> Option<(Vec<f32>, Vec<f32>)> {
        let f = routine()?;
        let blocks = xs.len() / 16;
        let mut out = vec![0f32; 2 * xs.len()];
        // SAFETY: `xs` holds `blocks` blocks of 16 floats and `out` twice
        // as many.
        let ok = unsafe { f(xs.as_ptr(), out.as_mut_ptr(), blocks as u64) };
        (ok == 1).then(|| (out[..xs.len()].to_vec(), out[xs.len()..].to_vec()))
    }

    #[test]
    fn blocks_match_the_scalar_steps_to_the_bit() {
        if routine().is_none() {
            return;
        }
        let mut xs: Vec<f32> = vec![0.0, -0.0, f32::NAN, -f32::NAN];
        xs.extend([1e-40f32, -1e-45, f32::MIN_POSITIVE, 1048576.0, -1048576.0]);
        // Every 97th float in [2^-3, 2^20), both signs.
        let (lo, hi) = (0.125f32.to_bits(), 1048576.0f32.to_bits());
        let mut b = lo;
        while b < hi {
            xs.push(f32::from_bits(b));
            xs.push(-f32::from_bits(b));
            b += 97;
        }
        while !xs.len().is_multiple_of(16) {
            xs.push(0.5);
        }
        let (s, c) = run(&xs).expect("no lane past the limit");
        for (i, &x) in xs.iter().enumerate() {
            let (rs, rc) = reference(x);
            let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(same(s[i], rs), "sin({x:e}): {:e} vs {rs:e}", s[i]);
            assert!(same(c[i], rc), "cos({x:e}): {:e} vs {rc:e}", c[i]);
        }
    }

    #[test]
    fn a_lane_past_the_limit_or_no_block_is_left_to_the_caller() {
        if routine().is_none() {
            return;
        }
        let mut xs = vec![1.0f32; 32];
        assert!(run(&xs).is_some());
        // In the second block: the whole call is the caller's.
        xs[20] = 1048576.5;
        assert!(run(&xs).is_none());
        for huge in [-3.0e7, f32::INFINITY, f32::NEG_INFINITY] {
            xs[20] = huge;
            assert!(run(&xs).is_none());
        }
        // No block: nothing to do, done.
        assert!(run(&[]).is_some());
    }
}
