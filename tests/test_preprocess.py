"""Tests for the preprocessor stage (`wgc.preprocess`): pcpp plus wgc's file search,
diagnostics and the location map back to the original files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wgc import codes
from wgc import preprocess as pp_module
from wgc.diagnostics import Renderer, Severity
from wgc.preprocess import Preprocessed, PreprocessOptions, preprocess
from wgc.source import STDIN_NAME, SourceFile, Span

# --------------------------------------------------------------------------- helpers


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write files under tmp_path (the working folder) and preprocess one of them."""
    monkeypatch.chdir(tmp_path)

    def run(files: dict[str, str | bytes], main: str = "main.hlsl", **options) -> Preprocessed:
        for name, content in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                content = content.encode()
            path.write_bytes(content)
        text = (tmp_path / main).read_bytes().decode()
        return preprocess(SourceFile(main, text), PreprocessOptions(**options))

    return run


def pre(text: str, path: str = "main.hlsl", **options) -> Preprocessed:
    return preprocess(SourceFile(path, text), PreprocessOptions(**options))


def words(result: Preprocessed) -> list[str]:
    return result.text.split()


def where(result: Preprocessed, needle: str, nth: int = 0) -> str:
    """`path:line:col` that the nth occurrence of `needle` in the output maps to."""
    offset = -1
    for _ in range(nth + 1):
        offset = result.text.index(needle, offset + 1)
    file, original = result.locations.location(offset)
    line, col = file.line_col(original)
    return f"{file.path}:{line}:{col}"


def spelled(result: Preprocessed, needle: str, nth: int = 0) -> str:
    """The original text that the output span of `needle` maps back to."""
    offset = -1
    for _ in range(nth + 1):
        offset = result.text.index(needle, offset + 1)
    span = result.locations.span(offset, offset + len(needle))
    return span.file.text[span.start:span.end]


def render(result: Preprocessed) -> str:
    return Renderer().render(result.diagnostics)


def codes_of(result: Preprocessed) -> list[str]:
    return [d.code for d in result.diagnostics]


# --------------------------------------------------------------------------- #include


def test_quoted_include_searches_includer_folder_before_include_dirs(project):
    result = project({
        "main.hlsl": '#include "x.hlsli"\n',
        "x.hlsli": "int from_main_folder;\n",
        "inc1/x.hlsli": "int from_inc1;\n",
    }, include_dirs=("inc1",))
    assert words(result) == ["int", "from_main_folder;"]
    assert result.files == ("main.hlsl", "x.hlsli")


def test_angle_include_searches_only_include_dirs_in_order(project):
    result = project({
        "main.hlsl": "#include <x.hlsli>\n",
        "x.hlsli": "int from_main_folder;\n",
        "inc1/x.hlsli": "int from_inc1;\n",
        "inc2/x.hlsli": "int from_inc2;\n",
    }, include_dirs=("inc1", "inc2"))
    assert words(result) == ["int", "from_inc1;"]
    assert result.files == ("main.hlsl", "inc1/x.hlsli")


def test_include_dirs_are_searched_in_command_line_order(project):
    result = project({
        "main.hlsl": '#include "y.hlsli"\n',
        "inc1/y.hlsli": "int from_inc1;\n",
        "inc2/y.hlsli": "int from_inc2;\n",
    }, include_dirs=("inc2", "inc1"))
    assert words(result) == ["int", "from_inc2;"]


def test_nested_includes_resolve_relative_to_the_includer(project):
    result = project({
        "main.hlsl": '#include "lib/a.hlsli"\nint m;\n',
        "lib/a.hlsli": '#include "detail/b.hlsli"\nint a;\n',
        "lib/detail/b.hlsli": '#include "../c.hlsli"\nint b;\n',
        "lib/c.hlsli": "int c;\n",
        "c.hlsli": "int wrong_c;\n",
    })
    assert words(result) == ["int", "c;", "int", "b;", "int", "a;", "int", "m;"]
    assert result.files == ("main.hlsl", "lib/a.hlsli", "lib/detail/b.hlsli", "lib/detail/../c.hlsli")


def test_pragma_once_includes_content_once_and_lists_file_once(project):
    result = project({
        "main.hlsl": '#include "once.hlsli"\n#include "once.hlsli"\n#include "./once.hlsli"\nint m;\n',
        "once.hlsli": "#pragma once\nint once;\n",
    })
    assert words(result) == ["int", "once;", "int", "m;"]
    assert result.files == ("main.hlsl", "once.hlsli")
    assert result.diagnostics == ()


def test_include_guard_includes_content_once(project):
    result = project({
        "main.hlsl": '#include "g.hlsli"\n#include "g.hlsli"\nint m = G_VALUE;\n',
        "g.hlsli": "#ifndef G_HLSLI\n#define G_HLSLI\n#define G_VALUE 7\nint guarded;\n#endif\n",
    })
    assert words(result) == ["int", "guarded;", "int", "m", "=", "7;"]
    assert result.files == ("main.hlsl", "g.hlsli")


def test_include_guard_is_honoured_only_while_its_macro_is_defined(project):
    result = project({
        "main.hlsl": '#include "g.hlsli"\n#undef G_HLSLI\n#include "g.hlsli"\n',
        "g.hlsli": "#ifndef G_HLSLI\n#define G_HLSLI\nint guarded;\n#endif\n",
    })
    assert words(result).count("guarded;") == 2
    assert result.files == ("main.hlsl", "g.hlsli")


