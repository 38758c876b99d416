//! What the entry's scalar scratch registers hold between two memory
//! accesses of one straight stretch of the body ([`Held`]), so that an
//! access whose buffer or index an earlier one already put there skips
//! the reload (`access::emit_access`).
//!
//! Every access leaves its buffer's address in `rax` on each of its
//! paths (the full chunk's, the masked and tested ones out of line, which
//! jump back with `rax` untouched; a `__local` load without a mask test
//! leaves the arena's address, its variable's offset in the
//! displacement, and records that base), and a known-consecutive access whose
//! index is not the chunk's id (`Known::Offset`, `Known::FromLane0`)
//! leaves lane 0 of its index, sign-extended, in `r10` (the tested path
//! sets the same value). The next access through the same buffer, or
//! with the same index value, finds it there, unless something between
//! them changed it:
//!
//! - a block boundary (a branch may arrive there from anywhere): all is
//!   forgotten ([`Held::forget`]);
//! - an instruction that names `rax` or `r10`, or any instruction but the
//!   vector and mask ones (scalar code, jumps, calls, the labels of code
//!   that branches): forgotten ([`Held::after`], which reads the machine
//!   code emitted, so no list of operations has to be kept in step);
//! - an operation that writes the index value (a variable assigned
//!   again): the index forgotten.
//!
//! The saving is the reload of the buffer's address (a load) and the
//! `vmovd` + `movsxd` of lane 0 (on the path to the access's address):
//! FDTD's `fdtd_h` makes six of its eight accesses through the index `k`.
//!
//! **Full-mask stretches** ([`plan_block`]). Two or more known-consecutive
//! accesses under one mask value in one block (nothing between them
//! redefining it, no scalar step of the entry) test the mask once: the
//! stretch from the first to the last is emitted twice, a copy whose
//! accesses of that mask make no mask test (the mask is all 16 lanes),
//! taken when the test finds it so, and the copy as it was, every access
//! testing its own mask, for a chunk with a lane off (a row's tail, a
//! lane an `if` left). What a register holds after the two copies is
//! what both leave ([`Held::meet`]). The copies run the same operations
//! in the same order, so a robust fault is the same.

use super::access::{Base, Known};
use super::Op;
use iced_x86::{Instruction, Mnemonic, OpKind, Register};

/// Index keys from this one up name what the chunk's first id (r15)
/// gives rather than a value: an access by the id itself (whose index
/// value no register holds, `u32::MAX`) or by the id plus a row's slot
/// (`Known::RowOffset`, this plus the slot). What is known of them is
/// forgotten when code writes r15 (the step to the next chunk in flight).
pub(crate) const CHUNK_KEYS: u32 = u32::MAX - 1024;

/// What `rax` and `r10` hold at the point of emission inside a block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Held {
    /// `rax`: the address of the buffer of argument slot `ptr` at `base`.
    rax: Option<(Base, i32)>,
    /// `r10`: lane 0 of this (virtual) index value, sign-extended.
    r10: Option<u32>,
    /// `r11`: the address kept in the entry's frame at `[rsp + slot]` (a
    /// load of a sum's, `access::emit_sum_load`): the rows in flight that
    /// read through one address load it once.
    r11: Option<i32>,
    /// (parameter, index value): an access of all 16 lanes with a bounds
    /// test of that parameter's buffer found the 16 consecutive elements
    /// from the index's lane 0 inside it (robust access), a fact of the
    /// values, so the next such access needs no span test.
    spans: Vec<(u32, u32)>,
}

impl Held {
    /// Nothing known (a block's start).
    pub fn forget(&mut self) {
        *self = Held::default();
    }

    /// Whether `rax` holds the buffer of slot `ptr` at `base`.
    pub fn has_buffer(&self, base: Base, ptr: i32) -> bool {
        self.rax == Some((base, ptr))
    }

    /// Whether `r10` holds lane 0 of virtual value `index`, sign-extended.
    pub fn has_index(&self, index: u32) -> bool {
        self.r10 == Some(index)
    }

    /// Whether `r11` holds the address kept at `[rsp + slot]`.
    pub fn has_slot(&self, slot: i32) -> bool {
        self.r11 == Some(slot)
    }

    /// After loading `r11` from `[rsp + slot]`.
    pub fn slot(&mut self, slot: i32) {
        self.r11 = Some(slot);
    }

    /// After code that writes `r11` (a mask test through it).
    pub fn forget_r11(&mut self) {
        self.r11 = None;
    }

