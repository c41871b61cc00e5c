"""Semantic analysis, intrinsics: HLSL's global intrinsic functions as typed overload
sets, and overload resolution of a call against its argument types.

Input: an intrinsic's name (case-sensitive, as HLSL spells it) and the types of
the call's arguments (`wgc.types`; literals already typed `int`/`float`).
Output: `Resolved` (the concrete parameter and result types, and which
parameters are `out`/`inout`), or `NoMatch` / `Ambiguous` with human-readable
candidate signatures for the diagnostic.

The overload sets are data: `_TABLE` maps each name to signature templates
written in a small declaration language modelled on dxc's intrinsic table:

    T<> lerp(T<>, T<>, T<>)          where T is a component class (float-like, ...)

A parameter or result pattern is `[out |inout ]<component><shape>`:
- component: a component variable declared with the signature (`T`), a concrete
  scalar (`uint`, `bool`, `float`, ...), `void`, or `object` (any resource or
  node object, taken as it is);
- shape: nothing (scalar), `<>` (the signature's one shape variable: scalar,
  vector or matrix, all uses the same), `<N>` (vector) or `<R,C>` (matrix), where
  each dimension is a digit or a dimension variable (`N`, `M`, `R`, `C`, `K`).

A trailing `...` takes any further arguments as they are (`void printf(string, ...)`).

Binding a template to the arguments (the `in` arguments only; `out` arguments
receive the result and do not steer it):
- a component variable is the common component of its arguments (HLSL's
  arithmetic rule, `conversions.arithmetic_scalar`), then mapped into its class
  (`int` becomes `float` for a float-like class; a class may refuse, e.g. a float
  for an int-like class);
- the shape variable is the widest shape of its arguments (scalars splat; two
  vectors meet at the shorter one, which truncates, as `conversions.common_type`);
- a dimension variable is the smallest size its arguments give it (truncating
  the others); one argument giving it two sizes (a square `T<N,N>`) must agree;
  scalars bind no dimension, except that a vector size only scalars supply is 1
  (a scalar is a one-component vector: `dot(f, f)`, `length(f)`);
- a variable used by an `inout` parameter (an atomic's destination) is bound from
  that argument alone, which must then match exactly.
Each argument must then convert implicitly to its parameter (`out` ones: the
parameter to the argument).

Ranking: a candidate is better than another if each argument's conversion is no
worse and one is better (`Conversion` order). The single best candidate wins;
no candidate is `NoMatch`; several incomparable best are `Ambiguous`.

Invariants: pure functions of the arguments; no diagnostics here. Each template
yields at most one concrete signature per call, so resolution is deterministic, and
`resolve_intrinsic` keeps its answers for arguments that are all scalars, vectors or
matrices (types that live for the whole process: no compile's types are kept alive).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.sema.conversions import EXACT, Conversion, arithmetic_scalar, implicit_conversion

# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class Resolved:
    name: str
    """The intrinsic's name, as HLSL spells it."""
    params: tuple[t.Type, ...]
    """The concrete parameter types the arguments convert to."""
    result: t.Type
    out_params: tuple[int, ...] = ()
    """Indices of the `out`/`inout` parameters (modf's `ip`, an atomic's destination and original value)."""


@dataclass(frozen=True)
class NoMatch:
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class Ambiguous:
    candidates: tuple[str, ...]


# ---------------------------------------------------------------- component classes


@dataclass(frozen=True)
class ComponentClass:
    """The scalars a component variable may take.

    `pick` maps the arguments' common component to the one the intrinsic
    computes in, or None when the class refuses it.
    """

    description: str
    pick: Callable[[t.ScalarType], t.ScalarType | None]


def _float_like(s: t.ScalarType) -> t.ScalarType:
    return s if s.is_float and s.bits <= 32 else t.FLOAT


FLOAT_LIKE = ComponentClass("half/float", _float_like)
ANY_FLOAT = ComponentClass("half/float/double", lambda s: s if s.is_float else t.FLOAT)
DOUBLE_ONLY = ComponentClass("double", lambda s: s if s is t.DOUBLE else None)
NUMERIC = ComponentClass("int/uint/half/float/double", lambda s: t.INT if s.kind is t.ScalarKind.BOOL else s)
ANY_INT = ComponentClass("int/uint (16/32/64-bit)", lambda s: s if s.is_integer else None)
NUMERIC32 = ComponentClass("32-bit int/uint/float",
                            lambda s: s if s.kind is not t.ScalarKind.BOOL and s.bits == 32 else None)
