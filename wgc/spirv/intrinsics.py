"""Intrinsic functions in SPIR-V: math, bits, atomics, barriers, wave operations (SPIR-V back end).

Input: an `ir.IntrinsicCall` (overload already chosen by sema: the arguments have the parameter
types, except out/inout arguments, which are the caller's l-values) and the `FunctionLowering`
that emits it.
Output: the instructions computing it, as dxc's SPIR-V back end emits them (the differences are
listed below); the result id (None for void intrinsics). What this target cannot express (atomics
on node records several invocations share) is rejected by `wgc.sema.target` before lowering;
GetCurrentLoopIterationIndex() is 0, as no compiled node is in a loop.

Invariants and decisions:
- Math is GLSL.std.450 per scalar kind (`_GLSL`) or a core instruction. Instructions that take
  scalars and vectors only are applied row by row to matrices (`lanes`), float matrices and
  non-float ones (arrays of rows) alike. Bit instructions, which Vulkan allows on 32-bit integers
  only, widen 16-bit values and split 64-bit ones into their two halves.
- mul: an HLSL row is a SPIR-V column, so mul(M, v) = OpVectorTimesMatrix v M, mul(v, M) =
  OpMatrixTimesVector M v, mul(A, B) = OpMatrixTimesMatrix B A and mul(Mx1, 1xN) =
  OpOuterProduct; integer operands use scalar multiply-adds (SPIR-V matrices are float only).
- mad is Fma (floats) or OpIMul + OpIAdd (integers), decorated NoContraction, as dxc does; fmod
  is OpFRem (the sign of x); log10 is Log2 times 1/log2(10); all/any are OpAll/OpAny (a matrix:
  per row, then over the rows); sign(uint) is (x != 0) (SSign would call 2^31 and up negative).
- Atomics use the scope of the memory they touch (Workgroup for groupshared, where dxc says
  Device; Device otherwise), relaxed semantics; 64-bit ones declare Int64Atomics. On a node
  record one invocation owns (the calls `sema.target.plain_record_atomics` lists: spirv-val
  allows no atomics on NodePayloadAMDX) they are a load, the operation (OpIAdd/OpBitwise*,
  GLSL SMin/UMin/SMax/UMax by the destination's signedness, the value for Exchange, OpSelect on
  OpIEqual for the compare forms, of the bits for FloatBitwise) and a store, and the original
  value is the value loaded. On a record several invocations share (WG0620, a warning:
  Vulkan allows no atomics on NodePayloadAMDX) the atomic is emitted on the
  NodePayloadAMDX pointer, as dxc does, at Device scope.
- Barrier(memory flags, semantic flags) follows dxc: GROUP_SYNC makes an OpControlBarrier,
  otherwise an OpMemoryBarrier; the scope is Device/Workgroup/Invocation from the scope flags;
  semantics are AcquireRelease plus the storage classes of `BARRIER_MEMORY`: UAV_MEMORY is
  UniformMemory|ImageMemory (dxc forgets images), GROUP_SHARED_MEMORY WorkgroupMemory, and
  NODE_INPUT_MEMORY and NODE_OUTPUT_MEMORY OutputMemory (node records are NodePayloadAMDX memory;
  dxc drops node input memory, leaving an invalid AcquireRelease without a storage class; the
  module then uses the Vulkan memory model, where barriers also carry MakeAvailable|MakeVisible:
  `ModuleLowering.barrier_semantics`). Barrier(object, flags) orders the object's memory
  (`object_memory`: UniformMemory for buffers, ImageMemory for textures and typed buffers,
  OutputMemory for records; dxc orders every kind). Vulkan wants Relaxed semantics at Invocation
  scope, where dxc emits the memory kinds: the semantics are then Relaxed, and a memory barrier
  without GROUP_SYNC (it orders nothing) is left out.
  The legacy *MemoryBarrier[WithGroupSync] use dxc's scopes and storage classes.
- Wave operations are GroupNonUniform instructions at Subgroup scope, each declaring its
  capability; WaveActiveAllEqual of a vector compares component by component. WaveMatch and
  WaveMultiPrefix* use SPV_NV_shader_subgroup_partitioned (OpGroupNonUniformPartitionNV,
  PartitionedExclusiveScanNV with the mask), as dxc; WaveMultiPrefixCountBits scans (b ? 1 : 0).
  QuadAny/QuadAll are three QuadSwaps combined with Or/And (dxc without SPV_KHR_quad_control).
- Derivatives (ddx, ddy, fwidth, *_coarse, *_fine) are OpDPdx & co. on 32-bit floats (halves
  widened), with the compute derivative group of `resources.uses_derivatives`, as Sample.
- dot4add_[iu]8packed is OpSDot/OpUDot (PackedVectorFormat4x8Bit) plus the accumulator; dot2add
  multiplies in the halves' precision, widens, adds (dxc); msad4 is spelled out byte by byte;
  ldexp is x * exp2(e) (GLSL Ldexp wants an int exponent); AddUint64 uses OpIAddCarry.
- pack_*/unpack_* (int8_t4_packed and uint8_t4_packed are uint) insert or extract the bytes with
  32-bit OpBitFieldInsert / OpBitField[SU]Extract, after GLSL SClamp for pack_clamp_*; dxc goes
  through a vector of 8-bit ints (Int8), which this avoids.
- NonUniformResourceIndex(i) is an OpCopyObject decorated NonUniform; the descriptor access
  chains, loads and sampled images it indexes are decorated by `resources.decorate_non_uniform`
  (only where the index is the call's result itself: dxc also follows arithmetic on it).
- CheckAccessFullyMapped(status) is status != 0 (wgc's statuses come from non-sparse accesses and
  are 1); IsHelperLane() is false (no helper lanes outside pixel shaders); printf is
  NonSemantic.DebugPrintf with the arguments as they are (dxc widens floats to double).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.irtools.consteval import Folded, fold
from wgc.sema.intrinsics import BARRIER_CONSTANTS as FLAGS

from . import loop_stages, resources, stageio
from .places import Place

if TYPE_CHECKING:
    from .lower import FunctionLowering

_ATOMIC_OPS = {  # name: (instruction for int, for uint)
    "InterlockedAdd": ("OpAtomicIAdd",) * 2, "InterlockedAnd": ("OpAtomicAnd",) * 2,
    "InterlockedOr": ("OpAtomicOr",) * 2, "InterlockedXor": ("OpAtomicXor",) * 2,
    "InterlockedMin": ("OpAtomicSMin", "OpAtomicUMin"), "InterlockedMax": ("OpAtomicSMax", "OpAtomicUMax"),
    "InterlockedExchange": ("OpAtomicExchange",) * 2,
}
_UINT16 = t.scalar(t.ScalarKind.UINT, 16)
_KINDS = {t.ScalarKind.FLOAT: "f", t.ScalarKind.INT: "s", t.ScalarKind.UINT: "u", t.ScalarKind.BOOL: "b"}
_ALL_ONES = 0xFFFFFFFF


def lower(fl: FunctionLowering, call: ir.IntrinsicCall) -> int | None:
    handler = _HANDLERS.get(call.name)
    if handler is None:
        raise AssertionError(f"intrinsic '{call.name}' is not supported by the SPIR-V back end yet")
    return handler(fl, call)


# ---------------------------------------------------------------- shared helpers


def _kind(type_: t.Type) -> str:
    """"f", "s", "u" or "b" (bool): the kind of a numeric type's scalar ("" for other types)."""
    scalar = t.element_scalar(type_)
    return "" if scalar is None else _KINDS[scalar.kind]


def _args(fl: FunctionLowering, call: ir.IntrinsicCall) -> list[tuple[int, t.Type]]:
    return [(fl.value(a), a.type) for a in call.args]


def _piece_type(fl: FunctionLowering, type_: t.Type) -> tuple[t.Type, int | None]:
    """What a scalar/vector instruction sees of `type_`: a matrix's row type and row count, or
    the (shaped) type itself and None."""
    shape = fl.types.shape(type_)
    if isinstance(shape, t.MatrixType):
        return t.vector(shape.element, shape.columns), shape.rows
    return shape, None


