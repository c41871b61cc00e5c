"""Runtime: the GPU-driven schedule (seed 002, vkd3d-proton's design): a whole run in one submit.

Input: what `scheduler.Scheduler` takes (it is a subclass) and the entry records of a run.
Output: the same effect on the bound resources and the same `TraceStep`s as the host-driven
scheduler, with one command buffer, one submit and one read-back per run instead of one per level.

How it runs.  Planning, on the host, once per set of entry records: the levels are unrolled from
the graph alone with the host-driven scheduler's own rules (`_target_key`, `_slots`): every output
slot that may receive records makes a launch of its target key at the next level (one launch per
producing slot, as the host-driven scheduler makes one per chunk, and for each node sharing that
input), until no key remains; each launch gets an upper bound of its records (the entry count,
then its producer's thread groups × MaxRecords), which sizes its output arenas.  A launch of at
least STRIPE_GROUPS workgroups (not on UNSTRIPED_KINDS devices, and only in a program whose modules
know it) splits each element of its node-array outputs into STRIPES slots (emulation ABI,
"Stripes": `_striped`), each a producing slot of its own, so its element makes STRIPES launches at
the next level; the trace shows them as one (`_Input.origin`).  Then, once per
plan and buffer addresses, the control image is built (status words and counters first, the part
read back; NodeContexts, output slots, the launch tables of `indirect_setup`) and one command
buffer is recorded that every run replays (the first run writes the image; a later run of the same
plan writes back only `_Plan.resets`, the words a run changes that the next one reads before the
device rewrites them: status words and counters, zeroed, and cross-group sharing counters).  The
command buffer binds the graph's descriptor sets once (the meta shader has the graph's pipeline
layout); then per level the indirect-setup meta shader, which turns the producers' counters into
each launch's `input_count`, its `VkDispatchIndirectCommand`
(groups per launch mode: threads / THREAD_GROUP_SIZE, records / MaxRecords, records × grid) and
its output capacities (the MaxRecords budget of the groups that really run), and a barrier
(shader writes before indirect reads) — not before the first level, whose records come from the
host (`_Plan.host_setup`: `_host_setup` writes the same words into the image, and
`_host_grid_setup` what `grid_setup` would for grids given by the records, which the host reads;
more than HOST_GRID_RECORDS such records, or a grid beyond [NodeMaxDispatchGrid], keep the pass),
nor before a level that the level before it sets up itself (`_fused`: its groups' level tails,
emulation ABI "Level tail", through the level's `LEVEL` block in the image: the last group to
finish runs the meta shader's loop); one vkCmdDispatchIndirect per launch; in a graph that draws, one
dynamic-rendering pass with a vkCmdDrawMeshTasksIndirectEXT per mesh launch on the same three
group counts (`graphics.Graphics.draw_indirect`: VkDrawMeshTasksIndirectCommandEXT has the layout
of VkDispatchIndirectCommand), its primitives counted by a query per launch where the device can;
a barrier (between levels compute to compute and indirect reads only, `Device.compute_barrier`;
after the last level, and on a device made for drawing, one that covers every stage, the
attachments, the indirect reads and the host's reads).  A launch that
receives no records dispatches no group.  After the submit the host reads the counters and status
words back: STATUS_OUT_OF_RECORDS is `RecordsOutOfMemory` naming the node (the first in level
order, as the host-driven scheduler finds it); `--trace` is rebuilt from those per-level counters
(the launches that received records, level by level, with records in, groups and records out),
or, in a plain run whose words and repeat index are the last run's, taken from it (`last_read`).

A broadcasting node whose grid comes from its record (SV_DispatchGrid) gets one launch per
producing slot too, set up by the grid-scan meta shader (`grid_setup`, dispatched beside the other
in the same setup pass, one workgroup per such launch; or by the tails of the level before, where
`_fused` allows it: few records and no group table): it sums the records' grids on the GPU into
prefix sums (NodeContext `grid_prefix`) and, where the launch's bound of groups is at most
GRID_TABLE_LIMIT and the device is one of GRID_TABLE_KINDS, writes each group's record
(`grid_records`; else the groups search the prefix sums), both in the level's arena side; dispatches their total as one indirect dispatch (split over
x, y and z), starts the cross-group sharing counters at each
record's grid, and writes the total and the first grid beyond [NodeMaxDispatchGrid] (which runs no
group) among the words read back, where the host finds the trace's groups and `GridBeyondMax`;
its output arenas are planned for the largest grid of every record.

The host-driven path (`Scheduler.run`) runs instead where no plan is made: a record-given grid
without [NodeMaxDispatchGrid], bounds
beyond the memory limit (the host-driven scheduler sizes from the real counts, and fails only if
those do not fit), more than MAX_LAUNCHES launches or more levels than the graph allows, counts
beyond 32 bits, or a launch whose bound of groups exceeds what one dispatch may have (for a mesh
launch, one draw: the mesh-shader limits of `graphics.Graphics`, which the host-driven scheduler
meets by splitting a launch into several draws).  `gpu_driven=False` forces it.

Invariants: the plan depends only on the graph and the entry records' counts and addresses; arenas
of level L are on side L % 2 (level L+1 reads them, level L+2 overwrites them after a barrier);
the arenas are device-local (no host access) where the device has separate memory; `close` frees
everything.
"""

from __future__ import annotations

import itertools
import os
import struct
from typing import Any

from wgc import emulation_abi as abi
from wgc.cached_dataclass import dataclass, field
from wgc.runtime import grid_setup as grids
from wgc.runtime import indirect_setup as meta
from wgc.runtime import passes
from wgc.runtime.device import Buffer
from wgc.runtime.program import NodePlan, grid_problem, record_grid
from wgc.runtime.scheduler import (GRID_TABLE_LIMIT, UNBOUNDED_CAPACITY, Chunk, GridBeyondMax, RecordsOutOfMemory,
                                   Scheduler, TraceDispatch, TraceStep, WorkKey, _put, _round, _Slot, over_records)

HOST_GRID_RECORDS = 1 << 16
"""At most this many entry records of a record-given grid are summed on the host (`_entry_grids`)."""
GRID_TABLE_KINDS = frozenset({"cpu"})
"""Devices on which `grid_setup` writes each group's record into a table: on a CPU implementation
(lavapipe) a group's search of the prefix sums is a loop of serial loads per lane, while on a GPU
the one workgroup that writes the table is the slower part (the NVIDIA H200, 1,000 records of 100
groups: graph / hand-written 1.41-1.54 with the table, 0.97-1.14 searching)."""
FUSED_LAUNCHES = 2
"""A level whose tails set up the next: at most this many launches of the next per invocation of
its smallest workgroup (`_fused`: the last group's invocations set up one launch each in turn).
On the NVIDIA H200 one invocation setting up 14 launches in turn cost 29 µs more than the meta pass
(about 2 µs a launch: loads from the control buffer, one after another), where the meta pass and
its barrier cost 4-5 µs: about two launches in turn cost what the pass does
(`benchmarks/tail_width.py` measures it by width)."""
FUSED_GRID_RECORDS = 4
"""A level whose tails set up the next: at most this many records may reach each launch of the next
whose grid comes from its records (one invocation reads them one after another, `_fused`)."""
FUSED_GROUPS = 4096
"""A level whose tails set up the next: at most this many workgroups in it (`_fused`)."""
FUSED_GROUPS_CPU = 32
"""The same on a CPU device (lavapipe), counting only the groups of more invocations than a
subgroup (the smaller of it and FUSED_GROUPS): llvmpipe runs such a group's invocations as
coroutines, one per subgroup-wide row, switched at each of the tail's barriers (about 1 µs a group
of 64, where the meta pass and its barrier cost some 20-30 µs); a group of one row switches
nothing (benchmarks/RESULTS.md, "Fused levels on lavapipe")."""
MAX_LAUNCHES = 4096
"""Launches a plan may hold (the command buffer records one indirect dispatch each)."""
_U32 = 0xFFFFFFFF


