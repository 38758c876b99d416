//! The syntax tree the parser builds and the lowering consumes.
//!
//! Types are kept as written ([`DeclSpecs`] plus [`Declarator`] operations)
//! and resolved during lowering, where struct layouts, enum constants and
//! constant expressions (array sizes) are known.

use crate::diag::Pos;
use crate::lexer::Text;
use vecl_ir::{AccessQualifier, AddressSpace, Scalar};

#[derive(Clone, Debug)]
pub enum TypeSpec {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u8),
    /// `event_t`: an opaque handle, carried as a 64-bit integer.
    Event,
    Struct {
        is_union: bool,
        name: Option<String>,
        fields: Option<Vec<Decl>>,
        attrs: Vec<Attr>,
        pos: Pos,
    },
    Enum {
        name: Option<String>,
        items: Option<Vec<(String, Option<Expr>, Pos)>>,
        pos: Pos,
    },
    Typedef(String),
    /// Image, sampler and pipe types, which vecl does not support.
    Unsupported(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Storage {
    #[default]
    None,
    Typedef,
    Static,
    Extern,
}

#[derive(Clone, Debug)]
pub struct Attr {
    pub name: String,
    pub args: Vec<Expr>,
    /// The type argument of `vec_type_hint`.
    pub type_arg: Option<Box<TypeName>>,
    pub pos: Pos,
}

/// Declaration specifiers and qualifiers.
#[derive(Clone, Debug)]
pub struct DeclSpecs {
    pub storage: Storage,
    pub kernel: bool,
    pub inline: bool,
    pub space: Option<AddressSpace>,
    pub is_const: bool,
    pub is_volatile: bool,
    pub is_restrict: bool,
    pub access: AccessQualifier,
    pub ty: TypeSpec,
    /// The base type as written (`float4`, `unsigned int`, `struct S`), for kernel argument info.
    pub written: String,
    pub attrs: Vec<Attr>,
    pub pos: Pos,
}

/// A type derivation, in the order it applies to the base type.
#[derive(Clone, Debug)]
pub enum DeclOp {
    Pointer {
        space: Option<AddressSpace>,
        is_const: bool,
        is_restrict: bool,
        is_volatile: bool,
    },
    Array(Option<Box<Expr>>),
    Function(Vec<ParamDecl>),
}

#[derive(Clone, Debug, Default)]
pub struct Declarator {
    pub name: Option<(String, Pos)>,
    pub ops: Vec<DeclOp>,
    pub attrs: Vec<Attr>,
}

#[derive(Clone, Debug)]
pub struct ParamDecl {
    pub specs: DeclSpecs,
    pub decl: Declarator,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct TypeName {
    pub specs: DeclSpecs,
    pub decl: Declarator,
}

#[derive(Clone, Debug)]
pub struct InitDeclarator {
    pub decl: Declarator,
    pub init: Option<Init>,
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub specs: DeclSpecs,
    pub items: Vec<InitDeclarator>,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum Designator {
    Field(String, Pos),
    Index(Expr),
}

#[derive(Clone, Debug)]
pub enum Init {
    Expr(Expr),
    List(Vec<(Vec<Designator>, Init)>, Pos),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// Names share their token's text (no copy per use).
    Ident(Text),
    Int(u64, Scalar),
    Float(f64, Scalar),
    Str(Vec<u8>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a = b` (`None`) or a compound assignment `a op= b`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(Text, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    /// `e.name` or `e->name` (`true`).
    Member(Box<Expr>, Text, bool),
    Cast(Box<TypeName>, Box<Expr>),
    /// `(float4)(a, b, c)`.
    VecLit(Box<TypeName>, Vec<Expr>),
    /// A compound literal `(struct S){ … }`.
    CompoundLit(Box<TypeName>, Box<Init>),
    SizeofExpr(Box<Expr>),
    SizeofType(Box<TypeName>),
    AlignofType(Box<TypeName>),
    VecStepExpr(Box<Expr>),
    VecStepType(Box<TypeName>),
    Comma(Box<Expr>, Box<Expr>),
    /// A GNU statement expression `({ …; e; })`: the statements run in a
    /// scope of their own, and the value is the last one's, when it is an
    /// expression statement (else `void`).
    StmtExpr(Vec<Statement>),
}

#[derive(Clone, Debug)]
pub enum Statement {
    Expr(Expr),
    Decl(Decl),
    Block(Vec<Statement>),
    If(Expr, Box<Statement>, Option<Box<Statement>>),
    While(Expr, Box<Statement>),
    DoWhile(Box<Statement>, Expr),
    For(
        Option<Box<Statement>>,
        Option<Expr>,
        Option<Expr>,
        Box<Statement>,
    ),
    Switch(Expr, Box<Statement>),
    Case(Expr, Pos),
    Default(Pos),
    Break(Pos),
    Continue(Pos),
    Return(Option<Expr>, Pos),
    /// `goto name;`: the label's name and where it is written.
    Goto(String, Pos),
    /// `name: statement`; the statement is `Empty` for a label right before
    /// the `}` of a block (allowed by C23, and by GCC and Clang before it).
    Label(String, Pos, Box<Statement>),
    Empty,
}

#[derive(Clone, Debug)]
pub struct FuncDef {
    pub specs: DeclSpecs,
    pub decl: Declarator,
    pub body: Vec<Statement>,
    pub pos: Pos,
    pub end: Pos,
}

#[derive(Clone, Debug)]
pub enum External {
    Func(FuncDef),
    Decl(Decl),
}
