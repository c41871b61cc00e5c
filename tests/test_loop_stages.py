"""Work Graph Loops in index space (`wgc.sema.stages`, `wgc.spirv.loop_stages`): the (name, index)
stages, the unrolled depth, what the reflection and `wgc inspect` show, and execution: every sample
loop graph and graphs that hit the iteration limit run natively (the scheduler keeps iterations)
and in index space (`--loops=index-space`: the stages run as plain nodes, the iteration read from
the shader index) with the same results, and with the results computed here in Python.

The expected stage indices come from the encoding docs/guide.md states (index = ((a x S1 + i1) x S2 +
i2) ..., Sj = Nj + 1); the expected depths from a brute-force walk of the unrolled graph written
here (every (node, iterations) state, the scheduler's rules), not from `sema.stages`.
"""

from __future__ import annotations

import json
import math
import struct
from functools import lru_cache

import pytest

import wgc
from amdx_paths import assert_amdx_agrees
from conftest import SAMPLES, sample_proposals
from wgc import driver
from wgc.diagnostics import Renderer
from wgc.sema.stages import plan_stages, unrolled_depth

LOOPS = ("work-graph-loops",)


def analysis_of(source: str, tmp_path, name: str = "graph.hlsl"):  # type: ignore[no-untyped-def]
    path = tmp_path / name
    path.write_text(source)
    front = driver.run_front_end(driver.Options(input=str(path), proposals=LOOPS))
    assert front.analysis is not None and front.analysis.graph is not None
    return front.analysis


def sample_analysis(stem: str):  # type: ignore[no-untyped-def]
    path = SAMPLES / f"{stem}.hlsl"
    front = driver.run_front_end(driver.Options(input=str(path), proposals=sample_proposals(path)))
    return front.analysis


# ---------------------------------------------------------------- brute force: the unrolled graph


def brute_force_depth(graph) -> int:  # type: ignore[no-untyped-def]
    """The longest chain of stages, walking every (node, iterations, recursion level) state from the
    entries by the scheduler's rules: a back edge into a loop's entry is the next iteration (past
    the limit: the terminator stage, one more level, which feeds nothing), a loop the record enters
    starts at 0, an enclosing loop keeps its iteration, recursion is a level down."""
    members = {loop.entry.key: {m.key for m in loop.members} for loop in graph.loops}
    limit = {loop.entry.key: loop.entry.max_loop_iterations for loop in graph.loops}

    def chain(node) -> list[str]:  # type: ignore[no-untyped-def]
        found = []
        loop = graph.loop_of.get(node.key)
        while loop is not None:
            found.append(loop.entry.key)
            loop = loop.parent
        return found[::-1]

    successors: dict[str, list] = {}
    for edge in graph.edges:
        successors.setdefault(edge.source.key, []).append(edge)

    @lru_cache(maxsize=None)
    def longest(key: str, iterations: tuple[tuple[str, int], ...], level: int) -> int:
        node = next(n for n in graph.nodes if n.key == key)
        best = 0
        for edge in successors.get(key, []):
            target = edge.target
            if edge.recursive:
                if level > 0:
                    best = max(best, longest(key, iterations, level - 1))
                continue
            current = dict(iterations)
            state = []
            terminator = False
            for entry in chain(target):
                if entry == target.key and key in members[entry]:
                    iteration = current[entry] + 1
                    terminator = iteration == limit[entry]
                elif entry in current:
                    iteration = current[entry]
                else:
                    iteration = 0
                state.append((entry, iteration))
            if terminator:
                best = max(best, 1)
                continue
            best = max(best, longest(target.key, tuple(state), target.max_recursion_depth or 0))
        del node
        return 1 + best

    return max(longest(n.key, tuple((e, 0) for e in chain(n)), n.max_recursion_depth or 0)
               for n in graph.entry_nodes)


RECURSION_IN_A_LOOP = """\
struct Item { uint x; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
[NodeMaxLoopIterations(3)] [NodeMaxRecordsPerLoopIteration(1)]
void Head(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Split) { }
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(2)]
void Split(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Split, [MaxRecords(1)] NodeOutput<Item> Head,
           [MaxRecords(1)] NodeOutput<Item> Out) { }
[Shader("node")] [NodeLaunch("thread")]
void Out(ThreadNodeInputRecord<Item> i) { }
"""

