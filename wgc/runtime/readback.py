"""Runtime: a run's results read back through host-cached memory.

Input: the `device.Device`, the control buffer of a run (mapped: `Device.buffer`) and the bytes at
its start that the host reads after the run (the results region: status words and counters).
Output: where it pays, a copy of that region, recorded at the end of the run's command buffer
(`record`: vkCmdCopyBuffer and a transfer-to-host barrier), into a small mapped buffer in
HOST_CACHED memory (`Device.cached_buffer`), and `read` of it; elsewhere `read` of the control
buffer itself, as before.

Why: on a discrete GPU the control buffer lives in device-local host-visible memory (the BAR),
which the host maps uncached: every load of `control.read` crosses the bus (on the NVIDIA H200, 14
node-array counters 128 bytes apart cost `two_level_empty` 0.07-0.15 ms of submit-to-result), while
a copy of a few hundred bytes and its barrier cost the GPU about a dispatch's start.  Lavapipe's
memory is all host memory and cached: there the copy would only add work, so it is made only where
the control buffer's memory type is not HOST_CACHED (chosen by the memory type, not by the device's
kind: a GPU whose BAR were cached would not need it either).

Invariants:
- `wanted` is decided per run (per level where the host schedules) from the control buffer, the
  region's size and MODE; a device without a HOST_VISIBLE | HOST_COHERENT | HOST_CACHED type (or
  whose such memory is full) takes the old path, a direct read, for the rest of the session.
- The copy is the last command of the command buffer, after the barrier that ends the run (which
  orders every shader write before transfers), followed by `Device.host_read_barrier`; the run's
  other read-backs (check reports, prints, timestamps) are not touched.
- The region read is the same bytes whichever path: the trace and results do not depend on MODE.
"""

from __future__ import annotations

from typing import Any

from wgc.runtime.device import Buffer

COPY_BYTES = 64
"""Results regions of at most this many bytes (one host cache line) are read directly even from
uncached memory: a copy and its barrier are a cost of their own, against a few uncached loads
(`benchmarks/run.py --readback-bytes N` measures others on the device)."""
MODE = "auto"
"""'auto': copy where the control buffer is not host-cached and the region exceeds COPY_BYTES;
'always': copy whenever the device has host-cached memory (tests and benchmarks, lavapipe
included); 'never': read the control buffer directly."""


class ResultsCopy:
    """The host-cached buffer a scheduler's runs copy their results region into (made on first use,
    grown when a region outgrows it)."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.target: Buffer | None = None
        self.unavailable = False
        """The device has no host-cached memory type, or it was full: direct reads from now on."""
        self.mode: str | None = None
        """This scheduler's MODE (None: the module's; benchmarks compare 'always' and 'never' side by
        side in one process)."""
        self.last_copied = False
        """Whether the last `read` read the copy (tests and benchmarks read it)."""

    def close(self) -> None:
        if self.target is not None:
            self.device.free(self.target)
            self.target = None

    def wanted(self, control: Buffer, size: int) -> Buffer | None:
        """The buffer to copy `size` bytes of `control` into, or None where the run reads `control`
        directly (MODE, COPY_BYTES; no host-cached memory)."""
        mode = self.mode or MODE
        if self.unavailable or size <= 0 or mode == "never":
            return None
        if mode != "always" and (control.host_cached or control.mapped is None or size <= COPY_BYTES):
            return None
        if self.target is not None and self.target.size >= size:
            return self.target
        if self.target is not None:
            self.device.free(self.target)
        self.target = self.device.cached_buffer(max(size, 4096))
        self.unavailable = self.target is None
        return self.target

    def record(self, control: Buffer, target: Buffer, size: int) -> None:
        """Record the copy of the region into `target` and the barrier before the host reads it
        (after the run's last barrier)."""
        self.device.copy(control, 0, target, 0, size)
        self.device.host_read_barrier()

    def read(self, control: Buffer, target: Buffer | None, size: int) -> bytes:
        """The region's bytes after the submit: from `target` where the run copied into it."""
        self.last_copied = target is not None
        return (target if target is not None else control).read(0, size)
