"""The table of work-graph attributes (`wgc.sema.node_attributes`): the lists the stages read are
derived from it and equal what they were when each stage kept its own (so behaviour is unchanged),
every row's `fills` names a real field of the node description, every row is a known attribute
(its spelling is the one WG0343 suggests), its DXIL tags are DXC's (workgraph-rules.md §1.15), and
its ranges follow the profile and the proposals.
"""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from wgc import codes
from wgc.diagnostics import DiagnosticKind
from wgc.sema import node_attributes as na
from wgc.sema.attributes import KNOWN_ATTRIBUTES
from wgc.sema.context import SemaOptions
from wgc.sema.mesh import MeshInfo
from wgc.sema.nodes import NodeInfo, NodeInput, NodeOutput


def test_the_derived_lists_are_the_lists_the_stages_kept() -> None:
    assert na.FUNCTION_ATTRIBUTES == {
        "shader", "nodelaunch", "numthreads", "nodedispatchgrid", "nodemaxdispatchgrid", "nodeisprogramentry",
        "nodeid", "nodelocalrootargumentstableindex", "nodeshareinputof", "nodemaxrecursiondepth",
        "nodemaxloopiterations", "nodemaxrecordsperloopiteration", "wavesize", "outputtopology",
        "nodemaxinputrecordspergraphentryrecord"}
    assert na.NODE_ONLY_FUNCTION_ATTRIBUTES == na.FUNCTION_ATTRIBUTES - {"shader", "numthreads", "wavesize",
                                                                          "outputtopology"}
    assert na.OUTPUT_ATTRIBUTES == {"maxrecords", "maxrecordssharedwith", "nodeid", "allowsparsenodes",
                                    "nodearraysize", "unboundedsparsenodes", "maxrecordspernode"}
    assert na.NAME_ARGUMENT_ATTRIBUTES == {"maxrecordssharedwith"}
    assert na.SPEC_OPERAND_ATTRIBUTES == {"numthreads", "nodeid", "nodeshareinputof", "nodedispatchgrid",
                                          "nodemaxdispatchgrid", "nodemaxrecursiondepth", "maxrecords",
                                          "nodearraysize"}
    assert na.SPEC_DEFAULT_ATTRIBUTES == {"maxrecordspernode", "nodemaxinputrecordspergraphentryrecord",
                                          "nodemaxloopiterations", "nodemaxrecordsperloopiteration",
                                          "nodelocalrootargumentstableindex", "wavesize"}
    assert na.LAST_ONE_WINS == {"nodedispatchgrid", "nodemaxdispatchgrid"}


def test_rows_are_unique_and_known_by_their_spelling() -> None:
    assert len(na.ATTRIBUTES) == len(na.TABLE)
    for row in na.TABLE:
        assert KNOWN_ATTRIBUTES[row.key] == row.name
        assert row.places <= {"node", "shader", "input", "output", "record"}, row.name
        assert set(row.launches) <= set(na.LAUNCHES), row.name
        assert row.spec in (None, "operand", "default"), row.name
        assert isinstance(getattr(codes, row.range_code), DiagnosticKind), row.name
        assert row.proposal in (None, "loops", "max-records-per-node"), row.name


@pytest.mark.parametrize("row", [r for r in na.TABLE if r.fills], ids=lambda r: r.name)
def test_fills_names_a_field_of_the_node_description(row: na.NodeAttribute) -> None:
    owner, name = row.fills.split(".")  # type: ignore[union-attr]
    classes = {c.__name__: c for c in (NodeInfo, NodeInput, NodeOutput, MeshInfo)}
    assert name in {f.name for f in fields(classes[owner])}


def test_dxil_tags_are_dxcs() -> None:
    """workgraph-rules.md §1.15: "ShaderKind | 8", "NumThreads | 4", "NodeLaunchType | 13",
    "NodeIsProgramEntry | 14", "NodeID | 15", "NodeLocalRootArgumentsTableIndex | 16",
    "NodeShareInputOf | 17", "NodeDispatchGrid | 18"; §1.14: "kDxilNodeMeshOutputTopologyTag = 65536"."""
    tags = {row.key: row.dxil_tag for row in na.TABLE if row.dxil_tag is not None}
    assert tags == {"shader": 8, "numthreads": 4, "nodelaunch": 13, "nodeisprogramentry": 14, "nodeid": 15,
                    "nodelocalrootargumentstableindex": 16, "nodeshareinputof": 17, "nodedispatchgrid": 18,
                    "nodemaxrecursiondepth": 19, "nodemaxdispatchgrid": 22, "outputtopology": 65536,
                    "nodemaxinputrecordspergraphentryrecord": 65539, "nodemaxloopiterations": 0x20000,
                    "nodemaxrecordsperloopiteration": 0x20001}
    io_tags = {row.key: row.dxil_io_tag for row in na.TABLE if row.dxil_io_tag is not None}
    assert io_tags == {"nodeid": 0, "maxrecords": 3, "maxrecordssharedwith": 4, "nodearraysize": 5,
                       "allowsparsenodes": 6, "maxrecordspernode": 7}