def test_files_lists_every_file_read_in_first_seen_order(project):
    result = project({
        "main.hlsl": '#include "b.hlsli"\n#include "a.hlsli"\n#include "missing.hlsli"\n#include "b.hlsli"\n',
        "a.hlsli": '#include "c.hlsli"\n',
        "b.hlsli": "int b;\n",
        "c.hlsli": "int c;\n",
    })
    assert result.files == ("main.hlsl", "b.hlsli", "a.hlsli", "c.hlsli")
    assert codes_of(result) == [codes.INCLUDE_NOT_FOUND.code]


def test_stdin_main_file_is_not_in_files(project):
    project({"inc/x.hlsli": "int x;\n", "main.hlsl": ""})
    result = pre('#include "x.hlsli"\n', path=STDIN_NAME, include_dirs=("inc",))
    assert result.files == ("inc/x.hlsli",)
    assert words(result) == ["int", "x;"]


def test_absolute_include_dir_spelling_is_kept(project, tmp_path):
    absolute = str(tmp_path / "abs")
    result = project({"main.hlsl": "#include <z.hlsli>\n", "abs/z.hlsli": "int z;\n"},
                     include_dirs=(absolute,))
    assert result.files == ("main.hlsl", f"{absolute}/z.hlsli")


def test_missing_include_renders_clang_style_with_searched_folders(project, tmp_path):
    other = str(tmp_path / "other")
    result = project({
        "main.hlsl": 'int a;\n#include "missing.hlsli"\nint b;\n',
        "inc/unrelated.hlsli": "",
    }, include_dirs=("inc", other))
    assert render(result) == (
        "main.hlsl:2:10: error: 'missing.hlsli' file not found [WG0101]\n"
        '#include "missing.hlsli"\n'
        "         ^~~~~~~~~~~~~~~\n"
        f"note: searched: ., inc, {other}\n"
        "1 error generated.\n"
    )
    assert words(result) == ["int", "a;", "int", "b;"]   # processing continued
    assert result.files == ("main.hlsl",)


def test_missing_angle_include_points_at_the_whole_name(project):
    result = project({"main.hlsl": "#include <nope.hlsli>\n"})
    assert render(result) == (
        "main.hlsl:1:10: error: 'nope.hlsli' file not found [WG0101]\n"
        "#include <nope.hlsli>\n"
        "         ^~~~~~~~~~~~\n"
        "note: searched: (no -I folders given)\n"
        "1 error generated.\n"
    )


def test_diagnostic_inside_included_file_points_into_that_file(project):
    result = project({
        "main.hlsl": '#include "inc/a.hlsli"\n',
        "inc/a.hlsli": "#define TWO(a, b) a\n// line 2\nint TWO(1);\n",
    })
    text = render(result)
    assert text.startswith(
        "In file included from main.hlsl:1:\n"
        "inc/a.hlsli:3:5: error: too few arguments provided to function-like macro invocation [WG0104]\n"
        "int TWO(1);\n"
        "    ^~~\n"
        "inc/a.hlsli:1:9: note: macro 'TWO' defined here\n")


def test_token_locations_inside_included_file(project):
    result = project({
        "main.hlsl": 'int before;\n#include "inc/a.hlsli"\nint after;\n',
        "inc/a.hlsli": "// header\n\n    float inside;\n",
    })
    assert where(result, "inside") == "inc/a.hlsli:3:11"
    assert where(result, "before") == "main.hlsl:1:5"
    assert where(result, "after") == "main.hlsl:3:5"


def test_recursive_include_is_capped_and_reported(project):
    result = project({
        "main.hlsl": '#include "loop.hlsli"\nint end;\n',
        "loop.hlsli": '#include "loop.hlsli"\n#include "loop.hlsli"\nint level;\n',
    })
    too_deep = [d for d in result.diagnostics if d.code == codes.INCLUDE_TOO_DEEP.code]
    assert len(too_deep) == 1
    text = render(result)
    stack = text.split("loop.hlsli:1:10: error: #include nested too deeply [WG0108]\n")[0].splitlines()
    # clang's include stack, outermost first: the error is in the last of the MAX_INCLUDE_DEPTH files
    # open (main.hlsl and MAX - 1 loop.hlsli), so its includers are main.hlsl and MAX - 2 loop.hlsli
    assert stack == ["In file included from main.hlsl:1:"] + [
        "In file included from loop.hlsli:1:"] * (pp_module.MAX_INCLUDE_DEPTH - 2)
    assert words(result).count("level;") == pp_module.MAX_INCLUDE_DEPTH - 1
    assert words(result)[-2:] == ["int", "end;"]
    assert result.files == ("main.hlsl", "loop.hlsli")


def test_included_file_with_invalid_utf8_is_read_with_replacement_characters(project):
    """Bytes that are not UTF-8 are U+FFFD (no diagnostic here: comments drop them, the lexer rejects
    them in code); the comment's Latin-1 byte is gone, the one in code is kept for the lexer."""
    result = project({"main.hlsl": '#include "bad.hlsli"\n',
                      "bad.hlsli": b"// caf\xe9\nint x; \xff int y;\n"})
    assert render(result) == ""
    assert words(result) == ["int", "x;", "\ufffd", "int", "y;"]


def test_include_name_from_a_macro(project):
    result = project({"main.hlsl": '#define HEADER "h.hlsli"\n#include HEADER\n', "h.hlsli": "int h;\n"})
    assert words(result) == ["int", "h;"]


