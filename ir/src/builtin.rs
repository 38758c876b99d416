//! The builtins an `Inst::Builtin` calls: one enum, one name table.
//!
//! [`Builtin`] has a variant per OpenCL C builtin *name* (`sqrt`,
//! `vstore_half4_rtz`, `sub_group_reduce_add`), plus the few internal ones
//! the compiler creates ([`Builtin::ContractFma`],
//! [`Builtin::WorkGroupCombine`]). Overloads are not variants: the front
//! end resolves them, and the argument and result types of the instruction
//! select one, as in OpenCL C.
//!
//! The table below is the only place a builtin's name is written. The
//! front ends map source names and SPIR-V instructions to variants with
//! [`Builtin::from_name`], the text form prints [`Builtin::name`], and the
//! interpreter and the JIT dispatch with a `match` that lists every
//! variant, so a new builtin does not compile until each of them says what
//! it does with it. The groups of variants that a consumer always handles
//! together (vector loads and stores, work-group collectives, sub-group
//! functions) are patterns here: [`vector_data_builtins!`](crate::vector_data_builtins),
//! [`work_group_builtins!`](crate::work_group_builtins), [`sub_group_builtins!`](crate::sub_group_builtins).

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

macro_rules! builtins {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// An OpenCL C builtin, by name (see the [module](self) header).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Builtin {
            $($(#[$doc])* #[doc = concat!("`", $name, "`")] $variant,)*
        }

        impl Builtin {
            /// Every builtin, in table order.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$variant,)*];

            /// The name: OpenCL C's, which the text form prints.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => $name,)*
                }
            }
        }
    };
}

