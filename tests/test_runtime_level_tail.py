"""The level tail (emulation ABI 7, "Level tail"; wgc/spirv/emulated_tail.py, gpu_schedule._fused):
a level of a GPU-driven run set up by the last group of the level before it, without a meta pass.

Expected buffers are computed by hand (a few lines of Python modelling each graph); both schedules
and the AMDX path (`amdx_paths.assert_amdx_agrees`) must give them.  Skips, with the reason printed,
where there is no Vulkan device.
"""

from __future__ import annotations

import pytest

from amdx_paths import assert_amdx_agrees
from runtime_util import assert_schedule, load

pytestmark = pytest.mark.usefixtures("gpu_fusion")     # lavapipe fuses levels as a GPU does


# Level 0: Root (thread) sends each seed v to Work[v % 2] and, where v % 3 == 0, a Job to Share.
# Level 1: three launches, each set up by Root's tails: Even (coalescing by 4, Work[0]), Odd
# (coalescing by 2, Work[1]: two records per input) and Share (broadcasting, a fixed grid of 3,
# cross-group sharing).
# Level 2: Leaf (thread), two launches (one per producing slot), set up by the tails of level 1.
MIXED = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Seed { uint v; };
struct Item { uint v; };
struct [NodeTrackRWInputSharing] Job { uint v; };

[Shader("node")] [NodeLaunch("thread")]
void Root(ThreadNodeInputRecord<Seed> s,
          [MaxRecords(1)] [NodeID("Work")] [NodeArraySize(2)] NodeOutputArray<Item> work,
          [MaxRecords(1)] NodeOutput<Job> Share)
{
    uint v = s.Get().v;
    ThreadNodeOutputRecords<Item> w = work[v % 2].GetThreadNodeOutputRecords(1);
    w.Get().v = v;
    w.OutputComplete();
    uint n = v % 3 == 0 ? 1 : 0;
    ThreadNodeOutputRecords<Job> j = Share.GetThreadNodeOutputRecords(n);
    if (n > 0) j.Get().v = v;
    j.OutputComplete();
}

[Shader("node")] [NodeLaunch("coalescing")] [NodeID("Work", 0)] [NumThreads(4, 1, 1)]
void Even([MaxRecords(4)] GroupNodeInputRecords<Item> items, uint gi : SV_GroupIndex,
          [MaxRecords(4)] NodeOutput<Item> Leaf)
{
    uint n = gi < items.Count() ? 1 : 0;
    ThreadNodeOutputRecords<Item> o = Leaf.GetThreadNodeOutputRecords(n);
    if (n > 0) o.Get().v = items[gi].v;
    o.OutputComplete();
}

[Shader("node")] [NodeLaunch("coalescing")] [NodeID("Work", 1)] [NumThreads(2, 1, 1)]
void Odd([MaxRecords(2)] GroupNodeInputRecords<Item> items, uint gi : SV_GroupIndex,
         [MaxRecords(4)] NodeOutput<Item> Leaf)
{
    uint n = gi < items.Count() ? 2 : 0;
    ThreadNodeOutputRecords<Item> o = Leaf.GetThreadNodeOutputRecords(n);
    for (uint k = 0; k < n; k++) o[k].v = items[gi].v * 10 + k;
    o.OutputComplete();
}

[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 1, 1)] [NumThreads(1, 1, 1)]
void Share(globallycoherent RWDispatchNodeInputRecord<Job> job)
{
    if (job.FinishedCrossGroupSharing()) InterlockedAdd(Out[0], 1000 + job.Get().v);
}

