"""Rules of the graph (the state object) that DXC does not enforce while real code breaks them and
runs (issue 26): each is a warning in a named group, on by default, or a DefaultError, with the
spec's sentence in a note; `-Wno-GROUP` silences it and `-Werror=GROUP` makes it an error. Then
what those rules now let through runs: `wgc run` on the emulated path and on the AMDX path
(`amdx_paths`), the buffers compared with values computed by hand in each test.

Spec: DirectX-Specs d3d/WorkGraphs.md, "Node array constraints", "Node output attributes",
"Recursion", "Quad and derivative operation semantics"; SPV_AMDX_shader_enqueue,
PayloadNodeArraySizeAMDX.
"""

from __future__ import annotations

import pytest

import wgc
from amdx_paths import assert_amdx_agrees
from wgc import driver
from wgc.diagnostics import Diagnostic, Renderer

# A node array whose member 0 has a fixed grid and member 1 a grid given by its record: Root sends
# one record to each (value 10 + thread index); each member adds its record's value once per thread.
MIXED_GRID = """\
struct Rec { uint3 grid : SV_DispatchGrid; uint value; };
RWByteAddressBuffer u0 : register(u0);

[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(2, 1, 1)]
void Root(uint tid : SV_GroupThreadID,
          [MaxRecords(2)] [NodeID("Work")] [NodeArraySize(2)] NodeOutputArray<Rec> work)
{
    ThreadNodeOutputRecords<Rec> r = work[tid].GetThreadNodeOutputRecords(1);
    r.Get().grid = uint3(3, 1, 1);
    r.Get().value = 10 + tid;
    r.OutputComplete();
}

[Shader("node")] [NodeLaunch("broadcasting")] [NodeID("Work", 0)] [NodeDispatchGrid(2, 1, 1)] [NumThreads(4, 1, 1)]
void Fixed(DispatchNodeInputRecord<Rec> rec)
{
    u0.InterlockedAdd(0, rec.Get().value);
}

[Shader("node")] [NodeLaunch("broadcasting")] [NodeID("Work", 1)] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(4, 1, 1)]
void Given(DispatchNodeInputRecord<Rec> rec)
{
    u0.InterlockedAdd(4, rec.Get().value);
}
"""

# An output array without [NodeArraySize]: Root's thread t sends value t + 1 to Leaf[t].
NO_SIZE = """\
struct Rec { uint value; };
RWByteAddressBuffer u0 : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(3, 1, 1)]
void Root(uint tid : SV_GroupThreadID, [MaxRecords(3)] [NodeID("Leaf")] NodeOutputArray<Rec> leaves)
{
    ThreadNodeOutputRecords<Rec> r = leaves[tid].GetThreadNodeOutputRecords(1);
    r.Get().value = 1 + tid;
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Leaf", 0)]
void Leaf0(ThreadNodeInputRecord<Rec> rec) { u0.InterlockedAdd(0, rec.Get().value); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Leaf", 1)]
void Leaf1(ThreadNodeInputRecord<Rec> rec) { u0.InterlockedAdd(4, rec.Get().value * 10); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Leaf", 2)]
void Leaf2(ThreadNodeInputRecord<Rec> rec) { u0.InterlockedAdd(8, rec.Get().value * 100); }
"""

# A node array whose members differ in launch mode (thread and coalescing): Root's thread t sends
# value t + 1 to Mat[t % 2].
MIXED_LAUNCH = """\
struct Item { uint v; };
RWByteAddressBuffer u0 : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
void Root(uint tid : SV_GroupThreadID, [MaxRecords(4)] [NodeID("Mat")] [NodeArraySize(2)] NodeOutputArray<Item> mats)
{
    ThreadNodeOutputRecords<Item> r = mats[tid % 2].GetThreadNodeOutputRecords(1);
    r.Get().v = tid + 1;
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)]
void Metal(ThreadNodeInputRecord<Item> item) { u0.InterlockedAdd(0, item.Get().v); }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(8, 1, 1)] [NodeID("Mat", 1)]
void Glass([MaxRecords(8)] GroupNodeInputRecords<Item> items, uint gi : SV_GroupIndex)
{
    if (gi < items.Count())
        u0.InterlockedAdd(4, items[gi].v * 10);
}
"""

