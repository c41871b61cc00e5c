"""Fuzz campaign over deep and long input (hypothesis, bounded): random mixes of nested blocks,
ifs, loops, do, else-if chains, parentheses, calls, ternaries, casts, unary operators, long
operator chains and nested structs, with LF, CRLF, lone-CR or mixed line ends, through the whole
pipeline (SPIR-V, inspect json, --emit=ir/ast/hlsl).

Properties: no exception escapes `driver.compile` (an internal error raises), every result is
success or error diagnostics (exit 0 or 1), never the last-resort WG0020 at these depths, and a
SPIR-V module that is produced has passed spirv-val (the driver validates in process and raises
otherwise).  Budget: about 30 s (max_examples, no per-example deadline: validation of deep
control flow takes seconds).
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

import deep_inputs as deep  # noqa: E402
from wgc import driver  # noqa: E402

STATEMENT_WRAPPERS = {
    "block": lambda s: "{ " + s + " }",
    "if": lambda s: "if (a < 5u) " + s,
    "if-else": lambda s: "if (a < 5u) " + s + " else a = 2u;",
    "for": lambda s: "for (uint i = 0; i < 2u; ++i) " + s,
    "while": lambda s: "while (a < 1u) " + s,
    "do": lambda s: "do " + s + " while (a < 1u);",
}
EXPRESSION_WRAPPERS = {
    "parens": lambda e: "(" + e + ")",
    "call": lambda e: "max(" + e + ", 1u)",
    "ternary": lambda e: "a < 1u ? (" + e + ") : a",
    "ternary-tail": lambda e: "a == 3u ? 1u : " + e,
    "cast": lambda e: "(uint)" + e,
    "not": lambda e: "~" + e,
    "index": lambda e: "Out[" + e + "]",
    "plus": lambda e: e + " + a",
}

layers = st.lists(st.sampled_from(sorted(STATEMENT_WRAPPERS)), max_size=48)
expression_layers = st.lists(st.sampled_from(sorted(EXPRESSION_WRAPPERS)), max_size=1000)
line_ends = st.sampled_from(["\n", "\r\n", "\r", "mixed"])


def program(statements: list[str], expressions: list[str], chain: int, arms: int, structs: int,
            ending: str, choose) -> str:  # type: ignore[no-untyped-def]
    expr = "a"
    for kind in expressions:
        expr = EXPRESSION_WRAPPERS[kind](expr)
    if chain:
        expr = "(" + expr + ")" + " + a" * chain
    stmt = f"a = {expr};"
    for kind in statements:
        stmt = STATEMENT_WRAPPERS[kind](stmt)
    body = "    " + stmt + "\n"
    if arms:
        body += "    " + "\n    else ".join(f"if (a == {i}u) a = {i}u;" for i in range(arms)) + "\n"
    before = ""
    if structs:
        nested = deep.nested_structs(structs)
        before = nested[len(deep.HEADER):nested.index("[Shader")]
        path = ".".join(f"s{i}" for i in range(1, structs)) + ("." if structs > 1 else "") + "x"
        body += f"    S0 v;\n    v.{path} = a;\n    a = v.{path};\n"
    text = deep.node_file(body, before=before)
    if ending == "mixed":
        lines = text.split("\n")
        return "".join(line + choose(len(lines)) for line in lines)
    return text.replace("\n", ending)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(statements=layers, expressions=expression_layers, chain=st.integers(0, 3000),
       arms=st.integers(0, 300), structs=st.integers(0, 260), ending=line_ends, data=st.data(),
       emit=st.sampled_from(["spirv", "json", "ir", "ast", "hlsl"]))
def test_deep_programs_never_crash(statements, expressions, chain, arms, structs, ending, data, emit) -> None:
    def choose(_count: int) -> str:
        return data.draw(st.sampled_from(["\n", "\r\n", "\r"]))

    text = program(statements, expressions, chain, arms, structs, ending, choose)
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=text.encode())
    codes = [d.code for d in result.diagnostics]
    assert "WG0020" not in codes
    if result.ok:
        assert result.outputs
    else:  # the programs are valid HLSL: only wgc's and SPIR-V's nesting limits may refuse them
        assert set(codes) <= {"WG0370", "WG0371"}, result.diagnostics[:2]
        # a scalar ?: is a selection too (wgc.sema.limits), and so is each controlled statement
        selections = sum(k in ("ternary", "ternary-tail") for k in expressions) + \
            sum(k != "block" for k in statements)
        assert arms > 256 or structs > 255 or selections > 256
