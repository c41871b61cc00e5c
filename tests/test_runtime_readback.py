"""A run's results read back through host-cached memory (wgc/runtime/readback.py, device.py
`cached_buffer`, `host_read_barrier`), on a real device (lavapipe here).

The copy must not change what a run reports: the buffers are computed by a few lines of Python
from the graph's meaning (`divergent_expected`, the recursion's 2**d records per depth), the trace
compared between the copy and the direct read, under both schedules.  Lavapipe's only memory type
is HOST_CACHED, so 'auto' copies nothing there; the tests force the copy ('always'), fake a BAR
(a control buffer whose memory is not host-cached) and fake a device without a host-cached type.
Skips, with the reason printed, where there is no Vulkan device.
"""

from __future__ import annotations

import pytest

from runtime_util import load
from test_runtime_gpu_schedule import OVERFLOW, RECURSION, trace_of
from test_runtime_node_arrays import DIVERGENT, divergent_dispatch, divergent_expected
from wgc.runtime import readback

device = pytest.mark.usefixtures("vulkan_device")
BOTH = pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])


def _open():
    from wgc.runtime.device import Device, DeviceFailure, VulkanUnavailable

    try:
        return Device()
    except (VulkanUnavailable, DeviceFailure) as problem:
        pytest.skip(f"no usable Vulkan device here: {problem}")


def _runs(tmp_path, opened, source: str, dispatch, gpu_driven: bool, repeat: int = 2):
    """(the traces of `repeat` runs, the first resource's words, whether the last read was a copy)."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, source, dispatch)
    with Session(opened, module, program, described, gpu_driven=gpu_driven) as session:
        traces = [trace_of(session.run_once(i)) for i in range(repeat)]
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        words = session.dump(program.resources[0])["uint32"]
        return traces, words, session.scheduler.readback.last_copied


@device
@BOTH
def test_the_copy_reads_what_the_control_buffer_holds(tmp_path, monkeypatch, gpu_driven):
    """40 jobs over a node array of 4 (Sink[(7v) % 4] gets 2v, and 2v + 1 where 3 divides v) and six
    levels of recursion (2**d records at depth d): the same buffers and traces whether the host reads
    the control buffer or the copy in host-cached memory."""
    opened = _open()
    with opened:
        seen = {}
        for mode in ("never", "always"):
            monkeypatch.setattr(readback, "MODE", mode)
            traces, words, copied = _runs(tmp_path, opened, DIVERGENT, divergent_dispatch(40), gpu_driven)
            assert copied is (mode == "always")
            expected, counts = divergent_expected(40)
            assert words == [2 * w for w in expected]              # two runs
            assert traces[0][0][2][0]["records_out"] == {**counts, "Sink": sum(counts.values())}
            deep, deep_words, _ = _runs(tmp_path, opened, RECURSION, '{"inputs": [{"entry": "Down", "records": '
                                        '[{"depth": 0}]}], "resources": {"u0": {"bytes": 32}}}', gpu_driven)
            assert deep_words == [2 * 2 ** d for d in range(6)] + [0, 0]      # two runs: 2 x 2**d
            seen[mode] = (traces, deep)
        assert seen["always"] == seen["never"]


@device
@BOTH
def test_a_status_flag_read_from_the_copy_names_the_node(tmp_path, monkeypatch, gpu_driven):
    """Greedy asks for 3 records where it may send 2 (MaxRecords(2)): the out-of-records status word
    reaches the host through the copy as through the direct read, with the same message."""
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import RecordsOutOfMemory

    opened = _open()
    with opened:
        messages = {}
        module, program, described = load(tmp_path, OVERFLOW, '{"inputs": [{"entry": "Start", "records": '
                                          '[{"count": 3}]}], "resources": {"u0": {"bytes": 4}}}')
        for mode in ("never", "always"):
            monkeypatch.setattr(readback, "MODE", mode)
            with Session(opened, module, program, described, gpu_driven=gpu_driven) as session:
                with pytest.raises(RecordsOutOfMemory) as raised:
                    session.run_once()
                assert session.scheduler.readback.last_copied is (mode == "always")
                messages[mode] = (str(raised.value), trace_of(raised.value.trace))
        assert messages["always"] == messages["never"] and "Greedy" in messages["always"][0]


@device
@BOTH
def test_uncached_control_memory_is_copied_where_the_region_exceeds_a_line(tmp_path, monkeypatch, gpu_driven):
    """'auto' on a fake BAR (every `Device.buffer` reported as not host-cached, as a GPU's
    device-local host-visible memory is), COPY_BYTES 0 (this graph's region is smaller than a line;
    `test_the_decision_by_memory_and_size` tests the size): the run copies its results region and
    reads the copy; the buffers are as computed.  Lavapipe's own (cached) memory: no copy."""
    from wgc.runtime.device import Device

    real = Device.buffer

    def uncached(self, *args, **kwargs):
        made = real(self, *args, **kwargs)
        made.host_cached = False
        return made

    opened = _open()
    with opened:
        monkeypatch.setattr(readback, "MODE", "auto")
        monkeypatch.setattr(readback, "COPY_BYTES", 0)
        monkeypatch.setattr(Device, "buffer", uncached)
        _, words, copied = _runs(tmp_path, opened, DIVERGENT, divergent_dispatch(40), gpu_driven, repeat=1)
        assert copied and words == divergent_expected(40)[0]
        monkeypatch.setattr(Device, "buffer", real)         # lavapipe's own memory: cached, no copy
        _, words, copied = _runs(tmp_path, opened, DIVERGENT, divergent_dispatch(40), gpu_driven, repeat=1)
        assert not copied and words == divergent_expected(40)[0]


