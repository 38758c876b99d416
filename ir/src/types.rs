//! Types of the Kernel IR and their OpenCL C memory layout.
//!
//! Types are plain values (`Clone + Eq + Hash`), so two modules that spell the
//! same type compare equal without an interning table. Structs and unions are
//! the one named kind: they live in [`Module::structs`](crate::Module) and are
//! referred to by [`StructId`].
//!
//! Only scalars, vectors and pointers are *values* in the IR. Arrays, structs
//! and unions exist in memory only (private slots, globals, buffers) and are
//! reached through pointers, which keeps every value the JIT carries a lane
//! of something it can put in a register.

use std::fmt;

/// A scalar element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    /// `half`: IEEE binary16. Arithmetic on it exists when the front end
    /// enables `cl_khr_fp16`; otherwise it is only loaded and stored.
    F16,
    F32,
    F64,
}

impl Scalar {
    /// The type's OpenCL C spelling (`uchar`, `float`, …).
    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "char",
            Scalar::U8 => "uchar",
            Scalar::I16 => "short",
            Scalar::U16 => "ushort",
            Scalar::I32 => "int",
            Scalar::U32 => "uint",
            Scalar::I64 => "long",
            Scalar::U64 => "ulong",
            Scalar::F16 => "half",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        }
    }

    pub const ALL: [Scalar; 12] = [
        Scalar::Bool,
        Scalar::I8,
        Scalar::U8,
        Scalar::I16,
        Scalar::U16,
        Scalar::I32,
        Scalar::U32,
        Scalar::I64,
        Scalar::U64,
        Scalar::F16,
        Scalar::F32,
        Scalar::F64,
    ];

    /// Size in bytes in memory. `bool` occupies one byte.
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 | Scalar::F16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }

    /// Width in bits of the value (1 for bool).
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool => 1,
            s => s.size() * 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32 | Scalar::F64)
    }

    pub fn is_int(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::I8
                | Scalar::I16
                | Scalar::I32
                | Scalar::I64
                | Scalar::F16
                | Scalar::F32
                | Scalar::F64
        )
    }

    /// The signed integer type of the same width (the element type of a
    /// vector comparison's result in OpenCL C).
    pub fn signed_int_of_same_width(self) -> Scalar {
        match self.size() {
            1 => Scalar::I8,
            2 => Scalar::I16,
            4 => Scalar::I32,
            _ => Scalar::I64,
        }
    }

    /// The unsigned integer type of the same width.
    pub fn unsigned_int_of_same_width(self) -> Scalar {
        match self.size() {
            1 => Scalar::U8,
            2 => Scalar::U16,
            4 => Scalar::U32,
            _ => Scalar::U64,
        }
    }

    /// The spelling used by the IR text form.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "i8",
            Scalar::U8 => "u8",
            Scalar::I16 => "i16",
            Scalar::U16 => "u16",
            Scalar::I32 => "i32",
            Scalar::U32 => "u32",
            Scalar::I64 => "i64",
            Scalar::U64 => "u64",
            Scalar::F16 => "f16",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }

    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// OpenCL address spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
}

impl AddressSpace {
    pub const ALL: [AddressSpace; 5] = [
        AddressSpace::Private,
        AddressSpace::Global,
        AddressSpace::Constant,
        AddressSpace::Local,
        AddressSpace::Generic,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AddressSpace::Private => "private",
            AddressSpace::Global => "global",
            AddressSpace::Constant => "constant",
            AddressSpace::Local => "local",
            AddressSpace::Generic => "generic",
        }
    }

    pub fn from_name(name: &str) -> Option<AddressSpace> {
        AddressSpace::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for AddressSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Index of a struct or union in [`Module::structs`](crate::Module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// A Kernel IR type.
///
/// Text form: `void`, `f32`, `<4 x f32>`, `ptr global f32`, `[16 x i32]`,
/// `%name` for a struct (see the text module).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// The result type of instructions that produce no value.
    Void,
    Scalar(Scalar),
    /// A vector of 2, 3, 4, 8 or 16 scalars (never bool).
    Vector(Scalar, u8),
    /// A pointer into an address space.
    Pointer(AddressSpace, Box<Type>),
    /// A fixed-length array (memory only).
    Array(Box<Type>, u32),
    /// A struct or union (memory only).
    Struct(StructId),
}

/// Vector lengths OpenCL C allows.
pub const VECTOR_LENGTHS: [u8; 5] = [2, 3, 4, 8, 16];

impl Type {
    pub const BOOL: Type = Type::Scalar(Scalar::Bool);
    pub const I32: Type = Type::Scalar(Scalar::I32);
    pub const U32: Type = Type::Scalar(Scalar::U32);
    pub const I64: Type = Type::Scalar(Scalar::I64);
    pub const U64: Type = Type::Scalar(Scalar::U64);
    pub const F32: Type = Type::Scalar(Scalar::F32);
    pub const F64: Type = Type::Scalar(Scalar::F64);

    pub fn ptr(space: AddressSpace, pointee: Type) -> Type {
        Type::Pointer(space, Box::new(pointee))
    }

    pub fn vector(elem: Scalar, len: u8) -> Type {
        Type::Vector(elem, len)
    }

    pub fn array(elem: Type, len: u32) -> Type {
        Type::Array(Box::new(elem), len)
    }

    /// The element scalar of a scalar or vector type.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => Some(*s),
            _ => None,
        }
    }

    /// Number of components: 1 for a scalar, N for a vector.
    pub fn lanes(&self) -> u32 {
        match self {
            Type::Vector(_, n) => u32::from(*n),
            _ => 1,
        }
    }

    pub fn is_void(&self) -> bool {
        matches!(self, Type::Void)
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer(..))
    }

    /// Whether values of this type can be held in IR values (registers).
    pub fn is_value(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Vector(..) | Type::Pointer(..))
    }

    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Pointer(_, t) => Some(t),
            _ => None,
        }
    }

    pub fn address_space(&self) -> Option<AddressSpace> {
        match self {
            Type::Pointer(s, _) => Some(*s),
            _ => None,
        }
    }

    /// The same shape with another element scalar (scalar → scalar, vector → vector).
    pub fn with_scalar(&self, s: Scalar) -> Type {
        match self {
            Type::Vector(_, n) => Type::Vector(s, *n),
            _ => Type::Scalar(s),
        }
    }
}

