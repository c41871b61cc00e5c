"""IR helper, memory layout of IR types: sizes, alignments, offsets and strides.

Stage: below sema (imports only `wgc.types`); sema computes layouts with it and stores them in the
IR, the back ends and the metadata read them.

Input: an interned IR type (`wgc.types`) and a `LayoutRule`.
Output: a `TypeLayout` (size, alignment, array stride, matrix stride and
majorness, member offsets), computed once by semantic analysis and carried in
the IR; the SPIR-V back end turns it into Offset / ArrayStride / MatrixStride
decorations and the metadata (inspect, reflection) reads sizes and offsets from it. Helpers both
read: `laid_out_type` (the type a variable's layout describes), `member_fields` (a struct layout's
members paired with their fields) and `runtime_array_stride` (a structured buffer's element stride).

The rules are the ones dxc's SPIR-V back end applies (its
AlignmentSizeCalculator), which differ in places from the GLSL rules they are
named after. Sizes are in bytes; "component" is the scalar of a vector or
matrix; round_up(x, a) is the least multiple of a that is >= x.

Shapes, common to every rule:
- bool is 4 bytes (dxc stores bool in buffers as uint); other scalars are
  bits/8 bytes: 2 for 16-bit types, 4 for 32-bit ones (including `half` and the
  min-precision types without -enable-16bit-types), 8 for 64-bit ones. An enum
  is laid out as its underlying scalar. A RayQuery (only in groupshared memory or a struct:
  target limits, WG0633) counts as DXIL's 4-byte query handle, for the groupshared budget;
  every memory SPIR-V lays out refuses it earlier (`typeref.contains_object`).
- A one-component vector and a 1x1 matrix are scalars; a 1xN or Nx1 matrix is
  an N-component vector (dxc lowers them so); only matrices with at least two
  rows and two columns are matrices.
- Majorness is HLSL's and is NOT flipped here: a column_major `floatRxC` is C
  column vectors of R components, a row_major one is R row vectors of C
  components, and `matrix_stride` is the distance between those HLSL vectors.
  (dxc decorates an HLSL row_major matrix ColMajor, because SPIR-V sees the
  transposed type; that flip belongs to the SPIR-V back end.) A struct field's
  `row_major`/`column_major` wins over `default_row_major` (-Zpr).
- An array of matrices carries the element's `matrix_stride` and `row_major`
  (SPIR-V puts MatrixStride on the member whose type is an array of matrices).
- An unsized array (`T[]`) has size 0; its stride and alignment are those of a
  one-element array of the same element.
- A struct with no fields (its own and its bases') has size 0, alignment 1.
  A base struct is laid out as a whole at offset 0, like the implicit first
  member dxc makes of it: the derived struct's own fields start at the base's
  size (which is padded under SCALAR, STD430 and STD140). `members` lists the
  base's members first (with their offsets in the base), then the own fields.
- Struct members are placed in order, each at the least offset >= the end of
  the previous one that satisfies the member's placement alignment (below);
  struct alignment = max member alignment (the member's own alignment, not the
  relaxed placement one).

SCALAR (node records — dxc uses scalar layout for NodePayloadAMDX — and
-fvk-use-scalar-layout; VK_EXT_scalar_block_layout):
- Every scalar, vector and matrix is aligned to its component size; a vector's
  size is count*component; a matrix's size is rows*columns*component and its
  matrix stride is (components per HLSL vector)*component.
- Array: alignment = element alignment, stride = element size, size =
  stride*length.
- Struct: members placed at round_up(offset, member alignment); size rounded up
  to the struct alignment.

STD430 (structured and byte-address buffers, push constants: dxc's default
"relaxed std430"):
- Scalar: alignment = size. Vector of N components: alignment = 2*component
  for N = 2, 4*component for N = 3 or 4; size = N*component.
- Matrix: an array of its HLSL vectors (columns, or rows if row_major):
  matrix stride = alignment = the vector's alignment, size = vectors*stride.
- Array: alignment = element alignment, stride = round_up(element size,
  alignment), size = stride*length.
- Struct: size rounded up to the struct alignment.
- Relaxed vector placement (VK_KHR_relaxed_block_layout, as dxc does it): a
  vector member with components of at most 4 bytes is placed at
  round_up(offset, component size); if it then straddles a 16-byte boundary
  (size <= 16 and offset//16 != (offset+size-1)//16; or size > 16 and
  offset % 16 != 0) it moves to round_up(offset, 16). Vectors of 64-bit
  components keep their full alignment. Every other member is placed at
  round_up(offset, its alignment).

STD140 (cbuffer / ConstantBuffer: dxc's default "relaxed std140"): as STD430,
except that
- array alignment = round_up(element alignment, 16), so the stride is
  round_up(element size, that alignment);
- a matrix's vector alignment, hence its stride, is rounded up to 16;
- struct alignment is rounded up to 16 (and its size to that).

DX (-fvk-use-dx-layout for cbuffers: FXC packing into 16-byte registers):
- Scalars and vectors are aligned to their component size (so they pack
  tightly), using the relaxed placement above: a vector that would cross a
  16-byte register boundary moves to the next register (a vector over 16
  bytes starts a register). Scalars never cross one.
- Matrix: every HLSL vector (column, or row if row_major) takes a register:
  alignment = round_up(vector alignment, 16), matrix stride = that, size =
  vectors*stride (the last vector is padded, as dxc does).
- Array: every element starts a register: alignment = round_up(element
  alignment, 16), stride = round_up(element size, alignment), and size =
  stride*(length-1) + element size: the last element is not padded, so a
  following scalar may pack into its register.
- Struct: alignment = round_up(max member alignment, 16), so a struct starts a
  register; its size is NOT padded, so, as after an array, a following member
  that fits may pack into its last register (dxc's FxcCTBuffer rule).

Resources, node objects, `void` and `string` have no memory layout: asking for
one raises ValueError (sema rejects such members earlier, with a diagnostic).

Invariants: results are cached per (type, rule, default_row_major) and are
immutable; a struct must be complete (its fields filled in) before its layout
is asked for.
"""

