"""Sema of the intrinsics and methods added from DXC's table: overloads and result types, as
gen_intrin_main.txt declares them (e.g. `$type1 ddx(in float_like<> x)`, `uint<4> WaveMatch(in
numeric<> value)`, `float_like SampleCmp(in sampler_cmp s, in float<2> x, in float compareValue)`)."""

from __future__ import annotations

import pytest

from wgc import types as t
from wgc.sema.intrinsics import NoMatch, Resolved, resolve_intrinsic
from wgc.sema.methods import MethodResolved, resolve_method

F, I, U, B, D = t.FLOAT, t.INT, t.UINT, t.BOOL, t.DOUBLE
H = t.scalar(t.ScalarKind.FLOAT, 16)
F2, F3, F4, U2, U4, I2, H2 = (t.vector(F, 2), t.vector(F, 3), t.vector(F, 4), t.vector(U, 2), t.vector(U, 4),
                              t.vector(I, 2), t.vector(H, 2))
F2X2 = t.matrix(F, 2, 2)

RESOLVES = [
    # name, argument types, parameter types, result, out parameters
    *((n, [F3], [F3], F3, ()) for n in ("ddx", "ddy", "ddx_coarse", "ddy_coarse", "ddx_fine", "ddy_fine",
                                        "fwidth", "degrees", "radians")),
    ("ddx", [I], [F], F, ()),                                  # float_like: an int becomes float
    ("ddx", [F2X2], [F2X2], F2X2, ()),
    ("ldexp", [F2, F2], [F2, F2], F2, ()),
    ("sincos", [F3, F3, F3], [F3, F3, F3], t.VOID, (1, 2)),
    ("isnormal", [F3], [F3], t.vector(B, 3), ()),
    ("dst", [F4, F4], [F4, F4], F4, ()),
    ("lit", [F, F, F], [F, F, F], F4, ()),
    ("dot4add_u8packed", [U, U, U], [U, U, U], U, ()),
    ("dot4add_i8packed", [U, U, I], [U, U, I], I, ()),
    ("dot2add", [H2, H2, F], [H2, H2, F], F, ()),
    ("msad4", [U, U2, U4], [U, U2, U4], U4, ()),
    ("AddUint64", [U2, U2], [U2, U2], U2, ()),
    ("AddUint64", [U4, U4], [U4, U4], U4, ()),
    ("asdouble", [U, U], [U, U], D, ()),
    ("asdouble", [U2, U2], [U2, U2], t.vector(D, 2), ()),
    ("WaveMatch", [F3], [F3], U4, ()),
    ("WaveMultiPrefixSum", [F, U4], [F, U4], F, ()),
    ("WaveMultiPrefixProduct", [I2, U4], [I2, U4], I2, ()),
    ("WaveMultiPrefixBitAnd", [U, U4], [U, U4], U, ()),
    ("WaveMultiPrefixCountBits", [B, U4], [B, U4], U, ()),
    ("QuadReadLaneAt", [F3, U], [F3, U], F3, ()),
    ("QuadAny", [B], [B], B, ()),
    ("QuadAll", [B], [B], B, ()),
    ("NonUniformResourceIndex", [U], [U], U, ()),
    ("NonUniformResourceIndex", [I], [I], I, ()),
    ("CheckAccessFullyMapped", [U], [U], B, ()),
    ("IsHelperLane", [], [], B, ()),
    ("InterlockedExchange", [F, F, F], [F, F, F], t.VOID, (0, 2)),
    ("and", [t.vector(B, 2), B], [t.vector(B, 2)] * 2, t.vector(B, 2), ()),
    ("or", [B, B], [B, B], B, ()),
    ("D3DCOLORtoUBYTE4", [F4], [F4], t.vector(I, 4), ()),
    ("asfloat16", [t.scalar(t.ScalarKind.UINT, 16)], [t.scalar(t.ScalarKind.UINT, 16)], H, ()),
    ("asuint16", [t.vector(H, 3)], [t.vector(H, 3)], t.vector(t.scalar(t.ScalarKind.UINT, 16), 3), ()),
    ("asint16", [H], [H], t.scalar(t.ScalarKind.INT, 16), ()),
    # printf: the format, then any arguments as they are
    ("printf", [t.STRING], [t.STRING], t.VOID, ()),
    ("printf", [t.STRING, U, F3], [t.STRING, U, F3], t.VOID, ()),
]


@pytest.mark.parametrize("name,args,params,result,outs", RESOLVES, ids=[f"{r[0]}-{i}" for i, r in enumerate(RESOLVES)])
def test_resolves(name, args, params, result, outs):
    assert resolve_intrinsic(name, args) == Resolved(name, tuple(params), result, outs)


NO_MATCH = [
    ("ddx", [B, B]),                       # one argument
    ("WaveMultiPrefixBitOr", [F, U4]),     # integers only
    ("WaveMatch", [F2X2]),                 # scalar or vector
    ("InterlockedExchange", [F, F]),       # a float exchange returns the original
    ("NonUniformResourceIndex", [F]),
    ("asuint16", [F]),                     # 16-bit types only (a 32-bit float is not reinterpreted)
    ("asfloat16", [t.scalar(t.ScalarKind.FLOAT, 32, "min16float", relaxed=True)]),   # min precision: no
    ("printf", [U]),                       # the format is a string
    ("printf", []),
]


