"""Which loops the emulated target counts at their exit (`wgc.spirv.emulated_loops.header_runs`):
a counted `for` loop with constant bounds runs its header iterations + 1 times (the failing test
included, as llvmpipe counts loop runs); every other loop gets None (counted per header run).
Expected counts are written out by hand from each loop."""

from __future__ import annotations

import pytest

from wgc import ir
from wgc.irtools import walk
from wgc.sema.analyze import analyze
from wgc.source import SourceFile
from wgc.spirv.emulated_loops import header_runs
from wgc.syntax.parse import parse_source


def loop_of(body: str) -> ir.Loop:
    source = ("RWStructuredBuffer<uint> Out;\nvoid bump(inout uint x) { x += 1; }\n"
              f"void f(uint n) {{ uint v = 0; {body} Out[0] = v; }}\n")
    parsed = parse_source(SourceFile("<test>", source))
    assert not parsed.diagnostics
    analysis = analyze(parsed.unit)
    assert not [d for d in analysis.diagnostics if d.severity.name == "ERROR"], analysis.diagnostics
    function = next(f for f in analysis.module.functions if f.name == "f")
    (loop,) = [node for node in walk.walk_body(function) if isinstance(node, ir.Loop)][:1]
    return loop


@pytest.mark.parametrize("body, runs", [
    ("for (uint k = 0; k < 64; k++) v += k;", 65),           # 64 iterations and the failing test
    ("for (uint k = 0; k < 64; ++k) v += k;", 65),
    ("for (uint k = 0; k < 64; k += 1) v += k;", 65),
    ("for (int k = -3; k <= 4; k++) v += 1;", 9),            # -3..4: 8 iterations
    ("for (uint k = 5; k != 9; k++) v += 1;", 5),             # 5, 6, 7, 8
    ("for (uint k = 9; k < 3; k++) v += 1;", 1),              # no iteration: the test runs once
    ("for (uint k = 0; k < 64; k++) { if (k == 7) break; v += k; }", 65),   # an upper bound
    ("for (uint k = 0; k < 100000; k++) v += k;", 65535),     # at most the budget
])
def test_counted_loops(body, runs) -> None:
    assert header_runs(loop_of(body)) == runs


@pytest.mark.parametrize("body", [
    "for (uint k = 0; k < n; k++) v += k;",                  # a bound not known
    "for (uint k = 0; k < 64; k += 2) v += k;",              # another step
    "for (uint k = 0; k < 64; k++) { k += v; }",             # the body writes the counter
    "for (uint k = 0; k < 64; k++) bump(k);",                # passes it on (inout)
    "uint k = 0; while (k < 64) { k++; }",
    "uint k = 0; do { k++; } while (k < 64);",
    "for (uint k = 9; k != 3; k++) v += 1;",                 # '!=' that wraps around
    "for (;;) { break; }",
])
def test_other_loops_count_each_run(body) -> None:
    assert header_runs(loop_of(body)) is None
