"""A library holds more than nodes (issue 14): compute, pixel and mesh shaders beside the node
shaders are compiled too (`wgc/sema/entry_stages.py`, `wgc/spirv/stageio.py`); `-E` picks one,
`--split-nodes` writes one module per entry point; other stages are WG0640 (test_stage_policy.py)
and declaration errors WG0390 (test_sema_errors.py).

Expected values come from the source of each test (declaration order, SV_TargetN, modifiers) and
the SPIR-V / Vulkan specs (execution models and modes, built-ins, interpolation decorations), and
DXC's choice for `discard` (OpDemoteToHelperInvocation from vulkan1.3, OpKill before).
"""

from __future__ import annotations

import json
import re

import pytest
from spirv_util import compile_hlsl

from wgc import driver


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


LIBRARY = lines(
    "RWStructuredBuffer<uint> Counts : register(u0);",
    "struct Rec { uint material; };",
    "struct V { float4 pos : SV_Position; float3 color : COLOR0; };",
    "struct Payload { uint count; };",
    '[Shader("node")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]',
    "void Classify([MaxRecords(1)] NodeOutput<Rec> Draw)",
    "{",
    "    ThreadNodeOutputRecords<Rec> r = Draw.GetThreadNodeOutputRecords(1);",
    "    r.Get().material = 1;",
    "    r.OutputComplete();",
    "}",
    '[Shader("node")] [NodeLaunch("mesh")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(3, 1, 1)]',
    '[OutputTopology("triangle")]',
    "void Draw(DispatchNodeInputRecord<Rec> input, uint i : SV_GroupIndex, out vertices V verts[3],",
    "          out indices uint3 tris[1])",
    "{",
    "    SetMeshOutputCounts(3, 1);",
    "    verts[i].pos = float4(i, 0, 0, 1);",
    "    verts[i].color = input.Get().material;",
    "    if (i == 0) tris[0] = uint3(0, 1, 2);",
    "}",
    '[Shader("compute")] [NumThreads(64, 1, 1)]',
    "void Clear(uint id : SV_DispatchThreadID) { Counts[id] = 0; }",
    '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
    "void PlainMesh(uint i : SV_GroupIndex, in payload Payload p, out vertices V verts[3], out indices uint3 tris[1])",
    "{",
    "    SetMeshOutputCounts(3, 1);",
    "    verts[i].pos = float4(i, p.count, 0, 1);",
    "    verts[i].color = 1;",
    "    if (i == 0) tris[0] = uint3(0, 1, 2);",
    "}",
    "struct PSIn { float4 pos : SV_Position; nointerpolation uint material : MATERIAL; sample float2 uv : TEXCOORD0;",
    "              linear centroid float3 color : COLOR0; noperspective float fog : FOG; };",
    "struct PSOut { float4 color : SV_Target0; float4 normal : SV_Target2; float depth : SV_Depth; };",
    '[Shader("pixel")]',
    "PSOut Shade(PSIn input, bool front : SV_IsFrontFace, uint prim : SV_PrimitiveID)",
    "{",
    "    PSOut o;",
    "    if (input.material == 7) discard;",
    "    input.color *= 2;                       // parameters are the shader's own copies",
    "    o.color = float4(input.color * input.fog, front ? 1 : 0);",
    "    o.normal = float4(input.uv, prim, 1);",
    "    o.depth = input.pos.z;",
    "    return o;",
    "}",
)


def entry_points(asm: str) -> dict[str, str]:
    """Entry point name -> execution model."""
    found = {}
    for line in asm.splitlines():
        parts = line.split()
        if parts[:1] == ["OpEntryPoint"]:
            found[parts[3].strip('"')] = parts[1]
    return found


def test_every_entry_point_of_the_library_is_compiled(tmp_path) -> None:
    c = compile_hlsl(LIBRARY, tmp_path)
    assert entry_points(c.asm) == {"Classify": "GLCompute", "Draw": "MeshEXT", "Clear": "GLCompute",
                                   "PlainMesh": "MeshEXT", "Shade": "Fragment"}
    modes = set(c.lines("OpExecutionMode")) | set(c.lines("OpExecutionModeId"))
    assert {"OpExecutionMode %Clear LocalSize 64 1 1", "OpExecutionMode %PlainMesh LocalSize 3 1 1",
            "OpExecutionMode %PlainMesh OutputVertices 3", "OpExecutionMode %PlainMesh OutputPrimitivesEXT 1",
            "OpExecutionMode %PlainMesh OutputTrianglesEXT", "OpExecutionMode %Shade OriginUpperLeft",
            "OpExecutionMode %Shade DepthReplacing"} <= modes
    # the AMDX modes belong to the nodes only
    for entry in ("Clear", "PlainMesh", "Shade"):
        assert not any(f"%{entry} " in m and "AMDX" in m for m in modes), entry


def test_a_module_without_nodes_declares_no_amdx(tmp_path) -> None:
    c = compile_hlsl(LIBRARY, tmp_path, entry="Shade")
    assert entry_points(c.asm) == {"Shade": "Fragment"}
    assert "AMDX" not in c.asm and "MeshShadingEXT" not in c.asm


