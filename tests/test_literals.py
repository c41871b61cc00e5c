"""Character literals and `1.#INF` as dxc reads them: values, types, SPIR-V constants, diagnostics.

Expected values come from the C rules dxc follows: a character literal is one narrow character
(a byte; `char` is signed, so bytes from 0x80 sign-extend) converted to `uint`; `1.#INF` is the
IEEE infinity (bits 0x7f800000 as a float).
"""

from __future__ import annotations

import pytest

from spirv_util import compile_hlsl
from wgc import driver
from wgc.diagnostics import Renderer
from wgc.source import SourceFile
from wgc.syntax import ast
from wgc.syntax.parse import parse_source


def rendered(text: str, emit: str = "ir") -> str:
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=text.encode())
    return Renderer().render(result.diagnostics)


def initialiser(text: str) -> ast.Expr:
    """The initialiser of the one global in `text`."""
    unit = parse_source(SourceFile("x.hlsl", text)).unit
    init = unit.decls[0].declarators[0].init
    assert init is not None
    return init


@pytest.mark.parametrize(("spelled", "value"), [
    ("'H'", 72), ("'0'", 48), ("' '", 32), ("'\\n'", 10), ("'\\0'", 0), ("'\\''", 39), ("'\"'", 34),
    ("'\\\\'", 92), ("'\\x41'", 65), ("'\\101'", 65), ("'\\x7f'", 127),
    ("'\\xff'", 0xFFFFFFFF), ("'\\377'", 0xFFFFFFFF), ("'\\x80'", 0xFFFFFF80),
])
def test_character_literal_is_a_uint_of_its_byte(spelled: str, value: int) -> None:
    init = initialiser(f"static const uint c = {spelled};\n")
    assert isinstance(init, ast.IntLiteral)
    assert (init.value, init.suffix, init.text) == (value, "u", spelled)


def test_character_literals_compile_to_uint_constants(tmp_path) -> None:
    module = compile_hlsl(
        "RWStructuredBuffer<uint> o : register(u0);\n"
        "static const uint s[] = {'H', 'i', '\\n', '\\xff'};\n"
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]\n'
        "void main(uint i : SV_DispatchThreadID) {\n"
        "    int d = 'a' - 'A';\n"
        "    o[i] = s[i] + d;\n"
        "}\n", tmp_path)
    [composite] = module.lines("OpConstantComposite")
    assert composite.split(" = ")[1] == "OpConstantComposite %_arr_uint_uint_4 %uint_72 %uint_105 %uint_10 %uint_4294967295"


def test_character_literal_in_a_macro_and_a_switch(tmp_path) -> None:
    module = compile_hlsl(
        "#define NEWLINE '\\n'\n"
        "RWStructuredBuffer<uint> o : register(u0);\n"
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]\n'
        "void main(uint i : SV_DispatchThreadID) {\n"
        "    switch (o[0]) { case 'x': o[1] = NEWLINE; break; default: break; }\n"
        "}\n", tmp_path)
    assert module.lines("OpSwitch") and "120 " in module.lines("OpSwitch")[0] + " "
    assert "%uint_10 = OpConstant %uint 10" in module.lines("OpConstant")


def test_unsupported_character_literals_are_precise_errors() -> None:
    source = "static const uint a[] = {'ab', '', L'x', u'x', U'x', u8'x', '\u00e9', '\\u00e9'};\n"
    line = source.rstrip("\n")
    assert rendered(source) == (
        "<stdin>:1:26: error: multi-character character literal 'ab' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 25 + "^~~~\n"
        "<stdin>:1:32: error: empty character literal '' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 31 + "^~\n"
        "<stdin>:1:36: error: 'L' prefixed character literal L'x' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 35 + "^~~~\n"
        "<stdin>:1:42: error: 'u' prefixed character literal u'x' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 41 + "^~~~\n"
        "<stdin>:1:48: error: 'U' prefixed character literal U'x' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 47 + "^~~~\n"
        "<stdin>:1:54: error: 'u8' prefixed character literal u8'x' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 53 + "^~~~~\n"
        "<stdin>:1:61: error: multi-character character literal '\u00e9' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 60 + "^~~\n"
        "<stdin>:1:66: error: multi-character character literal '\\u00e9' is not supported: "
        "write one character, as in 'A' [WG0212]\n" + line + "\n" + " " * 65 + "^~~~~~~~\n"
        "8 errors generated.\n")


def test_unterminated_character_literal() -> None:
    assert rendered("static const uint c = 'a;\n") == (
        "<stdin>:1:23: error: missing terminating ' character [WG0202]\n"
        "static const uint c = 'a;\n"
        "                      ^\n"
        "1 error generated.\n")


def test_bad_escape_in_a_character_literal_is_reported_once() -> None:
    assert rendered("static const uint c = '\\x';\n") == (
        "<stdin>:1:24: error: \\x used with no following hex digits [WG0206]\n"
        "static const uint c = '\\x';\n"
        "                       ^~\n"
        "1 error generated.\n")


# ---------------------------------------------------------------- 1.#INF

@pytest.mark.parametrize(("spelled", "suffix"), [("1.#INF", ""), ("1.#INFf", "f"), ("1.#INFh", "h"),
                                                  ("1.#INFl", "l")])
def test_one_dot_hash_inf_is_infinity(spelled: str, suffix: str) -> None:
    init = initialiser(f"static const float c = {spelled};\n")
    assert isinstance(init, ast.FloatLiteral)
    assert (init.value, init.suffix, init.text) == (float("inf"), suffix, spelled)


def test_infinity_through_a_macro_compiles_to_the_infinity_bits(tmp_path) -> None:
    module = compile_hlsl(
        "#define INF 1.#INF\n"
        "RWStructuredBuffer<uint> o : register(u0);\n"
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]\n'
        "void main(uint i : SV_DispatchThreadID) {\n"
        "    o[0] = asuint(INF);\n"
        "    o[1] = asuint(-1.#INF);\n"
        "}\n", tmp_path)
    # the float constants' words are the IEEE infinities: 0x7f800000 and 0xff800000
    float_ids = {line.split(" = ")[0]: line for line in module.lines("OpConstant") if " %float " in line}
    assert sorted(float_ids.values()) == ["%float_0x1p_128 = OpConstant %float 0x1p+128",
                                          "%float_n0x1p_128 = OpConstant %float -0x1p+128"]
    words = module.words
    found = set()
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if opcode == 43 and count == 4:   # OpConstant with one 32-bit value word
            found.add(words[i + 3])
        i += count
    assert {0x7F800000, 0xFF800000} <= found


def test_other_digits_before_hash_inf_are_an_error() -> None:
    source = "static const float a = 2.#INF + 1.0#INF;\n"
    assert rendered(source) == (
        "<stdin>:1:24: error: invalid floating-point literal '2.#INF' (infinity is written '1.#INF') [WG0205]\n"
        + source + " " * 23 + "^~~~~~\n"
        "<stdin>:1:33: error: invalid floating-point literal '1.0#INF' (infinity is written '1.#INF') [WG0205]\n"
        + source + " " * 32 + "^~~~~~~\n"
        "2 errors generated.\n")
