//! What the front end accepts: the capabilities, extensions and extended
//! instruction sets a module may declare, one table each.
//!
//! The reader checks a module's `OpCapability`, `OpExtension` and
//! `OpExtInstImport` against these tables, and the driver answers
//! `cl_khr_spirv_queries` (`CL_DEVICE_SPIRV_CAPABILITIES_KHR`,
//! `CL_DEVICE_SPIRV_EXTENSIONS_KHR`,
//! `CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR`) from them, so the two
//! cannot disagree. A few capabilities are tolerated without being
//! reported: translators declare them for a handful of instructions the
//! front end translates, but the device does not implement what they
//! stand for (the OpenCL environment does not allow them), and a device
//! that reported them would promise more than it does.

use rspirv::spirv::Capability as C;

/// Whether the device reports an accepted capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Reported by `CL_DEVICE_SPIRV_CAPABILITIES_KHR`.
    Reported,
    /// Accepted in a module, not reported, for the reason given.
    Tolerated(&'static str),
}

const FOR_BIT_FIELDS: Offer = Offer::Tolerated(
    "llvm-spirv declares it for OpBitFieldInsert/Extract and OpBitReverse, \
     which the front end translates; the shader instructions it enables are \
     not supported",
);

/// Every capability a module may declare.
pub const CAPABILITIES: &[(C, Offer)] = &[
    (C::Addresses, Offer::Reported),
    (C::Linkage, Offer::Reported),
    (C::Kernel, Offer::Reported),
    (C::Vector16, Offer::Reported),
    (C::Float16Buffer, Offer::Reported),
    (C::Float16, Offer::Reported),
    (C::Float64, Offer::Reported),
    (C::Int64, Offer::Reported),
    (C::Int16, Offer::Reported),
    (C::Int8, Offer::Reported),
    (C::GenericPointer, Offer::Reported),
    (C::Int64Atomics, Offer::Reported),
    (C::ImageBasic, Offer::Reported),
    (C::ImageReadWrite, Offer::Reported),
    (C::Sampled1D, Offer::Reported),
    (C::Image1D, Offer::Reported),
    (C::SampledBuffer, Offer::Reported),
    (C::ImageBuffer, Offer::Reported),
    (C::LiteralSampler, Offer::Reported),
    (C::Groups, Offer::Reported),
    (C::SubgroupDispatch, Offer::Reported),
    (C::GroupNonUniform, Offer::Reported),
    (C::GroupNonUniformVote, Offer::Reported),
    (C::GroupNonUniformArithmetic, Offer::Reported),
    (C::GroupNonUniformBallot, Offer::Reported),
    (C::GroupNonUniformShuffle, Offer::Reported),
    (C::GroupNonUniformShuffleRelative, Offer::Reported),
    (C::GroupNonUniformClustered, Offer::Reported),
    // SPV_KHR_subgroup_rotate.
    (C::GroupNonUniformRotateKHR, Offer::Reported),
    // SPV_KHR_expect_assume.
    (C::ExpectAssumeKHR, Offer::Reported),
    // SPV_KHR_bit_instructions.
    (C::BitInstructions, Offer::Reported),
    // SPV_KHR_integer_dot_product (core in SPIR-V 1.6): 4-component 8-bit
    // vectors and their packed form, as `cl_khr_integer_dot_product`.
    (C::DotProduct, Offer::Reported),
    (C::DotProductInput4x8Bit, Offer::Reported),
    (C::DotProductInput4x8BitPacked, Offer::Reported),
    // SPIR-V 1.6: the `Uniform` / `UniformId` decorations only promise.
    (C::UniformDecoration, Offer::Reported),
    (C::Shader, FOR_BIT_FIELDS),
    (C::Matrix, FOR_BIT_FIELDS),
];

/// Every extension a module may declare (`OpExtension`), each reported by
/// `CL_DEVICE_SPIRV_EXTENSIONS_KHR`.
pub const EXTENSIONS: &[&str] = &[
    "SPV_KHR_expect_assume",
    "SPV_KHR_bit_instructions",
    "SPV_KHR_integer_dot_product",
    "SPV_KHR_subgroup_rotate",
    "SPV_KHR_linkonce_odr",
    // The decorations `NoSignedWrap` / `NoUnsignedWrap` only promise.
    "SPV_KHR_no_integer_wrap_decoration",
    // `NonSemantic.*` sets, whose instructions are skipped.
    "SPV_KHR_non_semantic_info",
];

/// What the front end does with an extended instruction set's
/// instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetUse {
    /// Translated (`OpenCL.std`).
    Translated,
    /// Skipped: debug information, which changes nothing a kernel does.
    Skipped,
}

/// The extended instruction sets a module may import by name, each
/// reported by `CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR`. Besides
/// these, any `NonSemantic.*` set is skipped (`SPV_KHR_non_semantic_info`).
pub const EXTENDED_INSTRUCTION_SETS: &[(&str, SetUse)] = &[
    ("OpenCL.std", SetUse::Translated),
    ("OpenCL.DebugInfo.100", SetUse::Skipped),
];

/// Whether a module may declare capability `c`.
pub fn capability_accepted(c: C) -> bool {
    CAPABILITIES.iter().any(|(k, _)| *k == c)
}

/// `CL_DEVICE_SPIRV_CAPABILITIES_KHR`: the reported capabilities' numbers.
pub fn reported_capabilities() -> Vec<u32> {
    CAPABILITIES
        .iter()
        .filter(|(_, offer)| *offer == Offer::Reported)
        .map(|(c, _)| *c as u32)
        .collect()
}

/// Whether a module may declare extension `name`.
pub fn extension_accepted(name: &str) -> bool {
    EXTENSIONS.contains(&name)
}

/// What the front end does with the instructions of the set `name`, or
/// `None` when it does not accept the set.
pub fn extended_instruction_set(name: &str) -> Option<SetUse> {
    EXTENDED_INSTRUCTION_SETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, u)| *u)
        .or_else(|| name.starts_with("NonSemantic.").then_some(SetUse::Skipped))
}
