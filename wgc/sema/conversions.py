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

`cast_score` is dxc's own score for ranking user-function overloads (see there); the ranking above
orders intrinsic overloads.

Invariants: pure functions of their arguments; no diagnostics here (callers
report, using `Conversion.truncates` for the truncation warning). `implicit_conversion`
and `common_type` keep their answers for two scalars, vectors or matrices (types that
live for the whole process), never for a compile's structs or enums.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from wgc import types as t


class ComponentRank(enum.IntEnum):
    EXACT = 0
    PROMOTION = 1
    CONVERSION = 2


class ShapeChange(enum.IntEnum):
    NONE = 0
    SPLAT = 1
    TRUNCATION = 2


_NONE, _TRUNCATION, _EXACT_RANK = ShapeChange.NONE, ShapeChange.TRUNCATION, ComponentRank.EXACT
"""As module constants for the properties below (asked at every implicit conversion): an enum member
read through its class is a lookup at each use, dearer than a global's read."""


class Conversion(NamedTuple):
    """An implicit conversion; compare with `<` to find the better of two (smaller is better).

    A named tuple, so comparisons are plain (and fast) tuple comparisons: shape first.
    """

    shape: ShapeChange
    component: ComponentRank

    @property
    def exact(self) -> bool:
        return self.shape is _NONE and self.component is _EXACT_RANK

    @property
    def truncates(self) -> bool:
        return self.shape is _TRUNCATION


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


_SHAPE_CLASSES = (t.ScalarType, t.VectorType, t.MatrixType)
"""The types `wgc.types` keeps for good (`_SHAPES`): answers about them may be kept too, without
keeping a compile's struct or enum types alive."""
_IMPLICIT: dict[tuple[t.Type, t.Type], Conversion | None] = {}
"""`implicit_conversion`'s answers for two scalars, vectors or matrices (at most a few hundred
squared): sema asks at every operand, argument and assignment about a few pairs."""
_COMMON: dict[tuple[t.Type, t.Type], tuple[t.Type, bool] | None] = {}
"""`common_type`'s answers for two scalars, vectors or matrices (as `_IMPLICIT`)."""
_MISSING = object()


def implicit_conversion(source: t.Type, target: t.Type) -> Conversion | None:
    """The implicit conversion from `source` to `target`, or None if HLSL has none."""
    if source is target:
        return EXACT
    return _kept(_IMPLICIT, _implicit_conversion, source, target)


def _kept(table: dict[tuple[t.Type, t.Type], Any], compute: Any, a: t.Type, b: t.Type) -> Any:
    """`compute(a, b)`, kept in `table` when both are scalars, vectors or matrices (types that live
    as long as the process: a compile's structs and enums must not be kept alive)."""
    found = table.get((a, b), _MISSING)
    if found is not _MISSING:
        return found
    value = compute(a, b)
    if type(a) in _SHAPE_CLASSES and type(b) in _SHAPE_CLASSES:
        table[(a, b)] = value
    return value


def _implicit_conversion(source: t.Type, target: t.Type) -> Conversion | None:
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
    return _kept(_COMMON, _common_type, a, b)


def _common_type(a: t.Type, b: t.Type) -> tuple[t.Type, bool] | None:
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


# ---------------------------------------------------------------- dxc's overload score

# dxc ranks user-function overloads by a score per argument, summed over the arguments (and over
# the copy-back of out/inout arguments); the lowest sum wins and equal lowest sums are ambiguous
# (HLSLExternalSource::ScoreCast / ScoreFunction / GetBestViableFunction in SemaHLSL.cpp). Each
# argument's score sets one bit field per fact about the conversion, from least to most costly:
# a narrower argument widened (splat), a promotion into / out of the common type, an integer cast
# into / out of it, another cast into / out of it, and (worst) truncation. So `(int2, int)` picks
# `f(int2, int2)` (one splat) over `f(float2, float)` (casts on both arguments).

_B, _I, _F, _U, _LIT, _MIN, _PARTIAL, _ENUM = (1 << n for n in range(8))
"""dxc's basic-kind properties: boolean, integer, floating, unsigned, literal, min precision,
partial precision, enum."""

_KINDS: dict[str, tuple[int, int]] = {   # dxc's ArBasicKind -> (properties, bits; 0 for none)
    "bool": (_B | _I, 0), "literal float": (_F | _LIT, 0), "literal int": (_I | _LIT, 0),
    "float16": (_F, 16), "float32 partial": (_F | _PARTIAL, 32), "float32": (_F, 32), "float64": (_F, 64),
    "int16": (_I, 16), "uint16": (_I | _U, 16), "int32": (_I, 32), "uint32": (_I | _U, 32),
    "int64": (_I, 64), "uint64": (_I | _U, 64),
    "min10float": (_F | _MIN, 10), "min16float": (_F | _MIN, 16),
    "min12int": (_I | _MIN, 12), "min16int": (_I | _MIN, 16), "min16uint": (_I | _U | _MIN, 16),
    "enum": (_ENUM | _I, 0),
}