def test_a_variadic_intrinsic_accepts_any_count_from_its_fixed_one():
    from wgc.sema.intrinsics import arity, signatures
    assert signatures("printf") == ("void printf(string, ...)",)
    assert arity("printf") == (1,) and arity("printf", 4) == (1, 4) and arity("printf", 0) == (1,)


@pytest.mark.parametrize("name,args", NO_MATCH, ids=[n for n, _ in NO_MATCH])
def test_no_match(name, args):
    assert isinstance(resolve_intrinsic(name, args), NoMatch)


T2 = t.resource(t.ResourceKind.TEXTURE_2D, F4)
T2A = t.resource(t.ResourceKind.TEXTURE_2D_ARRAY, F)
TC = t.resource(t.ResourceKind.TEXTURE_CUBE, F4)
T3 = t.resource(t.ResourceKind.TEXTURE_3D, F4)
RWT = t.resource(t.ResourceKind.RW_TEXTURE_2D, F4)
RWB = t.resource(t.ResourceKind.RW_BYTE_ADDRESS_BUFFER, None)
S = t.resource(t.ResourceKind.SAMPLER_STATE, None)
SC = t.resource(t.ResourceKind.SAMPLER_COMPARISON_STATE, None)

METHODS = [
    # object, method, argument types, parameter types, result, out parameters
    (T2, "SampleCmp", [SC, F2, F], [SC, F2, F], F, ()),
    (T2, "SampleCmp", [SC, F2, F, I2, F, U], [SC, F2, F, I2, F, U], F, (5,)),
    (T2A, "SampleCmpLevel", [SC, F3, F, F], [SC, F3, F, F], F, ()),
    (T2, "SampleCmpGrad", [SC, F2, F, F2, F2], [SC, F2, F, F2, F2], F, ()),
    (T2, "SampleCmpBias", [SC, F2, F, F, I2], [SC, F2, F, F, I2], F, ()),
    (TC, "SampleCmpLevelZero", [SC, F3, F], [SC, F3, F], F, ()),
    (T2, "Sample", [S, F2, I2, F], [S, F2, I2, F], F4, ()),
    (T2, "Sample", [S, F2, I2, F, U], [S, F2, I2, F, U], F4, (4,)),
    (T2, "SampleLevel", [S, F2, F, I2, U], [S, F2, F, I2, U], F4, (4,)),
    (T2, "GatherGreen", [S, F2], [S, F2], F4, ()),
    (T2A, "GatherAlpha", [S, F3, I2, U], [S, F3, I2, U], F4, (3,)),
    (T2, "GatherBlue", [S, F2, I2, I2, I2, I2], [S, F2, I2, I2, I2, I2], F4, ()),
    (T2, "GatherCmpGreen", [SC, F2, F, I2, I2, I2, I2, U], [SC, F2, F, I2, I2, I2, I2, U], F4, (7,)),
    (TC, "GatherCmpRed", [SC, F3, F], [SC, F3, F], F4, ()),
    (T2, "CalculateLevelOfDetail", [S, F2], [S, F2], F, ()),
    (T2A, "CalculateLevelOfDetailUnclamped", [SC, F2], [SC, F2], F, ()),   # no array slice
    (TC, "CalculateLevelOfDetail", [S, F3], [S, F3], F, ()),
    (T3, "CalculateLevelOfDetail", [S, F3], [S, F3], F, ()),
    (RWT, "Load", [I2, U], [I2, U], F4, (1,)),
    (RWB, "InterlockedCompareExchangeFloatBitwise", [U, F, F, F], [U, F, F, F], t.VOID, (3,)),
    (RWB, "InterlockedExchangeFloat", [U, F, F], [U, F, F], t.VOID, (2,)),
    (RWB, "InterlockedCompareStoreFloatBitwise", [U, F, I], [U, F, F], t.VOID, ()),
]


@pytest.mark.parametrize("obj,name,args,params,result,outs", METHODS, ids=[f"{m[1]}-{i}" for i, m in enumerate(METHODS)])
def test_method_resolves(obj, name, args, params, result, outs):
    assert resolve_method(obj, name, args) == MethodResolved(name, tuple(params), result, outs)


def test_methods_a_texture_kind_lacks():
    assert resolve_method(T3, "SampleCmp", [SC, F3, F]) is None          # no comparison on 3D textures
    assert resolve_method(T3, "GatherRed", [S, F3]) is None              # nor gathers
    candidates = resolve_method(TC, "Sample", [S])                       # no offsets on cube maps
    assert isinstance(candidates, NoMatch) and candidates.candidates == (
        "float4 TextureCube<float4>::Sample(SamplerState, float3)",
        "float4 TextureCube<float4>::Sample(SamplerState, float3, float)",
        "float4 TextureCube<float4>::Sample(SamplerState, float3, float, out uint)")
