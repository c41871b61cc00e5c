"""One mistake, one error (issue 26): an invalid launch mode, an unknown type, a misspelt attribute
or a bad attribute argument, written once in a graph whose nodes use outputs, inputs, SV_ semantics
and Count()/Get(), gives exactly one error, at the mistake, and no follow-on error or warning from
the rules that depend on what the mistake left unknown (the launch mode, the record, the attribute).
A published file with 112 invalid launch modes got 333 follow-on errors; the last test writes the
same mistake in many nodes and counts one error per node.
"""

from __future__ import annotations

import pytest

from wgc import driver
from wgc.diagnostics import Diagnostic, Renderer

GRAPH = """\
struct Entry { uint3 grid : SV_DispatchGrid; uint count; };
struct Item { uint id; float3 pos; };
RWStructuredBuffer<uint> Out : register(u0);

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(64, 1, 1)]
[NumThreads(64, 1, 1)]
void Spawn(DispatchNodeInputRecord<Entry> entry, uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex,
           [MaxRecords(64)] NodeOutput<Item> Gather)
{
    bool has = dtid.x < entry.Get().count;
    ThreadNodeOutputRecords<Item> rec = Gather.GetThreadNodeOutputRecords(has ? 1 : 0);
    if (has) {
        rec.Get().id = dtid.x + gi;
        rec.Get().pos = float3(1, 2, 3);
    }
    rec.OutputComplete();
}

[Shader("node")]
[NodeLaunch("coalescing")]
[NumThreads(32, 1, 1)]
void Gather([MaxRecords(32)] GroupNodeInputRecords<Item> items, uint gi : SV_GroupIndex)
{
    if (gi < items.Count())
        Out[items[gi].id] = items.Get(gi).id;
}
"""


def diagnostics_of(source: str, profile: str = "lib_6_8") -> list[Diagnostic]:
    result = driver.compile(driver.Options(input="-", emit="ir", profile=profile), stdin=source.encode())
    return [d for d in result.diagnostics if d.severity.name != "NOTE"]


def mistake(old: str, new: str) -> str:
    assert GRAPH.count(old) == 1, old
    return GRAPH.replace(old, new)


def test_the_graph_without_a_mistake_is_clean() -> None:
    assert diagnostics_of(GRAPH) == []


# (the text replaced, the mistake written in its place, the one error's code, where it points)
ONE_ERROR = [
    # invalid launch modes, in a broadcasting node and in a coalescing one
    ('NodeLaunch("broadcasting")', 'NodeLaunch("brodcast")', "WG0401", '[NodeLaunch("brodcast")]'),
    ('NodeLaunch("coalescing")', 'NodeLaunch("coalesing")', "WG0401", '[NodeLaunch("coalesing")]'),
    ('NodeLaunch("coalescing")', 'NodeLaunch("Coalescing")', "WG0401", '[NodeLaunch("Coalescing")]'),
    ('NodeLaunch("coalescing")', 'NodeLaunch("threads")', "WG0401", '[NodeLaunch("threads")]'),
    ('NodeLaunch("coalescing")', "NodeLaunch(3)", "WG0401", "[NodeLaunch(3)]"),
    ('NodeLaunch("coalescing")', "NodeLaunch()", "WG0401", "[NodeLaunch()]"),
    ('NodeLaunch("broadcasting")', "NodeLaunch(broadcasting)", "WG0301", "broadcasting"),
    ('NodeLaunch("coalescing")', 'NodeLaunch("mesh")', "WG0490", '[NodeLaunch("mesh")]'),   # lib_6_8
    # unknown types: the input record, the output record, the entry record, a record field, a local
    ("GroupNodeInputRecords<Item>", "GroupNodeInputRecords<Itm>", "WG0314", "Itm"),
    ("NodeOutput<Item>", "NodeOutput<Itm>", "WG0314", "Itm"),
    ("DispatchNodeInputRecord<Entry>", "DispatchNodeInputRecord<Entri>", "WG0314", "Entri"),
    ("uint id; float3 pos;", "uint id; flaot3 pos;", "WG0201", "flaot3"),
    ("bool has =", "boool has =", "WG0201", "boool"),
    # a misspelt attribute the node needs: the missing attribute is the one error
    ("[NodeMaxDispatchGrid(64, 1, 1)]", "[NodeMaxDispatchGird(64, 1, 1)]", "WG0403", "Spawn"),
    ("[NumThreads(32, 1, 1)]", "[NumThread(32, 1, 1)]", "WG0403", "Gather"),
    # bad attribute arguments
    ("[NodeMaxDispatchGrid(64, 1, 1)]", "[NodeMaxDispatchGrid(0, 1, 1)]", "WG0405", "0"),
    ("[NodeMaxDispatchGrid(64, 1, 1)]", "[NodeMaxDispatchGrid(64, 1)]", "WG0405", "[NodeMaxDispatchGrid(64, 1)]"),
    ("[NodeMaxDispatchGrid(64, 1, 1)]", "[NodeMaxDispatchGrid(x, 1, 1)]", "WG0301", "x"),
    ("[NumThreads(32, 1, 1)]", "[NumThreads(32, 1)]", "WG0405", "[NumThreads(32, 1)]"),
    ("[MaxRecords(64)] NodeOutput", "[MaxRecords(-3)] NodeOutput", "WG0405", "-3"),
    ("[MaxRecords(32)] GroupNode", "[MaxRecords(0)] GroupNode", "WG0405", "0"),
    ("[MaxRecords(32)] GroupNode", '[MaxRecords("x")] GroupNode', "WG0405", '"x"'),
    ('[Shader("node")]\n[NodeLaunch("broadcasting")]', '[Shader("nod")]\n[NodeLaunch("broadcasting")]', "WG0405",
     '[Shader("nod")]'),
    ('[Shader("node")]\n[NodeLaunch("broadcasting")]', '[Shader(node)]\n[NodeLaunch("broadcasting")]', "WG0301",
     "node"),
]


