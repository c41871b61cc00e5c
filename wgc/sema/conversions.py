"""Semantic analysis, conversions: HLSL's implicit conversions, their ranking, and the
common type of binary arithmetic.

Input: two interned types (`wgc.types`).  Output: a `Conversion` describing
whether and how the first converts implicitly to the second, comparable for
overload resolution; or the common type of two operands.

Ranking (best first), as dxc orders implicit conversion sequences for HLSL:
1. exact — the same type;
2. promotion — same kind of component, at least as wide (half → float,
   float → double, int16_t → int, min16float → float);
3. conversion — any other numeric component change (int ↔ uint, int → float,
   float → int, bool ↔ numeric, an unscoped enum → its integer);
and, dominating the component rank, the change of shape:
a. none — same shape;
b. splat — a scalar widened to a vector or matrix;
c. truncation — a vector or matrix narrowed (`float4` → `float3`, `float3` →
   `float`): allowed, with a warning at the use site.

Invariants: pure functions of their arguments; no diagnostics here (callers
report, using `Conversion.truncates` for the truncation warning).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from wgc import types as t


class ComponentRank(enum.IntEnum):
    EXACT = 0
    PROMOTION = 1
    CONVERSION = 2


class ShapeChange(enum.IntEnum):
    NONE = 0
    SPLAT = 1
    TRUNCATION = 2


class Conversion(NamedTuple):
    """An implicit conversion; compare with `<` to find the better of two (smaller is better).

    A named tuple, so comparisons are plain (and fast) tuple comparisons: shape first.
    """

    shape: ShapeChange
    component: ComponentRank

    @property
    def exact(self) -> bool:
        return self.shape is ShapeChange.NONE and self.component is ComponentRank.EXACT

    @property
    def truncates(self) -> bool:
        return self.shape is ShapeChange.TRUNCATION


EXACT = Conversion(ShapeChange.NONE, ComponentRank.EXACT)

_KIND_ORDER = {t.ScalarKind.BOOL: 0, t.ScalarKind.INT: 1, t.ScalarKind.UINT: 2, t.ScalarKind.FLOAT: 3}


def component_rank(source: t.ScalarType, target: t.ScalarType) -> ComponentRank:
    """How one scalar converts to another (every scalar converts to every scalar)."""
    if source is target:
        return ComponentRank.EXACT
    if source.kind is target.kind and source.kind is not t.ScalarKind.BOOL and target.bits >= source.bits:
        return ComponentRank.PROMOTION
    return ComponentRank.CONVERSION


def _shape(type_: t.Type) -> tuple[int, int] | None:
    """(rows, columns) of a numeric type: scalar (1, 1), vector (1, n), matrix (r, c)."""
    if isinstance(type_, (t.ScalarType, t.EnumType)):
        return (1, 1)
    if isinstance(type_, t.VectorType):
        return (1, type_.count)
    if isinstance(type_, t.MatrixType):
        return (type_.rows, type_.columns)
    return None


def _shape_change(source: t.Type, target: t.Type) -> ShapeChange | None:
    src, dst = _shape(source), _shape(target)
    if src is None or dst is None:
        return None
    if src == dst:
        return ShapeChange.NONE
    if src == (1, 1):
        return ShapeChange.SPLAT
    if isinstance(source, t.VectorType) and isinstance(target, t.MatrixType):
        # float4 -> float1x4 / float4x1 keep every component
        return ShapeChange.NONE if dst in ((1, source.count), (source.count, 1)) else None
    if isinstance(source, t.MatrixType) and isinstance(target, t.VectorType):
        return ShapeChange.NONE if src in ((1, target.count), (target.count, 1)) else None
    if dst == (1, 1):
        return ShapeChange.TRUNCATION
    if isinstance(source, t.VectorType) and isinstance(target, t.VectorType):
        return ShapeChange.TRUNCATION if target.count < source.count else None
    if isinstance(source, t.MatrixType) and isinstance(target, t.MatrixType):
        if target.rows <= source.rows and target.columns <= source.columns:
            return ShapeChange.TRUNCATION
    return None


def implicit_conversion(source: t.Type, target: t.Type) -> Conversion | None:
    """The implicit conversion from `source` to `target`, or None if HLSL has none."""
    if source is target:
        return EXACT
    if isinstance(source, t.EnumType) and source.scoped:
        return None
    source_scalar, target_scalar = t.element_scalar(source), t.element_scalar(target)
    if source_scalar is None or target_scalar is None or isinstance(target, t.EnumType):
        return None
    shape = _shape_change(source, target)
    if shape is None:
        return None
    rank = component_rank(source_scalar, target_scalar)
    if isinstance(source, t.EnumType):
        rank = ComponentRank.CONVERSION
    return Conversion(shape, rank)


def _reduced(scalar: t.ScalarType) -> bool:
    """`half` or a min-precision type that is 32-bit on this target (dxc: float wins over them)."""
    return scalar.relaxed or scalar.spelling == "half"


def arithmetic_scalar(a: t.ScalarType, b: t.ScalarType) -> t.ScalarType:
    """The component type of `a op b`: the higher kind (bool < int < uint < float), then the wider.

    Arithmetic on bool happens in int, as in HLSL.
    """
    if _KIND_ORDER[a.kind] != _KIND_ORDER[b.kind]:
        winner = a if _KIND_ORDER[a.kind] > _KIND_ORDER[b.kind] else b
    elif a.bits != b.bits:
        winner = a if a.bits > b.bits else b
    else:
        # equal widths: the full-precision type wins over 32-bit `half` and the min-precision types
        winner = b if _reduced(a) and not _reduced(b) else a
    if winner.kind is t.ScalarKind.BOOL:
        return t.INT
    return winner


def common_type(a: t.Type, b: t.Type) -> tuple[t.Type, bool] | None:
    """The type both operands of a binary arithmetic operator convert to, and whether a
    vector or matrix operand is truncated to get there (dxc warns about that).

    None when the operands are not both numeric or their shapes cannot meet.
    """
    scalar_a, scalar_b = t.element_scalar(a), t.element_scalar(b)
    if scalar_a is None or scalar_b is None:
        return None
    scalar = arithmetic_scalar(scalar_a, scalar_b)
    shape_a, shape_b = _shape(a), _shape(b)
    assert shape_a is not None and shape_b is not None
    if shape_a == (1, 1):
        return t.with_element(b, scalar) if shape_b != (1, 1) else scalar, False
    if shape_b == (1, 1) or type(a) is type(b) and shape_a == shape_b:
        return t.with_element(a, scalar), False
    if isinstance(a, t.VectorType) and isinstance(b, t.VectorType):
        return t.vector(scalar, min(a.count, b.count)), True
    if isinstance(a, t.MatrixType) and isinstance(b, t.MatrixType):
        return t.matrix(scalar, min(a.rows, b.rows), min(a.columns, b.columns)), True
    vector_, matrix_ = (a, b) if isinstance(a, t.VectorType) else (b, a)
    if isinstance(vector_, t.VectorType) and isinstance(matrix_, t.MatrixType):
        if (matrix_.rows, matrix_.columns) in ((1, vector_.count), (vector_.count, 1)):
            return t.vector(scalar, vector_.count), False
    return None
