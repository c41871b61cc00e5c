"""Debugging runs of `wgc run` (`wgc.runtime.schedules`, `records`, `report`): the record dump,
stepping, other schedules and the HTML report.  Expected values come from a few lines of Python
that compute what each graph is written to do (never from an earlier run).

Skips, with the reason printed (`-ra`), where there is no Vulkan device; the browser test skips
where Debian's `chromium` is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser

import pytest

import wgc
from wgc.diagnostics import Renderer
from wgc.runtime.records import RecordLog
from wgc.runtime.schedules import MAX_PIECES, DebugRun, Schedule, _pieces

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELLO = os.path.join(ROOT, "samples", "hello.hlsl")
HELLO_DISPATCH = os.path.join(ROOT, "samples", "hello.dispatch.json")
RENDERED_HERE = {"WG0860", "WG0861", "WG0862", "WG0863"}

device = pytest.mark.usefixtures("vulkan_device")


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def wgc_command(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wgc", *args], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT, **env}, timeout=300)


def rendered(result) -> str:
    return Renderer().render(list(result.diagnostics))


def hello_bin(item: int) -> int:
    """hello.hlsl's Classify: (item * 2654435761u) >> 28 in 32-bit arithmetic."""
    return ((item * 2654435761) & 0xFFFFFFFF) >> 28


# --------------------------------------------------------------------------- records

