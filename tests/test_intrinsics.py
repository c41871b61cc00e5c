"""HLSL intrinsic overload sets and their resolution against argument types."""

from __future__ import annotations

import pytest

from wgc import types as t
from wgc.sema.intrinsics import (
    BARRIER_CONSTANTS,
    Ambiguous,
    NoMatch,
    Resolved,
    is_intrinsic,
    resolve_intrinsic,
)

F, I, U, B, D = t.FLOAT, t.INT, t.UINT, t.BOOL, t.DOUBLE
HALF = t.scalar_named("half", enable_16bit_types=False)
HALF16 = t.scalar_named("half", enable_16bit_types=True)
MIN16 = t.scalar_named("min16float", enable_16bit_types=False)
INT16 = t.scalar_named("int16_t", enable_16bit_types=True)


def v(element: t.ScalarType, n: int) -> t.Type:
    return t.vector(element, n)


def m(element: t.ScalarType, r: int, c: int) -> t.Type:
    return t.matrix(element, r, c)


F2, F3, F4 = v(F, 2), v(F, 3), v(F, 4)
I3, U2, U4, B3 = v(I, 3), v(U, 2), v(U, 4), v(B, 3)
STRUCT = t.StructType("S")
BUFFER = t.resource(t.ResourceKind.RW_BUFFER, U)
OUTPUT = t.node_object(t.NodeObjectKind.NODE_OUTPUT, STRUCT)


def resolved(name: str, args: list[t.Type]) -> Resolved:
    result = resolve_intrinsic(name, args)
    assert isinstance(result, Resolved), result
    return result


