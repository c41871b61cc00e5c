"""Broadcasting nodes whose grid is given by the record (SV_DispatchGrid) in one dispatch per level
(wgc/runtime/grid_setup.py, gpu_schedule.py, scheduler.py; the prologue's search of `grid_prefix`
in wgc/spirv/emulated.py and wgc/spirv_in/translate.py), on a real device (lavapipe here).

Every graph runs on both schedules (GPU-driven: one submit per run; host-driven: one per level);
expected buffers come from a few lines of Python over the records; the traces must show one
dispatch for all the records of a node at a level.  The graphs modelled on vkd3d-proton's own
cases (two-level broadcasts, a `uint16_t2` grid, cross-group sharing) are small graphs of the
same shape, written here.  Skips, with the reason printed, where there is no Vulkan device.
"""

from __future__ import annotations

import shutil
import struct
import subprocess

import pytest

from wgc.runtime import grid_setup
from runtime_util import load

SCHEDULES = pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])


def run(device, tmp_path, source: str, dispatch: dict, gpu_driven: bool, **options):
    """(the words of u0, the trace as (node, records in, groups) per level)."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, source, dispatch, **options)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        steps = session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
        out = session.dump(program.resources[0])["uint32"]
    return out, [[(d.node, d.records_in, d.groups) for d in s.dispatches] for s in steps]


# ---------------------------------------------------------------- the meta shader


def test_the_grid_shader_words_are_its_assembly():
    from wgc.spirv.tools import assemble, validate

    words = assemble(grid_setup.ASSEMBLY)
    assert struct.pack(f"<{len(words)}I", *words) == grid_setup.module()
    assert validate(grid_setup.module()) == []


def test_the_grid_shader_assembly_is_its_source_compiled():
    """`ASSEMBLY` is what glslc makes of `SOURCE` (the layouts' offsets filled in), where the same
    glslc is here."""
    from wgc.spirv.tools import assemble, disassemble

    if shutil.which("glslc") is None:
        pytest.skip("no glslc here")
    version = subprocess.run(["glslc", "--version"], capture_output=True, text=True).stdout
    if "shaderc 2023.2" not in version:
        pytest.skip(f"another glslc here ({version.splitlines()[0] if version else '?'}): its code may differ")
    made = subprocess.run([*grid_setup.GLSLC_COMMAND, "-", "-o", "-"], input=grid_setup.SOURCE.encode(),
                          capture_output=True, check=True).stdout
    assert assemble(disassemble(made)) == assemble(grid_setup.ASSEMBLY)


# ---------------------------------------------------------------- shapes of grids from entry records

SHAPES = """\
RWStructuredBuffer<uint> Out : register(u0);
struct G1 { uint grid : SV_DispatchGrid; uint slot; };
struct G2 { uint slot; uint2 grid : SV_DispatchGrid; };
struct G3 { uint3 grid : SV_DispatchGrid; uint slot; };
struct H2 { uint16_t slot; uint16_t2 grid : SV_DispatchGrid; };
void mark(uint slot, uint3 gid, uint gi)
{
    if (gi == 0) {
        InterlockedAdd(Out[slot], 1);
        InterlockedAdd(Out[slot + 1], 1 + gid.x + 16 * gid.y + 256 * gid.z);
    }
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(7, 1, 1)] [NumThreads(2, 1, 1)]
void One(DispatchNodeInputRecord<G1> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) { mark(r.Get().slot, gid, gi); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(5, 4, 1)] [NumThreads(2, 1, 1)]
void Two(DispatchNodeInputRecord<G2> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) { mark(r.Get().slot, gid, gi); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(3, 3, 3)] [NumThreads(2, 1, 1)]
void Three(DispatchNodeInputRecord<G3> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) { mark(r.Get().slot, gid, gi); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(6, 5, 1)] [NumThreads(2, 1, 1)]
void Half(DispatchNodeInputRecord<H2> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) { mark(r.Get().slot, gid, gi); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(9, 1, 1)] [NumThreads(2, 1, 1)]
void Row(DispatchNodeInputRecord<G3> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) { mark(r.Get().slot, gid, gi); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(3, 1, 4)] [NumThreads(2, 1, 1)]
void Gap(DispatchNodeInputRecord<G3> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) { mark(r.Get().slot, gid, gi); }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(1, 4, 2)] [NumThreads(2, 1, 1)]
void Col(DispatchNodeInputRecord<G3> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) { mark(r.Get().slot, gid, gi); }
"""

SHAPE_RECORDS = {
    "One": [(3,), (0,), (7,), (1,)],                           # uint: a zero grid between others
    "Two": [(0, 4), (5, 4), (2, 3)],                           # uint2: uneven, a zero component first
    "Three": [(3, 3, 3), (1, 2, 3), (2, 0, 1), (1, 1, 1)],     # uint3
    "Half": [(6, 5), (0, 0), (1, 1), (4, 2)],                  # uint16_t2 (components at bytes 2 and 4)
    "Row": [(9, 1, 1), (2, 1, 1), (5, 0, 1), (1, 1, 1)],      # uint3 whose max y and z are 1: 1-D
    "Gap": [(3, 1, 4), (2, 1, 0), (1, 1, 3)],                  # max y 1, z not
    "Col": [(1, 4, 2), (1, 3, 1), (0, 2, 2)],                  # max x 1
}


def _marks(records: dict[str, list[tuple[int, ...]]]) -> tuple[list[int], dict[str, tuple[int, int]]]:
    """Out after each record's groups mark their slots (2 words a record, in node order), and the
    records and groups of each node's one dispatch."""
    out: list[int] = []
    dispatches = {}
    for node, grids in records.items():
        total = 0
        for grid in grids:
            gx, gy, gz = (list(grid) + [1, 1])[:3]
            out += [gx * gy * gz, sum(1 + x + 16 * y + 256 * z for x in range(gx) for y in range(gy) for z in range(gz))]
            total += gx * gy * gz
        dispatches[node] = (len(grids), total)
    return out, dispatches


