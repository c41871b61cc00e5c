"""Node-array allocation in stripes (emulation ABI 9, "Stripes"; `wgc.runtime.gpu_schedule`
`_stripe_count`, `_striped`; `wgc.spirv.emulated` `_stripe`).

A launch of the GPU-driven schedule with many workgroups splits each element of its node-array
outputs into STRIPES slots: group g allocates from stripe g % STRIPES (its counter, its part of the
element's arena), and the next level launches each stripe's records on its own.  D3D12 fixes no
order of a node's input records ("the order of records ... is not defined": workgraph-rules.md),
so what the consumers add is compared with a few lines of Python; the per-stripe counters against
the groups' own records, computed by hand.  The tests force stripes on lavapipe (a CPU device,
where nothing is striped by default) by patching the threshold.  Skips, with the reason printed,
where there is no Vulkan device.
"""

from __future__ import annotations

import struct

import pytest
from runtime_util import load, on_sixteen_lanes

import wgc
from amdx_paths import assert_amdx_agrees
from test_runtime_array_groups import (COALESCING, COALESCING_DISPATCH, DIVERGENT, DIVERGENT_DISPATCH, GREEDY,
                                       GREEDY_DISPATCH, SPARSE, coalescing_expected, divergent_expected, sinks)
from test_runtime_node_arrays import trace_name
from wgc.runtime import gpu_schedule
from wgc.runtime.gpu_schedule import STRIPES, _stripe_count, _striped
from wgc.runtime.scheduler import _Slot

device = pytest.mark.usefixtures("vulkan_device")


@pytest.fixture
def striped(monkeypatch):
    """Stripes on every launch, on every device (lavapipe included), 8 of them (the tests' hand
    computations take g % 8)."""
    monkeypatch.setattr(gpu_schedule, "STRIPE_GROUPS", 1)
    monkeypatch.setattr(gpu_schedule, "STRIPES", 8)
    monkeypatch.setattr(gpu_schedule, "UNSTRIPED_KINDS", frozenset())


class _Output:
    def __init__(self, array: bool = True, empty: bool = False) -> None:
        self.array, self.empty = array, empty


def test_stripes_only_on_node_arrays_of_many_groups(monkeypatch) -> None:
    """STRIPES (4, the default) where the launch has at least the threshold's groups, on
    record-carrying node arrays whose stripes stay within STRIPE_SLOTS; one elsewhere."""
    assert STRIPES == 4
    assert _stripe_count(_Output(), 4, 16384, 8192, STRIPES) == 4
    assert _stripe_count(_Output(), 4, 8191, 8192, STRIPES) == 1
    assert _stripe_count(_Output(array=False), 1, 16384, 8192, STRIPES) == 1
    assert _stripe_count(_Output(empty=True), 4, 16384, 8192, STRIPES) == 1
    assert _stripe_count(_Output(), 128, 16384, 8192, STRIPES) == 1          # 512 slots > STRIPE_SLOTS
    assert gpu_schedule.STRIPE_GROUPS > gpu_schedule.FUSED_GROUPS
    assert "cpu" in gpu_schedule.UNSTRIPED_KINDS


def test_a_stripes_capacity_is_its_groups_budget() -> None:
    """Stripe s of element i is slot s * elements + i; its capacity is what its groups (g % S == s)
    may send.  10 broadcasting groups (1 unit each), MaxRecordsPerNode 24, 8 stripes: stripes 0 and
    1 own 2 groups (48 records), the others 1 (24).  100 threads in 4 thread-launch groups of 32,
    2 stripes: groups 0, 2 and 1, 3, 64 threads each (the last group's 4 threads counted as 32:
    a bound), 1 record each."""
    elements = [_Slot(5, None, 240, 4), _Slot(None, None, 0, 0)]
    out = _striped(elements, 8, 10, 10, 1, 24)
    assert [(slot.target, slot.capacity) for slot in out] == \
        [(5, 48), (None, 0), (5, 48), (None, 0)] + [(5, 24), (None, 0)] * 6
    assert [slot.capacity for slot in _striped([_Slot(1, None, 100, 4)], 2, 4, 100, 32, 1)] == [64, 64]
    assert [slot.capacity for slot in _striped([_Slot(1, None, 100, 4)], 8, 4, 100, 32, 1)] == [32] * 4 + [0] * 4
    assert _striped(elements, 1, 10, 10, 1, 24) is elements


