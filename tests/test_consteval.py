"""Constant evaluation over the typed IR: values, wrap-around problems and non-constant spans."""

from __future__ import annotations

import itertools
import math

import pytest

from wgc import ir
from wgc import types as t
from wgc.irtools.consteval import Folded, NotConstant, Problem, convert_value, fold
from wgc.source import SourceFile, Span

FILE = SourceFile("consteval.hlsl", " " * 10_000)
_offsets = itertools.count(0, 2)

I16, U16 = t.scalar(t.ScalarKind.INT, 16), t.scalar(t.ScalarKind.UINT, 16)
HALF16 = t.scalar(t.ScalarKind.FLOAT, 16)
F2, F3, F4 = (t.vector(t.FLOAT, n) for n in (2, 3, 4))
I2, I3, B2, B3 = t.vector(t.INT, 2), t.vector(t.INT, 3), t.vector(t.BOOL, 2), t.vector(t.BOOL, 3)
U2 = t.vector(t.UINT, 2)
INT_MAX, INT_MIN = 2**31 - 1, -2**31


# ---------------------------------------------------------------- IR builders


def span() -> Span:
    """A fresh, distinct span for each node, so tests can tell which node a result points at."""
    start = next(_offsets)
    return Span(FILE, start, start + 1)


def const(value, type_: t.Type = t.INT) -> ir.Constant:
    return ir.Constant(type_, span(), value=value)


def var(name: str, type_: t.Type = t.INT, constant=None) -> ir.VarRef:
    variable = ir.Variable(name, type_, ir.Storage.STATIC, span(), const=constant is not None, constant=constant)
    return ir.VarRef(type_, span(), variable=variable)


def _bool_shape(type_: t.Type) -> t.Type:
    return t.with_element(type_, t.BOOL)


def binary(op: str, left: ir.Expr, right: ir.Expr) -> ir.Binary:
    logical = op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||")
    return ir.Binary(_bool_shape(left.type) if logical else left.type, span(), op=op, left=left, right=right)


def unary(op: str, operand: ir.Expr) -> ir.Unary:
    return ir.Unary(operand.type, span(), op=op, operand=operand)


def convert(operand: ir.Expr, type_: t.Type) -> ir.Convert:
    return ir.Convert(type_, span(), operand=operand)


def construct(type_: t.Type, *args: ir.Expr) -> ir.Construct:
    return ir.Construct(type_, span(), args=args)


def vec(type_: t.VectorType, *values) -> ir.Construct:
    return construct(type_, *(const(v, type_.element) for v in values))


def intrinsic(name: str, type_: t.Type, *args: ir.Expr) -> ir.IntrinsicCall:
    return ir.IntrinsicCall(type_, span(), name=name, args=args)


def value_of(expr: ir.Expr):
    """The folded value of an expression expected to fold without problems."""
    result = fold(expr)
    assert isinstance(result, Folded), result
    assert result.problems == (), result.problems
    return result.value


def problems_of(expr: ir.Expr) -> tuple[object, tuple[Problem, ...]]:
    result = fold(expr)
    assert isinstance(result, Folded), result
    return result.value, result.problems


# ---------------------------------------------------------------- integers


def test_signed_overflow_wraps_and_is_reported_at_the_operation():
    add = binary("+", const(INT_MAX), const(1))
    value, problems = problems_of(add)
    assert value == INT_MIN
    assert problems == (Problem("overflow", add.span, "overflow in constant expression: 2147483647 + 1 does not "
                                                      "fit in 'int' (result wraps to -2147483648)"),)


def test_signed_multiplication_and_negation_overflow():
    value, problems = problems_of(binary("*", const(65536), const(65536)))
    assert value == 0 and [p.kind for p in problems] == ["overflow"]
    negate = unary("-", const(INT_MIN))
    value, problems = problems_of(negate)
    assert value == INT_MIN and problems[0].span == negate.span
    assert problems[0].message == ("overflow in constant expression: -(-2147483648) does not fit in 'int' "
                                   "(result wraps to -2147483648)")


