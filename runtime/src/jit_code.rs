//! The JIT's compiled kernels as [`KernelCode`].

use crate::kernel_args::KernelCode;
use vecl_jit::abi::{ArgSlot, Launch};
use vecl_jit::{CompiledKernel, PreparedLaunch};

impl KernelCode for CompiledKernel {
    fn name(&self) -> &str {
        CompiledKernel::name(self)
    }

    fn arg_slots(&self) -> &[ArgSlot] {
        self.args()
    }

    fn args_size(&self) -> usize {
        CompiledKernel::args_size(self)
    }

    fn static_local_size(&self) -> u64 {
        CompiledKernel::static_local_size(self) as u64
    }

    fn context_size(&self, items_per_group: u64) -> u64 {
        CompiledKernel::context_size(self, items_per_group) as u64
    }

    fn private_mem_size(&self) -> u64 {
        u64::from(CompiledKernel::private_mem_size(self))
    }

    fn simd_width(&self) -> u32 {
        CompiledKernel::simd_width(self)
    }

    fn group_shape_invisible(&self) -> bool {
        CompiledKernel::group_shape_invisible(self)
    }

    fn lane_dimension(&self, launch: &Launch) -> usize {
        CompiledKernel::lane_dimension(self, launch)
    }

    fn checked_tail(&self) -> Option<usize> {
        CompiledKernel::checked_tail(self)
    }

    fn wait_for_final_code(&self) {
        CompiledKernel::wait_for_final_code(self);
    }

    fn take_divergence(&self) -> Option<String> {
        vecl_jit::abi::take_barrier_divergence().map(|d| self.describe_divergence(&d))
    }

    fn take_local_report(&self, local_args: &[(usize, u64, u64)]) -> Option<String> {
        let r = vecl_jit::races::take_local_report()?;
        let place = match self.local_variable_at(r.offset) {
            Some((name, off)) => format!("`{name}`, byte {off}"),
            None => match local_args
                .iter()
                .find(|(_, start, end)| (*start..*end).contains(&r.offset))
            {
                Some((index, start, _)) => {
                    format!("__local argument {index}, byte {}", r.offset - start)
                }
                None => format!("byte {} of the group's __local memory", r.offset),
            },
        };
        Some(format!("{r} ({place})"))
    }

    unsafe fn prepare(&self, args: *const u8, launch: &Launch) -> Option<PreparedLaunch> {
        // SAFETY: the trait's contract is `CompiledKernel::prepare`'s.
        Some(unsafe { CompiledKernel::prepare(self, args, launch) })
    }

    unsafe fn run_groups(
        &self,
        args: *const u8,
        launch: &Launch,
        first_group: u64,
        end_group: u64,
        local_mem: *mut u8,
        context: *mut u8,
    ) -> u32 {
        // SAFETY: `KernelCode::run_groups` has the same contract as
        // `CompiledKernel::run_groups`, which the caller upholds.
        unsafe {
            CompiledKernel::run_groups(
                self,
                args,
                launch,
                first_group,
                end_group,
                local_mem,
                context,
            )
        }
    }
}
