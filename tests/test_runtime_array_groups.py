"""Allocation on node-array elements counted per group (wgc/spirv/emulated.py `_group_add_per_key`,
`emulated_placement.keyed_calls`): a thread-scope `Sink[k].GetThreadNodeOutputRecords(c)` that every
invocation of a broadcasting or coalescing group makes once is counted per element in Workgroup
memory, and the group adds once per element to that element's counter.

On a real device (lavapipe here), under both schedules and against the AMDX path: divergent and
uniform indices, a count above 1, a sparse array, indices past the array, a coalescing producer
and an element whose records exceed its arena.  The order of a target's records is left open (D3D12
fixes none), so what the consumers add is compared: each buffer is computed by a few lines of
Python from the graph's meaning, the records per element from the trace.  Skips, with the reason
printed, where there is no Vulkan device.
"""

from __future__ import annotations

import re

import pytest
from runtime_util import all_paths_on_sixteen_lanes, load

import wgc
from amdx_paths import assert_amdx_agrees
from test_runtime_node_arrays import trace_name
from test_runtime_placement import run, session_run

device = pytest.mark.usefixtures("vulkan_device")


def sinks(elements) -> str:
    """Thread nodes Sink[k] for k in `elements`: Sink[k] adds k + 1 to Out[v] of its record v."""
    return "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Sink", {k})]
void Sink{k}(ThreadNodeInputRecord<Item> r) {{ InterlockedAdd(Out[r.Get().v], {k + 1}); }}
""" for k in elements)


DIVERGENT = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(5, 1, 1)] [NumThreads(12, 1, 1)]
void Fan(DispatchNodeInputRecord<Item> seed, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
         [MaxRecords(24)] [NodeArraySize(4)] NodeOutputArray<Item> Sink)
{
    uint i = seed.Get().v + gid.x * 12 + gi;
    ThreadNodeOutputRecords<Item> recs = Sink[(i * 7 + i / 5) % 4].GetThreadNodeOutputRecords(2);
    recs[0].v = 2 * i;
    recs[1].v = 2 * i + 1;
    recs.OutputComplete();
}
""" + sinks(range(4))

DIVERGENT_DISPATCH = {"inputs": [{"entry": "Fan", "records": [{"v": 0}, {"v": 60}]}],
                      "resources": {"u0": {"bytes": 4 * 240}}}


