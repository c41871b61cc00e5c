"""SPIR-V types of IR types, with and without explicit layout (SPIR-V back end).

Input: interned IR types (`wgc.types`) and, for memory that the host or the work-graph runtime
sees (buffers, uniform blocks, push constants, node records), the `TypeLayout` sema computed.
Output: type ids in a `Builder`, with Offset / ArrayStride / MatrixStride / RowMajor|ColMajor
decorations on the laid-out variants.

Invariants:
- A *logical* type (layout None) is what values, Function/Private/Workgroup variables and
  Input built-ins use: `bool` is OpTypeBool, structs and arrays carry no decorations.
- A *laid-out* type is keyed by (IR type, layout): structs and arrays are fresh types with
  their own decorations; `bool` is stored as a 32-bit uint (dxc's rule), so loading and storing
  converts (`FunctionLowering.convert_representation`).
- Shapes follow dxc: a one-component vector is a scalar, a 1xN or Nx1 matrix is a vector, a
  1x1 matrix a scalar; an HLSL `floatRxC` is an OpTypeMatrix of R column vectors of C
  components (SPIR-V sees the transpose), so an HLSL row_major matrix is decorated ColMajor.
- A struct's members are its `all_fields()`: base fields first, flattened (matching
  `ir.FieldAccess.index`).
- Non-float matrices become arrays of row vectors (SPIR-V matrices must be float).
- An SV_DispatchGrid array member is a vector in laid-out memory (`dispatch_grid_vector`);
  places over it (`lower.Place.as_array`) convert between the two on load and store.
- Every `RayQuery<...>` is the one OpTypeRayQueryKHR (named `rayQueryKHR`) and a
  RaytracingAccelerationStructure the one OpTypeAccelerationStructureKHR (named
  `accelerationStructureNV`), as in DXC; either declares RayQueryKHR and SPV_KHR_ray_query.
"""

from __future__ import annotations

from wgc import types as t
from wgc.irtools.layout import TypeLayout

from .builder import Builder


def dispatch_grid_vector(field: t.Field) -> t.Type | None:
    """The type an array `uint grid[N] : SV_DispatchGrid` (N = 1..3, 16 or 32 bits) has in laid-out
    memory: a vector (a scalar for N = 1), because PayloadDispatchIndirectAMDX takes only an
    integer or a 2- or 3-component vector. Offsets and size are unchanged (records use scalar
    layout); None for every other field."""
    type_ = field.type
    if field.semantic is None or field.semantic.lower() != "sv_dispatchgrid" \
            or not isinstance(type_, t.ArrayType) or not isinstance(type_.element, t.ScalarType) \
            or type_.length not in (1, 2, 3):
        return None
    return t.vector(type_.element, type_.length) if type_.length > 1 else type_.element


