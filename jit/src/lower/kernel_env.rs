//! What one kernel's lowering knows before it starts and never changes:
//! the IR module and function, the uniformity analysis, the width, where
//! globals, private memory and arguments live, and the options of this
//! compilation (FMA, streaming stores, prefetching, checked mode).
//!
//! [`KernelEnv`] owns those facts and hands them out by value or by shared
//! reference; nothing in the lowering can change them.

use super::bounds::Checks;
use super::prefetch::Ahead;
use super::stream::Streaming;
use crate::abi::ArgSlot;
use crate::layout::{GlobalPlace, PrivateLayout};
use std::collections::HashMap;
use vecl_ir::analysis::uniformity::Uniformity;
use vecl_ir::{Function, Module, ValueId};

/// The kernel and the options its lowering runs under (see the module
/// docs).
pub(crate) struct KernelEnv<'a> {
    module: &'a Module,
    func: &'a Function,
    uni: &'a Uniformity,
    /// The kernel's name, for error messages.
    name: String,
    /// Work-items per chunk (lanes).
    w: u32,
    /// Where each program-scope variable lives, by index.
    places: Vec<Option<GlobalPlace>>,
    /// Address of the module's data segment.
    data_base: u64,
    /// Layout of the chunk's private memory.
    private: PrivateLayout,
    /// Where each kernel argument lies in the argument block.
    arg_slots: Vec<ArgSlot>,
    /// 0, or the launch's dimension that dimension 0 of this copy of the
    /// kernel stands for (`crate::lane_axis`).
    lanes_along: usize,
    has_fma: bool,
    /// Launches of at least this many work-items take the streaming path.
    stream_min_items: u64,
    /// Which stores may bypass the caches (`stream`); `None` off x86-64,
    /// whose store encodings are the only ones `stream::patch_stores` knows.
    streaming: Option<Streaming>,
    /// The pointers whose loads prefetch ahead (`prefetch`); empty when
    /// prefetching is off.
    prefetch: HashMap<ValueId, Ahead>,
    /// Checked mode: what the bounds tests need (`None`: unchecked).
    checks: Option<Checks>,
}

/// Where memory lives for one kernel: [`KernelEnv::new`]'s layout part.
pub(crate) struct MemoryLayout {
    pub places: Vec<Option<GlobalPlace>>,
    pub data_base: u64,
    pub private: PrivateLayout,
    pub arg_slots: Vec<ArgSlot>,
}

/// The options of one compilation: [`KernelEnv::new`]'s options part.
pub(crate) struct LowerOptions {
    pub has_fma: bool,
    pub stream_min_items: u64,
    pub streaming: Option<Streaming>,
    pub prefetch: HashMap<ValueId, Ahead>,
    pub checks: Option<Checks>,
}

impl<'a> KernelEnv<'a> {
    pub fn new(
        module: &'a Module,
        func: &'a Function,
        uni: &'a Uniformity,
        (w, lanes_along): (u32, usize),
        layout: MemoryLayout,
        options: LowerOptions,
    ) -> Self {
        KernelEnv {
            module,
            func,
            uni,
            name: func.name.clone(),
            w,
            places: layout.places,
            data_base: layout.data_base,
            private: layout.private,
            arg_slots: layout.arg_slots,
            lanes_along,
            has_fma: options.has_fma,
            stream_min_items: options.stream_min_items,
            streaming: options.streaming,
            prefetch: options.prefetch,
            checks: options.checks,
        }
    }

    pub fn module(&self) -> &'a Module {
        self.module
    }

    pub fn func(&self) -> &'a Function {
        self.func
    }

    pub fn uni(&self) -> &'a Uniformity {
        self.uni
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Work-items per chunk.
    pub fn w(&self) -> u32 {
        self.w
    }

    /// Where each program-scope variable lives, by index.
    pub fn places(&self) -> &[Option<GlobalPlace>] {
        &self.places
    }

    /// Address of the module's data segment.
    pub fn data_base(&self) -> u64 {
        self.data_base
    }

    /// Layout of the chunk's private memory.
    pub fn private(&self) -> &PrivateLayout {
        &self.private
    }

    /// Where each kernel argument lies in the argument block.
    pub fn arg_slots(&self) -> &[ArgSlot] {
        &self.arg_slots
    }

    /// 0, or the launch's dimension that this copy's dimension 0 stands
    /// for.
    pub fn lanes_along(&self) -> usize {
        self.lanes_along
    }

    /// Whether the target has fused multiply-add.
    pub fn has_fma(&self) -> bool {
        self.has_fma
    }

    /// Launches of at least this many work-items take the streaming path.
    pub fn stream_min_items(&self) -> u64 {
        self.stream_min_items
    }

    /// Which stores may bypass the caches; `None` off x86-64.
    pub fn streaming(&self) -> Option<&Streaming> {
        self.streaming.as_ref()
    }

    /// How far ahead loads through `ptr` prefetch, when they do.
    pub fn prefetch_ahead(&self, ptr: ValueId) -> Option<&Ahead> {
        self.prefetch.get(&ptr)
    }

    /// Checked mode: what the bounds tests need (`None`: unchecked).
    pub fn checks(&self) -> Option<&Checks> {
        self.checks.as_ref()
    }
}