def test_split_nodes_writes_one_module_per_entry_point(tmp_path) -> None:
    source = tmp_path / "lib.hlsl"
    source.write_text(LIBRARY)
    result = driver.compile(driver.Options(input=str(source), emit="spirv", split_nodes=True))
    assert result.ok, result.diagnostics
    assert sorted(result.outputs) == ["spirv:Classify", "spirv:Clear", "spirv:Draw", "spirv:PlainMesh", "spirv:Shade"]


def test_pixel_inputs_are_located_in_declaration_order_with_their_interpolation(tmp_path) -> None:
    c = compile_hlsl(LIBRARY, tmp_path, entry="Shade")
    decorations = set(c.lines("OpDecorate"))
    assert {"OpDecorate %gl_FragCoord BuiltIn FragCoord",
            "OpDecorate %in_var_MATERIAL Location 0", "OpDecorate %in_var_MATERIAL Flat",
            "OpDecorate %in_var_TEXCOORD0 Location 1", "OpDecorate %in_var_TEXCOORD0 Sample",
            "OpDecorate %in_var_COLOR0 Location 2", "OpDecorate %in_var_COLOR0 Centroid",
            "OpDecorate %in_var_FOG Location 3", "OpDecorate %in_var_FOG NoPerspective",
            "OpDecorate %gl_FrontFacing BuiltIn FrontFacing",
            "OpDecorate %gl_PrimitiveId BuiltIn PrimitiveId", "OpDecorate %gl_PrimitiveId Flat"} <= decorations
    # `linear` is the default: nothing more on COLOR0; no interpolation on the built-in FragCoord
    assert {d for d in decorations if d.startswith(("OpDecorate %in_var_COLOR0", "OpDecorate %gl_FragCoord"))} == {
        "OpDecorate %in_var_COLOR0 Location 2", "OpDecorate %in_var_COLOR0 Centroid",
        "OpDecorate %gl_FragCoord BuiltIn FragCoord"}
    assert "OpCapability SampleRateShading" in c.asm


def test_pixel_outputs_are_targets_by_index_and_the_depth(tmp_path) -> None:
    c = compile_hlsl(LIBRARY, tmp_path, entry="Shade")
    decorations = set(c.lines("OpDecorate"))
    assert {"OpDecorate %out_var_SV_Target0 Location 0", "OpDecorate %out_var_SV_Target2 Location 2",
            "OpDecorate %gl_FragDepth BuiltIn FragDepth"} <= decorations
    # `return o;` stores each field into its own output, then returns
    stores = [line for line in c.lines("OpStore")
              if any(f"OpStore %{name} " in line for name in ("out_var_SV_Target0", "out_var_SV_Target2",
                                                               "gl_FragDepth"))]
    assert len(stores) == 3
    # the input parameter is a Function copy (written by `input.color *= 2`), never an Input store
    assert not any(line.split()[1].startswith("%in_var_") for line in c.lines("OpStore"))


def test_discard_demotes_from_vulkan_1_3_and_kills_before(tmp_path) -> None:
    c13 = compile_hlsl(LIBRARY, tmp_path, entry="Shade")
    assert c13.count("OpDemoteToHelperInvocation") == 1 and c13.count("OpKill") == 0
    assert "OpCapability DemoteToHelperInvocation" in c13.asm
    c12 = compile_hlsl(LIBRARY, tmp_path, entry="Shade", target_env="vulkan1.2")
    assert c12.count("OpKill") == 1 and c12.count("OpDemoteToHelperInvocation") == 0


def test_a_mesh_shader_reads_its_payload_from_task_payload_memory(tmp_path) -> None:
    c = compile_hlsl(LIBRARY, tmp_path, entry="PlainMesh")
    assert entry_points(c.asm) == {"PlainMesh": "MeshEXT"}
    assert "%p = OpVariable %_ptr_TaskPayloadWorkgroupEXT_Payload TaskPayloadWorkgroupEXT" in c.asm
    assert "%p" in c.lines("OpEntryPoint")[0].split()
    assert "ShaderEnqueueAMDX" not in c.asm


def test_a_compute_shader_reads_its_system_values(tmp_path) -> None:
    c = compile_hlsl(LIBRARY, tmp_path, entry="Clear")
    assert entry_points(c.asm) == {"Clear": "GLCompute"}
    assert "OpDecorate %gl_GlobalInvocationId BuiltIn GlobalInvocationId" in c.asm


def test_the_emulated_target_runs_the_graph_only(tmp_path) -> None:
    source = lines("RWStructuredBuffer<uint> Counts : register(u0);",
                   '[Shader("node")] [NodeLaunch("thread")] void Work() { Counts[0] = 1; }',
                   '[Shader("compute")] [NumThreads(64, 1, 1)]',
                   "void Clear(uint id : SV_DispatchThreadID) { Counts[id] = 0; }")
    c = compile_hlsl(source, tmp_path, target="emulated")
    assert list(entry_points(c.asm)) == ["Work"]


def test_linear_and_sample_stay_identifiers_where_no_type_follows() -> None:
    source = lines("float sample(float linear) { float sample = linear; return sample * 2; }",
                   "RWStructuredBuffer<float> Out : register(u0);",
                   '[Shader("node")] [NodeLaunch("thread")] void Work() { float linear = 3; Out[0] = sample(linear); }')
    result = driver.compile(driver.Options(input="-", emit="json"), stdin=source.encode())
    assert result.ok and not result.diagnostics
    assert json.loads(result.outputs["json"])["nodes"][0]["function"] == "Work"


