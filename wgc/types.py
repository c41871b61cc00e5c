"""The types of the typed IR, interned so that type equality is identity.

Input: built by semantic analysis from written types (`wgc.syntax.ast.TypeRef`).
Output: read by the IR, the layout computation and every back end.

Invariants:
- Structural types (scalars, vectors, matrices, arrays, resources, node objects)
  are created only through the factory functions below, which intern them: two
  requests for `float3` return the same object while either is alive, and `==` is
  `is` (within a compile, whose IR holds its types). The table holds types weakly
  (nothing a compile creates outlives it through the table).
- Nominal types (structs, enums) are one object per declaration; the built-in `RayDesc` is one
  module-level struct (`RAY_DESC`), shared by every compile.
- A type knows its shape only; sizes, alignments and offsets depend on a layout
  rule and live in `wgc.irtools.layout`.
- `str(type)` is the HLSL spelling (used in diagnostics and the IR dump).
"""

from __future__ import annotations

import enum
import weakref
from typing import Any

from wgc.cached_dataclass import dataclass, field


class Type:
    """Base of every IR type. Subclasses are created through interning factories."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__
    """Identity, as `__eq__`; object's own (C) hash, as types key many dicts (sema's memos, the
    interning tables): a Python-level `__hash__` ran at every such look-up."""


_INTERNED: weakref.WeakValueDictionary[tuple[Any, ...], Type] = weakref.WeakValueDictionary()
"""Interned types by structure, held weakly: a type lives as long as something (the IR of a compile,
a module constant) uses it, so a compile's struct types, and the declarations and source files
their spans reference, are not kept alive by the table once the compile's results are dropped."""


def _intern(key: tuple[Any, ...], make: Any) -> Any:
    found = _INTERNED.get(key)
    if found is None:
        found = make()
        _INTERNED[key] = found
    return found


# ---------------------------------------------------------------- scalars, vectors, matrices


class ScalarKind(enum.Enum):
    BOOL = "bool"
    INT = "int"
    UINT = "uint"
    FLOAT = "float"


@dataclass(frozen=True, eq=False)
class VoidType(Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True, eq=False)
class ScalarType(Type):
    """A scalar. `spelling` is how HLSL names it (`half`, `min16float`, `int64_t`, ...).

    `bits` is its real width on the target; `relaxed` marks the min-precision
    types that dxc lowers to 32 bits with RelaxedPrecision when 16-bit types
    are not enabled.
    """

    kind: ScalarKind
    bits: int
    spelling: str
    relaxed: bool = False

    def __str__(self) -> str:
        return self.spelling

    @property
    def is_integer(self) -> bool:
        return self.kind in (ScalarKind.INT, ScalarKind.UINT)

    @property
    def is_float(self) -> bool:
        return self.kind is ScalarKind.FLOAT

    @property
    def is_signed(self) -> bool:
        return self.kind in (ScalarKind.INT, ScalarKind.FLOAT)


@dataclass(frozen=True, eq=False)
class VectorType(Type):
    element: ScalarType
    count: int

    def __str__(self) -> str:
        return f"{self.element}{self.count}"


@dataclass(frozen=True, eq=False)
class MatrixType(Type):
    element: ScalarType
    rows: int
    columns: int

    def __str__(self) -> str:
        return f"{self.element}{self.rows}x{self.columns}"


@dataclass(frozen=True, eq=False)
class ArrayType(Type):
    """`T[N]`; `length` None is an unsized array (`T[]`)."""

    element: Type
    length: int | None

    def __str__(self) -> str:
        dims = []
        inner: Type = self
        while isinstance(inner, ArrayType):
            dims.append("[]" if inner.length is None else f"[{inner.length}]")
            inner = inner.element
        return f"{inner}{''.join(dims)}"


VOID = _intern(("void",), VoidType)


_SHAPES: dict[tuple[Any, ...], Type] = {}
"""The interned scalars, vectors and matrices, held strongly: HLSL has a few dozen scalar spellings,
so there are at most a few hundred of them, and sema asks for them at every expression (the weak
table's look-up costs a Python-level call).  Each is also in `_INTERNED`, so both tables give the
same object."""


