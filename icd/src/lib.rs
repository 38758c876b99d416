//! libvecl.so: the OpenCL C API over the `vecl` crate (to be written).