def test_malformed_includes_are_reported(project):
    result = project({"main.hlsl": '#include\n#include foo\n#include <foo\n#include ""\nint ok;\n'})
    assert [d.message for d in result.diagnostics] == [
        '#include expects "FILENAME" or <FILENAME>',
        '#include expects "FILENAME" or <FILENAME>',
        "expected '>' after the #include file name",
        "empty filename in #include",
    ]
    assert words(result) == ["int", "ok;"]


# --------------------------------------------------------------------------- macros and conditionals


def test_command_line_defines_and_undefines():
    result = pre("int a = X; int b = Y; int c = Z;\n#ifdef W\nint w;\n#endif\n",
                 defines=(("X", "2"), ("Y", None), ("Z", ""), ("W", "1")), undefines=("W",))
    assert words(result) == ["int", "a", "=", "2;", "int", "b", "=", "1;", "int", "c", "=", ";"]
    assert result.diagnostics == ()


def test_command_line_function_like_define():
    result = pre("int a = SQ(3);\n", defines=(("SQ(x)", "((x)*(x))"),))
    assert "".join(words(result)) == "inta=((3)*(3));"


def test_bad_macro_options_are_errors_without_location():
    result = pre("int ok;\n", defines=(("1FOO", None), ("", "3"), ("defined", "1")), undefines=("2x",))
    assert [(d.code, d.span, d.message) for d in result.diagnostics] == [
        ("WG0109", None, "macro name must be an identifier in '-D 1FOO'"),
        ("WG0109", None, "macro name is missing in '-D =3'"),
        ("WG0109", None, "'defined' cannot be used as a macro name in '-D defined=1'"),
        ("WG0109", None, "macro name must be an identifier in '-U 2x'"),
    ]
    assert all(d.severity is Severity.ERROR for d in result.diagnostics)


def test_function_like_and_variadic_macros():
    result = pre(
        "#define ADD(a, b) ((a) + (b))\n"
        "#define CALL(f, ...) f(__VA_ARGS__)\n"
        "#define NAMED(args...) g(args)\n"
        "#define CAT(a, b) a ## b\n"
        "#define STR(x) #x\n"
        "#define NOARGS() 42\n"
        "x = ADD(1, ADD(2, 3));\n"
        "y = CALL(h, 1, 2, 3); z = CALL(k);\n"
        "n = NAMED(4, 5);\n"
        "c = CAT(node, Id); s = STR(a  +  b); q = NOARGS();\n"
        "ADD;\n"
    )
    assert "".join(words(result)) == (
        "x=((1)+(((2)+(3))));"
        "y=h(1,2,3);z=k();"
        "n=g(4,5);"
        'c=nodeId;s="a+b";q=42;'
        "ADD;"
    )
    assert '"a + b"' in result.text   # stringizing collapses the whitespace runs
    assert result.diagnostics == ()


def test_function_like_macro_invocation_across_lines_and_blank_lines():
    result = pre("#define F(x, y) [x y]\nF\n\n// note\n(1,\n 2)\nF (3, 4) F\nplain;\n")
    assert "".join(words(result)) == "[12][34]Fplain;"
    assert result.diagnostics == ()
    assert where(result, "[") == "main.hlsl:2:1"
    assert where(result, "[", nth=1) == "main.hlsl:7:1"
    assert where(result, "plain") == "main.hlsl:8:1"


def test_macro_that_opens_an_invocation_continued_on_the_next_line():
    result = pre("#define G(a, b) <a b>\n#define OPEN G(\nx = OPEN 1,\n  2);\ny;\n")
    assert result.diagnostics == ()
    assert "".join(words(result)) == "x=<12>;y;"
    assert where(result, "y;") == "main.hlsl:5:1"


def test_if_elif_else_with_defined():
    source = (
        "#if defined(A) && A > 1\nint a_big;\n"
        "#elif defined B || defined(C)\nint b_or_c;\n"
        "#else\nint neither;\n#endif\n"
        "#ifdef A\nint has_a;\n#endif\n"
        "#ifndef A\nint no_a;\n#endif\n"
    )
    assert words(pre(source, defines=(("A", "2"),))) == ["int", "a_big;", "int", "has_a;"]
    assert words(pre(source, defines=(("A", "1"), ("C", None)))) == ["int", "b_or_c;", "int", "has_a;"]
    assert words(pre(source)) == ["int", "neither;", "int", "no_a;"]


def test_skipped_blocks_are_not_checked():
    result = pre("#if 0\n#bogus\n#define\n#include \"nothing.h\"\n#error no\n#if\n#endif\n#endif\nint ok;\n")
    assert result.diagnostics == ()
    assert words(result) == ["int", "ok;"]


def test_predefined_macros_default():
    result = pre(
        "a = __HLSL_VERSION; b = __SHADER_TARGET_MAJOR; c = __SHADER_TARGET_MINOR; d = __spirv__;\n"
        "e = __SHADER_TARGET_STAGE == __SHADER_STAGE_LIBRARY; f = __hlsl_dx_compiler;\n"
        "#ifdef __HLSL_ENABLE_16_BIT\nsixteen;\n#endif\n"
        "#if defined(__DATE__) || defined(__TIME__) || defined(__PCPP__)\nclock;\n#endif\n"
    )
    assert "".join(words(result)) == "a=2021;b=6;c=9;d=1;e=6==6;f=1;"


def test_predefined_macros_follow_options():
    result = pre("a = __HLSL_VERSION; b = __SHADER_TARGET_MAJOR; c = __SHADER_TARGET_MINOR;\n"
                 "#if __HLSL_ENABLE_16_BIT\nsixteen;\n#endif\n",
                 hlsl_version=2018, shader_model=(6, 8), enable_16bit_types=True)
    assert "".join(words(result)) == "a=2018;b=6;c=8;sixteen;"


