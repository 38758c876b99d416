//! The wide code's instructions to bytes: the assembler's instructions
//! laid out and encoded by one reused encoder per thread, in place of
//! `iced`'s block encoder.
//!
//! The block encoder boxes every instruction (one allocation each, plus
//! its tables of targets) and encodes each one twice, to measure it and
//! to write it; for a small kernel that was most of the assembly's time
//! (`docs/wide.md`, "Code memory"). Here an instruction whose bytes do
//! not depend on where it lies (all but branches and RIP-relative
//! operands, in 64-bit mode) is encoded once, and its bytes are copied to
//! its place; branches and RIP-relative operands are encoded at their
//! place once the layout is fixed.
//!
//! Layout: every `jcc`/`jmp` to a label starts short (`rel8`); a layout
//! is computed, every short branch whose target is out of reach becomes
//! near (`rel32`), and the layout is computed again until none changes.
//! Branches only grow, so this ends, with each branch short where its
//! target lies within reach of a layout where every other branch is as
//! short as it can be. Labels are the assembler's: an instruction's `ip`
//! is the id of the label set on it (0: none), a branch's target and a
//! RIP-relative operand's address are a label's id.

use super::WideError;
use iced_x86::{Code, Encoder, Instruction, OpKind, Register};
use std::cell::RefCell;

/// How one instruction is placed.
#[derive(Clone, Copy)]
enum Item {
    /// Bytes `at..at + len` of the scratch buffer, wherever it lies.
    Fixed { at: u32, len: u8 },
    /// A branch to the instruction `target`, short or near.
    Branch { target: u32, short: bool },
    /// A RIP-relative memory operand addressing instruction `target`:
    /// `len` bytes wherever it lies (a 32-bit displacement).
    RipRel { target: u32, len: u8 },
}

/// The per-thread state, kept between functions with its capacity.
struct Scratch {
    encoder: Encoder,
    items: Vec<Item>,
    /// Instruction index of each label id (`u32::MAX`: not set).
    labels: Vec<u32>,
    /// Offset of each instruction in the layout.
    offsets: Vec<u32>,
    /// The encoded bytes of the `Fixed` instructions.
    fixed: Vec<u8>,
}

thread_local! {
    static SCRATCH: RefCell<Option<Scratch>> = const { RefCell::new(None) };
}

fn err(e: impl std::fmt::Display) -> WideError {
    WideError::Assembler(e.to_string())
}

/// Encodes `instructions` (the assembler's, at address 0) and hands the
/// bytes and the offset of each instruction to `f`.
pub(crate) fn encode<R>(
    instructions: &[Instruction],
    f: impl FnOnce(&[u8], &[u32]) -> Result<R, WideError>,
) -> Result<R, WideError> {
    SCRATCH.with(|cell| {
        let mut taken = cell.try_borrow_mut().ok();
        let slot = taken.as_deref_mut();
        match slot {
            Some(slot) => {
                if slot.is_none() {
                    *slot = Some(Scratch::new()?);
                }
                let s = slot.as_mut().ok_or_else(|| err("no encoder"))?;
                s.encode(instructions, f)
            }
            // Called again while encoding (never, today): a scratch of
            // its own.
            None => Scratch::new()?.encode(instructions, f),
        }
    })
}

impl Scratch {
    fn new() -> Result<Scratch, WideError> {
        Ok(Scratch {
            encoder: Encoder::try_new(64).map_err(err)?,
            items: Vec::new(),
            labels: Vec::new(),
            offsets: Vec::new(),
            fixed: Vec::new(),
        })
    }