# name, arguments, expected parameters, expected result, expected out parameters
CASES = [
    # the examples of the issue
    ("lerp", [F3, F3, F], [F3, F3, F3], F3, ()),
    ("max", [I, U], [U, U], U, ()),
    ("abs", [I3], [I3], I3, ()),
    ("sqrt", [I], [F], F, ()),
    ("clamp", [F3, I, I], [F3, F3, F3], F3, ()),
    ("asuint", [F3], [F3], v(U, 3), ()),
    ("asfloat", [U], [U], F, ()),
    ("asint", [F2], [F2], v(I, 2), ()),
    ("f32tof16", [F], [F], U, ()),
    ("f16tof32", [U2], [U2], F2, ()),
    ("countbits", [U2], [U2], U2, ()),
    ("all", [F3], [F3], B, ()),
    ("any", [I3], [I3], B, ()),
    ("isnan", [F3], [F3], B3, ()),
    ("isinf", [F], [F], B, ()),
    ("isfinite", [F2], [F2], v(B, 2), ()),
    ("length", [F3], [F3], F, ()),
    ("length", [F], [v(F, 1)], F, ()),  # a scalar is a one-component vector
    ("dot", [F, F], [v(F, 1), v(F, 1)], F, ()),
    ("distance", [F3, F3], [F3, F3], F, ()),
    ("normalize", [F3], [F3], F3, ()),
    ("reflect", [F3, F3], [F3, F3], F3, ()),
    ("refract", [F3, F3, F], [F3, F3, F], F3, ()),
    ("faceforward", [F3, F3, F3], [F3, F3, F3], F3, ()),
    ("mad", [F, F, F], [F, F, F], F, ()),
    ("mad", [I3, I3, I], [I3, I3, I3], I3, ()),
    ("fma", [D, D, D], [D, D, D], D, ()),
    ("fma", [D, F, I], [D, D, D], D, ()),
    ("sign", [F3], [F3], I3, ()),
    ("sign", [I], [I], I, ()),
    ("firstbithigh", [I], [I], U, ()),
    ("firstbitlow", [U2], [U2], U2, ()),
    ("reversebits", [I3], [I3], I3, ()),
    ("modf", [F3, F3], [F3, F3], F3, (1,)),
    ("frexp", [F, F], [F, F], F, (1,)),
    ("dot", [F3, F3], [F3, F3], F, ()),
    ("dot", [I3, I3], [I3, I3], I, ()),
    ("cross", [F3, F3], [F3, F3], F3, ()),
    ("transpose", [m(I, 2, 3)], [m(I, 2, 3)], m(I, 3, 2), ()),
    ("determinant", [m(F, 3, 3)], [m(F, 3, 3)], F, ()),
    ("select", [B3, F, I], [B3, F3, F3], F3, ()),
    ("select", [B, I, I], [B, I, I], I, ()),
    ("select", [I, F2, F2], [v(B, 2), F2, F2], F2, ()),  # the condition splats to the shape
    # component classes and literal splats
    ("sin", [HALF], [HALF], HALF, ()),
    ("cos", [HALF16], [HALF16], HALF16, ()),
    ("exp", [MIN16], [MIN16], MIN16, ()),
    ("log", [D], [F], F, ()),  # transcendental functions take half/float only: double converts
    ("saturate", [D], [D], D, ()),  # saturate and rcp take double too
    ("rcp", [I], [F], F, ()),
    ("pow", [F3, I], [F3, F3], F3, ()),
    ("step", [F, F4], [F4, F4], F4, ()),
    ("smoothstep", [I, I, F2], [F2, F2, F2], F2, ()),
    ("min", [F, D], [D, D], D, ()),
    ("min", [I, I], [I, I], I, ()),
    ("max", [INT16, I], [I, I], I, ()),
    ("abs", [B], [I], I, ()),
    ("abs", [m(F, 2, 2)], [m(F, 2, 2)], m(F, 2, 2), ()),
    ("floor", [m(F, 3, 4)], [m(F, 3, 4)], m(F, 3, 4), ()),
    ("lerp", [F, F, F], [F, F, F], F, ()),
    ("lerp", [F4, F3, F], [F3, F3, F3], F3, ()),  # vectors meet at the shorter one (truncation)
    ("clamp", [I, F, U], [F, F, F], F, ()),
    ("clamp", [v(I, 4), I, I], [v(I, 4), v(I, 4), v(I, 4)], v(I, 4), ()),
    ("lerp", [F4, m(F, 1, 4), F], [F4, F4, F4], F4, ()),  # float1x4 meets float4 at float4
    # dot of vectors of unequal length: the longer truncates (dxc warns)
    ("dot", [F4, F3], [F3, F3], F, ()),
    ("dot", [F3, F], [F3, F3], F, ()),
    # every shape of mul
    ("mul", [F, F], [F, F], F, ()),
    ("mul", [F, F3], [F, F3], F3, ()),
    ("mul", [F3, F], [F3, F], F3, ()),
    ("mul", [I, F3], [F, F3], F3, ()),
    ("mul", [F, m(F, 2, 3)], [F, m(F, 2, 3)], m(F, 2, 3), ()),
    ("mul", [m(F, 2, 3), F], [m(F, 2, 3), F], m(F, 2, 3), ()),
    ("mul", [F3, F3], [F3, F3], F, ()),
    ("mul", [F3, m(F, 3, 2)], [F3, m(F, 3, 2)], F2, ()),
    ("mul", [F4, m(F, 4, 4)], [F4, m(F, 4, 4)], F4, ()),
    ("mul", [m(F, 2, 3), F3], [m(F, 2, 3), F3], F2, ()),
    ("mul", [m(F, 2, 3), m(F, 3, 4)], [m(F, 2, 3), m(F, 3, 4)], m(F, 2, 4), ()),
    ("mul", [m(F, 4, 4), m(F, 4, 4)], [m(F, 4, 4), m(F, 4, 4)], m(F, 4, 4), ()),
    ("mul", [I3, m(I, 3, 3)], [I3, m(I, 3, 3)], I3, ()),
    ("mul", [I3, m(F, 3, 3)], [F3, m(F, 3, 3)], F3, ()),
    # asuint(double, out uint lowbits, out uint highbits)
    ("asuint", [D, U, U], [D, U, U], t.VOID, (1, 2)),
    ("asuint", [I], [I], U, ()),
    # atomics: the destination is bound alone and must match exactly; it and the original are out parameters
    ("InterlockedAdd", [U, I], [U, U], t.VOID, (0,)),
    ("InterlockedAdd", [I, U, U], [I, I, I], t.VOID, (0, 2)),
    ("InterlockedMax", [t.INT64, I], [t.INT64, t.INT64], t.VOID, (0,)),
    ("InterlockedOr", [t.UINT64, U, t.UINT64], [t.UINT64, t.UINT64, t.UINT64], t.VOID, (0, 2)),
    ("InterlockedExchange", [U, U, U], [U, U, U], t.VOID, (0, 2)),
    ("InterlockedCompareExchange", [U, I, I, U], [U, U, U, U], t.VOID, (0, 3)),
    ("InterlockedCompareStore", [I, I, I], [I, I, I], t.VOID, (0,)),
    # barriers
    ("GroupMemoryBarrierWithGroupSync", [], [], t.VOID, ()),
    ("AllMemoryBarrier", [], [], t.VOID, ()),
    ("Barrier", [U, U], [U, U], t.VOID, ()),
    ("Barrier", [I, I], [U, U], t.VOID, ()),
    ("Barrier", [BUFFER, U], [BUFFER, U], t.VOID, ()),
    ("Barrier", [OUTPUT, I], [OUTPUT, U], t.VOID, ()),
    # wave and quad operations
    ("WaveGetLaneIndex", [], [], U, ()),
    ("WaveIsFirstLane", [], [], B, ()),
    ("WaveActiveSum", [F3], [F3], F3, ()),
    ("WaveActiveMin", [B], [I], I, ()),
    ("WaveActiveBitXor", [U2], [U2], U2, ()),
    ("WaveActiveAllTrue", [I], [B], B, ()),
    ("WaveActiveAllEqual", [F3], [F3], B3, ()),
    ("WaveActiveCountBits", [B], [B], U, ()),
    ("WaveActiveBallot", [B], [B], U4, ()),
    ("WavePrefixProduct", [I], [I], I, ()),
    ("WavePrefixCountBits", [B], [B], U, ()),
    ("WaveReadLaneAt", [F4, I], [F4, U], F4, ()),
    ("WaveReadLaneFirst", [B3], [B3], B3, ()),
    ("QuadReadAcrossDiagonal", [I3], [I3], I3, ()),
    # work graphs
    ("GetRemainingRecursionLevels", [], [], U, ()),
    ("GetCurrentLoopIterationIndex", [], [], U, ()),
]


