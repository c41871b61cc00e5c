"""IR helper, constant evaluation: the value of a typed IR expression.

Stage: below sema (imports only `wgc.ir` and `wgc.types`); sema folds where HLSL needs a
constant, the SPIR-V back end folds operands it emits as constants.

Input: an `ir.Expr` built by semantic analysis (operand types already explicit:
every implicit conversion is a `Convert`, a `Binary`'s operands share one type).
Output: `Folded` (the value plus any `Problem`s met while computing it) or
`NotConstant` (the first sub-expression that has no constant value, and why).
Sema asks where HLSL requires a constant (array sizes, attribute arguments,
`static const` initialisers, case labels, template arguments) and, opportunistically,
elsewhere (constant indices). `optimized=True` asks for a constant after optimisation
instead (Barrier flags, texel offsets: DXC needs them only in the optimised DXIL): a
`static` global that nothing writes then has its initialiser's value (`ir.Variable.settled`).
`spec_defaults=True` reads a specialization constant (`[[vk::constant_id]]`) as its default value,
and a `static const` initialised from one as its initialiser with those defaults (as DXC folds
them): the arguments of the work-graph attributes (`sema.stmt`).

Values (`ir.ConstValue`): bool / int / float for scalars and enums (their underlying
integer); a tuple of scalars for vectors (float1 is a 1-tuple) and matrices
(row-major); a tuple of element values for arrays and of field values (base
fields first) for structs.

Invariants:
- Pure: no diagnostics are created here; a `Problem` is an event the caller
  reports.  Evaluation always runs in the expression's own type:
  integers wrap around two's-complement at their width; 16/32-bit floats are
  rounded to that precision after every operation.
- Only signed integer overflow is a problem (as clang); unsigned arithmetic and
  shifts wrap silently; shift amounts are masked to the width (HLSL).  Integer
  division or remainder by zero is a problem and yields 0; float division by zero
  is IEEE (inf/nan), no problem.  Pure intrinsics wrap silently too.
- Short-circuit `&&`/`||` and scalar `?:` need both sides constant, but only the
  evaluated side contributes problems.
"""

from __future__ import annotations

import math
import operator
import struct
from typing import Any, Callable

from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.ir import ConstValue
from wgc.source import Span


@dataclass(frozen=True)
class Problem:
    kind: str
    """"overflow" | "division-by-zero" ("shift-out-of-range" is reserved: HLSL masks shift amounts)."""
    span: Span
    message: str


@dataclass(frozen=True)
class Folded:
    value: ConstValue
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class NotConstant:
    span: Span
    """The first sub-expression that is not constant."""
    reason: str


def fold(expr: ir.Expr, optimized: bool = False, spec_defaults: bool = False) -> Folded | NotConstant:
    """The constant value of `expr`, or why it has none; `optimized`: the value after optimisation
    (module docstring), where static globals that nothing writes are their initialisers;
    `spec_defaults`: specialization constants are their default values."""
    if type(expr) is ir.Constant:   # a literal, most of what sema folds: no folder, no problems
        return Folded(_normalized(expr.value, expr.type))
    folder = _Folder(optimized, spec_defaults)
    try:
        value = folder.eval(expr)
    except _NotConstantError as err:
        return NotConstant(err.span, err.reason)
    return Folded(value, tuple(dict.fromkeys(folder.problems)))


def constant_value(expr: ir.Constant) -> ConstValue:
    """`fold(expr).value` of a constant (whose folding meets no problem), without building the `Folded`:
    what sema's callers that only want the value use for the literals they meet most (attribute
    arguments, subscripts)."""
    return _normalized(expr.value, expr.type)


