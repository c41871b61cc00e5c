"""Mesh nodes ([NodeLaunch("mesh")], Work Graphs tier 1.1 / SM 6.9, hlsl-specs proposal 0019): what
sema records (the inspect model, text, DOT and DXIL views), the graph (mesh nodes are leaves), and the
SPIR-V (a MeshEXT entry point with SPV_EXT_mesh_shader outputs and the AMDX payload input).

The negative rules (WG0490-WG0494) are cases in test_workgraph_rules.py; the target limits
(WG0640) in test_stage_policy.py; drawing with them (`wgc run`) in test_runtime_mesh.py. Expected values come from the source text of each test
(array sizes, topology, semantics in declaration order) and from the specs: SPV_EXT_mesh_shader
(execution modes, built-ins, PerPrimitiveEXT), SPV_AMDX_shader_enqueue (modes on MeshEXT), DXIL's
NodeLaunchType (mesh = 4) and the mesh-nodes preview's tags 65536-65538.
"""

from __future__ import annotations

import json
import re

from spirv_util import compile_errors, compile_hlsl

from wgc import driver


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


CLASSIFY_AND_DRAW = lines(
    "struct DrawRecord { uint3 grid : SV_DispatchGrid; float scale; };",
    "struct Vertex { float4 position : SV_Position; float3 color : COLOR0; float2 uv : TEXCOORD0; };",
    "struct Primitive { uint id : SV_PrimitiveID; bool culled : SV_CullPrimitive; float4 tint : COLOR1; };",
    '[Shader("node")]',
    "[NodeIsProgramEntry]",
    "[NodeDispatchGrid(1, 1, 1)]",
    "[NumThreads(1, 1, 1)]",
    "void Classify([MaxRecords(1)] NodeOutput<DrawRecord> Draw)",
    "{",
    "    ThreadNodeOutputRecords<DrawRecord> r = Draw.GetThreadNodeOutputRecords(1);",
    "    r.Get().grid = uint3(2, 1, 1);",
    "    r.Get().scale = 0.5;",
    "    r.OutputComplete();",
    "}",
    '[Shader("node")]',
    '[NodeLaunch("mesh")]',
    "[NodeMaxDispatchGrid(8, 1, 1)]",
    "[NumThreads(4, 1, 1)]",
    '[OutputTopology("triangle")]',
    "void Draw(DispatchNodeInputRecord<DrawRecord> input, uint tid : SV_GroupThreadID,",
    "          out vertices Vertex verts[4], out indices uint3 tris[2], out primitives Primitive prims[2])",
    "{",
    "    SetMeshOutputCounts(4, 2);",
    "    Vertex v;",
    "    v.position = float4(tid & 1, tid >> 1, 0, 1) * input.Get().scale;",
    "    v.color = float3(1, 0, 0);",
    "    v.uv = float2(tid & 1, tid >> 1);",
    "    verts[tid] = v;",
    "    if (tid < 2) {",
    "        tris[tid] = tid == 0 ? uint3(0, 1, 2) : uint3(2, 1, 3);",
    "        prims[tid].id = tid;",
    "        prims[tid].culled = false;",
    "        prims[tid].tint = float4(0, tid, 0, 1);",
    "    }",
    "}",
)


def model(source: str) -> dict:
    result = driver.compile(driver.Options(input="-", emit="json"), stdin=source.encode())
    assert result.ok, result.diagnostics
    return json.loads(result.outputs["json"])


def view(source: str, emit: str) -> str:
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=source.encode())
    assert result.ok, result.diagnostics
    return result.outputs[emit].decode()


def test_the_model_records_the_mesh_node() -> None:
    nodes = {n["function"]: n for n in model(CLASSIFY_AND_DRAW)["nodes"]}
    draw = nodes["Draw"]
    assert draw["launch"] == "mesh"
    assert draw["num_threads"] == [4, 1, 1]
    assert draw["max_dispatch_grid"] == [8, 1, 1]
    assert draw["mesh"] == {"output_topology": "triangle", "max_vertices": 4, "max_primitives": 2,
                            "max_input_records_per_graph_entry_record": None}
    assert draw["outputs"] == []
    assert nodes["Classify"]["mesh"] is None


