"""SPIR-V of the intrinsics and texture methods added from DXC's table (gen_intrin_main.txt):
each lowers to the instructions of the SPIR-V spec / DXC's SpirvEmitter lowering, checked by
opcode and operands (regexes on the disassembly), in a module that validates (compile_hlsl
validates in process and again with spirv-val, vulkan1.3)."""

from __future__ import annotations

import re

import pytest

from spirv_util import compile_hlsl
from test_spirv_intrinsics import build
from test_spirv_resources import TEXTURES, node


def found(asm: str, pattern: str) -> list[str]:
    return [line.strip() for line in asm.splitlines() if re.search(pattern, line.strip())]


# ---------------------------------------------------------------- intrinsics

INTRINSICS = [
    # type of a/b/c, statement, expected instruction patterns, capabilities/extensions
    ("float3", "B.Store(0, degrees(a) + radians(b));", [r"OpExtInst %v3float %\w+ Degrees %\w+$",
                                                         r"OpExtInst %v3float %\w+ Radians %\w+$"], []),
    # ldexp(x, e) = x * exp2(e) (DXC: GLSL Ldexp wants an integer exponent)
    ("float2", "B.Store(0, ldexp(a, b));", [r"(%\w+) = OpExtInst %v2float %\w+ Exp2 %\w+$",
                                             r"OpFMul %v2float %\w+ %\w+$"], []),
    ("float2", "float2 s, k; sincos(a, s, k); B.Store(0, s + k);",
     [r"OpExtInst %v2float %\w+ Sin %\w+$", r"OpExtInst %v2float %\w+ Cos %\w+$"], []),
    ("float", "B.Store(0, ddx(a) + ddy(a) + fwidth(a));", [r"OpDPdx %float %\w+$", r"OpDPdy %float %\w+$",
                                                           r"OpFwidth %float %\w+$"],
     ["ComputeDerivativeGroupLinearKHR", "SPV_KHR_compute_shader_derivatives"]),
    ("float4", "B.Store(0, ddx_coarse(a) + ddy_coarse(a) + ddx_fine(a) + ddy_fine(a));",
     [r"OpDPdxCoarse %v4float %\w+$", r"OpDPdyCoarse %v4float", r"OpDPdxFine %v4float", r"OpDPdyFine %v4float"],
     ["DerivativeControl"]),
    # SPIR-V derivatives are 32-bit only: a half is widened and narrowed
    ("half2", "B.Store(0, ddx(a));", [r"OpFConvert %v2float %\w+$", r"OpDPdx %v2float", r"OpFConvert %v2half"], []),
    ("float4", "B.Store(0, dst(a, b));", [r"OpFMul %float %\w+ %\w+$",
                                          r"OpCompositeConstruct %v4float %float_1 %\w+ %\w+ %\w+$"], []),
    ("float", "B.Store(0, lit(a, b, c));", [r"OpExtInst %float %\w+ FMax %\w+ %float_0$",
                                            r"OpExtInst %float %\w+ Pow %\w+ %\w+$",
                                            r"OpSelect %float %\w+ %float_0 %\w+$",
                                            r"OpCompositeConstruct %v4float %float_1 %\w+ %\w+ %float_1$"], []),
    ("uint", "B.Store(0, dot4add_u8packed(a, b, c)); B.Store(4, dot4add_i8packed(a, b, (int)c));",
     [r"OpUDot %uint %\w+ %\w+ PackedVectorFormat4x8Bit$", r"OpSDot %int %\w+ %\w+ PackedVectorFormat4x8Bit$",
      r"OpIAdd %uint", r"OpIAdd %int"], ["DotProduct", "DotProductInput4x8BitPacked"]),
    ("half2", "B.Store(0, dot2add(a, b, 1.5));", [r"OpFMul %v2half %\w+ %\w+$", r"OpFConvert %v2float %\w+$",
                                                  r"OpFAdd %float %\w+ %float_1_5$"], []),
    ("uint2", "B.Store(0, AddUint64(a, b));", [r"OpIAddCarry %\w+ %\w+ %\w+$",
                                               r"OpCompositeExtract %uint %\w+ 1$"], []),
    ("uint2", "B.Store(0, asdouble(a, b));", [r"OpCompositeConstruct %v2uint %\w+ %\w+$",
                                              r"OpBitcast %double %\w+$", r"OpCompositeConstruct %v2double"],
     ["Float64"]),
    # dxc: the exponent bits (x & 0x7F800000, half 0x7C00) neither 0 nor all ones
    ("float3", "B.Store(0, isnormal(a));", [r"OpBitcast %v3uint %\w+$",
                                            r"OpBitwiseAnd %v3uint %\w+ %\w+$",
                                            r"OpINotEqual %v3bool %\w+ %\w+$", r"OpLogicalAnd %v3bool"], []),
    ("half2", "B.Store(0, isnormal(a));", [r"OpBitcast %v2ushort %\w+$", r"OpBitwiseAnd %v2ushort %\w+ %\w+$",
                                           r"OpLogicalAnd %v2bool"], []),
    ("float", "B.Store(0, WaveMatch(a));", [r"OpGroupNonUniformPartitionNV %v4uint %\w+$"],
     ["GroupNonUniformPartitionedNV", "SPV_NV_shader_subgroup_partitioned"]),
    ("int2", "uint4 m = WaveMatch(a); B.Store(0, WaveMultiPrefixSum(a, m) + WaveMultiPrefixProduct(b, m)"
     " + WaveMultiPrefixBitXor(c, m) + WaveMultiPrefixCountBits(a.x > 0, m));",
     [r"OpGroupNonUniformIAdd %v2int %uint_3 PartitionedExclusiveScanNV %\w+ %\w+$",
      r"OpGroupNonUniformIMul %v2int %uint_3 PartitionedExclusiveScanNV",
      r"OpGroupNonUniformBitwiseXor %v2int %uint_3 PartitionedExclusiveScanNV",
      r"OpSelect %uint %\w+ %uint_1 %uint_0$", r"OpGroupNonUniformIAdd %uint %uint_3 PartitionedExclusiveScanNV"],
     []),
    ("float", "B.Store(0, WaveMultiPrefixSum(a, WaveMatch(a)));",
     [r"OpGroupNonUniformFAdd %float %uint_3 PartitionedExclusiveScanNV %\w+ %\w+$"], []),
    ("float3", "B.Store(0, QuadReadLaneAt(a, 3));", [r"OpGroupNonUniformQuadBroadcast %v3float %uint_3 %\w+ %uint_3$"],
     ["GroupNonUniformQuad"]),
    ("uint", "B.Store(0, CheckAccessFullyMapped(a));", [r"OpINotEqual %bool %\w+ %uint_0$"], []),
    ("float2", "B.Store(0, and(a > 0, b > 0)); B.Store(8, or(a > 0, true));",
     [r"OpLogicalAnd %v2bool %\w+ %\w+$", r"OpLogicalOr %v2bool %\w+ %\w+$"], []),
    # dxc: int4(c.zyxw * 255.002) (255.002f is 255.001998901...)
    ("float4", "B.Store(0, D3DCOLORtoUBYTE4(a));", [r"OpVectorShuffle %v4float (%\w+) \1 2 1 0 3$",
                                                    r"OpVectorTimesScalar %v4float %\w+ %float_255_001999$",
                                                    r"OpConvertFToS %v4int %\w+$"], []),
    ("uint16_t2", "B.Store(0, asfloat16(a)); B.Store(4, asint16(a)); B.Store(8, asuint16(asfloat16(a)));",
     [r"OpBitcast %v2half %\w+$", r"OpBitcast %v2short %\w+$", r"OpBitcast %v2ushort %\w+$"], []),
]


