"""Intrinsic functions in SPIR-V: math, atomics, barriers, wave operations (SPIR-V back end).

Input: an `ir.IntrinsicCall` (overload already chosen by sema: arguments have the parameter
types) and the `FunctionLowering` that emits it.
Output: the instructions computing it; the result id (None for void intrinsics).

Invariants:
- Atomics use the scope of the memory they touch (Workgroup for groupshared, Device otherwise)
  and relaxed semantics, as dxc does.
- Barrier(memory flags, semantic flags) follows dxc: GROUP_SYNC makes an OpControlBarrier,
  otherwise an OpMemoryBarrier; the scope is Device/Workgroup/Invocation from the scope flags;
  semantics are AcquireRelease plus the memory kinds; NODE_OUTPUT_MEMORY is OutputMemory (the
  module then uses the Vulkan memory model); an object argument orders all memory.
"""

from __future__ import annotations

from wgc import ir
from wgc import types as t
from wgc.sema.consteval import Folded, fold
from wgc.sema.intrinsics import BARRIER_CONSTANTS as FLAGS

from .lower import FunctionLowering, Place, Unsupported

_ATOMIC_OPS = {
    "InterlockedAdd": ("OpAtomicIAdd", "OpAtomicIAdd"),
    "InterlockedAnd": ("OpAtomicAnd", "OpAtomicAnd"),
    "InterlockedOr": ("OpAtomicOr", "OpAtomicOr"),
    "InterlockedXor": ("OpAtomicXor", "OpAtomicXor"),
    "InterlockedMin": ("OpAtomicSMin", "OpAtomicUMin"),
    "InterlockedMax": ("OpAtomicSMax", "OpAtomicUMax"),
    "InterlockedExchange": ("OpAtomicExchange", "OpAtomicExchange"),
}


def lower(fl: FunctionLowering, call: ir.IntrinsicCall) -> int | None:
    handler = _HANDLERS.get(call.name)
    if handler is None:
        raise Unsupported(call.span, f"intrinsic '{call.name}' is not supported by the SPIR-V back end yet")
    return handler(fl, call)


def atomic_scope(fl: FunctionLowering, place: Place) -> int:
    return fl.ml.scope("Workgroup" if place.storage == "Workgroup" else "Device")


