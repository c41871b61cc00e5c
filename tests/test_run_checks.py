"""`wgc run --check` (issue 27): each run-time check on a graph with exactly that mistake and on the
same graph without it; the report it must give (node, line:col, group, thread, record, values),
worked out by hand from the graph and its dispatch.  Then the plain run's MaxRecords message
(output, counts against the limit), and a failed run that still writes what it has, marked partial.

Skips, with the reason printed (`-ra`), where there is no Vulkan device.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import wgc
from wgc import emulation_abi as abi
from wgc.diagnostics import Renderer

pytestmark = pytest.mark.usefixtures("vulkan_device")

RENDERED_HERE = {"WG0840", "WG0841", "WG0842", "WG0843", "WG0844", "WG0845", "WG0846", "WG0847", "WG0848",
                 "WG0849", "WG0850"}
"""The runtime codes whose rendered text the tests here check (`test_runtime_run` collects them)."""


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def checked(tmp_path, source: str, dispatch: dict, **options):
    path = write(tmp_path, "graph.hlsl", source)
    return path, wgc.run(path, dispatch, check=True, **options)


def codes_of(result) -> list[str]:
    return [d.code for d in result.diagnostics]


def only(reports, **fields) -> list:
    return [r for r in reports if all(getattr(r, k) == v for k, v in fields.items())]


# ---------------------------------------------------------------- buffers

STRUCTURED = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Write(ThreadNodeInputRecord<Item> item)
{
    Out[item.Get().slot] = 100 + item.Get().slot;
}
"""


def test_store_past_a_structured_buffer_is_reported(tmp_path) -> None:
    """The issue's case: a buffer of 2 elements (8 bytes), records writing slots 0..3.  Slots 2 and 3
    are past the end: one report each, from the thread-launch groups (one record each) 2 and 3, at
    the store's statement (line 6, column 5); the stores themselves are dropped."""
    dispatch = {"inputs": [{"entry": "Write", "records": [{"slot": s} for s in range(4)]}],
                "resources": {"u0": {"bytes": 8}}}
    path, result = checked(tmp_path, STRUCTURED, dispatch)
    assert codes_of(result) == ["WG0840", "WG0844"]
    assert result.resources["u0"] == {"uint32": [100, 101]}
    reports = sorted(result.checks, key=lambda r: r.group)
    assert [(r.kind, r.node, r.file, r.line, r.column, r.group, r.thread, r.record, r.value, r.limit)
            for r in reports] == [("buffer-index", "Write", path, 6, 5, 2, 0, 2, 2, 2),
                                  ("buffer-index", "Write", path, 6, 5, 3, 0, 3, 3, 2)]
    assert Renderer().render(list(result.diagnostics)) == (
        f"{path}:6:5: error: node 'Write' (group 2, thread 0, input record 2) accessed element 2 of 'Out' (u0), "
        "which holds 2 elements [WG0840]\n"
        "    Out[item.Get().slot] = 100 + item.Get().slot;\n"
        "    ^\n"
        "note: level 0\n"
        "note: 1 more report like it from this place and node\n"
        "error: --check found 2 mistakes at run time (2 buffer-index) [WG0844]\n"
        "2 errors generated.\n")


def test_store_within_the_buffer_reports_nothing(tmp_path) -> None:
    dispatch = {"inputs": [{"entry": "Write", "records": [{"slot": s} for s in range(4)]}],
                "resources": {"u0": {"bytes": 16}}}
    _, result = checked(tmp_path, STRUCTURED, dispatch)
    assert result.ok and result.checks == []
    assert result.resources["u0"] == {"uint32": [100, 101, 102, 103]}


def test_buffer_length_is_what_the_dispatch_gives(tmp_path) -> None:
    """GetDimensions of an 8-byte RWStructuredBuffer<uint> is 2 elements (it was 4: the descriptor
    covered the allocation, rounded up to 16 bytes)."""
    path = write(tmp_path, "graph.hlsl", STRUCTURED.replace(
        "Out[item.Get().slot] = 100 + item.Get().slot;",
        "uint n, stride; Out.GetDimensions(n, stride); Out[item.Get().slot] = n;"))
    result = wgc.run(path, {"inputs": [{"entry": "Write", "records": [{"slot": 0}]}], "resources": {"u0": {"bytes": 8}}})
    assert result.ok and result.resources["u0"] == {"uint32": [2, 0]}


