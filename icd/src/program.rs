//! Programs: `clCreateProgramWithSource`, `clCreateProgramWithBinary`,
//! `clBuildProgram`, `clCompileProgram`, `clLinkProgram`, retain/release,
//! `clGetProgramInfo`, `clGetProgramBuildInfo`.
//!
//! vecl compiles OpenCL C when a program is built (see [`crate::compiler`]).
//! `clCompileProgram` keeps the unit's IR with the linkage of its functions
//! and variables (a `vecl::CompiledObject`); `clLinkProgram` merges the IR
//! of its inputs into an executable or, with `-create-library`, a library
//! that can be linked again. A program's binary is the `vecl` crate's: the
//! binary type, the options and the IR, checksummed;
//! `clCreateProgramWithBinary` reads it back for `clLinkProgram` (objects,
//! libraries) or `clBuildProgram` (executables).

use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use opencl_sys::*;

use crate::compiler::{self, Built};
use crate::context::Context;
use crate::device::{check_device_list, device_handle};
use crate::entry::{api, api_create, c_str, slice, write_out};
use crate::handle::{cl_type, ClType, Object};
use crate::info::{query, write_info, Info};
use crate::ClResult;

/// The notification callback of a build, compile or link.
pub type BuildNotify = unsafe extern "C" fn(program: cl_program, user_data: *mut c_void);

/// A program object.
pub struct Program {
    pub context: Arc<Object<Context>>,
    /// Whether the program was created from source (`CL_PROGRAM_SOURCE`
    /// reports it; compiling requires it).
    from_source: bool,
    /// The source as the application gave it, when its bytes are not all
    /// UTF-8 (`source` then holds them decoded for the compiler); for
    /// `CL_PROGRAM_SOURCE`, which must give back what it was given.
    source_bytes: Option<Vec<u8>>,
    /// The module of a program created with `clCreateProgramWithIL`: its
    /// bytes as given (`CL_PROGRAM_IL`) and its words in host order.
    il: Option<(Vec<u8>, Vec<u32>)>,
    state: Mutex<ProgramState>,
    /// Kernel objects alive for this program: rebuilding is refused while
    /// any exists.
    pub live_kernels: AtomicUsize,
}

struct ProgramState {
    source: String,
    headers: Vec<(String, String)>,
    status: cl_build_status,
    options: String,
    log: String,
    binary_type: cl_program_binary_type,
    built: Option<Arc<Built>>,
    /// The IR of a compiled object or library, or of an executable read
    /// from a binary and not built yet.
    object: Option<Arc<vecl::CompiledObject>>,
    /// Specialisation constants set on an IL program, by `SpecId`.
    spec_constants: std::collections::BTreeMap<u32, u64>,
}

cl_type!(Program, CL_INVALID_PROGRAM);