    /// Whether the 16 elements from lane 0 of `index` are known inside
    /// parameter `param`'s buffer.
    pub fn has_span(&self, param: u32, index: u32) -> bool {
        self.spans.contains(&(param, index))
    }

    /// After an access of all 16 lanes through parameter `param`'s
    /// buffer with a bounds test: its 16 elements from lane 0 of `index`
    /// are inside (on every path that comes back).
    pub fn span(&mut self, param: u32, index: u32) {
        if !self.has_span(param, index) {
            self.spans.push((param, index));
        }
    }

    /// After an access: `rax` holds its buffer; `r10` lane 0 of `index`
    /// when `index` is `Some`, else what it held when `keeps_r10`, else
    /// nothing known; then the values `written` (virtual) forgotten.
    pub fn access(
        &mut self,
        (base, ptr): (Base, i32),
        index: Option<u32>,
        keeps_r10: bool,
        written: &[u32],
    ) {
        // Its paths test masks and prefetch through r11.
        self.r11 = None;
        self.rax = Some((base, ptr));
        if index.is_some() {
            self.r10 = index;
        } else if !keeps_r10 {
            self.r10 = None;
        }
        self.wrote(written);
    }

    /// After an access that leaves `rax` as it was and lane 0 of `index`
    /// in `r10` (`access::emit_sum_load`), writing `written`.
    pub fn index_only(&mut self, index: u32, written: &[u32]) {
        self.r10 = Some(index);
        self.wrote(written);
    }

    /// After code that is not an access (`code`, the instructions it
    /// emitted) writing the virtual values `written`.
    pub fn after(&mut self, code: &[Instruction], written: &[u32]) {
        for ins in code {
            let (rax, r10, r11) = clobbers(ins);
            if rax {
                self.rax = None;
            }
            if r10 {
                self.r10 = None;
            }
            if r11 {
                self.r11 = None;
            }
            if writes_r15(ins) {
                self.spans.retain(|(_, v)| *v < CHUNK_KEYS);
                if self.r10.is_some_and(|v| v >= CHUNK_KEYS) {
                    self.r10 = None;
                }
            }
        }
        self.wrote(written);
    }

    /// What both `self` and `other` hold (where two paths join).
    pub fn meet(&mut self, other: &Held) {
        if self.rax != other.rax {
            self.rax = None;
        }
        if self.r10 != other.r10 {
            self.r10 = None;
        }
        if self.r11 != other.r11 {
            self.r11 = None;
        }
        self.spans.retain(|s| other.spans.contains(s));
    }

    fn wrote(&mut self, written: &[u32]) {
        if self.r10.is_some_and(|v| written.contains(&v)) {
            self.r10 = None;
        }
        self.spans.retain(|(_, v)| !written.contains(v));
    }
}

/// One item of a block for [`plan_block`]: a register move of the
/// allocator, an operation (virtual registers) with the values and masks
/// it defines, or anything else (a step of the entry, a branch), which
/// ends a stretch.
pub(crate) enum Item<'o> {
    Move,
    Op(&'o Op, Vec<u32>),
    Other,
}

/// What the emitter does, in order, for one block ([`plan_block`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Planned {
    /// Item `.0`; its accesses under mask `.1` (virtual) make no mask
    /// test.
    Item(usize, Option<u32>),
    /// Mask `k` (virtual; its register at item `at`) all 16 lanes, or a
    /// jump to the stretch's copy that tests.
    Test { k: u32, at: usize },
    /// The end of the full copy: a jump past the other; the other's
    /// start.
    Other,
    /// Where the two copies join.
    Join,
}

/// The mask (virtual) of an access that a full-mask stretch can serve: a
/// known-consecutive vector access (its full-chunk path is one plain
/// `vmovups` behind the mask test). Not a load that tests no mask in
/// either copy (`access::suppresses_mask_test`: a masked `vmovups` of a
/// `__local` row from lane 0, as matmul's `tb[k][lx]`): a stretch of
/// such loads would be two copies of the same code and a test to choose.
fn full_path_mask(op: &Op) -> Option<u32> {
    match *op {
        Op::LoadElems { k, how, .. } if !how.uniform => Some((k.0, how, true)),
        Op::StoreElems { k, how, .. } => Some((k.0, how, false)),
        _ => None,
    }
    .filter(|(_, how, load)| {
        how.consecutive
            && how.known != Known::Tested
            && !super::access::suppresses_mask_test(how, *load, how.known)
    })
    .map(|(k, _, _)| k)
}

