"""A missing ';' is reported as clang words it, at the end of the previous token, and parsing goes
on: one mistake, one error, and the next error of the same function is still reported.

clang's wording (DiagnosticParseKinds.td): err_expected_semi_declaration "expected ';' at end of
declaration", err_expected_semi_decl_list "expected ';' at end of declaration list",
err_invalid_token_after_toplevel_declarator "expected ';' after top level declarator",
err_expected_semi_after_expr / err_expected_after "expected ';' after expression", "expected ';'
after return statement", "expected ';' after struct". ExpectAndConsume reports a missing ';' "at
the end of the previous token" (PP.getLocForEndOfToken(PrevTokLocation)). After a declaration
that is not followed by a declaration specifier, and after a return statement, clang skips to the
next ';' (SkipUntil(tok::r_brace, StopAtSemi | StopBeforeMatch)); after an expression it goes on.
"""

from __future__ import annotations

from wgc import driver
from wgc.diagnostics import Renderer


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


def compiled(source: str) -> list[str]:
    """The rendered diagnostics' first lines (location, severity, message, code)."""
    result = driver.compile(driver.Options(input="-", emit="json", profile="lib_6_8"), stdin=source.encode())
    text = Renderer().render(result.diagnostics)
    return [line for line in text.splitlines() if ": error: " in line or ": warning: " in line]


def body(*statements: str) -> str:
    """A function at line 2 whose statements start at line 3."""
    return lines("RWStructuredBuffer<uint> u0 : register(u0);", "void f(uint a)", "{",
                 *("    " + s for s in statements), "}")


def test_after_a_declaration_then_the_next_error_in_the_function() -> None:
    # 'uint v = 1' ends at column 15 (4 spaces + 10 characters): the caret is at column 15.
    assert compiled(body("uint v = 1", "v = 2;", "u0[0] = missing1;")) == [
        "<stdin>:4:15: error: expected ';' at end of declaration [WG0201]",
        "<stdin>:6:13: error: use of undeclared identifier 'missing1' [WG0301]"]


def test_a_declaration_followed_by_a_declaration_goes_on() -> None:
    # clang: when a declaration specifier follows, the ';' is assumed and both declarations stay.
    assert compiled(body("uint v = 1", "uint w = v;", "u0[0] = w + missing1;")) == [
        "<stdin>:4:15: error: expected ';' at end of declaration [WG0201]",
        "<stdin>:6:17: error: use of undeclared identifier 'missing1' [WG0301]"]


def test_after_an_expression_statement() -> None:
    # 'u0[0] = a' is 4 + 9 characters: column 14; the next statement is parsed and checked.
    assert compiled(body("u0[0] = a", "u0[1] = missing1;")) == [
        "<stdin>:4:14: error: expected ';' after expression [WG0201]",
        "<stdin>:5:13: error: use of undeclared identifier 'missing1' [WG0301]"]


def test_two_missing_semicolons_are_two_errors() -> None:
    assert compiled(body("u0[0] = a", "u0[1] = a", "u0[2] = a;")) == [
        "<stdin>:4:14: error: expected ';' after expression [WG0201]",
        "<stdin>:5:14: error: expected ';' after expression [WG0201]"]


def test_after_a_return_statement() -> None:
    source = lines("uint g(uint a)", "{", "    return a", "    a = 2;", "}",
                   "void f() { missing1 = 1; }")
    assert compiled(source) == [
        "<stdin>:3:13: error: expected ';' after return statement [WG0201]",
        "<stdin>:6:12: error: use of undeclared identifier 'missing1' [WG0301]"]


def test_after_a_struct_definition() -> None:
    # 'struct R { uint a; }' is 20 characters: column 21; R stays declared (no cascade in f).
    source = lines("struct R { uint a; }", "void f() { R r; r.a = 1; missing1 = 1; }")
    assert compiled(source) == [
        "<stdin>:1:21: error: expected ';' after struct [WG0201]",
        "<stdin>:2:26: error: use of undeclared identifier 'missing1' [WG0301]"]


def test_after_a_field() -> None:
    # '    uint a' is 10 characters: column 11; both fields stay, so r.b is no error.
    source = lines("struct R", "{", "    uint a", "    uint b;", "};",
                   "void f() { R r; r.b = 1; r.c = 2; }")
    assert compiled(source) == [
        "<stdin>:3:11: error: expected ';' at end of declaration list [WG0201]",
        "<stdin>:6:28: error: no member named 'c' in 'R' [WG0319]"]


def test_a_field_followed_by_a_name_skips_to_the_semicolon() -> None:
    assert compiled(lines("struct R { uint a b; };", "void f() { R r; r.a = 1; }")) == [
        "<stdin>:1:18: error: expected ';' at end of declaration list [WG0201]"]


def test_after_a_top_level_declaration() -> None:
    assert compiled(lines("static uint g = 1", "void f() { g = 2; }")) == [
        "<stdin>:1:18: error: expected ';' after top level declarator [WG0201]"]


def test_a_type_name_that_is_not_declared_is_still_an_unknown_type() -> None:
    assert compiled(body("Widget w;")) == ["<stdin>:4:5: error: unknown type name 'Widget' [WG0201]"]


def test_before_an_attributed_loop() -> None:
    # `u0[0] = a` then `[unroll] for`: the attribute parses as an index of `a`, so the ';' goes before
    # it, at the end of 'a' (column 14), and the loop is parsed and checked.
    assert compiled(body("u0[0] = a", "[unroll(4)]", "for (uint i = 0; i < 4; i++) { u0[i] = missing1; }")) == [
        "<stdin>:4:14: error: expected ';' after expression [WG0201]",
        "<stdin>:6:44: error: use of undeclared identifier 'missing1' [WG0301]"]
