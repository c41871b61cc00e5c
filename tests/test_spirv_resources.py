"""SPIR-V back end: resources and descriptors, uniform blocks, and every resource method.

Each case compiles a small node using one kind of resource (validated in process and again by
`compile_hlsl`) and checks the types, decorations and instructions dxc's Vulkan mapping gives.
"""

from __future__ import annotations

import re

import pytest

from conftest import SAMPLE_INCLUDE, SAMPLES
from spirv_util import Compiled, compile_errors, compile_hlsl
from wgc import driver
from wgc.diagnostics import Severity


def node(body: str, declarations: str = "", *, threads: str = "8,8,1", launch: str = "broadcasting") -> str:
    """A node whose body can use `id` (uint2), `gi` (uint) and `uv` (float2)."""
    grid = "[NodeDispatchGrid(1,1,1)] " if launch == "broadcasting" else ""
    params = "uint2 id : SV_DispatchThreadID, uint gi : SV_GroupIndex" if launch == "broadcasting" \
        else "uint2 id : SV_GroupThreadID, uint gi : SV_GroupIndex"
    prologue = ""
    if launch == "thread":
        params, prologue = "", "uint2 id = 0; uint gi = 0;"
    numthreads = f"[NumThreads({threads})] " if launch != "thread" else ""
    return f"""{declarations}
[Shader("node")] [NodeLaunch("{launch}")] {grid}{numthreads}
void Main({params}) {{
    {prologue}
    float2 uv = float2(id) / 8.0;
    {body}
}}
"""


def names(c: Compiled) -> dict[str, str]:
    """Result name -> the rest of its defining line."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^\s*%(\S+) = (.*)$", c.asm, flags=re.M)}


def variable_type(c: Compiled, variable: str) -> str:
    """The definition of the type a variable points to (through arrays): e.g.
    'OpTypeImage %float 2D 2 0 0 1 Unknown'."""
    defs = names(c)
    pointer = defs[variable].split()[1].lstrip("%")
    pointee = defs[pointer].split()[-1].lstrip("%")
    while defs[pointee].startswith(("OpTypeArray", "OpTypeRuntimeArray")):
        pointee = defs[pointee].split()[1].lstrip("%")
    return defs[pointee]


def decorations(c: Compiled, target: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in
            re.finditer(rf"^\s*OpDecorate %{re.escape(target)} (\w+) ?(.*)$", c.asm, flags=re.M)}


def binding(c: Compiled, target: str) -> tuple[int, int]:
    d = decorations(c, target)
    return int(d["DescriptorSet"]), int(d["Binding"])


def capabilities(c: Compiled) -> set[str]:
    return set(re.findall(r"OpCapability (\w+)", c.asm))


# ---------------------------------------------------------------- declarations

STRUCTS = "struct Item { float3 position; uint flags; float4x4 transform; };\n"


def test_uniform_blocks_and_buffers_decorations(tmp_path):
    c = compile_hlsl(node("""
        ItemsOut[gi] = Items[gi];
        Explicit[0] = Raw.Load(0) + Count + PC.frame + (uint)Colors[0].x;
        RawOut.Store(0, 1u);
        ItemsOut[1].transform = ViewProj;
    """, STRUCTS + """
cbuffer Frame : register(b0) { float4x4 ViewProj; float Time; uint Count; };
struct Push { uint frame; };
[[vk::push_constant]] ConstantBuffer<Push> PC;
tbuffer Palette : register(t9) { float4 Colors[4]; };
StructuredBuffer<Item> Items : register(t1);
RWStructuredBuffer<Item> ItemsOut : register(u2);
ByteAddressBuffer Raw : register(t3);
RWByteAddressBuffer RawOut : register(u1, space2);
[[vk::binding(7, 3)]] RWStructuredBuffer<uint> Explicit;
"""), tmp_path)
    assert binding(c, "Items") == (0, 1) and binding(c, "ItemsOut") == (0, 2)
    assert binding(c, "RawOut") == (2, 1) and binding(c, "Explicit") == (3, 7)
    assert binding(c, "Palette") == (0, 9) and binding(c, "Frame") == (0, 0)
    assert "DescriptorSet" not in decorations(c, "PC")
    assert "OpVariable %_ptr_PushConstant_type_PC PushConstant" in c.asm
    assert "OpVariable %_ptr_Uniform_type_Frame Uniform" in c.asm
    assert "OpVariable %_ptr_StorageBuffer_type_Palette StorageBuffer" in c.asm
    assert "OpMemberDecorate %type_Palette 0 NonWritable" in c.asm
    # read-only buffers are NonWritable, RW ones are not
    assert re.search(r"OpMemberDecorate %type_StructuredBuffer_Item_ 0 NonWritable", c.asm)
    assert re.search(r"OpMemberDecorate %type_ByteAddressBuffer 0 NonWritable", c.asm)
    assert not re.search(r"OpMemberDecorate %type_RW\w+ 0 NonWritable", c.asm)
    for block in ("type_StructuredBuffer_Item_", "type_RWByteAddressBuffer", "type_Frame", "type_PC"):
        assert f"OpDecorate %{block} Block" in c.asm
    # std430 Item: float3 at 0, uint at 12, float4x4 at 16 (HLSL column-major = SPIR-V RowMajor), stride 80
    assert "OpDecorate %_runtimearr_Item ArrayStride 80" in c.asm
    assert re.search(r"OpMemberDecorate %Item\w* 2 MatrixStride 16", c.asm)
    assert re.search(r"OpMemberDecorate %Item\w* 2 RowMajor", c.asm)
    # cbuffer std140: ViewProj 0, Time 64, Count 68
    offsets = [line.split()[-1] for line in c.lines("OpMemberDecorate %type_Frame [0-9] Offset")]
    assert offsets == ["0", "64", "68"]
    assert "OpDecorate %_runtimearr_uint ArrayStride 4" in c.asm
    # every resource the code touches is in the interface
    [entry] = c.lines("OpEntryPoint")
    for var in ("Items", "ItemsOut", "Raw", "RawOut", "Explicit", "Frame", "PC", "Palette"):
        assert f"%{var}" in entry.split()


def test_globallycoherent_is_coherent_except_under_the_vulkan_memory_model(tmp_path):
    declarations = "globallycoherent RWStructuredBuffer<uint> Shared : register(u0);\n" \
                   "globallycoherent RWTexture2D<uint> Image : register(u1);\n"
    c = compile_hlsl(node("Shared[gi] = Image[id];", declarations), tmp_path)
    assert "Coherent" in decorations(c, "Shared") and "Coherent" in decorations(c, "Image")
    vmm = compile_hlsl(declarations + """