impl Program {
    fn new(
        context: Arc<Object<Context>>,
        from_source: bool,
        source: String,
        binary_type: cl_program_binary_type,
    ) -> Program {
        Program {
            context,
            from_source,
            source_bytes: None,
            il: None,
            state: Mutex::new(ProgramState {
                source,
                headers: Vec::new(),
                status: CL_BUILD_NONE,
                options: String::new(),
                log: String::new(),
                binary_type,
                built: None,
                object: None,
                spec_constants: Default::default(),
            }),
            live_kernels: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ProgramState> {
        self.state
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The built executable, or `CL_INVALID_PROGRAM_EXECUTABLE`.
    pub fn executable(&self) -> ClResult<Arc<Built>> {
        self.lock()
            .built
            .clone()
            .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)
    }

    /// vecl's binary of the program: what it holds now (an executable, a
    /// compiled object or library), or nothing.
    fn binary(&self) -> Vec<u8> {
        let state = self.lock();
        match (&state.built, &state.object) {
            (Some(built), _) => built.program.binary(),
            (None, Some(object)) => object.binary(),
            (None, None) => Vec::new(),
        }
    }
}

/// The binary type a `vecl` binary type is reported as.
fn cl_binary_type(t: vecl::BinaryType) -> cl_program_binary_type {
    match t {
        vecl::BinaryType::CompiledObject => CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
        vecl::BinaryType::Library => CL_PROGRAM_BINARY_TYPE_LIBRARY,
        vecl::BinaryType::Executable => CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
    }
}

/// `clCreateProgramWithSource`.
pub unsafe extern "C" fn clCreateProgramWithSource(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        let context = Context::get(context)?;
        if count == 0 || strings.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: `count` string pointers, per the API contract.
        let strings = unsafe { slice(strings, count as usize, CL_INVALID_VALUE)? };
        let mut bytes: Vec<u8> = Vec::new();
        for (i, &string) in strings.iter().enumerate() {
            if string.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            // "If an element in lengths is zero, its accompanying string
            // is null-terminated."
            let len = if lengths.is_null() {
                0
            } else {
                // SAFETY: a non-null `lengths` has `count` entries.
                unsafe { lengths.add(i).read_unaligned() }
            };
            if len == 0 {
                // SAFETY: a NUL-terminated string, per the API contract.
                bytes.extend_from_slice(unsafe { std::ffi::CStr::from_ptr(string) }.to_bytes());
            } else {
                // SAFETY: `len` readable bytes, per the API contract.
                bytes.extend_from_slice(unsafe {
                    std::slice::from_raw_parts(string.cast::<u8>(), len)
                });
            }
        }
        // Source is bytes, as C compilers take it: bytes that are not UTF-8
        // (a Windows-1252 quote in a comment) are kept, and matter only
        // where the language looks at them (`decode_source`).
        let (source, source_bytes) = match vecl_clc::literal::decode_source(&bytes) {
            std::borrow::Cow::Borrowed(text) => (text.to_string(), None),
            std::borrow::Cow::Owned(text) => (text, Some(bytes)),
        };
        let mut program = Program::new(context, true, source, CL_PROGRAM_BINARY_TYPE_NONE);
        program.source_bytes = source_bytes;
        let program = Program::register(program)?;
        Ok(program.handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateProgramWithBinary`: accepts binaries vecl produced.
pub unsafe extern "C" fn clCreateProgramWithBinary(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const u8,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        let context = Context::get(context)?;
        // SAFETY: `num_devices` handles, per the API contract.
        unsafe { check_device_list(device_list, num_devices)? };
        if num_devices != 1 {
            // vecl's device may appear only once in the list.
            return Err(CL_INVALID_DEVICE);
        }
        if lengths.is_null() || binaries.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: both arrays have `num_devices` (= 1) entries.
        let (len, binary) = unsafe { (lengths.read_unaligned(), binaries.read_unaligned()) };
        let report = |status| {
            // SAFETY: binary_status is null or has `num_devices` entries, per
            // the API contract.
            unsafe { write_out(binary_status, status) }
        };
        if len == 0 || binary.is_null() {
            report(CL_INVALID_VALUE);
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: `len` readable bytes, per the API contract.
        let bytes = unsafe { std::slice::from_raw_parts(binary, len) };
        let Ok(object) = compiler::from_binary(bytes) else {
            report(CL_INVALID_BINARY);
            return Err(CL_INVALID_BINARY);
        };
        report(CL_SUCCESS);
        let kind = cl_binary_type(object.binary_type());
        let program = Program::new(context, false, String::new(), kind);
        {
            let mut state = program.lock();
            state.options = object.options().to_string();
            state.object = Some(Arc::new(object));
        }
        Ok(Program::register(program)?.handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateProgramWithBuiltInKernels`: vecl has no built-in kernels.
pub unsafe extern "C" fn clCreateProgramWithBuiltInKernels(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    kernel_names: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        Context::get(context)?;
        // SAFETY: `num_devices` handles and a NUL-terminated string, per the
        // API contract.
        unsafe {
            check_device_list(device_list, num_devices)?;
            c_str(kernel_names)?;
        }
        // "CL_INVALID_VALUE if kernel_names is NULL or kernel_names
        // contains a kernel name that is not supported by any of the
        // devices in device_list."
        Err(CL_INVALID_VALUE)
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// `clCreateProgramWithIL` (and `clCreateProgramWithILKHR`): a SPIR-V
/// module, translated when the program is built or compiled.
pub unsafe extern "C" fn clCreateProgramWithIL(
    context: cl_context,
    il: *const c_void,
    length: usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let body = || {
        let context = Context::get(context)?;
        // "CL_INVALID_VALUE if il is NULL or if length is zero."
        if il.is_null() || length == 0 {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: `length` readable bytes, per the API contract.
        let bytes = unsafe { std::slice::from_raw_parts(il.cast::<u8>(), length) }.to_vec();
        // "CL_INVALID_VALUE if the length-byte memory pointed to by il does
        // not contain well-formed intermediate language input": what is not
        // even SPIR-V is refused here; a malformed module fails its build
        // with a log that says where.
        if !vecl_spirv::is_spirv(&bytes) {
            return Err(CL_INVALID_VALUE);
        }
        let words = vecl_spirv::words_from_bytes(&bytes).map_err(|_| CL_INVALID_VALUE)?;
        let mut program = Program::new(context, false, String::new(), CL_PROGRAM_BINARY_TYPE_NONE);
        program.il = Some((bytes, words));
        Ok(Program::register(program)?.handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    unsafe { api_create(errcode_ret, body) }
}

/// Checks the device list and callback arguments shared by build, compile
/// and link.
///
/// # Safety
/// `device_list` is null or holds `num_devices` handles.
unsafe fn check_build_args(
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    notify: Option<BuildNotify>,
    user_data: *mut c_void,
) -> ClResult<()> {
    if device_list.is_null() != (num_devices == 0) {
        return Err(CL_INVALID_VALUE);
    }
    if !device_list.is_null() {
        // SAFETY: forwarded contract.
        unsafe { check_device_list(device_list, num_devices)? };
    }
    if notify.is_none() && !user_data.is_null() {
        return Err(CL_INVALID_VALUE);
    }
    Ok(())
}

/// Options as text (null is empty).
///
/// # Safety
/// `options` is null or NUL-terminated.
unsafe fn options_text(options: *const c_char) -> ClResult<String> {
    if options.is_null() {
        return Ok(String::new());
    }
    // SAFETY: forwarded contract.
    unsafe { c_str(options) }
        .map(str::to_string)
        .map_err(|_| CL_INVALID_BUILD_OPTIONS)
}

/// Which API call builds a program: it decides the error codes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BuildCall {
    /// `clBuildProgram`: an executable.
    Build,
    /// `clCompileProgram`: a compiled object.
    Compile,
    /// `clLinkProgram`: an executable or a library.
    Link,
}

/// What a build, compile or link made.
enum Outcome {
    Executable(Built),
    /// A compiled object or a library.
    Object(vecl::CompiledObject),
}

/// Marks `program` as being built, or says why it cannot be now.
fn start_build(program: &Program) -> ClResult<()> {
    if program.live_kernels.load(Ordering::Acquire) > 0 {
        return Err(CL_INVALID_OPERATION);
    }
    let mut state = program.lock();
    // "CL_INVALID_OPERATION if the build of a program executable for any
    // of the devices listed in device_list by a previous call to
    // clBuildProgram for program has not completed."
    if state.status == CL_BUILD_IN_PROGRESS {
        return Err(CL_INVALID_OPERATION);
    }
    state.status = CL_BUILD_IN_PROGRESS;
    Ok(())
}

/// Records a build's `result` on `program`: status, options, log, binary
/// type and what was made; returns the call's error code on failure.
fn finish_build(
    program: &Program,
    options: String,
    call: BuildCall,
    result: Result<Outcome, compiler::BuildFailure>,
) -> ClResult<()> {
    let mut state = program.lock();
    state.options = options;
    state.built = None;
    state.object = None;
    match result {
        Ok(Outcome::Executable(built)) => {
            state.status = CL_BUILD_SUCCESS;
            state.log = built.log.clone();
            state.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
            state.built = Some(Arc::new(built));
            Ok(())
        }
        Ok(Outcome::Object(object)) => {
            state.status = CL_BUILD_SUCCESS;
            state.log = object.log().to_string();
            state.binary_type = cl_binary_type(object.binary_type());
            state.object = Some(Arc::new(object));
            Ok(())
        }
        Err(failure) => {
            state.status = CL_BUILD_ERROR;
            state.log = failure.log;
            state.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
            let bad_options = [
                CL_INVALID_BUILD_OPTIONS,
                CL_INVALID_COMPILER_OPTIONS,
                CL_INVALID_LINKER_OPTIONS,
            ]
            .contains(&failure.code);
            Err(match (call, bad_options) {
                (BuildCall::Build, true) => CL_INVALID_BUILD_OPTIONS,
                (BuildCall::Compile, true) => CL_INVALID_COMPILER_OPTIONS,
                (BuildCall::Link, true) => CL_INVALID_LINKER_OPTIONS,
                (BuildCall::Build, false) => CL_BUILD_PROGRAM_FAILURE,
                (BuildCall::Compile, false) => CL_COMPILE_PROGRAM_FAILURE,
                (BuildCall::Link, false) => CL_LINK_PROGRAM_FAILURE,
            })
        }
    }
}

/// `clBuildProgram`.
pub unsafe extern "C" fn clBuildProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    pfn_notify: Option<BuildNotify>,
    user_data: *mut c_void,
) -> cl_int {
    api(|| {
        let program = Program::get(program)?;
        // SAFETY: forwarded contracts.
        unsafe { check_build_args(num_devices, device_list, pfn_notify, user_data)? };
        // SAFETY: forwarded contract.
        let options = unsafe { options_text(options)? };
        start_build(&program)?;
        let (source, headers, object) = {
            let state = program.lock();
            (
                state.source.clone(),
                state.headers.clone(),
                state.object.clone(),
            )
        };
        let spec: Vec<(u32, u64)> = program
            .lock()
            .spec_constants
            .iter()
            .map(|(k, v)| (*k, *v))
            .collect();
        let result = match object {
            _ if program.from_source => compiler::build(&source, &options, &headers),
            _ if program.il.is_some() => {
                let words = program.il.as_ref().map_or(&[][..], |(_, w)| w.as_slice());
                compiler::build_il(words, &options, &spec)
            }
            // A program made from a binary: its IR, linked on its own. The
            // options must still be valid ones.
            Some(object) => match vecl_clc::options::Options::parse(&options) {
                Ok(_) => compiler::link(&[(*object).clone()], ""),
                Err(e) => Err(compiler::BuildFailure {
                    code: CL_INVALID_BUILD_OPTIONS,
                    log: e.to_string(),
                }),
            },
            None => Err(compiler::BuildFailure {
                code: CL_INVALID_BINARY,
                log: "the program has no binary to build".into(),
            }),
        };
        let result = finish_build(
            &program,
            options,
            BuildCall::Build,
            result.map(Outcome::Executable),
        );
        if let Some(notify) = pfn_notify {
            // SAFETY: the application's callback with its registered signature.
            unsafe { notify(program.handle(), user_data) };
        }
        result
    })
}

/// `clCompileProgram`.
pub unsafe extern "C" fn clCompileProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: Option<BuildNotify>,
    user_data: *mut c_void,
) -> cl_int {
    api(|| {
        let program = Program::get(program)?;
        // SAFETY: forwarded contracts.
        unsafe { check_build_args(num_devices, device_list, pfn_notify, user_data)? };
        // SAFETY: forwarded contract.
        let options = unsafe { options_text(options)? };
        if (num_input_headers == 0) != input_headers.is_null()
            || (num_input_headers == 0) != header_include_names.is_null()
        {
            return Err(CL_INVALID_VALUE);
        }
        // SAFETY: `num_input_headers` entries each, per the API contract.
        let (headers, names) = unsafe {
            (
                slice(input_headers, num_input_headers as usize, CL_INVALID_VALUE)?,
                slice(
                    header_include_names,
                    num_input_headers as usize,
                    CL_INVALID_VALUE,
                )?,
            )
        };
        let mut pairs = Vec::new();
        for (&header, &name) in headers.iter().zip(names) {
            let header = Program::get(header)?;
            // SAFETY: a NUL-terminated include name, per the API contract.
            let name = unsafe { c_str(name)? };
            pairs.push((name.to_string(), header.lock().source.clone()));
        }
        if !program.from_source && program.il.is_none() {
            return Err(CL_INVALID_OPERATION);
        }
        start_build(&program)?;
        let (source, spec) = {
            let mut state = program.lock();
            state.headers = pairs.clone();
            let spec: Vec<(u32, u64)> =
                state.spec_constants.iter().map(|(k, v)| (*k, *v)).collect();
            (state.source.clone(), spec)
        };
        let result = match &program.il {
            // Headers have nothing to act on in a SPIR-V module.
            Some((_, words)) => compiler::compile_il(words, &options, &spec),
            None => compiler::compile(&source, &options, &pairs),
        }
        .map(Outcome::Object);
        let result = finish_build(&program, options, BuildCall::Compile, result);
        if let Some(notify) = pfn_notify {
            // SAFETY: the application's callback with its registered signature.
            unsafe { notify(program.handle(), user_data) };
        }
        result
    })
}

/// `clLinkProgram`.
pub unsafe extern "C" fn clLinkProgram(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: Option<BuildNotify>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    // A link that fails still returns its program, whose log says why
    // ("clLinkProgram returns a valid program object if the linking
    // operation can begin"), with CL_LINK_PROGRAM_FAILURE.
    let mut link_status = CL_SUCCESS;
    let body = || {
        let context = Context::get(context)?;
        // SAFETY: the device list, options and program list follow the API
        // contract (arrays of their stated lengths, a NUL-terminated string).
        let (options, inputs) = unsafe {
            check_build_args(num_devices, device_list, pfn_notify, user_data)?;
            let options = options_text(options)?;
            if num_input_programs == 0 || input_programs.is_null() {
                return Err(CL_INVALID_VALUE);
            }
            let inputs = slice(
                input_programs,
                num_input_programs as usize,
                CL_INVALID_VALUE,
            )?;
            (options, inputs)
        };
        let mut objects = Vec::new();
        for &input in inputs {
            let input = Program::get(input)?;
            if !Arc::ptr_eq(&input.context, &context) {
                return Err(CL_INVALID_CONTEXT);
            }
            let state = input.lock();
            // "CL_INVALID_OPERATION if the compilation or build of a
            // program executable for any of the devices listed in
            // input_programs ... has not completed successfully" (or
            // is still running).
            let linkable = [
                CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
                CL_PROGRAM_BINARY_TYPE_LIBRARY,
            ];
            match &state.object {
                Some(object)
                    if linkable.contains(&state.binary_type)
                        && state.status != CL_BUILD_IN_PROGRESS =>
                {
                    objects.push(vecl::CompiledObject::clone(object));
                }
                _ => return Err(CL_INVALID_OPERATION),
            }
        }
        // "CL_INVALID_LINKER_OPTIONS if the linker options specified by
        // options are invalid": the link cannot begin.
        let library = vecl_clc::options::Options::parse_link(&options)
            .map_err(|_| CL_INVALID_LINKER_OPTIONS)?
            .create_library;
        let program = Program::register(Program::new(
            context,
            false,
            String::new(),
            CL_PROGRAM_BINARY_TYPE_NONE,
        ))?;
        program.lock().status = CL_BUILD_IN_PROGRESS;
        let result = if library {
            compiler::link_library(&objects, &options).map(Outcome::Object)
        } else {
            compiler::link(&objects, &options).map(Outcome::Executable)
        };
        let result = finish_build(&program, options, BuildCall::Link, result);
        if let Some(notify) = pfn_notify {
            // SAFETY: the application's callback with its registered signature.
            unsafe { notify(program.handle(), user_data) };
        }
        match result {
            Ok(()) => {}
            Err(CL_LINK_PROGRAM_FAILURE) => link_status = CL_LINK_PROGRAM_FAILURE,
            Err(code) => {
                Program::release(program.handle())?;
                return Err(code);
            }
        }
        Ok(program.handle())
    };
    // SAFETY: errcode_ret is null or writable, per the API contract.
    let program = unsafe { api_create(errcode_ret, body) };
    if !program.is_null() && link_status != CL_SUCCESS {
        // SAFETY: as above.
        unsafe { write_out(errcode_ret, link_status) };
    }
    program
}

/// `clRetainProgram`.
pub extern "C" fn clRetainProgram(program: cl_program) -> cl_int {
    api(|| Program::retain(program))
}

/// `clReleaseProgram`.
pub extern "C" fn clReleaseProgram(program: cl_program) -> cl_int {
    api(|| Program::release(program).map(drop))
}

/// `clGetProgramInfo`.
pub unsafe extern "C" fn clGetProgramInfo(
    program: cl_program,
    param_name: cl_program_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    if param_name == CL_PROGRAM_BINARIES {
        // SAFETY: forwarded contract.
        return unsafe {
            program_binaries(program, param_value_size, param_value, param_value_size_ret)
        };
    }
    let body = || {
        let program = Program::get(program)?;
        let source = program.lock().source.clone();
        let kernel_names = || -> ClResult<Vec<String>> {
            Ok(program
                .executable()?
                .kernels
                .iter()
                .map(|k| k.name.clone())
                .collect())
        };
        Ok(match param_name {
            CL_PROGRAM_REFERENCE_COUNT => Info::value(program.ref_count()),
            CL_PROGRAM_CONTEXT => Info::value(program.context.handle()),
            CL_PROGRAM_NUM_DEVICES => Info::value(1u32),
            CL_PROGRAM_DEVICES => Info::value(device_handle()),
            CL_PROGRAM_SOURCE => match (&program.source_bytes, program.from_source) {
                (Some(bytes), _) => Info::bytes(bytes.iter().copied().chain([0]).collect()),
                (None, true) => Info::string(&source),
                (None, false) => Info::string(""),
            },
            CL_PROGRAM_IL => Info::bytes(
                program
                    .il
                    .as_ref()
                    .map_or_else(Vec::new, |(bytes, _)| bytes.clone()),
            ),
            CL_PROGRAM_BINARY_SIZES => Info::value(program.binary().len()),
            CL_PROGRAM_NUM_KERNELS => Info::value(kernel_names()?.len()),
            CL_PROGRAM_KERNEL_NAMES => Info::string(&kernel_names()?.join(";")),
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => {
                Info::bool(false)
            }
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `CL_PROGRAM_BINARIES`: the value is an array of one pointer per device,
/// each to caller memory of `CL_PROGRAM_BINARY_SIZES` bytes.
///
/// # Safety
/// The query protocol's contract; `*param_value` is null or points at
/// enough bytes for the binary.
unsafe fn program_binaries(
    program: cl_program,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    api(|| {
        let program = Program::get(program)?;
        let binary = program.binary();
        let pointers = Info::value(std::ptr::null_mut::<c_void>());
        if !param_value.is_null() {
            if param_value_size < std::mem::size_of::<*mut u8>() {
                return Err(CL_INVALID_VALUE);
            }
            // SAFETY: the caller passes an array of (at least) one pointer.
            let dst = unsafe { param_value.cast::<*mut u8>().read_unaligned() };
            if !dst.is_null() {
                // SAFETY: the caller sized the buffer from
                // CL_PROGRAM_BINARY_SIZES; a null entry is skipped.
                unsafe { std::ptr::copy_nonoverlapping(binary.as_ptr(), dst, binary.len()) };
            }
        }
        // SAFETY: forwarded contract (only the size is written here).
        unsafe {
            write_info(
                pointers,
                param_value_size,
                std::ptr::null_mut(),
                param_value_size_ret,
            )
        }
    })
}

/// `clGetProgramBuildInfo`.
pub unsafe extern "C" fn clGetProgramBuildInfo(
    program: cl_program,
    device: cl_device_id,
    param_name: cl_program_build_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    let body = || {
        let program = Program::get(program)?;
        crate::device::check_device(device)?;
        let state = program.lock();
        Ok(match param_name {
            CL_PROGRAM_BUILD_STATUS => Info::value(state.status),
            CL_PROGRAM_BUILD_OPTIONS => Info::string(&state.options),
            CL_PROGRAM_BUILD_LOG => Info::string(&state.log),
            CL_PROGRAM_BINARY_TYPE => Info::value(state.binary_type),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => Info::value(
                state
                    .built
                    .as_ref()
                    .map_or(0, |b| b.program.global_variable_size() as usize),
            ),
            _ => return Err(CL_INVALID_VALUE),
        })
    };
    // SAFETY: the query protocol's pointers, per the API contract.
    unsafe { query(param_value_size, param_value, param_value_size_ret, body) }
}

/// `clSetProgramReleaseCallback`: vecl's programs have no program-scope
/// constructors or destructors.
pub unsafe extern "C" fn clSetProgramReleaseCallback(
    program: cl_program,
    pfn_notify: Option<BuildNotify>,
    _user_data: *mut c_void,
) -> cl_int {
    api(|| {
        Program::get(program)?;
        if pfn_notify.is_none() {
            return Err(CL_INVALID_VALUE);
        }
        Err(CL_INVALID_OPERATION)
    })
}

/// `clSetProgramSpecializationConstant`: the value a specialisation
/// constant of an IL program takes at its next build or compile.
pub unsafe extern "C" fn clSetProgramSpecializationConstant(
    program: cl_program,
    spec_id: cl_uint,
    spec_size: usize,
    spec_value: *const c_void,
) -> cl_int {
    api(|| {
        let program = Program::get(program)?;
        // "CL_INVALID_PROGRAM if program is not a valid program object
        // created from an intermediate language (e.g. SPIR-V)."
        let Some((_, words)) = &program.il else {
            return Err(CL_INVALID_PROGRAM);
        };
        // "CL_INVALID_VALUE if spec_value is NULL."
        if spec_value.is_null() {
            return Err(CL_INVALID_VALUE);
        }
        let constants = vecl_spirv::spec_constants(words).map_err(|_| CL_INVALID_SPEC_ID)?;
        // "CL_INVALID_SPEC_ID if spec_id is not a valid specialization
        // constant identifier."
        let Some(&(_, size)) = constants.iter().find(|(id, _)| *id == spec_id) else {
            return Err(CL_INVALID_SPEC_ID);
        };
        // "CL_INVALID_VALUE if spec_size does not match the size of the
        // specialization constant in the module" (a boolean's is that of
        // the C type the application uses for it: 1 or 4 bytes).
        if spec_size != size && !(size == 1 && spec_size == 4) {
            return Err(CL_INVALID_VALUE);
        }
        let mut bytes = [0u8; 8];
        // SAFETY: `spec_size` (at most 8) readable bytes, per the API contract.
        unsafe {
            std::ptr::copy_nonoverlapping(spec_value.cast::<u8>(), bytes.as_mut_ptr(), spec_size)
        };
        let mut bits = u64::from_le_bytes(bytes);
        if size == 1 && spec_size == 4 {
            bits = u64::from(bits != 0);
        }
        program.lock().spec_constants.insert(spec_id, bits);
        Ok(())
    })
}
