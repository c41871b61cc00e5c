"""The memory model of SPIR-V modules: availability and visibility under the Vulkan memory model,
coherence under GLSL450, and a node's meaning independent of the other nodes of its module.

Expected operands come from the Vulkan memory model (SPIR-V spec 2.18, Memory Operands and Image
Operands) and from the shape spirv-opt --upgrade-memory-model gives a GLSL450 module with the same
accesses: NonPrivatePointer on storage-buffer and workgroup accesses, NonPrivateTexel on
storage-image reads and writes, MakePointer/Texel Visible (loads) and Available (stores) at
QueueFamily scope (5) for coherent memory, and barriers with MakeAvailable|MakeVisible.
"""

from __future__ import annotations

import re
from pathlib import Path

from spirv_util import compile_hlsl

PROGRAMS = Path(__file__).resolve().parent / "spirv_programs"

ACQREL, UNIFORM, WORKGROUP, IMAGE, OUTPUT, AVAILABLE, VISIBLE = 0x8, 0x40, 0x100, 0x800, 0x1000, 0x2000, 0x4000


def _body(asm: str) -> list[str]:
    """The function body's memory instructions, leaving out the local `i`, built-ins and image handles."""
    keep = ("OpLoad", "OpStore", "OpImageRead", "OpImageWrite", "OpControlBarrier", "OpMemoryBarrier")
    lines = asm[asm.index("OpFunction "):].splitlines()
    return [" ".join(line.split()) for line in lines
            if any(f" {op} " in f" {line.strip()} " for op in keep) and "%i" not in line.split()
            and "%gl_" not in line and "%type_2d_image" not in line]


def test_vulkan_memory_model_states_availability_and_visibility_access_by_access(tmp_path):
    c = compile_hlsl((PROGRAMS / "memory_model_mixed.hlsl").read_text(), tmp_path)
    assert "OpMemoryModel Logical Vulkan" in c.asm
    assert not [line for line in c.asm.splitlines() if line.split()[-1:] == ["Coherent"]]   # no decoration
    ops = [line.split("= ")[-1] for line in _body(c.asm)]
    expected = [
        "OpLoad %uint %27 MakePointerVisible|NonPrivatePointer %uint_5",      # Coherent[i]
        "OpStore %31 %29 NonPrivatePointer",                                   # Shared[i] =
        "OpLoad %uint %35 NonPrivatePointer",                                  # Shared[i]
        "OpStore %37 %36 NonPrivatePointer",                                   # Plain[i] =
        "OpImageRead %v4float %48 %47 NonPrivateTexel",                        # PlainImage[..]
        "OpImageWrite %52 %44 %51 MakeTexelAvailable|NonPrivateTexel %uint_5", # CoherentImage[..] =
        f"OpControlBarrier %uint_2 %uint_2 %uint_{ACQREL | WORKGROUP | OUTPUT | AVAILABLE | VISIBLE}",
        "OpLoad %uint %59 NonPrivatePointer",                                  # Shared[63 - i]
        "OpStore %61 %60 MakePointerAvailable|NonPrivatePointer %uint_5",      # Coherent[i] =
        "OpImageRead %v4float %66 %65 MakeTexelVisible|NonPrivateTexel %uint_5",
        "OpImageWrite %69 %63 %68 NonPrivateTexel",
        "OpLoad %uint %72 NonPrivatePointer",                                  # Plain[0]
        "OpStore %75 %73",              # a node record: spirv-val forbids NonPrivatePointer there
        f"OpControlBarrier %uint_2 %uint_2 %uint_{ACQREL | OUTPUT | AVAILABLE | VISIBLE}",
    ]
    assert ops == expected
    assert "%uint_5 = OpConstant %uint 5" in c.asm         # QueueFamily, the Vulkan model's Device