AMPLIFY_AND_DRAW = lines(
    "struct Payload { uint meshlets[32]; uint count; };",
    "groupshared Payload s_payload;",
    "groupshared uint s_count;",
    '[Shader("amplification")] [NumThreads(32, 1, 1)]',
    "void Cull(uint gtid : SV_GroupThreadID, uint gid : SV_GroupID)",
    "{",
    "    if (gtid == 0) s_count = 0;",
    "    GroupMemoryBarrierWithGroupSync();",
    "    uint slot;",
    "    InterlockedAdd(s_count, 1, slot);",
    "    s_payload.meshlets[slot] = gid * 32 + gtid;",
    "    GroupMemoryBarrierWithGroupSync();",
    "    s_payload.count = s_count;",
    "    DispatchMesh(s_count, 1, 1, s_payload);",
    "}",
    "struct V { float4 pos : SV_Position; };",
    '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
    "void Draw(uint i : SV_GroupIndex, uint g : SV_GroupID, in payload Payload p, out vertices V verts[3],",
    "          out indices uint3 tris[1])",
    "{",
    "    SetMeshOutputCounts(3, 1);",
    "    verts[i].pos = float4(p.meshlets[g], i, 0, 1);",
    "    if (i == 0) tris[0] = uint3(0, 1, 2);",
    "}",
)


def test_an_amplification_shader_emits_mesh_tasks_with_its_groupshared_payload(tmp_path) -> None:
    c = compile_hlsl(AMPLIFY_AND_DRAW, tmp_path)
    assert entry_points(c.asm) == {"Cull": "TaskEXT", "Draw": "MeshEXT"}
    assert "OpExecutionMode %Cull LocalSize 32 1 1" in c.lines("OpExecutionMode")
    # the payload is the task payload, the counter stays workgroup memory
    assert "%s_payload = OpVariable %_ptr_TaskPayloadWorkgroupEXT_Payload TaskPayloadWorkgroupEXT" in c.asm
    assert "%s_count = OpVariable %_ptr_Workgroup_uint Workgroup" in c.asm
    emits = c.lines("OpEmitMeshTasksEXT")
    assert len(emits) == 1 and emits[0].endswith(" %uint_1 %uint_1 %s_payload")
    # a group barrier makes the payload visible first, as DXC emits it
    body = [line.strip() for line in c.asm.splitlines()]
    emit_at = next(i for i, line in enumerate(body) if line.startswith("OpEmitMeshTasksEXT"))
    assert body[emit_at - 1].startswith("OpControlBarrier %uint_2 %uint_2 ")
    assert "OpCapability MeshShadingEXT" in c.asm and "AMDX" not in c.asm


def test_dispatch_mesh_rules(tmp_path) -> None:
    twice = AMPLIFY_AND_DRAW.replace("    DispatchMesh(s_count, 1, 1, s_payload);",
                                     "    DispatchMesh(s_count, 1, 1, s_payload);\n    DispatchMesh(1, 1, 1, s_payload);")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=twice.encode())
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("WG0390", "DispatchMesh may be called only once in an amplification shader")]
    local = AMPLIFY_AND_DRAW.replace("    DispatchMesh(s_count, 1, 1, s_payload);",
                                     "    Payload mine = s_payload;\n    DispatchMesh(s_count, 1, 1, mine);")
    assert driver.compile(driver.Options(input="-", emit="ir"), stdin=local.encode()).ok   # HLSL (DXC's Sema agrees)
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=local.encode())
    assert [d.code for d in result.diagnostics] == ["WG0644"]      # SPIR-V cannot: test_stage_policy.py
    node = lines("struct P { uint x; };", "groupshared P g;",
                 '[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)] void Work() { DispatchMesh(1, 1, 1, g); }')
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=node.encode())
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("WG0390", "DispatchMesh is only allowed in amplification shaders, not in coalescing nodes")]


def test_an_unmapped_pixel_system_value_is_a_target_limit(tmp_path) -> None:
    source = lines('[Shader("pixel")]',
                   "float4 Shade(float4 pos : SV_Position, uint coverage : SV_Coverage) : SV_Target { return pos; }")
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=source.encode())
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("WG0642", "'SV_Coverage' on an input of pixel shader 'Shade' has no SPIR-V built-in in wgc (there it maps "
                   "SV_Position, SV_IsFrontFace, SV_PrimitiveID, SV_SampleIndex)")]
    assert driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode()).ok   # HLSL that wgc shows


def test_a_floating_point_subscript_converts_to_uint_as_in_dxc() -> None:
    # DXC casts a floating subscript to uint (SemaExpr.cpp, CK_FloatingToIntegral); AMD's mesh-node
    # sample indexes a colour table with `Random(seed, id) * 7`
    source = lines("RWStructuredBuffer<float3> Out : register(u0);",
                   '[Shader("node")] [NodeLaunch("thread")]',
                   "void Work()",
                   "{",
                   "    static const float3 colors[3] = { float3(1, 0, 0), float3(0, 1, 0), float3(0, 0, 1) };",
                   "    float pick = 1.75;",
                   "    float4 v = float4(1, 2, 3, 4);",
                   "    Out[0] = colors[pick * 1] * v[pick];",
                   "}")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode())
    assert result.ok and not result.diagnostics
    ir_text = result.outputs["ir"].decode()
    assert "colors[convert<uint>((pick:float * 1.0f):float)]" in ir_text
    assert "v[convert<uint>(pick:float)]" in ir_text
    still = source.replace("v[pick]", "v[float2(1, 2)]")   # a vector subscript stays an error
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=still.encode())
    assert [d.message for d in result.diagnostics] == ["array subscript must be an integer, not 'float2'"]


