"""HLSL implicit conversions: ranking for overload resolution and the common type of operands."""

from __future__ import annotations

import pytest

from wgc import types as t
from wgc.sema.conversions import (
    EXACT,
    ComponentRank,
    Conversion,
    ShapeChange,
    common_type,
    implicit_conversion,
)

HALF = t.scalar_named("half", enable_16bit_types=False)
HALF16 = t.scalar_named("half", enable_16bit_types=True)
MIN16 = t.scalar_named("min16float", enable_16bit_types=False)
F3, F4, I3, U2 = t.vector(t.FLOAT, 3), t.vector(t.FLOAT, 4), t.vector(t.INT, 3), t.vector(t.UINT, 2)
M44, M33, M14 = t.matrix(t.FLOAT, 4, 4), t.matrix(t.FLOAT, 3, 3), t.matrix(t.FLOAT, 1, 4)


def test_types_are_interned_and_aliases_are_one_type():
    assert t.vector(t.FLOAT, 3) is F3
    assert t.scalar_named("dword", False) is t.UINT and t.scalar_named("int32_t", False) is t.INT
    assert t.scalar_named("float16_t", True) is HALF16 and HALF16.bits == 16
    assert HALF.bits == 32 and HALF is not t.FLOAT and str(HALF) == "half"
    assert MIN16.relaxed and MIN16.bits == 32 and t.scalar_named("min16float", True) is HALF16


@pytest.mark.parametrize("source,target,expected", [
    (t.FLOAT, t.FLOAT, EXACT),
    (HALF16, t.FLOAT, Conversion(ShapeChange.NONE, ComponentRank.PROMOTION)),
    (t.FLOAT, t.DOUBLE, Conversion(ShapeChange.NONE, ComponentRank.PROMOTION)),
    (MIN16, t.FLOAT, Conversion(ShapeChange.NONE, ComponentRank.PROMOTION)),
    (t.DOUBLE, t.FLOAT, Conversion(ShapeChange.NONE, ComponentRank.CONVERSION)),
    (t.INT, t.UINT, Conversion(ShapeChange.NONE, ComponentRank.CONVERSION)),
    (t.BOOL, t.INT, Conversion(ShapeChange.NONE, ComponentRank.CONVERSION)),
    (t.INT, F3, Conversion(ShapeChange.SPLAT, ComponentRank.CONVERSION)),
    (t.FLOAT, M44, Conversion(ShapeChange.SPLAT, ComponentRank.EXACT)),
    (F4, F3, Conversion(ShapeChange.TRUNCATION, ComponentRank.EXACT)),
    (F3, t.FLOAT, Conversion(ShapeChange.TRUNCATION, ComponentRank.EXACT)),
    (I3, F3, Conversion(ShapeChange.NONE, ComponentRank.CONVERSION)),
    (M44, M33, Conversion(ShapeChange.TRUNCATION, ComponentRank.EXACT)),
    (F4, M14, Conversion(ShapeChange.NONE, ComponentRank.EXACT)),
])
def test_conversion_ranks(source, target, expected):
    assert implicit_conversion(source, target) == expected


@pytest.mark.parametrize("source,target", [
    (F3, F4),          # no widening of vectors
    (M33, M44),
    (F3, M33),
    (t.FLOAT, t.array(t.FLOAT, 2)),
    (t.resource(t.ResourceKind.BUFFER, t.FLOAT), t.FLOAT),
])
def test_no_conversion(source, target):
    assert implicit_conversion(source, target) is None


def test_ranking_prefers_same_shape_then_better_components():
    promote = implicit_conversion(HALF16, t.FLOAT)
    convert = implicit_conversion(t.INT, t.FLOAT)
    splat = implicit_conversion(t.FLOAT, F3)
    truncate = implicit_conversion(F4, F3)
    assert EXACT < promote < convert < splat < truncate
    assert truncate.truncates and not splat.truncates and EXACT.exact


def test_enums():
    plain = t.EnumType("E", t.INT, scoped=False)
    scoped = t.EnumType("S", t.UINT, scoped=True)
    assert implicit_conversion(plain, t.INT) == Conversion(ShapeChange.NONE, ComponentRank.CONVERSION)
    assert implicit_conversion(scoped, t.UINT) is None
    assert implicit_conversion(t.INT, plain) is None


@pytest.mark.parametrize("a,b,expected,truncated", [
    (t.INT, t.FLOAT, t.FLOAT, False),
    (t.INT, t.UINT, t.UINT, False),
    (t.BOOL, t.BOOL, t.INT, False),
    (t.FLOAT, t.DOUBLE, t.DOUBLE, False),
    (HALF16, t.FLOAT, t.FLOAT, False),
    (t.FLOAT, I3, F3, False),
    (F4, F3, F3, True),
    (U2, t.vector(t.INT, 4), U2, True),
    (M44, M33, M33, True),
    (F4, M14, F4, False),
])
def test_common_type(a, b, expected, truncated):
    assert common_type(a, b) == (expected, truncated)
    assert common_type(b, a) == (expected, truncated)


def test_common_type_of_non_numeric_is_none():
    assert common_type(t.FLOAT, t.array(t.FLOAT, 2)) is None
    assert common_type(F3, M33) is None
