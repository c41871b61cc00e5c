"""What a GPU-driven run records per level, and what a run does on the host (issue 31): the command
buffer of a 32-level recursion graph, command by command, and the per-run host work of
`GpuScheduler._run_pass` and `Device.replay` (wgc/runtime/gpu_schedule.py, device.py).

Expected values are counted by hand from the schedule's design (docs/development.md, "The GPU-driven
schedule's command stream") and computed in a few lines of Python; skips, with the reason printed,
where there is no Vulkan device.
"""

from __future__ import annotations

from runtime_util import load


LEVELS = 32
RECURSION = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Level { uint depth; };
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(%d)]
void Down(ThreadNodeInputRecord<Level> r, [MaxRecords(1)] NodeOutput<Level> Down)
{
    Out[r.Get().depth] = r.Get().depth + 1;
    uint n = GetRemainingRecursionLevels() > 0 ? 1 : 0;
    ThreadNodeOutputRecords<Level> next = Down.GetThreadNodeOutputRecords(n);
    if (n > 0) next.Get().depth = r.Get().depth + 1;
    next.OutputComplete();
}
""" % (LEVELS - 1)
DISPATCH = '{"inputs": [{"entry": "Down", "records": [{"depth": 0}]}], "resources": {"u0": {"bytes": %d}}}' % (
    4 * LEVELS)


class _Counting:
    """Stands for `vulkan.lib` and the `vulkan` module on a device: notes every vkCmd* call made while
    `on`, by name, and passes every call on."""

    def __init__(self, inner, calls: list[str], state: dict) -> None:
        self._inner, self._calls, self._state = inner, calls, state

    def __getattr__(self, name: str):
        value = getattr(self._inner, name)
        if not name.startswith("vkCmd") or not callable(value):
            return value

        def counted(*args, **kwargs):
            if self._state["on"]:
                self._calls.append(name[len("vkCmd"):])
            return value(*args, **kwargs)
        return counted


class Recorded:
    """The vkCmd* calls recorded into the GPU-driven schedule's reusable command buffer."""

    def __init__(self, device) -> None:
        self.device, self.calls, self.state = device, [], {"on": False}

    def __enter__(self):
        device = self.device
        self.saved = device.lib, device.vk, device.record_reusable, device.end_reusable
        device.lib = _Counting(device.lib, self.calls, self.state)
        device.vk = _Counting(device.vk, self.calls, self.state)
        begin, end = self.saved[2], self.saved[3]

        def record_reusable() -> None:
            begin()
            self.state["on"] = True

        def end_reusable():
            self.state["on"] = False
            return end()
        device.record_reusable, device.end_reusable = record_reusable, end_reusable
        return self

    def __exit__(self, *_: object) -> None:
        device = self.device
        device.lib, device.vk = self.saved[0], self.saved[1]
        del device.record_reusable, device.end_reusable


def levels_of(calls: list[str]) -> list[list[str]]:
    """The calls cut after each level's last barrier: a level ends with its indirect dispatches and a barrier."""
    levels: list[list[str]] = [[]]
    for call in calls:
        levels[-1].append(call)
        if call == "PipelineBarrier" and "DispatchIndirect" in levels[-1]:
            levels.append([])
    return [level for level in levels if level]


def test_a_level_records_one_dispatch_and_one_barrier(device, tmp_path):
    """Issue 31: "Write down before/after what a level records (as a test that counts the recorded
    commands per level on a 32-level recursion graph)".  Before round 3: per level a meta pass (bind,
    push, dispatch), a barrier, the node's pipeline and descriptor sets bound again, its push
    constants, its indirect dispatch and a barrier: 9 commands, 288 in all.  Then: the descriptor
    sets bound once, no meta pass before the first level (its group counts come from the host): 5
    commands for the first level, 8 for each of the 31 others, 253.  Now each level's last group
    sets up the next level (the level tail, emulation ABI 7), so a later level has no meta pass: its
    push constants, its indirect dispatch and a barrier (the node's pipeline stays bound: every level
    runs the same node), 5 + 3 × 31 = 98 in all.  Since emulation ABI 11 the last level, whose
    groups set nothing up, binds the node's pipeline without the tail ("Level tail": the branch is
    folded away when that pipeline is made), one command more: 99."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, RECURSION, DISPATCH)
    with Session(device, module, program, described) as session:
        with Recorded(device) as recorded:
            steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven
        assert len(steps) == LEVELS
        assert session.dump(program.resources[0]) == {"uint32": [d + 1 for d in range(LEVELS)]}
    levels = levels_of(recorded.calls)
    assert len(levels) == LEVELS
    assert levels[0] == ["BindPipeline", "BindDescriptorSets", "PushConstants", "DispatchIndirect", "PipelineBarrier"]
    assert all(level == ["PushConstants", "DispatchIndirect", "PipelineBarrier"] for level in levels[1:-1])
    assert levels[-1] == ["BindPipeline", "PushConstants", "DispatchIndirect", "PipelineBarrier"]
    assert len(recorded.calls) == 5 + 3 * (LEVELS - 2) + 4 == 99


COUNTING = RECURSION.replace("Out[r.Get().depth] = r.Get().depth + 1;", "InterlockedAdd(Out[r.Get().depth], 1);")


class Writes:
    """The bytes the host writes into the GPU-driven schedule's control buffer."""

    def __init__(self, scheduler) -> None:
        self.scheduler, self.sizes = scheduler, []

    def __enter__(self):
        control = self.scheduler._gpu_control
        original = control.write

        def write(offset, data) -> None:
            self.sizes.append(len(data))
            original(offset, data)
        control.write = write
        self.control = control
        return self

    def __exit__(self, *_: object) -> None:
        del self.control.write


