"""Allocation on node-array outputs on a real device (lavapipe here): once per distinct index and
subgroup (wgc/spirv/emulated.py `_subgroup_add_per_key`, wgc/spirv_in/translate.py `allocate`),
under both schedules and on the AMDX path.

The order of a target's records is left open (D3D12 fixes no order in which a node's input records
are produced or consumed), so only what every record carries is compared: each buffer is computed
by a few lines of Python from the graph's meaning, the records per node from the trace.  Skips, with the reason printed, where there is no Vulkan device.
"""

from __future__ import annotations

import pytest
from runtime_util import all_paths_on_sixteen_lanes

import wgc
from amdx_paths import assert_amdx_agrees
from test_runtime_placement import run, session_run

device = pytest.mark.usefixtures("vulkan_device")

SINKS = "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Sink", {k})]
void Sink{k}(ThreadNodeInputRecord<Item> r) {{ InterlockedAdd(Out[r.Get().v], {k + 1}); }}
""" for k in range(4))

DIVERGENT = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Spread(ThreadNodeInputRecord<Item> job, [MaxRecords(2)] [NodeArraySize(4)] NodeOutputArray<Item> Sink)
{
    uint v = job.Get().v;
    uint n = v % 3 == 0 ? 2 : 1;                       // counts differ within one target
    ThreadNodeOutputRecords<Item> recs = Sink[(v * 7) % 4].GetThreadNodeOutputRecords(n);
    recs[0].v = 2 * v;
    if (n > 1) recs[1].v = 2 * v + 1;
    recs.OutputComplete();
}
""" + SINKS


def divergent_expected(jobs: int) -> tuple[list[int], dict[str, int]]:
    """Job v sends 2v (and 2v + 1 where 3 divides v) to Sink[(7v) % 4], which adds its index + 1."""
    out = [0] * (2 * jobs)
    counts = {f"Sink[{k}]": 0 for k in range(4)}
    for v in range(jobs):
        k = (v * 7) % 4
        for w in ([2 * v, 2 * v + 1] if v % 3 == 0 else [2 * v]):
            out[w] += k + 1
            counts[f"Sink[{k}]"] += 1
    return out, counts


def trace_name(node: str) -> str:
    """The trace names element 0 of a node array by the array's name alone ("Sink")."""
    return "Sink[0]" if node == "Sink" else node


def divergent_dispatch(jobs: int) -> dict:
    return {"inputs": [{"entry": "Spread", "records": [{"v": v} for v in range(jobs)]}],
            "resources": {"u0": {"bytes": 8 * jobs}}}


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
@pytest.mark.parametrize("jobs", [45, 200])
def test_divergent_indices_with_partial_subgroups(tmp_path, gpu_driven, jobs):
    """45 jobs: a group of 32 and one of 13 live invocations (partial subgroups); every record lands
    once on its element, and each element's counter counts exactly its records."""
    out, steps = session_run(tmp_path, DIVERGENT, divergent_dispatch(jobs), gpu_driven)
    expected, counts = divergent_expected(jobs)
    assert out == expected
    made = steps[0].dispatches[0].records_out
    assert {k: made[k] for k in counts} == counts
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == {k: n for k, n in counts.items() if n}


@device
def test_divergent_indices_on_the_amdx_path(tmp_path):
    path = tmp_path / "graph.hlsl"
    path.write_text(DIVERGENT)
    dispatch = divergent_dispatch(77)
    emulated = run(tmp_path, DIVERGENT, dispatch)
    assert emulated.resources["u0"]["uint32"] == divergent_expected(77)[0]
    assert assert_amdx_agrees(str(path), dispatch, emulated) is not None