from __future__ import annotations

import enum
import weakref

from wgc.cached_dataclass import dataclass
from wgc.types import (
    ArrayType,
    EnumType,
    Field,
    MatrixType,
    NodeObjectType,
    RayQueryType,
    ResourceType,
    ScalarType,
    StructType,
    Type,
    VectorType,
    innermost_element,
)


class LayoutRule(enum.Enum):
    SCALAR = "scalar"
    """Node records, -fvk-use-scalar-layout."""
    STD430 = "std430"
    """Structured / byte-address buffers, push constants (dxc's relaxed std430)."""
    STD140 = "std140"
    """cbuffer / ConstantBuffer (dxc's relaxed std140)."""
    DX = "dx"
    """cbuffer with -fvk-use-dx-layout (FXC register packing)."""


@dataclass(frozen=True)
class TypeLayout:
    size: int
    alignment: int
    array_stride: int | None = None
    """Arrays: the distance between elements."""
    matrix_stride: int | None = None
    """Matrices and arrays of matrices: the distance between HLSL vectors."""
    row_major: bool | None = None
    """Matrices and arrays of matrices: HLSL majorness (not flipped for SPIR-V)."""
    members: tuple[MemberLayout, ...] = ()
    """Structs: base fields first, then own fields."""
    element: TypeLayout | None = None
    """Arrays: the layout of one element."""


@dataclass(frozen=True)
class MemberLayout:
    name: str
    offset: int
    layout: TypeLayout

    @property
    def matrix_stride(self) -> int | None:
        return self.layout.matrix_stride

    @property
    def row_major(self) -> bool | None:
        return self.layout.row_major


def layout_of(type_: Type, rule: LayoutRule, *, default_row_major: bool = False) -> TypeLayout:
    """The layout of `type_` under `rule`; matrices without a written majorness
    are row-major when `default_row_major` (-Zpr)."""
    return _layout(type_, rule, default_row_major, default_row_major)