INNER_LOOP_LEFT_TO_THE_OUTSIDE = """\
struct Item { uint x; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
[NodeMaxLoopIterations(3)] [NodeMaxRecordsPerLoopIteration(1)]
void Outer(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Inner) { }
[Shader("node")] [NodeLaunch("thread")]
[NodeMaxLoopIterations(4)] [NodeMaxRecordsPerLoopIteration(1)]
void Inner(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Work) { }
[Shader("node")] [NodeLaunch("thread")]
void Work(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Inner, [MaxRecords(1)] NodeOutput<Item> Back,
          [MaxRecords(1)] NodeOutput<Item> Leave) { }
[Shader("node")] [NodeLaunch("thread")]
void Back(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Outer) { }
[Shader("node")] [NodeLaunch("thread")]
void Leave(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Last) { }
[Shader("node")] [NodeLaunch("thread")]
void Last(ThreadNodeInputRecord<Item> i) { }
"""

SELF_FEEDING = """\
struct Item { uint x; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Spin) { }
[Shader("node")] [NodeLaunch("thread")]
[NodeMaxLoopIterations(7)] [NodeMaxRecordsPerLoopIteration(1)]
void Spin(ThreadNodeInputRecord<Item> i, [MaxRecords(1)] NodeOutput<Item> Spin, [MaxRecords(1)] NodeOutput<Item> Done) { }
[Shader("node")] [NodeLaunch("thread")]
void Done(ThreadNodeInputRecord<Item> i) { }
"""


@pytest.mark.parametrize("stem", ["seed_loops_simple", "seed_loops_inner", "seed_loops_nested", "loop_particles"])
def test_unrolled_depth_of_the_samples_is_the_longest_chain_of_stages(stem):
    graph = sample_analysis(stem).graph
    assert unrolled_depth(graph).depth == brute_force_depth(graph)


@pytest.mark.parametrize(("source", "depth"), [
    # Head, then Split (3 recursion levels) per iteration: 3 x 4 = 12, Out after the last: 13;
    # the terminator after the last Split is also 13
    (RECURSION_IN_A_LOOP, 13),
    # one outer iteration: Outer + 4 x (Inner, Work) + Back = 10; Leave, Last after the third: 3 x 10 - 1 + 2
    (INNER_LOOP_LEFT_TO_THE_OUTSIDE, 31),
    # Start, Spin x 7 (recursion levels of one stage), Done after the last: 9 (the terminator level: 9 too)
    (SELF_FEEDING, 9),
])
def test_unrolled_depth_counts_iterations_recursion_and_terminators(tmp_path, source, depth):
    graph = analysis_of(source, tmp_path).graph
    assert brute_force_depth(graph) == depth
    assert unrolled_depth(graph).depth == depth


def test_stage_indices_of_nested_loops(tmp_path):
    """seed_loops_nested: 8 outer x 8 inner iterations, strides 9 (the terminator slot 8)."""
    analysis = sample_analysis("seed_loops_nested")
    plan = plan_stages(analysis.graph)
    by_name = {n.id.name: plan.of[n.key] for n in analysis.graph.nodes}
    outer = [(s.index, s.iterations, s.terminator) for s in by_name["MyOuterLoopEntry"].stages()]
    assert outer == [(o, (o,), o == 8) for o in range(9)]
    inner = [(s.index, s.iterations, s.terminator) for s in by_name["MyInnerLoopEntry"].stages()]
    assert inner == [(o * 9 + i, (o, i), i == 8) for o in range(8) for i in range(9)]
    terminal = [(s.index, s.iterations, s.terminator) for s in by_name["MyLoopTerminal"].stages()]
    assert terminal == [(o * 9 + i, (o, i), False) for o in range(8) for i in range(8)]
    # the terminal's outputs: to the inner entry (o, i + 1), to the outer entry (o + 1)
    terminal_node = next(n for n in analysis.graph.nodes if n.id.name == "MyLoopTerminal")
    to_inner, to_outer = terminal_node.outputs
    inner_map = plan.target_index(terminal_node, to_inner, by_name["MyInnerLoopEntry"])
    assert (inner_map.stride, inner_map.terms, inner_map.feedback) == (81, ((0, 0, 9), (1, 1, 1)), 1)
    outer_map = plan.target_index(terminal_node, to_outer, by_name["MyOuterLoopEntry"])
    assert (outer_map.stride, outer_map.terms, outer_map.feedback) == (9, ((0, 1, 1),), 0)


