"""What a GPU-driven run records per level, and what a run does on the host (issue 31): the command
buffer of a 32-level recursion graph, command by command, and the per-run host work of
`GpuScheduler._run_pass` and `Device.replay` (wgc/runtime/gpu_schedule.py, device.py).

Expected values are counted by hand from the schedule's design (docs/development.md, "The GPU-driven
schedule's command stream") and computed in a few lines of Python; skips, with the reason printed,
where there is no Vulkan device.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def device():
    from wgc.runtime.device import Device, DeviceFailure, VulkanUnavailable

    try:
        opened = Device()
    except (VulkanUnavailable, DeviceFailure) as problem:
        pytest.skip(f"no usable Vulkan device here: {problem}")
    yield opened
    opened.close()


def load(tmp_path, source: str, dispatch: str):
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import _compile
    from wgc.source import SourceFile

    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    diagnostics, module, program = _compile(str(path), None)
    assert module is not None, diagnostics
    described, problems = read_dispatch(SourceFile("dispatch.json", dispatch), program)
    assert described is not None, problems
    return module, program, described


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


def test_a_level_records_one_meta_pass_one_dispatch_and_two_barriers(device, tmp_path):
    """Issue 31: "Write down before/after what a level records (as a test that counts the recorded
    commands per level on a 32-level recursion graph)".  Before: per level a meta pass (bind, push,
    dispatch), a barrier, the node's pipeline and descriptor sets bound again, its push constants,
    its indirect dispatch and a barrier: 9 commands, 288 in all.  Now: the descriptor sets are bound
    once (the meta shader shares the graph's pipeline layout), the first level's group counts come
    from the host (its records do), so it has no meta pass: 5 commands for the first level (the
    sets' bind among them), 8 for each of the 31 others, 253 in all."""
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
    meta_pass = ["BindPipeline", "PushConstants", "Dispatch", "PipelineBarrier"]
    node = ["BindPipeline", "PushConstants", "DispatchIndirect", "PipelineBarrier"]
    assert all(level == meta_pass + node for level in levels[1:])
    assert len(recorded.calls) == 5 + 8 * (LEVELS - 1) == 253