def _shape_dispatch() -> dict:
    inputs, slot = [], 0
    for node, grids in SHAPE_RECORDS.items():
        records = []
        for grid in grids:
            records.append({"grid": list(grid) if len(grid) > 1 else grid[0], "slot": slot})
            slot += 2
        inputs.append({"entry": node, "records": records})
    return {"inputs": inputs, "resources": {"u0": {"bytes": 4 * slot}}}


def _grid_setup_by(host: bool, monkeypatch) -> None:
    """Entry records' grids summed by the host (the first level has no setup pass: the `grid_setup`
    pipeline must not be made) or by the `grid_setup` shader (HOST_GRID_RECORDS below any count)."""
    from wgc.runtime import gpu_schedule

    if host:
        def refused(self):
            raise AssertionError("a setup pass for grids the host summed")
        monkeypatch.setattr(gpu_schedule.GpuScheduler, "_grid_pipeline", refused)
    else:
        monkeypatch.setattr(gpu_schedule, "HOST_GRID_RECORDS", -1)


HOST_OR_GPU = pytest.mark.parametrize("host_grids", [True, False], ids=["host-summed", "grid-setup"])


def _search_only(monkeypatch) -> None:
    """No group table: every group searches the prefix sums (what a GPU does)."""
    from wgc.runtime import gpu_schedule, scheduler

    monkeypatch.setattr(scheduler, "GRID_TABLE_LIMIT", 0)
    monkeypatch.setattr(gpu_schedule, "GRID_TABLE_LIMIT", 0)


TABLE_OR_SEARCH = pytest.mark.parametrize("table", [True, False], ids=["group-table", "search"])


@SCHEDULES
@HOST_OR_GPU
@pytest.mark.parametrize("table", [True, False], ids=["group-table", "search"])
def test_grids_of_every_shape_from_entry_records(device, tmp_path, gpu_driven, host_grids, table, monkeypatch):
    """"The node's dispatch grid size comes from the input record" (SV_DispatchGrid, uint, uint2,
    uint3, uint16_t2): each record's groups see SV_GroupID over exactly its grid; a record whose
    grid has a zero component gets no group; each node's records are one dispatch of their total.
    With each group's record in a table (`grid_records`), and without (the groups search the
    prefix sums: GRID_TABLE_LIMIT 0); the grids summed by the host or by the setup shader."""
    from wgc.runtime import gpu_schedule, scheduler

    _grid_setup_by(host_grids, monkeypatch)
    if not table:
        monkeypatch.setattr(scheduler, "GRID_TABLE_LIMIT", 0)
        monkeypatch.setattr(gpu_schedule, "GRID_TABLE_LIMIT", 0)
    out, trace = run(device, tmp_path, SHAPES, _shape_dispatch(), gpu_driven, enable_16bit_types=True)
    expected, dispatches = _marks(SHAPE_RECORDS)
    assert out == expected
    assert len(trace) == 1
    assert sorted(trace[0]) == sorted((node, *counts) for node, counts in dispatches.items())


