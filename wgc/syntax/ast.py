"""Stage 2 output, the AST: what the HLSL source says, as frozen dataclasses.

Input: built by `wgc.syntax.parse` from the lark parse.  Output: consumed by
the pretty-printer (`wgc.syntax.printer`) and by semantic analysis.

Invariants:
- Nodes are slotted (`slots=True`): no `__dict__`, so nothing can be stashed on a node; building
  one sets its slots directly (a third less time than `object.__setattr__` on a `__dict__`) and it
  takes less memory (2,000-node graph: peak 141 -> 133 MiB with `Span` slotted too).
- Every node's first field is its `span` (into the ORIGINAL file, through the
  preprocessor's location map); spans never take part in equality, so two
  parses of equivalent text compare equal.
- Nodes carry no behaviour and no lark types; sequences are tuples.
- Names are kept as written: attribute names keep their case (HLSL matches them
  case-insensitively; sema does the folding) and qualified names are tuples of
  parts (`ns::Type` is `("ns", "Type")`).
- Keywords that qualify a declaration (`static`, `const`, `in`, `row_major`, …)
  are kept in source order in `modifiers`.
"""

from __future__ import annotations

from typing import Union

from wgc.cached_dataclass import dataclass, field
from wgc.source import Span


@dataclass(frozen=True, slots=True)
class Node:
    span: Span = field(compare=False, repr=False)


BINARY_OPERATOR_PRECEDENCE = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
"""C precedence of HLSL's binary operators (higher binds tighter; all left-associative)."""


# ------------------------------------------------------------------ attributes


@dataclass(frozen=True, slots=True)
class Attribute(Node):
    """`[Name(args)]` (HLSL) or `[[ns::name(args)]]` (C++11 style, `double_bracket=True`)."""

    name: str
    args: tuple[Expr, ...]
    """Empty both for `[unroll]` and `[unroll()]`."""
    double_bracket: bool = False


# ------------------------------------------------------------------ types


@dataclass(frozen=True, slots=True)
class TypeRef(Node):
    """A written type: `float3`, `ns::Rec`, `vector<float, 3>`, `RWTexture2D<unorm float4>`.

    `template_args` is None when there are no angle brackets; an argument is a
    TypeRef or a constant expression.  `modifiers` holds keywords written
    inside a template argument list (`unorm`, `snorm`, `row_major`, ...), and
    `array_dims` the array sizes of a template argument (`StructuredBuffer<float[4]>`).
    A name that starts with "" is qualified with the global namespace (`::S`).
    """

    name: tuple[str, ...]
    template_args: tuple[TemplateArg, ...] | None = None
    modifiers: tuple[str, ...] = ()
    array_dims: tuple[Expr | None, ...] = ()
    scope_args: ScopeArgs = ()
    """Template arguments written on the scope parts of `name` (`Box<float>::Inner`); () when none."""


@dataclass(frozen=True, slots=True)
class StructType(Node):
    """An inline struct used as a type: `struct { float a; } s;`."""

    decl: StructDecl


# ------------------------------------------------------------------ declarations


@dataclass(frozen=True, slots=True)
class Semantic(Node):
    """`: SV_GroupIndex` (the name as written, index included)."""

    name: str


@dataclass(frozen=True, slots=True)
class RegisterBinding(Node):
    """`: register(u0, space1)`; `profile` is the rare `register(ps, t0)` form."""

    slot: str
    space: str | None = None
    profile: str | None = None


@dataclass(frozen=True, slots=True)
class PackOffset(Node):
    """`: packoffset(c0.y)`."""

    location: str


Annotation = Union[Semantic, RegisterBinding, PackOffset]


@dataclass(frozen=True, slots=True)
class Declarator(Node):
    """One name in a declaration: `x[4][2] : SEM = init`. `None` array size means `[]`."""

    name: str
    array_dims: tuple[Expr | None, ...] = ()
    annotations: tuple[Annotation, ...] = ()
    init: Expr | None = None


@dataclass(frozen=True, slots=True)
class VarDecl(Node):
    """Variables or fields: `static const float3 a = 1, b[2];`."""

    attributes: tuple[Attribute, ...]
    modifiers: tuple[str, ...]
    type: TypeRef | StructType
    declarators: tuple[Declarator, ...]


@dataclass(frozen=True, slots=True)
class TemplateParam(Node):
    """`typename T`, `class T = float`, or a value parameter `uint N = 4`."""

    name: str
    """"" for an unnamed parameter (`template<typename> class TT`)."""
    kind: TypeRef | None
    """None for `typename`/`class` (and template template) parameters; the value type otherwise."""
    default: TemplateArg | None = None
    template_params: tuple[TemplateParam, ...] | None = None
    """A template template parameter's own parameters (`template<typename> class TT`); else None."""