struct Rec { uint x; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(8,1,1)]
void Main(uint gi : SV_GroupIndex, [MaxRecords(1)] NodeOutput<Rec> Next) {
    Shared[gi] = Image[uint2(gi, 0)];
    Barrier(NODE_OUTPUT_MEMORY, GROUP_SCOPE | GROUP_SYNC);
}
[Shader("node")] [NodeLaunch("thread")] void Next(ThreadNodeInputRecord<Rec> r) { }
""", tmp_path)
    assert "OpMemoryModel Logical Vulkan" in vmm.asm
    assert "Coherent" not in vmm.asm


# ---------------------------------------------------------------- image types

IMAGE_TYPES = [
    # declaration, use, OpTypeImage operands, capability
    ("Buffer<float4>", "Out[gi] = R[gi];", "%float Buffer 2 0 0 1 Unknown", "SampledBuffer"),
    ("Buffer<int2>", "Out[gi] = float4(R[gi], 0, 0);", "%int Buffer 2 0 0 1 Unknown", "SampledBuffer"),
    ("RWBuffer<float>", "R[gi] = 1;", "%float Buffer 2 0 0 2 R32f", "ImageBuffer"),
    ("RWBuffer<uint2>", "R[gi] = 1;", "%uint Buffer 2 0 0 2 Rg32ui", "StorageImageExtendedFormats"),
    ("RWBuffer<int4>", "R[gi] = 1;", "%int Buffer 2 0 0 2 Rgba32i", "ImageBuffer"),
    ("Texture1D<float4>", "Out[gi] = R.Load(int2(gi, 0));", "%float 1D 2 0 0 1 Unknown", "Sampled1D"),
    ("Texture1DArray<float4>", "Out[gi] = R.Load(int3(gi, 0, 0));", "%float 1D 2 1 0 1 Unknown", "Sampled1D"),
    ("Texture2D<uint>", "Out[gi] = R.Load(int3(id, 0));", "%uint 2D 2 0 0 1 Unknown", "Shader"),
    ("Texture2DArray<float4>", "Out[gi] = R.Load(int4(id, 0, 0));", "%float 2D 2 1 0 1 Unknown", "Shader"),
    ("Texture3D<float>", "Out[gi] = R.Load(int4(id, 0, 0));", "%float 3D 2 0 0 1 Unknown", "Shader"),
    ("TextureCube<float4>", "Out[gi] = R.SampleLevel(S, float3(uv, 1), 0);", "%float Cube 2 0 0 1 Unknown",
     "Shader"),
    ("TextureCubeArray<float4>", "Out[gi] = R.SampleLevel(S, float4(uv, 1, 0), 0);",
     "%float Cube 2 1 0 1 Unknown", "SampledCubeArray"),
    ("RWTexture1D<float2>", "R[gi] = 1;", "%float 1D 2 0 0 2 Rg32f", "Image1D"),
    ("RWTexture1DArray<uint>", "R[id] = 1;", "%uint 1D 2 1 0 2 R32ui", "Image1D"),
    ("RWTexture2D<float4>", "R[id] = 1;", "%float 2D 2 0 0 2 Rgba32f", "Shader"),
    ("RWTexture2DArray<int>", "R[uint3(id, 1)] = 1;", "%int 2D 2 1 0 2 R32i", "Shader"),
    ("RWTexture3D<float3>", "R[uint3(id, 1)] = 1;", "%float 3D 2 0 0 2 Unknown", "StorageImageWriteWithoutFormat"),
    ("RWTexture2D<bool>", "R[id] = true;", "%uint 2D 2 0 0 2 R32ui", "Shader"),
    ("RWTexture2D<unorm float4>", "R[id] = 1;", "%float 2D 2 0 0 2 Unknown", "StorageImageWriteWithoutFormat"),
    ("RWTexture2D<half4>", "R[id] = 1;", "%float 2D 2 0 0 2 Rgba32f", "Shader"),      # half is 32-bit here
]


@pytest.mark.parametrize("declaration,use,image,capability", IMAGE_TYPES, ids=[c[0] for c in IMAGE_TYPES])
def test_image_types(tmp_path, declaration, use, image, capability):
    c = compile_hlsl(node(use, f"{declaration} R : register(t0, space1);\n"
                               "RWStructuredBuffer<float4> Out : register(u0);\n"
                               "SamplerState S : register(s1);\n"
                      .replace("t0, space1", "u0, space1" if declaration.startswith("RW") else "t0, space1")),
                     tmp_path)
    assert variable_type(c, "R") == f"OpTypeImage {image}"
    assert capability in capabilities(c)
    assert re.search(r"OpName %type_\w*image\w* \"type\.\w+\.image(\.array)?\"", c.asm)


def test_16_bit_elements_use_32_bit_sampled_types_and_16_bit_formats(tmp_path):
    c = compile_hlsl(node("A[id] = B[id].x + C.SampleLevel(S, uv, 0) + D.Load(gi).y; E[gi] = 1;", """