def test_plain_run_drops_the_store_past_the_end(tmp_path) -> None:
    """Without --check: the descriptor covers the 8 bytes the dispatch gives (not the allocation,
    rounded up to 16 bytes), so the stores past it do not land in hidden padding."""
    path = write(tmp_path, "graph.hlsl", STRUCTURED)
    result = wgc.run(path, {"inputs": [{"entry": "Write", "records": [{"slot": s} for s in range(4)]}],
                            "resources": {"u0": {"bytes": 8}}})
    assert result.ok and result.checks is None
    assert result.resources["u0"] == {"uint32": [100, 101]}


BYTE_ADDRESS = """\
ByteAddressBuffer In : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(4, 1, 1)]
void Read(uint tid : SV_DispatchThreadID)
{
    Out[tid] = In.Load(tid * 4) + 1;
}
"""


def test_load_past_a_byte_address_buffer_is_reported(tmp_path) -> None:
    """8 threads read words 0..7 of a 24-byte (6-word) buffer: threads 2 and 3 of group 1 (dispatch
    threads 6 and 7) read past it, at line 6, column 5."""
    dispatch = {"inputs": [{"entry": "Read", "records": [{}]}],
                "resources": {"t1": {"uint32": [10, 20, 30, 40, 50, 60]}, "u0": {"bytes": 32}}}
    _, result = checked(tmp_path, BYTE_ADDRESS, dispatch)
    assert codes_of(result) == ["WG0840", "WG0844"]
    got = sorted((r.group, r.thread, r.line, r.column, r.value, r.limit, r.record) for r in result.checks)
    assert got == [(1, 2, 6, 5, 6, 6, 0), (1, 3, 6, 5, 7, 6, 0)]
    assert "accessed bytes 24..27 of 'In' (t1), which holds 24 bytes" in Renderer().render(list(result.diagnostics))
    dispatch["resources"]["t1"] = {"uint32": [10, 20, 30, 40, 50, 60, 70, 80]}
    _, fine = checked(tmp_path, BYTE_ADDRESS, dispatch)
    assert fine.ok and fine.checks == []
    assert fine.resources["u0"] == {"uint32": [11, 21, 31, 41, 51, 61, 71, 81]}


TEXELS = """\
Texture2D<float> In : register(t1);
RWTexture2D<float> Out : register(u0);
Buffer<uint> Typed : register(t2);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 4, 1)]
void Copy(uint2 tid : SV_DispatchThreadID)
{
    Out[tid] = In.Load(int3(tid, 0)) + Typed[tid.x];
}
"""


def texel_dispatch(in_size: tuple[int, int], out_size: tuple[int, int], typed: int) -> dict:
    return {"inputs": [{"entry": "Copy", "records": [{}]}], "resources": {
        "t1": {"width": in_size[0], "height": in_size[1], "format": "R32_FLOAT",
               "float": [float(i + 1) for i in range(in_size[0] * in_size[1])]},
        "u0": {"width": out_size[0], "height": out_size[1], "format": "R32_FLOAT"},
        "t2": {"width": typed, "format": "R32_UINT", "uint32": [100 * (i + 1) for i in range(typed)]}}}


def test_texels_past_textures_and_typed_buffers_are_reported(tmp_path) -> None:
    """One group of 4x4 threads, thread (x, y) = index x + 4y, reads In[x, y] (4 wide, 3 high),
    Typed[x] (2 elements) and writes Out[x, y] (3 wide, 4 high): Typed is past its end for x >= 2
    (8 threads), Out for x = 3 (4), In for y = 3 (4); one diagnostic per resource."""
    _, result = checked(tmp_path, TEXELS, texel_dispatch((4, 3), (3, 4), 2))
    assert codes_of(result) == ["WG0846", "WG0846", "WG0846", "WG0844"]
    got = {(r.subject, r.thread, r.value, r.limit) for r in result.checks}
    expected = {("Typed", x + 4 * y, x, 2) for x in (2, 3) for y in range(4)}
    expected |= {("Out", 3 + 4 * y, 3, 3) for y in range(4)}
    expected |= {("In", x + 12, 3, 3) for x in range(4)}
    assert got == expected and len(result.checks) == 16
    assert all((r.kind, r.line, r.column, r.group) == ("texel-index", 7, 5, 0) for r in result.checks)
    text = Renderer().render(list(result.diagnostics))
    assert "accessed element 2 of 'Typed' (t2), which holds 2 elements [WG0846]" in text
    assert "(group 0, thread 3, input record 0) accessed a texel at x = 3 of 'Out' (u0), whose width is 3" in text
    assert "(group 0, thread 12, input record 0) accessed a texel at y = 3 of 'In' (t1), whose height is 3" in text


