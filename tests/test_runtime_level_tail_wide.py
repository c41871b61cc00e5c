"""Level tails that set up many launches (emulation ABI 8, "Level tail"; wgc/spirv/emulated_tail.py,
gpu_schedule._fused): the last workgroup's invocations set up the next level's launches in
parallel, launch i by invocation i, i + the workgroup's size, ...

Expected buffers are computed by hand (a few lines of Python modelling each graph); both schedules
and the AMDX path (`amdx_paths.assert_amdx_agrees`) must give them.  Skips, with the reason printed,
where there is no Vulkan device.
"""

from __future__ import annotations

import json

import pytest

from amdx_paths import assert_amdx_agrees
from runtime_util import assert_schedule, load

pytestmark = pytest.mark.usefixtures("gpu_fusion")     # lavapipe fuses levels as a GPU does


def fan(n: int, root_threads: int | None) -> str:
    """Root sends each seed v to T[v % n] (a node array of n thread nodes: level 1 has n launches);
    T_k adds 1 to Out[k] and sends v to Leaf (level 2: n launches of Leaf, one per producing slot),
    which adds v + 1 to Out[n].  Root is a thread node (a workgroup of 32 invocations) or, with
    `root_threads`, a broadcasting node of that many threads of which the first sends."""
    if root_threads is None:
        root = f"""[Shader("node")] [NodeLaunch("thread")]
void Root(ThreadNodeInputRecord<Seed> s, [MaxRecords(1)] [NodeID("T")] [NodeArraySize({n})] NodeOutputArray<Item> t)
{{
    uint v = s.Get().v;
    ThreadNodeOutputRecords<Item> o = t[v % {n}].GetThreadNodeOutputRecords(1);
    o.Get().v = v;
    o.OutputComplete();
}}
"""
    else:
        root = f"""[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)]
[NumThreads({root_threads}, 1, 1)]
void Root(DispatchNodeInputRecord<Seed> s, uint gi : SV_GroupIndex,
          [MaxRecords(1)] [NodeID("T")] [NodeArraySize({n})] NodeOutputArray<Item> t)
{{
    uint v = s.Get().v;
    uint n = gi == 0 ? 1 : 0;
    ThreadNodeOutputRecords<Item> o = t[v % {n}].GetThreadNodeOutputRecords(n);
    if (n > 0) o.Get().v = v;
    o.OutputComplete();
}}
"""
    nodes = "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("T", {k})]
void T{k}(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Leaf)
{{
    InterlockedAdd(Out[{k}], 1);
    ThreadNodeOutputRecords<Item> o = Leaf.GetThreadNodeOutputRecords(1);
    o.Get().v = i.Get().v;
    o.OutputComplete();
}}
""" for k in range(n))
    return f"""RWStructuredBuffer<uint> Out : register(u0);
