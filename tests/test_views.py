"""The views of `wgc inspect` (text, DOT, DXIL metadata) over hand-built inspect models.

The models are typed (`wgc.metadata.schema`; their JSON is docs/reference.md's "The JSON model"); they
mirror samples/hello.hlsl, a recursive node, nested loops (samples/seed_loops_nested.hlsl) and a broadcasting node with
node output arrays ([MaxRecordsPerNode], shared budget, unbounded sparse, a missing target,
an empty output).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from dataclasses import replace

import pytest

from wgc import driver
from wgc.metadata import dot as dot_view
from wgc.metadata.dot import GraphvizMissing, render_dot, render_image
from wgc.metadata.dxil import input_flags, output_flags, parse_dxil, render_dxil
from wgc.metadata.reflection import DispatchGrid, RecordLayout
from wgc.metadata.schema import (EdgeModel, GraphModel, InputModel, InspectModel, LoopEntryModel,
                                 LoopModel, NodeIdModel, NodeModel, OutputModel)
from wgc.metadata.text import render_text


def _node(function, launch, *, index=0, name=None, entry=False, explicit=False, threads=(1, 1, 1),
          grid=None, max_grid=None, recursion=None, table=None, share=None, loop_entry=None,
          loop=None, depth=1, inp=None, outputs=(), backing=0):
    return NodeModel(
        function=function, id=NodeIdModel(name or function, index), launch=launch,
        program_entry=entry, program_entry_explicit=explicit, num_threads=tuple(threads),
        dispatch_grid=tuple(grid) if grid else None, max_dispatch_grid=tuple(max_grid) if max_grid else None,
        max_recursion_depth=recursion, local_root_arguments_table_index=table,
        share_input_of=NodeIdModel(**share) if share else None,
        loop_entry=LoopEntryModel(**loop_entry) if loop_entry else None, loop=loop, depth=depth,
        groupshared_bytes=0, input=inp, outputs=tuple(outputs), backing_bytes=backing,
    )


def _record(record, size, align, grid_field=None, track=False):
    if record is None:
        return None
    grid = DispatchGrid(**grid_field) if grid_field else None
    return RecordLayout(record, size, align, (), grid, track)


def _input(kind, record=None, size=0, align=0, *, max_records=None, coherent=False, track=False,
           grid_field=None):
    return InputModel(kind=kind, record=_record(record, size, align, grid_field, track),
                      max_records=max_records, globally_coherent=coherent,
                      max_records_written=max_records is not None)


def _output(parameter, kind, record=None, size=0, align=0, *, target=None, index=0, max_records=None,
            shared=None, shared_index=None, per_node=None, per_node_written=False, array_size=None,
            sparse=False, unbounded=False):
    return OutputModel(name=parameter, index=0, kind=kind, target=NodeIdModel(target or parameter, index),
                       record=_record(record, size, align), max_records=max_records,
                       max_records_shared_with=shared, max_records_shared_with_index=shared_index,
                       max_records_per_node=per_node, max_records_per_node_written=per_node_written,
                       array_size=array_size, allow_sparse_nodes=sparse or unbounded,
                       unbounded_sparse_nodes=unbounded)


def _edge(src, dst, parameter, kind="NodeOutput", max_records=None, *, recursive=False, loop_back=False):
    return EdgeModel(src, dst, parameter, kind, max_records, recursive, loop_back)


def _model(profile, nodes, *, depth, limit, chain, entries, edges, loops=(), slots=None,
           backing=0, without=None):
    return InspectModel(wgc_version="0.1.0", profile=profile, nodes=tuple(nodes), graph=GraphModel(
        depth=depth, depth_limit=limit, longest_chain=tuple(chain), entry_nodes=tuple(entries),
        edges=tuple(edges), loops=tuple(LoopModel(**{**loop, "members": tuple(loop["members"])}) for loop in loops),
        node_id_slots=slots or len(nodes), backing_bytes=backing,
        backing_bytes_without_max_records_per_node=backing if without is None else without))


def _renamed(model, function):
    """`model` with its first node's function renamed."""
    return replace(model, nodes=(replace(model.nodes[0], function=function), *model.nodes[1:]))


# samples/hello.hlsl
HELLO = _model("lib_6_8", [
    _node("Generate", "broadcasting", entry=True, threads=(64, 1, 1), max_grid=[1024, 1, 1],
          inp=_input("DispatchNodeInputRecord", "EntryRecord", 8, 4,
                     grid_field={"offset": 0, "components": 1, "bits": 32}),
          outputs=[_output("Classify", "NodeOutput", "ItemRecord", 4, 4, max_records=64)], backing=256),
    _node("Classify", "thread", depth=2, inp=_input("ThreadNodeInputRecord", "ItemRecord", 4, 4),
          outputs=[_output("Accumulate", "NodeOutput", "BinRecord", 4, 4, max_records=1)], backing=4),
    _node("Accumulate", "coalescing", depth=3, threads=(32, 1, 1),
          inp=_input("GroupNodeInputRecords", "BinRecord", 4, 4, max_records=32)),
], depth=3, limit=32, chain=["Generate", "Classify", "Accumulate"], entries=["Generate"],
    edges=[_edge("Generate", "Classify", "Classify", max_records=64),
           _edge("Classify", "Accumulate", "Accumulate", max_records=1)], backing=260)