def _shape(key: tuple[Any, ...], make: Any) -> Any:
    found = _SHAPES.get(key)
    if found is None:
        found = _SHAPES[key] = _intern(key, make)
    return found


def scalar(kind: ScalarKind, bits: int, spelling: str | None = None, relaxed: bool = False) -> ScalarType:
    """The interned scalar; `spelling` defaults to the canonical name of (kind, bits)."""
    name = spelling or _CANONICAL_SPELLING[(kind, bits)]
    return _shape(("scalar", kind, bits, name, relaxed), lambda: ScalarType(kind, bits, name, relaxed))


def vector(element: ScalarType, count: int) -> VectorType:
    assert 1 <= count <= 4, count
    return _shape(("vector", element, count), lambda: VectorType(element, count))


def matrix(element: ScalarType, rows: int, columns: int) -> MatrixType:
    assert 1 <= rows <= 4 and 1 <= columns <= 4, (rows, columns)
    return _shape(("matrix", element, rows, columns), lambda: MatrixType(element, rows, columns))


def innermost_element(type_: Type) -> Type:
    """`type_` without its array levels (`float[2][3]` -> `float`); any other type unchanged."""
    while isinstance(type_, ArrayType):
        type_ = type_.element
    return type_


def accepts_globallycoherent(type_: Type) -> bool:
    """Whether `globallycoherent` may qualify a value of this type (arrays of such included): a UAV or
    an RWDispatchNodeInputRecord (DXC's rule)."""
    type_ = innermost_element(type_)
    if isinstance(type_, ResourceType):
        return type_.kind.writable
    return isinstance(type_, NodeObjectType) and type_.kind is NodeObjectKind.RW_DISPATCH_NODE_INPUT_RECORD


def array(element: Type, length: int | None) -> ArrayType:
    return _intern(("array", element, length), lambda: ArrayType(element, length))


_CANONICAL_SPELLING = {
    (ScalarKind.BOOL, 32): "bool",
    (ScalarKind.INT, 16): "int16_t", (ScalarKind.INT, 32): "int", (ScalarKind.INT, 64): "int64_t",
    (ScalarKind.UINT, 16): "uint16_t", (ScalarKind.UINT, 32): "uint", (ScalarKind.UINT, 64): "uint64_t",
    (ScalarKind.FLOAT, 16): "half", (ScalarKind.FLOAT, 32): "float", (ScalarKind.FLOAT, 64): "double",
}

BOOL = scalar(ScalarKind.BOOL, 32)
INT = scalar(ScalarKind.INT, 32)
UINT = scalar(ScalarKind.UINT, 32)
FLOAT = scalar(ScalarKind.FLOAT, 32)
DOUBLE = scalar(ScalarKind.FLOAT, 64)
INT64 = scalar(ScalarKind.INT, 64)
UINT64 = scalar(ScalarKind.UINT, 64)


_FIXED_SCALARS = {
    "bool": (ScalarKind.BOOL, 32), "int": (ScalarKind.INT, 32), "uint": (ScalarKind.UINT, 32),
    "dword": (ScalarKind.UINT, 32), "int8_t4_packed": (ScalarKind.UINT, 32),
    "uint8_t4_packed": (ScalarKind.UINT, 32), "float": (ScalarKind.FLOAT, 32), "double": (ScalarKind.FLOAT, 64),
    "int32_t": (ScalarKind.INT, 32), "uint32_t": (ScalarKind.UINT, 32),
    "int64_t": (ScalarKind.INT, 64), "uint64_t": (ScalarKind.UINT, 64),
    "float32_t": (ScalarKind.FLOAT, 32), "float64_t": (ScalarKind.FLOAT, 64),
    "int16_t": (ScalarKind.INT, 16), "uint16_t": (ScalarKind.UINT, 16), "float16_t": (ScalarKind.FLOAT, 16),
}
"""Scalar keywords of a fixed width -> (kind, bits)."""
_RELAXED_SCALARS = {"half": ScalarKind.FLOAT, "min16float": ScalarKind.FLOAT, "min10float": ScalarKind.FLOAT,
                    "min16int": ScalarKind.INT, "min12int": ScalarKind.INT, "min16uint": ScalarKind.UINT}