def test_the_mesh_node_is_a_leaf_fed_by_the_classifier() -> None:
    graph = model(CLASSIFY_AND_DRAW)["graph"]
    assert graph["entry_nodes"] == ["Classify"]          # Draw is targeted: not an entry
    assert graph["longest_chain"] == ["Classify", "Draw"]
    assert [(e["from"], e["to"]) for e in graph["edges"]] == [("Classify", "Draw")]


def test_max_input_records_per_graph_entry_record_is_kept() -> None:
    source = CLASSIFY_AND_DRAW.replace('[NodeLaunch("mesh")]',
                                       '[NodeLaunch("mesh")] [NodeMaxInputRecordsPerGraphEntryRecord(16, true)]')
    draw = next(n for n in model(source)["nodes"] if n["function"] == "Draw")
    assert draw["mesh"]["max_input_records_per_graph_entry_record"] == {"count": 16, "shared_across_node_array": True}
    text = view(source, "text")
    assert ("mesh: triangle topology, max 4 vertices, max 2 primitives, max 16 input records per graph entry "
            "record, shared across the node array") in text


def test_text_and_dot_views_show_the_mesh_node() -> None:
    text = view(CLASSIFY_AND_DRAW, "text")
    assert "Draw  [mesh]  NodeID Draw[0]" in text
    assert "  mesh: triangle topology, max 4 vertices, max 2 primitives\n" in text
    dot = view(CLASSIFY_AND_DRAW, "dot")
    assert '"Draw" [label="Draw\\nmesh (triangle), max grid 8x1x1\\nthreads 4x1x1\\nDrawRecord"];' in dot


def test_dxil_metadata_uses_the_mesh_launch_type_and_the_preview_tags() -> None:
    dxil = view(CLASSIFY_AND_DRAW, "dxil")
    props = [line for line in dxil.splitlines() if "i32 8, i32 15, i32 13, i32 4," in line]
    assert len(props) == 1                              # NodeLaunchType 13 = 4 (mesh), for Draw only
    # MeshOutputTopology 65536 = 2 (triangle), MeshMaxVertexCount 65537 = 4, MeshMaxPrimitiveCount 65538 = 2
    # then AutoBindingSpace 5 = {0}, as on every library entry
    assert re.search(r"i32 65536, i32 2, i32 65537, i32 4, i32 65538, i32 2, i32 5, !\d+\}$", props[0])


def test_mesh_qualifiers_are_keywords_only_after_in_and_out() -> None:
    source = lines("static uint vertices = 3;", "uint indices(uint primitives) { return primitives + vertices; }",
                   '[Shader("node")] [NodeLaunch("thread")] void Work() { uint payload = indices(2); }')
    assert model(source)["nodes"][0]["function"] == "Work"   # parsed and checked without a diagnostic


def test_the_mesh_node_is_a_mesh_ext_entry_point_with_amdx_modes(tmp_path) -> None:
    c = compile_hlsl(CLASSIFY_AND_DRAW, tmp_path, entry="Draw")
    assert "OpCapability MeshShadingEXT" in c.asm and 'OpExtension "SPV_EXT_mesh_shader"' in c.asm
    entry = c.lines("OpEntryPoint")
    assert len(entry) == 1 and entry[0].startswith('OpEntryPoint MeshEXT %Draw "Draw" ')
    modes = {line.split(None, 2)[2] for line in c.lines("OpExecutionMode") + c.lines("OpExecutionModeId")}
    assert {"LocalSize 4 1 1", "OutputVertices 4", "OutputPrimitivesEXT 2", "OutputTrianglesEXT",
            "IsApiEntryAMDX %false", "ShaderIndexAMDX %uint_0",
            "MaxNumWorkgroupsAMDX %uint_8 %uint_1 %uint_1"} == modes
    # the input is the AMDX payload, its SV_DispatchGrid member decorated
    assert "OpVariable %_ptr_NodePayloadAMDX__payloadarr_DrawRecord NodePayloadAMDX" in c.asm
    assert "OpMemberDecorate %DrawRecord 0 PayloadDispatchIndirectAMDX" in c.asm
    assert c.lines("OpSetMeshOutputsEXT") == ["OpSetMeshOutputsEXT %uint_4 %uint_2"]