# A node that targets itself without [NodeMaxRecursionDepth]; each record counts once in u0 and
# asks for another while its 'left' is positive.
SELF_TARGET = """\
struct Item { uint left; };
RWByteAddressBuffer u0 : register(u0);
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Refine(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Refine)
{
    u0.InterlockedAdd(0, 1);
    if (item.Get().left > 0) {
        ThreadNodeOutputRecords<Item> r = Refine.GetThreadNodeOutputRecords(1);
        r.Get().left = item.Get().left - 1;
        r.OutputComplete();
    }
}
"""

# The same, written for Vulkan: the function is 'main' (the node's name in DXC's SPIR-V and, by
# default, in the pipeline), the output names the node's [NodeID].
VULKAN_SELF_NAME = SELF_TARGET.replace(
    "[NodeIsProgramEntry]\nvoid Refine(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Refine)",
    '[NodeIsProgramEntry] [NodeID("Refine")]\n'
    'void main(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("Refine")] NodeOutput<Item> Refine)')

# Mat[0] adds its record's value and sends three times it to Mat[1], a node of its own array.
SIBLING = """\
struct Item { uint v; };
RWByteAddressBuffer u0 : register(u0);
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)] [NodeIsProgramEntry]
void First(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("Mat", 1)] NodeOutput<Item> next)
{
    u0.InterlockedAdd(0, item.Get().v);
    ThreadNodeOutputRecords<Item> r = next.GetThreadNodeOutputRecords(1);
    r.Get().v = item.Get().v * 3;
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 1)]
void Second(ThreadNodeInputRecord<Item> item) { u0.InterlockedAdd(4, item.Get().v); }
"""

# A chain of 34 thread nodes (the limit is 32): N[i] adds its record's value (i + 1) and sends i + 2 on.
DEEP = "struct Item { uint v; };\nRWByteAddressBuffer u0 : register(u0);\n" + "".join(
    f'[Shader("node")] [NodeLaunch("thread")]\nvoid N{i}(ThreadNodeInputRecord<Item> item'
    + (f", [MaxRecords(1)] NodeOutput<Item> N{i + 1}) {{ u0.InterlockedAdd(0, item.Get().v); "
       f"ThreadNodeOutputRecords<Item> r = N{i + 1}.GetThreadNodeOutputRecords(1); r.Get().v = item.Get().v + 1; "
       "r.OutputComplete(); }\n" if i < 33 else ") { u0.InterlockedAdd(0, item.Get().v); }\n")
    for i in range(34))