/// A full-mask stretch spans at most this many items per access of its
/// mask: each access saves three instructions, and a long stretch
/// (Black-Scholes' body, seven accesses among hundreds of operations)
/// would double much code for little.
const ITEMS_PER_ACCESS: usize = 16;

/// The emission plan of a block of `items`: each item once, in order,
/// but for the full-mask stretches (the module's header), each twice;
/// none for a mask `known_full` says is all 16 lanes (its accesses test
/// nothing).
pub(crate) fn plan_block(items: &[Item], known_full: impl Fn(u32) -> bool) -> Vec<Planned> {
    let mut plan = Vec::with_capacity(items.len());
    let mut i = 0;
    while i < items.len() {
        let k = match &items[i] {
            Item::Op(op, _) => full_path_mask(op),
            _ => None,
        }
        .filter(|k| !known_full(*k));
        if let Some(k) = k {
            let (mut last, mut count) = (i, 1);
            for (j, item) in items.iter().enumerate().skip(i + 1) {
                match item {
                    Item::Other => break,
                    Item::Move => {}
                    Item::Op(op, defs) => {
                        if defs.contains(&k) {
                            break;
                        }
                        if full_path_mask(op) == Some(k) {
                            if j - i + 1 > ITEMS_PER_ACCESS * (count + 1) {
                                break;
                            }
                            (last, count) = (j, count + 1);
                        }
                    }
                }
            }
            if count >= 2 {
                plan.push(Planned::Test { k, at: i });
                plan.extend((i..=last).map(|t| Planned::Item(t, Some(k))));
                plan.push(Planned::Other);
                plan.extend((i..=last).map(|t| Planned::Item(t, None)));
                plan.push(Planned::Join);
                i = last + 1;
                continue;
            }
        }
        plan.push(Planned::Item(i, None));
        i += 1;
    }
    plan
}

/// Whether `ins` may write r15: a scalar instruction naming it first
/// (not a compare or test).
fn writes_r15(ins: &Instruction) -> bool {
    !(vector_or_mask(ins.mnemonic()) || matches!(ins.mnemonic(), Mnemonic::Cmp | Mnemonic::Test))
        && ins.op_count() > 0
        && ins.op0_kind() == OpKind::Register
        && matches!(ins.op0_register(), Register::R15 | Register::R15D)
}

/// Whether `m` is a vector or mask instruction: its name starts with `v`
/// or `k`. The answer for every mnemonic is worked out once, from the
/// names, so that a compile formats none.
fn vector_or_mask(m: Mnemonic) -> bool {
    static TABLE: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        Mnemonic::values()
            .map(|m| {
                let name = format!("{m:?}");
                name.starts_with('V') || name.starts_with('K')
            })
            .collect()
    });
    table.get(m as usize).copied().unwrap_or(false)
}

/// Whether `ins` may change `rax` and `r10`: a vector or mask instruction
/// (`v…`, `k…`), a prefetch, `mov`, `movsxd`, `lea`, `cmp`, `test` or a
/// two- or three-operand `imul` (not the one-operand form, which writes
/// rdx:rax) changes only the general registers it names; anything else
/// (other scalar code, a branch, a call, a label's place) is taken to
/// change both.
fn clobbers(ins: &Instruction) -> (bool, bool, bool) {
    let m = ins.mnemonic();
    let vector = vector_or_mask(m);
    // A move, address computation or compare writes only the register it
    // names (and the flags).
    let named_only = matches!(
        m,
        Mnemonic::Prefetcht0
            | Mnemonic::Prefetchnta
            | Mnemonic::Mov
            | Mnemonic::Movsxd
            | Mnemonic::Lea
            | Mnemonic::Cmp
            | Mnemonic::Test
    ) || (m == Mnemonic::Imul && ins.op_count() >= 2);
    if !(vector || named_only) {
        return (true, true, true);
    }
    let (mut rax, mut r10, mut r11) = (false, false, false);
    for i in 0..ins.op_count() {
        if ins.op_kind(i) == OpKind::Register {
            match ins.op_register(i) {
                Register::RAX | Register::EAX | Register::AX | Register::AL | Register::AH => {
                    rax = true
                }
                Register::R10 | Register::R10D | Register::R10W | Register::R10L => r10 = true,
                Register::R11 | Register::R11D | Register::R11W | Register::R11L => r11 = true,
                _ => {}
            }
        }
    }
    (rax, r10, r11)
}

#[cfg(test)]
mod tests {
    use super::super::access::Access;
    use super::super::{Bin, K, V};
    use super::*;
    use iced_x86::code_asm::*;