def test_unsigned_wrap_is_silent():
    assert value_of(binary("-", const(0, t.UINT), const(1, t.UINT))) == 2**32 - 1
    assert value_of(binary("+", const(2**32 - 1, t.UINT), const(2, t.UINT))) == 1
    assert value_of(unary("-", const(1, t.UINT))) == 2**32 - 1
    assert value_of(binary("*", const(2**63, t.UINT64), const(2, t.UINT64))) == 0


@pytest.mark.parametrize("a,b,quotient,remainder", [
    (7, 2, 3, 1), (-7, 2, -3, -1), (7, -2, -3, 1), (-7, -2, 3, -1), (-1, 5, 0, -1),
])
def test_signed_division_truncates_toward_zero_and_remainder_follows_the_dividend(a, b, quotient, remainder):
    assert value_of(binary("/", const(a), const(b))) == quotient
    assert value_of(binary("%", const(a), const(b))) == remainder


def test_integer_division_by_zero_is_reported_and_yields_zero():
    for op in ("/", "%"):
        division = binary(op, const(5), const(0))
        value, problems = problems_of(division)
        assert value == 0
        assert problems == (Problem("division-by-zero", division.span, "division by zero in constant expression"),)
    assert problems_of(binary("/", const(5, t.UINT), const(0, t.UINT)))[1][0].kind == "division-by-zero"


def test_int_min_divided_by_minus_one_overflows():
    value, problems = problems_of(binary("/", const(INT_MIN), const(-1)))
    assert value == INT_MIN and [p.kind for p in problems] == ["overflow"]
    value, problems = problems_of(binary("%", const(INT_MIN), const(-1)))
    assert value == 0 and [p.kind for p in problems] == ["overflow"]


def test_shift_amounts_are_masked_to_the_width_silently():
    assert value_of(binary("<<", const(1), const(33))) == 2
    assert value_of(binary("<<", const(1, t.INT64), const(65, t.INT64))) == 2
    assert value_of(binary("<<", const(1), const(31))) == INT_MIN  # no overflow report for shifts
    assert value_of(binary(">>", const(-8), const(1))) == -4  # arithmetic on int
    assert value_of(binary(">>", const(2**32 - 8, t.UINT), const(1, t.UINT))) == 2**31 - 4  # logical on uint
    assert value_of(binary("<<", const(1, U16), const(17, U16))) == 2


def test_bitwise_operators():
    assert value_of(binary("&", const(0b1100), const(0b1010))) == 0b1000
    assert value_of(binary("|", const(0b1100), const(0b1010))) == 0b1110
    assert value_of(binary("^", const(0b1100), const(0b1010))) == 0b0110
    assert value_of(unary("~", const(0))) == -1
    assert value_of(unary("~", const(0, t.UINT))) == 2**32 - 1


def test_64_bit_integers():
    assert value_of(binary("*", const(2**32, t.INT64), const(2**20, t.INT64))) == 2**52
    value, problems = problems_of(binary("+", const(2**63 - 1, t.INT64), const(1, t.INT64)))
    assert value == -2**63 and "does not fit in 'int64_t'" in problems[0].message
    assert value_of(binary("-", const(0, t.UINT64), const(1, t.UINT64))) == 2**64 - 1


def test_16_bit_integers_wrap():
    value, problems = problems_of(binary("+", const(32767, I16), const(1, I16)))
    assert value == -32768 and [p.kind for p in problems] == ["overflow"]
    assert "does not fit in 'int16_t'" in problems[0].message
    assert value_of(binary("+", const(65535, U16), const(1, U16))) == 0


def test_comparisons_yield_bool():
    assert value_of(binary("<", const(-1), const(1))) is True
    assert value_of(binary("<", const(2**32 - 1, t.UINT), const(1, t.UINT))) is False
    assert value_of(binary("==", const(0.5, t.FLOAT), const(0.5, t.FLOAT))) is True
    assert value_of(binary("!=", const(math.nan, t.FLOAT), const(math.nan, t.FLOAT))) is True


