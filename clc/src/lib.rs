//! vecl's OpenCL C front end (to be written).
