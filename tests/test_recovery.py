"""Recovery after errors (issue 12): an error in one declaration does not hide the work-graph rules
of the rest of the file, and does not cascade.

Each case has one deliberate semantic error plus N independent node-rule errors and compares the full
rendered text: all N+1 diagnostics, each once. The rules: a node whose own body (or a function it
calls) had an error skips the body rules; a node whose record struct had an error skips the record
rules and the graph; outputs that target such a node, or a node whose signature failed, are no
'missing node'. Expected texts follow the messages of `wgc.sema.nodes` / `uniformity` and the
clang-style renderer (test_workgraph_rules.py).
"""

from __future__ import annotations

from wgc import driver
from wgc.diagnostics import Renderer


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


def rendered(source: str, profile: str = "lib_6_8") -> str:
    result = driver.compile(driver.Options(input="-", emit="json", profile=profile), stdin=source.encode())
    return Renderer().render(result.diagnostics)


def test_a_field_redefinition_hides_no_node_rule() -> None:
    # 1 error in a struct + 3 node-rule errors in other nodes; the node using the broken struct is
    # skipped (no 'missing node' for its output, no record checks), the node with a body error is
    # checked for its attributes.
    source = lines(
        "struct Item { uint value; };",
        "struct Pair { uint a; float a; };",
        '[Shader("node")]',
        '[NodeLaunch("coalescing")]',
        "[NodeDispatchGrid(4, 1, 1)]",
        "[NumThreads(32, 1, 1)]",
        "void A() { }",
        '[Shader("node")]',
        '[NodeLaunch("broadcasting")]',
        "[NumThreads(32, 1, 1)]",
        "void B() { }",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "[NumThreads(2, 1, 1)]",
        "void C(ThreadNodeInputRecord<Item> item) { }",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "void E(ThreadNodeInputRecord<Pair> pair, [MaxRecords(1)] NodeOutput<Pair> F) { }")
    assert rendered(source) == lines(
        "<stdin>:2:29: error: redefinition of 'a' [WG0302]",
        "struct Pair { uint a; float a; };",
        "                            ^",
        "<stdin>:2:20: note: previous definition is here",
        "struct Pair { uint a; float a; };",
        "                   ^",
        "<stdin>:5:1: error: [NodeDispatchGrid] may only be used with broadcasting and mesh nodes [WG0402]",
        "[NodeDispatchGrid(4, 1, 1)]",
        "^~~~~~~~~~~~~~~~~~~~~~~~~~~",
        "<stdin>:11:6: error: broadcasting node 'B' needs [NodeDispatchGrid(x, y, z)] or "
        "[NodeMaxDispatchGrid(x, y, z)] [WG0403]",
        "void B() { }",
        "     ^",
        "<stdin>:14:1: error: thread launch nodes run one thread: [NumThreads] must be (1, 1, 1) or absent [WG0402]",
        "[NumThreads(2, 1, 1)]",
        "^~~~~~~~~~~~~~~~~~~~~",
        "4 errors generated.")


def test_a_body_error_keeps_the_node_attributes_checked_but_not_its_body() -> None:
    # 1 error in Shade's body; its attribute error is still reported, its (varying) Barrier is not:
    # the body is incomplete. Group's body rule and Start's missing target are reported.
    source = lines(
        "struct Item { uint value; };",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "void Start(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Next) { }",
        '[Shader("node")]',
        "[NodeDispatchGrid(4, 1, 1)]",
        "[NumThreads(2000, 1, 1)]",
        "void Shade(uint index : SV_GroupIndex)",
        "{",
        "    if (index == 0)",
        "        Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);",
        "    undeclared();",
        "}",
        '[Shader("node")]',
        "[NodeDispatchGrid(4, 1, 1)]",
        "[NumThreads(64, 1, 1)]",
        "void Group(uint index : SV_GroupIndex)",
        "{",
        "    if (index == 0)",
        "        Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);",
        "}")
    assert rendered(source) == lines(
        "<stdin>:12:5: error: use of undeclared identifier 'undeclared' [WG0301]",
        "    undeclared();",
        "    ^~~~~~~~~~",
        "<stdin>:7:1: warning: [NumThreads(2000, 1, 1)] asks for 2000 threads, outside 1..1024: the attribute is "
        "ignored [WG0358] [-Wignored-attributes]",
        "[NumThreads(2000, 1, 1)]",
        "^~~~~~~~~~~~~~~~~~~~~~~~",
        "<stdin>:8:6: error: broadcasting node 'Shade' needs [NumThreads(x, y, z)] [WG0403]",
        "void Shade(uint index : SV_GroupIndex)",
        "     ^~~~~",
        "<stdin>:7:1: note: the [NumThreads] written here is ignored",
        "[NumThreads(2000, 1, 1)]",
        "^~~~~~~~~~~~~~~~~~~~~~~~",
        "<stdin>:20:9: warning: 'Barrier' with GROUP_SYNC must be called in thread-group-uniform control flow "
        "[WG0417] [-Wgroup-uniformity]",
        "        Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);",
        "        ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
        "<stdin>:19:9: note: this condition depends on 'index' (SV_GroupIndex)",
        "    if (index == 0)",
        "        ^~~~~~~~~~",
        "<stdin>:4:79: warning: output 'Next' of 'Start' targets 'Next', not in this file [WG0503] [-Wmissing-node]",
        "void Start(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Next) { }",
        "                                                                              ^~~~",
        "note: the node may come from another library; add [AllowSparseNodes] if it may be absent, or "
        "-Wno-missing-node",
        "3 warnings and 2 errors generated.")