def test_ranges_follow_the_profile_the_proposals_and_the_place() -> None:
    depth = na.ATTRIBUTES["nodemaxrecursiondepth"]
    assert depth.bounds(SemaOptions(profile="lib_6_8", work_graph_loops=True)) == (0, 32)
    assert depth.bounds(SemaOptions(profile="lib_6_9")) == (0, 32)
    assert depth.bounds(SemaOptions(profile="lib_6_9", work_graph_loops=True)) == (0, 2**24 - 2)
    records = na.ATTRIBUTES["maxrecords"]
    assert records.bounds(SemaOptions(), "output") == (0, 2**31 - 1)
    assert records.bounds(SemaOptions(), "input") == (1, 2**31 - 1)
    loop = na.ATTRIBUTES["nodemaxloopiterations"]
    assert not loop.available(SemaOptions(profile="lib_6_8", work_graph_loops=True))
    assert not loop.available(SemaOptions(profile="lib_6_9"))
    assert loop.available(SemaOptions(profile="lib_6_9", work_graph_loops=True))
    assert na.ATTRIBUTES["nodeid"].available(SemaOptions(profile="lib_6_8"))


def _shown_values(node: dict, path: str) -> list:
    """The values at a row's `shown` path in one node of the inspect model (one per output for "outputs.x")."""
    head, _, rest = path.partition(".")
    if head == "outputs":
        return [output[rest] for output in node["outputs"]]
    value = node[head]
    for part in rest.split(".") if rest else ():
        value = value[part] if value is not None else None
    return [value]


def test_the_inspect_model_shows_every_attribute_where_its_row_says() -> None:
    """Each row's `shown` path exists in every node of the model, and holds a written value in a sample
    that writes the attribute: the text, DOT and DXIL views render that model."""
    from conftest import SAMPLE_INCLUDE, SAMPLES, sample_proposals

    from wgc import driver

    sources = {name: (SAMPLES / f"{name}.hlsl").read_text()
               for name in ("loop_particles", "material_dispatch", "recursive_tree", "syntax_tour")}
    sources["mesh_draw"] = (SAMPLES / "mesh_draw.hlsl").read_text().replace(
        '[NodeLaunch("mesh")]', '[NodeLaunch("mesh")] [NodeLocalRootArgumentsTableIndex(3)] '
        '[NodeMaxInputRecordsPerGraphEntryRecord(16, true)]')
    written: set[str] = set()
    for name, source in sources.items():
        result = driver.compile(driver.Options(input="-", emit="json", include_dirs=(str(SAMPLES), str(SAMPLE_INCLUDE)),
                                               proposals=sample_proposals(SAMPLES / f"{name}.hlsl")),
                                stdin=source.encode())
        assert result.ok, (name, [d.code for d in result.diagnostics])
        for node in json.loads(result.outputs["json"])["nodes"]:
            for row in na.TABLE:
                if row.shown is not None and any(v not in (None, False, 0, []) for v in _shown_values(node, row.shown)):
                    written.add(row.name)
    assert written == {row.name for row in na.TABLE if row.shown is not None}


def test_random_attributes_never_crash_the_compiler() -> None:
    """The bounded form of tests/fuzz/attribute_stress.py: random work-graph attributes, anywhere,
    with random arguments, under random profiles and proposals, compile or report diagnostics."""
    from fuzz import attribute_stress

    for text, profile, proposals in attribute_stress.cases(40, seed=28):
        result = attribute_stress.compile_one(text, profile, proposals)
        assert "crash" not in result, (result, text)


def test_misplaced_attributes_follow_the_table() -> None:
    """A work-graph attribute written where its row's `places` do not reach is ignored, with warning
    WG0346 (-Wignored-attributes): the spec lists node attributes per place ("Shader function
    attributes", "Node output attributes", the record struct's [NodeTrackRWInputSharing]), and DXC
    declares NodeTrackRWInputSharing for structs only and MaxRecordsSharedWith, AllowSparseNodes and
    UnboundedSparseNodes for parameters only (Attr.td `Subjects`). Attributes nodes.py reports where
    they are misplaced (an output's attribute on a function: WG0406) are not reported twice."""
    from wgc import driver

    source = "\n".join((
        "struct [NodeTrackRWInputSharing] [NumThreads(1, 1, 1)] Item { [NodeID(\"x\")] uint v; };",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "[NodeArraySize(4)]",
        "void Leaf([NodeLaunch(\"thread\")] ThreadNodeInputRecord<Item> item,",
        "          [MaxRecords(1)] [NodeID(\"Next\")] [AllowSparseNodes] NodeOutput<Item> Next)",
        "{",
        "    [NodeIsProgramEntry] for (uint i = 0; i < 2; i++) {}",
        "}", ""))
    result = driver.compile(driver.Options(input="-", emit="json"), stdin=source.encode())
    assert [(d.code, d.message) for d in result.diagnostics if d.code in ("WG0346", "WG0406")] == [
        ("WG0346", "attribute 'NumThreads' only applies to shader entry points: it is ignored on a struct"),
        ("WG0346", "attribute 'NodeID' only applies to node shaders or node outputs: it is ignored on a variable or "
                   "member"),
        ("WG0346", "attribute 'NodeLaunch' only applies to node shaders: it is ignored on a parameter"),
        ("WG0346", "attribute 'NodeIsProgramEntry' only applies to node shaders: it is ignored on a statement"),
        ("WG0406", "[NodeArraySize] applies to node output parameters, not to functions")]