@pytest.mark.parametrize("name,args,params,result,outs", CASES,
                         ids=[f"{c[0]}({','.join(map(str, c[1]))})" for c in CASES])
def test_resolves_to_exact_types(name, args, params, result, outs):
    got = resolved(name, args)
    assert got.name == name
    assert got.params == tuple(params), [str(p) for p in got.params]
    assert all(g is e for g, e in zip(got.params, params))
    assert got.result is result, str(got.result)
    assert got.out_params == outs


@pytest.mark.parametrize("name,args", [
    ("sqrt", [STRUCT]),
    ("sqrt", [t.array(F, 4)]),
    ("cross", [F2, F2]),
    ("cross", [F3]),
    ("lerp", [F, F]),
    ("WaveGetLaneIndex", [U]),
    ("WaveActiveBitAnd", [F]),
    ("countbits", [F]),
    ("fma", [F, F, F]),  # fma is double only
    ("asuint", [INT16]),  # asuint takes 32-bit components (asuint16 is another intrinsic)
    ("determinant", [m(F, 3, 4)]),  # square matrices only
    ("transpose", [F3]),
    ("lerp", [F3, m(F, 3, 3), F]),  # the shapes cannot meet
    ("WaveActiveSum", [m(F, 2, 2)]),  # wave operations take scalars and vectors
    ("InterlockedAdd", [F, F]),
    ("InterlockedAdd", [INT16, I]),
    ("InterlockedAdd", [U]),
    ("InterlockedCompareExchange", [U, U, U]),
    ("Barrier", [STRUCT, U]),
    ("Barrier", [U]),
    ("GroupMemoryBarrier", [U]),
])
def test_no_match(name, args):
    result = resolve_intrinsic(name, args)
    assert isinstance(result, NoMatch), result
    assert result.candidates