TWO_NODES = """
struct Rec { uint v; };
globallycoherent RWStructuredBuffer<uint> Flags : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Root(uint i : SV_GroupIndex, [MaxRecords(1)] NodeOutput<Rec> Leaf) {
    GroupNodeOutputRecords<Rec> r = Leaf.GetGroupNodeOutputRecords(1);
    r.Get().v = i;
    Barrier(NODE_OUTPUT_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Leaf(DispatchNodeInputRecord<Rec> input, uint i : SV_GroupIndex) {
    Flags[i] = input.Get().v;
    DeviceMemoryBarrierWithGroupSync();
    Flags[i + 4] = Flags[3 - i];
}
"""


def test_a_node_stays_coherent_whatever_the_other_nodes_of_its_module_do(tmp_path):
    whole = compile_hlsl(TWO_NODES, tmp_path)
    alone = compile_hlsl(TWO_NODES, tmp_path, entry="Leaf")
    # with Root's node barrier: the Vulkan model, and Leaf's coherent accesses say so themselves
    assert "OpMemoryModel Logical Vulkan" in whole.asm and "OpDecorate %Flags Coherent" not in whole.asm
    assert [line.split("= ")[-1].split()[0] + " " + " ".join(line.split()[-2:])
            for line in _body(whole.asm) if "Flags" not in line and "%uint_5" in line] == [
        "OpStore MakePointerAvailable|NonPrivatePointer %uint_5",
        f"OpControlBarrier %uint_5 %uint_{ACQREL | UNIFORM | IMAGE | AVAILABLE | VISIBLE}",
        "OpLoad MakePointerVisible|NonPrivatePointer %uint_5",
        "OpStore MakePointerAvailable|NonPrivatePointer %uint_5",
    ]
    # alone, Leaf needs no Vulkan model: GLSL450 with the buffer Coherent and plain accesses
    assert "OpMemoryModel Logical GLSL450" in alone.asm and "OpDecorate %Flags Coherent" in alone.asm
    assert "NonPrivate" not in alone.asm
    assert alone.lines("OpControlBarrier") == [f"OpControlBarrier %uint_2 %uint_1 %uint_{ACQREL | UNIFORM | IMAGE}"]


GLOBALLY_COHERENT_INPUT = """
struct [NodeTrackRWInputSharing] Rec { uint3 grid : SV_DispatchGrid; uint total; };
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("thread")]
void Start([MaxRecords(1)] NodeOutput<Rec> Sum) {
    ThreadNodeOutputRecords<Rec> r = Sum.GetThreadNodeOutputRecords(1);
    r.Get().grid = uint3(4, 1, 1);
    r.Get().total = 0;
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4,1,1)] [NumThreads(8,1,1)]
void Sum(globallycoherent RWDispatchNodeInputRecord<Rec> input) {
    input.Get().total += 1;
    %(barrier)s
    if (input.FinishedCrossGroupSharing())
        Out[0] = input.Get().total;
}
"""


def test_globally_coherent_node_input_is_coherent_under_glsl450(tmp_path):
    c = compile_hlsl(GLOBALLY_COHERENT_INPUT % {"barrier": "DeviceMemoryBarrier();"}, tmp_path)
    assert "OpMemoryModel Logical GLSL450" in c.asm
    assert "OpDecorate %input Coherent" in c.asm
    assert "%input = OpVariable %_ptr_NodePayloadAMDX__payloadarr_Rec NodePayloadAMDX" in c.asm


def test_node_input_memory_barrier_lowers_to_output_memory_at_queue_family_scope(tmp_path):
    # the D3D spec's FinishedCrossGroupSharing pattern (AMD's tutorial 5): was an invalid module
    c = compile_hlsl(GLOBALLY_COHERENT_INPUT % {"barrier": "Barrier(NODE_INPUT_MEMORY, DEVICE_SCOPE);"}, tmp_path)
    assert "OpMemoryModel Logical Vulkan" in c.asm
    assert c.lines("OpMemoryBarrier") == [f"OpMemoryBarrier %uint_5 %uint_{ACQREL | OUTPUT | AVAILABLE | VISIBLE}"]
    # SPIR-V forbids the Coherent decoration under the Vulkan model (and NonPrivatePointer on
    # NodePayloadAMDX pointers): the barrier's availability and visibility is what remains
    assert "OpDecorate %input Coherent" not in c.asm