COUNTER_SPACING = 128
"""Bytes between the counters of the slots of one node-array output of a launch of at least
SPACED_GROUPS workgroups in the control image: each on a cache line of its own (128 bytes: a GPU's
L2 line), so that the producer's atomics on different elements do not queue on one line (a single
output's counter, and those of a smaller launch, keep 4 bytes)."""
SPACED_GROUPS = 1024
"""A launch of fewer workgroups adds to its counters too few times for their queueing to matter,
while every spaced line lengthens the results the host reads back after the run: its counters stay
packed."""


STRIPES = 4
"""Stripes of each element of a node-array output of a launch of at least STRIPE_GROUPS workgroups
(emulation ABI, "Stripes"; a power of two; 1: none): group g allocates from stripe g % STRIPES, each
with its own counter, arena part and launch at the next level, so that no counter takes more than
1/STRIPES of the groups' atomics (a GPU's L2 serialises atomics on one address: 16,384 groups adding
to each of four counters took the NVIDIA H200 32 µs, 17 µs in 4 stripes). On the H200,
benchmarks/run.py's arrays shape, wall ratio to the hand kernels, with the results read back
through host-cached memory (`readback`): 0.84-0.94 with 4 stripes, 0.93-1.02 without; read
straight from the GPU's memory, each stripe's counter line cost the host more than the producer
gained (1.16-1.59 with 4). `benchmarks/run.py --stripes S` measures others."""
STRIPE_GROUPS = 8192
"""The fewest workgroups of a producing launch whose node-array outputs are striped (above
FUSED_GROUPS: more launches at the next level would end its fusion with the level before)."""
UNSTRIPED_KINDS = frozenset({"cpu"})
"""Devices whose groups are not striped by g % STRIPES: on lavapipe each stripe is one more dispatch
and its worker threads share every stripe (the benchmarks' arrays shape, 16,384 groups: CPU ratio to
the hand kernel 1.41-1.46 with one stripe, 1.65-1.93 with 8). Those of RANGE_STRIPE_KINDS stripe by
range instead."""
RANGE_STRIPE_KINDS = frozenset({"cpu"})
"""Devices whose workers each run a contiguous range of a dispatch's workgroups (llvmpipe's thread
pool gives each of its T threads the next 1/T of them): there group g allocates from stripe g >> k,
one stripe per worker (`_range_stripes`: S, the power of two at or above T, with 2^k * S at least the
launch's groups), so that no two workers add to one counter. On 2 threads both adding to the four
counters of the benchmarks' arrays shape, the graph's CPU time was 1.66-4.15 times the hand
kernel's, 1.19-1.21 on one thread."""
RANGE_STRIPES_MAX = 16
"""At most this many stripes by range."""
STRIPE_SLOTS = 256
"""At most this many output slots of one node-array output, stripes included."""


def _stripe_count(output: Any, slots: int, groups: int, least: int, stripes: int) -> int:
    """Stripes of a node-array output of `slots` slots on a launch of at most `groups` workgroups:
    `stripes` (the scheduler's: STRIPES, or `_range_stripes`) where the launch has at least `least`
    groups (the scheduler's `stripe_groups`), else 1. Outputs without records (EmptyNodeOutput)
    keep one."""
    if not output.array or output.empty or groups < least or slots * stripes > STRIPE_SLOTS:
        return 1
    return stripes


def _range_stripes() -> int:
    """Stripes by range on a RANGE_STRIPE_KINDS device: the power of two at or above its workers
    (llvmpipe's: `LP_NUM_THREADS`, else the processors this process may run on), at most
    RANGE_STRIPES_MAX; 1 for one worker."""
    value = os.environ.get("LP_NUM_THREADS")
    try:
        workers = int(value) if value else len(os.sched_getaffinity(0))
    except (ValueError, AttributeError, OSError):
        workers = os.cpu_count() or 1
    return min(RANGE_STRIPES_MAX, 1 << max(0, workers - 1).bit_length())


