"""Static globals that nothing writes are constants after optimisation (`wgc.sema.settled`).

DXC accepts `static uint i = 7; ... Barrier(ALL_MEMORY, i + i)` (barrier-node.hlsl, "no diagnostic
for non-constant expressions"): LLVM's globalopt folds such a global into its initialiser before
the DXIL validator asks for constant flags. wgc takes the same fact where a constant is needed only
after optimisation (Barrier flags, texel offsets), never where HLSL needs a constant expression
(array sizes, template arguments, attribute arguments, case labels). Any write anywhere keeps the
global a variable.
"""

from __future__ import annotations

import re

import pytest

from wgc import driver
from wgc.diagnostics import Renderer


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


def run(source: str, emit: str = "asm") -> driver.Result:
    return driver.compile(driver.Options(input="-", emit=emit), stdin=source.encode())


def codes_of(result: driver.Result) -> list[str]:
    return [d.code for d in result.diagnostics]


NODE = ('[Shader("node")]', '[NodeLaunch("broadcasting")]', "[NodeDispatchGrid(1, 1, 1)]", "[NumThreads(8, 1, 1)]")


def barrier_program(declarations: str, statement: str, helpers: str = "") -> str:
    return lines("RWStructuredBuffer<uint> Out : register(u0);",
                 "struct Flags { uint scope; uint unused; void Reset() { scope = 0; } };",
                 declarations, helpers, *NODE,
                 "void Main(uint gi : SV_GroupIndex)", "{",
                 f"    {statement}",
                 "    Barrier(UAV_MEMORY, scope);",
                 "    Out[gi] = gi;", "}")


# UAV_MEMORY with GROUP_SCOPE, from the SPIR-V spec: OpMemoryBarrier, Scope Workgroup = 2, semantics
# AcquireRelease 0x8 | UniformMemory 0x40 | ImageMemory 0x800 = 0x848 = 2120 (GLSL450 memory model:
# no node memory is ordered, so no MakeAvailable/MakeVisible bits)
UAV_GROUP_BARRIER = re.compile(r"OpMemoryBarrier %uint_2 %uint_2120\b")


@pytest.mark.parametrize("declarations", [
    "static uint scope = GROUP_SCOPE;",
    "static uint settled = 1; static uint scope = settled + settled;",   # another settled global's value
    "static const uint one = 1; static uint scope = one << 1;",
])
def test_an_unwritten_static_global_is_a_barrier_flag(declarations: str) -> None:
    result = run(barrier_program(declarations, "uint unused = scope;"))
    assert result.ok, Renderer().render(result.diagnostics)
    assert UAV_GROUP_BARRIER.search(result.outputs["asm"].decode())


WRITES = [
    pytest.param("static uint scope = GROUP_SCOPE;", "scope = GROUP_SCOPE;", "", id="assignment"),
    pytest.param("static uint scope = GROUP_SCOPE;", "scope |= 0;", "", id="compound-assignment"),
    pytest.param("static uint scope = GROUP_SCOPE;", "scope++;", "", id="post-increment"),
    pytest.param("static uint scope = GROUP_SCOPE;", "--scope;", "", id="pre-decrement"),
    pytest.param("static uint scope = GROUP_SCOPE;", "Keep(scope);",
                 "void Keep(inout uint v) { }", id="inout-argument"),
    pytest.param("static uint scope = GROUP_SCOPE;", "Set(scope);",
                 "void Set(out uint v) { v = GROUP_SCOPE; }", id="out-argument"),
    pytest.param("static uint scope = GROUP_SCOPE;", "InterlockedAdd(Out[0], 1, scope);", "",
                 id="interlocked-original-value"),
    pytest.param("static uint scope = GROUP_SCOPE;", "uint unused = 0;",
                 "void NeverCalled() { scope = 0; }", id="write-in-a-function-no-node-calls"),
    pytest.param("static uint scope = GROUP_SCOPE; static uint later = scope++;", "uint unused = 0;", "",
                 id="write-in-another-initializer"),
    pytest.param("static uint scope = 0;", "scope = GROUP_SCOPE;", "", id="written-before-the-barrier"),
    pytest.param("static uint data = 0; static uint scope = data;", "data = 2;", "",
                 id="initialised-from-a-written-global"),
]