def test_predefined_file_and_line():
    result = pre("int l = __LINE__;\n\nint m = __LINE__; string f = __FILE__;\n", path="dir/s.hlsl")
    assert "".join(words(result)) == 'intl=1;intm=3;stringf="dir/s.hlsl";'


def test_macro_redefinition_warns_with_previous_location():
    result = pre("#define A 1\n#define A 1\n#define A  1\n#define A 2\n#define __spirv__ 0\n",
                 defines=(("Y", "1"), ("Y", "2")))
    assert render(result) == (
        "warning: 'Y' macro redefined [WG0107] [-Wmacro-redefined]\n"
        "note: previous definition is on the command line\n"
        "main.hlsl:4:9: warning: 'A' macro redefined [WG0107] [-Wmacro-redefined]\n"
        "#define A 2\n"
        "        ^\n"
        "main.hlsl:3:9: note: previous definition is here\n"
        "#define A  1\n"
        "        ^\n"
        "main.hlsl:5:9: warning: '__spirv__' macro redefined [WG0107] [-Wmacro-redefined]\n"
        "#define __spirv__ 0\n"
        "        ^~~~~~~~~\n"
        "note: previous definition is built in\n"
        "3 warnings generated.\n"
    )
    assert result.diagnostics[0].group == "macro-redefined"


# --------------------------------------------------------------------------- directives and diagnostics


def test_error_and_warning_directives():
    result = pre("int a;\n#warning careful   now\n#error stop /* here */ please\n#error\n")
    assert render(result) == (
        "main.hlsl:2:2: warning: careful   now [WG0103] [-W#warnings]\n"
        "#warning careful   now\n"
        " ^~~~~~~\n"
        "main.hlsl:3:2: error: stop /* here */ please [WG0102]\n"
        "#error stop /* here */ please\n"
        " ^~~~~\n"
        "main.hlsl:4:2: error: #error [WG0102]\n"
        "#error\n"
        " ^~~~~\n"
        "1 warning and 2 errors generated.\n"
    )


def test_pragmas():
    result = pre("#pragma once\n#pragma pack_matrix(row_major)\n#pragma warning(disable: 3205)\n"
                 "#pragma dxc diagnostic push\n#pragma message(\"hi\")\n#pragma\n#pragma  region x\nint ok;\n")
    assert render(result) == (
        "main.hlsl:7:10: warning: unknown pragma 'region' ignored [WG0106] [-Wunknown-pragmas]\n"
        "#pragma  region x\n"
        "         ^~~~~~\n"
        "1 warning generated.\n"
    )
    assert result.diagnostics[0].group == "unknown-pragmas"
    assert words(result) == ["int", "ok;"]


def test_unknown_directive_is_an_error():
    result = pre("#foo bar\n#include_next <x>\nint ok;\n")
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("WG0105", "invalid preprocessing directive '#foo'"),
        ("WG0105", "invalid preprocessing directive '#include_next'"),
    ]
    assert result.diagnostics[0].span.start == 1


def test_no_directive_reaches_the_output():
    result = pre("#define A 1\n#if A\n# pragma once\n#endif\n#pragma foo\n#line 3\n#foo\n#error x\n"
                 "#warning y\n#undef A\n  #  define B 2\n/* c */ #define C 3\nint x = B + C;\n")
    assert "#" not in result.text
    assert "".join(words(result)) == "intx=2+3;"


@pytest.mark.parametrize(("source", "messages"), [
    ("#if 1\nint a;\n", ["unterminated conditional directive"]),
    ("#else\n#endif\n#elif 1\n", ["#else without #if", "#endif without #if", "#elif without #if"]),
    ("#if 1 +\n#endif\n", ["invalid preprocessor expression '1 +'"]),
    ("#if 1/0\n#endif\n", ["invalid preprocessor expression '1/0'"]),
    ("#if\n#endif\n#ifdef\n#endif\n#if !defined(\n#endif\n", [
        "#if with no expression", "macro name missing", "macro name missing"]),
    ("#if defined(X\n#endif\n#if FN(2)\n#endif\n", [
        "missing ')' after 'defined'", "function-like macro 'FN' is not defined"]),
    ("#define\n#define 1x 2\n#define defined 1\n#undef\n", [
        "macro name missing", "macro name must be an identifier", "'defined' cannot be used as a macro name",
        "macro name missing"]),
    ("#define F(a,) 1\n#define G(a b) 1\n#define H(a, a) 1\n#define I(a\n#define J(..., a) 1\n", [
        "expected parameter name in macro parameter list", "expected comma in macro parameter list",
        "duplicate macro parameter name 'a'", "missing ')' in macro parameter list",
        "missing ')' after '...' in macro parameter list"]),
    ("#define F(a, b) a\nint x = F(1);\nint y = F(1, 2, 3);\n", [
        "too few arguments provided to function-like macro invocation",
        "too many arguments provided to function-like macro invocation"]),
    ("#define F(x) x\nint a = F(1, 2\n", ["unterminated function-like macro invocation"]),
    ("#line x\n#line 5 6\n#line 99999999\n", [
        "#line directive requires a positive integer argument", "invalid filename for #line directive",
        "#line number 99999999 is too large (wgc supports at most 1000000)"]),
])
def test_malformed_directives_are_diagnosed(source: str, messages: list[str]):
    result = pre(source)
    assert [d.message for d in result.diagnostics] == messages
    assert all(d.code == codes.MALFORMED_DIRECTIVE.code for d in result.diagnostics)
    assert all(d.span is not None and d.span.file.path == "main.hlsl" for d in result.diagnostics)


