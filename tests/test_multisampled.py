"""Multisampled textures (Texture2DMS[Array]<T[, N]>, RWTexture2DMS[Array]<T[, N]>) and the
double-subscript members `.sample[s][pos]` / `.mips[level][pos]`, from sema to SPIR-V.

What DXC offers (utils/hct/gen_intrin_main.txt, Texture2DMSMethods, Texture2DArrayMSMethods,
RWTexture2DMS[Array]Methods; SemaHLSL.cpp's object table, which gives the MS kinds `.sample` and the
others `.mips`, and `template<typename element, int count = 0>` with no default element): `Load(pos,
sample[, offset[, status]])` (no offset on the RW forms), `GetDimensions(w, h[, elements], samples)`
in uint or float, `GetSamplePosition(s)`, `operator[]` (sample 0) and `.sample[s][pos]`.
The SPIR-V forms follow the SPIR-V specification: OpTypeImage with MS = 1, OpImageFetch /
OpImageRead / OpImageWrite / OpImageTexelPointer with the Sample operand, OpImageQuerySize (never
...Lod on a multisampled image) and OpImageQuerySamples; storage forms need StorageImageMultisample
(and ImageMSArray when arrayed). Every module is validated with spirv-val by `compile_hlsl`.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from spirv_util import Compiled, compile_errors, compile_hlsl
from wgc import driver
from wgc.diagnostics import Renderer

DECLARATIONS = """
Texture2DMS<float4> MS : register(t0);
Texture2DMS<float, 4> MS4 : register(t1);
Texture2DMSArray<uint2, 8> MSA : register(t2);
RWTexture2DMS<float4> RWMS : register(u3);
RWTexture2DMSArray<int> RWMSA : register(u4);
RWTexture2DMS<uint> Counts : register(u5);
Texture2D<float4> Mipped : register(t6);
Texture3D<float> Volume : register(t7);
RWStructuredBuffer<float4> Out : register(u8);
"""


def node(body: str) -> str:
    return DECLARATIONS + f"""
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(8, 8, 1)]
void Main(uint2 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {{
    {body}
}}
"""


def capabilities(c: Compiled) -> set[str]:
    return set(re.findall(r"OpCapability (\w+)", c.asm))


def definitions(c: Compiled) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^\s*%(\S+) = (.*)$", c.asm, flags=re.M)}


def image_type_of(c: Compiled, variable: str) -> str:
    defs = definitions(c)
    pointer = defs[variable].split()[1].lstrip("%")
    return defs[defs[pointer].split()[-1].lstrip("%")]


@pytest.mark.parametrize("variable,use,image,needed", [
    # OpTypeImage Sampled-Type Dim Depth Arrayed MS Sampled Format (SPIR-V 3.2.x, OpTypeImage)
    ("MS", "Out[gi] = MS.Load(int2(id), 0);", "OpTypeImage %float 2D 2 0 1 1 Unknown", set()),
    ("MSA", "Out[gi].xy = MSA.Load(int3(id, 1), 2);", "OpTypeImage %uint 2D 2 1 1 1 Unknown", set()),
    ("RWMS", "RWMS[id] = 1;", "OpTypeImage %float 2D 2 0 1 2 Rgba32f", {"StorageImageMultisample"}),
    ("RWMSA", "RWMSA[uint3(id, 1)] = 1;", "OpTypeImage %int 2D 2 1 1 2 R32i",
     {"StorageImageMultisample", "ImageMSArray"}),
])
def test_multisampled_image_types(tmp_path, variable, use, image, needed):
    c = compile_hlsl(node(use), tmp_path)
    assert image_type_of(c, variable) == image
    assert needed <= capabilities(c)
    assert ("StorageImageMultisample" in capabilities(c)) == variable.startswith("RW")


@pytest.mark.parametrize("statement,patterns", [
    ("Out[gi] = MS.Load(int2(id), 3);", [r"OpImageFetch %v4float %\w+ %\w+ Sample %\w+$"]),
    ("Out[gi] = MS.Load(int2(id), 1, int2(1, -1));", [r"OpImageFetch %v4float %\w+ %\w+ ConstOffset\|Sample %\w+ %\w+$"]),
    ("uint s; Out[gi].xy = MSA.Load(int3(id, 2), 5, int2(0, 1), s); Out[0].z = s;",
     [r"OpImageFetch %v4uint %\w+ %\w+ ConstOffset\|Sample %\w+ %\w+$", r"OpStore %s %uint_1$"]),
    ("Out[gi] = MS[id];", [r"OpImageFetch %v4float %\w+ %\w+ Sample %uint_0$"]),
    ("Out[gi] = MS.sample[gi][id] + MS4.sample[3][id];",
     [r"OpImageFetch %v4float %\w+ %\w+ Sample %gi\w*$|OpImageFetch %v4float %\w+ %\w+ Sample %\d+$",
      r"OpImageFetch %v4float %\w+ %\w+ Sample %uint_3$"]),
    ("Out[gi] = RWMS.Load(int2(id), 2);", [r"OpImageRead %v4float %\w+ %\w+ Sample %\w+$"]),
    ("uint s; Out[gi].x = RWMSA.Load(int3(id, 0), 1, s); Out[0].y = s;",
     [r"OpImageRead %v4int %\w+ %\w+ Sample %\w+$", r"OpStore %s %uint_1$"]),
    ("RWMS.sample[2][id] = Out[0];", [r"OpImageWrite %\w+ %\w+ %\w+ Sample %uint_2$"]),
    ("RWMSA.sample[gi][uint3(id, 1)] = 7;", [r"OpImageWrite %\w+ %\w+ %int_7 Sample %\w+$"]),
    ("InterlockedAdd(Counts.sample[2][id], 1);",
     [r"OpImageTexelPointer %_ptr_Image_uint %Counts %\w+ %uint_2$", r"OpAtomicIAdd %uint"]),
    ("Out[gi] = Mipped.mips[gi][id] + Volume.mips[2][uint3(id, 1)];",
     [r"OpImageFetch %v4float %\w+ %\w+ Lod %\w+$", r"OpImageFetch %v4float %\w+ %\w+ Lod %uint_2$"]),
])
def test_multisampled_reads_and_writes(tmp_path, statement, patterns):
    c = compile_hlsl(node(statement), tmp_path)
    for pattern in patterns:
        assert any(re.search(pattern, line) for line in c.asm.splitlines()), (pattern, c.asm)


@pytest.mark.parametrize("statement,size", [
    ("uint w, h, n; MS.GetDimensions(w, h, n); Out[0] = float4(w, h, n, 0);", "%v2uint"),
    ("float w, h, n; MS4.GetDimensions(w, h, n); Out[0] = float4(w, h, n, 0);", "%v2uint"),
    ("uint w, h, e, n; MSA.GetDimensions(w, h, e, n); Out[0] = float4(w, h, e, n);", "%v3uint"),
    ("uint w, h, n; RWMS.GetDimensions(w, h, n); Out[0] = float4(w, h, n, 0);", "%v2uint"),
    ("uint w, h, e, n; RWMSA.GetDimensions(w, h, e, n); Out[0] = float4(w, h, e, n);", "%v3uint"),
])
def test_multisampled_dimensions_query_size_and_samples(tmp_path, statement, size):
    c = compile_hlsl(node(statement), tmp_path)
    assert c.lines("OpImageQuerySize") and all(line.split()[3] == size for line in c.lines("OpImageQuerySize"))
    assert not c.lines("OpImageQuerySizeLod")       # Vulkan: no Lod query on a multisampled image
    samples = c.lines("OpImageQuerySamples")
    assert len(samples) == 1 and samples[0].split()[3] == "%uint"
    assert "ImageQuery" in capabilities(c)


# Direct3D's standard sample positions (D3D11_STANDARD_MULTISAMPLE_PATTERN; DXC's SPIR-V back end
# emits the same tables), in 1/16 pixel: 2, 4, 8 and 16 samples.
STANDARD_PATTERNS = {
    2: [(4, 4), (-4, -4)],
    4: [(-2, -6), (6, -2), (-6, 2), (2, 6)],
    8: [(1, -3), (-1, 3), (5, 1), (-3, -5), (-5, 5), (-7, -1), (3, 7), (7, -7)],
    16: [(1, 1), (-1, -3), (-3, 2), (4, -1), (-5, -2), (2, 5), (5, 3), (3, -5), (-2, 6), (0, -7), (-4, -6),
         (-6, 4), (-8, 0), (7, -4), (6, 7), (-7, -8)],
}


def _float_constants(c: Compiled) -> dict[str, Fraction]:
    return {m.group(1): Fraction(m.group(2)) for m in
            re.finditer(r"^\s*%(\S+) = OpConstant %float (\S+)$", c.asm, flags=re.M)}


def test_sample_positions_are_the_standard_tables_chosen_by_the_sample_count(tmp_path):
    c = compile_hlsl(node("Out[gi] = float4(MS.GetSamplePosition(gi), MSA.GetSamplePosition(2));"), tmp_path)
    assert len(c.lines("OpImageQuerySamples")) == 2
    defs, floats = definitions(c), _float_constants(c)
    tables = [line for line in c.asm.splitlines() if re.search(r"= OpConstantComposite %_arr_v2float", line)]
    assert len(tables) == 1
    positions = []
    for name in tables[0].split()[4:]:
        x, y = defs[name.lstrip("%")].split()[2:]
        positions.append((floats[x.lstrip("%")] * 16, floats[y.lstrip("%")] * 16))
    expected = [p for count in (2, 4, 8, 16) for p in STANDARD_PATTERNS[count]]
    assert positions == expected
    # the table's first entry of each count: 0, 2, 6, 14 selected by count == 2, 4, 8, 16
    for count, first in ((2, 0), (4, 2), (8, 6), (16, 14)):
        assert re.search(rf"OpIEqual %bool %\w+ %uint_{count}$", c.asm, flags=re.M)
        assert re.search(rf"OpSelect %uint %\w+ %uint_{first} %\w+$", c.asm, flags=re.M)
    assert re.search(r"OpSelect %v2float %\w+ %\w+ %\w+$", c.asm, flags=re.M)   # float2(0, 0) otherwise


def test_a_variable_sample_index_is_no_texel_offset_but_a_variable_offset_is(tmp_path):
    compile_hlsl(node("Out[gi] = MS.Load(int2(id), gi, int2(1, 0)) + float4(MS.GetSamplePosition(gi), 0, 0);"),
                 tmp_path)
    errors = compile_errors(node("Out[gi] = MS.Load(int2(id), 0, int2(gi, 0));"), tmp_path)
    assert errors == ["WG0622: the texel offset of 'Load' must be a constant: Vulkan allows a variable offset only "
                      "on Gather (VUID-RuntimeSpirv-Offset-10213)"]


def test_ir_shows_types_sample_counts_and_slices():
    result = driver.compile(driver.Options(input="-", emit="ir"),
                            stdin=node("Out[gi] = MS4.sample[1][id] + Mipped.mips[2][id];").encode())
    text = result.outputs["ir"].decode()
    assert "global resource Texture2DMS<float, 4> MS4 set 0 binding 1 by register(t1)" in text
    assert "global resource RWTexture2DMSArray<int> RWMSA set 0 binding 4 by register(u4)" in text
    assert "MS4.sample[1u][id:uint2]:float" in text and "Mipped.mips[2u][id:uint2]:float4" in text


def rendered(source: str) -> str:
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode())
    return Renderer().render(result.diagnostics)


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


MAIN = '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]'

ERRORS = [
    pytest.param("Texture2DMS T;",
                 lines("<stdin>:1:1: error: 'Texture2DMS' needs an element type: Texture2DMS<T> or <T, SAMPLES> "
                       "[WG0328]",
                       "Texture2DMS T;",
                       "^~~~~~~~~~~",
                       "1 error generated."), id="no-element-type"),
    pytest.param("RWTexture2DMSArray<float4, 2, 1> T;",
                 lines("<stdin>:1:1: error: 'RWTexture2DMSArray' takes one or two template arguments [WG0328]",
                       "RWTexture2DMSArray<float4, 2, 1> T;",
                       "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
                       "1 error generated."), id="three-arguments"),
    pytest.param("Texture2DMS<float4, float> T;",
                 lines("<stdin>:1:21: error: 'Texture2DMS' sample count must be a constant, not a type [WG0328]",
                       "Texture2DMS<float4, float> T;",
                       "                    ^~~~~",
                       "1 error generated."), id="count-is-a-type"),
    pytest.param(lines("Texture2DMS<float4> T;", "RWBuffer<float4> B;", MAIN, "void N() { B[0] = T.sample[1]; }"),
                 lines("<stdin>:4:21: error: 'sample' of 'Texture2DMS<float4>' must be indexed twice: "
                       ".sample[sample][position] [WG0320]",
                       "void N() { B[0] = T.sample[1]; }",
                       "                    ^~~~~~",
                       "1 error generated."), id="sample-indexed-once"),
    pytest.param(lines("Texture2DMS<float4> T;", MAIN, "void N() { T.sample[0][uint2(0, 0)] = 1; }"),
                 lines("<stdin>:3:12: error: cannot assign: 'Texture2DMS<float4>' is read-only [WG0307]",
                       "void N() { T.sample[0][uint2(0, 0)] = 1; }",
                       "           ^~~~~~~~~~~~~~~~~~~~~~~~",
                       "1 error generated."), id="read-only-sample"),
    pytest.param(lines("TextureCube<float4> T;", "RWBuffer<float4> B;", MAIN,
                       "void N() { B[0] = T.mips[0][uint3(0, 0, 0)]; }"),
                 lines("<stdin>:4:21: error: no member named 'mips' in 'TextureCube<float4>' [WG0319]",
                       "void N() { B[0] = T.mips[0][uint3(0, 0, 0)]; }",
                       "                    ^~~~",
                       "1 error generated."), id="no-mips-on-cube"),
    pytest.param(lines("RWTexture2DMS<float4> T;", "RWBuffer<float4> B;", MAIN,
                       "void N() { B[0] = T.Load(int2(0, 0), 0, int2(1, 1)); }"),
                 # the third argument can only be the `out uint status` (no offset on RW forms)
                 lines("<stdin>:4:41: error: argument 3 of RWTexture2DMS<float4>::Load needs a modifiable l-value: "
                       "the expression is not an l-value [WG0332]",
                       "void N() { B[0] = T.Load(int2(0, 0), 0, int2(1, 1)); }",
                       "                                        ^~~~~~~~~~",
                       "1 error generated."), id="no-offset-on-rw"),
    pytest.param(lines("Texture2DMS<float4> T;", "RWBuffer<uint> B;", MAIN,
                       "void N() { uint w, h; T.GetDimensions(w, h); B[0] = w; }"),
                 lines("<stdin>:4:23: error: 'Texture2DMS<float4>::GetDimensions' takes 3 arguments, 2 given [WG0308]",
                       "void N() { uint w, h; T.GetDimensions(w, h); B[0] = w; }",
                       "                      ^~~~~~~~~~~~~~~~~~~~~",
                       "note: candidate: void Texture2DMS<float4>::GetDimensions(out uint, out uint, out uint)",
                       "note: candidate: void Texture2DMS<float4>::GetDimensions(out float, out float, out float)",
                       "1 error generated."), id="dimensions-need-the-sample-count"),
]


@pytest.mark.parametrize("source,expected", ERRORS)
def test_multisampled_errors(source, expected):
    assert rendered(source) == expected


def test_function_templates_deduce_the_element_and_the_sample_count():
    source = lines(
        "template<uint N> uint samples(Texture2DMS<float4, N> t) { return N; }",
        "template<typename T> T first(Texture2DMS<T> t) { return t.Load(int2(0, 0), 0); }",
        "Texture2DMS<float4, 8> Eight;", "Texture2DMS<float2> Plain;", "RWBuffer<float4> B;",
        MAIN, "void N() { B[0] = samples(Eight) + first(Plain).xyxy; }")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode())
    assert not result.diagnostics
    assert "calls samples<8>, first<float2>" in result.outputs["ir"].decode()
