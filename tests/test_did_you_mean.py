"""Did-you-mean wherever a name is looked up (wgc.suggest, clang's typo threshold: a name of n
characters accepts about n / 3 edits, `TypoStr.size() / ED < 3` rejects), and a bounded list of
the valid choices where nothing is close: WG0503 output targets (a close node that takes the same
records), `-E`, the names of `wgc run`'s dispatch file, undeclared names in sema.
"""

from __future__ import annotations

from wgc import driver
from wgc.diagnostics import Renderer
from wgc.runtime.dispatch import read_dispatch
from wgc.runtime.program import build_program
from wgc.source import SourceFile


def notes_of(source: str, code: str, **options) -> list[str]:
    result = driver.compile(driver.Options(input="-", emit="spirv", **options), stdin=source.encode())
    return [note for d in result.diagnostics if d.code == code for note in d.notes]


GRAPH = """\
struct R { uint x; };
struct Q { uint y; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Start([MaxRecords(1)] NodeOutput<R> Clasify, [MaxRecords(1)] NodeOutput<Q> Classy2,
           [MaxRecords(1)] NodeOutput<R> Zebra) { }
[Shader("node")] [NodeLaunch("thread")]
void Classify(ThreadNodeInputRecord<R> r) { }
[Shader("node")] [NodeLaunch("thread")]
void Classy(ThreadNodeInputRecord<Q> r) { }
"""

SPARSE_NOTE = "the node may come from another library; add [AllowSparseNodes] if it may be absent, or -Wno-missing-node"


def test_missing_node_suggests_a_close_node_with_the_same_record() -> None:
    # 'Clasify' -> 'Classify' (1 edit, both R); 'Classy2' -> 'Classy' (1 edit, both Q), not 'Classify';
    # 'Zebra' is close to nothing: the nodes that take R records are listed.
    assert notes_of(GRAPH, "WG0503") == [
        "did you mean 'Classify'?", SPARSE_NOTE,
        "did you mean 'Classy'?", SPARSE_NOTE,
        "the nodes of this file that take 'R' records: 'Classify'", SPARSE_NOTE]


def test_missing_node_does_not_suggest_a_node_of_another_record() -> None:
    source = GRAPH.replace("NodeOutput<Q> Classy2", "NodeOutput<Q> Clasify2")
    # 'Clasify2' is 1 edit from 'Classify' (R) but the output sends Q: Classy (Q) is listed instead
    assert notes_of(source, "WG0503")[2] == "the nodes of this file that take 'Q' records: 'Classy'"


def test_entry_point_did_you_mean_or_the_list() -> None:
    assert notes_of(GRAPH, "WG0603", entry="Clasify", warning_flags=("no-missing-node",)) == [
        "did you mean 'Classify'?"]
    assert notes_of(GRAPH, "WG0603", entry="Nothing", warning_flags=("no-missing-node",)) == [
        "valid entry points are: 'Start', 'Classify', 'Classy'"]


def test_entry_point_under_a_shader_profile_lists_the_functions() -> None:
    source = "RWStructuredBuffer<uint> u : register(u0);\n[numthreads(1, 1, 1)] void compute() { u[0] = 1; }\n"
    assert notes_of(source, "WG0603", profile="cs_6_0", entry="compte") == ["did you mean 'compute'?"]


def test_many_choices_are_bounded() -> None:
    nodes = "".join(f'[Shader("node")] [NodeLaunch("thread")] void N{i}() {{ }}\n' for i in range(13))
    note, = notes_of(nodes, "WG0603", entry="Nothing")
    assert note == "valid entry points are: " + ", ".join(f"'N{i}'" for i in range(10)) + " and 3 more"


def test_undeclared_name_gets_no_far_fetched_suggestion() -> None:
    # difflib's ratio suggested 'isinf' for 'missing1'; 8 characters accept 2 edits, 'isinf' is 5 away
    source = "void f() { uint x = missing1; uint countr = 0; countr = coutnr + 1; uint y = countre; }\n"
    assert notes_of(source, "WG0301") == [
        "did you mean 'countr'?",    # 'coutnr' -> 'countr': 2 edits, 6 // 2 = 3
        "did you mean 'countr'?"]    # 'countre' -> 'countr': 1 edit


def test_dispatch_names() -> None:
    graph = ("RWStructuredBuffer<uint> Output : register(u0);\nstruct Seed { uint value; uint other; };\n"
             '[Shader("node")] [NodeLaunch("thread")] void Square(ThreadNodeInputRecord<Seed> s) '
             "{ Output[0] = s.Get().value; }\n")
    result = driver.compile(driver.Options(input="-", emit="reflection", target="emulated"), stdin=graph.encode())
    program = build_program(result.reflection)
    text = ('{"inputs": [{"entry": "Sqare", "records": []}, {"entry": "Square", "records": [{"valeu": 1}]}], '
            '"resources": {"Outptu": {"bytes": 4}, "u3": {"bytes": 4}}}')
    _, diagnostics = read_dispatch(SourceFile("d.json", text), program)
    assert [(d.message, d.notes) for d in diagnostics] == [
        ("the graph has no node 'Sqare'", ("did you mean 'Square'?",)),
        ("'Seed' has no field 'valeu'", ("its fields: value, other",)),   # 2 edits: too far for 5 letters
        ("the graph has no resource 'Outptu'", ("did you mean 'Output'?",)),
        ("the graph has no resource 'u3'", ("its resources: Output (u0)",))]
    assert "did you mean 'Square'?" in Renderer().render(diagnostics)


def test_unknown_type_and_function() -> None:
    """clang: "unknown type name 'Recrod'; did you mean 'Record'?", then parsing goes on with the
    name taken for a type, so the function's later errors are reported (and 'r' is no cascade)."""
    source = ("struct Record { uint x; };\nuint twice(uint v) { return 2 * v; }\n"
              "void f() { Recrod r; r.x = 1; uint y = twcie(1); uint z = frobnicate(2); }\n")
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=source.encode())
    assert [(d.code, d.message, d.notes) for d in result.diagnostics] == [
        ("WG0201", "unknown type name 'Recrod'", ("did you mean 'Record'?",)),   # 1 edit in 6 letters
        # 'twcie' is 2 edits from 'twice' (5 // 2 < 3): no suggestion, as clang; nothing near 'frobnicate'
        ("WG0301", "use of undeclared identifier 'twcie'", ()),
        ("WG0301", "use of undeclared identifier 'frobnicate'", ())]


def test_each_use_of_an_unknown_type_is_reported_and_the_function_checked() -> None:
    """clang reports an unknown type name at each use and goes on; a second error in the same
    statement (`line T e` read as a type then a name) is a cascade: that declaration is skipped."""
    source = "void f() { Widget a; Widget b; uint c = missing1; }\nvoid g(line float e, uint d) { }\n"
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=source.encode())
    assert [(d.span.line_col if d.span else None, d.message) for d in result.diagnostics] == [
        ((1, 12), "unknown type name 'Widget'"),
        ((1, 22), "unknown type name 'Widget'"),
        ((2, 8), "unknown type name 'line'"),
        ((1, 41), "use of undeclared identifier 'missing1'")]
