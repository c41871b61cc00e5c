"""The typed IR: what the program means, after semantic analysis.

Input: built by `wgc.sema.analyze` from the AST.  Output: read by the
work-graph checks, the metadata views and the SPIR-V back end (and printed by
`wgc.irdump` for `--emit=ir`).

Invariants:
- Every expression carries its type (`wgc.types`, interned: compare with `is`)
  and the span of the source it came from; every implicit conversion is an
  explicit `Convert` node, so an operator's operands already have the types it
  computes in, an assignment's value has the target's type, and a call's
  arguments have the parameters' types (for `out` arguments, see `Call`).
- Names are resolved: a `VarRef` points at its `Variable`, a `Call` at its
  `Function` (one of `Module.functions`, or a prototype without a body when
  the function is declared but never defined: the target checks report a
  node calling it, WG0628), an `IntrinsicCall` names a global intrinsic
  whose overload has been chosen, a `MethodCall` names a resource or
  node-object method that exists for the object's type.
- Control flow is structured (blocks of statements, `If`, `Loop`, `Switch`);
  `Break`/`Continue` appear only where they are legal; `Switch` cases carry
  constant values that are unique.
- Constants are folded where the language requires a constant (array sizes,
  attribute arguments, case labels, template arguments, `static const`
  initialisers); those values are Python ints/floats/bools/strings, or tuples
  of them for vectors, matrices, arrays and structs (`ConstValue`).
- Layouts (sizes, offsets, strides) of buffers, uniform blocks and node
  records are computed once, in sema, and stored here.
- The IR is checked: nothing after sema re-checks the program.

`wgc.ir_verify` checks these invariants (and those the classes below state) after sema in every
compile the tests make.

Functions that take or return node objects or node records are marked
`must_inline`: SPIR-V forbids passing node payload pointers to functions, so
the back end inlines every call to them (sema has already rejected recursion,
which would make inlining impossible).
"""

from __future__ import annotations

import enum
from typing import Union

from wgc import types as t
from wgc.cached_dataclass import dataclass, field
from wgc.irtools.layout import LayoutRule, TypeLayout
from wgc.source import Span

ConstValue = Union[bool, int, float, str, tuple]
"""A folded constant (`sema.consteval`): a scalar, a string, or a tuple: of scalars for a vector or a matrix
(row-major), of element values for an array, of field values for a struct (base fields first)."""


# ---------------------------------------------------------------- attributes


@dataclass(frozen=True)
class AttributeArg:
    value: ConstValue | None
    """The folded constant; None when the argument is not a constant (already diagnosed), or a name."""
    span: Span = field(compare=False, repr=False)
    name: str | None = None
    """An argument that names a parameter (`[MaxRecordsSharedWith(Output)]`), as written."""
    spec: Variable | None = field(default=None, compare=False, repr=False)
    """The specialization constant the argument is, written alone (`[MaxRecords(C)]`, `value` its default):
    the AMDX lowering gives its id where the SPIR-V operand is an <id> (`sema.stmt`)."""


@dataclass(frozen=True)
class Attribute:
    """An attribute with folded arguments. `key` is the name lower-cased (HLSL matches case-insensitively)."""

    name: str
    args: tuple[AttributeArg, ...]
    span: Span = field(compare=False, repr=False)

    @property
    def key(self) -> str:
        return self.name.lower()

    def values(self) -> tuple[ConstValue | None, ...]:
        return tuple(arg.value for arg in self.args)


def find_attribute(attributes: tuple[Attribute, ...], key: str) -> Attribute | None:
    """The attribute whose lower-cased name is `key`; the one written last when it is repeated (dxc
    uses the last of repeated `NodeDispatchGrid`/`NodeMaxDispatchGrid`; other repeats with other
    values are errors, `sema.attributes`)."""
    return next((a for a in reversed(attributes) if a.key == key), None)


# ---------------------------------------------------------------- variables


class Storage(enum.Enum):
    LOCAL = "local"
    PARAMETER = "parameter"
    STATIC = "static"
    """A global (or function-local) `static` variable: private to each invocation."""
    GROUPSHARED = "groupshared"
    UNIFORM = "uniform"
    """A constant-buffer block (cbuffer/tbuffer/ConstantBuffer<T>/push constants); members are fields."""
    RESOURCE = "resource"
    """A resource object bound through a descriptor (buffers, textures, samplers)."""
    SPEC_CONSTANT = "spec_constant"
    """A `[[vk::constant_id(N)]]` global: a Vulkan specialization constant (OpSpecConstant* with SpecId N,
    `spec_id`), whose default value is `spec_default`; never folded (the pipeline may change it), except in
    work-graph attribute arguments, which take its default (`AttributeArg.spec`)."""


