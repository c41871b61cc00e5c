"""Buffer layouts (wgc.irtools.layout): exact sizes, alignments, offsets and strides under each rule.

Every expected number is derived by hand from the rules in the module docstring;
the comment next to it gives the derivation.
"""

from __future__ import annotations

import pytest

from wgc.irtools.layout import LayoutRule, TypeLayout, layout_of
from wgc.types import (
    BOOL,
    DOUBLE,
    FLOAT,
    INT,
    UINT,
    EnumType,
    Field,
    NodeObjectKind,
    ResourceKind,
    ScalarKind,
    StructType,
    Type,
    array,
    matrix,
    node_object,
    resource,
    scalar,
    scalar_named,
    vector,
)

SCALAR, STD430, STD140, DX = LayoutRule.SCALAR, LayoutRule.STD430, LayoutRule.STD140, LayoutRule.DX
ALL_RULES = list(LayoutRule)

HALF16 = scalar(ScalarKind.FLOAT, 16)
UINT16 = scalar(ScalarKind.UINT, 16)
FLOAT2, FLOAT3, FLOAT4 = vector(FLOAT, 2), vector(FLOAT, 3), vector(FLOAT, 4)
UINT3 = vector(UINT, 3)


def struct(name: str, *fields: tuple[str, Type] | Field, base: StructType | None = None) -> StructType:
    return StructType(name, base, [f if isinstance(f, Field) else Field(f[0], f[1]) for f in fields])


def offsets(layout: TypeLayout) -> list[tuple[str, int]]:
    return [(m.name, m.offset) for m in layout.members]


def shape(layout: TypeLayout) -> tuple[int, int]:
    return layout.size, layout.alignment


# ---------------------------------------------------------------- scalars and vectors


@pytest.mark.parametrize("rule", ALL_RULES)
def test_bool_is_four_bytes(rule: LayoutRule) -> None:
    assert shape(layout_of(BOOL, rule)) == (4, 4)
    # {bool a; bool b;}: b right after a's 4 bytes; size 8 (16 under STD140/DX struct alignment).
    s = layout_of(struct("B", ("a", BOOL), ("b", BOOL)), rule)
    assert offsets(s) == [("a", 0), ("b", 4)]


def test_bool_vector_std430() -> None:
    # bool3: 3 * 4 bytes, aligned like a vec4 of 4-byte components.
    assert shape(layout_of(vector(BOOL, 3), STD430)) == (12, 16)


def test_sixteen_bit_scalars_and_vectors() -> None:
    for rule in ALL_RULES:
        assert shape(layout_of(HALF16, rule)) == (2, 2)
        assert shape(layout_of(UINT16, rule)) == (2, 2)
    assert shape(layout_of(vector(UINT16, 2), STD430)) == (4, 4)  # 2 * 2 bytes, align 2N = 4
    assert shape(layout_of(vector(HALF16, 3), STD430)) == (6, 8)  # 3 * 2 bytes, align 4N = 8
    assert shape(layout_of(vector(HALF16, 3), SCALAR)) == (6, 2)  # component alignment
    # Without -enable-16bit-types `half` is a 32-bit float.
    assert shape(layout_of(scalar_named("half", False), STD430)) == (4, 4)
    assert shape(layout_of(scalar_named("min16float", True), STD430)) == (2, 2)


def test_sixteen_bit_struct_and_arrays() -> None:
    # {half a; half3 b; uint16_t c;} STD430: b relaxed to component alignment: 2 (2..7 in one
    # 16-byte block); c at 8; size 10 rounded to struct alignment 8 -> 16.
    s = layout_of(struct("H", ("a", HALF16), ("b", vector(HALF16, 3)), ("c", UINT16)), STD430)
    assert offsets(s) == [("a", 0), ("b", 2), ("c", 8)]
    assert shape(s) == (16, 8)
    # half[3]: STD430 stride 2, size 6; STD140 stride rounded to 16, size 48.
    a430, a140 = layout_of(array(HALF16, 3), STD430), layout_of(array(HALF16, 3), STD140)
    assert (a430.array_stride, a430.size, a430.alignment) == (2, 6, 2)
    assert (a140.array_stride, a140.size, a140.alignment) == (16, 48, 16)


