"""Runtime: debugging runs: other schedules, stepping, and the record log (`wgc run --schedule`,
`--schedules`, `--stop-after-level`, `--stop-after-node`, `--dump-records`, `--report`).

Input: what `scheduler.Scheduler` takes, and a `DebugRun` (what to keep, where to stop, which
schedule).  Output: the same effect on the bound resources and the same `TraceStep`s as the
host-driven scheduler under the chosen schedule; in the `DebugRun`: the records of every level
(`records.RecordLog`), the host time of each level, and where a stopped run stopped.

A schedule is one of the orders and batchings a GPU may choose; the D3D12 work-graph spec promises
no other (records of a level run in any order, coalescing groups get from 1 to MaxRecords records,
a level may be many dispatches).  `Schedule` chooses, per level: the order of each chunk's records
(shuffled in place in its buffer before the level reads it), the split of each chunk into launches
(thread and broadcasting nodes: pieces of records; coalescing nodes: batches of 1 to MaxRecords
records, one thread group each) and the order in which the launches are recorded (no barrier
separates them).  Named schedules: "default" (what a plain run does), "reverse" (records and
launches in reverse order), "smallest" (each thread group a launch of its own: batches of one
record, a launch per thread-launch record and per broadcasting group, `_Launch.first_group`; then
the dump knows the group that produced every record); a number is
the seed of a random schedule, which replays the same choices for the same records.
`explore` runs a dispatch under the default schedule and N seeded ones and reports each buffer
that differs (WG0862) with the seed that replays it.
The producing group of each record: in a run that keeps records, a broadcasting or coalescing
launch of 2 to `MAX_TRACKED_GROUPS` groups with outputs is recorded as one dispatch per group (the
groups run one after another: one of the orders a GPU may choose), each followed by a barrier and a
copy of the launch's output counters into a side buffer; the counts after each group say which
group wrote each record (`DispatchRecords.groups`, in record order, through a shuffle too).

Invariants: the default schedule makes exactly the launches of the host-driven scheduler (a
tracked launch's groups in dispatches of their own); a chunk
is split into at most `MAX_PIECES` launches, a level's chunks into about `MAX_LEVEL_LAUNCHES`; a stopped run keeps the records produced for the next
level (readable until the scheduler is closed) and runs no further repeat; the plain run's
schedulers (`scheduler.Scheduler`, `gpu_schedule.GpuScheduler`) are not involved.
"""

from __future__ import annotations

import bisect
import random
import struct
import time
from dataclasses import replace
from typing import Any, Callable

from wgc import codes
from wgc.cached_dataclass import dataclass, field
from wgc.runtime.records import DispatchRecords, LevelRecords, RecordLog, decode_records
from wgc.runtime.scheduler import Chunk, GridBeyondMax, RecordsOutOfMemory, Scheduler, TraceStep, WorkKey, _Launch

MAX_PIECES = 1024
"""Launches a schedule may split one chunk of records into (more records: larger pieces)."""
MAX_LEVEL_LAUNCHES = 16384
"""Launches a schedule may make of one level's chunks by splitting them (beyond: chunks are not
split), so that a level of many chunks does not multiply its launches by MAX_PIECES."""
NAMED_SCHEDULES = {
    "default": "the order and batching of a plain run: full coalescing batches, records as produced",
    "reverse": "every chunk's records and the launches of a level in reverse order",
    "smallest": "every thread group alone: coalescing batches of one record, a launch per thread-launch record "
                "and per broadcasting group",
}
MAX_TRACKED_GROUPS = 4096
"""A broadcasting or coalescing launch of up to this many thread groups runs them one dispatch each
in a run that keeps records, so that the dump knows the group that wrote each record; a larger
one runs as in a plain run (the dump's "groups" is then absent)."""