def test_malformed_directive_spans_point_at_the_problem():
    result = pre("int a;\n#if 1\n")
    assert render(result) == (
        "main.hlsl:2:2: error: unterminated conditional directive [WG0104]\n"
        "#if 1\n"
        " ^~\n"
        "1 error generated.\n"
    )
    result = pre("#define F(a, b) a\n  x = F(1);\n")
    assert render(result).startswith("main.hlsl:2:7: error: too few arguments")


def test_unterminated_block_comment():
    result = pre("int a; /* open\nint b;\n")
    assert [(d.code, d.message) for d in result.diagnostics] == [("WG0110", "unterminated /* comment")]
    assert result.diagnostics[0].span.start == 7
    assert words(result) == ["int", "a;"]


def test_macro_chain_too_deep_for_python_is_a_diagnostic():
    source = "#define A0 x\n" + "".join(f"#define A{i} A{i - 1}\n" for i in range(1, 1500)) + "int v = A1499;\n"
    result = pre(source)
    assert render(result) == (
        "main.hlsl:1501:9: error: macro expansion nests too deeply for wgc [WG0111]\n"
        "int v = A1499;\n"
        "        ^~~~~\n"
        "note: the tokens here are left unexpanded\n"
        "1 error generated.\n"
    )


# --------------------------------------------------------------------------- #line


def test_line_directive_with_file_name_maps_into_a_virtual_file():
    result = pre("int a;\n#line 100 \"foo.hlsl\"\nint b;\n  int c;\n")
    assert where(result, "b;") == "foo.hlsl:100:5"
    assert where(result, "c;") == "foo.hlsl:101:7"
    assert where(result, "a;") == "main.hlsl:1:5"
    file, _ = result.locations.location(result.text.index("c;"))
    assert file.line_text(101) == "  int c;"


def test_line_directive_without_file_name_keeps_the_name():
    result = pre("#line 10 \"gen.hlsl\"\nint a;\n#line 50\nint b = __LINE__;\nstring f = __FILE__;\n")
    assert where(result, "a;") == "gen.hlsl:10:5"
    assert where(result, "b ") == "gen.hlsl:50:5"
    assert "".join(words(result)) == 'inta;intb=50;stringf="gen.hlsl";'


def test_line_directive_diagnostics_use_the_new_position():
    result = pre("#line 20 \"v.hlsl\"\n#define F(a, b) a\nF(1);\n")
    assert render(result).startswith("v.hlsl:21:1: error: too few arguments")
    assert "\nF(1);\n^\n" in render(result)


def test_gnu_line_marker():
    result = pre("# 7 \"m.hlsl\" 1\nint a;\n")
    assert where(result, "a;") == "m.hlsl:7:5"


# --------------------------------------------------------------------------- location map


def test_expanded_tokens_map_to_the_macro_name_at_the_use_site():
    result = pre("#define N 4\n#define ADD(a, b) ((a) + (b))\nfloat x = N;\nfloat y =  ADD(1,\n   2) * N;\n")
    assert where(result, "4") == "main.hlsl:3:11"
    assert spelled(result, "4") == "N"
    assert where(result, "((") == "main.hlsl:4:12"
    assert spelled(result, "((") == "ADD"
    assert where(result, "2") == "main.hlsl:4:12"          # macro arguments too
    assert where(result, "*") == "main.hlsl:5:7"
    assert where(result, "4", nth=1) == "main.hlsl:5:9"
    assert where(result, ";", nth=1) == "main.hlsl:5:10"


def test_nested_expansion_maps_to_the_outermost_use():
    result = pre("#define INNER 7\n#define OUTER (INNER + 1)\nint v = OUTER;\n")
    assert where(result, "7") == "main.hlsl:3:9"
    assert spelled(result, "7") == "OUTER"


def test_direct_tokens_keep_their_exact_spelling_and_position():
    source = "struct S { float4 pos : SV_Position; }; // c\n  float v = 1.5h + .5 + 1.0f.x;\n"
    result = pre(source)
    for token in ("struct", "SV_Position;", "1.5h", ".5", "1.0f.x;"):
        assert spelled(result, token) == token
        file, offset = result.locations.location(result.text.index(token))
        assert file.text.startswith(token, offset)


def test_span_across_files_is_clamped_to_the_end_of_the_start_line(project):
    result = project({"main.hlsl": 'int a; int aa;\n#include "x.hlsli"\n', "x.hlsli": "int x;\n"})
    start = result.text.index("a;")
    end = result.text.index("x;") + 2
    span = result.locations.span(start, end)
    assert span.file.path == "main.hlsl"
    assert span.file.text[span.start:span.end] == "a; int aa;"


def test_span_within_one_file_covers_the_original_range():
    result = pre("#define N 4\nint v = N + 1;\n")
    start = result.text.index("4")
    end = result.text.index("1;") + 1
    span = result.locations.span(start, end)
    assert span.file.text[span.start:span.end] == "N + 1"
    empty = result.locations.span(start, start)
    assert (empty.start, empty.end) == (span.start, span.start)


