//! Reading the binary form: the module's words become a list of decoded
//! instructions, each with the word offset it starts at, so every later
//! error can say where it is.
//!
//! Decoding (header, word counts, operands by the grammar) is `rspirv`'s
//! parser; what it reports (a byte offset and an instruction number) is
//! turned into the word offset and the name of the instruction concerned.

use crate::error::{Result, SpirvError};
use rspirv::binary::{Consumer, ParseAction, ParseState};
use rspirv::dr;
use rspirv::grammar::INSTRUCTION_TABLE;

/// A decoded instruction and where it starts.
pub struct Inst {
    pub word: usize,
    pub inst: dr::Instruction,
}

impl Inst {
    pub fn opname(&self) -> &'static str {
        self.inst.class.opname
    }

    pub fn error(&self, message: impl Into<String>) -> SpirvError {
        SpirvError::at(self.word, self.opname(), message)
    }
}

/// A module as read: its header's version and id bound, and its
/// instructions in order.
pub struct Binary {
    pub version: (u8, u8),
    pub bound: u32,
    pub insts: Vec<Inst>,
}

const HEADER_WORDS: usize = 5;

#[derive(Default)]
struct Collect {
    header: Option<dr::ModuleHeader>,
    insts: Vec<dr::Instruction>,
}

impl Consumer for Collect {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn finalize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_header(&mut self, header: dr::ModuleHeader) -> ParseAction {
        self.header = Some(header);
        ParseAction::Continue
    }
    fn consume_instruction(&mut self, inst: dr::Instruction) -> ParseAction {
        self.insts.push(inst);
        ParseAction::Continue
    }
}

/// The word offset of the `index`-th instruction (1-based, as the parser
/// counts) and its opcode's name, found by walking the word counts.
fn locate(words: &[u32], index: usize) -> (usize, Option<&'static str>) {
    let mut at = HEADER_WORDS;
    for _ in 1..index {
        let count = words.get(at).map_or(0, |w| (w >> 16) as usize);
        if count == 0 {
            break;
        }
        at += count;
    }
    let name = words
        .get(at)
        .and_then(|w| INSTRUCTION_TABLE.lookup_opcode(w & 0xffff))
        .map(|g| g.opname);
    (at, name)
}

/// Decodes `words` (host byte order, as `clCreateProgramWithIL` passes them).
pub fn read(words: &[u32]) -> Result<Binary> {
    // Word counts are checked before decoding: the decoder trusts them
    // further than a hostile module deserves.
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let name = INSTRUCTION_TABLE
            .lookup_opcode(words[at] & 0xffff)
            .map(|g| g.opname.to_string());
        if count == 0 {
            return Err(SpirvError {
                word: Some(at),
                opname: name,
                message: "an instruction with a word count of 0".into(),
            });
        }
        if at + count > words.len() {
            return Err(SpirvError {
                word: Some(at),
                opname: name,
                message: format!(
                    "the instruction's {count} words run past the end of the module ({} words; truncated?)",
                    words.len()
                ),
            });
        }
        at += count;
    }
    // rspirv decodes an `OpSpecConstantOp`'s operands one per operand of
    // the grammar, which misreads the variable-length ones (an access
    // chain without indices reads past its instruction): such
    // instructions are decoded here, and the decoder sees a placeholder.
    let (words_for_decoder, spec_ops) = take_spec_constant_ops(words);
    let words_for_decoder = words_for_decoder.as_deref().unwrap_or(words);
    let mut c = Collect::default();
    // The decoder panics on some malformed operands (a literal whose type
    // it cannot tell): that is a malformed instruction, the one after the
    // last decoded.
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rspirv::binary::parse_words(words_for_decoder, &mut c)
    }));
    match parsed {
        Ok(Ok(())) => {}
        Ok(Err(state)) => return Err(parse_error(words, state, c.insts.len())),
        Err(_) => {
            let (word, name) = locate(words, c.insts.len() + 1);
            return Err(SpirvError {
                word: Some(word),
                opname: name.map(str::to_string),
                message:
                    "malformed operands (a literal of a type that is not an integer or float?)"
                        .into(),
            });
        }
    }
    let header = c
        .header
        .ok_or_else(|| SpirvError::module("the module has no header"))?;
    let mut insts = Vec::with_capacity(c.insts.len());
    let mut at = HEADER_WORDS;
    for mut inst in c.insts {
        let count = words.get(at).map_or(1, |w| (w >> 16) as usize).max(1);
        if let Some(decoded) = spec_ops.iter().find(|(w, _)| *w == at) {
            inst = decoded.1.clone();
        }
        insts.push(Inst { word: at, inst });
        at += count;
    }
    Ok(Binary {
        version: header.version(),
        bound: header.bound,
        insts,
    })
}

