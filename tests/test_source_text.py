"""Line endings (LF, CRLF, lone CR), escapes in string literals and bytes that are not UTF-8, through the
whole front end."""

from __future__ import annotations

import pytest

from wgc import driver
from wgc.diagnostics import Renderer
from wgc.source import SourceFile, Span, decode_source
from wgc.syntax import ast
from wgc.syntax.parse import parse_source


def rendered(text: str, emit: str = "ir") -> str:
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=text.encode())
    return Renderer().render(result.diagnostics)


# ---------------------------------------------------------------- line endings

def test_line_index_counts_lf_crlf_and_lone_cr() -> None:
    file = SourceFile("x", "a\rb\r\nc\nd")
    assert file.line_starts() == [0, 2, 5, 7]
    assert [file.line_text(n) for n in (1, 2, 3, 4)] == ["a", "b", "c", "d"]
    assert file.line_col(5) == (3, 1)


def test_lone_cr_becomes_lf_without_moving_offsets() -> None:
    text, bad = decode_source(b"a\rb\r\nc")
    assert (text, bad) == ("a\nb\r\nc", None)


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_a_comment_ends_at_any_line_end_and_lines_are_counted(ending: str) -> None:
    """Line 3's undeclared name is reported on line 3 whatever the line ends are."""
    source = ending.join(["// a comment", "void f() {", "    uint x = zz;", "}", ""])
    assert rendered(source) == (
        "<stdin>:3:14: error: use of undeclared identifier 'zz' [WG0301]\n"
        "    uint x = zz;\n"
        "             ^~\n"
        "1 error generated.\n")


def test_mixed_line_endings_with_a_diagnostic_after_a_lone_cr() -> None:
    source = "// one\r\n// two\rvoid f() {\n#define Z zz\r    uint x = Z;\r\n}\n"
    # lines: 1 "// one" (CRLF), 2 "// two" (CR), 3 "void f() {" (LF), 4 "#define" (CR), 5 the use
    assert rendered(source) == (
        "<stdin>:5:14: error: use of undeclared identifier 'zz' [WG0301]\n"
        "    uint x = Z;\n"
        "             ^\n"
        "<stdin>:4:11: note: expanded from macro 'Z'\n"
        "#define Z zz\n"
        "          ^~\n"
        "1 error generated.\n")


def test_line_directive_after_lone_crs() -> None:
    source = "#line 40\rvoid f() {\r    uint x = zz;\r}\r"
    assert rendered(source).startswith("<stdin>:41:14: error: use of undeclared identifier 'zz'")


# ---------------------------------------------------------------- escapes

def string_values(text: str) -> list[str]:
    unit = parse_source(SourceFile("x.hlsl", text)).unit
    found = []

    def walk(value):  # type: ignore[no-untyped-def]
        if isinstance(value, ast.StringLiteral):
            found.append(value.value)
        elif isinstance(value, ast.Node):
            for name in value.__dataclass_fields__:
                walk(getattr(value, name))
        elif isinstance(value, tuple):
            for item in value:
                walk(item)

    walk(unit)
    return found


@pytest.mark.parametrize(("spelled", "value"), [
    (r"\n\t\\\"\'\a\b\f\r\v\?", "\n\t\\\"'\a\b\f\r\v?"),
    (r"\0", "\0"), (r"\101\60x", "A0x"), (r"\1234", "S4"),
    (r"\x41\x4a", "AJ"), (r"\x0041", "A"), (r"\u00e9", "\u00e9"), (r"\U0001F600", "\U0001F600"),
    ("a\" \"b", "ab"),
])
def test_escapes_are_decoded(spelled: str, value: str) -> None:
    assert string_values(f'[NodeID("{spelled}")] void f() {{ }}') == [value]


def test_escape_diagnostics() -> None:
    source = '[A("\\x", "\\q", "\\x100", "\\u12")] void f() { }\n'
    assert rendered(source, "ast") == (
        "<stdin>:1:5: error: \\x used with no following hex digits [WG0206]\n"
        '[A("\\x", "\\q", "\\x100", "\\u12")] void f() { }\n'
        "    ^~\n"
        "<stdin>:1:11: warning: unknown escape sequence '\\q' [WG0207] [-Wunknown-escape-sequence]\n"
        '[A("\\x", "\\q", "\\x100", "\\u12")] void f() { }\n'
        "          ^~\n"
        "<stdin>:1:17: error: hex escape sequence out of range [WG0206]\n"
        '[A("\\x", "\\q", "\\x100", "\\u12")] void f() { }\n'
        "                ^~~~~\n"
        "<stdin>:1:26: error: incomplete universal character name: \\u needs 4 hex digits [WG0206]\n"
        '[A("\\x", "\\q", "\\x100", "\\u12")] void f() { }\n'
        "                         ^~~~\n"
        "1 warning and 3 errors generated.\n")


