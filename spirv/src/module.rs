//! The module level: capabilities and memory model, names and
//! decorations, types, constants, module-scope variables and function
//! signatures — everything the function bodies ([`crate::function`]) look
//! up by id.
//!
//! SPIR-V integers are signless (the OpenCL environment requires
//! signedness 0); they become the IR's *unsigned* types, and the
//! instructions that read a sign (`OpSDiv`, `OpSLessThan`, `s_max`…)
//! reinterpret their operands as signed around the IR operation. Pointers
//! keep their storage class as an address space; `Input` variables are
//! the work-item built-ins and never become memory.

use crate::error::{Result, SpirvError};
use crate::reader::{Binary, Inst};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Decoration, Op, StorageClass};
use std::collections::{HashMap, HashSet};
use vecl_ir::link::{Linkage, Unit};
use vecl_ir::*;

/// A type declaration, as the module spells it.
#[derive(Clone, Debug)]
pub(crate) enum SType {
    Void,
    Bool,
    Int(u32),
    Float(u32),
    Vector(u32, u32),
    Array(u32, u32),
    Struct(Vec<u32>),
    Pointer(StorageClass, u32),
    Function(u32, Vec<u32>),
    /// An image (`OpTypeImage`): a `ptr global u8` to the descriptor the
    /// runtime passes, as for OpenCL C.
    Image(ImageType),
    /// `OpTypeSampler`: a `u32` of sampler bits.
    Sampler,
    /// `OpTypeSampledImage`: an image and a
    /// sampler, carried together by the front end, never a value.
    SampledImage,
    /// Event, sampler, image, queue…: named for the error that uses one.
    Opaque(&'static str),
}

/// An image type: its OpenCL C name, the coordinate's components the image
/// builtins take, and the access qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ImageType {
    pub name: &'static str,
    pub coord_lanes: u8,
    pub access: AccessQualifier,
}

/// A constant, as declared (resolved to values per function).
#[derive(Clone, Debug)]
pub(crate) enum Const {
    /// A scalar: its IR type and bits (zero-extended).
    Scalar(Scalar, u64),
    /// A vector, array or struct of the constants named.
    Composite(u32, Vec<u32>),
    /// All zeros of the type (a null pointer for pointers).
    Null(u32),
    Undef(u32),
    /// `OpSpecConstantOp`: the instruction (an index into the module's),
    /// evaluated where a function uses it.
    SpecOp(usize),
}

/// What a module-scope `OpVariable` is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GlobalRef {
    /// An IR global of the module.
    Memory(GlobalId),
    /// A work-item built-in (`Input` storage class).
    BuiltIn(WorkItemFn),
    /// A sub-group built-in: the name of its query builtin.
    SubGroup(&'static str),
}

/// A function's id in the IR and its SPIR-V signature.
#[derive(Clone, Debug)]
pub(crate) struct FuncRef {
    pub id: FuncId,
    /// Whether the callee is only declared (an import).
    pub declared: bool,
}

/// Translation options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Specialisation constant values by `SpecId` (bit patterns,
    /// zero-extended), overriding the module's defaults.
    pub spec_constants: HashMap<u32, u64>,
}

/// The module-level tables, read once; the bodies are translated with them.
pub(crate) struct Cx<'a> {
    pub insts: &'a [Inst],
    pub names: HashMap<u32, String>,
    pub decorations: HashMap<u32, Vec<(Decoration, Vec<Operand>)>>,
    pub types: HashMap<u32, SType>,
    resolved: HashMap<u32, Type>,
    resolving: HashSet<u32>,
    pub struct_ids: HashMap<u32, StructId>,
    pub consts: HashMap<u32, Const>,
    pub globals: HashMap<u32, GlobalRef>,
    pub functions: HashMap<u32, FuncRef>,
    pub opencl_std: HashSet<u32>,
    /// Extended instruction sets whose instructions are skipped (debug
    /// information, non-semantic sets).
    pub ignored_sets: HashSet<u32>,
    pub module: Module,
    pub function_linkage: Vec<Linkage>,
    /// For each translated function, the SPIR-V instruction (word offset,
    /// name) each IR value came from, by value number: the verifier's
    /// findings on a hostile module are reported there.
    pub provenance: HashMap<FuncId, Vec<(usize, &'static str)>>,
    /// The qualifiers the parameters' decorations give (`NoWrite` is
    /// `const`, `NoAlias` `restrict`, `Volatile` `volatile`), per function.
    param_qualifiers: HashMap<FuncId, Vec<TypeQualifiers>>,
    /// The SPIR-V type of each parameter, per function (images and
    /// samplers are told apart by it).
    param_types: HashMap<FuncId, Vec<u32>>,
    /// The result type of every instruction that has one, by result id.
    pub id_types: HashMap<u32, u32>,
    pub global_linkage: Vec<Linkage>,
    /// The addresses [`Cx::const_bytes`] met in the initialiser it laid
    /// out: (byte offset in it, the variable pointed into, byte addend).
    pub pending_relocs: Vec<(usize, GlobalId, u32)>,
    pub bound: u32,
    opts: &'a Options,
}

/// The largest array the front end accepts, in bytes: past any memory a
/// kernel could use, short of sizes that overflow a layout.
const MAX_OBJECT: u64 = 1 << 30;

/// The largest initialiser of a module-scope variable, in bytes.
pub(crate) const MAX_INITIALISER: usize = 64 << 20;

pub(crate) fn word_of(inst: &Inst, i: usize) -> Result<u32> {
    match inst.inst.operands.get(i) {
        Some(Operand::IdRef(w) | Operand::LiteralBit32(w) | Operand::LiteralExtInstInteger(w)) => {
            Ok(*w)
        }
        Some(Operand::IdMemorySemantics(w) | Operand::IdScope(w)) => Ok(*w),
        _ => Err(inst.error(format!("operand {i} is missing or not an id"))),
    }
}

pub(crate) fn result_id(inst: &Inst) -> Result<u32> {
    inst.inst
        .result_id
        .ok_or_else(|| inst.error("the instruction has no result id"))
}

pub(crate) fn result_type(inst: &Inst) -> Result<u32> {
    inst.inst
        .result_type
        .ok_or_else(|| inst.error("the instruction has no result type"))
}

/// A name the IR text form can print: letters, digits, `_` and `.`.
pub(crate) fn clean_name(s: &str) -> String {
    let n: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if n.is_empty() || n.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{n}")
    } else {
        n
    }
}