def test_end_of_text_maps_to_the_end_of_the_main_file(project):
    result = project({"main.hlsl": 'int a;\n#include "x.hlsli"\n// tail\n', "x.hlsli": "int x;\n"})
    file, offset = result.locations.location(len(result.text))
    assert (file.path, offset) == ("main.hlsl", len(file.text))


def test_crlf_input():
    source = "#define A \\\r\n  7\r\nint a = A;\r\n  int b;\r\n#if 1\r\nint c;\r\n#endif\r\n"
    result = pre(source)
    assert "\r" not in result.text
    assert words(result) == ["int", "a", "=", "7;", "int", "b;", "int", "c;"]
    assert where(result, "b;") == "main.hlsl:4:7"
    assert where(result, "c;") == "main.hlsl:6:5"
    assert spelled(result, "7") == "A"
    span = result.locations.span(result.text.index("int b"), result.text.index("c;") + 2)
    assert span.file.text[span.start:span.end] == "int b;\r\n#if 1\r\nint c;"


def test_output_keeps_the_line_structure_of_plain_code():
    source = "// c\nint a;\n\n/* x\n y */ int b;\n#define Q 1\n    int c = Q;\n"
    result = pre(source)
    assert result.text.split("\n")[1] == "int a;"
    assert result.text.split("\n")[4].strip() == "int b;"
    assert result.text.count("\n") >= 6


def test_tokens_from_different_places_are_never_glued():
    result = pre("#define M -\n#define P +\n#define E\nx = M-1; y = P+P; z = a E b; w = 1 E.5;\n")
    assert "".join(words(result)) == "x=--1;y=+++;z=ab;w=1.5;"
    assert "--" not in result.text and "++" not in result.text
    assert "ab" not in result.text and "1.5" not in result.text


def test_preprocessing_is_deterministic(project):
    files = {"main.hlsl": '#include "a.hlsli"\n#define F(x) x+__COUNTER__\nint a = F(1) + F(2);\n#error e\n',
             "a.hlsli": "#pragma foo\nint a;\n"}
    first = project(files)
    second = project(files)
    assert first.text == second.text
    assert [(d.code, d.message, d.span.file.path, d.span.start) for d in first.diagnostics] == \
        [(d.code, d.message, d.span.file.path, d.span.start) for d in second.diagnostics]
    assert render(first) == render(second)
    assert [first.locations.location(i)[1] for i in range(len(first.text))] == \
        [second.locations.location(i)[1] for i in range(len(second.text))]


# --------------------------------------------------------------------------- robustness


_LINES = [
    "#define A 1", "#define B A + 2", "#define F(x) ((x) * 2)", "#define G(x, y) x ## y", "#define S(x) #x",
    "#define V(...) f(__VA_ARGS__)", "#define H F", "#undef A", "#define E", "#define PLUS +",
    "int a = A;", "int b = B;", "int c = F(1) + F(F(2));", "int d = G(ab, cd);", "s = S(hello  world);",
    "int e = V(1, 2, 3);", "int h = H(3);", "x = F(", "  1", ")", "y = H", "(4);", "z = PLUS+1;",
    "/* comment */ int q;", "int r; // trailing", "// full comment", "", "   ", "float4 v = 1.0f.xxxx;",
    '[Shader("node")]', 'str = "a // not comment";', "#if A", "#ifdef B", "#else", "#endif", "#elif 1",
    "#if defined(F) && !defined(Q)", "int u = __LINE__;", "int cont = 1 + \\", "  2;", "/* multi",
    " line */ int m;", "E int en;", "F (5)", "t = a+++b;", "#pragma once", "#line 50", "\tint tab;",
    "k = F(A) G(A, B) S(A);", "F", "(1)", "#error oops", "#include \"nothing.hlsli\"",
    "#define OPEN G(", "OPEN 1,", "2)",
]


def _run(source: str, opaque: bool) -> Preprocessed:
    previous = pp_module._Preprocessor.use_opaque_runs
    pp_module._Preprocessor.use_opaque_runs = opaque
    try:
        return pre(source)
    finally:
        pp_module._Preprocessor.use_opaque_runs = previous


def _mapped(result: Preprocessed) -> list[tuple]:
    rows = []
    for m in re.finditer(r"\S+", result.text):
        file, offset = result.locations.location(m.start())
        span = result.locations.span(m.start(), m.end())
        rows.append((m.group(), file.path, offset, span.start, span.end))
    return rows


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_LINES), max_size=20))
def test_opaque_runs_never_change_the_result(lines: list[str]):
    source = "\n".join(lines) + "\n"
    fast = _run(source, opaque=True)
    slow = _run(source, opaque=False)
    assert fast.text.split() == slow.text.split()
    assert _mapped(fast) == _mapped(slow)
    assert [(d.code, d.message, d.span.start if d.span else None) for d in fast.diagnostics] == \
        [(d.code, d.message, d.span.start if d.span else None) for d in slow.diagnostics]
    if "\\\n" not in source:   # a continued line may legitimately carry a '#' into the text
        assert not any(line.lstrip().startswith("#") for line in fast.text.split("\n"))


@pytest.mark.parametrize("opaque", [True, False])
def test_chunk_flush_never_splits_a_macro_invocation(opaque: bool):
    source = "#define F(x) [x]\nint a = F(1) + F(2);\nF\n   \n\n(4);\nF(\n5\n);\n"
    previous = pp_module._FLUSH_TOKENS
    pp_module._FLUSH_TOKENS = 2
    try:
        result = _run(source, opaque=opaque)
    finally:
        pp_module._FLUSH_TOKENS = previous
    assert "".join(words(result)) == "inta=[1]+[2];[4];[5];"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_LINES), max_size=20))
