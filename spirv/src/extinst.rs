//! `OpExtInst` of the `OpenCL.std` set → the IR's builtins, which carry
//! OpenCL C names.
//!
//! Most instructions have the builtin's name. The integer ones say their
//! signedness in a prefix (`s_max`, `u_max`); the signed forms run the
//! builtin on signed views of their operands. The vector load/store forms
//! take their width (`vloadn … n`) or rounding mode (`vstore_half_r … mode`)
//! as a literal, which goes into the builtin's name (`vload4`,
//! `vstore_half_rtz`).

use crate::error::Result;
use crate::function::{FnCx, Inst_};
use crate::module::{result_type, word_of};
use crate::ops::signed_of;
use crate::reader::Inst;
use rspirv::dr::Operand;
use rspirv::grammar::OPENCL_STD_100_INSTRUCTION_TABLE;
use vecl_ir::*;

/// The rounding suffix of a `FPRoundingMode` literal.
fn rounding_suffix(op: Option<&Operand>) -> Option<&'static str> {
    let m = match op? {
        Operand::FPRoundingMode(m) => *m as u32,
        Operand::LiteralBit32(w) | Operand::IdRef(w) => *w,
        _ => return None,
    };
    Some(match m {
        0 => "_rte",
        1 => "_rtz",
        2 => "_rtp",
        3 => "_rtn",
        _ => return None,
    })
}

impl FnCx<'_, '_> {
    pub fn ext_inst(&mut self, inst: &Inst) -> Result<()> {
        let set = word_of(inst, 0)?;
        if self.cx.ignored_sets.contains(&set) {
            return Ok(());
        }
        if !self.cx.opencl_std.contains(&set) {
            return Err(inst.error(format!(
                "%{set} is not the OpenCL.std extended instruction set"
            )));
        }
        let number = word_of(inst, 1)?;
        let Some(grammar) = OPENCL_STD_100_INSTRUCTION_TABLE.lookup_opcode(number) else {
            return Err(inst.error(format!("OpenCL.std has no instruction {number}")));
        };
        let name = grammar.opname;
        let rty = self.ir_type(result_type(inst)?)?;
        let ops = &inst.inst.operands[2..];
        let n_ops = ops.len();
        let id_arg = |this: &mut Self, i: usize| -> Result<ValueId> { this.operand(inst, 2 + i) };
        let literal = |i: usize| -> Result<u32> { word_of(inst, 2 + i) };
        let unsupported = || {
            inst.error(format!(
                "OpenCL.std '{name}' is not supported by vecl's SPIR-V front end"
            ))
        };
        // (builtin name, arguments, the builtin's own result type)
        let (bname, args, bty): (String, Vec<ValueId>, Type) = match name {
            "vloadn" | "vload_halfn" | "vloada_halfn" => {
                let (off, p) = (id_arg(self, 0)?, id_arg(self, 1)?);
                let n = literal(2)?;
                let base = match name {
                    "vloadn" => "vload",
                    "vload_halfn" => "vload_half",
                    _ => "vloada_half",
                };
                (format!("{base}{n}"), vec![off, p], rty.clone())
            }
            "vload_half" => {
                let (off, p) = (id_arg(self, 0)?, id_arg(self, 1)?);
                ("vload_half".into(), vec![off, p], rty.clone())
            }
            "vstoren" | "vstore_half" | "vstore_halfn" | "vstorea_halfn" | "vstore_half_r"
            | "vstore_halfn_r" | "vstorea_halfn_r" => {
                let (data, off, p) = (id_arg(self, 0)?, id_arg(self, 1)?, id_arg(self, 2)?);
                let lanes = self.ty(data).lanes();
                let n = if lanes == 1 {
                    String::new()
                } else {
                    lanes.to_string()
                };
                let base = match name {
                    "vstoren" => "vstore",
                    "vstore_half" | "vstore_half_r" | "vstore_halfn" | "vstore_halfn_r" => {
                        "vstore_half"
                    }
                    _ => "vstorea_half",
                };
                let mode = if name.ends_with("_r") {
                    rounding_suffix(ops.get(3)).ok_or_else(|| inst.error("a bad rounding mode"))?
                } else {
                    ""
                };
                (format!("{base}{n}{mode}"), vec![data, off, p], Type::Void)
            }
            "printf" => {
                // printf(format, args…): C's default argument promotions
                // are the compiler's; the format is read when it runs.
                let mut args = Vec::new();
                for i in 0..n_ops {
                    args.push(id_arg(self, i)?);
                }
                if args.is_empty() || !self.ty(args[0]).is_pointer() {
                    return Err(inst.error("printf without a format pointer"));
                }
                ("printf".into(), args, Type::I32)
            }
            _ => {
                let mut args = Vec::new();
                for i in 0..n_ops {
                    args.push(id_arg(self, i)?);
                }
                let (base, signed) = match name {
                    "fmax_common" => ("max", false),
                    "fmin_common" => ("min", false),
                    "fclamp" => ("clamp", false),
                    n => match (n.strip_prefix("s_"), n.strip_prefix("u_")) {
                        (Some(b), _) => (b, true),
                        (_, Some(b)) => (b, false),
                        _ => (n, false),
                    },
                };
                if base.is_empty() {
                    return Err(unsupported());
                }
                if args.is_empty() {
                    return Err(inst.error(format!("OpenCL.std '{name}' without operands")));
                }
                let mut bty = rty.clone();
                if signed {
                    match base {
                        "upsample" => {
                            // upsample(signed hi, unsigned lo) → signed
                            args[0] = self.as_signed(args[0]);
                            bty = signed_of(&rty);
                        }
                        "abs" | "abs_diff" => {
                            for a in &mut args {
                                *a = self.as_signed(*a);
                            }
                        }
                        _ => {
                            for a in &mut args {
                                *a = self.as_signed(*a);
                            }
                            bty = signed_of(&rty);
                        }
                    }
                }
                match base {
                    "ilogb" => bty = signed_of(&rty),
                    "ldexp" | "pown" | "rootn" if args.len() == 2 => {
                        args[1] = self.as_signed(args[1]);
                    }
                    "frexp" | "lgamma_r" | "remquo" => {
                        // The int out-parameter is `int*`.
                        let last = args.len() - 1;
                        let pt = self.ty(args[last]);
                        if let Type::Pointer(space, pointee) = pt {
                            let want = Type::ptr(space, signed_of(&pointee));
                            args[last] = self.emit(Inst_::PtrCast(args[last]), want);
                        }
                    }
                    _ => {}
                }
                (base.to_string(), args, bty)
            }
        };
        let Some(b) = Builtin::from_name(&bname) else {
            return Err(inst.error(format!(
                "OpenCL.std '{name}' (builtin `{bname}`) is not supported by vecl"
            )));
        };
        let r = self.emit(Inst_::Builtin(b, args), bty.clone());
        if let Some(id) = inst.inst.result_id {
            let v = if bty.is_void() {
                r
            } else {
                self.recast(r, &rty)
            };
            self.define(id, crate::function::Val::V(v));
        }
        Ok(())
    }
}
