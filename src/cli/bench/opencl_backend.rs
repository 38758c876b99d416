//! Runs workloads on the other OpenCL platforms of the machine (PoCL, GPU
//! drivers…) through the system's ICD loader, `libOpenCL.so.1`, loaded at
//! run time and called through the C API directly. The platform named
//! `vecl` (this device, if installed as an ICD) is skipped here: vecl's
//! kernels are measured through its Rust API. The command-engine rows
//! (`commands.rs`) use the same entry points and platform list, vecl's
//! included.

use super::workload::{ArgSpec, Backend, Measured, Workload};
use libloading::Library;
use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::Arc;
use std::time::Instant;

/// An OpenCL object (`cl_platform_id`, `cl_mem`, `cl_event`…).
pub(super) type Handle = *mut c_void;

const CL_PLATFORM_NAME: u32 = 0x0902;
const CL_DEVICE_NAME: u32 = 0x102B;
const CL_DEVICE_TYPE_ALL: u64 = 0xFFFF_FFFF;
const CL_PROGRAM_BUILD_LOG: u32 = 0x1183;
const CL_MEM_READ_WRITE: u64 = 1;
const CL_MEM_READ_ONLY: u64 = 1 << 2;
const CL_MEM_COPY_HOST_PTR: u64 = 1 << 5;

/// The entry points used, resolved once from the loader.
pub(super) struct Api {
    pub(super) get_platform_ids: unsafe extern "C" fn(u32, *mut Handle, *mut u32) -> i32,
    pub(super) get_platform_info:
        unsafe extern "C" fn(Handle, u32, usize, *mut c_void, *mut usize) -> i32,
    pub(super) get_device_ids: unsafe extern "C" fn(Handle, u64, u32, *mut Handle, *mut u32) -> i32,
    pub(super) get_device_info:
        unsafe extern "C" fn(Handle, u32, usize, *mut c_void, *mut usize) -> i32,
    pub(super) create_context: unsafe extern "C" fn(
        *const isize,
        u32,
        *const Handle,
        *const c_void,
        *mut c_void,
        *mut i32,
    ) -> Handle,
    pub(super) create_command_queue: unsafe extern "C" fn(Handle, Handle, u64, *mut i32) -> Handle,
    pub(super) create_program_with_source:
        unsafe extern "C" fn(Handle, u32, *const *const c_char, *const usize, *mut i32) -> Handle,
    pub(super) build_program: unsafe extern "C" fn(
        Handle,
        u32,
        *const Handle,
        *const c_char,
        *const c_void,
        *mut c_void,
    ) -> i32,
    pub(super) get_program_build_info:
        unsafe extern "C" fn(Handle, Handle, u32, usize, *mut c_void, *mut usize) -> i32,
    pub(super) create_kernel: unsafe extern "C" fn(Handle, *const c_char, *mut i32) -> Handle,
    pub(super) set_kernel_arg: unsafe extern "C" fn(Handle, u32, usize, *const c_void) -> i32,
    pub(super) create_buffer:
        unsafe extern "C" fn(Handle, u64, usize, *mut c_void, *mut i32) -> Handle,
    pub(super) enqueue_write_buffer: unsafe extern "C" fn(
        Handle,
        Handle,
        u32,
        usize,
        usize,
        *const c_void,
        u32,
        *const Handle,
        *mut Handle,
    ) -> i32,
    pub(super) enqueue_read_buffer: unsafe extern "C" fn(
        Handle,
        Handle,
        u32,
        usize,
        usize,
        *mut c_void,
        u32,
        *const Handle,
        *mut Handle,
    ) -> i32,
    pub(super) enqueue_nd_range_kernel: unsafe extern "C" fn(
        Handle,
        Handle,
        u32,
        *const usize,
        *const usize,
        *const usize,
        u32,
        *const Handle,
        *mut Handle,
    ) -> i32,
    pub(super) finish: unsafe extern "C" fn(Handle) -> i32,
    pub(super) release_mem_object: unsafe extern "C" fn(Handle) -> i32,
    pub(super) release_kernel: unsafe extern "C" fn(Handle) -> i32,
    pub(super) release_program: unsafe extern "C" fn(Handle) -> i32,
    pub(super) release_command_queue: unsafe extern "C" fn(Handle) -> i32,
    pub(super) release_context: unsafe extern "C" fn(Handle) -> i32,
    pub(super) release_event: unsafe extern "C" fn(Handle) -> i32,
    pub(super) wait_for_events: unsafe extern "C" fn(u32, *const Handle) -> i32,
    pub(super) get_event_info:
        unsafe extern "C" fn(Handle, u32, usize, *mut c_void, *mut usize) -> i32,
    /// Keeps the entry points above loaded.
    _library: Library,
}

