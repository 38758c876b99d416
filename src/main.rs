//! The `vecl` command (to be written).
fn main() {}
