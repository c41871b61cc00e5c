"""Local root signatures (issue 31): the layouts sema reads from `LocalRootSignature` subobjects, their
diagnostics (WG0455-WG0459), and `wgc run` reading root constants and root descriptors from the
local-root-argument table ("local_root_arguments": {"entries": ...}), on both schedules.

Every expected offset comes from D3D12's layout of local root arguments, computed by hand: "root
constants ... 4 bytes each", a root descriptor "an 8-byte GPU virtual address aligned to 8", a
descriptor table "an 8-byte handle" (D3D12 raytracing spec, "Shader record" / local root arguments
layout). The vkd3d-proton case's expectations are those of its C test
(`test_workgraph_local_root_signature`: value0 == const1 * 30, value1 == const0 * 60).
"""

from __future__ import annotations

import struct

import pytest

import wgc
from wgc import driver
from wgc.diagnostics import Renderer
from wgc.sema.local_root import RootSignatureError, parse_root_signature

# vkd3d-proton's tests/shaders/workgraph/local_root_signature.lib_6_8.hlsl, as its test compiles it
VKD3D = """\
[Shader("node")]
[NodeLaunch("thread")]
void EntryNode([MaxRecords(64)] EmptyNodeOutput A,
\t\t[MaxRecords(64)] EmptyNodeOutput B)
{
\tA.ThreadIncrementOutputCount(30);
\tB.ThreadIncrementOutputCount(60);
}

RWStructuredBuffer<uint> U0 : register(u0, space1);
RWStructuredBuffer<uint> U1 : register(u1, space1);
cbuffer Cbuf0 : register(b0) { uint Index; };
cbuffer Cbuf1 : register(b1) { uint Count; };

LocalRootSignature LRS0 = { "UAV(u0, space = 1), RootConstants(num32BitConstants = 1, b0), RootConstants(num32BitConstants = 1, b1)" };
LocalRootSignature LRS1 = { "UAV(u1, space = 1), RootConstants(num32BitConstants = 1, b1), RootConstants(num32BitConstants = 1, b0)" };
SubobjectToExportsAssociation assoc1 = { "LRS0", "A" };
SubobjectToExportsAssociation assoc2 = { "LRS1", "B" };

[Shader("node")]
[NodeLaunch("thread")]
[NodeLocalRootArgumentsTableIndex(0)]
void A()
{
\tuint o;
\tInterlockedAdd(U0[Index], Count, o);
}

[Shader("node")]
[NodeLaunch("thread")]
[NodeLocalRootArgumentsTableIndex(1)]
void B()
{
\tuint o;
\tInterlockedAdd(U1[Index], Count, o);
}
"""

LOCAL_DATA = [(30, 20), (40, 50)]
"""vkd3d's table: { va, const0, const1 } per entry, both va the output buffer's address."""


def vkd3d_dispatch() -> dict:
    return {"inputs": [{"entry": "EntryNode", "records": [{}]}],
            "resources": {"U0": {"bytes": 4 * 1024}},
            "local_root_arguments": {"entries": [
                # entry 0 (LRS0, node A): u0 space1, then b0 = const0, b1 = const1
                {"space1/u0": "@U0", "b0": LOCAL_DATA[0][0], "b1": LOCAL_DATA[0][1]},
                # entry 1 (LRS1, node B): u1 space1, then b1 = const0, b0 = const1 (LRS1 lists b1 first)
                {"space1/u1": "@U0", "b1": LOCAL_DATA[1][0], "b0": LOCAL_DATA[1][1]}]}}


def vkd3d_expected() -> dict[int, int]:
    """A adds Count = const1 to U0[Index = const0] 30 times; B adds Count = const0 to U[const1] 60 times."""
    (const0_a, const1_a), (const0_b, const1_b) = LOCAL_DATA
    return {const0_a: const1_a * 30, const1_b: const0_b * 60}


def analysis_of(tmp_path, source: str, **options):
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    front = driver.run_front_end(driver.Options(input=str(path), **options))
    assert front.analysis is not None
    return front.analysis