OBJECT_BARRIERS = """
RWStructuredBuffer<uint> Buf : register(u0);
RWTexture2D<float> Tex : register(u1);
RWBuffer<uint> Typed : register(u2);
RWByteAddressBuffer Raw : register(u3);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint i : SV_GroupIndex) {
    Buf[i] = 1;
    Barrier(Buf, DEVICE_SCOPE);
    Tex[uint2(i, 0)] = 2.0;
    Barrier(Tex, DEVICE_SCOPE | GROUP_SYNC);
    Typed[i] = 3;
    Barrier(Typed, GROUP_SCOPE);
    Raw.Store(0, i);
    Barrier(Raw, GROUP_SCOPE | GROUP_SYNC);
}
"""


def test_barrier_on_a_uav_object_orders_that_uavs_memory_class(tmp_path):
    c = compile_hlsl(OBJECT_BARRIERS, tmp_path)
    assert "OpMemoryModel Logical GLSL450" in c.asm
    assert c.lines("OpMemoryBarrier") + c.lines("OpControlBarrier") == [
        f"OpMemoryBarrier %uint_1 %uint_{ACQREL | UNIFORM}",                  # structured buffer
        f"OpMemoryBarrier %uint_2 %uint_{ACQREL | IMAGE}",                    # typed buffer: a texel buffer
        f"OpControlBarrier %uint_2 %uint_1 %uint_{ACQREL | IMAGE}",           # texture
        f"OpControlBarrier %uint_2 %uint_2 %uint_{ACQREL | UNIFORM}",         # byte-address buffer
    ]


def test_globally_coherent_input_under_the_vulkan_model_is_a_warning(tmp_path):
    from wgc import driver
    from wgc.diagnostics import Renderer
    path = tmp_path / "sum.hlsl"
    path.write_text(GLOBALLY_COHERENT_INPUT % {"barrier": "Barrier(input, DEVICE_SCOPE);"})
    result = driver.compile(driver.Options(input=str(path)))
    assert result.ok
    assert Renderer().render(result.diagnostics).replace(str(tmp_path), "") == (
        "/sum.hlsl:12:58: warning: 'globallycoherent' on input 'input' of 'Sum' cannot be expressed: a barrier "
        "on node memory puts the module under the Vulkan memory model, where spirv-val allows neither Coherent "
        "nor NonPrivatePointer on NodePayloadAMDX memory [WG0605] [-Wnode-input-coherence]\n"
        "void Sum(globallycoherent RWDispatchNodeInputRecord<Rec> input) {\n"
        "                                                         ^~~~~\n"
        "note: the record is ordered only by the node-memory barriers (OutputMemory with "
        "MakeAvailable|MakeVisible); without a node-memory barrier in the module, the input is Coherent\n"
        "1 warning generated.\n")
    # the same node without a node-memory barrier: GLSL450, Coherent, no warning
    path.write_text(GLOBALLY_COHERENT_INPUT % {"barrier": "DeviceMemoryBarrier();"})
    assert driver.compile(driver.Options(input=str(path))).diagnostics == ()


COHERENT_ONLY = """
globallycoherent RWStructuredBuffer<uint> Flags : register(u0);
globallycoherent RWTexture2D<uint> Marks : register(u1);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Leaf(uint i : SV_GroupIndex) {
    Flags[i] = i;
    Marks[uint2(i, 0)] = Flags[3 - i];
    DeviceMemoryBarrierWithGroupSync();
    Flags[i + 4] = Marks[uint2(3 - i, 0)];
}
%(other)s
"""
NODE_BARRIER_NODE = """
struct Rec { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Root([MaxRecords(1)] [AllowSparseNodes] NodeOutput<Rec> Next) {
    GroupNodeOutputRecords<Rec> r = Next.GetGroupNodeOutputRecords(1);
    Barrier(NODE_OUTPUT_MEMORY, GROUP_SCOPE | GROUP_SYNC);
    r.OutputComplete();
}
"""