RWTexture2D<half4> A : register(u0);
RWTexture2D<uint16_t2> B : register(u1);
Texture2D<half4> C : register(t2);
Buffer<int16_t2> D : register(t3);
RWBuffer<float16_t> E : register(u4);
SamplerState S : register(s5);
"""), tmp_path, enable_16bit_types=True)
    assert variable_type(c, "A") == "OpTypeImage %float 2D 2 0 0 2 Rgba16f"
    assert variable_type(c, "B") == "OpTypeImage %uint 2D 2 0 0 2 Rg16ui"
    assert variable_type(c, "C") == "OpTypeImage %float 2D 2 0 0 1 Unknown"
    assert variable_type(c, "D") == "OpTypeImage %int Buffer 2 0 0 1 Unknown"
    assert variable_type(c, "E") == "OpTypeImage %float Buffer 2 0 0 2 R16f"
    assert "OpFConvert %half" in c.asm and "OpSConvert %short" in c.asm and "OpUConvert %ushort" in c.asm
    assert "StorageImageExtendedFormats" in capabilities(c)


def test_samplers_and_image_formats_from_attributes(tmp_path):
    c = compile_hlsl(node("A[id] = B[id] + C.SampleLevel(S, uv, 0) + C.SampleCmpLevelZero(Z, uv, 0.5);", """
