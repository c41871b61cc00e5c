"""The GPU-driven schedule (wgc/runtime/gpu_schedule.py, indirect_setup.py), subgroup-aggregated
allocation (wgc/spirv/emulated.py) and device-local memory behind staging copies (device.py), on a
real device (lavapipe here).

Expected buffers come from a few lines of Python modelling each graph; the host-driven path
(`gpu_driven=False`) is the reference only for the trace's shape, which both paths must report
identically.  Skips, with the reason printed, where there is no Vulkan device.
"""

from __future__ import annotations

import struct

import pytest

from wgc.runtime import indirect_setup
from runtime_util import load


class Submits:
    """Counts the command buffers the device runs (`submit` and `replay` both end in `replay`)."""

    def __init__(self, device) -> None:
        self.device, self.count, self.original = device, 0, device.replay

    def __enter__(self):
        def counted(commands) -> None:
            self.count += 1
            self.original(commands)
        self.device.replay = counted
        return self

    def __exit__(self, *_: object) -> None:
        del self.device.replay


def trace_of(steps) -> list:
    return [(s.repeat, s.level, [d.to_json() for d in s.dispatches]) for s in steps]


def test_the_meta_shader_words_are_its_assembly():
    from wgc.spirv.tools import assemble, validate

    words = assemble(indirect_setup.ASSEMBLY)
    assert struct.pack(f"<{len(words)}I", *words) == indirect_setup.module()
    assert validate(indirect_setup.module()) == []