def test_the_reflection_lists_every_stage_with_its_entry_point():
    path = SAMPLES / "seed_loops_simple.hlsl"
    result = driver.compile(driver.Options(input=str(path), emit="reflection", proposals=sample_proposals(path),
                                           max_graph_depth=33))
    assert result.ok, Renderer().render(result.diagnostics)
    document = json.loads(result.outputs["reflection"])
    assert document["loop_lowering"] == "index-space" and document["emulation_abi_version"] == 9
    nodes = {n["entry_point"]: n for n in document["nodes"]}
    entry, body, other = nodes["MyLoopEntry"], nodes["MyLoopBody"], nodes["MyOtherNode"]
    assert entry["stages"] == [{"index": i, "iterations": [i], "terminator": i == 16} for i in range(17)]
    assert body["stages"] == [{"index": i, "iterations": [i], "terminator": False} for i in range(16)]
    assert other["stages"] == [{"index": 0, "iterations": [], "terminator": False}]
    assert (entry["stage_stride"], body["stage_stride"], other["stage_stride"]) == (17, 17, 1)
    assert [o["stage_span"] for o in body["outputs"]] == [{"base_index": 0, "array_size": 17, "sparse": False}, None]
    emulated = driver.compile(driver.Options(input=str(path), emit="reflection", proposals=sample_proposals(path),
                                             target="emulated"))
    assert json.loads(emulated.outputs["reflection"])["loop_lowering"] == "native"


def test_a_self_feeding_entry_recurses_over_its_iterations(tmp_path):
    path = tmp_path / "spin.hlsl"
    path.write_text(SELF_FEEDING)
    result = driver.compile(driver.Options(input=str(path), emit="reflection", proposals=LOOPS))
    assert result.ok, Renderer().render(result.diagnostics)
    spin = next(n for n in json.loads(result.outputs["reflection"])["nodes"] if n["function"] == "Spin")
    assert (spin["stages"], spin["max_node_recursion"], spin["max_recursion_depth"]) == (
        [{"index": 0, "iterations": [], "terminator": False}], 7, None)


def test_inspect_shows_the_stages_and_the_unrolled_depth():
    path = str(SAMPLES / "seed_loops_simple.hlsl")
    text = driver.compile(driver.Options(input=path, emit="text", proposals=LOOPS)).outputs["text"].decode()
    assert "  stages: 17 (MyLoopEntry at index 0-15; terminator 16)\n" in text
    assert "  stages: 16 (MyLoopBody at index 0-15)\n" in text
    assert "  unrolled for SPIR-V AMDX: depth 33 (deepest: MyOtherNode; maxExecutionGraphDepth 32)\n" in text
    stated = driver.compile(driver.Options(input=path, emit="text", proposals=LOOPS, max_graph_depth=64))
    assert "maxExecutionGraphDepth 64)" in stated.outputs["text"].decode()
    dot = driver.compile(driver.Options(input=path, emit="dot", proposals=LOOPS)).outputs["dot"].decode()
    assert 'depth 3 of 48; unrolled for SPIR-V AMDX 33 of 32 (over maxExecutionGraphDepth)"' in dot
    assert '\\nstages 17 (MyLoopEntry at index 0-15; terminator 16)"' in dot
    model = json.loads(driver.compile(driver.Options(input=path, emit="json", proposals=LOOPS)).outputs["json"])
    assert (model["graph"]["unrolled_depth"], model["graph"]["unrolled_depth_limit"]) == (33, 32)
    assert [s["index"] for s in model["nodes"][0]["stages"]] == list(range(17))


# ---------------------------------------------------------------- execution: native and index space


def run_both(path, dispatch: dict, **options):  # type: ignore[no-untyped-def]
    """The results of running `path` natively and in index space (both must succeed); the AMDX
    path (compiled for AMDX, which always unrolls loops in index space, and translated) must give
    the same buffers (`amdx_paths`)."""
    results = []
    for lowering in ("native", "index-space"):
        result = wgc.run(driver.Options(input=str(path), proposals=LOOPS, loop_lowering=lowering, **options), dispatch)
        assert result.ok, Renderer().render(list(result.diagnostics))
        results.append(result)
    assert_amdx_agrees(driver.Options(input=str(path), proposals=LOOPS, **options), dispatch, results[0])
    return results