# a recursive thread node with an explicit entry, a root-argument table and an empty output
RECURSIVE = _model("lib_6_8", [
    _node("Walk", "thread", entry=True, explicit=True, recursion=8, table=2,
          inp=_input("ThreadNodeInputRecord", "TreeRecord", 8, 4),
          outputs=[_output("Walk", "NodeOutput", "TreeRecord", 8, 4, max_records=2),
                   _output("Leaf", "EmptyNodeOutput", max_records=1)], backing=16),
    _node("Leaf", "coalescing", depth=2, threads=(8, 1, 1), inp=_input("EmptyNodeInput", max_records=4)),
], depth=2, limit=32, chain=["Walk", "Leaf"], entries=["Walk"],
    edges=[_edge("Walk", "Walk", "Walk", max_records=2, recursive=True),
           _edge("Walk", "Leaf", "Leaf", "EmptyNodeOutput", 1)], backing=16)

# samples/seed_loops_nested.hlsl
_CELL = ("CellRecord", 20, 4)
NESTED_LOOPS = _model("lib_6_9", [
    _node("MyOuterLoopEntry", "thread", entry=True, explicit=True, loop="MyOuterLoopEntry",
          loop_entry={"max_iterations": 8, "max_records_per_iteration": 1},
          inp=_input("ThreadNodeInputRecord", *_CELL),
          outputs=[_output("myInnerLoopEntry", "NodeOutput", *_CELL, target="MyInnerLoopEntry",
                           max_records=1)], backing=20),
    _node("MyInnerLoopEntry", "thread", depth=2, loop="MyInnerLoopEntry",
          loop_entry={"max_iterations": 8, "max_records_per_iteration": 1},
          inp=_input("ThreadNodeInputRecord", *_CELL),
          outputs=[_output("myLoopTerminal", "NodeOutput", *_CELL, target="MyLoopTerminal",
                           max_records=1)], backing=20),
    _node("MyLoopTerminal", "thread", depth=3, loop="MyInnerLoopEntry",
          inp=_input("ThreadNodeInputRecord", *_CELL),
          outputs=[_output("myInnerLoopEntry", "NodeOutput", *_CELL, target="MyInnerLoopEntry",
                           max_records=1),
                   _output("myOuterLoopEntry", "NodeOutput", *_CELL, target="MyOuterLoopEntry",
                           max_records=1)], backing=40),
], depth=3, limit=48, chain=["MyOuterLoopEntry", "MyInnerLoopEntry", "MyLoopTerminal"],
    entries=["MyOuterLoopEntry"],
    edges=[_edge("MyOuterLoopEntry", "MyInnerLoopEntry", "myInnerLoopEntry", max_records=1),
           _edge("MyInnerLoopEntry", "MyLoopTerminal", "myLoopTerminal", max_records=1),
           _edge("MyLoopTerminal", "MyInnerLoopEntry", "myInnerLoopEntry", max_records=1, loop_back=True),
           _edge("MyLoopTerminal", "MyOuterLoopEntry", "myOuterLoopEntry", max_records=1, loop_back=True)],
    loops=[{"entry": "MyOuterLoopEntry", "max_iterations": 8, "parent": None,
            "members": ["MyOuterLoopEntry", "MyInnerLoopEntry", "MyLoopTerminal"]},
           {"entry": "MyInnerLoopEntry", "max_iterations": 8, "parent": "MyOuterLoopEntry",
            "members": ["MyInnerLoopEntry", "MyLoopTerminal"]}], backing=80)

# node output arrays: [MaxRecordsPerNode], a shared budget, unbounded sparse (missing target), empty output
_HIT = ("HitRecord", 16, 4)
ARRAYS = _model("lib_6_9", [
    _node("Shade", "broadcasting", entry=True, threads=(8, 8, 1), max_grid=[256, 256, 1],
          inp=_input("DispatchNodeInputRecord", "TileRecord", 12, 4,
                     grid_field={"offset": 4, "components": 2, "bits": 16}),
          outputs=[_output("Materials", "NodeOutputArray", *_HIT, max_records=64, per_node=4,
                           per_node_written=True, array_size=8),
                   _output("Extra", "NodeOutputArray", *_HIT, shared="Materials", shared_index=0,
                           per_node=64, array_size=4294967295, unbounded=True),
                   _output("Done", "EmptyNodeOutput", max_records=1)], backing=512),
    _node("MaterialA", "thread", name="Materials", depth=2, table=0,
          inp=_input("ThreadNodeInputRecord", *_HIT)),
    _node("MaterialB", "thread", name="Materials", index=1, depth=2, table=1,
          share={"name": "Materials", "index": 0}, inp=_input("ThreadNodeInputRecord", *_HIT)),
    _node("Done", "coalescing", depth=2, threads=(1, 1, 1), inp=_input("EmptyNodeInput")),
], depth=2, limit=48, chain=["Shade", "Materials"], entries=["Shade"],
    edges=[_edge("Shade", "Materials", "Materials", "NodeOutputArray", 64),
           _edge("Shade", "Materials[1]", "Materials", "NodeOutputArray", 64),
           _edge("Shade", "Extra", "Extra", "NodeOutputArray"),
           _edge("Shade", "Done", "Done", "EmptyNodeOutput", 1)],
    slots=4, backing=512, without=8192)