impl<'a> Cx<'a> {
    pub fn new(bin: &'a Binary, opts: &'a Options) -> Cx<'a> {
        Cx {
            insts: &bin.insts,
            names: HashMap::new(),
            decorations: HashMap::new(),
            types: HashMap::new(),
            resolved: HashMap::new(),
            resolving: HashSet::new(),
            struct_ids: HashMap::new(),
            consts: HashMap::new(),
            globals: HashMap::new(),
            functions: HashMap::new(),
            opencl_std: HashSet::new(),
            module: Module::default(),
            function_linkage: Vec::new(),
            provenance: HashMap::new(),
            param_qualifiers: HashMap::new(),
            global_linkage: Vec::new(),
            pending_relocs: Vec::new(),
            ignored_sets: HashSet::new(),
            param_types: HashMap::new(),
            id_types: HashMap::new(),
            bound: bin.bound,
            opts,
        }
    }

    pub fn decoration(&self, id: u32, d: Decoration) -> Option<&[Operand]> {
        self.decorations
            .get(&id)?
            .iter()
            .find(|(k, _)| *k == d)
            .map(|(_, ops)| ops.as_slice())
    }

    pub fn has_decoration(&self, id: u32, d: Decoration) -> bool {
        self.decoration(id, d).is_some()
    }

    /// `LinkageAttributes`: the linkage name and whether it is an import.
    /// The linkage name and type `LinkageAttributes` give `id`
    /// (`LinkOnceODR` of `SPV_KHR_linkonce_odr` is [`Linkage::LinkOnce`]).
    pub fn linkage(&self, id: u32) -> Option<(String, Linkage)> {
        let ops = self.decoration(id, Decoration::LinkageAttributes)?;
        let name = match ops.first() {
            Some(Operand::LiteralString(s)) => s.clone(),
            _ => return None,
        };
        let linkage = match ops.get(1) {
            Some(Operand::LinkageType(spirv::LinkageType::Import)) => Linkage::Import,
            Some(Operand::LinkageType(spirv::LinkageType::LinkOnceODR)) => Linkage::LinkOnce,
            _ => Linkage::Export,
        };
        Some((name, linkage))
    }

    fn check_id(&self, inst: &Inst, id: u32) -> Result<()> {
        if id == 0 || id >= self.bound {
            return Err(inst.error(format!(
                "id %{id} is out of range (the module's bound is {})",
                self.bound
            )));
        }
        Ok(())
    }

    /// The module-level pass: everything before the first function body,
    /// and the signatures of all functions.
    pub fn read_module(&mut self) -> Result<()> {
        let mut saw_memory_model = false;
        // SSA: every id is defined once. (A constant redefined as a
        // composite of itself would otherwise recurse without end.)
        let mut defined = HashSet::new();
        for inst in self.insts {
            if let Some(id) = inst.inst.result_id {
                self.check_id(inst, id)?;
                if let Some(t) = inst.inst.result_type {
                    self.id_types.insert(id, t);
                }
                if !defined.insert(id) {
                    return Err(inst.error(format!("id %{id} is defined twice")));
                }
            }
            // The operands of a skipped set's instructions may be literals
            // the decoder reads as ids (debug information's flags).
            let skipped = inst.inst.class.opcode == Op::ExtInst
                && matches!(inst.inst.operands.first(), Some(Operand::IdRef(s)) if self.ignored_sets.contains(s));
            for op in &inst.inst.operands {
                if let Operand::IdRef(id) = op {
                    if !skipped {
                        self.check_id(inst, *id)?;
                    }
                }
            }
            match inst.inst.class.opcode {
                Op::Capability => {
                    if let Some(Operand::Capability(c)) = inst.inst.operands.first() {
                        if !crate::support::capability_accepted(*c) {
                            return Err(
                                inst.error(format!("capability {c:?} is not supported by vecl"))
                            );
                        }
                    }
                }
                Op::MemoryModel => {
                    saw_memory_model = true;
                    let ops = &inst.inst.operands;
                    match (ops.first(), ops.get(1)) {
                        (
                            Some(Operand::AddressingModel(spirv::AddressingModel::Physical64)),
                            Some(Operand::MemoryModel(spirv::MemoryModel::OpenCL)),
                        ) => {}
                        (a, m) => {
                            return Err(inst.error(format!(
                                "vecl runs modules with the Physical64 addressing and OpenCL memory models, not {a:?} / {m:?}"
                            )))
                        }
                    }
                }
                Op::Extension => {
                    if let Some(Operand::LiteralString(name)) = inst.inst.operands.first() {
                        if !crate::support::extension_accepted(name) {
                            return Err(inst.error(format!(
                                "extension {name} is not supported by vecl (it accepts {})",
                                crate::support::EXTENSIONS.join(", ")
                            )));
                        }
                    }
                }
                Op::ExtInstImport => {
                    use crate::support::SetUse;
                    let id = result_id(inst)?;
                    let name = match inst.inst.operands.first() {
                        Some(Operand::LiteralString(s)) => s.as_str(),
                        _ => "",
                    };
                    match crate::support::extended_instruction_set(name) {
                        Some(SetUse::Translated) => {
                            self.opencl_std.insert(id);
                        }
                        // Debug information (`cl_khr_spirv_extended_debug_info`)
                        // and other non-semantic sets change nothing: their
                        // instructions are skipped.
                        Some(SetUse::Skipped) => {
                            self.ignored_sets.insert(id);
                        }
                        None => {
                            return Err(inst.error(format!(
                            "extended instruction set {name:?} is not supported (only OpenCL.std)"
                        )))
                        }
                    }
                }
                Op::Name => {
                    if let (Some(Operand::IdRef(id)), Some(Operand::LiteralString(s))) =
                        (inst.inst.operands.first(), inst.inst.operands.get(1))
                    {
                        self.names.insert(*id, s.clone());
                    }
                }
                Op::Decorate => {
                    if let (Some(Operand::IdRef(id)), Some(Operand::Decoration(d))) =
                        (inst.inst.operands.first(), inst.inst.operands.get(1))
                    {
                        self.decorations
                            .entry(*id)
                            .or_default()
                            .push((*d, inst.inst.operands[2..].to_vec()));
                    }
                }
                Op::DecorationGroup | Op::GroupDecorate | Op::GroupMemberDecorate => {
                    self.group_decorate(inst)?;
                }
                _ => {}
            }
        }
        if !saw_memory_model {
            return Err(SpirvError::module("the module has no OpMemoryModel"));
        }
        self.read_types_and_values()?;
        self.read_entry_points()?;
        Ok(())
    }

    /// `OpGroupDecorate`: the group's decorations apply to each target.
    fn group_decorate(&mut self, inst: &Inst) -> Result<()> {
        if inst.inst.class.opcode != Op::GroupDecorate {
            return Ok(());
        }
        let group = word_of(inst, 0)?;
        let decs = self.decorations.get(&group).cloned().unwrap_or_default();
        for op in &inst.inst.operands[1..] {
            if let Operand::IdRef(t) = op {
                self.decorations
                    .entry(*t)
                    .or_default()
                    .extend(decs.iter().cloned());
            }
        }
        Ok(())
    }

    fn read_types_and_values(&mut self) -> Result<()> {
        // Declarations first (forward pointers may name a later struct),
        // then the IR types, then constants and variables in order.
        for inst in self.insts {
            let op = inst.inst.class.opcode;
            let t = match op {
                Op::TypeVoid => SType::Void,
                Op::TypeBool => SType::Bool,
                Op::TypeInt => {
                    let bits = word_of(inst, 0)?;
                    if !matches!(bits, 8 | 16 | 32 | 64) {
                        return Err(inst.error(format!("{bits}-bit integers are not supported")));
                    }
                    SType::Int(bits)
                }
                Op::TypeFloat => {
                    let bits = word_of(inst, 0)?;
                    if !matches!(bits, 16 | 32 | 64) {
                        return Err(inst.error(format!("{bits}-bit floats are not supported")));
                    }
                    SType::Float(bits)
                }
                Op::TypeVector => SType::Vector(word_of(inst, 0)?, word_of(inst, 1)?),
                Op::TypeArray => SType::Array(word_of(inst, 0)?, word_of(inst, 1)?),
                Op::TypeStruct => {
                    let mut members = Vec::new();
                    for i in 0..inst.inst.operands.len() {
                        members.push(word_of(inst, i)?);
                    }
                    SType::Struct(members)
                }
                Op::TypePointer => match inst.inst.operands.first() {
                    Some(Operand::StorageClass(sc)) => SType::Pointer(*sc, word_of(inst, 1)?),
                    _ => return Err(inst.error("a pointer type without a storage class")),
                },
                Op::TypeFunction => {
                    let mut params = Vec::new();
                    for i in 1..inst.inst.operands.len() {
                        params.push(word_of(inst, i)?);
                    }
                    SType::Function(word_of(inst, 0)?, params)
                }
                // An event is a 64-bit handle, as in the OpenCL C front end.
                Op::TypeEvent => SType::Int(64),
                Op::TypeDeviceEvent => SType::Opaque("clk_event_t"),
                Op::TypeReserveId => SType::Opaque("reserve_id_t"),
                Op::TypeQueue => SType::Opaque("queue_t"),
                Op::TypePipe => SType::Opaque("pipe"),
                Op::TypeSampler => SType::Sampler,
                Op::TypeImage => SType::Image(image_type(inst)?),
                Op::TypeSampledImage => SType::SampledImage,
                // A struct declared without its members: only pointers to it
                // are values.
                Op::TypeOpaque => SType::Struct(Vec::new()),
                Op::TypeRuntimeArray => SType::Opaque("runtime array"),
                Op::TypeForwardPointer => continue,
                _ => continue,
            };
            let id = result_id(inst)?;
            if let SType::Struct(_) = t {
                let sid = StructId(self.module.structs.len() as u32);
                let own = match (op, inst.inst.operands.first()) {
                    (Op::TypeOpaque, Some(Operand::LiteralString(n))) => Some(n),
                    _ => None,
                };
                let name = self
                    .names
                    .get(&id)
                    .or(own)
                    .map(|n| clean_name(n))
                    .unwrap_or_else(|| format!("struct.{id}"));
                self.module.structs.push(StructDef {
                    name,
                    is_union: false,
                    packed: self.has_decoration(id, Decoration::CPacked),
                    fields: Vec::new(),
                    size: 0,
                    align: 1,
                });
                self.struct_ids.insert(id, sid);
            }
            if self.types.insert(id, t).is_some() {
                return Err(inst.error(format!("type %{id} is declared twice")));
            }
        }
        // Constants come before the struct layouts: array lengths are constants.
        for (k, inst) in self.insts.iter().enumerate() {
            if inst.inst.class.opcode == Op::SpecConstantOp && self.is_module_scope(inst) {
                self.consts.insert(result_id(inst)?, Const::SpecOp(k));
                continue;
            }
            self.read_constant(inst)?;
        }
        let ids: Vec<(u32, StructId)> = self.struct_ids.iter().map(|(a, b)| (*a, *b)).collect();
        let mut done = HashSet::new();
        for (id, _) in &ids {
            self.layout_struct(*id, &mut done, &mut HashSet::new())?;
        }
        for inst in self.insts {
            if inst.inst.class.opcode == Op::Variable && self.is_module_scope(inst) {
                self.read_global(inst)?;
            }
        }
        self.declare_functions()?;
        Ok(())
    }

    /// Whether `inst` comes before the first `OpFunction`.
    fn is_module_scope(&self, inst: &Inst) -> bool {
        let first_fn = self
            .insts
            .iter()
            .find(|i| i.inst.class.opcode == Op::Function)
            .map_or(usize::MAX, |i| i.word);
        inst.word < first_fn
    }

    fn type_error(&self, id: u32, message: String) -> SpirvError {
        match self.insts.iter().find(|i| i.inst.result_id == Some(id)) {
            Some(i) => i.error(message),
            None => SpirvError::module(message),
        }
    }

    /// The IR type of type `id`. Structs are named (their fields are laid
    /// out separately), so a pointer cycle through a struct is fine; any
    /// other cycle is a recursive type.
    pub fn ir_type(&mut self, id: u32) -> Result<Type> {
        if let Some(t) = self.resolved.get(&id) {
            return Ok(t.clone());
        }
        let Some(st) = self.types.get(&id).cloned() else {
            return Err(self.type_error(id, format!("%{id} is not a type")));
        };
        if !self.resolving.insert(id) {
            return Err(self.type_error(id, format!("type %{id} contains itself")));
        }
        let t = self.ir_type_of(id, st);
        self.resolving.remove(&id);
        let t = t?;
        self.resolved.insert(id, t.clone());
        Ok(t)
    }

    fn ir_type_of(&mut self, id: u32, st: SType) -> Result<Type> {
        Ok(match st {
            SType::Void => Type::Void,
            SType::Bool => Type::BOOL,
            SType::Int(bits) => Type::Scalar(match bits {
                8 => Scalar::U8,
                16 => Scalar::U16,
                32 => Scalar::U32,
                _ => Scalar::U64,
            }),
            SType::Float(bits) => Type::Scalar(match bits {
                16 => Scalar::F16,
                32 => Scalar::F32,
                _ => Scalar::F64,
            }),
            SType::Vector(elem, n) => {
                let e = self.ir_type(elem)?;
                match e {
                    Type::Scalar(s) if VECTOR_LENGTHS.contains(&(n as u8)) && n <= 16 => {
                        Type::Vector(s, n as u8)
                    }
                    _ => {
                        return Err(self.type_error(
                            id,
                            format!("a vector of {n} components of {e:?} is not an OpenCL type"),
                        ))
                    }
                }
            }
            SType::Array(elem, len) => {
                let e = self.ir_type(elem)?;
                let n = match self.consts.get(&len) {
                    Some(Const::Scalar(s, bits)) if s.is_int() => *bits,
                    _ => {
                        return Err(self.type_error(
                            id,
                            format!("the array length %{len} is not an integer constant"),
                        ))
                    }
                };
                let bytes = u64::from(self.module.size_of(&e)).saturating_mul(n);
                if e.is_void() || n == 0 || n > u64::from(u32::MAX) || bytes > MAX_OBJECT {
                    return Err(self.type_error(id, format!("an array of {n} elements")));
                }
                Type::array(e, n as u32)
            }
            SType::Struct(_) => Type::Struct(self.struct_ids[&id]),
            SType::Pointer(sc, pointee) => {
                let space = match sc {
                    StorageClass::Function => AddressSpace::Private,
                    StorageClass::CrossWorkgroup => AddressSpace::Global,
                    StorageClass::UniformConstant => AddressSpace::Constant,
                    StorageClass::Workgroup => AddressSpace::Local,
                    StorageClass::Generic => AddressSpace::Generic,
                    // Input pointers reach built-ins only; their IR type is
                    // never a value's.
                    StorageClass::Input => AddressSpace::Private,
                    other => {
                        return Err(self.type_error(
                            id,
                            format!("storage class {other:?} is not one of OpenCL's"),
                        ))
                    }
                };
                let p = self.ir_type(pointee)?;
                if p.is_void() {
                    // `void*` is spelled `i8*` in SPIR-V; be lenient.
                    Type::ptr(space, Type::Scalar(Scalar::U8))
                } else {
                    Type::ptr(space, p)
                }
            }
            SType::Function(..) => {
                return Err(self.type_error(id, "a function type is not a value type".into()))
            }
            SType::Image(_) => Type::ptr(AddressSpace::Global, Type::Scalar(Scalar::U8)),
            SType::Sampler => Type::U32,
            SType::SampledImage => {
                return Err(self.type_error(
                    id,
                    "a sampled image is not a value type (only OpSampledImage makes one)".into(),
                ))
            }
            SType::Opaque(what) => {
                return Err(self.type_error(
                    id,
                    format!("{what} types are not supported by vecl's SPIR-V front end"),
                ))
            }
        })
    }

    /// Lays out struct `id` after the structs it contains by value.
    fn layout_struct(
        &mut self,
        id: u32,
        done: &mut HashSet<u32>,
        open: &mut HashSet<u32>,
    ) -> Result<()> {
        if done.contains(&id) {
            return Ok(());
        }
        if !open.insert(id) {
            return Err(self.type_error(id, format!("struct %{id} contains itself")));
        }
        let Some(SType::Struct(members)) = self.types.get(&id).cloned() else {
            return Ok(());
        };
        let mut fields = Vec::new();
        for (i, m) in members.iter().enumerate() {
            let t = self.ir_type(*m)?;
            let mut inner = &t;
            while let Type::Array(e, _) = inner {
                inner = e;
            }
            if let Type::Struct(_) = inner {
                let inner_id = self
                    .struct_ids
                    .iter()
                    .find(|(_, s)| Type::Struct(**s) == *inner)
                    .map(|(k, _)| *k);
                if let Some(k) = inner_id {
                    self.layout_struct(k, done, open)?;
                }
            }
            if t.is_void() {
                return Err(self.type_error(id, format!("member {i} of struct %{id} is void")));
            }
            fields.push((format!("m{i}"), t));
        }
        let total: u64 = fields
            .iter()
            .map(|(_, t)| u64::from(self.module.size_of(t)))
            .sum();
        if total > MAX_OBJECT {
            return Err(self.type_error(id, format!("a struct of {total} bytes")));
        }
        let sid = self.struct_ids[&id];
        let old = &self.module.structs[sid.0 as usize];
        let def = StructDef::layout(
            &old.name.clone(),
            false,
            old.packed,
            1,
            fields,
            &self.module.structs,
        );
        self.module.structs[sid.0 as usize] = def;
        open.remove(&id);
        done.insert(id);
        Ok(())
    }

    fn read_constant(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.inst.class.opcode;
        if !matches!(
            op,
            Op::Constant
                | Op::ConstantTrue
                | Op::ConstantFalse
                | Op::ConstantNull
                | Op::ConstantComposite
                | Op::SpecConstant
                | Op::SpecConstantTrue
                | Op::SpecConstantFalse
                | Op::SpecConstantComposite
                | Op::Undef
                | Op::ConstantSampler
                | Op::SpecConstantOp
        ) || !self.is_module_scope(inst)
        {
            return Ok(());
        }
        let id = result_id(inst)?;
        let ty = result_type(inst)?;
        let spec = self
            .decoration(id, Decoration::SpecId)
            .and_then(|ops| match ops.first() {
                Some(Operand::LiteralBit32(n)) => self.opts.spec_constants.get(n).copied(),
                _ => None,
            });
        let c = match op {
            Op::ConstantTrue | Op::ConstantFalse | Op::SpecConstantTrue | Op::SpecConstantFalse => {
                let default = matches!(op, Op::ConstantTrue | Op::SpecConstantTrue);
                let v = match (op, spec) {
                    (Op::SpecConstantTrue | Op::SpecConstantFalse, Some(v)) => v != 0,
                    _ => default,
                };
                Const::Scalar(Scalar::Bool, u64::from(v))
            }
            Op::Constant | Op::SpecConstant => {
                let t = self.ir_type(ty)?;
                let Type::Scalar(s) = t else {
                    return Err(inst.error("a scalar constant of a non-scalar type"));
                };
                let bits = match inst.inst.operands.first() {
                    Some(Operand::LiteralBit32(w)) => u64::from(*w),
                    Some(Operand::LiteralBit64(w)) => *w,
                    _ => return Err(inst.error("a constant without a value")),
                };
                let bits = match (op, spec) {
                    (Op::SpecConstant, Some(v)) => v,
                    _ => bits,
                };
                let mask = if s.bits() >= 64 {
                    u64::MAX
                } else {
                    (1u64 << (s.size() * 8)) - 1
                };
                Const::Scalar(s, bits & mask)
            }
            Op::ConstantNull => Const::Null(ty),
            Op::ConstantSampler => Const::Scalar(Scalar::U32, u64::from(sampler_bits(inst)?)),
            Op::Undef => Const::Undef(ty),
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let mut parts = Vec::new();
                for i in 0..inst.inst.operands.len() {
                    let p = word_of(inst, i)?;
                    if !self.consts.contains_key(&p) {
                        return Err(inst.error(format!("constituent %{p} is not a constant")));
                    }
                    parts.push(p);
                }
                Const::Composite(ty, parts)
            }
            _ => {
                return Err(inst.error(format!(
                    "{} is not supported by vecl's SPIR-V front end",
                    inst.opname()
                )))
            }
        };
        self.consts.insert(id, c);
        Ok(())
    }

    /// The bytes of constant `id` laid out as type `ty` (for initialisers).
    pub fn const_bytes(&mut self, id: u32, out: &mut Vec<u8>) -> Result<()> {
        if self.globals.contains_key(&id) || matches!(self.consts.get(&id), Some(Const::SpecOp(_)))
        {
            // An address: 8 bytes the loader fills in (a relocation).
            if let Some((target, addend)) = self.const_address(id, 0)? {
                let addend = u32::try_from(addend).map_err(|_| {
                    self.type_error(
                        id,
                        format!("an address {addend} bytes from its variable's start"),
                    )
                })?;
                self.pending_relocs.push((out.len(), target, addend));
            }
            out.extend([0u8; 8]);
            return Ok(());
        }
        let c = self
            .consts
            .get(&id)
            .cloned()
            .ok_or_else(|| self.type_error(id, format!("%{id} is not a constant")))?;
        match c {
            Const::SpecOp(_) => {
                return Err(self.type_error(
                    id,
                    "an OpSpecConstantOp in an initialiser (vecl evaluates them in functions)"
                        .into(),
                ))
            }
            Const::Scalar(s, bits) => out.extend(&bits.to_le_bytes()[..s.size() as usize]),
            Const::Null(t) | Const::Undef(t) => {
                let t = self.ir_type(t)?;
                let n = self.module.size_of(&t) as usize;
                out.extend(std::iter::repeat_n(0, n));
            }
            Const::Composite(t, parts) => {
                let ty = self.ir_type(t)?;
                let start = out.len();
                match &ty {
                    Type::Struct(sid) => {
                        let def = self.module.structs[sid.0 as usize].clone();
                        for (p, f) in parts.iter().zip(&def.fields) {
                            out.resize(start + f.offset as usize, 0);
                            self.const_bytes(*p, out)?;
                        }
                    }
                    _ => {
                        for p in &parts {
                            self.const_bytes(*p, out)?;
                        }
                    }
                }
                let size = self.module.size_of(&ty) as usize;
                out.resize(start + size, 0);
            }
        }
        Ok(())
    }

    /// The address pointer constant `id` holds: a variable and a byte
    /// offset into it, or `None` for a null pointer. Addresses are module
    /// variables, null, and the casts and access chains of
    /// `OpSpecConstantOp` over them.
    fn const_address(&mut self, id: u32, depth: u32) -> Result<Option<(GlobalId, i64)>> {
        if depth > 64 {
            return Err(self.type_error(id, format!("the address %{id} is defined by itself")));
        }
        match self.globals.get(&id) {
            Some(GlobalRef::Memory(g)) => return Ok(Some((*g, 0))),
            Some(_) => {
                return Err(
                    self.type_error(id, "a built-in variable's address in an initialiser".into())
                )
            }
            None => {}
        }
        let k = match self.consts.get(&id) {
            Some(Const::Null(_)) => return Ok(None),
            Some(Const::SpecOp(k)) => *k,
            _ => {
                return Err(self.type_error(
                    id,
                    format!(
                    "%{id} is not an address (a variable, null, or a constant operation on one)"
                ),
                ))
            }
        };
        let inst = &self.insts[k];
        let ops = &inst.inst.operands;
        let Some(Operand::LiteralSpecConstantOpInteger(op)) = ops.first() else {
            return Err(inst.error("OpSpecConstantOp without an operation"));
        };
        let op = *op;
        let base = word_of(inst, 1)?;
        match op {
            Op::Bitcast | Op::PtrCastToGeneric | Op::GenericCastToPtr => {
                self.const_address(base, depth + 1)
            }
            Op::AccessChain | Op::InBoundsAccessChain | Op::PtrAccessChain | Op::InBoundsPtrAccessChain => {
                let indices: Vec<u32> = (2..ops.len()).map(|i| word_of(inst, i)).collect::<Result<_>>()?;
                let Some(at) = self.const_address(base, depth + 1)? else {
                    return Err(inst.error("an access chain from a null pointer in an initialiser"));
                };
                let base_ty = self
                    .insts
                    .iter()
                    .find(|i| i.inst.result_id == Some(base))
                    .and_then(|i| i.inst.result_type)
                    .ok_or_else(|| inst.error(format!("%{base} has no type")))?;
                let Some(SType::Pointer(_, pointee)) = self.types.get(&base_ty).cloned() else {
                    return Err(inst.error("the base of an access chain is not a pointer"));
                };
                let mut t = self.ir_type(pointee)?;
                let mut offset = at.1;
                let mut rest = indices.as_slice();
                if matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
                    let Some((first, more)) = rest.split_first() else {
                        return Err(inst.error("a pointer access chain without an element"));
                    };
                    offset += self.const_index(inst, *first)? * i64::from(self.module.size_of(&t));
                    rest = more;
                }
                for i in rest {
                    let n = self.const_index(inst, *i)?;
                    let (next, step) = match &t {
                        Type::Struct(sid) => {
                            let def = &self.module.structs[sid.0 as usize];
                            let Some(f) = usize::try_from(n).ok().and_then(|n| def.fields.get(n)) else {
                                return Err(inst.error(format!("struct member {n} does not exist")));
                            };
                            (f.ty.clone(), i64::from(f.offset))
                        }
                        Type::Array(e, _) => ((**e).clone(), n * i64::from(self.module.size_of(e))),
                        Type::Vector(s, _) => (Type::Scalar(*s), n * i64::from(s.size())),
                        other => return Err(inst.error(format!("indexes into {other:?}, not a composite"))),
                    };
                    t = next;
                    offset += step;
                }
                Ok(Some((at.0, offset)))
            }
            other => Err(inst.error(format!(
                "an OpSpecConstantOp {other:?} in an initialiser (vecl reads addresses there: casts and access chains of variables)"
            ))),
        }
    }

    /// A constant index of an initialiser's access chain, signed.
    fn const_index(&self, inst: &Inst, id: u32) -> Result<i64> {
        match self.consts.get(&id) {
            Some(Const::Scalar(s, bits)) if s.is_int() => {
                let shift = 64 - s.bits();
                Ok(((*bits << shift) as i64) >> shift)
            }
            _ => Err(inst.error(format!("the index %{id} is not an integer constant"))),
        }
    }

    /// Moves [`Cx::pending_relocs`] to the module, as relocations of `global`.
    pub fn place_relocs(&mut self, global: GlobalId) {
        for (offset, target, addend) in std::mem::take(&mut self.pending_relocs) {
            self.module.relocs.push(Reloc {
                global,
                offset: offset as u32,
                target,
                addend,
            });
        }
    }

    fn read_global(&mut self, inst: &Inst) -> Result<()> {
        let id = result_id(inst)?;
        let ty = result_type(inst)?;
        let sc = match inst.inst.operands.first() {
            Some(Operand::StorageClass(sc)) => *sc,
            _ => return Err(inst.error("a variable without a storage class")),
        };
        if sc == StorageClass::Input {
            let Some([Operand::BuiltIn(b)]) = self.decoration(id, Decoration::BuiltIn) else {
                return Err(inst.error("an Input variable that is not a built-in"));
            };
            let r = match (builtin_fn(*b), sub_group_builtin(*b)) {
                (Some(f), _) => GlobalRef::BuiltIn(f),
                (_, Some(name)) => GlobalRef::SubGroup(name),
                _ => {
                    return Err(
                        inst.error(format!("built-in variable {b:?} is not supported by vecl"))
                    )
                }
            };
            self.globals.insert(id, r);
            return Ok(());
        }
        let space = match sc {
            StorageClass::CrossWorkgroup => AddressSpace::Global,
            StorageClass::UniformConstant => AddressSpace::Constant,
            StorageClass::Workgroup => AddressSpace::Local,
            other => {
                return Err(inst.error(format!(
                    "a module-scope variable in storage class {other:?}"
                )))
            }
        };
        let pointee = match self.types.get(&ty) {
            Some(SType::Pointer(_, p)) => *p,
            _ => return Err(inst.error("a variable whose type is not a pointer")),
        };
        let ir_ty = self.ir_type(pointee)?;
        if ir_ty.is_void() {
            return Err(inst.error("a variable of type void"));
        }
        let init = match inst.inst.operands.get(1) {
            Some(Operand::IdRef(c)) => {
                if !self.consts.contains_key(c) && !self.globals.contains_key(c) {
                    return Err(inst.error(format!(
                        "the initialiser %{c} is not a constant or a variable's address"
                    )));
                }
                self.pending_relocs.clear();
                let size = self.module.size_of(&ir_ty) as usize;
                if size > MAX_INITIALISER {
                    return Err(inst.error(format!(
                        "an initialised variable of {size} bytes (at most {MAX_INITIALISER})"
                    )));
                }
                let mut bytes = Vec::new();
                self.const_bytes(*c, &mut bytes)?;
                bytes.resize(size, 0);
                Some(bytes)
            }
            _ => None,
        };
        let (name, linkage) = match self.linkage(id) {
            Some((n, linkage)) => (clean_name(&n), linkage),
            None => (
                self.names
                    .get(&id)
                    .map(|n| clean_name(n))
                    .unwrap_or_else(|| format!("var.{id}")),
                Linkage::Internal,
            ),
        };
        let name = self.unique_global_name(name);
        let gid = GlobalId(self.module.globals.len() as u32);
        self.module.globals.push(Global {
            name,
            space,
            ty: ir_ty,
            init,
        });
        self.global_linkage.push(linkage);
        self.place_relocs(gid);
        self.globals.insert(id, GlobalRef::Memory(gid));
        Ok(())
    }

    fn unique_global_name(&self, base: String) -> String {
        let taken = |n: &str| self.module.globals.iter().any(|g| g.name == n);
        if !taken(&base) {
            return base;
        }
        (1..)
            .map(|i| format!("{base}.{i}"))
            .find(|n| !taken(n))
            .unwrap_or(base)
    }

    fn unique_function_name(&self, base: String, taken_extra: &HashSet<String>) -> String {
        let taken =
            |n: &str| taken_extra.contains(n) || self.module.functions.iter().any(|f| f.name == n);
        if !taken(&base) {
            return base;
        }
        (1..)
            .map(|i| format!("{base}.{i}"))
            .find(|n| !taken(n))
            .unwrap_or(base)
    }

    /// Creates an IR function (empty body) for every `OpFunction`, so
    /// calls can name functions defined later.
    fn declare_functions(&mut self) -> Result<()> {
        let mut entry_names: HashMap<u32, String> = HashMap::new();
        for inst in self.insts {
            if inst.inst.class.opcode == Op::EntryPoint {
                let model = inst.inst.operands.first();
                let f = word_of(inst, 1)?;
                let name = match inst.inst.operands.get(2) {
                    Some(Operand::LiteralString(s)) => s.clone(),
                    _ => return Err(inst.error("an entry point without a name")),
                };
                if !matches!(
                    model,
                    Some(Operand::ExecutionModel(spirv::ExecutionModel::Kernel))
                ) {
                    return Err(
                        inst.error(format!("entry point '{name}' is not a Kernel ({model:?})"))
                    );
                }
                entry_names.insert(f, name);
            }
        }
        let reserved: HashSet<String> = entry_names.values().map(|n| clean_name(n)).collect();
        let insts = self.insts;
        let mut i = 0;
        while i < insts.len() {
            let inst = &insts[i];
            if inst.inst.class.opcode != Op::Function {
                i += 1;
                continue;
            }
            let id = result_id(inst)?;
            let ret = result_type(inst)?;
            let fty = word_of(inst, 1)?;
            let Some(SType::Function(fret, fparams)) = self.types.get(&fty).cloned() else {
                return Err(inst.error(format!("%{fty} is not a function type")));
            };
            if fret != ret {
                return Err(inst.error("the result type differs from the function type's"));
            }
            let ret_ty = self.ir_type(ret)?;
            if !(ret_ty.is_void() || ret_ty.is_value()) {
                return Err(
                    inst.error("functions returning structs or arrays by value are not supported")
                );
            }
            // Parameters follow.
            let mut params = Vec::new();
            let mut qualifiers = Vec::new();
            let mut spirv_types = Vec::new();
            let mut j = i + 1;
            let mut declared = true;
            while j < insts.len() && insts[j].inst.class.opcode == Op::FunctionParameter {
                let p = &insts[j];
                let pid = result_id(p)?;
                spirv_types.push(result_type(p)?);
                let t = self.ir_type(result_type(p)?)?;
                if !t.is_value() {
                    return Err(
                        p.error("parameters of struct or array type by value are not supported")
                    );
                }
                let byval = self.decorations.get(&pid).is_some_and(|ds| {
                    ds.iter().any(|(d, ops)| {
                        *d == Decoration::FuncParamAttr
                            && matches!(
                                ops.first(),
                                Some(Operand::FunctionParameterAttribute(
                                    spirv::FunctionParameterAttribute::ByVal
                                ))
                            )
                    })
                });
                let attr = |a: spirv::FunctionParameterAttribute| {
                    self.decorations.get(&pid).is_some_and(|ds| {
                        ds.iter().any(|(d, ops)| {
                            *d == Decoration::FuncParamAttr
                                && ops.first() == Some(&Operand::FunctionParameterAttribute(a))
                        })
                    })
                };
                qualifiers.push(TypeQualifiers {
                    is_const: attr(spirv::FunctionParameterAttribute::NoWrite),
                    is_restrict: attr(spirv::FunctionParameterAttribute::NoAlias),
                    is_volatile: self.has_decoration(pid, Decoration::Volatile),
                    is_pipe: false,
                });
                params.push(Param {
                    name: self
                        .names
                        .get(&pid)
                        .map(|n| clean_name(n))
                        .unwrap_or_else(|| format!("arg{}", params.len())),
                    ty: t,
                    byval,
                });
                j += 1;
            }
            if params.len() != fparams.len() {
                return Err(inst.error(format!(
                    "the function type has {} parameters, the function {}",
                    fparams.len(),
                    params.len()
                )));
            }
            if j < insts.len() && insts[j].inst.class.opcode == Op::Label {
                declared = false;
            }
            let is_entry = entry_names.contains_key(&id);
            if is_entry {
                // A kernel's pointers come from the host: global, constant
                // or local memory.
                for (k, p) in params.iter().enumerate() {
                    if matches!(
                        p.ty,
                        Type::Pointer(AddressSpace::Private | AddressSpace::Generic, _)
                    ) && !p.byval
                    {
                        return Err(insts[i + 1 + k].error(
                            "a kernel parameter pointing to private or generic memory (the host passes global, constant or local memory)",
                        ));
                    }
                }
            }
            let (name, linkage) = if let Some(n) = entry_names.get(&id) {
                (clean_name(n), Linkage::Export)
            } else {
                match self.linkage(id) {
                    Some((n, linkage)) => {
                        let n = clean_name(&n);
                        if reserved.contains(&n) {
                            (format!("{n}.fn"), Linkage::Internal)
                        } else {
                            (n, linkage)
                        }
                    }
                    None => {
                        let n = self
                            .names
                            .get(&id)
                            .map(|n| clean_name(n))
                            .unwrap_or_else(|| format!("fn.{id}"));
                        let n = if reserved.contains(&n) {
                            format!("{n}.fn")
                        } else {
                            n
                        };
                        (n, Linkage::Internal)
                    }
                }
            };
            if declared && linkage != Linkage::Import {
                return Err(inst.error(format!(
                    "function '{name}' has no body and is not an import"
                )));
            }
            let name = if is_entry {
                name
            } else {
                self.unique_function_name(name, &reserved)
            };
            let fid = FuncId(self.module.functions.len() as u32);
            let mut f = Function::new(name, params, ret_ty);
            if is_entry {
                f.kernel = Some(KernelInfo::default());
            }
            self.module.functions.push(f);
            self.function_linkage.push(linkage);
            self.param_qualifiers.insert(fid, qualifiers);
            self.param_types.insert(fid, spirv_types);
            self.functions.insert(id, FuncRef { id: fid, declared });
            i = j;
        }
        for inst in self.insts {
            if inst.inst.class.opcode == Op::EntryPoint {
                let f = word_of(inst, 1)?;
                if !self.functions.contains_key(&f) {
                    return Err(inst.error(format!("the entry point's %{f} is not a function")));
                }
            }
        }
        Ok(())
    }

    /// Execution modes of the entry points: required and hinted work-group
    /// sizes.
    fn read_entry_points(&mut self) -> Result<()> {
        for inst in self.insts {
            let by_id = inst.inst.class.opcode == Op::ExecutionModeId;
            if inst.inst.class.opcode != Op::ExecutionMode && !by_id {
                continue;
            }
            let f = word_of(inst, 0)?;
            let Some(fr) = self.functions.get(&f) else {
                return Err(inst.error(format!("%{f} is not a function")));
            };
            let fid = fr.id;
            let mode = match inst.inst.operands.get(1) {
                Some(Operand::ExecutionMode(m)) => *m,
                _ => continue,
            };
            // `OpExecutionModeId` (SPIR-V 1.2) names constants.
            let value = |i: usize| -> Result<u32> {
                let w = word_of(inst, i)?;
                if !by_id {
                    return Ok(w);
                }
                match self.consts.get(&w) {
                    Some(Const::Scalar(s, v)) if s.is_int() => Ok(*v as u32),
                    _ => Err(inst.error(format!("%{w} is not an integer constant"))),
                }
            };
            let xyz = || -> Result<[u32; 3]> { Ok([value(2)?, value(3)?, value(4)?]) };
            let Some(k) = self.module.functions[fid.index()].kernel.as_mut() else {
                continue;
            };
            match mode {
                spirv::ExecutionMode::LocalSize | spirv::ExecutionMode::LocalSizeId => {
                    k.reqd_work_group_size = Some(xyz()?)
                }
                spirv::ExecutionMode::LocalSizeHint | spirv::ExecutionMode::LocalSizeHintId => {
                    k.work_group_size_hint = Some(xyz()?)
                }
                spirv::ExecutionMode::SubgroupSize => {
                    // A sub-group is one SIMD chunk of 4·k work-items.
                    let n = value(2)?;
                    if !(4..=64).contains(&n) || n % 4 != 0 {
                        return Err(inst.error(format!(
                            "sub-group size {n} is not available: vecl's sub-groups are SIMD \
                             chunks of 4, 8, 12, … 64 work-items"
                        )));
                    }
                    k.reqd_sub_group_size = Some(n);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Finishes the module: kernel argument metadata, then the unit.
    pub fn finish(mut self) -> Unit {
        let kernels: Vec<usize> = (0..self.module.functions.len())
            .filter(|i| self.module.functions[*i].kernel.is_some())
            .collect();
        for i in kernels {
            let f = &self.module.functions[i];
            let quals = self.param_qualifiers.get(&FuncId(i as u32));
            let spirv_types = self.param_types.get(&FuncId(i as u32));
            let args = f
                .params
                .iter()
                .enumerate()
                .map(|(k, p)| {
                    let st = spirv_types
                        .and_then(|t| t.get(k))
                        .and_then(|t| self.types.get(t));
                    let mut info = ArgInfo {
                        type_name: c_type_name(&p.ty, &self.module.structs),
                        address: match &p.ty {
                            Type::Pointer(s, _) if !p.byval => *s,
                            _ => AddressSpace::Private,
                        },
                        access: AccessQualifier::None,
                        qualifiers: quals.and_then(|q| q.get(k)).copied().unwrap_or_default(),
                    };
                    match st {
                        Some(SType::Image(img)) => {
                            info.type_name = img.name.into();
                            info.access = img.access;
                        }
                        Some(SType::Sampler) => info.type_name = "sampler_t".into(),
                        _ => {}
                    }
                    info
                })
                .collect();
            if let Some(k) = self.module.functions[i].kernel.as_mut() {
                k.args = args;
            }
        }
        Unit {
            module: self.module,
            functions: self.function_linkage,
            globals: self.global_linkage,
        }
    }
}

/// The OpenCL C spelling of an argument type, as far as SPIR-V tells it
/// (integers are signless there: they read as unsigned).
fn c_type_name(t: &Type, structs: &[StructDef]) -> String {
    match t {
        Type::Void => "void".into(),
        Type::Scalar(s) => s.c_name().into(),
        Type::Vector(s, n) => format!("{}{n}", s.c_name()),
        Type::Pointer(_, p) => format!("{}*", c_type_name(p, structs)),
        Type::Array(e, _) => c_type_name(e, structs),
        Type::Struct(id) => format!(
            "struct {}",
            structs.get(id.0 as usize).map_or("?", |s| s.name.as_str())
        ),
    }
}

/// The `vecl_ir::image::SAMPLER_*` bits of an `OpConstantSampler`.
fn sampler_bits(inst: &Inst) -> Result<u32> {
    use vecl_ir::image as im;
    let ops = &inst.inst.operands;
    let (
        Some(Operand::SamplerAddressingMode(mode)),
        Some(Operand::LiteralBit32(normalized)),
        Some(Operand::SamplerFilterMode(filter)),
    ) = (ops.first(), ops.get(1), ops.get(2))
    else {
        return Err(inst.error("a sampler constant without its modes"));
    };
    let address = match mode {
        spirv::SamplerAddressingMode::None => im::SAMPLER_ADDRESS_NONE,
        spirv::SamplerAddressingMode::ClampToEdge => im::SAMPLER_ADDRESS_CLAMP_TO_EDGE,
        spirv::SamplerAddressingMode::Clamp => im::SAMPLER_ADDRESS_CLAMP,
        spirv::SamplerAddressingMode::Repeat => im::SAMPLER_ADDRESS_REPEAT,
        spirv::SamplerAddressingMode::RepeatMirrored => im::SAMPLER_ADDRESS_MIRRORED_REPEAT,
    };
    let filter = match filter {
        spirv::SamplerFilterMode::Nearest => im::SAMPLER_FILTER_NEAREST,
        spirv::SamplerFilterMode::Linear => im::SAMPLER_FILTER_LINEAR,
    };
    let norm = if *normalized != 0 {
        im::SAMPLER_NORMALIZED
    } else {
        0
    };
    Ok(address | filter | norm)
}

/// The image type `OpTypeImage` declares, when OpenCL C has it.
fn image_type(inst: &Inst) -> Result<ImageType> {
    let ops = &inst.inst.operands;
    let lit = |i: usize| match ops.get(i) {
        Some(Operand::LiteralBit32(w)) => Some(*w),
        _ => None,
    };
    let (Some(Operand::Dim(dim)), Some(depth), Some(arrayed), Some(ms)) =
        (ops.get(1), lit(2), lit(3), lit(4))
    else {
        return Err(inst.error("an image type without its dimensionality"));
    };
    if depth == 1 || ms == 1 {
        return Err(inst.error("depth and multi-sampled images are not supported by vecl"));
    }
    let (name, coord_lanes) = match (dim, arrayed) {
        (spirv::Dim::Dim1D, 0) => ("image1d_t", 1),
        (spirv::Dim::Dim1D, _) => ("image1d_array_t", 2),
        (spirv::Dim::Dim2D, 0) => ("image2d_t", 2),
        (spirv::Dim::Dim2D, _) => ("image2d_array_t", 4),
        (spirv::Dim::Dim3D, 0) => ("image3d_t", 4),
        (spirv::Dim::DimBuffer, 0) => ("image1d_buffer_t", 1),
        (d, a) => {
            return Err(inst.error(format!(
                "an image of dimensionality {d:?}{} is not an OpenCL image type",
                if a == 0 { "" } else { ", arrayed" }
            )))
        }
    };
    let access = match ops.get(7) {
        Some(Operand::AccessQualifier(spirv::AccessQualifier::WriteOnly)) => {
            AccessQualifier::WriteOnly
        }
        Some(Operand::AccessQualifier(spirv::AccessQualifier::ReadWrite)) => {
            AccessQualifier::ReadWrite
        }
        _ => AccessQualifier::ReadOnly,
    };
    Ok(ImageType {
        name,
        coord_lanes,
        access,
    })
}

/// The sub-group query a `BuiltIn` variable reads.
fn sub_group_builtin(b: spirv::BuiltIn) -> Option<&'static str> {
    use spirv::BuiltIn as B;
    Some(match b {
        B::SubgroupSize => "get_sub_group_size",
        B::SubgroupMaxSize => "get_max_sub_group_size",
        B::NumSubgroups => "get_num_sub_groups",
        B::NumEnqueuedSubgroups => "get_enqueued_num_sub_groups",
        B::SubgroupId => "get_sub_group_id",
        B::SubgroupLocalInvocationId => "get_sub_group_local_id",
        B::SubgroupEqMask => "get_sub_group_eq_mask",
        B::SubgroupGeMask => "get_sub_group_ge_mask",
        B::SubgroupGtMask => "get_sub_group_gt_mask",
        B::SubgroupLeMask => "get_sub_group_le_mask",
        B::SubgroupLtMask => "get_sub_group_lt_mask",
        _ => return None,
    })
}

/// The work-item function a `BuiltIn` variable reads.
fn builtin_fn(b: spirv::BuiltIn) -> Option<WorkItemFn> {
    use spirv::BuiltIn as B;
    Some(match b {
        B::GlobalInvocationId => WorkItemFn::GlobalId,
        B::LocalInvocationId => WorkItemFn::LocalId,
        B::WorkgroupId => WorkItemFn::GroupId,
        B::NumWorkgroups => WorkItemFn::NumGroups,
        B::GlobalSize => WorkItemFn::GlobalSize,
        B::WorkgroupSize => WorkItemFn::LocalSize,
        B::EnqueuedWorkgroupSize => WorkItemFn::EnqueuedLocalSize,
        B::GlobalOffset => WorkItemFn::GlobalOffset,
        B::WorkDim => WorkItemFn::WorkDim,
        B::GlobalLinearId => WorkItemFn::GlobalLinearId,
        B::LocalInvocationIndex => WorkItemFn::LocalLinearId,
        _ => return None,
    })
}