/// Where pointers are 64-bit, as on every host vecl runs on.
pub const POINTER_SIZE: u32 = 8;

/// A field of a struct or union, with its byte offset.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    pub offset: u32,
}

/// A struct or union definition with its computed layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDef {
    pub name: String,
    pub is_union: bool,
    /// `__attribute__((packed))`: fields at alignment 1, no tail padding.
    pub packed: bool,
    pub fields: Vec<Field>,
    pub size: u32,
    pub align: u32,
}

impl StructDef {
    /// Lays out `fields` by the OpenCL C (C99) rules: each field at the next
    /// multiple of its alignment (1 when packed), unions with every field at
    /// 0; size rounded up to the alignment. `min_align` is an
    /// `__attribute__((aligned(N)))` on the struct (1 if none).
    pub fn layout(
        name: &str,
        is_union: bool,
        packed: bool,
        min_align: u32,
        fields: Vec<(String, Type)>,
        structs: &[StructDef],
    ) -> StructDef {
        let mut offset = 0u32;
        let mut size = 0u32;
        let mut align = min_align.max(1);
        let mut out = Vec::with_capacity(fields.len());
        for (fname, ty) in fields {
            let (fsize, falign) = (
                size_of(&ty, structs),
                if packed { 1 } else { align_of(&ty, structs) },
            );
            align = align.max(falign);
            let at = if is_union {
                0
            } else {
                round_up(offset, falign)
            };
            out.push(Field {
                name: fname,
                ty,
                offset: at,
            });
            offset = at + fsize;
            size = size.max(offset);
        }
        StructDef {
            name: name.to_string(),
            is_union,
            packed,
            fields: out,
            size: round_up(size, align),
            align,
        }
    }

    pub fn field(&self, name: &str) -> Option<(usize, &Field)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }
}

pub fn round_up(x: u32, align: u32) -> u32 {
    x.div_ceil(align.max(1)) * align.max(1)
}

/// Size in bytes in memory. Three-element vectors occupy four elements.
pub fn size_of(ty: &Type, structs: &[StructDef]) -> u32 {
    match ty {
        Type::Void => 0,
        Type::Scalar(s) => s.size(),
        Type::Vector(s, n) => s.size() * if *n == 3 { 4 } else { u32::from(*n) },
        Type::Pointer(..) => POINTER_SIZE,
        Type::Array(elem, n) => size_of(elem, structs) * n,
        Type::Struct(id) => structs.get(id.0 as usize).map_or(0, |s| s.size),
    }
}

/// Alignment in bytes: a vector is aligned to its size (vec3 to vec4's).
pub fn align_of(ty: &Type, structs: &[StructDef]) -> u32 {
    match ty {
        Type::Void => 1,
        Type::Scalar(s) => s.size(),
        Type::Vector(..) => size_of(ty, structs),
        Type::Pointer(..) => POINTER_SIZE,
        Type::Array(elem, _) => align_of(elem, structs),
        Type::Struct(id) => structs.get(id.0 as usize).map_or(1, |s| s.align),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec3_occupies_four_elements() {
        assert_eq!(size_of(&Type::vector(Scalar::F32, 3), &[]), 16);
        assert_eq!(align_of(&Type::vector(Scalar::F32, 3), &[]), 16);
        assert_eq!(size_of(&Type::vector(Scalar::I8, 3), &[]), 4);
    }

    #[test]
    fn struct_layout_follows_c_rules() {
        let s = StructDef::layout(
            "S",
            false,
            false,
            1,
            vec![
                ("a".into(), Type::Scalar(Scalar::I8)),
                ("b".into(), Type::vector(Scalar::F32, 4)),
                ("c".into(), Type::Scalar(Scalar::I16)),
            ],
            &[],
        );
        let offsets: Vec<u32> = s.fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [0, 16, 32]);
        assert_eq!((s.size, s.align), (48, 16));

        let p = StructDef::layout(
            "P",
            false,
            true,
            1,
            vec![
                ("a".into(), Type::Scalar(Scalar::I8)),
                ("b".into(), Type::I32),
            ],
            &[],
        );
        assert_eq!((p.fields[1].offset, p.size, p.align), (1, 5, 1));

        let u = StructDef::layout(
            "U",
            true,
            false,
            1,
            vec![
                ("a".into(), Type::Scalar(Scalar::I8)),
                ("b".into(), Type::F64),
            ],
            &[],
        );
        assert_eq!((u.fields[1].offset, u.size, u.align), (0, 8, 8));
    }
}
