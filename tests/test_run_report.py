"""The debugger's pieces together (issue 27): the HTML report shows the prints, the `--check`
reports and the GPU times, linked to the source lines; a run that fails (MaxRecords, a grid past
its maximum) still writes the trace, `-o`, `--dump-records` and `--report`, each marked partial,
and keeps the prints made before the failure.  Expected values are worked out by hand from each
graph and its dispatch.

Skips, with the reason printed (`-ra`), where there is no Vulkan device; the browser test skips
where Debian's `chromium` is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from test_run_debug import _Dom

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.usefixtures("vulkan_device")


def wgc_cli(*args: str, cwd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wgc", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ---------------------------------------------------------------- the report: prints, checks, GPU time

PRINTS_AND_A_MISTAKE = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Write(ThreadNodeInputRecord<Item> item)
{
    printf("slot %u <%3d>", item.Get().slot, 7 * item.Get().slot);
    Out[item.Get().slot] = 100 + item.Get().slot;
}
"""


def test_report_shows_prints_checks_and_gpu_time_in_a_browser(tmp_path) -> None:
    """Three records write Out[slot] for slot 0, 1, 2 into a buffer of 2 elements: record 2's store
    (line 7, column 5) is past the end (element 2 of 2); each record prints "slot S <%3d of 7*S>"
    at line 6, column 5.  With --time the page has a GPU time per node and the timeline says it."""
    write(tmp_path, "graph.hlsl", PRINTS_AND_A_MISTAKE)
    write(tmp_path, "d.json", json.dumps({"inputs": [{"entry": "Write", "records": [{"slot": s} for s in range(3)]}],
                                          "resources": {"u0": {"bytes": 8}}}))
    done = wgc_cli("run", "graph.hlsl", "--dispatch", "d.json", "--check", "--time", "--report", "run.html",
                   cwd=str(tmp_path))
    assert done.returncode == 1, done.stderr        # the check found a mistake: the page is still written
    page = (tmp_path / "run.html").read_text()
    # the places link to the source lines of the page
    assert page.count('<a href="#src-L6">graph.hlsl:6:5</a>') == 3
    assert page.count('<a href="#src-L7">graph.hlsl:7:5</a>') == 2      # the check's row and its diagnostic
    assert '<span id="src-L6">   6      printf(' in page
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium here (Debian: apt-get install chromium): the page was not opened in a browser")
    shown = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                            (tmp_path / "run.html").as_uri()], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    dom = _Dom()
    dom.feed(shown.stdout)
    assert dom.body.get("data-ready") == "yes"
    header, *rows = dom.tables["section-prints"]
    assert header == ["node", "level", "repeat", "group", "thread", "record", "where", "text"]
    assert rows == [["Write", "0", "0", "", "", str(s), "graph.hlsl:6:5", f"slot {s} <{7 * s:3d}>"]
                    for s in range(3)]
    header, *rows = dom.tables["section-checks"]
    assert header == ["kind", "node", "level", "group", "thread", "record", "where", "value", "limit", "message"]
    assert rows == [["buffer-index", "Write", "0", "2", "0", "2", "graph.hlsl:7:5", "2", "2",
                     "accessed element 2 of 'Out' (u0), which holds 2 elements"]]
    header, *rows = dom.tables["section-gpu-time"]
    assert header == ["node", "GPU ms"] and [r[0] for r in rows] == ["Write", "all levels"]
    assert all(float(r[1]) > 0 for r in rows)
    assert "GPU " in "".join(dom.text).split("Levels", 1)[1].split("Records", 1)[0]   # the timeline's label


def test_a_page_without_prints_checks_or_times_has_no_such_tables(tmp_path) -> None:
    from wgc.runtime.report import run_sections
    from wgc.runtime.run import RunResult

    assert run_sections(RunResult()) == ()


# ---------------------------------------------------------------- a failed run writes what it has

OVER = """\
struct Entry { uint n; };
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Kick(ThreadNodeInputRecord<Entry> entry, [MaxRecords(1)] NodeOutput<Entry> Spawn)
{
    printf("kick %u", entry.Get().n);
    ThreadNodeOutputRecords<Entry> r = Spawn.GetThreadNodeOutputRecords(1);
    r.Get().n = entry.Get().n + 5;
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(4, 1, 1)]
void Spawn(DispatchNodeInputRecord<Entry> input, uint gid : SV_GroupID, uint tid : SV_GroupIndex,
           [MaxRecords(4)] NodeOutput<Item> Sink)
{
    if (tid == 0)
        printf("spawn group %u n %u", gid, input.Get().n);
    uint want = (gid == 2) ? 2 : 1;
    ThreadNodeOutputRecords<Item> r = Sink.GetThreadNodeOutputRecords(want);
    for (uint i = 0; i < want; i++)
        r.Get(i).v = gid;
    r.OutputComplete();
}
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("thread")]
void Sink(ThreadNodeInputRecord<Item> item) { InterlockedAdd(Out[item.Get().v], 1); }
"""
"""Kick (level 0) prints "kick 3" and sends n = 8 to Spawn; Spawn (level 1, 4 groups of 4 threads)
prints from thread 0 of each group, then asks for 4 + 4 + 8 + 4 = 20 records where its 4 groups ×
MaxRecords(4) allow 16: WG0805 at level 1."""