def test_a_mesh_shader_may_output_nothing(tmp_path) -> None:
    # DXC accepts a mesh shader without out vertices / out indices; Vulkan wants counts above 0
    source = lines("RWBuffer<float> Out : register(u0);",
                   '[Shader("mesh")] [NumThreads(4, 1, 1)] [OutputTopology("triangle")]',
                   "void Nothing(uint i : SV_GroupIndex) { Out[i] = 1; }")
    c = compile_hlsl(source, tmp_path)
    assert {"OpExecutionMode %Nothing OutputVertices 1", "OpExecutionMode %Nothing OutputPrimitivesEXT 1"} <= \
        set(c.lines("OpExecutionMode"))


def test_a_broken_dispatch_mesh_call_is_not_also_a_missing_one() -> None:
    source = lines("struct P { uint x; };", "groupshared P g;",
                   '[Shader("amplification")] [NumThreads(1, 1, 1)]',
                   "void Amp() { DispatchMesh(1, 1, 1, g, nope); }",
                   '[Shader("amplification")] [NumThreads(1, 1, 1)]',
                   "void Amp2() { }")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode())
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("WG0301", "use of undeclared identifier 'nope'"),
        ("WG0390", "amplification shader 'Amp2' must call DispatchMesh(x, y, z, payload)")]


# ---------------------------------------------------------------- non-library profiles (-T ps_6_x -E main)

PIXEL_WITHOUT_ATTRIBUTE = lines(
    "Texture2D<float4> Albedo : register(t0);",
    "SamplerState Linear : register(s1);",
    "float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target",
    "{",
    "#if __SHADER_TARGET_STAGE == __SHADER_STAGE_PIXEL && __SHADER_TARGET_MINOR == 6",
    "    return Albedo.Sample(Linear, uv);",
    "#else",
    "    return float4(1, 0, 1, 1);",    # reached only if the predefined macros were wrong
    "#endif",
    "}")


def test_a_pixel_profile_compiles_main_without_a_shader_attribute(tmp_path) -> None:
    # DXC: the -E function of -T ps_6_6 is the pixel shader (an implicit [Shader("pixel")]); the
    # predefined __SHADER_TARGET_STAGE is the pixel stage (DXIL::ShaderKind 0), not the library (6)
    c = compile_hlsl(PIXEL_WITHOUT_ATTRIBUTE, tmp_path, profile="ps_6_6")
    assert c.lines("OpEntryPoint") == [
        'OpEntryPoint Fragment %main "main" %gl_FragCoord %in_var_TEXCOORD0 %out_var_SV_Target %Albedo %Linear']
    assert c.lines("OpExecutionMode") == ["OpExecutionMode %main OriginUpperLeft"]
    assert len(c.lines("OpImageSampleImplicitLod")) == 1


def test_a_shader_profile_compiles_only_the_entry_it_names(tmp_path) -> None:
    source = lines(
        "RWStructuredBuffer<uint> Out : register(u0);",
        "[numthreads(64, 1, 1)]",
        "void Clear(uint i : SV_DispatchThreadID) { Out[i] = 0; }",
        '[Shader("pixel")]',
        "float4 Shade() : SV_Target { return 1; }",
        "[numthreads(8, 1, 1)]",
        "void main(uint i : SV_DispatchThreadID) { Out[i] = 1; }")
    c = compile_hlsl(source, tmp_path, profile="cs_6_0", entry="Clear")
    assert c.lines("OpEntryPoint") == ['OpEntryPoint GLCompute %Clear "Clear" %gl_GlobalInvocationId %Out']
    assert c.lines("OpExecutionMode") == ["OpExecutionMode %Clear LocalSize 64 1 1"]
    c = compile_hlsl(source, tmp_path, profile="cs_6_0")                  # -E main by default
    assert c.lines("OpExecutionMode") == ["OpExecutionMode %main LocalSize 8 1 1"]


def test_mesh_and_amplification_profiles_compile_their_entry(tmp_path) -> None:
    mesh = lines(
        "struct V { float4 pos : SV_Position; };",
        '[NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
        "void main(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1])",
        "{",
        "    SetMeshOutputCounts(3, 1);",
        "    verts[i].pos = float4(i, 0, 0, 1);",
        "    if (i == 0) tris[0] = uint3(0, 1, 2);",
        "}")
    c = compile_hlsl(mesh, tmp_path, profile="ms_6_5")
    assert c.lines("OpEntryPoint")[0].startswith('OpEntryPoint MeshEXT %main "main"')
    task = lines(
        "struct Payload { uint count; };",
        "groupshared Payload P;",
        "[NumThreads(1, 1, 1)]",
        "void main() { P.count = 1; DispatchMesh(1, 1, 1, P); }")
    c = compile_hlsl(task, tmp_path, profile="as_6_5")
    assert c.lines("OpEntryPoint")[0].startswith('OpEntryPoint TaskEXT %main "main"')


# ---------------------------------------------------------------- wgc inspect: the other entry points