def test_mesh_outputs_are_split_into_built_ins_and_locations_in_declaration_order(tmp_path) -> None:
    c = compile_hlsl(CLASSIFY_AND_DRAW, tmp_path, entry="Draw")
    decorations = set(c.lines("OpDecorate"))
    # vertices: SV_Position a built-in; COLOR0, TEXCOORD0 Locations 0, 1; primitives: SV_PrimitiveID and
    # SV_CullPrimitive built-ins, COLOR1 the next Location (2); every primitive value PerPrimitiveEXT
    assert {"OpDecorate %gl_Position BuiltIn Position", "OpDecorate %out_var_COLOR0 Location 0",
            "OpDecorate %out_var_TEXCOORD0 Location 1", "OpDecorate %gl_PrimitiveId BuiltIn PrimitiveId",
            "OpDecorate %gl_PrimitiveId PerPrimitiveEXT", "OpDecorate %gl_CullPrimitiveEXT BuiltIn CullPrimitiveEXT",
            "OpDecorate %gl_CullPrimitiveEXT PerPrimitiveEXT", "OpDecorate %out_var_COLOR1 Location 2",
            "OpDecorate %out_var_COLOR1 PerPrimitiveEXT",
            "OpDecorate %gl_PrimitiveTriangleIndicesEXT BuiltIn PrimitiveTriangleIndicesEXT"} <= decorations
    assert not any("PerPrimitiveEXT" in d and ("Position" in d or "COLOR0" in d or "TEXCOORD0" in d)
                   for d in decorations)
    # one Output array per value, as long as the parameter's array
    for name, type_ in (("gl_Position", "_arr_v4float_uint_4"), ("out_var_TEXCOORD0", "_arr_v2float_uint_4"),
                        ("gl_CullPrimitiveEXT", "_arr_bool_uint_2"),
                        ("gl_PrimitiveTriangleIndicesEXT", "_arr_v3uint_uint_2")):
        assert f"%{name} = OpVariable %_ptr_Output_{type_} Output" in c.asm, name
    # every output is in the interface
    interface = c.lines("OpEntryPoint")[0].split()[4:]
    for name in ("%gl_Position", "%out_var_COLOR0", "%out_var_TEXCOORD0", "%gl_PrimitiveId", "%gl_CullPrimitiveEXT",
                 "%out_var_COLOR1", "%gl_PrimitiveTriangleIndicesEXT", "%input"):
        assert name in interface, name


def test_a_whole_vertex_store_writes_each_field_of_that_vertex(tmp_path) -> None:
    c = compile_hlsl(CLASSIFY_AND_DRAW, tmp_path, entry="Draw")
    # `verts[tid] = v`: three access chains into the three vertex arrays, indexed by tid
    chains = [line for line in c.lines("OpAccessChain")
              if re.search(r"OpAccessChain %_ptr_Output_\w+ %(gl_Position|out_var_COLOR0|out_var_TEXCOORD0) ", line)]
    assert len(chains) == 3


def test_line_topology_uses_line_indices(tmp_path) -> None:
    source = lines("struct V { float4 pos : SV_Position; };",
                   '[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(2, 1, 1)]',
                   '[NumThreads(2, 1, 1)] [OutputTopology("line")]',
                   "void Lines(uint i : SV_GroupIndex, out vertices V verts[2], out indices uint2 segs[1])",
                   "{",
                   "    SetMeshOutputCounts(2, 1);",
                   "    verts[i].pos = float4(i, 0, 0, 1);",
                   "    if (i == 0) segs[0] = uint2(0, 1);",
                   "}")
    c = compile_hlsl(source, tmp_path)
    assert "OpDecorate %gl_PrimitiveLineIndicesEXT BuiltIn PrimitiveLineIndicesEXT" in c.asm
    modes = " ".join(c.lines("OpExecutionMode"))
    assert "OutputLinesEXT" in modes and "OutputVertices 2" in modes and "OutputPrimitivesEXT 1" in modes
    assert "StaticNumWorkgroupsAMDX" in " ".join(c.lines("OpExecutionModeId"))