[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> item)
{
    InterlockedAdd(Out[1 + item.Get().v], 1);
}
"""
SEEDS = list(range(10))
MIXED_DISPATCH = ('{"inputs": [{"entry": "Root", "records": [%s]}], "resources": {"u0": {"bytes": 400}}}'
                  % ", ".join('{"v": %d}' % v for v in SEEDS))


def mixed_expected(runs: int) -> list[int]:
    out = [0] * 100
    for v in SEEDS:
        if v % 3 == 0:
            out[0] += 1000 + v          # one of Share's 3 groups sees the last FinishedCrossGroupSharing
        if v % 2 == 0:
            out[1 + v] += 1             # Even passes v on
        else:
            for k in range(2):          # Odd sends v * 10 + k, k < 2
                out[1 + v * 10 + k] += 1
    return [runs * x for x in out]


def test_levels_set_up_by_tails_give_what_the_meta_pass_gave(device, tmp_path):
    """A level of coalescing, broadcasting (a fixed grid, cross-group sharing) and node-array targets,
    then a level of two launches of one node, over two runs (the second replays the command buffer):
    the tails set up levels 1 and 2, and the buffers and traces are those of the host-driven schedule,
    both equal to the hand count."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, MIXED, MIXED_DISPATCH)
    traces = {}
    for gpu_driven in (True, False):
        with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
            steps = [session.run_once(), session.run_once(1)]
            assert session.scheduler.last_run_gpu_driven is gpu_driven
            assert session.dump(program.resources[0]) == {"uint32": mixed_expected(2)}
            traces[gpu_driven] = [[(s.level, [(d.node, d.records_in, d.groups, d.records_out) for d in s.dispatches])
                                   for s in run] for run in steps]
            if gpu_driven:
                plan, = session.scheduler._plans.values()
                assert plan.fused == [True, True, False]
    assert traces[True] == traces[False]
    evens, odds, jobs = 5, 5, 4
    assert traces[True][0] == [
        (0, [("Root", 10, 1, {"work[0]": evens, "work[1]": odds, "work": 10, "Share": jobs})]),
        (1, [("Work", evens, 2, {"Leaf": evens}), ("Work[1]", odds, 3, {"Leaf": 2 * odds}),
             ("Share", jobs, 3 * jobs, {})]),
        (2, [("Leaf", evens, 1, {}), ("Leaf", 2 * odds, 1, {})])]


def test_the_mixed_graph_on_the_amdx_path(tmp_path):
    """The same graph through the AMDX module and its translation (wgc/spirv_in/translate.py, which
    adds the same tail): the same buffers."""
    import json

    import wgc
    from wgc.diagnostics import Renderer

    path = tmp_path / "graph.hlsl"
    path.write_text(MIXED)
    dispatch = json.loads(MIXED_DISPATCH)
    emulated = wgc.run(str(path), dispatch)
    assert emulated.ok, Renderer().render(list(emulated.diagnostics))
    assert emulated.schedule == "gpu-driven"
    assert emulated.resources == {"u0": {"uint32": mixed_expected(1)}}
    assert assert_amdx_agrees(str(path), dispatch, emulated) is not None