@SCHEDULES
def test_a_large_total_is_split_over_y_and_z(device, tmp_path, gpu_driven, monkeypatch):
    """A dispatch may have at most maxComputeWorkGroupCount groups per dimension: with a device that
    allows (8, 2, 64), 3 records of 10 x 5 groups (150) are dispatched as 8 x 2 x 10 (GPU-driven; the
    host-driven scheduler splits into dispatches of 8 x 2 with increasing group_offset), and every
    group still finds its record and SV_GroupID."""
    monkeypatch.setattr(device, "max_group_count", (8, 2, 64))
    records = {"Two": [(5, 4), (4, 5), (5, 2), (0, 3), (1, 1)]}
    slot, rows = 0, []
    for grid in records["Two"]:
        rows.append({"grid": list(grid), "slot": slot})
        slot += 2
    source = SHAPES.replace("NodeMaxDispatchGrid(5, 4, 1)", "NodeMaxDispatchGrid(5, 5, 1)")
    out, trace = run(device, tmp_path, source, {"inputs": [{"entry": "Two", "records": rows}],
                                                "resources": {"u0": {"bytes": 4 * slot}}}, gpu_driven,
                     enable_16bit_types=True)
    expected, dispatches = _marks(records)
    assert out == expected
    assert trace == [[("Two", *dispatches["Two"])]]


# ---------------------------------------------------------------- grids from produced records

PRODUCED = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint n; };
struct Paint { uint16_t2 grid : SV_DispatchGrid; uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Make(ThreadNodeInputRecord<Job> job, [MaxRecords(2)] NodeOutput<Paint> Fill)
{
    uint n = job.Get().n;
    ThreadNodeOutputRecords<Paint> p = Fill.GetThreadNodeOutputRecords(2);
    p[0].grid = uint16_t2(n % 5, n / 5);                    // 0 groups where n % 5 == 0 or n < 5
    p[0].slot = 2 * n;
    p[1].grid = uint16_t2(1, 1);
    p[1].slot = 2 * n + 1;
    p.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 6, 1)] [NumThreads(3, 1, 1)]
void Fill(DispatchNodeInputRecord<Paint> r, uint3 gid : SV_GroupID, uint3 dtid : SV_DispatchThreadID)
{
    InterlockedAdd(Out[r.Get().slot], 1 + dtid.x + 100 * gid.y);
}
"""


@SCHEDULES
@pytest.mark.parametrize("table", [True, False], ids=["group-table", "search"])
def test_uint16_grids_from_produced_records(device, tmp_path, gpu_driven, table, monkeypatch):
    """Records written on the GPU with a 16-bit grid, some of zero groups: Fill is one dispatch of
    all their groups at level 1 (one submit for the GPU-driven run); with and without the table of
    each group's record."""
    from wgc.runtime import gpu_schedule, scheduler

    if not table:
        monkeypatch.setattr(scheduler, "GRID_TABLE_LIMIT", 0)
        monkeypatch.setattr(gpu_schedule, "GRID_TABLE_LIMIT", 0)
    ns = [7, 0, 13, 5, 29, 4, 21]
    out, trace = run(device, tmp_path, PRODUCED, {"inputs": [{"entry": "Make", "records": [{"n": n} for n in ns]}],
                                                  "resources": {"u0": {"bytes": 4 * 60}}}, gpu_driven,
                     enable_16bit_types=True)
    expected = [0] * 60
    groups = 0
    for n in ns:
        gx, gy = n % 5, n // 5
        expected[2 * n] = sum(1 + t + 100 * y for y in range(gy) for t in range(3 * gx))
        expected[2 * n + 1] = sum(1 + t for t in range(3))
        groups += gx * gy + 1
    assert out == expected
    assert trace == [[("Make", len(ns), 1)], [("Fill", 2 * len(ns), groups)]]


# ---------------------------------------------------------------- a node array mixing grids