[[vk::image_format("rgba8")]] RWTexture2D<float4> A : register(u0);
[[vk::image_format("R11G11B10F")]] RWTexture2D<float4> B : register(u1);
Texture2D<float4> C : register(t2);
SamplerState S : register(s3);
SamplerComparisonState Z : register(s4);
"""), tmp_path)
    assert variable_type(c, "A").endswith("2 Rgba8") and variable_type(c, "B").endswith("2 R11fG11fB10f")
    assert "StorageImageExtendedFormats" in capabilities(c)
    assert variable_type(c, "S") == "OpTypeSampler" and variable_type(c, "Z") == "OpTypeSampler"
    assert binding(c, "S") == (0, 3) and binding(c, "Z") == (0, 4)
    assert 'OpName %type_sampler "type.sampler"' in c.asm
    assert 'OpName %type_sampled_image "type.sampled.image"' in c.asm
    assert c.asm.count("OpTypeSampler") == 1


def test_unknown_image_format_is_an_error(tmp_path):
    errors = compile_errors(node("A[id] = 1;", '[[vk::image_format("rgb9e5")]] RWTexture2D<float4> A : register(u0);'),
                            tmp_path)
    assert errors == ["WG0340: unknown image format 'rgb9e5' in 'vk::image_format'"]


def test_format_less_storage_images_need_the_capability_of_their_access(tmp_path):
    declarations = "RWTexture2D<float3> A : register(u0); RWStructuredBuffer<float3> Out : register(u1);"
    read = compile_hlsl(node("Out[gi] = A[id];", declarations), tmp_path)
    assert "StorageImageReadWithoutFormat" in capabilities(read)
    assert "StorageImageWriteWithoutFormat" not in capabilities(read)
    write = compile_hlsl(node("A[id] = Out[gi];", declarations), tmp_path)
    assert "StorageImageWriteWithoutFormat" in capabilities(write)
    assert "StorageImageReadWithoutFormat" not in capabilities(write)


# ---------------------------------------------------------------- typed buffers

TYPED = """
Buffer<float4> Typed : register(t0);
Buffer<uint> Indices : register(t1);
RWBuffer<uint> TypedOut : register(u2);
RWBuffer<float3> NoFormat : register(u3);
RWStructuredBuffer<float4> Out : register(u4);
"""


def test_typed_buffers_read_write_and_query(tmp_path):
    c = compile_hlsl(node("""
        uint status;
        float4 a = Typed[gi] + Typed.Load(gi) + Typed.Load(gi, status);
        TypedOut[gi] = TypedOut[gi + 1] + Indices[gi] + status;
        NoFormat[gi] = a.xyz;
        uint n, m; float f;
        Typed.GetDimensions(n); TypedOut.GetDimensions(m); NoFormat.GetDimensions(f);
        Out[0] = float4(n, m, f, a.w);
    """, TYPED), tmp_path)
    fetches = c.lines("OpImageFetch")
    assert len(fetches) == 4 and all("Lod" not in f for f in fetches)
    assert sorted(line.split()[3] for line in fetches) == ["%v4float"] * 3 + ["%v4uint"]
    assert c.count("OpImageRead") == 1 and c.count("OpImageWrite") == 2
    assert "OpStore %status %uint_1" in c.asm
    assert c.count("OpImageQuerySize") == 3 and "ImageQuery" in capabilities(c)
    assert c.count("OpImageQuerySizeLod") == 0
    assert "OpConvertUToF" in c.asm          # GetDimensions into a float
    # a uint element is the first component of the 4-vector OpImageRead returns
    [read] = c.lines("OpImageRead")
    assert read.split()[3] == "%v4uint"


# ---------------------------------------------------------------- textures

TEXTURES = """
Texture1D<float> T1 : register(t0);
Texture2D<float4> T2 : register(t1);
Texture2DArray<float4> T2A : register(t2);
Texture3D<float2> T3 : register(t3);
TextureCube<float4> TC : register(t4);
TextureCubeArray<float4> TCA : register(t5);
Texture2D<half> TH : register(t6);
RWTexture2D<float4> Image : register(u7);
RWTexture2DArray<float> ImageArray : register(u8);
RWTexture2D<uint> Counters : register(u9);
SamplerState Linear : register(s10);
SamplerComparisonState Shadow : register(s11);
RWStructuredBuffer<uint> Sizes : register(u12);
"""

SAMPLING = [
    # statement, expected instruction fragments (regexes)
    ("Image[id] = T2.SampleLevel(Linear, uv, 0);", [r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Lod %float_0$"]),
    ("Image[id] = T2.SampleLevel(Linear, uv, 1, int2(1, -1));",
     [r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Lod\|ConstOffset %float_1 %\w+$"]),
    ("Image[id] = T2.SampleGrad(Linear, uv, uv, uv);", [r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Grad %\w+ %\w+$"]),
    ("Image[id] = T2.SampleGrad(Linear, uv, uv, uv, int2(2, 2));",
     [r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Grad\|ConstOffset %\w+ %\w+ %\w+$"]),
    ("Image[id] = T2A.SampleLevel(Linear, float3(uv, 1), 0) + TC.SampleLevel(Linear, float3(uv, 1), 2);",
     [r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Lod %float_0$", r"Lod %float_2$"]),
    ("Image[id] = TCA.SampleGrad(Linear, float4(uv, 1, 0), float3(uv, 0), float3(uv, 0));", [r"Grad %\w+ %\w+$"]),
    ("Image[id] = T3.SampleLevel(Linear, float3(uv, 0), 0).xyxy;",
     [r"OpImageSampleExplicitLod %v4float", r"OpVectorShuffle %v2float %\w+ %\w+ 0 1$"]),
    ("Image[id] = T1.SampleLevel(Linear, uv.x, 0) + TH.SampleLevel(Linear, uv, 0);",
     [r"OpCompositeExtract %float %\w+ 0$"]),
    ("Image[id] = T2.SampleCmpLevelZero(Shadow, uv, 0.5);",
     [r"OpImageSampleDrefExplicitLod %float %\w+ %\w+ %float_0_5 Lod %float_0$"]),
    ("Image[id] = T2A.SampleCmpLevelZero(Shadow, float3(uv, 2), 0.5, int2(1, 0));",
     [r"OpImageSampleDrefExplicitLod %float %\w+ %\w+ %float_0_5 Lod\|ConstOffset %float_0 %\w+$"]),
    ("Image[id] = T2.Gather(Linear, uv) + TC.Gather(Linear, float3(uv, 1));",
     [r"OpImageGather %v4float %\w+ %\w+ %uint_0$"]),
    ("Image[id] = T2.Gather(Linear, uv, int2(1, 1));", [r"OpImageGather %v4float %\w+ %\w+ %uint_0 ConstOffset %\w+$"]),
    ("Image[id] = T2.Gather(Linear, uv, int2(id));", [r"OpImageGather %v4float %\w+ %\w+ %uint_0 Offset %\w+$"]),
    ("Image[id] = T2.Load(int3(id, 1)) + T2[id];",
     [r"OpImageFetch %v4float %\w+ %\w+ Lod %\w+$", r"OpImageFetch %v4float %\w+ %\w+ Lod %uint_0$"]),
    ("Image[id] = T2.Load(int3(id, 0), int2(1, 0));", [r"OpImageFetch %v4float %\w+ %\w+ Lod\|ConstOffset %\w+ %\w+$"]),
    ("Image[id] = T1.Load(int2(gi, 1)) + T1[gi] + T3.Load(int4(id, 0, 0)).x + T3[uint3(id, 0)].y;",
     [r"OpImageFetch %v4float %\w+ %\w+ Lod %\w+$"]),
    ("Image[id] = T2A.Load(int4(id, 1, 0)) + T2A[uint3(id, 1)];", [r"OpImageFetch %v4float"]),
    ("Image[id] = Image[id] * 2 + Image.Load(int2(id)); ImageArray[uint3(id, 1)] += 1;",
     [r"OpImageRead %v4float", r"OpImageWrite %\w+ %\w+ %\w+$"]),
    ("InterlockedAdd(Counters[id], 1);", [r"OpImageTexelPointer %_ptr_Image_uint", r"OpAtomicIAdd %uint"]),
]


@pytest.mark.parametrize("statement,patterns", SAMPLING, ids=[s[0][:50] for s in SAMPLING])
def test_texture_methods(tmp_path, statement, patterns):
    c = compile_hlsl(node(statement, TEXTURES), tmp_path)
    for pattern in patterns:
        assert any(re.search(pattern, line.strip()) for line in c.asm.splitlines()), pattern
    assert "ComputeDerivativeGroup" not in c.asm        # explicit-LOD sampling needs no derivatives


def test_sampled_images_combine_the_loaded_image_and_sampler(tmp_path):
    c = compile_hlsl(node("Image[id] = T2.SampleLevel(Linear, uv, 0);", TEXTURES), tmp_path)
    defs = names(c)
    [sampled] = c.lines("OpSampledImage")
    result, _, op, type_, image, sampler = sampled.split()
    assert defs[type_.lstrip("%")] == f"OpTypeSampledImage {variable_type_id(c, 'T2')}"
    assert defs[image.lstrip("%")] == f"OpLoad {variable_type_id(c, 'T2')} %T2"
    assert defs[sampler.lstrip("%")] == "OpLoad %type_sampler %Linear"


def variable_type_id(c: Compiled, variable: str) -> str:
    defs = names(c)
    pointer = defs[variable].split()[1].lstrip("%")
    return defs[pointer].split()[-1]


def test_variable_texel_offsets_are_refused_except_on_gather(tmp_path):
    errors = compile_errors(node("Image[id] = T2.SampleLevel(Linear, uv, 0, int2(id));", TEXTURES), tmp_path)
    assert errors == ["WG0622: the texel offset of 'SampleLevel' must be a constant: Vulkan allows a variable "
                      "offset only on Gather (VUID-RuntimeSpirv-Offset-10213)"]
    c = compile_hlsl(node("Image[id] = T2.Gather(Linear, uv, int2(id));", TEXTURES), tmp_path)
    assert "ImageGatherExtended" in capabilities(c)


GET_DIMENSIONS = [
    # statement, query instruction, size type, extra instructions
    ("uint w; T1.GetDimensions(w); Sizes[0] = w;", "OpImageQuerySizeLod %uint %\\w+ %uint_0", []),
    ("uint w, l; T1.GetDimensions(2, w, l); Sizes[0] = w + l;", "OpImageQuerySizeLod %uint %\\w+ %uint_2",
     ["OpImageQueryLevels %uint"]),
    ("uint w, h; T2.GetDimensions(w, h); Sizes[0] = w + h;", "OpImageQuerySizeLod %v2uint %\\w+ %uint_0", []),
    ("uint w, h, l; T2.GetDimensions(gi, w, h, l); Sizes[0] = w + h + l;", "OpImageQuerySizeLod %v2uint %\\w+ %\\w+",
     ["OpImageQueryLevels %uint"]),
    ("float w, h; T2.GetDimensions(w, h); Sizes[0] = w + h;", "OpImageQuerySizeLod %v2uint", ["OpConvertUToF"]),
    ("float w, h, l; T2.GetDimensions(1, w, h, l); Sizes[0] = w + h + l;", "OpImageQuerySizeLod %v2uint",
     ["OpImageQueryLevels", "OpConvertUToF"]),
    ("uint w, h, e; T2A.GetDimensions(w, h, e); Sizes[0] = w + h + e;", "OpImageQuerySizeLod %v3uint", []),
    ("uint w, h, d; T3.GetDimensions(w, h, d); Sizes[0] = w + h + d;", "OpImageQuerySizeLod %v3uint", []),
    ("uint w, h; TC.GetDimensions(w, h); Sizes[0] = w + h;", "OpImageQuerySizeLod %v2uint", []),
    ("uint w, h, e, l; TCA.GetDimensions(0, w, h, e, l); Sizes[0] = w + h + e + l;", "OpImageQuerySizeLod %v3uint",
     ["OpImageQueryLevels"]),
    ("uint w, h; Image.GetDimensions(w, h); Sizes[0] = w + h;", "OpImageQuerySize %v2uint %\\w+$", []),
    ("float w, h, e; ImageArray.GetDimensions(w, h, e); Sizes[0] = w + h + e;", "OpImageQuerySize %v3uint %\\w+$",
     ["OpConvertUToF"]),
]


@pytest.mark.parametrize("statement,query,extra", GET_DIMENSIONS, ids=[s[0][:50] for s in GET_DIMENSIONS])
def test_texture_get_dimensions(tmp_path, statement, query, extra):
    c = compile_hlsl(node(statement, TEXTURES), tmp_path)
    assert re.search(query, c.asm, flags=re.M), query
    for instruction in extra:
        assert instruction in c.asm
    assert "ImageQuery" in capabilities(c)


# ---------------------------------------------------------------- implicit derivatives


@pytest.mark.parametrize("threads,launch,mode", [
    ("8,8,1", "broadcasting", "Quads"), ("2,2,4", "broadcasting", "Quads"), ("16,1,1", "broadcasting", "Linear"),
    ("8,1,1", "coalescing", "Linear"), ("4,2,1", "coalescing", "Quads"),
])
def test_implicit_lod_sampling_gets_a_derivative_group(tmp_path, threads, launch, mode):
    c = compile_hlsl(node("Image[id] = T2.Sample(Linear, uv) + T2.SampleBias(Linear, uv, 0.5, int2(1, 1))"
                          " + TC.Sample(Linear, float3(uv, 1));", TEXTURES, threads=threads, launch=launch), tmp_path)
    assert c.count("OpImageSampleImplicitLod") == 3
    assert any(re.search(r"Bias\|ConstOffset %float_0_5 %\w+$", line) for line in c.lines("OpImageSampleImplicitLod"))
    assert f"OpCapability ComputeDerivativeGroup{mode}KHR" in c.asm
    assert 'OpExtension "SPV_KHR_compute_shader_derivatives"' in c.asm
    assert f"OpExecutionMode %Main DerivativeGroup{mode}KHR" in c.asm


def test_implicit_lod_sampling_needs_a_group_with_quads(tmp_path):
    errors = compile_errors(node("Image[id] = T2.Sample(Linear, uv);", TEXTURES, threads="6,1,1"), tmp_path)
    assert errors == ["WG0441: Intrinsic Sample potentially used by 'Main' requires derivatives - when used in "
                      "compute/amplification/mesh shaders or broadcast nodes, numthreads must be either 1D with X "
                      "as a multiple of 4 or both X and Y must be multiples of 2."]
    # thread launch: sema refuses it (WG0416)
    errors = compile_errors(node("Image[id] = T2.SampleBias(Linear, uv, 1);", TEXTURES, launch="thread"), tmp_path)
    assert errors == ["WG0416: 'SampleBias' computes implicit derivatives, which are not available in thread "
                      "launch nodes"]


def test_derivatives_only_for_the_entry_points_that_sample(tmp_path):
    c = compile_hlsl(TEXTURES + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void A(uint gi : SV_GroupIndex) { Image[uint2(gi, 0)] = T2.Sample(Linear, float2(0, 0)); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(3,1,1)]
void B(uint gi : SV_GroupIndex) { Image[uint2(gi, 0)] = T2.SampleLevel(Linear, float2(0, 0), 0); }
""", tmp_path)
    assert c.lines("OpExecutionMode %A DerivativeGroupLinearKHR") and not c.lines("OpExecutionMode %B Derivative")