UNIFORM = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(6, 1, 1)] [NumThreads(8, 1, 1)]
void Fan(DispatchNodeInputRecord<Item> seed, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
         [MaxRecords(8)] [NodeArraySize(4)] NodeOutputArray<Item> Sink)
{
    ThreadNodeOutputRecords<Item> rec = Sink[gid.x % 3].GetThreadNodeOutputRecords(1);
    rec.Get().v = seed.Get().v + gid.x * 8 + gi;
    rec.OutputComplete();
}
""" + SINKS


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_an_index_uniform_in_each_group(tmp_path, gpu_driven):
    """Two seeds (0, 48) of 6 groups x 8 invocations; group g sends its 8 records to Sink[g % 3]:
    Sink0..2 get 32 records each, Sink3 none."""
    dispatch = {"inputs": [{"entry": "Fan", "records": [{"v": 0}, {"v": 48}]}], "resources": {"u0": {"bytes": 4 * 96}}}
    out, steps = session_run(tmp_path, UNIFORM, dispatch, gpu_driven)
    assert out == [(v % 48 // 8) % 3 + 1 for v in range(96)]
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == {
        "Sink[0]": 32, "Sink[1]": 32, "Sink[2]": 32}
    path = tmp_path / "graph.hlsl"
    assert assert_amdx_agrees(str(path), dispatch, run(tmp_path, UNIFORM, dispatch)) is not None


SPARSE = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Spread(ThreadNodeInputRecord<Item> job, [MaxRecords(1)] [UnboundedSparseNodes] NodeOutputArray<Item> Sink)
{
    uint v = job.Get().v;
    ThreadNodeOutputRecords<Item> rec = Sink[v % 6].GetThreadNodeOutputRecords(1);
    rec.Get().v = v;
    rec.OutputComplete();
}
""" + "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Sink", {k})]
void Sink{k}(ThreadNodeInputRecord<Item> r) {{ InterlockedAdd(Out[r.Get().v], {k + 1}); }}
""" for k in (0, 1, 3))


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_sparse_array_drops_the_records_of_missing_nodes(tmp_path, gpu_driven):
    """[UnboundedSparseNodes] ("Only on arrays; implies AllowSparseNodes and a size of 0xffffffff",
    workgraph-rules.md) with nodes at 0, 1 and 3: jobs v with v % 6 in {2, 4, 5} target no node
    (their records go to scratch, never read); the others land once on theirs."""
    jobs = 70
    dispatch = {"inputs": [{"entry": "Spread", "records": [{"v": v} for v in range(jobs)]}],
                "resources": {"u0": {"bytes": 4 * jobs}}}
    out, steps = session_run(tmp_path, SPARSE, dispatch, gpu_driven)
    assert out == [{0: 1, 1: 2, 3: 4}.get(v % 6, 0) for v in range(jobs)]
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == {
        f"Sink[{k}]": sum(1 for v in range(jobs) if v % 6 == k) for k in (0, 1, 3)}


GREEDY = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint count; uint k; };
struct Piece { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Greedy(ThreadNodeInputRecord<Job> job, [MaxRecords(2)] [NodeArraySize(2)] NodeOutputArray<Piece> Leaf)
{
    // asks for more records than [MaxRecords(2)] allows when count > 2 (undefined behaviour in D3D12)
    ThreadNodeOutputRecords<Piece> pieces = Leaf[job.Get().k].GetThreadNodeOutputRecords(job.Get().count);
    pieces.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Leaf", 0)] void Leaf0(ThreadNodeInputRecord<Piece> p) { Out[0] = 1; }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Leaf", 1)] void Leaf1(ThreadNodeInputRecord<Piece> p) { Out[1] = 1; }
"""


@device
def test_out_of_records_on_an_array_element_is_reported(tmp_path):
    """Two threads ask Leaf[1] for 3 records each (6) where 2 threads x MaxRecords(2) allow 4: the
    shader flags STATUS_OUT_OF_RECORDS and the run fails naming the node (WG0805)."""
    path = tmp_path / "graph.hlsl"
    path.write_text(GREEDY)
    result = wgc.run(path, {"inputs": [{"entry": "Greedy", "records": [{"count": 3, "k": 1}, {"count": 3, "k": 1}]}],
                            "resources": {"u0": {"bytes": 8}}})
    assert not result.ok
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["WG0805"]
    assert "node 'Greedy'" in errors[0].message and "asked for 6 records" in errors[0].message, errors[0].message