MIXED_ARRAY = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Work { uint3 grid : SV_DispatchGrid; uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Start([MaxRecords(3)] [NodeArraySize(2)] [NodeID("Work")] NodeOutputArray<Work> work)
{
    for (uint i = 0; i < 2; i++) {
        ThreadNodeOutputRecords<Work> w = work[i].GetThreadNodeOutputRecords(3);
        for (uint k = 0; k < 3; k++) { w[k].grid = uint3(k, 2, 1); w[k].slot = 4 * i + k; }
        w.OutputComplete();
    }
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 2, 1)] [NumThreads(1, 1, 1)]
[NodeID("Work", 0)]
void FromRecord(DispatchNodeInputRecord<Work> r, uint3 gid : SV_GroupID)
{
    InterlockedAdd(Out[r.Get().slot], 1 + gid.x + 10 * gid.y);
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(1, 1, 1)]
[NodeID("Work", 1)]
void Fixed(DispatchNodeInputRecord<Work> r, uint3 gid : SV_GroupID)
{
    InterlockedAdd(Out[r.Get().slot], 1 + gid.x + 10 * gid.y);
}
"""


@SCHEDULES
def test_a_node_array_of_fixed_and_record_given_grids(device, tmp_path, gpu_driven):
    """Work[0] takes its grid from the record (k x 2: 0, 2 and 4 groups), Work[1] declares
    [NodeDispatchGrid(3, 1, 1)], which wins over the record's ("a node with a fixed grid ignores
    SV_DispatchGrid"); each is one dispatch."""
    out, trace = run(device, tmp_path, MIXED_ARRAY, {"inputs": [{"entry": "Start", "records": [{}]}],
                                                     "resources": {"u0": {"bytes": 32}}}, gpu_driven)
    expected = [0] * 8
    for k in range(3):
        expected[k] = sum(1 + x + 10 * y for x in range(k) for y in range(2))
        expected[4 + k] = sum(1 + x for x in range(3))
    assert out == expected
    assert trace[1] == [("Work", 3, 0 + 2 + 4), ("Work[1]", 3, 9)]


# ---------------------------------------------------------------- vkd3d-proton's shapes

TWO_LEVEL = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Entry { uint grid : SV_DispatchGrid; uint which; uint size; uint base; };
struct Part { uint grid : SV_DispatchGrid; uint base; };
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(4, 1, 1)] [NodeMaxDispatchGrid(16, 1, 1)]
void Root(DispatchNodeInputRecord<Entry> e, uint thread : SV_DispatchThreadID, uint gi : SV_GroupIndex,
          [MaxRecords(4)] [NodeArraySize(2)] [NodeID("Leaf")] NodeOutputArray<Part> leaves)
{
    GroupNodeOutputRecords<Part> parts = leaves[e.Get().which].GetGroupNodeOutputRecords(4);
    parts.Get(gi).grid = (e.Get().size + thread) % 3;           // 0, 1 or 2 groups
    parts.Get(gi).base = e.Get().base + 4 * thread;
    parts.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(4, 1, 1)] [NodeMaxDispatchGrid(2, 1, 1)]
[NodeID("Leaf", 0)]
void Leaf0(DispatchNodeInputRecord<Part> p, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    InterlockedAdd(Out[p.Get().base + gi], 1 + gid.x);
}
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(4, 1, 1)] [NodeMaxDispatchGrid(2, 1, 1)]
[NodeID("Leaf", 1)]
void Leaf1(DispatchNodeInputRecord<Part> p, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    InterlockedAdd(Out[p.Get().base + gi], 10 * (1 + gid.x));
}
"""


@SCHEDULES
@TABLE_OR_SEARCH
def test_a_two_level_broadcast(device, tmp_path, gpu_driven, table, monkeypatch):
    """vkd3d-proton's two-level broadcast shape: a broadcasting entry whose grid comes from its
    records writes, per thread, a record of 0-2 groups to one member of a node array of broadcasting
    nodes whose grids come from their records.  The GPU-driven plan covers it (one launch per
    producing slot, not one per record the arena may hold), and each leaf is one dispatch.  With
    and without the table of each group's record (the groups search the prefix sums)."""
    if not table:
        _search_only(monkeypatch)
    entries = [(3, 0, 5, 0), (2, 1, 1, 64), (0, 0, 2, 200), (1, 1, 0, 128)]     # (grid, which, size, base)
    out, trace = run(device, tmp_path, TWO_LEVEL, {
        "inputs": [{"entry": "Root", "records": [{"grid": g, "which": w, "size": s, "base": b}
                                                 for g, w, s, b in entries]}],
        "resources": {"u0": {"bytes": 4 * 256}}}, gpu_driven)
    expected = [0] * 256
    leaves = {0: [0, 0], 1: [0, 0]}
    for grid, which, size, base in entries:
        for thread in range(4 * grid):
            groups = (size + thread) % 3
            leaves[which][0] += 1
            leaves[which][1] += groups
            for g in range(groups):
                for gi in range(4):
                    expected[base + 4 * thread + gi] += (1 + g) * (10 if which else 1)
    assert out == expected
    assert trace[0] == [("Root", 4, 6)]
    assert trace[1] == [("Leaf", *leaves[0]), ("Leaf[1]", *leaves[1])]