def divergent_expected() -> tuple[list[int], dict[str, int]]:
    """Invocation i (0..119: two seeds x 5 groups x 12) sends 2i and 2i + 1 to Sink[(7i + i // 5) % 4]."""
    out = [0] * 240
    counts = {f"Sink[{k}]": 0 for k in range(4)}
    for i in range(120):
        k = (i * 7 + i // 5) % 4
        out[2 * i] = out[2 * i + 1] = k + 1
        counts[f"Sink[{k}]"] += 2
    return out, counts


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_divergent_indices_counted_per_group(tmp_path, gpu_driven):
    """Two records per invocation on an element that varies within the group: each record lands
    once on its element, and each element's counter counts exactly its records."""
    out, steps = session_run(tmp_path, DIVERGENT, DIVERGENT_DISPATCH, gpu_driven)
    expected, counts = divergent_expected()
    assert out == expected
    made = steps[0].dispatches[0].records_out
    assert {k: made[k] for k in counts} == counts
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == counts


@device
def test_divergent_indices_counted_per_group_agree_with_amdx(tmp_path):
    emulated = run(tmp_path, DIVERGENT, DIVERGENT_DISPATCH)
    assert emulated.resources["u0"]["uint32"] == divergent_expected()[0]
    assert assert_amdx_agrees(str(tmp_path / "graph.hlsl"), DIVERGENT_DISPATCH, emulated) is not None


@device
@pytest.mark.parametrize("schedule", ["smallest", "reverse", "7"])
def test_divergent_indices_counted_per_group_under_the_debugging_schedules(tmp_path, schedule):
    """"smallest" runs each group as a launch of its own, "reverse" and "7" reorder and split them:
    the group's counts and the elements' counters give the same buffer."""
    from wgc.runtime.schedules import DebugRun, Schedule

    result = run(tmp_path, DIVERGENT, DIVERGENT_DISPATCH, debug=DebugRun(schedule=Schedule.parse(schedule)))
    assert result.resources["u0"]["uint32"] == divergent_expected()[0]


SPARSE = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(16, 1, 1)]
void Fan(DispatchNodeInputRecord<Item> seed, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
         [MaxRecords(16)] [AllowSparseNodes] [NodeArraySize(5)] NodeOutputArray<Item> Sink)
{
    uint i = gid.x * 16 + gi;
    ThreadNodeOutputRecords<Item> rec = Sink[i % 7].GetThreadNodeOutputRecords(1);
    rec.Get().v = i;
    rec.OutputComplete();
}
""" + sinks((0, 2, 3))


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_missing_elements_and_indices_past_the_array(tmp_path, gpu_driven):
    """[AllowSparseNodes] [NodeArraySize(5)] with nodes at 0, 2 and 3; index i % 7: 1 and 4 name no
    node, 5 and 6 lie past the array (and past the group's Workgroup counts): those records go to
    scratch and are never read; the others land once on their node."""
    dispatch = {"inputs": [{"entry": "Fan", "records": [{"v": 0}]}], "resources": {"u0": {"bytes": 4 * 64}}}
    out, steps = session_run(tmp_path, SPARSE, dispatch, gpu_driven)
    assert out == [{0: 1, 2: 3, 3: 4}.get(i % 7, 0) for i in range(64)]
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == {
        f"Sink[{k}]": sum(1 for i in range(64) if i % 7 == k) for k in (0, 2, 3)}
    assert assert_amdx_agrees(str(tmp_path / "graph.hlsl"), dispatch, run(tmp_path, SPARSE, dispatch)) is not None


COALESCING = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(8, 1, 1)]
void Gather([MaxRecords(8)] GroupNodeInputRecords<Item> jobs, uint gi : SV_GroupIndex,
            [MaxRecords(8)] [NodeArraySize(2)] NodeOutputArray<Item> Sink)
{
    uint v = gi < jobs.Count() ? jobs[gi].v : 1000 + gi;     // every invocation allocates, live or not
    ThreadNodeOutputRecords<Item> rec = Sink[v % 2].GetThreadNodeOutputRecords(1);
    rec.Get().v = v < 1000 ? v : 100 + (v - 1000) % 8;
    rec.OutputComplete();
}
""" + sinks(range(2))
COALESCING_DISPATCH = {"inputs": [{"entry": "Gather", "records": [{"v": v} for v in range(21)]}],
                       "resources": {"u0": {"bytes": 4 * 108}}}


def coalescing_expected() -> list[int]:
    """COALESCING_DISPATCH's Out: record v adds v % 2 + 1 at v; the last group's idle invocations
    5..7 send 1000 + gi, which add (1000 + gi) % 2 + 1 at 100 + gi."""
    expected = [0] * 108
    for v in range(21):
        expected[v] += v % 2 + 1
    for gi in range(5, 8):
        expected[100 + gi] += (1000 + gi) % 2 + 1
    return expected


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_coalescing_producer(tmp_path, gpu_driven):
    """21 records in groups of 8 (8, 8, 5): the 5-record group's 3 idle invocations send 1003..1007
    (odd and even) too, to Out[100 + gi]; record v goes to Sink[v % 2], which adds v % 2 + 1."""
    out, steps = session_run(tmp_path, COALESCING, COALESCING_DISPATCH, gpu_driven)
    assert out == coalescing_expected()
    assert sum(d.records_in for d in steps[1].dispatches) == 24


GREEDY = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(8, 1, 1)]
void Fan(DispatchNodeInputRecord<Item> seed, uint gi : SV_GroupIndex,
         [MaxRecords(4)] [NodeArraySize(2)] NodeOutputArray<Item> Sink)
{
    // 8 records per group where [MaxRecords(4)] allows 4 (undefined behaviour in D3D12)
    ThreadNodeOutputRecords<Item> rec = Sink[0].GetThreadNodeOutputRecords(1);
    rec.Get().v = gi;
    rec.OutputComplete();
}
""" + sinks(range(2))

GREEDY_DISPATCH = {"inputs": [{"entry": "Fan", "records": [{"v": 0}]}], "resources": {"u0": {"bytes": 32}}}


@device
def test_an_element_past_its_arena_is_reported(tmp_path):
    """3 groups of 8 invocations each send one record to Sink[0]: 24 records where the arena holds
    3 groups x MaxRecords(4) = 12; the groups that find no room set STATUS_OUT_OF_RECORDS and the
    run fails naming the node (WG0805)."""
    path = tmp_path / "graph.hlsl"
    path.write_text(GREEDY)
    result = wgc.run(path, GREEDY_DISPATCH)
    assert not result.ok
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["WG0805"]
    assert "node 'Fan'" in errors[0].message, errors[0].message


@device
def test_an_element_past_its_arena_is_reported_host_driven(tmp_path):
    """The same on the host-driven schedule: the scheduler raises RecordsOutOfMemory for Fan."""
    from wgc.runtime.scheduler import RecordsOutOfMemory

    with pytest.raises(RecordsOutOfMemory) as failed:
        session_run(tmp_path, GREEDY, GREEDY_DISPATCH, False)
    assert failed.value.node == "Fan"


def _fan_function(source: str, tmp_path) -> str:
    """The disassembly of the emulated module's `Fan` entry function (its body, prologue included),
    checking that the module declares the emulation's subgroup-size constant where it is used."""
    from wgc.runtime.run import _compile
    from wgc.spirv.tools import disassemble

    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    _, module, _ = _compile(str(path), None)
    assert module is not None
    asm = disassemble(module)
    if "%emulation_subgroup_size" in asm:
        assert "OpDecorate %emulation_subgroup_size SpecId 2147418112" in asm        # 0x7FFF0000
    name = re.search(r'OpName (%\w+) "Fan"', asm)
    assert name is not None
    start = asm.index(f"{name.group(1)} = OpFunction")
    return asm[start:asm.index("OpFunctionEnd", start)]