def _session(tmp_path, source: str, dispatch: dict, gpu_driven: bool = True):
    """(words of the first resource, trace, the plan, the result words) of one run in a Session."""
    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, source, dispatch)
    assert program.stripes
    with Device() as gpu, Session(gpu, module, program, described, gpu_driven=gpu_driven) as session:
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        out = session.dump(program.resources[0])["uint32"]
        plans = [plan for plan in session.scheduler._plans.values() if plan is not None] if gpu_driven else []
    plan = plans[0] if plans else None
    words = plan.last_read[1] if plan is not None and plan.last_read is not None else b""
    return out, steps, plan, struct.unpack(f"<{len(words) // 4}I", words)


@device
def test_divergent_indices_in_stripes(tmp_path, striped):
    """DIVERGENT: flat group g (two seeds x 5 groups) holds invocations i = 12 g .. 12 g + 11, each
    sending 2 records to Sink[(7 i + i // 5) % 4]; group g adds to stripe g % 8.  Each stripe's
    counter holds its groups' records, each element's 8 stripes are 8 launches of the next level,
    shown in the trace as one launch per element."""
    out, steps, plan, words = _session(tmp_path, DIVERGENT, DIVERGENT_DISPATCH)
    expected, counts = divergent_expected()
    assert out == expected
    fan = plan.levels[0][0]
    assert fan.stripes == [8] and len(fan.outputs[0]) == 32
    stripe_records = [0] * 32
    for i in range(120):
        stripe_records[(i // 12) % 8 * 4 + (i * 7 + i // 5) % 4] += 2
    assert [words[at // 4] for at in fan.counters_at[0]] == stripe_records
    assert len(plan.levels[1]) == 32
    assert {k: steps[0].dispatches[0].records_out[k] for k in counts} == counts
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == counts
    assert len(steps[1].dispatches) == 4


UNIFORM = DIVERGENT.replace("Sink[(i * 7 + i / 5) % 4]", "Sink[(seed.Get().v / 60 + gid.x) % 4]")


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_uniform_indices_in_stripes(tmp_path, striped, gpu_driven):
    """The element uniform in each group: seed r (v = 60 r), group x sends its 24 records to
    Sink[(r + x) % 4]; stripe g % 8 of flat group g = 5 r + x.  The host-driven schedule keeps one
    slot per element (stripe_mask 0)."""
    out, steps, plan, words = _session(tmp_path, UNIFORM, DIVERGENT_DISPATCH, gpu_driven)
    expected = [0] * 240
    counts = {f"Sink[{k}]": 0 for k in range(4)}
    stripe_records = [0] * 32
    for i in range(120):
        g = i // 12
        k = (g // 5 + g % 5) % 4
        expected[2 * i] = expected[2 * i + 1] = k + 1
        counts[f"Sink[{k}]"] += 2
        stripe_records[g % 8 * 4 + k] += 2
    assert out == expected
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == counts
    if gpu_driven:
        assert [words[at // 4] for at in plan.levels[0][0].counters_at[0]] == stripe_records


PARTIAL = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Fan(ThreadNodeInputRecord<Item> r, [MaxRecords(1)] [NodeArraySize(3)] NodeOutputArray<Item> Sink)
{
    uint v = r.Get().v;
    ThreadNodeOutputRecords<Item> rec = Sink[v % 3].GetThreadNodeOutputRecords(1);
    rec.Get().v = v;
    rec.OutputComplete();
}
""" + sinks(range(3))


@device
def test_a_thread_launch_producer_with_a_partial_group(tmp_path, striped):
    """100 records of a thread node: groups of 32 (the last of 4), group g in stripe g % 8 (4 used);
    record v goes to Sink[v % 3], which adds v % 3 + 1 to Out[v]."""
    dispatch = {"inputs": [{"entry": "Fan", "records": [{"v": v} for v in range(100)]}],
                "resources": {"u0": {"bytes": 400}}}
    out, steps, plan, words = _session(tmp_path, PARTIAL, dispatch)
    assert out == [v % 3 + 1 for v in range(100)]
    stripe_records = [0] * 24
    for v in range(100):
        stripe_records[(v // 32) % 8 * 3 + v % 3] += 1
    assert [words[at // 4] for at in plan.levels[0][0].counters_at[0]] == stripe_records
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == {
        f"Sink[{k}]": sum(1 for v in range(100) if v % 3 == k) for k in range(3)}
    assert assert_amdx_agrees(str(tmp_path / "graph.hlsl"), dispatch,
                              wgc.run(str(tmp_path / "graph.hlsl"), dispatch)) is not None


@device
def test_sparse_arrays_and_indices_past_the_array_in_stripes(tmp_path, striped):
    """SPARSE ([NodeArraySize(5)], nodes 0, 2 and 3; index i % 7): missing and past-the-end indices
    go to scratch in every stripe; the others land once on their node."""
    dispatch = {"inputs": [{"entry": "Fan", "records": [{"v": 0}]}], "resources": {"u0": {"bytes": 4 * 64}}}
    out, steps, plan, words = _session(tmp_path, SPARSE, dispatch)
    assert out == [{0: 1, 2: 3, 3: 4}.get(i % 7, 0) for i in range(64)]
    stripe_records = [0] * 40
    for i in range(64):
        if i % 7 in (0, 2, 3):
            stripe_records[(i // 16) % 8 * 5 + i % 7] += 1
    assert [words[at // 4] for at in plan.levels[0][0].counters_at[0]] == stripe_records
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == {
        f"Sink[{k}]": sum(1 for i in range(64) if i % 7 == k) for k in (0, 2, 3)}


@device
def test_a_coalescing_producer_in_stripes(tmp_path, striped):
    """COALESCING: 21 records in groups of 8 (8, 8, 5), every invocation sends one record."""
    out, steps, plan, _ = _session(tmp_path, COALESCING, COALESCING_DISPATCH)
    assert out == coalescing_expected()
    assert plan.levels[0][0].stripes == [8]
    assert sum(d.records_in for d in steps[1].dispatches) == 24


@device
def test_every_stripe_past_its_arena_is_reported(tmp_path, striped):
    """GREEDY: 3 groups of 8 each send 8 records to Sink[0] where MaxRecords(4) allows 4: stripes 0,
    1 and 2 (one group each) hold 4 records and are asked for 8: WG0805 naming the node."""
    path = tmp_path / "graph.hlsl"
    path.write_text(GREEDY)
    result = wgc.run(path, GREEDY_DISPATCH)
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["WG0805"]
    assert "node 'Fan'" in errors[0].message, errors[0].message


ONE_GREEDY = GREEDY.replace("Sink[0].GetThreadNodeOutputRecords(1)",
                            "Sink[seed.Get().v].GetThreadNodeOutputRecords(gid.x == 1 ? 1 : 0)").replace(
    "uint gi : SV_GroupIndex", "uint3 gid : SV_GroupID, uint gi : SV_GroupIndex")


@device
def test_one_stripe_past_its_arena_is_reported(tmp_path, monkeypatch):
    """Only group 1 of 3 goes past MaxRecords(4) (8 records; the others send none).  With one slot
    the element's arena holds the 3 groups' 12 and the run passes (undefined behaviour in D3D12:
    nothing to report); in stripes group 1's stripe holds its own 4 and the run fails with WG0805."""
    path = tmp_path / "graph.hlsl"
    path.write_text(ONE_GREEDY)
    whole = wgc.run(path, GREEDY_DISPATCH)
    assert whole.ok
    monkeypatch.setattr(gpu_schedule, "STRIPE_GROUPS", 1)
    monkeypatch.setattr(gpu_schedule, "UNSTRIPED_KINDS", frozenset())
    monkeypatch.setattr(gpu_schedule, "STRIPES", 8)
    result = wgc.run(path, GREEDY_DISPATCH)
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["WG0805"]
    assert "node 'Fan'" in errors[0].message, errors[0].message


@device
@pytest.mark.parametrize("schedule", ["smallest", "reverse", "7"])
def test_the_debugging_schedules_with_stripes_on(tmp_path, striped, schedule):
    """The debugging schedules run host-driven, one slot per element: the same buffer."""
    from wgc.runtime.schedules import DebugRun, Schedule

    path = tmp_path / "graph.hlsl"
    path.write_text(DIVERGENT)
    result = wgc.run(path, DIVERGENT_DISPATCH, debug=DebugRun(schedule=Schedule.parse(schedule)))
    assert result.ok
    assert result.resources["u0"]["uint32"] == divergent_expected()[0]


@device
def test_the_amdx_path_keeps_one_slot(tmp_path, striped, monkeypatch):
    """The AMDX translation's `allocate` knows one slot per element: its program has no stripes
    (`Program.stripes`), and its run agrees with the striped emulated one."""
    from wgc.runtime import program as programs

    made = []
    build = programs.build_program

    def recording(reflection, stripes=True):
        made.append(build(reflection, stripes))
        return made[-1]
    monkeypatch.setattr(programs, "build_program", recording)
    path = tmp_path / "graph.hlsl"
    path.write_text(DIVERGENT)
    emulated = wgc.run(path, DIVERGENT_DISPATCH)
    assert emulated.ok and emulated.resources["u0"]["uint32"] == divergent_expected()[0]
    assert [p.stripes for p in made] == [True]
    assert assert_amdx_agrees(str(path), DIVERGENT_DISPATCH, emulated) is not None
    assert any(not p.stripes for p in made[1:])      # the translated modules' program


WIDE_CHILD = """\
import json, pathlib, sys
sys.path.insert(0, sys.argv[1])
import wgc
from wgc.runtime import gpu_schedule
gpu_schedule.STRIPE_GROUPS = 1
gpu_schedule.UNSTRIPED_KINDS = frozenset()
gpu_schedule.STRIPES = 8
from test_runtime_array_groups import DIVERGENT, DIVERGENT_DISPATCH
from test_runtime_node_arrays import LANES
from test_runtime_stripes import UNIFORM, _session
folder = pathlib.Path(sys.argv[2])
(folder / "lanes.hlsl").write_text(LANES)
lanes = wgc.run(str(folder / "lanes.hlsl"), {"inputs": [{"entry": "Go", "records": [{"v": 0}]}],
                                              "resources": {"u0": {"bytes": 4}}})
found = {"lanes": lanes.resources["u0"]["uint32"][0]}
for name, source in (("divergent", DIVERGENT), ("uniform", UNIFORM)):
    out, steps, plan, words = _session(folder, source, DIVERGENT_DISPATCH)
    found[name] = [out, [words[at // 4] for at in plan.levels[0][0].counters_at[0]]]
print(json.dumps(found))
"""


@device
def test_the_group_counts_into_stripes_on_sixteen_lanes(tmp_path):
    """With LP_NATIVE_VECTOR_WIDTH=512 llvmpipe's subgroups have 16 lanes and the group counts per
    element in Workgroup memory (`_group_add_per_key`, the path of GPUs): invocation j adds element
    j's total to the counter of the group's stripe.  The buffers and the per-stripe counters are
    those computed by hand (in a process of its own: llvmpipe reads the variable when it loads)."""
    from conftest import ROOT

    found = on_sixteen_lanes(WIDE_CHILD, str(ROOT / "tests"), str(tmp_path))
    divergent = [0] * 32
    uniform = [0] * 32
    for i in range(120):
        g = i // 12
        divergent[g % 8 * 4 + (i * 7 + i // 5) % 4] += 2
        uniform[g % 8 * 4 + (g // 5 + g % 5) % 4] += 2
    assert found["divergent"] == [divergent_expected()[0], divergent]
    assert found["uniform"][1] == uniform


@device
def test_run_time_checks_in_stripes(tmp_path, striped):
    """`wgc run --check` with stripes: test_run_checks' fan (2 groups of 4; group 1 sends its four
    records to Leaf[0], MaxRecordsPerNode(2)) reports the call that makes it 3 in group 1, as with
    one slot; without the mistake each leaf counts one record per group."""
    from test_run_checks import checked, codes_of, fan, only

    dispatch = {"inputs": [{"entry": "Fan", "records": [{}]}], "resources": {"u0": {"bytes": 16}}}
    _, result = checked(tmp_path, fan(1), dispatch)
    reports = only(result.checks, kind="max-records-per-node")
    assert [(r.node, r.group, r.value, r.limit, r.subject) for r in reports] == [("Fan", 1, 3, 2, "Leaf[0]")]
    assert "WG0847" in codes_of(result)
    _, fine = checked(tmp_path, fan(7), dispatch)
    assert fine.ok and fine.checks == []
    assert fine.resources["u0"] == {"uint32": [2, 2, 2, 2]}


@device
def test_prints_of_the_stripes_launches(tmp_path, striped):
    """Each stripe of an element is a launch of its own: the consumers' prints of all of them are
    kept, one per record (DIVERGENT: record 2 i and 2 i + 1 reach Sink[(7 i + i // 5) % 4])."""
    source = DIVERGENT.replace("{ InterlockedAdd(Out[r.Get().v],", '{ printf("%u", r.Get().v); InterlockedAdd(Out[r.Get().v],')
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    result = wgc.run(path, DIVERGENT_DISPATCH)
    assert result.ok and result.prints_lost == 0
    assert sorted((p.node, int(p.text)) for p in result.prints) == sorted(
        ("Sink" if k == 0 else f"Sink[{k}]", v) for i in range(120)
        for k in [(i * 7 + i // 5) % 4] for v in (2 * i, 2 * i + 1))


@device
def test_a_plan_past_the_launch_limit_in_stripes_is_made_without_them(tmp_path, striped, monkeypatch):
    """Eight stripes of four elements are 32 launches at the next level: with MAX_LAUNCHES patched
    to 8 that plan is not possible, and the schedule plans the run with one slot per element (5
    launches) instead of leaving the GPU-driven schedule."""
    monkeypatch.setattr(gpu_schedule, "MAX_LAUNCHES", 8)
    out, steps, plan, _ = _session(tmp_path, DIVERGENT, DIVERGENT_DISPATCH)
    assert out == divergent_expected()[0]
    assert plan.levels[0][0].stripes == [1] and len(plan.levels[1]) == 4


GRIDS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint3 grid : SV_DispatchGrid; uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(8, 1, 1)]
void Fan(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
         [MaxRecords(8)] [NodeArraySize(2)] NodeOutputArray<Job> Sink)
{
    uint i = gid.x * 8 + gi;
    ThreadNodeOutputRecords<Job> rec = Sink[i % 2].GetThreadNodeOutputRecords(1);
    rec.Get().grid = uint3(i % 3 + 1, 1, 1);
    rec.Get().v = i;
    rec.OutputComplete();
}
""" + "".join(f"""[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(2, 1, 1)]
[NodeID("Sink", {k})]
void Sink{k}(DispatchNodeInputRecord<Job> r, uint gi : SV_GroupIndex)
{{ if (gi == 0) InterlockedAdd(Out[r.Get().v], {k + 1}); }}
""" for k in range(2))


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_grids_given_by_the_records_of_stripes(tmp_path, striped, gpu_driven):
    """Consumers whose grid comes from the record (`grid_setup`, one per stripe launch): record i
    (0..23, group i // 8 on stripe i // 8) asks Sink[i % 2] for i % 3 + 1 groups, each adding
    i % 2 + 1 to Out[i]; the trace's groups per element are the records' grids summed."""
    dispatch = {"inputs": [{"entry": "Fan", "records": [{}]}], "resources": {"u0": {"bytes": 4 * 24}}}
    out, steps, plan, words = _session(tmp_path, GRIDS, dispatch, gpu_driven)
    assert out == [(i % 3 + 1) * (i % 2 + 1) for i in range(24)]
    assert {trace_name(d.node): (d.records_in, d.groups) for d in steps[1].dispatches} == {
        f"Sink[{k}]": (12, sum(i % 3 + 1 for i in range(24) if i % 2 == k)) for k in range(2)}
    if gpu_driven:
        stripe_records = [0] * 16
        for i in range(24):
            stripe_records[i // 8 * 2 + i % 2] += 1
        assert [words[at // 4] for at in plan.levels[0][0].counters_at[0]] == stripe_records


@device
def test_the_default_stripe_count(tmp_path, monkeypatch):
    """Four stripes (the default `STRIPES`), the threshold lowered: DIVERGENT's group g on
    stripe g % STRIPES."""
    monkeypatch.setattr(gpu_schedule, "STRIPES", 4)
    monkeypatch.setattr(gpu_schedule, "STRIPE_GROUPS", 1)
    monkeypatch.setattr(gpu_schedule, "UNSTRIPED_KINDS", frozenset())
    out, steps, plan, words = _session(tmp_path, DIVERGENT, DIVERGENT_DISPATCH)
    assert out == divergent_expected()[0]
    stripes = 4
    stripe_records = [0] * (4 * stripes)
    for i in range(120):
        stripe_records[(i // 12) % stripes * 4 + (i * 7 + i // 5) % 4] += 2
    assert plan.levels[0][0].stripes == [stripes]
    assert [words[at // 4] for at in plan.levels[0][0].counters_at[0]] == stripe_records
    assert len(steps[1].dispatches) == 4 and len(plan.levels[1]) == 4 * stripes


def test_stripes_by_range_follow_the_workers(monkeypatch) -> None:
    """On a CPU device (RANGE_STRIPE_KINDS) the stripes are the power of two at or above llvmpipe's
    worker threads (`LP_NUM_THREADS`), and group g takes stripe (g >> k) % S with 2^k * S at least
    the launch's groups: 16,384 groups on 2 threads, k 13 (each thread's contiguous half of them, on
    counters of its own); capacities count each stripe's groups (emulation ABI, "Stripes")."""
    from wgc.runtime.gpu_schedule import _range_stripes, _stripe_groups, _stripe_shift

    for threads, stripes in (("1", 1), ("2", 2), ("3", 4), ("4", 4), ("0", 1), ("64", 16)):
        monkeypatch.setenv("LP_NUM_THREADS", threads)
        assert _range_stripes() == stripes, threads
    assert "cpu" in gpu_schedule.RANGE_STRIPE_KINDS
    assert _stripe_shift(2, 16384, True) == 13 and _stripe_shift(4, 10, True) == 2
    assert _stripe_shift(4, 16384, False) == 0 and _stripe_shift(1, 16384, True) == 0
    # by hand: the groups g < G with ((g >> k) & (S - 1)) == s
    for groups, stripes, shift in ((10, 4, 2), (16384, 2, 13), (37, 4, 0), (37, 2, 3), (5, 8, 1)):
        for s in range(stripes):
            assert _stripe_groups(groups, stripes, shift, s) == \
                sum(1 for g in range(groups) if (g >> shift) & (stripes - 1) == s), (groups, stripes, shift, s)
    slot = [_Slot(1, None, 100, 4)]
    assert [x.capacity for x in _striped(slot, 4, 10, 100, 1, 3, shift=2)] == [12, 12, 6, 0]


@device
def test_stripes_by_range_on_lavapipe(tmp_path, monkeypatch):
    """SPARSE (4 groups of 16, index i % 7 of [NodeArraySize(5)], nodes 0, 2 and 3) with stripes
    by range on 2 workers: groups 0 and 1 take stripe 0, groups 2 and 3 stripe 1 (k 1; by g % 2
    they would alternate). Each stripe's counters are those computed by hand, the buffer that of
    one slot per element."""
    monkeypatch.setattr(gpu_schedule, "STRIPE_GROUPS", 1)
    monkeypatch.setenv("LP_NUM_THREADS", "2")
    dispatch = {"inputs": [{"entry": "Fan", "records": [{"v": 0}]}], "resources": {"u0": {"bytes": 4 * 64}}}
    out, steps, plan, words = _session(tmp_path, SPARSE, dispatch)
    assert out == [{0: 1, 2: 3, 3: 4}.get(i % 7, 0) for i in range(64)]
    launch = plan.levels[0][0]
    assert launch.stripes == [2] and launch.stripe_shift == 1
    stripe_records = [0] * 10
    for i in range(64):
        if i % 7 in (0, 2, 3):
            stripe_records[(i // 16 >> 1) % 2 * 5 + i % 7] += 1
    assert [words[at // 4] for at in launch.counters_at[0]] == stripe_records
    assert {trace_name(d.node): d.records_in for d in steps[1].dispatches} == {
        f"Sink[{k}]": sum(1 for i in range(64) if i % 7 == k) for k in (0, 2, 3)}

