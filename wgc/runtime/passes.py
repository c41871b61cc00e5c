"""Runtime: runs larger than memory, in passes (seed 002: "the only limiting factor is how much VRAM
we're willing to give intermediate buffers"; split the inputs from the CPU and run them in turn).

Input: a run's entry records (`(NodePlan, scheduler.Chunk)` pairs, as `Scheduler.run` takes them),
the `Program` and the bytes the scheduler may use for the record arenas of a level.
Output: `split`, the entry records cut into passes, in order, each a list of the same shape whose
first level fits in those bytes by the MaxRecords bounds (`scheduler.entry_bytes`: the records its
nodes may write, a record-given grid's group counts); the scheduler runs the graph once per pass.

Why the graph may run in passes: D3D12 orders no two records of a dispatch except a producer
before its consumer, so running the first half of the entry records through the whole graph, then
the second half, is one of the orders a device may choose (coalescing nodes may then see records
grouped otherwise, which D3D12 allows too).  Later levels are sized by the schedule that runs each
pass (the GPU-driven plan, or the host-driven scheduler from the real counts).

Invariants: one pass (the records as given, the same objects) where they fit; passes are cut by
halving the records in order (entry inputs keep their order, a pass may hold the tail of one
input and the head of the next); a single record that does not fit is a pass of its own (the
scheduler then names its node, as before); no pass is empty.
"""

from __future__ import annotations

from typing import Any

from wgc.runtime.program import NodePlan, Program
from wgc.runtime.scheduler import ARENA_ALIGNMENT, GRID_RECORD_BYTES, Chunk, entry_bytes

Entries = list[tuple[NodePlan, Chunk]]
MAX_PASSES = 1024
"""At most this many passes: records whose first level needs more than MAX_PASSES / 2 times the
memory limit are refused before the run (halving may cut up to twice the passes the bytes need)."""


def _slice(chunk: Chunk, start: int, count: int) -> Chunk:
    skip = start * chunk.stride
    return Chunk(chunk.address + skip, count, chunk.stride, chunk.buffer, chunk.offset + skip)


def first_level_bytes(program: Program, sharers: dict[int, list[int]], index_of: dict[tuple[str, int], int],
                      entries: Entries, limit: int) -> int:
    """The bytes the first level of `entries` may need (each entry node and the nodes sharing its
    input), by `scheduler.entry_bytes`."""
    total = 0
    for node, chunk in entries:
        records = b""
        if node.grid_field is not None and node.dispatch_grid is None and chunk.buffer is not None \
                and chunk.count * GRID_RECORD_BYTES <= limit:        # else entry_bytes reads no record
            records = chunk.buffer.read(chunk.offset, max(chunk.stride * chunk.count, node.record.size))
        nodes = [node] + [program.nodes[i] for i in sharers.get(index_of[(node.name, node.index)], [])]
        for each in nodes:
            need = entry_bytes(program, each, chunk.count, records, chunk.stride, limit)[0]
            if need:        # each arena is rounded up to ARENA_ALIGNMENT
                total += need + ARENA_ALIGNMENT * sum(o.array_size or len(program.nodes) if o.array else 1 for o in each.outputs)
    return total


def largest_record_bytes(program: Program, node: NodePlan, count: int, records: bytes, stride: int,
                         limit: int) -> tuple[int, str]:
    """`scheduler.entry_bytes` of the one entry record of `count` that needs the most: a pass holds
    at least one record."""
    if (node.grid_field is None or node.dispatch_grid is not None or stride == 0 or count <= 1
            or count * GRID_RECORD_BYTES > limit * MAX_PASSES):     # refused for their number anyway
        return entry_bytes(program, node, min(count, 1), records, stride, limit)
    return max((entry_bytes(program, node, 1, records[r * stride:(r + 1) * stride], stride, limit)
                for r in range(count)), key=lambda found: found[0])


def split(entries: Entries, fits: Any) -> list[Entries]:
    """`entries` cut into passes that `fits(pass)` accepts (module docstring)."""
    live = [(node, chunk) for node, chunk in entries if chunk.count]
    total = sum(chunk.count for _, chunk in live)
    if total <= 1 or fits(live):
        return [entries]
    half = total // 2
    head: Entries = []
    tail: Entries = []
    seen = 0
    for node, chunk in live:
        take = min(max(half - seen, 0), chunk.count)
        if take:
            head.append((node, _slice(chunk, 0, take)))
        if chunk.count - take:
            tail.append((node, _slice(chunk, take, chunk.count - take)))
        seen += chunk.count
    return split(head, fits) + split(tail, fits)


__all__ = ["split", "first_level_bytes", "largest_record_bytes", "MAX_PASSES"]