SHARING = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Ask { uint groups; uint slot; };
struct [NodeTrackRWInputSharing] Shared { uint grid : SV_DispatchGrid; uint total; uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Ask> a, [MaxRecords(1)] NodeOutput<Shared> Gather)
{
    ThreadNodeOutputRecords<Shared> o = Gather.GetThreadNodeOutputRecords(1);
    o.Get().grid = a.Get().groups;
    o.Get().total = 0;
    o.Get().slot = a.Get().slot;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(8, 1, 1)] [NodeMaxDispatchGrid(64, 1, 1)]
void Gather(globallycoherent RWDispatchNodeInputRecord<Shared> r, uint gi : SV_GroupIndex)
{
    InterlockedAdd(r.Get().total, 1);
    Barrier(r, GROUP_SYNC | GROUP_SCOPE | DEVICE_SCOPE);
    if (r.FinishedCrossGroupSharing() && gi == 0)
        Out[r.Get().slot] = r.Get().total;
}
"""


@SCHEDULES
@TABLE_OR_SEARCH
def test_cross_group_sharing_with_a_grid_from_the_record(device, tmp_path, gpu_driven, table, monkeypatch):
    """"FinishedCrossGroupSharing() returns true in exactly one thread group of the dispatch grid for
    a given input record, the last one to call it": with grids from produced records (1 to 40
    groups of 8 threads, one of 0 groups) every record's last group sees all its groups' additions,
    8 per group, so the counters started at each record's own grid; with and without the table."""
    if not table:
        _search_only(monkeypatch)
    grids = [40, 1, 0, 17, 3]
    out, trace = run(device, tmp_path, SHARING, {
        "inputs": [{"entry": "Start", "records": [{"groups": g, "slot": i} for i, g in enumerate(grids)]}],
        "resources": {"u0": {"bytes": 4 * len(grids)}}}, gpu_driven)
    assert out == [8 * g for g in grids]
    assert trace[1] == [("Gather", len(grids), sum(grids))]


@pytest.mark.usefixtures("vulkan_device")
@pytest.mark.parametrize("graph", ["shapes", "two-level", "placed", "entry-sharing"])
def test_the_amdx_path_agrees(tmp_path, graph):
    """The translated AMDX module's prologue searches the same prefix sums: `wgc.run` on the AMDX
    path (one module, and one per node) gives the emulated path's buffers; the JSON trace shows one
    dispatch per node and level."""
    import wgc
    from amdx_paths import assert_amdx_agrees

    from wgc.diagnostics import Renderer

    path = tmp_path / "graph.hlsl"
    if graph == "shapes":
        path.write_text(SHAPES)
        source, dispatch = wgc.Options(input=str(path), enable_16bit_types=True), _shape_dispatch()
    elif graph == "two-level":
        path.write_text(TWO_LEVEL)
        dispatch = {"inputs": [{"entry": "Root", "records": [{"grid": 2, "which": 1, "size": 1, "base": 0}]}],
                    "resources": {"u0": {"bytes": 4 * 64}}}
        source = wgc.Options(input=str(path))
    elif graph == "placed":         # records placed by group across records' grids (ABI 6)
        path.write_text(PLACED)
        dispatch = {"inputs": [{"entry": "Spread", "records": [{"grid": g, "base": b} for g, b in PLACED_RECORDS]}],
                    "resources": {"u0": {"bytes": 4 * 96}}}
        source = wgc.Options(input=str(path))
    else:                           # entry grids summed on the host, sharing counters, two runs
        path.write_text(ENTRY_SHARING)
        dispatch = {"inputs": [{"entry": "Gather", "records": [{"groups": g, "slot": i}
                                                                for i, g in enumerate(ENTRY_GRIDS)]}],
                    "resources": {"u0": {"bytes": 8 * len(ENTRY_GRIDS)}}, "repeat": 2}
        source = wgc.Options(input=str(path))
    result = wgc.run(source, dispatch)
    assert result.ok, Renderer().render(list(result.diagnostics))
    if graph == "placed":
        assert result.resources["u0"]["uint32"] == placed_expected()
    if graph == "entry-sharing":
        assert result.resources["u0"]["uint32"] == [v for g in ENTRY_GRIDS for v in (2 * 8 * g, 2 if g else 0)]
    assert result.schedule == "gpu-driven"
    assert_amdx_agrees(source, dispatch, result)
    levels = [[d.to_json()["node"] for d in step.dispatches] for step in result.trace]
    assert all(len(nodes) == len(set(nodes)) for nodes in levels)


