"""`[[vk::constant_id(N)]]` globals: Vulkan specialization constants, as dxc's SPIR-V path makes them.

Each becomes one OpSpecConstant / OpSpecConstantTrue / OpSpecConstantFalse decorated SpecId N whose
literal is the default value (converted to the declared type), and every use reads that id; they are
never cbuffer members. Plain globals with initialisers stay `$Globals` members (the initialiser is
ignored with WG0365). Expected words come from IEEE-754 / two's complement, not from wgc.
"""

from __future__ import annotations

import json
import struct

from spirv_util import compile_hlsl
from wgc import driver

NODE = ('[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]\n'
        "void main(uint i : SV_DispatchThreadID) {\n")

SOURCE = (
    "RWStructuredBuffer<uint> o : register(u0);\n"
    "[[vk::constant_id(3)]] const uint Count = 4;\n"
    "[[vk::constant_id(4)]] const bool On = true;\n"
    "[[vk::constant_id(5)]] bool Off = 0;\n"
    "[[vk::constant_id(6)]] const float Scale = -2.5;\n"
    "[[vk::constant_id(7)]] int Bias = -7;\n"
    "[[vk::constant_id(8)]] int Truncated = 2.5;\n"
    "static const uint Base = 0xC0FFEE;\n"
    "[[vk::constant_id(9)]] const uint FromStatic = Base;\n"
    "static const uint Twice = Count * 2;\n"
    + NODE +
    "    o[0] = Count + Twice + FromStatic;\n"
    "    o[1] = On && !Off ? asuint(Scale) : (uint)(Bias + Truncated);\n"
    "    for (uint j = 0; j < Count; j++) o[2 + j] = j;\n"
    "}\n")


def _spec_instructions(words: list[int]) -> dict[int, tuple[int, list[int]]]:
    """result id -> (opcode, literal words) of every OpSpecConstant* in the module (read from the words)."""
    found = {}
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if opcode in (48, 49, 50):          # OpSpecConstantTrue, OpSpecConstantFalse, OpSpecConstant
            found[words[i + 2]] = (opcode, words[i + 3:i + count])
        i += count
    return found


def _spec_ids(words: list[int]) -> dict[int, int]:
    """target id -> SpecId (OpDecorate 71 with Decoration SpecId 1)."""
    found = {}
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if opcode == 71 and words[i + 2] == 1:
            found[words[i + 1]] = words[i + 3]
        i += count
    return found


def test_spec_constants_are_decorated_spec_constants_with_their_defaults(tmp_path) -> None:
    module = compile_hlsl(SOURCE, tmp_path)
    constants = _spec_instructions(module.words)
    by_spec_id = {spec_id: constants[target] for target, spec_id in _spec_ids(module.words).items()}
    assert by_spec_id == {
        3: (50, [4]),
        4: (48, []),
        5: (49, []),
        6: (50, [struct.unpack("<I", struct.pack("<f", -2.5))[0]]),
        7: (50, [(-7) & 0xFFFFFFFF]),
        8: (50, [2]),
        9: (50, [0xC0FFEE]),
    }
    assert sorted(module.lines("OpSpecConstant")) == sorted([
        "%Count = OpSpecConstant %uint 4", "%Scale = OpSpecConstant %float -2.5", "%Bias = OpSpecConstant %int -7",
        "%Truncated = OpSpecConstant %int 2", "%FromStatic = OpSpecConstant %uint 12648430"])


def test_uses_read_the_spec_constant_not_a_folded_value_nor_a_buffer(tmp_path) -> None:
    module = compile_hlsl(SOURCE, tmp_path)
    # the static initialised from a spec constant is computed from it (not folded to 8)
    assert "%uint_8 = OpConstant %uint 8" not in module.asm
    assert [line.split(" = ")[1] for line in module.lines("OpIMul")] == ["OpIMul %uint %Count %uint_2"]
    assert [line.split(" %bool ")[1].split()[1] for line in module.lines("OpULessThan")] == ["%Count"]
    assert [line.split(" = ")[1] for line in module.lines("OpLogicalNot")] == ["OpLogicalNot %bool %Off"]
    assert "OpBranchConditional %On " in module.asm      # `&&` short-circuits on the spec constant itself
    assert "OpIAdd %int %Bias %Truncated" in module.asm
    assert "Globals" not in module.asm and module.count("OpTypeStruct") == 1   # only the RWStructuredBuffer's


