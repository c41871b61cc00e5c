"""Deep, long and odd input: every stage compiles it or gives a located diagnostic, never an
internal error (exit 3) and never a hang.  The inputs come from tests/deep_inputs.py.

Time is checked by scaling, not by giant inputs: a generator's input at N and at 4N, the CPU time
of the larger at most SCALING_RATIO times the smaller's (linear work is 4x, a quadratic step 16x),
at N small enough that the pair takes about a second.  Each limit is tested just under and over."""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import deep_inputs as deep  # noqa: E402
from conftest import wgc_command  # noqa: E402
from wgc import driver, preprocess, source  # noqa: E402
from wgc.diagnostics import Renderer  # noqa: E402
from wgc.sema import graph  # noqa: E402
from wgc.syntax import parse  # noqa: E402

ALL_EMITS = ("spirv", "ir", "ast", "hlsl", "json")


def compile_text(text: str, emit: str = "spirv") -> driver.Result:
    return driver.compile(driver.Options(input="-", emit=emit), stdin=text.encode())


def codes_of(result: driver.Result) -> list[str]:
    return [d.code for d in result.diagnostics]


def cpu_seconds(text: str, emit: str = "ir") -> tuple[float, driver.Result]:
    """The CPU time of one compile (the fastest of two: the machine is shared) and its result."""
    best, result = float("inf"), None
    for _ in range(2):
        start = time.process_time()
        result = compile_text(text, emit)
        best = min(best, time.process_time() - start)
    assert result is not None
    return best, result


SCALING_RATIO = 6.0
"""4x the input may take at most this many times the CPU time: linear work is 4x (plus noise), a
quadratic step 16x."""
SCALING_FLOOR = 0.05
"""CPU seconds below which the smaller input's time is taken as this (timer noise)."""


def assert_linear(make, n: int, emit: str = "ir", codes: list[str] | None = None) -> None:
    """`make(4 * n)` compiles in at most SCALING_RATIO times the CPU time of `make(n)` (with the same
    diagnostics, `codes` if given, never an internal error)."""
    small, first = cpu_seconds(make(n), emit)
    large, second = cpu_seconds(make(4 * n), emit)
    if codes is not None:
        assert codes_of(first) == codes and codes_of(second) == codes, (first.diagnostics[:2], second.diagnostics[:2])
    assert large < SCALING_RATIO * max(small, SCALING_FLOOR), f"n={n}: {small:.3f} s, 4n: {large:.3f} s"


# ---------------------------------------------------------------- nesting: every construct, the limit

NESTING_KINDS = [   # (name, generator, parser stack entries per level: see parse.MAX_PARSE_DEPTH)
    ("blocks", deep.nested_blocks, 1), ("parens", deep.nested_parens, 1), ("calls", deep.nested_calls, 2),
    ("for", lambda n: deep.nested_loops(n, "for"), 7), ("while", lambda n: deep.nested_loops(n, "while"), 4),
    ("do", lambda n: deep.nested_loops(n, "do"), 1), ("ifs", deep.nested_ifs, 4),
    ("ternaries", deep.nested_ternaries, 3), ("ternary-chain", deep.ternary_chain, 4),
    ("logical", deep.nested_logical, 4),
    ("unary-minus", deep.nested_unary, 1), ("not", lambda n: deep.nested_unary(n, "!"), 1),
    ("casts", deep.nested_casts, 3), ("indexes", deep.nested_indexes, 2), ("swizzles", deep.swizzle_chain, 0),
    ("assignments", deep.assignment_chain, 4), ("commas", deep.comma_chain, 0),
    ("init-lists", deep.nested_init_lists, 1), ("templates", deep.nested_templates, 2),
    ("else-if", deep.else_if_chain, 6),
    ("preprocessor-ifs", deep.nested_preprocessor_ifs, 0), ("macros", deep.macro_chain, 0),
]
"""Every recursive construct of the grammar (and the chains that do not nest: 0 entries per level)."""


CONTROL_FLOW = {"for", "while", "do", "ifs", "ternaries", "ternary-chain", "logical", "else-if"}
"""Nested more than 256 deep, these are WG0370 (wgc.sema.limits) after sema; the views before sema work."""