"""Min-precision keywords and `half` -> kind (their width depends on -enable-16bit-types)."""


def scalar_named(name: str, enable_16bit_types: bool) -> ScalarType | None:
    """The scalar an HLSL scalar keyword denotes on the SPIR-V target (dxc's mapping).

    `half` is 32-bit float unless 16-bit types are enabled; the min-precision
    types are 32-bit with RelaxedPrecision, or real 16-bit types with
    `-enable-16bit-types`; `dword` is `uint`, and so are `int8_t4_packed` and `uint8_t4_packed`
    (four bytes in a 32-bit uint, as dxc lowers them; they have no vector forms).
    """
    if name in _FIXED_SCALARS:
        kind, bits = _FIXED_SCALARS[name]
        return scalar(kind, bits)  # aliases (dword, int32_t, float16_t, ...) are the same type
    if name in _RELAXED_SCALARS:
        kind = _RELAXED_SCALARS[name]
        if enable_16bit_types:
            return scalar(kind, 16)
        if name == "half":
            return scalar(kind, 32, "half")
        return scalar(kind, 32, name, relaxed=True)
    return None


# ---------------------------------------------------------------- user types


@dataclass(eq=False)
class Field:
    """A struct member as declared: its name, type, semantic and matrix orientation."""

    name: str
    type: Type
    semantic: str | None = None
    row_major: bool | None = None
    """True/False when `row_major`/`column_major` was written; None for the default."""
    span: Any = field(default=None, repr=False)
    interpolation: frozenset[str] = frozenset()
    """Interpolation modifiers written on the field (nointerpolation, noperspective, linear, centroid, sample)."""


@dataclass(eq=False)
class StructType(Type):
    """A struct or class: nominal, one object per declaration.

    `fields` are the struct's own fields (the base's come first in layouts);
    filled in once the declaration's body has been analysed.
    """

    name: str
    base: StructType | None = None
    fields: list[Field] = field(default_factory=list)
    attributes: tuple[str, ...] = ()
    """Lower-cased names of struct attributes (`nodetrackrwinputsharing`)."""
    span: Any = field(default=None, repr=False)
    object_fields: list[Field] = field(default_factory=list, repr=False)
    """Fields holding resources or node objects: declared (as DXC allows) but not laid out; any use
    of the struct is an error (in a node record: `sema.nodes`; elsewhere: `sema.analyze`)."""

    def __str__(self) -> str:
        return self.name

    def all_fields(self) -> list[Field]:
        """Base fields first, then own fields (single inheritance)."""
        return (self.base.all_fields() if self.base else []) + self.fields

    __hash__ = Type.__hash__
    __eq__ = Type.__eq__


@dataclass(eq=False)
class EnumType(Type):
    name: str
    underlying: ScalarType
    scoped: bool
    members: dict[str, int] = field(default_factory=dict)
    span: Any = field(default=None, repr=False)

    def __str__(self) -> str:
        return self.name

    __hash__ = Type.__hash__
    __eq__ = Type.__eq__


# ---------------------------------------------------------------- resources and node objects