def rendered(tmp_path, source: str, target: str = "amdx") -> str:
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), target=target))
    return Renderer().render([d for d in result.diagnostics if d.code != "WG0450"]).replace(str(path), "graph.hlsl")


# ---------------------------------------------------------------- layouts


def test_layout_packs_constants_and_aligns_descriptors_to_8() -> None:
    layout = parse_root_signature(
        "RootConstants(num32BitConstants=3, b0), UAV(u1), RootConstants(num32BitConstants = 1, b2, space = 2, "
        "visibility = SHADER_VISIBILITY_ALL), DescriptorTable(SRV(t0, numDescriptors = 4), UAV(u5, space = 1)), "
        "CBV(b3, flags = DATA_STATIC), StaticSampler(s0, filter = FILTER_MIN_MAG_MIP_POINT), "
        "RootFlags(LOCAL_ROOT_SIGNATURE | 0)", "L")
    # b0: 3 x 4 bytes at 0 (ends 12); u1: aligned up to 16, 8 bytes (ends 24); b2: 4 bytes at 24 (ends 28);
    # the table: aligned up to 32, 8 bytes (ends 40); b3: 8 bytes at 40 (ends 48); sampler and flags: none
    assert [(p.kind, p.register_class, p.register, p.space, p.offset, p.size) for p in layout.parameters] == [
        ("constants", "b", 0, 0, 0, 12), ("UAV", "u", 1, 0, 16, 8), ("constants", "b", 2, 2, 24, 4),
        ("table", "", 0, 0, 32, 8), ("CBV", "b", 3, 0, 40, 8)]
    assert layout.size == 48
    table = layout.parameters[3]
    assert [table.binds("t", r, 0) for r in (0, 3, 4)] == [True, True, False]
    assert table.binds("u", 5, 1) and not table.binds("u", 5, 0)
    assert layout.find("b", 2, 2) is layout.parameters[2] and layout.find("b", 2, 0) is None


def test_the_vkd3d_layouts() -> None:
    """LRS0: the UAV's address at 0, b0 at 8, b1 at 12 (vkd3d's { va; const0; const1 }, stride 16)."""
    first = parse_root_signature("UAV(u0, space = 1), RootConstants(num32BitConstants = 1, b0), "
                                 "RootConstants(num32BitConstants = 1, b1)", "LRS0")
    second = parse_root_signature("UAV(u1, space = 1), RootConstants(num32BitConstants = 1, b1), "
                                  "RootConstants(num32BitConstants = 1, b0)", "LRS1")
    assert [(p.register_class + str(p.register), p.space, p.offset) for p in first.parameters] == [
        ("u0", 1, 0), ("b0", 0, 8), ("b1", 0, 12)]
    assert [(p.register_class + str(p.register), p.space, p.offset) for p in second.parameters] == [
        ("u1", 1, 0), ("b1", 0, 8), ("b0", 0, 12)]
    assert first.size == second.size == 16
    assert parse_root_signature("", "Empty").size == 0


@pytest.mark.parametrize("text, message, at", [
    ("UAV(b0)", "UAV takes a 'u' register (as 'u0'), not 'b0'", 4),
    ("RootConstants(b0)", "RootConstants needs num32BitConstants = N and a 'b' register", 0),
    ("CBV(b0) SRV(t0)", "expected ',' between root parameters, found 'SRV'", 8),
    ("CBV(b0, space = x)", "space must be a non-negative integer, not 'x'", 16),
    ("Sampler(s0)", "unknown root parameter 'Sampler' (RootConstants, CBV, SRV, UAV, DescriptorTable, "
                    "StaticSampler or RootFlags)", 0),
    ("CBV(b0", "expected ',' or ')', found the end of the string", 6),
    ("UAV(u0, register = 2)", "'register' is no argument of UAV", 8),
    ("CBV(b0); ", "unexpected character ';'", 7),
])
def test_malformed_strings_name_the_place(text: str, message: str, at: int) -> None:
    with pytest.raises(RootSignatureError) as raised:
        parse_root_signature(text, "L")
    assert (raised.value.message, raised.value.at) == (message, at)


