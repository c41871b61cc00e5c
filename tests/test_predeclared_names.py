"""Names HLSL predeclares that a program may reuse for its own variables, parameters, fields and
functions, as DXC lets it.

In DXC only a few type names are keywords (clang's TokenKinds.def: `bool`, `int`, `float`, `double`,
`half`, `void`); `vector` and `matrix` are class templates and `string`, `uint`, `float4`,
`Texture2D`, ... declarations that SemaHLSL.cpp makes (`AddHLSLVectorTemplate`,
`AddHLSLMatrixTemplate`, `CreateGlobalTypedef(m_context, "string", ...)`), so a declaration of
the program hides them in its scope. Modifier keywords: "'precise', 'globallycoherent', 'center'
and 'sample' are keywords when used as an interpolation modifiers, but in FXC they can also be used
an identifiers ... Similarly 'indices', 'vertices', 'primitives' and 'payload' are keywords when
used as a type qualifer in mesh shader, but may still be used as a variable name" (ParseDecl.cpp),
and at a statement's start "If the next token is a punctuator, then we are using them as
identifers" (ParseStmt.cpp); DXC's test sample_kwd.hlsl declares, assigns and reads each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from spirv_util import compile_hlsl
from wgc import ir
from wgc.diagnostics import Renderer
from wgc.irtools.walk import all_exprs
from wgc.sema.analyze import analyze
from wgc.sema.context import SemaOptions
from wgc.source import SourceFile
from wgc.syntax.parse import parse_source

TYPE_NAMES = ["matrix", "vector", "string", "texture", "sampler", "uint", "dword", "float4", "min16float",
              "Texture2D", "SamplerState", "Buffer", "RWStructuredBuffer"]
CONTEXTUAL = ["precise", "sample", "center", "globallycoherent", "reordercoherent", "indices", "vertices",
              "payload", "primitives", "linear"]

POSITIONS = {
    "local": "float f() {{ float {n} = 1.0; {n} += 1.0; return {n} * 2; }}",
    "static-global": "static float {n} = 1.0;\nfloat f() {{ return {n}; }}",
    "parameter": "float f(float {n}) {{ return {n} + 1; }}",
    "prototype-parameter": "float f(float {n});\nfloat f(float x) {{ return x; }}\nfloat g() {{ return f(1.0); }}",
    "field": "struct S {{ float4 {n}; }};\nfloat f(S s) {{ return s.{n}.x; }}",
    "function": "float {n}(float x) {{ return x; }}\nfloat f() {{ return {n}(1.0); }}",
    "member-access": "struct D {{ float4x4 decode; float4 color; }};\n"
                     "float4 f(D d, float4 v) {{ D {n} = d; return mul({n}.decode, v) + {n}.color; }}",
    "cast-of-member": "struct D {{ float4x4 m; }};\n"
                      "float3 f(D d, float3 n) {{ D {n} = d; return mul((float3x3){n}.m, n); }}",
    "for-variable": "int f() {{ int s = 0; for (int {n} = 0; {n} < 3; ++{n}) s += {n}; return s; }}",
    "parenthesised": "float f() {{ float2 left, {n} = 1.0, right; float w = ({n}).x; return w; }}",
}


def ir_of(src: str) -> tuple[ir.Module | None, str]:
    """The checked module (None after a syntax error) and every diagnostic, rendered."""
    parsed = parse_source(SourceFile("<test>", src))
    if parsed.diagnostics:
        return None, Renderer().render(list(parsed.diagnostics))
    analysis = analyze(parsed.unit, SemaOptions(profile="lib_6_8"))
    return analysis.module, Renderer().render(list(analysis.diagnostics))


@pytest.mark.parametrize("position", list(POSITIONS))
@pytest.mark.parametrize("name", TYPE_NAMES + CONTEXTUAL)
def test_a_predeclared_name_may_be_declared(name: str, position: str) -> None:
    _, text = ir_of(POSITIONS[position].format(n=name))
    assert text == ""


def test_the_mesh_node_library_pattern_reads_the_variable(tmp_path: Path) -> None:
    """`vMatrix matrix = ...; mul(matrix.decode, ...)`, as a published mesh-node library writes it."""
    src = ("struct vMatrix { float4x4 decode; };\nStructuredBuffer<vMatrix> U : register(t0);\n"
           "RWStructuredBuffer<float4> O : register(u1);\n"
           "[numthreads(1,1,1)] void main() { vMatrix matrix = U[0]; O[0] = mul(matrix.decode, float4(1, 2, 3, 1)); }")
    module, text = ir_of(src)
    assert text == "" and module is not None
    (main,) = [f for f in module.functions if f.name == "main"]
    reads = [e for e in all_exprs(main) if isinstance(e, ir.FieldAccess) and e.name == "decode"]
    assert len(reads) == 1 and isinstance(reads[0].base, ir.VarRef) and reads[0].base.variable.name == "matrix"
    compile_hlsl(src, tmp_path, profile="cs_6_6")


def test_the_type_comes_back_when_the_scope_ends() -> None:
    src = ("float f() { float matrix = 1; float vector = 2; return matrix + vector; }\n"
           "matrix<float, 2, 2> g(vector<float, 2> v) { return matrix<float, 2, 2>(v, v); }\n"
           "float h(float uint) { return uint; }\nuint k() { return 1u; }")
    module, text = ir_of(src)
    assert text == "" and module is not None
    (g,) = [f for f in module.functions if f.name == "g"]
    assert str(g.return_type) == "float2x2"


def test_a_prototype_parameter_ends_at_its_semicolon() -> None:
    _, text = ir_of("float f(float matrix);\nmatrix<float, 2, 2> g() { return (matrix<float, 2, 2>)0; }")
    assert text == ""


def test_modifier_keywords_at_a_statement_start_are_names_before_a_punctuator() -> None:
    """DXC sample_kwd.hlsl: `sample = 1.0f; globallycoherent += 10;`, `float precise = 1.0f;`."""
    src = ("float4 f() { float precise = 1.0f; int globallycoherent = 1; float sample;\n"
           "  sample = 1.0f; globallycoherent += 10; precise = precise * 2;\n"
           "  float left, center = 1.0, right; float w = (center).x;\n"
           "  return float4(precise, globallycoherent, sample, w); }\n"
           "precise float g(float x) { precise float y = x * 2; return y; }")
    _, text = ir_of(src)
    assert text == ""


@pytest.mark.parametrize("name", ["float", "int", "bool", "half", "double"])
def test_keyword_types_are_not_names(name: str) -> None:
    """clang's keywords (TokenKinds.def: `KEYWORD(float, KEYALL)`, `KEYWORD(half, HALFSUPPORT)`)."""
    _, text = ir_of(f"float f() {{ float {name} = 1.0; return {name}; }}")
    assert "error" in text


@pytest.mark.parametrize("name", ["snorm", "unorm"])
def test_snorm_and_unorm_stay_modifiers_at_a_statement_start(name: str) -> None:
    """`snorm` and `unorm` are HLSL keywords that DXC never turns into identifiers."""
    _, text = ir_of(f"float f() {{ float {name} = 1.0; {name} += 1.0; return {name}; }}")
    assert "error" in text