OVER_PRINTS = ["[Kick level 0 record 0] kick 3"] + [
    f"[Spawn level 1 group {g} thread 0 record 0] spawn group {g} n 8" for g in range(4)]

GRID = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Request { uint groups; };
struct Grid { uint groups : SV_DispatchGrid; };
[Shader("node")] [NodeLaunch("thread")]
void Ask(ThreadNodeInputRecord<Request> ask, [MaxRecords(1)] NodeOutput<Grid> Cells)
{
    printf("ask %u", ask.Get().groups);
    InterlockedAdd(Out[0], 1);
    ThreadNodeOutputRecords<Grid> o = Cells.GetThreadNodeOutputRecords(1);
    o.Get().groups = ask.Get().groups;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(1, 1, 1)]
void Cells(DispatchNodeInputRecord<Grid> g) { InterlockedAdd(Out[0], 1); }
"""
"""Ask (level 0) counts its 2 records in Out[0] and asks Cells for grids of 4 and 5 groups: 5 is
past NodeMaxDispatchGrid(4): WG0807 at level 1, before Cells runs (Out[0] = 2)."""

GRID_PRINTS = ["[Ask level 0 record 0] ask 4", "[Ask level 0 record 1] ask 5"]


@pytest.mark.parametrize("debugging", [False, True], ids=["plain", "debugging"])
@pytest.mark.parametrize("graph, records, code, prints, levels, out", [
    (OVER, [{"n": 3}], "WG0805", OVER_PRINTS, [("Kick", 1)], None),
    (GRID, [{"groups": 4}, {"groups": 5}], "WG0807", GRID_PRINTS, [("Ask", 2)], [2, 0, 0, 0]),
], ids=["max-records", "grid"])
def test_a_failed_run_writes_every_output_marked_partial(tmp_path, debugging, graph, records, code, prints,
                                                         levels, out) -> None:
    """A run that fails at level 1 writes -o, the trace, and (debugging: --dump-records, --report)
    with what it had made, each saying it is partial; the prints of level 0 (and those of the failed
    level that ran) are printed and kept in -o.  Old files are replaced, never left stale."""
    entry = "Kick" if graph is OVER else "Ask"
    write(tmp_path, "graph.hlsl", graph)
    write(tmp_path, "d.json", json.dumps({"inputs": [{"entry": entry, "records": records}],
                                          "resources": {"u0": {"bytes": 16}}}))
    for name in ("out.json", "records.json", "run.html"):
        (tmp_path / name).write_text("stale")
    more = ["--dump-records", "records.json", "--report", "run.html"] if debugging else []
    done = wgc_cli("run", "graph.hlsl", "--dispatch", "d.json", "-o", "out.json", "--trace", *more,
                   cwd=str(tmp_path))
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert lines[:len(prints)] == prints
    assert f"the run failed at level 1 ({code}): the trace stops here" in lines
    trace_levels = lines[lines.index("the run failed at level 1 (%s): the trace stops here" % code) - 2]
    assert trace_levels == "level 0: 1 dispatch"
    results = json.loads((tmp_path / "out.json").read_text())
    assert results["partial"]["code"] == code and results["partial"]["level"] == 1
    assert [p["text"] for p in results["prints"]] == [p.split("] ", 1)[1] for p in prints]
    if out is not None and (debugging or graph is not GRID):
        assert results["resources"]["u0"] == {"uint32": out}
    elif out is not None:     # GPU-driven: the level ran in the submission, the record within its grid too
        assert results["resources"]["u0"]["uint32"] in (out, [out[0] + 4, *out[1:]])
    if not debugging:
        assert (tmp_path / "records.json").read_text() == "stale"       # not asked for: untouched
        return
    dumped = json.loads((tmp_path / "records.json").read_text())
    assert dumped["partial"] == results["partial"]
    assert [(d["node"], len(d["records"])) for d in dumped["levels"][0]["dispatches"]] == levels
    page = (tmp_path / "run.html").read_text()
    assert f"the run failed at level 1 ({code})" in page and "this page shows what it had made" in page
    for text in prints:
        assert text.split("] ", 1)[1] in page
    assert [p for p in os.listdir(tmp_path) if p.startswith(".") or p.endswith(".tmp")] == []


BESIDE = OVER.replace("""[Shader("node")] [NodeLaunch("thread")]
void Kick(ThreadNodeInputRecord<Entry> entry, [MaxRecords(1)] NodeOutput<Entry> Spawn)
{""", """[Shader("node")] [NodeLaunch("thread")]
void Kick(ThreadNodeInputRecord<Entry> entry, [MaxRecords(1)] NodeOutput<Entry> Spawn,
          [MaxRecords(1)] NodeOutput<Entry> Other)
{
    ThreadNodeOutputRecords<Entry> o = Other.GetThreadNodeOutputRecords(1);
    o.Get().n = 40;
    o.OutputComplete();""") + """\
[Shader("node")] [NodeLaunch("thread")]
void Other(ThreadNodeInputRecord<Entry> entry) { printf("other %u", entry.Get().n); }
"""
"""OVER with a second node at level 1, Other, dispatched after Spawn (it is declared after it): its
print is made in the level that fails, as Spawn's are."""


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_the_failed_level_keeps_every_dispatch_s_prints(tmp_path, monkeypatch, gpu_driven: bool) -> None:
    """Both schedules keep the prints of the whole failed level, the dispatches after the failing
    one included (the GPU-driven one ran them in the same submit)."""
    import wgc

    if not gpu_driven:
        from wgc.runtime import gpu_schedule

        monkeypatch.setattr(gpu_schedule.GpuScheduler, "_plan", lambda self, entries: None)
    path = write(tmp_path, "graph.hlsl", BESIDE)
    result = wgc.run(path, {"inputs": [{"entry": "Kick", "records": [{"n": 3}]}], "resources": {"u0": {"bytes": 16}}})
    assert [d.code for d in result.diagnostics] == ["WG0805"]
    assert [p.line() for p in result.prints] == OVER_PRINTS + ["[Other level 1 record 0] other 40"]


# ---------------------------------------------------------------- the producing group of every record

GROUPS = """\
struct Entry { uint n; };
struct Item { uint group; uint k; };
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(4, 1, 1)]
void Spawn(DispatchNodeInputRecord<Entry> input, uint gid : SV_GroupID, uint tid : SV_GroupIndex,
           [MaxRecords(8)] NodeOutput<Item> Sink)
{
    uint want = (tid < gid) ? 2 : 0;
    ThreadNodeOutputRecords<Item> r = Sink.GetThreadNodeOutputRecords(want);
    for (uint i = 0; i < want; i++) { r.Get(i).group = gid; r.Get(i).k = tid * 2 + i; }
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Sink([MaxRecords(4)] GroupNodeInputRecords<Item> items, uint tid : SV_GroupIndex,
          [MaxRecords(4)] NodeOutput<Item> Last)
{
    ThreadNodeOutputRecords<Item> r = Last.GetThreadNodeOutputRecords(tid < items.Count() ? 1 : 0);
    if (tid < items.Count()) { r.Get().group = items[0].group; r.Get().k = items[0].k; }
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Last(ThreadNodeInputRecord<Item> item) { InterlockedAdd(Out[0], 1); }
"""
"""Spawn's group g (of 4) writes 2 records from each of its threads below g, each holding g: 2, 4
and 6 records from groups 1, 2, 3.  Sink (coalescing, batches of 4) writes one record per input
record, holding its batch's first input record."""


@pytest.mark.parametrize("schedule", ["default", "reverse", "1", "2", "smallest"])
def test_dump_records_knows_the_producing_group(tmp_path, schedule: str) -> None:
    """Every record of Sink (from the broadcasting Spawn) names the group that wrote it, which is
    the group the record holds, under every schedule (records shuffled included); under the
    default schedule each of Last's records (from the coalescing Sink) names the batch whose first
    input record it holds."""
    import wgc
    from wgc.runtime.records import RecordLog
    from wgc.runtime.schedules import DebugRun, Schedule

    path = write(tmp_path, "graph.hlsl", GROUPS)
    debug = DebugRun(RecordLog(), schedule=Schedule.parse(schedule))
    result = wgc.run(path, {"inputs": [{"entry": "Spawn", "records": [{"n": 0}]}], "resources": {"u0": {"bytes": 4}}},
                     debug=debug)
    assert result.ok and result.resources["u0"] == {"uint32": [12]}
    log = result.debug.records
    sinks = [d for level in log.levels for d in level.dispatches if d.node == "Sink"]
    seen = []
    for d in sinks:
        if d.groups is None:                # the smallest schedule ran each Spawn group alone
            groups = [d.source["group"]] * len(d.records)
        else:
            groups = [g for g, n in d.groups for _ in range(n)]
        assert groups == [r["group"] for r in d.records]
        seen.extend(groups)
    assert sorted(seen) == [1] * 2 + [2] * 4 + [3] * 6
    if schedule != "default":
        return
    sink, = sinks
    assert sink.groups == [[1, 2], [2, 4], [3, 6]]
    last, = [d for level in log.levels for d in level.dispatches if d.node == "Last"]
    assert last.groups == [[0, 4], [1, 4], [2, 4]]
    for k, record in enumerate(last.records):
        batch = sink.records[4 * (k // 4)]      # Sink's batch k // 4 starts at its record 4 * (k // 4)
        assert (record["group"], record["k"]) == (batch["group"], batch["k"])
    text = log.text()
    assert '"groups": [[1, 2], [2, 4], [3, 6]], "records": [' in text
    from wgc.runtime.report import render_report

    page = render_report(result, wgc.Options(input=path))        # the records table's "from" column
    assert [page.count(f"<td>Spawn (level 0, dispatch 0) → Sink, group {g}</td>") for g in (1, 2, 3)] == [2, 4, 6]