def _stripe_shift(stripes: int, groups: int, by_range: bool) -> int:
    """k of a launch's stripes (emulation ABI, "Stripes": group g uses stripe (g >> k) & (S - 1)):
    0 by g % S; by range, the least k with 2^k * S at least the launch's `groups`."""
    if not by_range or stripes == 1:
        return 0
    return max(0, -(-groups // stripes) - 1).bit_length()


def _stripe_groups(groups: int, stripes: int, shift: int, s: int) -> int:
    """How many of the groups g < `groups` use stripe `s`: ((g >> shift) & (stripes - 1)) == s."""
    period, run = stripes << shift, 1 << shift
    return groups // period * run + min(run, max(0, groups % period - s * run))


def _striped(slots: list[_Slot], stripes: int, groups: int, units: int, per_group: int, per_slot: int,
             shift: int = 0) -> list[_Slot]:
    """`slots` (one per element) as `stripes` * len(slots) slots (emulation ABI, "Stripes"): stripe s
    of element i at s * len(slots) + i, its capacity what the groups g < `groups` with (g >> shift)
    % stripes == s may send: their `per_group` units each (at most `units` in all) × `per_slot`
    records."""
    if stripes == 1:
        return slots
    out: list[_Slot] = []
    for s in range(stripes):
        owned = min(units, per_group * _stripe_groups(groups, stripes, shift, s))
        out.extend(_Slot(slot.target, slot.key, owned * per_slot if slot.target is not None else 0, slot.stride)
                   for slot in slots)
    return out


def _counter_spacing(launch: _Planned, slots: int) -> int:
    """Bytes between the counters of an output of `slots` slots of `launch` (COUNTER_SPACING)."""
    groups = -(-launch.input.bound * launch.group_mul // launch.group_div)
    return COUNTER_SPACING if slots > 1 and groups >= SPACED_GROUPS else 4


def _counter_words(spacing: int, slots: int) -> int:
    """Words the counters of an output of `slots` slots `spacing` bytes apart may take among the
    results, alignment included."""
    return 1 if slots == 1 else (slots * spacing + spacing - 4) // 4


@dataclass
class _Input:
    """The records of one planned launch."""

    count: int | None
    """Known on the host (entry records), or None: the producer's counter says."""
    bound: int
    """The most records it can be."""
    address: int | None
    """Entry records: their address; None: the producer's arena (or scratch for empty records)."""
    stride: int
    producer: tuple[int, int, int, int] | None = None
    """(level, launch, output, slot) whose counter counts these records."""
    capacity: int = _U32
    """Records the producer's arena holds: the count is clamped to it."""
    origin: tuple[int, int, int, int] | None = None
    """A stripe of a node-array element (emulation ABI, "Stripes"): (level, launch, output, element)
    of its producer, the same for every stripe of the element: the trace shows their launches as one."""
    chunk: Chunk | None = None
    """Entry records: where the host reads them (a record-given grid of the first level is summed there)."""


@dataclass
class _Planned:
    key: WorkKey
    node: NodePlan
    input: _Input
    group_mul: int
    group_div: int
    unit_div: int
    grid: int
    units: int
    """Bound of the D3D thread groups (threads for thread launch)."""
    outputs: list[list[_Slot]]
    """Per output its slots: one per element, times its stripes (`stripes`)."""
    per_slot: list[int]
    """Records per unit of each output (MaxRecords, or MaxRecordsPerNode for arrays)."""
    stripes: list[int] = field(default_factory=list)
    """Per output its stripes (1 but for node arrays of a launch of many groups: `_stripe_count`)."""
    stripe_shift: int = 0
    """k of its outputs' stripes: group g uses stripe (g >> k) % S (`_stripe_shift`)."""
    record_grid: bool = False
    """A node whose grid comes from its record: set up by `grid_setup` (module docstring)."""
    prefix_arena: int = 0
    """Its prefix sums' offset in the level's arena side (device memory, as the records)."""
    table_arena: int | None = None
    """Its table of each group's record there, where the bound of its groups is at most
    GRID_TABLE_LIMIT and the host sums the grids or the device is one of GRID_TABLE_KINDS (else
    None: the groups search the prefix sums)."""
    grid_at: int = 0
    """Its result words (`grid_setup.RESULT_WORDS`): total groups, the first record beyond the max
    grid and its grid."""
    host_grids: list[int] | None = None
    """A record-given grid of the first level whose records the host read: each record's group count
    (`_host_grid_setup` writes what `grid_setup` would)."""
    status_at: int = 0
    counters_at: list[list[int]] = field(default_factory=list)
    slots_at: list[int] = field(default_factory=list)
    context_at: int = 0
    indirect_at: int = 0
    query: int | None = None
    """A mesh launch whose primitives are counted: its query (`graphics.Graphics.draw_indirect`)."""


@dataclass
class _Plan:
    levels: list[list[_Planned]]
    side_bytes: list[int]
    tables_at: list[int] = field(default_factory=list)
    grid_tables: list[tuple[int, int]] = field(default_factory=list)
    """Per level: where its `grid_setup` table is in the control image, and its entries."""
    results_bytes: int = 0
    """The status words and counters lead the control image: the bytes read back after a run."""
    image: bytes = b""
    resets: list[tuple[int, bytes]] = field(default_factory=list)
    """What a run changes in the image and the next run needs back, (offset, bytes): the status
    words and counters (zeros) and cross-group sharing counters; the rest is rewritten on the device
    before it is read (by the meta shader or the level tails, which also zero the `done` words, and
    the arguments of every later level after a level that gets no group) or never written (what
    `host_setup` computed)."""
    host_setup: bool = False
    """The first level's counts, group counts and capacities are computed on the host (`_host_setup`,
    `_host_grid_setup` for grids given by the records, which the host reads there): its records come
    from the host, so no setup pass runs before it."""
    fused: list[bool] = field(default_factory=list)
    """Per level: its groups set up the next level through their level tail (`_fused`, set with the
    image), so the next level has no meta pass."""
    levels_at: list[int] = field(default_factory=list)
    """Per level: where its `emulation_abi.LEVEL` block is in the control image."""
    commands: Any = None
    """The recorded command buffer (replayed by every run)."""
    last_read: tuple[int, bytes, list[TraceStep]] | None = None
    """(repeat index, result words, trace) of the last plain run (no prints, timing, progress or
    draws): a run whose words are the same gets the same `TraceStep`s (in a new list) without
    decoding them again."""
    bound_to: tuple[int, ...] = ()
    """Addresses of the control buffer and the arenas that `image` and `commands` use."""
    times: list[tuple[int | None, int | None, list[tuple[int | None, int | None]]]] = field(default_factory=list)
    """Timed runs: per level the timestamp queries (start, end) of the level and of each launch."""
    time_queries: int = 0
    primitive_queries: int = 0
    """The mesh launches' primitive queries the command buffer uses (0: the primitives are not counted)."""


def _modes(node: NodePlan) -> tuple[int, int, int, int] | None:
    """(group_mul, group_div, unit_div, grid) of a launch of `node`: groups = ceil(n * mul / div),
    units = ceil(n * mul / unit_div); for a grid that comes from the record, the most groups one
    record may ask for as `group_mul` (`grid_setup` sums the records' own), None where the
    GPU-driven schedule does not cover it (no [NodeMaxDispatchGrid]: no bound)."""
    if node.launch == "thread":
        return 1, abi.THREAD_GROUP_SIZE, 1, 1
    if node.launch == "coalescing":
        most = max(1, node.max_records)
        return 1, most, most, 1
    if _record_grid(node):
        if node.max_dispatch_grid is None:
            return None
        mx, my, mz = node.max_dispatch_grid
        return mx * my * mz, 1, 1, 0
    gx, gy, gz = node.dispatch_grid or (1, 1, 1)
    return gx * gy * gz, 1, 1, gx * gy * gz


def _entry_grids(node: NodePlan, chunk: Chunk) -> list[int] | None:
    """Each entry record's group count, read on the host; None where the host cannot read them or a
    grid is beyond [NodeMaxDispatchGrid] (the `grid_setup` pass then finds and reports it), or there
    are more than HOST_GRID_RECORDS (reading them is then the GPU's work)."""
    if chunk.buffer is None or chunk.count > HOST_GRID_RECORDS:
        return None
    size, count = node.record.size, chunk.count
    data = chunk.buffer.read(chunk.offset, chunk.stride * (count - 1) + size) if count else b""
    found = []
    for r in range(count):
        asked = record_grid(node, data[r * chunk.stride:r * chunk.stride + size])
        if grid_problem(node, asked) is not None:
            return None
        found.append(asked[0] * asked[1] * asked[2])
    return found


def _record_grid(node: NodePlan) -> bool:
    return node.grid_field is not None and node.dispatch_grid is None


def _group_size(node: NodePlan) -> int:
    """The invocations of a workgroup of `node` in the emulated module."""
    x, y, z = (abi.THREAD_GROUP_SIZE, 1, 1) if node.launch == "thread" else node.num_threads
    return x * y * z


def _fused(levels: list[list[_Planned]], host_setup: bool, grids: bool, most_wide: int | None = None,
           lanes: int = 0) -> list[bool]:
    """Per level, whether its groups' level tails (emulation ABI, "Level tail") set up the next
    level: where the level's own number of workgroups is known before it runs (the first level set
    up on the host, `host_setup`, false for a program without tails, `Program.level_tail`; or a
    level set up by fused tails), it has no mesh launch (a mesh entry point has
    no tail), and the next level exists and holds no mesh launch (drawn after the meta pass); and
    where the tails cost less than the meta pass they replace: the level may have at most
    FUSED_GROUPS workgroups (each adds to one counter) and, where `most_wide` is given (a CPU device:
    FUSED_GROUPS_CPU), at most that many of more than `lanes` invocations, the next at most
    FUSED_LAUNCHES launches per invocation of the level's smallest workgroup (the last group's
    invocations set up launch i, i + its size, ..., where the meta shader has one invocation per
    launch), and each launch of the next
    whose grid comes from its records (where the modules' tails can, `grids`: `Program.tail_grids`)
    at most FUSED_GRID_RECORDS records (its invocation sums their
    grids in turn, where `grid_setup` has a workgroup) and no group table (the tails write none: on
    GRID_TABLE_KINDS devices `grid_setup` stays, whose table spares lavapipe's groups the search).
    Elsewhere the meta pass sets the next level up."""
    fused: list[bool] = []
    known = host_setup
    for level, launches in enumerate(levels):
        following = levels[level + 1] if level + 1 < len(levels) else None
        known = (known and following is not None and all(launch.node.launch != "mesh" for launch in launches)
                 and all(launch.node.launch != "mesh" for launch in following)
                 and all(grids and launch.input.bound <= FUSED_GRID_RECORDS and launch.table_arena is None
                         for launch in following if launch.record_grid)
                 and len(following) <= FUSED_LAUNCHES * min(_group_size(launch.node) for launch in launches)
                 and sum(_groups(launch) for launch in launches) <= FUSED_GROUPS
                 and (most_wide is None or sum(_groups(launch) for launch in launches
                                               if _group_size(launch.node) > lanes) <= most_wide))
        fused.append(known)
    return fused


def _groups(launch: _Planned) -> int:
    """The most workgroups a planned launch may have."""
    return -(-launch.input.bound * launch.group_mul // launch.group_div)


class GpuScheduler(Scheduler):
    """`Scheduler` whose `run` records every level in one command buffer (module docstring)."""

    def __init__(self, *args: Any, gpu_driven: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gpu_driven = gpu_driven
        self._grid_tables = self.device.info.kind in GRID_TABLE_KINDS
        """Whether `grid_setup` writes group tables on this device (GRID_TABLE_KINDS)."""
        kind = self.device.info.kind
        self.stripes_by_range = kind in UNSTRIPED_KINDS and kind in RANGE_STRIPE_KINDS
        """Whether groups take stripes by range (RANGE_STRIPE_KINDS), not g % STRIPES."""
        self.stripes = _range_stripes() if self.stripes_by_range else STRIPES if kind not in UNSTRIPED_KINDS else 1
        """The stripes of a striped node-array output on this device."""
        self.stripe_groups = _U32 + 1 if self.stripes == 1 else STRIPE_GROUPS
        """Launches of at least this many workgroups stripe their node-array outputs (`_stripe_count`)."""
        self._plans: dict[tuple[Any, ...], _Plan | None] = {}
        self._passes: dict[tuple[Any, ...], list[list[tuple[NodePlan, Chunk]]]] = {}
        self._gpu_arenas: list[Buffer | None] = [None, None]
        self._gpu_control: Buffer | None = None
        self._control_holds: _Plan | None = None
        """The plan whose image the control buffer holds (a run rewrites only `_Plan.resets` of it)."""
        self._meta: Any = None
        self._grid_meta: Any = None
        self.last_run_gpu_driven = False
        """Whether the last `run` took the GPU-driven path, in every pass (tests and benchmarks read it)."""
        self.last_passes = 1
        """The passes of the last `run` (`passes`: more than one where its entry records did not fit)."""
        self.last_gpu_ns: int | None = None
        """A timed GPU-driven run (one pass): nanoseconds from its first level's start to its last
        level's end, the empty levels after the last dispatch included (benchmarks read it)."""

    def close(self) -> None:
        for plan in self._plans.values():
            if plan is not None and plan.commands is not None:
                self.device.free_commands(plan.commands)
                plan.commands = None
        self._plans = {}
        for buffer in [*self._gpu_arenas, self._gpu_control]:
            if buffer is not None:
                self.device.free(buffer)
        self._gpu_arenas = [None, None]
        self._gpu_control = None
        self._control_holds = None
        for made in (self._meta, self._grid_meta):
            if made is not None:
                self.device.vk.vkDestroyPipeline(self.device.device, made, None)
        self._meta = self._grid_meta = None
        super().close()

    # ------------------------------------------------------------------ planning

    def _plan(self, entries: list[tuple[NodePlan, Chunk]]) -> _Plan | None:
        """The plan of a run of `entries`, with stripes where `_stripe_count` says (in a program whose
        modules know them, `Program.stripes`); where that plan is not possible (more launches than
        MAX_LAUNCHES, arenas past the memory limit), the plan without stripes."""
        least = self.stripe_groups if getattr(self.program, "stripes", False) else _U32 + 1
        plan = self._plan_levels(entries, least)
        if plan is None and least <= _U32:
            plan = self._plan_levels(entries, _U32 + 1)
        return plan

    def _plan_levels(self, entries: list[tuple[NodePlan, Chunk]], least: int) -> _Plan | None:
        """The plan, striping the node-array outputs of launches of at least `least` groups."""
        pending: dict[WorkKey, list[_Input]] = {}
        inputs = [_Input(chunk.count, chunk.count, chunk.address, chunk.stride, chunk=chunk) for _, chunk in entries]
        for key, at in self.entry_work(entries):
            pending.setdefault(key, []).append(inputs[at])
        levels: list[list[_Planned]] = []
        side_bytes = [0, 0]
        launches_planned = 0
        while pending:
            if len(levels) >= self.max_steps:
                return None
            level = len(levels)
            launches: list[_Planned] = []
            arena_bytes = 0
            for key in sorted(pending):
                node = self.program.nodes[key.node]
                modes = _modes(node)
                if modes is None or (node.launch == "mesh" and self.graphics is None):
                    return None
                limits = self._grid_limits(node)
                most_groups = limits[0] * limits[1] * (limits[2] if _record_grid(node) else 1)
                group_mul, group_div, unit_div, grid = modes
                if launches_planned + len(launches) + len(pending[key]) > MAX_LAUNCHES:
                    return None
                for records in pending[key]:
                    n = records.bound
                    units = -(-n * group_mul // unit_div)
                    groups = -(-n * group_mul // group_div)
                    if n * group_mul > _U32 or groups > most_groups:
                        return None
                    outputs = [self._slots(key, node, output, units) for output in node.outputs]
                    per_slot = [o.max_records_per_node if o.array else o.max_records for o in node.outputs]
                    stripes = [_stripe_count(o, len(slots), groups, least, self.stripes)
                               for o, slots in zip(node.outputs, outputs)]
                    shift = _stripe_shift(max(stripes, default=1), groups, self.stripes_by_range)
                    outputs = [_striped(slots, n_stripes, groups, units, group_div // unit_div, per, shift)
                               for slots, n_stripes, per in zip(outputs, stripes, per_slot)]
                    for output, slots in zip(node.outputs, outputs):
                        for slot in slots:
                            if slot.target is None or output.empty:
                                continue
                            if slot.capacity >= UNBOUNDED_CAPACITY:
                                return None
                            slot.arena = arena_bytes
                            arena_bytes = _round(arena_bytes + slot.capacity * slot.stride)
                            if arena_bytes > self.memory_limit:
                                return None
                    planned = _Planned(key, node, records, group_mul, group_div, unit_div, grid, units, outputs,
                                       per_slot, stripes, shift, _record_grid(node))
                    if planned.record_grid and records.chunk is not None:
                        planned.host_grids = _entry_grids(node, records.chunk)
                    if planned.record_grid:     # its prefix sums and group table, beside the arenas
                        planned.prefix_arena = arena_bytes
                        arena_bytes = _round(arena_bytes + 4 * n)
                        if groups <= GRID_TABLE_LIMIT and (planned.host_grids is not None or self._grid_tables):
                            planned.table_arena = arena_bytes
                            arena_bytes = _round(arena_bytes + 4 * groups)
                        if arena_bytes > self.memory_limit:
                            return None
                    launches.append(planned)
            launches_planned += len(launches)
            if launches_planned > MAX_LAUNCHES:
                return None
            side_bytes[level % 2] = max(side_bytes[level % 2], arena_bytes)
            following: dict[WorkKey, list[_Input]] = {}
            for at, launch in enumerate(launches):
                for p, (output, slots) in enumerate(zip(launch.node.outputs, launch.outputs)):
                    for i, slot in enumerate(slots):
                        if slot.target is None or slot.key is None:
                            continue
                        bound = launch.units * launch.per_slot[p] if output.empty else slot.capacity
                        if bound == 0:
                            continue
                        elements = len(slots) // launch.stripes[p]
                        origin = (level, at, p, i % elements) if launch.stripes[p] > 1 else None
                        records = _Input(None, min(bound, _U32), None, slot.stride, (level, at, p, i),
                                         min(slot.capacity, _U32), origin)
                        following.setdefault(slot.key, []).append(records)
                        for sharer in self.sharers.get(slot.key.node, []):
                            key = WorkKey(sharer, slot.key.remaining, slot.key.loops)
                            following.setdefault(key, []).append(records)
            levels.append(launches)
            pending = following
        first = levels[0] if levels else []
        host_setup = all(launch.input.producer is None and (not launch.record_grid or launch.host_grids is not None)
                         for launch in first)
        return _Plan(levels, side_bytes, host_setup=host_setup)

    def _group_limits(self, node: NodePlan) -> tuple[int, int]:
        """(x, y) group counts one dispatch of `node` may have: the compute limits, or a mesh node's
        draw limits (`graphics.Graphics`: maxMeshWorkGroupCount and maxMeshWorkGroupTotalCount)."""
        if node.launch == "mesh":
            return self.graphics.max_x, self.graphics.max_y
        x, y, _ = self.device.max_group_count
        return x, y

    def _grid_limits(self, node: NodePlan) -> tuple[int, int, int]:
        """(x, y, z) group counts one dispatch of `node` may have (a draw: z is 1)."""
        if node.launch == "mesh":
            return self.graphics.max_x, self.graphics.max_y, 1
        x, y, z = self.device.max_group_count
        return x, y, z

    # ------------------------------------------------------------------ the control image

    def _image(self, plan: _Plan, base: int, arenas: list[int]) -> bytearray:
        """The control data of `plan` for a control buffer at `base` and arenas at `arenas` (each
        launch's offsets are recorded in the plan; the same layout for every base)."""
        words = sum(1 + sum(_counter_words(_counter_spacing(launch, len(slots)), len(slots)) for slots in launch.outputs)
                    + (grids.RESULT_WORDS if launch.record_grid else 0) for level in plan.levels for launch in level)
        plan.results_bytes = 4 * words
        data = bytearray(_round(plan.results_bytes))
        results = 0

        def take(nbytes: int, alignment: int = 8) -> int:
            start = _round(len(data), alignment)
            data.extend(bytes(start + nbytes - len(data)))
            return start

        def take_result(nbytes: int, alignment: int = 4) -> int:
            nonlocal results
            results = _round(results, alignment) + nbytes
            return results - nbytes

        scratch = self.scratch.address
        plan.tables_at, plan.grid_tables = [], []
        plan.resets = [(0, bytes(plan.results_bytes))]
        plan.levels_at = [take(abi.LEVEL_SIZE) for _ in plan.levels]
        cpu = self.device.info.kind == "cpu"
        plan.fused = _fused(plan.levels, plan.host_setup and getattr(self.program, "level_tail", False),
                            getattr(self.program, "tail_grids", False),
                            min(FUSED_GROUPS, FUSED_GROUPS_CPU) if cpu else None,
                            int(getattr(self.device, "subgroup_size", 0)))
        first_groups = 0
        for level, launches in enumerate(plan.levels):
            plain = [launch for launch in launches if not launch.record_grid]
            gridded = [launch for launch in launches if launch.record_grid]
            table_at = take(meta.LAUNCH_SIZE * len(plain))
            grid_table_at = take(grids.GRID_LAUNCH_SIZE * len(gridded))
            plan.tables_at.append(table_at)
            plan.grid_tables.append((grid_table_at, len(gridded)))
            out = arenas[level % 2]
            entry = {id(launch): at for table in (plain, gridded) for at, launch in enumerate(table)}
            for launch in launches:
                at = entry[id(launch)]      # its entry in its meta shader's table
                launch.status_at = take_result(4)
                launch.grid_at = take_result(4 * grids.RESULT_WORDS) if launch.record_grid else 0
                singles = sum(not output.array for output in launch.node.outputs)
                launch.context_at = take(abi.single_slot_offset(singles), abi.NODE_CONTEXT_ALIGNMENT)
                params_at = take(abi.OUTPUT_PARAMETER_SIZE * len(launch.outputs))
                launch.counters_at, launch.slots_at = [], []
                fixes: list[tuple[int, int, int]] = []
                single = 0
                for p, (output, slots) in enumerate(zip(launch.node.outputs, launch.outputs)):
                    if output.array:
                        slots_at = take(abi.OUTPUT_SLOT_SIZE * len(slots))
                    else:                   # after the NodeContext (emulation ABI, "Outputs")
                        assert len(slots) == 1, "a single output has one slot"
                        slots_at = launch.context_at + abi.single_slot_offset(single)
                        single += 1
                    spacing = _counter_spacing(launch, len(slots))
                    counter_at = take_result(spacing * len(slots), spacing)
                    launch.slots_at.append(slots_at)
                    launch.counters_at.append([counter_at + spacing * i for i in range(len(slots))])
                    _put(data, params_at + p * abi.OUTPUT_PARAMETER_SIZE, abi.OUTPUT_PARAMETER,
                         slots=base + slots_at, count=len(slots) // launch.stripes[p],
                         stripe_mask=launch.stripe_shift << 16 | launch.stripes[p] - 1 if launch.stripes[p] > 1 else 0)
                    for i, slot in enumerate(slots):
                        valid = slot.target is not None
                        arena = out + slot.arena if valid and slot.stride else scratch
                        slot_at = slots_at + i * abi.OUTPUT_SLOT_SIZE
                        _put(data, slot_at, abi.OUTPUT_SLOT, records=arena, counter=base + counter_at + spacing * i,
                             capacity=slot.capacity if valid else 0, stride=slot.stride, valid=1 if valid else 0)
                        if valid and not output.empty:
                            fixes.append((base + slot_at, launch.per_slot[p], slot.capacity))
                shared_at = 0
                if launch.node.cross_group_sharing:
                    shared_at = take(4 * launch.input.bound, 4)
                    if not launch.record_grid:      # else `grid_setup` writes each record's grid, every run
                        struct.pack_into(f"<{launch.input.bound}I", data, shared_at,
                                         *([launch.grid] * launch.input.bound))
                        plan.resets.append((shared_at, bytes(data[shared_at:shared_at + 4 * launch.input.bound])))
                lra = 0
                table_index = launch.node.local_root_arguments_table_index
                if self.local_root_arguments is not None and table_index is not None:
                    stride, table = self.local_root_arguments
                    lra = table.address + stride * table_index
                records = launch.input
                if records.address is not None:
                    address = records.address
                elif records.stride:
                    producer_level, producer_at, p, i = records.producer or (0, 0, 0, 0)
                    slot = plan.levels[producer_level][producer_at].outputs[p][i]
                    address = arenas[producer_level % 2] + slot.arena
                else:
                    address = scratch
                _put(data, launch.context_at, abi.NODE_CONTEXT, input_records=address, input_count=0,
                     input_stride=records.stride, outputs=base + params_at, status=base + launch.status_at,
                     scratch=scratch, remaining_recursion_levels=launch.key.remaining,
                     loop_iteration=launch.key.loop_iteration, group_offset=0,
                     shared_counters=base + shared_at if launch.node.cross_group_sharing else 0,
                     local_root_arguments=lra, checks=self.checks.address if self.checks is not None else 0,
                     prints=self.prints.address if self.prints is not None else 0,
                     grid_prefix=out + launch.prefix_arena if launch.record_grid else 0,
                     grid_records=out + launch.table_arena if launch.table_arena is not None else 0,
                     level=base + plan.levels_at[level] if plan.fused[level] else 0)
                launch.indirect_at = take(12, 4)
                fixes_at = take(meta.FIX_SIZE * len(fixes))
                for k, (slot_address, per_unit, reserved) in enumerate(fixes):
                    _put(data, fixes_at + k * meta.FIX_SIZE, meta.FIX, slot=slot_address, per_unit=per_unit,
                         reserved=reserved)
                source = 0
                if records.producer is not None:
                    producer_level, producer_at, p, i = records.producer
                    source = base + plan.levels[producer_level][producer_at].counters_at[p][i]
                if level == 0 and plan.host_setup and launch.host_grids is not None:
                    first_groups += self._host_grid_setup(data, launch, fixes, base, shared_at, take, plan)
                    continue
                if launch.record_grid:
                    grid_field, most = launch.node.grid_field, launch.node.max_dispatch_grid
                    assert grid_field is not None and most is not None
                    max_x, max_y, max_z = self._grid_limits(launch.node)
                    _put(data, grid_table_at + at * grids.GRID_LAUNCH_SIZE, grids.GRID_LAUNCH, source=source,
                         context=base + launch.context_at, indirect=base + launch.indirect_at, fixes=base + fixes_at,
                         prefix=out + launch.prefix_arena, shared=base + shared_at if shared_at else 0,
                         table=out + launch.table_arena if launch.table_arena is not None else 0,
                         result=base + launch.grid_at, count=records.count or 0, source_capacity=records.capacity,
                         fix_count=len(fixes), grid_at=grid_field.offset, grid_bits=grid_field.bits,
                         grid_components=grid_field.components, max_grid=most[0] | most[1] << 32 | most[2] << 64,
                         max_x=max_x, max_y=max_y, max_z=max_z)
                    continue
                _put(data, table_at + at * meta.LAUNCH_SIZE, meta.LAUNCH, source=source,
                     context=base + launch.context_at, indirect=base + launch.indirect_at, fixes=base + fixes_at,
                     count=records.count or 0, source_capacity=records.capacity, group_mul=launch.group_mul,
                     group_div=launch.group_div, unit_div=launch.unit_div, fix_count=len(fixes),
                     max_x=self._group_limits(launch.node)[0])
                if level == 0 and plan.host_setup:
                    first_groups += self._host_setup(data, launch, fixes, base)
        for level, fused in enumerate(plan.fused):
            if not fused:
                continue
            following = plan.levels[level + 1]
            grid_table_at, grid_count = plan.grid_tables[level + 1]
            _put(data, plan.levels_at[level], abi.LEVEL, done=0, expected=first_groups if level == 0 else 0,
                 launches=base + plan.tables_at[level + 1], launch_count=len(following) - grid_count,
                 next=base + plan.levels_at[level + 1], grid_launches=base + grid_table_at, grid_count=grid_count)
        return data

    def _host_grid_setup(self, data: bytearray, launch: _Planned, fixes: list[tuple[int, int, int]], base: int,
                         shared_at: int, take: Any, plan: _Plan) -> int:
        """What `grid_setup` writes for a launch of the first level whose grids the host read
        (`_Planned.host_grids`), computed here as it computes it: `input_count`, the prefix sums and the
        group table (in the control image), the sharing counters, the result words, the indirect group
        counts (the total split over x, y and z) and the capacity of each output slot; returns the
        workgroups dispatched."""
        grids_of = launch.host_grids or []
        count, total = len(grids_of), sum(grids_of)
        prefix_at = take(4 * max(count, 1), 4)
        struct.pack_into(f"<{count}I", data, prefix_at, *itertools.accumulate(grids_of))
        table_at = 0
        if launch.table_arena is not None and total:
            table_at = take(4 * total, 4)
            data[table_at:table_at + 4 * total] = b"".join(struct.pack("<I", r) * g for r, g in enumerate(grids_of))
        _put(data, launch.context_at, abi.NODE_CONTEXT, input_count=count, grid_prefix=base + prefix_at,
             grid_records=base + table_at if table_at else 0)
        if shared_at:
            struct.pack_into(f"<{count}I", data, shared_at, *grids_of)
            plan.resets.append((shared_at, bytes(data[shared_at:shared_at + 4 * count])))
        result = struct.pack(f"<{grids.RESULT_WORDS}I", total, grids.NO_RECORD, *([0] * (grids.RESULT_WORDS - 2)))
        data[launch.grid_at:launch.grid_at + len(result)] = result
        plan.resets.append((launch.grid_at, result))
        max_x, max_y, _ = self._grid_limits(launch.node)
        x = min(total, max_x)
        rest = -(-total // x) if x else 0
        y = min(rest, max_y)
        z = -(-rest // y) if y else 0
        struct.pack_into("<3I", data, launch.indirect_at, x, y, z)
        for slot_address, per_unit, reserved in fixes:
            struct.pack_into("<I", data, slot_address - base + abi.OUTPUT_SLOT["capacity"][0],
                             min(total * per_unit, reserved))
        return x * y * z

    def _host_setup(self, data: bytearray, launch: _Planned, fixes: list[tuple[int, int, int]], base: int) -> int:
        """What the meta shader writes for a launch whose record count the host knows (an entry input, no
        grid read from a record), computed here as it computes it: `input_count`, the indirect group
        counts and the capacity of each output slot; returns the workgroups dispatched."""
        count = launch.input.count or 0
        groups = -(-count * launch.group_mul // launch.group_div)
        units = -(-count * launch.group_mul // launch.unit_div)
        x = min(groups, self._group_limits(launch.node)[0])
        y = -(-groups // x) if x else 0
        struct.pack_into("<I", data, launch.context_at + abi.NODE_CONTEXT["input_count"][0], count)
        struct.pack_into("<3I", data, launch.indirect_at, x, y, 1)
        for slot_address, per_unit, reserved in fixes:
            struct.pack_into("<I", data, slot_address - base + abi.OUTPUT_SLOT["capacity"][0],
                             min(units * per_unit, reserved))
        return x * y

    # ------------------------------------------------------------------ a whole graph

    def _meta_pipeline(self) -> Any:
        """The meta shader's pipeline, in the graph's pipeline layout (whose push constants hold its 16
        bytes: `pipelines.GraphPipelines`), so that binding it keeps the graph's descriptor sets bound."""
        if self._meta is None:
            self._meta = self.device.pipelines(meta.module(), ["main"], self.pipelines.layout)["main"]
        return self._meta

    def _grid_pipeline(self) -> Any:
        """The `grid_setup` meta shader's pipeline (made on first use: only graphs with record grids), in
        the graph's pipeline layout, as `_meta_pipeline`."""
        if self._grid_meta is None:
            self._grid_meta = self.device.pipelines(grids.module(), ["main"], self.pipelines.layout)["main"]
        return self._grid_meta

    def _gpu_buffer(self, current: Buffer | None, size: int, host: bool) -> Buffer:
        if current is not None and current.size >= size:
            return current
        if current is not None:
            self.device.free(current)
        return self.device.buffer(max(size, 1 << 16), host_access=host)

    def run(self, entries: list[tuple[NodePlan, Chunk]], repeat_index: int = 0) -> list[TraceStep]:
        """The graph over `entries`, in passes where their first level does not fit in the memory
        limit (`passes`); each pass GPU-driven where it can be."""
        def fits(piece: list[tuple[NodePlan, Chunk]]) -> bool:
            need = passes.first_level_bytes(self.program, self.sharers, self.index_of, piece, self.memory_limit)
            return need <= self.memory_limit

        cache_key = tuple((n.name, n.index, c.address, c.count, c.stride) for n, c in entries)
        pieces = self._passes.get(cache_key)
        if pieces is None:
            pieces = self._passes[cache_key] = passes.split(entries, fits)
        self.last_passes = len(pieces)
        if len(pieces) == 1:
            return self._run_pass(entries, repeat_index)
        steps: list[TraceStep] = []
        everywhere = True
        for index, piece in enumerate(pieces):
            try:
                ran = self._run_pass(piece, repeat_index)
            except (RecordsOutOfMemory, GridBeyondMax) as problem:
                for step in problem.trace:
                    step.pass_index = index
                problem.trace = steps + problem.trace
                raise
            everywhere = everywhere and self.last_run_gpu_driven
            for step in ran:
                step.pass_index = index
            steps.extend(ran)
        self.last_run_gpu_driven = everywhere
        return steps

    def _run_pass(self, entries: list[tuple[NodePlan, Chunk]], repeat_index: int) -> list[TraceStep]:
        self.last_run_gpu_driven = False
        self.last_gpu_ns = None
        if not self.gpu_driven:
            return super().run(entries, repeat_index)
        cache_key = tuple((n.name, n.index, c.address, c.count, c.stride) for n, c in entries)
        if cache_key not in self._plans:
            self._plans[cache_key] = self._plan(entries)
        plan = self._plans[cache_key]
        if plan is None:
            return super().run(entries, repeat_index)
        if not plan.levels:
            return []
        self.last_run_gpu_driven = True
        for side in (0, 1):
            self._gpu_arenas[side] = self._gpu_buffer(self._gpu_arenas[side], plan.side_bytes[side], False)
        arenas = [buffer.address for buffer in self._gpu_arenas if buffer is not None]
        size = len(plan.image) if plan.image else len(self._image(plan, 0, arenas))   # the same for every base
        self._gpu_control = self._gpu_buffer(self._gpu_control, size, True)
        control = self._gpu_control
        copy_to = self.readback.wanted(control, plan.results_bytes)
        bound_to = (control.address, *arenas, control.serial,      # the commands name these buffers
                    copy_to.serial if copy_to is not None else 0)
        if plan.bound_to != bound_to:
            plan.image = bytes(self._image(plan, control.address, arenas))
            if plan.commands is not None:
                self.device.free_commands(plan.commands)
                plan.commands = None
            plan.commands = self._record(plan, control, copy_to)
            plan.bound_to = bound_to
            self._control_holds = None
        if self._control_holds is plan:        # the image is there: only what the last run changed
            for at, values in plan.resets:
                control.write(at, values)
        else:
            control.write(0, plan.image)
            self._control_holds = plan
        if self.prints is not None:
            self.prints.reset()
        self.device.replay(plan.commands)
        if self.checks is not None:
            self.checks.contexts = {control.address + launch.context_at: (launch.node, level)
                                    for level, launches in enumerate(plan.levels) for launch in launches}
            self.checks.collect(repeat_index)
        result = self.readback.read(control, copy_to, plan.results_bytes)
        plain = self.prints is None and self.timing is None and self.progress is None and not plan.primitive_queries
        if plain and plan.last_read is not None and plan.last_read[:2] == (repeat_index, result):
            return list(plan.last_read[2])
        steps = self._read_back(plan, result, repeat_index)
        plan.last_read = (repeat_index, result, list(steps)) if plain else None
        return steps

    def _record(self, plan: _Plan, control: Buffer, copy_to: Buffer | None) -> Any:
        """The command buffer of a whole run: the graph's descriptor sets bound once; per level the meta
        pass and a barrier (not before the first level where `_Plan.host_setup`, nor before a level
        set up by the tails of the one before it, `_Plan.fused`), the indirect
        dispatches, a rendering pass of the mesh launches' indirect draws, a barrier (compute to
        compute and indirect reads between levels, `Device.compute_barrier`; the last one, and one
        after draws, covers every stage and the host's reads); after the last level, where `copy_to`
        is given, the copy of the results region into it (`readback.ResultsCopy.record`).  With
        `timing`, a timestamp before the first level and one once the last level's commands are done,
        before that last barrier (in detail mode also around each level and dispatch)."""
        meta_pipeline = self._meta_pipeline()
        device, user, layout = self.device, self.push_constants, self.pipelines.layout
        device.record_reusable()
        timing = self.timing
        plan.times = []
        meshes = sum(launch.node.launch == "mesh" for launches in plan.levels for launch in launches)
        counted = self.graphics is not None and self.graphics.countable(meshes)
        plan.primitive_queries = 0
        if timing is not None:
            timing.begin()
        detail = timing is not None and not timing.whole_run_only
        bound: Any = None

        def use(pipeline: Any) -> None:
            nonlocal bound
            if bound is None:       # with the sets, once: every pipeline here has the graph's layout
                self.pipelines.bind(device, pipeline)
            elif pipeline is not bound:
                device.bind(pipeline, layout, [])
            bound = pipeline

        try:
            for level, launches in enumerate(plan.levels):
                level_start = timing.write() if timing is not None and (detail or level == 0) else None
                launch_times: list[tuple[int | None, int | None]] = []
                grid_table_at, gridded = plan.grid_tables[level]
                plain = len(launches) - gridded
                set_up = plan.host_setup if level == 0 else plan.fused[level - 1]   # on the host, or by tails
                if plain and not set_up:
                    use(meta_pipeline)
                    device.push(layout, struct.pack("<QII", control.address + plan.tables_at[level], plain, 0))
                    device.dispatch(-(-plain // meta.GROUP_SIZE))
                if gridded and not set_up:      # one workgroup per launch of a record-given grid
                    use(self._grid_pipeline())
                    device.push(layout, struct.pack("<QII", control.address + grid_table_at, gridded, 0))
                    device.dispatch(gridded)
                if not set_up:
                    device.compute_barrier()
                draws: list[tuple[str, bytes, Buffer, int]] = []
                first_query = plan.primitive_queries
                for launch in launches:
                    head = struct.pack("<Q", control.address + launch.context_at)
                    constants = head + bytes(abi.USER_PUSH_CONSTANT_OFFSET - len(head)) + user if user else head
                    if launch.node.launch == "mesh":      # drawn after the level's compute work
                        draws.append((launch.node.entry_point, constants, control, launch.indirect_at))
                        launch.query = plan.primitive_queries if counted else None
                        plan.primitive_queries += int(counted)
                        launch_times.append((None, None))     # not timed as a dispatch (as host-driven)
                        continue
                    # with the level tail only where this level's NodeContexts give it a `level`
                    use(self.pipelines.pipeline(launch.node.entry_point, tail=plan.fused[level]))
                    device.push(layout, constants)
                    start = timing.write() if detail else None
                    device.dispatch_indirect(control, launch.indirect_at)
                    launch_times.append((start, timing.write(end=True) if detail else None))
                if draws:
                    self.graphics.draw_indirect(draws, first_query if counted else None)
                final = level == len(plan.levels) - 1
                # the run's end, once its last commands are done, before the barrier that makes the
                # results visible to the host (as a D3D12 timestamp query right after DispatchGraph)
                end = timing.write(end=True) if timing is not None and final else None
                if draws or final:
                    device.barrier()
                else:
                    device.compute_barrier()
                if timing is not None:
                    plan.times.append((level_start, end if final else timing.write(end=True) if detail else None,
                                       launch_times))
            plan.time_queries = timing.used if timing is not None else 0
            if copy_to is not None:
                self.readback.record(control, copy_to, plan.results_bytes)
        finally:
            recorded = device.end_reusable()
        return recorded

    def _read_back(self, plan: _Plan, result: bytes, repeat_index: int) -> list[TraceStep]:
        """The trace of a GPU-driven run from its counters; RecordsOutOfMemory on a status flag."""

        words = struct.unpack(f"<{len(result) // 4}I", result)

        def word(at: int) -> int:
            return words[at >> 2]

        def input_count(launch: Any) -> int:
            records = launch.input
            if records.producer is None:
                return records.count or 0
            producer_level, producer_at, p, i = records.producer
            return min(word(plan.levels[producer_level][producer_at].counters_at[p][i]), records.capacity)

        def keep_prints(launches: list[Any], at: int, level: int, order: int) -> None:
            """Before a failure at launch `at` of `level`: the prints of the levels that ran are
            kept, the failed one's whole (as where the host schedules them)."""
            if self.prints is None:
                return
            for later in launches[at:]:
                later_count = input_count(later)
                if later_count:
                    dispatched[control_address + later.context_at] = self._dispatched(
                        later.node, repeat_index, level, order, later_count)
                    order += 1
            self.prints.collect(dispatched)

        steps: list[TraceStep] = []
        timing = self.timing
        ticks = timing.read(plan.time_queries) if timing is not None else []
        if timing is not None and plan.times:
            self.last_gpu_ns = timing.nanoseconds(ticks, plan.times[0][0], plan.times[-1][1])
        drawn = self.graphics.primitives(plan.primitive_queries) if plan.primitive_queries else None
        dispatched: dict[int, Any] = {}
        control_address = plan.bound_to[0] if plan.bound_to else 0
        for level, launches in enumerate(plan.levels):
            trace = TraceStep(repeat_index, level)
            last_origin: Any = None
            level_times = plan.times[level] if timing is not None and level < len(plan.times) else None
            if timing is not None and level_times is not None:
                trace.gpu_ns = timing.nanoseconds(ticks, level_times[0], level_times[1])
            for at, launch in enumerate(launches):
                count = input_count(launch)
                groups = -(-count * launch.group_mul // launch.group_div)
                if launch.record_grid:
                    first_bad = word(launch.grid_at + 4) if count else grids.NO_RECORD
                    asked = (word(launch.grid_at + 8), word(launch.grid_at + 12), word(launch.grid_at + 16))
                    beyond = grid_problem(launch.node, asked) if first_bad != grids.NO_RECORD else None
                    if beyond is not None:
                        keep_prints(launches, at, level, len(trace.dispatches) + 1)
                        grid_error = GridBeyondMax(beyond)
                        grid_error.level = level
                        grid_error.trace = steps      # as host-driven: the level that asks is not run
                        raise grid_error
                    groups = word(launch.grid_at) if count else 0
                if count == 0 or groups == 0:
                    continue
                self._note_status(launch.node, word(launch.status_at))
                if word(launch.status_at) & abi.STATUS_OUT_OF_RECORDS:
                    keep_prints(launches, at, level, len(trace.dispatches) + 1)
                    units = groups if launch.record_grid else -(-count * launch.group_mul // launch.unit_div)
                    wanted = [_per_element([word(at) for at in offsets], stripes)
                              for offsets, stripes in zip(launch.counters_at, launch.stripes)]
                    problem = RecordsOutOfMemory(launch.node.label, over_records(launch.node, units, wanted, level))
                    problem.level = level
                    problem.trace = steps + ([trace] if trace.dispatches else [])
                    raise problem
                node = launch.node
                dispatch = TraceDispatch(node.label, node.entry_point, node.launch, launch.key.remaining,
                                         launch.key.loop_iteration, count, groups)
                if timing is not None and level_times is not None:
                    dispatch.gpu_ns = timing.nanoseconds(ticks, *level_times[2][at])
                origin = (launch.input.origin, launch.key) if launch.input.origin is not None else None
                if origin is not None and origin == last_origin and trace.dispatches:
                    _merge(trace.dispatches[-1], dispatch)     # another stripe of the same element
                    dispatch = trace.dispatches[-1]
                last_origin = origin
                if drawn is not None and launch.query is not None:
                    dispatch.primitives = drawn[launch.query]
                for output, stripes, counters in zip(launch.node.outputs, launch.stripes, launch.counters_at):
                    produced = _per_element([word(counter_at) for counter_at in counters], stripes)
                    for i, records in enumerate(produced):
                        if output.array and records:
                            dispatch.records_out[f"{output.parameter}[{i}]"] = \
                                dispatch.records_out.get(f"{output.parameter}[{i}]", 0) + records
                    dispatch.records_out[output.parameter] = dispatch.records_out.get(output.parameter, 0) + \
                        sum(produced)
                if dispatch is not (trace.dispatches[-1] if trace.dispatches else None):
                    trace.dispatches.append(dispatch)
                if self.prints is not None:
                    dispatched[control_address + launch.context_at] = self._dispatched(
                        node, repeat_index, level, len(trace.dispatches), count)
            if not trace.dispatches:
                break
            steps.append(trace)
        if self.prints is not None:
            self.prints.collect(dispatched)
        if self.progress is not None:
            for trace in steps:
                self.progress(repeat_index, trace.level, sum(d.records_in for d in trace.dispatches))
        return steps


def _per_element(counts: list[int], stripes: int) -> list[int]:
    """The counts of an output's slots (stripe s of element i at s * elements + i) summed per element."""
    elements = len(counts) // stripes
    return [sum(counts[s * elements + i] for s in range(stripes)) for i in range(elements)]


def _merge(into: TraceDispatch, stripe: TraceDispatch) -> None:
    """`stripe`'s records and groups added to `into`, the trace's launch of the same element."""
    into.records_in += stripe.records_in
    into.groups += stripe.groups
    if into.gpu_ns is not None and stripe.gpu_ns is not None:
        into.gpu_ns += stripe.gpu_ns
    if into.primitives is not None and stripe.primitives is not None:
        into.primitives += stripe.primitives


__all__ = ["GpuScheduler", "MAX_LAUNCHES"]
