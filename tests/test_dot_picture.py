"""The graph picture (`wgc inspect --format dot|svg|png`, `wgc/metadata/dot.py`), issue 30 "Pictures":
NodeShareInputOf edges, each node's launch sizes, resources only when asked, limits that are
exceeded, a legend for the edges, SVG on standard output.

Expected strings are written by hand from the HLSL below (the attributes it declares)."""

from __future__ import annotations

import shutil

import pytest

from wgc import driver

SHARED = """
struct R { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 3, 1)] [NumThreads(8, 4, 1)]
void Root([MaxRecords(4)] NodeOutput<R> Main) { }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(16, 1, 1)]
void Main([MaxRecords(8)] GroupNodeInputRecords<R> input) { }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(16, 1, 1)] [NodeShareInputOf("Main")]
void Copy([MaxRecords(8)] GroupNodeInputRecords<R> input) { }
"""

OVER_BUDGET = """
struct R { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Root([MaxRecords(4)] NodeOutput<R> Leaf) { }
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<R> input, [MaxRecords(9)] NodeOutput<R> Sink) { }
[Shader("node")] [NodeLaunch("thread")]
void Sink(ThreadNodeInputRecord<R> input) { }
"""


def _chain(length: int) -> str:
    """A chain of `length` thread nodes N0 -> N1 -> ... (N0 is the entry)."""
    parts = ["struct R { uint v; };"]
    for i in range(length):
        out = f", [MaxRecords(1)] NodeOutput<R> N{i + 1}" if i + 1 < length else ""
        parts.append(f'[Shader("node")] [NodeLaunch("thread")]\nvoid N{i}(ThreadNodeInputRecord<R> input{out}) {{ }}')
    return "\n".join(parts) + "\n"


def _dot(tmp_path, source: str, **options) -> str:
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), emit="dot", **options))
    assert result.ok, [d.message for d in result.diagnostics]
    return result.outputs["dot"].decode()


def test_share_input_of_is_an_edge_from_the_shared_node(tmp_path):
    """Spec, NodeShareInputOf: "the node shares the inputs of the node named": the sharing node
    reads Main's records, so the picture joins Main to Copy (before, Copy floated unconnected)
    and ranks them side by side."""
    dot = _dot(tmp_path, SHARED)
    assert ('  "Main" -> "Copy" [label="shared input", style=dashed, color=darkgreen, fontcolor=darkgreen, '
            'arrowhead=empty, constraint=false];') in dot
    assert '  {rank=same; "Main"; "Copy"}' in dot
    assert "green, shared input: [NodeShareInputOf] reads the records of the arrow's tail" in dot


def test_each_node_shows_its_launch_sizes(tmp_path):
    """Broadcasting: [NodeDispatchGrid] and [NumThreads]; coalescing: the input's [MaxRecords] per
    group and [NumThreads]; thread launch: one thread, nothing more."""
    dot = _dot(tmp_path, SHARED)
    assert '"Root" [label="Root\\nbroadcasting, grid 2x3x1\\nthreads 8x4x1\\nno input"' in dot
    assert '"Main" [label="Main\\ncoalescing, ≤8 records\\nthreads 16x1x1\\nR"]' in dot
    chain = _dot(tmp_path, _chain(2))
    assert '"N1" [label="N1\\nthread\\nR"];' in chain


def test_the_legend_lists_only_the_edge_kinds_drawn(tmp_path):
    dot = _dot(tmp_path, _chain(2))
    legend = next(line for line in dot.splitlines() if line.startswith('    "(legend)"'))
    assert legend == ('    "(legend)" [label="legend\\lOut (≤N): output parameter Out, at most N records '
                      '([MaxRecords])\\l", shape=note, fontsize=9, color=gray40, fontcolor=gray30];')
    assert "(legend)" not in _dot(tmp_path, _chain(1))      # no edge, no legend


def test_output_limits_exceeded_are_red(tmp_path):
    """Spec, Node output limits: a thread launch node outputs "at most 8 records"; Leaf declares 9.
    With the DefaultError downgraded the graph is drawn, and Leaf is marked."""
    dot = _dot(tmp_path, OVER_BUDGET, warning_flags=("no-error=hlsl-node-output-limits",))
    assert ('  "Leaf" [label="Leaf\\nthread\\nR\\nover the output limits", color=red, fontcolor=red, '
            'tooltip="thread launch nodes may output at most 8 records in total, but the outputs\' MaxRecords '
            'add up to 9"];') in dot
    assert '  "Root" [label="Root\\nbroadcasting, grid 1x1x1\\nthreads 1x1x1\\nno input", style="rounded,bold", ' \
           'peripheries=2];' in dot
    assert "red: over a limit of the spec or the device (hover for which)" in dot


def test_depth_beyond_the_spec_limit_is_red(tmp_path):
    """Spec, Node count limits: "The longest chain of nodes cannot exceed 32": a chain of 34 thread
    nodes puts N32 at depth 33 and N33 at 34, over the limit; N31 (depth 32) is not."""
    dot = _dot(tmp_path, _chain(34), warning_flags=("no-error=graph-depth",))
    assert 'graph [label="lib_6_9: 34 nodes, depth 34 of 32 (over the limit)' in dot
    assert '"N32" [label="N32\\nthread\\nR\\ndepth 33 > 32", color=red, fontcolor=red, ' \
           'tooltip="depth 33 exceeds the limit 32"];' in dot
    assert '"N31" [label="N31\\nthread\\nR"];' in dot


def test_depth_beyond_the_device_limit_is_red(tmp_path):
    """--max-graph-depth N is the device's maxExecutionGraphDepth: a chain of 3 is over 2."""
    dot = _dot(tmp_path, _chain(3), max_graph_depth=2)
    assert ('graph [label="lib_6_9: 3 nodes, depth 3 of 32; over maxExecutionGraphDepth 2", labelloc=t, '
            'fontname="Helvetica", fontcolor=red];') in dot
    assert '"N2" [label="N2\\nthread\\nR\\nunrolled depth 3 > 2", color=red' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_svg_goes_to_standard_output_like_dot_tsvg(tmp_path, run_wgc):
    """`dot -Tsvg` writes to standard output; so does `wgc inspect --format svg` (no -o, or -o -)."""
    path = tmp_path / "graph.hlsl"
    path.write_text(SHARED)
    for extra in ((), ("-o", "-")):
        done = run_wgc("inspect", str(path), "--format", "svg", *extra)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.startswith(b"<?xml") and b"<svg" in done.stdout
        assert b"shared input" in done.stdout


def test_resources_flag_draws_them(tmp_path, run_wgc):
    path = tmp_path / "graph.hlsl"
    path.write_text("RWStructuredBuffer<uint> Out : register(u0);\n" + SHARED.replace(
        "void Main([MaxRecords(8)] GroupNodeInputRecords<R> input) { }",
        "void Main([MaxRecords(8)] GroupNodeInputRecords<R> input) { Out[0] = 1; }"))
    plain = run_wgc("inspect", str(path), "--format", "dot")
    drawn = run_wgc("inspect", str(path), "--format", "dot", "--resources")
    assert plain.returncode == 0 and drawn.returncode == 0, drawn.stderr.decode()
    assert b"resource Out" not in plain.stdout
    assert b'"Main" -> "resource Out" [style=dashed' in drawn.stdout