def test_each_node_gets_its_own_offsets(tmp_path) -> None:
    """Two nodes, two signatures: one cbuffer at different offsets of each node's entry."""
    analysis = analysis_of(tmp_path, VKD3D)
    assert not [d for d in analysis.diagnostics if d.code.startswith("WG045")]
    nodes = {n.function.name: n for n in analysis.nodes}
    bound = {name: {v.name: (p.kind, p.offset) for v, p in nodes[name].local_root_bindings.items()}
             for name in ("A", "B")}
    assert bound == {"A": {"U0": ("UAV", 0), "Cbuf0": ("constants", 8), "Cbuf1": ("constants", 12)},
                     "B": {"U1": ("UAV", 0), "Cbuf1": ("constants", 8), "Cbuf0": ("constants", 12)}}
    assert nodes["EntryNode"].local_root is None


def test_a_default_association_applies_to_nodes_without_one(tmp_path) -> None:
    """DXC: "Empty association is well-defined: it creates a default association" (subobjects.hlsl)."""
    source = VKD3D.replace('SubobjectToExportsAssociation assoc2 = { "LRS1", "B" };',
                           'SubobjectToExportsAssociation assoc2 = { "LRS1", "" };')
    nodes = {n.function.name: n for n in analysis_of(tmp_path, source).nodes}
    assert nodes["A"].local_root.name == "LRS0"
    assert nodes["B"].local_root.name == "LRS1" and nodes["EntryNode"].local_root.name == "LRS1"


# ---------------------------------------------------------------- diagnostics: one mistake, one diagnostic


def test_malformed_string_is_located_at_its_character(tmp_path) -> None:
    source = VKD3D.replace('"UAV(u1, space = 1), RootConstants', '"UAV(u1, space = 1), RootConstant')
    assert rendered(tmp_path, source) == (
        "graph.hlsl:16:50: error: malformed root signature of LocalRootSignature 'LRS1': unknown root parameter "
        "'RootConstant' (RootConstants, CBV, SRV, UAV, DescriptorTable, StaticSampler or RootFlags) [WG0455]\n"
        '''LocalRootSignature LRS1 = { "UAV(u1, space = 1), RootConstant(num32BitConstants = 1, b1), '''
        '''RootConstants(num32BitConstants = 1, b0)" };\n'''
        "                                                 ^\n"
        "1 error generated.\n")


def test_unknown_export_and_subobject_only_warn(tmp_path) -> None:
    """DXC accepts associations it cannot resolve (`subobjects.hlsl` names exports "a;b;foo;c")."""
    source = VKD3D.replace('{ "LRS1", "B" }', '{ "LRS1", "B;Missing" }').replace('{ "LRS0", "A" }',
                                                                                '{ "LRS9", "A" }')
    assert rendered(tmp_path, source) == (
        "graph.hlsl:17:42: warning: association 'assoc1' names subobject 'LRS9', which this file does not declare "
        "(another library may) [WG0456] [-Wsubobject-association]\n"
        'SubobjectToExportsAssociation assoc1 = { "LRS9", "A" };\n'
        "                                         ^~~~~~\n"
        "graph.hlsl:18:50: warning: association 'assoc2' names export 'Missing', which is no node shader of this "
        "file (another library may define it) [WG0456] [-Wsubobject-association]\n"
        'SubobjectToExportsAssociation assoc2 = { "LRS1", "B;Missing" };\n'
        "                                                 ^~~~~~~~~~~\n"
        "2 warnings generated.\n")