    fn code(f: impl FnOnce(&mut CodeAssembler) -> Result<(), IcedError>) -> Vec<Instruction> {
        let mut a = CodeAssembler::new(64).unwrap();
        f(&mut a).unwrap();
        a.instructions().to_vec()
    }

    fn held() -> Held {
        let mut h = Held::default();
        h.access((Base::Arg, 8), Some(3), false, &[]);
        h
    }

    #[test]
    fn vector_code_keeps_what_the_registers_hold() {
        let mut h = held();
        h.after(
            &code(|a| {
                a.vaddps(zmm1, zmm2, zmm3)?;
                a.vfmadd231ps(zmm1, zmm2, zmmword_ptr(rax + r10 * 4))?;
                a.kandw(k1, k2, k3)?;
                a.vmovups(zmmword_ptr(rsp + 64), zmm4)
            }),
            &[7],
        );
        assert!(h.has_buffer(Base::Arg, 8) && h.has_index(3));
    }

    #[test]
    fn code_naming_a_register_or_scalar_code_forgets_it() {
        let mut h = held();
        h.after(&code(|a| a.vmovd(r10d, xmm1)), &[]);
        assert!(h.has_buffer(Base::Arg, 8) && !h.has_index(3));
        let mut h = held();
        h.after(&code(|a| a.vpbroadcastq(zmm1, rax)), &[]);
        assert!(!h.has_buffer(Base::Arg, 8) && h.has_index(3));
        let mut h = held();
        h.after(&code(|a| a.mov(r11, 1u64)), &[]);
        assert!(h.has_buffer(Base::Arg, 8) && h.has_index(3));
        let mut h = held();
        h.after(&code(|a| a.mov(eax, 1)), &[]);
        assert!(!h.has_buffer(Base::Arg, 8) && h.has_index(3));
        // A step prefetch's distance in r11 (`access::prefetch`).
        let mut h = held();
        h.after(
            &code(|a| {
                a.movsxd(r11, dword_ptr(rbx + 24))?;
                a.imul_3(r11, r11, 64)?;
                a.lea(r11, qword_ptr(r11 + r10 * 4))?;
                a.prefetcht0(byte_ptr(rax + r11 + 8))
            }),
            &[],
        );
        assert!(h.has_buffer(Base::Arg, 8) && h.has_index(3));
        let mut h = held();
        h.after(&code(|a| a.imul_3(r10, r11, 64)), &[]);
        assert!(h.has_buffer(Base::Arg, 8) && !h.has_index(3));
        for scalar in [
            code(|a| a.add(r11, 1)),
            // One operand: rdx:rax = rax times it.
            code(|a| a.imul(r11)),
            code(|a| a.call(rbx)),
            code(|a| a.zero_bytes()),
        ] {
            let mut h = held();
            h.after(&scalar, &[]);
            assert_eq!(h, Held::default());
        }
    }

    fn load(d: u32, idx: u32, k: u32, known: Known, uniform: bool) -> Op {
        Op::LoadElems {
            d: V(d),
            ptr: 8,
            idx: V(idx),
            k: K(k),
            how: Access {
                consecutive: true,
                known,
                uniform,
                ..Access::default()
            },
        }
    }

    fn store(a: u32, idx: u32, k: u32) -> Op {
        Op::StoreElems {
            a: V(a),
            ptr: 16,
            idx: V(idx),
            k: K(k),
            how: Access {
                consecutive: true,
                known: Known::FromId,
                ..Access::default()
            },
        }
    }

    #[test]
    fn two_consecutive_accesses_under_one_mask_make_a_stretch_tested_once() {
        let (a, b, add) = (
            load(10, 1, 2, Known::Offset, false),
            store(11, 1, 2),
            Op::Bin {
                op: Bin::FAdd,
                d: V(11),
                a: V(10),
                b: V(10),
            },
        );
        let items = [
            Item::Op(&a, vec![10]),
            Item::Move,
            Item::Op(&add, vec![11]),
            Item::Op(&b, vec![]),
        ];
        let full = |t| Planned::Item(t, Some(2));
        let tested = |t| Planned::Item(t, None);
        assert_eq!(
            plan_block(&items, |_| false),
            vec![
                Planned::Test { k: 2, at: 0 },
                full(0),
                full(1),
                full(2),
                full(3),
                Planned::Other,
                tested(0),
                tested(1),
                tested(2),
                tested(3),
                Planned::Join,
            ]
        );
    }