def _coherent_accesses(asm: str) -> list[str]:
    """The operands after the pointer/value of each load/store/image access through a coherent
    resource, with the scope id replaced by its constant's value. Loads of image handles are left
    out: spirv-opt's upgrade marks them too, which spirv-val rejects (UniformConstant pointers
    cannot be NonPrivatePointer)."""
    constants = dict(re.findall(r"^\s*(%\w+) = OpConstant %uint (\d+)$", asm, flags=re.M))
    found = []
    for line in asm[asm.index("OpFunction "):].splitlines():
        words = line.split()
        op = words[2] if len(words) > 2 and words[1] == "=" else (words[0] if words else "")
        operands = words[3:] if words[1:2] == ["="] else words[1:]
        if op in ("OpLoad", "OpStore", "OpImageRead", "OpImageWrite") and "%type_2d_image" not in operands \
                and any(w.startswith(("MakePointer", "MakeTexel")) for w in operands):
            found.append(" ".join([op] + [constants.get(w, w) for w in operands if not w.startswith("%")
                                          or w in constants]))
    return found


def test_coherent_accesses_match_spirv_opts_upgrade_of_the_glsl450_module(tmp_path):
    # the reference: spirv-opt --upgrade-memory-model of the same node compiled alone (GLSL450,
    # Coherent decorations) gives the Vulkan-model operands coherent accesses need
    from wgc.spirv import tools
    from wgc.spirv.optimize import run_spirv_opt
    alone = compile_hlsl(COHERENT_ONLY % {"other": ""}, tmp_path)
    assert "OpMemoryModel Logical GLSL450" in alone.asm
    upgraded = tools.disassemble(run_spirv_opt(alone.words, "vulkan1.3", ["--upgrade-memory-model"]), header=False)
    assert "OpMemoryModel Logical Vulkan" in upgraded
    together = compile_hlsl(COHERENT_ONLY % {"other": NODE_BARRIER_NODE}, tmp_path)
    assert "OpMemoryModel Logical Vulkan" in together.asm
    expected = _coherent_accesses(upgraded)
    assert expected == [
        "OpStore MakePointerAvailable|NonPrivatePointer 5",
        "OpLoad MakePointerVisible|NonPrivatePointer 5",
        "OpImageWrite MakeTexelAvailable|NonPrivateTexel 5",
        "OpImageRead MakeTexelVisible|NonPrivateTexel 5",
        "OpStore MakePointerAvailable|NonPrivatePointer 5",
    ]
    assert _coherent_accesses(together.asm) == expected


AMPLIFY_BESIDE_A_NODE_BARRIER = """
struct Payload { uint meshlets[32]; uint count; };
groupshared Payload s_payload;
[Shader("amplification")] [NumThreads(32, 1, 1)]
void Cull(uint gtid : SV_GroupThreadID, uint gid : SV_GroupID)
{
    s_payload.meshlets[gtid] = gid * 32 + gtid;
    if (gtid == 0) s_payload.count = 0;
    GroupMemoryBarrierWithGroupSync();
    if (gtid == 31) s_payload.count = s_payload.meshlets[0] + 1;
    DispatchMesh(1, 1, 1, s_payload);
}
struct V { float4 pos : SV_Position; };
[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]
void Draw(uint i : SV_GroupIndex, in payload Payload p, out vertices V verts[3], out indices uint3 tris[1])
{
    SetMeshOutputCounts(3, 1);
    verts[i].pos = float4(p.meshlets[i], p.count, 0, 1);
    if (i == 0) tris[0] = uint3(0, 1, 2);
}
struct Rec { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(2, 1, 1)]
void Node([MaxRecords(1)] [AllowSparseNodes] NodeOutput<Rec> Out)
{
    GroupNodeOutputRecords<Rec> r = Out.GetGroupNodeOutputRecords(1);
    r.Get().v = 1;
    Barrier(r, GROUP_SCOPE | GROUP_SYNC);
    r.OutputComplete();
}
"""


