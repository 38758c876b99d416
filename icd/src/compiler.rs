//! The seam between the C API and the `vecl` crate's compiler: building a
//! program from OpenCL C, compiling and linking units, reading binaries,
//! and describing the kernels of an executable. (Launches go straight to
//! the queue's runtime queue: `crate::enqueue`.)

use std::sync::LazyLock;

use opencl_sys::*;
use vecl_ir::{AccessQualifier, AddressSpace};

/// How the host passes one kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A scalar, vector or struct, by value.
    Value,
    /// A `__global` or `__constant` buffer (`cl_mem`, or null).
    Buffer,
    /// A `__local` buffer whose size the host sets (`arg_value` null).
    Local,
    /// An image (`cl_mem` of an image of this `CL_MEM_OBJECT_IMAGE*` type).
    Image(cl_mem_object_type),
    /// A `sampler_t` (`cl_sampler`).
    Sampler,
}

/// The image type an OpenCL C image type name takes.
fn image_type_of(type_name: &str) -> Option<cl_mem_object_type> {
    Some(match type_name {
        "image1d_t" => CL_MEM_OBJECT_IMAGE1D,
        "image1d_buffer_t" => CL_MEM_OBJECT_IMAGE1D_BUFFER,
        "image1d_array_t" => CL_MEM_OBJECT_IMAGE1D_ARRAY,
        "image2d_t" => CL_MEM_OBJECT_IMAGE2D,
        "image2d_array_t" => CL_MEM_OBJECT_IMAGE2D_ARRAY,
        "image3d_t" => CL_MEM_OBJECT_IMAGE3D,
        _ => return None,
    })
}

/// What `clGetKernelArgInfo` reports about a parameter, and how it is set.
#[derive(Clone, Debug)]
pub struct ArgMeta {
    pub name: String,
    pub type_name: String,
    pub address: cl_kernel_arg_address_qualifier,
    pub access: cl_kernel_arg_access_qualifier,
    pub type_qualifier: cl_kernel_arg_type_qualifier,
    pub kind: ArgKind,
}

/// A kernel of a built program.
#[derive(Clone, Debug)]
pub struct KernelMeta {
    pub name: String,
    pub args: Vec<ArgMeta>,
    /// `__attribute__((...))` text, space separated.
    pub attributes: String,
}

/// A built program: vecl's program and a description of its kernels.
pub struct Built {
    pub program: vecl::Program,
    pub kernels: Vec<KernelMeta>,
    /// Warnings of a successful build.
    pub log: String,
}

/// A failed build: the error code and the log.
#[derive(Debug)]
pub struct BuildFailure {
    pub code: cl_int,
    pub log: String,
}

impl From<vecl::Error> for BuildFailure {
    fn from(error: vecl::Error) -> BuildFailure {
        let code = error.cl_code();
        let log = match error {
            vecl::Error::BuildProgramFailure { log }
            | vecl::Error::CompileProgramFailure { log }
            | vecl::Error::LinkProgramFailure { log } => log,
            other => other.to_string(),
        };
        BuildFailure { code, log }
    }
}

/// The vecl context programs are built in (vecl's contexts carry no state
/// beyond the device, so one serves every C API context).
static VECL: LazyLock<Result<vecl::Context, cl_int>> =
    LazyLock::new(|| vecl::Context::new().map_err(|e| e.cl_code()));

fn vecl_context() -> Result<&'static vecl::Context, BuildFailure> {
    VECL.as_ref().map_err(|&code| BuildFailure {
        code,
        log: "vecl: the device could not be opened".to_string(),
    })
}

fn program_builder(
    source: &str,
    options: &str,
    headers: &[(String, String)],
) -> Result<vecl::ProgramBuilder, BuildFailure> {
    let builder = vecl_context()?.program(source).options(options);
    // SAFETY: the C API makes no promise about accesses outside a kernel's
    // buffers (OpenCL leaves them undefined); the driver keeps the
    // unchecked code by default, and `-cl-vecl-robust-access`,
    // `-cl-vecl-checked` or `VECL_CHECKED=1` turn the checks back on.
    let mut builder = unsafe { builder.unchecked() };
    for (name, text) in headers {
        builder = builder.header(name, text);
    }
    Ok(builder)
}

/// Compiles OpenCL C `source` with `options` and `#include`-able headers
/// into kernels ready to launch.
pub fn build(
    source: &str,
    options: &str,
    headers: &[(String, String)],
) -> Result<Built, BuildFailure> {
    let program = program_builder(source, options, headers)?.build()?;
    describe(program)
}

/// Builds a SPIR-V module (`words` in host byte order) with `options` and
/// specialisation constants (by `SpecId`) into kernels ready to launch.
pub fn build_il(
    words: &[u32],
    options: &str,
    spec_constants: &[(u32, u64)],
) -> Result<Built, BuildFailure> {
    let program = il_builder(words, options, spec_constants)?.build()?;
    describe(program)
}