builtins! {
    // Math functions, with their `native_` and `half_` forms.
    Acos => "acos",
    Acosh => "acosh",
    Acospi => "acospi",
    Asin => "asin",
    Asinh => "asinh",
    Asinpi => "asinpi",
    Atan => "atan",
    Atanh => "atanh",
    Atanpi => "atanpi",
    Cbrt => "cbrt",
    Ceil => "ceil",
    Cos => "cos",
    Cosh => "cosh",
    Cospi => "cospi",
    Erfc => "erfc",
    Erf => "erf",
    Exp => "exp",
    Exp2 => "exp2",
    Exp10 => "exp10",
    Expm1 => "expm1",
    Fabs => "fabs",
    Floor => "floor",
    Lgamma => "lgamma",
    Log => "log",
    Log2 => "log2",
    Log10 => "log10",
    Log1p => "log1p",
    Logb => "logb",
    Rint => "rint",
    Round => "round",
    Rsqrt => "rsqrt",
    Sin => "sin",
    Sinh => "sinh",
    Sinpi => "sinpi",
    Sqrt => "sqrt",
    Tan => "tan",
    Tanh => "tanh",
    Tanpi => "tanpi",
    Tgamma => "tgamma",
    Trunc => "trunc",
    NativeCos => "native_cos",
    NativeExp => "native_exp",
    NativeExp2 => "native_exp2",
    NativeExp10 => "native_exp10",
    NativeLog => "native_log",
    NativeLog2 => "native_log2",
    NativeLog10 => "native_log10",
    NativeRecip => "native_recip",
    NativeRsqrt => "native_rsqrt",
    NativeSin => "native_sin",
    NativeSqrt => "native_sqrt",
    NativeTan => "native_tan",
    HalfCos => "half_cos",
    HalfExp => "half_exp",
    HalfExp2 => "half_exp2",
    HalfExp10 => "half_exp10",
    HalfLog => "half_log",
    HalfLog2 => "half_log2",
    HalfLog10 => "half_log10",
    HalfRecip => "half_recip",
    HalfRsqrt => "half_rsqrt",
    HalfSin => "half_sin",
    HalfSqrt => "half_sqrt",
    HalfTan => "half_tan",
    Atan2 => "atan2",
    Atan2pi => "atan2pi",
    Copysign => "copysign",
    Fdim => "fdim",
    Fmod => "fmod",
    Hypot => "hypot",
    Maxmag => "maxmag",
    Minmag => "minmag",
    Nextafter => "nextafter",
    Pow => "pow",
    Powr => "powr",
    Remainder => "remainder",
    NativeDivide => "native_divide",
    NativePowr => "native_powr",
    HalfDivide => "half_divide",
    HalfPowr => "half_powr",
    Fmax => "fmax",
    Fmin => "fmin",
    Fma => "fma",
    Mad => "mad",
    Fract => "fract",
    Modf => "modf",
    Sincos => "sincos",
    Frexp => "frexp",
    LgammaR => "lgamma_r",
    Remquo => "remquo",
    Ldexp => "ldexp",
    Pown => "pown",
    Rootn => "rootn",
    Ilogb => "ilogb",
    Nan => "nan",
    // Integer functions.
    Abs => "abs",
    AbsDiff => "abs_diff",
    AddSat => "add_sat",
    Hadd => "hadd",
    Rhadd => "rhadd",
    Clz => "clz",
    Ctz => "ctz",
    MadHi => "mad_hi",
    MadSat => "mad_sat",
    MulHi => "mul_hi",
    Rotate => "rotate",
    SubSat => "sub_sat",
    Popcount => "popcount",
    Mad24 => "mad24",
    Mul24 => "mul24",
    Upsample => "upsample",
    // Common functions.
    Clamp => "clamp",
    Degrees => "degrees",
    Max => "max",
    Min => "min",
    Mix => "mix",
    Radians => "radians",
    Step => "step",
    Smoothstep => "smoothstep",
    Sign => "sign",
    // Geometric functions.
    Cross => "cross",
    Dot => "dot",
    Distance => "distance",
    Length => "length",
    Normalize => "normalize",
    FastDistance => "fast_distance",
    FastLength => "fast_length",
    FastNormalize => "fast_normalize",
    // Relational functions.
    Isequal => "isequal",
    Isnotequal => "isnotequal",
    Isgreater => "isgreater",
    Isgreaterequal => "isgreaterequal",
    Isless => "isless",
    Islessequal => "islessequal",
    Islessgreater => "islessgreater",
    Isfinite => "isfinite",
    Isinf => "isinf",
    Isnan => "isnan",
    Isnormal => "isnormal",
    Isordered => "isordered",
    Isunordered => "isunordered",
    Signbit => "signbit",
    Any => "any",
    All => "all",
    Bitselect => "bitselect",
    Select => "select",
    // Vector data load and store.
    Vload2 => "vload2",
    Vload3 => "vload3",
    Vload4 => "vload4",
    Vload8 => "vload8",
    Vload16 => "vload16",
    Vstore2 => "vstore2",
    Vstore3 => "vstore3",
    Vstore4 => "vstore4",
    Vstore8 => "vstore8",
    Vstore16 => "vstore16",
    VloadHalf => "vload_half",
    VloadHalf2 => "vload_half2",
    VloadHalf3 => "vload_half3",
    VloadHalf4 => "vload_half4",
    VloadHalf8 => "vload_half8",
    VloadHalf16 => "vload_half16",
    VloadaHalf2 => "vloada_half2",
    VloadaHalf3 => "vloada_half3",
    VloadaHalf4 => "vloada_half4",
    VloadaHalf8 => "vloada_half8",
    VloadaHalf16 => "vloada_half16",
    VstoreHalf => "vstore_half",
    VstoreHalfRte => "vstore_half_rte",
    VstoreHalfRtz => "vstore_half_rtz",
    VstoreHalfRtp => "vstore_half_rtp",
    VstoreHalfRtn => "vstore_half_rtn",
    VstoreHalf2 => "vstore_half2",
    VstoreHalf2Rte => "vstore_half2_rte",
    VstoreHalf2Rtz => "vstore_half2_rtz",
    VstoreHalf2Rtp => "vstore_half2_rtp",
    VstoreHalf2Rtn => "vstore_half2_rtn",
    VstoreHalf3 => "vstore_half3",
    VstoreHalf3Rte => "vstore_half3_rte",
    VstoreHalf3Rtz => "vstore_half3_rtz",
    VstoreHalf3Rtp => "vstore_half3_rtp",
    VstoreHalf3Rtn => "vstore_half3_rtn",
    VstoreHalf4 => "vstore_half4",
    VstoreHalf4Rte => "vstore_half4_rte",
    VstoreHalf4Rtz => "vstore_half4_rtz",
    VstoreHalf4Rtp => "vstore_half4_rtp",
    VstoreHalf4Rtn => "vstore_half4_rtn",
    VstoreHalf8 => "vstore_half8",
    VstoreHalf8Rte => "vstore_half8_rte",
    VstoreHalf8Rtz => "vstore_half8_rtz",
    VstoreHalf8Rtp => "vstore_half8_rtp",
    VstoreHalf8Rtn => "vstore_half8_rtn",
    VstoreHalf16 => "vstore_half16",
    VstoreHalf16Rte => "vstore_half16_rte",
    VstoreHalf16Rtz => "vstore_half16_rtz",
    VstoreHalf16Rtp => "vstore_half16_rtp",
    VstoreHalf16Rtn => "vstore_half16_rtn",
    VstoreaHalf2 => "vstorea_half2",
    VstoreaHalf2Rte => "vstorea_half2_rte",
    VstoreaHalf2Rtz => "vstorea_half2_rtz",
    VstoreaHalf2Rtp => "vstorea_half2_rtp",
    VstoreaHalf2Rtn => "vstorea_half2_rtn",
    VstoreaHalf3 => "vstorea_half3",
    VstoreaHalf3Rte => "vstorea_half3_rte",
    VstoreaHalf3Rtz => "vstorea_half3_rtz",
    VstoreaHalf3Rtp => "vstorea_half3_rtp",
    VstoreaHalf3Rtn => "vstorea_half3_rtn",
    VstoreaHalf4 => "vstorea_half4",
    VstoreaHalf4Rte => "vstorea_half4_rte",
    VstoreaHalf4Rtz => "vstorea_half4_rtz",
    VstoreaHalf4Rtp => "vstorea_half4_rtp",
    VstoreaHalf4Rtn => "vstorea_half4_rtn",
    VstoreaHalf8 => "vstorea_half8",
    VstoreaHalf8Rte => "vstorea_half8_rte",
    VstoreaHalf8Rtz => "vstorea_half8_rtz",
    VstoreaHalf8Rtp => "vstorea_half8_rtp",
    VstoreaHalf8Rtn => "vstorea_half8_rtn",
    VstoreaHalf16 => "vstorea_half16",
    VstoreaHalf16Rte => "vstorea_half16_rte",
    VstoreaHalf16Rtz => "vstorea_half16_rtz",
    VstoreaHalf16Rtp => "vstorea_half16_rtp",
    VstoreaHalf16Rtn => "vstorea_half16_rtn",
    // Miscellaneous vector functions.
    Shuffle => "shuffle",
    Shuffle2 => "shuffle2",
    // printf.
    Printf => "printf",
    // Asynchronous copies and prefetch.
    AsyncWorkGroupCopy => "async_work_group_copy",
    AsyncWorkGroupStridedCopy => "async_work_group_strided_copy",
    WaitGroupEvents => "wait_group_events",
    Prefetch => "prefetch",
    // Address space qualifier functions.
    ToGlobal => "to_global",
    ToLocal => "to_local",
    ToPrivate => "to_private",
    GetFence => "get_fence",
    // Image read, write and query functions.
    ReadImagef => "read_imagef",
    ReadImagei => "read_imagei",
    ReadImageui => "read_imageui",
    WriteImagef => "write_imagef",
    WriteImagei => "write_imagei",
    WriteImageui => "write_imageui",
    GetImageWidth => "get_image_width",
    GetImageHeight => "get_image_height",
    GetImageDepth => "get_image_depth",
    GetImageArraySize => "get_image_array_size",
    GetImageDim => "get_image_dim",
    GetImageChannelDataType => "get_image_channel_data_type",
    GetImageChannelOrder => "get_image_channel_order",
    // Work-group collective functions.
    WorkGroupAll => "work_group_all",
    WorkGroupAny => "work_group_any",
    WorkGroupReduceAdd => "work_group_reduce_add",
    WorkGroupReduceMin => "work_group_reduce_min",
    WorkGroupReduceMax => "work_group_reduce_max",
    WorkGroupScanExclusiveAdd => "work_group_scan_exclusive_add",
    WorkGroupScanExclusiveMin => "work_group_scan_exclusive_min",
    WorkGroupScanExclusiveMax => "work_group_scan_exclusive_max",
    WorkGroupScanInclusiveAdd => "work_group_scan_inclusive_add",
    WorkGroupScanInclusiveMin => "work_group_scan_inclusive_min",
    WorkGroupScanInclusiveMax => "work_group_scan_inclusive_max",
    WorkGroupBroadcast => "work_group_broadcast",
    // Sub-group functions (`cl_khr_subgroups`, `cl_khr_subgroup_*`).
    SubGroupAll => "sub_group_all",
    SubGroupAny => "sub_group_any",
    SubGroupReduceAdd => "sub_group_reduce_add",
    SubGroupReduceMin => "sub_group_reduce_min",
    SubGroupReduceMax => "sub_group_reduce_max",
    SubGroupScanExclusiveAdd => "sub_group_scan_exclusive_add",
    SubGroupScanExclusiveMin => "sub_group_scan_exclusive_min",
    SubGroupScanExclusiveMax => "sub_group_scan_exclusive_max",
    SubGroupScanInclusiveAdd => "sub_group_scan_inclusive_add",
    SubGroupScanInclusiveMin => "sub_group_scan_inclusive_min",
    SubGroupScanInclusiveMax => "sub_group_scan_inclusive_max",
    SubGroupBroadcast => "sub_group_broadcast",
    GetSubGroupSize => "get_sub_group_size",
    GetMaxSubGroupSize => "get_max_sub_group_size",
    GetNumSubGroups => "get_num_sub_groups",
    GetEnqueuedNumSubGroups => "get_enqueued_num_sub_groups",
    GetSubGroupId => "get_sub_group_id",
    GetSubGroupLocalId => "get_sub_group_local_id",
    SubGroupElect => "sub_group_elect",
    SubGroupNonUniformAll => "sub_group_non_uniform_all",
    SubGroupNonUniformAny => "sub_group_non_uniform_any",
    SubGroupNonUniformAllEqual => "sub_group_non_uniform_all_equal",
    SubGroupNonUniformBroadcast => "sub_group_non_uniform_broadcast",
    SubGroupShuffle => "sub_group_shuffle",
    SubGroupShuffleXor => "sub_group_shuffle_xor",
    SubGroupShuffleUp => "sub_group_shuffle_up",
    SubGroupShuffleDown => "sub_group_shuffle_down",
    SubGroupBroadcastFirst => "sub_group_broadcast_first",
    SubGroupRotate => "sub_group_rotate",
    SubGroupClusteredRotate => "sub_group_clustered_rotate",
    SubGroupNonUniformReduceAdd => "sub_group_non_uniform_reduce_add",
    SubGroupNonUniformReduceMul => "sub_group_non_uniform_reduce_mul",
    SubGroupNonUniformReduceMin => "sub_group_non_uniform_reduce_min",
    SubGroupNonUniformReduceMax => "sub_group_non_uniform_reduce_max",
    SubGroupNonUniformReduceAnd => "sub_group_non_uniform_reduce_and",
    SubGroupNonUniformReduceOr => "sub_group_non_uniform_reduce_or",
    SubGroupNonUniformReduceXor => "sub_group_non_uniform_reduce_xor",
    SubGroupNonUniformReduceLogicalAnd => "sub_group_non_uniform_reduce_logical_and",
    SubGroupNonUniformReduceLogicalOr => "sub_group_non_uniform_reduce_logical_or",
    SubGroupNonUniformReduceLogicalXor => "sub_group_non_uniform_reduce_logical_xor",
    SubGroupNonUniformScanInclusiveAdd => "sub_group_non_uniform_scan_inclusive_add",
    SubGroupNonUniformScanInclusiveMul => "sub_group_non_uniform_scan_inclusive_mul",
    SubGroupNonUniformScanInclusiveMin => "sub_group_non_uniform_scan_inclusive_min",
    SubGroupNonUniformScanInclusiveMax => "sub_group_non_uniform_scan_inclusive_max",
    SubGroupNonUniformScanInclusiveAnd => "sub_group_non_uniform_scan_inclusive_and",
    SubGroupNonUniformScanInclusiveOr => "sub_group_non_uniform_scan_inclusive_or",
    SubGroupNonUniformScanInclusiveXor => "sub_group_non_uniform_scan_inclusive_xor",
    SubGroupNonUniformScanInclusiveLogicalAnd => "sub_group_non_uniform_scan_inclusive_logical_and",
    SubGroupNonUniformScanInclusiveLogicalOr => "sub_group_non_uniform_scan_inclusive_logical_or",
    SubGroupNonUniformScanInclusiveLogicalXor => "sub_group_non_uniform_scan_inclusive_logical_xor",
    SubGroupNonUniformScanExclusiveAdd => "sub_group_non_uniform_scan_exclusive_add",
    SubGroupNonUniformScanExclusiveMul => "sub_group_non_uniform_scan_exclusive_mul",
    SubGroupNonUniformScanExclusiveMin => "sub_group_non_uniform_scan_exclusive_min",
    SubGroupNonUniformScanExclusiveMax => "sub_group_non_uniform_scan_exclusive_max",
    SubGroupNonUniformScanExclusiveAnd => "sub_group_non_uniform_scan_exclusive_and",
    SubGroupNonUniformScanExclusiveOr => "sub_group_non_uniform_scan_exclusive_or",
    SubGroupNonUniformScanExclusiveXor => "sub_group_non_uniform_scan_exclusive_xor",
    SubGroupNonUniformScanExclusiveLogicalAnd => "sub_group_non_uniform_scan_exclusive_logical_and",
    SubGroupNonUniformScanExclusiveLogicalOr => "sub_group_non_uniform_scan_exclusive_logical_or",
    SubGroupNonUniformScanExclusiveLogicalXor => "sub_group_non_uniform_scan_exclusive_logical_xor",
    SubGroupClusteredReduceAdd => "sub_group_clustered_reduce_add",
    SubGroupClusteredReduceMul => "sub_group_clustered_reduce_mul",
    SubGroupClusteredReduceMin => "sub_group_clustered_reduce_min",
    SubGroupClusteredReduceMax => "sub_group_clustered_reduce_max",
    SubGroupClusteredReduceAnd => "sub_group_clustered_reduce_and",
    SubGroupClusteredReduceOr => "sub_group_clustered_reduce_or",
    SubGroupClusteredReduceXor => "sub_group_clustered_reduce_xor",
    SubGroupClusteredReduceLogicalAnd => "sub_group_clustered_reduce_logical_and",
    SubGroupClusteredReduceLogicalOr => "sub_group_clustered_reduce_logical_or",
    SubGroupClusteredReduceLogicalXor => "sub_group_clustered_reduce_logical_xor",
    SubGroupBallot => "sub_group_ballot",
    SubGroupBallotBitCount => "sub_group_ballot_bit_count",
    SubGroupBallotInclusiveScan => "sub_group_ballot_inclusive_scan",
    SubGroupBallotExclusiveScan => "sub_group_ballot_exclusive_scan",
    SubGroupBallotFindLsb => "sub_group_ballot_find_lsb",
    SubGroupBallotFindMsb => "sub_group_ballot_find_msb",
    SubGroupInverseBallot => "sub_group_inverse_ballot",
    SubGroupBallotBitExtract => "sub_group_ballot_bit_extract",
    GetSubGroupEqMask => "get_sub_group_eq_mask",
    GetSubGroupGeMask => "get_sub_group_ge_mask",
    GetSubGroupGtMask => "get_sub_group_gt_mask",
    GetSubGroupLeMask => "get_sub_group_le_mask",
    GetSubGroupLtMask => "get_sub_group_lt_mask",
    // Internal: created by the compiler, never named by a program.
    /// The contraction of `a * b + c` under `FP_CONTRACT` (the front end
    /// makes it; the JIT fuses it where the target has FMA).
    ContractFma => "contract_fma",
    /// A work-group collective's combining step over the partial results
    /// of the group's chunks: `(kind, op, elem, base, n)` (the JIT's
    /// collective lowering makes it and lowers it).
    WorkGroupCombine => "__vecl_work_group_combine",
}