def test_doubles() -> None:
    for rule in ALL_RULES:
        assert shape(layout_of(DOUBLE, rule)) == (8, 8)
    assert shape(layout_of(vector(DOUBLE, 3), STD430)) == (24, 32)  # align 4N = 32
    assert shape(layout_of(vector(DOUBLE, 2), STD430)) == (16, 16)
    assert shape(layout_of(vector(DOUBLE, 3), SCALAR)) == (24, 8)
    # {float a; double b;}: b at round_up(4, 8) = 8 under every rule.
    for rule in ALL_RULES:
        assert offsets(layout_of(struct("D", ("a", FLOAT), ("b", DOUBLE)), rule)) == [("a", 0), ("b", 8)]


def test_double_vectors_are_not_relaxed() -> None:
    s = struct("DV", ("a", DOUBLE), ("b", vector(DOUBLE, 3)))
    # STD430: 64-bit-component vectors keep their full alignment 32: b at 32; size 56 -> 64.
    assert offsets(layout_of(s, STD430)) == [("a", 0), ("b", 32)]
    assert shape(layout_of(s, STD430)) == (64, 32)
    # SCALAR: b at 8 (component alignment); size 32, alignment 8.
    assert offsets(layout_of(s, SCALAR)) == [("a", 0), ("b", 8)]
    assert shape(layout_of(s, SCALAR)) == (32, 8)
    # DX: b aligned to 8 -> 8, but a vector over 16 bytes must start a register -> 16; size 40.
    assert offsets(layout_of(s, DX)) == [("a", 0), ("b", 16)]
    assert shape(layout_of(s, DX)) == (40, 16)


def test_enum_is_its_underlying_scalar() -> None:
    e = EnumType("E", INT, scoped=True)
    assert shape(layout_of(e, STD140)) == (4, 4)


def test_one_component_vectors_and_degenerate_matrices() -> None:
    # float1 and float1x1 are scalars; float1x3 and float3x1 are float3.
    assert shape(layout_of(vector(FLOAT, 1), STD430)) == (4, 4)
    assert shape(layout_of(matrix(FLOAT, 1, 1), STD430)) == (4, 4)
    for m in (matrix(FLOAT, 1, 3), matrix(FLOAT, 3, 1)):
        lay = layout_of(m, STD430)
        assert (lay.size, lay.alignment, lay.matrix_stride, lay.row_major) == (12, 16, None, None)
    # ...and take part in relaxed vector placement: {float a; float1x3 b;} -> b at 4.
    assert offsets(layout_of(struct("M", ("a", FLOAT), ("b", matrix(FLOAT, 1, 3))), STD430)) == [
        ("a", 0), ("b", 4)]


# ---------------------------------------------------------------- relaxed vector placement


@pytest.mark.parametrize("rule", [STD430, STD140])
def test_float_then_float3_packs_at_4(rule: LayoutRule) -> None:
    # float3 placed at round_up(4, 4) = 4; it spans 4..15, inside one 16-byte block -> stays at 4.
    # Struct alignment 16 (float3's own alignment); size 16.
    s = layout_of(struct("S", ("a", FLOAT), ("b", FLOAT3)), rule)
    assert offsets(s) == [("a", 0), ("b", 4)]
    assert shape(s) == (16, 16)


def test_float_then_float3_scalar_and_dx() -> None:
    s = struct("S", ("a", FLOAT), ("b", FLOAT3))
    assert offsets(layout_of(s, SCALAR)) == [("a", 0), ("b", 4)]
    assert shape(layout_of(s, SCALAR)) == (16, 4)
    assert offsets(layout_of(s, DX)) == [("a", 0), ("b", 4)]
    assert shape(layout_of(s, DX)) == (16, 16)


@pytest.mark.parametrize("rule,size,alignment", [
    (STD430, 16, 16), (STD140, 16, 16), (SCALAR, 16, 4), (DX, 16, 16)])
def test_float3_then_float(rule: LayoutRule, size: int, alignment: int) -> None:
    # float3 occupies 0..11, float at 12 under every rule.
    s = layout_of(struct("S", ("a", FLOAT3), ("b", FLOAT)), rule)
    assert offsets(s) == [("a", 0), ("b", 12)]
    assert shape(s) == (size, alignment)