def test_texels_within_their_images_report_nothing(tmp_path) -> None:
    _, result = checked(tmp_path, TEXELS, texel_dispatch((4, 4), (4, 4), 4))
    assert result.ok and result.checks == []
    assert result.resources["u0"] == {"float": [float(100 * (x + 1) + x + 4 * y + 1) for y in range(4) for x in range(4)]}


# ---------------------------------------------------------------- input records past Count()

def coalescing(guarded: bool) -> str:
    read = "if (tid < items.Count()) " if guarded else ""
    return f"""\
RWByteAddressBuffer Out : register(u0);
struct Item {{ uint v; }};
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Sum([MaxRecords(4)] GroupNodeInputRecords<Item> items, uint tid : SV_GroupIndex)
{{
    {read}Out.InterlockedAdd(0, items[tid].v);
}}
"""


def test_read_past_count_is_reported(tmp_path) -> None:
    """`Count()` "Returns 1..MaxRecords" (the spec's methods table): 6 records in groups of 4 leave
    Count() = 2 in group 1, whose threads 2 and 3 read input records 2 and 3 of the group (the
    group's first record is the dispatch's record 4)."""
    dispatch = {"inputs": [{"entry": "Sum", "records": [{"v": v} for v in range(1, 7)]}],
                "resources": {"u0": {"bytes": 4}}}
    _, result = checked(tmp_path, coalescing(False), dispatch)
    assert codes_of(result) == ["WG0841", "WG0844"]
    got = sorted((r.kind, r.node, r.line, r.group, r.thread, r.record, r.value, r.limit) for r in result.checks)
    assert got == [("input-index", "Sum", 6, 1, 2, 4, 2, 2), ("input-index", "Sum", 6, 1, 3, 4, 3, 2)]
    _, fine = checked(tmp_path, coalescing(True), dispatch)
    assert fine.ok and fine.checks == []
    assert fine.resources["u0"] == {"uint32": [21]}


# ---------------------------------------------------------------- MaxRecords

def spawner(heavy_group: int) -> str:
    return f"""\
struct Entry {{ uint n; }};
struct Item {{ uint v; }};
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(4, 1, 1)]
void Spawn(DispatchNodeInputRecord<Entry> input, uint gid : SV_GroupID,
           [MaxRecords(4)] NodeOutput<Item> Sink)
{{
    uint want = (gid == {heavy_group}) ? 2 : 1;
    ThreadNodeOutputRecords<Item> r = Sink.GetThreadNodeOutputRecords(want);
    for (uint i = 0; i < want; i++)
        r.Get(i).v = gid;
    r.OutputComplete();
}}
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("thread")]
void Sink(ThreadNodeInputRecord<Item> item)
{{
    InterlockedAdd(Out[item.Get().v], 1);
}}
"""


def test_a_group_past_max_records_is_reported(tmp_path) -> None:
    """GetThreadNodeOutputRecords "Counts against `MaxRecords`", a bound per thread group: group 2's
    4 threads ask for 2 records each, 8 against MaxRecords(4).  The thread whose call goes past the
    bound reports (once per group): the report names Spawn, line 8, group 2, the limit 4 and a count
    of 5 to 8 (subgroups may add in any order).  Without --check the same run fails on its arena
    (4 groups × 4 = 16 records, asked 20), naming the output and both counts."""
    dispatch = {"inputs": [{"entry": "Spawn", "records": [{"n": 0}]}], "resources": {"u0": {"bytes": 16}}}
    _, result = checked(tmp_path, spawner(2), dispatch)
    assert "WG0842" in codes_of(result) and "WG0844" in codes_of(result)
    reports = only(result.checks, kind="max-records")
    assert len(reports) == 1
    report = reports[0]
    assert (report.node, report.line, report.group, report.limit) == ("Spawn", 8, 2, 4)
    assert 5 <= report.value <= 8
    assert "on output 'Sink' (node 'Sink'), more than its MaxRecords(4) per thread group" in report.what


