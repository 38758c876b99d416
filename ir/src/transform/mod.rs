//! IR-to-IR rewrites that code generators run before lowering. Each lives
//! in its own file and keeps the module valid for [`crate::verify`] and
//! equal in behaviour under [`crate::interp`].