@dataclass(frozen=True, slots=True)
class Param(Node):
    """A function parameter with its attributes, `in/out/inout/uniform/...` modifiers and default."""

    attributes: tuple[Attribute, ...]
    modifiers: tuple[str, ...]
    type: TypeRef
    name: str | None
    array_dims: tuple[Expr | None, ...] = ()
    annotations: tuple[Annotation, ...] = ()
    default: Expr | None = None


@dataclass(frozen=True, slots=True)
class FunctionDecl(Node):
    """A function (a node shader when it carries `[Shader("node")]`), prototype when `body` is None."""

    attributes: tuple[Attribute, ...]
    modifiers: tuple[str, ...]
    return_type: TypeRef
    name: tuple[str, ...]
    """Qualified for out-of-line member definitions (`S::f`)."""
    params: tuple[Param, ...]
    annotations: tuple[Annotation, ...]
    body: Block | None
    template_params: tuple[TemplateParam, ...] | None = None
    """`template<...>` parameters; `()` for an explicit specialisation `template<>`."""
    trailing_modifiers: tuple[str, ...] = ()
    """Keywords after the parameter list, e.g. `const` on a member function."""
    specialization_args: tuple[TemplateArg, ...] | None = None
    """`F<float3x3>` in `template<> float3x3 F<float3x3>()`; None when the name has no arguments."""
    scope_args: ScopeArgs = ()
    """Template arguments written on the scope parts of `name` (`Box<T>::get`); () when none."""


@dataclass(frozen=True, slots=True)
class StructDecl(Node):
    """`struct`/`class`/`interface` with an optional single base and members."""

    attributes: tuple[Attribute, ...]
    keyword: str
    name: str | None
    base: TypeRef | None
    members: tuple[Decl, ...] | None
    """None for a forward declaration `struct S;`."""
    template_params: tuple[TemplateParam, ...] | None = None
    """`template<...>` parameters; `()` for an explicit specialisation `template<>`."""
    specialization_args: tuple[TemplateArg, ...] | None = None
    """`S<int>` in `template<> struct S<int> {...}`; None when the name has no arguments."""


@dataclass(frozen=True, slots=True)
class TypedefDecl(Node):
    """`typedef T name[N], other;`."""

    modifiers: tuple[str, ...]
    type: TypeRef | StructType
    declarators: tuple[Declarator, ...]


@dataclass(frozen=True, slots=True)
class Enumerator(Node):
    name: str
    value: Expr | None = None


@dataclass(frozen=True, slots=True)
class EnumDecl(Node):
    """`enum E : uint { A, B = 2 }` or `enum class E { ... }`."""

    name: str | None
    scoped: bool
    base: TypeRef | None
    members: tuple[Enumerator, ...]


@dataclass(frozen=True, slots=True)
class NamespaceDecl(Node):
    name: str
    decls: tuple[Decl, ...]


@dataclass(frozen=True, slots=True)
class BufferDecl(Node):
    """`cbuffer Name : register(b0) { ... }` or `tbuffer`."""

    attributes: tuple[Attribute, ...]
    keyword: str
    name: str
    annotations: tuple[Annotation, ...]
    members: tuple[VarDecl, ...]


@dataclass(frozen=True, slots=True)
class StateObjectDecl(Node):
    """A DXR/work-graph subobject: `GlobalRootSignature rs = { "UAV(u0)" };`."""

    kind: str
    name: str
    init: InitList


@dataclass(frozen=True, slots=True)
class EmptyDecl(Node):
    """A stray `;` at declaration level (kept so printing round-trips)."""


Decl = Union[
    VarDecl, FunctionDecl, StructDecl, TypedefDecl, EnumDecl, NamespaceDecl, BufferDecl,
    StateObjectDecl, EmptyDecl,
]


@dataclass(frozen=True, slots=True)
class TranslationUnit(Node):
    decls: tuple[Decl, ...]


# ------------------------------------------------------------------ statements


@dataclass(frozen=True, slots=True)
class Block(Node):
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class DeclStmt(Node):
    """A local declaration: variables, typedefs or structs inside a function."""

    decl: VarDecl | TypedefDecl | StructDecl | EnumDecl


@dataclass(frozen=True, slots=True)
class ExprStmt(Node):
    expr: Expr


@dataclass(frozen=True, slots=True)
class EmptyStmt(Node):
    pass


@dataclass(frozen=True, slots=True)
class IfStmt(Node):
    attributes: tuple[Attribute, ...]
    cond: Expr
    then: Stmt
    else_: Stmt | None


@dataclass(frozen=True, slots=True)
class ForStmt(Node):
    attributes: tuple[Attribute, ...]
    init: DeclStmt | ExprStmt | EmptyStmt
    cond: Expr | None
    step: Expr | None
    body: Stmt