def records_in(steps) -> list[int]:
    return [sum(d.records_in for d in step.dispatches) for step in steps]


def test_a_run_writes_back_only_what_the_last_run_changed(device, tmp_path):
    """Issue 31: "remove what is not needed on a plain run".  The control image is written once; each
    later run writes back the status words and counters (4 bytes each: one status word and one
    counter per level's launch here), which it zeroes, and the results are those of a fresh run:
    each of k runs adds 1 at every depth, so u0 holds k at each of the 32 depths."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, COUNTING, DISPATCH)
    with Session(device, module, program, described) as session:
        first = records_in(session.run_once())
        image = len(session.scheduler._control_holds.image)
        with Writes(session.scheduler) as written:
            for _ in range(3):
                assert records_in(session.run_once()) == first == [1] * LEVELS
        assert written.sizes == [2 * 4 * LEVELS] * 3
        assert image > 2 * 4 * LEVELS
        assert session.dump(program.resources[0]) == {"uint32": [4] * LEVELS}


def test_plans_sharing_the_control_buffer_each_write_their_image(device, tmp_path):
    """Two sets of entry records are two plans with one control buffer: a run of the other plan writes
    its whole image first.  One record, then two (stride 0: the same record twice), then one: every
    depth receives 1 + 2 + 1 records."""
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import Chunk

    module, program, described = load(tmp_path, COUNTING, DISPATCH)
    with Session(device, module, program, described) as session:
        (node, chunk), = session.entries
        twice = [(node, Chunk(chunk.address, 2, 0, chunk.buffer, 0))]
        scheduler = session.scheduler
        assert records_in(scheduler.run(session.entries)) == [1] * LEVELS
        assert records_in(scheduler.run(twice)) == [2] * LEVELS
        assert records_in(scheduler.run(session.entries)) == [1] * LEVELS
        assert scheduler.last_run_gpu_driven
        assert session.dump(program.resources[0]) == {"uint32": [4] * LEVELS}


SHARING = """\
RWStructuredBuffer<uint> Out : register(u0);
struct [NodeTrackRWInputSharing] Job { uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(1, 1, 1)]
void Share(globallycoherent RWDispatchNodeInputRecord<Job> job)
{
    if (job.FinishedCrossGroupSharing()) InterlockedAdd(Out[job.Get().slot], 1);
}
"""


def test_cross_group_sharing_counters_are_set_again_for_every_run(device, tmp_path):
    """Work Graphs spec, FinishedCrossGroupSharing: "returns true for exactly one thread group" of a
    record's grid.  The counters start at the grid's 4 groups on every run, so over 3 runs each of
    the 2 records counts 3 in its slot."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, SHARING, '{"inputs": [{"entry": "Share", "records": [{"slot": 0}, '
                                      '{"slot": 1}]}], "resources": {"u0": {"bytes": 8}}}')
    with Session(device, module, program, described) as session:
        for _ in range(3):
            session.run_once()
        assert session.scheduler.last_run_gpu_driven
        assert session.dump(program.resources[0]) == {"uint32": [3, 3]}


def test_a_run_with_the_same_counters_reuses_the_decoded_trace(device, tmp_path):
    """Issue 31: "no Python work proportional to the graph's node count per run".  A plain run whose
    status words and counters are the last run's, for the same repeat, gets that run's trace without
    decoding the 32 levels again (in a list of its own); another repeat index decodes it anew."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, RECURSION, DISPATCH)
    with Session(device, module, program, described) as session:
        scheduler = session.scheduler
        first = session.run_once()
        decoded = []
        original = scheduler._read_back

        def counted(*args):
            decoded.append(args[-1])
            return original(*args)
        scheduler._read_back = counted
        second = session.run_once()
        third = session.run_once(1)
        del scheduler._read_back
    assert decoded == [1]
    assert second == first and second is not first
    assert [step.repeat for step in third] == [1] * LEVELS
    assert [[d.to_json() for d in step.dispatches] for step in third] == \
        [[d.to_json() for d in step.dispatches] for step in first]
    assert [sum(d.records_in for d in step.dispatches) for step in first] == [1] * LEVELS


def test_a_polled_fence_gives_the_same_results(device, tmp_path):
    """`Device.spin_ns`: the fence polled before the blocking wait; the run's results are the same
    (each of 3 runs adds 1 at every depth)."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, COUNTING, DISPATCH)
    assert device.spin_ns == 0
    device.spin_ns = 5_000_000
    try:
        with Session(device, module, program, described) as session:
            for _ in range(3):
                assert records_in(session.run_once()) == [1] * LEVELS
            assert session.dump(program.resources[0]) == {"uint32": [3] * LEVELS}
    finally:
        device.spin_ns = 0