RECURSION = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Level { uint depth; };
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(5)]
void Down(ThreadNodeInputRecord<Level> r, [MaxRecords(2)] NodeOutput<Level> Down)
{
    InterlockedAdd(Out[r.Get().depth], 1);
    uint n = GetRemainingRecursionLevels() > 0 ? 2 : 0;
    ThreadNodeOutputRecords<Level> next = Down.GetThreadNodeOutputRecords(n);
    if (n > 0) { next[0].depth = r.Get().depth + 1; next[1].depth = r.Get().depth + 1; }
    next.OutputComplete();
}
"""


def test_a_run_of_six_levels_is_one_submit(device, tmp_path):
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, RECURSION, '{"inputs": [{"entry": "Down", "records": '
                                      '[{"depth": 0}]}], "resources": {"u0": {"bytes": 32}}}')
    traces, submits = {}, {}
    for gpu_driven in (True, False):
        with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
            session.run_once()                              # allocates (staging fills are submits)
            with Submits(device) as counted:
                steps = session.run_once(1)
            assert session.scheduler.last_run_gpu_driven is gpu_driven
            submits[gpu_driven] = counted.count
            traces[gpu_driven] = trace_of(steps)
            # each record at depth d makes two at d + 1 while recursion levels remain: 2**d records,
            # counted by both runs
            assert session.dump(program.resources[0]) == {"uint32": [2 * 2 ** d for d in range(6)] + [0, 0]}
    assert submits == {True: 1, False: 6}
    assert traces[True] == traces[False]
    assert [(level, [(d["records_in"], d["records_out"]) for d in dispatches])
            for _, level, dispatches in traces[True]] == [
        (d, [(2 ** d, {"Down": 2 ** (d + 1) if d < 5 else 0})]) for d in range(6)]



def test_a_new_control_buffer_at_a_freed_ones_address_is_recorded_again(device, tmp_path):
    """The recorded command buffer names the control buffer (its indirect dispatches read it), so
    a new control buffer gets new commands even where it has the freed one's address and handle
    (Vulkan may give both again): `Buffer.serial` tells them apart. Simulated by a copy of the
    buffer with a new serial (the same memory, so the run stays valid); the results are the hand
    count."""
    import dataclasses

    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, RECURSION, '{"inputs": [{"entry": "Down", "records": '
                                      '[{"depth": 0}]}], "resources": {"u0": {"bytes": 32}}}')
    with Session(device, module, program, described) as session:
        session.run_once()
        scheduler = session.scheduler
        plan, = [p for p in scheduler._plans.values() if p is not None]
        recorded = plan.commands
        session.run_once()
        assert plan.commands is recorded                    # the same buffers: replayed as recorded
        old = scheduler._gpu_control
        twin = dataclasses.replace(old, serial=old.serial + 1000)
        scheduler._gpu_buffer = lambda buffer, size, host: twin if buffer in (old, twin) else buffer
        session.run_once()
        assert plan.commands is not recorded
        # three runs, each adding 2**d at depth d
        assert session.dump(program.resources[0]) == {"uint32": [3 * 2 ** d for d in range(6)] + [0, 0]}
        scheduler._gpu_control = old                        # freed once, by the session's close
        del scheduler._gpu_buffer


UNEVEN = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint id; };
struct Piece { uint value; };
[Shader("node")] [NodeLaunch("thread")]
void Split(ThreadNodeInputRecord<Job> job, [MaxRecords(3)] NodeOutput<Piece> Mark)
{
    uint n = job.Get().id % 4;                      // 0 to 3 records per thread, uneven in a subgroup
    ThreadNodeOutputRecords<Piece> pieces = Mark.GetThreadNodeOutputRecords(n);
    for (uint k = 0; k < n; k++) pieces[k].value = job.Get().id * 4 + k;
    pieces.OutputComplete();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Mark([MaxRecords(4)] GroupNodeInputRecords<Piece> pieces, uint gi : SV_GroupIndex)
{
    if (gi < pieces.Count()) InterlockedAdd(Out[pieces[gi].value], 1);
}
"""


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_uneven_thread_allocations_tile_the_records_exactly(device, tmp_path, gpu_driven):
    """Subgroup-aggregated allocation: every record a thread asked for lands once, none is lost or
    shared, whatever the counts of the other invocations of its subgroup."""
    from wgc.runtime.run import Session

    jobs = 83                                        # not a multiple of 8 or 32
    dispatch = ('{"inputs": [{"entry": "Split", "records": [%s]}], "resources": {"u0": {"bytes": %d}}}'
                % (", ".join('{"id": %d}' % i for i in range(jobs)), 4 * 4 * jobs))
    module, program, described = load(tmp_path, UNEVEN, dispatch)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        out = session.dump(program.resources[0])["uint32"]
    expected = [1 if value % 4 < (value // 4) % 4 else 0 for value in range(4 * jobs)]
    assert out == expected
    produced = sum(i % 4 for i in range(jobs))
    assert [[(d.node, d.records_in, d.groups, d.records_out) for d in s.dispatches] for s in steps] == [
        [("Split", jobs, -(-jobs // 32), {"Mark": produced})], [("Mark", produced, -(-produced // 4), {})]]


DYNAMIC = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Grid { uint3 grid : SV_DispatchGrid; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(1, 1, 1)]
void Wide(DispatchNodeInputRecord<Grid> r, uint3 gid : SV_GroupID) { InterlockedAdd(Out[gid.x], 1); }
"""


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_grid_from_entry_records(device, tmp_path, gpu_driven):
    """"The node's dispatch grid size comes from the input record" (SV_DispatchGrid): record 0 asks
    for 3 groups, record 1 for 4; group x of each adds 1 to Out[x]: 2, 2, 2, 1. Both records are one
    dispatch of 3 + 4 groups."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, DYNAMIC, '{"inputs": [{"entry": "Wide", "records": [{"grid": '
                                      '[3, 1, 1]}, {"grid": [4, 1, 1]}]}], "resources": {"u0": {"bytes": 16}}}')
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        assert session.dump(program.resources[0]) == {"uint32": [2, 2, 2, 1]}
    assert [[(d.records_in, d.groups) for d in s.dispatches] for s in steps] == [[(2, 7)]]


PRODUCED_GRID = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint n; };
struct Paint { uint3 grid : SV_DispatchGrid; uint base; };
[Shader("node")] [NodeLaunch("thread")]
void Make(ThreadNodeInputRecord<Job> job, [MaxRecords(1)] NodeOutput<Paint> Fill)
{
    uint n = job.Get().n;
    ThreadNodeOutputRecords<Paint> p = Fill.GetThreadNodeOutputRecords(n > 0 ? 1 : 0);
    if (n > 0) { p.Get().grid = uint3(n, (n % 2) + 1, 1); p.Get().base = n; }
    p.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 2, 1)] [NumThreads(4, 1, 1)]
void Fill(DispatchNodeInputRecord<Paint> r, uint3 gid : SV_GroupID, uint3 dtid : SV_DispatchThreadID)
{
    InterlockedAdd(Out[r.Get().base * 64 + gid.y * 32 + dtid.x], 1);
}
"""


def _painted(ns: list[int]) -> list[int]:
    """Out after Fill runs once per n > 0 over a grid (n, n % 2 + 1) of 4-thread groups."""
    out = [0] * (64 * 9)
    for n in ns:
        if n == 0:
            continue
        for y in range(n % 2 + 1):
            for x in range(4 * n):
                out[n * 64 + y * 32 + x] += 1
    return out


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_grid_from_produced_records(device, tmp_path, gpu_driven):
    """Records produced on the GPU carry their grid: the GPU-driven schedule sums them there (the
    grid-scan meta shader) in the one submit of the run, and Fill is one dispatch of all their
    groups; 0 records for n = 0; the trace is the host's."""
    from wgc.runtime.run import Session

    ns = [3, 0, 8, 1, 2]
    dispatch = ('{"inputs": [{"entry": "Make", "records": [%s]}], "resources": {"u0": {"bytes": %d}}}'
                % (", ".join('{"n": %d}' % n for n in ns), 4 * 64 * 9))
    module, program, described = load(tmp_path, PRODUCED_GRID, dispatch)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        session.run_once()
        with Submits(device) as counted:
            steps = session.run_once(1)
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        out = session.dump(program.resources[0])["uint32"]
    assert out == [2 * v for v in _painted(ns)]
    assert counted.count == (1 if gpu_driven else 2)
    made = [n for n in ns if n]
    assert [[(d.node, d.records_in, d.groups) for d in s.dispatches] for s in steps] == [
        [("Make", len(ns), 1)], [("Fill", len(made), sum(n * (n % 2 + 1) for n in made))]]


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_produced_grid_beyond_the_max_is_named(device, tmp_path, gpu_driven):
    """n = 9 asks Fill for 9 x 2 groups, beyond [NodeMaxDispatchGrid(8, 2, 1)]: both schedules stop
    with GridBeyondMax naming the grid."""
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import GridBeyondMax

    module, program, described = load(tmp_path, PRODUCED_GRID, '{"inputs": [{"entry": "Make", "records": '
                                      '[{"n": 2}, {"n": 9}]}], "resources": {"u0": {"bytes": 4096}}}')
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        with pytest.raises(GridBeyondMax) as raised:
            session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
    assert "9x2x1" in str(raised.value)


def test_device_local_buffers_go_through_staging(tmp_path):
    """With staging forced (lavapipe's memory is unified, so it is off by default there) resources
    and arenas live in unmapped memory; the results are the same."""
    from wgc.runtime.device import Device, DeviceFailure, VulkanUnavailable
    from wgc.runtime.run import Session

    try:
        staged = Device(staging=True)
    except (VulkanUnavailable, DeviceFailure) as problem:
        pytest.skip(f"no usable Vulkan device here: {problem}")
    with staged:
        buffer = staged.buffer(64, host_access=False)
        assert buffer.mapped is None and buffer.read(0, 64) == bytes(64)
        buffer.write(8, b"\x01\x02\x03")
        assert buffer.read(6, 6) == b"\0\0\x01\x02\x03\0"
        staged.free(buffer)
        module, program, described = load(tmp_path, RECURSION, '{"inputs": [{"entry": "Down", "records": '
                                          '[{"depth": 0}]}], "resources": {"u0": {"uint32": [7, 7, 7, 7, 7, 7, 7, 7]}}}')
        with Session(staged, module, program, described) as session:
            session.run_once()
            assert session.by_name["Out"][0].mapped is None
            assert all(arena is None or arena.mapped is None for arena in session.scheduler._gpu_arenas)
            assert session.dump(program.resources[0]) == {"uint32": [7 + 2 ** d for d in range(6)] + [7, 7]}


OVERFLOW = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint count; };
struct Piece { uint value; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Job> job, [MaxRecords(4)] NodeOutput<Job> Greedy)
{
    ThreadNodeOutputRecords<Job> one = Greedy.GetThreadNodeOutputRecords(1);
    one.Get().count = job.Get().count;
    one.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Greedy(ThreadNodeInputRecord<Job> job, [MaxRecords(2)] NodeOutput<Piece> Leaf)
{
    ThreadNodeOutputRecords<Piece> pieces = Leaf.GetThreadNodeOutputRecords(job.Get().count);
    pieces.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Piece> piece) { Out[0] = 1; }
"""


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_node_past_the_budget_of_the_groups_that_ran_is_named(device, tmp_path, gpu_driven):
    """Start may send Greedy 2 x 4 records (its arena is planned for 8 threads x 2 = 16), but sends 2:
    Greedy's budget is 2 threads x MaxRecords(2) = 4, which the meta shader writes, and the 3 + 3
    records asked for exceed it, as on the host-driven path."""
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import RecordsOutOfMemory

    module, program, described = load(tmp_path, OVERFLOW, '{"inputs": [{"entry": "Start", "records": '
                                      '[{"count": 3}, {"count": 3}]}], "resources": {"u0": {"bytes": 4}}}')
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        with pytest.raises(RecordsOutOfMemory) as raised:
            session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
    assert raised.value.node == "Greedy"


CHAIN = UNEVEN.replace("""[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Mark([MaxRecords(4)] GroupNodeInputRecords<Piece> pieces, uint gi : SV_GroupIndex)
{
    if (gi < pieces.Count()) InterlockedAdd(Out[pieces[gi].value], 1);
}
""", """[Shader("node")] [NodeLaunch("thread")]
void Mark(ThreadNodeInputRecord<Piece> piece, [MaxRecords(4)] NodeOutput<Piece> Count)
{
    ThreadNodeOutputRecords<Piece> one = Count.GetThreadNodeOutputRecords(1);
    one.Get().value = piece.Get().value;
    one.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Count(ThreadNodeInputRecord<Piece> piece) { InterlockedAdd(Out[piece.Get().value], 1); }
""")


def test_bounds_beyond_the_memory_limit_run_host_driven(device, tmp_path):
    """83 jobs may make 249 pieces (4 bytes each), which may make 996 counts: 3,984 bytes of arenas
    at the second level by the bounds, but the real 123 pieces need 1,968 (123 x MaxRecords 4 x 4)
    beside the 996 bytes of pieces it reads: with a 3,000-byte limit only the host-driven path,
    which sizes from real counts, can run it."""
    from wgc.runtime.run import Session

    jobs = 83
    dispatch = ('{"inputs": [{"entry": "Split", "records": [%s]}], "resources": {"u0": {"bytes": %d}}}'
                % (", ".join('{"id": %d}' % i for i in range(jobs)), 4 * 4 * jobs))
    module, program, described = load(tmp_path, CHAIN, dispatch)
    with Session(device, module, program, described, memory_limit=3000) as session:
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven is False
        out = session.dump(program.resources[0])["uint32"]
    assert out == [1 if value % 4 < (value // 4) % 4 else 0 for value in range(4 * jobs)]
    assert [[d.records_in for d in s.dispatches] for s in steps] == [[jobs], [123], [123]]


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_entry_records_beyond_the_limit_run_in_passes(device, tmp_path, gpu_driven):
    """83 Split jobs may write 3 pieces of 4 bytes each (12 bytes; +16 for the arena's rounding): with a
    400-byte limit halving cuts 83 into 41 + 42, then 20 + 21 + 21 + 21 (21 x 12 + 16 = 268 fit):
    four passes, each through both levels, on either schedule; Out is as in one pass."""
    from wgc.runtime.run import Session

    jobs = 83
    dispatch = ('{"inputs": [{"entry": "Split", "records": [%s]}], "resources": {"u0": {"bytes": %d}}}'
                % (", ".join('{"id": %d}' % i for i in range(jobs)), 4 * 4 * jobs))
    module, program, described = load(tmp_path, UNEVEN, dispatch)
    with Session(device, module, program, described, memory_limit=400, gpu_driven=gpu_driven) as session:
        steps = session.run_once()
        assert (session.scheduler.last_run_gpu_driven, session.scheduler.last_passes) == (gpu_driven, 4)
        out = session.dump(program.resources[0])["uint32"]
    assert out == [1 if value % 4 < (value // 4) % 4 else 0 for value in range(4 * jobs)]
    cuts = [(0, 20), (20, 41), (41, 62), (62, 83)]
    assert [(s.pass_index, s.level, [d.records_in for d in s.dispatches]) for s in steps] == [
        step for p, (a, b) in enumerate(cuts) for step in
        [(p, 0, [b - a]), (p, 1, [sum(i % 4 for i in range(a, b))])]]


SHALLOW = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Level { uint depth; };
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(5)]
void Down(ThreadNodeInputRecord<Level> r, [MaxRecords(1)] NodeOutput<Level> Down)
{
    InterlockedAdd(Out[r.Get().depth], 1);
    uint n = r.Get().depth < 1 ? 1 : 0;
    ThreadNodeOutputRecords<Level> next = Down.GetThreadNodeOutputRecords(n);
    if (n > 0) next.Get().depth = r.Get().depth + 1;
    next.OutputComplete();
}
"""


def test_a_timed_run_gives_the_gpu_span_of_every_level(device, tmp_path):
    """`last_gpu_ns` (benchmarks/vs_vkd3d.py reads it): a timed GPU-driven run's span covers the
    levels the plan recorded (6 for a recursion depth of 5), also the empty ones after the trace's
    last level (2 here: depth 0 and 1 emit records); an untimed run has none.  With
    `whole_run_only` the run writes two queries, its start and its end, and times no level."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, SHALLOW, '{"inputs": [{"entry": "Down", "records": '
                                      '[{"depth": 0}]}], "resources": {"u0": {"bytes": 32}}}')
    with Session(device, module, program, described) as session:
        session.run_once()
        assert session.scheduler.last_run_gpu_driven and session.scheduler.last_gpu_ns is None
    with Session(device, module, program, described, timing=True) as session:
        if session.timing is None:
            pytest.skip(f"{device.info.name} cannot time compute work")
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven and len(steps) == 2
        span = session.scheduler.last_gpu_ns
        assert isinstance(span, int) and span >= sum(step.gpu_ns or 0 for step in steps) > 0
        assert session.dump(program.resources[0])["uint32"][:3] == [1, 1, 0]
    with Session(device, module, program, described, timing=True) as session:
        session.timing.whole_run_only = True        # two queries: the run's start and its end
        steps = session.run_once()
        assert len(steps) == 2 and session.scheduler.last_gpu_ns > 0
        assert session.timing.used == 2 and all(step.gpu_ns is None for step in steps)
        assert all(d.gpu_ns is None for step in steps for d in step.dispatches)