ANY = ComponentClass("bool/int/uint/half/float/double", lambda s: s)
ATOMIC_INT = ComponentClass("int/uint (32/64-bit)", lambda s: s if s.is_integer and s.bits in (32, 64) else None)
INT16_OR_32 = ComponentClass("int/uint (16/32-bit)", lambda s: s if s.is_integer and s.bits in (16, 32) else None)
SINT16_OR_32 = ComponentClass("int (16/32-bit)",
                              lambda s: s if s.kind is t.ScalarKind.INT and s.bits in (16, 32) else None)
NUMERIC16 = ComponentClass("int16_t/uint16_t/half (16-bit types)",
                           lambda s: s if s.kind is not t.ScalarKind.BOOL and s.bits == 16 and not s.relaxed else None)

_CONCRETE = {"bool": t.BOOL, "int": t.INT, "uint": t.UINT, "float": t.FLOAT, "double": t.DOUBLE, "string": t.STRING,
             "half": t.scalar(t.ScalarKind.FLOAT, 16), "int16_t": t.scalar(t.ScalarKind.INT, 16),
             "uint16_t": t.scalar(t.ScalarKind.UINT, 16)}

# ---------------------------------------------------------------- the declaration language


@dataclass(frozen=True)
class _Pattern:
    mode: str                          # "in", "out" or "inout"
    component: str                     # a component variable, a concrete scalar name, "void", "object" or "udt"
    shape: tuple[str, ...] | None      # None scalar; () the shape variable; (d,) vector; (r, c) matrix

    def text(self) -> str:
        prefix = "" if self.mode == "in" else f"{self.mode} "
        shape = "" if self.shape is None else f"<{','.join(self.shape)}>"
        return f"{prefix}{self.component}{shape}"


_PATTERN = re.compile(r"^(?:(out|inout) )?(\w+)(?:<([\w,]*)>)?$")
_DECLARATION = re.compile(r"^(\S+) (\w+)\((.*)\)$")


@functools.cache   # the table's 621 patterns are 58 texts (`T<>`, ...); a pattern is immutable
def _parse_pattern(text: str) -> _Pattern:
    match = _PATTERN.match(text.strip())
    assert match, text
    mode, component, shape = match.groups()
    dims = None if shape is None else tuple(d for d in shape.split(",") if d)
    assert dims is None or len(dims) <= 2, text
    return _Pattern(mode or "in", component, dims)


@dataclass(frozen=True)
class Signature:
    """One overload template: `result name(params)`, with its component variables' classes."""

    name: str
    result: _Pattern
    params: tuple[_Pattern, ...]
    classes: tuple[tuple[str, ComponentClass], ...]
    shapes: str
    """Which shapes the shape variable `<>` allows: "s" scalar, "v" vector, "m" matrix."""
    variadic: bool = False
    """Declared with a trailing `...`: any further arguments are taken as they are (printf)."""

    def text(self) -> str:
        params = [p.text() for p in self.params] + (["..."] if self.variadic else [])
        head = f"{self.result.text()} {self.name}({', '.join(params)})"
        notes = [f"{var}: {cls.description}" for var, cls in self.classes]
        if any(p.shape == () for p in (self.result, *self.params)):
            notes.append("<>: " + "/".join({"s": "scalar", "v": "vector", "m": "matrix"}[s] for s in self.shapes))
        return f"{head} [{'; '.join(notes)}]" if notes else head


def _decl(text: str, shapes: str = "svm", **classes: ComponentClass) -> Signature:
    match = _DECLARATION.match(text)
    assert match, text
    result, name, params = match.groups()
    variadic = params.endswith("...")
    params = params.removesuffix("...").rstrip(", ")
    patterns = tuple(_parse_pattern(p) for p in re.split(r",(?![^<]*>)", params)) if params.strip() else ()
    for pattern in (_parse_pattern(result), *patterns):
        known = pattern.component in classes or pattern.component in _CONCRETE
        assert known or pattern.component in ("void", "object", "udt"), text
    return Signature(name, _parse_pattern(result), patterns, tuple(classes.items()), shapes, variadic)