@dataclass(frozen=True, slots=True)
class WhileStmt(Node):
    attributes: tuple[Attribute, ...]
    cond: Expr
    body: Stmt


@dataclass(frozen=True, slots=True)
class DoWhileStmt(Node):
    attributes: tuple[Attribute, ...]
    body: Stmt
    cond: Expr


@dataclass(frozen=True, slots=True)
class SwitchCase(Node):
    """A group of labels and the statements after them; `None` label is `default`.

    A group whose statements do not end in `break`/`return` falls through.
    """

    labels: tuple[Expr | None, ...]
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class SwitchStmt(Node):
    attributes: tuple[Attribute, ...]
    expr: Expr
    cases: tuple[SwitchCase, ...]


@dataclass(frozen=True, slots=True)
class BreakStmt(Node):
    pass


@dataclass(frozen=True, slots=True)
class ContinueStmt(Node):
    pass


@dataclass(frozen=True, slots=True)
class ReturnStmt(Node):
    value: Expr | None


@dataclass(frozen=True, slots=True)
class DiscardStmt(Node):
    pass


Stmt = Union[
    Block, DeclStmt, ExprStmt, EmptyStmt, IfStmt, ForStmt, WhileStmt, DoWhileStmt,
    SwitchStmt, BreakStmt, ContinueStmt, ReturnStmt, DiscardStmt,
]


# ------------------------------------------------------------------ expressions


@dataclass(frozen=True, slots=True)
class NameExpr(Node):
    """A (possibly qualified) name: `x`, `ns::f`, `::g`, `is_same<T, U>::value`."""

    name: tuple[str, ...]
    scope_args: ScopeArgs = ()
    """Template arguments written on the scope parts of `name`; () when none."""


@dataclass(frozen=True, slots=True)
class IntLiteral(Node):
    """`42`, `0x2Au`, `7ul`: `value` is exact; `suffix` is lower-cased; `text` as written."""

    value: int
    suffix: str
    text: str = field(compare=False)


@dataclass(frozen=True, slots=True)
class FloatLiteral(Node):
    """`1.5f`, `.5`, `1e-3h`: `suffix` is lower-cased (`f`, `h`, `l` or empty)."""

    value: float
    suffix: str
    text: str = field(compare=False)


@dataclass(frozen=True, slots=True)
class BoolLiteral(Node):
    value: bool


@dataclass(frozen=True, slots=True)
class StringLiteral(Node):
    """`"node"`; `value` has escapes resolved (adjacent literals are concatenated)."""

    value: str


@dataclass(frozen=True, slots=True)
class UnaryExpr(Node):
    """Prefix operator: `-x`, `+x`, `!x`, `~x`, `++x`, `--x`."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class PostfixExpr(Node):
    """`x++` or `x--`."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class BinaryExpr(Node):
    """Every binary operator including `&&`, `||` and the comma operator `,`."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class AssignExpr(Node):
    """`=` and the compound assignments (`+=`, `<<=`, ...)."""

    op: str
    target: Expr
    value: Expr


@dataclass(frozen=True, slots=True)
class ConditionalExpr(Node):
    cond: Expr
    then: Expr
    else_: Expr


@dataclass(frozen=True, slots=True)
class CastExpr(Node):
    """`(float3)x` or `(float[2])x`."""

    type: TypeRef
    array_dims: tuple[Expr, ...]
    operand: Expr


@dataclass(frozen=True, slots=True)
class ConstructExpr(Node):
    """A type used as a function: `float3(a, b, c)`, `Rec(...)`."""

    type: TypeRef
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class CallExpr(Node):
    """`f(a)`, `obj.Method(a)`, `buf.Load<uint2>(0)`, `twice<float>(x)`."""

    callee: Expr
    template_args: tuple[TemplateArg, ...] | None
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class MemberExpr(Node):
    """`a.b` (fields, swizzles, method names before a call)."""

    object: Expr
    member: str


@dataclass(frozen=True, slots=True)
class IndexExpr(Node):
    object: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class SizeofExpr(Node):
    """`sizeof(T)` or `sizeof expr`."""

    operand: TypeRef | Expr


@dataclass(frozen=True, slots=True)
class InitList(Node):
    """`{a, b, {c, d}}` in an initializer."""

    items: tuple[Expr, ...]


Expr = Union[
    NameExpr, IntLiteral, FloatLiteral, BoolLiteral, StringLiteral, UnaryExpr, PostfixExpr,
    BinaryExpr, AssignExpr, ConditionalExpr, CastExpr, ConstructExpr, CallExpr, MemberExpr,
    IndexExpr, SizeofExpr, InitList,
]
TemplateArg = Union[TypeRef, Expr]
ScopeArgs = tuple["tuple[TemplateArg, ...] | None", ...]
"""Per scope part of a qualified name (all parts but the last), the template arguments written on
it, or None; an empty tuple when no part has any."""