def test_implicit_lod_sampling_in_a_called_helper(tmp_path):
    c = compile_hlsl(TEXTURES + """
float4 Shade(float2 uv) { return T2.Sample(Linear, uv); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(2,2,1)]
void A(uint2 id : SV_GroupThreadID) { Image[id] = Shade(float2(id)); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(8,1,1)]
void B(uint2 id : SV_GroupThreadID) { Image[id] = Shade(float2(id)); }
""", tmp_path)
    assert c.count("OpFunctionCall") == 2
    assert c.lines("OpExecutionMode %A DerivativeGroupQuadsKHR")
    assert c.lines("OpExecutionMode %B DerivativeGroupLinearKHR")


# ---------------------------------------------------------------- structured buffers and counters

BUFFERS = STRUCTS + """
StructuredBuffer<Item> Items : register(t0);
RWStructuredBuffer<Item> ItemsOut : register(u1);
RWStructuredBuffer<uint> Words : register(u2);
AppendStructuredBuffer<Item> Appended : register(u3);
ConsumeStructuredBuffer<Item> Consumed : register(u4);
"""


def test_structured_buffer_load_status_and_dimensions(tmp_path):
    c = compile_hlsl(node("""
        uint status, n, stride, m, s2;
        ItemsOut[gi] = Items.Load(gi);
        ItemsOut[gi + 1] = Items.Load(gi, status);
        Items.GetDimensions(n, stride); Appended.GetDimensions(m, s2);
        Words[0] = status + n + stride + m + s2;
        Words[1] = ItemsOut[0].flags;
        ItemsOut[2].position.y = 3;
    """, BUFFERS), tmp_path)
    assert "OpStore %status %uint_1" in c.asm and "OpStore %stride %uint_80" in c.asm
    assert c.count("OpArrayLength") == 2
    assert any(line.endswith("%Items 0") for line in c.lines("OpArrayLength"))
    assert "counter" not in c.asm