/// Compiles a SPIR-V module into an object to link (`clCompileProgram`).
pub fn compile_il(
    words: &[u32],
    options: &str,
    spec_constants: &[(u32, u64)],
) -> Result<vecl::CompiledObject, BuildFailure> {
    Ok(il_builder(words, options, spec_constants)?.compile()?)
}

fn il_builder(
    words: &[u32],
    options: &str,
    spec_constants: &[(u32, u64)],
) -> Result<vecl::ProgramBuilder, BuildFailure> {
    let mut builder = vecl_context()?.program_il(words).options(options);
    for (id, bits) in spec_constants {
        builder = builder.spec_constant(*id, *bits);
    }
    Ok(builder)
}

/// An executable's kernels, described for the C API.
fn describe(program: vecl::Program) -> Result<Built, BuildFailure> {
    let mut kernels = Vec::new();
    for name in program.kernel_names() {
        let kernel = program.kernel(&name)?;
        let args = (0..kernel.num_args())
            .map(|index| kernel.arg_info(index).map(arg_meta))
            .collect::<Result<Vec<_>, _>>()?;
        kernels.push(KernelMeta {
            name,
            args,
            attributes: kernel.attributes(),
        });
    }
    let log = program.build_log().to_string();
    Ok(Built {
        program,
        kernels,
        log,
    })
}

/// Compiles OpenCL C `source` into an object to link (`clCompileProgram`).
pub fn compile(
    source: &str,
    options: &str,
    headers: &[(String, String)],
) -> Result<vecl::CompiledObject, BuildFailure> {
    Ok(program_builder(source, options, headers)?.compile()?)
}

/// Links objects and libraries into an executable (`clLinkProgram`, and
/// `clBuildProgram` of a program made from a binary).
pub fn link(objects: &[vecl::CompiledObject], options: &str) -> Result<Built, BuildFailure> {
    // SAFETY: as in `program_builder`: unchecked unless the link options or
    // `VECL_CHECKED` ask for checks.
    describe(unsafe { vecl::Program::link_unchecked(vecl_context()?, objects, options)? })
}

/// Links objects and libraries into a library (`clLinkProgram
/// -create-library`).
pub fn link_library(
    objects: &[vecl::CompiledObject],
    options: &str,
) -> Result<vecl::CompiledObject, BuildFailure> {
    Ok(vecl::CompiledObject::link_library(
        vecl_context()?,
        objects,
        options,
    )?)
}

/// Reads a program binary (`clCreateProgramWithBinary`).
pub fn from_binary(bytes: &[u8]) -> Result<vecl::CompiledObject, BuildFailure> {
    Ok(vecl::CompiledObject::from_binary(vecl_context()?, bytes)?)
}

fn arg_meta(info: vecl::ArgInfo) -> ArgMeta {
    // Images and samplers are told apart by their type names: to the
    // kernel they are a `__global` pointer and a `uint`.
    let image = image_type_of(&info.type_name);
    let (address, kind) = match (image, info.address) {
        (Some(image_type), _) => (CL_KERNEL_ARG_ADDRESS_GLOBAL, ArgKind::Image(image_type)),
        _ if info.type_name == "sampler_t" => (CL_KERNEL_ARG_ADDRESS_PRIVATE, ArgKind::Sampler),
        (None, AddressSpace::Global) => (CL_KERNEL_ARG_ADDRESS_GLOBAL, ArgKind::Buffer),
        (None, AddressSpace::Constant) => (CL_KERNEL_ARG_ADDRESS_CONSTANT, ArgKind::Buffer),
        (None, AddressSpace::Local) => (CL_KERNEL_ARG_ADDRESS_LOCAL, ArgKind::Local),
        (None, AddressSpace::Private | AddressSpace::Generic) => {
            (CL_KERNEL_ARG_ADDRESS_PRIVATE, ArgKind::Value)
        }
    };
    let access = match info.access {
        AccessQualifier::None => CL_KERNEL_ARG_ACCESS_NONE,
        AccessQualifier::ReadOnly => CL_KERNEL_ARG_ACCESS_READ_ONLY,
        AccessQualifier::WriteOnly => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
        AccessQualifier::ReadWrite => CL_KERNEL_ARG_ACCESS_READ_WRITE,
    };
    let q = info.qualifiers;
    let type_qualifier = [
        (q.is_const, CL_KERNEL_ARG_TYPE_CONST),
        (q.is_restrict, CL_KERNEL_ARG_TYPE_RESTRICT),
        (q.is_volatile, CL_KERNEL_ARG_TYPE_VOLATILE),
        (q.is_pipe, CL_KERNEL_ARG_TYPE_PIPE),
    ]
    .iter()
    .filter(|(set, _)| *set)
    .fold(CL_KERNEL_ARG_TYPE_NONE, |acc, (_, bit)| acc | bit);
    ArgMeta {
        name: info.name,
        type_name: info.type_name,
        address,
        access,
        type_qualifier,
        kind,
    }
}
