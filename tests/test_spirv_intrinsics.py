"""SPIR-V back end: every intrinsic lowers to the instruction dxc uses, in a module that validates.

Each case puts one statement into a broadcasting node with float/int/uint vectors, a matrix and
groupshared memory at hand, compiles it (validated in process and again by `compile_hlsl`) and
checks the instruction (a GLSL.std.450 name or a core opcode) and the capabilities it needs.
"""

from __future__ import annotations

import pytest

from spirv_util import compile_errors, compile_hlsl

TEMPLATE = """
RWStructuredBuffer<float4> F : register(u0);
RWStructuredBuffer<int4> I : register(u1);
RWStructuredBuffer<uint4> U : register(u2);
RWStructuredBuffer<float4x4> M : register(u3);
RWStructuredBuffer<double> D : register(u4);
groupshared uint gs;
groupshared int gsi;
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) {
    float4 f = F[gi]; int4 i = I[gi]; uint4 u = U[gi]; float4x4 m = M[gi]; float s = f.x;
    %s
}
"""

CASES = [
    # (statement, instruction expected in the disassembly)
    ("F[0] = sqrt(f);", "Sqrt"), ("F[0] = rsqrt(f);", "InverseSqrt"), ("F[0] = exp(f);", "Exp "),
    ("F[0] = exp2(f);", "Exp2"), ("F[0] = log(f);", "Log "), ("F[0] = log2(f);", "Log2"),
    ("F[0] = log10(f);", "Log2"), ("F[0] = sin(f) + cos(f) + tan(f);", "Tan"),
    ("F[0] = asin(f) + acos(f) + atan(f);", "Acos"), ("F[0] = sinh(f) + cosh(f) + tanh(f);", "Tanh"),
    ("F[0] = floor(f) + ceil(f);", "Ceil"), ("F[0] = round(f);", "RoundEven"), ("F[0] = trunc(f);", "Trunc"),
    ("F[0] = frac(f);", "Fract"), ("F[0] = pow(f, f);", "Pow"), ("F[0] = atan2(f, f);", "Atan2"),
    ("F[0] = fmod(f, f);", "OpFRem"), ("F[0] = step(f, f);", "Step"), ("F[0] = lerp(f, f, 0.5);", "FMix"),
    ("F[0] = smoothstep(0, 1, f);", "SmoothStep"), ("F[0] = saturate(f);", "FClamp"),
    ("F[0] = rcp(f);", "OpFDiv"), ("F[0] = abs(f);", "FAbs"), ("I[0] = abs(i);", "SAbs"),
    ("F[0] = min(f, f) + max(f, f);", "FMax"), ("I[0] = min(i, i);", "SMin"), ("U[0] = max(u, u);", "UMax"),
    ("F[0] = clamp(f, 0, 1);", "FClamp"), ("I[0] = clamp(i, 0, 3);", "SClamp"), ("U[0] = clamp(u, 1, 3);", "UClamp"),
    ("F[0] = mad(f, f, f);", "OpFMul"), ("D[0] = fma(D[1], D[2], D[3]);", "Fma"),
    ("I[0] = sign(f);", "FSign"), ("I[0] = sign(i);", "SSign"),
    ("float4 w; F[0] = modf(f, w) + w;", "ModfStruct"), ("float4 e; F[0] = frexp(f, e) + e;", "FrexpStruct"),
    ("U[0] = (uint4)isnan(f);", "OpIsNan"), ("U[0] = (uint4)isinf(f);", "OpIsInf"),
    ("U[0] = (uint4)isfinite(f);", "OpIsInf"), ("U[0].x = all(u) ? 1 : 0;", "OpLogicalAnd"),
    ("U[0].x = any(f) ? 1 : 0;", "OpLogicalOr"), ("F[0].x = dot(f, f);", "OpDot"), ("I[0].x = dot(i, i);", "OpIMul"),
    ("F[0].xyz = cross(f.xyz, f.xyz);", "Cross"), ("F[0].x = length(f) + distance(f, f);", "Distance"),
    ("F[0] = normalize(f);", "Normalize"), ("F[0] = reflect(f, f);", "Reflect"),
    ("F[0] = refract(f, f, 1.5);", "Refract"), ("F[0] = faceforward(f, f, f);", "FaceForward"),
    ("F[0].x = determinant(m);", "Determinant"), ("M[0] = transpose(m);", "OpTranspose"),
    ("F[0] = mul(m, f);", "OpVectorTimesMatrix"), ("F[0] = mul(f, m);", "OpMatrixTimesVector"),
    ("M[0] = mul(m, m);", "OpMatrixTimesMatrix"), ("M[0] = mul(2.0, m);", "OpMatrixTimesScalar"),
    ("F[0] = mul(f, 2.0);", "OpVectorTimesScalar"), ("F[0].x = mul(f, f);", "OpDot"),
    ("F[0] = select(f > 0, f, -f);", "OpSelect"), ("U[0] = countbits(u);", "OpBitCount"),
    ("U[0] = firstbithigh(u) + firstbitlow(u);", "FindUMsb"), ("U[0] = firstbithigh(i);", "FindSMsb"),
    ("U[0] = reversebits(u);", "OpBitReverse"), ("U[0] = asuint(f);", "OpBitcast"),
    ("F[0] = asfloat(u);", "OpBitcast"), ("I[0] = asint(f);", "OpBitcast"),
    ("uint lo, hi; asuint(D[0], lo, hi); U[0] = uint4(lo, hi, 0, 0);", "OpBitcast"),
    ("U[0] = f32tof16(f);", "PackHalf2x16"), ("F[0] = f16tof32(u);", "UnpackHalf2x16"),
    ("InterlockedAdd(gs, 1);", "OpAtomicIAdd"), ("uint o; InterlockedOr(gs, 2, o); U[0].x = o;", "OpAtomicOr"),
    ("InterlockedMin(gsi, -1);", "OpAtomicSMin"), ("InterlockedMax(U[1].x, 3u);", "OpAtomicUMax"),
    ("InterlockedAnd(gs, 1); InterlockedXor(gs, 1);", "OpAtomicXor"),
    ("uint o; InterlockedExchange(gs, 5, o); U[0].x = o;", "OpAtomicExchange"),
    ("uint o; InterlockedCompareExchange(gs, 1, 2, o); U[0].x = o;", "OpAtomicCompareExchange"),
    ("InterlockedCompareStore(gs, 1, 2);", "OpAtomicCompareExchange"),
    ("GroupMemoryBarrierWithGroupSync();", "OpControlBarrier"), ("GroupMemoryBarrier();", "OpMemoryBarrier"),
    ("DeviceMemoryBarrier(); DeviceMemoryBarrierWithGroupSync();", "OpControlBarrier"),
    ("AllMemoryBarrier(); AllMemoryBarrierWithGroupSync();", "OpControlBarrier"),
    ("Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);", "OpControlBarrier"),
    ("Barrier(UAV_MEMORY, DEVICE_SCOPE);", "OpMemoryBarrier"),
    ("U[0].x = WaveGetLaneIndex() + WaveGetLaneCount();", "SubgroupSize"),
    ("U[0].x = WaveIsFirstLane() ? 1 : 0;", "OpGroupNonUniformElect"),
    ("F[0] = WaveActiveSum(f);", "OpGroupNonUniformFAdd"), ("I[0] = WaveActiveProduct(i);", "OpGroupNonUniformIMul"),
    ("U[0] = WaveActiveMin(u);", "OpGroupNonUniformUMin"), ("I[0] = WaveActiveMax(i);", "OpGroupNonUniformSMax"),
    ("U[0] = WavePrefixSum(u);", "ExclusiveScan"), ("F[0] = WavePrefixProduct(f);", "OpGroupNonUniformFMul"),
    ("U[0] = WaveActiveBitAnd(u) | WaveActiveBitOr(u) | WaveActiveBitXor(u);", "OpGroupNonUniformBitwiseXor"),
    ("U[0].x = WaveActiveAllTrue(s > 0) && WaveActiveAnyTrue(s < 0) ? 1 : 0;", "OpGroupNonUniformAny"),
    ("U[0].x = all(WaveActiveAllEqual(u)) ? 1 : 0;", "OpGroupNonUniformAllEqual"),
    ("U[0].x = WaveActiveCountBits(s > 0) + WavePrefixCountBits(s > 0);", "OpGroupNonUniformBallotBitCount"),
    ("U[0] = WaveActiveBallot(s > 0);", "OpGroupNonUniformBallot"),
    ("F[0] = WaveReadLaneAt(f, 1) + WaveReadLaneFirst(f);", "OpGroupNonUniformShuffle"),
    ("F[0] = QuadReadAcrossX(f) + QuadReadAcrossY(f) + QuadReadAcrossDiagonal(f);", "OpGroupNonUniformQuadSwap"),
]