# ---------------------------------------------------------------- the table


def _build_table() -> dict[str, tuple[Signature, ...]]:
    decls: list[Signature] = []
    add = decls.append

    for name in ("sqrt", "rsqrt", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
                 "atan", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "frac", "degrees", "radians"):
        add(_decl(f"T<> {name}(T<>)", T=FLOAT_LIKE))
    for name in ("pow", "atan2", "fmod", "step", "ldexp"):
        add(_decl(f"T<> {name}(T<>, T<>)", T=FLOAT_LIKE))
    for name in ("lerp", "smoothstep"):
        add(_decl(f"T<> {name}(T<>, T<>, T<>)", T=FLOAT_LIKE))
    for name in ("saturate", "rcp"):
        add(_decl(f"T<> {name}(T<>)", T=ANY_FLOAT))
    add(_decl("T<> abs(T<>)", T=NUMERIC))
    for name in ("min", "max"):
        add(_decl(f"T<> {name}(T<>, T<>)", T=NUMERIC))
    add(_decl("T<> clamp(T<>, T<>, T<>)", T=NUMERIC))
    add(_decl("T<> mad(T<>, T<>, T<>)", T=NUMERIC))
    add(_decl("T<> fma(T<>, T<>, T<>)", T=DOUBLE_ONLY))
    add(_decl("int<> sign(T<>)", T=NUMERIC))
    add(_decl("T<> modf(T<>, out T<>)", T=FLOAT_LIKE))
    add(_decl("T<> frexp(T<>, out T<>)", T=FLOAT_LIKE))
    add(_decl("void sincos(T<>, out T<>, out T<>)", T=FLOAT_LIKE))
    for name in ("isnan", "isinf", "isfinite", "isnormal"):
        add(_decl(f"bool<> {name}(T<>)", T=FLOAT_LIKE))
    for name in ("all", "any"):
        add(_decl(f"bool {name}(T<>)", T=ANY))
    for name in ("and", "or"):
        add(_decl(f"bool<> {name}(bool<>, bool<>)"))

    # vectors
    add(_decl("T dot(T<N>, T<N>)", T=NUMERIC))
    add(_decl("T<3> cross(T<3>, T<3>)", T=FLOAT_LIKE))
    add(_decl("T length(T<N>)", T=FLOAT_LIKE))
    add(_decl("T distance(T<N>, T<N>)", T=FLOAT_LIKE))
    add(_decl("T<N> normalize(T<N>)", T=FLOAT_LIKE))
    add(_decl("T<N> reflect(T<N>, T<N>)", T=FLOAT_LIKE))
    add(_decl("T<N> refract(T<N>, T<N>, T)", T=FLOAT_LIKE))
    add(_decl("T<N> faceforward(T<N>, T<N>, T<N>)", T=FLOAT_LIKE))
    add(_decl("T<4> dst(T<4>, T<4>)", T=FLOAT_LIKE))
    add(_decl("T<4> lit(T, T, T)", T=FLOAT_LIKE))

    # derivatives (compute: SPV_KHR_compute_shader_derivatives, as implicit-LOD sampling)
    for name in ("ddx", "ddy", "ddx_coarse", "ddy_coarse", "ddx_fine", "ddy_fine", "fwidth"):
        add(_decl(f"T<> {name}(T<>)", T=FLOAT_LIKE))

    # packed dot products with accumulate
    add(_decl("uint dot4add_u8packed(uint, uint, uint)"))
    add(_decl("int dot4add_i8packed(uint, uint, int)"))
    add(_decl("float dot2add(T<2>, T<2>, float)", T=FLOAT_LIKE))
    add(_decl("uint<4> msad4(uint, uint<2>, uint<4>)"))

    # 8-bit packing (SM 6.6): int8_t4_packed and uint8_t4_packed are uint
    add(_decl("uint<4> unpack_u8u32(uint)"))
    add(_decl("int<4> unpack_s8s32(uint)"))
    add(_decl("uint16_t<4> unpack_u8u16(uint)"))
    add(_decl("int16_t<4> unpack_s8s16(uint)"))
    for name in ("pack_u8", "pack_s8"):
        add(_decl(f"uint {name}(T<4>)", T=INT16_OR_32))
    for name in ("pack_clamp_u8", "pack_clamp_s8"):
        add(_decl(f"uint {name}(T<4>)", T=SINT16_OR_32))

    # bits and reinterpretation
    add(_decl("uint<> countbits(T<>)", T=ANY_INT))
    add(_decl("uint<> firstbithigh(T<>)", T=ANY_INT))
    add(_decl("uint<> firstbitlow(T<>)", T=ANY_INT))
    add(_decl("T<> reversebits(T<>)", T=ANY_INT))
    add(_decl("uint<> asuint(T<>)", T=NUMERIC32))
    add(_decl("void asuint(double, out uint, out uint)"))
    add(_decl("int<> asint(T<>)", T=NUMERIC32))
    add(_decl("float<> asfloat(T<>)", T=NUMERIC32))
    add(_decl("double<> asdouble(uint<>, uint<>)", shapes="sv"))
    add(_decl("half<> asfloat16(T<>)", T=NUMERIC16))
    add(_decl("int16_t<> asint16(T<>)", T=NUMERIC16))
    add(_decl("uint16_t<> asuint16(T<>)", T=NUMERIC16))
    add(_decl("int<4> D3DCOLORtoUBYTE4(float<4>)"))
    add(_decl("uint<2> AddUint64(uint<2>, uint<2>)"))
    add(_decl("uint<4> AddUint64(uint<4>, uint<4>)"))
    add(_decl("uint<> f32tof16(float<>)"))
    add(_decl("float<> f16tof32(uint<>)"))

    # matrices
    for decl in ("T mul(T, T)", "T<N> mul(T, T<N>)", "T<R,C> mul(T, T<R,C>)", "T<N> mul(T<N>, T)",
                 "T<R,C> mul(T<R,C>, T)", "T mul(T<N>, T<N>)", "T<M> mul(T<N>, T<N,M>)", "T<R> mul(T<R,C>, T<C>)",
                 "T<R,C> mul(T<R,K>, T<K,C>)"):
        add(_decl(decl, T=NUMERIC))
    add(_decl("T<C,R> transpose(T<R,C>)", T=ANY))
    add(_decl("T determinant(T<N,N>)", T=FLOAT_LIKE))
    add(_decl("T<> select(bool<>, T<>, T<>)", T=ANY))

    # atomics on a memory location (the destination is `inout`)
    for name in ("Add", "And", "Or", "Xor", "Min", "Max", "Exchange"):
        add(_decl(f"void Interlocked{name}(inout T, T)", T=ATOMIC_INT))
        add(_decl(f"void Interlocked{name}(inout T, T, out T)", T=ATOMIC_INT))
    add(_decl("void InterlockedCompareExchange(inout T, T, T, out T)", T=ATOMIC_INT))
    add(_decl("void InterlockedCompareStore(inout T, T, T)", T=ATOMIC_INT))
    add(_decl("void InterlockedExchange(inout float, float, out float)"))
    add(_decl("void InterlockedCompareStoreFloatBitwise(inout float, float, float)"))
    add(_decl("void InterlockedCompareExchangeFloatBitwise(inout float, float, float, out float)"))

    # resources
    add(_decl("T NonUniformResourceIndex(T)", T=ANY_INT))
    add(_decl("bool CheckAccessFullyMapped(uint)"))
    add(_decl("bool IsHelperLane()"))

    # mesh shaders and mesh nodes
    add(_decl("void SetMeshOutputCounts(uint, uint)"))
    add(_decl("void DispatchMesh(uint, uint, uint, udt)"))

    # barriers
    for name in ("GroupMemoryBarrier", "DeviceMemoryBarrier", "AllMemoryBarrier"):
        add(_decl(f"void {name}()"))
        add(_decl(f"void {name}WithGroupSync()"))
    add(_decl("void Barrier(uint, uint)"))
    add(_decl("void Barrier(object, uint)"))

    # wave and quad operations
    for name in ("WaveGetLaneIndex", "WaveGetLaneCount"):
        add(_decl(f"uint {name}()"))
    add(_decl("bool WaveIsFirstLane()"))
    for name in ("WaveActiveSum", "WaveActiveProduct", "WaveActiveMin", "WaveActiveMax", "WavePrefixSum",
                 "WavePrefixProduct"):
        add(_decl(f"T<> {name}(T<>)", shapes="sv", T=NUMERIC))
    for name in ("WaveActiveBitAnd", "WaveActiveBitOr", "WaveActiveBitXor"):
        add(_decl(f"T<> {name}(T<>)", shapes="sv", T=ANY_INT))
    for name in ("WaveActiveAllTrue", "WaveActiveAnyTrue"):
        add(_decl(f"bool {name}(bool)"))
    add(_decl("bool<> WaveActiveAllEqual(T<>)", shapes="sv", T=ANY))
    add(_decl("uint WaveActiveCountBits(bool)"))
    add(_decl("uint<4> WaveActiveBallot(bool)"))
    add(_decl("uint WavePrefixCountBits(bool)"))
    add(_decl("T<> WaveReadLaneAt(T<>, uint)", shapes="sv", T=ANY))
    add(_decl("T<> WaveReadLaneFirst(T<>)", shapes="sv", T=ANY))
    for name in ("QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal"):
        add(_decl(f"T<> {name}(T<>)", shapes="sv", T=ANY))
    add(_decl("T<> QuadReadLaneAt(T<>, uint)", shapes="sv", T=ANY))
    for name in ("QuadAny", "QuadAll"):
        add(_decl(f"bool {name}(bool)"))
    add(_decl("uint<4> WaveMatch(T<>)", shapes="sv", T=NUMERIC))
    for name in ("WaveMultiPrefixSum", "WaveMultiPrefixProduct"):
        add(_decl(f"T<> {name}(T<>, uint<4>)", shapes="sv", T=NUMERIC))
    for name in ("WaveMultiPrefixBitAnd", "WaveMultiPrefixBitOr", "WaveMultiPrefixBitXor"):
        add(_decl(f"T<> {name}(T<>, uint<4>)", shapes="sv", T=ANY_INT))
    add(_decl("uint WaveMultiPrefixCountBits(bool, uint<4>)"))

    # debugging
    add(_decl("void printf(string, ...)"))

    # work graphs
    add(_decl("uint GetRemainingRecursionLevels()"))
    add(_decl("uint GetCurrentLoopIterationIndex()"))

    table: dict[str, tuple[Signature, ...]] = {}
    for signature in decls:
        table[signature.name] = (*table.get(signature.name, ()), signature)
    return table