def test_a_mesh_node_without_input_and_array_fields_take_a_location_per_element(tmp_path) -> None:
    source = lines("struct V { float4 pos : SV_Position; float weights[3] : WEIGHTS; float4x4 m : MATRIX; "
                   "uint tag : TAG; };",
                   "groupshared uint counter;",
                   '[Shader("node")] [NodeLaunch("mesh")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(3, 1, 1)]',
                   '[OutputTopology("triangle")]',
                   "void Tri(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1])",
                   "{",
                   "    SetMeshOutputCounts(3, 1);",
                   "    InterlockedAdd(counter, 1);",
                   "    verts[i].pos = float4(i, 0, 0, 1);",
                   "    verts[i].weights[2] = 1;",
                   "    verts[i].m = (float4x4)0;",
                   "    verts[i].tag = counter;",
                   "    if (i == 0) tris[0] = uint3(0, 1, 2);",
                   "}")
    c = compile_hlsl(source, tmp_path)
    # WEIGHTS: 3 Locations (0-2), MATRIX: 4 rows (3-6), TAG: 7
    assert {"OpDecorate %out_var_WEIGHTS Location 0", "OpDecorate %out_var_MATRIX Location 3",
            "OpDecorate %out_var_TAG Location 7"} <= set(c.lines("OpDecorate"))
    assert "NodePayloadAMDX" not in c.asm


TWO_SIZES = lines(
    "struct V { float4 pos : SV_Position; };",
    "struct P { float4 color : COLOR0; };",
    '[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(6, 1, 1)]',
    '[OutputTopology("triangle")]',
    "void Line(uint i : SV_GroupIndex, out indices uint3 tris[4], out primitives P prims[4], out vertices V verts[6])",
    "{",
    "    SetMeshOutputCounts(6, 4);",
    "    if (i < 4) { tris[i] = uint3(0, i + 1, i + 2); prims[i].color = 1; }",
    "    verts[i].pos = float4(i, 0, 0, 1);",
    "}",
    '[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)] [NumThreads(3, 1, 1)]',
    '[OutputTopology("triangle")]',
    "void Tri(uint i : SV_GroupIndex, out indices uint3 tris[1], out primitives P prims[1], out vertices V verts[3])",
    "{",
    "    SetMeshOutputCounts(3, 1);",
    "    if (i == 0) { tris[0] = uint3(0, 1, 2); prims[0].color = 0.5; }",
    "    verts[i].pos = float4(i, 1, 0, 1);",
    "}",
)


def test_mesh_entry_points_of_one_module_declare_its_largest_counts(tmp_path) -> None:
    # spirv-val compares every mesh built-in array with every MeshEXT entry point's counts: in one module
    # both declare the largest (6 vertices, 4 primitives), each SetMeshOutputCounts saying what it uses
    c = compile_hlsl(TWO_SIZES, tmp_path)
    modes = set(c.lines("OpExecutionMode"))
    for entry in ("Line", "Tri"):
        assert {f"OpExecutionMode %{entry} OutputVertices 6", f"OpExecutionMode %{entry} OutputPrimitivesEXT 4"} <= modes
    assert sorted(c.lines("OpSetMeshOutputsEXT")) == ["OpSetMeshOutputsEXT %uint_3 %uint_1",
                                                      "OpSetMeshOutputsEXT %uint_6 %uint_4"]
    # the metadata keeps each node's own counts
    nodes = {n["function"]: n["mesh"] for n in model(TWO_SIZES)["nodes"]}
    assert (nodes["Tri"]["max_vertices"], nodes["Tri"]["max_primitives"]) == (3, 1)


def test_split_mesh_entry_points_keep_their_own_counts(tmp_path) -> None:
    c = compile_hlsl(TWO_SIZES, tmp_path, entry="Tri")
    assert {"OpExecutionMode %Tri OutputVertices 3", "OpExecutionMode %Tri OutputPrimitivesEXT 1"} <= \
        set(c.lines("OpExecutionMode"))
    assert "%gl_PrimitiveTriangleIndicesEXT = OpVariable %_ptr_Output__arr_v3uint_uint_1 Output" in c.asm


