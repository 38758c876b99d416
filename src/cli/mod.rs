//! The subcommands of the `vecl` binary.

pub mod bench;
pub mod info;
pub mod run;
