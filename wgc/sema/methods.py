"""Semantic analysis, methods: the methods and `operator[]` of HLSL resource objects and
work-graph node objects as typed overload sets, and overload resolution of a method
call against its argument types.

Input: the object's type (`wgc.types.ResourceType` / `NodeObjectType` / `RayQueryType`), the
method's name (case-sensitive, as HLSL spells it), the types of the call's
arguments and the written template argument (`buf.Load<T>(a)`), if any.
Output: `MethodResolved` (the concrete parameter and result types, which
parameters are `out`, whether the call is a node-record access), or `NoMatch` /
`Ambiguous` (shared with `wgc.sema.intrinsics`) with human-readable candidate
signatures; `IndexAccess` for `object[i]` and for `object.mips[l][i]` / `object.sample[s][i]`.

The overload sets are data: each object family has a table of declarations,
written like C++ member declarations,

    E SampleLevel(SamplerState, F, float)      void GetDimensions(out uint, out uint)

and the object type supplies the meaning of the symbols (`_environment`):
- `E` the element type, `R` the node record, `NodeOutput<R>` & co. the node
  objects built on it;
- textures: `F` the float coordinates (`floatN`, array slice included), `G` a
  gradient (`floatN` without the slice), `O` a texel offset (`intN`, as `G`), `L` a `Load` location (`intN`, plus
  the mip level on non-RW, non-multisampled textures), `X` an `operator[]` index (`uintN`), `S4`
  `Gather`'s result (four of E's scalar); `{sizes}` / `{fsizes}` expand to the
  texture's `GetDimensions` size outputs (`out uint` / `out float`: width,
  height and depth as the texture has them, then the array size);
- `T` is the template argument of a templated declaration (`Name<T>`); when
  none is written it is deduced from the first `in` parameter typed `T`
  (`Store(a, v)` stores v's type), and a declaration whose `T` can be neither
  written nor deduced (`Load<T>` without `<T>`) is not a candidate;
- `C` is `SamplerComparisonState` and `Z` a comparison's `float` result (SampleCmp*);
  after a sampling method's own operands come, as in DXC's table, the texel offset (none on
  cube maps; four for a per-texel Gather), the `float` MinLod clamp and the `out uint status`;
- `I` is an atomic's 32-bit integer: `int` if the `in` arguments typed `I` meet
  (HLSL's arithmetic rule) at a signed integer, else `uint`;
- everything else is a concrete type (`uint`, `float2`, `SamplerState`, ...).
A result written `R&` is a node-record access (`Get`): sema builds
`ir.RecordAccess`, not `ir.MethodCall`. A declaration prefixed `~` is a
fallback: it loses a tie against an overload whose conversions are the same
(the float `GetDimensions`), as templated declarations do (C++'s rule that a
non-template beats a template specialisation on a tie).

Resolution: each argument must convert implicitly to its parameter (`out`
arguments: the parameter to the argument); the candidate whose conversions are
all no worse and one better (`intrinsics._better`) wins, ties broken by the
fallback rule above; no candidate is `NoMatch`, several incomparable best are
`Ambiguous`. A wrong argument count is no match; `arity` tells the caller which
counts a method accepts, so it can report the count error itself.

`RayQuery<...>` has DXC's `RayQueryMethods` (`_RAY_QUERY`), the same for every flag argument.

Invariants: pure functions of their arguments; no diagnostics here. Samplers,
`ConstantBuffer<T>` and `TextureBuffer<T>` have no methods and no `operator[]`
(sema handles their member access). Only `RW*` resources, `RW*` node inputs
and output records are writable through `operator[]`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.sema.conversions import Conversion, arithmetic_scalar, implicit_conversion
from wgc.sema.intrinsics import Ambiguous, NoMatch, _better

__all__ = ["MethodResolved", "IndexAccess", "NoMatch", "Ambiguous", "has_methods", "method_names",
           "resolve_method", "index_access", "slice_access", "SLICE_MEMBERS", "arity"]

RK, NK = t.ResourceKind, t.NodeObjectKind

# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class MethodResolved:
    name: str
    """The method's name, as HLSL spells it."""
    params: tuple[t.Type, ...]
    """The concrete parameter types the arguments convert to."""
    result: t.Type
    """`t.VOID` for a void method."""
    out_params: tuple[int, ...] = ()
    """Indices of the `out` parameters (GetDimensions' outputs, a Load's status, an atomic's original value)."""
    record_access: bool = False
    """`Get()` / `Get(i)` on a node record object: sema builds `ir.RecordAccess`."""
    template_type: t.Type | None = None
    """`Load<T>` / `Store<T>`'s T (written or deduced)."""