def test_counters_increment_decrement_append_consume(tmp_path):
    c = compile_hlsl(node("""
        uint slot = Words.IncrementCounter();
        Words[slot] = Words.DecrementCounter();
        Appended.Append(Consumed.Consume());
    """, BUFFERS), tmp_path)
    # counters: the buffer's set, the first binding after the buffer's that nothing takes; every
    # counted buffer reserves one in declaration order (ItemsOut u1 -> 5, Words u2 -> 6, ...)
    assert binding(c, "counter_var_Words") == (0, 6)
    assert binding(c, "counter_var_Appended") == (0, 7) and binding(c, "counter_var_Consumed") == (0, 8)
    assert "counter_var_ItemsOut" not in c.asm
    assert 'OpName %counter_var_Words "counter.var.Words"' in c.asm
    assert "%type_ACSBuffer_counter = OpTypeStruct %int" in c.asm
    assert "OpDecorate %type_ACSBuffer_counter Block" in c.asm
    assert "OpMemberDecorate %type_ACSBuffer_counter 0 Offset 0" in c.asm
    assert c.count("OpAtomicIAdd") == 2 and c.count("OpAtomicISub") == 2
    for line in c.lines("OpAtomicI(Add|Sub)"):
        assert re.search(r"OpAtomicI(Add|Sub) %int %\w+ %uint_1 %uint_0 %int_1$", line)     # Device, relaxed
    assert c.count("OpISub") == 2                   # DecrementCounter/Consume: the new value
    [entry] = c.lines("OpEntryPoint")
    for var in ("counter_var_Words", "counter_var_Appended", "counter_var_Consumed"):
        assert f"%{var}" in entry.split()


def test_counter_binding_attribute_and_clash(tmp_path):
    c = compile_hlsl(node("Words[0] = Words.IncrementCounter();",
                          "[[vk::counter_binding(9)]] RWStructuredBuffer<uint> Words : register(u2, space1);"),
                     tmp_path)
    assert binding(c, "counter_var_Words") == (1, 9)
    errors = compile_errors(node("Words[0] = Words.IncrementCounter();",
                                 "[[vk::counter_binding(3)]] RWStructuredBuffer<uint> Words : register(u2);\n"
                                 "Texture2D<float> Other : register(t3);"), tmp_path)
    assert errors == ["WG0323: the counter of 'Words' cannot take binding 3 of descriptor set 0: 'Other' is "
                      "bound there"]


def test_counters_of_an_array_of_buffers(tmp_path):
    c = compile_hlsl(node("Many[gi % 3].Append(gi);",
                          "AppendStructuredBuffer<uint> Many[3] : register(u0);"), tmp_path)
    assert re.search(r"%_ptr_StorageBuffer__arr_type_ACSBuffer_counter_uint_3 = OpTypePointer StorageBuffer",
                     c.asm)
    [chain] = [line for line in c.lines("OpAccessChain") if "%counter_var_Many" in line]
    assert chain.split()[-1] == "%uint_0" and len(chain.split()) == 7      # [element][0]


# ---------------------------------------------------------------- byte-address buffers

RAW = """
ByteAddressBuffer Raw : register(t0);
RWByteAddressBuffer RawOut : register(u1);
"""


def test_byte_address_load_store_words(tmp_path):
    c = compile_hlsl(node("""
        uint status, size;
        uint4 q = Raw.Load4(gi * 16, status);
        RawOut.Store(0, Raw.Load(4) + Raw.Load2(8).y + Raw.Load3(12).z + q.w + status);
        RawOut.Store2(8, uint2(1, 2)); RawOut.Store3(16, q.xyz); RawOut.Store4(32, q);
        Raw.GetDimensions(size); RawOut.Store(48, size);
    """, RAW), tmp_path)
    shifts = c.lines("OpShiftRightLogical")
    assert shifts and all(line.endswith("%uint_2") for line in shifts)
    assert c.count("OpLoad %uint") >= 10
    assert "OpStore %status %uint_1" in c.asm
    [length] = c.lines("OpArrayLength")
    assert re.search(r"OpIMul %uint %\w+ %uint_4", c.asm)
    assert length.endswith("%Raw 0")
    # Store4 writes four consecutive words: index, index+1, +2, +3
    assert re.search(r"OpIAdd %uint %\w+ %uint_3", c.asm)


def test_byte_address_templated_struct_in_natural_layout(tmp_path):
    c = compile_hlsl(node("""
        S s = Raw.Load<S>(gi * 64);
        RawOut.Store<S>(64, s);
        RawOut.Store<float>(0, Raw.Load<float>(4));
        RawOut.Store(8, float2(1, 2));
    """, RAW + """
struct S { float a; double d; int2 v; bool flag; float2x3 m; row_major float2x2 r; uint arr[2]; };
"""), tmp_path)
    # scalar layout: a@0 d@8 v@16 flag@24 m@28 (column-major: words 7..12) r@52 arr@68 -> word offsets
    offsets = [int(m.group(1)) for m in re.finditer(r"OpIAdd %uint %\w+ %uint_(\d+)$", c.asm, flags=re.M)]
    loads = offsets[:offsets.index(18) + 1]
    assert loads == [2, 3, 4, 5, 6, 7, 9, 11, 8, 10, 12, 13, 14, 15, 16, 17, 18]
    assert "OpUConvert %ulong" in c.asm and re.search(r"OpShiftLeftLogical %ulong %\w+ %uint_32", c.asm)
    assert "OpBitcast %double" in c.asm and "OpBitcast %ulong" in c.asm
    assert re.search(r"OpINotEqual %bool %\w+ %uint_0", c.asm) and re.search(r"OpSelect %uint %\w+ %uint_1 %uint_0",
                                                                           c.asm)
    assert {"Int64", "Float64"} <= capabilities(c)