def test_spec_constants_are_listed_by_inspect() -> None:
    result = driver.compile(driver.Options(input="-", emit="json"), stdin=SOURCE.encode())
    assert result.ok
    model = json.loads(result.outputs["json"])
    assert model["specialization_constants"] == [
        {"name": "Count", "spec_id": 3, "type": "uint", "default": 4},
        {"name": "On", "spec_id": 4, "type": "bool", "default": True},
        {"name": "Off", "spec_id": 5, "type": "bool", "default": False},
        {"name": "Scale", "spec_id": 6, "type": "float", "default": -2.5},
        {"name": "Bias", "spec_id": 7, "type": "int", "default": -7},
        {"name": "Truncated", "spec_id": 8, "type": "int", "default": 2},
        {"name": "FromStatic", "spec_id": 9, "type": "uint", "default": 0xC0FFEE},
    ]
    text = driver.compile(driver.Options(input="-", emit="text"), stdin=SOURCE.encode()).outputs["text"].decode()
    assert text.endswith("\nspecialization constants:\n"
                         "  SpecId 3: uint Count = 4\n"
                         "  SpecId 4: bool On = true\n"
                         "  SpecId 5: bool Off = false\n"
                         "  SpecId 6: float Scale = -2.5\n"
                         "  SpecId 7: int Bias = -7\n"
                         "  SpecId 8: int Truncated = 2\n"
                         "  SpecId 9: uint FromStatic = 12648430\n")


def test_a_reused_spec_id_still_validates(tmp_path) -> None:
    module = compile_hlsl("RWStructuredBuffer<uint> o : register(u0);\n"
                          "[[vk::constant_id(1)]] const uint A = 1;\n"
                          "[[vk::constant_id(1)]] const uint B = 2;\n" + NODE + "    o[0] = A + B;\n}\n", tmp_path)
    assert sorted(_spec_ids(module.words).values()) == [1, 1]


def test_plain_global_with_initializer_stays_a_globals_member(tmp_path) -> None:
    """dxc ignores the initializer (WG0365): the value is loaded from $Globals, not the constant 3.0."""
    module = compile_hlsl("RWStructuredBuffer<float> o : register(u0);\n"
                          "float Gain = 3.0;\n" + NODE + "    o[i] = Gain;\n}\n", tmp_path)
    assert 'OpMemberName %type__Globals 0 "Gain"' in module.asm
    assert "OpConstant %float 3" not in module.asm
    assert any("%_Globals" in line for line in module.lines("OpAccessChain"))


# ---------------------------------------------------------------- in work-graph attributes

ATTRIBUTES = (
    "struct R { uint v; };\n"
    "struct G { uint3 grid : SV_DispatchGrid; };\n"
    "[[vk::constant_id(10)]] const uint Threads = 32;\n"
    "[[vk::constant_id(11)]] const uint GridX = 3;\n"
    "[[vk::constant_id(12)]] const uint Records = 5;\n"
    "[[vk::constant_id(13)]] const uint Index = 2;\n"
    "[[vk::constant_id(14)]] const uint Size = 2;\n"
    "[[vk::constant_id(15)]] const uint MaxGrid = 64;\n"
    "[[vk::constant_id(16)]] const uint Depth = 4;\n"
    "[[vk::constant_id(17)]] const uint Batch = 6;\n"
    "[[vk::constant_id(18)]] const int SignedGrid = 7;\n"
    '[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] [NodeDispatchGrid(GridX, SignedGrid, 1)]\n'
    "[NumThreads(Threads, 1, 1)]\n"
    'void Entry([MaxRecords(Records)] [NodeID("Leaf", Index)] [NodeArraySize(Size)] NodeOutputArray<R> Leaves,\n'
    '           [MaxRecords(1)] NodeOutput<G> Wide) {}\n'
    '[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(MaxGrid, 1, 1)] [NumThreads(Threads, 2, 1)]\n'
    "void Wide(DispatchNodeInputRecord<G> g) {}\n"
    '[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)] [NodeID("Leaf", Index)]\n'
    'void Leaf([MaxRecords(Batch)] GroupNodeInputRecords<R> r) {}\n'
    '[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)] [NodeID("Leaf", 3)] [NodeMaxRecursionDepth(Depth)]\n'
    'void Leaf3(GroupNodeInputRecords<R> r, [MaxRecords(1)] [NodeID("Leaf", 3)] NodeOutput<R> Next) {}\n'
    '[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)] [NodeID("Sharer")]\n'
    '[NodeShareInputOf("Leaf", Index)]\n'
    'void Leaf4(GroupNodeInputRecords<R> r) {}\n')