@pytest.mark.parametrize("rule,b,size,alignment", [
    (STD430, 16, 32, 16),   # 8..19 straddles 16 -> 16; end 28 -> 32
    (STD140, 16, 32, 16),
    (DX, 16, 28, 16),       # same move to the next register; DX struct size unpadded
    (SCALAR, 8, 20, 4),     # component alignment, no straddle rule
])
def test_float2_then_float3(rule: LayoutRule, b: int, size: int, alignment: int) -> None:
    s = layout_of(struct("S", ("a", FLOAT2), ("b", FLOAT3)), rule)
    assert offsets(s) == [("a", 0), ("b", b)]
    assert shape(s) == (size, alignment)


def test_relaxed_float2_placement_std430() -> None:
    # {float a; float2 b; float2 c;}: b at round_up(4, 4) = 4 (4..11 fits), c at 12 would span
    # 12..19 -> 16. Size 24, alignment 8.
    s = layout_of(struct("S", ("a", FLOAT), ("b", FLOAT2), ("c", FLOAT2)), STD430)
    assert offsets(s) == [("a", 0), ("b", 4), ("c", 16)]
    assert shape(s) == (24, 8)


# ---------------------------------------------------------------- arrays


@pytest.mark.parametrize("rule,stride,size,alignment", [
    (SCALAR, 4, 16, 4),
    (STD430, 4, 16, 4),
    (STD140, 16, 64, 16),   # element alignment rounded to 16
    (DX, 16, 52, 16),       # 16 * 3 + 4: last element unpadded
])
def test_float_array(rule: LayoutRule, stride: int, size: int, alignment: int) -> None:
    lay = layout_of(array(FLOAT, 4), rule)
    assert (lay.array_stride, lay.size, lay.alignment) == (stride, size, alignment)
    assert lay.element == TypeLayout(size=4, alignment=4)


def test_float3_array() -> None:
    # float3 element: STD430 alignment 16 -> stride 16; SCALAR stride 12; DX 16 * 2 + 12 = 44.
    assert layout_of(array(FLOAT3, 3), STD430).array_stride == 16
    assert layout_of(array(FLOAT3, 3), STD430).size == 48
    assert (layout_of(array(FLOAT3, 3), SCALAR).array_stride, layout_of(array(FLOAT3, 3), SCALAR).size) == (12, 36)
    assert (layout_of(array(FLOAT3, 3), DX).array_stride, layout_of(array(FLOAT3, 3), DX).size) == (16, 44)


@pytest.mark.parametrize("rule,b,size", [
    (STD430, 8, 12),    # a: 2 * 4; b at 8; size 12 (alignment 4)
    (STD140, 32, 48),   # a: 2 * 16; b at 32; size 36 -> 48
    (DX, 20, 24),       # a: 16 + 4 = 20; b packs into the last element's register at 20; size 24 unpadded
    (SCALAR, 8, 12),
])
def test_member_after_array(rule: LayoutRule, b: int, size: int) -> None:
    s = layout_of(struct("S", ("a", array(FLOAT, 2)), ("b", FLOAT)), rule)
    assert offsets(s) == [("a", 0), ("b", b)]
    assert s.size == size


def test_array_of_arrays_dx() -> None:
    # float[2][2] under DX: inner = 16 + 4 = 20, alignment 16; outer stride round_up(20, 16) = 32,
    # size 32 + 20 = 52.
    lay = layout_of(array(array(FLOAT, 2), 2), DX)
    assert (lay.array_stride, lay.size, lay.alignment) == (32, 52, 16)
    assert (lay.element.array_stride, lay.element.size) == (16, 20)