_PROMOTIONS: dict[str, frozenset[str]] = {   # kind -> the kinds it promotes to (dxc's IsPromotion)
    "float16": frozenset({"float32", "float32 partial", "float64"}),
    "float32 partial": frozenset({"float32", "float64"}),
    "float32": frozenset({"float64"}),
    "min10float": frozenset({"min16float", "float16", "float32", "float32 partial", "float64"}),
    "min16float": frozenset({"float16", "float32", "float32 partial", "float64"}),
    "int16": frozenset({"int32", "int64", "uint32", "uint64"}),
    "uint16": frozenset({"int32", "int64", "uint32", "uint64"}),
    "int32": frozenset({"int64", "uint64"}),
    "uint32": frozenset({"int64", "uint64"}),
    "min12int": frozenset({"min16int", "int32", "int64"}),
    "min16int": frozenset({"int32", "int64"}),
    "min16uint": frozenset({"uint32", "uint64"}),
}

_FLOATS = frozenset({"float16", "float32 partial", "float32", "float64"})
_INTS = frozenset({"int16", "uint16", "int32", "uint32", "int64", "uint64"})
_NOT_CASTS: dict[str, frozenset[str]] = {   # kind -> kinds that are no cast from it (dxc's IsCast)
    "literal int": _INTS,
    "int16": frozenset({"literal int", "uint16"}), "uint16": frozenset({"literal int", "int16"}),
    "int32": frozenset({"literal int", "uint32"}), "uint32": frozenset({"literal int", "int32"}),
    "int64": frozenset({"literal int", "uint64"}), "uint64": frozenset({"literal int", "int64"}),
    "literal float": _FLOATS | {"literal float"},
    **{kind: frozenset({"literal float"}) for kind in _FLOATS},
}
_NOT_INT_CASTS: dict[str, frozenset[str]] = {   # dxc's IsIntCast
    "literal int": _INTS,
    **{kind: frozenset({"literal int"}) for kind in _INTS},
    "literal float": _FLOATS | {"literal float"},
    **{kind: frozenset({"literal float"}) for kind in _FLOATS},
}


def _dxc_kind(type_: t.Type, literal: bool) -> str | None:
    if isinstance(type_, t.EnumType):
        return "enum"
    scalar = t.element_scalar(type_)
    if scalar is None:
        return None
    if scalar.kind is t.ScalarKind.BOOL:
        return "bool"
    if literal:
        return "literal float" if scalar.is_float else "literal int"
    if scalar.relaxed:
        return scalar.spelling
    if scalar.is_float:
        return "float32 partial" if scalar.spelling == "half" else f"float{scalar.bits}"
    return f"{'u' if scalar.kind is t.ScalarKind.UINT else ''}int{scalar.bits}"


def _combine(left: str, right: str) -> str:
    """The kind both combine to (dxc's CombineBasicTypes, for the kinds wgc has)."""
    if left == right:
        return left
    (lprops, lbits), (rprops, rbits) = _KINDS[left], _KINDS[right]
    bits, both, either = max(lbits, rbits), lprops & rprops, lprops | rprops
    if both & _B:
        return "bool"
    floating = bool(either & _F)
    if both & _LIT:
        return "literal float" if floating else "literal int"
    flags = (both & (_I | _MIN | _PARTIAL)) | (either & _F) | (0 if floating else either & _U)
    if either & (_LIT | _B | _ENUM):
        flags |= either & (_MIN | _PARTIAL)
    if flags & _PARTIAL:
        return "float32 partial"
    if floating and not both & _F:
        flags, bits = (lprops, lbits) if lprops & _F else (rprops, rbits)
    minimum = bool(flags & _MIN)
    bits = bits or 32
    if floating:
        return {10: "min10float", 16: "min16float" if minimum else "float16", 32: "float32", 64: "float64"}[bits]
    unsigned = bool(flags & _U)
    if bits == 12:
        return "min12int"
    if bits == 16:
        return ("min16uint" if unsigned else "min16int") if minimum else ("uint16" if unsigned else "int16")
    return f"{'u' if unsigned else ''}int{bits}"


def _components(type_: t.Type) -> int:
    shape = _shape(type_)
    return 1 if shape is None else shape[0] * shape[1]


def cast_score(target: t.Type, source: t.Type, literal: bool = False) -> int:
    """dxc's score of converting a `source` value (an unsuffixed literal if `literal`) to `target`:
    0 for the same type, higher is worse (see above); only for types `implicit_conversion` allows."""
    if target is source and not literal:
        return 0
    left, right = _dxc_kind(target, False), _dxc_kind(source, literal)
    if left is None or right is None:
        return 0 if target is source else 1 << (2 + 7 * 6)
    combined = _combine(left, right)
    left_promotion = left in _PROMOTIONS.get(combined, ())      # the common kind promotes to the target's
    left_cast = not left_promotion and left != combined and combined not in _NOT_CASTS.get(left, ())
    left_int_cast = not left_promotion and not left_cast and left != combined \
        and combined not in _NOT_INT_CASTS.get(left, ())
    right_promotion = combined in _PROMOTIONS.get(right, ())    # the source's kind promotes to the common
    right_cast = not right_promotion and combined != right and right not in _NOT_CASTS.get(combined, ())
    right_int_cast = not right_promotion and not right_cast and combined != right \
        and right not in _NOT_INT_CASTS.get(combined, ())
    target_size, source_size = _components(target), _components(source)
    facts = (source_size < target_size, left_promotion, right_promotion, left_int_cast, right_int_cast,
             left_cast, right_cast, target_size < source_size)
    return sum(1 << (2 + 7 * shift) for shift, fact in enumerate(facts) if fact)