struct Seed {{ uint v; }};
struct Item {{ uint v; }};
{root}{nodes}[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> i) {{ InterlockedAdd(Out[{n}], i.Get().v + 1); }}
"""


def fan_seeds(n: int) -> list[int]:
    """Seeds that leave T_k without records where k % 3 == 1 (empty launches), two records for k % 3 == 2."""
    return [k for k in range(n) if k % 3 != 1] + [k + n for k in range(n) if k % 3 == 2]


def fan_expected(n: int, runs: int) -> list[int]:
    out = [0] * (n + 1)
    for v in fan_seeds(n):
        out[v % n] += 1          # T_{v % n}
        out[n] += v + 1          # Leaf
    return [runs * x for x in out]


def fan_dispatch(n: int) -> dict:
    return {"inputs": [{"entry": "Root", "records": [{"v": v} for v in fan_seeds(n)]}],
            "resources": {"u0": {"bytes": 4 * (n + 1)}}}


@pytest.mark.parametrize(("n", "root_threads", "fused"), [
    (5, None, [True, True, False]),       # fewer launches than invocations
    (5, 3, [True, True, False]),          # a workgroup of 3: invocations set up 2, 2 and 1 launches in turn
    (14, None, [True, True, False]),
    (40, None, [True, True, False]),      # more launches than the 32 invocations of a thread group
    (64, None, [True, True, False]),
    (65, None, [False, False, False]),    # past FUSED_LAUNCHES (2) per invocation: the meta pass
])
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_tails_set_up_many_launches(device, tmp_path, monkeypatch, n, root_threads, fused, gpu_driven):
    """Level 1 holds n launches (T_0 .. T_{n-1}, a third of them empty) and level 2 n launches of Leaf
    (one per producing slot), both set up by the tails of the level before where n is at most
    FUSED_LAUNCHES times the smallest workgroup's invocations; over two runs (the second replays the
    command buffer: the tails zeroed their `done` words).  By hand (`fan_expected`): Out[k] counts
    the seeds v with v % n == k, Out[n] sums v + 1 over all seeds, twice."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    monkeypatch.setattr(gpu_schedule, "FUSED_LAUNCHES", 2)
    module, program, described = load(tmp_path, fan(n, root_threads), fan_dispatch(n))
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        steps = [session.run_once(), session.run_once(1)]
        assert_schedule(session, gpu_driven, fused)
        assert session.dump(program.resources[0]) == {"uint32": fan_expected(n, 2)}
    given = {k: sum(1 for v in fan_seeds(n) if v % n == k) for k in range(n)}
    for run in steps:
        assert [sorted((d.node, d.records_in) for d in s.dispatches) for s in run[1:]] == [
            sorted((f"T[{k}]" if k else "T", c) for k, c in given.items() if c),
            sorted(("Leaf", c) for c in given.values() if c)]


def empty_fan(n: int) -> str:
    """Root (thread) adds c_k = `empty_counts(n)[k]` records to node k of n nodes without input: even
    k: A[k / 2], an array of thread nodes; odd k: B[k / 2], an array of coalescing nodes of 4 threads
    with an EmptyNodeInput (an array's nodes share one launch mode); each adds 1 to Out[k] per record."""
    calls = "".join(f"    {'ab'[k % 2]}[{k // 2}].ThreadIncrementOutputCount({c});\n"
                    for k, c in enumerate(empty_counts(n)) if c)
    nodes = "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("A", {k // 2})]