def test_groups_within_max_records_report_nothing(tmp_path) -> None:
    dispatch = {"inputs": [{"entry": "Spawn", "records": [{"n": 0}]}], "resources": {"u0": {"bytes": 16}}}
    _, result = checked(tmp_path, spawner(7), dispatch)      # no group 7: every group asks for 4
    assert result.ok and result.checks == []
    assert result.resources["u0"] == {"uint32": [4, 4, 4, 4]}


THREAD_SPAWN = """\
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Spawn(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Sink)
{
    GroupNodeOutputRecords<Item> r = Sink.GetGroupNodeOutputRecords(item.Get().v);
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Sink(ThreadNodeInputRecord<Item> item) { }
"""


def test_thread_launch_max_records_is_per_thread(tmp_path) -> None:
    """In thread launch each thread is its own group: record 1 asks for 3 records against
    MaxRecords(1); records 0 and 2 ask for 1 and 0."""
    dispatch = {"inputs": [{"entry": "Spawn", "records": [{"v": 1}, {"v": 3}, {"v": 0}]}]}
    _, result = checked(tmp_path, THREAD_SPAWN, dispatch)
    reports = only(result.checks, kind="max-records")
    assert [(r.group, r.thread, r.record, r.value, r.limit, r.line) for r in reports] == [(1, 0, 1, 3, 1, 5)]
    assert "per thread" in reports[0].what and "per thread group" not in reports[0].what


def fan(heavy_group: int) -> str:
    leaves = "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Leaf", {i})]
void Leaf{i}(ThreadNodeInputRecord<Rec> r) {{ InterlockedAdd(Out[{i}], 1); }}
""" for i in range(4))
    return f"""\
RWStructuredBuffer<uint> Out : register(u0);
struct Rec {{ uint v; }};
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(4, 1, 1)]
void Fan(uint gid : SV_GroupID, uint tid : SV_GroupIndex,
         [MaxRecords(4)] [MaxRecordsPerNode(2)] [NodeArraySize(4)] NodeOutputArray<Rec> Leaf)
{{
    uint target = (gid == {heavy_group}) ? 0 : tid;
    ThreadNodeOutputRecords<Rec> r = Leaf[target].GetThreadNodeOutputRecords(1);
    r.Get().v = gid;
    r.OutputComplete();
}}
{leaves}"""


def test_an_element_past_max_records_per_node_is_reported(tmp_path) -> None:
    """[MaxRecordsPerNode] is "the maximum number of records that can be output to a node within the
    array. Exceeding this results in undefined behavior." (proposal 0025).  Group 1's four threads
    each send one record to element 0, bound 2: the call that makes it 3 reports (line 8, group 1);
    group 0 sends one record to each element.  Without the mistake no report and each leaf counts
    2 records (one per group)."""
    dispatch = {"inputs": [{"entry": "Fan", "records": [{}]}], "resources": {"u0": {"bytes": 16}}}
    _, result = checked(tmp_path, fan(1), dispatch)
    reports = only(result.checks, kind="max-records-per-node")
    assert [(r.node, r.line, r.group, r.value, r.limit, r.subject) for r in reports] == [
        ("Fan", 8, 1, 3, 2, "Leaf[0]")]
    assert reports[0].thread in range(4) and only(result.checks, kind="max-records") == []
    assert "WG0847" in codes_of(result)
    assert "asked for 3 records on output 'Leaf[0]' (node 'Leaf[0]'), more than its MaxRecordsPerNode(2) per " \
           "thread group" in reports[0].what
    _, fine = checked(tmp_path, fan(7), dispatch)
    assert fine.ok and fine.checks == []
    assert fine.resources["u0"] == {"uint32": [2, 2, 2, 2]}


def test_plain_run_over_max_records_names_output_and_counts(tmp_path) -> None:
    """Item 2 of the issue: 4 groups × MaxRecords(4) = 16 records of arena; the groups ask for
    1+1+1+1 (×4 threads) + 4 more from group 2 = 20."""
    path = write(tmp_path, "graph.hlsl", spawner(2))
    result = wgc.run(path, {"inputs": [{"entry": "Spawn", "records": [{"n": 0}]}], "resources": {"u0": {"bytes": 16}}})
    assert codes_of(result) == ["WG0805"]
    message = result.diagnostics[0].message
    assert message == ("node 'Spawn' at level 0 asked for 20 records on output 'Sink' (node 'Sink'), more than "
                       "the 16 that its 4 thread groups × MaxRecords(4) allow, so some were dropped")
    assert result.partial == {"code": "WG0805", "message": message, "level": 0, "repeat": 0}
    assert "u0" in result.resources          # what the run had made when it stopped


def test_host_driven_schedule_gives_the_same_message() -> None:
    from wgc.runtime.program import NodePlan, OutputPlan, RecordLayout
    from wgc.runtime.scheduler import over_records

    record = RecordLayout(4, 4, 4, ())
    out = OutputPlan("Out", "Leaf", 0, True, 3, False, 12, 4, record)
    node = NodePlan("Root", 0, "Root", "Root", "thread", (1, 1, 1), None, None, None, record, 1, 0, (out,), None,
                    None, None)
    assert over_records(node, 2, [[1, 9, 0]], 3) == (
        "node 'Root' at level 3 asked for 9 records on output 'Out[1]' (node 'Leaf[1]'), more than the 8 that its "
        "2 threads × MaxRecordsPerNode(4) allow, so some were dropped")


# ---------------------------------------------------------------- records never written, fields never written

def group_writer(skip: str) -> str:
    return f"""\
