"""Where a diagnostic came from: clang's include stack and macro backtrace.

clang (DiagnosticRenderer::emitIncludeStack / emitIncludeStackRecursively) prints, before a
diagnostic in an included file, one "In file included from FILE:LINE:" line per level, the
outermost first ("Emit the other include frames first"), and not again while the stack stays the
same (LastIncludeLoc), nor for notes. For a location in a macro expansion the diagnostic is at the
expansion (the macro's name where it is used) and emitMacroExpansions adds one note per level,
"expanded from macro 'NAME'", outermost first, each at the place in that macro's body.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wgc import driver
from wgc.diagnostics import Renderer, RenderOptions


@pytest.fixture
def compile_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)

    def run(files: dict[str, str], fmt: str = "clang") -> str:
        for name, content in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
        result = driver.compile(driver.Options(input="a.hlsl", emit="json", profile="lib_6_8"))
        return Renderer(RenderOptions(format=fmt)).render(result.diagnostics)

    return run


def test_nested_includes_print_the_stack_outermost_first(compile_files) -> None:
    text = compile_files({
        "a.hlsl": '#include "inc/b.hlsli"\nvoid f() { }\n',
        "inc/b.hlsli": '// b\n#include "c.hlsli"\n',
        "inc/c.hlsli": "static uint g = missing1;\nstatic uint h = missing2;\n"})
    assert text == (
        "In file included from a.hlsl:1:\n"
        "In file included from inc/b.hlsli:2:\n"
        "inc/c.hlsli:1:17: error: use of undeclared identifier 'missing1' [WG0301]\n"
        "static uint g = missing1;\n"
        "                ^~~~~~~~\n"
        # the same stack: not shown again
        "inc/c.hlsli:2:17: error: use of undeclared identifier 'missing2' [WG0301]\n"
        "static uint h = missing2;\n"
        "                ^~~~~~~~\n"
        "2 errors generated.\n")


def test_each_inclusion_has_its_own_stack(compile_files) -> None:
    # The header is included twice, from two files: each error shows the stack it came through.
    text = compile_files({
        "a.hlsl": '#include "one.hlsli"\n#include "two.hlsli"\n',
        "one.hlsli": '#define NAME first\n#include "bad.hlsli"\n',
        "two.hlsli": '#undef NAME\n#define NAME second\n\n#include "bad.hlsli"\n',
        "bad.hlsli": "static uint NAME = missing;\n"})
    lines = [line for line in text.splitlines() if line.startswith(("In file", "bad.hlsli"))]
    assert lines == [
        "In file included from a.hlsl:1:",
        "In file included from one.hlsli:2:",
        "bad.hlsli:1:20: error: use of undeclared identifier 'missing' [WG0301]",
        "In file included from a.hlsl:2:",
        "In file included from two.hlsli:4:",
        "bad.hlsli:1:20: error: use of undeclared identifier 'missing' [WG0301]"]


def test_no_stack_in_the_main_file_after_one_in_a_header(compile_files) -> None:
    text = compile_files({"a.hlsl": '#include "h.hlsli"\nstatic uint y = missing2;\n',
                          "h.hlsli": "static uint x = missing1;\n"})
    assert [line for line in text.splitlines() if ": error" in line or "In file" in line] == [
        "In file included from a.hlsl:1:",
        "h.hlsli:1:17: error: use of undeclared identifier 'missing1' [WG0301]",
        "a.hlsl:2:17: error: use of undeclared identifier 'missing2' [WG0301]"]


def test_an_error_in_a_macro_body_gets_an_expanded_from_note(compile_files) -> None:
    text = compile_files({"a.hlsl": (
        "RWStructuredBuffer<uint> u0 : register(u0);\n"
        "#define STORE(i, v) u0[i] = v; u0[i + 1] = missing\n"
        "void f() { STORE(0, 1); }\n")})
    assert text == (
        "a.hlsl:3:12: error: use of undeclared identifier 'missing' [WG0301]\n"
        "void f() { STORE(0, 1); }\n"
        "           ^~~~~\n"
        "a.hlsl:2:44: note: expanded from macro 'STORE'\n"
        "#define STORE(i, v) u0[i] = v; u0[i + 1] = missing\n"
        "                                           ^~~~~~~\n"
        "1 error generated.\n")


def test_nested_macros_get_one_note_per_level_outermost_first(compile_files) -> None:
    text = compile_files({
        "a.hlsl": '#include "m.hlsli"\nstatic uint y = OUTER(2);\n',
        "m.hlsli": "#define INNER(x) x + missing\n#define OUTER(x) INNER(x)\n"})
    assert text == (
        "a.hlsl:2:17: error: use of undeclared identifier 'missing' [WG0301]\n"
        "static uint y = OUTER(2);\n"
        "                ^~~~~\n"
        "m.hlsli:2:18: note: expanded from macro 'OUTER'\n"
        "#define OUTER(x) INNER(x)\n"
        "                 ^~~~~\n"
        "m.hlsli:1:22: note: expanded from macro 'INNER'\n"
        "#define INNER(x) x + missing\n"
        "                     ^~~~~~~\n"
        "1 error generated.\n")


def test_msvc_format_has_the_same_notes(compile_files) -> None:
    text = compile_files({"a.hlsl": '#include "h.hlsli"\n',
                          "h.hlsli": "#define BAD missing\nstatic uint x = BAD;\n"}, fmt="msvc")
    assert text == (
        "In file included from a.hlsl:1:\n"
        "h.hlsli(2,17): error WG0301: use of undeclared identifier 'missing'\n"
        "h.hlsli(1,13): note: expanded from macro 'BAD'\n"
        "1 error generated.\n")