@dataclass(frozen=True)
class IndexAccess:
    """`object[i]`: the index type, the element it yields, and whether it is assignable."""

    index_type: t.Type
    element: t.Type
    writable: bool
    record_access: bool = False
    """The element is a node record (sema builds `ir.RecordAccess`)."""


# ---------------------------------------------------------------- the tables

_LOAD_STATUS = ("E Load(int)", "E Load(int, out uint)")

_BUFFER = (*_LOAD_STATUS, "void GetDimensions(out uint)")
_STRUCTURED = (*_LOAD_STATUS, "void GetDimensions(out uint, out uint)")
_RW_STRUCTURED = (*_STRUCTURED, "uint IncrementCounter()", "uint DecrementCounter()")
_APPEND = ("void Append(E)", "void GetDimensions(out uint, out uint)")
_CONSUME = ("E Consume()", "void GetDimensions(out uint, out uint)")

_BYTE_ADDRESS = (
    "uint Load(uint)", "uint Load(uint, out uint)",
    "uint2 Load2(uint)", "uint2 Load2(uint, out uint)",
    "uint3 Load3(uint)", "uint3 Load3(uint, out uint)",
    "uint4 Load4(uint)", "uint4 Load4(uint, out uint)",
    "T Load<T>(uint)", "T Load<T>(uint, out uint)",
    "void GetDimensions(out uint)",
)
_ATOMICS = (
    *(f"void Interlocked{op}(uint, I{extra})"
      for op in ("Add", "And", "Or", "Xor", "Min", "Max", "Exchange") for extra in ("", ", out I")),
    "void InterlockedCompareExchange(uint, I, I, out I)",
    "void InterlockedCompareStore(uint, I, I)",
    "void InterlockedExchangeFloat(uint, float, out float)",
    "void InterlockedCompareStoreFloatBitwise(uint, float, float)",
    "void InterlockedCompareExchangeFloatBitwise(uint, float, float, out float)",
)
_RW_BYTE_ADDRESS = (
    *_BYTE_ADDRESS,
    "void Store(uint, uint)", "void Store2(uint, uint2)", "void Store3(uint, uint3)", "void Store4(uint, uint4)",
    "void Store<T>(uint, T)",
    *_ATOMICS,
)