    fn encode<R>(
        &mut self,
        instructions: &[Instruction],
        f: impl FnOnce(&[u8], &[u32]) -> Result<R, WideError>,
    ) -> Result<R, WideError> {
        let Scratch {
            encoder,
            items,
            labels,
            offsets,
            fixed,
        } = self;
        let n = instructions.len();
        labels.clear();
        for (i, ins) in instructions.iter().enumerate() {
            let id = ins.ip();
            if id != 0 {
                let id = usize::try_from(id).map_err(err)?;
                if id >= labels.len() {
                    labels.resize(id + 1, u32::MAX);
                }
                if labels[id] != u32::MAX {
                    return Err(err(format!("label {id} set twice")));
                }
                labels[id] = i as u32;
            }
        }
        let target_of = |id: u64| -> Result<u32, WideError> {
            usize::try_from(id)
                .ok()
                .and_then(|id| labels.get(id))
                .copied()
                .filter(|&t| t != u32::MAX)
                .ok_or_else(|| err(format!("a branch or operand to label {id}, never set")))
        };

        // Every instruction classified; the fixed ones encoded once, onto
        // the encoder's buffer (the encoder appends).
        items.clear();
        let mut buffer = std::mem::take(fixed);
        buffer.clear();
        encoder.set_buffer(buffer);
        let mut at = 0usize;
        for ins in instructions {
            let code = ins.code();
            let item = if ins.op0_kind() == OpKind::NearBranch64 {
                if branch_forms(code).is_none() {
                    return Err(err(format!("a branch the encoder cannot place: {code:?}")));
                }
                Item::Branch {
                    target: target_of(ins.near_branch_target())?,
                    short: true,
                }
            } else if ins.memory_base() == Register::RIP {
                // Measured only: its bytes depend on where it lies.
                let len = encoder.encode(ins, 0).map_err(err)?;
                let mut buffer = encoder.take_buffer();
                buffer.truncate(at);
                encoder.set_buffer(buffer);
                Item::RipRel {
                    target: target_of(ins.memory_displacement64())?,
                    len: len as u8,
                }
            } else {
                let len = encoder.encode(ins, 0).map_err(err)?;
                let item = Item::Fixed {
                    at: at as u32,
                    len: len as u8,
                };
                at += len;
                item
            };
            items.push(item);
        }
        let bytes = encoder.take_buffer();

        // The layout, branches grown until each reaches.
        offsets.clear();
        offsets.resize(n + 1, 0);
        loop {
            let mut at = 0u32;
            for (i, item) in items.iter().enumerate() {
                offsets[i] = at;
                at += u32::from(item_len(item, &instructions[i]));
            }
            offsets[n] = at;
            let mut grown = false;
            for (i, item) in items.iter_mut().enumerate() {
                if let Item::Branch { target, short } = item {
                    if *short {
                        let end = i64::from(offsets[i]) + 2;
                        let rel = i64::from(offsets[*target as usize]) - end;
                        if i8::try_from(rel).is_err() {
                            *short = false;
                            grown = true;
                        }
                    }
                }
            }
            if !grown {
                break;
            }
        }

        // The bytes: fixed ones copied, the others encoded at their place.
        let mut out = Vec::with_capacity(offsets[n] as usize);
        for (i, item) in items.iter().enumerate() {
            match *item {
                Item::Fixed { at, len } => {
                    out.extend_from_slice(&bytes[at as usize..at as usize + usize::from(len)]);
                }
                Item::Branch { target, short } => {
                    let mut b = instructions[i];
                    let (s, n) = branch_forms(b.code()).ok_or_else(|| err("not a branch"))?;
                    b.set_code(if short { s } else { n });
                    b.set_near_branch64(u64::from(offsets[target as usize]));
                    out = encode_onto(encoder, out, &b, offsets[i])?;
                }
                Item::RipRel { target, .. } => {
                    let mut m = instructions[i];
                    m.set_memory_displacement64(u64::from(offsets[target as usize]));
                    out = encode_onto(encoder, out, &m, offsets[i])?;
                }
            }
            if out.len() != offsets[i + 1] as usize {
                return Err(err(format!(
                    "instruction {i} took {} bytes, not the {} laid out",
                    out.len() - offsets[i] as usize,
                    offsets[i + 1] - offsets[i]
                )));
            }
        }
        *fixed = bytes;
        f(&out, &offsets[..n])
    }
}

/// `ins` encoded at offset `ip`, appended to `out`.
fn encode_onto(
    encoder: &mut Encoder,
    out: Vec<u8>,
    ins: &Instruction,
    ip: u32,
) -> Result<Vec<u8>, WideError> {
    encoder.set_buffer(out);
    let r = encoder.encode(ins, u64::from(ip));
    let out = encoder.take_buffer();
    r.map_err(err)?;
    Ok(out)
}

/// The length of `item` in the current layout.
fn item_len(item: &Item, ins: &Instruction) -> u8 {
    match *item {
        Item::Fixed { len, .. } | Item::RipRel { len, .. } => len,
        Item::Branch { short: true, .. } => 2,
        Item::Branch { short: false, .. } => {
            if matches!(ins.code(), Code::Jmp_rel8_64 | Code::Jmp_rel32_64) {
                5
            } else {
                6
            }
        }
    }
}

