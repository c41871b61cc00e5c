"""The target's check of node-object bindings (WG0453, WG0454: `wgc.sema.target._object_bindings`)
walks a body with its control-flow depth only where a node object is bound in it (assigned, passed
to an out or inout parameter, returned); elsewhere it reads the kept list of the body's
declarations. Both ways give the same diagnostics, in the same order."""

from __future__ import annotations

from pathlib import Path

import pytest

from wgc import driver
from wgc.sema import target

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

BROADCAST = ('[Shader("node")]', '[NodeLaunch("broadcasting")]', "[NodeIsProgramEntry]", "[NodeDispatchGrid(1, 1, 1)]")
NODES = ('[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<R> r) {}',
         '[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<R> r) {}')

PROGRAMS = {
    "rebound in a branch and held in a struct": [
        "struct R { uint x; };", "struct Targets { NodeOutput<R> near; NodeOutput<R> far; };", *BROADCAST,
        "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex, [MaxRecords(2)] NodeOutput<R> A, [MaxRecords(2)] NodeOutput<R> B)",
        "{",
        "    Targets both;",
        "    NodeOutput<R> chosen = A;",
        "    if (gi > 3) { Targets more[2]; chosen = B; }",
        "    for (uint i = 0; i < 2; ++i) { NodeOutput<R> inner = A; inner = B; }",
        "    chosen.GetThreadNodeOutputRecords(1).OutputComplete();",
        "}", *NODES],
    "aggregates only, in order": [
        "struct R { uint x; };", "struct Targets { NodeOutput<R> near; NodeOutput<R> far; };", *BROADCAST,
        "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex, [MaxRecords(2)] NodeOutput<R> A, [MaxRecords(2)] NodeOutput<R> B)",
        "{",
        "    Targets first;",
        "    if (gi > 3) { Targets second[2]; }",
        "    Targets third;",
        "    A.GetThreadNodeOutputRecords(1).OutputComplete();",
        "}", *NODES],
    "passed to an out parameter in a loop": [
        "struct R { uint x; };",
        "void Pick(NodeOutput<R> a, out NodeOutput<R> o) { o = a; }", *BROADCAST,
        "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex, [MaxRecords(2)] NodeOutput<R> A, [MaxRecords(2)] NodeOutput<R> B)",
        "{",
        "    NodeOutput<R> chosen = A;",
        "    for (uint i = 0; i < gi; ++i) Pick(B, chosen);",
        "    chosen.GetThreadNodeOutputRecords(1).OutputComplete();",
        "}", *NODES],
}


def _target_diagnostics(path: Path) -> list[tuple[str, object, str]]:
    options = driver.Options(input=str(path), include_dirs=(str(SAMPLES / "include"),))
    front = driver.run_front_end(options)
    analysis = front.analysis
    assert analysis is not None
    found = driver.run_with_deep_stack(analysis.check_target, list(analysis.nodes))
    return [(d.code, (d.span.file.path, d.span.start, d.span.end) if d.span else None, d.message) for d in found]


def _programs(tmp_path: Path) -> list[Path]:
    paths = sorted(SAMPLES.glob("*.hlsl"))
    for index, lines in enumerate(PROGRAMS.values()):
        path = tmp_path / f"program{index}.hlsl"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def test_both_ways_give_the_same_diagnostics(tmp_path, monkeypatch):
    """For every sample and the programs above, the diagnostics of the target's checks are the same
    with the shortcut as with the depth walk forced for every function."""
    programs = _programs(tmp_path)
    quick = [_target_diagnostics(path) for path in programs]
    monkeypatch.setattr(target, "_rebinds_node_object", lambda function: True)
    walked = [_target_diagnostics(path) for path in programs]
    assert quick == walked
    # by hand: 'both' and 'more' held in aggregates, 'chosen' rebound in the branch ('inner' is declared in the
    # loop body it is rebound in); 'first', 'second', 'third'; 'chosen' passed to Pick's out parameter in the loop
    assert [[code for code, _, _ in found] for found in quick[-len(PROGRAMS):]] == [
        ["WG0454", "WG0454", "WG0453"], ["WG0454"] * 3, ["WG0453"]]


@pytest.mark.parametrize("name, expected", [
    ("rebound in a branch and held in a struct", True),
    ("aggregates only, in order", False),
    ("passed to an out parameter in a loop", True),
])
def test_what_counts_as_a_binding(tmp_path, name, expected):
    """`_rebinds_node_object`: an assignment to a node object variable, or one passed to an out
    parameter; reading node objects (a method call on one) is none."""
    path = tmp_path / "program.hlsl"
    path.write_text("\n".join(PROGRAMS[name]) + "\n")
    front = driver.run_front_end(driver.Options(input=str(path)))
    assert front.analysis is not None
    main = next(f for f in front.analysis.module.functions if f.name == "Main")
    assert target._rebinds_node_object(main) is expected


def test_the_body_checks_report_in_body_order(tmp_path):
    """The target's per-node checks of a body (`check_target` picks the calls, references, declarations
    and selects by class from the kept walk) report in the body's order, each undefined function once:
    by hand, line 9 calls the undefined 'Ext' (WG0628), line 10 declares a string variable (WG0626),
    line 11 chooses between two buffers (WG0623), line 12 calls 'Ext' again (not reported again)."""
    path = tmp_path / "program.hlsl"
    path.write_text("\n".join([
        "struct R { uint x; };",
        "StructuredBuffer<R> A : register(t0);",
        "StructuredBuffer<R> B : register(t1);",
        "RWStructuredBuffer<uint> Out : register(u2);",
        "uint Ext(uint v);",
        '[Shader("node")] [NodeLaunch("thread")]',
        "void T(ThreadNodeInputRecord<R> r)",
        "{",
        "    Out[0] = Ext(r.Get().x);",
        '    string s = "a";',
        "    StructuredBuffer<R> C = r.Get().x > 1 ? A : B;",
        "    Out[1] = Ext(C[0].x);",
        "}", ""]))
    found = _target_diagnostics(path)
    assert [(code, path.read_text().count("\n", 0, span[1]) + 1) for code, span, _ in found] == [  # type: ignore[index]
        ("WG0628", 9), ("WG0626", 10), ("WG0623", 11)]