def _id_lines(asm: str) -> list[str]:
    return [line.strip() for line in asm.splitlines()
            if "OpExecutionModeId" in line or "OpDecorateId" in line or "OpSpecConstantOp" in line]


def test_every_id_operand_attribute_takes_the_spec_constant_id(tmp_path) -> None:
    """SPV_AMDX_shader_enqueue: StaticNumWorkgroupsAMDX, MaxNumWorkgroupsAMDX, ShaderIndexAMDX,
    MaxNodeRecursionAMDX, SharesInputWithAMDX, NodeMaxPayloadsAMDX, PayloadNodeBaseIndexAMDX and
    PayloadNodeArraySizeAMDX take <id>s, and LocalSizeId replaces LocalSize: a spec constant stands there."""
    module = compile_hlsl(ATTRIBUTES, tmp_path)
    ids = _id_lines(module.asm)
    signed = next(line.split(" = ")[0] for line in ids if "OpSpecConstantOp %uint IAdd %SignedGrid %uint_0" in line)
    for expected in (
            "OpExecutionModeId %Entry LocalSizeId %Threads %uint_1 %uint_1",
            f"OpExecutionModeId %Entry StaticNumWorkgroupsAMDX %GridX {signed} %uint_1",
            "OpExecutionModeId %Wide LocalSizeId %Threads %uint_2 %uint_1",
            "OpExecutionModeId %Wide MaxNumWorkgroupsAMDX %MaxGrid %uint_1 %uint_1",
            "OpExecutionModeId %Leaf ShaderIndexAMDX %Index",
            "OpExecutionModeId %Leaf3 MaxNodeRecursionAMDX %Depth",
            "OpExecutionModeId %Leaf4 SharesInputWithAMDX",
            "OpDecorateId %Entry_Leaves NodeMaxPayloadsAMDX %Records",
            "OpDecorateId %Entry_Leaves PayloadNodeBaseIndexAMDX %Index",
            "OpDecorateId %Entry_Leaves PayloadNodeArraySizeAMDX %Size"):
        assert any(line.startswith(expected) for line in ids), (expected, ids)
    assert any(line.startswith("OpExecutionModeId %Leaf4 SharesInputWithAMDX") and line.endswith(" %Index")
               for line in ids)
    assert any("NodeMaxPayloadsAMDX %Batch" in line for line in ids)       # the coalescing input's MaxRecords
    assert "LocalSize " not in module.asm.replace("LocalSizeId", "") or "%Leaf LocalSize 1 1 1" in module.asm
    by_spec_id = {spec_id: target for target, spec_id in _spec_ids(module.words).items()}
    assert set(by_spec_id) == set(range(10, 19))


def test_attributes_use_the_defaults_for_the_graph_and_the_views() -> None:
    result = driver.compile(driver.Options(input="-", emit="json"), stdin=ATTRIBUTES.encode())
    assert result.ok, result.diagnostics
    nodes = {n["key"]: n for n in json.loads(result.outputs["json"])["nodes"]}
    assert nodes["Entry"]["num_threads"] == [32, 1, 1] and nodes["Entry"]["dispatch_grid"] == [3, 7, 1]
    assert nodes["Entry"]["outputs"][0]["target"] == {"name": "Leaf", "index": 2}
    assert nodes["Entry"]["outputs"][0]["max_records"] == 5 and nodes["Entry"]["outputs"][0]["array_size"] == 2
    assert nodes["Leaf"]["id"] == {"name": "Leaf", "index": 2} and nodes["Leaf3"]["max_recursion_depth"] == 4
    assert nodes["Wide"]["max_dispatch_grid"] == [64, 1, 1]
    assert nodes["Entry"]["attribute_spec_constants"] == [
        {"attribute": "NodeDispatchGrid", "parameter": None, "argument": 0, "constant": "GridX", "spec_id": 11,
         "default": 3},
        {"attribute": "NodeDispatchGrid", "parameter": None, "argument": 1, "constant": "SignedGrid", "spec_id": 18,
         "default": 7},
        {"attribute": "NumThreads", "parameter": None, "argument": 0, "constant": "Threads", "spec_id": 10,
         "default": 32},
        {"attribute": "MaxRecords", "parameter": "Leaves", "argument": 0, "constant": "Records", "spec_id": 12,
         "default": 5},
        {"attribute": "NodeID", "parameter": "Leaves", "argument": 1, "constant": "Index", "spec_id": 13,
         "default": 2},
        {"attribute": "NodeArraySize", "parameter": "Leaves", "argument": 0, "constant": "Size", "spec_id": 14,
         "default": 2},
    ]
    text = driver.compile(driver.Options(input="-", emit="text"), stdin=ATTRIBUTES.encode()).outputs["text"].decode()
    assert "  specialised: MaxRecords(Leaves)[0] = Records (specialisation constant 12, default 5)\n" in text
    assert "  specialised: NodeMaxRecursionDepth[0] = Depth (specialisation constant 16, default 4)\n" in text
    reflection = json.loads(driver.compile(driver.Options(input="-", emit="reflection"),
                                           stdin=ATTRIBUTES.encode()).outputs["reflection"])
    leaf = next(n for n in reflection["nodes"] if n["function"] == "Leaf")
    assert leaf["attribute_spec_constants"] == [
        {"attribute": "NodeID", "parameter": None, "argument": 1, "constant": "Index", "spec_id": 13, "default": 2},
        {"attribute": "MaxRecords", "parameter": "r", "argument": 0, "constant": "Batch", "spec_id": 17,
         "default": 6},
    ]