def test_byte_address_16_bit_values(tmp_path):
    c = compile_hlsl(node("""
        half2 h = Raw.Load<half2>(gi * 2);
        RawOut.Store<int16_t>(2, Raw.Load<int16_t>(6));
        RawOut.Store<half2>(4, h);
    """, RAW), tmp_path, enable_16bit_types=True)
    assert "OpUConvert %ushort" in c.asm and "OpBitcast %half" in c.asm and "OpBitcast %short" in c.asm
    assert re.search(r"OpBitwiseAnd %uint %\w+ %uint_2", c.asm)           # which half of the word
    assert re.search(r"OpShiftLeftLogical %uint %uint_65535 %\w+", c.asm)  # read-modify-write mask
    assert "OpNot %uint" in c.asm and "OpBitwiseOr %uint" in c.asm
    assert {"Int16", "Float16"} <= capabilities(c)


@pytest.mark.parametrize("call,opcode", [
    ("RawOut.InterlockedAdd(0, 1u, old);", "OpAtomicIAdd"),
    ("RawOut.InterlockedAnd(0, 1u, old);", "OpAtomicAnd"),
    ("RawOut.InterlockedOr(0, 1u, old);", "OpAtomicOr"),
    ("RawOut.InterlockedXor(0, 1u, old);", "OpAtomicXor"),
    ("RawOut.InterlockedMin(0, 1u, old);", "OpAtomicUMin"),
    ("RawOut.InterlockedMax(0, 1u, old);", "OpAtomicUMax"),
    ("RawOut.InterlockedMin(0, -1, sold); old = sold;", "OpAtomicSMin"),
    ("RawOut.InterlockedMax(0, sold, sold); old = sold;", "OpAtomicSMax"),
    ("RawOut.InterlockedExchange(0, 5u, old);", "OpAtomicExchange"),
    ("RawOut.InterlockedCompareExchange(0, 1u, 2u, old);", "OpAtomicCompareExchange"),
    ("RawOut.InterlockedCompareStore(0, 1u, 2u);", "OpAtomicCompareExchange"),
    ("RawOut.InterlockedAdd(4, 1);", "OpAtomicIAdd"),
])
def test_byte_address_atomics(tmp_path, call, opcode):
    c = compile_hlsl(node(f"uint old = 0; int sold = 0; {call} RawOut.Store(8, old);", RAW), tmp_path)
    [line] = c.lines(opcode)
    assert re.search(rf"= {opcode} %uint %\w+ %uint_1 %uint_0 ", line)         # on the word, Device scope
    if "old" in call.split("(", 1)[1]:
        assert re.search(r"OpStore %s?old %\w+", c.asm)


# ---------------------------------------------------------------- arrays of resources, helpers


def test_arrays_of_resources(tmp_path):
    c = compile_hlsl(node("""
        Image[id] = Many[gi % 4].SampleLevel(Samplers[gi % 2], uv, 0) + Unbounded[gi].Load(int3(id, 0))
                    + Buffers[1][gi] + float4(Raws[gi % 2].Load(0), 0, 0, 0);
        uint n, s; Buffers[0].GetDimensions(n, s); Image[uint2(0, 0)] = n;
    """, """
Texture2D<float4> Many[4] : register(t0);
SamplerState Samplers[2] : register(s4);
Texture2D<float4> Unbounded[] : register(t0, space1);
StructuredBuffer<float4> Buffers[2] : register(t6);
ByteAddressBuffer Raws[2] : register(t8);
RWTexture2D<float4> Image : register(u10);
"""), tmp_path)
    assert "RuntimeDescriptorArray" in capabilities(c)
    assert re.search(r"OpTypeArray %type_2d_image\w* %uint_4", c.asm)
    assert re.search(r"OpTypeRuntimeArray %type_2d_image", c.asm)
    assert re.search(r"OpTypeArray %type_sampler %uint_2", c.asm)
    assert re.search(r"OpTypeArray %type_ByteAddressBuffer %uint_2", c.asm)
    chains = c.lines("OpAccessChain")
    assert any(re.search(r"%_ptr_UniformConstant_type_sampler %Samplers %\w+$", line) for line in chains)
    assert any(re.search(r"%_ptr_UniformConstant_type_2d_image\w* %Unbounded %\w+$", line) for line in chains)
    assert any(re.search(r"%Buffers %int_1 %uint_0 %\w+$", line) for line in chains)
    assert any(re.search(r"%Raws %\w+ %uint_0 %\w+$", line) for line in chains)
    assert any(re.search(r"%_ptr_StorageBuffer_type_StructuredBuffer_float4_ %Buffers %int_0$", line)
               for line in chains)
    assert binding(c, "Many") == (0, 0) and binding(c, "Samplers") == (0, 4) and binding(c, "Unbounded") == (1, 0)


def test_resources_passed_to_helpers_are_inlined(tmp_path):
    c = compile_hlsl("""
Texture2D<float4> Tex : register(t0);
SamplerState Linear : register(s1);
RWTexture2D<float4> Image : register(u2);
RWStructuredBuffer<uint> Words : register(u3);
RWByteAddressBuffer Raw : register(u4);
float4 Fetch(Texture2D<float4> tex, SamplerState s, float2 uv) { return tex.SampleLevel(s, uv, 0); }
void Put(RWStructuredBuffer<uint> buffer, uint i) { buffer[i] = buffer.IncrementCounter(); }
void Bump(RWByteAddressBuffer raw, uint a) { raw.InterlockedAdd(a, 1); }
void Paint(RWTexture2D<float4> image, uint2 at, float4 v) { image[at] = v; }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) {
    Paint(Image, uint2(gi, 0), Fetch(Tex, Linear, float2(0, 0)));
    Put(Words, gi);
    Bump(Raw, gi * 4);
}
""", tmp_path)
    assert c.count("OpFunctionCall") == 0 and c.count("OpFunction") == 1
    assert c.count("OpImageSampleExplicitLod") == 1 and c.count("OpImageWrite") == 1
    assert c.count("OpAtomicIAdd") == 2
    [entry] = c.lines("OpEntryPoint")
    for var in ("Tex", "Linear", "Image", "Words", "counter_var_Words", "Raw"):
        assert f"%{var}" in entry.split()


