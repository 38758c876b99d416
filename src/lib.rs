//! vecl: a CPU OpenCL device. The safe Rust API (to be written).