def _rendered(source: str, emit: str = "spirv") -> str:
    from wgc.diagnostics import Renderer
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=source.encode())
    return Renderer().render(result.diagnostics)


def test_checks_use_the_default_a_default_over_a_limit_is_reported() -> None:
    source = ("[[vk::constant_id(0)]] const uint GroupSize = 2048;\n"
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(GroupSize, 1, 1)]\n'
              "void Big() {}\n")
    literal = source.replace("[NumThreads(GroupSize, 1, 1)]", "[NumThreads(2048, 1, 1)]").replace(
        "GroupSize, 1, 1", "2048, 1, 1")
    assert _rendered(source) == (
        "<stdin>:2:75: warning: [NumThreads(2048, 1, 1)] asks for 2048 threads, outside 1..1024: the attribute is "
        "ignored [WG0358] [-Wignored-attributes]\n"
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(GroupSize, 1, 1)]\n'
        "                                                                          ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "<stdin>:3:6: error: broadcasting node 'Big' needs [NumThreads(x, y, z)] [WG0403]\n"
        "void Big() {}\n"
        "     ^~~\n"
        "<stdin>:2:75: note: the [NumThreads] written here is ignored\n"
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(GroupSize, 1, 1)]\n'
        "                                                                          ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        "1 warning and 1 error generated.\n")
    # the same diagnostics as the default written as a literal (only the caret widths differ)
    assert [line for line in _rendered(literal).splitlines() if "[WG" in line] == \
        [line for line in _rendered(source).splitlines() if "[WG" in line]


def test_a_spec_constant_in_an_expression_is_its_default_with_a_warning(tmp_path) -> None:
    source = ("struct R { uint v; };\n"
              "[[vk::constant_id(0)]] const uint Count = 4;\n"
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]\n'
              "void Entry([MaxRecords(Count * 2)] NodeOutput<R> Out) {}\n"
              '[Shader("node")] [NodeLaunch("thread")] void Out(ThreadNodeInputRecord<R> r) {}\n')
    assert _rendered(source) == (
        "<stdin>:4:24: warning: attribute 'MaxRecords' takes specialization constant 'Count' (constant_id 0) at its "
        "default value 4 in an expression: specialising 'Count' does not change the attribute [WG0395] "
        "[-Wspec-constant-in-attribute]\n"
        "void Entry([MaxRecords(Count * 2)] NodeOutput<R> Out) {}\n"
        "                       ^~~~~~~~~\n"
        "1 warning generated.\n")
    module = compile_hlsl(source, tmp_path)
    assert "OpDecorateId %Entry_Out NodeMaxPayloadsAMDX %uint_8" in module.asm