/// The short and near forms of a `jcc` or `jmp` to a label; `None` for any
/// other branch (the wide code makes none to a label).
fn branch_forms(code: Code) -> Option<(Code, Code)> {
    Some(match code {
        Code::Jmp_rel8_64 | Code::Jmp_rel32_64 => (Code::Jmp_rel8_64, Code::Jmp_rel32_64),
        Code::Jo_rel8_64 | Code::Jo_rel32_64 => (Code::Jo_rel8_64, Code::Jo_rel32_64),
        Code::Jno_rel8_64 | Code::Jno_rel32_64 => (Code::Jno_rel8_64, Code::Jno_rel32_64),
        Code::Jb_rel8_64 | Code::Jb_rel32_64 => (Code::Jb_rel8_64, Code::Jb_rel32_64),
        Code::Jae_rel8_64 | Code::Jae_rel32_64 => (Code::Jae_rel8_64, Code::Jae_rel32_64),
        Code::Je_rel8_64 | Code::Je_rel32_64 => (Code::Je_rel8_64, Code::Je_rel32_64),
        Code::Jne_rel8_64 | Code::Jne_rel32_64 => (Code::Jne_rel8_64, Code::Jne_rel32_64),
        Code::Jbe_rel8_64 | Code::Jbe_rel32_64 => (Code::Jbe_rel8_64, Code::Jbe_rel32_64),
        Code::Ja_rel8_64 | Code::Ja_rel32_64 => (Code::Ja_rel8_64, Code::Ja_rel32_64),
        Code::Js_rel8_64 | Code::Js_rel32_64 => (Code::Js_rel8_64, Code::Js_rel32_64),
        Code::Jns_rel8_64 | Code::Jns_rel32_64 => (Code::Jns_rel8_64, Code::Jns_rel32_64),
        Code::Jp_rel8_64 | Code::Jp_rel32_64 => (Code::Jp_rel8_64, Code::Jp_rel32_64),
        Code::Jnp_rel8_64 | Code::Jnp_rel32_64 => (Code::Jnp_rel8_64, Code::Jnp_rel32_64),
        Code::Jl_rel8_64 | Code::Jl_rel32_64 => (Code::Jl_rel8_64, Code::Jl_rel32_64),
        Code::Jge_rel8_64 | Code::Jge_rel32_64 => (Code::Jge_rel8_64, Code::Jge_rel32_64),
        Code::Jle_rel8_64 | Code::Jle_rel32_64 => (Code::Jle_rel8_64, Code::Jle_rel32_64),
        Code::Jg_rel8_64 | Code::Jg_rel32_64 => (Code::Jg_rel8_64, Code::Jg_rel32_64),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::code_asm::*;

    fn ours(a: &CodeAssembler) -> (Vec<u8>, Vec<u32>) {
        encode(a.instructions(), |b, o| Ok((b.to_vec(), o.to_vec()))).unwrap()
    }

    fn theirs(a: &mut CodeAssembler) -> Vec<u8> {
        a.assemble(0).unwrap()
    }

    /// `n` bytes of instructions that depend on no address.
    fn filler(a: &mut CodeAssembler, n: usize) {
        for _ in 0..n / 4 {
            a.add(rax, 100i32).unwrap(); // 4 bytes
        }
    }

    #[test]
    fn branches_near_and_far_and_a_pool_are_the_block_encoders_bytes() {
        let mut a = CodeAssembler::new(64).unwrap();
        let mut top = a.create_label();
        let mut done = a.create_label();
        let mut far = a.create_label();
        let mut pool = a.create_label();
        a.set_label(&mut top).unwrap();
        a.vaddps(zmm1, zmm2, dword_bcst(pool)).unwrap();
        a.dec(rcx).unwrap();
        a.jne(top).unwrap(); // short, backward
        a.jz(done).unwrap(); // short, forward
        a.jmp(far).unwrap(); // near: 400 bytes ahead
        a.set_label(&mut done).unwrap();
        filler(&mut a, 400);
        a.set_label(&mut far).unwrap();
        a.zero_bytes().unwrap();
        a.jg(top).unwrap(); // near, backward
        a.vzeroupper().unwrap();
        a.ret().unwrap();
        a.set_label(&mut pool).unwrap();
        a.dd(&[0x3f80_0000]).unwrap();
        let (bytes, offsets) = ours(&a);
        assert_eq!(bytes, theirs(&mut a));
        let at = *offsets.last().unwrap() as usize;
        assert_eq!(&bytes[at..], &1.0f32.to_le_bytes());
    }

    #[test]
    fn a_branch_grown_near_can_push_another_out_of_reach() {
        // The first branch reaches its target only while the second is
        // short; the second's target is 130 bytes away, so it grows, and
        // then the first must too.
        let mut a = CodeAssembler::new(64).unwrap();
        let mut t1 = a.create_label();
        let mut t2 = a.create_label();
        a.je(t1).unwrap();
        filler(&mut a, 120);
        a.jne(t2).unwrap();
        a.set_label(&mut t1).unwrap();
        a.nop().unwrap();
        filler(&mut a, 128);
        a.set_label(&mut t2).unwrap();
        a.ret().unwrap();
        let (bytes, offsets) = ours(&a);
        assert_eq!(bytes.len(), theirs(&mut a).len());
        assert_eq!(bytes[0], 0x0f, "je grew near");
        assert_eq!(offsets[1], 6);
    }

    #[test]
    fn a_label_never_set_is_an_error_not_a_panic() {
        let mut a = CodeAssembler::new(64).unwrap();
        let nowhere = a.create_label();
        a.jmp(nowhere).unwrap();
        a.ret().unwrap();
        let e = encode(a.instructions(), |_, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("never set"), "{e}");
        // The thread's encoder still works after the error.
        let mut b = CodeAssembler::new(64).unwrap();
        b.ret().unwrap();
        assert_eq!(ours(&b).0, vec![0xc3]);
    }
}