@pytest.mark.parametrize(("declarations", "statement", "helpers"), WRITES)
def test_a_written_static_global_is_not_a_barrier_flag(declarations: str, statement: str, helpers: str) -> None:
    assert codes_of(run(barrier_program(declarations, statement, helpers), "ir")) == ["WG0443"]


@pytest.mark.parametrize(("declarations", "statement", "flag"), [
    pytest.param("static Flags f = { GROUP_SCOPE, 0 };", "f.unused = 1;", "f.scope", id="member-write"),
    pytest.param("static Flags f = { GROUP_SCOPE, 0 };", "f.Reset();", "f.scope", id="method-call"),
    pytest.param("static uint a[2] = { GROUP_SCOPE, 0 };", "a[1] = 1;", "a[0]", id="element-write"),
    pytest.param("static uint2 v = uint2(GROUP_SCOPE, 0);", "v.y = 1;", "v.x", id="swizzle-write"),
])
def test_a_write_to_part_of_a_static_global_unsettles_all_of_it(declarations: str, statement: str,
                                                                 flag: str) -> None:
    source = barrier_program(declarations, statement).replace("Barrier(UAV_MEMORY, scope)",
                                                              f"Barrier(UAV_MEMORY, {flag})")
    assert codes_of(run(source, "ir")) == ["WG0443"]
    untouched = run(source.replace(statement, "uint unused = 0;"))
    assert untouched.ok, Renderer().render(untouched.diagnostics)
    assert UAV_GROUP_BARRIER.search(untouched.outputs["asm"].decode())


def test_a_settled_flag_is_checked_as_dxc_validates_it() -> None:
    """DXC's Sema has no diagnostic for flags that are not constant expressions; its DXIL validator
    refuses values outside the flag masks (0x8 is no semantic flag under lib_6_8)."""
    source = barrier_program("static uint scope = 7;", "uint unused = 0;").replace(
        "Barrier(UAV_MEMORY, scope)", "Barrier(UAV_MEMORY, scope + scope)")
    assert Renderer().render(run(source, "ir").diagnostics) == lines(
        "<stdin>:12:5: error: invalid SemanticFlags for Barrier operation; expected 0 or some combination of "
        "GROUP_SYNC, GROUP_SCOPE, DEVICE_SCOPE flags [WG0421] [-Whlsl-barrier]",
        "    Barrier(UAV_MEMORY, scope + scope);",
        "    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
        "<stdin>:12:25: note: value is 0xe",
        "    Barrier(UAV_MEMORY, scope + scope);",
        "                        ^~~~~~~~~~~~~",
        "note: the value of a static global that nothing writes, as after optimisation: DXC's DXIL validator "
        "refuses flags outside the masks",
        "1 error generated.")
    # a Sema rule (GROUP_SCOPE without memory) applies to constant expressions only, as in DXC
    group_only = barrier_program("static uint scope = GROUP_SCOPE;", "uint unused = 0;").replace(
        "Barrier(UAV_MEMORY, scope)", "Barrier(0, scope)")
    assert codes_of(run(group_only, "ir")) == []
    assert codes_of(run(group_only.replace("Barrier(0, scope)", "Barrier(0, GROUP_SCOPE)"), "ir")) == ["WG0421"]


@pytest.mark.parametrize(("declaration", "use"), [
    pytest.param("static uint n = 4;", "groupshared uint a[n];", id="array-size"),
    pytest.param("static uint n = 4;", "template<uint N> struct A { uint v[N]; }; static A<n> a;", id="template-argument"),
])
def test_a_settled_static_is_no_constant_expression(declaration: str, use: str) -> None:
    source = lines(declaration, use, *NODE, "void Main() { }")
    assert codes_of(run(source, "ir")) == ["WG0311"]