class Direction(enum.Enum):
    IN = "in"
    OUT = "out"
    INOUT = "inout"


@dataclass(frozen=True)
class Binding:
    """Where a resource or uniform block lives in Vulkan: descriptor set and binding."""

    set: int
    binding: int
    source: str
    """"vk::binding", "register" or "auto": what decided it."""
    register: str | None = None
    """The `register(...)` slot as written (e.g. "u3"), when there is one."""
    space: str | None = None
    """The `register(...)` space as written (e.g. "space1"), when there is one."""


@dataclass(eq=False)
class Variable:
    """A named storage location: local, parameter, global, groupshared, uniform block, resource."""

    name: str
    type: t.Type
    storage: Storage
    span: Span = field(repr=False)
    const: bool = False
    direction: Direction = Direction.IN
    """Parameters only."""
    semantic: str | None = None
    attributes: tuple[Attribute, ...] = ()
    modifiers: frozenset[str] = frozenset()
    """Keywords kept for later stages: globallycoherent, precise, row_major, column_major, nointerpolation, ..."""
    init: Expr | None = None
    """Initialiser of a global or static variable (locals are initialised by `VarDecl`)."""
    constant: ConstValue | None = None
    """The folded value of a `const` variable (global `static const`, or local) with a constant initialiser."""
    settled: ConstValue | None = None
    """A `static` (not const) global with a constant initialiser that no code writes: that value
    (`sema.settled`). Not a constant expression: only places that need a constant after
    optimisation (as DXC's globalopt folds such globals) read it, through `fold(..., optimized=True)`."""
    binding: Binding | None = None
    """Where a resource or uniform block global lives: every one has a binding except a push-constant
    block (sema, `bindings.py`)."""
    counter_binding: Binding | None = None
    """RW/Append/Consume structured buffers: where their counter lives (sema, `bindings.py`)."""
    push_constant: bool = False
    shader_record: bool = False
    """A `[[vk::shader_record_ext]]` (or `_nv`) constant buffer: the node's local root arguments
    (the emulated target reads its table entry; the AMDX target binds an ordinary uniform buffer)."""
    block_kind: str | None = None
    """Uniform blocks: "cbuffer", "tbuffer", "ConstantBuffer" or "TextureBuffer"."""
    layout: TypeLayout | None = None
    """Uniform blocks: the block's layout; structured buffers (globals): the element's; node object parameters: the
    record's (the records a local holds are laid out by the node's description, `sema.nodes`)."""
    layout_rule: LayoutRule | None = None
    """The rule `layout` was computed by (sema's choice from the options; shown by the metadata)."""
    spec_id: int | None = None
    spec_default: ConstValue | None = None
    """Specialization constants: the SpecId and the default value (of the variable's scalar type)."""
    declaration: Span | None = field(default=None, repr=False, compare=False)
    """Parameters: the whole declaration, attributes and type included (`span` is the name's), where
    a fix-it adds an attribute."""

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.type}, {self.storage.value})"


# ---------------------------------------------------------------- expressions


@dataclass(eq=False)
class Expr:
    type: t.Type
    span: Span = field(repr=False)


@dataclass(eq=False)
class Constant(Expr):
    """A literal or folded constant. `literal` marks unsuffixed literals (HLSL's "literal int/float")."""

    value: ConstValue = 0
    literal: bool = False


@dataclass(eq=False)
class VarRef(Expr):
    variable: Variable = None  # type: ignore[assignment]


@dataclass(eq=False)
class FieldAccess(Expr):
    """`s.f` on a struct value or uniform block; `index` counts base fields first (`all_fields()`)."""

    base: Expr = None  # type: ignore[assignment]
    index: int = 0
    name: str = ""


@dataclass(eq=False)
class Swizzle(Expr):
    """`v.xzy` (vector or scalar base): `components` index the base's components.

    On a matrix base, `components` are (row, column) pairs (`m._m01_m10`).
    """

    base: Expr = None  # type: ignore[assignment]
    components: tuple = ()


@dataclass(eq=False)
class Index(Expr):
    """`a[i]` on an array, vector (a component), matrix (a row) or node output array (an output: `outs[i]`)."""

    base: Expr = None  # type: ignore[assignment]
    index: Expr = None  # type: ignore[assignment]


@dataclass(eq=False)
class ResourceIndex(Expr):
    """`buffer[i]` / `texture[uint2(x, y)]`: an element of a resource (assignable on RW resources).
    `slice` is the mip level of `texture.mips[slice][i]` or the sample of `texture.sample[slice][i]`
    (multisampled textures); None for `texture[i]`, which reads mip level 0 or sample 0."""

    resource: Expr = None  # type: ignore[assignment]
    index: Expr = None  # type: ignore[assignment]
    slice: Expr | None = None