def f32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def test_simple_seed_agrees_and_converges_or_stops_at_the_limit(vulkan_device):
    values = [2.0, 9.0, 1e4, 1e12]            # 1e12 from x = 1 needs more than 16 Newton steps
    records = [{"id": i, "a": a, "x": 1.0} for i, a in enumerate(values)]
    native, staged = run_both(SAMPLES / "seed_loops_simple.hlsl", {
        "inputs": [{"entry": "MyLoopEntry", "records": records}], "resources": {"u0": {"bytes": 16}}})
    assert native.resources == staged.resources
    for a, got in zip(values, native.resources["u0"]["float"]):
        x = 1.0
        for _ in range(16):                   # the entry steps, the body stops when converged or at 15
            x = 0.5 * (x + a / max(x, 1e-5))
            if abs(x * x - a) <= 1e-5 * a:
                break
        assert math.isclose(got, x, rel_tol=1e-4), (a, got, x)
    assert not math.isclose(native.resources["u0"]["float"][3], 1e6, rel_tol=1e-2)   # stopped at the limit
    bodies = sorted({d.node for s in staged.trace for d in s.dispatches if d.node.startswith("MyLoopBody")})
    assert "MyLoopBody[15]" in bodies and len(bodies) == 16     # 16 stages ran, one per iteration


def test_inner_seed_agrees_with_the_logistic_map(vulkan_device):
    rates = [0.5, 2.5, 3.2]
    records = [{"id": i, "rate": r, "value": 0.25} for i, r in enumerate(rates)]
    native, staged = run_both(SAMPLES / "seed_loops_inner.hlsl", {
        "inputs": [{"entry": "MyLoopEntry", "records": records}], "resources": {"u0": {"bytes": 12}}},
        defines=(("MAX_ITERATIONS", "6"),))
    assert native.resources == staged.resources
    for rate, got in zip(rates, native.resources["u0"]["float"]):
        v = 0.25
        for _ in range(6):                    # one step per iteration, all 6 of them
            v = f32(f32(rate * v) * f32(1.0 - v))
        assert math.isclose(got, v, rel_tol=1e-5), (rate, got, v)


def test_nested_seed_agrees_and_fills_each_table(vulkan_device):
    tables = [(1, 1), (3, 8), (8, 2), (9, 9)]           # (rows, columns); 9 x 9 is clamped to the 8 x 8 loops
    records = [{"table": t, "row": 0, "column": 0, "rows": r, "columns": c} for t, (r, c) in enumerate(tables)]
    native, staged = run_both(SAMPLES / "seed_loops_nested.hlsl", {
        "inputs": [{"entry": "MyOuterLoopEntry", "records": records}],
        "resources": {"u0": {"bytes": len(tables) * 64 * 4}}})
    assert native.resources == staged.resources
    expected = [0] * (len(tables) * 64)
    for t, (rows, columns) in enumerate(tables):
        for row in range(min(rows, 8)):
            for column in range(min(columns, 8)):
                expected[(t * 8 + row) * 8 + column] = (row << 16) | column
    assert native.resources["u0"]["uint32"] == expected


