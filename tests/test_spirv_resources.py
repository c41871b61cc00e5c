"""SPIR-V back end: resources and descriptors, uniform blocks, and every resource method.

Each case compiles a broadcasting node using one kind of resource (validated in process and
again by `compile_hlsl`) and checks the types, decorations and instructions dxc would emit.
"""

from __future__ import annotations

import re

import pytest

from spirv_util import compile_errors, compile_hlsl

DECLARATIONS = """
struct Item { float3 position; uint flags; float4x4 transform; };
cbuffer Frame : register(b0) { float4x4 ViewProj; float Time; uint Count; };
struct Push { uint frame; };
[[vk::push_constant]] ConstantBuffer<Push> PC;
tbuffer Palette : register(t9) { float4 Colors[4]; };
StructuredBuffer<Item> Items : register(t1);
RWStructuredBuffer<Item> ItemsOut : register(u2);
ByteAddressBuffer Raw : register(t3);
RWByteAddressBuffer RawOut : register(u1, space2);
Buffer<float4> Typed : register(t4);
RWBuffer<uint> TypedOut : register(u5);
RWBuffer<float3> NoFormat : register(u6);
Texture1D<float> T1 : register(t7);
Texture2D<float4> T2 : register(t8);
Texture2DArray<float4> T2A : register(t11);
Texture3D<float> T3 : register(t12);
TextureCube<float4> TC : register(t13);
RWTexture2D<float4> Image : register(u14);
RWTexture2D<uint> Counters : register(u15);
Texture2D<float4> Many[4] : register(t16);
SamplerState Linear : register(s20);
SamplerComparisonState Shadow : register(s21);
[[vk::binding(7, 3)]] RWStructuredBuffer<uint> Explicit;
"""

