//! Integer dot products (`SPV_KHR_integer_dot_product`, core in SPIR-V
//! 1.6): `OpSDot`, `OpUDot`, `OpSUDot` and their accumulating, saturating
//! forms `OpSDotAccSat`, `OpUDotAccSat`, `OpSUDotAccSat`, on what
//! `cl_khr_integer_dot_product` offers: 4-component 8-bit vectors
//! (`DotProductInput4x8Bit`) and their bytes packed in a 32-bit scalar
//! (`DotProductInput4x8BitPacked`, component 0 in bits 0–7).
//!
//! The products are summed exactly in 64 bits (|sum| ≤ 4·255·255). Without
//! an accumulator the result is the sum's low bits in the result type;
//! with one, `accumulator + sum` saturated to the result type's range
//! (signed for `S` and `SU`, unsigned for `U`), as the OpenCL C builtins
//! `dot` and `dot_acc_sat` (and their `_4x8packed_` forms) compute.

use crate::error::Result;
use crate::function::{FnCx, Inst_, Val};
use crate::module::{result_id, result_type};
use crate::reader::Inst;
use rspirv::dr::Operand;
use rspirv::spirv::Op;
use vecl_ir::*;

/// Whether `op` is translated here.
pub(crate) fn is_dot(op: Op) -> bool {
    matches!(
        op,
        Op::SDot | Op::UDot | Op::SUDot | Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat
    )
}

impl FnCx<'_, '_> {
    pub fn dot(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.inst.class.opcode;
        let (signs, acc) = match op {
            Op::SDot => ((true, true), false),
            Op::UDot => ((false, false), false),
            Op::SUDot => ((true, false), false),
            Op::SDotAccSat => ((true, true), true),
            Op::UDotAccSat => ((false, false), true),
            _ => ((true, false), true),
        };
        let signed = signs.0 || signs.1;
        let rty = self.ir_type(result_type(inst)?)?;
        let rs = match rty {
            Type::Scalar(s) if s.is_int() && s.bits() >= 8 => s,
            _ => return Err(inst.error("the result of a dot product must be a scalar integer")),
        };
        let packed = inst
            .inst
            .operands
            .iter()
            .any(|o| matches!(o, Operand::PackedVectorFormat(_)));
        let wide_s = if signed { Scalar::I64 } else { Scalar::U64 };
        let wide_v = Type::Vector(wide_s, 4);
        let mut lanes = Vec::with_capacity(2);
        for (k, sign) in [signs.0, signs.1].into_iter().enumerate() {
            let v = self.operand(inst, k)?;
            let t = self.ty(v);
            let bytes = match (&t, packed) {
                (Type::Scalar(s), true) if s.is_int() && s.bits() == 32 => {
                    Type::Vector(Scalar::U8, 4)
                }
                (Type::Vector(s, 4), false) if s.is_int() && s.bits() == 8 => t.clone(),
                _ if packed => {
                    return Err(inst.error(format!(
                        "operand {k} of a packed dot product must be a 32-bit integer"
                    )))
                }
                _ => {
                    return Err(inst.error(format!(
                        "operand {k} of a dot product must be a vector of four 8-bit integers \
                         (DotProductInput4x8Bit; other inputs are not supported)"
                    )))
                }
            };
            let v = self.recast(v, &bytes);
            let elem = if sign { Scalar::I8 } else { Scalar::U8 };
            let v = self.recast(v, &Type::Vector(elem, 4));
            lanes.push(self.emit(
                Inst_::Convert {
                    value: v,
                    saturate: false,
                    rounding: Rounding::Default,
                },
                wide_v.clone(),
            ));
        }
        let products = self.emit(Inst_::Binary(BinaryOp::Mul, lanes[0], lanes[1]), wide_v);
        let parts: Vec<ValueId> = (0..4)
            .map(|k| self.emit(Inst_::Extract(products, k), Type::Scalar(wide_s)))
            .collect();
        let low = self.emit(
            Inst_::Binary(BinaryOp::Add, parts[0], parts[1]),
            Type::Scalar(wide_s),
        );
        let high = self.emit(
            Inst_::Binary(BinaryOp::Add, parts[2], parts[3]),
            Type::Scalar(wide_s),
        );
        let sum = self.emit(
            Inst_::Binary(BinaryOp::Add, low, high),
            Type::Scalar(wide_s),
        );
        // The result type with the instruction's sign.
        let st = Type::Scalar(if signed {
            rs.signed_int_of_same_width()
        } else {
            rs.unsigned_int_of_same_width()
        });
        let r = if !acc {
            self.emit(
                Inst_::Convert {
                    value: sum,
                    saturate: false,
                    rounding: Rounding::Default,
                },
                st.clone(),
            )
        } else {
            let a = self.operand(inst, 2)?;
            if self.ty(a) != rty {
                return Err(inst.error("the accumulator's type is not the result type"));
            }
            let a = self.recast(a, &st);
            if rs.bits() == 64 {
                // The sum fits the result type; `add_sat` saturates.
                let sum = self.recast(sum, &st);
                self.emit(Inst_::Builtin("add_sat".into(), vec![a, sum]), st.clone())
            } else {
                // Exact in 64 bits, then clamped into the result type.
                let wa = self.emit(
                    Inst_::Convert {
                        value: a,
                        saturate: false,
                        rounding: Rounding::Default,
                    },
                    Type::Scalar(wide_s),
                );
                let total = self.emit(Inst_::Binary(BinaryOp::Add, wa, sum), Type::Scalar(wide_s));
                self.emit(
                    Inst_::Convert {
                        value: total,
                        saturate: true,
                        rounding: Rounding::Default,
                    },
                    st.clone(),
                )
            }
        };
        let r = self.recast(r, &rty);
        self.define(result_id(inst)?, Val::V(r));
        Ok(())
    }
}