macro_rules! resolve {
    ($lib:expr, $name:literal) => {
        // SAFETY: the symbol is the OpenCL entry point of that name, whose C
        // signature the field's type spells out.
        *unsafe { $lib.get(concat!($name, "\0").as_bytes()) }
            .map_err(|e| format!("{}: {e}", $name))?
    };
}

impl Api {
    /// Loads the ICD loader and resolves the entry points.
    pub(super) fn load() -> Result<Api, String> {
        // SAFETY: loading the system's ICD loader runs its initialisers,
        // which is what any OpenCL application does.
        let library = unsafe { Library::new("libOpenCL.so.1") }
            .map_err(|e| format!("no OpenCL loader: {e}"))?;
        Ok(Api {
            get_platform_ids: resolve!(library, "clGetPlatformIDs"),
            get_platform_info: resolve!(library, "clGetPlatformInfo"),
            get_device_ids: resolve!(library, "clGetDeviceIDs"),
            get_device_info: resolve!(library, "clGetDeviceInfo"),
            create_context: resolve!(library, "clCreateContext"),
            create_command_queue: resolve!(library, "clCreateCommandQueue"),
            create_program_with_source: resolve!(library, "clCreateProgramWithSource"),
            build_program: resolve!(library, "clBuildProgram"),
            get_program_build_info: resolve!(library, "clGetProgramBuildInfo"),
            create_kernel: resolve!(library, "clCreateKernel"),
            set_kernel_arg: resolve!(library, "clSetKernelArg"),
            create_buffer: resolve!(library, "clCreateBuffer"),
            enqueue_write_buffer: resolve!(library, "clEnqueueWriteBuffer"),
            enqueue_read_buffer: resolve!(library, "clEnqueueReadBuffer"),
            enqueue_nd_range_kernel: resolve!(library, "clEnqueueNDRangeKernel"),
            finish: resolve!(library, "clFinish"),
            release_mem_object: resolve!(library, "clReleaseMemObject"),
            release_kernel: resolve!(library, "clReleaseKernel"),
            release_program: resolve!(library, "clReleaseProgram"),
            release_command_queue: resolve!(library, "clReleaseCommandQueue"),
            release_context: resolve!(library, "clReleaseContext"),
            release_event: resolve!(library, "clReleaseEvent"),
            wait_for_events: resolve!(library, "clWaitForEvents"),
            get_event_info: resolve!(library, "clGetEventInfo"),
            _library: library,
        })
    }

    /// A string-valued info query through `query(size, value, size_ret)`.
    fn string_info(query: impl Fn(usize, *mut c_void, *mut usize) -> i32) -> Option<String> {
        let mut len = 0usize;
        if query(0, null_mut(), &mut len) != 0 {
            return None;
        }
        let mut bytes = vec![0u8; len];
        if query(len, bytes.as_mut_ptr().cast(), null_mut()) != 0 {
            return None;
        }
        Some(
            String::from_utf8_lossy(&bytes)
                .trim_end_matches('\0')
                .to_string(),
        )
    }
}

/// `Ok` for `CL_SUCCESS`, else an error naming the call.
pub(super) fn check(code: i32, what: &str) -> Result<(), String> {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{what} failed with OpenCL error {code}"))
    }
}

/// One platform's first device, with a context and an in-order queue.
pub struct OpenClBackend {
    api: Arc<Api>,
    label: String,
    /// The platform's and its device's full names (for the report's notes).
    pub description: String,
    device: Handle,
    context: Handle,
    queue: Handle,
}

impl Drop for OpenClBackend {
    fn drop(&mut self) {
        // SAFETY: both handles were created by this backend and are released once.
        unsafe {
            (self.api.release_command_queue)(self.queue);
            (self.api.release_context)(self.context);
        }
    }
}

/// A platform the ICD loader lists, with its first device.
pub(super) struct FoundPlatform {
    /// The label reports show: `vecl`, `PoCL`, `Intel`, or the platform's
    /// first word (`#2`… when two platforms share it).
    pub(super) label: String,
    /// The platform's and its first device's names, as the driver says.
    pub(super) description: String,
    /// Whether this is vecl's own ICD.
    pub(super) is_vecl: bool,
    /// Its first device.
    pub(super) device: Handle,
}