@dataclass(eq=False)
class RecordAccess(Expr):
    """A node record: `input.Get()`, `records.Get(i)`, `records[i]` (assignable on RW inputs and outputs)."""

    object: Expr = None  # type: ignore[assignment]
    index: Expr | None = None


@dataclass(eq=False)
class Unary(Expr):
    """`-x`, `+x`, `!x`, `~x` (the operand already has the operator's type, bool for `!`)."""

    op: str = ""
    operand: Expr = None  # type: ignore[assignment]


@dataclass(eq=False)
class Binary(Expr):
    """Arithmetic, bitwise, shift, comparison and logical (`&&`, `||`: short-circuit on scalars) operators.

    Both operands have `operand_type` (the common type); `type` is that type, or
    bool of its shape for comparisons and logical operators.
    """

    op: str = ""
    left: Expr = None  # type: ignore[assignment]
    right: Expr = None  # type: ignore[assignment]


@dataclass(eq=False)
class Select(Expr):
    """`c ? a : b`; `a` and `b` have this expression's type; a scalar condition evaluates one side only."""

    cond: Expr = None  # type: ignore[assignment]
    then: Expr = None  # type: ignore[assignment]
    else_: Expr = None  # type: ignore[assignment]


@dataclass(eq=False)
class Comma(Expr):
    left: Expr = None  # type: ignore[assignment]
    right: Expr = None  # type: ignore[assignment]


@dataclass(eq=False)
class Convert(Expr):
    """A conversion to `type`: component change, splat, truncation, matrix/vector reshaping,
    struct-from-struct (a base-prefix cast) or a cast from zero. `explicit` marks a written cast."""

    operand: Expr = None  # type: ignore[assignment]
    explicit: bool = False


@dataclass(eq=False)
class Construct(Expr):
    """A vector, matrix, array or struct value built from parts (constructor call, initialiser list, `(S)0`).

    `args` are the value's immediate elements in order, each already of that
    element's type (components for vectors and matrices, row-major, where a
    vector of the element's scalar stands for its components in order;
    elements for arrays; fields for structs, base fields first; none for a new
    `RayQuery`).
    """

    args: tuple[Expr, ...] = ()


@dataclass(eq=False)
class Assign(Expr):
    """`target = value` or `target op= value` (`op` is the arithmetic operator, "" for plain `=`).

    For a compound assignment, `value` has the operation's type (`operation_type`),
    and the result is converted back to the target's type.
    """

    target: Expr = None  # type: ignore[assignment]
    value: Expr = None  # type: ignore[assignment]
    op: str = ""
    operation_type: t.Type | None = None


@dataclass(eq=False)
class IncDec(Expr):
    """`++x`, `x--`, ...: `prefix` says which value the expression yields."""

    target: Expr = None  # type: ignore[assignment]
    op: str = "++"
    prefix: bool = True


@dataclass(eq=False)
class Call(Expr):
    """A call of a user function (member functions take the object as their first argument).

    `in` arguments have the parameter's type (an unsized array parameter, `float a[]`, takes an
    array of its element of any size: the function is inlined); an `out`/`inout` argument is the
    caller's l-value itself, whose type may differ from the parameter's when
    HLSL converts both ways (copy-in/copy-out: the back end converts the value
    into a temporary of the parameter's type and back after the call).
    """

    function: Function = None  # type: ignore[assignment]
    args: tuple[Expr, ...] = ()


@dataclass(eq=False)
class IntrinsicCall(Expr):
    """A call of a global intrinsic (`dot`, `InterlockedAdd`, `Barrier`, `WaveActiveSum`, ...).

    `args` have the chosen overload's parameter types, except `out`/`inout`
    arguments (listed in `out_params`), which are the caller's l-values.
    """

    name: str = ""
    args: tuple[Expr, ...] = ()
    out_params: tuple[int, ...] = ()


@dataclass(eq=False)
class MethodCall(Expr):
    """A method of a resource or node object: `buf.Load(i)`, `out.GetThreadNodeOutputRecords(n)`,
    `tex.SampleLevel(s, uv, 0)`, `rw.InterlockedAdd(addr, v, orig)`. `template_type` is `Load<T>`'s T.

    `out_params` lists the arguments that are the caller's l-values (`GetDimensions`, the
    original value of an atomic).
    """

    object: Expr = None  # type: ignore[assignment]
    method: str = ""
    args: tuple[Expr, ...] = ()
    template_type: t.Type | None = None
    out_params: tuple[int, ...] = ()