@pytest.mark.parametrize("statement,instruction", CASES, ids=[c[0][:40] for c in CASES])
def test_intrinsic_lowers_to_its_instruction(tmp_path, statement, instruction):
    compiled = compile_hlsl(TEMPLATE % statement, tmp_path)
    assert instruction in compiled.asm


def test_wave_operations_declare_their_capabilities(tmp_path):
    c = compile_hlsl(TEMPLATE % "F[0] = WaveActiveSum(f) + WaveReadLaneAt(f, 1) + QuadReadAcrossX(f);"
                     " U[0] = WaveActiveBallot(WaveActiveAnyTrue(s > 0));", tmp_path)
    for capability in ("GroupNonUniform", "GroupNonUniformArithmetic", "GroupNonUniformShuffle",
                       "GroupNonUniformQuad", "GroupNonUniformBallot", "GroupNonUniformVote"):
        assert f"OpCapability {capability}\n" in c.asm
    assert c.count("OpGroupNonUniformFAdd") == 1 and "%uint_3" in c.lines("OpGroupNonUniformFAdd")[0]


def test_atomic_scopes_follow_the_memory(tmp_path):
    c = compile_hlsl(TEMPLATE % "InterlockedAdd(gs, 1); InterlockedAdd(U[0].x, 1);", tmp_path)
    workgroup, device = c.lines("OpAtomicIAdd")
    assert workgroup.split()[5] == "%uint_2" and device.split()[5] == "%uint_1"