impl Builtin {
    /// The builtin called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Builtin> {
        static BY_NAME: OnceLock<HashMap<&'static str, Builtin>> = OnceLock::new();
        BY_NAME
            .get_or_init(|| Builtin::ALL.iter().map(|b| (b.name(), *b)).collect())
            .get(name)
            .copied()
    }

    /// The builtin whose value `native_X` and `half_X` compute, which vecl
    /// computes at full precision: `X` (`NativeSin` → `Sin`). Every other
    /// builtin is its own base, including `native_recip`, `native_divide`,
    /// `half_recip` and `half_divide`, which have no plain form.
    pub fn math_base(self) -> Builtin {
        let name = self.name();
        name.strip_prefix("native_")
            .or_else(|| name.strip_prefix("half_"))
            .and_then(Builtin::from_name)
            .unwrap_or(self)
    }

    /// Whether the builtin is a relational test (`isequal` … `isunordered`,
    /// `isnan`, `isinf`, `isfinite`, `isnormal`, `signbit`): it takes floats
    /// and returns integers, and depends on its arguments' values only.
    pub fn is_relational(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            Isequal
                | Isnotequal
                | Isgreater
                | Isgreaterequal
                | Isless
                | Islessequal
                | Islessgreater
                | Isordered
                | Isunordered
                | Isnan
                | Isinf
                | Isfinite
                | Isnormal
                | Signbit
        )
    }

    /// Whether the builtin is pure ([`pure_builtins!`](crate::pure_builtins)):
    /// called again with the same value arguments it gives the same result
    /// and has no effect, so common-subexpression elimination may reuse an
    /// earlier call and the JIT lowers it as a computation on values.
    pub fn is_pure(self) -> bool {
        matches!(self, crate::pure_builtins!())
    }

    /// What a vector load or store builtin moves, or `None` for the rest.
    pub fn vector_data(self) -> Option<VectorData> {
        VectorData::parse(self.name())
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A vector load or store builtin taken apart: `vstorea_half4_rtz` stores
/// 4 components as `half`, aligned, rounding toward zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorData {
    /// `vload…` rather than `vstore…`.
    pub load: bool,
    /// The components moved (1 for `vload_half`, `vstore_half`).
    pub n: u8,
    /// The memory holds `half`s, converted from and to `float`.
    pub half: bool,
    /// `vloada_half`/`vstorea_half`: 3 components take the space of 4.
    pub aligned: bool,
    /// The rounding suffix of a `half` store (`"rte"`, …), if any.
    pub rounding: Option<&'static str>,
}