def amdx_allocate_helper(tmp_path) -> str:
    """The disassembly of the AMDX translation's `allocate` helper function (wgc/spirv_in/translate.py)
    in the module of `DIVERGENT`."""
    import re

    from wgc.runtime.amdx import compile_amdx
    from wgc.spirv.tools import disassemble

    path = tmp_path / "graph.hlsl"
    path.write_text(DIVERGENT)
    _, module, _ = compile_amdx(str(path), None)
    assert module is not None
    helper = re.search(r"= OpFunction %v2ulong None %\w+\n(?:.*OpFunctionParameter.*\n){5}(?:.*\n)*?.*OpFunctionEnd",
                       disassemble(module))
    assert helper is not None
    return helper.group(0)


def test_the_amdx_translation_adds_once_per_index_and_subgroup(tmp_path):
    """wgc/spirv_in/translate.py's `allocate(param, index, count, per_group, per_subgroup)`: where the
    index is not a constant, a loop whose header broadcasts the first active invocation's index;
    the invocations with that index add their sum (Reduce) once, by the elected one (before: every
    invocation added its own count)."""
    import re

    helper = amdx_allocate_helper(tmp_path)
    params = re.findall(r"(%\w+) = OpFunctionParameter", helper)
    body = helper[helper.index("OpLoopMerge"):]
    index, count = params[1], params[2]
    assert re.search(rf"OpGroupNonUniformBroadcastFirst %uint %\w+ {index}\n", body)
    total = re.search(rf"(%\w+) = OpGroupNonUniformIAdd %uint %\w+ Reduce {count}\n", body)
    assert total is not None
    atomics = re.findall(r"OpAtomicIAdd %uint %\w+ %\w+ %\w+ (%\w+)\n", body)
    assert atomics == [total.group(1)]


LANES = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Go(ThreadNodeInputRecord<Item> r) { Out[r.Get().v] = WaveGetLaneCount(); }
"""


@device
@pytest.mark.parametrize("jobs", [45, 200])
def test_the_per_index_loop_on_sixteen_lanes(tmp_path, jobs):
    """llvmpipe's subgroups have 8 lanes, where each invocation adds its own count
    (`abi.PER_KEY_MIN_SUBGROUP`); with LP_NATIVE_VECTOR_WIDTH=512 they have 16, and the loop over
    the distinct indices runs: both schedules and the AMDX path give the buffer computed by hand
    (in a process of its own: llvmpipe reads the variable when it loads)."""
    found = all_paths_on_sixteen_lanes(tmp_path, DIVERGENT, divergent_dispatch(jobs))
    expected = divergent_expected(jobs)[0]
    assert found["gpu"] == expected and found["host"] == expected and found["amdx"] == expected


CONSTANT = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Fixed(ThreadNodeInputRecord<Item> job,
           [MaxRecords(3)] [NodeArraySize(3)] [AllowSparseNodes] NodeOutputArray<Item> Sink,
           [MaxRecords(6)] [UnboundedSparseNodes] EmptyNodeOutputArray Ping)
{
    uint v = job.Get().v;
    ThreadNodeOutputRecords<Item> a = Sink[0].GetThreadNodeOutputRecords(1);
    a.Get().v = v;
    a.OutputComplete();
    ThreadNodeOutputRecords<Item> b = Sink[1].GetThreadNodeOutputRecords(1);   // no node: not valid
    b.OutputComplete();
    ThreadNodeOutputRecords<Item> c = Sink[2].GetThreadNodeOutputRecords(v % 2);
    if (v % 2) c.Get().v = 100 + v;
    c.OutputComplete();
    Ping[5].ThreadIncrementOutputCount(2);
    Ping[40].ThreadIncrementOutputCount(3);   // beyond the table of the sparse array: not valid
    Ping[2].ThreadIncrementOutputCount(1);
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Sink", 0)]
void Sink0(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[r.Get().v], 1); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Sink", 2)]
void Sink2(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[r.Get().v], 10); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Ping", 2)]
void Ping2() { InterlockedAdd(Out[200], 1); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Ping", 5)]
void Ping5() { InterlockedAdd(Out[201], 1); }
"""