def _pieces(fl: FunctionLowering, value: int, type_: t.Type, rows: int | None) -> list[int]:
    """`value` cut into the `rows` rows of a matrix, or whole (repeated for each row of a matrix
    result; once when the result is no matrix)."""
    piece, own_rows = _piece_type(fl, type_)
    if own_rows is None or rows is None:
        return [value] * (rows or 1)
    row = fl.types.id(piece)
    return [fl.b.emit("OpCompositeExtract", row, value, i) for i in range(own_rows)]


def _join(fl: FunctionLowering, type_: t.Type, pieces: list[int]) -> int:
    if len(pieces) == 1 and _piece_type(fl, type_)[1] is None:
        return pieces[0]
    return fl.b.emit("OpCompositeConstruct", fl.types.id(type_), *pieces)


Lane = Callable[[t.Type, list[int]], int]
"""An instruction on scalars/vectors: (result piece type, operand pieces) -> id."""


def lanes(fl: FunctionLowering, result: t.Type, operands: Sequence[tuple[int, t.Type]], op: Lane) -> int:
    """`op` on the operands, row by row when the result is a matrix (each operand cut into its
    own rows: a bool matrix condition, a float matrix under an int result...)."""
    piece, rows = _piece_type(fl, result)
    split = [_pieces(fl, value, type_, rows) for value, type_ in operands]
    return _join(fl, result, [op(piece, list(parts)) for parts in zip(*split)])


def _ext(fl: FunctionLowering, op: str) -> Lane:
    return lambda piece, parts: fl.b.ext_inst(fl.types.id(piece), op, *parts)