# Texture declarations, each with the feature a texture needs to have it ("" = every texture).
# `C` is SamplerComparisonState, `Z` a comparison's float result.
_TEXTURE = (
    ("E Sample(SamplerState, F)", ""),
    ("E SampleLevel(SamplerState, F, float)", ""),
    ("E SampleGrad(SamplerState, F, G, G)", ""),
    ("E SampleBias(SamplerState, F, float)", ""),
    ("Z SampleCmp(C, F, float)", "cmp"),
    ("Z SampleCmpLevel(C, F, float, float)", "cmp"),
    ("Z SampleCmpLevelZero(C, F, float)", "cmp"),
    ("Z SampleCmpGrad(C, F, float, G, G)", "cmp"),
    ("Z SampleCmpBias(C, F, float, float)", "cmp"),
    *((f"S4 Gather{c}(SamplerState, F)", "gather") for c in ("", "Red", "Green", "Blue", "Alpha")),
    *((f"S4 GatherCmp{c}(C, F, float)", "gather cmp") for c in ("", "Red", "Green", "Blue", "Alpha")),
    *((f"float {n}({s}, G)", "") for n in ("CalculateLevelOfDetail", "CalculateLevelOfDetailUnclamped")
      for s in ("SamplerState", "C")),
    ("E Load(L)", "load"),
    # the variants with an integer texel offset `O` (not on cube maps), then a MinLod clamp, then
    # the `out uint status` of a (sparse) access
    ("E Sample(SamplerState, F, O)", "offset"),
    ("E Sample(SamplerState, F, O, float)", "offset"),
    ("E Sample(SamplerState, F, O, float, out uint)", "offset"),
    ("E SampleLevel(SamplerState, F, float, O)", "offset"),
    ("E SampleLevel(SamplerState, F, float, O, out uint)", "offset"),
    ("E SampleGrad(SamplerState, F, G, G, O)", "offset"),
    ("E SampleGrad(SamplerState, F, G, G, O, float)", "offset"),
    ("E SampleGrad(SamplerState, F, G, G, O, float, out uint)", "offset"),
    ("E SampleBias(SamplerState, F, float, O)", "offset"),
    ("E SampleBias(SamplerState, F, float, O, float)", "offset"),
    ("E SampleBias(SamplerState, F, float, O, float, out uint)", "offset"),
    ("Z SampleCmp(C, F, float, O)", "cmp offset"),
    ("Z SampleCmp(C, F, float, O, float)", "cmp offset"),
    ("Z SampleCmp(C, F, float, O, float, out uint)", "cmp offset"),
    ("Z SampleCmpLevel(C, F, float, float, O)", "cmp offset"),
    ("Z SampleCmpLevel(C, F, float, float, O, out uint)", "cmp offset"),
    ("Z SampleCmpLevelZero(C, F, float, O)", "cmp offset"),
    ("Z SampleCmpLevelZero(C, F, float, O, out uint)", "cmp offset"),
    ("Z SampleCmpGrad(C, F, float, G, G, O)", "cmp offset"),
    ("Z SampleCmpGrad(C, F, float, G, G, O, float)", "cmp offset"),
    ("Z SampleCmpGrad(C, F, float, G, G, O, float, out uint)", "cmp offset"),
    ("Z SampleCmpBias(C, F, float, float, O)", "cmp offset"),
    ("Z SampleCmpBias(C, F, float, float, O, float)", "cmp offset"),
    ("Z SampleCmpBias(C, F, float, float, O, float, out uint)", "cmp offset"),
    *((f"S4 Gather{c}(SamplerState, F, O)", "gather offset") for c in ("", "Red", "Green", "Blue", "Alpha")),
    *((f"S4 Gather{c}(SamplerState, F, O, out uint)", "gather offset")
      for c in ("", "Red", "Green", "Blue", "Alpha")),
    *((f"S4 GatherCmp{c}(C, F, float, O)", "gather cmp offset") for c in ("", "Red", "Green", "Blue", "Alpha")),
    *((f"S4 GatherCmp{c}(C, F, float, O, out uint)", "gather cmp offset")
      for c in ("", "Red", "Green", "Blue", "Alpha")),
    # one offset per gathered texel (ConstOffsets)
    *((f"S4 Gather{c}(SamplerState, F, O, O, O, O{status})", "gather offset")
      for c in ("Red", "Green", "Blue", "Alpha") for status in ("", ", out uint")),
    *((f"S4 GatherCmp{c}(C, F, float, O, O, O, O{status})", "gather cmp offset")
      for c in ("Red", "Green", "Blue", "Alpha") for status in ("", ", out uint")),
    # cube maps: the clamp and status without an offset
    *((f"S4 Gather{c}(SamplerState, F, out uint)", "gather cube") for c in ("", "Red", "Green", "Blue", "Alpha")),
    *((f"S4 GatherCmp{c}(C, F, float, out uint)", "gather cmp cube") for c in ("", "Red", "Green", "Blue", "Alpha")),
    ("E Sample(SamplerState, F, float)", "cube"),
    ("E Sample(SamplerState, F, float, out uint)", "cube"),
    ("E SampleLevel(SamplerState, F, float, out uint)", "cube"),
    ("E SampleGrad(SamplerState, F, G, G, float)", "cube"),
    ("E SampleGrad(SamplerState, F, G, G, float, out uint)", "cube"),
    ("E SampleBias(SamplerState, F, float, float)", "cube"),
    ("E SampleBias(SamplerState, F, float, float, out uint)", "cube"),
    ("Z SampleCmp(C, F, float, float)", "cube"),
    ("Z SampleCmp(C, F, float, float, out uint)", "cube"),
    ("Z SampleCmpLevel(C, F, float, float, out uint)", "cube"),
    ("Z SampleCmpLevelZero(C, F, float, out uint)", "cube"),
    ("Z SampleCmpGrad(C, F, float, G, G, float)", "cube"),
    ("Z SampleCmpGrad(C, F, float, G, G, float, out uint)", "cube"),
    ("Z SampleCmpBias(C, F, float, float, float)", "cube"),
    ("Z SampleCmpBias(C, F, float, float, float, out uint)", "cube"),
    ("E Load(L, O)", "load offset"),
    ("E Load(L, O, out uint)", "load offset"),
    ("void GetDimensions({sizes})", ""),
    ("void GetDimensions(uint, {sizes}, out uint)", "mips"),
    ("~void GetDimensions({fsizes})", ""),
    ("~void GetDimensions(uint, {fsizes}, out float)", "mips"),
)