def constant_expected(jobs: int) -> tuple[list[int], dict[str, int]]:
    """Job v sends v to Sink[0] (adds 1 at v) and, where v is odd, 100 + v to Sink[2] (adds 10
    there); Sink[1] and Ping[40] have no node, so nothing is sent there; each job launches Ping[5]
    twice (each adds 1 at 201) and Ping[2] once (1 at 200)."""
    out = [0] * 202
    for v in range(jobs):
        out[v] += 1
        if v % 2:
            out[100 + v] += 10
    out[200], out[201] = jobs, 2 * jobs
    return out, {"Sink[0]": jobs, "Sink[2]": jobs // 2, "Ping[2]": jobs, "Ping[5]": 2 * jobs}


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_constant_indices_including_missing_and_out_of_range_elements(tmp_path, gpu_driven):
    """Constant subscripts read their elements' slots before the prologue can return; an element
    without a node (Sink[1]) or past a sparse array's table (Ping[40]) is not valid: "Calls on an
    invalid output are ignored" (its records go nowhere, and nothing faults)."""
    jobs = 45
    out, steps = session_run(tmp_path, CONSTANT, {"inputs": [{"entry": "Fixed", "records": [
        {"v": v} for v in range(jobs)]}], "resources": {"u0": {"bytes": 4 * 202}}}, gpu_driven)
    expected, counts = constant_expected(jobs)
    assert out == expected
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == counts


@device
def test_constant_indices_on_the_amdx_path(tmp_path):
    path = tmp_path / "graph.hlsl"
    path.write_text(CONSTANT)
    dispatch = {"inputs": [{"entry": "Fixed", "records": [{"v": v} for v in range(70)]}],
                "resources": {"u0": {"bytes": 4 * 202}}}
    emulated = run(tmp_path, CONSTANT, dispatch)
    assert emulated.resources["u0"]["uint32"] == constant_expected(70)[0]
    assert assert_amdx_agrees(str(path), dispatch, emulated) is not None


MANY = "RWStructuredBuffer<uint> Out : register(u0);\nstruct Item { uint v; };\n" + """
[Shader("node")] [NodeLaunch("thread")]
void Many(ThreadNodeInputRecord<Item> job, [MaxRecords(20)] [NodeArraySize(20)] EmptyNodeOutputArray Ping)
{
""" + "".join(f"    Ping[{k}].ThreadIncrementOutputCount({1 + k % 2});\n" for k in range(20)) + "}\n" + "".join(
    f"[Shader(\"node\")] [NodeLaunch(\"thread\")] [NodeID(\"Ping\", {k})] void Ping{k}() "
    f"{{ InterlockedAdd(Out[{k}], 1); }}\n" for k in range(20))


@device
def test_more_constant_elements_than_the_prologue_reads(tmp_path):
    """20 constant subscripts: the first `HOISTED_ELEMENTS` read their slots in the prologue, the
    others where they are used; each element k launches its node 1 + k % 2 times per job, on both
    schedules and on the AMDX path."""
    from wgc.spirv.emulated import HOISTED_ELEMENTS
    assert HOISTED_ELEMENTS < 20
    jobs = 37
    dispatch = {"inputs": [{"entry": "Many", "records": [{"v": v} for v in range(jobs)]}],
                "resources": {"u0": {"bytes": 4 * 20}}}
    for gpu_driven in (True, False):
        out, _ = session_run(tmp_path, MANY, dispatch, gpu_driven)
        assert out == [(1 + k % 2) * jobs for k in range(20)]
    emulated = run(tmp_path, MANY, dispatch)
    assert emulated.resources["u0"]["uint32"] == [(1 + k % 2) * jobs for k in range(20)]
    assert assert_amdx_agrees(str(tmp_path / "graph.hlsl"), dispatch, emulated) is not None