ALL = {"hello": HELLO, "recursive": RECURSIVE, "loops": NESTED_LOOPS, "arrays": ARRAYS}


# ---------------------------------------------------------------------------------------------
# text

HELLO_TEXT = """\
work graph: 3 nodes, profile lib_6_8, depth 3 (limit 32)
entries: Generate

Generate  [broadcasting, entry]  NodeID Generate[0]  SPIR-V entry point Generate
  threads: 64x1x1
  max dispatch grid: 1024x1x1
  input: DispatchNodeInputRecord<EntryRecord> (8 bytes, align 4), SV_DispatchGrid at byte 0 (1 x uint)
  output 0 Classify: NodeOutput<ItemRecord> (4 bytes, align 4), MaxRecords 64 -> Classify
  backing memory: 256 bytes

Classify  [thread]  NodeID Classify[0]  SPIR-V entry point Classify
  threads: 1x1x1
  input: ThreadNodeInputRecord<ItemRecord> (4 bytes, align 4)
  output 0 Accumulate: NodeOutput<BinRecord> (4 bytes, align 4), MaxRecords 1 -> Accumulate
  backing memory: 4 bytes

Accumulate  [coalescing]  NodeID Accumulate[0]  SPIR-V entry point Accumulate
  threads: 32x1x1
  input: GroupNodeInputRecords<BinRecord> (4 bytes, align 4), MaxRecords 32
  outputs: none
  backing memory: 0 bytes

graph:
  edges:
    Generate --Classify (≤64)--> Classify
    Classify --Accumulate (≤1)--> Accumulate
  loops: none
  longest chain: Generate -> Classify -> Accumulate (depth 3)
  NodeID slots: 3
  backing memory: 260 bytes
"""


def test_text_hello_exact():
    assert render_text(HELLO) == HELLO_TEXT


@pytest.mark.parametrize("name", sorted(ALL))
def test_text_is_clean_and_deterministic(name):
    model = ALL[name]
    before = copy.deepcopy(model)
    text = render_text(model)
    assert text == render_text(copy.deepcopy(model))
    assert model == before
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert all(line == line.rstrip() for line in text.splitlines())


def test_text_arrays_recursion_loops():
    arrays = render_text(ARRAYS)
    assert ("  output 0 Materials: NodeOutputArray<HitRecord> (16 bytes, align 4), MaxRecords 64, "
            "MaxRecordsPerNode 4, NodeArraySize 8 -> Materials[0..7]") in arrays
    assert ("  output 1 Extra: NodeOutputArray<HitRecord> (16 bytes, align 4), MaxRecords shared with "
            "Materials (output 0), MaxRecordsPerNode 64 (implied), NodeArraySize unbounded, "
            "UnboundedSparseNodes -> Extra[0..]") in arrays
    assert "  output 2 Done: EmptyNodeOutput, MaxRecords 1 -> Done" in arrays
    assert "MaterialB  [thread]  NodeID Materials[1]" in arrays
    assert "  shares input of: Materials" in arrays
    assert "    Shade --Extra (shared with Materials)--> Extra  [missing target]" in arrays
    assert "    Shade --Materials (≤64)--> Materials[1]" in arrays
    assert ("  backing memory: 512 bytes (without [MaxRecordsPerNode]: 8192 bytes; saves 7680 bytes)"
            in arrays)

    recursive = render_text(RECURSIVE)
    assert "Walk  [thread, entry]  NodeID Walk[0]  SPIR-V entry point Walk" in recursive
    assert "  recursion: max depth 8" in recursive
    assert "  local root arguments table index: 2" in recursive
    assert "  input: EmptyNodeInput, MaxRecords 4" in recursive
    assert "    Walk --Walk (≤2)--> Walk  [recursion]" in recursive

    loops = render_text(NESTED_LOOPS)
    assert "MyOuterLoopEntry  [thread, entry, loop entry]  NodeID MyOuterLoopEntry[0]" in loops
    assert "  loop entry: max 8 iterations, max 1 records per iteration" in loops
    assert "  loop: member of MyInnerLoopEntry" in loops
    assert ("  loops:\n"
            "    MyOuterLoopEntry: max 8 iterations, max 1 records per iteration; members: "
            "MyOuterLoopEntry, MyInnerLoopEntry, MyLoopTerminal\n"
            "      MyInnerLoopEntry (inside MyOuterLoopEntry): max 8 iterations, max 1 records per "
            "iteration; members: MyInnerLoopEntry, MyLoopTerminal\n") in loops
    assert "    MyLoopTerminal --myOuterLoopEntry (≤1)--> MyOuterLoopEntry  [loop back-edge]" in loops