@pytest.mark.parametrize("type_,body,patterns,declared", INTRINSICS, ids=[i[1][:40] for i in INTRINSICS])
def test_intrinsic_instructions(tmp_path, type_, body, patterns, declared):
    c = build(tmp_path, type_, body)
    for pattern in patterns:
        assert found(c.asm, pattern), pattern
    for name in declared:
        assert f"OpCapability {name}\n" in c.asm or f'OpExtension "{name}"' in c.asm, name


def test_quad_any_and_all_combine_the_three_quad_swaps(tmp_path):
    # DXC without SPV_KHR_quad_control: QuadSwap in directions 0, 1, 2, reduced with Or / And
    c = build(tmp_path, "float", "B.Store(0, uint2(QuadAny(a > 0), QuadAll(b > 0)));")
    swaps = c.lines("OpGroupNonUniformQuadSwap")
    assert [line.split()[-1] for line in swaps] == ["%uint_0", "%uint_1", "%uint_2"] * 2
    assert len(c.lines("OpLogicalOr")) == 3 and len(c.lines("OpLogicalAnd")) == 3


def test_msad4_sums_masked_byte_differences(tmp_path):
    # 4 alignments x 4 reference bytes: 16 masked absolute differences added to the accumulators
    c = build(tmp_path, "uint4", "B.Store(0, msad4(a.x, b.xy, c));")
    assert len(c.lines("OpISub")) == 32 and len(c.lines("OpUGreaterThan")) == 16
    masks = found(c.asm, r"OpSelect %uint %\w+ %\w+ %uint_0$")
    mask_ids = {line.split()[0] for line in masks}
    assert len(masks) == 16 and len([a for a in c.lines("OpIAdd") if a.split()[-1] in mask_ids]) == 16
    # windows: source.x >> 8i | source.y << (32 - 8i) for i = 1..3
    assert [line.split()[-1] for line in c.lines("OpShiftLeftLogical")] == ["%uint_24", "%uint_16", "%uint_8"]