def test_two_signatures_on_one_node(tmp_path) -> None:
    source = VKD3D.replace('{ "LRS1", "B" }', '{ "LRS1", "A;B" }')
    assert rendered(tmp_path, source) == (
        "graph.hlsl:18:50: error: node 'A' is associated with two local root signatures, 'LRS0' and 'LRS1' "
        "(D3D12 fails to create the state object) [WG0457] [-Wlocal-root-signature-conflict]\n"
        'SubobjectToExportsAssociation assoc2 = { "LRS1", "A;B" };\n'
        "                                                 ^~~~~\n"
        "1 error generated.\n")


def test_a_register_bound_with_the_wrong_kind(tmp_path) -> None:
    source = VKD3D.replace("cbuffer Cbuf1 : register(b1) { uint Count; };",
                           "cbuffer Cbuf1 : register(b1) { uint Count; uint More; };").replace(
        "InterlockedAdd(U1[Index], Count, o);", "InterlockedAdd(U1[Index], Count + More, o);")
    mistake = ("graph.hlsl:13:9: error: 'Cbuf1' of node '{}' is bound by RootConstants(num32BitConstants = 1, b1) of "
               "local root signature '{}', which holds 4 bytes where 'Cbuf1' needs 8 [WG0458] "
               "[-Wlocal-root-signature-kind]\n"
               "cbuffer Cbuf1 : register(b1) {{ uint Count; uint More; }};\n"
               "        ^~~~~\n")
    # both nodes reach Cbuf1, each through its own signature: one diagnostic per signature
    assert rendered(tmp_path, source) == mistake.format("A", "LRS0") + mistake.format("B", "LRS1") + \
        "2 errors generated.\n"
    # two nodes of one signature: once
    shared = source.replace('{ "LRS1", "B" }', '{ "LRS0", "B" }')
    assert rendered(tmp_path, shared) == mistake.format("A", "LRS0") + "1 error generated.\n"


def test_a_descriptor_table_is_refused_by_wgc_run_only(tmp_path) -> None:
    source = VKD3D.replace('"UAV(u1, space = 1), RootConstants(num32BitConstants = 1, b1)',
                           '"DescriptorTable(UAV(u1, space = 1)), RootConstants(num32BitConstants = 1, b1)')
    assert rendered(tmp_path, source) == ""
    assert rendered(tmp_path, source, target="emulated") == (
        "graph.hlsl:11:26: error: 'U1' of node 'B' is bound by a descriptor table of local root signature 'LRS1': "
        "wgc run reads root constants and root descriptors (CBV, SRV, UAV) from the local-root-argument table, not "
        "descriptor tables [WG0459]\n"
        "RWStructuredBuffer<uint> U1 : register(u1, space1);\n"
        "                         ^~\n"
        "note: a limit of the emulated SPIR-V target (--target=emulated); 'wgc inspect' still shows the program\n"
        "1 error generated.\n")


def test_the_amdx_warning_says_the_resources_stay_descriptors(tmp_path) -> None:
    path = tmp_path / "graph.hlsl"
    path.write_text(VKD3D)
    result = driver.compile(driver.Options(input=str(path)))
    messages = [d.message for d in result.diagnostics if d.code == "WG0450"]
    assert len(messages) == 2 and all("local root signature 'LRS" in m and "stay descriptors" in m for m in messages)


# ---------------------------------------------------------------- wgc run


@pytest.mark.usefixtures("vulkan_device")
@pytest.mark.parametrize("options", [{}, {"check": True}], ids=["plain", "checked"])
def test_the_vkd3d_case_runs(tmp_path, options: dict) -> None:
    path = tmp_path / "graph.hlsl"
    path.write_text(VKD3D)
    result = wgc.run(str(path), vkd3d_dispatch(), **options)
    assert result.ok, Renderer().render(list(result.diagnostics))
    out = result.resources["U0"]["uint32"]
    expected = vkd3d_expected()
    assert {i: out[i] for i in expected} == expected
    assert sum(out) == sum(expected.values())


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_the_vkd3d_case_on_both_schedules(device, tmp_path, gpu_driven: bool) -> None:
    from runtime_util import load
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, VKD3D, vkd3d_dispatch(), target="emulated")
    out = next(r for r in program.resources if r.name == "U0")
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        values = session.dump(out)["uint32"]
    expected = vkd3d_expected()
    assert {i: values[i] for i in expected} == expected