@pytest.mark.parametrize(("name", "make", "per_level"), NESTING_KINDS, ids=[n for n, _, _ in NESTING_KINDS])
def test_deep_through_every_stage(name, make, per_level) -> None:
    """200 levels of every construct through every stage; 300 levels of control flow are WG0370."""
    for depth in (200, 300):
        text = make(depth)
        for emit in ALL_EMITS:
            result = compile_text(text, emit)  # raises on an internal error
            if name == "templates":  # template structs are not supported yet: a diagnostic, not a crash
                assert "WG0020" not in codes_of(result)
            elif name in CONTROL_FLOW and depth > 256 and emit not in ("ast", "hlsl"):
                assert codes_of(result) == ["WG0370"], (emit, result.diagnostics[:2])
            else:
                assert result.ok, (emit, result.diagnostics[:2])


NESTED = [kind for kind in NESTING_KINDS if kind[2]]


@pytest.mark.parametrize(("name", "make", "per_level"), NESTED, ids=[n for n, _, _ in NESTED])
def test_nesting_limit_just_under_and_over(name, make, per_level) -> None:
    """Just under the parser's limit the views compile (and the whole compile ends in a diagnostic or a
    module, never an internal error); one level over it, WG0213 at the token that crossed it."""
    limit = parse.MAX_PARSE_DEPTH
    under, over = (limit - 120) // per_level, limit // per_level + 1
    assert compile_text(make(under), "hlsl").ok
    result = compile_text(make(under), "ir")
    assert set(codes_of(result)) <= {"WG0370", "WG0371"}, result.diagnostics[:2]
    result = compile_text(make(over), "ir")
    assert codes_of(result) == ["WG0213"], result.diagnostics[:2]
    assert "more than 8192 unfinished constructs" in result.diagnostics[0].message
    line = result.diagnostics[0].span.line_col[0]
    assert 9 <= line <= 9 + over, line   # in the node's body, where the nesting is