def test_legacy_barrier_semantics_match_dxc(tmp_path):
    c = compile_hlsl(TEMPLATE % "GroupMemoryBarrierWithGroupSync(); AllMemoryBarrier();", tmp_path)
    control, memory = c.lines("OpControlBarrier")[0], c.lines("OpMemoryBarrier")[0]
    assert control.split()[1:] == ["%uint_2", "%uint_2", "%uint_264"]      # AcqRel|WorkgroupMemory
    assert memory.split()[1:] == ["%uint_1", "%uint_2376"]                 # AcqRel|Uniform|Workgroup|Image


def test_float_matrix_intrinsics_apply_row_by_row(tmp_path):
    c = compile_hlsl(TEMPLATE % "M[0] = abs(m) + saturate(m);", tmp_path)
    assert len([line for line in c.lines("OpExtInst") if "FAbs" in line]) == 4


def test_atomics_on_node_records_are_refused(tmp_path):
    errors = compile_errors("""
struct R { uint3 grid : SV_DispatchGrid; uint total; };
struct Seed { uint x; };
[Shader("node")] [NodeLaunch("thread")] void Start(ThreadNodeInputRecord<Seed> i, [MaxRecords(1)] NodeOutput<R> Sum) { }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4,1,1)] [NumThreads(4,1,1)]
void Sum(globallycoherent RWDispatchNodeInputRecord<R> input) { InterlockedAdd(input.Get().total, 1); }
""", tmp_path)
    assert errors == ["WG0602: 'InterlockedAdd' on a node record cannot be expressed: spirv-val does not "
                      "allow atomic operations on NodePayloadAMDX memory (SPIR-V generation)"]
