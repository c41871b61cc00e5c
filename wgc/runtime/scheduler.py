"""Runtime: the level-by-level scheduler of the emulation ABI (`wgc.emulation_abi`).

Input: an open `device.Device`, the `program.Program`, compute pipelines for its entry points
(`pipelines.GraphPipelines`), and the entry records of a `dispatch.Dispatch`.
Output: the graph's effect on the bound resources, and a `TraceStep` per step (every dispatch: node,
records in, groups, records out per output).

How it runs (host-driven, seed 002's "depth by depth"): the work pending at a step is a set of
(node, remaining recursion levels, iteration of each enclosing loop) keys, each with chunks of
input records.  A step records every pending dispatch in one command buffer (one `NodeContext` each, its address
in push constants; a barrier closes the step), submits it, waits, and reads back the status words
and the output counters.  Each (dispatch, output slot) had its own counter and its own record
arena, sized before the step from the node's MaxRecords bound (records per thread group, or per
thread for thread launch) times its thread groups; the records it produced become chunks of the
target's key at the next step.  Steps repeat until no records remain.  Arenas alternate between
two buffers (the inputs of a step are the previous step's outputs), grown when a step needs more.

Invariants: the ABI is followed exactly (offsets from `emulation_abi`, never literals); a
broadcasting node whose grid comes from the record is one launch per chunk of records over the sum
of their grids, with the prefix sums of their group counts in the control data (`grid_prefix`:
records of a zero grid own no group; nothing is dispatched where all are zero); at most 65535 groups per dimension, more through
several dispatches with increasing `group_offset`; records that would not fit in the memory limit
are an error naming the node (`RecordsOutOfMemory`), and so is a status word with
`STATUS_OUT_OF_RECORDS`; a produced grid beyond [NodeMaxDispatchGrid] is `GridBeyondMax`; an output
of a node to itself targets the next recursion level and is no node (IsValid false) at level 0, a
loop's back edge the next iteration and no node past [NodeMaxLoopIterations]; `Scheduler.close`
frees everything it allocated.  Optional, and nothing where absent: a print buffer (`prints.py`)
emptied before each submit and read after it, every NodeContext pointing at it; timestamps
(`timing.py`, `--time`) around each level and dispatch; a progress callback after each level.
"""

from __future__ import annotations

import itertools
import math
import struct
from typing import Any

from wgc import emulation_abi as abi
from wgc.cached_dataclass import dataclass, field
from wgc.runtime.device import Buffer, Device
from wgc.runtime.program import NodePlan, OutputPlan, Program, grid_problem, record_grid
from wgc.runtime.readback import ResultsCopy

DEFAULT_MEMORY_LIMIT = 1 << 30
"""Bytes a run may use for the dispatch's data and the record arenas of a step, unless `wgc run
--max-memory` says otherwise (seed 002: 'on the order of 1 GB is likely acceptable')."""
GRID_TABLE_LIMIT = 1 << 22
"""The most groups of a launch whose grid comes from its records for which the runtime writes the
record of each group (NodeContext `grid_records`: one load per group); beyond, the groups search
the prefix sums."""
GRID_RECORD_BYTES = 8
"""The control bytes each record of a node whose grid comes from its records costs (its prefix sum
of groups, and its cross-group sharing counter), so that their count is bounded too."""
ARENA_ALIGNMENT = 16
UNBOUNDED_CAPACITY = 0xFFFFFFFF


class RecordsOutOfMemory(Exception):
    def __init__(self, node: str, message: str) -> None:
        super().__init__(message)
        self.node = node
        self.level: int | None = None
        """The level that failed (set where it is known)."""
        self.trace: list[TraceStep] = []
        """The levels of the run before the failure (`Scheduler.run` sets them)."""