    #[test]
    fn no_stretch_where_the_mask_changes_or_is_tested_once_anyway() {
        let once = |items: &[Item]| {
            (0..items.len())
                .map(|t| Planned::Item(t, None))
                .collect::<Vec<_>>()
        };
        let (a, b) = (load(10, 1, 2, Known::FromLane0, false), store(10, 1, 2));
        let other_mask = store(10, 1, 3);
        let redefine = Op::KAnd {
            d: K(2),
            a: K(4),
            b: K(5),
        };
        let cases: Vec<Vec<Item>> = vec![
            // One access of the mask.
            vec![Item::Op(&a, vec![10]), Item::Op(&other_mask, vec![])],
            // The mask defined again between them.
            vec![
                Item::Op(&a, vec![10]),
                Item::Op(&redefine, vec![2]),
                Item::Op(&b, vec![]),
            ],
            // A step of the entry or a branch between them.
            vec![Item::Op(&a, vec![10]), Item::Other, Item::Op(&b, vec![])],
        ];
        // Too far apart for what they save.
        let add = Op::Bin {
            op: Bin::FAdd,
            d: V(11),
            a: V(10),
            b: V(10),
        };
        let mut far = vec![Item::Op(&a, vec![10])];
        far.extend((0..2 * ITEMS_PER_ACCESS).map(|_| Item::Op(&add, vec![11])));
        far.push(Item::Op(&b, vec![]));
        let mut cases = cases;
        cases.push(far);
        for items in &cases {
            assert_eq!(plan_block(items, |_| false), once(items));
        }
        // Accesses without a full-chunk path: a uniform load, a tested
        // index, a gather.
        let uniform = load(10, 1, 2, Known::Offset, true);
        let tested = load(10, 1, 2, Known::Tested, false);
        let mut gather = load(10, 1, 2, Known::Tested, false);
        if let Op::LoadElems { how, .. } = &mut gather {
            how.consecutive = false;
        }
        // A `__local` row loaded from lane 0 without a bounds test: masked
        // in both copies, so no copy is made for it.
        let mut local_row = load(10, 1, 2, Known::FromLane0, false);
        if let Op::LoadElems { how, .. } = &mut local_row {
            how.base = Base::LocalArg;
            how.lane0 = true;
        }
        for x in [&uniform, &tested, &gather, &local_row] {
            let items = [Item::Op(x, vec![10]), Item::Op(x, vec![10])];
            assert_eq!(plan_block(&items, |_| false), once(&items));
        }
        // The same row as a store keeps its stretch.
        let mut local_store = store(10, 1, 2);
        if let Op::StoreElems { how, .. } = &mut local_store {
            how.base = Base::LocalArg;
            how.lane0 = true;
        }
        let items = [
            Item::Op(&local_row, vec![10]),
            Item::Op(&local_store, vec![]),
            Item::Op(&local_store, vec![]),
        ];
        assert!(matches!(
            plan_block(&items, |_| false)[1],
            Planned::Test { k: 2, at: 1 }
        ));
    }

    #[test]
    fn a_proven_span_lasts_until_its_index_is_written_or_a_path_without_it_joins() {
        let mut h = held();
        h.span(2, 3);
        assert!(h.has_span(2, 3) && !h.has_span(1, 3) && !h.has_span(2, 4));
        // Registers changing do not change what the values are.
        h.after(&code(|a| a.mov(r10, 1u64)), &[]);
        assert!(h.has_span(2, 3));
        let other = held();
        let mut joined = h.clone();
        joined.meet(&other);
        assert!(!joined.has_span(2, 3));
        h.after(&[], &[3]);
        assert!(!h.has_span(2, 3));
    }

    #[test]
    fn an_index_written_again_or_another_buffer_is_not_held() {
        let mut h = held();
        h.after(&[], &[3]);
        assert!(!h.has_index(3));
        let mut h = held();
        assert!(!h.has_buffer(Base::Arg, 16) && !h.has_buffer(Base::LocalArg, 8));
        // A uniform load's r10 is another lane's: forgotten.
        h.access((Base::Arg, 16), None, false, &[]);
        assert!(h.has_buffer(Base::Arg, 16) && !h.has_index(3));
        // An access by the chunk's id leaves r10 alone.
        let mut h = held();
        h.access((Base::Arg, 16), None, true, &[]);
        assert!(h.has_index(3));
        // A load into the index value itself.
        let mut h = held();
        h.access((Base::Arg, 8), Some(3), false, &[3]);
        assert!(!h.has_index(3));
        h.forget();
        assert_eq!(h, Held::default());
    }
}