HELPERS_WRITE_MESH_OUTPUTS = lines(
    "struct V { float4 pos : SV_Position; float2 uv : TEXCOORD0; };",
    "struct P { uint id : SV_PrimitiveID; };",
    "void WriteVertex(uint i, out vertices V v[4]) { v[i].pos = float4(i, 0, 0, 1); v[i].uv = float2(0, 1); }",
    "void WriteTriangle(out indices uint3 t[2], uint i) { t[i] = uint3(0, 1, 2); }",
    "void WriteUv(out V one) { one.uv = float2(1, 1); }",
    "void WriteElement(out V one, uint i) { one.pos = float4(i, 0, 0, 1); WriteUv(one); }",
    "void WritePrimitive(out primitives P p[2], uint i) { p[i].id = i; }",
    '[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(1, 1, 1)]',
    '[NumThreads(4, 1, 1)] [OutputTopology("triangle")]',
    "void Draw(uint tid : SV_GroupThreadID, out vertices V verts[4], out indices uint3 tris[2],",
    "          out primitives P prims[2])",
    "{",
    "    SetMeshOutputCounts(4, 2);",
    "    WriteVertex(tid, verts);",
    "    WriteElement(verts[tid], tid);",
    "    if (tid < 2) { WriteTriangle(tris, tid); WritePrimitive(prims, tid); }",
    "}",
)


def test_helpers_write_the_mesh_outputs_in_place_not_through_a_copy(tmp_path) -> None:
    # Copying an `out vertices` array back after a call would store every thread's (unwritten)
    # copy over the whole group's vertices; DXC's SPIR-V back end writes the stage variables
    # themselves. So no Function array or struct stands for an output, nothing is called, and every
    # store goes through an access chain into an Output variable indexed by the thread's own index.
    c = compile_hlsl(HELPERS_WRITE_MESH_OUTPUTS, tmp_path)
    assert not c.lines("OpFunctionCall")
    assert not [line for line in c.lines("OpVariable") if "_ptr_Function__arr_" in line or "_ptr_Function_V " in line]
    assert not [line for line in c.lines("OpLoad") if "_arr_" in line]
    stores = c.lines("OpStore")
    chains = {line.split()[0]: line.split()[4:] for line in c.lines("OpAccessChain")}
    written = sorted(chains[s.split()[1]][0] for s in stores if s.split()[1] in chains)
    # WriteVertex: pos, uv; WriteElement: pos, (WriteUv) uv; WriteTriangle; WritePrimitive
    assert written == ["%gl_Position", "%gl_Position", "%gl_PrimitiveId", "%gl_PrimitiveTriangleIndicesEXT",
                       "%out_var_TEXCOORD0", "%out_var_TEXCOORD0"]
    assert all(len(chains[s.split()[1]]) == 2 for s in stores if s.split()[1] in chains)   # one element each
    # no whole-array store into an output
    assert not [s for s in stores if s.split()[1] in ("%gl_Position", "%out_var_TEXCOORD0", "%gl_PrimitiveId",
                                                       "%gl_PrimitiveTriangleIndicesEXT")]


def test_a_helper_writing_one_vertex_per_thread_stores_at_the_thread_index(tmp_path) -> None:
    source = lines(
        "struct V { float4 pos : SV_Position; };",
        "void Corner(out V v, uint i) { v.pos = float4(i, 0, 0, 1); }",
        '[Shader("mesh")] [NumThreads(4, 1, 1)] [OutputTopology("triangle")]',
        "void main(uint tid : SV_GroupThreadID, out vertices V verts[4], out indices uint3 tris[2])",
        "{",
        "    SetMeshOutputCounts(4, 2);",
        "    Corner(verts[tid], tid);",
        "    if (tid < 2) tris[tid] = uint3(tid, tid + 1, tid + 2);",
        "}")
    c = compile_hlsl(source, tmp_path)
    body = c.asm[c.asm.index("OpSetMeshOutputsEXT"):]
    body = body[:body.rindex("\n", 0, body.index("OpULessThan"))]
    # verts[tid] is taken once, before the other argument; the helper's store goes straight to that
    # vertex's Position (result ids renumbered %1, %2, ... in order of appearance)
    assert _renumbered(body) == lines(
        "OpSetMeshOutputsEXT %uint_4 %uint_2",
        "%1 = OpLoad %uint %tid",              # the vertex: verts[tid]
        "%2 = OpLoad %uint %tid",              # the argument i
        "OpStore %i %2",
        "%3 = OpLoad %uint %i",
        "%4 = OpConvertUToF %float %3",
        "%5 = OpCompositeConstruct %v4float %4 %float_0 %float_0 %float_1",
        "%6 = OpAccessChain %_ptr_Output_v4float %gl_Position %1",
        "OpStore %6 %5",
        "%7 = OpLoad %uint %tid")