def over_records(node: NodePlan, units: int, produced: list[list[int]], level: int) -> str:
    """The message of a dispatch whose status word says STATUS_OUT_OF_RECORDS: which outputs went past
    their bound (`units` thread groups, or threads, × MaxRecords), asking for how many records
    (`produced`: the counters, per output and slot, which count every record asked for)."""
    unit = "thread" if node.launch == "thread" else "thread group"
    parts = []
    for output, counts in zip(node.outputs, produced):
        if output.empty:
            continue
        per = output.max_records_per_node if output.array else output.max_records
        attribute = "MaxRecordsPerNode" if output.array else "MaxRecords"
        for i, asked in enumerate(counts):
            if asked > units * per:
                name = f"{output.parameter}[{i}]" if output.array else output.parameter
                target = f"{output.target}" + (f"[{output.target_index + i}]" if output.array else "")
                parts.append(f"{asked} records on output '{name}' (node '{target}'), more than the {units * per} "
                             f"that its {units} {unit}{'s' if units != 1 else ''} × {attribute}({per}) allow")
    if not parts:
        return (f"node '{node.label}' allocated more output records than its MaxRecords bounds allow, so some "
                "were dropped")
    return (f"node '{node.label}' at level {level} asked for " + "; ".join(parts) +
            ", so some were dropped")


class GridBeyondMax(Exception):
    """A produced record's SV_DispatchGrid exceeds its node's [NodeMaxDispatchGrid]."""

    level: int | None = None
    trace: list[TraceStep] = []


@dataclass
class Chunk:
    """Input records: `count` records at `address`, `stride` bytes apart (0: all read record 0),
    whose bytes the host can read at `buffer` + `offset`."""

    address: int
    count: int
    stride: int
    buffer: Buffer | None
    offset: int
    source: Any = None
    """Which launch made these records: (`_Launch`, output parameter index, array index); None for
    entry records (`schedules.DebugScheduler` reads it for the record dump)."""


@dataclass(frozen=True, order=True)
class WorkKey:
    node: int
    """Index into Program.nodes."""
    remaining: int
    loops: tuple[tuple[int, int], ...] = ()
    """(loop entry's index into Program.nodes, iteration) of every loop holding the node, outermost
    first: an inner loop's records leaving it find the enclosing loops' iterations unchanged."""

    @property
    def loop_iteration(self) -> int:
        """The innermost loop's iteration (GetCurrentLoopIterationIndex); 0 outside loops."""
        return self.loops[-1][1] if self.loops else 0


@dataclass
class TraceDispatch:
    node: str
    entry_point: str
    launch: str
    remaining_recursion_levels: int
    loop_iteration: int
    records_in: int
    groups: int
    records_out: dict[str, int] = field(default_factory=dict)
    """Per output parameter (empty outputs: the count added); node arrays add 'Param[i]' entries."""
    gpu_ns: int | None = None
    """GPU time of the dispatch (`wgc run --time`; None: not timed)."""

    primitives: int | None = None
    """A mesh node's primitives drawn (where the device counts them: `graphics.py`)."""

    def to_json(self) -> dict[str, Any]:
        data = {"node": self.node, "entry_point": self.entry_point, "launch": self.launch,
                "remaining_recursion_levels": self.remaining_recursion_levels,
                "loop_iteration": self.loop_iteration, "records_in": self.records_in, "groups": self.groups,
                "records_out": dict(self.records_out)}
        if self.gpu_ns is not None:
            data["gpu_ms"] = round(self.gpu_ns / 1e6, 6)
        if self.primitives is not None:
            data["primitives"] = self.primitives
        return data


@dataclass
class TraceStep:
    repeat: int
    level: int
    dispatches: list[TraceDispatch] = field(default_factory=list)
    gpu_ns: int | None = None
    """GPU time of the level (`wgc run --time`; None: not timed)."""
    pass_index: int | None = None
    """The pass it belongs to, in a run of several passes (`passes`); None: a run of one."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"repeat": self.repeat, "level": self.level}
        if self.pass_index is not None:
            data["pass"] = self.pass_index
        if self.gpu_ns is not None:
            data["gpu_ms"] = round(self.gpu_ns / 1e6, 6)
        data["dispatches"] = [d.to_json() for d in self.dispatches]
        return data


@dataclass
class _Slot:
    target: int | None
    """Index of the target node, None when no node exists at this index (IsValid false)."""
    key: WorkKey | None
    capacity: int
    stride: int
    arena: int = 0
    """Offset of the arena in the step's output buffer."""


@dataclass
class _Launch:
    key: WorkKey
    node: NodePlan
    chunk: Chunk
    count: int
    """Records this launch reads (input_count)."""
    address: int
    groups: int
    grid: int
    """Thread groups per record (broadcasting), for the cross-group sharing counters."""
    units: int
    """D3D thread groups (threads for thread launch): what MaxRecords bounds are per."""
    outputs: list[list[_Slot]]
    trace: TraceDispatch
    first_group: int = 0
    """The flat group its first group is (its dispatches' `group_offset` start there): a debugging
    schedule may run a broadcasting launch's groups one by one (`schedules.DebugScheduler`)."""
    first: int = 0
    """Index in its chunk of the launch's first record."""
    grids: list[int] | None = None
    """A grid from the record: each record's group count (the prologue searches their prefix sums)."""