@dataclass(frozen=True)
class Schedule:
    name: str
    """"default", "reverse", "smallest", or the seed as text."""
    seed: int | None = None

    @staticmethod
    def parse(text: str) -> Schedule | None:
        """The schedule `--schedule TEXT` names (a name of `NAMED_SCHEDULES` or a seed), else None."""
        text = text.strip()
        if text in NAMED_SCHEDULES:
            return Schedule(text)
        try:
            seed = int(text, 0)
        except ValueError:
            return None
        return Schedule(str(seed), seed) if seed >= 0 else None

    @property
    def is_default(self) -> bool:
        return self.name == "default"

    def describe(self) -> str:
        return f"schedule {self.name}" if self.seed is not None else f"the {self.name} schedule"


DEFAULT_SCHEDULE = Schedule("default")


@dataclass
class DebugRun:
    """What a debugging run keeps and where it stops; filled in as it runs."""

    records: RecordLog | None = None
    """Keep every level's input records (`--dump-records`, `--report`)."""
    stop_after_level: int | None = None
    stop_after_node: str | None = None
    schedule: Schedule = DEFAULT_SCHEDULE
    schedules: int = 0
    """`--schedules N`: also run seeds 1..N and compare the buffers."""
    levels: list[LevelRecords] = field(default_factory=list)
    """Every level run (records or not): its host time, for the report's timeline."""
    stopped: dict[str, Any] | None = None
    """Where a stopped run stopped: {"after", "repeat", "level", "waiting": {node: records}}."""
    compared: list[str] = field(default_factory=list)
    """`--schedules`: the schedules run, in order."""
    program: Any = None
    """The `program.Program` that ran (the report draws its graph without Graphviz from it)."""

    def copy_for(self, schedule: Schedule) -> DebugRun:
        """The same stops under another schedule, keeping nothing (`explore`)."""
        return DebugRun(None, self.stop_after_level, self.stop_after_node, schedule)

    def problems(self, program: Any) -> list[str]:
        """What names no node of `program` (the CLI turns each into WG0860)."""
        names = {n.name for n in program.nodes} | {n.label for n in program.nodes}
        wrong = []
        if self.stop_after_node is not None and self.stop_after_node not in names:
            wrong.append(f"--stop-after-node {self.stop_after_node}")
        if self.records is not None:
            wrong.extend(f"--dump-records-node {n}" for n in self.records.nodes if n not in names)
        return wrong

    def diagnostics(self) -> list[Any]:
        """WG0861 when a run asked to stop ended before the point it names; WG0863 when the record
        log left records out."""
        found = []
        if self.records is not None and self.records.left_out:
            found.append(codes.RECORDS_LEFT_OUT(None, (
                f"the record dump keeps the first {self.records.limit} records; {self.records.left_out} more were "
                "counted but not kept"), notes=("keep fewer with --dump-records-node NAME, or stop earlier with "
                                               "--stop-after-level N",)))
        if self.stopped is not None or (self.stop_after_level is None and self.stop_after_node is None):
            return found
        levels = max((level.level + 1 for level in self.levels), default=0)
        if self.stop_after_node is not None:
            where = f"node '{self.stop_after_node}' never ran"
        else:
            where = f"it ran {levels} level{'s' if levels != 1 else ''}"
        return found + [codes.STOP_NOT_REACHED(None, f"the run ended without stopping: {where}; the results are "
                                                     "those of the whole run")]

    def stopped_text(self) -> str:
        """The line `wgc run` prints on standard error when the run stopped."""
        if self.stopped is None:
            return ""
        waiting = ", ".join(f"{node}={count}" for node, count in self.stopped["waiting"].items()) or "none"
        after = self.stopped["after"]
        if not after.startswith("level"):
            after += f" (level {self.stopped['level']})"
        return f"wgc run: stopped after {after}; records waiting for the next level: {waiting}\n"

    def result_json(self) -> dict[str, Any]:
        """What the results (`-o`) say of the debugging run."""
        data: dict[str, Any] = {}
        if not self.schedule.is_default:
            data["schedule"] = self.schedule.name
        if self.compared:
            data["schedules_compared"] = list(self.compared)
        if self.stopped is not None:
            data["stopped"] = self.stopped
        elif self.stop_after_level is not None or self.stop_after_node is not None:
            data["stopped"] = None
        return data