MIXED = """\
struct Item { uint i; };
struct Params { float scale; uint pad; uint2 span; };
ConstantBuffer<Params> P : register(b0);
cbuffer Extra : register(b1) { uint add; };
ByteAddressBuffer In : register(t2);
RWByteAddressBuffer Out : register(u3);
RWStructuredBuffer<uint> Log : register(u4);
LocalRootSignature L = { "RootConstants(num32BitConstants = 4, b0), SRV(t2), CBV(b1), UAV(u3)" };
LocalRootSignature M = { "RootConstants(num32BitConstants = 1, b1)" };
SubobjectToExportsAssociation a = { "L", "Work" };
SubobjectToExportsAssociation b = { "M", "Tail" };
uint fetch(uint i) { return In.Load(i * 4) + add; }
[Shader("node")] [NodeLaunch("thread")] [NodeLocalRootArgumentsTableIndex(1)]
void Work(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Tail)
{
    uint i = item.Get().i;
    Out.InterlockedAdd(i * 4, uint(float(fetch(i)) * P.scale) + P.span.y);
    ThreadNodeOutputRecords<Item> next = Tail.GetThreadNodeOutputRecords(1);
    next.Get().i = i;
    next.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeLocalRootArgumentsTableIndex(0)]
void Tail(ThreadNodeInputRecord<Item> item) { Log[item.Get().i] = add; }
"""


@pytest.mark.usefixtures("vulkan_device")
def test_constants_srv_cbv_and_uav_from_one_entry_and_a_descriptor_beside(tmp_path) -> None:
    """Work's entry (1, stride 40): P's 16 bytes at 0, In's address at 16, Extra's at 24, Out's at 32; Tail's
    own signature binds b1 as one root constant, so Tail reads `add` from its entry 0, not the CBV; Log
    stays a descriptor."""
    path = tmp_path / "graph.hlsl"
    path.write_text(MIXED)
    data = [5, 6, 7, 8]
    dispatch = {"inputs": [{"entry": "Work", "records": [{"i": i} for i in range(4)]}],
                "resources": {"In": {"uint32": data}, "Extra": {"uint32": [100, 0, 0, 0]},
                              "Out": {"uint32": [1, 1, 1, 1]}, "Log": {"bytes": 16}},
                "local_root_arguments": {"entries": [
                    {"b1": 9},
                    {"P": [2.5, 0, 0, 3], "t2": "@In", "Extra": "@Extra", "u3": "@Out"}]}}
    result = wgc.run(str(path), dispatch)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources["Out"] == {"uint32": [1 + int((v + 100) * 2.5) + 3 for v in data]}
    assert result.resources["Log"] == {"uint32": [9] * 4}


@pytest.mark.usefixtures("vulkan_device")
def test_table_mistakes_are_located(tmp_path) -> None:
    path = tmp_path / "graph.hlsl"
    path.write_text(VKD3D)
    dispatch = vkd3d_dispatch()
    dispatch["local_root_arguments"]["entries"][1] = {"space1/u1": "@U1", "b2": 1}
    result = wgc.run(str(path), dispatch)
    text = Renderer().render(list(result.diagnostics))
    assert "'@U1' names no buffer of \"resources\"" in text and "[WG0801]" in text
    dispatch["local_root_arguments"]["entries"][1] = {"b2": 1}
    text = Renderer().render(list(wgc.run(str(path), dispatch).diagnostics))
    assert "local root signature 'LRS1' (node 'B', entry 1) binds no 'b2'" in text
    assert "its root parameters: UAV(u1, space = 1), RootConstants(num32BitConstants = 1, b1), " \
           "RootConstants(num32BitConstants = 1, b0)" in text
    del dispatch["local_root_arguments"]
    text = Renderer().render(list(wgc.run(str(path), dispatch).diagnostics))
    assert "node 'A' reads its local root signature 'LRS0' from entry 0 of the local-root-argument table" in text
    assert "[WG0809]" in text