/// Every platform the ICD loader lists that has a device, in the loader's
/// order.
pub(super) fn platforms(api: &Api) -> Result<Vec<FoundPlatform>, String> {
    let mut count = 0u32;
    // SAFETY: a count query with no output array.
    let code = unsafe { (api.get_platform_ids)(0, null_mut(), &mut count) };
    if code != 0 || count == 0 {
        return Ok(Vec::new());
    }
    let mut platforms = vec![null_mut(); count as usize];
    // SAFETY: `platforms` holds `count` entries.
    let code = unsafe { (api.get_platform_ids)(count, platforms.as_mut_ptr(), null_mut()) };
    check(code, "clGetPlatformIDs")?;
    let mut found = Vec::new();
    for platform in platforms {
        // SAFETY: a valid platform and a buffer of the size passed.
        let name = Api::string_info(|n, v, r| unsafe {
            (api.get_platform_info)(platform, CL_PLATFORM_NAME, n, v, r)
        })
        .unwrap_or_default();
        let mut device: Handle = null_mut();
        // SAFETY: room for one device.
        let code = unsafe {
            (api.get_device_ids)(platform, CL_DEVICE_TYPE_ALL, 1, &mut device, null_mut())
        };
        if code != 0 {
            continue;
        }
        // SAFETY: a valid device and a buffer of the size passed.
        let device_name = Api::string_info(|n, v, r| unsafe {
            (api.get_device_info)(device, CL_DEVICE_NAME, n, v, r)
        })
        .unwrap_or_default();
        let is_vecl = name.eq_ignore_ascii_case("vecl");
        let short = platform_label(&name);
        // Two platforms of one name (two PoCL installations) stay apart.
        let same = found
            .iter()
            .filter(|f: &&FoundPlatform| platform_label_base(&f.label) == short)
            .count();
        let label = if same > 0 {
            format!("{short}#{}", same + 1)
        } else {
            short
        };
        found.push(FoundPlatform {
            label,
            description: format!("{name}, {device_name}"),
            is_vecl,
            device,
        });
    }
    Ok(found)
}

/// The short name a report's columns show: `vecl`, `PoCL`, `Intel`, or
/// the first word of another platform's name without trademark marks.
/// Short enough for the table's columns and their ratios (`Intel/vecl`).
fn platform_label(name: &str) -> String {
    if name.eq_ignore_ascii_case("vecl") {
        return "vecl".into();
    }
    if name == "Portable Computing Language" {
        return "PoCL".into();
    }
    let first = name.split_whitespace().next().unwrap_or("OpenCL");
    first.replace("(R)", "").replace("(TM)", "")
}

/// A label without its `#n` number.
fn platform_label_base(label: &str) -> &str {
    label.split('#').next().unwrap_or(label)
}

/// Every platform the ICD loader lists except vecl, or why there are none.
pub fn discover() -> Result<Vec<OpenClBackend>, String> {
    let api = Arc::new(Api::load()?);
    Ok(platforms(&api)?
        .into_iter()
        .filter(|platform| !platform.is_vecl)
        .filter_map(|platform| connect(&api, platform).ok())
        .collect())
}

/// The platform labelled `label` (as [`discover`] labels them), or why it
/// cannot be measured.
pub fn open(label: &str) -> Result<OpenClBackend, String> {
    let api = Arc::new(Api::load()?);
    let found = platforms(&api)?;
    let listed: Vec<String> = found.iter().map(|p| p.label.clone()).collect();
    let platform = found
        .into_iter()
        .find(|p| p.label == label && !p.is_vecl)
        .ok_or_else(|| {
            format!(
                "the ICD loader lists no platform {label:?} (it lists: {})",
                if listed.is_empty() {
                    "none".to_string()
                } else {
                    listed.join(", ")
                }
            )
        })?;
    connect(&api, platform)
}

/// A context and an in-order queue on the platform's first device.
fn connect(api: &Arc<Api>, platform: FoundPlatform) -> Result<OpenClBackend, String> {
    let device = platform.device;
    let mut err = 0;
    // SAFETY: one valid device, no properties, no callback.
    let context = unsafe { (api.create_context)(null(), 1, &device, null(), null_mut(), &mut err) };
    if err != 0 || context.is_null() {
        return Err(format!("clCreateContext failed with OpenCL error {err}"));
    }
    // SAFETY: a valid context and device; default properties.
    let queue = unsafe { (api.create_command_queue)(context, device, 0, &mut err) };
    if err != 0 || queue.is_null() {
        // SAFETY: created above.
        unsafe { (api.release_context)(context) };
        return Err(format!(
            "clCreateCommandQueue failed with OpenCL error {err}"
        ));
    }
    Ok(OpenClBackend {
        api: Arc::clone(api),
        label: platform.label,
        description: platform.description,
        device,
        context,
        queue,
    })
}