@SCHEDULES
@HOST_OR_GPU
@pytest.mark.parametrize("table", [True, False], ids=["group-table", "search"])
def test_more_records_than_the_scan_has_invocations(device, tmp_path, gpu_driven, host_grids, table, monkeypatch):
    """1,000 records of 0 to 7 groups (more than `grid_setup.GROUP_SIZE`: each of its invocations
    sums a run of several records, the last run shorter): every record's groups find it."""
    from wgc.runtime import gpu_schedule, scheduler

    _grid_setup_by(host_grids, monkeypatch)
    if not table:
        monkeypatch.setattr(scheduler, "GRID_TABLE_LIMIT", 0)
        monkeypatch.setattr(gpu_schedule, "GRID_TABLE_LIMIT", 0)
    grids = [((r * 5) % 8,) for r in range(1000)]
    assert len(grids) > 3 * grid_setup.GROUP_SIZE
    dispatch = {"inputs": [{"entry": "One", "records": [{"grid": g[0], "slot": 2 * r} for r, g in enumerate(grids)]}],
                "resources": {"u0": {"bytes": 8 * len(grids)}}}
    out, trace = run(device, tmp_path, SHAPES, dispatch, gpu_driven, enable_16bit_types=True)
    expected, dispatches = _marks({"One": grids})
    assert out == expected
    assert trace == [[("One", *dispatches["One"])]]


@pytest.mark.usefixtures("vulkan_device")
def test_the_smallest_debugging_schedule_runs_each_group_alone(tmp_path):
    """`wgc run --schedule smallest` runs a one-record launch's groups one dispatch each (its
    `first_group`): with a grid from the record each still finds its record and SV_GroupID, the
    table of each group's record holding the whole grid."""
    import wgc
    from wgc.diagnostics import Renderer
    from wgc.runtime.records import RecordLog
    from wgc.runtime.schedules import DebugRun, Schedule

    path = tmp_path / "graph.hlsl"
    path.write_text(SHAPES)
    records = {"Two": [(3, 2)]}
    dispatch = {"inputs": [{"entry": "Two", "records": [{"grid": [3, 2], "slot": 0}]}], "resources": {"u0": {"bytes": 8}}}
    result = wgc.run(wgc.Options(input=str(path), enable_16bit_types=True), dispatch,
                     debug=DebugRun(RecordLog(), schedule=Schedule("smallest")))
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources == {"u0": {"uint32": _marks(records)[0]}}
    assert [[(d.records_in, d.groups) for d in step.dispatches] for step in result.trace] == [[(1, 1)] * 6]


@SCHEDULES
def test_the_first_grid_beyond_the_max_is_named(device, tmp_path, gpu_driven):
    """"It is invalid for [SV_DispatchGrid] to exceed [NodeMaxDispatchGrid]": of two produced
    records beyond Fill's [NodeMaxDispatchGrid(4, 6, 1)] (n = 40 asks for 0 x 8, n = 45 for 0 x 9;
    four producing threads of one subgroup write their records in invocation order), the run names
    the first, on the GPU too (the grid scan keeps the lowest record index)."""
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import GridBeyondMax

    dispatch = {"inputs": [{"entry": "Make", "records": [{"n": n} for n in (7, 40, 3, 45)]}],
                "resources": {"u0": {"bytes": 4 * 100}}}
    module, program, described = load(tmp_path, PRODUCED, dispatch, enable_16bit_types=True)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        with pytest.raises(GridBeyondMax) as raised:
            session.run_once()
        assert session.scheduler.last_run_gpu_driven is gpu_driven
    assert "0x8x1" in str(raised.value)