def test_a_spec_constant_in_an_attribute_no_operand_carries_is_its_default_with_a_warning() -> None:
    source = ("[[vk::constant_id(2)]] const uint Table = 3;\n"
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]\n'
              "[NodeLocalRootArgumentsTableIndex(Table)]\n"
              "void Entry() {}\n")
    assert _rendered(source, emit="ir") == (      # (compiled to SPIR-V, WG0450 follows: no local root arguments)
        "<stdin>:3:35: warning: attribute 'NodeLocalRootArgumentsTableIndex' takes specialization constant 'Table' "
        "(constant_id 2) at its default value 3: specialising 'Table' does not change the attribute [WG0395] "
        "[-Wspec-constant-in-attribute]\n"
        "[NodeLocalRootArgumentsTableIndex(Table)]\n"
        "                                  ^~~~~\n"
        "1 warning generated.\n")


def test_a_spec_constant_outside_work_graph_attributes_is_still_not_a_constant() -> None:
    source = ("[[vk::constant_id(0)]] const uint B = 3;\n"
              "[[vk::binding(B)]] RWStructuredBuffer<uint> o;\n"
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]\n'
              "void Entry() { o[0] = 1; }\n")
    assert "[WG0311]" in _rendered(source)


def test_gpuopen_style_sample_compiles_with_its_constants_as_operands(tmp_path) -> None:
    from conftest import SAMPLES
    module = compile_hlsl((SAMPLES / "spec_constant_attributes.hlsl").read_text(), tmp_path)
    ids = _id_lines(module.asm)
    assert "OpExecutionModeId %Material ShaderIndexAMDX %FirstMaterial" in ids
    assert "OpDecorateId %Classify_Material PayloadNodeArraySizeAMDX %MaterialCount" in ids
    assert "OpExecutionModeId %Chunks MaxNumWorkgroupsAMDX %MaxDispatchX %uint_1 %uint_1" in ids


def test_a_loop_members_spec_index_is_scaled_to_its_stages(tmp_path) -> None:
    """Index space: a loop member's stages start at NodeID index x stride (4 iterations + the terminator
    stage = 5, `sema.stages`), so the operand is OpSpecConstantOp IMul of the constant and 5."""
    source = ("[[vk::constant_id(0)]] const uint BodyIndex = 1;\n"
              "struct R { uint v; };\n"
              '[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry] [NodeMaxLoopIterations(4)]\n'
              "[NodeMaxRecordsPerLoopIteration(1)]\n"
              'void Entry(ThreadNodeInputRecord<R> input, [MaxRecords(1)] [NodeID("Body", BodyIndex)] NodeOutput<R> body) {\n'
              "  ThreadNodeOutputRecords<R> n = body.GetThreadNodeOutputRecords(1); n.Get().v = input.Get().v;"
              " n.OutputComplete();\n}\n"
              '[Shader("node")] [NodeLaunch("thread")] [NodeID("Body", BodyIndex)]\n'
              'void Body(ThreadNodeInputRecord<R> input, [MaxRecords(1)] [NodeID("Entry")] NodeOutput<R> back) {\n'
              "  ThreadNodeOutputRecords<R> n = back.GetThreadNodeOutputRecords(1); n.Get().v = input.Get().v;"
              " n.OutputComplete();\n}\n")
    module = compile_hlsl(source, tmp_path, proposals=driver.PROPOSALS)
    ids = _id_lines(module.asm)
    product = next(line.split(" = ")[0] for line in ids if line.endswith("OpSpecConstantOp %uint IMul %BodyIndex %uint_5"))
    assert f"OpExecutionModeId %Body ShaderIndexAMDX {product}" in ids
    assert f"OpDecorateId %Entry_body PayloadNodeBaseIndexAMDX {product}" in ids
    assert "OpDecorateId %Entry_body PayloadNodeArraySizeAMDX %uint_5" in ids


def test_numthreads_of_mesh_nodes_and_compute_shaders_is_local_size_id(tmp_path) -> None:
    source = ("[[vk::constant_id(0)]] const uint Verts = 3;\n"
              "[[vk::constant_id(1)]] const uint Group = 8;\n"
              "struct V { float4 pos : SV_Position; };\n"
              "struct Draw { uint3 grid : SV_DispatchGrid; };\n"
              "RWStructuredBuffer<uint> o : register(u0);\n"
              '[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeMaxDispatchGrid(4, 1, 1)]\n'
              '[NumThreads(Verts, 1, 1)] [OutputTopology("triangle")]\n'
              "void Mesh(DispatchNodeInputRecord<Draw> d, uint i : SV_GroupIndex, out vertices V verts[3],"
              " out indices uint3 tris[1]) {\n"
              "  SetMeshOutputCounts(3, 1); verts[i].pos = float4(i, 0, 0, 1); if (i == 0) tris[0] = uint3(0, 1, 2);\n}\n"
              '[Shader("compute")] [NumThreads(Group, 1, 1)]\n'
              "void Clear(uint id : SV_DispatchThreadID) { o[id] = 0; }\n")
    module = compile_hlsl(source, tmp_path)
    ids = _id_lines(module.asm)
    assert "OpExecutionModeId %Mesh LocalSizeId %Verts %uint_1 %uint_1" in ids
    assert "OpExecutionModeId %Clear LocalSizeId %Group %uint_1 %uint_1" in ids


