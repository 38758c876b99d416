//! vecl's JIT: Kernel IR → code vectorised across work-items → Cranelift
//! machine code. [`abi`] is the contract with the runtime.

pub mod abi;