def _core(op: str):
    """A core instruction on the call's arguments, with the call's type (row by row)."""
    def lower_core(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
        return lanes(fl, call.type, _args(fl, call), lambda p, parts: fl.b.emit(op, fl.types.id(p), *parts))
    return lower_core


def _store_out(fl: FunctionLowering, arg: ir.Expr, value: int, type_: t.Type) -> None:
    """Write an intrinsic's out value to the caller's l-value (converting to its type)."""
    place = fl.place(arg)
    if place is None:
        raise AssertionError("this out argument cannot be written")
    fl.store(place, fl.convert(value, type_, arg.type))


def constant_int(expr: ir.Expr, what: str) -> int:
    """The value of an argument that must be an integer constant after optimisation (Barrier
    flags: sema's WG0443 made sure, counting settled static globals)."""
    folded = fold(expr, optimized=True)
    if not isinstance(folded, Folded) or isinstance(folded.value, (tuple, str, float)):
        raise AssertionError(f"{what} must be a constant")
    return int(folded.value)


# ---------------------------------------------------------------- math

# name -> GLSL.std.450 instruction per scalar kind; the operands are the call's arguments.
# HLSL step(y, x) is x >= y ? 1 : 0, which is GLSL Step(edge = y, x): same order.
_GLSL = {
    "sqrt": {"f": "Sqrt"}, "rsqrt": {"f": "InverseSqrt"}, "exp": {"f": "Exp"}, "exp2": {"f": "Exp2"},
    "log": {"f": "Log"}, "log2": {"f": "Log2"}, "sin": {"f": "Sin"}, "cos": {"f": "Cos"},
    "tan": {"f": "Tan"}, "asin": {"f": "Asin"}, "acos": {"f": "Acos"}, "atan": {"f": "Atan"},
    "sinh": {"f": "Sinh"}, "cosh": {"f": "Cosh"}, "tanh": {"f": "Tanh"}, "floor": {"f": "Floor"},
    "ceil": {"f": "Ceil"}, "round": {"f": "RoundEven"}, "trunc": {"f": "Trunc"}, "frac": {"f": "Fract"},
    "pow": {"f": "Pow"}, "atan2": {"f": "Atan2"}, "step": {"f": "Step"}, "lerp": {"f": "FMix"},
    "smoothstep": {"f": "SmoothStep"}, "abs": {"f": "FAbs", "s": "SAbs"},
    "min": {"f": "FMin", "s": "SMin", "u": "UMin"}, "max": {"f": "FMax", "s": "SMax", "u": "UMax"},
    "clamp": {"f": "FClamp", "s": "SClamp", "u": "UClamp"}, "fma": {"f": "Fma"},
    "length": {"f": "Length"}, "distance": {"f": "Distance"}, "normalize": {"f": "Normalize"},
    "cross": {"f": "Cross"}, "reflect": {"f": "Reflect"}, "refract": {"f": "Refract"},
    "faceforward": {"f": "FaceForward"}, "determinant": {"f": "Determinant"}, "degrees": {"f": "Degrees"},
    "radians": {"f": "Radians"},
}


def _glsl(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    kind = _kind(call.args[0].type)
    op = _GLSL[call.name].get(kind)
    if op is None:
        if call.name == "abs" and kind == "u":
            return fl.value(call.args[0])
        raise AssertionError(f"'{call.name}' of '{call.args[0].type}' has no SPIR-V instruction")
    if op == "Determinant" and not isinstance(fl.types.shape(call.args[0].type), t.MatrixType):
        return fl.value(call.args[0])  # a 1x1 matrix is a scalar
    return lanes(fl, call.type, _args(fl, call), _ext(fl, op))


def _log10(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    # log10(x) = log2(x) * (1 / log2(10)), scaled as dxc does
    log2 = lanes(fl, call.type, _args(fl, call), _ext(fl, "Log2"))
    scale = fl.ml.constant(t.element_scalar(call.type), 0.30102999566398120)  # type: ignore[arg-type]
    shape = fl.types.shape(call.type)
    op = "OpMatrixTimesScalar" if isinstance(shape, t.MatrixType) else \
        "OpVectorTimesScalar" if isinstance(shape, t.VectorType) else "OpFMul"
    return fl.b.emit(op, fl.types.id(call.type), log2, scale)


def _saturate(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return lanes(fl, call.type, _args(fl, call), lambda p, parts: fl.b.ext_inst(
        fl.types.id(p), "FClamp", parts[0], fl.ml.constant(p, 0.0), fl.ml.constant(p, 1.0)))


def _rcp(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return lanes(fl, call.type, _args(fl, call), lambda p, parts: fl.b.emit(
        "OpFDiv", fl.types.id(p), fl.ml.constant(p, 1.0), parts[0]))


def _ldexp(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """ldexp(x, e) = x * exp2(e): GLSL's Ldexp wants an integer exponent, HLSL's is a float (dxc)."""
    return lanes(fl, call.type, _args(fl, call), lambda p, parts: fl.b.emit(
        "OpFMul", fl.types.id(p), parts[0], fl.b.ext_inst(fl.types.id(p), "Exp2", parts[1])))


def _sincos(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    """sincos(x, out s, out c): Sin and Cos of x, written to s and c (dxc)."""
    x = _args(fl, call)[:1]
    for arg, op in ((call.args[1], "Sin"), (call.args[2], "Cos")):
        _store_out(fl, arg, lanes(fl, call.args[0].type, x, _ext(fl, op)), call.args[0].type)
    return None


def _isnormal(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """isnormal(x): the exponent bits are neither all 0 (zero, subnormal) nor all 1 (inf, NaN), as dxc
    (OpIsNormal is Kernel-only): bits & mask != 0 and != mask, mask 0x7F800000 (half: 0x7C00)."""
    bits = t.element_scalar(call.args[0].type).bits            # type: ignore[union-attr]
    unsigned, mask = t.scalar(t.ScalarKind.UINT, bits), (0x7C00 if bits == 16 else 0x7F800000)

    def isnormal(piece: t.Type, parts: list[int]) -> int:     # piece: a bool piece
        word = t.with_element(piece, unsigned)
        raw = fl.b.emit("OpBitcast", fl.types.id(word), parts[0])
        exponent = fl.b.emit("OpBitwiseAnd", fl.types.id(word), raw, fl.ml.constant(word, mask))
        nonzero = fl.b.emit("OpINotEqual", fl.types.id(piece), exponent, fl.ml.constant(word, 0))
        finite = fl.b.emit("OpINotEqual", fl.types.id(piece), exponent, fl.ml.constant(word, mask))
        return fl.b.emit("OpLogicalAnd", fl.types.id(piece), nonzero, finite)
    return lanes(fl, call.type, _args(fl, call), isnormal)


def _dst(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """dst(a, b) = (1, a.y * b.y, a.z, b.w) (the D3D distance vector, as dxc)."""
    a, b = (fl.components(fl.value(x), x.type) for x in call.args)
    element = t.element_scalar(call.type)
    y = fl.binary("*", element, element, a[1], b[1])          # type: ignore[arg-type]
    return fl.build([fl.ml.constant(element, 1), y, a[2], b[3]], call.type)  # type: ignore[arg-type]


def _lit(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """lit(n.l, n.h, m) = (1, max(n.l, 0), n.l < 0 || n.h < 0 ? 0 : pow(n.h, m), 1) (dxc)."""
    element: t.ScalarType = t.element_scalar(call.type)       # type: ignore[assignment]
    l, h, m = (fl.value(x) for x in call.args)
    scalar, bool_ = fl.types.id(element), fl.b.type_bool()
    zero, one = fl.ml.constant(element, 0.0), fl.ml.constant(element, 1.0)
    diffuse = fl.b.ext_inst(scalar, "FMax", l, zero)
    negative = fl.b.emit("OpLogicalOr", bool_, fl.b.emit("OpFOrdLessThan", bool_, l, zero),
                         fl.b.emit("OpFOrdLessThan", bool_, h, zero))
    specular = fl.b.emit("OpSelect", scalar, negative, zero, fl.b.ext_inst(scalar, "Pow", h, m))
    return fl.build([one, diffuse, specular, one], call.type)


# ---------------------------------------------------------------- derivatives

_DERIVATIVES = {  # name: (instruction, needs DerivativeControl)
    "ddx": ("OpDPdx", False), "ddy": ("OpDPdy", False), "fwidth": ("OpFwidth", False),
    "ddx_coarse": ("OpDPdxCoarse", True), "ddy_coarse": ("OpDPdyCoarse", True),
    "ddx_fine": ("OpDPdxFine", True), "ddy_fine": ("OpDPdyFine", True),
}


def _derivative(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """ddx/ddy/fwidth and their coarse/fine forms: the core derivative instructions, which need the
    compute derivative group of SPV_KHR_compute_shader_derivatives (`resources.uses_derivatives`,
    as implicit-LOD sampling); SPIR-V derivatives are 32-bit, so half values are widened."""

    op, control = _DERIVATIVES[call.name]
    if control:
        fl.b.capability("DerivativeControl")
    resources.uses_derivatives(fl, call)

    def derivative(piece: t.Type, parts: list[int]) -> int:
        wide = t.with_element(piece, t.FLOAT)
        if t.element_scalar(piece).bits == 32:                # type: ignore[union-attr]  # min16float too
            return fl.b.emit(op, fl.types.id(piece), parts[0])
        value = fl.b.emit(op, fl.types.id(wide), fl.b.emit("OpFConvert", fl.types.id(wide), parts[0]))
        return fl.b.emit("OpFConvert", fl.types.id(piece), value)
    return lanes(fl, call.type, _args(fl, call), derivative)


def _mad(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    float_ = _kind(call.type) == "f"

    def mad(piece: t.Type, parts: list[int]) -> int:
        a, b, c = parts
        if float_:
            made = [fl.b.ext_inst(fl.types.id(piece), "Fma", a, b, c)]
        else:
            product = fl.binary("*", piece, piece, a, b)
            made = [product, fl.binary("+", piece, piece, product, c)]
        for id_ in made:
            fl.b.decorate(id_, "NoContraction")
        return made[-1]
    return lanes(fl, call.type, _args(fl, call), mad)


def _to_bool(fl: FunctionLowering, value: int, type_: t.Type) -> int:
    """A scalar or vector as bool(s): x != 0 (unordered for floats: NaN is true, as conversions)."""
    kind = _kind(type_)
    if kind == "b":
        return value
    op = "OpFUnordNotEqual" if kind == "f" else "OpINotEqual"
    return fl.b.emit(op, fl.types.id(t.with_element(type_, t.BOOL)), value, fl.ml.constant(type_, 0))


def _sign(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    source = call.args[0].type
    kind, scalar = _kind(source), t.element_scalar(source)

    def sign(piece: t.Type, parts: list[int]) -> int:       # piece: the int result's piece
        own, result = t.with_element(piece, scalar), fl.types.id(piece)  # type: ignore[arg-type]
        if kind == "u":                                       # an unsigned value's sign: 0 or 1
            return fl.b.emit("OpSelect", result, _to_bool(fl, parts[0], own), fl.ml.constant(piece, 1),
                             fl.ml.constant(piece, 0))
        signed = fl.b.ext_inst(fl.types.id(own), "FSign" if kind == "f" else "SSign", parts[0])
        if kind == "f":
            return fl.b.emit("OpConvertFToS", result, signed)
        return signed if scalar.bits == 32 else fl.b.emit("OpSConvert", result, signed)  # type: ignore[union-attr]
    return lanes(fl, call.type, _args(fl, call), sign)


def _modf_frexp(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    frexp = call.name == "frexp"
    piece, rows = _piece_type(fl, call.type)
    second = t.with_element(piece, t.INT) if frexp else piece   # FrexpStruct's exponent is an int
    struct = fl.b.type_struct([fl.types.id(piece), fl.types.id(second)])
    firsts, seconds = [], []
    for x in _pieces(fl, fl.value(call.args[0]), call.type, rows):
        pair = fl.b.ext_inst(struct, "FrexpStruct" if frexp else "ModfStruct", x)
        firsts.append(fl.b.emit("OpCompositeExtract", fl.types.id(piece), pair, 0))
        seconds.append(fl.b.emit("OpCompositeExtract", fl.types.id(second), pair, 1))
    whole = t.with_element(call.type, t.INT) if frexp else call.type
    _store_out(fl, call.args[1], _join(fl, whole, seconds), whole)
    return _join(fl, call.type, firsts)


def _classify(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    def classify(piece: t.Type, parts: list[int]) -> int:   # piece: a bool piece
        type_id, x = fl.types.id(piece), parts[0]
        if call.name != "isfinite":
            return fl.b.emit("OpIsNan" if call.name == "isnan" else "OpIsInf", type_id, x)
        bad = fl.b.emit("OpLogicalOr", type_id, fl.b.emit("OpIsNan", type_id, x), fl.b.emit("OpIsInf", type_id, x))
        return fl.b.emit("OpLogicalNot", type_id, bad)
    return lanes(fl, call.type, _args(fl, call), classify)


def _all_any(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    op, bool_ = ("OpAll" if call.name == "all" else "OpAny"), fl.b.type_bool()

    def reduce(value: int, type_: t.Type) -> int:           # a scalar or a vector
        value = _to_bool(fl, value, type_)
        return value if isinstance(type_, t.ScalarType) else fl.b.emit(op, bool_, value)
    source = call.args[0].type
    piece, rows = _piece_type(fl, source)
    value = fl.value(call.args[0])
    if rows is None:
        return reduce(value, piece)
    per_row = [reduce(row, piece) for row in _pieces(fl, value, source, rows)]
    return fl.b.emit(op, bool_, fl.b.emit("OpCompositeConstruct", fl.types.id(t.vector(t.BOOL, rows)), *per_row))


def _dot(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    a, b = fl.value(call.args[0]), fl.value(call.args[1])
    vector = call.args[0].type
    if _kind(vector) == "f" and isinstance(fl.types.shape(vector), t.VectorType):
        return fl.b.emit("OpDot", fl.types.id(call.type), a, b)
    product = fl.binary("*", vector, vector, a, b)            # integers: multiply, add the parts
    parts = fl.components(product, vector)
    total = parts[0]
    for part in parts[1:]:
        total = fl.binary("+", call.type, call.type, total, part)
    return total


def _dims(type_: t.Type, left: bool) -> tuple[int, int]:
    """The HLSL rows x columns of a mul operand (a vector is a row on the left, a column on the right)."""
    if isinstance(type_, t.MatrixType):
        return type_.rows, type_.columns
    count = type_.count if isinstance(type_, t.VectorType) else 1
    return (1, count) if left else (count, 1)


def _mul(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    (left, right), (a, b) = (x.type for x in call.args), (fl.value(x) for x in call.args)
    left_shape, right_shape, shape = fl.types.shape(left), fl.types.shape(right), fl.types.shape(call.type)
    result = fl.types.id(call.type)
    scalar_l, scalar_r = isinstance(left_shape, t.ScalarType), isinstance(right_shape, t.ScalarType)
    if _kind(call.type) == "f":
        if scalar_l and scalar_r:
            return fl.b.emit("OpFMul", result, a, b)
        if scalar_l or scalar_r:
            scalar, other = (a, b) if scalar_l else (b, a)
            op = "OpMatrixTimesScalar" if isinstance(shape, t.MatrixType) else "OpVectorTimesScalar"
            return fl.b.emit(op, result, other, scalar)
        vector_l, vector_r = isinstance(left_shape, t.VectorType), isinstance(right_shape, t.VectorType)
        if vector_l and vector_r:     # a row times a column, or a column (Mx1) times a row (1xN)
            if isinstance(shape, t.MatrixType):
                return fl.b.emit("OpOuterProduct", result, b, a)
            return fl.b.emit("OpDot", result, a, b)
        if vector_l:                  # mul(v, M): SPIR-V sees M transposed
            return fl.b.emit("OpMatrixTimesVector", result, b, a)
        if vector_r:                  # mul(M, v)
            return fl.b.emit("OpVectorTimesMatrix", result, b, a)
        return fl.b.emit("OpMatrixTimesMatrix", result, b, a)
    # integers: sums of products, scalar by scalar
    element: t.Type = t.element_scalar(call.type)             # type: ignore[assignment]
    xs, ys = fl.components(a, left), fl.components(b, right)
    if scalar_l or scalar_r:
        scalar, others = (xs[0], ys) if scalar_l else (ys[0], xs)
        return fl.build([fl.binary("*", element, element, scalar, o) for o in others], call.type)
    (rows, inner), (_, columns) = _dims(left, True), _dims(right, False)
    out = []
    for r, c in ((r, c) for r in range(rows) for c in range(columns)):
        terms = [fl.binary("*", element, element, xs[r * inner + k], ys[k * columns + c]) for k in range(inner)]
        out.append(functools.reduce(lambda x, y: fl.binary("+", element, element, x, y), terms))
    return fl.build(out, call.type)


def _transpose(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    value = fl.value(call.args[0])
    if fl.types.is_float_matrix(call.args[0].type) and fl.types.is_float_matrix(call.type):
        return fl.b.emit("OpTranspose", fl.types.id(call.type), value)
    source = fl.types.shape(call.args[0].type)
    parts = fl.components(value, source)
    if not isinstance(source, t.MatrixType):                  # 1xN <-> Nx1: the same vector
        return fl.build(parts, call.type)
    rows, columns = source.rows, source.columns
    return fl.build([parts[r * columns + c] for c in range(columns) for r in range(rows)], call.type)


def _select(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    (cond, cond_type), a, b = _args(fl, call)
    if isinstance(fl.types.shape(cond_type), t.ScalarType) and \
            not isinstance(fl.types.shape(call.type), t.ScalarType):   # one condition for all parts
        cond_type = t.with_element(call.type, t.BOOL)
        cond = fl.convert(cond, call.args[0].type, cond_type)
    return lanes(fl, call.type, [(cond, cond_type), a, b],
                  lambda p, parts: fl.b.emit("OpSelect", fl.types.id(p), *parts))


# ---------------------------------------------------------------- bits and reinterpretation


def _bits(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """countbits, firstbithigh, firstbitlow, reversebits: 32-bit instructions."""
    source = call.args[0].type
    scalar = t.element_scalar(source)
    value = fl.value(call.args[0])
    if scalar.bits == 64:                                     # type: ignore[union-attr]
        parts = fl.components(value, source)
        return fl.build([_bits64(fl, call.name, scalar, x) for x in parts], call.type)  # type: ignore[arg-type]
    return lanes(fl, call.type, [(value, source)], lambda piece, parts: _bits32(
        fl, call.name, t.with_element(piece, scalar), piece, parts[0]))  # type: ignore[arg-type]


def _bits32(fl: FunctionLowering, name: str, own: t.Type, piece: t.Type, x: int) -> int:
    """A bit instruction on a 32-bit (or widened 16-bit) integer scalar/vector `x` of type `own`."""
    scalar = t.element_scalar(own)
    signed, narrow = scalar.kind is t.ScalarKind.INT, scalar.bits == 16  # type: ignore[union-attr]
    wide, short = (t.with_element(own, t.UINT), t.with_element(own, _UINT16)) if narrow else (own, own)
    if narrow and signed and name == "firstbithigh":      # sign-extended for FindSMsb
        x = fl.b.emit("OpSConvert", fl.types.id(t.with_element(own, t.INT)), x)
    elif narrow:                                          # zero-extended
        x = fl.b.emit("OpUConvert", fl.types.id(wide), fl.b.emit("OpBitcast", fl.types.id(short), x) if signed else x)
    if name == "countbits":
        return fl.b.emit("OpBitCount", fl.types.id(piece), x)
    if name == "firstbithigh" or name == "firstbitlow":
        op = "FindILsb" if name == "firstbitlow" else ("FindSMsb" if signed else "FindUMsb")
        return fl.b.ext_inst(fl.types.id(piece), op, x)
    reversed_ = fl.b.emit("OpBitReverse", fl.types.id(wide), x)
    if not narrow:
        return reversed_
    shifted = fl.b.emit("OpShiftRightLogical", fl.types.id(wide), reversed_, fl.ml.constant(wide, 16))
    reversed_ = fl.b.emit("OpUConvert", fl.types.id(short), shifted)
    return fl.b.emit("OpBitcast", fl.types.id(own), reversed_) if signed else reversed_


def _bits64(fl: FunctionLowering, name: str, scalar: t.ScalarType, x: int) -> int:
    """A bit instruction on one 64-bit integer, from its 32-bit halves."""
    uint, int_, bool_ = fl.types.id(t.UINT), fl.types.id(t.INT), fl.b.type_bool()
    halves = fl.b.emit("OpBitcast", fl.types.id(t.vector(t.UINT, 2)), x)
    low, high = (fl.b.emit("OpCompositeExtract", uint, halves, i) for i in (0, 1))
    if name == "countbits":
        return fl.b.emit("OpIAdd", uint, fl.b.emit("OpBitCount", uint, low), fl.b.emit("OpBitCount", uint, high))
    if name == "reversebits":
        swapped = fl.b.emit("OpCompositeConstruct", fl.types.id(t.vector(t.UINT, 2)),
                            fl.b.emit("OpBitReverse", uint, high), fl.b.emit("OpBitReverse", uint, low))
        return fl.b.emit("OpBitcast", fl.types.id(scalar), swapped)
    none, plus32 = fl.uint(_ALL_ONES), fl.uint(32)

    def found(bit: int) -> int:
        return fl.b.emit("OpINotEqual", bool_, bit, none)
    if name == "firstbitlow":
        lo, hi = (fl.b.ext_inst(uint, "FindILsb", half) for half in (low, high))
        hi = fl.b.emit("OpSelect", uint, found(hi), fl.b.emit("OpIAdd", uint, hi, plus32), none)
        return fl.b.emit("OpSelect", uint, found(lo), lo, hi)
    if scalar.kind is t.ScalarKind.INT:   # the highest bit that differs from the sign
        signed_high = fl.b.emit("OpBitcast", int_, high)
        hi = fl.b.ext_inst(uint, "FindSMsb", signed_high)
        sign = fl.b.emit("OpShiftRightArithmetic", int_, signed_high, fl.ml.constant(t.INT, 31))
        low = fl.b.emit("OpBitwiseXor", uint, low, fl.b.emit("OpBitcast", uint, sign))
    else:
        hi = fl.b.ext_inst(uint, "FindUMsb", high)
    lo = fl.b.ext_inst(uint, "FindUMsb", low)
    return fl.b.emit("OpSelect", uint, found(hi), fl.b.emit("OpIAdd", uint, hi, plus32), lo)


# ---------------------------------------------------------------- packed dot products, msad4, 64-bit adds


def _dot4add(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """dot4add_[iu]8packed(a, b, acc) = OpSDot/OpUDot of the packed bytes (PackedVectorFormat4x8Bit,
    core in SPIR-V 1.6) plus acc, as dxc."""
    a, b, acc = (fl.value(x) for x in call.args)
    fl.b.capability("DotProduct", "DotProductInput4x8BitPacked")
    op = "OpSDot" if call.name == "dot4add_i8packed" else "OpUDot"
    product = fl.b.emit(op, fl.types.id(call.type), a, b, "PackedVectorFormat4x8Bit")
    return fl.b.emit("OpIAdd", fl.types.id(call.type), product, acc)


def _pack8(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """pack_[us]8(v) keeps the low byte of each component, pack_clamp_[us]8 clamps each first
    (SClamp to [0, 255] or [-128, 127], as dxc); byte i is component i. dxc converts to a vector of
    8-bit ints and bitcasts (Int8); the same bytes are inserted here with 32-bit bit-field
    instructions, which need no 8-bit types."""
    [(value, type_)] = _args(fl, call)
    scalar = t.element_scalar(type_)
    assert scalar is not None
    if call.name.startswith("pack_clamp"):
        low, high = (0, 255) if call.name == "pack_clamp_u8" else (-128, 127)
        value = fl.b.ext_inst(fl.types.id(type_), "SClamp", value, fl.ml.constant(type_, low),
                              fl.ml.constant(type_, high))
    uint = fl.types.id(t.UINT)
    parts = fl.components(value, type_)
    if scalar.bits != 32:
        parts = [fl.b.emit("OpUConvert" if scalar.kind is t.ScalarKind.UINT else "OpSConvert",
                           fl.types.id(t.scalar(scalar.kind, 32)), p) for p in parts]
    if scalar.kind is not t.ScalarKind.UINT:
        parts = [fl.b.emit("OpBitcast", uint, p) for p in parts]
    packed = fl.b.emit("OpBitwiseAnd", uint, parts[0], fl.uint(0xFF))
    for index, part in enumerate(parts[1:], start=1):
        packed = fl.b.emit("OpBitFieldInsert", uint, packed, part, fl.uint(8 * index), fl.uint(8))
    return packed


def _unpack8(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """unpack_[us]8[us]{16,32}(packed): byte i, zero- (u8) or sign-extended (s8), is component i
    (dxc bitcasts to a vector of 8-bit ints and converts; here OpBitField[SU]Extract does both)."""
    [(packed, _)] = _args(fl, call)
    scalar = t.element_scalar(call.type)
    assert scalar is not None
    signed = call.name.startswith("unpack_s8")
    word = fl.types.id(t.INT if signed else t.UINT)
    if signed:
        packed = fl.b.emit("OpBitcast", word, packed)
    extract = "OpBitFieldSExtract" if signed else "OpBitFieldUExtract"
    parts = [fl.b.emit(extract, word, packed, fl.uint(8 * i), fl.uint(8)) for i in range(4)]
    if scalar.bits != 32:
        parts = [fl.b.emit("OpSConvert" if signed else "OpUConvert", fl.types.scalar(scalar), p) for p in parts]
    return fl.b.emit("OpCompositeConstruct", fl.types.id(call.type), *parts)


def _dot2add(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """dot2add(a, b, acc): a * b (in a's precision), widened to float2, summed, plus acc (dxc)."""
    (a, type_), (b, _), (acc, _) = _args(fl, call)
    product = fl.b.emit("OpFMul", fl.types.id(type_), a, b)
    float2 = t.vector(t.FLOAT, 2)
    if t.element_scalar(type_).bits == 16:                    # type: ignore[union-attr]  # not min16float
        product = fl.b.emit("OpFConvert", fl.types.id(float2), product)
    x, y = (fl.b.emit("OpCompositeExtract", fl.types.id(t.FLOAT), product, i) for i in (0, 1))
    return fl.b.emit("OpFAdd", fl.types.id(t.FLOAT), fl.b.emit("OpFAdd", fl.types.id(t.FLOAT), x, y), acc)


def _msad4(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """msad4(reference, source, accum): for each byte alignment i of the 8 source bytes, accum[i]
    plus the sum over the reference's non-zero bytes r_j of |r_j - s_(i+j)| (D3D's masked SAD)."""
    reference, source, accum = (fl.value(x) for x in call.args)
    uint, bool_ = fl.types.id(t.UINT), fl.b.type_bool()
    low, high = (fl.b.emit("OpCompositeExtract", uint, source, i) for i in (0, 1))
    sums = fl.components(accum, t.vector(t.UINT, 4))

    def byte(word: int, index: int) -> int:
        return fl.b.emit("OpBitFieldUExtract", uint, word, fl.uint(8 * index), fl.uint(8))
    references = [byte(reference, j) for j in range(4)]
    out = []
    for i in range(4):
        window = low if i == 0 else fl.b.emit(
            "OpBitwiseOr", uint, fl.b.emit("OpShiftRightLogical", uint, low, fl.uint(8 * i)),
            fl.b.emit("OpShiftLeftLogical", uint, high, fl.uint(32 - 8 * i)))
        total = sums[i]
        for j in range(4):
            r, s_ = references[j], byte(window, j)
            difference = fl.b.emit("OpSelect", uint, fl.b.emit("OpUGreaterThan", bool_, r, s_),
                                   fl.b.emit("OpISub", uint, r, s_), fl.b.emit("OpISub", uint, s_, r))
            masked = fl.b.emit("OpSelect", uint, fl.b.emit("OpINotEqual", bool_, r, fl.uint(0)), difference,
                               fl.uint(0))
            total = fl.b.emit("OpIAdd", uint, total, masked)
        out.append(total)
    return fl.build(out, call.type)


def _add_uint64(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """AddUint64(a, b): (low, high) pairs of 32-bit words added as 64-bit numbers: OpIAddCarry on
    the low words, the carry added to the sum of the high words."""
    (a, type_), (b, _) = _args(fl, call)
    uint = fl.types.id(t.UINT)
    xs, ys = fl.components(a, type_), fl.components(b, type_)
    pair = fl.b.type_struct([uint, uint])
    out = []
    for k in range(0, len(xs), 2):
        low = fl.b.emit("OpIAddCarry", pair, xs[k], ys[k])
        sum_, carry = (fl.b.emit("OpCompositeExtract", uint, low, i) for i in (0, 1))
        high = fl.b.emit("OpIAdd", uint, fl.b.emit("OpIAdd", uint, xs[k + 1], ys[k + 1]), carry)
        out += [sum_, high]
    return fl.build(out, call.type)


def _asdouble(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """asdouble(low, high): each (low, high) pair of words bitcast to a double (dxc)."""
    (low, type_), (high, _) = _args(fl, call)
    uint2, double = fl.types.id(t.vector(t.UINT, 2)), fl.types.id(t.DOUBLE)
    pairs = zip(fl.components(low, type_), fl.components(high, type_))
    return fl.build([fl.b.emit("OpBitcast", double, fl.b.emit("OpCompositeConstruct", uint2, lo, hi))
                     for lo, hi in pairs], call.type)


def _bitcast(fl: FunctionLowering, call: ir.IntrinsicCall) -> int | None:
    if len(call.args) == 3:           # asuint(double, out uint low, out uint high)
        pair = fl.b.emit("OpBitcast", fl.types.id(t.vector(t.UINT, 2)), fl.value(call.args[0]))
        for index, arg in ((0, call.args[1]), (1, call.args[2])):
            _store_out(fl, arg, fl.b.emit("OpCompositeExtract", fl.types.id(t.UINT), pair, index), t.UINT)
        return None
    if fl.types.id(call.args[0].type) == fl.types.id(call.type):
        return fl.value(call.args[0])
    return _core("OpBitcast")(fl, call)


def _color_to_ubyte4(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """D3DCOLORtoUBYTE4(c) = int4(c.zyxw * 255.002), as dxc (255.002: the float nearest 255.001953)."""
    color, float4 = fl.value(call.args[0]), fl.types.id(t.vector(t.FLOAT, 4))
    swizzled = fl.b.emit("OpVectorShuffle", float4, color, color, 2, 1, 0, 3)
    scaled = fl.b.emit("OpVectorTimesScalar", float4, swizzled, fl.ml.constant(t.FLOAT, 255.002))
    return fl.b.emit("OpConvertFToS", fl.types.id(call.type), scaled)


def _half_packing(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """f32tof16(x) = PackHalf2x16((x, 0)), f16tof32(x) = UnpackHalf2x16(x).x, per component."""
    float_, float2, uint = fl.types.id(t.FLOAT), fl.types.id(t.vector(t.FLOAT, 2)), fl.types.id(t.UINT)
    zero = fl.ml.constant(t.FLOAT, 0.0)

    def one(x: int) -> int:
        if call.name == "f32tof16":
            return fl.b.ext_inst(uint, "PackHalf2x16", fl.b.emit("OpCompositeConstruct", float2, x, zero))
        return fl.b.emit("OpCompositeExtract", float_, fl.b.ext_inst(float2, "UnpackHalf2x16", x), 0)
    parts = fl.components(fl.value(call.args[0]), call.args[0].type)
    return fl.build([one(x) for x in parts], call.type)


# ---------------------------------------------------------------- atomics


def atomic_scope(fl: FunctionLowering, place: Place) -> int:
    return fl.ml.scope("Workgroup" if place.storage == "Workgroup" else "Device")


def _atomic(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    place = fl.place(call.args[0])
    if place is None:
        raise AssertionError(f"'{call.name}' needs a memory location")
    if call in fl.ml.options.plain_atomics:
        assert isinstance(place, Place) and place.storage == "NodePayloadAMDX", "plain atomics are on records"
        return _plain_atomic(fl, call, place, call.args[1:])
    return atomic_on(fl, call, place, call.args[1:])


_PLAIN_OPS = {"InterlockedAdd": "+", "InterlockedAnd": "&", "InterlockedOr": "|", "InterlockedXor": "^"}
_PLAIN_MIN_MAX = {"InterlockedMin": ("SMin", "UMin"), "InterlockedMax": ("SMax", "UMax")}


def _plain_atomic(fl: FunctionLowering, call: ir.IntrinsicCall, place: Place, args: tuple[ir.Expr, ...]) -> None:
    """An Interlocked* call on a node record one invocation owns (`sema.target.plain_record_atomics`):
    no other invocation reads or writes the record, so the atomic read-modify-write is exactly a
    load, the operation and a store; the out argument gets the value loaded."""
    type_ = place.type
    scalar = t.element_scalar(type_)
    assert scalar is not None
    type_id = fl.types.id(type_)
    original = fl.load(place)
    name = call.name
    if name in _PLAIN_OPS:
        new = fl.binary(_PLAIN_OPS[name], type_, type_, original, fl.value(args[0]))
        out = args[1:]
    elif name in _PLAIN_MIN_MAX:
        signed, unsigned = _PLAIN_MIN_MAX[name]
        new = fl.b.ext_inst(type_id, signed if scalar.kind is t.ScalarKind.INT else unsigned,
                            original, fl.value(args[0]))
        out = args[1:]
    elif name == "InterlockedExchange":
        new, out = fl.value(args[0]), args[1:]
    else:   # InterlockedCompare{Store,Exchange}[FloatBitwise](dest, compare, value[, original])
        compare, value = fl.value(args[0]), fl.value(args[1])
        if scalar.is_float:     # FloatBitwise: the bits are compared (-0.0 is not 0.0, a NaN may match)
            bits = fl.types.id(t.scalar(t.ScalarKind.UINT, scalar.bits))
            same = fl.b.emit("OpIEqual", fl.types.id(t.BOOL), fl.b.emit("OpBitcast", bits, original),
                             fl.b.emit("OpBitcast", bits, compare))
        else:
            same = fl.b.emit("OpIEqual", fl.types.id(t.BOOL), original, compare)
        new = fl.b.emit("OpSelect", type_id, same, value, original)
        out = args[2:]
    fl.store(place, new)
    if out:
        _store_out(fl, out[0], original, type_)
    return None


def atomic_on(fl: FunctionLowering, call: ir.IntrinsicCall | ir.MethodCall, place: object,
              args: tuple[ir.Expr, ...]) -> None:
    """An Interlocked* operation on `place` (a Place or a storage-image texel) with the remaining
    arguments (value(s), then the optional out "original value")."""
    name = getattr(call, "name", None) or call.method  # type: ignore[union-attr]
    assert not name.endswith("FloatBitwise") or not isinstance(call, ir.IntrinsicCall), \
        "sema.target rejects the float compare-exchange on a float location (WG0627)"
    if isinstance(place, resources.ImagePlace):
        type_, pointer, scope = place.type, resources.texel_pointer(fl, place), fl.ml.scope("Device")
    elif isinstance(place, Place):
        # on a shared NodePayloadAMDX record where WG0620 warned (not -Werror): DXC's atomic
        type_, pointer, scope = place.type, fl.pointer(place), atomic_scope(fl, place)
    else:
        raise AssertionError(f"'{name}' needs a memory location")
    scalar = t.element_scalar(type_)
    if scalar is not None and scalar.bits == 64:
        fl.b.capability("Int64Atomics")
    signed = scalar is not None and scalar.kind is t.ScalarKind.INT
    type_id, semantics = fl.types.id(type_), fl.ml.semantics()
    if name in ("InterlockedCompareExchange", "InterlockedCompareStore"):
        compare, value = fl.value(args[0]), fl.value(args[1])
        original = fl.b.emit("OpAtomicCompareExchange", type_id, pointer, scope, semantics, semantics,
                             value, compare)
        out = args[2:]
    else:
        op = _ATOMIC_OPS[name][0 if signed else 1]
        original = fl.b.emit(op, type_id, pointer, scope, semantics, fl.value(args[0]))
        out = args[1:]
    if out:
        _store_out(fl, out[0], original, type_)
    return None


# ---------------------------------------------------------------- barriers


def _barrier(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    first, second = call.args
    flags = constant_int(second, "the Barrier semantic flags")
    if isinstance(first.type, (t.NodeObjectType, t.ResourceType)):
        _emit_barrier(fl, 0, flags, object_memory(fl, first.type))
    else:
        _emit_barrier(fl, constant_int(first, "the Barrier memory flags"), flags)
    return None


def object_memory(fl: FunctionLowering, type_: t.NodeObjectType | t.ResourceType) -> tuple[str, ...]:
    """The storage-class semantics of `Barrier(object, ...)`: the memory the object lives in.
    A record is node-record memory (the target's `record_memory`: AMDX OutputMemory, as dxc and
    the NODE_*_MEMORY flags); a structured or byte-address buffer is UniformMemory; a typed buffer
    or texture is ImageMemory."""
    if isinstance(type_, t.NodeObjectType):
        return (fl.ml.nodes.record_memory,)
    return ("ImageMemory",) if resources.is_image(type_) else ("UniformMemory",)


RECORD_MEMORY = "record memory"
BARRIER_MEMORY = (("UAV_MEMORY", ("UniformMemory", "ImageMemory")), ("GROUP_SHARED_MEMORY", ("WorkgroupMemory",)),
                  ("NODE_INPUT_MEMORY", (RECORD_MEMORY,)), ("NODE_OUTPUT_MEMORY", (RECORD_MEMORY,)))
"""Barrier memory flag -> SPIR-V memory-semantics storage classes. UAV memory is buffers and
images (as DeviceMemoryBarrier); node records, input or output, are the target's record memory
(`NodeOperations.record_memory`): NodePayloadAMDX memory, which SPIR-V orders with OutputMemory
(dxc's choice for NODE_OUTPUT_MEMORY and record objects; dxc drops NODE_INPUT_MEMORY, which leaves
AcquireRelease with no storage class: invalid), or the emulated target's PhysicalStorageBuffer
memory, which UniformMemory orders."""


def _emit_barrier(fl: FunctionLowering, memory: int, flags: int, kinds: tuple[str, ...] = ()) -> None:
    scope = "Device" if flags & FLAGS["DEVICE_SCOPE"] else "Workgroup" if flags & FLAGS["GROUP_SCOPE"] else "Invocation"
    sync = bool(flags & FLAGS["GROUP_SYNC"])
    names = list(kinds)
    for flag, classes in BARRIER_MEMORY:
        if memory & FLAGS[flag]:
            named = [fl.ml.nodes.record_memory if c == RECORD_MEMORY else c for c in classes]
            names += [c for c in named if c not in names]
    if scope == "Invocation":         # Vulkan: Relaxed only; ordering one's own accesses is a no-op
        if not sync:
            return
        names = []
    if not names and not sync:        # no memory to order (flags only -Wno-hlsl-barrier lets through)
        return
    semantics = fl.ml.barrier_semantics(*names)
    if sync:
        fl.b.emit("OpControlBarrier", fl.ml.scope("Workgroup"), fl.ml.scope(scope), semantics)
    else:
        fl.b.emit("OpMemoryBarrier", fl.ml.scope(scope), semantics)


_LEGACY_BARRIERS = {
    # name: (memory scope, storage classes), as dxc emits them (with AcquireRelease)
    "GroupMemoryBarrier": ("Workgroup", ("WorkgroupMemory",)),
    "DeviceMemoryBarrier": ("Device", ("UniformMemory", "ImageMemory")),
    "AllMemoryBarrier": ("Device", ("UniformMemory", "WorkgroupMemory", "ImageMemory")),
}


def _legacy_barrier(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    scope, names = _LEGACY_BARRIERS[call.name.removesuffix("WithGroupSync")]
    if call.name.endswith("WithGroupSync"):
        fl.b.emit("OpControlBarrier", fl.ml.scope("Workgroup"), fl.ml.scope(scope), fl.ml.barrier_semantics(*names))
    else:
        fl.b.emit("OpMemoryBarrier", fl.ml.scope(scope), fl.ml.barrier_semantics(*names))
    return None


# ---------------------------------------------------------------- wave and quad operations

_ARITHMETIC = {  # operation: GroupNonUniform instruction for float, int, uint
    "Sum": ("FAdd", "IAdd", "IAdd"), "Product": ("FMul", "IMul", "IMul"), "Min": ("FMin", "SMin", "UMin"),
    "Max": ("FMax", "SMax", "UMax"),
    **{f"Bit{op}": (None, f"Bitwise{op}", f"Bitwise{op}") for op in ("And", "Or", "Xor")},
}
_WAVE_REDUCE = {  # name: (group operation, instruction per kind)
    **{f"WaveActive{op}": ("Reduce", dict(zip("fsu", ops))) for op, ops in _ARITHMETIC.items()},
    **{f"WavePrefix{op}": ("ExclusiveScan", dict(zip("fsu", _ARITHMETIC[op]))) for op in ("Sum", "Product")},
}


def _subgroup(fl: FunctionLowering, *capabilities: str) -> int:
    fl.b.capability("GroupNonUniform", *capabilities)
    return fl.ml.scope("Subgroup")


def _wave_reduce(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    operation, ops = _WAVE_REDUCE[call.name]
    scope = _subgroup(fl, "GroupNonUniformArithmetic")
    op = ops.get(_kind(call.type))
    if op is None:
        raise AssertionError(f"'{call.name}' of '{call.type}'")
    return fl.b.emit(f"OpGroupNonUniform{op}", fl.types.id(call.type), scope, operation, fl.value(call.args[0]))


_WAVE = {  # name: (instruction, capability); operands: Subgroup scope, the arguments
    "WaveIsFirstLane": ("OpGroupNonUniformElect", None),
    "WaveActiveBallot": ("OpGroupNonUniformBallot", "GroupNonUniformBallot"),
    "WaveReadLaneFirst": ("OpGroupNonUniformBroadcastFirst", "GroupNonUniformBallot"),
    "WaveReadLaneAt": ("OpGroupNonUniformShuffle", "GroupNonUniformShuffle"),  # the lane need not be uniform
    "WaveActiveAllTrue": ("OpGroupNonUniformAll", "GroupNonUniformVote"),
    "WaveActiveAnyTrue": ("OpGroupNonUniformAny", "GroupNonUniformVote"),
    **{f"QuadReadAcross{d}": ("OpGroupNonUniformQuadSwap", "GroupNonUniformQuad") for d in ("X", "Y", "Diagonal")},
}
_QUAD_DIRECTION = {"QuadReadAcrossX": 0, "QuadReadAcrossY": 1, "QuadReadAcrossDiagonal": 2}


def _wave(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    op, capability = _WAVE[call.name]
    scope = _subgroup(fl, *([capability] if capability else []))
    operands = [fl.value(a) for a in call.args]
    if call.name in _QUAD_DIRECTION:
        operands.append(fl.uint(_QUAD_DIRECTION[call.name]))
    return fl.b.emit(op, fl.types.id(call.type), scope, *operands)


def _wave_count_bits(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    value = fl.value(call.args[0])
    scope = _subgroup(fl, "GroupNonUniformBallot")
    ballot = fl.b.emit("OpGroupNonUniformBallot", fl.types.id(t.vector(t.UINT, 4)), scope, value)
    operation = "Reduce" if call.name == "WaveActiveCountBits" else "ExclusiveScan"
    return fl.b.emit("OpGroupNonUniformBallotBitCount", fl.types.id(t.UINT), scope, operation, ballot)


def _wave_all_equal(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    scope = _subgroup(fl, "GroupNonUniformVote")           # component by component
    parts = fl.components(fl.value(call.args[0]), call.args[0].type)
    return fl.build([fl.b.emit("OpGroupNonUniformAllEqual", fl.b.type_bool(), scope, p) for p in parts], call.type)


def _lane_index(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    _subgroup(fl)
    return _builtin_load(fl, "SubgroupLocalInvocationId" if call.name == "WaveGetLaneIndex" else "SubgroupSize")


_MULTI_PREFIX = {f"WaveMultiPrefix{op}": dict(zip("fsu", _ARITHMETIC[op]))
                 for op in ("Sum", "Product", "BitAnd", "BitOr", "BitXor")}
"""WaveMultiPrefix*: the instruction per kind, with PartitionedExclusiveScanNV over the mask."""


def _partitioned(fl: FunctionLowering) -> int:
    """SPV_NV_shader_subgroup_partitioned (dxc's lowering of WaveMatch and WaveMultiPrefix*)."""
    fl.b.extension("SPV_NV_shader_subgroup_partitioned")
    return _subgroup(fl, "GroupNonUniformPartitionedNV")


def _wave_match(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    value = fl.value(call.args[0])
    _partitioned(fl)
    return fl.b.emit("OpGroupNonUniformPartitionNV", fl.types.id(call.type), value)


def _wave_multi_prefix(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """WaveMultiPrefix<op>(value, mask): the op's exclusive scan over the lanes of `mask`'s partition;
    CountBits scans (value ? 1 : 0) with IAdd."""
    value, mask = fl.value(call.args[0]), fl.value(call.args[1])
    scope = _partitioned(fl)
    if call.name == "WaveMultiPrefixCountBits":
        op, value = "IAdd", fl.b.emit("OpSelect", fl.types.id(t.UINT), value, fl.uint(1), fl.uint(0))
    else:
        op = _MULTI_PREFIX[call.name][_kind(call.type)]           # type: ignore[assignment]
        assert op is not None, f"sema's table gives '{call.name}' integer operands only"
    return fl.b.emit(f"OpGroupNonUniform{op}", fl.types.id(call.type), scope, "PartitionedExclusiveScanNV",
                     value, mask)


def _quad_read_lane(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    value, lane = fl.value(call.args[0]), fl.value(call.args[1])
    scope = _subgroup(fl, "GroupNonUniformQuad")
    return fl.b.emit("OpGroupNonUniformQuadBroadcast", fl.types.id(call.type), scope, value, lane)


def _quad_any_all(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """QuadAny/QuadAll without SPV_KHR_quad_control, as dxc: the value of every lane of the quad
    (QuadSwap in directions 0, 1, 2), combined with OpLogicalOr/OpLogicalAnd."""
    value = fl.value(call.args[0])
    scope = _subgroup(fl, "GroupNonUniformQuad")
    bool_, op = fl.b.type_bool(), ("OpLogicalOr" if call.name == "QuadAny" else "OpLogicalAnd")
    result = value
    for direction in range(3):
        other = fl.b.emit("OpGroupNonUniformQuadSwap", bool_, scope, value, fl.uint(direction))
        result = fl.b.emit(op, bool_, result, other)
    return result


# ---------------------------------------------------------------- resources


def _non_uniform_index(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """NonUniformResourceIndex(i): a copy of i decorated NonUniform (dxc); the resource accesses it
    indexes are decorated by `resources.decorate_non_uniform`."""

    copy = fl.b.emit("OpCopyObject", fl.types.id(call.type), fl.value(call.args[0]))
    resources.mark_non_uniform(fl, copy)
    return copy


def _check_access_fully_mapped(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """CheckAccessFullyMapped(status) = status != 0: wgc's statuses come from non-sparse accesses,
    which report 1 (dxc's OpImageSparseTexelsResident needs a sparse residency code)."""
    return fl.b.emit("OpINotEqual", fl.b.type_bool(), fl.value(call.args[0]), fl.uint(0))


def _is_helper_lane(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    """IsHelperLane() is false outside pixel shaders (D3D SM 6.6): compute and node shaders have
    no helper lanes (dxc loads the HelperInvocation built-in, which Vulkan allows in fragment
    shaders only)."""
    return fl.ml.constant(t.BOOL, False)


def _printf(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    """printf(format, args...): NonSemantic.DebugPrintf's DebugPrintf (instruction 1) with the
    format as an OpString and the arguments as they are, as dxc (which also widens floats to
    double, the C promotion; wgc keeps them 32-bit, as Vulkan's debugPrintf reads %f)."""
    folded = fold(call.args[0])
    assert isinstance(folded, Folded) and isinstance(folded.value, str), "sema.target: WG0626"
    if fl.ml.nodes.printf(fl, folded.value, list(call.args[1:])):    # the emulated target's print buffer
        return None
    fl.b.extension("SPV_KHR_non_semantic_info")
    instructions = fl.b.ext_inst_import("NonSemantic.DebugPrintf")
    values = [fl.b.string(_string_literal(a)) if isinstance(a.type, t.StringType) else fl.value(a)
              for a in call.args[1:]]                       # a string argument is an OpString, as dxc's
    fl.b.emit("OpExtInst", fl.b.type_void(), instructions, 1, fl.b.string(folded.value), *values)
    return None


def _string_literal(arg: ir.Expr) -> str:
    folded = fold(arg)
    assert isinstance(folded, Folded) and isinstance(folded.value, str), "sema.target: WG0626"
    return folded.value


# ---------------------------------------------------------------- work graphs


def _builtin_load(fl: FunctionLowering, name: str) -> int:
    var = fl.ml.builtin(name, t.UINT)
    fl.use_global(var)
    return fl.b.emit("OpLoad", fl.types.id(t.UINT), var)


def _remaining_recursion_levels(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    unrolled = loop_stages.remaining_recursion_levels(fl)    # index space: 0 in a self-feeding loop entry
    return unrolled if unrolled is not None else fl.ml.nodes.remaining_recursion_levels(fl)


def _loop_iteration(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    unrolled = loop_stages.iteration(fl)     # index space: from the stage's index
    return unrolled if unrolled is not None else fl.ml.nodes.loop_iteration_index(fl)


_HANDLERS: dict[str, Callable[[FunctionLowering, ir.IntrinsicCall], int | None]] = {
    **{name: _glsl for name in _GLSL},
    "log10": _log10, "saturate": _saturate, "rcp": _rcp, "fmod": _core("OpFRem"), "mad": _mad,
    "sign": _sign, "modf": _modf_frexp, "frexp": _modf_frexp,
    **{name: _classify for name in ("isnan", "isinf", "isfinite")}, "all": _all_any, "any": _all_any,
    "dot": _dot, "mul": _mul, "transpose": _transpose, "select": _select,
    **{name: _bits for name in ("countbits", "firstbithigh", "firstbitlow", "reversebits")},
    "asuint": _bitcast, "asint": _bitcast, "asfloat": _bitcast,
    **{name: _bitcast for name in ("asfloat16", "asint16", "asuint16")},
    "and": _core("OpLogicalAnd"), "or": _core("OpLogicalOr"), "D3DCOLORtoUBYTE4": _color_to_ubyte4, "f32tof16": _half_packing, "f16tof32": _half_packing,
    **{name: _atomic for name in (*_ATOMIC_OPS, "InterlockedCompareExchange", "InterlockedCompareStore",
                                  "InterlockedCompareStoreFloatBitwise", "InterlockedCompareExchangeFloatBitwise")},
    "Barrier": _barrier, **{name + sync: _legacy_barrier for name in _LEGACY_BARRIERS
                            for sync in ("", "WithGroupSync")},
    **{name: _wave_reduce for name in _WAVE_REDUCE},
    **{name: _wave for name in _WAVE}, "WaveActiveAllEqual": _wave_all_equal,
    "WaveActiveCountBits": _wave_count_bits, "WavePrefixCountBits": _wave_count_bits,
    "WaveGetLaneIndex": _lane_index, "WaveGetLaneCount": _lane_index,
    "GetRemainingRecursionLevels": _remaining_recursion_levels,
    "GetCurrentLoopIterationIndex": _loop_iteration,
    "ldexp": _ldexp, "sincos": _sincos, "isnormal": _isnormal, "dst": _dst, "lit": _lit,
    **{name: _derivative for name in _DERIVATIVES},
    "dot4add_u8packed": _dot4add, "dot4add_i8packed": _dot4add, "dot2add": _dot2add, "msad4": _msad4,
    "AddUint64": _add_uint64, "asdouble": _asdouble,
    **{name: _pack8 for name in ("pack_u8", "pack_s8", "pack_clamp_u8", "pack_clamp_s8")},
    **{name: _unpack8 for name in ("unpack_u8u32", "unpack_s8s32", "unpack_u8u16", "unpack_s8s16")},
    "WaveMatch": _wave_match, **{name: _wave_multi_prefix for name in (*_MULTI_PREFIX, "WaveMultiPrefixCountBits")},
    "QuadReadLaneAt": _quad_read_lane, "QuadAny": _quad_any_all, "QuadAll": _quad_any_all,
    "printf": _printf, "NonUniformResourceIndex": _non_uniform_index, "IsHelperLane": _is_helper_lane,
    "SetMeshOutputCounts": stageio.set_mesh_output_counts, "DispatchMesh": stageio.dispatch_mesh, "CheckAccessFullyMapped": _check_access_fully_mapped,
}