def test_unsized_arrays() -> None:
    lay = layout_of(array(FLOAT, None), STD430)
    assert (lay.size, lay.alignment, lay.array_stride) == (0, 4, 4)
    assert layout_of(array(FLOAT, None), STD140).array_stride == 16
    # {uint count; float4 data[];}: STD430 data at round_up(4, 16) = 16; size 16 + 0.
    s = struct("RB", ("count", UINT), ("data", array(FLOAT4, None)))
    lay = layout_of(s, STD430)
    assert offsets(lay) == [("count", 0), ("data", 16)]
    assert (lay.size, lay.members[1].layout.array_stride) == (16, 16)
    # SCALAR: data at 4, stride 16, size 4.
    lay = layout_of(s, SCALAR)
    assert offsets(lay) == [("count", 0), ("data", 4)]
    assert (lay.size, lay.members[1].layout.array_stride) == (4, 16)


# ---------------------------------------------------------------- matrices


@pytest.mark.parametrize("rule", ALL_RULES)
@pytest.mark.parametrize("row_major", [False, True])
def test_float4x4(rule: LayoutRule, row_major: bool) -> None:
    # 4 vectors of 4 floats: stride 16, size 64 (alignment 4 under SCALAR, else 16).
    lay = layout_of(matrix(FLOAT, 4, 4), rule, default_row_major=row_major)
    assert (lay.matrix_stride, lay.size, lay.row_major) == (16, 64, row_major)
    assert lay.alignment == (4 if rule is SCALAR else 16)


@pytest.mark.parametrize("rule,row_major,stride,size,alignment", [
    # float3x4 = 3 rows, 4 columns.
    (STD430, False, 16, 64, 16),   # 4 columns of float3: align 16 -> 4 * 16
    (STD430, True, 16, 48, 16),    # 3 rows of float4
    (STD140, False, 16, 64, 16),
    (STD140, True, 16, 48, 16),
    (DX, False, 16, 64, 16),       # a register per column
    (DX, True, 16, 48, 16),        # a register per row
    (SCALAR, False, 12, 48, 4),    # 3 floats per column, 12 floats in all
    (SCALAR, True, 16, 48, 4),     # 4 floats per row
])
def test_float3x4(rule: LayoutRule, row_major: bool, stride: int, size: int, alignment: int) -> None:
    lay = layout_of(matrix(FLOAT, 3, 4), rule, default_row_major=row_major)
    assert (lay.matrix_stride, lay.size, lay.alignment, lay.row_major) == (stride, size, alignment, row_major)


@pytest.mark.parametrize("rule,row_major,stride,size,alignment", [
    # float2x3 = 2 rows, 3 columns.
    (STD430, False, 8, 24, 8),     # 3 columns of float2: align 8
    (STD140, False, 16, 48, 16),   # float2 alignment rounded to 16
    (STD430, True, 16, 32, 16),    # 2 rows of float3: align 16
    (STD140, True, 16, 32, 16),
    (DX, False, 16, 48, 16),
    (SCALAR, False, 8, 24, 4),
    (SCALAR, True, 12, 24, 4),
])
def test_float2x3(rule: LayoutRule, row_major: bool, stride: int, size: int, alignment: int) -> None:
    lay = layout_of(matrix(FLOAT, 2, 3), rule, default_row_major=row_major)
    assert (lay.matrix_stride, lay.size, lay.alignment, lay.row_major) == (stride, size, alignment, row_major)


def test_double_matrix_std430() -> None:
    # double3x3 column-major: columns of double3, alignment 32 -> stride 32, size 96.
    lay = layout_of(matrix(DOUBLE, 3, 3), STD430)
    assert (lay.matrix_stride, lay.size, lay.alignment) == (32, 96, 32)


def test_field_majorness_overrides_default() -> None:
    s = struct("M",
               Field("a", matrix(FLOAT, 2, 3)),                   # default
               Field("b", matrix(FLOAT, 2, 3), row_major=True),   # 2 rows of float3
               Field("c", matrix(FLOAT, 2, 3), row_major=False))  # 3 columns of float2
    # default column-major: a 0..23 (stride 8), b at 32 (align 16, 2 * 16 = 32 bytes), c at 64.
    lay = layout_of(s, STD430)
    assert offsets(lay) == [("a", 0), ("b", 32), ("c", 64)]
    assert [(m.matrix_stride, m.row_major) for m in lay.members] == [(8, False), (16, True), (8, False)]
    assert shape(lay) == (96, 16)  # 64 + 24 = 88 -> 96
    # -Zpr: a becomes row-major (0..31), b at 32, c column-major at 64.
    lay = layout_of(s, STD430, default_row_major=True)
    assert offsets(lay) == [("a", 0), ("b", 32), ("c", 64)]
    assert [(m.matrix_stride, m.row_major) for m in lay.members] == [(16, True), (16, True), (8, False)]