def test_vulkan_1_2_has_no_local_size_id_the_default_is_used_with_a_warning(tmp_path) -> None:
    """LocalSizeId needs maintenance4 (core from Vulkan 1.3; spirv-val refuses it for vulkan1.2)."""
    source = ("[[vk::constant_id(7)]] const uint Threads = 16;\n"
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(Threads, 1, 1)]\n'
              "void Fill() { }\n")
    module = compile_hlsl(source, tmp_path, target_env="vulkan1.2")
    assert "OpExecutionMode %Fill LocalSize 16 1 1" in module.asm and "LocalSizeId" not in module.asm
    result = driver.compile(driver.Options(input="-", emit="spirv", target_env="vulkan1.2"), stdin=source.encode())
    assert [(d.code, d.message) for d in result.diagnostics] == [(
        "WG0645", "vulkan1.2 has no LocalSizeId (it needs maintenance4, core from Vulkan 1.3): [NumThreads] takes "
        "the default value 16 of specialization constant 'Threads' (constant_id 7), so specialising 'Threads' does "
        "not change the thread group size")]


def test_a_broken_spec_constant_in_an_attribute_is_reported_once() -> None:
    source = ("[[vk::constant_id(0)]] const uint C;\n"
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(C, 1, 1)]\n'
              "void A() {}\n")
    assert _rendered(source) == (
        "<stdin>:1:35: error: specialization constant 'C' needs a default value (an initializer) [WG0366]\n"
        "[[vk::constant_id(0)]] const uint C;\n"
        "                                  ^\n"
        "1 error generated.\n")


def test_a_thread_launch_nodes_numthreads_stays_one_with_a_warning(tmp_path) -> None:
    source = ("[[vk::constant_id(1)]] const uint One = 1;\n"
              "struct R { uint v; };\n"
              '[Shader("node")] [NodeLaunch("thread")] [NumThreads(One, 1, 1)]\n'
              "void B(ThreadNodeInputRecord<R> r) {}\n")
    assert "OpExecutionMode %B LocalSize 1 1 1" in compile_hlsl(source, tmp_path).asm
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=source.encode())
    assert [(d.code, d.message) for d in result.diagnostics] == [(
        "WG0645", "a thread-launch node runs one thread per group (LocalSize 1, 1, 1): [NumThreads] takes the default "
        "value 1 of specialization constant 'One' (constant_id 1), so specialising 'One' does not change the thread "
        "group size")]


def test_a_static_const_made_of_a_spec_constant_is_its_default_in_an_attribute(tmp_path) -> None:
    """DXC folds an attribute argument naming a variable through its initializer (ValidateAttributeIntArg):
    N = C * 2 with C's default 4 is 8, fixed (the operand is the constant 8, not C's id)."""
    source = ("[[vk::constant_id(0)]] const uint C = 4;\n"
              "static const uint N = C * 2;\n"
              "struct R { uint v; };\n"
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]\n'
              "void A([MaxRecords(N)] NodeOutput<R> Out) {}\n"
              '[Shader("node")] [NodeLaunch("thread")] void Out(ThreadNodeInputRecord<R> r) {}\n')
    assert "OpDecorateId %A_Out NodeMaxPayloadsAMDX %uint_8" in compile_hlsl(source, tmp_path).asm
    assert _rendered(source) == (
        "<stdin>:5:20: warning: attribute 'MaxRecords' takes specialization constant 'C' (constant_id 0) at its "
        "default value 4 in an expression: specialising 'C' does not change the attribute [WG0395] "
        "[-Wspec-constant-in-attribute]\n"
        "void A([MaxRecords(N)] NodeOutput<R> Out) {}\n"
        "                   ^\n"
        "1 warning generated.\n")