ENTRY_SHARING = """\
RWStructuredBuffer<uint> Out : register(u0);
struct [NodeTrackRWInputSharing] Rec { uint groups : SV_DispatchGrid; uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(64, 1, 1)] [NumThreads(8, 1, 1)]
void Gather(globallycoherent RWDispatchNodeInputRecord<Rec> r, uint gi : SV_GroupIndex)
{
    InterlockedAdd(Out[2 * r.Get().slot], 1);
    Barrier(NODE_INPUT_MEMORY, DEVICE_SCOPE | GROUP_SYNC);
    if (r.FinishedCrossGroupSharing() && gi == 0)
        InterlockedAdd(Out[2 * r.Get().slot + 1], 1);
}
"""


ENTRY_GRIDS = [5, 0, 64, 1]


@SCHEDULES
@HOST_OR_GPU
def test_entry_grids_and_sharing_counters_are_set_again_every_run(device, tmp_path, gpu_driven, host_grids,
                                                                    monkeypatch):
    """Entry records' grids (summed by the host or by the setup shader) and the cross-group sharing
    counters they start: two runs of one session, each record's 8 threads per group add 1 and
    exactly one group of each record with groups ("the last one to call it") adds 1, per run."""
    from wgc.runtime.run import Session

    _grid_setup_by(host_grids, monkeypatch)
    grids = ENTRY_GRIDS
    module, program, described = load(tmp_path, ENTRY_SHARING, {
        "inputs": [{"entry": "Gather", "records": [{"groups": g, "slot": i} for i, g in enumerate(grids)]}],
        "resources": {"u0": {"bytes": 8 * len(grids)}}})
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        for _ in range(2):
            steps = session.run_once()
        out = session.dump(program.resources[0])["uint32"]
    assert out == [v for g in grids for v in (2 * 8 * g, 2 if g else 0)]
    assert [(d.node, d.records_in, d.groups) for d in steps[0].dispatches] == [("Gather", 4, sum(grids))]