def entry_bytes(program: Program, node: NodePlan, count: int, records: bytes, stride: int,
                limit: int) -> tuple[int, str]:
    """An upper estimate of the bytes `count` entry records of `node` (`records`, `stride` apart; 0:
    one record repeated) need at their level: the arenas of the records its outputs may write
    (MaxRecords × thread groups × record stride) and its launches; and what needs them, in words.
    Launches beyond `limit` alone are the answer (their records are not read)."""
    if count == 0:
        return 0, ""
    launches = 0
    """Records whose grids the control data sums (a grid from the record)."""
    if node.launch == "thread":
        units = count
    elif node.launch == "coalescing":
        units = -(-count // max(1, node.max_records))
    elif node.grid_field is not None and node.dispatch_grid is None:
        size = node.record.size
        if count * GRID_RECORD_BYTES > limit:
            return count * GRID_RECORD_BYTES, f"the group counts of {count} records"
        if stride == 0:
            units = count * math.prod(record_grid(node, records[:size]))
        else:
            units = sum(math.prod(record_grid(node, records[r * stride:r * stride + size])) for r in range(count))
        launches = count
    else:
        units = count * math.prod(node.dispatch_grid or (1, 1, 1))
    total, words = (launches * GRID_RECORD_BYTES, f"the group counts of {launches} records") if launches > 1 else (0, "")
    for output in node.outputs:
        if output.empty:
            continue
        targets = [program.node(output.target, output.target_index)] if not output.array else \
            [n for n in program.nodes if n.name == output.target and n.index >= output.target_index
             and (output.array_size is None or n.index < output.target_index + output.array_size)]
        per_slot = output.max_records_per_node if output.array else output.max_records
        need = sum(units * per_slot * t.record.stride for t in targets if t is not None)
        if need:
            total += need
            words += f", {units * per_slot} records to '{output.parameter}' ({units} thread groups × MaxRecords)"
    return total, words.lstrip(", ")


def _round(value: int, alignment: int = ARENA_ALIGNMENT) -> int:
    return -(-value // alignment) * alignment


class Scheduler:
    """Runs entry records through a graph on one device; `run` may be called repeatedly."""

    graphics: Any = None
    """The `graphics.Graphics` that draws the mesh nodes' launches (a graph with mesh nodes)."""

    def __init__(self, device: Device, program: Program, pipelines: Any, *, push_constants: bytes = b"",
                 local_root_arguments: tuple[int, Buffer] | None = None,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT, prints: Any = None, timing: Any = None,
                 progress: Any = None, checks: Any = None) -> None:
        self.device = device
        self.prints = prints
        """The `prints.PrintBuffer` of a module that prints, else None."""
        self.timing = timing
        """`timing.Timestamps` where the run is timed (`wgc run --time`), else None."""
        self.progress = progress
        """Called with (repeat, level, records in) after each level the host schedules, or None."""
        self.loop_budget: list[str] = []
        """Nodes an invocation of which reached `abi.LOOP_BUDGET` loop iterations (STATUS_LOOP_BUDGET)."""
        self.checks = checks
        """`checks.CheckReports` of a module compiled with checks (`wgc run --check`), else None."""
        self.program = program
        self.pipelines = pipelines
        self.push_constants = push_constants
        self.local_root_arguments = local_root_arguments
        self.memory_limit = memory_limit
        self.index_of = {(n.name, n.index): i for i, n in enumerate(program.nodes)}
        self.sharers: dict[int, list[int]] = {}
        for i, node in enumerate(program.nodes):
            if node.share_input_of is not None and node.share_input_of in self.index_of:
                self.sharers.setdefault(self.index_of[node.share_input_of], []).append(i)
        largest = max([n.record.stride for n in program.nodes] + [o.record.stride for n in program.nodes
                                                                  for o in n.outputs] + [16])
        self.scratch = device.buffer(largest)
        self.control: Buffer | None = None
        self.readback = ResultsCopy(device)
        """Where the host reads a level's (a GPU-driven run's) results from (`readback.py`)."""
        self.arenas: list[Buffer | None] = [None, None]
        self._arena_bytes = [0, 0]
        """The bytes of records each arena holds (by the MaxRecords bounds of the step that wrote it)."""
        iterations = math.prod(n.max_loop_iterations or 1 for n in program.nodes)
        deepest = max((n.max_recursion_depth for n in program.nodes), default=0)
        self.max_steps = 1 + len(program.nodes) * (1 + deepest) * iterations
        """A chain visits each node once per recursion level and (nested) loop iteration at most."""

    def close(self) -> None:
        for buffer in [self.scratch, self.control, *self.arenas]:
            if buffer is not None:
                self.device.free(buffer)
        self.control = None
        self.arenas = [None, None]
        self.readback.close()

    # ------------------------------------------------------------------ planning

    def _target_key(self, producer: WorkKey, node: NodePlan, target_index: int) -> WorkKey | None:
        target = self.program.nodes[target_index]
        if target_index == producer.node and target.max_loop_iterations is None:   # recursion: a level down
            if producer.remaining == 0:
                return None
            return WorkKey(target_index, producer.remaining - 1, producer.loops)
        current = dict(producer.loops)
        loops = []
        for entry_id in target.loops:                   # outermost first; loops left are dropped
            entry = self.index_of[entry_id]
            if entry == target_index and entry_id in node.loops:
                iteration = current.get(entry, 0) + 1   # a loop's back edge: the next iteration
                if target.max_loop_iterations is not None and iteration >= target.max_loop_iterations:
                    return None
            else:
                iteration = current.get(entry, 0)       # an enclosing loop, or entering a loop: 0
            loops.append((entry, iteration))
        return WorkKey(target_index, target.max_recursion_depth, tuple(loops))

    def _slots(self, key: WorkKey, node: NodePlan, output: OutputPlan, units: int) -> list[_Slot]:
        if output.array:
            count = output.array_size
            if count is None:   # unbounded: up to the highest index present
                present = [n.index for n in self.program.nodes if n.name == output.target]
                count = max(present, default=-1) + 1 - output.target_index
                count = max(count, 0)
        else:
            count = 1
        per_slot = output.max_records_per_node if output.array else output.max_records
        slots = []
        for i in range(count):
            target = self.index_of.get((output.target, output.target_index + i))
            target_key = self._target_key(key, node, target) if target is not None else None
            if target is None or target_key is None:
                slots.append(_Slot(None, None, 0, 0))
                continue
            stride = self.program.nodes[target].record.stride
            capacity = UNBOUNDED_CAPACITY if output.empty else units * per_slot
            slots.append(_Slot(target, target_key, capacity, 0 if output.empty else stride))
        return slots

    def _launches(self, key: WorkKey, chunk: Chunk) -> list[_Launch]:
        node = self.program.nodes[key.node]
        n = chunk.count
        if n == 0:
            return []
        per_record = node.grid_field is not None and node.dispatch_grid is None      # a grid in each record
        if per_record and n * GRID_RECORD_BYTES > self.memory_limit:
            raise RecordsOutOfMemory(node.label, (
                f"node '{node.label}' takes its grid from each of its {n} records: their group counts "
                f"({GRID_RECORD_BYTES} bytes each) are more than the {self.memory_limit} bytes wgc run may use"))
        plans: list[tuple[int, int, int, int, int, int]] = []   # (address, count, groups, grid, units, first)
        grids: list[int] | None = None
        if node.launch == "thread":
            plans.append((chunk.address, n, -(-n // abi.THREAD_GROUP_SIZE), 1, n, 0))
        elif node.launch == "coalescing":
            groups = -(-n // max(1, node.max_records))
            plans.append((chunk.address, n, groups, 1, groups, 0))
        elif per_record:
            assert chunk.buffer is not None
            size = node.record.size
            data = chunk.buffer.read(chunk.offset, chunk.stride * (n - 1) + size)
            grids = []
            for r in range(n):
                asked = record_grid(node, data[r * chunk.stride:r * chunk.stride + size])
                problem = grid_problem(node, asked)
                if problem is not None:
                    raise GridBeyondMax(problem)
                grids.append(asked[0] * asked[1] * asked[2])
            total = sum(grids)
            if total:
                plans.append((chunk.address, n, total, 0, total, 0))
        else:
            gx, gy, gz = node.dispatch_grid or (1, 1, 1)
            groups_each = gx * gy * gz
            plans.append((chunk.address, n, n * groups_each, groups_each, n * groups_each, 0))
        launches = []
        for address, count, groups, grid, units, first in plans:
            trace = TraceDispatch(node.label, node.entry_point, node.launch, key.remaining, key.loop_iteration,
                                  count, groups)
            outputs = [self._slots(key, node, o, units) for o in node.outputs]
            launches.append(_Launch(key, node, chunk, count, address, groups, grid, units, outputs, trace, first=first,
                                    grids=grids))
        return launches

    def _arrange(self, launches: list[_Launch]) -> list[_Launch]:
        """The launches of a step in the order they are recorded (a subclass may reorder them:
        `schedules.DebugScheduler`)."""
        return launches

    _after_shape: Any = None
    """A debugging scheduler's hook, called after each dispatch is recorded: (launch, its dispatch's
    index, the launch's counter offsets, the control buffer); None in a plain run."""

    def _launch_shapes(self, launch: _Launch) -> list[tuple[int, int, int]]:
        """The dispatches of `launch` (a subclass may dispatch its groups one by one)."""
        return self._shapes(launch.groups, launch.node.launch == "mesh")

    def _shapes(self, groups: int, mesh: bool = False) -> list[tuple[int, int, int]]:
        if mesh:                                  # a mesh node's draws: the mesh-shader limits
            return self.graphics.shapes(groups)
        max_x, max_y, _ = self.device.max_group_count
        return dispatch_shapes(groups, max_x, max_y)

    # ------------------------------------------------------------------ one step

    def _ensure(self, which: int, size: int, cap: int) -> Buffer:
        """Arena `which` of at least `size` bytes; grown by doubling, but not past `cap`."""
        current = self.arenas[which]
        if current is None or current.size < size:
            if current is not None:
                self.device.free(current)
                self.arenas[which] = None
            grown = min(2 * (current.size if current else 0), cap)
            self.arenas[which] = self.device.buffer(max(size, grown, min(1 << 16, cap), 1))
        buffer = self.arenas[which]
        assert buffer is not None
        return buffer

    def step(self, pending: dict[WorkKey, list[Chunk]], output_side: int, trace: TraceStep) -> dict[WorkKey, list[Chunk]]:
        launches: list[_Launch] = []
        for key in sorted(pending):
            for chunk in pending[key]:
                launches.extend(self._launches(key, chunk))
        launches = self._arrange(launches)
        if not launches:
            return {}
        # arenas: sized from the MaxRecords bounds; the other arena holds this step's input records
        held = self._arena_bytes[1 - output_side]
        arena_bytes = 0
        for launch in launches:
            for output, slots in zip(launch.node.outputs, launch.outputs):
                for slot in slots:
                    if slot.target is None or output.empty:
                        continue
                    need = slot.capacity * slot.stride
                    if held + arena_bytes + need > self.memory_limit:
                        raise RecordsOutOfMemory(launch.node.label, (
                            f"node '{launch.node.label}' may write {slot.capacity} records of {slot.stride} bytes "
                            f"to '{output.parameter}' ({launch.units} thread groups × MaxRecords); with the other "
                            f"records of this level and those it reads that is more than the {self.memory_limit} "
                            "bytes wgc run may use"))
                    slot.arena = arena_bytes
                    arena_bytes = _round(arena_bytes + need)
        out = self._ensure(output_side, arena_bytes, self.memory_limit - held)
        self._arena_bytes[output_side] = arena_bytes
        # control data: contexts, output parameters, slots, counters, status, cross-group counters
        contexts = sum(len(self._launch_shapes(launch)) for launch in launches)
        context_slots = sum(len(self._launch_shapes(launch)) * sum(not output.array for output in launch.node.outputs)
                            for launch in launches)     # each context's copies of its single outputs' slots
        parameters = sum(len(launch.outputs) for launch in launches)
        slot_count = sum(len(slots_of) for launch in launches for slots_of in launch.outputs)
        sharing = sum(launch.count for launch in launches if launch.node.cross_group_sharing)
        sharing += sum(len(launch.grids) + _table_size(launch.grids)
                       for launch in launches if launch.grids is not None)      # prefix sums, group tables
        pieces = 1 + contexts + 4 * len(launches) + 2 * parameters      # each `take` may pad up to 7 bytes
        size = (contexts * abi.NODE_CONTEXT_SIZE + context_slots * abi.OUTPUT_SLOT_SIZE
                + parameters * abi.OUTPUT_PARAMETER_SIZE
                + slot_count * (abi.OUTPUT_SLOT_SIZE + 4) + len(launches) * 4 + sharing * 4 + 8 * pieces)
        if self.control is None or self.control.size < size:
            if self.control is not None:
                self.device.free(self.control)
                self.control = None
            self.control = self.device.buffer(max(size, 2 * size, 1 << 16))
        control = self.control
        data = bytearray(size)
        base = control.address
        cursor = 0

        def take(nbytes: int, alignment: int = 8) -> int:
            nonlocal cursor
            cursor = _round(cursor, alignment)
            start = cursor
            cursor += nbytes
            assert cursor <= size, "internal: the control data outgrew its estimate"
            return start

        status_at = take(4 * len(launches), 4)
        recorded: list[tuple[_Launch, int, list[list[int]], list[tuple[int, int, int, int]]]] = []
        for index, launch in enumerate(launches):
            counters: list[list[int]] = []
            singles: list[int] = []         # where the slot of each single output is (ABI: "Outputs")
            params_at = take(abi.OUTPUT_PARAMETER_SIZE * len(launch.outputs))
            for p, slots_of in enumerate(launch.outputs):
                slots_at = take(abi.OUTPUT_SLOT_SIZE * len(slots_of))
                if not launch.node.outputs[p].array:
                    singles.append(slots_at)
                counter_at = take(4 * len(slots_of), 4)
                counters.append([counter_at + 4 * i for i in range(len(slots_of))])
                _put(data, params_at + p * abi.OUTPUT_PARAMETER_SIZE, abi.OUTPUT_PARAMETER,
                     slots=base + slots_at, count=len(slots_of))
                for i, slot in enumerate(slots_of):
                    valid = slot.target is not None
                    records = out.address + slot.arena if valid and slot.stride else self.scratch.address
                    _put(data, slots_at + i * abi.OUTPUT_SLOT_SIZE, abi.OUTPUT_SLOT, records=records,
                         counter=base + counter_at + 4 * i, capacity=slot.capacity if valid else 0,
                         stride=slot.stride, valid=1 if valid else 0, first_group=launch.first_group)
            shared_at = prefix_at = table_at = 0
            if launch.node.cross_group_sharing:
                shared_at = take(4 * launch.count, 4)
                struct.pack_into(f"<{launch.count}I", data, shared_at, *(launch.grids or [launch.grid] * launch.count))
            if launch.grids is not None:
                prefix_at = take(4 * launch.count, 4)
                struct.pack_into(f"<{launch.count}I", data, prefix_at, *itertools.accumulate(launch.grids))
                if _table_size(launch.grids):
                    owners = b"".join(struct.pack("<I", r) * g for r, g in enumerate(launch.grids))
                    table_at = take(len(owners), 4)
                    data[table_at:table_at + len(owners)] = owners
            lra = 0
            table_index = launch.node.local_root_arguments_table_index
            if self.local_root_arguments is not None and table_index is not None:
                stride, table = self.local_root_arguments
                lra = table.address + stride * table_index
            shapes = []
            for group_offset, nx, ny in self._launch_shapes(launch):
                context_at = take(abi.single_slot_offset(len(singles)), abi.NODE_CONTEXT_ALIGNMENT)
                for j, slot_at in enumerate(singles):   # a copy after each NodeContext
                    copy_at = context_at + abi.single_slot_offset(j)
                    data[copy_at:copy_at + abi.OUTPUT_SLOT_SIZE] = data[slot_at:slot_at + abi.OUTPUT_SLOT_SIZE]
                _put(data, context_at, abi.NODE_CONTEXT, input_records=launch.address, input_count=launch.count,
                     input_stride=launch.chunk.stride, outputs=base + params_at, status=base + status_at + 4 * index,
                     scratch=self.scratch.address, remaining_recursion_levels=launch.key.remaining,
                     loop_iteration=launch.key.loop_iteration, shader_index=launch.node.index,
                     group_offset=launch.first_group + group_offset,
                     shared_counters=base + shared_at if launch.node.cross_group_sharing else 0,
                     local_root_arguments=lra, checks=self.checks.address if self.checks is not None else 0,
                     prints=self.prints.address if self.prints is not None else 0,
                     grid_prefix=base + prefix_at if launch.grids is not None else 0,
                     grid_records=base + table_at if table_at else 0)
                shapes.append((context_at, nx, ny, group_offset))
            recorded.append((launch, index, counters, shapes))
        control.write(0, data[:cursor])
        # record and submit
        device = self.device
        device.begin()
        bound = None
        user = self.push_constants
        timing = self.timing
        times: list[tuple[int | None, int | None]] = []
        if timing is not None:
            timing.begin()
            level_start = timing.write()
            each = timing.room(2 * len(recorded) + 1)
        draws = []
        after = self._after_shape
        for launch, _, counters, shapes in recorded:
            if launch.node.launch == "mesh":          # drawn after the level's compute work (`graphics.py`)
                draws.append((launch.node.entry_point, launch.trace, [
                    (struct.pack("<Q", base + at) + (bytes(abi.USER_PUSH_CONSTANT_OFFSET - 8) + user if user else b""),
                     nx, ny) for at, nx, ny, _ in shapes]))
                times.append((None, None))            # drawn later: not timed as a dispatch
                continue
            pipeline = self.pipelines.pipeline(launch.node.entry_point)
            if pipeline is not bound:
                self.pipelines.bind(device, pipeline)
                bound = pipeline
            start = timing.write() if timing is not None and each else None
            for k, (context_at, nx, ny, _) in enumerate(shapes):
                head = struct.pack("<Q", base + context_at)
                constants = head + bytes(abi.USER_PUSH_CONSTANT_OFFSET - len(head)) + user if user else head
                device.push(self.pipelines.layout, constants)
                device.dispatch(nx, ny, 1)
                if after is not None:
                    after(launch, k, counters, control)
            times.append((start, timing.write(end=True) if timing is not None and each else None))
        if draws:
            self.graphics.draw(draws)
        if timing is not None:      # once the level's commands are done, before the host's barrier
            level_end = timing.write(end=True)
        device.barrier()
        copy_to = self.readback.wanted(control, cursor)
        if copy_to is not None:
            self.readback.record(control, copy_to, cursor)
        if self.prints is not None:
            self.prints.reset()
        device.submit()
        if draws:
            self.graphics.collect()
        if self.checks is not None:     # before anything can fail: the contexts are rewritten next level
            self.checks.contexts = {base + at: (launch.node, trace.level)
                                    for launch, _, _, shapes in recorded for at, _, _, _ in shapes}
            self.checks.collect(trace.repeat)
        # read back
        result = self.readback.read(control, copy_to, cursor)
        if timing is not None:
            ticks = timing.read(timing.used)
            trace.gpu_ns = timing.nanoseconds(ticks, level_start, level_end)
            for (launch, _, _, _), (start, end) in zip(recorded, times):
                launch.trace.gpu_ns = timing.nanoseconds(ticks, start, end)
        if self.prints is not None:
            self.prints.collect({base + context_at: self._dispatched(launch.node, trace.repeat, trace.level, index,
                                                                    launch.count, launch.first)
                                 for launch, index, _, shapes in recorded for context_at, _, _, _ in shapes})
        following: dict[WorkKey, list[Chunk]] = {}
        for launch, index, counters, _ in recorded:
            status, = struct.unpack_from("<I", result, status_at + 4 * index)
            self._note_status(launch.node, status)
            if status & abi.STATUS_OUT_OF_RECORDS:
                asked = [[struct.unpack_from("<I", result, at)[0] for at in offsets] for offsets in counters]
                problem = RecordsOutOfMemory(launch.node.label, over_records(launch.node, launch.units, asked,
                                                                             trace.level))
                problem.level = trace.level
                raise problem
            for p, (output, slots_of, counter_offsets) in enumerate(zip(launch.node.outputs, launch.outputs,
                                                                          counters)):
                total = 0
                for i, (slot, counter_at) in enumerate(zip(slots_of, counter_offsets)):
                    produced, = struct.unpack_from("<I", result, counter_at)
                    total += produced
                    if output.array and produced:
                        launch.trace.records_out[f"{output.parameter}[{i}]"] = produced
                    if slot.target is None or slot.key is None or produced == 0:
                        continue
                    produced = min(produced, slot.capacity)
                    if output.empty:
                        chunk = Chunk(self.scratch.address, produced, 0, None, 0, (launch, p, i))
                    else:
                        chunk = Chunk(out.address + slot.arena, produced, slot.stride, out, slot.arena,
                                      (launch, p, i))
                    following.setdefault(slot.key, []).append(chunk)
                    for sharer in self.sharers.get(slot.key.node, []):
                        key = WorkKey(sharer, slot.key.remaining, slot.key.loops)
                        following.setdefault(key, []).append(chunk)
                launch.trace.records_out[output.parameter] = total
            trace.dispatches.append(launch.trace)
        return following

    def _note_status(self, node: NodePlan, status: int) -> None:
        """Keep what a launch's status word says besides STATUS_OUT_OF_RECORDS."""
        if status & abi.STATUS_LOOP_BUDGET and node.label not in self.loop_budget:
            self.loop_budget.append(node.label)

    @staticmethod
    def _dispatched(node: NodePlan, repeat: int, level: int, order: int, count: int, first: int = 0) -> Any:
        """The `prints.Dispatched` of a launch (what a print record's NodeContext address says)."""
        from wgc.runtime.prints import Dispatched

        return Dispatched(node.label, node.launch, repeat, level, order, max(1, node.max_records), count, first)

    # ------------------------------------------------------------------ a whole graph

    def entry_work(self, entries: list[tuple[NodePlan, Chunk]]) -> list[tuple[WorkKey, int]]:
        """(key, index into `entries`) of every entry input with records, and of each node sharing
        its input, in order."""
        work = []
        for at, (node, chunk) in enumerate(entries):
            if chunk.count == 0:
                continue
            index = self.index_of[(node.name, node.index)]
            loops = tuple((self.index_of[entry], 0) for entry in node.loops)
            key = WorkKey(index, node.max_recursion_depth, loops)
            work.append((key, at))
            work.extend((WorkKey(sharer, key.remaining, loops), at) for sharer in self.sharers.get(index, []))
        return work

    def run(self, entries: list[tuple[NodePlan, Chunk]], repeat_index: int = 0) -> list[TraceStep]:
        pending: dict[WorkKey, list[Chunk]] = {}
        for key, at in self.entry_work(entries):
            pending.setdefault(key, []).append(entries[at][1])
        steps: list[TraceStep] = []
        side = 0
        self._arena_bytes = [0, 0]          # the entry records are in buffers of their own
        while pending:
            if len(steps) >= self.max_steps:
                raise AssertionError(f"internal: records are still pending after {len(steps)} levels, more than this "
                                        "graph's nodes, recursion depths and loop iterations allow")
            trace = TraceStep(repeat_index, len(steps))
            try:
                pending = self.step(pending, side, trace)
            except (RecordsOutOfMemory, GridBeyondMax) as problem:
                problem.trace = steps + ([trace] if trace.dispatches else [])
                if getattr(problem, "level", None) is None:
                    problem.level = trace.level
                raise
            steps.append(trace)
            if self.progress is not None:
                self.progress(repeat_index, trace.level, sum(d.records_in for d in trace.dispatches))
            side ^= 1
        return steps


def _table_size(grids: list[int]) -> int:
    """The entries of the table of each group's record of a launch of these group counts (0: none,
    beyond GRID_TABLE_LIMIT; the groups then search the prefix sums)."""
    total = sum(grids)
    return total if total <= GRID_TABLE_LIMIT else 0


def dispatch_shapes(groups: int, max_x: int, max_y: int) -> list[tuple[int, int, int]]:
    """(group_offset, nx, ny) dispatches covering `groups` flat groups, at most max_x by max_y each."""
    shapes = []
    done = 0
    while done < groups:
        left = groups - done
        nx = min(left, max_x)
        ny = min(-(-left // nx), max_y)
        shapes.append((done, nx, ny))
        done += nx * ny
    return shapes


def _put(data: bytearray, at: int, fields: dict[str, tuple[int, int]], **values: int) -> None:
    """Write `values` into the ABI struct described by `fields` at `at` (little-endian)."""
    for name, value in values.items():
        offset, size = fields[name]
        data[at + offset:at + offset + size] = int(value).to_bytes(size, "little")


__all__ = ["Scheduler", "Chunk", "over_records", "TraceStep", "TraceDispatch", "RecordsOutOfMemory", "GridBeyondMax",
           "DEFAULT_MEMORY_LIMIT"]