# kind: (coordinate dims F (= index dims X), gradient dims G, GetDimensions size outputs, features)
_TEXTURES: dict[t.ResourceKind, tuple[int, int, int, str]] = {
    RK.TEXTURE_1D: (1, 1, 1, "cmp load mips index offset"),
    RK.TEXTURE_1D_ARRAY: (2, 1, 2, "cmp load mips index offset"),
    RK.TEXTURE_2D: (2, 2, 2, "cmp gather load mips index offset"),
    RK.TEXTURE_2D_ARRAY: (3, 2, 3, "cmp gather load mips index offset"),
    RK.TEXTURE_3D: (3, 3, 3, "load mips index offset"),
    RK.TEXTURE_CUBE: (3, 3, 2, "cmp gather mips cube"),
    RK.TEXTURE_CUBE_ARRAY: (4, 3, 3, "cmp gather mips cube"),
    RK.RW_TEXTURE_1D: (1, 1, 1, "rw"),
    RK.RW_TEXTURE_1D_ARRAY: (2, 1, 2, "rw"),
    RK.RW_TEXTURE_2D: (2, 2, 2, "rw"),
    RK.RW_TEXTURE_2D_ARRAY: (3, 2, 3, "rw"),
    RK.RW_TEXTURE_3D: (3, 3, 3, "rw"),
    RK.TEXTURE_2D_MS: (2, 2, 2, "ms index"),
    RK.TEXTURE_2D_MS_ARRAY: (3, 2, 3, "ms index"),
    RK.RW_TEXTURE_2D_MS: (2, 2, 2, "ms rw"),
    RK.RW_TEXTURE_2D_MS_ARRAY: (3, 2, 3, "ms rw"),
}
_RW_TEXTURE = ("E Load(L)", "E Load(L, out uint)", "void GetDimensions({sizes})", "~void GetDimensions({fsizes})")
# Multisampled textures (DXC's Texture2DMSMethods & co.): `Load(location, sample[, offset[, status]])`
# (no offset on the RW forms), the sample count after the sizes, and the standard sample positions.
_MS_TEXTURE = (
    ("E Load(L, int)", ""),
    ("E Load(L, int, O)", "index"),
    ("E Load(L, int, O, out uint)", "index"),
    ("E Load(L, int, out uint)", "rw"),
    ("float2 GetSamplePosition(int)", ""),
    ("void GetDimensions({sizes}, out uint)", ""),
    ("~void GetDimensions({fsizes}, out float)", ""),
)

_RESOURCES: dict[t.ResourceKind, tuple[str, ...]] = {
    RK.BUFFER: _BUFFER, RK.RW_BUFFER: _BUFFER,
    RK.STRUCTURED_BUFFER: _STRUCTURED, RK.RW_STRUCTURED_BUFFER: _RW_STRUCTURED,
    RK.APPEND_STRUCTURED_BUFFER: _APPEND, RK.CONSUME_STRUCTURED_BUFFER: _CONSUME,
    RK.BYTE_ADDRESS_BUFFER: _BYTE_ADDRESS, RK.RW_BYTE_ADDRESS_BUFFER: _RW_BYTE_ADDRESS,
}

_GET_ONE = ("R& Get()",)
_GET_MANY = ("R& Get()", "R& Get(uint)")
_IS_VALID = "bool IsValid()"