ALL_STAGES = lines(
    "struct Payload { uint first; float scale; };",
    "groupshared Payload P;",
    '[Shader("amplification")] [NumThreads(8, 1, 1)]',
    "void Task(uint i : SV_GroupIndex) { P.first = i; P.scale = 1; DispatchMesh(2, 1, 1, P); }",
    "struct V { float4 pos : SV_Position; float2 uv : TEXCOORD0; };",
    "struct Prim { uint id : SV_PrimitiveID; float4 tint : COLOR1; };",
    '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
    "void Mesh(uint i : SV_GroupIndex, in payload Payload p, out vertices V verts[3], out indices uint3 tris[1],",
    "          out primitives Prim prims[1])",
    "{",
    "    SetMeshOutputCounts(3, 1);",
    "    verts[i].pos = float4(i, p.scale, 0, 1); verts[i].uv = 0;",
    "    if (i == 0) { tris[0] = uint3(0, 1, 2); prims[0].id = 0; prims[0].tint = 1; }",
    "}",
    "RWBuffer<uint> Out : register(u0);",
    '[Shader("compute")] [NumThreads(64, 1, 1)]',
    "void Clear(uint id : SV_DispatchThreadID) { Out[id] = 0; }",
    '[Shader("pixel")]',
    "float4 Shade(float4 pos : SV_Position, float2 uv : TEXCOORD0, nointerpolation float4 tint : COLOR1) : SV_Target",
    "{ return tint; }")


def view(source: str, emit: str) -> str:
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=source.encode())
    assert result.ok, result.diagnostics
    return result.outputs[emit].decode()


def test_inspect_text_lists_the_other_entry_points_with_their_interface() -> None:
    text = view(ALL_STAGES, "text")
    start = text.index("Task  [")
    assert text[start:text.index("\ngraph:") + 1] == lines(
        "Task  [amplification shader]  SPIR-V entry point Task",
        "  function: void Task(uint i)",
        "  threads: 8x1x1",
        "  interface:",
        "    in i: uint SV_GroupIndex -> BuiltIn LocalInvocationIndex",
        "",
        "Mesh  [mesh shader]  SPIR-V entry point Mesh",
        "  function: void Mesh(uint i, Payload p, out V[3] verts, out uint3[1] tris, out Prim[1] prims)",
        "  threads: 3x1x1",
        "  mesh: triangle topology, max 3 vertices, max 1 primitives",
        "  interface:",
        "    in i: uint SV_GroupIndex -> BuiltIn LocalInvocationIndex",
        # Locations in declaration order across the vertices, then the primitives (DXC's default)
        "    out verts.pos: float4 SV_Position -> BuiltIn Position",
        "    out verts.uv: float2 TEXCOORD0 -> Location 0",
        "    out prims.id: uint SV_PrimitiveID -> BuiltIn PrimitiveId, per primitive",
        "    out prims.tint: float4 COLOR1 -> Location 1, per primitive",
        "    out tris: uint3 -> BuiltIn PrimitiveTriangleIndicesEXT",
        "    in p: Payload -> TaskPayloadWorkgroupEXT",
        "",
        "Clear  [compute shader]  SPIR-V entry point Clear",
        "  function: void Clear(uint id)",
        "  threads: 64x1x1",
        "  interface:",
        "    in id: uint SV_DispatchThreadID -> BuiltIn GlobalInvocationId",
        "  resources: Out",
        "",
        "Shade  [pixel shader]  SPIR-V entry point Shade",
        "  function: float4 Shade(float4 pos, float2 uv, float4 tint)",
        "  interface:",
        "    in pos: float4 SV_Position -> BuiltIn FragCoord",
        "    in uv: float2 TEXCOORD0 -> Location 0",
        "    in tint: float4 COLOR1 -> Location 1",
        "    out return: float4 SV_Target -> Location 0",
        "",
    )


def test_inspect_interface_agrees_with_the_spirv_decorations(tmp_path) -> None:
    # every Location and built-in the model reports is one the SPIR-V back end decorates
    model = json.loads(view(ALL_STAGES, "json"))
    c = compile_hlsl(ALL_STAGES, tmp_path)
    decorations = set(c.lines("OpDecorate"))
    for entry in model["entry_points"]:
        for value in entry["interface"]:
            if value["builtin"] is not None:
                assert any(d.endswith(f"BuiltIn {value['builtin']}") for d in decorations), value
            elif value["location"] is not None:
                storage = "in" if value["direction"] == "in" else "out"
                assert f"OpDecorate %{storage}_var_{value['semantic']} Location {value['location']}" in decorations


def test_inspect_json_describes_each_entry_point() -> None:
    model = json.loads(view(ALL_STAGES, "json"))
    assert [(e["key"], e["stage"], e["num_threads"], e["payload_bytes"]) for e in model["entry_points"]] == [
        ("Task", "amplification", [8, 1, 1], 8), ("Mesh", "mesh", [3, 1, 1], 8), ("Clear", "compute", [64, 1, 1], None),
        ("Shade", "pixel", None, None)]
    mesh = model["entry_points"][1]
    assert mesh["mesh"] == {"output_topology": "triangle", "max_vertices": 3, "max_primitives": 1}
    assert mesh["interface"][4] == {"direction": "out", "parameter": "prims", "field": "tint", "type": "float4",
                                    "semantic": "COLOR1", "builtin": None, "location": 1, "per_primitive": True}
    assert model["nodes"] == [] and model["graph"]["edges"] == []