def test_derivatives_are_checked_by_sema_like_implicit_lod_sampling():
    from wgc import driver
    from wgc.diagnostics import Renderer

    def rendered(source: str) -> str:
        result = driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode())
        return Renderer().render(result.diagnostics)

    assert rendered("RWByteAddressBuffer B : register(u0);\n"
                    '[Shader("node")] [NodeLaunch("thread")]\n'
                    "void Main() { B.Store(0, ddx(B.Load<float>(0))); }\n") == "\n".join([
        "<stdin>:3:26: error: 'ddx' computes implicit derivatives, which are not available in thread launch "
        "nodes [WG0416]",
        "void Main() { B.Store(0, ddx(B.Load<float>(0))); }",
        "                         ^~~~~~~~~~~~~~~~~~~~~",
        "note: thread launch nodes have no group of threads to take derivatives across",
        "1 error generated.", ""])
    assert rendered("RWByteAddressBuffer B : register(u0);\n"
                    '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(3,1,1)]\n'
                    "void Main() { B.Store(0, fwidth(B.Load<float>(0))); }\n") == "\n".join([
        "<stdin>:3:26: error: Intrinsic fwidth potentially used by 'Main' requires derivatives - when used in "
        "compute/amplification/mesh shaders or broadcast nodes, numthreads must be either 1D with X as a multiple "
        "of 4 or both X and Y must be multiples of 2. [WG0441]",
        "void Main() { B.Store(0, fwidth(B.Load<float>(0))); }",
        "                         ^~~~~~~~~~~~~~~~~~~~~~~~",
        "<stdin>:3:6: note: 'Main' has numthreads (3, 1, 1)",
        "void Main() { B.Store(0, fwidth(B.Load<float>(0))); }",
        "     ^~~~",
        "1 error generated.", ""])


def test_float_exchange_on_a_float_location(tmp_path):
    source = """
RWStructuredBuffer<float> F : register(u0);
groupshared float g;
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) {
    float old, old2; InterlockedExchange(F[0], 2.0, old); InterlockedExchange(g, 3.0, old2); F[1] = old + old2;
}
"""
    c = compile_hlsl(source, tmp_path)
    assert found(c.asm, r"OpAtomicExchange %float %\w+ %uint_1 %uint_0 %float_2$")      # Device scope
    assert found(c.asm, r"OpAtomicExchange %float %g %uint_2 %uint_0 %float_3$")        # Workgroup scope