def test_table_bytes(tmp_path) -> None:
    """The table the dispatch makes: vkd3d's struct { u64 va; u32 const0; u32 const1; }, the addresses
    filled in when the run makes its buffers."""
    from runtime_util import load

    _, _, described = load(tmp_path, VKD3D, vkd3d_dispatch(), target="emulated")
    stride, table = described.local_root_arguments
    assert stride == 16
    assert table == struct.pack("<QII", 0, 30, 20) + struct.pack("<QII", 0, 40, 50)
    assert described.local_root_addresses == [(0, "U0"), (16, "U0")]


@pytest.mark.usefixtures("vulkan_device")
def test_the_amdx_path_says_it_reads_no_local_root_signature(tmp_path) -> None:
    path = tmp_path / "graph.hlsl"
    path.write_text(VKD3D)
    text = Renderer().render([d for d in wgc.run(str(path), vkd3d_dispatch(), path="amdx").diagnostics
                              if d.code != "WG0450"])
    assert "no node with a local root signature has [NodeLocalRootArgumentsTableIndex(0)] [WG0800]" in text
    assert "local root signatures are read on the emulated path only" in text


def test_default_stride_and_entries_shared_by_two_signatures(tmp_path) -> None:
    """Root constants alone: entries 4-byte aligned (D3D12: "4 bytes each"); vkd3d's layouts: 16."""
    from runtime_util import load
    from wgc.runtime.dispatch import read_dispatch
    from wgc.source import SourceFile

    constants_only = VKD3D.replace('"UAV(u0, space = 1), RootConstants(num32BitConstants = 1, b0)',
                                   '"RootConstants(num32BitConstants = 1, b0)').replace(
        "InterlockedAdd(U0[Index], Count, o);", "InterlockedAdd(U1[Index], Count, o);")
    _, _, described = load(tmp_path, constants_only, {"local_root_arguments": {"entries": [
        {"b0": 1, "b1": -1}, {}]}}, target="emulated")
    # LRS0 is now 8 bytes of constants, LRS1 16 with its address: the stride is the larger, 16
    assert described.local_root_arguments == (16, struct.pack("<IIQ", 1, 0xFFFFFFFF, 0) + bytes(16))
    shared = VKD3D.replace("[NodeLocalRootArgumentsTableIndex(1)]", "[NodeLocalRootArgumentsTableIndex(0)]")
    _, program, _ = load(tmp_path, shared, {}, target="emulated")
    described, problems = read_dispatch(SourceFile("dispatch.json", '{"local_root_arguments": {"entries": [{}]}}'),
                                        program)
    assert described is None
    assert [p.message for p in problems] == [
        "nodes 'A' and 'B' share table entry 0 but have different local root signatures ('LRS0', 'LRS1')"]


def test_global_root_signatures_are_checked_but_bind_nothing(tmp_path) -> None:
    """DXC compiles every root signature of a library (CGHLSLMS.cpp: CompileRootSignature for both kinds)."""
    source = VKD3D + 'GlobalRootSignature G = { "UAV(u0, space = 1), CBV(b9" };\n'
    text = rendered(tmp_path, source)
    assert "error: malformed root signature of GlobalRootSignature 'G': expected ',' or ')', found the end of " \
           "the string [WG0455]" in text
    fine = VKD3D.replace('SubobjectToExportsAssociation assoc2 = { "LRS1", "B" };',
                         'GlobalRootSignature G = { "UAV(u1, space = 1)" };\n'
                         'SubobjectToExportsAssociation assoc2 = { "G", "B" };\n'
                         'SubobjectToExportsAssociation assoc3 = { "LRS1", "EntryNode" };')
    nodes = {n.function.name: n for n in analysis_of(tmp_path, fine).nodes}
    assert nodes["B"].local_root is None and nodes["A"].local_root.name == "LRS0"
    # a local root signature no association names is the default of the nodes without one
    default = fine.replace('SubobjectToExportsAssociation assoc3 = { "LRS1", "EntryNode" };', "")
    nodes = {n.function.name: n for n in analysis_of(tmp_path, default).nodes}
    assert nodes["B"].local_root.name == "LRS1" and nodes["A"].local_root.name == "LRS0"