def laid_out_type(type_: Type | None) -> Type | None:
    """The type a variable's `layout` describes: a resource's element, a node object's record, a
    uniform block's struct (arrays of any of them: their element)."""
    type_ = innermost_element(type_) if type_ is not None else None
    if isinstance(type_, ResourceType):
        return type_.element
    if isinstance(type_, NodeObjectType):
        return type_.record
    return type_


def member_fields(type_: Type | None, layout: TypeLayout) -> list[tuple[MemberLayout, Field | None]]:
    """The members of a struct layout (of `type_`, or of the innermost element of an array of
    structs) paired with the struct fields they lay out; None where the fields cannot be matched."""
    while layout.element is not None:
        layout = layout.element
        type_ = type_.element if isinstance(type_, ArrayType) else None
    fields = type_.all_fields() if isinstance(type_, StructType) else []
    by_name = {f.name: f for f in fields} if len(fields) == len(layout.members) else {}
    return [(member, by_name.get(member.name)) for member in layout.members]


def runtime_array_stride(element: TypeLayout) -> int:
    """The ArrayStride of a structured buffer's runtime array of elements laid out as `element`."""
    return round_up(element.size, element.alignment) or 4


def round_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


# ---------------------------------------------------------------- shapes


def _component_size(scalar: ScalarType) -> int:
    return scalar.bits // 8


def _vector_shape(type_: Type) -> tuple[ScalarType, int] | None:
    """(component, count) of a type laid out as a vector of 2 to 4 components."""
    if isinstance(type_, VectorType) and type_.count > 1:
        return type_.element, type_.count
    if isinstance(type_, MatrixType) and (type_.rows == 1) != (type_.columns == 1):
        return type_.element, type_.rows * type_.columns
    return None


def _scalar_shape(type_: Type) -> ScalarType | None:
    """The scalar of a type laid out as a scalar."""
    if isinstance(type_, ScalarType):
        return type_
    if isinstance(type_, EnumType):
        return type_.underlying
    if isinstance(type_, VectorType) and type_.count == 1:
        return type_.element
    if isinstance(type_, MatrixType) and type_.rows == 1 and type_.columns == 1:
        return type_.element
    return None


# ---------------------------------------------------------------- layouts


_LAYOUTS: weakref.WeakKeyDictionary[Type, dict[tuple[LayoutRule, bool, bool], TypeLayout]] = \
    weakref.WeakKeyDictionary()
"""Computed layouts per type, held weakly (a TypeLayout references no type), so that the cache does
not keep a compile's struct types, and through their spans its source files, alive."""
_SHAPE_LAYOUTS: dict[Type, dict[tuple[LayoutRule, bool, bool], TypeLayout]] = {}
"""The layouts of scalars, vectors and matrices (every struct field and buffer element asks): types that
`wgc.types` keeps for good (`_SHAPES`), so a plain table keeps nothing alive, without the weak table's
Python-level `get`."""


def _layout(type_: Type, rule: LayoutRule, row_major: bool, default_row_major: bool) -> TypeLayout:
    """`row_major` is the majorness of matrices in `type_` itself (or in its
    array elements); struct fields use their own or `default_row_major`."""
    # `get` first: `setdefault` of a WeakKeyDictionary makes a new keyed weak reference (two Python-level
    # calls) at every call, `get` reuses the type's plain one
    kind = type(type_)
    table = _SHAPE_LAYOUTS if kind is ScalarType or kind is VectorType or kind is MatrixType else _LAYOUTS
    per_type = table.get(type_)
    if per_type is None:
        per_type = table[type_] = {}
    key = (rule, row_major, default_row_major)
    found = per_type.get(key)
    if found is None:
        found = per_type[key] = _compute_layout(type_, rule, row_major, default_row_major)
    return found


def _compute_layout(type_: Type, rule: LayoutRule, row_major: bool, default_row_major: bool) -> TypeLayout:
    scalar = _scalar_shape(type_)
    if scalar is not None:
        size = _component_size(scalar)
        return TypeLayout(size=size, alignment=size)
    vector = _vector_shape(type_)
    if vector is not None:
        return _vector_layout(*vector, rule)
    if isinstance(type_, MatrixType):
        return _matrix_layout(type_, rule, row_major)
    if isinstance(type_, ArrayType):
        return _array_layout(type_, rule, row_major, default_row_major)
    if isinstance(type_, StructType):
        return _struct_layout(type_, rule, default_row_major)
    if isinstance(type_, RayQueryType):
        return TypeLayout(size=4, alignment=4)
    raise ValueError(f"type '{type_}' has no memory layout")