_NODES: dict[t.NodeObjectKind, tuple[str, ...]] = {
    NK.DISPATCH_NODE_INPUT_RECORD: _GET_ONE,
    NK.RW_DISPATCH_NODE_INPUT_RECORD: (*_GET_ONE, "bool FinishedCrossGroupSharing()"),
    NK.THREAD_NODE_INPUT_RECORD: _GET_ONE,
    NK.RW_THREAD_NODE_INPUT_RECORD: _GET_ONE,
    NK.GROUP_NODE_INPUT_RECORDS: (*_GET_MANY, "uint Count()"),
    NK.RW_GROUP_NODE_INPUT_RECORDS: (*_GET_MANY, "uint Count()"),
    NK.EMPTY_NODE_INPUT: ("uint Count()",),
    NK.NODE_OUTPUT: ("ThreadNodeOutputRecords<R> GetThreadNodeOutputRecords(uint)",
                     "GroupNodeOutputRecords<R> GetGroupNodeOutputRecords(uint)", _IS_VALID),
    NK.NODE_OUTPUT_ARRAY: (),
    NK.EMPTY_NODE_OUTPUT: ("void GroupIncrementOutputCount(uint)", "void ThreadIncrementOutputCount(uint)", _IS_VALID),
    NK.EMPTY_NODE_OUTPUT_ARRAY: (),
    NK.THREAD_NODE_OUTPUT_RECORDS: (*_GET_MANY, "void OutputComplete()"),
    NK.GROUP_NODE_OUTPUT_RECORDS: (*_GET_MANY, "void OutputComplete()"),
}

RAY_QUERY = "RayQuery"
"""The key of `RayQuery<...>`'s declarations (its methods do not depend on its flags)."""

_GETTERS = (("uint", "InstanceIndex"), ("uint", "InstanceID"), ("uint", "InstanceContributionToHitGroupIndex"),
            ("uint", "GeometryIndex"), ("uint", "PrimitiveIndex"), ("float3", "ObjectRayOrigin"),
            ("float3", "ObjectRayDirection"), ("float3x4", "ObjectToWorld3x4"), ("float4x3", "ObjectToWorld4x3"),
            ("float3x4", "WorldToObject3x4"), ("float4x3", "WorldToObject4x3"), ("float2", "TriangleBarycentrics"),
            ("bool", "TriangleFrontFace"))
_RAY_QUERY = (
    "void TraceRayInline(RaytracingAccelerationStructure, uint, uint, RayDesc)",
    "bool Proceed()", "void Abort()",
    "void CommitNonOpaqueTriangleHit()", "void CommitProceduralPrimitiveHit(float)",
    "uint CommittedStatus()", "uint CandidateType()", "bool CandidateProceduralPrimitiveNonOpaque()",
    "float CandidateTriangleRayT()", "float CommittedRayT()",
    "uint RayFlags()", "float3 WorldRayOrigin()", "float3 WorldRayDirection()", "float RayTMin()",
    *(f"{result} {which}{name}()" for which in ("Candidate", "Committed") for result, name in _GETTERS),
)
"""DXC's `RayQueryMethods` (gen_intrin_main.txt) up to shader model 6.9."""

# operator[]: kind -> (index symbol, element symbol); writable is the kind's `writable`.
_INDEX: dict[object, tuple[str, str]] = {
    RK.BUFFER: ("uint", "E"), RK.RW_BUFFER: ("uint", "E"),
    RK.STRUCTURED_BUFFER: ("uint", "E"), RK.RW_STRUCTURED_BUFFER: ("uint", "E"),
    **{kind: ("X", "E") for kind, (_, _, _, features) in _TEXTURES.items() if "index" in features or "rw" in features},
    NK.GROUP_NODE_INPUT_RECORDS: ("uint", "R&"), NK.RW_GROUP_NODE_INPUT_RECORDS: ("uint", "R&"),
    NK.THREAD_NODE_OUTPUT_RECORDS: ("uint", "R&"), NK.GROUP_NODE_OUTPUT_RECORDS: ("uint", "R&"),
    NK.NODE_OUTPUT_ARRAY: ("uint", "NodeOutput<R>"), NK.EMPTY_NODE_OUTPUT_ARRAY: ("uint", "EmptyNodeOutput"),
}