QUAD = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint slot; uint value; };
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> item)
{
    Out[item.Get().slot] = QuadReadAcrossX(item.Get().value) + (QuadAny(item.Get().value > 0) ? 1 : 0);
}
"""


# Entry Tint shares the input of entry Shade (as AMD's Vulkan mesh-node sample does): a record of
# value v sent to Shade adds v to u0[0] (Shade) and 100 * v to u0[1] (Tint, with the same record).
ENTRY_SHARES = """\
struct Rec { uint value; };
RWByteAddressBuffer u0 : register(u0);
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Shade(ThreadNodeInputRecord<Rec> r) { u0.InterlockedAdd(0, r.Get().value); }
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry] [NodeShareInputOf("Shade")]
void Tint(ThreadNodeInputRecord<Rec> r) { u0.InterlockedAdd(4, 100 * r.Get().value); }
"""


def compile_diagnostics(source: str, *flags: str) -> list[Diagnostic]:
    result = driver.compile(driver.Options(input="-", emit="ir", warning_flags=flags), stdin=source.encode())
    return list(result.diagnostics)


def of_code(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code == code]


# (source, code, group, default severity, words of the message, words of the spec sentence in a note)
RULES = [
    pytest.param(MIXED_GRID, "WG0515", "node-array-dispatch-grid", "WARNING",
                 "only 'Work' declares a fixed [NodeDispatchGrid]; 'Work[1]' takes its grid from the record",
                 "If any node in an array has a static dispatch grid size (e.g. declares [NodeDispatchGrid()]), "
                 "all nodes must do so.", id="mixed-grid"),
    pytest.param(MIXED_LAUNCH, "WG0507", "node-array-mismatch", "ERROR",
                 "their launch modes differ (thread, coalescing)",
                 "the same input record type, the same input record access mode and the same launch mode",
                 id="mixed-launch"),
    pytest.param(NO_SIZE, "WG0428", "node-array-size", "WARNING",
                 "output array 'leaves' has no [NodeArraySize(n)] or [UnboundedSparseNodes]: taken as "
                 "[UnboundedSparseNodes]",
                 '"for NodeOutputArray or EmptyNodeOutputArray, unless [UnboundedSparseNodes] is specified"',
                 id="array-without-size"),
    pytest.param(SELF_TARGET, "WG0511", "node-recursion-depth", "ERROR",
                 "'Refine' targets itself through 'Refine' and needs [NodeMaxRecursionDepth(n)] with n > 0",
                 "If a node targets itself, it must declare a max recursion level", id="self-target"),
    pytest.param(VULKAN_SELF_NAME, "WG0516", "node-self-target", "WARNING",
                 "output 'Refine' of 'main' targets 'Refine', the node's own [NodeID], without "
                 "[NodeMaxRecursionDepth(n)]",
                 "If a node targets itself, it must declare a max recursion level", id="vulkan-self-name"),
    pytest.param(DEEP, "WG0505", "graph-depth", "ERROR", "the graph is 34 nodes deep; the limit is 32",
                 "The longest chain of nodes cannot exceed 32", id="too-deep"),
    pytest.param(SIBLING, "WG0512", "node-array-self-target", "ERROR",
                 "'Mat' targets 'Mat[1]', another node of its own node array",
                 "a node in an array cannot target another node in the same array", id="array-targets-sibling"),
    pytest.param(ENTRY_SHARES, "WG0517", "node-input-sharing", "WARNING",
                 "entry node 'Tint' ('Tint', 0) shares the input of ('Shade', 0)",
                 "A node that recurses, is directly targeted by another node, or is an entrypoint cannot share "
                 "the input of another node.", id="entry-shares-input"),
    pytest.param(QUAD, "WG0429", "thread-launch-quad", "WARNING",
                 "'QuadReadAcrossX' in a thread launch node reads a quad the node does not have",
                 "Quad and derivative operations are invalid in thread launch nodes since there is not a "
                 "sufficiently sized thread group available.", id="quad-in-thread-launch"),
]


@pytest.mark.parametrize(("source", "code", "group", "severity", "message", "sentence"), RULES)
def test_rule_is_a_diagnostic_of_its_group_with_the_spec_sentence(source: str, code: str, group: str, severity: str,
                                                                   message: str, sentence: str) -> None:
    """Each rule: its text, its group, its default severity, the spec's sentence in a note, and nothing
    else in the program is reported."""
    diagnostics = compile_diagnostics(source)
    found = of_code(diagnostics, code)
    assert found, Renderer().render(diagnostics)
    assert all(d.group == group and d.severity.name == severity for d in found)
    assert message in found[0].message
    assert any(sentence in note for note in found[0].notes)
    others = [d for d in diagnostics if d.code != code and d.severity.name != "NOTE"
              and d.code != "WG0604"]   # (node-array entry point names: a SPIR-V target note, not a rule)
    assert not others, Renderer().render(others)


@pytest.mark.parametrize(("source", "code", "group", "severity", "message", "sentence"), RULES)
def test_rule_is_silenced_by_its_group_and_made_an_error(source: str, code: str, group: str, severity: str,
                                                         message: str, sentence: str) -> None:
    assert not of_code(compile_diagnostics(source, f"no-{group}"), code)
    made_error = of_code(compile_diagnostics(source, f"error={group}"), code)
    assert made_error and all(d.severity.name == "ERROR" for d in made_error)
    if severity == "ERROR":   # a DefaultError: -Wno-error=GROUP lowers it to a warning
        lowered = of_code(compile_diagnostics(source, f"no-error={group}"), code)
        assert lowered and all(d.severity.name == "WARNING" for d in lowered)


def test_all_quad_operations_warn_in_thread_launch() -> None:
    """The spec: "Quad and derivative operations are invalid in thread launch nodes" - every quad
    intrinsic, one warning each."""
    calls = ["QuadReadAcrossX(v)", "QuadReadAcrossY(v)", "QuadReadAcrossDiagonal(v)", "QuadReadLaneAt(v, 1)",
             "(QuadAny(v > 0) ? 1u : 0u)", "(QuadAll(v > 0) ? 1u : 0u)"]
    source = ("RWStructuredBuffer<uint> Out : register(u0);\nstruct Item { uint v; };\n"
              '[Shader("node")] [NodeLaunch("thread")]\n'
              "void Leaf(ThreadNodeInputRecord<Item> item) { uint v = item.Get().v; Out[0] = "
              + " + ".join(calls) + "; }\n")
    found = of_code(compile_diagnostics(source), "WG0429")
    assert [d.message.split("'")[1] for d in found] == ["QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal",
                                                        "QuadReadLaneAt", "QuadAny", "QuadAll"]
    assert compile_diagnostics(source.replace('[NodeLaunch("thread")]', '[NodeLaunch("broadcasting")] '
                                              "[NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]")
                               .replace("ThreadNodeInputRecord", "DispatchNodeInputRecord")) == []


# ---------------------------------------------------------------- what compiles must run


def run_both(tmp_path, source: str, dispatch: dict, *flags: str):
    """Run on the emulated path and on the AMDX path; both must succeed and agree."""
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    options = wgc.Options(input=str(path), warning_flags=flags)
    result = wgc.run(options, dispatch)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert_amdx_agrees(options, dispatch, result)
    return result


@pytest.mark.usefixtures("vulkan_device")
def test_node_array_mixing_fixed_and_record_given_grids_runs(tmp_path) -> None:
    """Work[0] launches its fixed grid of 2 groups x 4 threads, each adding its record's value 10;
    Work[1] the 3 groups its record gives, x 4 threads, each adding 11."""
    result = run_both(tmp_path, MIXED_GRID, {"inputs": [{"entry": "Root", "records": [{}]}],
                                             "resources": {"u0": {"bytes": 8}}})
    assert result.resources == {"u0": {"uint32": [2 * 4 * 10, 3 * 4 * 11]}}
    groups = {d.node: d.groups for step in result.trace for d in step.dispatches}
    assert groups == {"Root": 1, "Work": 2, "Work[1]": 3}


@pytest.mark.usefixtures("vulkan_device")
def test_output_array_without_size_runs_as_unbounded(tmp_path) -> None:
    """Leaf[t] receives value t + 1 and adds it times 10^t."""
    result = run_both(tmp_path, NO_SIZE, {"inputs": [{"entry": "Root", "records": [{}]}],
                                          "resources": {"u0": {"bytes": 12}}})
    assert result.resources == {"u0": {"uint32": [(t + 1) * 10 ** t for t in range(3)]}}


@pytest.mark.usefixtures("vulkan_device")
def test_node_array_mixing_launch_modes_runs_when_lowered(tmp_path) -> None:
    """Threads 0 and 2 send 1 and 3 to Metal (thread launch); threads 1 and 3 send 2 and 4 to Glass
    (coalescing), which adds ten times each."""
    result = run_both(tmp_path, MIXED_LAUNCH, {"inputs": [{"entry": "Root", "records": [{}]}],
                                               "resources": {"u0": {"bytes": 8}}}, "no-error=node-array-mismatch")
    assert result.resources == {"u0": {"uint32": [1 + 3, (2 + 4) * 10]}}


@pytest.mark.usefixtures("vulkan_device")
@pytest.mark.parametrize(("source", "flags"), [(SELF_TARGET, ("no-error=node-recursion-depth",)),
                                               (VULKAN_SELF_NAME, ())])
def test_self_target_without_depth_runs_with_no_recursion_levels(tmp_path, source: str, flags: tuple) -> None:
    """With no recursion levels the node runs once for the entry record; what it sends itself is
    dropped (the note says so), on both paths."""
    result = run_both(tmp_path, source, {"inputs": [{"entry": "Refine", "records": [{"left": 3}]}],
                                         "resources": {"u0": {"bytes": 4}}}, *flags)
    assert result.resources == {"u0": {"uint32": [1]}}


@pytest.mark.usefixtures("vulkan_device")
def test_graph_deeper_than_the_limit_runs_when_lowered(tmp_path) -> None:
    """N0 .. N33 receive 1 .. 34 and add it: 34 * 35 / 2."""
    result = run_both(tmp_path, DEEP, {"inputs": [{"entry": "N0", "records": [{"v": 1}]}],
                                       "resources": {"u0": {"bytes": 4}}}, "no-error=graph-depth")
    assert result.resources == {"u0": {"uint32": [sum(range(1, 35))]}}
    assert len(result.trace) == 34


@pytest.mark.usefixtures("vulkan_device")
def test_array_member_targeting_a_sibling_runs_when_lowered(tmp_path) -> None:
    """Mat[0] receives 5 and sends 15 to Mat[1]."""
    result = run_both(tmp_path, SIBLING, {"inputs": [{"entry": "Mat", "records": [{"v": 5}]}],
                                          "resources": {"u0": {"bytes": 8}}}, "no-error=node-array-self-target")
    assert result.resources == {"u0": {"uint32": [5, 15]}}


@pytest.mark.usefixtures("vulkan_device")
def test_entry_sharing_an_input_runs_with_the_shared_records(tmp_path) -> None:
    """Records 3 and 4 sent to Shade: Shade adds 3 + 4, Tint, sharing them, 100 * (3 + 4)."""
    result = run_both(tmp_path, ENTRY_SHARES, {"inputs": [{"entry": "Shade", "records": [{"value": 3}, {"value": 4}]}],
                                               "resources": {"u0": {"bytes": 8}}})
    assert result.resources == {"u0": {"uint32": [7, 700]}}


def test_sharing_its_own_node_id_is_an_error_unless_an_index_is_specialized() -> None:
    """A node cannot share its own input (the spec); AMD's Vulkan sample writes
    [NodeID("main", ShaderIndex)] [NodeShareInputOf("main", 0)] with ShaderIndex a specialization
    constant of default 0: the pipeline sets it, so which node is shared is known only then."""
    literal = ("struct Rec { uint v; };\n"
               '[Shader("node")] [NodeLaunch("thread")] [NodeID("Work", 0)] [NodeShareInputOf("Work", 0)]\n'
               "void Main(ThreadNodeInputRecord<Rec> r) { }\n")
    assert [d.code for d in compile_diagnostics(literal)] == ["WG0506"]
    specialized = "[[vk::constant_id(0)]] const uint Index = 0;\n" + literal.replace('"Work", 0)]', '"Work", Index)]', 1)
    assert 'NodeID("Work", Index)' in specialized
    assert [d.code for d in compile_diagnostics(specialized) if d.severity.name != "NOTE"] == []