impl VectorData {
    fn parse(name: &'static str) -> Option<VectorData> {
        let (load, rest) = match name.strip_prefix("vload") {
            Some(r) => (true, r),
            None => (false, name.strip_prefix("vstore")?),
        };
        let (half, aligned, rest) = if let Some(r) = rest.strip_prefix("a_half") {
            (true, true, r)
        } else if let Some(r) = rest.strip_prefix("_half") {
            (true, false, r)
        } else {
            (false, false, rest)
        };
        let (digits, rounding) = match rest.split_once('_') {
            Some((d, r)) => (d, Some(r)),
            None => (rest, None),
        };
        let n = if digits.is_empty() {
            1
        } else {
            digits.parse().ok()?
        };
        Some(VectorData {
            load,
            n,
            half,
            aligned,
            rounding,
        })
    }
}

/// A pattern matching every pure builtin: the math, integer, common,
/// geometric and relational functions whose result depends on their value
/// arguments only (with the `native_` and `half_` math forms, and the
/// internal [`Builtin::ContractFma`]). None reads memory, and none takes a
/// pointer in the overloads the front end resolves them to when every
/// argument is a value; the math functions that also write through a
/// pointer (`fract`, `modf`, `sincos`, `frexp`, `lgamma_r`, `remquo`) are
/// not here. [`Builtin::is_pure`] tests for one.
#[macro_export]
macro_rules! pure_builtins {
    () => {
        $crate::Builtin::Acos
            | $crate::Builtin::Acosh
            | $crate::Builtin::Acospi
            | $crate::Builtin::Asin
            | $crate::Builtin::Asinh
            | $crate::Builtin::Asinpi
            | $crate::Builtin::Atan
            | $crate::Builtin::Atanh
            | $crate::Builtin::Atanpi
            | $crate::Builtin::Cbrt
            | $crate::Builtin::Ceil
            | $crate::Builtin::Cos
            | $crate::Builtin::Cosh
            | $crate::Builtin::Cospi
            | $crate::Builtin::Erfc
            | $crate::Builtin::Erf
            | $crate::Builtin::Exp
            | $crate::Builtin::Exp2
            | $crate::Builtin::Exp10
            | $crate::Builtin::Expm1
            | $crate::Builtin::Fabs
            | $crate::Builtin::Floor
            | $crate::Builtin::Lgamma
            | $crate::Builtin::Log
            | $crate::Builtin::Log2
            | $crate::Builtin::Log10
            | $crate::Builtin::Log1p
            | $crate::Builtin::Logb
            | $crate::Builtin::Rint
            | $crate::Builtin::Round
            | $crate::Builtin::Rsqrt
            | $crate::Builtin::Sin
            | $crate::Builtin::Sinh
            | $crate::Builtin::Sinpi
            | $crate::Builtin::Sqrt
            | $crate::Builtin::Tan
            | $crate::Builtin::Tanh
            | $crate::Builtin::Tanpi
            | $crate::Builtin::Tgamma
            | $crate::Builtin::Trunc
            | $crate::Builtin::NativeCos
            | $crate::Builtin::NativeExp
            | $crate::Builtin::NativeExp2
            | $crate::Builtin::NativeExp10
            | $crate::Builtin::NativeLog
            | $crate::Builtin::NativeLog2
            | $crate::Builtin::NativeLog10
            | $crate::Builtin::NativeRecip
            | $crate::Builtin::NativeRsqrt
            | $crate::Builtin::NativeSin
            | $crate::Builtin::NativeSqrt
            | $crate::Builtin::NativeTan
            | $crate::Builtin::HalfCos
            | $crate::Builtin::HalfExp
            | $crate::Builtin::HalfExp2
            | $crate::Builtin::HalfExp10
            | $crate::Builtin::HalfLog
            | $crate::Builtin::HalfLog2
            | $crate::Builtin::HalfLog10
            | $crate::Builtin::HalfRecip
            | $crate::Builtin::HalfRsqrt
            | $crate::Builtin::HalfSin
            | $crate::Builtin::HalfSqrt
            | $crate::Builtin::HalfTan
            | $crate::Builtin::Atan2
            | $crate::Builtin::Atan2pi
            | $crate::Builtin::Copysign
            | $crate::Builtin::Fdim
            | $crate::Builtin::Fmod
            | $crate::Builtin::Hypot
            | $crate::Builtin::Maxmag
            | $crate::Builtin::Minmag
            | $crate::Builtin::Nextafter
            | $crate::Builtin::Pow
            | $crate::Builtin::Powr
            | $crate::Builtin::Remainder
            | $crate::Builtin::NativeDivide
            | $crate::Builtin::NativePowr
            | $crate::Builtin::HalfDivide
            | $crate::Builtin::HalfPowr
            | $crate::Builtin::Fmax
            | $crate::Builtin::Fmin
            | $crate::Builtin::Fma
            | $crate::Builtin::Mad
            | $crate::Builtin::Ldexp
            | $crate::Builtin::Pown
            | $crate::Builtin::Rootn
            | $crate::Builtin::Ilogb
            | $crate::Builtin::Nan
            | $crate::Builtin::Abs
            | $crate::Builtin::AbsDiff
            | $crate::Builtin::AddSat
            | $crate::Builtin::Hadd
            | $crate::Builtin::Rhadd
            | $crate::Builtin::Clz
            | $crate::Builtin::Ctz
            | $crate::Builtin::MadHi
            | $crate::Builtin::MadSat
            | $crate::Builtin::MulHi
            | $crate::Builtin::Rotate
            | $crate::Builtin::SubSat
            | $crate::Builtin::Popcount
            | $crate::Builtin::Mad24
            | $crate::Builtin::Mul24
            | $crate::Builtin::Upsample
            | $crate::Builtin::Clamp
            | $crate::Builtin::Degrees
            | $crate::Builtin::Max
            | $crate::Builtin::Min
            | $crate::Builtin::Mix
            | $crate::Builtin::Radians
            | $crate::Builtin::Step
            | $crate::Builtin::Smoothstep
            | $crate::Builtin::Sign
            | $crate::Builtin::Cross
            | $crate::Builtin::Dot
            | $crate::Builtin::Distance
            | $crate::Builtin::Length
            | $crate::Builtin::Normalize
            | $crate::Builtin::FastDistance
            | $crate::Builtin::FastLength
            | $crate::Builtin::FastNormalize
            | $crate::Builtin::Isequal
            | $crate::Builtin::Isnotequal
            | $crate::Builtin::Isgreater
            | $crate::Builtin::Isgreaterequal
            | $crate::Builtin::Isless
            | $crate::Builtin::Islessequal
            | $crate::Builtin::Islessgreater
            | $crate::Builtin::Isfinite
            | $crate::Builtin::Isinf
            | $crate::Builtin::Isnan
            | $crate::Builtin::Isnormal
            | $crate::Builtin::Isordered
            | $crate::Builtin::Isunordered
            | $crate::Builtin::Signbit
            | $crate::Builtin::Any
            | $crate::Builtin::All
            | $crate::Builtin::Bitselect
            | $crate::Builtin::Select
            | $crate::Builtin::ContractFma
    };
}