@device
@BOTH
def test_a_device_without_a_host_cached_type_reads_directly(tmp_path, monkeypatch, gpu_driven):
    """A device whose memory types lack HOST_CACHED (lavapipe's, with the bit taken off): no
    cached buffer, so even 'always' reads the control buffer itself, with the same results."""
    opened = _open()
    with opened:
        cached = opened.vk.VK_MEMORY_PROPERTY_HOST_CACHED_BIT
        opened._memory_types = [(flags & ~cached, heap) for flags, heap in opened._memory_types]
        assert opened.cached_buffer(64) is None
        monkeypatch.setattr(readback, "MODE", "always")
        _, words, copied = _runs(tmp_path, opened, DIVERGENT, divergent_dispatch(40), gpu_driven, repeat=1)
        assert not copied and words == divergent_expected(40)[0]


def test_the_decision_by_memory_and_size():
    """'auto' copies only from mapped memory that is not host-cached, regions above COPY_BYTES; a
    device that had no cached memory is not asked again."""

    class Fake:
        def __init__(self, cached: bool = True) -> None:
            self.made, self.freed, self.cached = 0, 0, cached

        def cached_buffer(self, size):
            self.made += 1
            return Plain(size, True) if self.cached else None

        def free(self, _):
            self.freed += 1

    class Plain:
        def __init__(self, size: int, host_cached: bool, mapped: object = b"") -> None:
            self.size, self.host_cached, self.mapped, self.address = size, host_cached, mapped, 0

    assert readback.MODE == "auto"
    fake = Fake()
    copies = readback.ResultsCopy(fake)
    bar, host = Plain(1 << 16, False), Plain(1 << 16, True)
    assert copies.wanted(host, 4096) is None
    assert copies.wanted(bar, readback.COPY_BYTES) is None
    target = copies.wanted(bar, readback.COPY_BYTES + 4)
    assert target is not None and target.size == 4096 and copies.wanted(bar, 4096) is target
    grown = copies.wanted(bar, 5000)
    assert grown.size == 5000 and (fake.made, fake.freed) == (2, 1)
    none = readback.ResultsCopy(Fake(cached=False))
    assert none.wanted(bar, 1000) is None and none.unavailable and none.wanted(bar, 1000) is None
    assert none.device.made == 1