ENTRIES = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Seed { uint v; };
struct Item { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(2, 1, 1)]
void Fan(DispatchNodeInputRecord<Seed> seed, [MaxRecords(2)] NodeOutput<Item> Gather, uint gi : SV_GroupIndex)
{
    GroupNodeOutputRecords<Item> rec = Gather.GetGroupNodeOutputRecords(1);
    rec.Get().v = seed.Get().v;
    rec.OutputComplete();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Gather([MaxRecords(4)] GroupNodeInputRecords<Item> items, uint gi : SV_GroupIndex)
{
    if (gi < items.Count()) InterlockedAdd(Out[0], items[gi].v);
}
"""


def test_the_host_writes_the_first_level_as_the_meta_shader_would(device, tmp_path):
    """`_host_setup` against the meta shader (indirect_setup.py): the same input counts, indirect
    group counts and output capacities for the first level, read back from the control buffer after
    a run in which the meta shader wrote them.  By hand: 2 seeds × a grid of 3 = 6 groups, each
    allowed MaxRecords(2) on Gather: capacity 12; each group sends one record of its seed's value,
    so u0 = 3 × 1 + 3 × 2 = 9."""
    import struct

    from wgc import emulation_abi as abi
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, ENTRIES, '{"inputs": [{"entry": "Fan", "records": [{"v": 1}, '
                                      '{"v": 2}]}], "resources": {"u0": {"bytes": 4}}}')
    words = {}
    for host in (True, False):
        with Session(device, module, program, described) as session:
            scheduler = session.scheduler
            planned = scheduler._plan

            def plan(entries, host=host):
                made = planned(entries)
                made.host_setup = made.host_setup and host
                return made
            scheduler._plan = plan
            session.run_once()
            (made,) = scheduler._plans.values()
            assert made.host_setup is host
            control = scheduler._gpu_control
            launch, = made.levels[0]
            count = struct.unpack("<I", control.read(launch.context_at + abi.NODE_CONTEXT["input_count"][0], 4))
            indirect = struct.unpack("<3I", control.read(launch.indirect_at, 12))
            capacities = [struct.unpack("<I", control.read(at + abi.OUTPUT_SLOT["capacity"][0], 4))[0]
                          for at in launch.slots_at]
            words[host] = (count, indirect, capacities)
            assert session.dump(program.resources[0]) == {"uint32": [9]}
    assert words[True] == words[False] == ((2,), (6, 1, 1), [12])


def test_a_cpu_device_counts_only_wide_groups_against_fusion(device, tmp_path, monkeypatch):
    """On lavapipe a group's tail costs about 1 µs where the group has more invocations than a
    subgroup (llvmpipe switches its rows of invocations at each barrier), nothing much where it has
    one row; the meta pass some 20-30 µs. So a CPU device fuses a level only where at most
    `FUSED_GROUPS_CPU` (32) of its workgroups are wider than a subgroup. The mixed graph of
    test_runtime_level_tail.py: level 0 is Root's one group of 32 invocations (wider than
    llvmpipe's 8 or 16 lanes); level 1 has at most 38 groups (Even: ceil(10 / 4) = 3 of 4
    invocations, Odd: ceil(10 / 2) = 5 of 2, Share: 10 x 3 = 30 of 1), none wider than a subgroup.
    With the limit 1 both levels are fused, with 0 none (level 1's count is then not known to its
    groups); the hand count either way."""
    from test_runtime_level_tail import MIXED, MIXED_DISPATCH, mixed_expected

    from runtime_util import assert_schedule
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    if device.info.kind != "cpu":
        import pytest

        pytest.skip(f"'{device.info.name}' is no CPU device")
    assert gpu_schedule.FUSED_GROUPS_CPU == 32 and device.subgroup_size < 32
    module, program, described = load(tmp_path, MIXED, MIXED_DISPATCH)
    for limit, fused in ((1, [True, True, False]), (0, [False, False, False]),
                         (gpu_schedule.FUSED_GROUPS_CPU, [True, True, False])):
        monkeypatch.setattr(gpu_schedule, "FUSED_GROUPS_CPU", limit)
        with Session(device, module, program, described) as session:
            session.run_once()
            assert_schedule(session, True, fused)
            assert session.dump(program.resources[0]) == {"uint32": mixed_expected(1)}