# Start (thread) counts its runs in Out[0]; only in its first run does it send a record down the chain
# A -> B -> C (thread nodes), each adding 1 at its own index.
CHAIN = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Token { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Token> t, [MaxRecords(1)] NodeOutput<Token> A)
{
    uint run;
    InterlockedAdd(Out[0], 1, run);
    uint n = run == 0 ? 1 : 0;
    ThreadNodeOutputRecords<Token> o = A.GetThreadNodeOutputRecords(n);
    if (n > 0) o.Get().v = 1;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void A(ThreadNodeInputRecord<Token> t, [MaxRecords(1)] NodeOutput<Token> B)
{
    InterlockedAdd(Out[1], 1);
    ThreadNodeOutputRecords<Token> o = B.GetThreadNodeOutputRecords(1);
    o.Get().v = 2;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void B(ThreadNodeInputRecord<Token> t, [MaxRecords(1)] NodeOutput<Token> C)
{
    InterlockedAdd(Out[2], 1);
    ThreadNodeOutputRecords<Token> o = C.GetThreadNodeOutputRecords(1);
    o.Get().v = 3;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void C(ThreadNodeInputRecord<Token> t) { InterlockedAdd(Out[3], 1); }
"""


@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_level_that_gets_no_group_leaves_every_later_level_none(device, tmp_path, gpu_driven):
    """A level that receives no group runs no tail, so the levels after it would keep the arguments
    of the run before: in the second run Start sends nothing, and A, B and C (levels 1 to 3, all set
    up by tails in the first run) must not run again.  By hand: Out = [3 runs, 1, 1, 1]."""
    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, CHAIN, '{"inputs": [{"entry": "Start", "records": [{"v": 0}]}], '
                                      '"resources": {"u0": {"bytes": 16}}}')
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        first = session.run_once()
        later = [session.run_once(r) for r in (1, 2)]
        assert_schedule(session, gpu_driven, [True, True, True, False])
        assert session.dump(program.resources[0]) == {"uint32": [3, 1, 1, 1]}
    assert [[d.node for d in s.dispatches] for s in first] == [["Start"], ["A"], ["B"], ["C"]]
    assert all([[d.node for d in s.dispatches] for s in run] == [["Start"]] for run in later)


# Make (thread) sends n to Fill, whose grid (n, 1, 1) comes from its record; each of Fill's groups
# sends n * 8 + its group to Leaf, which passes it on to Last.
GRID_CHAIN = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint n; };
struct Paint { uint3 grid : SV_DispatchGrid; uint base; };
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Make(ThreadNodeInputRecord<Job> job, [MaxRecords(1)] NodeOutput<Paint> Fill)
{
    uint n = job.Get().n;
    ThreadNodeOutputRecords<Paint> p = Fill.GetThreadNodeOutputRecords(n > 0 ? 1 : 0);
    if (n > 0) { p.Get().grid = uint3(n, 1, 1); p.Get().base = n; }
    p.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(1, 1, 1)]
void Fill(DispatchNodeInputRecord<Paint> r, uint3 gid : SV_GroupID, [MaxRecords(1)] NodeOutput<Item> Leaf)
{
    GroupNodeOutputRecords<Item> o = Leaf.GetGroupNodeOutputRecords(1);
    o.Get().v = r.Get().base * 8 + gid.x;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Last)
{
    ThreadNodeOutputRecords<Item> o = Last.GetThreadNodeOutputRecords(1);
    o.Get().v = item.Get().v;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Last(ThreadNodeInputRecord<Item> item) { InterlockedAdd(Out[item.Get().v], 1); }
"""


@pytest.mark.parametrize(("grid_records", "table", "fused"), [
    (4, False, [True, True, True, False]), (2, False, [False] * 4), (4, True, [False] * 4)])
@pytest.mark.parametrize("gpu_driven", [True, False], ids=["gpu-driven", "host-driven"])
def test_a_grid_from_records_set_up_by_tails_or_the_meta_pass(device, tmp_path, monkeypatch, gpu_driven,
                                                              grid_records, table, fused):
    """A level holding a grid read from records (Fill, up to 3 records: one per Make thread) is set up
    by the tails of the level before where it may receive at most FUSED_GRID_RECORDS records and the
    device takes no group table (GRID_TABLE_KINDS; emulation ABI 8: the tail sums the grids as the
    grid-scan shader would, but writes no table), else by the grid-scan meta shader, and then the
    levels after it keep the meta pass too (their groups are not counted before they run).  By hand,
    n in (3, 0, 2): Out[8 n + x] = 1 for x < n, twice over two runs."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    monkeypatch.setattr(gpu_schedule, "FUSED_GRID_RECORDS", grid_records)
    monkeypatch.setattr(gpu_schedule, "GRID_TABLE_KINDS", frozenset({device.info.kind} if table else ()))
    ns = [3, 0, 2]
    dispatch = ('{"inputs": [{"entry": "Make", "records": [%s]}], "resources": {"u0": {"bytes": 128}}}'
                % ", ".join('{"n": %d}' % n for n in ns))
    module, program, described = load(tmp_path, GRID_CHAIN, dispatch)
    with Session(device, module, program, described, gpu_driven=gpu_driven) as session:
        session.run_once()
        steps = session.run_once(1)
        assert_schedule(session, gpu_driven, fused)
        out = session.dump(program.resources[0])["uint32"]
    expected = [0] * 32
    for n in ns:
        for x in range(n):
            expected[8 * n + x] = 2
    assert out == expected
    assert [[(d.node, d.records_in) for d in s.dispatches] for s in steps] == [
        [("Make", 3)], [("Fill", 2)], [("Leaf", 5)], [("Last", 5)]]


# Start (thread) sends v + 10 to Mid, Mid v + 10 to End; each prints; End writes Out[v], which holds
# 32 elements: v = 21, 22 fit, v = 32 (from a seed of 12) is one past the end.
PRINTING = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Token { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Token> t, [MaxRecords(1)] NodeOutput<Token> Mid)
{
    printf("start %u", t.Get().v);
    ThreadNodeOutputRecords<Token> o = Mid.GetThreadNodeOutputRecords(1);
    o.Get().v = t.Get().v + 10;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Mid(ThreadNodeInputRecord<Token> t, [MaxRecords(1)] NodeOutput<Token> End)
{
    printf("mid %u", t.Get().v);
    ThreadNodeOutputRecords<Token> o = End.GetThreadNodeOutputRecords(1);
    o.Get().v = t.Get().v + 10;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void End(ThreadNodeInputRecord<Token> t)
{
    printf("end %u", t.Get().v);
    Out[t.Get().v] = 1;
}
"""


def test_prints_and_checks_of_levels_set_up_by_tails(tmp_path):
    """printf and `--check` reports name the node and level that made them, on levels set up by
    tails as on any other: by hand, seeds 1, 2, 12 print start 1, 2, 12 (level 0), mid 11, 12, 22
    (level 1), end 21, 22, 32 (level 2); End's Out[32] is one past the 32 elements (a buffer-index
    report at level 2) and Out[21] = Out[22] = 1."""
    import json

    import wgc
    from wgc.diagnostics import Renderer

    path = tmp_path / "graph.hlsl"
    path.write_text(PRINTING)
    dispatch = json.loads('{"inputs": [{"entry": "Start", "records": [{"v": 1}, {"v": 2}, {"v": 12}]}], '
                          '"resources": {"u0": {"bytes": 128}}}')
    result = wgc.run(str(path), dispatch, check=True)
    assert result.schedule == "gpu-driven", Renderer().render(list(result.diagnostics))
    assert sorted((p.level, p.node, p.text) for p in result.prints) == [
        (0, "Start", "start 1"), (0, "Start", "start 12"), (0, "Start", "start 2"),
        (1, "Mid", "mid 11"), (1, "Mid", "mid 12"), (1, "Mid", "mid 22"),
        (2, "End", "end 21"), (2, "End", "end 22"), (2, "End", "end 32")]
    assert [(r.kind, r.node, r.level, r.value, r.limit) for r in result.checks] == [("buffer-index", "End", 2, 32, 32)]
    out = [0] * 32
    out[21] = out[22] = 1
    assert result.resources["u0"] == {"uint32": out}


def test_a_program_without_the_tail_keeps_every_meta_pass(device, tmp_path):
    """`Program.level_tail` false (a program pickled by an older revision, whose modules have no tail):
    no level is set up by tails, every level after the first has its meta pass, and the results are
    the hand count of the mixed graph."""
    from dataclasses import replace

    from wgc.runtime.run import Session

    module, program, described = load(tmp_path, MIXED, MIXED_DISPATCH)
    assert program.level_tail
    with Session(device, module, replace(program, level_tail=False), described) as session:
        session.run_once()
        assert session.scheduler.last_run_gpu_driven
        plan, = session.scheduler._plans.values()
        assert plan.fused == [False, False, False]
        assert session.dump(program.resources[0]) == {"uint32": mixed_expected(1)}


@pytest.mark.parametrize(("launches_limit", "groups_limit", "fused"), [
    (4, 4096, [True, True, False]), (1, 4096, [True, False, False]), (0, 4096, [False, False, False]),
    (4, 1, [True, False, False])])
def test_tails_set_up_only_small_levels(device, tmp_path, monkeypatch, launches_limit, groups_limit, fused):
    """The tails replace the meta pass only where they cost less (`gpu_schedule._fused`): a level of
    at most FUSED_GROUPS workgroups (each adds to one counter) whose next level has at most
    FUSED_LAUNCHES launches per invocation of the level's smallest workgroup (its invocations set
    them up in parallel). The mixed graph's first level is one thread group of 32 invocations (10
    records) whose next level has 3 launches; its second level's smallest workgroup is Share's, of
    one invocation, and the next level has 2 launches of Leaf: with the limits lowered the meta pass
    stays where they say, and the results are the same hand count."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    monkeypatch.setattr(gpu_schedule, "FUSED_LAUNCHES", launches_limit)
    monkeypatch.setattr(gpu_schedule, "FUSED_GROUPS", groups_limit)
    module, program, described = load(tmp_path, MIXED, MIXED_DISPATCH)
    with Session(device, module, program, described) as session:
        session.run_once()
        plan, = session.scheduler._plans.values()
        assert plan.fused == fused
        assert session.dump(program.resources[0]) == {"uint32": mixed_expected(1)}


def test_a_program_whose_tails_know_no_grids_keeps_grid_setup(device, tmp_path, monkeypatch):
    """`Program.tail_grids` false (a program pickled before emulation ABI 8, whose tails ignore the
    `LEVEL` block's grid table): a level holding a grid read from records keeps `grid_setup`, on a
    device taken for a GPU too, and the results are the hand count (n in (3, 0, 2): Out[8 n + x] = 1
    for x < n)."""
    from dataclasses import replace

    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    monkeypatch.setattr(gpu_schedule, "GRID_TABLE_KINDS", frozenset())
    ns = [3, 0, 2]
    dispatch = ('{"inputs": [{"entry": "Make", "records": [%s]}], "resources": {"u0": {"bytes": 128}}}'
                % ", ".join('{"n": %d}' % n for n in ns))
    module, program, described = load(tmp_path, GRID_CHAIN, dispatch)
    assert program.tail_grids
    with Session(device, module, replace(program, tail_grids=False), described) as session:
        session.run_once()
        plan, = session.scheduler._plans.values()
        assert plan.fused == [False, False, False, False]
        out = session.dump(program.resources[0])["uint32"]
    expected = [0] * 32
    for n in ns:
        for x in range(n):
            expected[8 * n + x] = 1
    assert out == expected