RWStructuredBuffer<uint> Out : register(u0);
struct Entry {{ uint n; }};
struct Item {{ uint a; uint b; }};
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(4, 1, 1)]
void Spawn(DispatchNodeInputRecord<Entry> input, uint gid : SV_GroupID, uint tid : SV_GroupIndex,
           [MaxRecords(4)] NodeOutput<Item> Sink)
{{
    GroupNodeOutputRecords<Item> g = Sink.GetGroupNodeOutputRecords(2);
    if (tid < 2 && !({skip}))
        g.Get(tid).a = 10 * gid + tid;
    if (tid < 2)
        g.Get(tid).b = 1;
    g.OutputComplete();
}}
[Shader("node")] [NodeLaunch("thread")]
void Sink(ThreadNodeInputRecord<Item> item)
{{
    InterlockedAdd(Out[0], item.Get().a);
}}
"""


def test_a_field_never_written_is_reported_where_it_is_read(tmp_path) -> None:
    """Each group allocates 2 records (group scope) and its threads 0 and 1 write record tid; group
    1's thread 0 skips field `a`. Sink (thread launch, level 1) reads `a` of the 4 records: record
    2 (group 1's first; records are in group order, each group's allocation contiguous) reads the
    unwritten field, at line 18. Without the mistake, Out = 0 + 1 + 10 + 11 = 22."""
    dispatch = {"inputs": [{"entry": "Spawn", "records": [{"n": 0}]}], "resources": {"u0": {"bytes": 4}}}
    _, result = checked(tmp_path, group_writer("gid == 1 && tid == 0"), dispatch)
    reads = only(result.checks, kind="uninitialised-read")
    assert [(r.node, r.level, r.line, r.column, r.group, r.record, r.value) for r in reads] == [
        ("Sink", 1, 18, 5, 2, 2, abi.CHECK_POISON)]
    assert only(result.checks, kind="unwritten-record") == []        # its field `b` was written
    assert codes_of(result) == ["WG0849", "WG0844"]
    _, fine = checked(tmp_path, group_writer("false"), dispatch)
    assert fine.ok and fine.checks == [] and fine.resources["u0"] == {"uint32": [22]}


def test_a_record_never_written_is_reported_at_output_complete(tmp_path) -> None:
    """OutputComplete() "Must be reached at least once for every Get*NodeOutputRecords" (the spec's
    methods table), so it is where a record allocated but never written shows: group 1 writes
    neither field of its record 1 (thread 1 skips both); the report is Spawn's, at the
    OutputComplete() of line 13, record 1 of the 2 allocated; Sink's read of `a` in it reports too."""
    source = group_writer("gid == 1 && tid == 1").replace("    if (tid < 2)\n        g.Get(tid).b = 1;\n",
                                                          "    if (tid < 2 && !(gid == 1 && tid == 1))\n"
                                                          "        g.Get(tid).b = 1;\n")
    dispatch = {"inputs": [{"entry": "Spawn", "records": [{"n": 0}]}], "resources": {"u0": {"bytes": 4}}}
    _, result = checked(tmp_path, source, dispatch)
    unwritten = only(result.checks, kind="unwritten-record")
    assert [(r.node, r.level, r.line, r.group, r.thread, r.value, r.limit, r.subject) for r in unwritten] == [
        ("Spawn", 0, 13, 1, 0, 1, 2, "Sink")]
    assert "completed record 1 of the 2 it allocated on output 'Sink' (node 'Sink') without writing any of its " \
           "fields" in unwritten[0].what
    assert [(r.node, r.record) for r in only(result.checks, kind="uninitialised-read")] == [("Sink", 3)]
    assert codes_of(result) == ["WG0848", "WG0849", "WG0844"]