def test_non_uniform_resource_index_decorates_the_descriptor_accesses(tmp_path):
    source = node("uint i = NonUniformResourceIndex(gi);"
                  "Out[0] = Ts[NonUniformResourceIndex(gi)].SampleLevel(S, uv, 0) + Bs[NonUniformResourceIndex(gi)].Load(0);",
                  "Texture2D<float4> Ts[4] : register(t0); SamplerState S : register(s4);"
                  "ByteAddressBuffer Bs[] : register(t5); RWStructuredBuffer<float4> Out : register(u6);")
    c = compile_hlsl(source, tmp_path)
    decorated = {line.split()[1] for line in c.asm.splitlines() if line.strip().endswith("NonUniform")
                 and "OpDecorate" in line}
    copies = [line.split()[0] for line in c.lines("OpCopyObject")]
    chains = [line.split()[0] for line in c.lines("OpAccessChain") if "%Ts " in line or "%Bs " in line]
    loads = [line.split()[0] for line in c.lines("OpLoad") if "type_2d_image" in line]
    sampled = [line.split()[0] for line in c.lines("OpSampledImage")]
    assert len(copies) == 3 and set(copies) <= decorated
    assert len(chains) == 2 and set(chains) <= decorated
    assert set(loads) <= decorated and set(sampled) <= decorated
    for capability in ("ShaderNonUniform", "SampledImageArrayNonUniformIndexing",
                       "StorageBufferArrayNonUniformIndexing"):
        assert f"OpCapability {capability}\n" in c.asm


def test_uniform_indices_are_not_decorated(tmp_path):
    source = node("Out[0] = Ts[gi].SampleLevel(S, uv, 0);",
                  "Texture2D<float4> Ts[4] : register(t0); SamplerState S : register(s4);"
                  "RWStructuredBuffer<float4> Out : register(u6);")
    c = compile_hlsl(source, tmp_path)
    assert "NonUniform\n" not in c.asm and "ShaderNonUniform" not in c.asm


# ---------------------------------------------------------------- texture methods