def test_logical_operators_short_circuit_problems_but_require_constants():
    overflow = binary("+", const(INT_MAX), const(1))
    skipped = binary("&&", const(False, t.BOOL), binary("==", overflow, const(0)))
    assert problems_of(skipped) == (False, ())
    taken = binary("||", const(False, t.BOOL), binary("==", overflow, const(0)))
    assert problems_of(taken)[1][0].span == overflow.span
    x = var("x", t.BOOL)
    assert fold(binary("||", const(True, t.BOOL), x)) == NotConstant(x.span, "'x' is not a constant")
    assert value_of(binary("&&", const(True, t.BOOL), const(True, t.BOOL))) is True


# ---------------------------------------------------------------- floats


def test_float32_results_are_rounded():
    assert value_of(const(0.1, t.FLOAT)) == 0.10000000149011612
    assert value_of(const(0.1, t.DOUBLE)) == 0.1
    assert value_of(binary("+", const(0.1, t.FLOAT), const(0.2, t.FLOAT))) == 0.30000001192092896
    assert value_of(binary("+", const(16777216.0, t.FLOAT), const(1.0, t.FLOAT))) == 16777216.0
    assert value_of(binary("*", const(3e38, t.FLOAT), const(10.0, t.FLOAT))) == math.inf


def test_half_results_are_rounded_to_16_bits():
    assert value_of(const(0.1, HALF16)) == 0.0999755859375
    assert value_of(binary("+", const(2048.0, HALF16), const(1.0, HALF16))) == 2048.0
    assert value_of(binary("*", const(60000.0, HALF16), const(2.0, HALF16))) == math.inf


def test_float_division_by_zero_is_ieee_without_problems():
    assert value_of(binary("/", const(1.0, t.FLOAT), const(0.0, t.FLOAT))) == math.inf
    assert value_of(binary("/", const(-1.0, t.FLOAT), const(0.0, t.FLOAT))) == -math.inf
    assert math.isnan(value_of(binary("/", const(0.0, t.FLOAT), const(0.0, t.FLOAT))))
    assert math.isnan(value_of(binary("%", const(1.0, t.FLOAT), const(0.0, t.FLOAT))))
    assert value_of(binary("%", const(-7.5, t.FLOAT), const(2.0, t.FLOAT))) == -1.5


# ---------------------------------------------------------------- conversions


@pytest.mark.parametrize("value,target,expected", [
    (3.9, t.INT, 3), (-3.9, t.INT, -3), (-0.5, t.INT, 0), (4294967296.5, t.INT, 0), (-1.0, t.UINT, 2**32 - 1),
    (math.nan, t.INT, 0), (2.5, t.BOOL, True), (0.0, t.BOOL, False), (-0.0, t.BOOL, False),
])
def test_float_to_int_and_bool(value, target, expected):
    result = value_of(convert(const(value, t.DOUBLE), target))
    assert result == expected and type(result) is type(expected)


def test_bool_and_integer_conversions():
    assert value_of(convert(const(True, t.BOOL), t.INT)) == 1
    assert value_of(convert(const(True, t.BOOL), t.FLOAT)) == 1.0
    assert value_of(convert(const(-7), t.BOOL)) is True
    assert value_of(convert(const(0, t.UINT), t.BOOL)) is False
    assert value_of(convert(const(-1), t.UINT)) == 2**32 - 1
    assert value_of(convert(const(2**32 - 1, t.UINT), t.INT)) == -1
    assert value_of(convert(const(70000), I16)) == 4464
    assert value_of(convert(const(16777217), t.FLOAT)) == 16777216.0
    assert value_of(convert(const(2**63 - 1, t.INT64), t.FLOAT)) == 2.0**63
    assert value_of(convert(const(2**60 + 2**36 + 1, t.INT64), t.FLOAT)) == 2.0**60 + 2**37  # one rounding