class TypeLowering:
    """Maps IR types to type ids of one module."""

    def __init__(self, builder: Builder) -> None:
        self.b = builder
        self._laid_out: dict[tuple[t.Type, TypeLayout], int] = {}
        self._logical_structs: dict[t.StructType, int] = {}
        self._named: set[int] = set()
        self._logical_ids: dict[t.Type, int] = {}
        self._laid_out_ids: dict[tuple[t.Type, int], tuple[TypeLayout, int]] = {}

    # ------------------------------------------------------------ shapes

    @staticmethod
    def shape(type_: t.Type) -> t.Type:
        """The IR type SPIR-V really represents (vec1 -> scalar, 1xN matrix -> vector, ...)."""
        if isinstance(type_, t.EnumType):
            return type_.underlying
        if isinstance(type_, t.VectorType) and type_.count == 1:
            return type_.element
        if isinstance(type_, t.MatrixType):
            if type_.rows == 1 and type_.columns == 1:
                return type_.element
            if type_.rows == 1 or type_.columns == 1:
                return t.vector(type_.element, type_.rows * type_.columns)
        return type_

    @staticmethod
    def is_float_matrix(type_: t.Type) -> bool:
        type_ = TypeLowering.shape(type_)
        return isinstance(type_, t.MatrixType) and type_.element.is_float

    # ------------------------------------------------------------ logical types

    def scalar(self, scalar: t.ScalarType, *, in_memory: bool = False) -> int:
        if scalar.kind is t.ScalarKind.BOOL:
            return self.b.type_int(32, False) if in_memory else self.b.type_bool()
        if scalar.kind is t.ScalarKind.FLOAT:
            if scalar.bits == 16:
                self.b.capability("Float16")
            elif scalar.bits == 64:
                self.b.capability("Float64")
            return self.b.type_float(scalar.bits)
        if scalar.bits == 16:
            self.b.capability("Int16")
        elif scalar.bits == 64:
            self.b.capability("Int64")
        return self.b.type_int(scalar.bits, scalar.kind is t.ScalarKind.INT)

    def id(self, type_: t.Type, layout: TypeLayout | None = None) -> int:
        """The type id of `type_`: logical when `layout` is None, else laid out by `layout`.

        Memoised per (type, layout object): a second request would only find what the first made
        (types, constants and names are deduplicated, capabilities a set), and the lowering asks
        for the same few types hundreds of times a compile. IR types hash by identity; a layout (a tree
        of frozen dataclasses, hashed recursively) is keyed by identity too, and kept alive by its entry."""
        if layout is None:
            found = self._logical_ids.get(type_)
            if found is None:
                found = self._logical_ids[type_] = self._lower(type_, None)
            return found
        entry = self._laid_out_ids.get((type_, id(layout)))
        if entry is None:
            entry = self._laid_out_ids[(type_, id(layout))] = (layout, self._lower(type_, layout))
        return entry[1]

    def _lower(self, type_: t.Type, layout: TypeLayout | None) -> int:
        """`id` without the memo."""
        type_ = self.shape(type_)
        if layout is not None and self._has_aggregate_or_bool(type_):
            return self._laid_out_id(type_, layout)
        in_memory = layout is not None
        if isinstance(type_, t.ScalarType):
            return self.scalar(type_, in_memory=in_memory)
        if isinstance(type_, t.VectorType):
            return self.b.type_vector(self.scalar(type_.element, in_memory=in_memory), type_.count)
        if isinstance(type_, t.MatrixType):
            row = self.b.type_vector(self.scalar(type_.element, in_memory=in_memory), type_.columns)
            if type_.element.is_float:
                return self.b.type_matrix(row, type_.rows)
            return self.b.type_array(row, self.b.constant_uint(type_.rows))
        if isinstance(type_, t.VoidType):
            return self.b.type_void()
        if isinstance(type_, t.ArrayType):
            element = self.id(type_.element)
            if type_.length is None:
                return self.b.type_runtime_array(element)
            return self.b.type_array(element, self.b.constant_uint(type_.length))
        if isinstance(type_, t.StructType):
            return self._logical_struct(type_)
        if isinstance(type_, t.RayQueryType):
            return self.ray_query()
        raise ValueError(f"type '{type_}' has no SPIR-V value type")

    def ray_query(self) -> int:
        """OpTypeRayQueryKHR (every RayQuery<...> type: the flags live in TraceRayInline)."""
        return self._ray_query_type("OpTypeRayQueryKHR", "rayQueryKHR")

    def acceleration_structure(self) -> int:
        """OpTypeAccelerationStructureKHR, named as DXC names it."""
        return self._ray_query_type("OpTypeAccelerationStructureKHR", "accelerationStructureNV")

    def _ray_query_type(self, opcode: str, name: str) -> int:
        """A type of SPV_KHR_ray_query, with its capability, extension and (once) its name."""
        self.b.capability("RayQueryKHR")
        self.b.extension("SPV_KHR_ray_query")
        found = self.b.type(opcode)
        if found not in self._named:
            self._named.add(found)
            self.b.name(found, name)
        return found

    def _logical_struct(self, struct: t.StructType) -> int:
        found = self._logical_structs.get(struct)
        if found is None:
            members = [self.id(f.type) for f in struct.all_fields()]
            found = self._logical_structs[struct] = self.b.type_struct(members, fresh=True)
            self.b.name(found, struct.name)
            for i, f in enumerate(struct.all_fields()):
                self.b.member_name(found, i, f.name)
        return found

    @staticmethod
    def _has_aggregate_or_bool(type_: t.Type) -> bool:
        if isinstance(type_, (t.StructType, t.ArrayType)):
            return True
        if isinstance(type_, t.MatrixType) and not type_.element.is_float:
            return True
        scalar = t.element_scalar(type_)
        return scalar is not None and scalar.kind is t.ScalarKind.BOOL

    # ------------------------------------------------------------ laid-out types

    def _laid_out_id(self, type_: t.Type, layout: TypeLayout) -> int:
        key = (type_, layout)
        found = self._laid_out.get(key)
        if found is not None:
            return found
        if isinstance(type_, t.StructType):
            found = self._laid_out_struct(type_, layout)
        elif isinstance(type_, t.ArrayType):
            element_layout = layout.element or layout
            element = self.id(type_.element, element_layout)
            if type_.length is None:
                found = self.b.type_runtime_array(element, fresh=True)
            else:
                found = self.b.type_array(element, self.b.constant_uint(type_.length), fresh=True)
            self.b.decorate(found, "ArrayStride", layout.array_stride or element_layout.size)
        elif isinstance(type_, t.MatrixType):          # a non-float matrix: an array of rows
            assert layout.row_major, f"sema.target rejects column-major '{type_}' in memory (WG0621)"
            row = self.id(t.vector(type_.element, type_.columns), layout)
            found = self.b.type_array(row, self.b.constant_uint(type_.rows), fresh=True)
            self.b.decorate(found, "ArrayStride", layout.matrix_stride or 16)
        else:                                          # bool, bool vectors: uint storage
            found = self.id(t.with_element(type_, t.UINT))
        self._laid_out[key] = found
        return found

    def _laid_out_struct(self, struct: t.StructType, layout: TypeLayout, name: str | None = None) -> int:
        fields = struct.all_fields()
        members = [self.id(dispatch_grid_vector(f) or f.type, m.layout) for f, m in zip(fields, layout.members)]
        result = self.b.type_struct(members, fresh=True)
        self.b.name(result, name or struct.name)
        for i, (f, m) in enumerate(zip(fields, layout.members)):
            self.b.member_name(result, i, f.name)
            self.b.member_decorate(result, i, "Offset", m.offset)
            self.decorate_matrix_member(result, i, f.type, m.layout)
        return result

    def decorate_matrix_member(self, struct_id: int, index: int, type_: t.Type,
                               layout: TypeLayout) -> None:
        """MatrixStride and majorness on a member holding a float matrix (or an array of them)."""
        inner = t.innermost_element(type_)
        if not self.is_float_matrix(inner) or layout.matrix_stride is None:
            return
        self.b.member_decorate(struct_id, index, "MatrixStride", layout.matrix_stride)
        # HLSL rows are SPIR-V columns: an HLSL row_major matrix is ColMajor in SPIR-V
        self.b.member_decorate(struct_id, index, "ColMajor" if layout.row_major else "RowMajor")

    def block(self, type_: t.Type, layout: TypeLayout, name: str) -> int:
        """A Block-decorated struct wrapping `type_` (a struct: its members; else one member)."""
        if isinstance(type_, t.StructType):
            result = self._laid_out_struct(type_, layout, name)
        else:
            result = self.b.type_struct([self.id(type_, layout)], fresh=True)
            self.b.name(result, name)
            self.b.member_decorate(result, 0, "Offset", 0)
            self.b.member_name(result, 0, "_m0")
            self.decorate_matrix_member(result, 0, type_, layout)
        self.b.decorate(result, "Block")
        return result

    def pointer(self, storage_class: str, pointee: int) -> int:
        return self.b.type_pointer(storage_class, pointee)