def test_particles_agree_and_the_long_frame_stops_at_16_substeps(vulkan_device):
    # no planes, drag or turbulence: each particle falls; 0.02 s take 5 sub-steps of 1/240 s, 1 s
    # would take 240 and stops at the 16th (the last iteration consumes all the time left)
    counts = [(100, 1.0), (50, 0.02)]
    emits, first = [], 0
    for count, frame in counts:
        emits.append({"grid": -(-count // 64), "firstParticle": first, "particleCount": count, "frameTime": frame})
        first += count
    dispatch = {"inputs": [{"entry": "EmitParticles", "records": emits}],
                "resources": {"b0": {"bytes": 80}, "t1": {"bytes": first * 32}, "u2": {"bytes": first * 32},
                              "u3": {"bytes": 16 * 4}}}
    native, staged = run_both(SAMPLES / "loop_particles.hlsl", dispatch)
    assert native.resources == staged.resources
    expected = [0] * 16
    for count, frame in counts:
        left, substep = f32(frame), 0
        while True:
            dt = left if substep + 1 >= 16 else min(left, f32(1.0 / 240.0))
            left = f32(left - dt)
            expected[substep] += count
            if not (left > 1e-5 and substep + 1 < 16):
                break
            substep += 1
    assert native.resources["u3"]["uint32"] == expected
    assert expected[15] == 100 and expected[4] == 150 and expected[5] == 100


AT_THE_LIMIT = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Step { uint slot; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
[NodeMaxLoopIterations(5)] [NodeMaxRecordsPerLoopIteration(1)]
void Head(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] NodeOutput<Step> Body)
{
    InterlockedAdd(Out[s.Get().slot * 8 + GetCurrentLoopIterationIndex()], 1);
    ThreadNodeOutputRecords<Step> o = Body.GetThreadNodeOutputRecords(1);
    o.Get() = s.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Body(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] NodeOutput<Step> Head, [MaxRecords(1)] NodeOutput<Step> Tail)
{
    Out[64 + s.Get().slot * 8 + GetCurrentLoopIterationIndex()] = Head.IsValid() ? 1 : 2;
    ThreadNodeOutputRecords<Step> o = Head.GetThreadNodeOutputRecords(1);      // always: also at the limit
    o.Get() = s.Get();
    o.OutputComplete();
    ThreadNodeOutputRecords<Step> t = Tail.GetThreadNodeOutputRecords(1);
    t.Get() = s.Get();
    t.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Tail(ThreadNodeInputRecord<Step> s) { InterlockedAdd(Out[128 + s.Get().slot], 1); }
"""

SPINNING = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Step { uint slot; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
[NodeMaxLoopIterations(6)] [NodeMaxRecordsPerLoopIteration(1)]
void Spin(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] NodeOutput<Step> Spin)
{
    uint i = GetCurrentLoopIterationIndex();
    InterlockedAdd(Out[s.Get().slot * 8 + i], 1 + i);
    Out[64 + s.Get().slot * 8 + i] = Spin.IsValid() ? 1 : 2;
    ThreadNodeOutputRecords<Step> o = Spin.GetThreadNodeOutputRecords(1);    // always: also at the limit
    o.Get() = s.Get();
    o.OutputComplete();
}
"""


@pytest.mark.parametrize(("source", "iterations", "tail"), [(AT_THE_LIMIT, 5, True), (SPINNING, 6, False)],
                         ids=["index-space-terminator", "self-feeding-recursion"])
def test_records_fed_back_at_the_last_iteration_are_dropped_in_both_forms(tmp_path, vulkan_device, source,
                                                                         iterations, tail):
    path = tmp_path / "limit.hlsl"
    path.write_text(source)
    slots = [0, 3, 7]
    entry = "Head" if tail else "Spin"
    native, staged = run_both(path, {"inputs": [{"entry": entry, "records": [{"slot": s} for s in slots]}],
                                     "resources": {"u0": {"bytes": 136 * 4}}})
    assert native.resources == staged.resources
    expected = [0] * 136
    for slot in slots:
        for i in range(iterations):            # every iteration runs once, the terminator runs no body
            expected[slot * 8 + i] = 1 if tail else 1 + i
            expected[64 + slot * 8 + i] = 1 if i + 1 < iterations else 2    # IsValid: false at the last
        if tail:
            expected[128 + slot] = iterations
    assert native.resources["u0"]["uint32"] == expected
    amdx = driver.compile(driver.Options(input=str(path), proposals=LOOPS))     # and the AMDX module validates
    assert amdx.ok, Renderer().render(amdx.diagnostics)


ARRAY_OF_LOOP_ENTRIES = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Step { uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] [NodeArraySize(2)] [NodeID("A")] NodeOutputArray<Step> a)
{
    ThreadNodeOutputRecords<Step> o = a[s.Get().slot & 1].GetThreadNodeOutputRecords(1);
    o.Get() = s.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("A", 0)]
[NodeMaxLoopIterations(3)] [NodeMaxRecordsPerLoopIteration(1)]
void A0(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] [NodeID("B", 0)] NodeOutput<Step> b)
{
    ThreadNodeOutputRecords<Step> o = b.GetThreadNodeOutputRecords(1);
    o.Get() = s.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("A", 1)]
[NodeMaxLoopIterations(3)] [NodeMaxRecordsPerLoopIteration(1)]
void A1(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] [NodeID("B", 1)] NodeOutput<Step> b)
{
    ThreadNodeOutputRecords<Step> o = b.GetThreadNodeOutputRecords(1);
    o.Get() = s.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("B", 0)]
void B0(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] [NodeID("A", 0)] NodeOutput<Step> a)
{
    InterlockedAdd(Out[s.Get().slot * 4 + GetCurrentLoopIterationIndex()], 1);
    ThreadNodeOutputRecords<Step> o = a.GetThreadNodeOutputRecords(1);
    o.Get() = s.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("B", 1)]
