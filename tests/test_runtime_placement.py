"""Static allocation (wgc/spirv/emulated_placement.py, emulation_abi "Outputs") on a real device
(lavapipe here): the records of a call every invocation makes exactly once are placed by group
index, and a run gives the same buffers as the counter-based allocation would, under both schedules
and under the debugging schedule that runs a launch's groups as launches of their own
(`first_group`).

Expected buffers come from a few lines of Python modelling each graph.  Skips, with the reason
printed, where there is no Vulkan device.
"""

from __future__ import annotations


import pytest

import wgc
from wgc.diagnostics import Renderer
from wgc.runtime.schedules import DebugRun, Schedule

device = pytest.mark.usefixtures("vulkan_device")

BROADCAST = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(4, 2, 1)]
void Make(DispatchNodeInputRecord<Item> seed, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
          [MaxRecords(16)] NodeOutput<Item> Each, [MaxRecords(3)] NodeOutput<Item> Ours)
{
    ThreadNodeOutputRecords<Item> mine = Each.GetThreadNodeOutputRecords(2);
    mine[0].v = seed.Get().v + (gid.x * 8 + gi) * 2;
    mine[1].v = seed.Get().v + (gid.x * 8 + gi) * 2 + 1;
    mine.OutputComplete();
    GroupNodeOutputRecords<Item> ours = Ours.GetGroupNodeOutputRecords(3);
    if (gi < 3) ours[gi].v = seed.Get().v / 48 * 9 + gid.x * 3 + gi;
    ours.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Each(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[r.Get().v], 1); }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Ours([MaxRecords(4)] GroupNodeInputRecords<Item> r, uint gi : SV_GroupIndex)
{
    if (gi < r.Count()) InterlockedAdd(Out[96 + r[gi].v], 10);
}
"""

THREADS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint id; };
[Shader("node")] [NodeLaunch("thread")]
void Split(ThreadNodeInputRecord<Job> job, [MaxRecords(1)] NodeOutput<Job> Mark)
{
    ThreadNodeOutputRecords<Job> next = Mark.GetThreadNodeOutputRecords(1);
    next.Get().id = job.Get().id * 3;
    next.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Mark(ThreadNodeInputRecord<Job> job) { InterlockedAdd(Out[job.Get().id], job.Get().id + 1); }
"""


def run(tmp_path, source: str, dispatch: dict, **options) -> wgc.RunResult:
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    result = wgc.run(path, dispatch, **options)
    assert result.ok, Renderer().render(list(result.diagnostics))
    return result


def broadcast_expected() -> list[int]:
    """Two seeds (0 and 48), 3 groups of 8 invocations: invocation i of group g sends 2i + 16g + seed
    and 2i + 16g + seed + 1 to Each (each of 0..95 once); each group sends 3 records to Ours, seed 1's
    9 values after seed 0's (each of 0..17 once, +10 each)."""
    out = [0] * (96 + 18)
    for seed in (0, 48):
        for g in range(3):
            for i in range(8):
                for k in (0, 1):
                    out[seed + (g * 8 + i) * 2 + k] += 1
            for j in range(3):
                out[96 + seed // 48 * 9 + g * 3 + j] += 10
    return out


BROADCAST_DISPATCH = {"inputs": [{"entry": "Make", "records": [{"v": 0}, {"v": 48}]}],
                      "resources": {"u0": {"bytes": 4 * (96 + 18)}}}


def session_run(tmp_path, source: str, dispatch: dict, gpu_driven: bool):
    """(the first resource's words, the trace) of one run through a `Session` on the chosen schedule."""
    from runtime_util import load

    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, source, dispatch)
    with Device() as gpu, Session(gpu, module, program, described, gpu_driven=gpu_driven) as session:
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        return session.dump(program.resources[0])["uint32"], steps


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_statically_placed_records_fill_the_outputs_exactly(tmp_path, gpu_driven):
    """Thread scope (2 per invocation) and group scope (3 per group) from a broadcasting node: every
    record lands once; the trace counts 96 and 18 records."""
    out, steps = session_run(tmp_path, BROADCAST, BROADCAST_DISPATCH, gpu_driven)
    assert out == broadcast_expected()
    assert [(d.node, d.records_in, d.records_out) for d in steps[0].dispatches] == [
        ("Make", 2, {"Each": 96, "Ours": 18})]


@device
@pytest.mark.parametrize("schedule", ["smallest", "reverse", "7"])
def test_static_placement_under_the_debugging_schedules(tmp_path, schedule):
    """"smallest" runs each broadcasting group as a launch of its own (its slots' `first_group`):
    group g's records start at record 0 of its own arena, not at g * K."""
    result = run(tmp_path, BROADCAST, BROADCAST_DISPATCH, debug=DebugRun(schedule=Schedule.parse(schedule)))
    assert result.resources["u0"]["uint32"] == broadcast_expected()


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_thread_launch_producers_count_only_their_live_invocations(tmp_path, gpu_driven):
    """45 thread records (a group of 32 and one of 13 live invocations): invocation 0 of each group
    adds c times its live invocations, so Mark gets exactly 45 records, each once."""
    jobs = 45
    dispatch = {"inputs": [{"entry": "Split", "records": [{"id": i} for i in range(jobs)]}],
                "resources": {"u0": {"bytes": 4 * 3 * jobs}}}
    out, steps = session_run(tmp_path, THREADS, dispatch, gpu_driven)
    expected = [0] * (3 * jobs)
    for i in range(jobs):
        expected[3 * i] = 3 * i + 1
    assert out == expected
    assert [(d.node, d.records_in, d.records_out) for d in steps[0].dispatches] == [("Split", jobs, {"Mark": jobs})]