_CONCRETE: dict[str, t.Type] = {
    "void": t.VOID, "bool": t.BOOL, "int": t.INT, "float": t.FLOAT,
    "uint": t.UINT, "uint2": t.vector(t.UINT, 2), "uint3": t.vector(t.UINT, 3), "uint4": t.vector(t.UINT, 4),
    "SamplerState": t.resource(RK.SAMPLER_STATE, None),
    "SamplerComparisonState": t.resource(RK.SAMPLER_COMPARISON_STATE, None),
    "C": t.resource(RK.SAMPLER_COMPARISON_STATE, None), "Z": t.FLOAT,
    "EmptyNodeOutput": t.node_object(NK.EMPTY_NODE_OUTPUT, None),
    "float2": t.vector(t.FLOAT, 2), "float3": t.vector(t.FLOAT, 3),
    "float3x4": t.matrix(t.FLOAT, 3, 4), "float4x3": t.matrix(t.FLOAT, 4, 3),
    "RaytracingAccelerationStructure": t.resource(RK.RAYTRACING_ACCELERATION_STRUCTURE, None),
    "RayDesc": t.RAY_DESC,
}

# ---------------------------------------------------------------- the declaration language


@dataclass(frozen=True)
class _Param:
    out: bool
    symbol: str


@dataclass(frozen=True)
class _Decl:
    name: str
    result: str
    params: tuple[_Param, ...]
    templated: bool
    fallback: bool
    binds_integer: bool
    """A parameter is `I` (an atomic's integer type, bound by the arguments: `_bind`)."""

    @property
    def record_access(self) -> bool:
        return self.result.endswith("&")


_DECLARATION = re.compile(r"^(~?)(\S+) (\w+)(<T>)?\((.*)\)$")


def _parse(text: str) -> _Decl:
    match = _DECLARATION.match(text)
    assert match, text
    fallback, result, name, templated, params = match.groups()
    parsed = tuple(_Param(p.startswith("out "), p.removeprefix("out ")) for p in params.split(", ") if p)
    return _Decl(name, result, parsed, bool(templated), bool(fallback), any(p.symbol == "I" for p in parsed))


def _vec(element: t.ScalarType, n: int) -> t.Type:
    return element if n == 1 else t.vector(element, n)


@functools.lru_cache(maxsize=None)
def _declarations(kind: t.ResourceKind | t.NodeObjectKind | str) -> dict[str, tuple[_Decl, ...]]:
    """The declarations of a kind of object, grouped by method name."""
    texts: Sequence[str]
    if kind == RAY_QUERY:
        texts = _RAY_QUERY
    elif isinstance(kind, t.NodeObjectKind):
        texts = _NODES[kind]
    elif kind in _TEXTURES:
        _, _, count, features = _TEXTURES[kind]
        sizes = {"sizes": ", ".join(["out uint"] * count), "fsizes": ", ".join(["out float"] * count)}
        table: tuple[tuple[str, str], ...]
        if "ms" in features:
            table = _MS_TEXTURE
        else:
            table = tuple((text, "") for text in _RW_TEXTURE) if "rw" in features else _TEXTURE
        texts = [text.format(**sizes) for text, need in table if set(need.split()) <= set(features.split())]
    else:
        assert isinstance(kind, t.ResourceKind)
        texts = _RESOURCES.get(kind, ())
    grouped: dict[str, tuple[_Decl, ...]] = {}
    for decl in map(_parse, texts):
        grouped[decl.name] = (*grouped.get(decl.name, ()), decl)
    return grouped


def _kind(object_type: t.Type) -> t.ResourceKind | t.NodeObjectKind | str | None:
    if isinstance(object_type, t.RayQueryType):
        return RAY_QUERY
    return object_type.kind if isinstance(object_type, (t.ResourceType, t.NodeObjectType)) else None


def _environment(object_type: t.Type) -> dict[str, t.Type]:
    """What the symbols of the object's declarations mean for this object type."""
    env: dict[str, t.Type] = {}
    if isinstance(object_type, t.NodeObjectType):
        record = object_type.record
        if record is not None:
            env["R"] = env["R&"] = record   # and the `_RECORD_OBJECTS` of R, made when `_symbol` meets them
        return env
    if not isinstance(object_type, t.ResourceType) or object_type.element is None:
        return env
    element = env["E"] = object_type.element
    if object_type.kind in _TEXTURES:
        dims, grad, _, features = _TEXTURES[object_type.kind]
        env["F"], env["G"], env["O"] = _vec(t.FLOAT, dims), _vec(t.FLOAT, grad), _vec(t.INT, grad)
        if "index" in features or "rw" in features:
            env["X"] = _vec(t.UINT, dims)
            env["L"] = _vec(t.INT, dims if "rw" in features or "ms" in features else dims + 1)
        scalar = t.element_scalar(element)
        if scalar is not None:
            env["S4"] = t.vector(scalar, 4)
    return env