def _atomic(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    place = fl.place(call.args[0])
    if place is None:
        raise Unsupported(call.span, f"'{call.name}' needs a memory location")
    return atomic_on(fl, call, place, call.args[1:])


def atomic_on(fl: FunctionLowering, call: ir.IntrinsicCall | ir.MethodCall, place: object,
              args: tuple[ir.Expr, ...]) -> None:
    """An Interlocked* operation on `place` (a Place or a storage-image texel) with the remaining
    arguments (value(s), then the optional out "original value")."""
    from .resources import ImagePlace, texel_pointer

    name = getattr(call, "name", None) or call.method  # type: ignore[union-attr]
    if isinstance(place, ImagePlace):
        type_, pointer, scope = place.type, texel_pointer(fl, place), fl.ml.scope("Device")
    elif isinstance(place, Place):
        if place.storage == "NodePayloadAMDX":
            raise Unsupported(call.span, f"'{name}' on a node record cannot be expressed: spirv-val "
                              "does not allow atomic operations on NodePayloadAMDX memory")
        type_, pointer, scope = place.type, fl.pointer(place), atomic_scope(fl, place)
    else:
        raise Unsupported(call.span, f"'{name}' needs a memory location")
    signed = t.element_scalar(type_).kind is t.ScalarKind.INT
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
        fl.store(fl.place(out[0]), fl.convert(original, type_, out[0].type))
    return None


def constant_int(expr: ir.Expr, what: str) -> int:
    """The value of an argument that must be an integer constant."""
    folded = fold(expr)
    if not isinstance(folded, Folded) or isinstance(folded.value, (tuple, str, float)):
        raise Unsupported(expr.span, f"{what} must be a constant")
    return int(folded.value)


def _barrier(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    first, second = call.args
    if isinstance(first.type, t.NodeObjectType):
        memory = FLAGS["ALL_MEMORY"]
    else:
        memory = constant_int(first, "the Barrier memory flags")
    _emit_barrier(fl, memory, constant_int(second, "the Barrier semantic flags"))
    return None


def _emit_barrier(fl: FunctionLowering, memory: int, flags: int) -> None:
    if memory == 0 and flags == 0:
        return
    if flags & FLAGS["DEVICE_SCOPE"]:
        scope = "Device"
    elif flags & FLAGS["GROUP_SCOPE"]:
        scope = "Workgroup"
    else:
        scope = "Invocation"
    names = ["AcquireRelease"]
    if memory & FLAGS["UAV_MEMORY"]:
        names.append("UniformMemory")
    if memory & FLAGS["GROUP_SHARED_MEMORY"]:
        names.append("WorkgroupMemory")
    if memory & FLAGS["NODE_OUTPUT_MEMORY"]:
        names.append("OutputMemory")
    semantics = fl.ml.semantics(*names) if memory else fl.ml.semantics()
    if flags & FLAGS["GROUP_SYNC"]:
        fl.b.emit("OpControlBarrier", fl.ml.scope("Workgroup"), fl.ml.scope(scope), semantics)
    else:
        fl.b.emit("OpMemoryBarrier", fl.ml.scope(scope), semantics)


def _remaining_recursion_levels(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return _builtin_load(fl, "RemainingRecursionLevelsAMDX")


def _builtin_load(fl: FunctionLowering, name: str) -> int:
    var = fl.ml.builtin(name, t.UINT)
    fl.use_global(var)
    return fl.b.emit("OpLoad", fl.types.id(t.UINT), var)


# ---------------------------------------------------------------- math


def _kind(type_: t.Type) -> str:
    """"f", "s" or "u" (or "b" for bool) of a numeric type's scalar."""
    scalar = t.element_scalar(type_)
    if scalar is None:
        return ""
    if scalar.kind is t.ScalarKind.BOOL:
        return "b"
    return "f" if scalar.is_float else ("s" if scalar.kind is t.ScalarKind.INT else "u")


# name -> GLSL.std.450 instruction per scalar kind ("" = every kind); the arguments are the call's
_GLSL = {
    "sqrt": {"f": "Sqrt"}, "rsqrt": {"f": "InverseSqrt"}, "exp": {"f": "Exp"}, "exp2": {"f": "Exp2"},
    "log": {"f": "Log"}, "log2": {"f": "Log2"}, "sin": {"f": "Sin"}, "cos": {"f": "Cos"},
    "tan": {"f": "Tan"}, "asin": {"f": "Asin"}, "acos": {"f": "Acos"}, "atan": {"f": "Atan"},
    "sinh": {"f": "Sinh"}, "cosh": {"f": "Cosh"}, "tanh": {"f": "Tanh"}, "floor": {"f": "Floor"},
    "ceil": {"f": "Ceil"}, "round": {"f": "RoundEven"}, "trunc": {"f": "Trunc"}, "frac": {"f": "Fract"},
    "pow": {"f": "Pow"}, "atan2": {"f": "Atan2"}, "lerp": {"f": "FMix"}, "smoothstep": {"f": "SmoothStep"},
    "abs": {"f": "FAbs", "s": "SAbs"}, "min": {"f": "FMin", "s": "SMin", "u": "UMin"},
    "max": {"f": "FMax", "s": "SMax", "u": "UMax"}, "clamp": {"f": "FClamp", "s": "SClamp", "u": "UClamp"},
    "fma": {"f": "Fma"}, "firstbitlow": {"s": "FindILsb", "u": "FindILsb"},
    "firstbithigh": {"s": "FindSMsb", "u": "FindUMsb"},
    "length": {"f": "Length"}, "distance": {"f": "Distance"}, "normalize": {"f": "Normalize"},
    "cross": {"f": "Cross"}, "reflect": {"f": "Reflect"}, "refract": {"f": "Refract"},
    "faceforward": {"f": "FaceForward"}, "determinant": {"f": "Determinant"},
}


def _glsl(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    kind = _kind(call.args[0].type)
    op = _GLSL[call.name].get(kind)
    if op is None:
        if call.name == "abs" and kind == "u":
            return fl.value(call.args[0])
        raise Unsupported(call.span, f"'{call.name}' of '{call.args[0].type}' has no SPIR-V instruction")
    return _ext(fl, call.type, op, [fl.value(a) for a in call.args])


def _ext(fl: FunctionLowering, type_: t.Type, op: str, args: list[int]) -> int:
    """A GLSL.std.450 instruction of result `type_` (row by row on a float matrix: the extended
    instructions take scalars and vectors only)."""
    if fl.types.is_float_matrix(type_) and op != "Determinant":
        return fl._per_row(type_, lambda row, *parts: fl.b.ext_inst(row, op, *parts), *args)
    return fl.b.ext_inst(fl.types.id(type_), op, *args)


def _core(op: str):  # type: ignore[no-untyped-def]
    """A core instruction on the call's arguments, with the call's type."""
    def lower_core(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
        return fl.b.emit(op, fl.types.id(call.type), *(fl.value(a) for a in call.args))
    return lower_core


def _log10(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    log2 = _ext(fl, call.type, "Log2", [fl.value(call.args[0])])
    return fl.binary("*", call.type, call.type, log2, fl.ml.constant(call.type, 0.30102999566398120))


def _step(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    # HLSL step(y, x) = x >= y ? 1 : 0 = GLSL step(edge = y, x)
    return _ext(fl, call.type, "Step", [fl.value(call.args[0]), fl.value(call.args[1])])


def _saturate(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return _ext(fl, call.type, "FClamp", [fl.value(call.args[0]), fl.ml.constant(call.type, 0.0),
                                          fl.ml.constant(call.type, 1.0)])


def _rcp(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return fl.binary("/", call.type, call.type, fl.ml.constant(call.type, 1.0), fl.value(call.args[0]))


def _fmod(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return fl.binary("%", call.type, call.type, fl.value(call.args[0]), fl.value(call.args[1]))


def _mad(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    a, b, c = (fl.value(x) for x in call.args)
    return fl.binary("+", call.type, call.type, fl.binary("*", call.type, call.type, a, b), c)


def _sign(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    source = call.args[0].type
    kind = _kind(source)
    value = fl.value(call.args[0])
    if kind == "u":   # sign of an unsigned value: 0 or 1
        return fl.convert(fl.binary("!=", source, t.with_element(source, t.BOOL), value,
                                    fl.ml.constant(source, 0)), t.with_element(source, t.BOOL), call.type)
    result = fl.b.ext_inst(fl.types.id(source), "FSign" if kind == "f" else "SSign", value)
    return fl.convert(result, source, call.type)


def _modf_frexp(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    type_id = fl.types.id(call.type)
    second = t.with_element(call.type, t.INT) if call.name == "frexp" else call.type
    struct = fl.b.type_struct([type_id, fl.types.id(second)])
    result = fl.b.ext_inst(struct, "ModfStruct" if call.name == "modf" else "FrexpStruct",
                           fl.value(call.args[0]))
    part = fl.b.emit("OpCompositeExtract", fl.types.id(second), result, 1)
    out = fl.place(call.args[1])
    fl.store(out, fl.convert(part, second, call.args[1].type))
    return fl.b.emit("OpCompositeExtract", type_id, result, 0)


def _isfinite(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    type_id = fl.types.id(call.type)
    value = fl.value(call.args[0])
    bad = fl.b.emit("OpLogicalOr", type_id, fl.b.emit("OpIsNan", type_id, value),
                    fl.b.emit("OpIsInf", type_id, value))
    return fl.b.emit("OpLogicalNot", type_id, bad)


def _all_any(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    source = call.args[0].type
    as_bool = t.with_element(fl.types.shape(source), t.BOOL)
    value = fl.convert(fl.value(call.args[0]), source, as_bool)
    if isinstance(fl.types.shape(as_bool), t.ScalarType):
        return value
    op = "OpLogicalAnd" if call.name == "all" else "OpLogicalOr"
    parts = fl.components(value, as_bool)          # matrices too: fold the components
    result = parts[0]
    for part in parts[1:]:
        result = fl.b.emit(op, fl.b.type_bool(), result, part)
    return result


def _dot(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    a, b = fl.value(call.args[0]), fl.value(call.args[1])
    vector = call.args[0].type
    if _kind(vector) == "f" and isinstance(fl.types.shape(vector), t.VectorType):
        return fl.b.emit("OpDot", fl.types.id(call.type), a, b)
    product = fl.binary("*", vector, vector, a, b)
    parts = fl.components(product, vector)
    total = parts[0]
    for part in parts[1:]:
        total = fl.binary("+", call.type, call.type, total, part)
    return total


def _mul(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    left_type, right_type = (fl.types.shape(a.type) for a in call.args)
    a, b = fl.value(call.args[0]), fl.value(call.args[1])
    result = fl.types.id(call.type)
    scalar_l, scalar_r = isinstance(left_type, t.ScalarType), isinstance(right_type, t.ScalarType)
    float_ = _kind(call.type) == "f"
    if scalar_l and scalar_r:
        return fl.binary("*", call.type, call.type, a, b)
    if scalar_l or scalar_r:
        scalar, other, other_type = (a, b, right_type) if scalar_l else (b, a, left_type)
        if float_ and isinstance(other_type, t.VectorType):
            return fl.b.emit("OpVectorTimesScalar", result, other, scalar)
        if float_ and isinstance(other_type, t.MatrixType):
            return fl.b.emit("OpMatrixTimesScalar", result, other, scalar)
        splat = fl.convert(scalar, call.args[0 if scalar_l else 1].type, other_type)
        return fl.binary("*", other_type, other_type, other, splat)
    vector_l, vector_r = isinstance(left_type, t.VectorType), isinstance(right_type, t.VectorType)
    if vector_l and vector_r:
        return _dot(fl, call)
    if not float_:
        raise Unsupported(call.span, f"mul of integer matrices ('{left_type}', '{right_type}')")
    if vector_l:                      # mul(v, M): SPIR-V sees M transposed
        return fl.b.emit("OpMatrixTimesVector", result, b, a)
    if vector_r:                      # mul(M, v)
        return fl.b.emit("OpVectorTimesMatrix", result, b, a)
    return fl.b.emit("OpMatrixTimesMatrix", result, b, a)


def _transpose(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    value = fl.value(call.args[0])
    if fl.types.is_float_matrix(call.args[0].type) and fl.types.is_float_matrix(call.type):
        return fl.b.emit("OpTranspose", fl.types.id(call.type), value)
    source = fl.types.shape(call.args[0].type)
    parts = fl.components(value, source)
    if not isinstance(source, t.MatrixType):
        return fl.build(parts, call.type)
    rows, columns = source.rows, source.columns
    return fl.build([parts[r * columns + c] for c in range(columns) for r in range(rows)], call.type)


def _select(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    cond, a, b = (fl.value(x) for x in call.args)
    cond_shape = fl.types.shape(call.args[0].type)
    result_shape = fl.types.shape(call.type)
    if isinstance(cond_shape, t.ScalarType) and not isinstance(result_shape, t.ScalarType):
        cond = fl.convert(cond, call.args[0].type, t.with_element(result_shape, t.BOOL))
    if isinstance(result_shape, t.MatrixType):
        return fl._per_row(call.type, lambda row, c, x, y: fl.b.emit("OpSelect", row, c, x, y), cond, a, b)
    return fl.b.emit("OpSelect", fl.types.id(call.type), cond, a, b)


def _countbits(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    source = call.args[0].type
    counted = fl.b.emit("OpBitCount", fl.types.id(source), fl.value(call.args[0]))
    return fl.convert(counted, source, call.type)


def _firstbit(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    source = call.args[0].type
    op = _GLSL[call.name][_kind(source)]
    return fl.convert(fl.b.ext_inst(fl.types.id(source), op, fl.value(call.args[0])), source, call.type)


def _bitcast(fl: FunctionLowering, call: ir.IntrinsicCall) -> int | None:
    if len(call.args) == 3:           # asuint(double, out uint low, out uint high)
        pair = fl.b.emit("OpBitcast", fl.types.id(t.vector(t.UINT, 2)), fl.value(call.args[0]))
        for index, arg in ((0, call.args[1]), (1, call.args[2])):
            part = fl.b.emit("OpCompositeExtract", fl.types.id(t.UINT), pair, index)
            fl.store(fl.place(arg), fl.convert(part, t.UINT, arg.type))
        return None
    value = fl.value(call.args[0])
    if fl.types.id(call.args[0].type) == fl.types.id(call.type):
        return value
    if isinstance(fl.types.shape(call.type), t.MatrixType):
        return fl._per_row(call.type, lambda row, part: fl.b.emit("OpBitcast", row, part), value)
    return fl.b.emit("OpBitcast", fl.types.id(call.type), value)


def _per_component(fl: FunctionLowering, call: ir.IntrinsicCall, scalar_op) -> int:  # type: ignore[no-untyped-def]
    """Apply `scalar_op(value) -> id` to each component of the argument."""
    source = call.args[0].type
    parts = fl.components(fl.value(call.args[0]), source)
    return fl.build([scalar_op(p) for p in parts], call.type)


def _f32tof16(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    float2 = fl.types.id(t.vector(t.FLOAT, 2))
    zero = fl.ml.constant(t.FLOAT, 0.0)
    return _per_component(fl, call, lambda x: fl.b.ext_inst(
        fl.types.id(t.UINT), "PackHalf2x16", fl.b.emit("OpCompositeConstruct", float2, x, zero)))


def _f16tof32(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    float2 = fl.types.id(t.vector(t.FLOAT, 2))
    return _per_component(fl, call, lambda x: fl.b.emit(
        "OpCompositeExtract", fl.types.id(t.FLOAT), fl.b.ext_inst(float2, "UnpackHalf2x16", x), 0))


# ---------------------------------------------------------------- legacy barriers


_LEGACY_BARRIERS = {
    # name: (memory scope, semantics)
    "GroupMemoryBarrier": ("Workgroup", ("AcquireRelease", "WorkgroupMemory")),
    "DeviceMemoryBarrier": ("Device", ("AcquireRelease", "UniformMemory", "ImageMemory")),
    "AllMemoryBarrier": ("Device", ("AcquireRelease", "UniformMemory", "WorkgroupMemory", "ImageMemory")),
}


def _legacy_barrier(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    sync = call.name.endswith("WithGroupSync")
    scope, semantics = _LEGACY_BARRIERS[call.name.removesuffix("WithGroupSync")]
    if sync:
        fl.b.emit("OpControlBarrier", fl.ml.scope("Workgroup"), fl.ml.scope(scope), fl.ml.semantics(*semantics))
    else:
        fl.b.emit("OpMemoryBarrier", fl.ml.scope(scope), fl.ml.semantics(*semantics))
    return None


# ---------------------------------------------------------------- wave and quad operations


_WAVE_REDUCE = {
    # name: (group operation, instruction per kind)
    "WaveActiveSum": ("Reduce", {"f": "OpGroupNonUniformFAdd", "s": "OpGroupNonUniformIAdd",
                                 "u": "OpGroupNonUniformIAdd"}),
    "WaveActiveProduct": ("Reduce", {"f": "OpGroupNonUniformFMul", "s": "OpGroupNonUniformIMul",
                                     "u": "OpGroupNonUniformIMul"}),
    "WaveActiveMin": ("Reduce", {"f": "OpGroupNonUniformFMin", "s": "OpGroupNonUniformSMin",
                                 "u": "OpGroupNonUniformUMin"}),
    "WaveActiveMax": ("Reduce", {"f": "OpGroupNonUniformFMax", "s": "OpGroupNonUniformSMax",
                                 "u": "OpGroupNonUniformUMax"}),
    "WavePrefixSum": ("ExclusiveScan", {"f": "OpGroupNonUniformFAdd", "s": "OpGroupNonUniformIAdd",
                                        "u": "OpGroupNonUniformIAdd"}),
    "WavePrefixProduct": ("ExclusiveScan", {"f": "OpGroupNonUniformFMul", "s": "OpGroupNonUniformIMul",
                                            "u": "OpGroupNonUniformIMul"}),
    "WaveActiveBitAnd": ("Reduce", {"s": "OpGroupNonUniformBitwiseAnd", "u": "OpGroupNonUniformBitwiseAnd"}),
    "WaveActiveBitOr": ("Reduce", {"s": "OpGroupNonUniformBitwiseOr", "u": "OpGroupNonUniformBitwiseOr"}),
    "WaveActiveBitXor": ("Reduce", {"s": "OpGroupNonUniformBitwiseXor", "u": "OpGroupNonUniformBitwiseXor"}),
}


def _subgroup(fl: FunctionLowering, *capabilities: str) -> int:
    fl.b.capability("GroupNonUniform", *capabilities)
    return fl.ml.scope("Subgroup")


def _wave_reduce(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    operation, ops = _WAVE_REDUCE[call.name]
    scope = _subgroup(fl, "GroupNonUniformArithmetic")
    op = ops.get(_kind(call.type))
    if op is None:
        raise Unsupported(call.span, f"'{call.name}' of '{call.type}'")
    return fl.b.emit(op, fl.types.id(call.type), scope, operation, fl.value(call.args[0]))


def _ballot(fl: FunctionLowering, value: int) -> int:
    scope = _subgroup(fl, "GroupNonUniformBallot")
    return fl.b.emit("OpGroupNonUniformBallot", fl.types.id(t.vector(t.UINT, 4)), scope, value)


def _wave_count_bits(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    ballot = _ballot(fl, fl.value(call.args[0]))
    operation = "Reduce" if call.name == "WaveActiveCountBits" else "ExclusiveScan"
    return fl.b.emit("OpGroupNonUniformBallotBitCount", fl.types.id(t.UINT), fl.ml.scope("Subgroup"),
                     operation, ballot)


def _wave_ballot(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return _ballot(fl, fl.value(call.args[0]))


def _wave_vote(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    scope = _subgroup(fl, "GroupNonUniformVote")
    if call.name == "WaveActiveAllEqual":
        value = fl.value(call.args[0])
        parts = fl.components(value, call.args[0].type)
        equal = [fl.b.emit("OpGroupNonUniformAllEqual", fl.b.type_bool(), scope, p) for p in parts]
        return fl.build(equal, call.type)
    op = "OpGroupNonUniformAll" if call.name == "WaveActiveAllTrue" else "OpGroupNonUniformAny"
    return fl.b.emit(op, fl.b.type_bool(), scope, fl.value(call.args[0]))


def _wave_elect(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    return fl.b.emit("OpGroupNonUniformElect", fl.b.type_bool(), _subgroup(fl))


def _wave_read_first(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    scope = _subgroup(fl, "GroupNonUniformBallot")
    return fl.b.emit("OpGroupNonUniformBroadcastFirst", fl.types.id(call.type), scope, fl.value(call.args[0]))


def _wave_read_lane(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    scope = _subgroup(fl, "GroupNonUniformShuffle")
    return fl.b.emit("OpGroupNonUniformShuffle", fl.types.id(call.type), scope, fl.value(call.args[0]),
                     fl.value(call.args[1]))


def _quad(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    scope = _subgroup(fl, "GroupNonUniformQuad")
    direction = {"QuadReadAcrossX": 0, "QuadReadAcrossY": 1, "QuadReadAcrossDiagonal": 2}[call.name]
    return fl.b.emit("OpGroupNonUniformQuadSwap", fl.types.id(call.type), scope, fl.value(call.args[0]),
                     fl.uint(direction))


def _lane_index(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    _subgroup(fl)
    return _builtin_load(fl, "SubgroupLocalInvocationId" if call.name == "WaveGetLaneIndex" else "SubgroupSize")


def _loop_iteration(fl: FunctionLowering, call: ir.IntrinsicCall) -> int:
    raise Unsupported(call.span, "GetCurrentLoopIterationIndex() belongs to work-graph loops, which "
                      "SPV_AMDX_shader_enqueue cannot express yet")


_HANDLERS = {
    **{name: _atomic for name in (*_ATOMIC_OPS, "InterlockedCompareExchange", "InterlockedCompareStore")},
    "Barrier": _barrier,
    **{name + sync: _legacy_barrier for name in _LEGACY_BARRIERS for sync in ("", "WithGroupSync")},
    "GetRemainingRecursionLevels": _remaining_recursion_levels,
    "GetCurrentLoopIterationIndex": _loop_iteration,
    **{name: _glsl for name in _GLSL if name not in ("firstbithigh", "firstbitlow")},
    "firstbithigh": _firstbit, "firstbitlow": _firstbit,
    "log10": _log10, "step": _step, "saturate": _saturate, "rcp": _rcp, "fmod": _fmod, "mad": _mad,
    "sign": _sign, "modf": _modf_frexp, "frexp": _modf_frexp, "isnan": _core("OpIsNan"),
    "isinf": _core("OpIsInf"), "isfinite": _isfinite, "all": _all_any, "any": _all_any, "dot": _dot,
    "mul": _mul, "transpose": _transpose, "select": _select, "countbits": _countbits,
    "reversebits": _core("OpBitReverse"), "asuint": _bitcast, "asint": _bitcast, "asfloat": _bitcast,
    "f32tof16": _f32tof16, "f16tof32": _f16tof32,
    **{name: _wave_reduce for name in _WAVE_REDUCE},
    "WaveActiveCountBits": _wave_count_bits, "WavePrefixCountBits": _wave_count_bits,
    "WaveActiveBallot": _wave_ballot, "WaveActiveAllTrue": _wave_vote, "WaveActiveAnyTrue": _wave_vote,
    "WaveActiveAllEqual": _wave_vote, "WaveIsFirstLane": _wave_elect, "WaveReadLaneFirst": _wave_read_first,
    "WaveReadLaneAt": _wave_read_lane, "QuadReadAcrossX": _quad, "QuadReadAcrossY": _quad,
    "QuadReadAcrossDiagonal": _quad, "WaveGetLaneIndex": _lane_index, "WaveGetLaneCount": _lane_index,
}