/// Builds `source` for `device`: the program, or the build log (the
/// program released).
pub(super) fn build_program(
    api: &Api,
    context: Handle,
    device: Handle,
    source: &str,
) -> Result<Handle, String> {
    let mut err = 0;
    let text = source.as_ptr().cast::<c_char>();
    let len = source.len();
    // SAFETY: one string of `len` bytes.
    let program = unsafe { (api.create_program_with_source)(context, 1, &text, &len, &mut err) };
    check(err, "clCreateProgramWithSource")?;
    // The OpenCL C 2.0 collectives need `-cl-std=CL2.0` on other platforms.
    let std = if source.contains("work_group_") || source.contains("sub_group_") {
        "-cl-std=CL2.0"
    } else {
        ""
    };
    let options = CString::new(std).map_err(|e| e.to_string())?;
    // SAFETY: a valid program and device, NUL-terminated options, no callback.
    let code =
        unsafe { (api.build_program)(program, 1, &device, options.as_ptr(), null(), null_mut()) };
    if code != 0 {
        // SAFETY: a valid program and device; buffer of the size passed.
        let log = Api::string_info(|n, v, r| unsafe {
            (api.get_program_build_info)(program, device, CL_PROGRAM_BUILD_LOG, n, v, r)
        });
        // SAFETY: created above, released once.
        unsafe { (api.release_program)(program) };
        return Err(format!(
            "build failed ({code}): {}",
            log.unwrap_or_default()
        ));
    }
    Ok(program)
}

/// Objects of one run, released on every exit path.
struct RunObjects<'a> {
    api: &'a Api,
    program: Handle,
    kernel: Handle,
    buffers: Vec<Handle>,
}

impl Drop for RunObjects<'_> {
    fn drop(&mut self) {
        // SAFETY: each handle is null or was created for this run and is
        // released exactly once.
        unsafe {
            for &b in &self.buffers {
                (self.api.release_mem_object)(b);
            }
            if !self.kernel.is_null() {
                (self.api.release_kernel)(self.kernel);
            }
            if !self.program.is_null() {
                (self.api.release_program)(self.program);
            }
        }
    }
}

impl OpenClBackend {
    fn build(
        &self,
        objects: &mut RunObjects<'_>,
        source: &str,
        kernel: &str,
    ) -> Result<(), String> {
        objects.program = build_program(&self.api, self.context, self.device, source)?;
        let name = CString::new(kernel).map_err(|e| e.to_string())?;
        let mut err = 0;
        // SAFETY: a built program and a NUL-terminated name.
        objects.kernel =
            unsafe { (self.api.create_kernel)(objects.program, name.as_ptr(), &mut err) };
        check(err, "clCreateKernel")
    }

    fn read_outputs(&self, outputs: &[(Handle, usize)]) -> Result<Vec<Vec<u8>>, String> {
        outputs
            .iter()
            .map(|&(mem, size)| {
                let mut out = vec![0u8; size];
                // SAFETY: a blocking read of `size` bytes into `out`.
                let code = unsafe {
                    (self.api.enqueue_read_buffer)(
                        self.queue,
                        mem,
                        1,
                        0,
                        size,
                        out.as_mut_ptr().cast(),
                        0,
                        null(),
                        null_mut(),
                    )
                };
                check(code, "clEnqueueReadBuffer").map(|()| out)
            })
            .collect()
    }
}

