"""A node-array element chosen by a subscript that is not a constant: its OutputSlot's fields are
read with its `valid` flag, before the atomic (wgc/spirv/emulated.py `_read_slot`), and adjacent
u32 fields by one u64 load (`_field_pair`).  Run on a real device (lavapipe here: 8-lane
subgroups, where every invocation adds its own count; 16 lanes, the path of a GPU's wide
subgroups, in a child process), under both schedules, with stripes forced, and on the AMDX path.

D3D12 fixes no order of a node's input records, so what the consumers add is compared with a few
lines of Python from the graph's meaning.  Skips, with the reason printed, where there is no Vulkan
device.
"""

from __future__ import annotations

import pytest
from runtime_util import all_paths_on_sixteen_lanes
from test_runtime_placement import run, session_run

from amdx_paths import assert_amdx_agrees
from wgc.runtime import gpu_schedule

device = pytest.mark.usefixtures("vulkan_device")

GRAPH = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint v; uint zero; };
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Spread(ThreadNodeInputRecord<Job> job,
            [MaxRecords(2)] [NodeArraySize(3)] [AllowSparseNodes] NodeOutputArray<Item> Sink,
            [MaxRecords(1)] [NodeArraySize(1)] NodeOutputArray<Item> Solo,
            [MaxRecords(2)] [UnboundedSparseNodes] EmptyNodeOutputArray Ping)
{
    uint v = job.Get().v;
    uint k = (v * 7) % 3;                              // Sink[1] has no node
    if (Sink[k].IsValid()) InterlockedAdd(Out[VALID], 1);
    uint n = v % 4 == 0 ? 2 : 1;                       // counts differ within one element
    ThreadNodeOutputRecords<Item> recs = Sink[k].GetThreadNodeOutputRecords(n);
    recs[0].v = 2 * v;
    if (n > 1) recs[1].v = 2 * v + 1;
    recs.OutputComplete();
    ThreadNodeOutputRecords<Item> one = Solo[job.Get().zero].GetThreadNodeOutputRecords(1);   // always 0
    one.Get().v = v;
    one.OutputComplete();
    Ping[v % 5].ThreadIncrementOutputCount(1 + v % 2); // nodes at 1 and 3; 4 is past the table
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Sink", 0)]
void Sink0(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[r.Get().v], 1); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Sink", 2)]
void Sink2(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[r.Get().v], 10); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Solo", 0)]
void SoloNode(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[SOLO + r.Get().v], 1); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Ping", 1)]
void Ping1() { InterlockedAdd(Out[PING], 1); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Ping", 3)]
void Ping3() { InterlockedAdd(Out[PING + 1], 1); }
"""


def graph(jobs: int) -> str:
    """Out: [0, 2 jobs) Sink's, [2 jobs, 3 jobs) Solo's, then the valid count and Ping[1], Ping[3]."""
    return GRAPH.replace("VALID", str(3 * jobs)).replace("SOLO", str(2 * jobs)).replace("PING", str(3 * jobs + 1))


def dispatch(jobs: int) -> dict:
    return {"inputs": [{"entry": "Spread", "records": [{"v": v, "zero": 0} for v in range(jobs)]}],
            "resources": {"u0": {"bytes": 4 * (3 * jobs + 3)}}}


def expected(jobs: int) -> tuple[list[int], dict[str, int]]:
    """Job v sends 2v (and 2v + 1 where 4 divides v) to Sink[7v % 3], whose element 0 adds 1 and
    element 2 adds 10 (element 1 has no node: "Calls on an invalid output are ignored", and
    IsValid() is false there); v to Solo[0]; and launches Ping[v % 5] 1 + v % 2 times, of which
    only elements 1 and 3 have nodes (4 is past the sparse array's table)."""
    out = [0] * (3 * jobs + 3)
    counts = {"Sink[0]": 0, "Sink[2]": 0, "Ping[1]": 0, "Ping[3]": 0}
    for v in range(jobs):
        k = (v * 7) % 3
        if k != 1:
            out[3 * jobs] += 1
            for w in ([2 * v, 2 * v + 1] if v % 4 == 0 else [2 * v]):
                out[w] += 1 if k == 0 else 10
                counts[f"Sink[{k}]"] += 1
        out[2 * jobs + v] += 1
        if v % 5 in (1, 3):
            out[3 * jobs + 1 + v % 5 // 3] += 1 + v % 2
            counts[f"Ping[{v % 5}]"] += 1 + v % 2
    return out, counts


@device
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
@pytest.mark.parametrize("jobs", [45, 300])
def test_divergent_elements_missing_past_the_table_and_of_one(tmp_path, gpu_driven, jobs):
    """45 jobs: a group of 32 and one of 13 (partial subgroups); 300: several groups per element.
    Every record lands once on its element; each element's counter counts exactly its records."""
    out, steps = session_run(tmp_path, graph(jobs), dispatch(jobs), gpu_driven)
    want, counts = expected(jobs)
    assert out == want
    made = steps[0].dispatches[0].records_out
    assert {k: made.get(k, 0) for k in counts} == counts


@device
def test_with_stripes(tmp_path, monkeypatch):
    """Stripes forced on lavapipe (each element split into 4 slots by group): the same sums."""
    monkeypatch.setattr(gpu_schedule, "STRIPE_GROUPS", 1)
    monkeypatch.setattr(gpu_schedule, "STRIPES", 4)
    monkeypatch.setattr(gpu_schedule, "UNSTRIPED_KINDS", frozenset())
    out, _ = session_run(tmp_path, graph(300), dispatch(300), True)
    assert out == expected(300)[0]


@device
def test_on_the_amdx_path(tmp_path):
    path = tmp_path / "graph.hlsl"
    path.write_text(graph(100))
    emulated = run(tmp_path, graph(100), dispatch(100))
    assert emulated.resources["u0"]["uint32"] == expected(100)[0]
    assert assert_amdx_agrees(str(path), dispatch(100), emulated) is not None


@device
def test_on_sixteen_lanes(tmp_path):
    """16-lane subgroups (the per-index loop, the path a GPU takes): both schedules and AMDX."""
    found = all_paths_on_sixteen_lanes(tmp_path, graph(100), dispatch(100))
    want = expected(100)[0]
    assert found["gpu"] == want and found["host"] == want and found["amdx"] == want


def test_the_amdx_translation_reads_the_slot_before_its_atomics(tmp_path):
    """wgc/spirv_in/translate.py's `allocate` helper: the slot's `counter`, `capacity`, `stride` and
    `records` are loaded with its `valid` (the load at offset 24), before the first atomic; after
    it nothing is read from the slot (before: `capacity`, `stride`, `records` and a `counter` per
    atomic were read where used)."""
    import re

    from test_runtime_node_arrays import amdx_allocate_helper

    text = amdx_allocate_helper(tmp_path)
    head, tail = text[:text.index("OpAtomicIAdd")], text[text.index("OpAtomicIAdd"):]
    found = re.search(r"= OpIAdd %ulong (%\w+) %ulong_24\n", head)     # the slot's `valid`
    assert found is not None
    slot = found.group(1)
    for offset in (8, 16, 20):
        assert re.search(rf"= OpIAdd %ulong {slot} %ulong_{offset}\n", head), offset
        assert not re.search(rf"= OpIAdd %ulong {slot} %ulong_{offset}\n", tail), offset
    assert re.search(rf"= OpConvertUToPtr %\w+ {slot}\n", head)            # `records`, at offset 0
    assert not re.search(rf"= OpConvertUToPtr %\w+ {slot}\n", tail)