void E{k}() {{ InterlockedAdd(Out[{k}], 1); }}
""" if k % 2 == 0 else f"""[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)] [NodeID("B", {k // 2})]
void E{k}(EmptyNodeInput i, uint gi : SV_GroupIndex) {{ if (gi < i.Count()) InterlockedAdd(Out[{k}], 1); }}
""" for k in range(n))
    return f"""RWStructuredBuffer<uint> Out : register(u0);
struct Seed {{ uint v; }};
[Shader("node")] [NodeLaunch("thread")]
void Root(ThreadNodeInputRecord<Seed> s,
          [MaxRecords(16)] [NodeID("A")] [NodeArraySize({(n + 1) // 2})] EmptyNodeOutputArray a,
          [MaxRecords(16)] [NodeID("B")] [NodeArraySize({n // 2})] EmptyNodeOutputArray b)
{{
{calls}}}
{nodes}"""


def empty_counts(n: int) -> list[int]:
    """Records per Root thread for E_k: none where k % 5 == 3 (launches that get no record)."""
    return [0 if k % 5 == 3 else k % 7 + 1 for k in range(n)]


EMPTY_SEEDS = 3


def empty_dispatch(n: int) -> dict:
    return {"inputs": [{"entry": "Root", "records": [{"v": v} for v in range(EMPTY_SEEDS)]}],
            "resources": {"u0": {"bytes": 4 * n}}}


@pytest.mark.parametrize("n", [14, 40])
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_tails_set_up_launches_of_empty_inputs(device, tmp_path, monkeypatch, n, gpu_driven):
    """A level of n launches whose inputs are all empty records (thread and coalescing nodes without
    input, as vkd3d-proton's two_level_empty), some of them given none, set up by the tails of one
    thread group, over two runs.  By hand: Out[k] = runs x seeds x c_k."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    monkeypatch.setattr(gpu_schedule, "FUSED_LAUNCHES", 2)
    module, program, described = load(tmp_path, empty_fan(n), empty_dispatch(n))
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        session.run_once()
        steps = session.run_once(1)
        assert_schedule(session, gpu_driven, [True, False])
        assert session.dump(program.resources[0]) == {"uint32": [2 * EMPTY_SEEDS * c for c in empty_counts(n)]}
    assert sorted(d.records_in for d in steps[1].dispatches) == sorted(EMPTY_SEEDS * c for c in empty_counts(n) if c)


@pytest.mark.parametrize(("source", "dispatch", "expected"), [
    (fan(40, None), fan_dispatch(40), fan_expected(40, 1)),
    (fan(5, 3), fan_dispatch(5), fan_expected(5, 1)),
    (empty_fan(14), empty_dispatch(14), [EMPTY_SEEDS * c for c in empty_counts(14)]),
], ids=["fan-40", "fan-5-of-3", "empty-14"])
def test_wide_tails_on_the_amdx_path(tmp_path, source, dispatch, expected):
    """The graphs above through the AMDX module and its translation (wgc/spirv_in/translate.py, which
    adds the same tail, sized by the entry point's LocalSize): the hand count, as the emulated module."""
    import wgc
    from wgc.diagnostics import Renderer

    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    emulated = wgc.run(str(path), json.loads(json.dumps(dispatch)))
    assert emulated.ok, Renderer().render(list(emulated.diagnostics))
    assert emulated.schedule == "gpu-driven"
    assert emulated.resources == {"u0": {"uint32": expected}}
    amdx = assert_amdx_agrees(str(path), dispatch, emulated)
    assert amdx is not None and amdx.schedule == "gpu-driven"


# ---------------------------------------------------------------- grids given by the records (ABI 8)

# Make (thread) sends two records to Fill per seed n: a grid of (n % 5, n / 5) (0 groups where n % 5
# == 0 or n < 5) and one of (1, 1); the 16-bit grid sits at byte 2, after a 16-bit tag, so its
# components lie in the high half of word 0 and the low half of word 1.
SIXTEEN = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint n; };
struct Paint { uint16_t tag; uint16_t2 grid : SV_DispatchGrid; uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Make(ThreadNodeInputRecord<Job> job, [MaxRecords(2)] NodeOutput<Paint> Fill)
{
    uint n = job.Get().n;
    ThreadNodeOutputRecords<Paint> p = Fill.GetThreadNodeOutputRecords(2);
    p[0].tag = uint16_t(0xFFFF);
    p[0].grid = uint16_t2(n % 5, n / 5);
    p[0].slot = 2 * n;
    p[1].tag = uint16_t(0xFFFF);
    p[1].grid = uint16_t2(1, 1);
    p[1].slot = 2 * n + 1;
    p.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 6, 1)] [NumThreads(3, 1, 1)]
void Fill(DispatchNodeInputRecord<Paint> r, uint3 gid : SV_GroupID, uint3 dtid : SV_DispatchThreadID)
{
    InterlockedAdd(Out[r.Get().slot], 1 + dtid.x + 100 * gid.y);
}
"""


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_tails_sum_16_bit_grids_of_produced_records(device, tmp_path, monkeypatch, gpu_driven):
    """Fill's grids come from records Make wrote on the GPU (16-bit components at byte 2), some of 0
    groups; with FUSED_GRID_RECORDS at 16 Make's tail sums their 14 grids (one invocation, record after
    record) where the grid-scan shader did.  By hand: Out[2n] sums 1 + thread x + 100 group y over
    Fill's groups of n's first record, Out[2n + 1] = 1 + 2 + 3, over two runs."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    monkeypatch.setattr(gpu_schedule, "FUSED_GRID_RECORDS", 16)
    monkeypatch.setattr(gpu_schedule, "GRID_TABLE_KINDS", frozenset())     # as on a GPU: no group table
    ns = [7, 0, 13, 5, 29, 4, 21]
    dispatch = {"inputs": [{"entry": "Make", "records": [{"n": n} for n in ns]}], "resources": {"u0": {"bytes": 240}}}
    module, program, described = load(tmp_path, SIXTEEN, dispatch, enable_16bit_types=True)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        session.run_once()
        steps = session.run_once(1)
        assert_schedule(session, gpu_driven, [True, False])
        out = session.dump(program.resources[0])["uint32"]
    expected = [0] * 60
    groups = 0
    for n in ns:
        gx, gy = n % 5, n // 5
        expected[2 * n] = 2 * sum(1 + t + 100 * y for y in range(gy) for t in range(3 * gx))
        expected[2 * n + 1] = 2 * (1 + 2 + 3)
        groups += gx * gy + 1
    assert out == expected
    assert [[(d.node, d.records_in, d.groups) for d in s.dispatches] for s in steps] == [
        [("Make", len(ns), 1)], [("Fill", 2 * len(ns), groups)]]


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_tails_name_the_first_grid_beyond_the_max(device, tmp_path, monkeypatch, gpu_driven):
    """"It is invalid for [SV_DispatchGrid] to exceed [NodeMaxDispatchGrid]": of Fill's records from
    n = 7, 40, 3, 45 (n = 40 asks for 0 x 8, n = 45 for 0 x 9, beyond (4, 6, 1)), a run whose Fill
    level is set up by Make's tail names the first, as the host-driven run does."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import GridBeyondMax

    monkeypatch.setattr(gpu_schedule, "FUSED_GRID_RECORDS", 16)
    monkeypatch.setattr(gpu_schedule, "GRID_TABLE_KINDS", frozenset())     # as on a GPU: no group table
    dispatch = {"inputs": [{"entry": "Make", "records": [{"n": n} for n in (7, 40, 3, 45)]}],
                "resources": {"u0": {"bytes": 400}}}
    module, program, described = load(tmp_path, SIXTEEN, dispatch, enable_16bit_types=True)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        with pytest.raises(GridBeyondMax) as raised:
            session.run_once()
        assert_schedule(session, gpu_driven, [True, False])
    assert "0x8x1" in str(raised.value)


# Root (thread) sends each seed v to Wide (a uint3 grid of (v % 3 + 1, 2, 1), cross-group sharing)
# and to Bcast (a grid of v % 4 groups, 0 for v = 0 and 4), whose input Tap shares (a fixed grid of
# 2): level 1 is two launches of grids from records and one of a fixed grid, set up by Root's tail.
SHARING = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Seed { uint v; };
struct [NodeTrackRWInputSharing] Job { uint3 grid : SV_DispatchGrid; uint slot; };
struct Payload { uint grid : SV_DispatchGrid; uint add; };
[Shader("node")] [NodeLaunch("thread")]
void Root(ThreadNodeInputRecord<Seed> s, [MaxRecords(1)] NodeOutput<Job> Wide, [MaxRecords(1)] NodeOutput<Payload> Bcast)
{
    uint v = s.Get().v;
    ThreadNodeOutputRecords<Job> j = Wide.GetThreadNodeOutputRecords(1);
    j.Get().grid = uint3(v % 3 + 1, 2, 1);
    j.Get().slot = v;
    j.OutputComplete();
    ThreadNodeOutputRecords<Payload> p = Bcast.GetThreadNodeOutputRecords(1);
    p.Get().grid = v % 4;
    p.Get().add = v + 1;
    p.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(3, 2, 2)] [NumThreads(2, 1, 1)]
void Wide(globallycoherent RWDispatchNodeInputRecord<Job> j, uint gi : SV_GroupIndex)
{
    InterlockedAdd(Out[2 * j.Get().slot], 1);
    Barrier(NODE_INPUT_MEMORY, DEVICE_SCOPE | GROUP_SYNC);
    if (j.FinishedCrossGroupSharing() && gi == 0)
        InterlockedAdd(Out[2 * j.Get().slot + 1], 1);
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(4, 1, 1)]
void Bcast(DispatchNodeInputRecord<Payload> p, uint gi : SV_GroupIndex)
{
    InterlockedAdd(Out[20 + gi], p.Get().add);
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(1, 1, 1)]
[NodeShareInputOf("Bcast")]
void Tap(DispatchNodeInputRecord<Payload> p)
{
    InterlockedAdd(Out[30], p.Get().add);
}
"""
SHARING_SEEDS = [0, 1, 2, 3]
SHARING_DISPATCH = {"inputs": [{"entry": "Root", "records": [{"v": v} for v in SHARING_SEEDS]}],
                    "resources": {"u0": {"bytes": 4 * 32}}}


def sharing_expected(runs: int) -> list[int]:
    out = [0] * 32
    for v in SHARING_SEEDS:
        groups = (v % 3 + 1) * 2
        out[2 * v] += 2 * groups        # Wide: 2 threads per group
        out[2 * v + 1] += 1             # the last of its groups to call FinishedCrossGroupSharing
        for gi in range(4):
            out[20 + gi] += (v % 4) * (v + 1)   # Bcast: v % 4 groups of 4 threads
        out[30] += 2 * (v + 1)          # Tap: 2 groups per record, whatever Bcast's grid
    return [runs * x for x in out]


@pytest.mark.parametrize(("table", "fused"), [(False, [True, False]), (True, [False, False])])
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_tails_set_up_shared_inputs_and_cross_group_sharing(device, tmp_path, monkeypatch, gpu_driven, table,
                                                            fused):
    """As vkd3d-proton's shared_inputs and cross_group_sharing: a level of two launches whose grids
    come from 4 records each (within FUSED_GRID_RECORDS) and one of a fixed grid sharing an input, set
    up by the entry's tail (the sharing counters start at each record's groups, every run) where the
    device takes no group table (GRID_TABLE_KINDS: a GPU), else by the grid-scan shader, over two
    runs.  By hand (`sharing_expected`)."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    monkeypatch.setattr(gpu_schedule, "GRID_TABLE_KINDS", frozenset({device.info.kind} if table else ()))

    module, program, described = load(tmp_path, SHARING, SHARING_DISPATCH)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        session.run_once()
        steps = session.run_once(1)
        assert_schedule(session, gpu_driven, fused)
        assert session.dump(program.resources[0]) == {"uint32": sharing_expected(2)}
    assert sorted((d.node, d.records_in, d.groups) for d in steps[1].dispatches) == [
        ("Bcast", 4, sum(v % 4 for v in SHARING_SEEDS)), ("Tap", 4, 8),
        ("Wide", 4, sum((v % 3 + 1) * 2 for v in SHARING_SEEDS))]


def test_tails_of_grids_on_the_amdx_path(tmp_path, monkeypatch):
    """The sharing graph through the AMDX module and its translation (the same tail), on a device
    taken for a GPU (no group table, so the tails set the grids up): the hand count."""
    import wgc
    from wgc.diagnostics import Renderer
    from wgc.runtime import gpu_schedule

    monkeypatch.setattr(gpu_schedule, "GRID_TABLE_KINDS", frozenset())

    path = tmp_path / "graph.hlsl"
    path.write_text(SHARING)
    emulated = wgc.run(str(path), json.loads(json.dumps(SHARING_DISPATCH)))
    assert emulated.ok, Renderer().render(list(emulated.diagnostics))
    assert emulated.schedule == "gpu-driven"
    assert emulated.resources == {"u0": {"uint32": sharing_expected(1)}}
    amdx = assert_amdx_agrees(str(path), SHARING_DISPATCH, emulated)
    assert amdx is not None and amdx.schedule == "gpu-driven"
