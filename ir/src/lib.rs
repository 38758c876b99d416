//! vecl's Kernel IR.
//!
//! The IR describes one work-item of an OpenCL kernel with structured
//! control flow (see [`module`]). Around it:
//! - [`builtin`]: the builtins, one enum with one name table;
//! - [`text`]: the text form — every module prints and parses back equal;
//! - [`verify`]: the verifier, run after every pass in tests and debug builds;
//! - [`interp`]: the reference interpreter, the oracle of every JIT test;
//! - [`transform`]: IR-to-IR rewrites run before code generation;
//! - [`link`]: merging separately compiled units into one module;
//! - [`sub_group`]: the sub-group builtins by name, and how a group splits
//!   into sub-groups;
//! - [`cfg`](mod@cfg): function bodies as control-flow graphs, which
//!   [`transform::structurize`] makes structured;
//! - [`image`]: the image descriptor and sampler encoding shared by the
//!   interpreter, the JIT and the runtime.

pub mod analysis;
pub mod builder;
pub mod builtin;
pub mod cfg;
pub mod group_order;
pub mod image;
pub mod interp;
pub mod link;
pub mod module;
pub mod sub_group;
pub mod text;
pub mod transform;
pub mod types;
pub mod verify;

pub use builtin::{Builtin, VectorData};
pub use module::*;
pub use types::*;
