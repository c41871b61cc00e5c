"""The OutputSlots of single outputs after the NodeContext (emulation ABI 8, "Outputs"): the
shaders read them at fixed offsets from the push constant's address, loaded before the prologue
can return (`EmulatedNodes._hoist_outputs`, wgc/spirv/emulated.py), and the runtimes place them
there (`gpu_schedule.GpuScheduler._image`, `scheduler.Scheduler`, which gives each NodeContext of a
launch split into several dispatches its own copy).  On a real device (lavapipe here): a node with
a node array, a record output, an empty output and a group-scope output in one parameter list, some
allocations after a divergent `return`, on both schedules, on a host-driven run split into several
dispatches per launch, and on the AMDX path (whose translated code still reaches the slots through
`outputs`); the expected buffers come from a few lines of Python.  Skips where there is no device.
"""

from __future__ import annotations

import pytest

import wgc
from wgc import emulation_abi as abi
from wgc.diagnostics import Renderer
from amdx_paths import assert_amdx_agrees
from runtime_util import load

SCHEDULES = pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])

GRAPH = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint id; };
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(8, 1, 1)]
void Make(DispatchNodeInputRecord<Job> job, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
          [MaxRecords(8)] [NodeArraySize(2)] NodeOutputArray<Item> Pick,
          [MaxRecords(8)] NodeOutput<Item> Odd,
          [MaxRecords(8)] EmptyNodeOutput Tick,
          [MaxRecords(1)] NodeOutput<Item> Last)
{
    uint n = job.Get().id * 24 + gid.x * 8 + gi;
    GroupNodeOutputRecords<Item> last = Last.GetGroupNodeOutputRecords(1);
    last.Get().v = job.Get().id * 3 + gid.x;
    last.OutputComplete();
    ThreadNodeOutputRecords<Item> pick = Pick[n % 2].GetThreadNodeOutputRecords(1);
    pick.Get().v = n;
    pick.OutputComplete();
    if (gi == 5) return;
    ThreadNodeOutputRecords<Item> odd = Odd.GetThreadNodeOutputRecords(n % 3 == 0 ? 1 : 0);
    if (n % 3 == 0) odd.Get().v = n;
    odd.OutputComplete();
    Tick.ThreadIncrementOutputCount(1);
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Pick", 0)]
void Pick0(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[r.Get().v], 1); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Pick", 1)]
void Pick1(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[r.Get().v], 2); }
[Shader("node")] [NodeLaunch("thread")]
void Odd(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[JOBS * 24 + r.Get().v / 3], 10); }
[Shader("node")] [NodeLaunch("thread")]
void Tick() { InterlockedAdd(Out[JOBS * 32], 1); }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Last([MaxRecords(4)] GroupNodeInputRecords<Item> r, uint gi : SV_GroupIndex)
{
    if (gi < r.Count()) InterlockedAdd(Out[JOBS * 32 + 1 + r[gi].v], 100);
}
"""
JOBS = 5


def expected() -> list[int]:
    """Job j, group g, invocation i: n = 24 j + 8 g + i goes to Pick[n % 2] (+1 or +2 at n); the
    invocations other than i = 5 send n to Odd where 3 divides n (+10 at 24 JOBS + n / 3) and count
    one Tick (+1 at 32 JOBS); each group sends 3 j + g to Last (+100 at 32 JOBS + 1 + 3 j + g)."""
    out = [0] * (JOBS * 32 + 1 + JOBS * 3)
    for j in range(JOBS):
        for g in range(3):
            out[JOBS * 32 + 1 + 3 * j + g] += 100
            for i in range(8):
                n = 24 * j + 8 * g + i
                out[n] += 1 if n % 2 == 0 else 2
                if i == 5:
                    continue
                if n % 3 == 0:
                    out[JOBS * 24 + n // 3] += 10
                out[JOBS * 32] += 1
    return out


def dispatch() -> dict:
    return {"inputs": [{"entry": "Make", "records": [{"id": j} for j in range(JOBS)]}],
            "resources": {"u0": {"bytes": 4 * len(expected())}}}


def source() -> str:
    return GRAPH.replace("JOBS", str(JOBS))


def run(device, tmp_path, gpu_driven: bool) -> tuple[list[int], list[list[tuple[str, int]]]]:
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, source(), dispatch())
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        out = session.dump(program.resources[0])["uint32"]
    return out, [sorted((d.node, d.records_in) for d in s.dispatches) for s in steps]


TRACE = [[("Make", JOBS)],
         [("Last", 3 * JOBS), ("Odd", 7 * JOBS), ("Pick", 12 * JOBS), ("Pick[1]", 12 * JOBS), ("Tick", 21 * JOBS)]]
"""Per job: 8 of its 24 values are multiples of 3, and one of those is an i = 5 value (24 j + 8 g +
5 with g = 2), so 7 reach Odd; 21 invocations pass the return (Tick); 3 groups (Last)."""


def test_the_slot_offsets_follow_the_context() -> None:
    """emulation_abi "Outputs": "the j-th such parameter's at `context + NODE_CONTEXT_SIZE + j *
    OUTPUT_SLOT_SIZE`"."""
    assert [abi.single_slot_offset(j) for j in range(3)] == [112, 144, 176]
    assert abi.ABI_VERSION >= 8


@SCHEDULES
def test_single_outputs_beside_a_node_array_and_a_divergent_return(device, tmp_path, gpu_driven):
    out, trace = run(device, tmp_path, gpu_driven)
    assert out == expected()
    assert trace == TRACE


def test_a_launch_split_into_dispatches_gives_each_context_its_slots(device, tmp_path, monkeypatch):
    """Host-driven, at most 2 x 2 groups per dispatch: Make's 15 groups run as 4 dispatches, each
    NodeContext followed by its own copy of the single outputs' slots."""
    monkeypatch.setattr(device, "max_group_count", (2, 2, 64))
    out, trace = run(device, tmp_path, False)
    assert out == expected()
    assert trace == TRACE


def test_the_amdx_path_agrees(tmp_path) -> None:
    path = tmp_path / "graph.hlsl"
    path.write_text(source())
    emulated = wgc.run(str(path), dispatch())
    assert emulated.ok, Renderer().render(list(emulated.diagnostics))
    assert emulated.resources == {"u0": {"uint32": expected()}}
    assert assert_amdx_agrees(str(path), dispatch(), emulated) is not None