def test_array_of_matrices_carries_matrix_stride() -> None:
    # float2x3[2] STD430 column-major: element size 24, alignment 8 -> stride 24, size 48.
    lay = layout_of(array(matrix(FLOAT, 2, 3), 2), STD430)
    assert (lay.array_stride, lay.size, lay.alignment, lay.matrix_stride, lay.row_major) == (24, 48, 8, 8, False)
    # STD140: element size 48, alignment 16 -> stride 48, size 96, matrix stride 16.
    lay = layout_of(array(matrix(FLOAT, 2, 3), 2), STD140)
    assert (lay.array_stride, lay.size, lay.matrix_stride) == (48, 96, 16)
    # As a row_major struct member: float3 rows, element 32 bytes.
    s = layout_of(struct("A", Field("m", array(matrix(FLOAT, 2, 3), 2), row_major=True)), STD430)
    assert (s.members[0].matrix_stride, s.members[0].row_major, s.members[0].layout.array_stride) == (16, True, 32)


# ---------------------------------------------------------------- structs


def test_nested_struct() -> None:
    inner = struct("Inner", ("v", FLOAT3))
    outer = struct("Outer", ("a", FLOAT), ("i", inner), ("b", FLOAT))
    # STD430: Inner is 12 -> 16 bytes, alignment 16; i at 16, b at 32; size 36 -> 48.
    assert shape(layout_of(inner, STD430)) == (16, 16)
    lay = layout_of(outer, STD430)
    assert offsets(lay) == [("a", 0), ("i", 16), ("b", 32)]
    assert shape(lay) == (48, 16)
    assert offsets(lay.members[1].layout) == [("v", 0)]
    # SCALAR: Inner 12 bytes alignment 4; i at 4, b at 16; size 20.
    lay = layout_of(outer, SCALAR)
    assert offsets(lay) == [("a", 0), ("i", 4), ("b", 16)]
    assert shape(lay) == (20, 4)
    # DX: Inner 12 bytes (unpadded), starts a register: i at 16; b packs after it at 28; size 32.
    assert shape(layout_of(inner, DX)) == (12, 16)
    lay = layout_of(outer, DX)
    assert offsets(lay) == [("a", 0), ("i", 16), ("b", 28)]
    assert shape(lay) == (32, 16)


def test_struct_alignment_std140_vs_std430() -> None:
    inner = struct("One", ("x", FLOAT))
    outer = struct("Holder", ("i", inner), ("b", FLOAT))
    # STD430: {float} is 4 bytes, alignment 4: b at 4, size 8.
    assert shape(layout_of(inner, STD430)) == (4, 4)
    assert offsets(layout_of(outer, STD430)) == [("i", 0), ("b", 4)]
    # STD140: struct alignment rounded to 16, size to 16: b at 16, size 32.
    assert shape(layout_of(inner, STD140)) == (16, 16)
    assert offsets(layout_of(outer, STD140)) == [("i", 0), ("b", 16)]
    assert layout_of(outer, STD140).size == 32
    # Array of it: STD430 stride 4, STD140 stride 16.
    assert layout_of(array(inner, 3), STD430).array_stride == 4
    assert layout_of(array(inner, 3), STD140).array_stride == 16


def test_member_after_struct_dx() -> None:
    # DX: {float x} is 4 bytes, unpadded: the next float packs into its register at 4.
    # (dxc's FxcCTBuffer rule: the struct's size is not rounded up to 16.)
    inner = struct("One", ("x", FLOAT))
    lay = layout_of(struct("Holder", ("a", FLOAT), ("i", inner), ("b", FLOAT)), DX)
    assert offsets(lay) == [("a", 0), ("i", 16), ("b", 20)]
    assert shape(lay) == (24, 16)