TEMPLATE = DECLARATIONS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(8,8,1)]
void Main(uint2 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    float2 uv = float2(id) / 8.0;
    %s
}
"""

CASES = [
    ("ItemsOut[gi] = Items[gi];", ["OpAccessChain %_ptr_StorageBuffer_Item"]),
    ("ItemsOut[gi].flags = Items.Load(gi).flags + Count + PC.frame;", ["OpAccessChain"]),
    ("uint n, stride; Items.GetDimensions(n, stride); Explicit[0] = n + stride;", ["OpArrayLength", "%uint_80"]),
    ("Explicit[0] = Raw.Load(gi * 4) + Raw.Load2(0).y + Raw.Load3(0).z + Raw.Load4(0).w;", ["OpShiftRightLogical"]),
    ("RawOut.Store(0, 1u); RawOut.Store2(8, uint2(1, 2)); RawOut.Store4(16, uint4(1, 2, 3, 4));", ["OpStore"]),
    ("RawOut.Store<float>(0, Time); ItemsOut[0].position.x = Raw.Load<float>(4);", ["OpBitcast"]),
    ("uint old; RawOut.InterlockedAdd(0, 1, old); RawOut.InterlockedMax(4, old);", ["OpAtomicIAdd", "OpAtomicUMax"]),
    ("uint size; Raw.GetDimensions(size); Explicit[0] = size;", ["OpArrayLength"]),
    ("ItemsOut[0].transform = mul(ViewProj, Items[gi].transform);", ["OpMatrixTimesMatrix"]),
    ("ItemsOut[0].position = Colors[gi % 4].xyz;", ["OpAccessChain"]),
    ("ItemsOut[0].position = Typed[gi].xyz + Typed.Load(gi).xyz;", ["OpImageFetch"]),
    ("TypedOut[gi] = TypedOut[gi + 1] + 1;", ["OpImageRead", "OpImageWrite"]),
    ("NoFormat[gi] = float3(1, 2, 3);", ["OpImageWrite"]),
    ("Image[id] = T2.SampleLevel(Linear, uv, 0) + T2.SampleLevel(Linear, uv, 1, int2(1, 1));",
     ["OpImageSampleExplicitLod", "ConstOffset"]),
    ("Image[id] = T2.SampleGrad(Linear, uv, uv, uv) + T2A.SampleLevel(Linear, float3(uv, 1), 0);", ["Grad"]),
    ("Image[id] = TC.SampleLevel(Linear, float3(uv, 1), 0) + T3.SampleLevel(Linear, float3(uv, 0), 0);",
     ["OpImageSampleExplicitLod"]),
    ("Image[id] = T2.Gather(Linear, uv);", ["OpImageGather"]),
    ("Image[id] = T2.SampleCmpLevelZero(Shadow, uv, 0.5);", ["OpImageSampleDrefExplicitLod"]),
    ("Image[id] = T2.Load(int3(id, 0)) + T2[id] + T1.Load(int2(id.x, 0));", ["OpImageFetch"]),
    ("Image[id] = T2.Load(int3(id, 0), int2(1, 0));", ["ConstOffset"]),
    ("Image[id] = Image[id] * 2;", ["OpImageRead", "OpImageWrite"]),
    ("InterlockedAdd(Counters[id], 1);", ["OpImageTexelPointer", "OpAtomicIAdd"]),
    ("uint w, h, levels; T2.GetDimensions(0, w, h, levels); float fw, fh; Image.GetDimensions(fw, fh);"
     " Explicit[0] = w + h + levels + (uint)fw;", ["OpImageQuerySizeLod", "OpImageQueryLevels", "OpImageQuerySize "]),
    ("Image[id] = Many[gi % 4].SampleLevel(Linear, uv, 0);", ["OpAccessChain %_ptr_UniformConstant"]),
]


@pytest.mark.parametrize("statement,instructions", CASES, ids=[c[0][:40] for c in CASES])
def test_resource_use_lowers_and_validates(tmp_path, statement, instructions):
    compiled = compile_hlsl(TEMPLATE % statement, tmp_path)
    for instruction in instructions:
        assert instruction in compiled.asm, instruction


def test_descriptors_decorations_and_layouts(tmp_path):
    uses = ("ItemsOut[gi] = Items[gi]; Explicit[0] = Raw.Load(0) + Count + PC.frame; RawOut.Store(0, 1u);"
            " Image[id] = T2.SampleLevel(Linear, uv, 0) + Colors[0] + float4(TypedOut[0], 0, 0, 0);"
            " NoFormat[0] = Typed[0].xyz;")
    c = compile_hlsl(TEMPLATE % uses, tmp_path)
    binding = {m.group(1): int(m.group(2)) for m in re.finditer(r"OpDecorate %(\w+) Binding (\d+)", c.asm)}
    sets = {m.group(1): int(m.group(2)) for m in re.finditer(r"OpDecorate %(\w+) DescriptorSet (\d+)", c.asm)}
    assert binding["Items"] == 1 and binding["ItemsOut"] == 2 and binding["RawOut"] == 1 and sets["RawOut"] == 2
    assert (binding["Explicit"], sets["Explicit"]) == (7, 3)
    assert binding["Palette"] == 9 and binding["Linear"] == 20
    assert "OpVariable %_ptr_PushConstant_type_PC PushConstant" in c.asm
    assert "OpMemberDecorate %type_StructuredBuffer_Item_ 0 NonWritable" in c.asm
    assert "NonWritable" not in " ".join(c.lines("OpMemberDecorate %type_RWStructuredBuffer_Item_"))
    # std430 Item: float3 at 0, uint at 12, float4x4 at 16 (column-major HLSL = RowMajor SPIR-V), stride 80
    assert re.search(r"OpDecorate %_runtimearr_Item ArrayStride 80", c.asm)
    assert "OpMemberDecorate %Item_0 2 MatrixStride 16" in c.asm or "OpMemberDecorate %Item 2 MatrixStride 16" in c.asm
    # cbuffer std140: ViewProj 0, Time 64, Count 68
    offsets = [line.split()[-1] for line in c.lines("OpMemberDecorate %type_Frame [0-9] Offset")]
    assert offsets == ["0", "64", "68"]
    assert "OpDecorate %type_Frame Block" in c.asm
    # image formats: RW float4 -> Rgba32f, RW uint -> R32ui, float3 -> Unknown (+ capability)
    assert re.search(r"OpTypeImage %float 2D 0 0 0 2 Rgba32f", c.asm)
    assert re.search(r"OpTypeImage %uint Buffer 0 0 0 2 R32ui", c.asm)
    assert re.search(r"OpTypeImage %float Buffer 0 0 0 2 Unknown", c.asm)
    assert "OpCapability StorageImageWriteWithoutFormat" in c.asm
    assert "OpCapability ImageBuffer" in c.asm and "OpCapability SampledBuffer" in c.asm


def test_implicit_lod_sampling_is_refused_in_node_shaders(tmp_path):
    errors = compile_errors(TEMPLATE % "Image[id] = T2.Sample(Linear, uv);", tmp_path)
    assert errors == ["WG0602: 'Texture2D<float4>.Sample' needs implicit derivatives, which compute (node) "
                      "shaders do not have in SPIR-V: use SampleLevel or SampleGrad (SPIR-V generation)"]


def test_counter_methods_are_refused_with_the_reason(tmp_path):
    errors = compile_errors(TEMPLATE % "Explicit[0] = ItemsOut.IncrementCounter();", tmp_path)
    assert errors == ["WG0602: 'RWStructuredBuffer<Item>.IncrementCounter' needs a counter buffer, which wgc "
                      "does not create yet (SPIR-V generation)"]


def test_resources_passed_to_helpers_are_inlined(tmp_path):
    c = compile_hlsl(DECLARATIONS + """
float4 Fetch(Texture2D<float4> tex, SamplerState s, float2 uv) { return tex.SampleLevel(s, uv, 0); }
void Put(RWStructuredBuffer<uint> buffer, uint i) { buffer[i] = i; }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) { Image[uint2(gi, 0)] = Fetch(T2, Linear, float2(0, 0)); Put(Explicit, gi); }
""", tmp_path)
    assert c.count("OpFunctionCall") == 0 and c.count("OpFunction") == 1