def test_string_literals_initialize_no_integer_array_as_in_dxc() -> None:
    """DXC types a string literal `const char[N+1]` (SemaExpr.cpp, ActOnStringLiteral's HLSL
    branch), and classifies every array of char as AR_TOBJ_STRING (SemaHLSL.cpp,
    GetTypeObjectKind): HLSL initialization (InitializeInitSequenceForHLSL) never reaches clang's
    string initialization (SemaInit.cpp, IsStringInit), and CanConvert refuses a string for an
    array (one side aggregate, the other not), so `uint s[] = "..."` is an error in every form and
    size; in a braced list the string counts as one element that converts to nothing."""
    source = "\n".join([
        'static const uint a[] = "Hello";',
        'const uint b[6] = "Hello";',
        'static const uint c[] = { "Hi" };',
        'static const uint d[3] = (uint[3])"Hi";',
        'static const string fine = "Hello";',
        "",
    ])
    assert rendered(source) == (
        "<stdin>:1:25: error: cannot convert from 'string' to 'uint[]' in initialization [WG0303]\n"
        'static const uint a[] = "Hello";\n'
        "                        ^~~~~~~\n"
        "<stdin>:2:19: error: cannot convert from 'string' to 'uint[6]' in initialization [WG0303]\n"
        'const uint b[6] = "Hello";\n'
        "                  ^~~~~~~\n"
        "<stdin>:3:27: error: cannot convert from 'string' to an element of 'uint[1]' in initializer list [WG0303]\n"
        'static const uint c[] = { "Hi" };\n'
        "                          ^~~~\n"
        "<stdin>:4:26: error: cannot cast from 'string' to 'uint[3]' [WG0321]\n"
        'static const uint d[3] = (uint[3])"Hi";\n'
        "                         ^~~~~~~~~~~~~\n"
        "4 errors generated.\n")


def test_include_names_are_not_decoded(tmp_path) -> None:
    """`\\x41` in an include name is no escape: the backslash separates folders, as dxc's include
    loader reads it on every platform (`a/x41.hlsl`, not `aA.hlsl`)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x41.hlsl").write_text("void f() { }\n")
    main = tmp_path / "main.hlsl"
    main.write_text('#include "a\\x41.hlsl"\n')
    result = driver.compile(driver.Options(input=str(main), emit="ast"))
    assert result.ok, result.diagnostics


def test_debug_line_numbers_count_lone_crs() -> None:
    """-Zi: the OpLine of the store on line 9 says 9 with lone-CR line ends too."""
    import re
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import deep_inputs

    text = deep_inputs.node_file("    a = a + 7u;\n")  # line 9
    lines_of = {}
    for ending in ("\n", "\r"):
        result = driver.compile(driver.Options(input="-", emit="asm", debug_info=True),
                                stdin=text.replace("\n", ending).encode())
        assert result.ok, result.diagnostics
        lines_of[ending] = sorted({int(n) for n in re.findall(r"OpLine %\S+ (\d+)", result.outputs["asm"].decode())})
    assert 9 in lines_of["\n"]
    assert lines_of["\r"] == lines_of["\n"]


# ---------------------------------------------------------------- bytes that are not UTF-8

def rendered_bytes(data: bytes, emit: str = "ir") -> str:
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=data)
    return Renderer().render(result.diagnostics)


SHIFT_JIS_COMMENT = "// \u3053\u3093\u306b\u3061\u306f (Shift-JIS)\n".encode("shift_jis")
LATIN_1_COMMENT = "/* caf\u00e9, na\u00efve */\n".encode("latin-1")
NODE_BYTES = (b'RWStructuredBuffer<uint> o : register(u0);\n'
              b'[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]\n'
              b'void main(uint i : SV_DispatchThreadID) { o[i] = 1; }\n')


@pytest.mark.parametrize("comment", [SHIFT_JIS_COMMENT, LATIN_1_COMMENT, b"int a; // \xff\xfe\x80\n"],
                         ids=["shift-jis", "latin-1", "stray-bytes"])
def test_comments_that_are_not_utf8_compile_silently(comment: bytes) -> None:
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=comment + NODE_BYTES)
    assert result.ok and result.diagnostics == () and result.outputs["spirv"][:4] == b"\x03\x02\x23\x07"


def test_a_byte_that_is_not_utf8_in_code_is_a_precise_error() -> None:
    assert rendered_bytes(b"uint caf\xe9 = 1;\n") == (
        "<stdin>:1:9: error: invalid UTF-8 byte in source [WG0202]\n"
        "uint caf\ufffd = 1;\n"
        "        ^\n"
        "1 error generated.\n")


def test_columns_after_bytes_that_are_not_utf8_count_one_per_byte() -> None:
    """Each stray byte is one U+FFFD, so the column is the byte column clang and dxc report."""
    data = b"/* " + "\u3053\u3093".encode("shift_jis") + b" */ static uint y = zz;\n"
    assert rendered_bytes(data) == (
        "<stdin>:1:28: error: use of undeclared identifier 'zz' [WG0301]\n"
        "/* \ufffd\ufffd\ufffd\ufffd */ static uint y = zz;\n"
        "                           ^~\n"
        "1 error generated.\n")


def test_a_truncated_multibyte_sequence_counts_each_of_its_bytes() -> None:
    """cp1252 "é€" is E9 80: the start of a 3-byte UTF-8 sequence cut short; two bytes, two columns."""
    assert decode_source(b"a\xe9\x80b") == ("a\ufffd\ufffdb", 1)
    assert rendered_bytes("/* é€ */ static uint y = zz;\n".encode("cp1252")) == (
        "<stdin>:1:26: error: use of undeclared identifier 'zz' [WG0301]\n"
        "/* \ufffd\ufffd */ static uint y = zz;\n"
        "                         ^~\n"
        "1 error generated.\n")


def test_span_to_covers_both_spans_of_one_file_and_keeps_its_own_otherwise() -> None:
    """`Span.to`: from the lower start to the higher end (ties and either order), computed here with
    `min`/`max`; a span of another file gives the span itself."""
    one, other = SourceFile("a.hlsl", "x" * 20), SourceFile("b.hlsl", "y" * 20)
    ranges = [(0, 0), (0, 5), (3, 3), (3, 9), (5, 5), (5, 12), (9, 20)]
    for a_start, a_end in ranges:
        for b_start, b_end in ranges:
            a, b = Span(one, a_start, a_end), Span(one, b_start, b_end)
            assert a.to(b) == Span(one, min(a_start, b_start), max(a_end, b_end))
            assert a.to(Span(other, b_start, b_end)) is a