_RECORD_OBJECTS = {f"{kind.value}<R>": kind
                   for kind in (NK.THREAD_NODE_OUTPUT_RECORDS, NK.GROUP_NODE_OUTPUT_RECORDS, NK.NODE_OUTPUT)}
"""The symbols of the node-object types of an object's record R (`NodeOutput<R>`, ...): made only when
a declaration is matched against them (each method call would otherwise make and drop three types)."""


def _symbol(symbol: str, env: dict[str, t.Type]) -> t.Type | None:
    found = env.get(symbol)
    if found:
        return found
    kind = _RECORD_OBJECTS.get(symbol)
    if kind is not None and (record := env.get("R")) is not None:
        return t.node_object(kind, record)
    return _CONCRETE.get(symbol)


def _is_data(type_: t.Type) -> bool:
    """A type `Load<T>`/`Store<T>` can move: numeric, enum, struct, or an array of those."""
    element = t.innermost_element(type_)
    return t.is_numeric(element) or isinstance(element, t.StructType)


# ---------------------------------------------------------------- resolution


@dataclass(frozen=True)
class _Candidate:
    resolved: MethodResolved
    conversions: tuple[Conversion, ...]
    fallback: bool


def _beats(a: _Candidate, b: _Candidate) -> bool:
    if _better(a.conversions, b.conversions):
        return True
    return a.conversions == b.conversions and b.fallback and not a.fallback


def _bind(decl: _Decl, env: dict[str, t.Type], args: Sequence[t.Type],
          template_type: t.Type | None) -> dict[str, t.Type] | None:
    """The environment extended with the declaration's `T` and `I`, or None if they cannot be bound."""
    if template_type is not None and not decl.templated:
        return None
    if not decl.templated and not decl.binds_integer:
        return env   # nothing to bind (callers only read it): no copy, most methods
    bound = dict(env)
    if decl.templated:
        if template_type is None:
            template_type = next((a for p, a in zip(decl.params, args) if p.symbol == "T" and not p.out), None)
        if template_type is None or not _is_data(template_type):
            return None
        bound["T"] = template_type
    sources = [t.element_scalar(a) for p, a in zip(decl.params, args) if p.symbol == "I" and not p.out]
    if sources:
        if any(s is None for s in sources):
            return None
        common = functools.reduce(arithmetic_scalar, sources)  # type: ignore[arg-type]
        bound["I"] = t.INT if common is not None and common.kind is t.ScalarKind.INT else t.UINT
    return bound


def _instantiate(decl: _Decl, env: dict[str, t.Type], args: Sequence[t.Type],
                 template_type: t.Type | None) -> _Candidate | None:
    if len(args) != len(decl.params):
        return None
    bound = _bind(decl, env, args, template_type)
    if bound is None:
        return None
    params: list[t.Type] = []
    conversions: list[Conversion] = []
    for pattern, arg in zip(decl.params, args):
        param = _symbol(pattern.symbol, bound)
        if param is None:
            return None
        conversion = implicit_conversion(param, arg) if pattern.out else implicit_conversion(arg, param)
        if conversion is None:
            return None
        params.append(param)
        conversions.append(conversion)
    result = _symbol(decl.result, bound)
    if result is None:
        return None
    resolved = MethodResolved(decl.name, tuple(params), result,
                              tuple(i for i, p in enumerate(decl.params) if p.out),
                              record_access=decl.record_access,
                              template_type=bound["T"] if decl.templated else None)
    return _Candidate(resolved, tuple(conversions), decl.fallback or decl.templated)


def _text(object_type: t.Type, decl: _Decl, env: dict[str, t.Type]) -> str:
    """A declaration as a diagnostic shows it:
    `float4 Texture2D<float4>::SampleLevel(SamplerState, float2, float)`."""
    def show(symbol: str) -> str:
        found = _symbol(symbol, env)
        return symbol if found is None else str(found)

    params = ", ".join(("out " if p.out else "") + show(p.symbol) for p in decl.params)
    template = f"<{show('T')}>" if decl.templated else ""
    note = " [I: int/uint]" if any(p.symbol == "I" for p in decl.params) else ""
    return f"{show(decl.result)} {object_type}::{decl.name}{template}({params}){note}"