@pytest.mark.parametrize(("name", "make", "per_level"), NESTING_KINDS, ids=[n for n, _, _ in NESTING_KINDS])
def test_nesting_scales_linearly(name, make, per_level) -> None:
    """Compiling 4 times the nesting takes at most SCALING_RATIO times the CPU time (the IR: every
    stage but the SPIR-V back end, whose validator grows faster with control flow: WG0370).  A chain
    of macros is the exception: pcpp hands each level's tokens up to the next, N^2/2 token steps,
    bounded by MAX_EXPANSION_TOKENS (test_macro_expansion_is_bounded)."""
    if name == "macros":
        pytest.skip("quadratic in pcpp, bounded by MAX_EXPANSION_TOKENS")
    assert_linear(make, 500 // max(per_level, 1), "ir")


def test_conditional_operator_nesting_is_counted_as_control_flow() -> None:
    """`?:` with a scalar condition and `&&`/`||` are lowered to structured selections; nested 1,024 deep
    they were an invalid module (an internal error) and 1,000 took 38 s to validate.  SPIR-V's
    universal limits: "Structured control flow nesting depth: 1023"; wgc stops at 256 (WG0370)."""
    for make in (deep.ternary_chain, deep.nested_ternaries, deep.nested_logical):
        assert compile_text(make(256)).ok
        result = compile_text(make(257))
        assert codes_of(result) == ["WG0370"], result.diagnostics[:2]
    result = compile_text(deep.ternary_chain(1100))
    assert codes_of(result) == ["WG0370"]
    assert result.diagnostics[0].message.startswith("this '?:' is nested 257 levels deep in 'main'")
    assert compile_text(deep.nested_logical(300, "||")).diagnostics[0].message.startswith("this '||' is nested 257")
    # a long chain that does not nest (`a && b && c ...` is left-leaning) is no deeper than one
    assert compile_text(deep.node_file("    a = (" + " && ".join(["a > 1u"] * 1000) + ") ? 1u : 0u;\n")).ok


def test_loops_256_deep_compile() -> None:
    """The deepest control flow wgc allows validates (spirv-val's time grows with its cube)."""
    assert compile_text(deep.nested_loops(256, "for")).ok


def test_nested_structs_beyond_spirv_are_located() -> None:
    """255 nested struct definitions compile; 300 are WG0371 at the 256th (counted from the inside)."""
    assert compile_text(deep.nested_structs(255)).ok
    result = compile_text(deep.nested_structs(300))
    assert codes_of(result) == ["WG0371"]
    # S299 is innermost (depth 1): S{299-255} = S44 is the first 256 deep
    assert "struct 'S44' nests 256 structs deep" in result.diagnostics[0].message
    for emit in ("ast", "hlsl"):
        assert compile_text(deep.nested_structs(1000), emit).ok


def test_struct_chain_renders_wg0371() -> None:
    text = deep.struct_chain(256)
    rendered = Renderer().render(compile_text(text).diagnostics)
    line = 2 + 255  # line 1 holds Out, line 2 S0: S255 is on line 257
    assert rendered == (f"<stdin>:{line}:8: error: struct 'S255' nests 256 structs deep; SPIR-V allows 255 [WG0371]\n"
                        "struct S255 { S254 s; };\n"
                        "       ^~~~\n"
                        "1 error generated.\n")


# ---------------------------------------------------------------- the big targets

def test_else_if_chain_of_10000_arms() -> None:
    """Past 256 arms wgc stops nesting selections: WG0370 at arm 257; past the parser's limit (1,365
    arms of 6 entries) every view is WG0213, at the arm that crossed it."""
    text = deep.else_if_chain(1000)
    result = compile_text(text, "ir")
    assert codes_of(result) == ["WG0370"]
    assert result.diagnostics[0].span.line_col == (9 + 256, 10)  # arm 0 on line 9; `if` after "    else "
    for emit in ("ast", "hlsl"):
        assert compile_text(text, emit).ok
    text = deep.else_if_chain(10_000)
    for emit in ALL_EMITS:
        result = compile_text(text, emit)
        assert codes_of(result) == ["WG0213"]
        assert 9 + 1300 < result.diagnostics[0].span.line_col[0] < 9 + 1400


def test_else_if_chain_of_256_arms_compiles() -> None:
    assert compile_text(deep.else_if_chain(256)).ok


def test_control_flow_nesting_counts_depth_not_statements() -> None:
    """More control-flow statements than the limit, but none nested: no WG0370 (the walk runs:
    only a function with at most 256 of them is known to stay within the limit without it);
    257 nested `if`s: WG0370 at the innermost."""
    ifs = "".join(f"    if (i == {n}u) {{ i += 1u; }}\n" for n in range(300))
    text = f'[Shader("compute")] [NumThreads(1, 1, 1)]\nvoid main(uint i : SV_GroupIndex)\n{{\n{ifs}}}\n'
    assert compile_text(text).ok
    nested = "".join("if (i) {" for _ in range(257)) + "}" * 257
    result = compile_text(f'[Shader("compute")] [NumThreads(1, 1, 1)]\nvoid main(uint i : SV_GroupIndex)\n{{\n{nested}\n}}\n', "ir")
    assert codes_of(result) == ["WG0370"]
    assert result.diagnostics[0].span.line_col == (4, 1 + 256 * len("if (i) {"))


def test_expression_of_20000_operands() -> None:
    """A long expression does not nest (`a + a + ...` leans left): no limit, through every stage."""
    result = compile_text(deep.long_expression(20_000), "spirv")
    assert result.ok, result.diagnostics[:2]


@pytest.mark.parametrize(("name", "make", "n", "emit"), [
    ("long-expression", deep.long_expression, 1_500, "spirv"),
    ("many-statements", deep.many_statements, 800, "spirv"),
    ("statements-on-one-line", lambda n: deep.many_statements(n, one_line=True), 800, "ir"),
    ("flat-macro", lambda n: "#define BIG " + "a + " * n + "a\n" + deep.node_file("    a = BIG;\n" * 4), 500, "ir"),
    ("many-macro-uses", lambda n: "#define INC(x) ((x) + 1u)\n" + deep.node_file("    a = INC(a);\n" * n), 500, "ir"),
    ("node-chain", deep.node_chain, 150, "json"),
    ("long-identifier", lambda n: deep.node_file(f"    uint {'x' * n} = a;\n    a = {'x' * n};\n"), 100_000, "spirv"),
    ("many-errors", lambda n: "".join(f"uint f{i}(uint x) {{ return x + y{i}; }}\n" for i in range(n))
     + deep.node_file(""), 400, "ir"),
])
def test_long_input_scales_linearly(name, make, n, emit) -> None:
    """Inputs that are long without nesting: 4 times as long, at most SCALING_RATIO times the CPU time
    (many errors: each misspelt name was compared with every visible name for its 'did you mean', and
    each function counted every diagnostic so far: 4,000 functions with an error took 22 s)."""
    assert_linear(make, n, emit)


def test_function_chain_of_2000_through_sema_and_irdump() -> None:
    result = compile_text(deep.function_chain(2000), "ir")
    assert result.ok, result.diagnostics[:2]
    assert result.outputs["ir"].count(b"f1999") >= 1


def test_function_chain_of_500_to_spirv() -> None:
    """spirv-val's time grows faster than the number of functions (2,000 take seconds)."""
    result = compile_text(deep.function_chain(500), "spirv")
    assert result.ok, result.diagnostics[:2]


def test_node_chain_end_to_end() -> None:
    """A chain of 3,000 nodes: one WG0505 (too deep), located at the first node."""
    result = compile_text(deep.node_chain(3000), "json")
    assert codes_of(result) == ["WG0505"]
    message = result.diagnostics[0].message
    assert message.startswith("the graph is 3000 nodes deep; the limit is 32")
    assert "N0 -> N1" in result.diagnostics[0].notes[0]
    assert result.diagnostics[0].span.line_col[0] == 3  # line 1 struct R, line 2 attributes, line 3 void N0


# ---------------------------------------------------------------- graph analysis, directly

class _Param:
    def __init__(self, name: str) -> None:
        self.name, self.span = name, None


class _Function:
    def __init__(self, name: str) -> None:
        self.name = name


def synthetic_chain(length: int, loop_entry_at: int | None = None, back_edge: tuple[int, int] | None = None):
    """Nodes N0 -> N1 -> ... built as sema would; `back_edge` (from, to) adds one more edge."""
    from wgc import types as t
    from wgc.sema.nodes import NodeId, NodeInfo, NodeInput, NodeOutput

    record = object()
    nodes = []
    for i in range(length):
        node = NodeInfo(function=_Function(f"N{i}"), id=NodeId(f"N{i}"), launch="thread", span=None)
        if i:
            node.input = NodeInput(parameter=_Param("in"), kind=t.NodeObjectKind.THREAD_NODE_INPUT_RECORD,
                                   record=record, layout=None, max_records=None, globally_coherent=False,
                                   track_rw_input_sharing=False, dispatch_grid_field=None)
        if loop_entry_at == i:
            node.max_loop_iterations = 4
        targets = [i + 1] if i + 1 < length else []
        if back_edge is not None and back_edge[0] == i:
            targets.append(back_edge[1])
        for target in targets:
            node.outputs.append(NodeOutput(parameter=_Param(f"N{target}"), index=len(node.outputs),
                                           kind=t.NodeObjectKind.NODE_OUTPUT, target=NodeId(f"N{target}"),
                                           record=record, layout=None, track_rw_input_sharing=False,
                                           max_records=1))
        nodes.append(node)
    return nodes


def _graph_seconds(nodes, **options) -> tuple[float, object, list]:
    """CPU time of the analysis with the cyclic collector off, as a compile runs it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        info, diagnostics = graph.check_graph(nodes, "lib_6_9", **options)
        return time.process_time() - start, info, diagnostics
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("length", [5_000])
def test_graph_analysis_of_a_long_node_chain(length) -> None:
    info, diagnostics = graph.check_graph(synthetic_chain(length), "lib_6_9")
    assert [d.code for d in diagnostics] == ["WG0505"]
    assert info.depth == length
    assert len(info.longest_chain) == length
    assert info.depth_of[info.longest_chain[-1].key] == length


def test_graph_analysis_of_a_long_node_cycle() -> None:
    """N4999 -> N0 closes a cycle through every node: one WG0504 naming it (elided)."""
    _, diagnostics = graph.check_graph(synthetic_chain(5_000, back_edge=(4_999, 0)), "lib_6_9")
    cycles = [d for d in diagnostics if d.code == "WG0504"]
    assert len(cycles) == 1
    assert cycles[0].message.startswith("the graph has a cycle: N0 -> N1 -> ")
    assert "(4985 more)" in cycles[0].message


def test_graph_analysis_of_a_long_node_loop() -> None:
    """A loop entry at N1 and a back edge N4999 -> N1: the loop holds N1..N4999 (dominators)."""
    info, diagnostics = graph.check_graph(synthetic_chain(5_000, loop_entry_at=1, back_edge=(4_999, 1)), "lib_6_9",
                                          work_graph_loops=True)
    assert "WG0504" not in [d.code for d in diagnostics]
    assert len(info.loops) == 1
    assert len(info.loops[0].members) == 4_999
    assert info.loops[0].entry.id.name == "N1"


@pytest.mark.parametrize("shape", ["chain", "cycle", "loop"])
def test_graph_analysis_scales_linearly(shape) -> None:
    """4 times the nodes, at most SCALING_RATIO times the CPU time (the 100,000-node graphs these
    tests once analysed took 13-19 s each; a quadratic step shows at 10,000 as well)."""
    def make(n: int):
        return {"chain": lambda: synthetic_chain(n), "cycle": lambda: synthetic_chain(n, back_edge=(n - 1, 0)),
                "loop": lambda: synthetic_chain(n, loop_entry_at=1, back_edge=(n - 1, 1))}[shape]()

    options = {"work_graph_loops": True} if shape == "loop" else {}
    small = min(_graph_seconds(make(2_500), **options)[0] for _ in range(2))
    large = min(_graph_seconds(make(10_000), **options)[0] for _ in range(2))
    assert large < SCALING_RATIO * max(small, SCALING_FLOOR), (small, large)


def test_node_array_size_near_uint32_is_not_enumerated() -> None:
    """An output array of 2^32-1 nodes, one of them present: the missing ones are counted, not listed."""
    from wgc import types as t

    nodes = synthetic_chain(2)
    output = nodes[0].outputs[0]
    output.kind = t.NodeObjectKind.NODE_OUTPUT_ARRAY
    output.array_size = 2**32 - 2  # UNBOUNDED is 2^32-1
    output.allow_sparse_nodes = True
    checker = graph.GraphChecker(nodes, "lib_6_9")
    checker._index()
    present, sample, missing = checker.targets(output)
    assert [n.id.name for n in present] == ["N1"]
    assert missing == 2**32 - 3 and len(sample) == graph.MISSING_SHOWN


# ---------------------------------------------------------------- the last resort

def test_recursion_error_becomes_a_located_diagnostic(monkeypatch) -> None:
    monkeypatch.setattr(driver, "COMPILE_RECURSION_LIMIT", 400)
    text = deep.nested_calls(600)
    result = compile_text(text, "ir")
    assert codes_of(result) == ["WG0020"]
    span = result.diagnostics[0].span
    assert span is not None and span.line_col[0] == 9  # the statement line of the node body
    rendered = Renderer().render(result.diagnostics)
    assert rendered.startswith("<stdin>:9:")
    assert "error: the program is nested too deeply for wgc to process (statements, expressions, types or " \
           "calls) [WG0020]\n" in rendered
    assert sys.getrecursionlimit() == driver._saved_recursion_limit


def test_recursion_limit_is_restored() -> None:
    before = sys.getrecursionlimit()
    compile_text(deep.nested_blocks(10))
    assert sys.getrecursionlimit() == before


# ---------------------------------------------------------------- sizes that do not fit 32 bits

def test_array_size_above_uint32_is_wg0327() -> None:
    text = deep.node_file("    uint b[4294967296];\n")
    rendered = Renderer().render(compile_text(text).diagnostics)
    assert rendered.startswith(
        "<stdin>:9:12: error: array size 4294967296 is too large; SPIR-V counts at most 4294967295 (2^32-1) "
        "[WG0327]\n"
        "    uint b[4294967296];\n"
        "           ^~~~~~~~~~\n")


def test_nested_array_product_above_uint32_is_wg0327() -> None:
    text = deep.node_file("    a = g[0][0];\n", before="static uint g[65536][65536];\n")
    result = compile_text(text)
    assert codes_of(result)[0] == "WG0327"
    assert result.diagnostics[0].message == ("array of 4294967296 elements (65536 x 65536) is too large; SPIR-V "
                                             "counts at most 4294967295 (2^32-1)")


def test_array_size_of_uint32_max_is_accepted_by_sema() -> None:
    assert compile_text(deep.node_file("    uint b[4294967295];\n"), "ir").ok


# ---------------------------------------------------------------- long and odd text

@pytest.mark.parametrize(("name", "text"), [
    ("identifier-300000", deep.node_file(f"    uint {'x' * 300_000} = a;\n    a = {'x' * 300_000};\n")),
    ("string-1MB", deep.node_file("", before='[Shader("node")] [NodeLaunch("thread")] [NodeID("'
                                  + "s" * 1_000_000 + '")] void S() { }\n')),
    ("line-comment-1MB", deep.node_file("    // " + "c" * 1_000_000 + "\n")),
    ("block-comment-1MB", deep.node_file("    /* " + "c\n" * 500_000 + " */\n")),
    ("line-1MB", deep.node_file("    a = a" + " " * 1_000_000 + "+ 1u;\n")),
    ("whitespace-10MB", " " * 5_000_000 + "\n" * 5_000_000 + deep.node_file("")),
    ("macro-10000-operands", "#define BIG " + "a + " * 10_000 + "a\n" + deep.node_file("    a = BIG;\n")),
])
def test_long_text_compiles(name: str, text: str) -> None:
    result = compile_text(text, "ir")
    assert result.ok, result.diagnostics[:2]


def test_long_identifier_to_spirv() -> None:
    assert compile_text(deep.node_file(f"    uint {'x' * 300_000} = a;\n    a = {'x' * 300_000};\n")).ok


@pytest.mark.parametrize(("data", "expected"), [
    (b"", "error: the input has no [Shader(\"node\")] function (nor a compute, pixel, mesh or amplification shader), so there is nothing to compile [WG0603]\n"
          "1 error generated.\n"),
    (b"\xef\xbb\xbf", "error: the input has no [Shader(\"node\")] function (nor a compute, pixel, mesh or amplification shader), so there is nothing to compile "
                      "[WG0603]\n1 error generated.\n"),
    (b"uint x;\0\n", "<stdin>:1:8: error: invalid character '\\x00' in source [WG0202]\n"
                     "uint x;\0\n"
                     "       ^\n"
                     "1 error generated.\n"),
])
def test_odd_files(data: bytes, expected: str) -> None:
    result = driver.compile(driver.Options(input="-"), stdin=data)
    assert Renderer().render(result.diagnostics) == expected


def test_arrays_nested_beyond_access_chains_are_wg0327() -> None:
    """253 levels of arrays compile (an access chain of 253 indexes); the 254th level is WG0327."""
    def program(levels: int) -> str:
        return deep.node_file(f"    uint b{'[1]' * levels};\n    b{'[0]' * levels} = a;\n    a = b{'[0]' * levels};\n")

    assert compile_text(program(253)).ok
    result = compile_text(program(254))
    assert codes_of(result)[0] == "WG0327"
    # `    uint b` is 10 characters; dimensions are 3 characters each: the failing one is reported
    assert result.diagnostics[0].span.line_col[0] == 9
    assert result.diagnostics[0].message.startswith("arrays of arrays nested more than 253 deep")


# ---------------------------------------------------------------- the real command

def test_cli_deep_input_exit_codes(run_wgc, tmp_path) -> None:
    """1,000 nested calls compile (exit 0); 300 else-if arms are WG0370 (exit 1, no output left)."""
    out = tmp_path / "a.spv"
    done = run_wgc("compile", "-", "-o", str(out), stdin=deep.nested_calls(1000).encode())
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:4] == b"\x03\x02\x23\x07"
    done = run_wgc("compile", "-", "-o", str(out), stdin=deep.else_if_chain(300).encode())
    assert done.returncode == 1
    assert b"[WG0370]" in done.stderr and b"internal compiler error" not in done.stderr
    assert not out.exists()


# ---------------------------------------------------------------- scaling: N vs 4N, so a quadratic step fails

def test_struct_chain_scales_linearly() -> None:
    """Each struct holds the one before: WG0371 at the 256th, in time linear in the chain (the object
    test of each field walked the whole chain again: 10,000 structs took 63 s)."""
    assert_linear(deep.struct_chain, 400, codes=["WG0371"])


def test_struct_base_chain_scales_linearly() -> None:
    """Each struct derives from the one before: WG0371 once, and a struct whose base is already 255
    deep is declared without it (inheriting every field of the chain was N^2/2 fields)."""
    assert_linear(deep.struct_base_chain, 400, codes=["WG0371"])
    result = compile_text(deep.struct_base_chain(300))
    assert codes_of(result) == ["WG0371"]
    assert "struct 'S255' nests 256 structs deep" in result.diagnostics[0].message


def test_function_chain_scales_linearly() -> None:
    """Each function calls the one before (issue 28: the uniformity pass's `_statics_free` walked every
    reachable function for each one: 4,000 functions went from 1.4 s to 23.4 s)."""
    assert_linear(deep.function_chain, 250, codes=[])


# ---------------------------------------------------------------- the preprocessor's bounds

def test_macro_expansion_is_bounded(monkeypatch) -> None:
    """A macro bomb (30 levels, each doubling: 2^30 tokens) and a chain of 3,000 macros each expanding
    to the one before are WG0113 at the use, within MAX_EXPANSION_TOKENS of work (here lowered)."""
    monkeypatch.setattr(preprocess, "MAX_EXPANSION_TOKENS", 100_000)
    for text in (deep.macro_bomb(30), deep.macro_chain(3000)):
        start = time.process_time()
        result = compile_text(text, "ir")
        assert time.process_time() - start < 5
        assert codes_of(result) == ["WG0113"], result.diagnostics[:2]
        assert result.diagnostics[0].message == "macro expansion produces more than 100,000 tokens"
    line = deep.macro_bomb(30).count("\n", 0, deep.macro_bomb(30).index("0u M0"))
    assert compile_text(deep.macro_bomb(30)).diagnostics[0].span.line_col == (line + 1, 12)
    assert compile_text(deep.macro_bomb(10)).ok    # 1,024 tokens: fine


def test_default_expansion_bound_stops_a_bomb() -> None:
    """The default bound (2,000,000 token steps) stops the 30-level bomb in seconds."""
    start = time.process_time()
    result = compile_text(deep.macro_bomb(30), "ir")
    assert codes_of(result) == ["WG0113"]
    assert time.process_time() - start < 30


def test_included_text_is_bounded(monkeypatch, tmp_path) -> None:
    """A header without a guard included again and again: WG0113 once the included text passes
    MAX_INCLUDED_BYTES (here lowered), and no further #include is processed."""
    monkeypatch.setattr(preprocess, "MAX_INCLUDED_BYTES", 10_000)
    (tmp_path / "h.hlsl").write_text("// " + "x" * 1000 + "\n")
    main = tmp_path / "main.hlsl"
    main.write_text('#include "h.hlsl"\n' * 20 + deep.node_file(""))
    result = driver.compile(driver.Options(input=str(main), emit="ir"))
    assert codes_of(result) == ["WG0113"]
    assert result.diagnostics[0].span.line_col == (10, 10)
    assert result.diagnostics[0].message == "the preprocessed text would exceed 10,000 characters of included files"


# ---------------------------------------------------------------- sources: bounded reads

def test_main_input_larger_than_the_bound_is_refused_before_reading(tmp_path) -> None:
    """A regular file larger than MAX_SOURCE_BYTES (sparse: nothing to read) is WG0112 from its size."""
    big = tmp_path / "big.hlsl"
    with open(big, "wb") as handle:
        handle.truncate(source.MAX_SOURCE_BYTES + 1)
    start = time.process_time()
    result = driver.compile(driver.Options(input=str(big)))
    assert time.process_time() - start < 2
    assert codes_of(result) == ["WG0112"]
    assert result.diagnostics[0].message == (
        f"cannot read input file '{big}': it is larger than 64 MiB (67,108,864 bytes), the most wgc reads from "
        "one source (it is 67,108,865 bytes)")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_endless_binary_input_is_refused_early(device) -> None:
    """`/dev/zero` as the main input was read until memory ran out: now WG0112 after the first MiB."""
    start = time.process_time()
    result = driver.compile(driver.Options(input=device))
    assert time.process_time() - start < 2
    assert codes_of(result) == ["WG0112"]
    assert result.diagnostics[0].message.startswith(f"cannot read input file '{device}': it is not text: it "
                                                    "holds a NUL byte at offset ")


def test_endless_text_on_standard_input_is_refused_at_the_bound(run_wgc, tmp_path) -> None:
    """An endless pipe of text stops at MAX_SOURCE_BYTES (the command exits 1, no output)."""
    out = tmp_path / "a.spv"
    producer = subprocess.Popen(["yes", "// a comment line that goes on and on"], stdout=subprocess.PIPE)
    try:
        done = subprocess.run(wgc_command() + ["compile", "-", "-o", str(out)], stdin=producer.stdout,
                              capture_output=True, timeout=120)
    finally:
        producer.kill()
        producer.wait()
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(b"error: cannot read standard input: it is larger than 64 MiB")
    assert b"[WG0112]" in done.stderr and not out.exists()


def test_binary_header_is_refused(tmp_path) -> None:
    """A header past its first MiB with NUL bytes, and one larger than the bound, are WG0112 at the
    #include; a NUL byte in a small file is still the lexer's WG0202 (test_odd_files)."""
    (tmp_path / "bin.hlsli").write_bytes(b"\0" * (source.READ_CHUNK + 10))
    with open(tmp_path / "big.hlsli", "wb") as handle:
        handle.truncate(source.MAX_SOURCE_BYTES + 1)
    for name, reason in (("bin.hlsli", "it is not text"), ("big.hlsli", "it is larger than 64 MiB")):
        main = tmp_path / "main.hlsl"
        main.write_text(f'#include "{name}"\n' + deep.node_file(""))
        result = driver.compile(driver.Options(input=str(main)))
        assert codes_of(result) == ["WG0112"]
        assert result.diagnostics[0].message.startswith(f"cannot include '{tmp_path / name}': {reason}")
        assert result.diagnostics[0].span.line_col == (1, 10)


def test_read_source_bounds() -> None:
    """The reader itself: small text whole, a NUL in a small source kept (for WG0202)."""
    assert source.read_source(io.BytesIO(b"uint x;\0\n")) == (b"uint x;\0\n", None)
    data, reason = source.read_source(io.BytesIO(b"x" * source.READ_CHUNK + b"\0"))
    assert data is None and reason.startswith("it is not text: it holds a NUL byte at offset 1,048,576")


# ---------------------------------------------------------------- huge numbers

@pytest.mark.parametrize(("name", "text", "code"), [
    ("decimal", deep.node_file("    a = " + "1" * 5000 + "u;\n"), "WG0204"),
    ("decimal-with-8", deep.node_file("    a = 0" + "9" * 5000 + ";\n"), "WG0205"),
    ("array-size", deep.node_file("    uint b[" + "9" * 5000 + "];\n"), "WG0204"),
    ("line", "#line " + "9" * 5000 + "\n" + deep.node_file(""), "WG0104"),
    ("if", "#if " + "1" * 5000 + "\n#endif\n" + deep.node_file(""), "WG0104"),
    ("if-macro", "#define BIG " + "1" * 5000 + "\n#if BIG > 1\n#endif\n" + deep.node_file(""), None),
])
def test_decimal_numbers_of_thousands_of_digits(name, text, code) -> None:
    """Python refuses to convert more than 4,300 decimal digits (ValueError: an internal error before);
    a literal that long is too large for any integer type (a diagnostic)."""
    result = compile_text(text, "ir")
    assert result.diagnostics, name
    if code is not None:
        assert codes_of(result)[0] == code, result.diagnostics[:2]
    assert "WG0020" not in codes_of(result)


def test_views_of_deep_nesting_stay_linear_in_size() -> None:
    """8,000 nested blocks (just under the parser's limit): the IR dump indents at most 64 levels and
    the HLSL view 32 (both grew quadratically: 8,000 levels printed as HLSL took 355 s)."""
    text = deep.nested_blocks(8000)
    for emit, levels, unit in (("ir", 64, "  "), ("hlsl", 32, "    ")):
        result = compile_text(text, emit)
        assert result.ok
        output = result.outputs[emit].decode()
        assert len(output) < 2 * len(text) + 2 * 8000 * (levels * len(unit) + 4), (emit, len(output))  # { and }
        assert max(len(line) - len(line.lstrip(" ")) for line in output.splitlines()) == levels * len(unit)