def test_inheritance_base_fields_first() -> None:
    base = struct("Base", ("p", FLOAT3))
    derived = struct("Derived", ("w", FLOAT), base=base)
    # STD430: Base is laid out whole (12 -> 16 bytes), so w starts at 16; size 20 -> 32.
    lay = layout_of(derived, STD430)
    assert offsets(lay) == [("p", 0), ("w", 16)]
    assert shape(lay) == (32, 16)
    # SCALAR: Base is 12 bytes; w at 12; size 16.
    lay = layout_of(derived, SCALAR)
    assert offsets(lay) == [("p", 0), ("w", 12)]
    assert shape(lay) == (16, 4)
    # DX: Base unpadded (12); w at 12; size 16.
    assert offsets(layout_of(derived, DX)) == [("p", 0), ("w", 12)]
    # Two levels: Leaf : Derived {float2 q;} STD430: Derived is 32 bytes -> q at 32; size 40 -> 48.
    leaf = struct("Leaf", ("q", FLOAT2), base=derived)
    lay = layout_of(leaf, STD430)
    assert offsets(lay) == [("p", 0), ("w", 16), ("q", 32)]
    assert shape(lay) == (48, 16)


def test_empty_structs() -> None:
    empty = struct("Empty")
    for rule in ALL_RULES:
        assert shape(layout_of(empty, rule)) == (0, 1)
    # An empty base is skipped: own fields start at 0.
    lay = layout_of(struct("D", ("x", FLOAT), base=empty), STD140)
    assert offsets(lay) == [("x", 0)]
    assert shape(lay) == (16, 16)


def test_scalar_rule() -> None:
    # {float3 a; float b;} -> b at 12, size 16, alignment 4.
    lay = layout_of(struct("S", ("a", FLOAT3), ("b", FLOAT)), SCALAR)
    assert offsets(lay) == [("a", 0), ("b", 12)]
    assert shape(lay) == (16, 4)
    # {double d; float f;} -> f at 8; 12 bytes rounded to alignment 8 -> 16.
    df = struct("DF", ("d", DOUBLE), ("f", FLOAT))
    lay = layout_of(df, SCALAR)
    assert offsets(lay) == [("d", 0), ("f", 8)]
    assert shape(lay) == (16, 8)
    # An array of it: stride = element size 16.
    assert layout_of(array(df, 2), SCALAR).array_stride == 16


def test_node_record_scalar_layout() -> None:
    record = struct("Record",
                    Field("grid", UINT3, semantic="SV_DispatchGrid"),
                    Field("color", FLOAT4),
                    Field("index", UINT))
    # SCALAR: grid 0..11, color at 12 (component alignment 4) .. 27, index at 28; size 32.
    lay = layout_of(record, SCALAR)
    assert offsets(lay) == [("grid", 0), ("color", 12), ("index", 28)]
    assert shape(lay) == (32, 4)
    # STD430 for contrast: color aligned to 16, index at 32; 36 -> 48.
    lay = layout_of(record, STD430)
    assert offsets(lay) == [("grid", 0), ("color", 16), ("index", 32)]
    assert shape(lay) == (48, 16)


# ---------------------------------------------------------------- no layout, caching


@pytest.mark.parametrize("type_", [
    resource(ResourceKind.RW_STRUCTURED_BUFFER, FLOAT),
    resource(ResourceKind.SAMPLER_STATE, None),
    node_object(NodeObjectKind.NODE_OUTPUT, None),
    node_object(NodeObjectKind.DISPATCH_NODE_INPUT_RECORD, struct("R", ("x", UINT))),
])
def test_no_layout(type_: Type) -> None:
    with pytest.raises(ValueError, match="has no memory layout"):
        layout_of(type_, STD430)
    with pytest.raises(ValueError, match="has no memory layout"):
        layout_of(struct("Holder", ("r", type_)), SCALAR)


def test_results_are_cached() -> None:
    s = struct("C", ("a", FLOAT), ("b", FLOAT3))
    assert layout_of(s, STD430) is layout_of(s, STD430)
    assert layout_of(matrix(FLOAT, 2, 3), STD430) is not layout_of(matrix(FLOAT, 2, 3), STD430,
                                                                   default_row_major=True)