def test_enums_fold_as_their_underlying_integer():
    color = t.EnumType("Color", t.UINT, scoped=True, members={"Red": 0, "Blue": 4})
    assert value_of(binary("+", convert(const(4, color), t.UINT), const(1, t.UINT))) == 5
    assert value_of(convert(const(-1), color)) == 2**32 - 1


def test_vector_splat_truncation_and_component_change():
    assert value_of(convert(const(2), F3)) == (2.0, 2.0, 2.0)
    assert value_of(convert(vec(F4, 1.5, 2.5, 3.5, 4.5), I2)) == (1, 2)
    assert value_of(convert(vec(F3, 1.5, 2.5, 3.5), t.FLOAT)) == 1.5
    assert value_of(convert(vec(t.vector(t.FLOAT, 1), 7.0), F2)) == (7.0, 7.0)


def test_matrix_conversions():
    m33, m22 = t.matrix(t.FLOAT, 3, 3), t.matrix(t.INT, 2, 2)
    nine = construct(m33, *(const(float(i), t.FLOAT) for i in range(9)))
    assert value_of(convert(nine, m22)) == (0, 1, 3, 4)  # top-left block, row-major
    assert value_of(convert(const(1), m22)) == (1, 1, 1, 1)
    assert value_of(convert(vec(F3, 1, 2, 3), t.matrix(t.FLOAT, 1, 3))) == (1.0, 2.0, 3.0)
    assert value_of(convert(construct(t.matrix(t.FLOAT, 3, 1), *(const(v, t.FLOAT) for v in (4, 5, 6))), F3)) == (
        4.0, 5.0, 6.0)


def test_convert_value_aggregates():
    base = t.StructType("Base", fields=[t.Field("a", t.INT)])
    derived = t.StructType("Derived", base=base, fields=[t.Field("b", F2)])
    assert convert_value(0, t.INT, derived) == (0, (0.0, 0.0))
    assert convert_value((5, (1.0, 2.0)), derived, base) == (5,)
    assert convert_value(1, t.INT, t.array(I2, 2)) == ((1, 1), (1, 1))
    with pytest.raises(ValueError):
        convert_value((1, 2), I2, F4)


# ---------------------------------------------------------------- vectors, select, aggregates


def test_componentwise_vector_operations():
    assert value_of(binary("+", vec(I3, 1, 2, 3), vec(I3, 10, 20, 30))) == (11, 22, 33)
    assert value_of(binary("<", vec(I3, 1, 5, 3), vec(I3, 2, 2, 3))) == (True, False, False)
    assert value_of(unary("-", vec(F2, 1.0, -2.0))) == (-1.0, 2.0)
    assert value_of(unary("!", vec(B2, True, False))) == (False, True)
    value, problems = problems_of(binary("+", vec(I2, INT_MAX, 0), vec(I2, 1, 1)))
    assert value == (INT_MIN, 1) and len(problems) == 1


def test_swizzles():
    v = vec(F4, 1.0, 2.0, 3.0, 4.0)
    assert value_of(ir.Swizzle(F3, span(), base=v, components=(3, 0, 0))) == (4.0, 1.0, 1.0)
    assert value_of(ir.Swizzle(t.FLOAT, span(), base=v, components=(1,))) == 2.0
    assert value_of(ir.Swizzle(I3, span(), base=const(7), components=(0, 0, 0))) == (7, 7, 7)
    m = construct(t.matrix(t.INT, 2, 2), *(const(i) for i in (1, 2, 3, 4)))
    assert value_of(ir.Swizzle(I2, span(), base=m, components=((0, 1), (1, 0)))) == (2, 3)


def test_select_scalar_and_vector_condition():
    overflow = binary("+", const(INT_MAX), const(1))
    assert problems_of(ir.Select(t.INT, span(), cond=const(True, t.BOOL), then=const(1), else_=overflow)) == (1, ())
    chosen = ir.Select(t.INT, span(), cond=const(False, t.BOOL), then=const(1), else_=overflow)
    assert problems_of(chosen)[1][0].span == overflow.span
    select = ir.Select(I3, span(), cond=vec(B3, True, False, True), then=vec(I3, 1, 2, 3), else_=vec(I3, 7, 8, 9))
    assert value_of(select) == (1, 8, 3)