def test_inspect_dot_draws_each_entry_point_as_its_own_box() -> None:
    dot = view(ALL_STAGES, "dot")
    boxes = [line.strip() for line in dot.splitlines() if line.strip().startswith('"entry ')]
    style = "shape=box, style=dashed, color=gray40, fontcolor=gray40"
    assert boxes == [
        f'"entry Task" [label="Task\\namplification shader\\nthreads 8x1x1", {style}];',
        f'"entry Mesh" [label="Mesh\\nmesh shader\\nthreads 3x1x1\\ntriangle, ≤3 vertices, ≤1 primitives", {style}];',
        f'"entry Clear" [label="Clear\\ncompute shader\\nthreads 64x1x1", {style}];',
        f'"entry Shade" [label="Shade\\npixel shader", {style}];']
    assert "->" not in dot.split('"entry Task"')[1].split('"resource ')[0]     # joined to nothing


def test_inspect_dxil_lists_the_entry_points_as_dxc_does() -> None:
    # DXC's EmitDxilEntryProperties for lib entries: ShaderKind 8 (pixel 0, compute 5, mesh 13,
    # amplification 14); compute NumThreads 4; mesh MSState 9 {threads, 3 vertices, 1 primitive,
    # triangle 2, payload 8 bytes}; amplification ASState 10 {threads, payload 8 bytes}; then the
    # AutoBindingSpace 5 {0} DXC gives every library entry
    text = view(ALL_STAGES, "dxil")
    for name, properties in (("Task", "i32 8, i32 14, i32 10, !{{!{{i32 8, i32 1, i32 1}}, i32 8}}"),
                             ("Mesh", "i32 8, i32 13, i32 9, !{{!{{i32 3, i32 1, i32 1}}, i32 3, i32 1, i32 2, "
                                      "i32 8}}"),
                             ("Clear", "i32 8, i32 5, i32 4, !{{i32 64, i32 1, i32 1}}"),
                             ("Shade", "i32 8, i32 0")):
        assert f"declare void @{name}()" in text
        assert _resolved(text, f'void ()* @{name}, !"{name}", null, null, ') == (
            "!{" + properties.format() + ", i32 5, !{i32 0}}")
    names = re.findall(r'^!\d+ = !\{void \(\)\* @(\w+), !"\w+", null, null', text, re.M)
    assert names == sorted(names)                    # DXC sorts a library's entries by function name


def _resolved(text: str, prefix: str) -> str:
    """The metadata tuple after `prefix` in an entry of dx.entryPoints, with its !N references inlined."""
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", text, re.M))
    entry = next(value for value in nodes.values() if prefix in value)
    reference = entry.split(prefix)[1].rstrip("}")

    def inline(value: str) -> str:
        return re.sub(r"!\d+\b", lambda m: inline(nodes[m.group()]) if m.group() in nodes else m.group(), value)
    return inline(nodes[reference])


NAMED_LIKE_A_NODE = {
    "compute": lines('[Shader("compute")] [NumThreads(1, 1, 1)]',
                     "void Target(uint id : SV_DispatchThreadID) { Counts[id] = 0; }"),
    "pixel": lines('[Shader("pixel")]', "float4 Target(float4 pos : SV_Position) : SV_Target0 { return pos; }"),
    "mesh": lines('[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
                  "void Target(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1])",
                  "{", "    SetMeshOutputCounts(3, 1);", "    verts[i].pos = float4(i, 0, 0, 1);",
                  "    verts[i].color = 1;", "    if (i == 0) tris[0] = uint3(0, 1, 2);", "}"),
}
NODE_NAMED_TARGET = {
    "compute": lines('[Shader("node")] [NodeID("Target")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)]',
                     "[NumThreads(1, 1, 1)]", "void TargetNode(DispatchNodeInputRecord<Rec> input) "
                     "{ Counts[0] = input.Get().material; }"),
    "mesh": lines('[Shader("node")] [NodeID("Target")] [NodeLaunch("mesh")] [NodeDispatchGrid(1, 1, 1)]',
                  '[NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
                  "void TargetNode(DispatchNodeInputRecord<Rec> input, uint i : SV_GroupIndex, out vertices V verts[3],",
                  "                out indices uint3 tris[1])",
                  "{", "    SetMeshOutputCounts(3, 1);", "    verts[i].pos = float4(i, 0, 0, 1);",
                  "    verts[i].color = input.Get().material;", "    if (i == 0) tris[0] = uint3(0, 1, 2);", "}"),
}


@pytest.mark.parametrize(("node_kind", "other"), [("compute", "compute"), ("compute", "pixel"), ("compute", "mesh"),
                                                  ("mesh", "mesh"), ("mesh", "compute"), ("mesh", "pixel")])