class ResourceKind(enum.Enum):
    """Every resource object, with its HLSL name; `.writable` for the RW forms."""

    BUFFER = "Buffer"
    RW_BUFFER = "RWBuffer"
    STRUCTURED_BUFFER = "StructuredBuffer"
    RW_STRUCTURED_BUFFER = "RWStructuredBuffer"
    APPEND_STRUCTURED_BUFFER = "AppendStructuredBuffer"
    CONSUME_STRUCTURED_BUFFER = "ConsumeStructuredBuffer"
    BYTE_ADDRESS_BUFFER = "ByteAddressBuffer"
    RW_BYTE_ADDRESS_BUFFER = "RWByteAddressBuffer"
    TEXTURE_1D = "Texture1D"
    TEXTURE_1D_ARRAY = "Texture1DArray"
    TEXTURE_2D = "Texture2D"
    TEXTURE_2D_ARRAY = "Texture2DArray"
    TEXTURE_3D = "Texture3D"
    TEXTURE_CUBE = "TextureCube"
    TEXTURE_CUBE_ARRAY = "TextureCubeArray"
    RW_TEXTURE_1D = "RWTexture1D"
    RW_TEXTURE_1D_ARRAY = "RWTexture1DArray"
    RW_TEXTURE_2D = "RWTexture2D"
    RW_TEXTURE_2D_ARRAY = "RWTexture2DArray"
    RW_TEXTURE_3D = "RWTexture3D"
    TEXTURE_2D_MS = "Texture2DMS"
    TEXTURE_2D_MS_ARRAY = "Texture2DMSArray"
    RW_TEXTURE_2D_MS = "RWTexture2DMS"
    RW_TEXTURE_2D_MS_ARRAY = "RWTexture2DMSArray"
    CONSTANT_BUFFER = "ConstantBuffer"
    TEXTURE_BUFFER = "TextureBuffer"
    SAMPLER_STATE = "SamplerState"
    SAMPLER_COMPARISON_STATE = "SamplerComparisonState"
    RAYTRACING_ACCELERATION_STRUCTURE = "RaytracingAccelerationStructure"

    @property
    def writable(self) -> bool:
        return self.value.startswith(("RW", "Append", "Consume"))

    @property
    def is_texture(self) -> bool:
        return "Texture" in self.value and self is not ResourceKind.TEXTURE_BUFFER

    @property
    def multisampled(self) -> bool:
        """Texture2DMS[Array] and RWTexture2DMS[Array]: one texel per sample."""
        return "2DMS" in self.value

    @property
    def is_sampler(self) -> bool:
        return self.value.startswith("Sampler")

    @property
    def has_element_type(self) -> bool:
        return not (self.is_sampler or self.value.endswith("ByteAddressBuffer")
                    or self is ResourceKind.RAYTRACING_ACCELERATION_STRUCTURE)


@dataclass(frozen=True, eq=False)
class ResourceType(Type):
    """A resource object; `element` is its template argument (defaulted for textures)."""

    kind: ResourceKind
    element: Type | None
    element_modifier: str | None = None
    """`unorm` / `snorm` written in the template argument of a typed texture or buffer."""
    sample_count: int = 0
    """The second template argument of a multisampled texture (`Texture2DMS<float4, 4>`; DXC's
    default 0): part of the type's identity, as in DXC; SPIR-V's image types do not carry it."""

    def __str__(self) -> str:
        if self.element is None:
            return self.kind.value
        modifier = f"{self.element_modifier} " if self.element_modifier else ""
        count = f", {self.sample_count}" if self.sample_count else ""
        return f"{self.kind.value}<{modifier}{self.element}{count}>"


def resource(kind: ResourceKind, element: Type | None, element_modifier: str | None = None,
             sample_count: int = 0) -> ResourceType:
    return _intern(("resource", kind, element, element_modifier, sample_count),
                   lambda: ResourceType(kind, element, element_modifier, sample_count))


class NodeObjectKind(enum.Enum):
    """The work-graph node and record objects, with their HLSL names."""

    DISPATCH_NODE_INPUT_RECORD = "DispatchNodeInputRecord"
    RW_DISPATCH_NODE_INPUT_RECORD = "RWDispatchNodeInputRecord"
    GROUP_NODE_INPUT_RECORDS = "GroupNodeInputRecords"
    RW_GROUP_NODE_INPUT_RECORDS = "RWGroupNodeInputRecords"
    THREAD_NODE_INPUT_RECORD = "ThreadNodeInputRecord"
    RW_THREAD_NODE_INPUT_RECORD = "RWThreadNodeInputRecord"
    EMPTY_NODE_INPUT = "EmptyNodeInput"
    NODE_OUTPUT = "NodeOutput"
    NODE_OUTPUT_ARRAY = "NodeOutputArray"
    EMPTY_NODE_OUTPUT = "EmptyNodeOutput"
    EMPTY_NODE_OUTPUT_ARRAY = "EmptyNodeOutputArray"
    THREAD_NODE_OUTPUT_RECORDS = "ThreadNodeOutputRecords"
    GROUP_NODE_OUTPUT_RECORDS = "GroupNodeOutputRecords"

    @property
    def is_input(self) -> bool:
        return "Input" in self.value

    @property
    def is_output(self) -> bool:
        return self.value.endswith(("Output", "OutputArray"))

    @property
    def is_output_records(self) -> bool:
        return self.value.endswith("OutputRecords")

    @property
    def is_empty(self) -> bool:
        return self.value.startswith("Empty")

    @property
    def is_array(self) -> bool:
        return self.value.endswith("Array")

    @property
    def writable(self) -> bool:
        return self.value.startswith("RW") or self.is_output_records


