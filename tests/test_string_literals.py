"""String literals where an array is wanted, and the reasons a template deduction fails.

DXC types a string literal as clang does: "The type of a narrow string literal is 'array of n
const char'" (C++11 [lex.string]p8), n counting the terminating '\\0' ("After any necessary
concatenation, ... '\\0' is appended to every string literal", [lex.string]p14); DXC prints the
type as 'literal string' (TypePrinter.cpp) and decays it to `string` where a string is wanted.
So a literal deduces `T` and `N` of `const T s[N]` ("If P is an array type ... the type of A
is the array type", [temp.deduct.call]), may be subscripted, and may be passed to an array of
integers of its length. Expected values are the bytes of the text, computed here by Python.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import wgc
from spirv_util import compile_errors, compile_hlsl
from wgc import driver, ir
from wgc import types as t
from wgc.diagnostics import Renderer
from wgc.sema.analyze import analyze
from wgc.sema.context import SemaOptions
from wgc.source import SourceFile
from wgc.syntax.parse import parse_source

PLAYGROUND = """
namespace printutil {
    template <typename T, int N>
    int StrLen(in const T str[N]) { return N - 1; }
    template <typename T>
    inline int CharToInt(in const T c) { if (c == 'A') return 1000; return int(c); }
}
"""


def analysis(src: str):  # type: ignore[no-untyped-def]
    parsed = parse_source(SourceFile("<test>", src))
    assert not parsed.diagnostics, Renderer().render(list(parsed.diagnostics))
    return analyze(parsed.unit, SemaOptions(profile="lib_6_8"))


def sema(src: str) -> ir.Module:
    result = analysis(src)
    assert not result.diagnostics, Renderer().render(list(result.diagnostics))
    return result.module


def errors(src: str) -> list[str]:
    return [f"{d.code}: {d.message}" for d in analysis(src).diagnostics]


def rendered(src: str) -> str:
    result = driver.compile(driver.Options(input="-", emit="ir", profile="lib_6_8"), stdin=src.encode())
    return Renderer().render(result.diagnostics)


def chars(text: str) -> list[int]:
    """The characters of a literal as signed chars, with the NUL."""
    return [b - 256 if b >= 0x80 else b for b in text.encode("latin-1")] + [0]


def func(module: ir.Module, name: str) -> ir.Function:
    found = [f for f in module.functions if f.name == name]
    assert len(found) == 1, [f.name for f in module.functions]
    return found[0]


# ---------------------------------------------------------------- deduction


def test_strlen_deduces_the_character_type_and_the_length_with_the_nul() -> None:
    module = sema(PLAYGROUND + "int f() { return printutil::StrLen(\"Hello\"); }")
    instance = func(module, "printutil::StrLen<int, 6>")                   # "Hello" + NUL
    assert [p.type for p in instance.own_params] == [t.array(t.INT, 6)]


def test_the_same_template_gives_one_instance_per_length() -> None:
    module = sema(PLAYGROUND + "int f() { return printutil::StrLen(\"ab\") + printutil::StrLen(\"cd\") "
                  "+ printutil::StrLen(\"xyz\"); }")
    lengths = sorted(f.own_params[0].type.length for f in module.functions if "StrLen" in f.name)
    assert lengths == [3, 4]


def test_an_inout_array_parameter_deduces_and_then_refuses_the_constant_literal() -> None:
    src = "template <typename T, int N> int ByRef(inout T s[N]) { return N; }\nint f() { return ByRef(\"abc\"); }"
    assert errors(src) == ["WG0332: argument 1 of 'ByRef' is 'inout' and needs a modifiable l-value: "
                           "a string literal is a constant array"]


def test_a_literal_deduced_as_a_whole_t_is_refused_as_dxc_refuses_it() -> None:
    """DXC SemaHLSL/string_literal.hlsl: `take_string("toto")` with `template<typename T> void
    take_string(T s)` is "string literals parameters are not supported in HLSL"."""
    src = "template<typename T> void take_string(T s) {}\nvoid f() { take_string(\"toto\"); }"
    assert errors(src) == ["WG0347: string literals parameters are not supported in HLSL"]


# ---------------------------------------------------------------- subscripts and array parameters


@pytest.mark.parametrize(("text", "index"), [("abc", 0), ("abc", 1), ("abc", 3), ("Hi!", 2)])
def test_a_constant_subscript_folds_to_the_character(text: str, index: int) -> None:
    module = sema(f'static const int K = "{text}"[{index}];')
    (k,) = [v for v in module.globals if v.name == "K"]
    assert k.constant == chars(text)[index]


def test_a_hex_escape_above_0x7f_is_one_negative_char() -> None:
    """clang's `char` is signed on DXC's targets; "\\xff" is the one byte 0xFF before the NUL."""
    module = sema(PLAYGROUND + 'static const int K = "\\xff"[0];\nint f() { return printutil::StrLen("\\xff"); }')
    (k,) = module.globals
    assert k.constant == -1
    assert func(module, "printutil::StrLen<int, 2>")


def test_a_subscript_past_the_nul_is_out_of_range() -> None:
    assert errors('static const int K = "abc"[4];') == [
        "WG0312: index 4 is out of range for array 'int[4]' (4 elements)"]


def test_a_literal_passes_to_an_integer_array_of_its_length() -> None:
    module = sema("int Sum(const uint s[4]) { return s[0] + s[1] + s[2] + s[3]; }\n"
                  "int f() { return Sum(\"xyz\"); }")
    call = next(e for e in _exprs(func(module, "f")) if isinstance(e, ir.Call))
    arg = call.args[0]
    assert isinstance(arg, ir.Construct) and arg.type is t.array(t.UINT, 4)
    assert [a.value for a in arg.args] == [ord("x"), ord("y"), ord("z"), 0]   # type: ignore[attr-defined]


def test_a_literal_of_another_length_matches_no_array_parameter() -> None:
    assert errors("int Short(uint a[3]) { return 2; }\nint f() { return Short(\"abc\"); }") == [
        "WG0304: no matching function for call to 'Short(literal string)'"]


def test_overloads_prefer_the_char_type_int() -> None:
    module = sema("int Pick(int a[4]) { return 1; }\nint Pick(uint a[4]) { return 2; }\n"
                  "int f() { return Pick(\"abc\"); }")
    call = next(e for e in _exprs(func(module, "f")) if isinstance(e, ir.Call))
    assert call.function.own_params[0].type is t.array(t.INT, 4)


def test_printf_still_takes_the_literal_as_a_string(tmp_path: Path) -> None:
    compiled = compile_hlsl('[numthreads(1,1,1)] void main() { printf("n=%d", 1); }', tmp_path, profile="cs_6_6")
    assert 'OpString "n=%d"' in compiled.asm


def _exprs(function: ir.Function):  # type: ignore[no-untyped-def]
    from wgc.irtools.walk import all_exprs
    return list(all_exprs(function))


# ---------------------------------------------------------------- failed deductions say why


def test_conflicting_types_are_named_under_the_error_and_the_count_is_not_blamed() -> None:
    text = rendered("template <typename T> T Max(T a, T b) { return a > b ? a : b; }\n"
                    "float f() { return Max(1, 2.0f); }\n")
    assert "no matching function for call to 'Max(int, float)' [WG0304]" in text
    assert "note: candidate template ignored: deduced conflicting types for parameter 'T' ('int' vs. 'float'): " \
           "template Max(a, b)" in text
    assert "takes" not in text


def test_an_array_pattern_given_a_scalar_could_not_match() -> None:
    text = rendered(PLAYGROUND + "int f() { return printutil::StrLen(3.0f); }\n")
    assert "no matching function for call to 'printutil::StrLen(float)'" in text
    assert "note: candidate template ignored: could not match 'T[N]' against 'float'" in text


def test_a_vector_pattern_given_a_scalar_could_not_match() -> None:
    text = rendered("template <typename T> T First(vector<T, 4> v) { return v.x; }\nfloat f() { return First(1.0f); }\n")
    assert "note: candidate template ignored: could not match 'vector<T, 4>' against 'float'" in text


def test_conflicting_lengths_are_named() -> None:
    text = rendered("template <typename T, int N> int Both(T a[N], T b[N]) { return N; }\n"
                    "int f() { int x[2]; int y[3]; return Both(x, y); }\n")
    assert "note: candidate template ignored: deduced conflicting values for parameter 'N' (2 vs. 3)" in text


def test_a_parameter_no_argument_names_could_not_be_inferred() -> None:
    text = rendered("template <typename T, typename U> T Cast(T a) { return a; }\nint f() { return Cast(1); }\n")
    assert "note: candidate template ignored: couldn't infer template argument 'U'" in text


def test_a_wrong_count_still_says_the_count() -> None:
    text = rendered("template <typename T> T Max(T a, T b) { return a; }\nint f() { return Max(1); }\n")
    assert "no overload of 'Max' takes 1 argument [WG0308]" in text


# ---------------------------------------------------------------- both SPIR-V targets, run


RUN = PLAYGROUND + """
RWStructuredBuffer<int> Out : register(u0);
int Sum(const uint s[4]) { return s[0] + s[1] + s[2] + s[3]; }
[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(3, 1, 1)]
void main(uint i : SV_GroupIndex) {
    if (i == 0) {
        Out[0] = printutil::StrLen("Hello");
        Out[1] = "abc"[1];
        Out[2] = Sum("xyz");
        Out[3] = "\\xff"[0];
        for (int k = 0; k < printutil::StrLen("Hi!"); ++k) Out[4 + k] = "Hi!"[k];
    }
    Out[7 + i] = "abc"[i];
    Out[10 + i] = printutil::CharToInt("ABC"[i]);
}
"""


def _expected() -> list[int]:
    out = [0] * 16
    out[0] = len("Hello")
    out[1] = ord("b")
    out[2] = sum(chars("xyz"))
    out[3] = -1
    out[4:7] = [ord(c) for c in "Hi!"]
    out[7:10] = [ord(c) for c in "abc"]
    out[10:13] = [1000, ord("B"), ord("C")]
    return out


def test_both_targets_validate(tmp_path: Path) -> None:
    compile_hlsl(RUN, tmp_path, profile="lib_6_8")
    compile_hlsl(RUN, tmp_path, profile="lib_6_8", target="emulated")


@pytest.mark.parametrize("path", ["emulated", "amdx"])
def test_the_characters_run(vulkan_device, tmp_path: Path, path: str) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "strings.hlsl"
    source.write_text(RUN)
    dispatch = {"inputs": [{"entry": "main", "records": [{}]}], "resources": {"u0": {"int32": [0] * 16}}}
    result = wgc.run(driver.Options(input=str(source), profile="lib_6_8"), dispatch, path=path)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources["u0"]["int32"] == _expected()


def test_compile_errors_helper_sees_wg0347(tmp_path: Path) -> None:
    assert compile_errors("template<typename T> void take(T s) {}\n[numthreads(1,1,1)] void main() { take(\"x\"); }",
                          tmp_path, profile="cs_6_6") == ["WG0347: string literals parameters are not supported in HLSL"]
