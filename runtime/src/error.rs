//! The runtime's error type: one variant per OpenCL error code.
//!
//! Every failure the device can report is a value of [`enum@Error`], and every
//! variant maps to exactly one OpenCL error code through [`Error::cl_code`],
//! so the C API can return it as is and the Rust API can show a readable
//! message. Variants that the spec's callers most often need explained carry
//! a detail string.

use thiserror::Error;

/// A failure of the vecl device, mirroring OpenCL's error codes.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Error {
    /// `CL_DEVICE_NOT_FOUND` (-1).
    #[error("no device of the requested type")]
    DeviceNotFound,
    /// `CL_DEVICE_NOT_AVAILABLE` (-2).
    #[error("device not available")]
    DeviceNotAvailable,
    /// `CL_COMPILER_NOT_AVAILABLE` (-3).
    #[error("compiler not available")]
    CompilerNotAvailable,
    /// `CL_MEM_OBJECT_ALLOCATION_FAILURE` (-4): host memory for a buffer
    /// could not be allocated.
    #[error("cannot allocate {0} bytes for a memory object")]
    MemObjectAllocationFailure(u64),
    /// `CL_OUT_OF_RESOURCES` (-5): also what a kernel that stopped with a
    /// non-zero status reports.
    #[error("out of resources: {0}")]
    OutOfResources(String),
    /// `CL_OUT_OF_HOST_MEMORY` (-6).
    #[error("out of host memory")]
    OutOfHostMemory,
    /// `CL_PROFILING_INFO_NOT_AVAILABLE` (-7).
    #[error("profiling information not available")]
    ProfilingInfoNotAvailable,
    /// `CL_MEM_COPY_OVERLAP` (-8).
    #[error("source and destination regions overlap")]
    MemCopyOverlap,
    /// `CL_IMAGE_FORMAT_MISMATCH` (-9).
    #[error("image format mismatch")]
    ImageFormatMismatch,
    /// `CL_IMAGE_FORMAT_NOT_SUPPORTED` (-10).
    #[error("image format not supported")]
    ImageFormatNotSupported,
    /// `CL_BUILD_PROGRAM_FAILURE` (-11), with the build log.
    #[error("program build failed:\n{log}")]
    BuildProgramFailure {
        /// The compiler's diagnostics.
        log: String,
    },
    /// `CL_MAP_FAILURE` (-12).
    #[error("map failure")]
    MapFailure,
    /// `CL_MISALIGNED_SUB_BUFFER_OFFSET` (-13).
    #[error("sub-buffer origin {0} is not a multiple of the device's base address alignment")]
    MisalignedSubBufferOffset(u64),
    /// `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST` (-14).
    #[error("an event in the wait list failed")]
    ExecStatusErrorForEventsInWaitList,
    /// `CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST` (-14) as a command's
    /// own failure: an event of its wait list failed, for this reason.
    #[error("an event in the wait list failed: {0}")]
    DependencyFailed(Box<Error>),
    /// `CL_COMPILE_PROGRAM_FAILURE` (-15), with the log.
    #[error("program compilation failed:\n{log}")]
    CompileProgramFailure {
        /// The compiler's diagnostics.
        log: String,
    },
    /// `CL_LINKER_NOT_AVAILABLE` (-16).
    #[error("linker not available")]
    LinkerNotAvailable,
    /// `CL_LINK_PROGRAM_FAILURE` (-17), with the log.
    #[error("program link failed:\n{log}")]
    LinkProgramFailure {
        /// The linker's diagnostics.
        log: String,
    },
    /// `CL_DEVICE_PARTITION_FAILED` (-18).
    #[error("device partition failed")]
    DevicePartitionFailed,
    /// `CL_KERNEL_ARG_INFO_NOT_AVAILABLE` (-19).
    #[error("kernel argument information not available")]
    KernelArgInfoNotAvailable,
    /// `CL_INVALID_VALUE` (-30).
    #[error("invalid value: {0}")]
    InvalidValue(String),
    /// `CL_INVALID_DEVICE_TYPE` (-31).
    #[error("invalid device type")]
    InvalidDeviceType,
    /// `CL_INVALID_PLATFORM` (-32).
    #[error("invalid platform")]
    InvalidPlatform,
    /// `CL_INVALID_DEVICE` (-33).
    #[error("invalid device")]
    InvalidDevice,
    /// `CL_INVALID_CONTEXT` (-34).
    #[error("invalid context")]
    InvalidContext,
    /// `CL_INVALID_QUEUE_PROPERTIES` (-35).
    #[error("invalid queue properties")]
    InvalidQueueProperties,
    /// `CL_INVALID_COMMAND_QUEUE` (-36).
    #[error("invalid command queue")]
    InvalidCommandQueue,
    /// `CL_INVALID_HOST_PTR` (-37).
    #[error("invalid host pointer: {0}")]
    InvalidHostPtr(String),
    /// `CL_INVALID_MEM_OBJECT` (-38).
    #[error("invalid memory object: {0}")]
    InvalidMemObject(String),
    /// `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` (-39).
    #[error("invalid image format descriptor")]
    InvalidImageFormatDescriptor,
    /// `CL_INVALID_IMAGE_SIZE` (-40).
    #[error("invalid image size")]
    InvalidImageSize,
    /// `CL_INVALID_SAMPLER` (-41).
    #[error("invalid sampler")]
    InvalidSampler,
    /// `CL_INVALID_BINARY` (-42).
    #[error("invalid program binary: {0}")]
    InvalidBinary(String),
    /// `CL_INVALID_BUILD_OPTIONS` (-43).
    #[error("invalid build options: {0}")]
    InvalidBuildOptions(String),
    /// `CL_INVALID_PROGRAM` (-44).
    #[error("invalid program")]
    InvalidProgram,
    /// `CL_INVALID_PROGRAM_EXECUTABLE` (-45).
    #[error("program has no successfully built executable")]
    InvalidProgramExecutable,
    /// `CL_INVALID_KERNEL_NAME` (-46).
    #[error("no kernel named `{0}` in the program")]
    InvalidKernelName(String),
    /// `CL_INVALID_KERNEL_DEFINITION` (-47).
    #[error("invalid kernel definition")]
    InvalidKernelDefinition,
    /// `CL_INVALID_KERNEL` (-48).
    #[error("invalid kernel")]
    InvalidKernel,
    /// `CL_INVALID_ARG_INDEX` (-49).
    #[error("kernel argument index {0} out of range")]
    InvalidArgIndex(u32),
    /// `CL_INVALID_ARG_VALUE` (-50).
    #[error("invalid kernel argument value: {0}")]
    InvalidArgValue(String),
    /// `CL_INVALID_ARG_SIZE` (-51).
    #[error("invalid kernel argument size: {0}")]
    InvalidArgSize(String),
    /// `CL_INVALID_KERNEL_ARGS` (-52).
    #[error("kernel arguments not all set: {0}")]
    InvalidKernelArgs(String),
    /// `CL_INVALID_WORK_DIMENSION` (-53).
    #[error("invalid work dimension {0} (1 to 3)")]
    InvalidWorkDimension(u32),
    /// `CL_INVALID_WORK_GROUP_SIZE` (-54).
    #[error("invalid work-group size: {0}")]
    InvalidWorkGroupSize(String),
    /// `CL_INVALID_WORK_ITEM_SIZE` (-55).
    #[error("invalid work-item size: {0}")]
    InvalidWorkItemSize(String),
    /// `CL_INVALID_GLOBAL_OFFSET` (-56).
    #[error("invalid global offset: {0}")]
    InvalidGlobalOffset(String),
    /// `CL_INVALID_EVENT_WAIT_LIST` (-57).
    #[error("invalid event wait list")]
    InvalidEventWaitList,
    /// `CL_INVALID_EVENT` (-58).
    #[error("invalid event")]
    InvalidEvent,
    /// `CL_INVALID_OPERATION` (-59).
    #[error("invalid operation: {0}")]
    InvalidOperation(String),
    /// `CL_INVALID_GL_OBJECT` (-60).
    #[error("invalid GL object")]
    InvalidGlObject,
    /// `CL_INVALID_BUFFER_SIZE` (-61).
    #[error("invalid buffer size: {0}")]
    InvalidBufferSize(String),
    /// `CL_INVALID_MIP_LEVEL` (-62).
    #[error("invalid mip level")]
    InvalidMipLevel,
    /// `CL_INVALID_GLOBAL_WORK_SIZE` (-63).
    #[error("invalid global work size: {0}")]
    InvalidGlobalWorkSize(String),
    /// `CL_INVALID_PROPERTY` (-64).
    #[error("invalid property")]
    InvalidProperty,
    /// `CL_INVALID_IMAGE_DESCRIPTOR` (-65).
    #[error("invalid image descriptor")]
    InvalidImageDescriptor,
    /// `CL_INVALID_COMPILER_OPTIONS` (-66).
    #[error("invalid compiler options: {0}")]
    InvalidCompilerOptions(String),
    /// `CL_INVALID_LINKER_OPTIONS` (-67).
    #[error("invalid linker options: {0}")]
    InvalidLinkerOptions(String),
    /// `CL_INVALID_DEVICE_PARTITION_COUNT` (-68).
    #[error("invalid device partition count")]
    InvalidDevicePartitionCount,
    /// `CL_INVALID_PIPE_SIZE` (-69).
    #[error("invalid pipe size")]
    InvalidPipeSize,
    /// `CL_INVALID_DEVICE_QUEUE` (-70).
    #[error("invalid device queue")]
    InvalidDeviceQueue,
}