def has_methods(object_type: t.Type) -> bool:
    """Whether the type is a resource or node object with at least one method."""
    return bool(method_names(object_type))


def method_names(object_type: t.Type) -> tuple[str, ...]:
    """The object's method names, sorted (for "no member" and "did you mean" messages)."""
    kind = _kind(object_type)
    return () if kind is None else tuple(sorted(_declarations(kind)))


def arity(object_type: t.Type, name: str) -> tuple[int, ...]:
    """The argument counts the method accepts, ascending (empty if the object has no such method)."""
    kind = _kind(object_type)
    decls = () if kind is None else _declarations(kind).get(name, ())
    return tuple(sorted({len(d.params) for d in decls}))


def resolve_method(object_type: t.Type, name: str, arg_types: Sequence[t.Type],
                   template_type: t.Type | None = None) -> MethodResolved | NoMatch | Ambiguous | None:
    """Resolve `object.name<template_type>(args)`; None when the object has no method `name`."""
    kind = _kind(object_type)
    decls = None if kind is None else _declarations(kind).get(name)
    if not decls:
        return None
    env = _environment(object_type)
    if len(decls) == 1:   # most methods have one declaration: it wins if it matches (what `_ranked` gives)
        only = _instantiate(decls[0], env, arg_types, template_type)
        if only is not None:
            return only.resolved
    return _ranked(object_type, decls, env, arg_types, template_type)


def _ranked(object_type: t.Type, decls: Sequence[_Decl], env: dict[str, t.Type], arg_types: Sequence[t.Type],
            template_type: t.Type | None) -> MethodResolved | NoMatch | Ambiguous:
    """The best of the declarations that match (the module docstring's ranking)."""
    found: dict[MethodResolved, _Candidate] = {}
    for decl in decls:
        candidate = _instantiate(decl, env, arg_types, template_type)
        if candidate is not None:
            found.setdefault(candidate.resolved, candidate)
    best = [c for c in found.values() if not any(_beats(other, c) for other in found.values())]
    if not best:
        shown = dict(env, T=template_type) if template_type is not None and _is_data(template_type) else env
        return NoMatch(tuple(_text(object_type, d, shown) for d in decls))
    if len(best) > 1:
        return Ambiguous(tuple(_resolved_text(object_type, c.resolved) for c in best))
    return best[0].resolved


def _resolved_text(object_type: t.Type, resolved: MethodResolved) -> str:
    params = ", ".join(("out " if i in resolved.out_params else "") + str(p) for i, p in enumerate(resolved.params))
    template = f"<{resolved.template_type}>" if resolved.template_type is not None else ""
    return f"{resolved.result} {object_type}::{resolved.name}{template}({params})"


SLICE_MEMBERS = ("mips", "sample")
"""`tex.mips[level][pos]` (textures with mip levels and `operator[]`) and `tex.sample[s][pos]`
(multisampled textures): `operator[]` on another mip level or sample (DXC's `mips_type` and
`sample_type` members)."""


def slice_access(object_type: t.Type, member: str) -> IndexAccess | None:
    """`object.mips[...]` / `object.sample[...]`'s final `operator[]` (its slice index is a `uint`);
    None when the object has no such member."""
    kind = _kind(object_type)
    if not isinstance(kind, t.ResourceKind) or kind not in _TEXTURES:
        return None
    features = _TEXTURES[kind][3].split()
    if member == "sample" and "ms" in features or member == "mips" and {"mips", "index"} <= set(features):
        return index_access(object_type)
    return None


def index_access(object_type: t.Type) -> IndexAccess | None:
    """`object[i]` on a resource or node object; None when the type cannot be indexed."""
    kind = _kind(object_type)
    entry = None if kind is None else _INDEX.get(kind)
    if entry is None or kind is None or isinstance(kind, str):
        return None
    env = _environment(object_type)
    index, element = _symbol(entry[0], env), _symbol(entry[1], env)
    if index is None or element is None:
        return None
    return IndexAccess(index, element, kind.writable, record_access=entry[1].endswith("&"))