PLACED = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Rec { uint grid : SV_DispatchGrid; uint base; };
struct Item { uint at; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(16, 1, 1)] [NumThreads(4, 1, 1)]
void Spread(DispatchNodeInputRecord<Rec> r, uint3 g : SV_GroupID, uint t : SV_GroupIndex,
            [MaxRecords(4)] NodeOutput<Item> Mark)
{
    GroupNodeOutputRecords<Item> o = Mark.GetGroupNodeOutputRecords(4);
    o[t].at = r.Get().base + g.x * 4 + t;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Mark(ThreadNodeInputRecord<Item> i) { InterlockedAdd(Out[i.Get().at], 1); }
"""


PLACED_RECORDS = [(3, 0), (0, 100), (16, 12), (5, 76)]
"""(grid, base) of PLACED's entry records."""


def placed_expected() -> list[int]:
    """Each record's groups g and threads t mark slot base + 4 g + t once."""
    expected = [0] * 96
    for grid, base in PLACED_RECORDS:
        for k in range(4 * grid):
            expected[base + k] += 1
    return expected


@SCHEDULES
def test_records_placed_by_group_in_a_grid_given_by_the_record(device, tmp_path, gpu_driven):
    """A call every invocation makes once places its records by group index (emulation ABI 6),
    here across the groups of several records' grids in one dispatch: each of a record's groups
    sends 4 records marking base + 4 g + t, every slot once; a record of 0 groups sends none."""
    out, trace = run(device, tmp_path, PLACED, {
        "inputs": [{"entry": "Spread", "records": [{"grid": g, "base": b} for g, b in PLACED_RECORDS]}],
        "resources": {"u0": {"bytes": 4 * 96}}}, gpu_driven)
    assert out == placed_expected()
    assert trace == [[("Spread", 4, 24)], [("Mark", 96, 3)]]     # 96 thread records: 3 groups of 32


def test_a_gpu_searches_where_a_cpu_reads_a_table(device, tmp_path, monkeypatch):
    """`gpu_schedule.GRID_TABLE_KINDS`: on a device that is not a CPU implementation the grid scan
    writes no group table for produced records (the groups search the prefix sums), and the results
    are those of the cross-group sharing graph with the table: 8 per group of each record."""
    from dataclasses import replace

    from wgc.runtime.run import Session

    grids = [40, 1, 0, 17, 3]
    module, program, described = load(tmp_path, SHARING, {
        "inputs": [{"entry": "Start", "records": [{"groups": g, "slot": i} for i, g in enumerate(grids)]}],
        "resources": {"u0": {"bytes": 4 * len(grids)}}})
    for kind, table in (("cpu", True), ("discrete", False)):
        monkeypatch.setattr(device, "info", replace(device.info, kind=kind))
        with Session(device, module, program, described) as session:
            session.run_once()
            assert session.scheduler.last_run_gpu_driven
            plan, = session.scheduler._plans.values()
            gathered = [launch for launch in plan.levels[1] if launch.record_grid]
            assert gathered and all((launch.table_arena is not None) is table for launch in gathered)
            assert session.dump(program.resources[0])["uint32"] == [8 * g for g in grids]


# ---------------------------------------------------------------- the search of the prefix sums

WIDE = """\
RWStructuredBuffer<uint> Out : register(u0);
struct W { uint grid : SV_DispatchGrid; uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4096, 1, 1)] [NumThreads(1, 1, 1)]
void Wide(DispatchNodeInputRecord<W> r, uint3 gid : SV_GroupID)
{
    InterlockedAdd(Out[r.Get().slot], 1);
    InterlockedAdd(Out[r.Get().slot + 1], 1 + gid.x);
}
"""

SEARCHED_GRIDS = {
    "one record": [5],
    "two, the first empty": [0, 4],
    "two, the last empty": [4, 0],
    "1000 equal": [3] * 1000,
    "1000, the last large": [1] * 999 + [3000],
    "1000, the first large": [3000] + [1] * 999,
    "1000, one not empty": [0] * 500 + [2] + [0] * 499,
    "1000 uneven": [(r * 7) % 11 for r in range(1000)],
    "2^16+1": [0] + [r % 3 for r in range(1, 1 << 16)] + [300],
    "three, all empty": [0, 0, 0],
}
"""Entry records' grids (x only) for the search: equal grids (the first guess is the record),
records of 0 groups first, last, around the one record with groups and alone (no group runs),
grids far apart (the guess
misses, on both sides), counts of 1, 2, 1000 and 2^16 + 1 (beyond HOST_GRID_RECORDS: the
`grid_setup` shader sums them)."""


def _wide_dispatch(grids: list[int]) -> dict:
    words = [w for r, g in enumerate(grids) for w in (g, 2 * r)]
    return {"inputs": [{"entry": "Wide", "records": {"hex": struct.pack(f"<{len(words)}I", *words).hex(),
                                                     "stride": 8, "count": len(grids)}}],
            "resources": {"u0": {"bytes": 8 * len(grids)}}}


def _wide_expected(grids: list[int]) -> list[int]:
    """Record r's g groups add 1 each to Out[2 r] and 1 + x (x < g) to Out[2 r + 1]."""
    return [w for g in grids for w in (g, g * (g + 1) // 2)]


@SCHEDULES
@TABLE_OR_SEARCH
@pytest.mark.parametrize("case", list(SEARCHED_GRIDS))
def test_every_group_finds_its_record(device, tmp_path, gpu_driven, table, case, monkeypatch):
    """"The node's dispatch grid size comes from the input record": a group's record is the first
    r with grid_prefix[r] > flat (emulation ABI), found from the guess flat / (total / count) and
    its check, or the search where the guess misses; each record's groups see SV_GroupID.x over
    exactly its grid, a record of 0 groups gets none."""
    if not table:
        _search_only(monkeypatch)
    grids = SEARCHED_GRIDS[case]
    out, trace = run(device, tmp_path, WIDE, _wide_dispatch(grids), gpu_driven)
    assert out == _wide_expected(grids)
    if sum(grids):
        assert trace == [[("Wide", len(grids), sum(grids))]]
    else:                               # no group: no dispatch
        assert [d for level in trace for d in level] == []


@pytest.mark.usefixtures("vulkan_device")
@TABLE_OR_SEARCH
@pytest.mark.parametrize("case", ["two, the first empty", "1000, the last large", "1000, the first large",
                                  "1000, one not empty", "1000 uneven", "three, all empty"])
def test_the_amdx_path_finds_the_same_records(tmp_path, case, table, monkeypatch):
    """The translated AMDX module's prologue finds the record with the same code (`emulated_grid`):
    with a group table and without, its buffers are the hand-computed ones."""
    import wgc
    from wgc.diagnostics import Renderer

    if not table:
        _search_only(monkeypatch)
    path = tmp_path / "graph.hlsl"
    path.write_text(WIDE)
    grids = SEARCHED_GRIDS[case]
    result = wgc.run(wgc.Options(input=str(path)), _wide_dispatch(grids), path="amdx")
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources["u0"]["uint32"] == _wide_expected(grids)