# ---------------------------------------------------------------------------------------------
# DOT

HELLO_DOT = """\
digraph "work graph" {
  graph [label="lib_6_8: 3 nodes, depth 3 of 32", labelloc=t, fontname="Helvetica"];
  node [shape=box, style=rounded, fontname="Helvetica"];
  edge [fontname="Helvetica", fontsize=10];
  "Generate" [label="Generate\\nbroadcasting, max grid 1024x1x1\\nthreads 64x1x1\\nEntryRecord", style="rounded,bold", peripheries=2];
  "Classify" [label="Classify\\nthread\\nItemRecord"];
  "Accumulate" [label="Accumulate\\ncoalescing, ≤32 records\\nthreads 32x1x1\\nBinRecord"];
  "Generate" -> "Classify" [label="Classify (≤64)"];
  "Classify" -> "Accumulate" [label="Accumulate (≤1)"];
  subgraph "legend" {
    rank=sink;
    "(legend)" [label="legend\\lOut (≤N): output parameter Out, at most N records ([MaxRecords])\\l", shape=note, fontsize=9, color=gray40, fontcolor=gray30];
  }
}
"""


def test_dot_hello_exact():
    assert render_dot(HELLO) == HELLO_DOT


def test_dot_recursion_edge_is_dashed():
    text = render_dot(RECURSIVE)
    assert '"Walk" -> "Walk" [label="Walk (≤2)\\nrecursion ≤ 8", style=dashed];' in text
    assert '"Walk" -> "Leaf" [label="Leaf (≤1)"];' in text
    assert '"Leaf" [label="Leaf\\ncoalescing, ≤4 records\\nthreads 8x1x1\\nEmptyNodeInput"];' in text


def test_dot_loop_clusters_nest_by_parent():
    text = render_dot(NESTED_LOOPS)
    lines = text.splitlines()
    outer = lines.index('  subgraph "cluster_loop_0" {')
    inner = lines.index('    subgraph "cluster_loop_1" {')
    inner_end = lines.index("    }", inner)
    outer_end = lines.index("  }", outer)
    assert outer < inner < inner_end < outer_end
    assert 'label="loop MyOuterLoopEntry (≤8 iterations, ≤1 records/iteration)"' in lines[outer + 1]
    # each node is declared once, in its innermost loop's cluster
    declared = {m.group(1): i for i, line in enumerate(lines)
                if (m := re.match(r'\s*"(\w+)" \[label=', line))}
    assert outer < declared["MyOuterLoopEntry"] < inner
    assert inner < declared["MyInnerLoopEntry"] < inner_end
    assert inner < declared["MyLoopTerminal"] < inner_end
    assert sum(line.lstrip().startswith('"MyLoopTerminal" [') for line in lines) == 1
    back = [line for line in lines if '"MyLoopTerminal" -> "MyOuterLoopEntry"' in line]
    assert back == ['  "MyLoopTerminal" -> "MyOuterLoopEntry" [label="myOuterLoopEntry (≤1)\\nloop", '
                    'color=blue, fontcolor=blue, constraint=false];']
    forward = [line for line in lines if '"MyOuterLoopEntry" -> "MyInnerLoopEntry"' in line]
    assert "loop" not in forward[0].split("label=")[1].split(",")[0] and "color" not in forward[0]


def test_dot_missing_target_placeholder_and_indices():
    text = render_dot(ARRAYS)
    assert '  "Extra" [label="Extra\\n(missing)", style="rounded,dotted"];' in text
    assert '  "Shade" -> "Extra" [label="Extra (shared with Materials)", style=dotted];' in text
    assert '  "Materials[1]" [label="Materials[1]\\n(MaterialB)\\nthread\\nHitRecord"];' in text
    assert '  "Materials" [label="Materials\\n(MaterialA)\\nthread\\nHitRecord"];' in text


def test_dot_escapes_identifiers():
    model = _renamed(HELLO, 'ns::Gen"x\\y')
    text = render_dot(model)
    assert '(ns::Gen\\"x\\\\y)' in text


@pytest.mark.parametrize("name", sorted(ALL))
def test_dot_deterministic(name):
    model = ALL[name]
    before = copy.deepcopy(model)
    assert render_dot(model) == render_dot(copy.deepcopy(model))
    assert model == before


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize("name", sorted(ALL))
def test_dot_accepted_by_graphviz(name):
    svg = render_image(render_dot(ALL[name]), "svg")
    assert b"<svg" in svg
    if name == "loops":
        assert b"cluster_loop_1" in svg
        assert render_image(render_dot(ALL[name]), "png").startswith(b"\x89PNG")


def test_render_image_without_graphviz(monkeypatch):
    monkeypatch.setattr(dot_view.shutil, "which", lambda name: None)
    with pytest.raises(GraphvizMissing) as caught:
        render_image(render_dot(HELLO), "svg")
    assert str(caught.value) == ("Graphviz 'dot' is not installed; install Graphviz (e.g. 'apt-get "
                                 "install graphviz') or use --format dot and render it yourself")