impl Error {
    /// The OpenCL error code of this error (always negative).
    pub fn cl_code(&self) -> i32 {
        match self {
            Error::DeviceNotFound => -1,
            Error::DeviceNotAvailable => -2,
            Error::CompilerNotAvailable => -3,
            Error::MemObjectAllocationFailure(_) => -4,
            Error::OutOfResources(_) => -5,
            Error::OutOfHostMemory => -6,
            Error::ProfilingInfoNotAvailable => -7,
            Error::MemCopyOverlap => -8,
            Error::ImageFormatMismatch => -9,
            Error::ImageFormatNotSupported => -10,
            Error::BuildProgramFailure { .. } => -11,
            Error::MapFailure => -12,
            Error::MisalignedSubBufferOffset(_) => -13,
            Error::ExecStatusErrorForEventsInWaitList | Error::DependencyFailed(_) => -14,
            Error::CompileProgramFailure { .. } => -15,
            Error::LinkerNotAvailable => -16,
            Error::LinkProgramFailure { .. } => -17,
            Error::DevicePartitionFailed => -18,
            Error::KernelArgInfoNotAvailable => -19,
            Error::InvalidValue(_) => -30,
            Error::InvalidDeviceType => -31,
            Error::InvalidPlatform => -32,
            Error::InvalidDevice => -33,
            Error::InvalidContext => -34,
            Error::InvalidQueueProperties => -35,
            Error::InvalidCommandQueue => -36,
            Error::InvalidHostPtr(_) => -37,
            Error::InvalidMemObject(_) => -38,
            Error::InvalidImageFormatDescriptor => -39,
            Error::InvalidImageSize => -40,
            Error::InvalidSampler => -41,
            Error::InvalidBinary(_) => -42,
            Error::InvalidBuildOptions(_) => -43,
            Error::InvalidProgram => -44,
            Error::InvalidProgramExecutable => -45,
            Error::InvalidKernelName(_) => -46,
            Error::InvalidKernelDefinition => -47,
            Error::InvalidKernel => -48,
            Error::InvalidArgIndex(_) => -49,
            Error::InvalidArgValue(_) => -50,
            Error::InvalidArgSize(_) => -51,
            Error::InvalidKernelArgs(_) => -52,
            Error::InvalidWorkDimension(_) => -53,
            Error::InvalidWorkGroupSize(_) => -54,
            Error::InvalidWorkItemSize(_) => -55,
            Error::InvalidGlobalOffset(_) => -56,
            Error::InvalidEventWaitList => -57,
            Error::InvalidEvent => -58,
            Error::InvalidOperation(_) => -59,
            Error::InvalidGlObject => -60,
            Error::InvalidBufferSize(_) => -61,
            Error::InvalidMipLevel => -62,
            Error::InvalidGlobalWorkSize(_) => -63,
            Error::InvalidProperty => -64,
            Error::InvalidImageDescriptor => -65,
            Error::InvalidCompilerOptions(_) => -66,
            Error::InvalidLinkerOptions(_) => -67,
            Error::InvalidDevicePartitionCount => -68,
            Error::InvalidPipeSize => -69,
            Error::InvalidDeviceQueue => -70,
        }
    }
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_and_negative() {
        let samples = [
            Error::DeviceNotFound,
            Error::MemObjectAllocationFailure(1),
            Error::OutOfResources(String::new()),
            Error::BuildProgramFailure { log: String::new() },
            Error::ExecStatusErrorForEventsInWaitList,
            Error::InvalidValue(String::new()),
            Error::InvalidWorkGroupSize(String::new()),
            Error::InvalidWorkItemSize(String::new()),
            Error::InvalidGlobalWorkSize(String::new()),
            Error::InvalidDeviceQueue,
        ];
        let mut codes: Vec<i32> = samples.iter().map(Error::cl_code).collect();
        assert!(codes.iter().all(|&c| c < 0));
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), samples.len());
        assert_eq!(Error::InvalidWorkGroupSize(String::new()).cl_code(), -54);
        assert_eq!(Error::InvalidGlobalWorkSize(String::new()).cl_code(), -63);
    }
}