/// A pattern matching every vector load and store builtin (`vloadN`,
/// `vstoreN`, `vload_half[N]`, `vstore_half[N][_rXX]`, `vloada_halfN`,
/// `vstorea_halfN[_rXX]`); [`Builtin::vector_data`] takes one apart.
#[macro_export]
macro_rules! vector_data_builtins {
    () => {
        $crate::Builtin::Vload2
            | $crate::Builtin::Vload3
            | $crate::Builtin::Vload4
            | $crate::Builtin::Vload8
            | $crate::Builtin::Vload16
            | $crate::Builtin::Vstore2
            | $crate::Builtin::Vstore3
            | $crate::Builtin::Vstore4
            | $crate::Builtin::Vstore8
            | $crate::Builtin::Vstore16
            | $crate::Builtin::VloadHalf
            | $crate::Builtin::VloadHalf2
            | $crate::Builtin::VloadHalf3
            | $crate::Builtin::VloadHalf4
            | $crate::Builtin::VloadHalf8
            | $crate::Builtin::VloadHalf16
            | $crate::Builtin::VloadaHalf2
            | $crate::Builtin::VloadaHalf3
            | $crate::Builtin::VloadaHalf4
            | $crate::Builtin::VloadaHalf8
            | $crate::Builtin::VloadaHalf16
            | $crate::Builtin::VstoreHalf
            | $crate::Builtin::VstoreHalfRte
            | $crate::Builtin::VstoreHalfRtz
            | $crate::Builtin::VstoreHalfRtp
            | $crate::Builtin::VstoreHalfRtn
            | $crate::Builtin::VstoreHalf2
            | $crate::Builtin::VstoreHalf2Rte
            | $crate::Builtin::VstoreHalf2Rtz
            | $crate::Builtin::VstoreHalf2Rtp
            | $crate::Builtin::VstoreHalf2Rtn
            | $crate::Builtin::VstoreHalf3
            | $crate::Builtin::VstoreHalf3Rte
            | $crate::Builtin::VstoreHalf3Rtz
            | $crate::Builtin::VstoreHalf3Rtp
            | $crate::Builtin::VstoreHalf3Rtn
            | $crate::Builtin::VstoreHalf4
            | $crate::Builtin::VstoreHalf4Rte
            | $crate::Builtin::VstoreHalf4Rtz
            | $crate::Builtin::VstoreHalf4Rtp
            | $crate::Builtin::VstoreHalf4Rtn
            | $crate::Builtin::VstoreHalf8
            | $crate::Builtin::VstoreHalf8Rte
            | $crate::Builtin::VstoreHalf8Rtz
            | $crate::Builtin::VstoreHalf8Rtp
            | $crate::Builtin::VstoreHalf8Rtn
            | $crate::Builtin::VstoreHalf16
            | $crate::Builtin::VstoreHalf16Rte
            | $crate::Builtin::VstoreHalf16Rtz
            | $crate::Builtin::VstoreHalf16Rtp
            | $crate::Builtin::VstoreHalf16Rtn
            | $crate::Builtin::VstoreaHalf2
            | $crate::Builtin::VstoreaHalf2Rte
            | $crate::Builtin::VstoreaHalf2Rtz
            | $crate::Builtin::VstoreaHalf2Rtp
            | $crate::Builtin::VstoreaHalf2Rtn
            | $crate::Builtin::VstoreaHalf3
            | $crate::Builtin::VstoreaHalf3Rte
            | $crate::Builtin::VstoreaHalf3Rtz
            | $crate::Builtin::VstoreaHalf3Rtp
            | $crate::Builtin::VstoreaHalf3Rtn
            | $crate::Builtin::VstoreaHalf4
            | $crate::Builtin::VstoreaHalf4Rte
            | $crate::Builtin::VstoreaHalf4Rtz
            | $crate::Builtin::VstoreaHalf4Rtp
            | $crate::Builtin::VstoreaHalf4Rtn
            | $crate::Builtin::VstoreaHalf8
            | $crate::Builtin::VstoreaHalf8Rte
            | $crate::Builtin::VstoreaHalf8Rtz
            | $crate::Builtin::VstoreaHalf8Rtp
            | $crate::Builtin::VstoreaHalf8Rtn
            | $crate::Builtin::VstoreaHalf16
            | $crate::Builtin::VstoreaHalf16Rte
            | $crate::Builtin::VstoreaHalf16Rtz
            | $crate::Builtin::VstoreaHalf16Rtp
            | $crate::Builtin::VstoreaHalf16Rtn
    };
}