def test_render_image_rejects_unknown_format():
    with pytest.raises(ValueError):
        render_image("digraph {}", "pdf")


# ---------------------------------------------------------------------------------------------
# DXIL metadata

_OPERAND = re.compile(r'\s*(?:(i\d+) (-?\d+|true|false)|!"((?:[^"\\]|\\.)*)"|(!\d+)|(null)|'
                      r'(?:ptr|void \(\)\*|(?:\[\d+ x )?%(?:"[^"]*"|[\w.$-]+)\]?\*) (@(?:"[^"]*"|[^",}\s]+)))\s*(?:,|$)')


def _metadata(text):
    """Named and numbered metadata of LLVM IR text: ({name: [nodes]}, resolve)."""
    numbered, named = {}, {}
    for line in text.splitlines():
        if m := re.fullmatch(r"(!\d+) = (?:distinct )?!\{\s*(.*?)\s*\}", line):
            numbered[m.group(1)] = m.group(2)
        elif m := re.fullmatch(r"!([\w.]+) = !\{\s*(.*?)\s*\}", line):
            named[m.group(1)] = [ref.strip() for ref in m.group(2).split(",")]

    def operands(body):
        out, pos = [], 0
        while pos < len(body):
            m = _OPERAND.match(body, pos)
            assert m, f"cannot read metadata operand at {body[pos:]!r}"
            pos = m.end()
            if m.group(1):
                value = m.group(2)
                out.append(value == "true" if m.group(1) == "i1" else int(value))
            elif m.group(3) is not None:
                out.append(m.group(3))
            elif m.group(4):
                out.append(resolve(m.group(4)))
            elif m.group(5):
                out.append(None)
            else:
                out.append(m.group(6))
        return out

    def resolve(ref):
        return operands(numbered[ref])

    return {name: [resolve(ref) for ref in refs] for name, refs in named.items()}


def _pairs(tuple_):
    assert len(tuple_) % 2 == 0
    return [(tuple_[i], tuple_[i + 1]) for i in range(0, len(tuple_), 2)]


def _entries(md):
    """dx.entryPoints' function entries by name (DXC sorts them by function name)."""
    entries = md["dx.entryPoints"][1:]
    assert [e[1] for e in entries] == sorted(e[1] for e in entries)
    return {e[1]: e for e in entries}


def test_dxil_arrays_metadata_structure():
    text = render_dxil(ARRAYS, proposals=("max-records-per-node", "work-graph-loops"))
    parsed = parse_dxil(text)
    for source in (text, str(parsed)):  # wgc's text, and LLVM's after the round trip
        md = _metadata(source)
        assert md["dx.version"] == [[1, 9]]
        assert md["dx.shaderModel"] == [["lib", 6, 9]]
        assert md["dx.entryPoints"][0] == [None, "", None, None, None]
        entries = _entries(md)
        assert list(entries) == ["Done", "MaterialA", "MaterialB", "Shade"]
        assert entries["Shade"][0].strip('@"') == "Shade" and entries["Shade"][2:4] == [None, None]
        shade = _pairs(entries["Shade"][4])
        assert [tag for tag, _ in shade] == [8, 13, 15, 16, 22, 20, 21, 4, 5]
        props = dict(shade)
        assert props[8] == 15 and props[13] == 1
        assert props[15] == ["Shade", 0] and props[16] == -1
        assert props[22] == [256, 256, 1] and props[4] == [8, 8, 1] and props[5] == [0]
        [inp] = props[20]
        assert inp == [1, 0x61, 2, [0, 12, 1, [4, 3, 2], 2, 4]]
        materials, extra, done = props[21]
        assert materials == [1, 0x16, 2, [0, 16, 2, 4], 3, 64, 5, 8, 0, ["Materials", 0], 7, 4]
        assert extra == [1, 0x16, 2, [0, 16, 2, 4], 3, 0, 5, -1, 4, 0, 6, True, 0, ["Extra", 0], 7, 64]
        assert done == [1, 0x0A, 3, 1, 0, ["Done", 0]]
        material_b = dict(_pairs(entries["MaterialB"][4]))
        assert [tag for tag, _ in _pairs(entries["MaterialB"][4])] == [8, 13, 15, 16, 17, 20, 4, 5]
        assert material_b[15] == ["Materials", 1] and material_b[16] == 1
        assert material_b[17] == ["Materials", 0] and material_b[13] == 3
        assert dict(_pairs(entries["Done"][4]))[20] == [[1, 0x09]]
        assert md["wgc.experimental.tags"] == [["NodeMaxLoopIterations", 0x20000],
                                               ["NodeMaxRecordsPerLoopIteration", 0x20001]]