def test_a_settled_static_is_no_attribute_argument_or_case_label() -> None:
    source = lines("static uint n = 4;", '[Shader("node")]', '[NodeLaunch("broadcasting")]',
                   "[NodeDispatchGrid(1, 1, 1)]", "[NumThreads(n, 1, 1)]",
                   "void Main(uint gi : SV_GroupIndex) { switch (gi) { case n: break; default: break; } }")
    assert codes_of(run(source, "ir")) == ["WG0311", "WG0311"]


TEXTURES = lines("Texture2D<float4> T : register(t0);", "SamplerState S : register(s1);",
                 "RWStructuredBuffer<float4> Out : register(u2);")


def test_an_unwritten_static_global_is_a_texel_offset() -> None:
    """WG0622's sibling: a texel offset needs a constant after optimisation only (ConstOffset)."""
    source = lines(TEXTURES, "static int2 offset = int2(1, -1);", *NODE,
                   "void Main(uint gi : SV_GroupIndex) { Out[gi] = T.SampleLevel(S, float2(0.5, 0.5), 0, offset); }")
    result = run(source)
    assert result.ok, Renderer().render(result.diagnostics)
    asm = result.outputs["asm"].decode()
    # the offset operand is a constant composite (1, -1): ConstOffset, as with a literal offset
    match = re.search(r"OpImageSampleExplicitLod %v4float %\w+ %\w+ Lod\|ConstOffset %\w+ (%\w+)", asm)
    assert match, asm
    assert re.search(rf"{match.group(1)} = OpConstantComposite %v2int %int_1 %int_n1\b", asm), asm
    written = source.replace("void Main(uint gi : SV_GroupIndex) {", "void Main(uint gi : SV_GroupIndex) { offset.x = 0;")
    assert codes_of(run(written)) == ["WG0622"]
    assert run(written, "ir").ok          # a target limit: valid HLSL


def test_four_unwritten_static_offsets_are_gather_const_offsets() -> None:
    source = lines(TEXTURES, "static int2 a = int2(0, 1); static int2 b = int2(1, 0);", *NODE,
                   "void Main(uint gi : SV_GroupIndex) {",
                   "    Out[gi] = T.GatherRed(S, float2(0.5, 0.5), a, b, a, b);",
                   "}")
    result = run(source)
    assert result.ok, Renderer().render(result.diagnostics)
    asm = result.outputs["asm"].decode()
    offsets = re.search(r"OpImageGather %v4float %\w+ %\w+ %uint_0 ConstOffsets (%\w+)", asm)
    assert offsets, asm
    array = re.search(rf"{offsets.group(1)} = OpConstantComposite %_arr_v2int_uint_4 (%\w+) (%\w+) (%\w+) (%\w+)", asm)
    assert array and array.group(1) == array.group(3) and array.group(2) == array.group(4), asm
    assert re.search(rf"{array.group(1)} = OpConstantComposite %v2int %int_0 %int_1\n", asm)
    assert re.search(rf"{array.group(2)} = OpConstantComposite %v2int %int_1 %int_0\n", asm)
    assert codes_of(run(source.replace("    Out[gi]", "    b = a;\n    Out[gi]"))) == ["WG0622"]


def test_a_function_level_static_that_nothing_writes_is_settled_too() -> None:
    """LLVM keeps a function-level static as a global: globalopt folds it the same way."""
    source = lines("RWStructuredBuffer<uint> Out : register(u0);", *NODE,
                   "void Main(uint gi : SV_GroupIndex)", "{",
                   "    static uint scope = GROUP_SCOPE;",
                   "    Barrier(UAV_MEMORY, scope);",
                   "    Out[gi] = scope;", "}")
    result = run(source)
    assert result.ok, Renderer().render(result.diagnostics)
    assert UAV_GROUP_BARRIER.search(result.outputs["asm"].decode())
    written = source.replace("    Out[gi] = scope;", "    scope++;\n    Out[gi] = scope;")
    assert codes_of(run(written, "ir")) == ["WG0443"]