ONE_SIGNATURE = VKD3D.replace('{ "LRS1", "B" }', '{ "LRS0", "B" }').replace("U1[Index]", "U0[Index]")
"""A and B both of LRS0 (LRS1, named by no association, is the default of EntryNode, which reads nothing)."""


@pytest.mark.usefixtures("vulkan_device")
def test_stride_zero_runs(tmp_path) -> None:
    path = tmp_path / "one.hlsl"
    path.write_text(ONE_SIGNATURE)
    result = wgc.run(str(path), {"inputs": [{"entry": "EntryNode", "records": [{}]}],
                                 "resources": {"U0": {"bytes": 16}},
                                 "local_root_arguments": {"stride": 0, "entries": [
                                     {"space1/u0": "@U0", "b0": 3, "b1": 2}]}})
    assert result.ok, Renderer().render(list(result.diagnostics))
    # A (index 0) and B (index 1) both read the one entry: U0[3] += 2, 30 + 60 times
    assert result.resources["U0"] == {"uint32": [0, 0, 0, 2 * 90]}


def test_stride_zero_with_one_signature(tmp_path) -> None:
    """WorkGraphs.md (D3D12_SET_WORK_GRAPH_DESC): "stride can be 0 only if the work graph uses a single
    local root signature"; "The address and stride must both be aligned to the size of the largest member
    of any local root signature in the work graph, e.g. 8 bytes if there are any root descriptors"."""
    from runtime_util import load
    from wgc.runtime.dispatch import read_dispatch
    from wgc.source import SourceFile

    _, program, described = load(tmp_path, ONE_SIGNATURE, {"local_root_arguments": {"stride": 0, "entries": [
        {"space1/u0": 8, "b0": 1, "b1": 2}]}}, target="emulated")
    assert described.local_root_arguments == (0, struct.pack("<QII", 8, 1, 2))

    def problems(text: str) -> list[str]:
        found, diagnostics = read_dispatch(SourceFile("dispatch.json", text), program)
        return [d.message for d in diagnostics]

    assert problems('{"local_root_arguments": {"stride": 0, "entries": [{}, {}]}}') == [
        "with stride 0 every node reads the first entry: give exactly one"]
    assert problems('{"local_root_arguments": {"stride": 12, "entries": [{}]}}') == [
        "the stride is 0 or a multiple of 8 of at least 16 bytes (the largest local root signature's arguments)"]
    _, two, _ = load(tmp_path, VKD3D, {}, target="emulated")
    found, diagnostics = read_dispatch(SourceFile("d.json", '{"local_root_arguments": {"stride": 0, "entries": [{}]}}'),
                                       two)
    assert [d.message for d in diagnostics] == ["stride 0 (every node reads one entry) needs a single local root "
                                                "signature"]


def test_root_constant_values(tmp_path) -> None:
    """Integers in 32 bits (signed or not), floats as their float32 bits; anything else located."""
    from runtime_util import load
    from wgc.runtime.dispatch import read_dispatch
    from wgc.source import SourceFile

    _, program, _ = load(tmp_path, VKD3D, {}, target="emulated")

    def entry0(value: str) -> tuple[bytes | None, list[str]]:
        text = '{"local_root_arguments": {"entries": [{"b0": %s}]}}' % value
        found, diagnostics = read_dispatch(SourceFile("d.json", text), program)
        return (found.local_root_arguments[1][8:12] if found else None), [d.message for d in diagnostics]

    assert entry0("-1") == (b"\xff\xff\xff\xff", [])
    assert entry0("4294967295") == (b"\xff\xff\xff\xff", [])
    assert entry0("1.5") == (struct.pack("<f", 1.5), [])
    assert entry0("4294967296") == (None, ["4294967296 does not fit in 32 bits"])
    assert entry0("1e39") == (None, ["1e+39 does not fit in a 32-bit float"])
    assert entry0('"7"') == (None, ["a root constant is a number (an integer or a float)"])
    assert entry0("[1, 2]") == (None, ["RootConstants(num32BitConstants = 1, b0) holds 1 values; 2 given"])