def test_dxil_proposal_tags_need_their_opt_in():
    """Proposal 0025's MaxRecordsPerNode (tag 7) is in no released DXC (PR #7177 is open), and the
    loops proposal's tags are wgc's own numbers: without -fmax-records-per-node / -fwork-graph-loops
    the view shows what DXC emits, none of them."""
    md = _metadata(render_dxil(ARRAYS))
    materials, extra, _ = dict(_pairs(_entries(md)["Shade"][4]))[21]
    assert materials == [1, 0x16, 2, [0, 16, 2, 4], 3, 64, 5, 8, 0, ["Materials", 0]]
    assert extra == [1, 0x16, 2, [0, 16, 2, 4], 3, 0, 5, -1, 4, 0, 6, True, 0, ["Extra", 0]]
    assert "wgc.experimental.tags" not in md
    loops = _entries(_metadata(render_dxil(NESTED_LOOPS)))
    assert all(0x20000 not in dict(_pairs(e[4])) for e in loops.values())
    with_loops = _entries(_metadata(render_dxil(NESTED_LOOPS, proposals=("work-graph-loops",))))
    assert any(0x20000 in dict(_pairs(e[4])) for e in with_loops.values())
    # the proposals apply above Work Graphs 1.0 only: lib_6_8 never shows them
    work_graphs_1_0 = replace(ARRAYS, profile="lib_6_8")
    assert ", i32 7, i32" not in render_dxil(work_graphs_1_0, proposals=("max-records-per-node", "work-graph-loops"))


def test_dxil_hello_recursion_and_loops():
    hello = _metadata(render_dxil(HELLO))
    assert hello["dx.shaderModel"] == [["lib", 6, 8]]
    entries = _entries(hello)
    generate, classify, accumulate = entries["Generate"], entries["Classify"], entries["Accumulate"]
    assert generate[4][:6] == [8, 15, 13, 1, 15, ["Generate", 0]]  # implied entry: no tag 14
    assert dict(_pairs(generate[4]))[20] == [[1, 0x61, 2, [0, 8, 1, [0, 5, 1], 2, 4]]]
    assert dict(_pairs(generate[4]))[21] == [[1, 6, 2, [0, 4, 2, 4], 3, 64, 0, ["Classify", 0]]]
    assert dict(_pairs(classify[4]))[20] == [[1, 0x21, 2, [0, 4, 2, 4]]]
    assert dict(_pairs(accumulate[4]))[20] == [[1, 0x41, 2, [0, 4, 2, 4], 3, 32]]
    assert 21 not in dict(_pairs(accumulate[4]))

    walk = _entries(_metadata(render_dxil(RECURSIVE)))["Walk"][4]
    assert [tag for tag, _ in _pairs(walk)] == [8, 13, 14, 15, 16, 19, 20, 21, 4, 5]
    props = dict(_pairs(walk))
    assert props[14] is True and props[16] == 2 and props[19] == 8 and props[4] == [1, 1, 1]
    assert props[21][1] == [1, 0x0A, 3, 1, 0, ["Leaf", 0]]

    loops = _entries(_metadata(render_dxil(NESTED_LOOPS, proposals=("work-graph-loops",))))
    outer = _pairs(loops["MyOuterLoopEntry"][4])
    assert [tag for tag, _ in outer][-4:] == [4, 0x20000, 0x20001, 5]
    assert dict(outer)[0x20000] == 8 and dict(outer)[0x20001] == 1
    assert 0x20000 not in dict(_pairs(loops["MyLoopTerminal"][4]))


@pytest.mark.parametrize("name", sorted(ALL))
def test_dxil_parses_and_is_deterministic(name):
    model = ALL[name]
    before = copy.deepcopy(model)
    text = render_dxil(model)
    assert text == render_dxil(copy.deepcopy(model)) and model == before
    assert text.endswith("\n")
    parse_dxil(text)


def test_dxil_qualified_function_names_parse():
    model = _renamed(HELLO, "ns::Generate")
    text = render_dxil(model)
    assert 'declare void @"ns::Generate"()' in text       # LLVM quotes a name holding ':'
    assert "declare void @Classify()" in text              # and only such names
    assert "ns::Generate" in _entries(_metadata(str(parse_dxil(text))))


def test_node_io_flags():
    assert input_flags(_input("RWDispatchNodeInputRecord", coherent=True)) == 0x265
    assert input_flags(_input("RWGroupNodeInputRecords", "R", 4, 4, track=True)) == 0x145
    assert input_flags(_input("RWThreadNodeInputRecord")) == 0x25
    assert input_flags(_input("EmptyNodeInput")) == 0x09
    assert output_flags(_output("o", "EmptyNodeOutputArray")) == 0x1A
    assert output_flags(_output("o", "NodeOutputArray")) == 0x16
    assert output_flags(_output("o", "NodeOutput")) == 0x06


# ---------------------------------------------------------------- resources (issue 12)