def leaver(leaving: int) -> str:
    return f"""\
struct Entry {{ uint n; }};
struct Item {{ uint a; }};
[Shader("node")] [NodeLaunch("thread")]
void Spawn(ThreadNodeInputRecord<Entry> input, [MaxRecords(1)] NodeOutput<Item> Sink)
{{
    ThreadNodeOutputRecords<Item> r = Sink.GetThreadNodeOutputRecords(1);
    r.Get().a = 1;
    if (input.Get().n == {leaving})
        return;
    r.OutputComplete();
}}
[Shader("node")] [NodeLaunch("thread")]
void Sink(ThreadNodeInputRecord<Item> item) {{ }}
"""


def test_a_return_before_output_complete_is_reported(tmp_path) -> None:
    """OutputComplete() "Must be reached at least once for every `Get*NodeOutputRecords`" (the spec's
    methods table): the record with n = 2 returns before it. Sema warns that a path misses it
    (WG0418); the run says which record took that path: thread-launch record 2, reported at the
    allocation (line 6). With no record taking the path, nothing is reported."""
    dispatch = {"inputs": [{"entry": "Spawn", "records": [{"n": 0}, {"n": 1}, {"n": 2}]}]}
    _, result = checked(tmp_path, leaver(2), dispatch)
    assert [(r.kind, r.node, r.line, r.group, r.record, r.subject) for r in result.checks] == [
        ("not-completed", "Spawn", 6, 2, 2, "Sink")]
    assert codes_of(result) == ["WG0418", "WG0850", "WG0844"]
    assert "returned without calling OutputComplete() on the records it allocated here on output 'Sink'" in \
        result.checks[0].what
    _, fine = checked(tmp_path, leaver(7), dispatch)
    assert codes_of(fine) == ["WG0418"] and fine.checks == []


# ---------------------------------------------------------------- the report buffer


def test_report_buffer_overflow_is_counted(tmp_path, monkeypatch) -> None:
    """70 thread-launch records write slots 0..69 of a 1-element buffer: 69 reports, 8 fit."""
    from wgc.runtime import checks

    monkeypatch.setattr(checks, "DEFAULT_CAPACITY", 8)
    dispatch = {"inputs": [{"entry": "Write", "records": [{"slot": s} for s in range(70)]}],
                "resources": {"u0": {"bytes": 4}}}
    _, result = checked(tmp_path, STRUCTURED, dispatch)
    assert len(result.checks) == 8 and result.checks_lost == 61
    assert codes_of(result) == ["WG0840", "WG0843", "WG0844"]
    assert "61 more check reports did not fit" in Renderer().render(list(result.diagnostics))
    assert "--check found 69 mistakes" in Renderer().render(list(result.diagnostics))


def test_check_needs_the_emulated_path(tmp_path) -> None:
    path = write(tmp_path, "graph.hlsl", STRUCTURED)
    result = wgc.run(path, {"inputs": [{"entry": "Write", "records": [{"slot": 0}]}], "resources": {"u0": {"bytes": 4}}},
                     check=True, path="amdx")
    assert Renderer().render(list(result.diagnostics)) == (
        "error: --check instruments the module wgc compiles for the emulated target; it cannot check AMDX modules "
        "[WG0845]\n1 error generated.\n")
    compiled = wgc.compile(wgc.Options(input=path, target="emulated", reflection=True))
    refused = wgc.run(compiled, {"inputs": [{"entry": "Write", "records": [{"slot": 0}]}],
                                 "resources": {"u0": {"bytes": 4}}}, check=True)
    assert codes_of(refused) == ["WG0845"] and "a compile made without it" in refused.diagnostics[0].message