def _renumbered(asm: str) -> str:
    """Disassembly lines, stripped, with numeric result ids renamed %1, %2, ... in order of appearance."""
    names: dict[str, str] = {}
    out = []
    for line in asm.splitlines():
        if line.strip():
            out.append(re.sub(r"%[0-9]+\b", lambda m: names.setdefault(m.group(), f"%{len(names) + 1}"), line.strip()))
    return "\n".join(out) + "\n"


def test_set_mesh_output_counts_on_every_path_before_the_writes_is_accepted(tmp_path) -> None:
    # dominating calls reached through an early return, both arms of an if, a do-while body, a helper
    # and every case of a switch with a default (proposal 0019 rule 5 asks only for dominance; the one
    # call site is in the helper, as the rule of one call site asks)
    source = lines(
        "struct V { float4 pos : SV_Position; };",
        "void Counts(uint n) { SetMeshOutputCounts(n, 1); }",
        '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
        "void main(uint i : SV_GroupIndex, uint3 g : SV_GroupID, out vertices V verts[3], out indices uint3 tris[1])",
        "{",
        "    if (g.x > 7) return;",
        "    switch (g.y) {",
        "    case 0: Counts(3); break;",
        "    default:",
        "        if (g.z == 0) { do { Counts(3); } while (false); } else { Counts(0); }",
        "        break;",
        "    }",
        "    verts[i].pos = float4(i, 0, 0, 1);",
        "    if (i == 0) tris[0] = uint3(0, 1, 2);",
        "}")
    compile_hlsl(source, tmp_path)


def test_counts_in_a_loop_body_or_before_a_break_do_not_dominate(tmp_path) -> None:
    source = lines(
        "struct V { float4 pos : SV_Position; };",
        '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
        "void main(uint i : SV_GroupIndex, uint3 g : SV_GroupID, out vertices V verts[3], out indices uint3 tris[1])",
        "{",
        "    for (uint k = 0; k < g.x; ++k) { SetMeshOutputCounts(3, 1); }",   # the body may not run
        "    verts[i].pos = float4(i, 0, 0, 1);",
        "}",
        '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
        "void second(uint i : SV_GroupIndex, uint3 g : SV_GroupID, out vertices V verts[3], out indices uint3 tris[1])",
        "{",
        "    do { if (g.x == 0) break; SetMeshOutputCounts(3, 1); } while (false);",
        "    tris[0] = uint3(0, 1, 2);",
        "}")
    assert compile_errors(source, tmp_path) == [
        "WG0495: mesh output 'verts' may be written before SetMeshOutputCounts is called: it must be called on every "
        "path before a write to the mesh outputs",
        "WG0495: mesh output 'tris' may be written before SetMeshOutputCounts is called: it must be called on every "
        "path before a write to the mesh outputs"]


def test_a_mesh_shader_sets_its_counts_in_uniform_control_flow() -> None:
    # OpSetMeshOutputsEXT in control flow that varies within the group is undefined in SPIR-V:
    # warning WG0417 [-Wgroup-uniformity], in a mesh shader as in a mesh node, also through a helper
    source = lines(
        "struct V { float4 pos : SV_Position; };",
        "void Counts(uint n) { SetMeshOutputCounts(n, 1); }",
        '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
        "void main(uint i : SV_GroupIndex, uint3 g : SV_GroupID, out vertices V verts[3], out indices uint3 tris[1])",
        "{",
        "    if (g.x == 0) return;",          # the group's own id: uniform
        "    if (i < 3) Counts(3);",
        "}")
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=source.encode())
    assert result.ok
    assert [(d.code, d.message, d.span.line_col) for d in result.diagnostics] == [
        ("WG0417", "'Counts' must be called in thread-group-uniform control flow", (7, 16))]