def _pieces(total: int, largest: int, rng: random.Random | None) -> list[int]:
    """Sizes from 1 to `largest` adding up to `total` (random with `rng`, else all 1), at most
    MAX_PIECES of them."""
    smallest = max(1, -(-total // MAX_PIECES))
    largest = max(largest, smallest)
    sizes = []
    left = total
    while left > 0:
        size = min(left, rng.randint(smallest, largest) if rng is not None else smallest)
        sizes.append(size)
        left -= size
    return sizes


class DebugScheduler(Scheduler):
    """The host-driven scheduler under a `Schedule`, keeping records and stopping as `DebugRun` says."""

    def __init__(self, *args: Any, debug: DebugRun, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.debug = debug
        debug.program = self.program
        self.schedule = debug.schedule
        self.rng = random.Random(debug.schedule.seed) if debug.schedule.seed is not None else None
        self._first: dict[int, tuple[int, int | None]] = {}
        """id(chunk piece) -> (index of its first record in the chunk it was cut from, the entry
        input it is part of); the pieces of the current level."""
        self._entries: dict[int, int] = {}
        """id(entry chunk) -> its index among the run's entry inputs."""
        self._placed: dict[int, tuple[int, int]] = {}
        """id(launch) -> (level, dispatch) of the launches of the last two levels."""
        self._level = 0
        self._launched = 0
        """Launches made of the current level's chunks."""
        self._tracked: dict[int, tuple[_Launch, Any, list[int]]] = {}
        """id(launch) -> (launch, its side buffer, the start of each output's counters in a group's
        row) of this level's launches whose groups run one by one (`_producer_groups`)."""
        self._ends: dict[tuple[int, int, int], tuple[int, list[int], _Launch]] = {}
        """(id(launch), output, index) -> (level, the output's record count after each group ran,
        the launch: an id is only compared while its object lives)."""
        self._order: dict[int, list[int]] = {}
        """id(chunk) -> the record order a schedule gave it (new position -> old)."""

    # ------------------------------------------------------------------ the schedule

    def _reorder_records(self, pending: dict[WorkKey, list[Chunk]]) -> None:
        self._order = {}
        if self.schedule.name not in ("reverse",) and self.rng is None:
            return
        seen: set[int] = set()
        for key in sorted(pending):
            for chunk in pending[key]:
                if id(chunk) in seen or chunk.count < 2 or not chunk.stride or chunk.buffer is None:
                    continue
                seen.add(id(chunk))
                size = chunk.stride
                data = chunk.buffer.read(chunk.offset, chunk.count * size)
                order = list(range(chunk.count))
                if self.rng is not None:
                    self.rng.shuffle(order)
                else:
                    order.reverse()
                self._order[id(chunk)] = order
                chunk.buffer.write(chunk.offset, b"".join(data[r * size:(r + 1) * size] for r in order))

    def _launches(self, key: WorkKey, chunk: Chunk) -> list[_Launch]:
        node = self.program.nodes[key.node]
        n = chunk.count
        per_record = node.grid_field is not None and node.dispatch_grid is None
        if self.schedule.name in ("default", "reverse") or n == 0 or self._launched >= MAX_LEVEL_LAUNCHES:
            return super()._launches(key, chunk)
        if per_record or n == 1:
            sizes = [n]                         # record-given grids: a launch per record already
        elif node.launch == "coalescing":
            sizes = _pieces(n, max(1, node.max_records), self.rng)
        elif self.rng is not None:
            cuts = sorted(self.rng.sample(range(1, n), min(n - 1, self.rng.randint(0, 7))))
            sizes = [b - a for a, b in zip([0, *cuts], [*cuts, n])]
        else:
            sizes = _pieces(n, 1, None)
        launches: list[_Launch] = []
        start = 0
        for size in sizes:
            piece = Chunk(chunk.address + start * chunk.stride, size, chunk.stride, chunk.buffer,
                          chunk.offset + start * chunk.stride, chunk.source)
            self._first[id(piece)] = (start, self._entries.get(id(chunk)))
            if id(chunk) in self._order:            # its records' places are the whole chunk's
                self._order[id(piece)] = self._order[id(chunk)]
            for launch in super()._launches(key, piece):
                alone = self._groups_alone(key, launch) if self.rng is None else []
                launches.extend(alone if alone and len(launches) + len(alone) <= MAX_PIECES else [launch])
            start += size
        self._launched += len(launches)
        return launches

    def _groups_alone(self, key: WorkKey, launch: _Launch) -> list[_Launch]:
        """The `smallest` schedule: a broadcasting launch of one record as one launch per thread
        group (its `first_group`), where no sharing counter ties its groups together; else []."""
        node = launch.node
        if node.launch != "broadcasting" or launch.count != 1 or launch.groups < 2 or node.cross_group_sharing:
            return []
        alone = []
        for group in range(launch.groups):
            trace = replace(launch.trace, groups=1, records_out={})
            outputs = [self._slots(key, node, o, 1) for o in node.outputs]
            alone.append(replace(launch, groups=1, units=1, outputs=outputs, trace=trace, first_group=group))
        return alone

    # ------------------------------------------------------------------ the producing group of each record

    def _tracks(self, launch: _Launch) -> bool:
        """Whether the dump learns the group that wrote each of `launch`'s records: a broadcasting
        or coalescing launch of several groups (up to MAX_TRACKED_GROUPS) with outputs, in a run
        that keeps records."""
        return (self.debug.records is not None and launch.node.launch != "thread" and 1 < launch.groups
                <= MAX_TRACKED_GROUPS and any(not o.empty for o in launch.node.outputs))

    def _launch_shapes(self, launch: _Launch) -> list[tuple[int, int, int]]:
        if not self._tracks(launch):
            return super()._launch_shapes(launch)
        return [(group, 1, 1) for group in range(launch.groups)]        # one dispatch per group

    def _after_shape(self, launch: _Launch, group: int, counters: list[list[int]], control: Any) -> None:
        """After group `group` of a tracked launch: a barrier, then its outputs' counters copied to
        row `group` of the launch's side buffer (they then hold what groups 0..group allocated)."""
        if not self._tracks(launch):
            return
        device = self.device
        tracked = self._tracked.get(id(launch))
        if tracked is None:
            starts, width = [], 0
            for offsets in counters:
                starts.append(width)
                width += len(offsets)
            side = device.buffer(4 * width * launch.groups)
            tracked = self._tracked[id(launch)] = (launch, side, starts + [width])
        _, side, starts = tracked
        width = starts[-1]
        device.barrier()
        for p, offsets in enumerate(counters):
            if offsets:      # an output's counters are contiguous
                device.copy(control, offsets[0], side, 4 * (group * width + starts[p]), 4 * len(offsets))
        device.barrier()

    def _read_tracked(self) -> None:
        """The counts after each group, from the side buffers of the level that ran."""
        for launch, side, starts in self._tracked.values():
            width = starts[-1]
            words = struct.unpack(f"<{width * launch.groups}I", side.read(0, 4 * width * launch.groups))
            for p in range(len(starts) - 1):
                for i in range(starts[p + 1] - starts[p]):
                    self._ends[(id(launch), p, i)] = (self._level, [words[g * width + starts[p] + i]
                                                                    for g in range(launch.groups)], launch)
            self.device.free(side)
        self._tracked = {}

    def _record_groups(self, chunk: Chunk, first: int, count: int) -> list[list[int]] | None:
        """Runs [group, records] of the groups that wrote records first..first+count-1 of `chunk`."""
        if chunk.source is None:
            return None
        producer, p, i = chunk.source
        found = self._ends.get((id(producer), p, i))
        if found is None or found[2] is not producer:
            return None
        ends = found[1]
        order = self._order.get(id(chunk))
        runs: list[list[int]] = []
        for r in range(first, first + count):
            group = bisect.bisect_right(ends, order[r] if order is not None else r) + producer.first_group
            if runs and runs[-1][0] == group:
                runs[-1][1] += 1
            else:
                runs.append([group, 1])
        return runs

    def _arrange(self, launches: list[_Launch]) -> list[_Launch]:
        if self.rng is not None:
            self.rng.shuffle(launches)
        elif self.schedule.name == "reverse":
            launches.reverse()
        for at, launch in enumerate(launches):
            self._placed[id(launch)] = (self._level, at)
        if self.debug.records is not None:
            level = self.debug.records.levels[-1]
            for at, launch in enumerate(launches):
                if self.debug.records.wants(launch.node.label, launch.node.name):
                    level.dispatches.append(self._records_of(launch, at))
        return launches

    # ------------------------------------------------------------------ records

    def _source(self, chunk: Chunk, entry: int | None) -> dict[str, Any] | None:
        if chunk.source is None:
            return {"input": entry} if entry is not None else None
        producer, p, i = chunk.source
        level, dispatch = self._placed.get(id(producer), (None, None))
        output = producer.node.outputs[p]
        return {"node": producer.node.label, "level": level, "dispatch": dispatch, "output": output.parameter,
                "index": i if output.array else None, "group": producer.first_group if producer.units == 1 else None}

    def _records_of(self, launch: _Launch, at: int, entry: int | None = None) -> DispatchRecords:
        chunk = launch.chunk
        first, entry = self._first.get(id(chunk), (0, self._entries.get(id(chunk))))
        if chunk.stride:
            first += (launch.address - chunk.address) // chunk.stride
        records = self._decode(launch.node.record, chunk, launch.address, launch.count)
        return DispatchRecords(launch.node.label, at, records, self._source(chunk, entry), first, launch.count,
                               self._record_groups(chunk, first, len(records)))

    def _decode(self, layout: Any, chunk: Chunk, address: int, count: int) -> list[dict[str, Any]]:
        """The first records of `chunk` from `address` the log keeps (of `count`)."""
        assert self.debug.records is not None
        keep = self.debug.records.take(count)
        if layout.size == 0 or chunk.buffer is None:
            return [{} for _ in range(keep)]
        if keep == 0:
            return []
        span = keep * chunk.stride if chunk.stride else layout.size
        data = chunk.buffer.read(chunk.offset + (address - chunk.address), max(span, layout.size))
        return decode_records(layout, data, keep, chunk.stride)

    # ------------------------------------------------------------------ a whole graph

    def run(self, entries: list[tuple[Any, Chunk]], repeat_index: int = 0) -> list[TraceStep]:
        debug = self.debug
        self._entries = {id(chunk): at for at, (_, chunk) in enumerate(entries)}
        pending: dict[WorkKey, list[Chunk]] = {}
        for key, at in self.entry_work(entries):
            pending.setdefault(key, []).append(entries[at][1])
        steps: list[TraceStep] = []
        side = 0
        self._arena_bytes = [0, 0]
        while pending:
            if len(steps) >= self.max_steps:
                raise AssertionError(f"internal: records are still pending after {len(steps)} levels")
            self._level = len(steps)
            self._placed = {k: v for k, v in self._placed.items() if v[0] == self._level - 1}
            level = LevelRecords(repeat_index, self._level)
            debug.levels.append(level)
            if debug.records is not None:
                debug.records.levels.append(level)
            self._first = {}
            self._launched = 0
            self._reorder_records(pending)
            trace = TraceStep(repeat_index, self._level)
            started = time.perf_counter()
            try:
                pending = self.step(pending, side, trace)
            except (RecordsOutOfMemory, GridBeyondMax) as problem:    # the trace keeps the levels before
                problem.trace = steps + ([trace] if trace.dispatches else [])
                if getattr(problem, "level", None) is None:
                    problem.level = trace.level
                raise
            finally:
                level.seconds = time.perf_counter() - started
                self._read_tracked()
                self._ends = {k: v for k, v in self._ends.items() if v[0] >= self._level - 1}
            steps.append(trace)
            side ^= 1
            stop = self._stop_reason(trace)
            if stop is not None:
                self._stop(stop, trace, pending)
                break
        return steps

    def _stop_reason(self, trace: TraceStep) -> str | None:
        debug = self.debug
        if debug.stop_after_level is not None and trace.level >= debug.stop_after_level:
            return f"level {debug.stop_after_level}"
        wanted = debug.stop_after_node
        if wanted is not None and any(d.node == wanted or d.node.split("[")[0] == wanted for d in trace.dispatches):
            return f"node {wanted}"
        return None

    def _stop(self, reason: str, trace: TraceStep, pending: dict[WorkKey, list[Chunk]]) -> None:
        waiting: dict[str, int] = {}
        self._level = trace.level + 1
        for key in sorted(pending):
            node = self.program.nodes[key.node]
            for chunk in pending[key]:
                waiting[node.label] = waiting.get(node.label, 0) + chunk.count
                if self.debug.records is not None and self.debug.records.wants(node.label, node.name):
                    records = self._decode(node.record, chunk, chunk.address, chunk.count)
                    self.debug.records.waiting.append(DispatchRecords(
                        node.label, len(self.debug.records.waiting), records, self._source(chunk, None), 0,
                        chunk.count))
        self.debug.stopped = {"after": reason, "repeat": trace.repeat, "level": trace.level, "waiting": waiting}


def explore(run_one: Callable[[DebugRun], Any], debug: DebugRun, make_diagnostic: Callable[[str], Any]) -> Any:
    """Run under `debug`'s schedule, then under seeds 1..debug.schedules; the first run's result,
    with a diagnostic (`make_diagnostic(message)`) per resource that differs, naming the seed."""
    first = run_one(debug)
    debug.compared = [debug.schedule.name]
    if not first.ok:
        return first
    found: dict[str, str] = {}
    for seed in range(1, debug.schedules + 1):
        schedule = Schedule(str(seed), seed)
        other = run_one(debug.copy_for(schedule))
        debug.compared.append(schedule.name)
        if not other.ok:
            first.diagnostics = tuple(first.diagnostics) + tuple(
                d for d in other.diagnostics if d not in first.diagnostics)
            break
        for key, arrays in first.resources.items():
            if key in found or other.resources.get(key) == arrays:
                continue
            found[key] = _difference(key, arrays, other.resources.get(key, {}), debug.schedule, schedule)
    if found:
        first.diagnostics = tuple(first.diagnostics) + tuple(make_diagnostic(m) for m in found.values())
    return first


def _difference(key: str, ours: dict[str, list[Any]], theirs: dict[str, list[Any]], base: Schedule,
                other: Schedule) -> str:
    name, values = next(iter(ours.items()))
    others = theirs.get(name, [])
    at = next((k for k, (a, b) in enumerate(zip(values, others)) if a != b), min(len(values), len(others)))
    mine = values[at] if at < len(values) else "nothing"
    yours = others[at] if at < len(others) else "nothing"
    return (f"'{key}' depends on the schedule: element {at} is {mine} under {base.describe()} and {yours} under "
            f"{other.describe()} (an order dependence or a race); replay it with --schedule {other.name}")


__all__ = ["Schedule", "DebugRun", "DebugScheduler", "explore", "NAMED_SCHEDULES", "DEFAULT_SCHEDULE", "MAX_PIECES"]
