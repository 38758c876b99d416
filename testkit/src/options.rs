//! The options the tests compile kernels with.

/// The tiers a test compiles width `w` with: those `VECL_JIT_TIERS` names
/// when it is set; otherwise the quick code at W = 8 and the optimised
/// code (which adds a copy for full chunks) at the other widths, each
/// compiled before `compile_kernel` returns. So every kernel is checked in
/// both forms, and which code a launch runs never depends on when a
/// background compilation ends (`tiers.rs` tests the replacement of the
/// quick code itself).
pub fn test_tiers(w: u32) -> vecl_jit::Tiers {
    use vecl_jit::Tiers;
    match std::env::var("VECL_JIT_TIERS") {
        Ok(name) => Tiers::from_name(&name).unwrap_or(Tiers::Both),
        Err(_) if w == 8 => Tiers::QuickOnly,
        Err(_) => Tiers::OptimisedOnly,
    }
}

/// The middle passes as the tests run them: verified after each one.
pub fn test_passes() -> vecl_ir::transform::pipeline::PipelineOptions {
    vecl_ir::transform::pipeline::PipelineOptions {
        verify: true,
        ..Default::default()
    }
}

/// The options of the wide code's tests: W = 16 with the wide AVX-512
/// code allowed, the optimised tier only, the passes verified.
pub fn wide_options() -> vecl_jit::JitOptions {
    vecl_jit::JitOptions {
        simd_width: Some(16),
        wide: true,
        tiers: vecl_jit::Tiers::OptimisedOnly,
        passes: test_passes(),
        ..vecl_jit::JitOptions::default()
    }
}

/// Set by [`refuse_prefetch_patches`].
static REFUSE_PREFETCH_PATCHES: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// From now on the harness compiles with [`vecl_jit::Prefetch::RefusePatch`]
/// (for the test binary of the prefetch fallback, which shares its
/// process with no other test).
pub fn refuse_prefetch_patches() {
    REFUSE_PREFETCH_PATCHES.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The prefetch option the harness compiles with.
pub fn test_prefetch() -> vecl_jit::Prefetch {
    if REFUSE_PREFETCH_PATCHES.load(std::sync::atomic::Ordering::Relaxed) {
        vecl_jit::Prefetch::RefusePatch
    } else {
        vecl_jit::Prefetch::On
    }
}