void B1(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] [NodeID("A", 1)] NodeOutput<Step> a)
{
    InterlockedAdd(Out[s.Get().slot * 4 + GetCurrentLoopIterationIndex()], 10);
    ThreadNodeOutputRecords<Step> o = a.GetThreadNodeOutputRecords(1);
    o.Get() = s.Get();
    o.OutputComplete();
}
"""


def test_each_entry_of_a_node_array_of_loop_entries_is_a_loop_of_its_own(tmp_path, vulkan_device):
    """The proposal: each loop entry bound in an output node array is a singular loop. A[0] and
    A[1] index alike (stage = array index x 4 + iteration), and so do their bodies B[0] and B[1]."""
    path = tmp_path / "arrays.hlsl"
    path.write_text(ARRAY_OF_LOOP_ENTRIES)
    slots = [0, 1, 2, 3]
    native, staged = run_both(path, {"inputs": [{"entry": "Start", "records": [{"slot": s} for s in slots]}],
                                     "resources": {"u0": {"bytes": 64}}})
    assert native.resources == staged.resources
    expected = [0] * 16
    for slot in slots:
        for iteration in range(3):            # A[slot & 1]'s loop: B adds 1 (B[0]) or 10 (B[1]) per iteration
            expected[slot * 4 + iteration] += 10 if slot & 1 else 1
    assert native.resources["u0"]["uint32"] == expected
    reflection = driver.compile(driver.Options(input=str(path), proposals=LOOPS, emit="reflection"))
    assert reflection.ok
    stages = {n["entry_point"]: [s["index"] for s in n["stages"]]
              for n in json.loads(reflection.outputs["reflection"])["nodes"]}
    assert stages == {"Start": [0], "A0": [0, 1, 2, 3], "A1": [4, 5, 6, 7], "B0": [0, 1, 2], "B1": [4, 5, 6]}


def test_wgc_run_loops_index_space_on_the_command_line(tmp_path, vulkan_device):
    """`wgc run --loops=index-space`: the trace names the stages; the results are the native run's."""
    import os
    import subprocess
    import sys

    path = tmp_path / "limit.hlsl"
    path.write_text(AT_THE_LIMIT)
    dispatch = tmp_path / "dispatch.json"
    dispatch.write_text(json.dumps({"inputs": [{"entry": "Head", "records": [{"slot": 1}]}],
                                    "resources": {"u0": {"bytes": 136 * 4}}}))
    root = str(SAMPLES.parent)
    outputs = []
    for lowering in ("native", "index-space"):
        done = subprocess.run([sys.executable, "-m", "wgc", "run", "-fwork-graph-loops", f"--loops={lowering}",
                               str(path), "--dispatch", str(dispatch), "--trace"], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": root}, timeout=300)
        assert done.returncode == 0, done.stderr
        outputs.append((done.stdout, done.stderr))
    assert outputs[0][0] == outputs[1][0]
    assert "  Body (thread) loop-iteration=4:" in outputs[0][1]
    assert "  Body[4] (thread):" in outputs[1][1] and "  Head[5] (thread):" in outputs[1][1]   # the terminator stage


BROADCASTING_LOOP = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(4, 1, 1)] [NodeIsProgramEntry]
[NodeMaxLoopIterations(4)] [NodeMaxRecordsPerLoopIteration(1)]
void Wave(DispatchNodeInputRecord<Job> job, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
          [MaxRecords(1)] NodeOutput<Job> Tick, [MaxRecords(1)] EmptyNodeOutput Count)
{
    InterlockedAdd(Out[job.Get().slot * 4 + GetCurrentLoopIterationIndex()], 1);
    GroupMemoryBarrierWithGroupSync();
    bool first = gid.x == 0;
    GroupNodeOutputRecords<Job> o = Tick.GetGroupNodeOutputRecords(first ? 1 : 0);
    if (first && gi == 0) o.Get() = job.Get();
    o.OutputComplete();
    Count.GroupIncrementOutputCount(1);
}
[Shader("node")] [NodeLaunch("thread")]
void Tick(ThreadNodeInputRecord<Job> job, [MaxRecords(1)] NodeOutput<Job> Wave)
{
    ThreadNodeOutputRecords<Job> o = Wave.GetThreadNodeOutputRecords(1);
    o.Get() = job.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)]