impl Backend for OpenClBackend {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn run(&mut self, work: &Workload, warm_up: bool) -> Result<Measured, String> {
        let api = Arc::clone(&self.api);
        let start = Instant::now();
        let mut objects = RunObjects {
            api: &api,
            program: null_mut(),
            kernel: null_mut(),
            buffers: Vec::new(),
        };
        self.build(&mut objects, &work.source, work.kernel)?;
        let mut resets: Vec<(Handle, &[u8])> = Vec::new();
        let mut outputs: Vec<(Handle, usize)> = Vec::new();
        for (i, arg) in work.args.iter().enumerate() {
            let index = i as u32;
            let mut err = 0;
            let mut buffer =
                |flags: u64, size: usize, init: Option<&[u8]>| -> Result<Handle, String> {
                    let host = init.map_or(null_mut(), |b| b.as_ptr().cast_mut().cast());
                    let flags = if init.is_some() {
                        flags | CL_MEM_COPY_HOST_PTR
                    } else {
                        flags
                    };
                    // SAFETY: `host` is null or `size` readable bytes.
                    let mem =
                        unsafe { (api.create_buffer)(self.context, flags, size, host, &mut err) };
                    check(err, "clCreateBuffer")?;
                    objects.buffers.push(mem);
                    Ok(mem)
                };
            let code = match arg {
                ArgSpec::In(bytes) => {
                    let mem = buffer(CL_MEM_READ_ONLY, bytes.len(), Some(bytes))?;
                    // SAFETY: a cl_mem argument by address.
                    unsafe {
                        (api.set_kernel_arg)(
                            objects.kernel,
                            index,
                            8,
                            (&mem as *const Handle).cast(),
                        )
                    }
                }
                ArgSpec::InOut(bytes) => {
                    let mem = buffer(CL_MEM_READ_WRITE, bytes.len(), Some(bytes))?;
                    resets.push((mem, bytes));
                    outputs.push((mem, bytes.len()));
                    // SAFETY: as above.
                    unsafe {
                        (api.set_kernel_arg)(
                            objects.kernel,
                            index,
                            8,
                            (&mem as *const Handle).cast(),
                        )
                    }
                }
                ArgSpec::Out(size) => {
                    let mem = buffer(CL_MEM_READ_WRITE, *size, None)?;
                    outputs.push((mem, *size));
                    // SAFETY: as above.
                    unsafe {
                        (api.set_kernel_arg)(
                            objects.kernel,
                            index,
                            8,
                            (&mem as *const Handle).cast(),
                        )
                    }
                }
                // SAFETY: the value's bytes.
                ArgSpec::Scalar(bytes) => unsafe {
                    (api.set_kernel_arg)(objects.kernel, index, bytes.len(), bytes.as_ptr().cast())
                },
                // SAFETY: a __local size with a null value.
                ArgSpec::Local(size) => unsafe {
                    (api.set_kernel_arg)(objects.kernel, index, *size, null())
                },
            };
            check(code, "clSetKernelArg")?;
        }
        let global: Vec<usize> = work.global.iter().map(|&g| g as usize).collect();
        let local: Option<Vec<usize>> = work
            .local
            .as_ref()
            .map(|l| l.iter().map(|&v| v as usize).collect());
        let kernel = objects.kernel;
        let run_once = || -> Result<u64, String> {
            for &(mem, bytes) in &resets {
                // SAFETY: a blocking write of the slice's bytes.
                let code = unsafe {
                    (api.enqueue_write_buffer)(
                        self.queue,
                        mem,
                        1,
                        0,
                        bytes.len(),
                        bytes.as_ptr().cast(),
                        0,
                        null(),
                        null_mut(),
                    )
                };
                check(code, "clEnqueueWriteBuffer")?;
            }
            let t0 = Instant::now();
            let local_ptr = local.as_ref().map_or(null(), |l| l.as_ptr());
            // SAFETY: `global` (and `local`) hold `work_dim` sizes.
            let code = unsafe {
                (api.enqueue_nd_range_kernel)(
                    self.queue,
                    kernel,
                    global.len() as u32,
                    null(),
                    global.as_ptr(),
                    local_ptr,
                    0,
                    null(),
                    null_mut(),
                )
            };
            check(code, "clEnqueueNDRangeKernel")?;
            // SAFETY: a valid queue.
            check(unsafe { (api.finish)(self.queue) }, "clFinish")?;
            Ok(t0.elapsed().as_nanos() as u64)
        };
        let first_began = Instant::now();
        let first = run_once()?;
        let mut last_outputs = self.read_outputs(&outputs)?;
        let first_result_ns = start.elapsed().as_nanos() as u64;
        let mut runs_ns = Vec::new();
        if warm_up {
            super::workload::warm_up(first_began, &run_once)?;
            runs_ns = super::workload::timed_runs(work.reps, &run_once)?;
            last_outputs = self.read_outputs(&outputs)?;
        } else {
            runs_ns.push(first);
        }
        Ok(Measured {
            runs_ns,
            first_result_ns,
            outputs: last_outputs,
        })
    }
}