# ---------------------------------------------------------------- statements


@dataclass(eq=False)
class Stmt:
    span: Span = field(repr=False)


@dataclass(eq=False)
class Block(Stmt):
    stmts: list[Stmt] = field(default_factory=list)


@dataclass(eq=False)
class VarDecl(Stmt):
    """Declares a local (or function-level static) variable, with its converted initialiser."""

    variable: Variable = None  # type: ignore[assignment]
    init: Expr | None = None


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr = None  # type: ignore[assignment]


@dataclass(eq=False)
class If(Stmt):
    cond: Expr = None  # type: ignore[assignment]
    """A scalar bool."""
    then: Block = None  # type: ignore[assignment]
    else_: Block | None = None
    attributes: tuple[Attribute, ...] = ()


class LoopKind(enum.Enum):
    FOR = "for"
    WHILE = "while"
    DO_WHILE = "do"


@dataclass(eq=False)
class Loop(Stmt):
    """`for`/`while`/`do-while`. `init` runs once before (for), `cond` (a scalar bool, or None
    for `for(;;)`) is tested before each iteration (after it for do-while), `step` after each."""

    kind: LoopKind = LoopKind.FOR
    init: list[Stmt] = field(default_factory=list)
    cond: Expr | None = None
    step: Expr | None = None
    body: Block = None  # type: ignore[assignment]
    attributes: tuple[Attribute, ...] = ()


@dataclass(eq=False)
class SwitchCase:
    values: tuple[int, ...]
    """The case labels' values (empty for a group holding only `default`)."""
    is_default: bool
    body: Block
    falls_through: bool
    """True when control can reach the end of `body` (it then continues in the next case)."""


@dataclass(eq=False)
class Switch(Stmt):
    selector: Expr = None  # type: ignore[assignment]
    """A scalar int or uint."""
    cases: list[SwitchCase] = field(default_factory=list)
    attributes: tuple[Attribute, ...] = ()


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None = None
    """Already of the function's return type."""


@dataclass(eq=False)
class Discard(Stmt):
    pass


# ---------------------------------------------------------------- functions and the module


@dataclass(eq=False)
class Function:
    """A function with a body (prototypes without a definition that are never called are dropped)."""

    name: str
    """Qualified as written in diagnostics: `f`, `ns::f`, `S::method`."""
    params: list[Variable]
    return_type: t.Type
    span: Span = field(repr=False)
    body: Block | None = None
    attributes: tuple[Attribute, ...] = ()
    return_semantic: str | None = None
    method_of: t.StructType | None = None
    """Member functions: their struct; the first parameter is then `this` (inout)."""
    must_inline: bool = False
    """Takes or returns a node object or record: every call is inlined by the back end."""
    callees: list[Function] = field(default_factory=list, repr=False)
    """User functions called from the body, in first-call order (a call's arguments are called before it)."""

    @property
    def own_params(self) -> list[Variable]:
        """Parameters as a caller sees them (without a member function's `this`)."""
        return self.params[1:] if self.method_of is not None else self.params

    @property
    def signature(self) -> str:
        """`float f(float x, out int n)`: how diagnostics and `wgc inspect` tell overloads apart."""
        params = ", ".join((f"{p.direction.value} " if p.direction is not Direction.IN else "") + f"{p.type} {p.name}"
                           for p in self.own_params)
        return f"{self.return_type} {self.name}({params})"

    @property
    def shader_kind(self) -> str | None:
        """The `[Shader("...")]` stage in lower case, or None for a helper function."""
        shader = find_attribute(self.attributes, "shader")
        if shader is None or not shader.args or not isinstance(shader.args[0].value, str):
            return None
        return shader.args[0].value.lower()

    def __repr__(self) -> str:
        return f"Function({self.name!r})"


@dataclass(eq=False)
class Module:
    """One translation unit, checked."""

    functions: list[Function] = field(default_factory=list)
    """Every function with a body, in source order."""
    globals: list[Variable] = field(default_factory=list)
    """Static globals, groupshared variables, uniform blocks, resources and specialization constants, in
    source order."""
    structs: list[t.StructType] = field(default_factory=list)
    """Every struct declared, in source order."""
    enums: list[t.EnumType] = field(default_factory=list)
    enable_16bit_types: bool = False
    default_row_major: bool = False

    @property
    def entry_points(self) -> list[Function]:
        """Functions carrying `[Shader(...)]`, in source order."""
        return [f for f in self.functions if f.shader_kind is not None]

    @property
    def node_shaders(self) -> list[Function]:
        return [f for f in self.functions if f.shader_kind == "node"]
