"""Runtime: GPU time of levels and dispatches from Vulkan timestamp queries (`wgc run --time`).

Input: an open `device.Device`; the schedulers call `level_start`, `dispatch_start`/`dispatch_end`
and `level_end` while they record, and `read` after the submit.
Output: nanoseconds per level and per dispatch (`TraceStep.gpu_ns`, `TraceDispatch.gpu_ns`).

Invariants: only where the device can (`timestampComputeAndGraphics`, and `timestampValidBits`
of the compute queue family above 0): elsewhere `Timestamps.create` returns None and the run is
not timed; ticks are masked to the valid bits and scaled by `timestampPeriod`; at most
`CAPACITY` queries per submit (a level recorded with more dispatches times the level only);
nothing is recorded when a run is not timed, so a plain run costs what it did.
"""

from __future__ import annotations

from typing import Any

CAPACITY = 4 * 4096 + 4
"""Queries of the pool: a level start and end and a start and end per dispatch, for the most
launches a GPU-driven plan holds (`gpu_schedule.MAX_LAUNCHES`) and as many levels."""
_TOP_OF_PIPE = 0x1
_BOTTOM_OF_PIPE = 0x2000
_QUERY_TYPE_TIMESTAMP = 2
_RESULT_64_WAIT = 0x1 | 0x2


class Timestamps:
    """A timestamp query pool and the queries of one submit (module docstring)."""

    def __init__(self, device: Any, period: float, valid_bits: int) -> None:
        self.device = device
        self.period = period
        self.mask = (1 << valid_bits) - 1 if valid_bits < 64 else (1 << 64) - 1
        vk = device.vk
        info = vk.VkQueryPoolCreateInfo(queryType=_QUERY_TYPE_TIMESTAMP, queryCount=CAPACITY)
        self.pool = device.call(vk.vkCreateQueryPool, device.device, info, None)
        self.used = 0
        self.whole_run_only = False
        """Time a GPU-driven run as a whole: one query at its start and one at its end, none per
        level or dispatch (each query is a point where lavapipe finishes the work before it; a
        benchmark sets it to compare with a peer that times only the whole run)."""

    @staticmethod
    def create(device: Any) -> Timestamps | None:
        """Timestamps for `device`, or None where it cannot time compute work."""
        vk = device.vk
        limits = vk.vkGetPhysicalDeviceProperties(device.physical).limits
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(device.physical)
        valid_bits = families[device.queue_family].timestampValidBits
        if not limits.timestampComputeAndGraphics or valid_bits == 0:
            return None
        return Timestamps(device, float(limits.timestampPeriod), int(valid_bits))

    def begin(self) -> None:
        """At the start of a command buffer: reset the queries it will write."""
        self.device.lib.vkCmdResetQueryPool(self.device.command_buffer, self.pool, 0, CAPACITY)
        self.used = 0

    def write(self, end: bool = False) -> int | None:
        """A timestamp (after the earlier commands with `end`); its index, or None when full."""
        if self.used >= CAPACITY:
            return None
        index = self.used
        self.used += 1
        self.device.lib.vkCmdWriteTimestamp(self.device.command_buffer, _BOTTOM_OF_PIPE if end else _TOP_OF_PIPE,
                                            self.pool, index)
        return index

    def room(self, queries: int) -> bool:
        return self.used + queries <= CAPACITY

    def read(self, count: int) -> list[int]:
        """The first `count` timestamps of the last submit, in ticks (waits for them)."""
        if count == 0:
            return []
        ffi = self.device.ffi
        data = ffi.new("uint64_t[]", count)
        self.device.lib.vkGetQueryPoolResults(self.device.device, self.pool, 0, count, 8 * count, data, 8,
                                              _RESULT_64_WAIT)
        return [int(data[i]) & self.mask for i in range(count)]

    def nanoseconds(self, ticks: list[int], start: int | None, end: int | None) -> int | None:
        if start is None or end is None or start >= len(ticks) or end >= len(ticks):
            return None
        return int(((ticks[end] - ticks[start]) & self.mask) * self.period)

    def close(self) -> None:
        self.device.vk.vkDestroyQueryPool(self.device.device, self.pool, None)


__all__ = ["Timestamps", "CAPACITY"]