def _vector_alignment(component: int, count: int) -> int:
    """The std430 alignment of a vector: 2N for 2 components, 4N for 3 or 4."""
    return component * (4 if count == 3 else count)


def _vector_layout(element: ScalarType, count: int, rule: LayoutRule) -> TypeLayout:
    component = _component_size(element)
    if rule in (LayoutRule.SCALAR, LayoutRule.DX):
        alignment = component
    else:
        alignment = _vector_alignment(component, count)
    return TypeLayout(size=component * count, alignment=alignment)


def _matrix_layout(type_: MatrixType, rule: LayoutRule, row_major: bool) -> TypeLayout:
    component = _component_size(type_.element)
    vector_length = type_.columns if row_major else type_.rows
    vector_count = type_.rows if row_major else type_.columns
    if rule is LayoutRule.SCALAR:
        return TypeLayout(size=component * type_.rows * type_.columns, alignment=component,
                          matrix_stride=component * vector_length, row_major=row_major)
    alignment = _vector_alignment(component, vector_length)
    if rule in (LayoutRule.STD140, LayoutRule.DX):
        alignment = round_up(alignment, 16)
    return TypeLayout(size=vector_count * alignment, alignment=alignment,
                      matrix_stride=alignment, row_major=row_major)


def _array_layout(type_: ArrayType, rule: LayoutRule, row_major: bool,
                  default_row_major: bool) -> TypeLayout:
    element = _layout(type_.element, rule, row_major, default_row_major)
    alignment = element.alignment
    if rule in (LayoutRule.STD140, LayoutRule.DX):
        alignment = round_up(alignment, 16)
    stride = round_up(element.size, alignment)
    if type_.length is None:
        size = 0
    elif rule is LayoutRule.DX:
        size = stride * (type_.length - 1) + element.size
    else:
        size = stride * type_.length
    return TypeLayout(size=size, alignment=alignment, array_stride=stride,
                      matrix_stride=element.matrix_stride, row_major=element.row_major,
                      element=element)


def _struct_layout(type_: StructType, rule: LayoutRule, default_row_major: bool) -> TypeLayout:
    if not type_.all_fields():
        return TypeLayout(size=0, alignment=1)
    members: list[MemberLayout] = []
    offset = 0
    alignment = 1
    if type_.base is not None and type_.base.all_fields():
        base = _layout(type_.base, rule, default_row_major, default_row_major)
        members.extend(base.members)
        offset = base.size
        alignment = base.alignment
    for field in type_.fields:
        row_major = default_row_major if field.row_major is None else field.row_major
        layout = _layout(field.type, rule, row_major, default_row_major)
        offset = _place(field.type, layout, rule, offset)
        members.append(MemberLayout(field.name, offset, layout))
        alignment = max(alignment, layout.alignment)
        offset += layout.size
    if rule in (LayoutRule.STD140, LayoutRule.DX):
        alignment = round_up(alignment, 16)
    size = offset if rule is LayoutRule.DX else round_up(offset, alignment)
    return TypeLayout(size=size, alignment=alignment, members=tuple(members))


def _place(type_: Type, layout: TypeLayout, rule: LayoutRule, offset: int) -> int:
    """The offset of a struct member whose predecessors end at `offset`."""
    vector = _vector_shape(type_)
    if rule is LayoutRule.SCALAR or vector is None:
        return round_up(offset, layout.alignment)
    component = _component_size(vector[0])
    offset = round_up(offset, component if component <= 4 else layout.alignment)
    if _straddles(offset, layout.size):
        offset = round_up(offset, 16)
    return offset


def _straddles(offset: int, size: int) -> bool:
    """Whether a vector at `offset` improperly straddles a 16-byte boundary."""
    if size <= 16:
        return offset // 16 != (offset + size - 1) // 16
    return offset % 16 != 0