METHODS = [
    # statement, expected instruction patterns (SPIR-V image instructions and operand order)
    ("Image[id] = T2.SampleCmp(Shadow, uv, 0.5);", [r"OpImageSampleDrefImplicitLod %float %\w+ %\w+ %float_0_5$"]),
    ("Image[id] = T2.SampleCmp(Shadow, uv, 0.5, int2(1, 0), 2.0);",
     [r"OpImageSampleDrefImplicitLod %float %\w+ %\w+ %float_0_5 ConstOffset\|MinLod %\w+ %float_2$"]),
    ("Image[id] = T2.SampleCmpBias(Shadow, uv, 0.5, 0.25);",
     [r"OpImageSampleDrefImplicitLod %float %\w+ %\w+ %float_0_5 Bias %float_0_25$"]),
    ("Image[id] = T2A.SampleCmpLevel(Shadow, float3(uv, 1), 0.5, 3.0);",
     [r"OpImageSampleDrefExplicitLod %float %\w+ %\w+ %float_0_5 Lod %float_3$"]),
    ("Image[id] = T2.SampleCmpGrad(Shadow, uv, 0.5, uv, uv.yx, int2(0, 1));",
     [r"OpImageSampleDrefExplicitLod %float %\w+ %\w+ %float_0_5 Grad\|ConstOffset %\w+ %\w+ %\w+$"]),
    ("Image[id] = TC.SampleCmp(Shadow, float3(uv, 1), 0.5);", [r"OpImageSampleDrefImplicitLod %float"]),
    ("Image[id] = T2.Sample(Linear, uv, int2(1, 1), 4.0);",
     [r"OpImageSampleImplicitLod %v4float %\w+ %\w+ ConstOffset\|MinLod %\w+ %float_4$"]),
    ("Image[id] = T2.SampleBias(Linear, uv, 1.0, int2(0, 0), 4.0);",
     [r"OpImageSampleImplicitLod %v4float %\w+ %\w+ Bias\|ConstOffset\|MinLod %float_1 %\w+ %float_4$"]),
    ("Image[id] = T2.SampleGrad(Linear, uv, uv, uv, int2(0, 0), 4.0);",
     [r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Grad\|ConstOffset\|MinLod %\w+ %\w+ %\w+ %float_4$"]),
    ("Image[id] = T2.GatherRed(Linear, uv) + T2.GatherGreen(Linear, uv) + T2.GatherBlue(Linear, uv)"
     " + T2.GatherAlpha(Linear, uv, int2(1, 0));",
     [r"OpImageGather %v4float %\w+ %\w+ %uint_0$", r"OpImageGather %v4float %\w+ %\w+ %uint_1$",
      r"OpImageGather %v4float %\w+ %\w+ %uint_2$", r"OpImageGather %v4float %\w+ %\w+ %uint_3 ConstOffset %\w+$"]),
    ("Image[id] = T2.GatherCmp(Shadow, uv, 0.5) + TC.GatherCmpRed(Shadow, float3(uv, 1), 0.25)"
     " + T2A.GatherCmpAlpha(Shadow, float3(uv, 1), 0.75, int2(1, 1));",
     [r"OpImageDrefGather %v4float %\w+ %\w+ %float_0_5$", r"OpImageDrefGather %v4float %\w+ %\w+ %float_0_25$",
      r"OpImageDrefGather %v4float %\w+ %\w+ %float_0_75 ConstOffset %\w+$"]),
    ("Image[id] = T2.CalculateLevelOfDetail(Linear, uv) + T2A.CalculateLevelOfDetailUnclamped(Shadow, uv);",
     [r"OpImageQueryLod %v2float %\w+ %\w+$", r"OpCompositeExtract %float %\w+ 0$",
      r"OpCompositeExtract %float %\w+ 1$"]),
]


@pytest.mark.parametrize("statement,patterns", METHODS, ids=[m[0][:50] for m in METHODS])
def test_texture_method_instructions(tmp_path, statement, patterns):
    c = compile_hlsl(node(statement, TEXTURES), tmp_path)
    for pattern in patterns:
        assert found(c.asm, pattern), pattern
    if "MinLod" in "".join(patterns):
        assert "OpCapability MinLod\n" in c.asm
    if any(s in statement for s in ("SampleCmp(", "SampleCmpBias", "Sample(", "SampleBias", "LevelOfDetail")):
        assert "OpExecutionMode %Main DerivativeGroupQuadsKHR" in c.asm   # implicit LOD: derivatives


def test_status_overloads_write_one(tmp_path):
    # wgc's resources are never sparse: the status is 1, so CheckAccessFullyMapped(status) is true
    c = compile_hlsl(node("uint s0, s1, s2, s3; Image[id] = T2.Sample(Linear, uv, int2(0, 0), 1.0, s0)"
                          " + T2.GatherAlpha(Linear, uv, int2(0, 0), s1) + T2.SampleCmpLevelZero(Shadow, uv, 0.5, int2(0, 0), s2)"
                          " + Image.Load(int2(id), s3); Sizes[0] = s0 + s1 + s2 + s3;", TEXTURES), tmp_path)
    assert len(found(c.asm, r"OpStore %s\d %uint_1$")) == 4


def test_byte_address_float_atomics_use_the_word_bits(tmp_path):
    c = build(tmp_path, "float", "float old; B.InterlockedExchangeFloat(0, a, old);"
              " B.InterlockedCompareStoreFloatBitwise(4, a, b); B.InterlockedCompareExchangeFloatBitwise(8, a, b, old);"
              " B.Store(12, old);")
    assert len(c.lines("OpAtomicExchange")) == 1 and len(c.lines("OpAtomicCompareExchange")) == 2
    to_uint = {line.split()[0] for line in found(c.asm, r"OpBitcast %uint %\w+$")}
    to_float = {line.split()[-1] for line in found(c.asm, r"OpBitcast %float %\w+$")}
    [exchange] = c.lines("OpAtomicExchange")
    assert exchange.split()[3] == "%uint" and exchange.split()[-1] in to_uint and exchange.split()[0] in to_float
    for line in c.lines("OpAtomicCompareExchange"):     # value, comparator: the floats' bits
        words = line.split()
        assert words[3] == "%uint" and {words[-1], words[-2]} <= to_uint
    assert c.lines("OpAtomicCompareExchange")[1].split()[0] in to_float    # the Exchange form's original


def test_cube_maps_take_the_clamp_and_status_without_an_offset(tmp_path):
    c = compile_hlsl(node("uint s0, s1; Image[id] = TC.Sample(Linear, float3(uv, 1), 2.0, s0)"
                          " + TCA.SampleGrad(Linear, float4(uv, 1, 0), float3(uv, 0), float3(uv, 0), 3.0)"
                          " + TC.SampleCmpLevel(Shadow, float3(uv, 1), 0.5, 1.0, s1); Sizes[0] = s0 + s1;",
                          TEXTURES), tmp_path)
    assert found(c.asm, r"OpImageSampleImplicitLod %v4float %\w+ %\w+ MinLod %float_2$")
    assert found(c.asm, r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Grad\|MinLod %\w+ %\w+ %float_3$")
    assert found(c.asm, r"OpImageSampleDrefExplicitLod %float %\w+ %\w+ %float_0_5 Lod %float_1$")
    assert len(found(c.asm, r"OpStore %s[01] %uint_1$")) == 2


def test_printf_is_debug_printf(tmp_path):
    c = build(tmp_path, "float4", 'printf("lane %u: %f %v4f", gi, a.x, a); printf("done");')
    [import_] = [line for line in c.asm.splitlines() if "OpExtInstImport" in line and "DebugPrintf" in line]
    set_id = import_.split()[0]
    strings = {line.split()[0]: line.split(" = OpString ")[1] for line in c.asm.splitlines() if "= OpString" in line}
    calls = [line for line in c.lines("OpExtInst") if f" {set_id} 1 " in line]
    assert len(calls) == 2
    first, second = (line.split() for line in calls)
    assert first[3] == "%void" and strings[first[6]] == '"lane %u: %f %v4f"' and len(first) == 10
    assert strings[second[6]] == '"done"' and len(second) == 7
    assert 'OpExtension "SPV_KHR_non_semantic_info"' in c.asm


def test_gather_with_four_offsets_uses_const_offsets(tmp_path):
    c = compile_hlsl(node("uint s; Image[id] = T2.GatherGreen(Linear, uv, int2(0, 0), int2(1, 0), int2(0, 1), int2(1, 1), s)"
                          " + T2A.GatherCmpRed(Shadow, float3(uv, 1), 0.5, int2(-1, 0), int2(0, -1), int2(2, 2), int2(3, 3));"
                          " Sizes[0] = s;", TEXTURES), tmp_path)
    [green] = found(c.asm, r"OpImageGather %v4float %\w+ %\w+ %uint_1 ConstOffsets %\w+$")
    [red] = found(c.asm, r"OpImageDrefGather %v4float %\w+ %\w+ %float_0_5 ConstOffsets %\w+$")
    constants = {line.split()[0]: line.split()[4:] for line in c.lines("OpConstantComposite")}
    ints = {line.split()[0]: int(line.split()[-1]) for line in c.lines("OpConstant") if " %int " in line}

    def offsets(id_: str) -> list[tuple[int, ...]]:
        return [tuple(ints[x] for x in constants[o]) for o in constants[id_]]
    assert offsets(green.split()[-1]) == [(0, 0), (1, 0), (0, 1), (1, 1)]
    assert offsets(red.split()[-1]) == [(-1, 0), (0, -1), (2, 2), (3, 3)]
    assert "OpCapability ImageGatherExtended\n" in c.asm
    assert found(c.asm, r"OpStore %s %uint_1$")


def test_is_helper_lane_is_false_outside_pixel_shaders(tmp_path):
    c = build(tmp_path, "uint", "if (IsHelperLane()) B.Store(0, a);")
    [branch] = c.lines("OpBranchConditional")
    assert branch.split()[1] == "%false" and "HelperInvocation" not in c.asm


def test_cube_gathers_take_a_status_without_an_offset(tmp_path):
    c = compile_hlsl(node("uint s0, s1; Image[id] = TC.GatherBlue(Linear, float3(uv, 1), s0)"
                          " + TCA.GatherCmp(Shadow, float4(uv, 1, 0), 0.5, s1); Sizes[0] = s0 + s1;", TEXTURES), tmp_path)
    assert found(c.asm, r"OpImageGather %v4float %\w+ %\w+ %uint_2$")
    assert found(c.asm, r"OpImageDrefGather %v4float %\w+ %\w+ %float_0_5$")
    assert len(found(c.asm, r"OpStore %s[01] %uint_1$")) == 2


def test_isnormal_masks_the_exponent_bits(tmp_path):
    c = build(tmp_path, "float", "B.Store(0, isnormal(a));")
    [and_] = c.lines("OpBitwiseAnd")
    assert and_.split()[-1] == "%uint_2139095040"                  # 0x7F800000
    assert sorted(line.split()[-1] for line in c.lines("OpINotEqual")) == ["%uint_0", "%uint_2139095040"]


def test_min_precision_floats_are_32_bit_for_derivatives_and_dot2add(tmp_path):
    # min16float (and half without -enable-16bit-types) is a 32-bit float: nothing to widen
    from test_spirv_intrinsics import TEMPLATE
    c = compile_hlsl(TEMPLATE % {"T": "half2", "body": "B.Store(0, ddx(a) + dot2add(a, b, 1.0));"}, tmp_path,
                     enable_16bit_types=False)
    assert found(c.asm, r"OpDPdx %v2float %\w+$") and not c.lines("OpFConvert")


def test_four_gather_offsets_must_be_constants():
    from wgc import driver
    from wgc.diagnostics import Renderer
    source = "\n".join([
        "Texture2D<float4> T : register(t0);",
        "SamplerState S : register(s1);",
        "RWStructuredBuffer<float4> O : register(u2);",
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(2,2,1)]',
        "void Main(uint gi : SV_GroupIndex) {",
        "    int2 o = int2(gi, 0);",
        "    O[0] = T.GatherRed(S, float2(0, 0), o, o, o, o);",
        "}", ""])
    result = driver.compile(driver.Options(input="-", emit="asm"), stdin=source.encode())
    assert not result.ok and "asm" not in result.outputs
    assert Renderer().render(result.diagnostics) == "\n".join([
        "<stdin>:7:41: error: the four texel offsets of 'GatherRed' must be constants: SPIR-V takes them as "
        "ConstOffsets [WG0622]",
        "    O[0] = T.GatherRed(S, float2(0, 0), o, o, o, o);",
        "                                        ^",
        "note: a limit of the SPIR-V AMDX target (SPV_AMDX_shader_enqueue); 'wgc inspect' still shows the program",
        "1 error generated.", ""])


def test_a_non_uniform_element_index_is_not_a_descriptor_index(tmp_path):
    # the index picks an element of one buffer, not a descriptor: nothing to decorate but the copy
    source = node("Out[NonUniformResourceIndex(gi)] = 1;", "RWStructuredBuffer<float4> Out : register(u6);")
    c = compile_hlsl(source, tmp_path)
    [copy] = c.lines("OpCopyObject")
    decorated = [line.split()[1] for line in c.asm.splitlines() if "OpDecorate" in line and line.endswith("NonUniform")]
    assert decorated == [copy.split()[0]]
    assert "ArrayNonUniformIndexing" not in c.asm