RESOURCE_PROGRAM = """
struct E { float4 v; };
cbuffer Frame : register(b2, space1) { float4 tint; uint mode; }
float scale;
Texture2D<float4> Albedo : register(t1);
Texture2DArray<unorm float4> Layers[3];
StructuredBuffer<E> Elems : register(t4);
ByteAddressBuffer Raw : register(t5);
RaytracingAccelerationStructure Scene : register(t6);
Buffer<int> Ids : register(t7);
globallycoherent RWStructuredBuffer<uint> Counts : register(u10);
RWTexture2D<float> Target : register(u11);
AppendStructuredBuffer<uint> Log : register(u12);
SamplerState Linear : register(s20);
SamplerComparisonState Shadow : register(s21);
struct R { uint x; };
[Shader("node")] [NodeLaunch("thread")]
void T(ThreadNodeInputRecord<R> r)
{
    uint i = r.Get().x;
    float4 c = Albedo.SampleLevel(Linear, float2(0, 0), 0) * tint * scale + Layers[i % 3].Load(int4(0, 0, 0, 0));
    c.x += Elems[i].v.x + asfloat(Raw.Load(0)) + Ids[i] + Albedo.SampleCmpLevelZero(Shadow, float2(0, 0), 0.5);
    Counts[mode] = (uint)c.x;
    Target[uint2(i, 0)] = c.y;
    Log.Append(i);
}
"""


def _program_view(tmp_path, view, **options):
    from wgc import driver

    path = tmp_path / "resources.hlsl"
    path.write_text(RESOURCE_PROGRAM)
    result = driver.compile(driver.Options(input=str(path), emit=view, **options))
    assert result.ok and not result.diagnostics, [d.message for d in result.diagnostics]
    return result.outputs[view].decode()


def test_text_resources_section_exact(tmp_path):
    """Bindings by docs/reference.md's rules: registers give (space, number); $Globals (declared with its first
    member, `scale`) and then Layers take the lowest free bindings of set 0 (0, then 2); each counter
    the first free binding after its buffer's."""
    text = _program_view(tmp_path, "text")
    assert "  resources: Albedo, Linear, Frame, $Globals, Layers, Elems, Raw, Ids, Shadow, Counts, Target, Log, " \
           "counter.var.Log\n" in text
    section = text[text.index("\nresources:\n") + 1:]
    assert section == "\n".join([
        "resources:",
        "  Frame: cbuffer, register(b2, space1) -> set 1, binding 2 (uniform buffer), 32 bytes std140; used by T",
        "    @0 float4 tint",
        "    @16 uint mode",
        "  $Globals: cbuffer, implicit register (b) -> set 0, binding 0 (uniform buffer), 16 bytes std140; used by T",
        "    @0 float scale",
        "  Albedo: Texture2D<float4>, register(t1) -> set 0, binding 1 (sampled image); used by T",
        "  Layers: Texture2DArray<unorm float4>[3], implicit register (t) -> set 0, binding 2 (sampled image x 3); "
        "used by T",
        "  Elems: StructuredBuffer<E>, register(t4) -> set 0, binding 4 (storage buffer), E: 16 bytes std430, "
        "stride 16; used by T",
        "    @0 float4 v",
        "  Raw: ByteAddressBuffer, register(t5) -> set 0, binding 5 (storage buffer); used by T",
        "  Scene: RaytracingAccelerationStructure, register(t6) -> set 0, binding 6 (acceleration structure); "
        "not used by any node",
        "  Ids: Buffer<int>, register(t7) -> set 0, binding 7 (uniform texel buffer); used by T",
        "  Counts: globallycoherent RWStructuredBuffer<uint>, register(u10) -> set 0, binding 10 (storage buffer), "
        "uint: 4 bytes std430, stride 4, counter at set 0, binding 13 (unused); used by T",
        "  Target: RWTexture2D<float>, register(u11) -> set 0, binding 11 (storage image); used by T",
        "  Log: AppendStructuredBuffer<uint>, register(u12) -> set 0, binding 12 (storage buffer), uint: 4 bytes "
        "std430, stride 4, counter at set 0, binding 14 (used by T); used by T",
        "  Linear: SamplerState, register(s20) -> set 0, binding 20 (sampler); used by T",
        "  Shadow: SamplerComparisonState, register(s21) -> set 0, binding 21 (sampler); used by T",
        ""])