def convert_value(value: ConstValue, source: t.Type, target: t.Type) -> ConstValue:
    """`value` of type `source` converted to `target` (component change, splat, truncation,
    matrix/vector reshaping, struct base-prefix, scalar splat into an aggregate).

    Raises ValueError for conversions that have no constant meaning.
    """
    if source is target:
        return value
    if type(source) is t.ScalarType and type(target) is t.ScalarType and not isinstance(value, (tuple, str)):
        return to_scalar(value, target)  # what the splat below gives a scalar, without its lists
    if t.element_scalar(source) is not None and t.component_count(source) == 1:  # scalar, float1, 1x1
        scalar_value = value[0] if isinstance(value, tuple) else value
        if isinstance(scalar_value, str):
            raise ValueError(f"cannot convert a string constant to '{target}'")
        return _splat(scalar_value, target)
    target_scalar = t.element_scalar(target)
    if target_scalar is not None and t.element_scalar(source) is not None and isinstance(value, tuple):
        components = [to_scalar(c, target_scalar) for c in value]
        return _shaped(_reshape(components, source, target), target)
    if isinstance(source, t.StructType) and isinstance(target, t.StructType) and _derives_from(source, target) \
            and isinstance(value, tuple):
        return value[:len(target.all_fields())]
    raise ValueError(f"cannot convert a constant from '{source}' to '{target}'")


# ---------------------------------------------------------------- scalars


_MANTISSA_BITS = {16: 11, 32: 24}
_FLOAT_FORMAT = {16: "e", 32: "f"}