def test_a_node_keeps_its_name_beside_another_stage_of_that_name(tmp_path, node_kind, other) -> None:
    """SPIR-V 2.16.1 (Universal Validation Rules): "... no two OpEntryPoint instructions with the same
    Execution Model and the same Name string" - entry points of different execution models may share a
    name. A node named 'Target' (NodeID) keeps that name, which its producer's PayloadNodeNameAMDX
    targets; only a shader of the node's own execution model gives way, renamed with warning WG0646."""
    source = lines(
        "RWStructuredBuffer<uint> Counts : register(u0);",
        "struct Rec { uint material; };",
        "struct V { float4 pos : SV_Position; float3 color : COLOR0; };",
        '[Shader("node")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]',
        "void Produce([MaxRecords(1)] NodeOutput<Rec> Target)",
        "{",
        "    ThreadNodeOutputRecords<Rec> r = Target.GetThreadNodeOutputRecords(1);",
        "    r.Get().material = 1;",
        "    r.OutputComplete();",
        "}") + NODE_NAMED_TARGET[node_kind] + NAMED_LIKE_A_NODE[other]
    path = tmp_path / "lib.hlsl"
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), emit="asm"))
    assert result.ok, [d.message for d in result.diagnostics]
    asm = result.outputs["asm"].decode()
    found = [(m[2], m[1]) for m in re.finditer(r'OpEntryPoint (\w+) %\S+ "([^"]*)"', asm)]
    node_model = "MeshEXT" if node_kind == "mesh" else "GLCompute"
    other_model = {"compute": "GLCompute", "pixel": "Fragment", "mesh": "MeshEXT"}[other]
    assert ("Target", node_model) in found                       # the node keeps its NodeID name
    assert re.search(r'OpConstantStringAMDX "Target"', asm)      # which the producer targets
    renamed = [d for d in result.diagnostics if d.code == "WG0646"]
    if node_model == other_model:
        assert (f"Target.{other}", other_model) in found
        assert len(renamed) == 1 and f"'Target.{other}'" in renamed[0].message
    else:
        assert ("Target", other_model) in found and not renamed
    assert not any(name == "TargetNode" for name, _ in found)


MESH_TO_PIXEL = lines(
    "struct V { float4 pos : SV_Position; float2 uv : TEXCOORD; nointerpolation float3 n : NORMAL;",
    "           noperspective float fog : FOG; centroid float3 c : COLOR1; sample float s : SAMPLEV;",
    "           uint tag : TAG; bool lit : LIT; bool2 mask : MASK; };",
    "struct P { uint material : Material; bool edge : EDGE; float4 tint : TINT; bool culled : SV_CullPrimitive; };",
    '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
    "void Draw(uint i : SV_GroupIndex, out vertices V verts[3], out primitives P prims[1], out indices uint3 tris[1])",
    "{",
    "    SetMeshOutputCounts(3, 1);",
    "    verts[i].pos = float4(i, 0, 0, 1); verts[i].uv = float2(i, 1); verts[i].n = 1; verts[i].fog = 2;",
    "    verts[i].c = 3; verts[i].s = 4; verts[i].tag = i; verts[i].lit = i == 1;",
    "    verts[i].mask = bool2(i == 0, i != 2);",
    "    if (i == 0) {",
    "        tris[0] = uint3(0, 1, 2);",
    "        prims[0].material = 7; prims[0].edge = true; prims[0].tint = 1; prims[0].culled = false;",
    "    }",
    "}",
    "struct PSIn { float4 pos : SV_Position; float2 uv : TEXCOORD0; nointerpolation float3 n : NORMAL;",
    "              noperspective float fog : FOG; centroid float3 c : COLOR1; sample float s : SAMPLEV;",
    "              uint tag : TAG; bool lit : LIT; bool2 mask : MASK;",
    "              uint material : MATERIAL; bool edge : EDGE; float4 tint : TINT; };",
    '[Shader("pixel")]',
    "float4 Shade(PSIn input, bool front : SV_IsFrontFace) : SV_Target0",
    "{",
    "    if (input.mask.y) input.lit = !input.lit;",
    "    return float4(input.uv + input.n.xy * input.fog, input.lit ? input.s : input.c.x,",
    "                  (input.edge && front ? 1 : 0) + input.tag + input.material + input.tint.x);",
    "}",
    '[Shader("pixel")]',
    "bool Flag(PSIn input) : SV_Target0 { return input.lit && input.mask.x && input.edge; }",
)


def _decorations(asm: str) -> dict[str, set[str]]:
    """Variable name -> its decorations (without Location/BuiltIn operands)."""
    found: dict[str, set[str]] = {}
    for m in re.finditer(r"^\s*OpDecorate %(\S+) (\w+)", asm, re.M):
        found.setdefault(m[1], set()).add(m[2])
    return found


def _variable_types(asm: str) -> dict[str, str]:
    return {m[1]: m[2] for m in re.finditer(r"^\s*%(\S+) = OpVariable %(\S+) (?:Input|Output)$", asm, re.M)}