_TABLE = _build_table()
_NAMES = frozenset(_TABLE)

BARRIER_CONSTANTS: dict[str, int] = {
    "UAV_MEMORY": 0x1, "GROUP_SHARED_MEMORY": 0x2, "NODE_INPUT_MEMORY": 0x4, "NODE_OUTPUT_MEMORY": 0x8,
    "ALL_MEMORY": 0xF, "GROUP_SYNC": 0x1, "GROUP_SCOPE": 0x2, "DEVICE_SCOPE": 0x4,
}
"""The `Barrier` flag constants; each is a `uint`."""

# ---------------------------------------------------------------- binding




def _shape_of(type_: t.Type) -> tuple[int, int] | None:
    if isinstance(type_, t.VectorType):
        return (0, type_.count)
    if isinstance(type_, t.MatrixType):
        return (type_.rows, type_.columns)
    return (1, 1) if t.element_scalar(type_) is not None else None


def _meet_shapes(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """The shape two arguments of one shape variable meet at (the widest; shorter of two vectors)."""
    if a == (1, 1) or a == b:
        return b
    if b == (1, 1):
        return a
    vectors = a[0] == 0, b[0] == 0
    if all(vectors) or not any(vectors):
        return (min(a[0], b[0]), min(a[1], b[1]))
    vector_, matrix_ = (a, b) if vectors[0] else (b, a)
    return vector_ if matrix_ in ((1, vector_[1]), (vector_[1], 1)) else None


def _common_component(scalars: list[t.ScalarType]) -> t.ScalarType:
    first = scalars[0]
    if all(s is first for s in scalars):
        return first
    common = first
    for s in scalars[1:]:
        common = arithmetic_scalar(common, s)
    return common


@dataclass
class _Binding:
    components: dict[str, t.ScalarType]
    shape: tuple[int, int]
    dims: dict[str, int]

    def concrete(self, pattern: _Pattern, arg: t.Type | None) -> t.Type | None:
        if pattern.component == "void":
            return t.VOID
        if pattern.component in ("object", "udt"):
            return arg
        element = _CONCRETE.get(pattern.component) or self.components[pattern.component]
        if pattern.shape is None:
            return element
        if pattern.shape == ():
            rows, columns = self.shape
            if (rows, columns) == (1, 1):
                return element
            return t.vector(element, columns) if rows == 0 else t.matrix(element, rows, columns)
        sizes = [int(d) if d.isdigit() else self.dims[d] for d in pattern.shape]
        return t.vector(element, sizes[0]) if len(sizes) == 1 else t.matrix(element, sizes[0], sizes[1])


def _bind(sig: Signature, args: Sequence[t.Type]) -> _Binding | None:
    """Bind the template's variables from the arguments, or None if they cannot be bound."""
    components: dict[str, t.ScalarType] = {}
    for var, cls in sig.classes:
        pinned = [a for p, a in zip(sig.params, args) if p.component == var and p.mode == "inout"]
        sources = pinned or [a for p, a in zip(sig.params, args) if p.component == var and p.mode == "in"]
        scalars = [t.element_scalar(a) for a in sources]
        if not scalars or any(s is None for s in scalars):
            return None
        picked = cls.pick(_common_component(scalars))  # type: ignore[arg-type]
        if picked is None or pinned and picked is not scalars[0]:
            return None
        components[var] = picked

    shape: tuple[int, int] | None = (1, 1)
    pinned = [a for p, a in zip(sig.params, args) if p.shape == () and p.mode == "inout"]
    for arg in pinned or [a for p, a in zip(sig.params, args) if p.shape == () and p.mode == "in"]:
        arg_shape = _shape_of(arg)
        if arg_shape is None or shape is None:
            return None
        shape = _meet_shapes(shape, arg_shape)
    if shape is None or "s" not in sig.shapes and shape == (1, 1):
        return None
    if shape[0] == 0 and "v" not in sig.shapes or shape[0] > 0 and shape != (1, 1) and "m" not in sig.shapes:
        return None

    dims: dict[str, int] = {}
    for pattern, arg in zip(sig.params, args):
        if pattern.mode != "in" or not pattern.shape:
            continue
        if len(pattern.shape) == 1 and isinstance(arg, t.VectorType):
            sizes: tuple[int, ...] = (arg.count,)
        elif len(pattern.shape) == 2 and isinstance(arg, t.MatrixType):
            sizes = (arg.rows, arg.columns)
        else:
            continue
        own: dict[str, int] = {}
        for dim, size in zip(pattern.shape, sizes):
            if dim.isdigit():
                continue
            if own.setdefault(dim, size) != size:
                return None  # one argument gives a square dimension two sizes
        for dim, size in own.items():
            dims[dim] = min(size, dims.get(dim, size))
    used = {d for p in (sig.result, *sig.params) for d in p.shape or () if not d.isdigit()}
    for dim in used - dims.keys():
        # only scalars where a vector size is wanted: a scalar is a one-component vector (`dot(f, f)`)
        sources = [a for p, a in zip(sig.params, args) if p.mode == "in" and dim in (p.shape or ())]
        if not sources or any(len(p.shape or ()) != 1 for p in sig.params if dim in (p.shape or ())) \
                or not all(isinstance(a, t.ScalarType) for a in sources):
            return None
        dims[dim] = 1
    return _Binding(components, shape, dims)


def _instantiate(sig: Signature, args: Sequence[t.Type]) -> tuple[Resolved, tuple[Conversion, ...]] | None:
    """The concrete signature this template gives for the arguments, and each argument's conversion."""
    if len(args) != len(sig.params) and not (sig.variadic and len(args) > len(sig.params)):
        return None
    extra = tuple(args[len(sig.params):])        # a variadic call's further arguments, as they are
    args = args[:len(sig.params)]
    binding = _bind(sig, args)
    if binding is None:
        return None
    params: list[t.Type] = []
    conversions: list[Conversion] = []
    for pattern, arg in zip(sig.params, args):
        param = binding.concrete(pattern, arg)
        if pattern.component == "object":
            conversion = EXACT if isinstance(arg, (t.ResourceType, t.NodeObjectType)) else None
        elif pattern.component == "udt":                 # a user-defined type: any struct, as it is
            conversion = EXACT if isinstance(arg, t.StructType) else None
        elif pattern.mode == "inout":
            conversion = EXACT if arg is param else None
        elif pattern.mode == "out":
            conversion = implicit_conversion(param, arg)  # type: ignore[arg-type]
        else:
            conversion = implicit_conversion(arg, param)  # type: ignore[arg-type]
        if conversion is None or param is None:
            return None
        params.append(param)
        conversions.append(conversion)
    result = binding.concrete(sig.result, None)
    assert result is not None
    outs = tuple(i for i, p in enumerate(sig.params) if p.mode != "in")
    return Resolved(sig.name, (*params, *extra), result, outs), (*conversions, *(EXACT for _ in extra))


# ---------------------------------------------------------------- resolution


def is_intrinsic(name: str) -> bool:
    """Whether `name` (case-sensitive) is a global intrinsic function."""
    return name in _TABLE


def intrinsic_names() -> frozenset[str]:
    """Every global intrinsic's name (for did-you-mean suggestions)."""
    return _NAMES


def arity(name: str, given: int = 0) -> tuple[int, ...]:
    """The argument counts the overloads of an intrinsic accept; a variadic one accepts `given`
    arguments too when that is at least its fixed count."""
    counts = {len(sig.params) for sig in _TABLE[name]}
    counts |= {given for sig in _TABLE[name] if sig.variadic and given >= len(sig.params)}
    return tuple(sorted(counts))


def signatures(name: str) -> tuple[str, ...]:
    """The human-readable overload templates of an intrinsic."""
    return tuple(sig.text() for sig in _TABLE[name])


def _better(a: tuple[Conversion, ...], b: tuple[Conversion, ...]) -> bool:
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def _text(resolved: Resolved) -> str:
    params = ", ".join(("out " if i in resolved.out_params else "") + str(p) for i, p in enumerate(resolved.params))
    return f"{resolved.result} {resolved.name}({params})"


_RESOLVED: dict[tuple[str, tuple[t.Type, ...]], Resolved | NoMatch | Ambiguous] = {}
"""`resolve_intrinsic`'s answers for arguments that are all scalars, vectors or matrices (the types
`wgc.types` keeps for good, so no compile's types are kept alive): a program calls a few intrinsics
on a few argument types many times, and resolving them again each time is wasted work."""
_KEPT_ARGUMENTS = (t.ScalarType, t.VectorType, t.MatrixType)


def resolve_intrinsic(name: str, args: Sequence[t.Type]) -> Resolved | NoMatch | Ambiguous:
    """Resolve a call of the intrinsic `name` (which must satisfy `is_intrinsic`) with arguments of these types."""
    key = (name, tuple(args))
    found_before = _RESOLVED.get(key)
    if found_before is not None:
        return found_before
    resolved = _resolve_intrinsic(name, args)
    if all(type(a) in _KEPT_ARGUMENTS for a in args):
        _RESOLVED[key] = resolved
    return resolved


def _resolve_intrinsic(name: str, args: Sequence[t.Type]) -> Resolved | NoMatch | Ambiguous:
    found: dict[Resolved, tuple[Conversion, ...]] = {}
    for sig in _TABLE[name]:
        instance = _instantiate(sig, args)
        if instance is not None:
            found.setdefault(*instance)
    best = [r for r, conv in found.items() if not any(_better(other, conv) for other in found.values())]
    if not best:
        return NoMatch(signatures(name))
    if len(best) > 1:
        # a tie between equally good conversions goes to the overload whose parameters are the
        # arguments' own types (`mul(float, float)` over `mul(float1, float1)`)
        identical = [r for r in best if all(p is a for p, a in zip(r.params, args))]
        if len(identical) != 1:
            return Ambiguous(tuple(_text(r) for r in best))
        best = identical
    return best[0]