@dataclass(frozen=True, eq=False)
class NodeObjectType(Type):
    """A node input/output or record object; `record` is None for the Empty* kinds."""

    kind: NodeObjectKind
    record: Type | None

    def __str__(self) -> str:
        return self.kind.value if self.record is None else f"{self.kind.value}<{self.record}>"


def node_object(kind: NodeObjectKind, record: Type | None) -> NodeObjectType:
    return _intern(("node", kind, record), lambda: NodeObjectType(kind, record))


@dataclass(frozen=True, eq=False)
class RayQueryType(Type):
    """`RayQuery<RAY_FLAGS, RAYQUERY_FLAGS>`: an inline ray-tracing query object (a local or static
    value; SPIR-V: a Function or Private variable of OpTypeRayQueryKHR). Two RayQuery types are
    the same type only when both flag arguments are equal, as in DXC."""

    flags: int
    query_flags: int = 0

    def __str__(self) -> str:
        return f"RayQuery<{self.flags}, {self.query_flags}>" if self.query_flags else f"RayQuery<{self.flags}>"


def ray_query(flags: int, query_flags: int = 0) -> RayQueryType:
    return _intern(("rayquery", flags, query_flags), lambda: RayQueryType(flags, query_flags))


@dataclass(frozen=True, eq=False)
class StringType(Type):
    def __str__(self) -> str:
        return "string"


STRING = _intern(("string",), StringType)

RAY_DESC = StructType("RayDesc", fields=[Field("Origin", vector(FLOAT, 3)), Field("TMin", FLOAT),
                                         Field("Direction", vector(FLOAT, 3)), Field("TMax", FLOAT)])
"""The built-in `RayDesc` struct, in DXC's field order (OpRayQueryInitializeKHR takes the fields as
Origin, TMin, Direction, TMax, the order DXC extracts them in)."""


# ---------------------------------------------------------------- shape helpers


# The shape helpers below test `type(type_) is ...`: the type classes have no subclasses, and the
# identity tests cost less than `isinstance` with a tuple, and sema asks at every expression.


def element_scalar(type_: Type) -> ScalarType | None:
    """The scalar of a scalar, vector or matrix type (None for anything else)."""
    kind = type(type_)
    if kind is ScalarType:
        return type_  # type: ignore[return-value]
    if kind is VectorType or kind is MatrixType:
        return type_.element  # type: ignore[attr-defined]
    if kind is EnumType:
        return type_.underlying  # type: ignore[attr-defined]
    return None


def component_count(type_: Type) -> int | None:
    """How many scalars a numeric type holds (None for non-numeric types)."""
    kind = type(type_)
    if kind is ScalarType or kind is EnumType:
        return 1
    if kind is VectorType:
        return type_.count  # type: ignore[attr-defined]
    if kind is MatrixType:
        return type_.rows * type_.columns  # type: ignore[attr-defined]
    return None


def with_element(type_: Type, element: ScalarType) -> Type:
    """The same shape (scalar/vector/matrix) with another scalar."""
    if isinstance(type_, VectorType):
        return vector(element, type_.count)
    if isinstance(type_, MatrixType):
        return matrix(element, type_.rows, type_.columns)
    return element


def is_numeric(type_: Type) -> bool:
    return element_scalar(type_) is not None
