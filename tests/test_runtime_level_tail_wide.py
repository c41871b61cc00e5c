"""Level tails that set up many launches (emulation ABI 7, "Level tail"; wgc/spirv/emulated_tail.py,
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
from runtime_util import load


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
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        if gpu_driven:
            plan, = session.scheduler._plans.values()
            assert plan.fused == fused
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
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        if gpu_driven:
            plan, = session.scheduler._plans.values()
            assert plan.fused == [True, False]
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