def test_bool_stage_values_are_uint_variables_converted_at_the_boundary(tmp_path) -> None:
    """Vulkan, VUID-StandaloneSpirv-Input-07290: "If OpTypeBool is stored in conjunction with
    OpVariable using Input or Output Storage Classes it requires a BuiltIn decoration" - so `bool` stage values that are no built-in (pixel inputs and
    outputs, mesh vertex and primitive values, vectors too) are uint variables, as DXC stores them
    (DeclResultIdMapper::isBooleanStageIOVar: "Boolean stage I/O variables must be represented as
    unsigned integers"), converted on load (!= 0) and store (select 1/0); the bool built-ins
    FrontFacing and CullPrimitiveEXT stay bool. Every module passes spirv-val (compile_hlsl)."""
    c = compile_hlsl(MESH_TO_PIXEL, tmp_path)
    types = _variable_types(c.asm)
    assert types["out_var_LIT"] == "_ptr_Output__arr_uint_uint_3"
    assert types["out_var_MASK"] == "_ptr_Output__arr_v2uint_uint_3"
    assert types["out_var_EDGE"] == "_ptr_Output__arr_uint_uint_1"
    assert types["in_var_LIT"] == "_ptr_Input_uint" and types["in_var_MASK"] == "_ptr_Input_v2uint"
    assert types["in_var_EDGE"] == "_ptr_Input_uint"
    assert types["gl_FrontFacing"] == "_ptr_Input_bool"
    assert types["gl_CullPrimitiveEXT"] == "_ptr_Output__arr_bool_uint_1"
    assert any(v.startswith("_ptr_Output_uint") for k, v in types.items() if k.startswith("out_var_SV_Target0"))
    assert not any("bool" in v for k, v in types.items() if k.startswith(("in_var_", "out_var_")))
    assert c.count("OpINotEqual") >= 3 and c.count("OpSelect") >= 3
    alone = compile_hlsl(MESH_TO_PIXEL, tmp_path, entry="Flag")     # a bool SV_Target alone
    assert "_ptr_Output_uint" in alone.asm


def test_mesh_outputs_and_pixel_inputs_carry_equal_interpolation_and_per_primitive(tmp_path) -> None:
    """SPV_EXT_mesh_shader, PerPrimitiveEXT: a fragment input is per-primitive when the mesh output
    feeding it is (a pixel input of a semantic the file's mesh shaders output as `primitives`, matched
    as DXC matches semantics: case-insensitive, TEXCOORD = TEXCOORD0), else its value is undefined;
    and the interpolation decorations of an output and its input are equal, DXC's choice for both
    (DeclResultIdMapper::decorateInterpolationMode on PS inputs and MS outputs: an integer or bool
    user value is Flat, a float one carries its centroid / nointerpolation / noperspective / sample)."""
    c = compile_hlsl(MESH_TO_PIXEL, tmp_path)
    found = _decorations(c.asm)
    expected = {"UV": set(), "NORMAL": {"Flat"}, "FOG": {"NoPerspective"}, "COLOR1": {"Centroid"},
                "SAMPLEV": {"Sample"}, "TAG": {"Flat"}, "LIT": {"Flat"}, "MASK": {"Flat"},
                "MATERIAL": {"Flat", "PerPrimitiveEXT"}, "EDGE": {"Flat", "PerPrimitiveEXT"},
                "TINT": {"PerPrimitiveEXT"}}
    spelled = {"UV": ("TEXCOORD", "TEXCOORD0"), "MATERIAL": ("Material", "MATERIAL")}
    for semantic, decorations in expected.items():
        out_name, in_name = spelled.get(semantic, (semantic, semantic))
        outputs = found[f"out_var_{out_name}"] - {"Location"}
        inputs = found[f"in_var_{in_name}"] - {"Location"}
        assert outputs == decorations, (semantic, outputs)
        assert inputs == decorations, (semantic, inputs)
    # the pixel shader alone (-E): its inputs still follow the file's mesh shader
    alone = _decorations(compile_hlsl(MESH_TO_PIXEL, tmp_path, entry="Shade").asm)
    assert alone["in_var_EDGE"] - {"Location"} == {"Flat", "PerPrimitiveEXT"}
    assert alone["in_var_TINT"] - {"Location"} == {"PerPrimitiveEXT"}
    assert alone["in_var_LIT"] - {"Location"} == {"Flat"}


def test_a_node_array_member_gives_way_to_the_node_whose_name_it_has(tmp_path) -> None:
    """SPIR-V 2.16.1: entry points may not share "the same Execution Model and the same Name" -
    node-array members named by their function names (WG0604) may take another node's NodeID name:
    that node keeps it (its producers target it), the member becomes '<key>.node' (WG0646)."""
    source = lines(
        "struct R { uint v; };",
        "RWStructuredBuffer<uint> B : register(u0);",
        '[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]',
        "void Start(ThreadNodeInputRecord<R> r, [MaxRecords(1)] NodeOutput<R> X0)",
        "{ ThreadNodeOutputRecords<R> o = X0.GetThreadNodeOutputRecords(1); o.Get() = r.Get(); o.OutputComplete(); }",
        '[Shader("node")] [NodeLaunch("thread")] [NodeID("X", 0)] void X0(ThreadNodeInputRecord<R> r) { B[0] = 1; }',
        '[Shader("node")] [NodeLaunch("thread")] [NodeID("X", 1)] void X1(ThreadNodeInputRecord<R> r) { B[1] = 1; }',
        '[Shader("node")] [NodeLaunch("thread")] [NodeID("X0")] void Other(ThreadNodeInputRecord<R> r) { B[2] = 1; }')
    path = tmp_path / "lib.hlsl"
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), emit="asm"))
    assert result.ok, [d.message for d in result.diagnostics]
    found = {m[2]: m[1] for m in re.finditer(r'OpEntryPoint GLCompute %(\S+) "([^"]*)"', result.outputs["asm"].decode())}
    assert found == {"Start": "Start", "X0.node": "X0", "X1": "X1", "X0": "Other"}
    assert [d.code for d in result.diagnostics if d.code == "WG0646"] == ["WG0646"]