KINDS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Start { uint count; };
struct Inner { int16_t k; float w; };
struct Kinds {
    uint a; int b; uint16_t h; int64_t q; uint64_t u; float f; double d; half e; bool flag;
    float3 v; int2 iv;
    row_major float2x3 rm; column_major float2x3 cm;
    uint arr[3]; uint16_t grid[2][2];
    Inner inner[2];
};
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(3, 1, 1)]
void Make(DispatchNodeInputRecord<Start> s, [MaxRecords(3)] NodeOutput<Kinds> Use, uint i : SV_GroupIndex)
{
    ThreadNodeOutputRecords<Kinds> r = Use.GetThreadNodeOutputRecords(1);
    {
        r.Get(0).a = 7 * i + 1;
        r.Get(0).b = -5 * (int)i - 2;
        r.Get(0).h = (uint16_t)(40000 + i);
        r.Get(0).q = (int64_t)-1099511627776 * (int64_t)(i + 1);
        r.Get(0).u = ((uint64_t)i << 40) | 5;
        r.Get(0).f = 0.5 * i + 0.25;
        r.Get(0).d = 1.0e10 + (double)i * 0.125;
        r.Get(0).e = (half)(1.5 + i);
        r.Get(0).flag = (i % 2) == 1;
        r.Get(0).v = float3(i, i + 0.5, -(float)i);
        r.Get(0).iv = int2(-(int)i, i * i);
        for (uint row = 0; row < 2; row++)
            for (uint col = 0; col < 3; col++) {
                r.Get(0).rm[row][col] = 10 * row + col + 100 * i;
                r.Get(0).cm[row][col] = 10 * row + col + 100 * i;
            }
        for (uint k = 0; k < 3; k++) r.Get(0).arr[k] = i * 10 + k;
        for (uint x = 0; x < 2; x++) for (uint y = 0; y < 2; y++) r.Get(0).grid[x][y] = (uint16_t)(1000 + i * 4 + x * 2 + y);
        for (uint n = 0; n < 2; n++) { r.Get(0).inner[n].k = (int16_t)(-(int)(i * 2 + n)); r.Get(0).inner[n].w = n * 0.5 + i; }
    }
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Use(ThreadNodeInputRecord<Kinds> k) { InterlockedAdd(Out[0], k.Get().a); }
"""


def kinds_expected(i: int) -> dict:
    """What Make writes for its thread i, computed here."""
    m = [[10 * r + c + 100 * i for c in range(3)] for r in range(2)]
    return {"a": 7 * i + 1, "b": -5 * i - 2, "h": 40000 + i, "q": -1099511627776 * (i + 1), "u": (i << 40) | 5,
            "f": 0.5 * i + 0.25, "d": 1.0e10 + i * 0.125, "e": 1.5 + i, "flag": i % 2 == 1,
            "v": [i, i + 0.5, -i], "iv": [-i, i * i], "rm": m, "cm": m, "arr": [i * 10 + k for k in range(3)],
            "grid": [[1000 + i * 4 + x * 2 + y for y in range(2)] for x in range(2)],
            "inner": [{"k": -(i * 2 + n), "w": n * 0.5 + i} for n in range(2)]}


def test_decoding_follows_strides_majorness_and_special_values() -> None:
    """Bytes packed here by hand: a column-major float2x2 whose columns are 16 bytes apart (the
    std140-like stride a layout may give), a half, NaN and infinity (JSON has neither: strings),
    bool, an array with a stride larger than its element, and a record cut short (zeros)."""
    from wgc.runtime.program import Field, RecordLayout
    from wgc.runtime.records import decode_record, decode_records

    def member(name, type_, offset, size, dims=(), array_stride=None, matrix_stride=None, row_major=None):
        return Field(name, type_, offset, size, dims, array_stride, matrix_stride, row_major, ())

    layout = RecordLayout("R", 64, 4, (
        member("m", "float2x2", 0, 24, matrix_stride=16, row_major=False),
        member("h", "float16_t", 24, 2),
        member("flag", "bool", 28, 4),
        member("x", "float[2]", 32, 16, (2,), 8),
        member("n", "int64_t", 48, 8),
        member("z", "uint", 56, 4)))
    data = bytearray(64)
    struct.pack_into("<2f", data, 0, 1.0, 2.0)            # column 0: m[0][0], m[1][0]
    struct.pack_into("<2f", data, 16, 3.0, 4.0)           # column 1: m[0][1], m[1][1]
    struct.pack_into("<e", data, 24, -0.5)
    struct.pack_into("<I", data, 28, 1)
    struct.pack_into("<f", data, 32, float("nan"))
    struct.pack_into("<f", data, 40, float("-inf"))
    struct.pack_into("<q", data, 48, -(1 << 40))
    struct.pack_into("<I", data, 56, 77)
    expected = {"m": [[1.0, 3.0], [2.0, 4.0]], "h": -0.5, "flag": True, "x": ["nan", "-inf"], "n": -(1 << 40),
                "z": 77}
    assert decode_record(layout, bytes(data)) == expected
    assert decode_record(layout, bytes(data[:56]))["z"] == 0
    assert decode_records(layout, bytes(data) * 2, 2, 64) == [expected, expected]
    assert decode_records(layout, bytes(data), 3, 0) == [expected] * 3


def test_the_dump_file_is_the_logs_json_a_record_per_line() -> None:
    from wgc.runtime.records import DispatchRecords, LevelRecords

    log = RecordLog()
    assert json.loads(log.text()) == {"levels": [], "waiting": []}
    log.levels.append(LevelRecords(0, 0))
    log.levels.append(LevelRecords(0, 1, 0.5, [DispatchRecords("A", 0, [], None),
                                               DispatchRecords("B", 1, [{"x": 1}, {"x": 2}], {"input": 0})]))
    log.waiting.append(DispatchRecords("C", 0, [{"y": [1, 2]}], None, 0, 3))
    text = log.text()
    assert json.loads(text) == log.to_json()
    assert '        {"x": 1},\n        {"x": 2}\n' in text
    assert json.loads(text)["waiting"][0]["count"] == 3          # 3 records, 1 kept


@device
def test_dump_decodes_every_kind_of_field_by_name(tmp_path) -> None:
    """Scalars of 16, 32 and 64 bits (integers and floats), bool, vectors, row- and column-major
    matrices (as HLSL rows), arrays of arrays and arrays of structs, each by its field name, with
    the node and group that produced them."""
    path = write(tmp_path, "kinds.hlsl", KINDS)
    debug = DebugRun(RecordLog())
    result = wgc.run(wgc.Options(input=path, enable_16bit_types=True),
                     {"inputs": [{"entry": "Make", "records": [{"count": 3}]}], "resources": {"u0": {"bytes": 16}}},
                     debug=debug)
    assert result.ok, rendered(result)
    assert result.resources["u0"]["uint32"][0] == sum(7 * i + 1 for i in range(3))
    assert debug.records is not None
    level0, level1 = debug.records.levels
    assert [(d.node, d.records, d.source) for d in level0.dispatches] == [("Make", [{"count": 3}], {"input": 0})]
    (use,) = level1.dispatches
    assert use.node == "Use"
    assert use.source == {"node": "Make", "level": 0, "dispatch": 0, "output": "Use", "index": None, "group": 0}
    assert sorted(use.records, key=lambda r: r["a"]) == [kinds_expected(i) for i in range(3)]


@device
def test_cli_dump_and_stop_keep_the_records_waiting(tmp_path) -> None:
    """hello.hlsl stopped after level 1 (Classify): Accumulate has not run, so the histogram is
    all zeros, and its 200 input records wait in the dump with the bins Classify computed."""
    dump = tmp_path / "records.json"
    out = tmp_path / "out.json"
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--dump-records", str(dump), "--stop-after-level",
                       "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "stopped after level 1; records waiting for the next level: Accumulate=200" in done.stderr
    results = json.loads(out.read_text())
    assert results["resources"] == {"u0": {"uint32": [0] * 16}}
    assert results["stopped"] == {"after": "level 1", "repeat": 0, "level": 1, "waiting": {"Accumulate": 200}}
    records = json.loads(dump.read_text())
    assert [[d["node"] for d in level["dispatches"]] for level in records["levels"]] == [["Generate"], ["Classify"]]
    (generate,) = records["levels"][0]["dispatches"]
    assert generate["records"] == [{"gridSize": 4, "itemCount": 200}] and generate["source"] == {"input": 0}
    (classify,) = records["levels"][1]["dispatches"]
    assert sorted(r["item"] for r in classify["records"]) == list(range(200))
    assert classify["source"]["node"] == "Generate" and classify["source"]["group"] is None   # 4 groups ran
    waiting = [r for d in records["waiting"] for r in d["records"]]
    assert all(d["node"] == "Accumulate" for d in records["waiting"])
    assert sorted(r["bin"] for r in waiting) == sorted(hello_bin(i) for i in range(200))
    # one node only
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--dump-records", str(dump),
                       "--dump-records-node", "Classify")
    assert done.returncode == 0, done.stderr
    records = json.loads(dump.read_text())
    assert [[d["node"] for d in level["dispatches"]] for level in records["levels"]] == [[], ["Classify"], []]


@device
def test_cli_refuses_what_names_nothing_and_writes_nothing_on_errors(tmp_path) -> None:
    dump = tmp_path / "records.json"
    report = tmp_path / "run.html"
    out = tmp_path / "out.json"
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--dump-records", str(dump), "--report",
                       str(report), "-o", str(out), "--stop-after-node", "Clasify")
    assert done.returncode == 1
    assert done.stderr == ("error: --stop-after-node Clasify: the graph has no such node [WG0860]\n"
                           "note: its nodes: Generate, Classify, Accumulate\n1 error generated.\n")
    assert not dump.exists() and not report.exists() and not out.exists()
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--dump-records-node", "Classify")
    assert done.returncode == 2 and "--dump-records-node chooses the records of --dump-records or --report" in done.stderr
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--schedule", "soon")
    assert done.returncode == 2
    assert "'soon' is neither a seed (a number, 0 or more) nor one of default, reverse, smallest" in done.stderr
    done = wgc_command("run", "--help")
    assert "Debugging Options (wgc run):" in done.stdout and "--schedules N" in done.stdout


BISECT = """\
RWStructuredBuffer<uint> Out : register(u0);
struct V { uint id; uint value; };
[Shader("node")] [NodeLaunch("thread")]
void Double(ThreadNodeInputRecord<V> r, [MaxRecords(1)] NodeOutput<V> AddThree)
{
    ThreadNodeOutputRecords<V> o = AddThree.GetThreadNodeOutputRecords(1);
    o.Get().id = r.Get().id;
    o.Get().value = r.Get().value * 2;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void AddThree(ThreadNodeInputRecord<V> r, [MaxRecords(1)] NodeOutput<V> Store)
{
    ThreadNodeOutputRecords<V> o = Store.GetThreadNodeOutputRecords(1);
    o.Get().id = r.Get().id;
    o.Get().value = r.Get().value << 3;     // the mistake: meant + 3
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Store(ThreadNodeInputRecord<V> r) { Out[r.Get().id] = r.Get().value; }
"""


@device
def test_bisect_finds_the_level_where_a_value_goes_wrong(tmp_path) -> None:
    """The graph should store 2v + 3; the records entering level 2 are already wrong.  Stopped after
    each level, the records waiting for the next are compared with what the graph should compute,
    level by level: level 0's outputs are right, level 1's (AddThree) are the first wrong ones."""
    path = write(tmp_path, "bisect.hlsl", BISECT)
    values = [5, 9, 12, 40]
    dispatch = {"inputs": [{"entry": "Double", "records": [{"id": i, "value": v} for i, v in enumerate(values)]}],
                "resources": {"u0": {"bytes": 16}}}
    meant = [lambda v: v, lambda v: 2 * v, lambda v: 2 * v + 3]      # the value entering level L
    first_wrong = None
    for level in range(2):
        debug = DebugRun(RecordLog(), stop_after_level=level)
        result = wgc.run(path, dispatch, debug=debug)
        assert result.ok, rendered(result)
        assert result.resources["u0"]["uint32"] == [0, 0, 0, 0]          # Store has not run
        assert debug.stopped is not None and debug.stopped["level"] == level
        assert debug.records is not None
        waiting = {r["id"]: r["value"] for d in debug.records.waiting for r in d.records}
        assert sorted(waiting) == [0, 1, 2, 3]
        if first_wrong is None and waiting != {i: meant[level + 1](v) for i, v in enumerate(values)}:
            first_wrong = level + 1
    assert first_wrong == 2
    # the producer of the wrong records, by name: stopping after it is stopping after level 1
    debug = DebugRun(RecordLog(), stop_after_node="AddThree")
    result = wgc.run(path, dispatch, debug=debug)
    assert result.ok and debug.stopped is not None
    assert debug.stopped["level"] == 1 and debug.stopped["waiting"] == {"Store": 4}
    assert {r["value"] for d in debug.records.waiting for r in d.records} == {16 * v for v in values}
    assert {d.source["node"] for d in debug.records.waiting} == {"AddThree"}
    full = wgc.run(path, dispatch)
    assert full.resources["u0"]["uint32"] == [16 * v for v in values]


@device
def test_stops_that_name_nothing_or_are_never_reached(tmp_path) -> None:
    path = write(tmp_path, "bisect.hlsl", BISECT)
    dispatch = {"inputs": [{"entry": "Double", "records": [{"id": 0, "value": 1}]}], "resources": {"u0": {"bytes": 16}}}
    result = wgc.run(path, dispatch, debug=DebugRun(stop_after_node="Tripple"))
    assert not result.ok
    assert rendered(result) == (
        "error: --stop-after-node Tripple: the graph has no such node [WG0860]\n"
        "note: its nodes: Double, AddThree, Store\n1 error generated.\n")
    debug = DebugRun(stop_after_level=5)
    result = wgc.run(path, dispatch, debug=debug)
    assert result.ok and result.resources["u0"]["uint32"] == [16, 0, 0, 0]    # (1 * 2) << 3
    assert rendered(result) == (
        "warning: the run ended without stopping: it ran 3 levels; the results are those of the whole run "
        "[WG0861] [-Wrun-stop]\n1 warning generated.\n")
    assert json.loads(result.results_json())["stopped"] is None


@device
def test_the_record_log_is_bounded_and_says_what_it_left_out() -> None:
    """hello.hlsl moves 1 + 200 + 200 records; a log kept to 150 keeps the first 150 (the Generate
    record and 149 of Classify's) and counts the other 251."""
    debug = DebugRun(RecordLog(limit=150))
    result = wgc.run(HELLO, HELLO_DISPATCH, debug=debug)
    assert result.ok
    assert debug.records is not None and (debug.records.kept, debug.records.left_out) == (150, 251)
    assert [len(d.records) for level in debug.records.levels for d in level.dispatches] == [1, 149, 0]
    assert json.loads(debug.records.text())["levels"][1]["dispatches"][0]["count"] == 200
    assert rendered(result) == (
        "warning: the record dump keeps the first 150 records; 251 more were counted but not kept [WG0863] "
        "[-Wrun-records]\n"
        "note: keep fewer with --dump-records-node NAME, or stop earlier with --stop-after-level N\n"
        "1 warning generated.\n")


# --------------------------------------------------------------------------- schedules

def test_schedule_names_and_seeds() -> None:
    assert Schedule.parse("7") == Schedule("7", 7)
    assert Schedule.parse("0x10") == Schedule("16", 16)
    assert Schedule.parse("reverse") == Schedule("reverse")
    assert Schedule.parse("-1") is None and Schedule.parse("fast") is None


@pytest.mark.parametrize("total,largest", [(1, 1), (7, 3), (100, 32), (5000, 4), (10**6, 1)])
def test_pieces_cover_the_records_in_bounded_batches(total: int, largest: int) -> None:
    import random

    sizes = _pieces(total, largest, random.Random(3))
    assert sum(sizes) == total and len(sizes) <= MAX_PIECES
    assert all(1 <= s <= max(largest, -(-total // MAX_PIECES)) for s in sizes)
    assert _pieces(total, largest, None) == _pieces(total, 1, None)


COALESCE = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint value; };
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)]
void Sum([MaxRecords(4)] GroupNodeInputRecords<Item> items)
{
    uint total = 0;
    for (uint i = 0; i < 4; i++)
        CHECK total += items[i].value;
    InterlockedAdd(Out[0], total);
}
"""


@device
def test_schedules_expose_a_missing_count_check(tmp_path) -> None:
    """D3D12 work graphs: a coalescing group may receive from 1 to MaxRecords records
    ("the number of records ... can be anywhere from 1 to MaxRecords"); Count() says how many.
    Reading all four without `if (i < Count())` is right only when every batch is full, as the
    default schedule makes them from 8 records."""
    dispatch = {"inputs": [{"entry": "Sum", "records": [{"value": v} for v in range(1, 9)]}],
                "resources": {"u0": {"bytes": 4}}}
    wrong = write(tmp_path, "wrong.hlsl", COALESCE.replace("CHECK", ""))
    assert wgc.run(wrong, dispatch).resources["u0"]["uint32"] == [36]       # 1 + ... + 8 with full batches
    result = wgc.run(wrong, dispatch, debug=DebugRun(schedules=8))
    assert not result.ok
    text = rendered(result)
    assert "error: 'u0' depends on the schedule: element 0 is 36 under the default schedule and " in text
    assert "[WG0862]" in text
    seed = text.split("replay it with --schedule ")[1].split()[0]
    replay = wgc.run(wrong, dispatch, debug=DebugRun(schedule=Schedule.parse(seed)))
    assert replay.ok and replay.resources["u0"]["uint32"] != [36]
    right = write(tmp_path, "right.hlsl", COALESCE.replace("CHECK", "if (i < items.Count())"))
    debug = DebugRun(schedules=8)
    result = wgc.run(right, dispatch, debug=debug)
    assert result.ok, rendered(result)
    assert result.resources["u0"]["uint32"] == [36]
    assert debug.compared == ["default", *map(str, range(1, 9))]


RACE = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint id; };
[Shader("node")] [NodeLaunch("thread")]
void Claim(ThreadNodeInputRecord<Item> item)
{
    uint previous;
    InterlockedExchange(Out[0], item.Get().id + 1, previous);    // the last one wins: a race
    InterlockedAdd(Out[1], 1);
}
"""


@device
def test_schedules_expose_a_racy_exchange(tmp_path) -> None:
    path = write(tmp_path, "race.hlsl", RACE)
    dispatch = {"inputs": [{"entry": "Claim", "records": [{"id": i} for i in range(64)]}],
                "resources": {"u0": {"bytes": 8}}}
    result = wgc.run(path, dispatch, debug=DebugRun(schedules=6))
    assert not result.ok
    messages = [d.message for d in result.diagnostics]
    assert len(messages) == 1 and messages[0].startswith("'u0' depends on the schedule: element 0 is ")
    assert result.diagnostics[0].code == "WG0862"


@device
def test_schedules_find_nothing_in_hello(tmp_path) -> None:
    """hello.hlsl adds with InterlockedAdd: every schedule gives the same histogram, the one
    computed here; the named schedules too."""
    histogram = [0] * 16
    for item in range(200):
        histogram[hello_bin(item)] += 1
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--schedules", "4")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"resources": {"u0": {"uint32": histogram}},
                                       "schedules_compared": ["default", "1", "2", "3", "4"]}
    for name in ("reverse", "smallest", "12345"):
        done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--schedule", name, "--trace")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["resources"] == {"u0": {"uint32": histogram}}
        assert json.loads(done.stdout)["schedule"] == name
        if name == "smallest":
            assert done.stderr.count("Classify (thread): records in 1, groups 1, records out: Accumulate=1") == 200


@device
def test_smallest_schedule_runs_one_record_per_launch(tmp_path) -> None:
    debug = DebugRun(RecordLog(), schedule=Schedule("smallest"))
    result = wgc.run(HELLO, HELLO_DISPATCH, debug=debug)
    assert result.ok, rendered(result)
    counts = [[(d.records_in, d.groups) for d in step.dispatches] for step in result.trace]
    assert counts == [[(1, 1)] * 4, [(1, 1)] * 200, [(1, 1)] * 200]    # Generate's 4 groups one by one
    assert debug.records is not None
    # every record's producing group is known: Generate's thread t of group g emits item 64 g + t
    classify = debug.records.levels[1].dispatches
    assert sorted((d.source["group"], d.records[0]["item"] // 64) for d in classify) == \
        sorted((i // 64, i // 64) for i in range(200))
    assert all(d.source["node"] == "Generate" and d.source["dispatch"] == d.source["group"] for d in classify)
    # every Accumulate batch comes from one Classify dispatch of one record
    sources = [d.source for d in debug.records.levels[2].dispatches]
    assert all(s["node"] == "Classify" and s["group"] == 0 for s in sources)


def _runtime_graphs():
    import test_runtime_run as graphs

    dynamic = [{"grid": [3, 2], "slot": 60}, {"grid": [0, 5], "slot": 62}, {"grid": [8, 8], "slot": 64}]
    return {
        "record-given grids": (graphs.BROADCAST, {
            "inputs": [{"entry": "Tile", "records": [{"base": 0}, {"base": 24}]}, {"entry": "Spread", "records": dynamic}],
            "resources": {"u0": {"bytes": 68 * 4}}}),
        "two inputs, repeat": (graphs.TWO_LEVEL, {
            "inputs": [{"entry": "Split", "records": [{"first": 4 * i, "count": i % 5} for i in range(40)]}],
            "resources": {"u0": {"bytes": 160 * 4}}, "repeat": 2}),
        "recursion": (graphs.RECURSION, {"inputs": [{"entry": "Down", "records": [{"depth": 0}]}],
                                         "resources": {"u0": {"bytes": 64}}}),
        "node arrays, empty records": (graphs.ARRAYS, {
            "inputs": [{"entry": "Route", "records": [{"which": i % 4, "value": i + 1} for i in range(10)]}],
            "resources": {"u0": {"bytes": 48}}}),
        "shared input": (graphs.SHARED, {"inputs": [{"entry": "A", "records": [{"v": v} for v in range(1, 40)]}],
                                         "resources": {"u0": {"bytes": 8}}}),
    }


@device
@pytest.mark.parametrize("name", ["record-given grids", "two inputs, repeat", "recursion", "node arrays, empty records",
                                  "shared input"])
def test_debugging_runs_agree_with_the_plain_run(tmp_path, name: str) -> None:
    """The default debugging schedule makes the plain run's dispatches (same trace, same results);
    seeded and named schedules change neither on graphs that depend on no order (atomics only):
    recursion levels, record-given grids, node arrays with empty records, shared inputs, repeats."""
    source, dispatch = _runtime_graphs()[name]
    path = write(tmp_path, "graph.hlsl", source)
    plain = wgc.run(path, dispatch)
    assert plain.ok, rendered(plain)
    debug = DebugRun(RecordLog())
    kept = wgc.run(path, dispatch, debug=debug)
    assert kept.resources == plain.resources
    assert [s.to_json() for s in kept.trace] == [s.to_json() for s in plain.trace]
    assert sum(len(d.records) for level in debug.records.levels for d in level.dispatches) == \
        sum(d.records_in for s in plain.trace for d in s.dispatches)
    explored = wgc.run(path, dispatch, debug=DebugRun(schedules=3))
    assert explored.resources == plain.resources
    if name != "node arrays, empty records":
        assert explored.ok, rendered(explored)
        for schedule in ("reverse", "smallest"):
            assert wgc.run(path, dispatch, debug=DebugRun(schedule=Schedule(schedule))).resources == plain.resources
        return
    # Tick counts its coalescing groups in Out[6]: 10 records make 3 full-or-partial batches of up to 4
    # by default, and more under a schedule that batches them smaller: rightly reported
    assert [d.code for d in explored.diagnostics if d.severity.name == "ERROR"] == ["WG0862"]
    assert "'u0' depends on the schedule: element 6 is 3 under the default schedule" in rendered(explored)
    smallest = wgc.run(path, dispatch, debug=DebugRun(schedule=Schedule("smallest")))
    assert smallest.resources["u0"]["uint32"][6] == 10            # one group per record
    assert smallest.resources["u0"]["uint32"][:6] == plain.resources["u0"]["uint32"][:6]


@device
def test_a_level_is_split_into_a_bounded_number_of_launches(monkeypatch) -> None:
    """Past MAX_LEVEL_LAUNCHES launches made of a level's chunks, the rest are not split: with a
    budget of 0 the smallest schedule makes a plain run's launches (and its results)."""
    from wgc.runtime import schedules

    monkeypatch.setattr(schedules, "MAX_LEVEL_LAUNCHES", 0)
    plain = wgc.run(HELLO, HELLO_DISPATCH)
    bounded = wgc.run(HELLO, HELLO_DISPATCH, debug=DebugRun(schedule=Schedule("smallest")))
    assert [s.to_json() for s in bounded.trace] == [s.to_json() for s in plain.trace]
    assert bounded.resources == plain.resources


# --------------------------------------------------------------------------- the report

class _Dom(HTMLParser):
    """Tables by id (rows of cell texts), the body's attributes, and all text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.body: dict[str, str | None] = {}
        self.text: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "body":
            self.body = attributes
        elif tag == "table" and attributes.get("id"):
            self._table = attributes["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


@device
def test_report_is_self_contained_and_renders_in_a_browser(tmp_path) -> None:
    """The page a browser shows (Debian's headless Chromium, the DOM after the script ran): the
    graph's nodes, the timeline, and each node's records with the values computed here."""
    report = tmp_path / "run.html"
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--report", str(report), "-o",
                       str(tmp_path / "out.json"))
    assert done.returncode == 0, done.stderr
    page = report.read_text()
    assert "<script src" not in page and "<link" not in page and "@import" not in page
    # namespace names (Graphviz's SVG declares xlink's too) are identifiers, not fetched
    assert "http://" not in re.sub(r'xmlns(:\w+)?="http://www\.w3\.org/[^"]*"', "", page)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium here (Debian: apt-get install chromium): the page was not opened in a browser")
    shown = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                            report.as_uri()], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    dom = _Dom()
    dom.feed(shown.stdout)
    assert dom.body.get("data-ready") == "yes"           # the script ran
    text = "".join(dom.text)
    for node in ("Generate", "Classify", "Accumulate"):
        assert f"{node} (" in text                         # the graph's list of nodes (no Graphviz here)
    assert "level 2: 200 records" in text                 # the timeline
    header, *rows = dom.tables["records-Generate"]
    assert header == ["level", "dispatch", "record", "from", "gridSize", "itemCount"]
    assert rows == [["0", "0", "0", "dispatch input 0", "4", "200"]]
    header, *rows = dom.tables["records-Accumulate"]
    assert header[-1] == "bin" and len(rows) == 200
    assert sorted(int(r[-1]) for r in rows) == sorted(hello_bin(i) for i in range(200))
    assert sorted(int(r[-1]) for r in dom.tables["records-Classify"][1:]) == list(range(200))


@device
def test_report_inlines_graphviz_svg_when_there_is_dot(tmp_path) -> None:
    """With Graphviz the picture is its SVG, inline (a stand-in `dot` on PATH writes a known one)."""
    fake = tmp_path / "bin"
    fake.mkdir()
    dot = fake / "dot"
    dot.write_text("#!/bin/sh\ncat > /dev/null\necho '<?xml version=\"1.0\"?>'\n"
                   "echo '<svg xmlns=\"http://www.w3.org/2000/svg\"><g class=\"node\"><title>Generate</title></g></svg>'\n")
    dot.chmod(0o755)
    report = tmp_path / "run.html"
    done = wgc_command("run", HELLO, "--dispatch", HELLO_DISPATCH, "--report", str(report),
                       PATH=f"{fake}{os.pathsep}{os.environ.get('PATH', '')}")
    assert done.returncode == 0, done.stderr
    page = report.read_text()
    assert '<div class="graph"><svg xmlns="http://www.w3.org/2000/svg"><g class="node"><title>Generate</title>' in page
    assert "<?xml" not in page


@device
def test_report_links_diagnostics_to_source_lines(tmp_path) -> None:
    from wgc.runtime.report import Section, render_report

    source = write(tmp_path, "bisect.hlsl", BISECT)
    dispatch = {"inputs": [{"entry": "Double", "records": [{"id": 0, "value": 1}]}], "resources": {"u0": {"bytes": 16}}}
    debug = DebugRun(RecordLog(), stop_after_level=9)
    result = wgc.run(source, dispatch, debug=debug)
    page = render_report(result, wgc.Options(input=source), None,
                         (Section("Prints", ["where", "text"], [{"where": f"{source}:20:5", "text": "v=<2>"}]),))
    assert '<a href="#src-L20">' in page and "v=&lt;2&gt;" in page
    assert '<span id="src-L20">  20  void Store' in page
    assert "WG0861" in page