def _round_float(value: float, bits: int) -> float:
    """`value` rounded to the nearest float of `bits` width (±inf beyond its range)."""
    fmt = _FLOAT_FORMAT.get(bits)
    if fmt is None:
        return value
    try:
        return struct.unpack(fmt, struct.pack(fmt, value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _int_to_float(value: int, bits: int) -> float:
    """An integer rounded once (to nearest, ties to even) to a float of `bits` width."""
    mantissa = _MANTISSA_BITS.get(bits)
    if mantissa is None or abs(value) < 2**53:  # float() is exact, or the only rounding
        return _round_float(float(value), bits)
    shift = abs(value).bit_length() - mantissa
    quotient, remainder = divmod(abs(value), 1 << shift)
    half = 1 << (shift - 1)
    if remainder > half or (remainder == half and quotient & 1):
        quotient += 1
    return math.copysign(_round_float(float(quotient << shift), bits), value)


def _wrap_int(value: int, scalar: t.ScalarType) -> int:
    value &= (1 << scalar.bits) - 1
    if scalar.kind is t.ScalarKind.INT and value >> (scalar.bits - 1):
        value -= 1 << scalar.bits
    return value


_BOOL, _INT, _UINT = t.ScalarKind.BOOL, t.ScalarKind.INT, t.ScalarKind.UINT
"""The scalar kinds, as module constants: an enum member read through its class (`t.ScalarKind.INT`)
is a lookup at each use, dearer than a global's read, and folding asks at every literal."""


def to_scalar(value: bool | int | float, target: t.ScalarType) -> bool | int | float:
    """One component converted to `target` (the source kind is the Python type of `value`)."""
    kind = target.kind
    if kind is _INT or kind is _UINT:   # target.is_integer, without the property
        if type(value) is int and 0 <= value < 1 << (target.bits - 1):
            return value   # what `_wrap_int` gives a value in range of both signednesses (most literals)
        if isinstance(value, float):
            value = 0 if math.isnan(value) or math.isinf(value) else math.trunc(value)
        return _wrap_int(int(value), target)
    if kind is _BOOL:
        return value != 0
    if isinstance(value, float):
        return _round_float(value, target.bits)
    return _int_to_float(int(value), target.bits)


# ---------------------------------------------------------------- shapes


def _shaped(components: list, type_: t.Type) -> ConstValue:
    """A tuple for vectors and matrices, the single component for scalars."""
    if isinstance(type_, (t.VectorType, t.MatrixType)):
        return tuple(components)
    return components[0]


def _splat(value: bool | int | float, target: t.Type) -> ConstValue:
    """A scalar converted and replicated into every component of `target`."""
    if isinstance(target, t.ArrayType) and target.length is not None:
        return tuple(_splat(value, target.element) for _ in range(target.length))
    if isinstance(target, t.StructType):
        return tuple(_splat(value, f.type) for f in target.all_fields())
    scalar = t.element_scalar(target)
    count = t.component_count(target)
    if scalar is None or count is None:
        raise ValueError(f"cannot convert a constant to '{target}'")
    return _shaped([to_scalar(value, scalar)] * count, target)


def _reshape(components: list, source: t.Type, target: t.Type) -> list:
    """Truncation (first components; the top-left block of a matrix) or vector<->matrix."""
    count = t.component_count(target)
    assert count is not None, f"'{target}' has no components"
    if isinstance(source, t.MatrixType) and isinstance(target, t.MatrixType):
        if target.rows > source.rows or target.columns > source.columns:
            raise ValueError(f"cannot convert a constant from '{source}' to '{target}'")
        return [components[r * source.columns + c] for r in range(target.rows) for c in range(target.columns)]
    if len(components) < count:
        raise ValueError(f"cannot convert a constant from '{source}' to '{target}'")
    return components[:count]


def _derives_from(struct_: t.StructType, base: t.StructType) -> bool:
    current: t.StructType | None = struct_
    while current is not None and current is not base:
        current = current.base
    return current is base


def _zip_map(function: Callable, *values: ConstValue) -> ConstValue:
    """`function` applied componentwise; scalars are broadcast against tuples."""
    lengths = [len(v) for v in values if isinstance(v, tuple)]
    if not lengths:
        return function(*values)
    return tuple(function(*(v[i] if isinstance(v, tuple) else v for v in values)) for i in range(lengths[0]))


# ---------------------------------------------------------------- operator tables


def _c_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (C), not Python's floor."""
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _c_rem(a: int, b: int) -> int:
    """Remainder with the sign of the dividend (C)."""
    return a - b * _c_div(a, b)


def _float_div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _float_rem(a: float, b: float) -> float:
    try:
        return math.fmod(a, b)
    except ValueError:  # x % 0, inf % y
        return math.nan


def _ieee(pick: Callable) -> Callable:
    """min/max as IEEE minNum/maxNum: a NaN operand yields the other one."""
    return lambda a, b: b if a != a else a if b != b else pick(a, b)


_ieee_min, _ieee_max = _ieee(min), _ieee(max)


_INT_OPS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _c_div, "%": _c_rem,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}
_FLOAT_OPS: dict[str, Callable[[float, float], float]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _float_div, "%": _float_rem,
}
_COMPARISONS: dict[str, Callable] = {
    "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}
_SHIFTS = ("<<", ">>")
_DIVISIONS = ("/", "%")
_PURE_INTRINSICS: dict[str, Callable] = {
    "abs": abs,
    "min": _ieee_min,
    "max": _ieee_max,
    "clamp": lambda x, low, high: _ieee_min(_ieee_max(x, low), high),
    "saturate": lambda x: 0.0 if x != x else min(max(x, 0.0), 1.0),
    "sign": lambda x: (x > 0) - (x < 0),
}
_NOT_CONSTANT_REASONS: dict[type, str] = {
    ir.Call: "a function call is not a constant expression",
    ir.MethodCall: "a method call is not a constant expression",
    ir.Assign: "an assignment is not a constant expression",
    ir.IncDec: "an increment or decrement is not a constant expression",
    ir.ResourceIndex: "a resource access is not a constant expression",
    ir.RecordAccess: "a node record access is not a constant expression",
}


# ---------------------------------------------------------------- the evaluator


class _NotConstantError(Exception):
    def __init__(self, span: Span, reason: str) -> None:
        super().__init__(reason)
        self.span = span
        self.reason = reason


class _Folder:
    """Evaluates one expression tree, collecting problems from the evaluated parts."""

    def __init__(self, optimized: bool = False, spec_defaults: bool = False) -> None:
        self.problems: list[Problem] = []
        self.optimized = optimized
        self.spec_defaults = spec_defaults

    def eval(self, expr: ir.Expr) -> ConstValue:
        handler = _HANDLERS.get(type(expr))
        if handler is None:
            reason = _NOT_CONSTANT_REASONS.get(type(expr), "this expression is not a constant expression")
            raise _NotConstantError(expr.span, reason)
        return handler(self, expr)

    def eval_maybe_quietly(self, expr: ir.Expr, quiet: bool) -> ConstValue:
        """Evaluate `expr`; when `quiet` (an unevaluated side), drop its problems."""
        if not quiet:
            return self.eval(expr)
        saved, self.problems = self.problems, []
        try:
            return self.eval(expr)
        finally:
            self.problems = saved

    def problem(self, kind: str, span: Span, message: str) -> None:
        self.problems.append(Problem(kind, span, message))

    def fit(self, exact: int, scalar: t.ScalarType, span: Span, text: str) -> int:
        """`exact` wrapped to `scalar`; an overflow problem when a signed result does not fit."""
        wrapped = _wrap_int(exact, scalar)
        if wrapped != exact and scalar.kind is t.ScalarKind.INT:
            self.problem("overflow", span, f"overflow in constant expression: {text} does not fit in "
                                           f"'{scalar}' (result wraps to {wrapped})")
        return wrapped

    # -- leaves

    def constant(self, expr: ir.Constant) -> ConstValue:
        return _normalized(expr.value, expr.type)

    def var_ref(self, expr: ir.VarRef) -> ConstValue:
        variable = expr.variable
        value = variable.settled if self.optimized and variable.constant is None else variable.constant
        if value is None and self.spec_defaults:
            if variable.storage is ir.Storage.SPEC_CONSTANT:
                value = variable.spec_default
            elif variable.storage is ir.Storage.STATIC and variable.const and variable.init is not None:
                value = self.eval(variable.init)      # `static const uint N = C * 2;`, C a spec constant
        if value is None:
            raise _NotConstantError(expr.span, f"'{variable.name}' is not a constant")
        return _normalized(value, expr.type)

    def intrinsic_call(self, expr: ir.IntrinsicCall) -> ConstValue:
        function = _PURE_INTRINSICS.get(expr.name)
        if function is None:
            raise _NotConstantError(expr.span, f"a call of '{expr.name}' is not a constant expression")
        args = [self.eval(arg) for arg in expr.args]
        return _normalized(_zip_map(function, *args), expr.type)

    # -- operators

    def unary(self, expr: ir.Unary) -> ConstValue:
        operand = self.eval(expr.operand)
        scalar = t.element_scalar(expr.type)
        if scalar is None:
            raise _NotConstantError(expr.span, f"operator '{expr.op}' on '{expr.type}' is not a constant expression")
        if expr.op == "!":
            return _zip_map(lambda a: not a, operand)
        if expr.op == "+":
            return operand
        if expr.op == "-" and scalar.is_integer:
            return _zip_map(lambda a: self.fit(-a, scalar, expr.span, f"-({a})"), operand)
        if expr.op == "-":
            return _normalized(_zip_map(operator.neg, operand), expr.type)
        if expr.op == "~" and scalar.is_integer:
            return _zip_map(lambda a: _wrap_int(~a, scalar), operand)
        raise _NotConstantError(expr.span, f"operator '{expr.op}' on '{expr.type}' is not a constant expression")

    def binary(self, expr: ir.Binary) -> ConstValue:
        op = expr.op
        left = self.eval(expr.left)
        if op in ("&&", "||"):
            short_circuit = not isinstance(left, tuple) and bool(left) == (op == "||")
            right = self.eval_maybe_quietly(expr.right, quiet=short_circuit)
            logic = (lambda a, b: bool(a) and bool(b)) if op == "&&" else (lambda a, b: bool(a) or bool(b))
            return _zip_map(logic, left, right)
        right = self.eval(expr.right)
        if op in _COMPARISONS:
            return _zip_map(_COMPARISONS[op], left, right)
        scalar = t.element_scalar(expr.left.type)
        if scalar is None:
            raise _NotConstantError(expr.span, f"operator '{op}' on '{expr.left.type}' is not a constant expression")
        return _zip_map(lambda a, b: self.arithmetic(op, a, b, scalar, expr), left, right)

    def arithmetic(self, op: str, a, b, scalar: t.ScalarType, expr: ir.Binary):
        if op not in (_FLOAT_OPS if scalar.is_float else _INT_OPS):
            raise _NotConstantError(expr.span, f"operator '{op}' on '{scalar}' is not a constant expression")
        if scalar.is_float:
            return _round_float(_FLOAT_OPS[op](a, b), scalar.bits)
        if scalar.kind is t.ScalarKind.BOOL:
            return bool(_INT_OPS[op](int(a), int(b)))
        if op in _DIVISIONS and b == 0:
            self.problem("division-by-zero", expr.span, "division by zero in constant expression")
            return 0
        if op in _SHIFTS:
            return _wrap_int(_INT_OPS[op](a, b & (scalar.bits - 1)), scalar)
        if op == "%" and b == -1 and scalar.kind is t.ScalarKind.INT and _wrap_int(-a, scalar) != -a:
            self.problem("overflow", expr.span, f"overflow in constant expression: the quotient of {a} % {b} "
                                                f"does not fit in '{scalar}'")
            return 0
        return self.fit(_INT_OPS[op](a, b), scalar, expr.span, f"{a} {op} {b}")

    def select(self, expr: ir.Select) -> ConstValue:
        cond = self.eval(expr.cond)
        if isinstance(cond, tuple):
            then, else_ = self.eval(expr.then), self.eval(expr.else_)
            return _zip_map(lambda c, a, b: a if c else b, cond, then, else_)
        then = self.eval_maybe_quietly(expr.then, quiet=not cond)
        else_ = self.eval_maybe_quietly(expr.else_, quiet=bool(cond))
        return then if cond else else_

    def comma(self, expr: ir.Comma) -> ConstValue:
        self.eval(expr.left)
        return self.eval(expr.right)

    def convert(self, expr: ir.Convert) -> ConstValue:
        value = self.eval(expr.operand)
        try:
            return convert_value(value, expr.operand.type, expr.type)
        except ValueError as err:
            raise _NotConstantError(expr.span, str(err)) from None

    # -- aggregates

    def construct(self, expr: ir.Construct) -> ConstValue:
        if isinstance(expr.type, t.RayQueryType):   # `RayQuery<F>()`: a new query object, no value
            raise _NotConstantError(expr.span, f"a new '{expr.type}' is not a constant expression")
        values = [self.eval(arg) for arg in expr.args]
        if isinstance(expr.type, (t.VectorType, t.MatrixType)):  # flatten defensively
            values = [c for v in values for c in (v if isinstance(v, tuple) else (v,))]
        return tuple(values)

    def swizzle(self, expr: ir.Swizzle) -> ConstValue:
        base = self.eval(expr.base)
        components = base if isinstance(base, tuple) else (base,)
        if isinstance(expr.base.type, t.MatrixType):
            columns = expr.base.type.columns
            picked = [components[row * columns + column] for row, column in expr.components]
        else:
            picked = [components[i] for i in expr.components]
        return _shaped(picked, expr.type)

    def index(self, expr: ir.Index) -> ConstValue:
        base = self.eval(expr.base)
        index = self.eval(expr.index)
        if not isinstance(base, tuple):
            raise _NotConstantError(expr.base.span, "only vectors, matrices and arrays can be indexed")
        items = base
        if isinstance(expr.base.type, t.MatrixType):
            columns = expr.base.type.columns
            items = tuple(base[r * columns:(r + 1) * columns] for r in range(expr.base.type.rows))
        if not isinstance(index, (int, float)) or not 0 <= int(index) < len(items):
            raise _NotConstantError(expr.index.span, f"index {index} is out of range")
        return items[int(index)]

    def field_access(self, expr: ir.FieldAccess) -> ConstValue:
        if isinstance(expr.base, ir.VarRef) and expr.base.variable.storage is ir.Storage.UNIFORM:
            raise _NotConstantError(expr.span, f"'{expr.name}' is a constant-buffer member, not a constant")
        base = self.eval(expr.base)
        if not isinstance(expr.base.type, t.StructType) or not isinstance(base, tuple):
            raise _NotConstantError(expr.span, f"'{expr.name}' is not a constant")
        return base[expr.index]


def _normalized(value: ConstValue, type_: t.Type) -> ConstValue:
    """A leaf value brought to its type's precision and width (no problems: sema checks literals)."""
    scalar = t.element_scalar(type_)
    if scalar is None or isinstance(value, str):
        return value
    if not isinstance(value, tuple):
        return to_scalar(value, scalar)  # what _zip_map gives a scalar, without its lists
    return _zip_map(lambda v: to_scalar(v, scalar), value)


_HANDLERS: dict[type, Callable[[_Folder, Any], ConstValue]] = {   # each takes its own Expr class
    ir.Constant: _Folder.constant,
    ir.VarRef: _Folder.var_ref,
    ir.IntrinsicCall: _Folder.intrinsic_call,
    ir.Unary: _Folder.unary,
    ir.Binary: _Folder.binary,
    ir.Select: _Folder.select,
    ir.Comma: _Folder.comma,
    ir.Convert: _Folder.convert,
    ir.Construct: _Folder.construct,
    ir.Swizzle: _Folder.swizzle,
    ir.Index: _Folder.index,
    ir.FieldAccess: _Folder.field_access,
}