def _function(asm: str, name: str) -> list[str]:
    """The instructions of entry function `name`."""
    lines = [" ".join(line.split()) for line in asm.splitlines()]
    start = lines.index(f"%{name} = OpFunction %void None %3") if f"%{name} = OpFunction %void None %3" in lines \
        else next(i for i, line in enumerate(lines) if line.startswith(f"%{name} = OpFunction "))
    end = lines.index("OpFunctionEnd", start)
    return lines[start:end]


def test_an_amplification_shaders_barrier_orders_its_payload_in_any_module(tmp_path):
    """SPIR-V spec, Memory Operands: "NonPrivatePointer: The memory access obeys inter-thread
    ordering, as specified by the client API." Under the Vulkan memory model an access without it is
    private, and spirv-val refuses it on TaskPayloadWorkgroupEXT pointers ("NonPrivatePointerKHR
    requires a pointer in Uniform, Workgroup, CrossWorkgroup, Generic, Image or StorageBuffer storage
    classes"). So the payload of an amplification shader in a module that a node-memory barrier puts
    under the Vulkan model is Workgroup memory, accessed NonPrivatePointer and ordered by barriers
    with WorkgroupMemory|MakeAvailable|MakeVisible, and the first invocation copies it to the
    TaskPayloadWorkgroupEXT variable after the DispatchMesh barrier; alone (GLSL450) it is the task
    payload itself, which WorkgroupMemory barriers order. Both modules pass spirv-val (compile_hlsl)."""
    alone = compile_hlsl(AMPLIFY_BESIDE_A_NODE_BARRIER, tmp_path, entry="Cull")
    whole = compile_hlsl(AMPLIFY_BESIDE_A_NODE_BARRIER, tmp_path)
    assert "OpMemoryModel Logical GLSL450" in alone.asm
    assert "%s_payload = OpVariable %_ptr_TaskPayloadWorkgroupEXT_Payload TaskPayloadWorkgroupEXT" in alone.asm
    assert [line for line in _function(alone.asm, "Cull") if "OpControlBarrier" in line] == [
        f"OpControlBarrier %uint_2 %uint_2 %uint_{ACQREL | WORKGROUP}"] * 2
    assert "OpMemoryModel Logical Vulkan" in whole.asm
    assert "%s_payload = OpVariable %_ptr_Workgroup_Payload Workgroup" in whole.asm
    body = _function(whole.asm, "Cull")
    payload_ptrs = {line.split(" = ")[0] for line in body if "OpAccessChain %_ptr_Workgroup_uint %s_payload" in line}
    touching = [line for line in body if any(f" {p} " in f" {line} " for p in payload_ptrs | {"%s_payload"})
                and ("OpLoad" in line or "OpStore" in line)]
    assert touching and all(line.endswith("NonPrivatePointer") for line in touching), touching
    barriers = [line for line in body if "OpControlBarrier" in line]
    assert barriers == [f"OpControlBarrier %uint_2 %uint_2 %uint_{ACQREL | WORKGROUP | AVAILABLE | VISIBLE}"] * 2
    # the copy to the task payload: after the last barrier, by invocation 0, then the emit
    copy_at = next(i for i, line in enumerate(body) if line.startswith("OpStore %s_payload_payload "))
    assert body.index(barriers[-1]) < copy_at
    assert any("%gl_LocalInvocationIndex" in line for line in body[body.index(barriers[-1]):copy_at])
    assert body[copy_at - 1].endswith(" = OpLoad %Payload %s_payload NonPrivatePointer")
    assert any(line.startswith("OpEmitMeshTasksEXT ") and line.endswith(" %s_payload_payload") for line in body)
    assert len(touching) == 5           # 2 stores before the barrier, a load and a store after, the copy's load
    # the mesh shader reads the task payload as before, and the node keeps its barrier
    assert "%p = OpVariable %_ptr_TaskPayloadWorkgroupEXT_Payload TaskPayloadWorkgroupEXT" in whole.asm
    assert any("OpControlBarrier" in line for line in _function(whole.asm, "Node"))