def test_no_match_lists_readable_candidates():
    assert resolve_intrinsic("cross", [F2, F2]) == NoMatch(("T<3> cross(T<3>, T<3>) [T: half/float]",))
    assert resolve_intrinsic("lerp", [F]) == NoMatch(
        ("T<> lerp(T<>, T<>, T<>) [T: half/float; <>: scalar/vector/matrix]",))
    assert resolve_intrinsic("Barrier", [U]) == NoMatch(("void Barrier(uint, uint)", "void Barrier(object, uint)"))
    assert resolve_intrinsic("InterlockedCompareStore", [F, F, F]) == NoMatch(
        ("void InterlockedCompareStore(inout T, T, T) [T: int/uint (32/64-bit)]",))
    assert resolve_intrinsic("WaveActiveBitOr", [F]) == NoMatch(
        ("T<> WaveActiveBitOr(T<>) [T: int/uint (16/32/64-bit); <>: scalar/vector]",))


def test_mul_with_mismatched_dimensions_is_ambiguous():
    # float4 * float3x3: the vector*matrix form truncates the vector, the vector*scalar
    # form truncates the matrix to a scalar, the scalar*matrix form the vector: none is
    # better for every argument, so the call is ambiguous (dxc reports an error too).
    assert resolve_intrinsic("mul", [F4, m(F, 3, 3)]) == Ambiguous((
        "float3x3 mul(float, float3x3)",
        "float4 mul(float4, float)",
        "float3 mul(float3, float3x3)",
    ))


def test_mul_truncating_a_vector_to_a_matrix_row_is_ambiguous():
    assert resolve_intrinsic("mul", [F3, m(F, 4, 4)]) == Ambiguous((
        "float4x4 mul(float, float4x4)",
        "float3 mul(float3, float)",
        "float4 mul(float3, float3x4)",
    ))


def test_unknown_name_is_a_programming_error():
    with pytest.raises(KeyError):
        resolve_intrinsic("frobnicate", [F])


def test_names_are_case_sensitive():
    assert is_intrinsic("lerp") and not is_intrinsic("Lerp") and not is_intrinsic("LERP")
    assert is_intrinsic("WaveActiveSum") and not is_intrinsic("waveactivesum")
    assert not is_intrinsic("frobnicate")


def test_barrier_constants():
    assert BARRIER_CONSTANTS == {"UAV_MEMORY": 0x1, "GROUP_SHARED_MEMORY": 0x2, "NODE_INPUT_MEMORY": 0x4,
                                 "NODE_OUTPUT_MEMORY": 0x8, "ALL_MEMORY": 0xF, "GROUP_SYNC": 0x1,
                                 "GROUP_SCOPE": 0x2, "DEVICE_SCOPE": 0x4}