def test_syntax_tour_resources_lower(tmp_path):
    """The tour (every resource kind among its constructs) compiles to a valid AMDX module."""
    result = driver.compile(driver.Options(input=str(SAMPLES / "syntax_tour.hlsl"),
                                           include_dirs=(str(SAMPLE_INCLUDE),), emit="spirv"))
    errors = [(d.code, d.message) for d in result.diagnostics if d.severity >= Severity.ERROR]
    assert not errors and result.ok, errors


def test_byte_address_arrays_vectors_of_bool_and_64_bit(tmp_path):
    c = compile_hlsl(node("""
        Floats arr = Raw.Load<Floats>(gi * 16);
        bool3 flags = Raw.Load<bool3>(64);
        uint64_t big = Raw.Load<uint64_t>(80);
        RawOut.Store<Floats>(0, arr);
        RawOut.Store(16, flags);
        RawOut.Store(32, big + 1);
    """, RAW + "typedef float Floats[4];"), tmp_path)
    assert re.search(r"OpCompositeConstruct %_arr_float_uint_4 %\w+ %\w+ %\w+ %\w+$", c.asm, flags=re.M)
    assert re.search(r"OpCompositeConstruct %v3bool", c.asm)
    assert c.count("OpINotEqual") == 3 and c.count("OpSelect") == 3
    assert "Int64" in capabilities(c)


ALL_AT_ONCE = TEXTURES + STRUCTS + """
ByteAddressBuffer Raw : register(t15);
RWByteAddressBuffer RawOut : register(u16);
AppendStructuredBuffer<Item> Appended : register(u13);
Texture2D<float4> Unbounded[] : register(t0, space1);
Buffer<float4> Typed : register(t14);
"""


@pytest.mark.parametrize("target_env", ["vulkan1.2", "vulkan1.3", "vulkan1.4"])
@pytest.mark.parametrize("optimize", [False, True])
def test_every_kind_together_validates_for_each_environment(tmp_path, target_env, optimize):
    c = compile_hlsl(node("""
        Image[id] = T2.Sample(Linear, uv) + Unbounded[gi].SampleLevel(Linear, uv, 0) + Typed[gi]
                    + T2A.Gather(Linear, float3(uv, 0), int2(id)) + T2.SampleCmpLevelZero(Shadow, uv, 0.5);
        Item item = Raw.Load<Item>(gi * 80);
        Appended.Append(item);
        RawOut.InterlockedAdd(0, 1);
        uint w, h, l; T2.GetDimensions(0, w, h, l); Sizes[gi] = w + h + l;
    """, ALL_AT_ONCE), tmp_path, target_env=target_env, optimize=optimize)
    assert c.count("OpImageSampleImplicitLod") == 1 and "DerivativeGroupQuadsKHR" in c.asm


def test_resource_locals_and_array_parameters(tmp_path):
    c = compile_hlsl("""
RWStructuredBuffer<uint> Words : register(u0);
RWStructuredBuffer<uint> Others[2] : register(u1);
Texture2D<float4> T[2] : register(t3);
SamplerState S : register(s5);
RWTexture2D<float4> Img : register(u6);
float4 Pick(Texture2D<float4> ts[2], uint i) { return ts[i].SampleLevel(S, float2(0, 0), 0); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(8,8,1)]
void Main(uint2 id : SV_DispatchThreadID) {
    RWStructuredBuffer<uint> b = Words;
    b[0] = b.IncrementCounter();
    RWStructuredBuffer<uint> o = Others[id.x % 2];
    o[1] = o.DecrementCounter();
    Img[id] = Pick(T, id.y % 2);
}
""", tmp_path)
    # Words' counter: binding 1 is Others' -> 2; Others' counter: 2 and 3 are taken -> 4
    assert binding(c, "counter_var_Words") == (0, 2) and binding(c, "counter_var_Others") == (0, 4)
    assert re.search(r"OpAccessChain %_ptr_StorageBuffer_int %counter_var_Others %\w+ %uint_0$", c.asm, flags=re.M)
    assert re.search(r"OpAccessChain %_ptr_StorageBuffer_uint %Others %\w+ %uint_0 %uint_1$", c.asm, flags=re.M)
    assert re.search(r"OpAccessChain %_ptr_UniformConstant_type_2d_image\w* %T %\w+$", c.asm, flags=re.M)
    assert c.count("OpFunctionCall") == 0


def test_overlapping_bindings_dxc_accepts_compile_and_validate(tmp_path):
    """b0, t0 and u0 all on binding 0 (WG0360, a warning), and a texture and a sampler aliased on
    purpose with [[vk::binding]] (silent): the module keeps the bindings as written, as dxc's does."""
    c = compile_hlsl("""
cbuffer C : register(b0) { uint k; };
Texture2D<float4> T : register(t0);
RWBuffer<uint> U : register(u0);
[[vk::binding(3)]] Texture2D<float4> Image;
[[vk::binding(3)]] SamplerState Sampler;
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
void N() { U[0] = k + (uint)T.Load(int3(0, 0, 0)).x + (uint)Image.SampleLevel(Sampler, float2(0, 0), 0).x; }
""", tmp_path)
    for name, binding in (("C", 0), ("T", 0), ("U", 0), ("Image", 3), ("Sampler", 3)):
        assert f"OpDecorate %{name} Binding {binding}" in c.asm, name