/// The `OpSpecConstantOp`s of `words` whose operation is known, decoded
/// (by word offset), and a copy of `words` with each replaced by an
/// `OpUndef` of the same result (`None` when there are none).
fn take_spec_constant_ops(words: &[u32]) -> (Option<Vec<u32>>, Vec<(usize, dr::Instruction)>) {
    use rspirv::spirv::Op;
    let Some(class) = INSTRUCTION_TABLE.lookup_opcode(Op::SpecConstantOp as u32) else {
        return (None, Vec::new());
    };
    let mut copy: Option<Vec<u32>> = None;
    let mut out = Vec::new();
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = ((words[at] >> 16) as usize).max(1);
        let end = (at + count).min(words.len());
        let op = words[at] & 0xffff;
        if op == Op::SpecConstantOp as u32 && count >= 4 && end == at + count {
            let inner = INSTRUCTION_TABLE.lookup_opcode(words[at + 3]);
            if let Some(inner) = inner {
                // Ids, then the literal indices of the composite and
                // shuffle operations.
                let ids = match inner.opcode {
                    Op::VectorShuffle | Op::CompositeInsert => 2,
                    Op::CompositeExtract => 1,
                    _ => usize::MAX,
                };
                let mut operands = vec![dr::Operand::LiteralSpecConstantOpInteger(inner.opcode)];
                for (k, w) in words[at + 4..end].iter().enumerate() {
                    operands.push(if k < ids {
                        dr::Operand::IdRef(*w)
                    } else {
                        dr::Operand::LiteralBit32(*w)
                    });
                }
                out.push((
                    at,
                    dr::Instruction {
                        class,
                        result_type: Some(words[at + 1]),
                        result_id: Some(words[at + 2]),
                        operands,
                    },
                ));
                let c = copy.get_or_insert_with(|| {
                    let mut v = Vec::with_capacity(words.len());
                    v.extend_from_slice(&words[..at]);
                    v
                });
                c.extend([(3 << 16) | Op::Undef as u32, words[at + 1], words[at + 2]]);
                at = end;
                continue;
            }
        }
        if let Some(c) = copy.as_mut() {
            c.extend_from_slice(&words[at..end]);
        }
        at = end;
    }
    if copy.is_none() {
        out.clear();
    }
    (copy, out)
}

/// The error of a failed decode; `decoded` instructions came before.
fn parse_error(words: &[u32], state: ParseState, decoded: usize) -> SpirvError {
    let at = |index: usize, message: String| {
        let (word, name) = locate(words, index);
        SpirvError {
            word: Some(word),
            opname: name.map(str::to_string),
            message,
        }
    };
    match state {
        ParseState::HeaderIncomplete(_) => SpirvError {
            word: Some(0),
            opname: None,
            message: format!(
                "the module is {} words long, shorter than its 5-word header",
                words.len()
            ),
        },
        ParseState::HeaderIncorrect => SpirvError {
            word: Some(0),
            opname: None,
            message: format!(
                "not a SPIR-V module: the magic number is {:#010x}, not 0x07230203",
                words.first().copied().unwrap_or(0)
            ),
        },
        ParseState::EndiannessUnsupported => SpirvError {
            word: Some(0),
            opname: None,
            message: "the module's words are byte-swapped (the magic number reads 0x03022307)"
                .into(),
        },
        ParseState::WordCountZero(_, i) => at(i, "an instruction with a word count of 0".into()),
        ParseState::OpcodeUnknown(_, i, op) => at(i, format!("unknown opcode {op}")),
        ParseState::OperandExpected(_, i) => at(
            i,
            "the instruction ends before its operands do (truncated module?)".into(),
        ),
        ParseState::OperandExceeded(_, i) => {
            at(i, "the instruction has more words than its operands".into())
        }
        ParseState::TypeUnsupported(_, i) => {
            at(i, "a literal of a type the decoder does not know".into())
        }
        ParseState::SpecConstantOpIntegerIncorrect(_, i) => {
            at(i, "OpSpecConstantOp names an unknown opcode".into())
        }
        other => {
            // Operand decoding errors carry no instruction: it is the one
            // after the last decoded.
            let (word, name) = locate(words, decoded + 1);
            SpirvError {
                word: Some(word),
                opname: name.map(str::to_string),
                message: format!("malformed operands: {other}"),
            }
        }
    }
}