/// A pattern matching every work-group collective (`work_group_all`,
/// `work_group_reduce_add`, `work_group_broadcast`, …).
#[macro_export]
macro_rules! work_group_builtins {
    () => {
        $crate::Builtin::WorkGroupAll
            | $crate::Builtin::WorkGroupAny
            | $crate::Builtin::WorkGroupReduceAdd
            | $crate::Builtin::WorkGroupReduceMin
            | $crate::Builtin::WorkGroupReduceMax
            | $crate::Builtin::WorkGroupScanExclusiveAdd
            | $crate::Builtin::WorkGroupScanExclusiveMin
            | $crate::Builtin::WorkGroupScanExclusiveMax
            | $crate::Builtin::WorkGroupScanInclusiveAdd
            | $crate::Builtin::WorkGroupScanInclusiveMin
            | $crate::Builtin::WorkGroupScanInclusiveMax
            | $crate::Builtin::WorkGroupBroadcast
    };
}

/// A pattern matching every sub-group builtin: the queries, the functions
/// and the ballot queries of [`sub_group`](crate::sub_group), which takes
/// them apart.
#[macro_export]
macro_rules! sub_group_builtins {
    () => {
        $crate::Builtin::SubGroupAll
            | $crate::Builtin::SubGroupAny
            | $crate::Builtin::SubGroupReduceAdd
            | $crate::Builtin::SubGroupReduceMin
            | $crate::Builtin::SubGroupReduceMax
            | $crate::Builtin::SubGroupScanExclusiveAdd
            | $crate::Builtin::SubGroupScanExclusiveMin
            | $crate::Builtin::SubGroupScanExclusiveMax
            | $crate::Builtin::SubGroupScanInclusiveAdd
            | $crate::Builtin::SubGroupScanInclusiveMin
            | $crate::Builtin::SubGroupScanInclusiveMax
            | $crate::Builtin::SubGroupBroadcast
            | $crate::Builtin::GetSubGroupSize
            | $crate::Builtin::GetMaxSubGroupSize
            | $crate::Builtin::GetNumSubGroups
            | $crate::Builtin::GetEnqueuedNumSubGroups
            | $crate::Builtin::GetSubGroupId
            | $crate::Builtin::GetSubGroupLocalId
            | $crate::Builtin::SubGroupElect
            | $crate::Builtin::SubGroupNonUniformAll
            | $crate::Builtin::SubGroupNonUniformAny
            | $crate::Builtin::SubGroupNonUniformAllEqual
            | $crate::Builtin::SubGroupNonUniformBroadcast
            | $crate::Builtin::SubGroupShuffle
            | $crate::Builtin::SubGroupShuffleXor
            | $crate::Builtin::SubGroupShuffleUp
            | $crate::Builtin::SubGroupShuffleDown
            | $crate::Builtin::SubGroupBroadcastFirst
            | $crate::Builtin::SubGroupRotate
            | $crate::Builtin::SubGroupClusteredRotate
            | $crate::Builtin::SubGroupNonUniformReduceAdd
            | $crate::Builtin::SubGroupNonUniformReduceMul
            | $crate::Builtin::SubGroupNonUniformReduceMin
            | $crate::Builtin::SubGroupNonUniformReduceMax
            | $crate::Builtin::SubGroupNonUniformReduceAnd
            | $crate::Builtin::SubGroupNonUniformReduceOr
            | $crate::Builtin::SubGroupNonUniformReduceXor
            | $crate::Builtin::SubGroupNonUniformReduceLogicalAnd
            | $crate::Builtin::SubGroupNonUniformReduceLogicalOr
            | $crate::Builtin::SubGroupNonUniformReduceLogicalXor
            | $crate::Builtin::SubGroupNonUniformScanInclusiveAdd
            | $crate::Builtin::SubGroupNonUniformScanInclusiveMul
            | $crate::Builtin::SubGroupNonUniformScanInclusiveMin
            | $crate::Builtin::SubGroupNonUniformScanInclusiveMax
            | $crate::Builtin::SubGroupNonUniformScanInclusiveAnd
            | $crate::Builtin::SubGroupNonUniformScanInclusiveOr
            | $crate::Builtin::SubGroupNonUniformScanInclusiveXor
            | $crate::Builtin::SubGroupNonUniformScanInclusiveLogicalAnd
            | $crate::Builtin::SubGroupNonUniformScanInclusiveLogicalOr
            | $crate::Builtin::SubGroupNonUniformScanInclusiveLogicalXor
            | $crate::Builtin::SubGroupNonUniformScanExclusiveAdd
            | $crate::Builtin::SubGroupNonUniformScanExclusiveMul
            | $crate::Builtin::SubGroupNonUniformScanExclusiveMin
            | $crate::Builtin::SubGroupNonUniformScanExclusiveMax
            | $crate::Builtin::SubGroupNonUniformScanExclusiveAnd
            | $crate::Builtin::SubGroupNonUniformScanExclusiveOr
            | $crate::Builtin::SubGroupNonUniformScanExclusiveXor
            | $crate::Builtin::SubGroupNonUniformScanExclusiveLogicalAnd
            | $crate::Builtin::SubGroupNonUniformScanExclusiveLogicalOr
            | $crate::Builtin::SubGroupNonUniformScanExclusiveLogicalXor
            | $crate::Builtin::SubGroupClusteredReduceAdd
            | $crate::Builtin::SubGroupClusteredReduceMul
            | $crate::Builtin::SubGroupClusteredReduceMin
            | $crate::Builtin::SubGroupClusteredReduceMax
            | $crate::Builtin::SubGroupClusteredReduceAnd
            | $crate::Builtin::SubGroupClusteredReduceOr
            | $crate::Builtin::SubGroupClusteredReduceXor
            | $crate::Builtin::SubGroupClusteredReduceLogicalAnd
            | $crate::Builtin::SubGroupClusteredReduceLogicalOr
            | $crate::Builtin::SubGroupClusteredReduceLogicalXor
            | $crate::Builtin::SubGroupBallot
            | $crate::Builtin::SubGroupBallotBitCount
            | $crate::Builtin::SubGroupBallotInclusiveScan
            | $crate::Builtin::SubGroupBallotExclusiveScan
            | $crate::Builtin::SubGroupBallotFindLsb
            | $crate::Builtin::SubGroupBallotFindMsb
            | $crate::Builtin::SubGroupInverseBallot
            | $crate::Builtin::SubGroupBallotBitExtract
            | $crate::Builtin::GetSubGroupEqMask
            | $crate::Builtin::GetSubGroupGeMask
            | $crate::Builtin::GetSubGroupGtMask
            | $crate::Builtin::GetSubGroupLeMask
            | $crate::Builtin::GetSubGroupLtMask
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &b in Builtin::ALL {
            assert!(seen.insert(b.name()), "{} twice", b.name());
            assert_eq!(Builtin::from_name(b.name()), Some(b));
        }
        assert_eq!(Builtin::from_name("sqrtf"), None);
        assert_eq!(Builtin::from_name(""), None);
    }

    #[test]
    fn native_and_half_forms_have_their_base() {
        assert_eq!(Builtin::NativeSin.math_base(), Builtin::Sin);
        assert_eq!(Builtin::HalfPowr.math_base(), Builtin::Powr);
        assert_eq!(Builtin::NativeRecip.math_base(), Builtin::NativeRecip);
        assert_eq!(Builtin::Sqrt.math_base(), Builtin::Sqrt);
    }

    #[test]
    fn pure_builtins_are_the_value_functions() {
        use Builtin::*;
        for b in [Sqrt, Fma, ContractFma, Clamp, Popcount, Dot, Isnan, Select] {
            assert!(b.is_pure(), "{b}");
        }
        // Writes through a pointer, reads or writes memory, has effects or
        // depends on other work-items.
        for b in [
            Fract,
            Sincos,
            Remquo,
            Vload4,
            VstoreHalf,
            Shuffle,
            Printf,
            ReadImagef,
            AsyncWorkGroupCopy,
            Prefetch,
            WorkGroupReduceAdd,
            SubGroupBroadcast,
            WorkGroupCombine,
        ] {
            assert!(!b.is_pure(), "{b}");
        }
        for &b in Builtin::ALL {
            // `native_X` and `half_X` are as pure as `X`.
            assert_eq!(b.is_pure(), b.math_base().is_pure(), "{b}");
            if b.is_relational() {
                assert!(b.is_pure(), "{b}");
            }
            if b.is_pure() {
                assert!(b.vector_data().is_none(), "{b}");
                assert!(!matches!(b, work_group_builtins!()), "{b}");
                assert!(!matches!(b, sub_group_builtins!()), "{b}");
            }
        }
    }

    #[test]
    fn vector_data_names_take_apart() {
        let v = Builtin::VstoreaHalf4Rtz.vector_data().unwrap();
        assert_eq!(
            (v.load, v.n, v.half, v.aligned, v.rounding),
            (false, 4, true, true, Some("rtz"))
        );
        let v = Builtin::VloadHalf.vector_data().unwrap();
        assert_eq!((v.load, v.n, v.half, v.aligned), (true, 1, true, false));
        assert_eq!(Builtin::Vload16.vector_data().map(|v| v.n), Some(16));
        assert_eq!(Builtin::Sqrt.vector_data(), None);
    }

    #[test]
    fn the_pattern_groups_agree_with_the_names() {
        for &b in Builtin::ALL {
            let n = b.name();
            assert_eq!(
                matches!(b, vector_data_builtins!()),
                b.vector_data().is_some(),
                "{n}"
            );
            assert_eq!(
                matches!(b, work_group_builtins!()),
                n.starts_with("work_group_"),
                "{n}"
            );
            assert_eq!(
                matches!(b, sub_group_builtins!()),
                crate::sub_group::is_sub_group_builtin(b),
                "{n}"
            );
        }
    }
}