def test_a_broken_signature_is_no_missing_node() -> None:
    # Shade's parameter type is unknown, so Shade is not a node of the module; Start's output to it is
    # no 'missing node' warning (the node is there, broken), its output to Other still is; Lone's own
    # error is reported.
    source = lines(
        "struct Item { uint value; };",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "void Start(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Shade,",
        "           [MaxRecords(1)] NodeOutput<Item> Other) { }",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "void Shade(ThreadNodeInputRecord<Missing> item) { }",
        '[Shader("node")]',
        "void Lone() { }")
    assert rendered(source) == lines(
        "<stdin>:8:34: error: unknown type name 'Missing' [WG0314]",
        "void Shade(ThreadNodeInputRecord<Missing> item) { }",
        "                                 ^~~~~~~",
        "<stdin>:10:6: error: broadcasting node 'Lone' needs [NumThreads(x, y, z)] [WG0403]",
        "void Lone() { }",
        "     ^~~~",
        "<stdin>:10:6: error: broadcasting node 'Lone' needs [NodeDispatchGrid(x, y, z)] or "
        "[NodeMaxDispatchGrid(x, y, z)] [WG0403]",
        "void Lone() { }",
        "     ^~~~",
        "<stdin>:5:45: warning: output 'Other' of 'Start' targets 'Other', not in this file [WG0503] [-Wmissing-node]",
        "           [MaxRecords(1)] NodeOutput<Item> Other) { }",
        "                                            ^~~~~",
        "note: the node may come from another library; add [AllowSparseNodes] if it may be absent, or "
        "-Wno-missing-node",
        "1 warning and 3 errors generated.")


def test_a_node_with_a_wrong_declaration_is_left_out_of_the_graph() -> None:
    # Fan's second output has both [MaxRecords] and [MaxRecordsSharedWith]: the conflict is reported, and
    # the output limits of the graph (8 records for a thread launch node) are not computed from the
    # broken budgets; its outputs are no 'missing node'. Sink's own error (a comment naming it before
    # the declaration) is reported at its name.
    source = lines(
        "struct Item { uint value; };",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "void Fan(ThreadNodeInputRecord<Item> item, [MaxRecords(5)] NodeOutput<Item> A,",
        "         [MaxRecords(7)] [MaxRecordsSharedWith(A)] NodeOutput<Item> B) { }",
        '[Shader("node")]',
        "[NumThreads(8, 1, 1)]",
        "// Sink has no grid",
        "void Sink() { }")
    assert rendered(source) == lines(
        "<stdin>:5:26: error: [MaxRecords] and [MaxRecordsSharedWith] cannot both be given on one output [WG0404]",
        "         [MaxRecords(7)] [MaxRecordsSharedWith(A)] NodeOutput<Item> B) { }",
        "                         ^~~~~~~~~~~~~~~~~~~~~~~~~",
        "<stdin>:5:10: note: [MaxRecords] is given here",
        "         [MaxRecords(7)] [MaxRecordsSharedWith(A)] NodeOutput<Item> B) { }",
        "         ^~~~~~~~~~~~~~~",
        "<stdin>:9:6: error: broadcasting node 'Sink' needs [NodeDispatchGrid(x, y, z)] or "
        "[NodeMaxDispatchGrid(x, y, z)] [WG0403]",
        "void Sink() { }",
        "     ^~~~",
        "2 errors generated.")


def test_a_syntax_error_hides_no_rule_of_the_declarations_that_parsed() -> None:
    # The parser skips Broken; Use (whose record is Broken) is then not a node, and its use of the
    # skipped name is no 'unknown type name' cascade; Other is checked: its body error and its
    # attribute error are both reported.
    source = lines(
        "struct Item { uint value; };",
        "struct Broken { uint a +; };",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "void Use(ThreadNodeInputRecord<Broken> item, [MaxRecords(1)] NodeOutput<Item> Other) { }",
        '[Shader("node")]',
        '[NodeLaunch("thread")]',
        "[NumThreads(4, 1, 1)]",
        "void Other(ThreadNodeInputRecord<Item> item) { undeclared = 1; }")
    assert rendered(source) == lines(
        "<stdin>:2:23: error: expected ';' at end of declaration list [WG0201]",
        "struct Broken { uint a +; };",
        "                      ^",
        "<stdin>:9:48: error: use of undeclared identifier 'undeclared' [WG0301]",
        "void Other(ThreadNodeInputRecord<Item> item) { undeclared = 1; }",
        "                                               ^~~~~~~~~~",
        "<stdin>:8:1: error: thread launch nodes run one thread: [NumThreads] must be (1, 1, 1) or absent [WG0402]",
        "[NumThreads(4, 1, 1)]",
        "^~~~~~~~~~~~~~~~~~~~~",
        "3 errors generated.")