def test_one_device_atomic_per_group_and_element(tmp_path):
    """Where SubgroupSize >= PER_KEY_MIN_SUBGROUP, the broadcasting producer counts in Workgroup
    memory between three barriers and adds to an element's counter from one invocation (element j's
    from invocation j), with no subgroup operation; on smaller subgroups each invocation adds its
    own.  Before: the per-subgroup loop over the distinct indices (OpGroupNonUniformBroadcastFirst)."""
    body = _fan_function(DIVERGENT, tmp_path)
    assert "OpGroupNonUniform" not in body
    assert body.count("OpControlBarrier") == 3
    assert len(re.findall(r"OpAtomicIAdd %uint", body)) == 3   # Workgroup count, element's counter, narrow path
    assert re.search(r"OpUGreaterThanEqual %bool %emulation_subgroup_size %uint_16", body)


@device
def test_the_group_counts_on_sixteen_lanes(tmp_path):
    """llvmpipe's subgroups have 8 lanes (each invocation adds its own count); with
    LP_NATIVE_VECTOR_WIDTH=512 they have 16 and the group counts per element in Workgroup memory:
    both schedules and the AMDX path give the buffer computed by hand (in a process of its own:
    llvmpipe reads the variable when it loads)."""
    found = all_paths_on_sixteen_lanes(tmp_path, DIVERGENT, DIVERGENT_DISPATCH)
    expected = divergent_expected()[0]
    assert found["gpu"] == expected and found["host"] == expected and found["amdx"] == expected


def test_conditional_and_thread_launch_calls_keep_the_subgroup_path(tmp_path):
    """A call not every invocation makes (under a condition) may not meet a barrier: it keeps the
    per-subgroup allocation, as does a thread-launch producer (its invocations leave the prologue
    one by one)."""
    conditional = DIVERGENT.replace("    ThreadNodeOutputRecords<Item> recs = Sink", "    if (gi > 2) {\n"
                                    "    ThreadNodeOutputRecords<Item> recs = Sink").replace(
        "    recs.OutputComplete();\n", "    recs.OutputComplete();\n    }\n")
    body = _fan_function(conditional, tmp_path)
    assert "OpControlBarrier" not in body and "OpGroupNonUniformBroadcastFirst" in body