@pytest.mark.parametrize(("old", "new", "code", "at"), [pytest.param(*case, id=case[1]) for case in ONE_ERROR])
def test_one_mistake_gives_one_error(old: str, new: str, code: str, at: str) -> None:
    source = mistake(old, new)
    found = diagnostics_of(source)
    errors = [d for d in found if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == [code], Renderer().render(found)
    span = errors[0].span
    assert span is not None and source[span.start:span.end].startswith(at)
    # warnings: only the misspelling's own (WG0343, or NumThreads' range, WG0358), never a follow-on
    assert {d.code for d in found if d.severity.name == "WARNING"} <= {"WG0343", "WG0358"}, Renderer().render(found)


@pytest.mark.parametrize("threads", ["(64, 1, 0)", "(2000, 1, 1)"])
def test_num_threads_outside_its_range_is_dxcs_warning_and_one_error(threads: str) -> None:
    """DXC ignores a [NumThreads] whose thread count is outside 1..1024 with a warning; the node then
    lacks it: one warning, one error that points at the ignored attribute."""
    found = diagnostics_of(mistake("[NumThreads(64, 1, 1)]", f"[NumThreads{threads}]"))
    assert [(d.code, d.severity.name) for d in found] == [("WG0358", "WARNING"), ("WG0403", "ERROR")]
    assert any("is ignored" in label.message for label in found[1].labels)


def test_misspelt_attribute_points_the_missing_attribute_error_at_it() -> None:
    found = diagnostics_of(mistake("[NodeMaxDispatchGrid(64, 1, 1)]", "[NodeMaxDispatchGird(64, 1, 1)]"))
    assert [d.code for d in found] == ["WG0343", "WG0403"]
    assert [label.message for label in found[1].labels] == [
        "'NodeMaxDispatchGird' is not [NodeMaxDispatchGrid]: an unknown attribute is ignored"]


def test_misspelt_shader_attribute_is_its_warning_only() -> None:
    """[Shadr("node")]: the function is no shader (DXC warns the same); its node attributes are not
    reported again as 'ignored without accompanying shader attribute'."""
    found = diagnostics_of(mistake('[Shader("node")]\n[NodeLaunch("broadcasting")]',
                                   '[Shadr("node")]\n[NodeLaunch("broadcasting")]'))
    assert [d.code for d in found] == ["WG0343"]


def test_a_node_that_does_not_parse_is_no_missing_node() -> None:
    """A syntax error drops Gather's declaration: Spawn's output to it is no 'missing node' warning."""
    found = diagnostics_of(mistake("GroupNodeInputRecords<Item> items", "GroupNodeInputRecord<Item> items"))
    assert [d.code for d in found] == ["WG0201"]


def test_many_invalid_launch_modes_give_one_error_each() -> None:
    """Twenty thread-launch nodes in a chain, each with [NodeLaunch("Thread")] (launch modes are case
    sensitive) and everything a thread node uses: twenty errors, nothing else."""
    nodes = []
    for i in range(20):
        output = f", [MaxRecords(1)] NodeOutput<Item> N{i + 1}" if i < 19 else ""
        body = (f"ThreadNodeOutputRecords<Item> r = N{i + 1}.GetThreadNodeOutputRecords(1); "
                "r.Get().id = item.Get().id + 1; r.OutputComplete();" if i < 19 else "Out[0] = item.Get().id;")
        nodes.append(f'[Shader("node")] [NodeLaunch("Thread")]\n'
                     f"void N{i}(ThreadNodeInputRecord<Item> item{output}) {{ {body} }}\n")
    source = "struct Item { uint id; };\nRWStructuredBuffer<uint> Out : register(u0);\n" + "".join(nodes)
    found = diagnostics_of(source)
    assert [d.code for d in found] == ["WG0401"] * 20, Renderer().render(found)