def test_dxil_resources_metadata_structure(tmp_path):
    """DXC's field order (DxilMetadataHelper): ID, global, name, space, lower bound, range, then per
    class kind/sample count/flags/size; DXIL::ResourceKind and ComponentType numbers by hand."""
    text = _program_view(tmp_path, "dxil")
    for source in (text, str(parse_dxil(text))):
        md = _metadata(source)
        [resources] = md["dx.resources"]
        srvs, uavs, cbuffers, samplers = resources
        assert [r[2:] for r in srvs] == [
            ["Albedo", 0, 1, 1, 2, 0, [0, 9]],            # Texture2D, F32
            ["Layers", -1, -1, 3, 7, 0, [0, 14]],         # unbound; Texture2DArray, UNormF32
            ["Elems", 0, 4, 1, 12, 0, [1, 16]],           # StructuredBuffer, stride 16
            ["Raw", 0, 5, 1, 11, 0, None],                # RawBuffer
            ["Scene", 0, 6, 1, 16, 0, None],              # RTAccelerationStructure
            ["Ids", 0, 7, 1, 10, 0, [0, 4]],              # TypedBuffer, I32
        ]
        assert [r[2:] for r in uavs] == [
            ["Counts", 0, 10, 1, 12, True, False, False, [1, 4]],   # globallycoherent, counter unused
            ["Target", 0, 11, 1, 2, False, False, False, [0, 9]],
            ["Log", 0, 12, 1, 12, False, True, False, [1, 4]],      # Append uses its counter
        ]
        assert [r[2:] for r in cbuffers] == [["Frame", 1, 2, 1, 32, None], ["$Globals", -1, -1, 1, 16, None]]
        assert [r[2:] for r in samplers] == [["Linear", 0, 20, 1, 0, None], ["Shadow", 0, 21, 1, 1, None]]
        assert [[r[0] for r in lst] for lst in resources] == [[0, 1, 2, 3, 4, 5], [0, 1, 2], [0, 1], [0, 1]]
        assert md["dx.entryPoints"][0][:3] == [None, "", None] and md["dx.entryPoints"][0][3] == resources
    assert '@Layers = external constant [3 x %"class.Texture2DArray<float4>"]' in text
    assert "@Frame = external constant %Frame" in text
    assert '@"$Globals" = external constant %"$Globals"' in text     # LLVM quotes a name holding '$'



def test_dot_draws_resources_only_when_asked(tmp_path):
    """Issue 30: "keep resources out unless asked (`--resources`)"."""
    dot = _program_view(tmp_path, "dot")
    assert "resource " not in dot and "cylinder" not in dot
    assert "gray line" not in dot                            # nor their row of the legend


def test_dot_draws_used_resources_apart_from_nodes(tmp_path):
    dot = _program_view(tmp_path, "dot", show_resources=True)
    assert '    "resource Log" [label="Log\\nAppendStructuredBuffer<uint>\\nset 0, binding 12\\nwritten", ' \
           'shape=cylinder' in dot                         # Append writes it: "written"
    assert '  subgraph "resources" {\n    rank=sink;\n' in dot    # below the nodes
    assert '"T" -> "resource Log" [style=dashed, color=gray60, arrowhead=none, constraint=false];' in dot
    assert '"resource Scene"' not in dot                     # no node uses it


# ---------------------------------------------------------------- the typed model (issue 28)


def test_views_read_the_typed_model_whose_json_is_the_inspect_output():
    """Issue 28, "Views on typed models, not `.get("key")` on dictionaries": `build_model` gives the
    typed `InspectModel`, whose `to_json()` is `--format json`'s document byte for byte, and the views
    read its fields (a dictionary, or a renamed field, fails instead of rendering defaults)."""
    import json
    from pathlib import Path

    from wgc import driver
    from wgc.metadata.model import build_model

    sample = str(Path(__file__).resolve().parent.parent / "samples" / "hello_work_graphs.hlsl")
    options = driver.Options(input=sample, emit="json")
    front = driver.run_front_end(options)
    assert front.analysis is not None
    model = build_model(front.analysis, front.analysis.nodes, driver.wgc_version())
    assert isinstance(model, InspectModel) and all(isinstance(n, NodeModel) for n in model.nodes)
    assert (json.dumps(model.to_json(), indent=2) + "\n").encode() == driver.compile(options).outputs["json"]
    assert render_text(model) == driver.compile(driver.Options(input=sample, emit="text")).outputs["text"].decode()
    with pytest.raises(AttributeError):
        render_text(model.to_json())


def test_the_model_records_wave_size_and_an_unwritten_max_records():
    """[WaveSize(min, max, preferred)] is kept for nodes and other entry points (0 for what is not
    written, as DXC's DxilWaveSize); an output with neither [MaxRecords] nor
    [MaxRecordsSharedWith] is marked, its MaxRecords being wgc's 1 (WG0409), not a written value."""
    source = "\n".join([
        "struct R { uint v; };",
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(32, 1, 1)]',
        "[WaveSize(32, 64)]",
        "void Root(NodeOutput<R> Next, [MaxRecords(2)] EmptyNodeOutput Done) {}",
        '[Shader("node")] [NodeLaunch("thread")] void Next(ThreadNodeInputRecord<R> r) {}',
        '[Shader("node")] [NodeLaunch("thread")] void Done() {}',
        '[Shader("compute")] [NumThreads(4, 1, 1)] [WaveSize(8)] void Clear() {}'])
    result = driver.compile(driver.Options(input="-", emit="json", profile="lib_6_8"), stdin=source.encode())
    model = json.loads(result.outputs["json"])
    nodes = {n["function"]: n for n in model["nodes"]}
    assert nodes["Root"]["wave_size"] == [32, 64, 0] and nodes["Next"]["wave_size"] is None
    assert model["entry_points"][0]["wave_size"] == [8, 0, 0]
    following, done = nodes["Root"]["outputs"]
    assert (following["max_records"], following["max_records_written"]) == (1, False)
    assert (done["max_records"], done["max_records_written"]) == (2, True)