def test_early_chunk_flushes_never_change_the_result(lines: list[str]):
    source = "\n".join(lines) + "\n"
    normal = pre(source)
    previous = pp_module._FLUSH_TOKENS
    pp_module._FLUSH_TOKENS = 2     # flush pcpp's chunk whenever it is allowed to
    try:
        flushed = pre(source)
        flushed_slow = _run(source, opaque=False)
    finally:
        pp_module._FLUSH_TOKENS = previous
    assert flushed.text.split() == normal.text.split() == flushed_slow.text.split()
    assert _mapped(flushed) == _mapped(normal)
    assert [d.message for d in flushed.diagnostics] == [d.message for d in normal.diagnostics]


_ALPHABET = list("#()[]{},.;:+-*/%&|^!~<>=?\"'\\ \t\n\r_aAzZ019xX@$`\x00é") + [
    "define ", "if ", "ifdef ", "elif ", "else", "endif", "include ", "undef ", "pragma ", "line ",
    "defined", "__VA_ARGS__", "...", "##", "/*", "*/", "//", "F(", "A", "\n#"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_ALPHABET), st.sampled_from(_LINES)), max_size=60))
def test_random_input_gives_diagnostics_never_a_crash(pieces: list[str]):
    source = "".join(pieces)
    result = pre(source, include_dirs=("/nonexistent-wgc-folder",))
    assert all(d.code.startswith("WG0") for d in result.diagnostics)
    for offset in range(0, len(result.text) + 1, max(1, len(result.text) // 16)):
        file, original = result.locations.location(offset)
        assert 0 <= original <= len(file.text)
        span = result.locations.span(offset, offset + 5)
        assert 0 <= span.start <= span.end <= len(span.file.text)


def test_large_file_with_few_macros_is_one_segment_per_run():
    lines = ["#define K 3"] + [f"float v{i} = a{i} * 2.0f; // note {i}" for i in range(2000)] + ["int k = K;"]
    result = pre("\n".join(lines) + "\n")
    assert result.text.count("\n") == 2002
    assert where(result, "v1999") == "main.hlsl:2001:7"
    assert "note" not in result.text
    assert where(result, "3;") == "main.hlsl:2002:9"
    assert len(result.locations._seg_out) < 4100


# --------------------------------------------------------------------------- the span shortcut

def test_span_shortcut_answers_as_the_general_mapping(project, monkeypatch: pytest.MonkeyPatch) -> None:
    """`LocationMap.span` answers spans inside one stretch copied from a file without the general
    mapping; every span of every (start, end) of a text with macros, includes, `#line` and a file
    included twice must be what the general mapping gives."""
    result = project({
        "inc.hlsl": "float inc_a;\n#line 40 \"virtual.hlsl\"\nfloat inc_b = TWICE(2);\n",
        "main.hlsl": "#define TWICE(x) ((x) * 2)\n#define N 4\nstatic uint a[N] = { TWICE(1), 2, 3, 4 };\n"
                     "#include \"inc.hlsl\"\nfloat b = N + TWICE(N);\n#include \"inc.hlsl\"\n"
                     "#line 7\nfloat c;  // done\n"})
    locations = result.locations
    size = len(result.text)
    pairs = [(start, end) for start in range(-1, size + 2) for end in range(start - 1, min(start + 40, size + 3))]
    general_calls = []
    general_span = type(locations)._general_span
    monkeypatch.setattr(type(locations), "_general_span",
                        lambda self, start, end: general_calls.append(1) or general_span(self, start, end))
    quick = [locations.span(start, end) for start, end in pairs]
    taken = len(pairs) - len(general_calls)
    monkeypatch.setattr(type(locations), "_run_at", lambda self, start: None)
    monkeypatch.setattr(locations, "_last_run", (1, 0))   # no run remembered either
    monkeypatch.setattr(type(locations), "_within_one_segment_bisected", lambda self, start, end: None)
    general_calls.clear()
    general = [locations.span(start, end) for start, end in pairs]
    assert len(general_calls) == len(pairs)
    assert quick == general
    assert len(pairs) / 4 < taken < len(pairs)   # both paths were taken


def test_span_shortcut_of_plain_runs_answers_as_its_bisection(project, monkeypatch: pytest.MonkeyPatch) -> None:
    """`span` answers from a table of the plain runs (segments copied from a file without
    `#line`) and the run of the last call; it must answer every (start, end) as the bisecting
    shortcut (and the general path after it) does, in text order and in an order that jumps
    between runs."""
    result = project({
        "inc.hlsl": "float inc_a;\n#line 40 \"virtual.hlsl\"\nfloat inc_b = TWICE(2);\n",
        "main.hlsl": "#define TWICE(x) ((x) * 2)\n#define N 4\nstatic uint a[N] = { TWICE(1), 2, 3, 4 };\n"
                     "#include \"inc.hlsl\"\nfloat b = N + TWICE(N);\n#include \"inc.hlsl\"\n"
                     "#include \"plain.hlsl\"\nfloat c;  // done\n",
        "plain.hlsl": "float p0;\nfloat p1 = TWICE(p0) + N;\n"})
    locations = result.locations
    size = len(result.text)
    pairs = [(start, end) for start in range(0, size + 2) for end in range(start, min(start + 40, size + 3))]
    pairs += pairs[::-7]
    bisected_calls = []
    bisected = type(locations)._within_one_segment_bisected
    monkeypatch.setattr(type(locations), "_within_one_segment_bisected",
                        lambda self, start, end: bisected_calls.append(1) or bisected(self, start, end))
    quick = [locations.span(start, end) for start, end in pairs]
    plain = sum(run is not None for run in locations._runs)
    assert 0 < plain < len(locations._runs)   # plain runs and others (macros, `#line`)
    assert len(pairs) / 4 < len(pairs) - len(bisected_calls) < len(pairs)   # the runs answered many
    monkeypatch.setattr(type(locations), "_run_at", lambda self, start: None)
    monkeypatch.setattr(locations, "_last_run", (1, 0))   # no run remembered either
    bisected_calls.clear()
    assert [locations.span(start, end) for start, end in pairs] == quick
    assert len(bisected_calls) == len(pairs)


def astuple(span: Span) -> tuple[object, int, int]:
    return span.file, span.start, span.end


def test_span_across_runs_and_within_expansions_answers_as_the_mapping(project, monkeypatch: pytest.MonkeyPatch) -> None:
    """`span` answers a range whose two ends lie in two plain runs of one file (a statement around a
    macro's use) from the runs' figures, and a range within one macro expansion from the span kept
    for that expansion; every (start, end), in text order and jumping, must be what the mapping
    from segments and units (`_mapped_span`) gives, and both shortcuts must have answered some."""
    result = project({
        "inc.hlsl": "float inc_a = SQ(2);\n#line 40 \"virtual.hlsl\"\nfloat inc_b = SQ(3) + N;\n",
        "main.hlsl": "#define SQ(x) ((x) * (x))\n#define N 4\nstatic uint a[N] = { SQ(1), 2, SQ(N) };\n"
                     "#include \"inc.hlsl\"\nfloat b = N + SQ(N) - 1;\n#include \"inc.hlsl\"\n"
                     "#include \"plain.hlsl\"\nfloat c = SQ(b)\n;  // done\n",
        "plain.hlsl": "float p0;\nfloat p1 = SQ(p0) + N;\n"})
    locations = result.locations
    size = len(result.text)
    pairs = [(start, end) for start in range(-1, size + 2) for end in range(start - 1, size + 3)]
    pairs += pairs[::-7]
    mapped = type(locations)._mapped_span
    expected = [mapped(locations, max(start, 0), max(end, start, 0)) for start, end in pairs]
    mapped_calls: set[tuple[int, int]] = set()
    monkeypatch.setattr(type(locations), "_mapped_span",
                        lambda self, start, end: mapped_calls.add((start, end)) or mapped(self, start, end))
    # a span in an expansion is a MacroSpan (it knows the macros too): compare where they point
    assert [astuple(locations.span(start, end)) for start, end in pairs] == [astuple(span) for span in expected]
    segment, fixed = locations._segment, [end >= 0 for end in locations._seg_end]
    unmapped = [(start, end) for start, end in pairs if 0 <= start < end <= size and (start, end) not in mapped_calls]
    across = [(start, end) for start, end in unmapped
              if segment(start) != segment(end - 1) and not fixed[segment(start)] and not fixed[segment(end - 1)]]
    within = [(start, end) for start, end in unmapped if segment(start) == segment(end - 1) and fixed[segment(start)]]
    assert across and within


def test_predefined_macros_shared_between_compiles_stay_as_defined():
    """The predefined macros' objects are made once per process and shared by later preprocesses
    (`_BUILTIN_MACROS`): a file that redefines or undefines one changes its own compile only.  By
    hand: `__HLSL_VERSION` is 2021 by default and the given version otherwise; `__spirv__` is 1."""
    probe = "int a = __HLSL_VERSION;\nint b = __spirv__;\n"
    changed = "#undef __spirv__\n#define __HLSL_VERSION 2016\nint a = __HLSL_VERSION;\nint b = __spirv__;\n"

    def run(text: str, version: int = 2021) -> list[str]:
        result = preprocess(SourceFile("main.hlsl", text), PreprocessOptions(hlsl_version=version))
        return re.findall(r"int \w = (\w+);", result.text)

    assert run(probe) == ["2021", "1"]
    assert run(changed) == ["2016", "__spirv__"]
    assert run(probe) == ["2021", "1"]
    assert run(probe, 2018) == ["2018", "1"]
    assert run(probe) == ["2021", "1"]


def test_meta_span_answers_as_span(project):
    """`LocationMap.meta_span((start, end))`, which the parser calls once per AST node, is `span(start,
    end)`, and `span(0, 0)` for an empty rule's `(None, None)`, whatever range was asked before (its
    common case reads the run of the last answer): every pair of token boundaries of a text with an
    include, a macro expansion and a `#line` region, asked forwards, backwards and interleaved."""
    result = project({
        "inc.hlsli": "struct S { uint a; };\n",
        "main.hlsl": '#include "inc.hlsli"\n#define TWICE(x) ((x) + (x))\nuint f(uint v) { return TWICE(v); }\n'
                     '#line 40 "other.hlsl"\nuint g() { return 1; }\n',
    })
    locations = result.locations
    bounds = sorted({0, len(result.text)} | {m.start() for m in re.finditer(r"\S+", result.text)}
                    | {m.end() for m in re.finditer(r"\S+", result.text)})
    pairs = [(a, b) for a in bounds for b in bounds if a <= b]
    for order in (pairs, pairs[::-1], pairs[::2] + pairs[1::2]):
        for start, end in order:
            assert locations.meta_span((start, end)) == locations.span(start, end)
            assert locations.meta_span((None, None)) == locations.span(0, 0)