@device
@pytest.mark.parametrize("spaced", [True, False], ids=["spaced", "packed"])
def test_the_counters_of_an_arrays_elements_lie_on_lines_of_their_own(tmp_path, monkeypatch, spaced):
    """The GPU-driven schedule's control image puts the counters of a node-array output's slots
    `COUNTER_SPACING` (128) bytes apart, each at a multiple of 128 among the results, so that the
    atomics on different elements meet on no cache line, where the launch has at least
    SPACED_GROUPS workgroups (set to 1 here); a single output's counter stays 4 bytes, and so do
    those of a smaller launch (its 10 groups, against the default), which the host reads back
    after the run. The run's buffer and its trace's counts are those computed by hand either way."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.device import Device
    from wgc.runtime.gpu_schedule import COUNTER_SPACING
    from wgc.runtime.run import Session

    if spaced:
        monkeypatch.setattr(gpu_schedule, "SPACED_GROUPS", 1)
    else:
        assert gpu_schedule.SPACED_GROUPS > 10

    source = DIVERGENT.replace("[MaxRecords(24)] [NodeArraySize(4)]", "[MaxRecords(1)] NodeOutput<Item> One,\n"
                               "         [MaxRecords(24)] [NodeArraySize(4)]").replace(
        "    recs.OutputComplete();\n", "    recs.OutputComplete();\n"
        "    GroupNodeOutputRecords<Item> one = One.GetGroupNodeOutputRecords(1);\n"
        "    one.Get().v = 1000;\n    one.OutputComplete();\n") + """\
[Shader("node")] [NodeLaunch("thread")]
void One(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[239], 100); }
"""
    module, program, described = load(tmp_path, source, DIVERGENT_DISPATCH)
    with Device() as gpu, Session(gpu, module, program, described) as session:
        steps = session.run_once()
        out = session.dump(program.resources[0])["uint32"]
        plan, = session.scheduler._plans.values()
    expected, counts = divergent_expected()
    expected[239] += 100 * 10                    # one record per group, 10 groups
    assert out == expected
    assert {k: steps[0].dispatches[0].records_out[k] for k in counts} == counts
    fan = plan.levels[0][0]
    one, elements = fan.counters_at
    assert len(one) == 1 and len(elements) == 4
    spacing = COUNTER_SPACING if spaced else 4
    assert [at % spacing for at in elements] == [0] * 4
    assert [b - a for a, b in zip(elements, elements[1:])] == [spacing] * 3
    assert max(elements) + 4 <= plan.results_bytes
    if not spaced:
        assert plan.results_bytes <= 64


@device
def test_the_runtime_sets_the_subgroup_size_constant(tmp_path, monkeypatch):
    """Emulation ABI "Specialization constant": every pipeline of the module gets SpecId
    SUBGROUP_SIZE_SPEC_ID as the device's subgroup size (so llvmpipe's 8 lanes fold the branch to
    the per-invocation path, and its barriers are not compiled in); the constant is the
    emulation's, not one a dispatch file may name."""
    from wgc import emulation_abi as abi
    from wgc.runtime.device import Device
    from wgc.runtime.pipelines import module_spec_constants
    from wgc.runtime.run import _compile

    seen: list[tuple[int, bytes | None]] = []
    original = Device.pipelines

    def spy(self, words, entry_points, layout, specialization=None):
        if "Fan" in entry_points:        # the graph's pipelines (not the runtime's own meta shaders)
            seen.append((self.subgroup_size, (specialization or {}).get(abi.SUBGROUP_SIZE_SPEC_ID)))
        return original(self, words, entry_points, layout, specialization)

    monkeypatch.setattr(Device, "pipelines", spy)
    out, _ = session_run(tmp_path, DIVERGENT, DIVERGENT_DISPATCH, True)
    assert out == divergent_expected()[0]
    assert seen and all(value == size.to_bytes(4, "little") for size, value in seen)
    _, module, _ = _compile(str(tmp_path / "graph.hlsl"), None)
    assert module is not None and module_spec_constants(module) == []