def test_module_without_checks_is_unchanged() -> None:
    """Checks are compiled in only when asked: a plain module has none of the checks' code (named
    `check_*` with debug information; the checks field's offset, 80, is no proxy: the level tail
    reads a launch table's field at 80 too)."""
    from wgc import driver

    sample = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples", "hello.hlsl")
    plain = driver.compile(driver.Options(input=sample, emit="asm", target="emulated", debug_info=True))
    checked_ = driver.compile(driver.Options(input=sample, emit="asm", target="emulated", checks=True,
                                             debug_info=True))
    assert plain.ok and checked_.ok
    assert '"check_' not in plain.outputs["asm"].decode()
    assert '"check_' in checked_.outputs["asm"].decode()
    assert abi.NODE_CONTEXT["checks"] == (80, 8) and abi.NODE_CONTEXT_SIZE == 112


# ---------------------------------------------------------------- the command line


def wgc_cli(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wgc", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_cli_check_exit_status_summary_and_json(tmp_path) -> None:
    write(tmp_path, "graph.hlsl", STRUCTURED)
    write(tmp_path, "d.json", json.dumps({"inputs": [{"entry": "Write", "records": [{"slot": s} for s in range(3)]}],
                                          "resources": {"u0": {"bytes": 8}}}))
    done = wgc_cli("run", "graph.hlsl", "--dispatch", "d.json", "--check", "-o", "out.json", cwd=str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "graph.hlsl:6:5: error: node 'Write' (group 2, thread 0, input record 2)" in done.stderr
    assert "--check found 1 mistake at run time (1 buffer-index) [WG0844]" in done.stderr
    results = json.loads((tmp_path / "out.json").read_text())
    assert results["resources"] == {"u0": {"uint32": [100, 101]}}
    assert results["checks_lost"] == 0
    assert [(c["node"], c["line"], c["column"], c["group"], c["value"], c["limit"]) for c in results["checks"]] == \
        [("Write", 6, 5, 2, 2, 2)]


KICKED = spawner(2) + """\
[Shader("node")] [NodeLaunch("thread")]
void Kick(ThreadNodeInputRecord<Entry> entry, [MaxRecords(1)] NodeOutput<Entry> Spawn)
{
    ThreadNodeOutputRecords<Entry> r = Spawn.GetThreadNodeOutputRecords(1);
    r.Get().n = entry.Get().n;
    r.OutputComplete();
}
"""


@pytest.mark.parametrize("gpu_driven", [True, False])
def test_failed_run_keeps_the_levels_before_it(tmp_path, monkeypatch, gpu_driven: bool) -> None:
    """Kick (level 0) sends one record to Spawn, which goes past its arena at level 1: the trace keeps
    level 0 (Kick: 1 record in, 1 out), the partial result names level 1; both schedules."""
    if not gpu_driven:
        from wgc.runtime import gpu_schedule

        monkeypatch.setattr(gpu_schedule.GpuScheduler, "_plan", lambda self, entries: None)
    path = write(tmp_path, "graph.hlsl", KICKED)
    result = wgc.run(path, {"inputs": [{"entry": "Kick", "records": [{"n": 0}]}], "resources": {"u0": {"bytes": 16}}})
    assert codes_of(result) == ["WG0805"]
    assert result.partial is not None and result.partial["level"] == 1
    assert [(s.level, [(d.node, d.records_in, d.records_out) for d in s.dispatches]) for s in result.trace] == [
        (0, [("Kick", 1, {"Spawn": 1})])]
    assert "the run failed at level 1 (WG0805): the trace stops here" in result.trace_text()


def test_cli_failed_run_writes_partial_results_over_an_old_file(tmp_path) -> None:
    """Item 3: a run that fails over MaxRecords writes -o with the buffers and a "partial" field
    (never the stale file of an earlier run), and the trace says where it stopped; exit status 1."""
    write(tmp_path, "graph.hlsl", spawner(2))
    write(tmp_path, "d.json", json.dumps({"inputs": [{"entry": "Spawn", "records": [{"n": 0}]}],
                                          "resources": {"u0": {"bytes": 16}}}))
    (tmp_path / "out.json").write_text("stale")
    done = wgc_cli("run", "graph.hlsl", "--dispatch", "d.json", "-o", "out.json", "--trace", "--trace-format", "json",
                   cwd=str(tmp_path))
    assert done.returncode == 1
    assert "asked for 20 records on output 'Sink'" in done.stderr
    results = json.loads((tmp_path / "out.json").read_text())
    assert results["partial"]["code"] == "WG0805" and results["partial"]["level"] == 0
    assert "u0" in results["resources"]
    assert [p for p in os.listdir(tmp_path) if p.startswith(".") or p.endswith(".tmp")] == []