STRUCTURED = """\
struct Pair { float a; uint b; };
struct Item { uint i; };
StructuredBuffer<Pair> Pairs : register(t0, space3);
RWStructuredBuffer<uint> Out : register(u0, space3);
LocalRootSignature L = { "srv(t0, space = 3), uav(u0, space = 3)" };
SubobjectToExportsAssociation a = { "L", "Read" };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(2, 1, 1)]
[NodeLocalRootArgumentsTableIndex(0)]
void Read(uint t : SV_DispatchThreadID)
{
    uint count, stride;
    Pairs.GetDimensions(count, stride);
    Out[t] = uint(Pairs[t].a * 10.0) + Pairs[t].b + count * 1000 + stride * 100000;
}
"""


@pytest.mark.usefixtures("vulkan_device")
def test_a_root_srv_of_structs_on_a_broadcasting_node(tmp_path) -> None:
    """Keywords in any case (DXC's parser compares them with _stricmp). A root descriptor has no size:
    GetDimensions gives 0 elements; the stride is the element's (8 bytes)."""
    path = tmp_path / "graph.hlsl"
    path.write_text(STRUCTURED)
    pairs = [(0.5, 1), (1.5, 2), (2.5, 3), (3.5, 4)]
    data = b"".join(struct.pack("<fI", a, b) for a, b in pairs)
    result = wgc.run(str(path), {"inputs": [{"entry": "Read", "records": [{}]}],
                                 "resources": {"Pairs": {"hex": data.hex()}, "Out": {"bytes": 16}},
                                 "local_root_arguments": {"entries": [{"Pairs": "@Pairs", "Out": "@Out"}]}})
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources["Out"] == {"uint32": [int(a * 10) + b + 8 * 100000 for a, b in pairs]}


@pytest.mark.usefixtures("vulkan_device")
def test_root_only_resources_take_no_binding_beside_descriptors(tmp_path) -> None:
    """D3D-style registers: b1, t0, u0 read through local root signatures share Vulkan bindings with the
    descriptor Log (u1 -> binding 1, as b1); the emulated module declares no descriptor for them, so
    wgc run binds only Log (before: WG0810, 'Extra' and 'Log' share a binding)."""
    source = MIXED.replace("register(t2)", "register(t0)").replace("register(u3)", "register(u0)").replace(
        "register(u4)", "register(u1)").replace("SRV(t2)", "SRV(t0)").replace("UAV(u3)", "UAV(u0)")
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    data = [5, 6, 7, 8]
    result = wgc.run(str(path), {"inputs": [{"entry": "Work", "records": [{"i": i} for i in range(4)]}],
                                 "resources": {"In": {"uint32": data}, "Extra": {"uint32": [100, 0, 0, 0]},
                                               "Out": {"uint32": [1, 1, 1, 1]}, "Log": {"bytes": 16}},
                                 "local_root_arguments": {"entries": [
                                     {"b1": 9}, {"P": [2.5, 0, 0, 3], "t0": "@In", "b1": "@Extra", "u0": "@Out"}]}})
    assert [d.code for d in result.diagnostics] == ["WG0360"] * 3      # sema's overlap warnings stay (AMDX binds them)
    assert result.resources["Out"] == {"uint32": [1 + int((v + 100) * 2.5) + 3 for v in data]}
    assert result.resources["Log"] == {"uint32": [9] * 4}
