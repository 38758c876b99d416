//! Which code a kernel gets: the wide AVX-512 entry ([`super::entry`] around
//! the body [`super::lower`] makes) or Cranelift's, and why.
//!
//! The wide code is chosen only when it is asked for (`JitOptions::wide`),
//! the kernel is compiled unchecked, with robust access (whose bounds
//! tests the wide code makes itself, `super::access`), or in checked mode
//! without `__local` memory or barriers (checked mode's `__local` race and
//! initialisation checks and its naming of rows that disagree at a
//! barrier are Cranelift's only; a kernel with neither has nothing more
//! to check than robust access does), its
//! chunks are 16 lanes wide, this CPU has AVX-512F and BMI2, and every
//! operation of the kernel is in the subset [`super::lower`] takes. The
//! Cranelift entry stays the fallback: the wide entry jumps to it for a
//! launch whose ids do not fit in 31 bits.

use super::access::MemoryPlan;
use super::entry::{compile_entry, EntryOptions, KernelCode, KernelEntry};
use crate::abi::ArgSlot;
use vecl_ir::analysis::uniformity::Uniformity;
use vecl_ir::{Function, Module};

/// What the choice looks at.
pub struct Request<'a> {
    /// `JitOptions::wide`.
    pub asked: bool,
    /// Checked mode or robust access (`JitOptions::checked`): the offset
    /// of the checked tail in the argument block.
    pub checked_tail: Option<u32>,
    /// Checked mode's `__local` checks (`JitOptions::local_checks`), for
    /// a kernel with `__local` memory or a barrier (what they watch).
    pub local_checks: bool,
    /// `JitOptions::stream_min_items`.
    pub stream_min_items: u64,
    /// `JitOptions::prefetch` is on.
    pub prefetch: bool,
    /// The copy's lane dimension (`compile`'s `lanes_along`).
    pub lanes_along: usize,
    /// The kernel's chunk width.
    pub w: u32,
    pub module: &'a Module,
    pub func: &'a Function,
    pub uni: &'a Uniformity,
    pub slots: &'a [ArgSlot],
}

/// The outcome: the wide code, or the reason for Cranelift's.
pub enum Choice {
    /// Not asked for: nothing to say.
    NotAsked,
    Wide(KernelCode),
    Refused(String),
}

impl Choice {
    /// The `--explain` line, if any.
    pub fn explain(&self) -> Option<String> {
        match self {
            Choice::NotAsked => None,
            Choice::Wide(c) => {
                let m = c.memory;
                let mut memory = String::new();
                if m.checked > 0 {
                    memory += &format!("; {} accesses bounds-checked", m.checked);
                }
                if m.streaming > 0 {
                    memory += &format!("; {} streaming stores on large launches", m.streaming);
                }
                if m.prefetched > 0 {
                    memory += &format!("; {} loads prefetched", m.prefetched);
                }
                memory += &c.loop_note();
                Some(format!(
                    "code: wide AVX-512 (16 lanes in one zmm register per value, masked tails; {} operations, {} spill slots, {} bytes, generated in {:.3} ms{memory}); Cranelift's code runs launches whose ids exceed 31 bits",
                    c.ops,
                    c.spill_slots,
                    c.size,
                    c.compile_time.as_secs_f64() * 1e3
                ))
            }
            Choice::Refused(why) => Some(format!("code: Cranelift (not the wide code: {why})")),
        }
    }

    /// The wide entry, if chosen.
    pub fn entry(&self) -> Option<KernelEntry> {
        match self {
            Choice::Wide(c) => Some(c.entry()),
            _ => None,
        }
    }

    /// The wide code, if chosen.
    pub fn code(&self) -> Option<&KernelCode> {
        match self {
            Choice::Wide(c) => Some(c),
            _ => None,
        }
    }

    /// The wide code, to keep alive with the kernel.
    pub fn into_code(self) -> Option<KernelCode> {
        match self {
            Choice::Wide(c) => Some(c),
            _ => None,
        }
    }
}

/// Whether this CPU has what the wide code uses (AVX-512F for everything,
/// BMI2 for the tail mask).
pub fn cpu_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Chooses the code of a kernel whose Cranelift entry is `fallback`.
pub fn choose(r: &Request<'_>, fallback: KernelEntry) -> Choice {
    if !r.asked {
        return Choice::NotAsked;
    }
    if r.checked_tail.is_some() && r.local_checks {
        return Choice::Refused(
            "checked mode (its `__local` race and initialisation checks are Cranelift's)".into(),
        );
    }
    if !cpu_supported() {
        return Choice::Refused("this CPU has no AVX-512F and BMI2".into());
    }
    if r.w != 16 {
        return Choice::Refused(format!("W = {} (the wide code runs chunks of 16)", r.w));
    }
    let plan = MemoryPlan::new(r.module, r.func, r.prefetch, r.checked_tail.is_some());
    let mut body = match super::lower::lower_kernel(r.func, r.uni, r.slots, &plan) {
        Ok(p) => p,
        Err(refusal) => return Choice::Refused(refusal.to_string()),
    };
    super::access::refine(&mut body);
    let opts = EntryOptions {
        stream_min_items: r.stream_min_items,
        checked_tail: r.checked_tail,
        lanes_along: r.lanes_along,
    };
    match compile_entry(&body, fallback, &opts) {
        Ok(code) => Choice::Wide(code),
        Err(e) => Choice::Refused(format!("code generation: {e}")),
    }
}