void Count([MaxRecords(8)] EmptyNodeInput e) { InterlockedAdd(Out[60], e.Count()); }
"""


def test_a_broadcasting_loop_entry_with_a_barrier_and_an_empty_output(tmp_path, vulkan_device):
    """Broadcasting: the terminator guard returns before the body's barrier, for the whole group;
    an EmptyNodeOutput leaving the loop keeps its index."""
    path = tmp_path / "wave.hlsl"
    path.write_text(BROADCASTING_LOOP)
    native, staged = run_both(path, {"inputs": [{"entry": "Wave", "records": [{"slot": s} for s in range(3)]}],
                                     "resources": {"u0": {"bytes": 64 * 4}}})
    assert native.resources == staged.resources
    expected = [0] * 64
    for slot in range(3):
        for iteration in range(4):            # 2 groups x 4 threads per iteration; Tick feeds the next
            expected[slot * 4 + iteration] = 2 * 4
    expected[60] = 3 * 4 * 2                  # one empty record per group per iteration
    assert native.resources["u0"]["uint32"] == expected


SELF_FEEDING_LEVELS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Step { uint slot; };
uint Levels() { return GetRemainingRecursionLevels(); }
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
[NodeMaxLoopIterations(4)] [NodeMaxRecordsPerLoopIteration(1)]
void Spin(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] NodeOutput<Step> Spin)
{
    uint at = s.Get().slot * 4 + GetCurrentLoopIterationIndex();
    Out[at] = 100 + GetRemainingRecursionLevels();
    Out[32 + at] = 100 + Levels();
    Out[64 + at] = Spin.IsValid() ? 1 : 2;
    if (Spin.IsValid()) {
        ThreadNodeOutputRecords<Step> o = Spin.GetThreadNodeOutputRecords(1);
        o.Get() = s.Get();
        o.OutputComplete();
    }
}
"""


def test_a_self_feeding_loop_entry_is_not_recursive_in_either_form(tmp_path, vulkan_device):
    """workgraph-rules.md, GetRemainingRecursionLevels(): "Returns 0 at the leaf and for
    non-recursive nodes."; the loops proposal: "A loop entry node may not be a
    recursive node. However, a loop entry node may output records back to itself, providing the same
    effective behavior as a recursive node." So a self-feeding loop entry (whose iterations are
    recursion levels of one stage in index space) reads 0 at every iteration, natively and in index
    space, directly or in a helper. IsValid() of the feedback is true at iterations 0..N-2 and false
    at N-1 (the proposal: "Exceeding this results in immediate loop termination": there is no
    iteration N to feed)."""
    path = tmp_path / "spin.hlsl"
    path.write_text(SELF_FEEDING_LEVELS)
    slots = [0, 2, 5]
    native, staged = run_both(path, {"inputs": [{"entry": "Spin", "records": [{"slot": s} for s in slots]}],
                                     "resources": {"u0": {"bytes": 96 * 4}}})
    expected = [0] * 96
    for slot in slots:
        for i in range(4):                     # by hand: 4 iterations, GetRemainingRecursionLevels() = 0
            expected[slot * 4 + i] = expected[32 + slot * 4 + i] = 100
            expected[64 + slot * 4 + i] = 1 if i < 3 else 2
    assert native.resources["u0"]["uint32"] == expected
    assert staged.resources["u0"]["uint32"] == expected
    amdx = driver.compile(driver.Options(input=str(path), proposals=LOOPS, emit="asm"))
    assert amdx.ok, Renderer().render(amdx.diagnostics)
    asm = amdx.outputs["asm"].decode()
    assert "MaxNodeRecursionAMDX" in asm      # the loop is recursion levels in AMDX, the value still 0
