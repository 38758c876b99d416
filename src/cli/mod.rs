//! The subcommands of the `vecl` binary.

pub mod bench;
pub mod buffer_sizes;
pub mod explain_corpus;
pub mod fuzz;
pub mod info;
pub mod run;