# every intrinsic the issue lists, with one plausible call and its exact result type
ISSUE_LIST = {
    **{name: ([F3], F3) for name in (
        "saturate", "sqrt", "rsqrt", "rcp", "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin",
        "acos", "atan", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc", "frac", "normalize", "abs")},
    **{name: ([F3, F3], F3) for name in ("min", "max", "step", "pow", "atan2", "fmod", "reflect", "cross")},
    **{name: ([F3, F3, F3], F3) for name in ("clamp", "lerp", "smoothstep", "faceforward", "mad")},
    "fma": ([D, D, D], D), "modf": ([F3, F3], F3), "dot": ([F3, F3], F), "length": ([F3], F),
    "distance": ([F3, F3], F), "refract": ([F3, F3, F], F3), "sign": ([F3], I3),
    **{name: ([F3], B3) for name in ("isnan", "isinf", "isfinite")},
    "all": ([B3], B), "any": ([B3], B),
    **{name: ([U2], U2) for name in ("countbits", "firstbithigh", "firstbitlow", "reversebits")},
    "asuint": ([F], U), "asint": ([U], I), "asfloat": ([I], F), "f32tof16": ([F], U), "f16tof32": ([U], F),
    "mul": ([F4, m(F, 4, 4)], F4), "transpose": ([m(F, 2, 4)], m(F, 4, 2)), "determinant": ([m(F, 2, 2)], F),
    "select": ([B3, F3, F3], F3),
    **{f"Interlocked{op}": ([U, U], t.VOID) for op in ("Add", "And", "Or", "Xor", "Min", "Max", "Exchange")},
    "InterlockedCompareExchange": ([I, I, I, I], t.VOID), "InterlockedCompareStore": ([U, U, U], t.VOID),
    **{f"{kind}MemoryBarrier{sync}": ([], t.VOID)
       for kind in ("Group", "Device", "All") for sync in ("", "WithGroupSync")},
    "Barrier": ([U, U], t.VOID),
    "WaveGetLaneIndex": ([], U), "WaveGetLaneCount": ([], U), "WaveIsFirstLane": ([], B),
    **{name: ([F2], F2) for name in ("WaveActiveSum", "WaveActiveProduct", "WaveActiveMin", "WaveActiveMax",
                                     "WavePrefixSum", "WavePrefixProduct", "WaveReadLaneFirst",
                                     "QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal")},
    **{name: ([U], U) for name in ("WaveActiveBitAnd", "WaveActiveBitOr", "WaveActiveBitXor")},
    "WaveActiveAllTrue": ([B], B), "WaveActiveAnyTrue": ([B], B), "WaveActiveAllEqual": ([U2], v(B, 2)),
    "WaveActiveCountBits": ([B], U), "WaveActiveBallot": ([B], U4), "WavePrefixCountBits": ([B], U),
    "WaveReadLaneAt": ([F, U], F),
    "GetRemainingRecursionLevels": ([], U), "GetCurrentLoopIterationIndex": ([], U),
}


ISSUE_NAMES = """
abs min max clamp saturate lerp step smoothstep sqrt rsqrt rcp pow exp exp2 log log2 log10 sin cos tan asin acos
atan atan2 sinh cosh tanh floor ceil round trunc frac fmod modf dot cross length distance normalize reflect refract
faceforward mad fma sign isnan isinf isfinite all any countbits firstbithigh firstbitlow reversebits asuint asint
asfloat f32tof16 f16tof32 mul transpose determinant select
InterlockedAdd InterlockedAnd InterlockedOr InterlockedXor InterlockedMin InterlockedMax InterlockedExchange
InterlockedCompareExchange InterlockedCompareStore
GroupMemoryBarrier GroupMemoryBarrierWithGroupSync DeviceMemoryBarrier DeviceMemoryBarrierWithGroupSync
AllMemoryBarrier AllMemoryBarrierWithGroupSync Barrier
WaveGetLaneIndex WaveGetLaneCount WaveIsFirstLane WaveActiveSum WaveActiveProduct WaveActiveMin WaveActiveMax
WaveActiveBitAnd WaveActiveBitOr WaveActiveBitXor WaveActiveAllTrue WaveActiveAnyTrue WaveActiveAllEqual
WaveActiveCountBits WaveActiveBallot WavePrefixSum WavePrefixProduct WavePrefixCountBits WaveReadLaneAt
WaveReadLaneFirst QuadReadAcrossX QuadReadAcrossY QuadReadAcrossDiagonal
GetRemainingRecursionLevels GetCurrentLoopIterationIndex
""".split()


def test_issue_list_is_complete():
    assert len(ISSUE_NAMES) == len(set(ISSUE_NAMES)) == 104
    assert set(ISSUE_LIST) == set(ISSUE_NAMES)


@pytest.mark.parametrize("name", sorted(ISSUE_LIST))
def test_every_listed_intrinsic_resolves(name):
    args, result = ISSUE_LIST[name]
    assert is_intrinsic(name)
    got = resolved(name, args)
    assert got.result is result, str(got.result)
    assert len(got.params) == len(args)