def test_comma_index_field_access_and_intrinsics():
    assert value_of(ir.Comma(t.INT, span(), left=const(1), right=const(2))) == 2
    array = construct(t.array(t.INT, 3), const(10), const(20), const(30))
    assert value_of(ir.Index(t.INT, span(), base=array, index=const(2))) == 30
    out_of_range = ir.Index(t.INT, span(), base=array, index=const(3))
    assert fold(out_of_range) == NotConstant(out_of_range.index.span, "index 3 is out of range")
    row = ir.Index(I2, span(), base=construct(t.matrix(t.INT, 2, 2), *map(const, (1, 2, 3, 4))), index=const(1))
    assert value_of(row) == (3, 4)
    s = t.StructType("S", fields=[t.Field("a", t.INT), t.Field("b", F2)])
    built = construct(s, const(5), vec(F2, 1.0, 2.0))
    assert value_of(built) == (5, (1.0, 2.0))
    assert value_of(ir.FieldAccess(F2, span(), base=built, index=1, name="b")) == (1.0, 2.0)
    assert value_of(intrinsic("clamp", t.INT, const(9), const(0), const(5))) == 5
    assert value_of(intrinsic("max", F2, vec(F2, 1.0, 5.0), vec(F2, 3.0, 2.0))) == (3.0, 5.0)
    assert value_of(intrinsic("min", t.FLOAT, const(math.nan, t.FLOAT), const(2.0, t.FLOAT))) == 2.0
    assert value_of(intrinsic("saturate", F2, vec(F2, -1.0, 0.25))) == (0.0, 0.25)
    assert value_of(intrinsic("sign", I2, vec(F2, -3.0, 0.0))) == (-1, 0)
    assert value_of(intrinsic("abs", t.INT, const(-4))) == 4


# ---------------------------------------------------------------- static consts and non-constants


def test_static_const_variables_fold():
    n = var("N", t.UINT, constant=8)
    assert value_of(binary("*", n, const(4, t.UINT))) == 32
    zero = var("Zero", t.INT, constant=0)
    assert value_of(zero) == 0


def test_non_constant_span_points_at_the_deep_variable():
    x = var("x")
    deep = binary("+", const(1), unary("-", convert(binary("*", const(2.0, t.FLOAT), convert(x, t.FLOAT)), t.INT)))
    assert fold(deep) == NotConstant(x.span, "'x' is not a constant")
    first = var("first")
    both = binary("+", first, var("second"))
    assert fold(both).span == first.span


@pytest.mark.parametrize("make,reason", [
    (lambda: ir.Call(t.INT, span(), function=None, args=()), "a function call is not a constant expression"),
    (lambda: intrinsic("dot", t.FLOAT, vec(F2, 1, 2), vec(F2, 3, 4)), "a call of 'dot' is not a constant expression"),
    (lambda: ir.Assign(t.INT, span(), target=var("y"), value=const(1)), "an assignment is not a constant expression"),
    (lambda: ir.IncDec(t.INT, span(), target=var("y")), "an increment or decrement is not a constant expression"),
])
def test_non_constant_expressions(make, reason):
    expr = make()
    assert fold(binary("+", const(1), expr)) == NotConstant(expr.span, reason)


def test_a_new_ray_query_is_no_constant():
    """A `RayQuery<F>()` is an object, not a value: folding it gave `()`, which `settle_statics` then
    stored as the `settled` value of `static RayQuery<0> q = RayQuery<0>();` (found by
    `wgc.ir_verify`; `ir.Variable.settled` is "a constant initialiser" of the variable's type)."""
    result = fold(ir.Construct(t.ray_query(0), span(), ()))
    assert isinstance(result, NotConstant) and "RayQuery" in result.reason
