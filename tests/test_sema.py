"""Semantic analysis (`wgc.sema.analyze`) on real HLSL: every construct of the acceptance scope
is accepted and typed correctly, checked on the IR it produces (types, node classes, resolved
names, folded constants, layouts, bindings) — not just on the absence of diagnostics.

Tests marked xfail(strict=True) are valid HLSL that sema currently rejects or types wrongly;
each states the correct expectation.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import sample_proposals
from wgc import driver, ir
from wgc import types as t
from wgc.diagnostics import Renderer, Severity
from wgc.sema.analyze import Analysis, analyze
from wgc.irtools import consteval
from wgc.sema.bindings import BindingShift
from wgc.sema.context import SemaOptions
from wgc.irtools.layout import LayoutRule, layout_of
from wgc.source import SourceFile
from wgc.syntax import ast
from wgc.syntax.parse import parse_source

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"

RK, NK = t.ResourceKind, t.NodeObjectKind
F, I, U, B, D = t.FLOAT, t.INT, t.UINT, t.BOOL, t.DOUBLE
HALF32 = t.scalar_named("half", enable_16bit_types=False)
F16 = t.scalar(t.ScalarKind.FLOAT, 16)
I16 = t.scalar(t.ScalarKind.INT, 16)
U16 = t.scalar(t.ScalarKind.UINT, 16)


def v(element: t.ScalarType, n: int) -> t.VectorType:
    return t.vector(element, n)


def m(element: t.ScalarType, r: int, c: int) -> t.MatrixType:
    return t.matrix(element, r, c)


F2, F3, F4, I2, I3, U2, U3, U4, B3 = v(F, 2), v(F, 3), v(F, 4), v(I, 2), v(I, 3), v(U, 2), v(U, 3), v(U, 4), v(B, 3)


# ---------------------------------------------------------------- helpers


def run_sema(src: str, **options) -> Analysis:
    """Semantic analysis of `src`. The snippets are programs, not complete work graphs, so the
    work-graph rules' diagnostics (WG04xx/WG05xx, tested in test_nodes.py and test_graph.py) are
    left out."""
    parsed = parse_source(SourceFile("<test>", src))
    assert not parsed.diagnostics, Renderer().render(list(parsed.diagnostics))
    analysis = analyze(parsed.unit, SemaOptions(**options))
    program_only = tuple(d for d in analysis.diagnostics if d.code < "WG04")
    return Analysis(analysis.module, program_only, analysis.nodes, analysis.graph)


def analyze_text(src: str, **options) -> ir.Module:
    """Analyse `src`; there must be no diagnostic at all (they are printed on failure)."""
    analysis = run_sema(src, **options)
    assert not analysis.diagnostics, Renderer().render(list(analysis.diagnostics))
    return analysis.module


def analyze_allowing_warnings(src: str, **options) -> tuple[ir.Module, list[str]]:
    """Analyse `src`; there must be no error. Returns the module and the warnings' codes."""
    analysis = run_sema(src, **options)
    errors = [d for d in analysis.diagnostics if d.severity >= Severity.ERROR]
    assert not errors, Renderer().render(list(analysis.diagnostics))
    return analysis.module, [d.code for d in analysis.diagnostics]


def error_codes(src: str, **options) -> list[str]:
    return [d.code for d in run_sema(src, **options).diagnostics if d.severity >= Severity.ERROR]


def func(module: ir.Module, name: str) -> ir.Function:
    found = [f for f in module.functions if f.name == name]
    assert len(found) == 1, (name, [f.name for f in module.functions])
    return found[0]


def glob(module: ir.Module, name: str) -> ir.Variable:
    found = [g for g in module.globals if g.name == name]
    assert len(found) == 1, (name, [g.name for g in module.globals])
    return found[0]


def _nodes_in(value: object) -> Iterator[object]:
    if isinstance(value, (ir.Expr, ir.Stmt, ir.SwitchCase)):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _nodes_in(item)


def walk(node: object) -> Iterator[object]:
    """`node` and every expression/statement below it (not following Variables or Functions)."""
    yield node
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            for child in _nodes_in(getattr(node, f.name)):
                yield from walk(child)


def find(node: object, cls: type, **attrs) -> list:
    """Every node of class `cls` below `node` whose attributes equal `attrs`."""
    return [n for n in walk(node) if isinstance(n, cls) and all(getattr(n, k) == val for k, val in attrs.items())]


def decl(function: ir.Function, name: str) -> ir.VarDecl:
    found = [d for d in find(function.body, ir.VarDecl) if d.variable.name == name]
    assert found, name
    return found[0]


def init(function: ir.Function, name: str) -> ir.Expr:
    value = decl(function, name).init
    assert value is not None
    return value


def strip(expr: ir.Expr) -> ir.Expr:
    """The expression under implicit conversions."""
    while isinstance(expr, ir.Convert) and not expr.explicit:
        expr = expr.operand
    return expr


UNUSED_VALUE = "WG0334"


def analyze_probe(src: str, **options) -> ir.Module:
    """Like `analyze_text`, but an unused expression result (WG0334: a probed value) is allowed."""
    analysis = run_sema(src, **options)
    unexpected = [d for d in analysis.diagnostics if d.code != UNUSED_VALUE]
    assert not unexpected, Renderer().render(unexpected)
    return analysis.module


def probe(expr: str, params: str = "", prelude: str = "", body: str = "", **options) -> ir.Expr:
    """The IR of expression statement `expr` in `void probe(params) { body expr; }` after `prelude`.

    The only diagnostic allowed is WG0334 (the probed value is unused, on purpose)."""
    module = analyze_probe(f"{prelude}\nvoid probe({params}) {{ {body} {expr}; }}", **options)
    last = func(module, "probe").body.stmts[-1]
    assert isinstance(last, ir.ExprStmt), last
    return last.expr


def local_type(type_text: str, **options) -> t.Type:
    module = analyze_text(f"void probe() {{ {type_text} x; }}", **options)
    return decl(func(module, "probe"), "x").variable.type


NODE_PRELUDE = """
struct Rec { uint a; float3 b; uint arr[2]; };
struct [NodeTrackRWInputSharing] Shared { uint a; float3 b; };
"""


def node_fn(params: str, body: str, launch: str = "broadcasting", prelude: str = "", probing: bool = False,
            **options) -> ir.Function:
    """A node shader `n(params) { body }` (broadcasting ones get a fixed dispatch grid)."""
    grid = "[NodeDispatchGrid(1, 1, 1)][NumThreads(8, 1, 1)]" if launch == "broadcasting" else (
        "[NumThreads(8, 1, 1)]" if launch == "coalescing" else "")
    src = (f"{NODE_PRELUDE}{prelude}\n[Shader(\"node\")][NodeLaunch(\"{launch}\")]{grid}\n"
           f"void n({params}) {{ {body} }}")
    return func((analyze_probe if probing else analyze_text)(src, **options), "n")


# ---------------------------------------------------------------- types


@pytest.mark.parametrize("spelling,sixteen,expected", [
    ("bool", False, B), ("int", False, I), ("uint", False, U), ("dword", False, U),
    ("float", False, F), ("double", False, D), ("int32_t", False, I), ("uint32_t", False, U),
    ("int64_t", False, t.INT64), ("uint64_t", False, t.UINT64),
    ("int16_t", True, I16), ("uint16_t", True, U16), ("float16_t", True, F16),
    ("half", False, HALF32), ("half", True, F16),
    ("min16float", False, t.scalar(t.ScalarKind.FLOAT, 32, "min16float", relaxed=True)),
    ("min16int", False, t.scalar(t.ScalarKind.INT, 32, "min16int", relaxed=True)),
    ("min16uint", False, t.scalar(t.ScalarKind.UINT, 32, "min16uint", relaxed=True)),
    ("min16float", True, F16), ("min16int", True, I16), ("min16uint", True, U16),
    ("float1", False, v(F, 1)), ("float3", False, F3), ("int4", False, v(I, 4)), ("bool2", False, v(B, 2)),
    ("vector<float, 3>", False, F3), ("vector<uint, 2>", False, U2), ("half3", True, v(F16, 3)),
    ("float4x4", False, m(F, 4, 4)), ("matrix<float, 2, 3>", False, m(F, 2, 3)), ("uint2x4", False, m(U, 2, 4)),
    ("float1x3", False, m(F, 1, 3)), ("min16float2x2", True, m(F16, 2, 2)),
])
def test_builtin_types(spelling, sixteen, expected):
    assert local_type(spelling, enable_16bit_types=sixteen) is expected


def test_half_and_min_precision_widths():
    assert HALF32.bits == 32 and not HALF32.relaxed and str(HALF32) == "half"
    module = analyze_text("void probe(min16float a, half b, min16uint c) {}")
    a, b, c = (p.type for p in func(module, "probe").params)
    assert (a.bits, a.relaxed, b.bits, c.bits, c.relaxed) == (32, True, 32, 32, True)
    module = analyze_text("void probe(min16float a, half b, min16uint c) {}", enable_16bit_types=True)
    assert [p.type.bits for p in func(module, "probe").params] == [16, 16, 16]
    assert module.enable_16bit_types


def test_multidimensional_arrays_and_indexing():
    fn = func(analyze_text("void probe() { float a[2][3]; float row[3] = a[1]; float e = a[1][2]; }"), "probe")
    assert decl(fn, "a").variable.type is t.array(t.array(F, 3), 2)
    row = init(fn, "row")
    assert isinstance(row, ir.Index) and row.type is t.array(F, 3)
    element = init(fn, "e")
    assert isinstance(element, ir.Index) and element.type is F and isinstance(element.base, ir.Index)


def test_nested_structs():
    module = analyze_text("""
        struct Inner { float3 p; };
        struct Outer { Inner in_; int w; };
        void probe() { Outer o; o.in_.p.x = 1; }
    """)
    inner, outer = module.structs
    assert [f.type for f in outer.fields] == [inner, I]
    access = find(func(module, "probe").body, ir.Swizzle)[0]
    assert isinstance(access.base, ir.FieldAccess) and access.base.name == "p" and access.base.type is F3
    assert isinstance(access.base.base, ir.FieldAccess) and access.base.base.type is inner


def test_inheritance_base_fields_first():
    module = analyze_text("""
        struct Base { float a; float b; };
        struct Derived : Base { int c; };
        void probe() { Derived d; int x = d.c; float y = d.b; }
    """)
    base, derived = module.structs
    assert derived.base is base and [f.name for f in derived.all_fields()] == ["a", "b", "c"]
    fn = func(module, "probe")
    c = init(fn, "x")
    assert isinstance(c, ir.FieldAccess) and (c.index, c.name, c.type) == (2, "c", I)
    b = init(fn, "y")
    assert isinstance(b, ir.FieldAccess) and (b.index, b.name) == (1, "b")


def test_derived_field_hides_the_base_field_of_that_name():
    # C++ (and DXC): a field of a derived struct hides the base's; both are laid out, base first
    module = analyze_text("""
        struct Base { float b; float c; };
        struct Derived : Base { int b; int get() { return b; } };
        void probe() { Derived d; int x = d.b; float y = d.c; Base e = (Base)d; float z = e.b; }
    """)
    base, derived = module.structs
    assert [f.name for f in derived.all_fields()] == ["b", "c", "b"]
    fn = func(module, "probe")
    x = init(fn, "x")
    assert isinstance(x, ir.FieldAccess) and (x.index, x.type) == (2, I)
    assert (init(fn, "y").index, init(fn, "y").type) == (1, F)
    assert (init(fn, "z").index, init(fn, "z").type) == (0, F)
    ret = func(module, "Derived::get").body.stmts[0].value
    assert isinstance(ret, ir.FieldAccess) and (ret.index, ret.type) == (2, I)


def test_member_functions_take_this_and_calls_pass_the_object():
    module = analyze_text("""
        struct S { float v; float get() { return v; } void set(float n) { v = n; }
                   float twice() { return get() * 2; } };
        void probe() { S s; s.set(2); float g = s.get(); }
    """)
    s = module.structs[0]
    get = func(module, "S::get")
    assert get.method_of is s and get.params[0].name == "this" and get.params[0].direction is ir.Direction.INOUT
    ret = get.body.stmts[0]
    assert isinstance(ret.value, ir.FieldAccess) and isinstance(ret.value.base, ir.VarRef)
    assert ret.value.base.variable is get.params[0]
    fn = func(module, "probe")
    call = init(fn, "g")
    assert isinstance(call, ir.Call) and call.function is get
    assert isinstance(call.args[0], ir.VarRef) and call.args[0].variable is decl(fn, "s").variable
    set_call = fn.body.stmts[1].expr
    assert set_call.function is func(module, "S::set") and len(set_call.args) == 2 and set_call.args[1].type is F
    inner = find(func(module, "S::twice").body, ir.Call)[0]
    assert inner.function is get and inner.args[0].variable is func(module, "S::twice").params[0]


def test_inherited_method_on_derived_object_converts_to_base():
    module = analyze_text("""
        struct B { float a; float get() { return a; } };
        struct D : B { float3 b; float sum() { return b.x + get(); } };
        void probe() { D d; float g = d.get(); float s = d.sum(); }
    """)
    base, derived = module.structs
    call = init(func(module, "probe"), "g")
    assert call.function is func(module, "B::get")
    assert isinstance(call.args[0], ir.Convert) and call.args[0].type is base and call.args[0].operand.type is derived
    inner = find(func(module, "D::sum").body, ir.Call)[0]
    assert inner.function is func(module, "B::get") and inner.args[0].type is base


def test_out_of_line_member_definition():
    module = analyze_text("""
        struct S { float v; float get(); };
        float S::get() { return v; }
        void probe() { S s; float g = s.get(); }
    """)
    assert init(func(module, "probe"), "g").function is func(module, "S::get")


def test_explicit_this():
    module = analyze_text("struct S { float v; void set(float n) { this.v = n; } float get() { return this.v; } };")
    set_ = func(module, "S::set")
    assign = set_.body.stmts[0].expr
    assert isinstance(assign.target, ir.FieldAccess) and assign.target.base.variable is set_.params[0]
    ret = func(module, "S::get").body.stmts[0].value
    assert ret.base.variable is func(module, "S::get").params[0] and ret.type is F


def test_static_member_function():
    module = analyze_text("struct S { float v; static float f() { return 1; } }; void probe() { float a = S::f(); }")
    call = init(func(module, "probe"), "a")
    assert isinstance(call, ir.Call) and call.args == () and call.function is func(module, "S::f")
    assert call.function.method_of is None and call.function.params == []


def test_static_const_struct_member():
    module = analyze_text("struct S { float v; static const int N = 4; }; void probe() { int n = S::N; }")
    assert [f.name for f in module.structs[0].fields] == ["v"]
    value = strip(init(func(module, "probe"), "n"))
    assert value.type is I
    assert value.value == 4 if isinstance(value, ir.Constant) else value.variable.constant == 4


def test_template_struct():
    module = analyze_text("""
        template<typename T> struct Box { T v; T get() { return v; } };
        void probe() { Box<float> b; b.v = 1; float g = b.get(); }
    """)
    assert init(func(module, "probe"), "g").type is F


def test_typedefs():
    module = analyze_text("""
        typedef float3 Color;
        typedef vector<float, 2> V2;
        typedef matrix<float, 4, 4> M44;
        typedef float Pair[2];
        typedef struct { int q; } Anon;
        void probe(Color c, V2 w, M44 mm, Pair p, Anon a) {}
    """)
    types = [p.type for p in func(module, "probe").params]
    assert types[:4] == [F3, F2, m(F, 4, 4), t.array(F, 2)]
    assert isinstance(types[4], t.StructType) and types[4].fields[0].type is I


def test_enums_scoped_unscoped_values_and_underlying_types():
    module = analyze_text("""
        enum Plain { PA, PB = 5, PC };
        enum Small : uint16_t { SA = 1, SB };
        enum class Mode : uint { Off, Sum = 3, Max };
        void probe() { Plain p = PC; Plain q = Plain::PA; Mode md = Mode::Max; int i = p + 1; uint u = (uint)md; }
    """, enable_16bit_types=True)
    plain, small, mode = module.enums
    assert (plain.underlying, plain.scoped, plain.members) == (I, False, {"PA": 0, "PB": 5, "PC": 6})
    assert (small.underlying, small.members) == (U16, {"SA": 1, "SB": 2})
    assert (mode.underlying, mode.scoped, mode.members) == (U, True, {"Off": 0, "Sum": 3, "Max": 4})
    fn = func(module, "probe")
    pc = init(fn, "p")
    assert isinstance(pc, ir.Constant) and pc.type is plain and pc.value == 6
    assert init(fn, "q").value == 0
    assert init(fn, "md").type is mode and init(fn, "md").value == 4
    add = init(fn, "i")
    assert isinstance(add, ir.Binary) and add.type is I and isinstance(add.left, ir.Convert)
    cast = init(fn, "u")
    assert isinstance(cast, ir.Convert) and cast.explicit and cast.operand.type is mode


def test_namespaces_nested_reopened_and_qualified_calls():
    module = analyze_text("""
        float f() { return 0; }
        namespace a { float f() { return 1; } namespace b { float g() { return f(); } } }
        namespace a { float h() { return b::g() + a::f(); } }
        void probe() { float r = a::h() + a::b::g() + f(); }
    """)
    names = [fn.name for fn in module.functions]
    assert names == ["f", "a::f", "a::b::g", "a::h", "probe"]
    # unqualified `f` inside a::b finds a::f (innermost enclosing namespace first)
    assert find(func(module, "a::b::g").body, ir.Call)[0].function is func(module, "a::f")
    called = [c.function.name for c in find(func(module, "probe").body, ir.Call)]
    assert called == ["a::h", "a::b::g", "f"]
    assert func(module, "a::h").callees == [func(module, "a::b::g"), func(module, "a::f")]


def test_global_namespace_qualifier():
    module = analyze_text("float f() { return 0; } namespace a { float f() { return 1; } float g() { return ::f(); } }")
    assert find(func(module, "a::g").body, ir.Call)[0].function is func(module, "f")


# ---------------------------------------------------------------- resources


@pytest.mark.parametrize("decl_text,kind,element", [
    ("Buffer<float4> r;", RK.BUFFER, F4),
    ("RWBuffer<uint> r;", RK.RW_BUFFER, U),
    ("StructuredBuffer<float3> r;", RK.STRUCTURED_BUFFER, F3),
    ("RWStructuredBuffer<uint2> r;", RK.RW_STRUCTURED_BUFFER, U2),
    ("AppendStructuredBuffer<uint> r;", RK.APPEND_STRUCTURED_BUFFER, U),
    ("ConsumeStructuredBuffer<uint> r;", RK.CONSUME_STRUCTURED_BUFFER, U),
    ("ByteAddressBuffer r;", RK.BYTE_ADDRESS_BUFFER, None),
    ("RWByteAddressBuffer r;", RK.RW_BYTE_ADDRESS_BUFFER, None),
    ("Texture1D<float> r;", RK.TEXTURE_1D, F),
    ("Texture1DArray<float2> r;", RK.TEXTURE_1D_ARRAY, F2),
    ("Texture2D r;", RK.TEXTURE_2D, F4),
    ("Texture2DArray<uint> r;", RK.TEXTURE_2D_ARRAY, U),
    ("Texture3D<float4> r;", RK.TEXTURE_3D, F4),
    ("TextureCube<float4> r;", RK.TEXTURE_CUBE, F4),
    ("TextureCubeArray<float4> r;", RK.TEXTURE_CUBE_ARRAY, F4),
    ("RWTexture1D<float> r;", RK.RW_TEXTURE_1D, F),
    ("RWTexture1DArray<float> r;", RK.RW_TEXTURE_1D_ARRAY, F),
    ("RWTexture2D<float4> r;", RK.RW_TEXTURE_2D, F4),
    ("RWTexture2DArray<uint> r;", RK.RW_TEXTURE_2D_ARRAY, U),
    ("RWTexture3D<float4> r;", RK.RW_TEXTURE_3D, F4),
    ("SamplerState r;", RK.SAMPLER_STATE, None),
    ("SamplerComparisonState r;", RK.SAMPLER_COMPARISON_STATE, None),
])
def test_resource_globals(decl_text, kind, element):
    r = glob(analyze_text(decl_text), "r")
    assert r.storage is ir.Storage.RESOURCE and isinstance(r.type, t.ResourceType)
    assert (r.type.kind, r.type.element) == (kind, element)
    assert r.binding is not None and (r.binding.set, r.binding.binding, r.binding.source) == (0, 0, "auto")


def test_resource_arrays_are_indexed_per_element():
    module = analyze_text("""
        Texture2D<float4> texs[4]; SamplerState smp;
        void probe(uint i) { float4 c = texs[i].SampleLevel(smp, float2(0, 0), 0); }
    """)
    assert glob(module, "texs").type is t.array(t.resource(RK.TEXTURE_2D, F4), 4)
    call = init(func(module, "probe"), "c")
    assert isinstance(call, ir.MethodCall) and isinstance(call.object, ir.Index)
    assert call.object.type is t.resource(RK.TEXTURE_2D, F4)


STRUCT_P = "struct P { float3 a; float b; float2 c; float d[2]; };"


def test_structured_buffer_layout_std430_and_scalar():
    src = STRUCT_P + "StructuredBuffer<P> sb; RWStructuredBuffer<float3> rsb;"
    module = analyze_text(src)
    p = module.structs[0]
    sb = glob(module, "sb")
    assert sb.layout == layout_of(p, LayoutRule.STD430)
    assert [mem.offset for mem in sb.layout.members] == [0, 12, 16, 24]
    assert sb.layout.members[3].layout.array_stride == 4
    assert glob(module, "rsb").layout == layout_of(F3, LayoutRule.STD430)
    scalar = glob(analyze_text(src, use_scalar_layout=True), "sb")
    assert scalar.layout == layout_of(scalar.type.element, LayoutRule.SCALAR)


def test_constant_buffer_template_is_a_std140_uniform_block():
    module = analyze_text(STRUCT_P + "ConstantBuffer<P> cb; void probe() { float x = cb.b + cb.d[1]; }")
    p = module.structs[0]
    cb = glob(module, "cb")
    assert (cb.storage, cb.type, cb.block_kind, cb.const) == (ir.Storage.UNIFORM, p, "ConstantBuffer", True)
    assert cb.layout == layout_of(p, LayoutRule.STD140)
    assert [mem.offset for mem in cb.layout.members] == [0, 12, 16, 32]
    assert cb.layout.members[3].layout.array_stride == 16
    access = init(func(module, "probe"), "x").left
    assert isinstance(access, ir.FieldAccess) and access.base.variable is cb and access.index == 1
    dx = glob(analyze_text(STRUCT_P + "ConstantBuffer<P> cb;", use_dx_layout=True), "cb")
    assert dx.layout == layout_of(dx.type, LayoutRule.DX) and dx.layout != cb.layout


@pytest.mark.parametrize("keyword,block_kind,register_class", [
    ("cbuffer", "cbuffer", "b"), ("tbuffer", "tbuffer", "t"),
])
def test_cbuffer_and_tbuffer_members_are_fields_of_the_block(keyword, block_kind, register_class):
    module = analyze_text(f"""
        {keyword} Params : register({register_class}3) {{ float scale; float3 offset; }};
        void probe() {{ float3 r = offset * scale; }}
    """)
    block = glob(module, "Params")
    assert (block.storage, block.block_kind) == (ir.Storage.UNIFORM, block_kind)
    assert [f.name for f in block.type.fields] == ["scale", "offset"]
    assert (block.binding.binding, block.binding.source) == (3, "register")
    mul = init(func(module, "probe"), "r")
    offset = mul.left
    assert isinstance(offset, ir.FieldAccess) and offset.base.variable is block
    assert (offset.index, offset.type) == (1, F3)
    scale = strip(mul.right)
    assert isinstance(scale, ir.FieldAccess) and scale.index == 0


def test_texture_buffer_template():
    module = analyze_text(STRUCT_P + "TextureBuffer<P> tb; void probe() { float x = tb.b; }")
    tb = glob(module, "tb")
    assert (tb.storage, tb.block_kind) == (ir.Storage.UNIFORM, "TextureBuffer")
    assert init(func(module, "probe"), "x").base.variable is tb


def test_tbuffer_layout_is_std430():
    module = analyze_text(STRUCT_P + "TextureBuffer<P> tb; tbuffer T { float arr[2]; };")
    assert glob(module, "tb").layout == layout_of(module.structs[0], LayoutRule.STD430)
    assert glob(module, "T").layout.members[0].layout.array_stride == 4


def test_plain_globals_are_members_of_globals_block():
    module = analyze_text("float gl; int4 gi; static float st = 1; void probe() { float r = gl + st; }")
    block = glob(module, "$Globals")
    assert (block.storage, block.block_kind) == (ir.Storage.UNIFORM, "cbuffer")
    assert [f.name for f in block.type.fields] == ["gl", "gi"]
    assert glob(module, "st").storage is ir.Storage.STATIC
    add = init(func(module, "probe"), "r")
    assert isinstance(add.left, ir.FieldAccess) and add.left.base.variable is block and add.left.name == "gl"
    assert isinstance(add.right, ir.VarRef) and add.right.variable is glob(module, "st")


def test_globals_block_layout_covers_every_member():
    module = analyze_text("float gl; int4 gi; float4x4 gm;")
    block = glob(module, "$Globals")
    assert [mem.name for mem in block.layout.members] == ["gl", "gi", "gm"]
    assert [mem.offset for mem in block.layout.members] == [0, 16, 32]
    assert block.layout.size == 96


def test_row_major_column_major_and_default_row_major_in_cbuffer_layouts():
    src = """
        struct P { row_major float2x3 a; column_major float3x2 b; float4x4 c; };
        cbuffer CB { P p; row_major float4x4 r4; float4x4 d4; column_major float2x2 c2; };
    """
    for default, expected in ((False, [True, False, False]), (True, [True, False, True])):
        module = analyze_text(src, default_row_major=default)
        assert module.default_row_major is default
        block = glob(module, "CB")
        assert [mem.row_major for mem in block.layout.members[0].layout.members] == expected
        assert [mem.row_major for mem in block.layout.members[1:]] == [True, default, False]
    fields = analyze_text(src).structs[0].fields
    assert [f.row_major for f in fields] == [True, False, None]


def test_push_constant_block_has_no_binding():
    module = analyze_text("struct PC { float4 c; }; [[vk::push_constant]] ConstantBuffer<PC> pc;"
                          "void probe() { float x = pc.c.x; }")
    pc = glob(module, "pc")
    assert pc.push_constant and pc.binding is None and pc.storage is ir.Storage.UNIFORM


def test_push_constant_layout_is_std430():
    module = analyze_text("struct PC { float a[2]; float b; }; [[vk::push_constant]] ConstantBuffer<PC> pc;")
    assert glob(module, "pc").layout == layout_of(module.structs[0], LayoutRule.STD430)


def test_push_constant_plain_struct_global():
    module = analyze_text("struct PC { float4 c; }; [[vk::push_constant]] PC pc; void probe() { float x = pc.c.x; }")
    pc = glob(module, "pc")
    assert pc.push_constant and pc.storage is ir.Storage.UNIFORM and pc.binding is None
    assert not [g for g in module.globals if g.name == "$Globals"]


# ---------------------------------------------------------------- node objects


@pytest.mark.parametrize("launch,param,kind", [
    ("broadcasting", "DispatchNodeInputRecord<Rec> i", NK.DISPATCH_NODE_INPUT_RECORD),
    ("broadcasting", "RWDispatchNodeInputRecord<Rec> i", NK.RW_DISPATCH_NODE_INPUT_RECORD),
    ("coalescing", "[MaxRecords(4)] GroupNodeInputRecords<Rec> i", NK.GROUP_NODE_INPUT_RECORDS),
    ("coalescing", "[MaxRecords(4)] RWGroupNodeInputRecords<Rec> i", NK.RW_GROUP_NODE_INPUT_RECORDS),
    ("thread", "ThreadNodeInputRecord<Rec> i", NK.THREAD_NODE_INPUT_RECORD),
    ("thread", "RWThreadNodeInputRecord<Rec> i", NK.RW_THREAD_NODE_INPUT_RECORD),
    ("coalescing", "EmptyNodeInput i", NK.EMPTY_NODE_INPUT),
    ("thread", "[MaxRecords(1)] NodeOutput<Rec> i", NK.NODE_OUTPUT),
    ("thread", "[MaxRecords(1)][NodeArraySize(4)] NodeOutputArray<Rec> i", NK.NODE_OUTPUT_ARRAY),
    ("thread", "[MaxRecords(1)] EmptyNodeOutput i", NK.EMPTY_NODE_OUTPUT),
    ("thread", "[MaxRecords(1)][NodeArraySize(2)] EmptyNodeOutputArray i", NK.EMPTY_NODE_OUTPUT_ARRAY),
])
def test_node_object_parameters(launch, param, kind):
    fn = node_fn(param, "", launch=launch)
    p = fn.params[0]
    assert isinstance(p.type, t.NodeObjectType) and p.type.kind is kind
    assert not fn.must_inline and fn.shader_kind == "node"
    if kind.is_empty:
        assert p.type.record is None
    else:
        assert p.type.record.name == "Rec"
        assert p.layout == layout_of(p.type.record, LayoutRule.SCALAR) and p.layout.size == 24


# (launch, params, expression, expected IR class, method name or None, result type text)
NODE_METHODS = [
    ("broadcasting", "DispatchNodeInputRecord<Rec> i", "i.Get()", ir.RecordAccess, None, "Rec"),
    ("thread", "ThreadNodeInputRecord<Rec> i", "i.Get()", ir.RecordAccess, None, "Rec"),
    ("coalescing", "[MaxRecords(4)] GroupNodeInputRecords<Rec> i", "i.Get(1)", ir.RecordAccess, None, "Rec"),
    ("coalescing", "[MaxRecords(4)] GroupNodeInputRecords<Rec> i", "i.Get()", ir.RecordAccess, None, "Rec"),
    ("coalescing", "[MaxRecords(4)] GroupNodeInputRecords<Rec> i", "i[2]", ir.RecordAccess, None, "Rec"),
    ("coalescing", "[MaxRecords(4)] GroupNodeInputRecords<Rec> i", "i.Count()", ir.MethodCall, "Count", "uint"),
    ("coalescing", "[MaxRecords(4)] RWGroupNodeInputRecords<Rec> i", "i.Count()", ir.MethodCall, "Count", "uint"),
    ("coalescing", "EmptyNodeInput i", "i.Count()", ir.MethodCall, "Count", "uint"),
    ("broadcasting", "globallycoherent RWDispatchNodeInputRecord<Shared> i", "i.FinishedCrossGroupSharing()",
     ir.MethodCall, "FinishedCrossGroupSharing", "bool"),
    ("thread", "[MaxRecords(1)] NodeOutput<Rec> o", "o.GetThreadNodeOutputRecords(1)", ir.MethodCall,
     "GetThreadNodeOutputRecords", "ThreadNodeOutputRecords<Rec>"),
    ("broadcasting", "[MaxRecords(8)] NodeOutput<Rec> o", "o.GetGroupNodeOutputRecords(8)", ir.MethodCall,
     "GetGroupNodeOutputRecords", "GroupNodeOutputRecords<Rec>"),
    ("thread", "[MaxRecords(1)] NodeOutput<Rec> o", "o.IsValid()", ir.MethodCall, "IsValid", "bool"),
    ("thread", "[MaxRecords(1)] EmptyNodeOutput o", "o.IsValid()", ir.MethodCall, "IsValid", "bool"),
    ("thread", "[MaxRecords(1)] EmptyNodeOutput o", "o.ThreadIncrementOutputCount(1)", ir.MethodCall,
     "ThreadIncrementOutputCount", "void"),
    ("broadcasting", "[MaxRecords(1)] EmptyNodeOutput o", "o.GroupIncrementOutputCount(1)", ir.MethodCall,
     "GroupIncrementOutputCount", "void"),
    ("thread", "[MaxRecords(1)][NodeArraySize(4)] NodeOutputArray<Rec> o", "o[3].GetThreadNodeOutputRecords(1)",
     ir.MethodCall, "GetThreadNodeOutputRecords", "ThreadNodeOutputRecords<Rec>"),
    ("thread", "[MaxRecords(1)][NodeArraySize(4)] NodeOutputArray<Rec> o", "o[3]", ir.Index, None, "NodeOutput<Rec>"),
    ("thread", "[MaxRecords(1)][NodeArraySize(2)] EmptyNodeOutputArray o", "o[1].ThreadIncrementOutputCount(1)",
     ir.MethodCall, "ThreadIncrementOutputCount", "void"),
    ("thread", "[MaxRecords(1)] NodeOutput<Rec> o", "o.GetThreadNodeOutputRecords(1).Get()", ir.RecordAccess, None,
     "Rec"),
    ("thread", "[MaxRecords(2)] NodeOutput<Rec> o", "o.GetThreadNodeOutputRecords(2)[1]", ir.RecordAccess, None,
     "Rec"),
    ("thread", "[MaxRecords(2)] NodeOutput<Rec> o", "o.GetThreadNodeOutputRecords(2).Get(1)", ir.RecordAccess, None,
     "Rec"),
    ("thread", "[MaxRecords(1)] NodeOutput<Rec> o", "o.GetThreadNodeOutputRecords(1).OutputComplete()", ir.MethodCall,
     "OutputComplete", "void"),
    ("broadcasting", "[MaxRecords(8)] NodeOutput<Rec> o", "o.GetGroupNodeOutputRecords(8).OutputComplete()",
     ir.MethodCall, "OutputComplete", "void"),
    ("thread", "ThreadNodeInputRecord<Rec> i", "GetRemainingRecursionLevels()", ir.IntrinsicCall, None, "uint"),
    ("coalescing", "EmptyNodeInput i", "GetCurrentLoopIterationIndex()", ir.IntrinsicCall, None, "uint"),
]


@pytest.mark.parametrize("launch,params,expr,cls,method,result", NODE_METHODS,
                         ids=[f"{p.split()[-2].split('<')[0]}-{e}" for _, p, e, *_ in NODE_METHODS])
def test_node_object_methods(launch, params, expr, cls, method, result):
    fn = node_fn(params, f"{expr};", launch=launch, probing=True)
    node = fn.body.stmts[0].expr
    assert isinstance(node, cls) and str(node.type) == result
    if method is not None:
        assert node.method == method
    if isinstance(node, ir.RecordAccess):
        assert isinstance(node.object.type, t.NodeObjectType)
        indexed = expr.endswith("]") or re.search(r"Get\(\w+\)$", expr) is not None
        assert (node.index is not None) == indexed
        if indexed:
            assert node.index.type is U


@pytest.mark.parametrize("launch,param,target", [
    ("broadcasting", "RWDispatchNodeInputRecord<Rec> r", "r.Get().a"),
    ("thread", "RWThreadNodeInputRecord<Rec> r", "r.Get().a"),
    ("coalescing", "[MaxRecords(4)] RWGroupNodeInputRecords<Rec> r", "r[1].a"),
    ("coalescing", "[MaxRecords(4)] RWGroupNodeInputRecords<Rec> r", "r.Get(1).arr[1]"),
    ("thread", "[MaxRecords(1)] NodeOutput<Rec> o", "o.GetThreadNodeOutputRecords(1).Get().a"),
    ("broadcasting", "[MaxRecords(8)] NodeOutput<Rec> o", "o.GetGroupNodeOutputRecords(8)[2].a"),
])
def test_writable_records_are_assignable(launch, param, target):
    fn = node_fn(param, f"{target} = 7; {target} += 1;", launch=launch)
    plain, compound = (s.expr for s in fn.body.stmts)
    assert isinstance(plain, ir.Assign) and plain.op == "" and plain.value.type is U
    assert compound.op == "+"
    assert find(plain.target, ir.RecordAccess)


@pytest.mark.parametrize("launch,param,target", [
    ("broadcasting", "DispatchNodeInputRecord<Rec> r", "r.Get().a"),
    ("thread", "ThreadNodeInputRecord<Rec> r", "r.Get().a"),
    ("coalescing", "[MaxRecords(4)] GroupNodeInputRecords<Rec> r", "r[1].a"),
])
def test_read_only_records_are_not_assignable(launch, param, target):
    grid = "[NodeDispatchGrid(1,1,1)][NumThreads(8,1,1)]" if launch == "broadcasting" else (
        "[NumThreads(8,1,1)]" if launch == "coalescing" else "")
    src = f'{NODE_PRELUDE}[Shader("node")][NodeLaunch("{launch}")]{grid} void n({param}) {{ {target} = 1; }}'
    assert error_codes(src) == ["WG0307"]


def test_local_output_records_and_record_copy():
    fn = node_fn("[MaxRecords(8)] NodeOutput<Rec> o, uint gi : SV_GroupIndex",
                 "GroupNodeOutputRecords<Rec> recs = o.GetGroupNodeOutputRecords(8);"
                 "recs[gi].b = 1; Rec copy = recs[gi]; recs.OutputComplete();")
    recs = decl(fn, "recs")
    assert recs.variable.type.kind is NK.GROUP_NODE_OUTPUT_RECORDS and isinstance(recs.init, ir.MethodCall)
    copy = init(fn, "copy")
    assert isinstance(copy, ir.RecordAccess) and copy.object.variable is recs.variable
    assert copy.index.variable.name == "gi"


def test_node_object_helpers_are_must_inline():
    src = NODE_PRELUDE + """
        uint valid(NodeOutput<Rec> o) { return o.IsValid() ? 1 : 0; }
        Rec fetch(ThreadNodeInputRecord<Rec> r) { return r.Get(); }
        void fill(inout Rec rec, uint x) { rec.a = x; }
        [Shader("node")][NodeLaunch("thread")]
        void n(ThreadNodeInputRecord<Rec> r, [MaxRecords(1)] NodeOutput<Rec> o) {
            Rec x = fetch(r); uint k = valid(o);
            ThreadNodeOutputRecords<Rec> out1 = o.GetThreadNodeOutputRecords(1);
            fill(out1.Get(), k); out1.OutputComplete();
        }
    """
    module = analyze_text(src)
    assert func(module, "valid").must_inline and func(module, "fetch").must_inline
    assert not func(module, "fill").must_inline and not func(module, "n").must_inline
    call = find(func(module, "n").body, ir.Call, function=func(module, "fill"))[0]
    assert isinstance(call.args[0], ir.RecordAccess)
    fetch_call = init(func(module, "n"), "x")
    assert fetch_call.args[0].type.kind is NK.THREAD_NODE_INPUT_RECORD


# ---------------------------------------------------------------- names


def test_shadowing_binds_to_the_innermost_variable():
    module = analyze_text("""
        static float x = 1;
        float probe(float p) {
            float y = x;
            float x = 2;
            { int x = 3; x += 1; float p = x; }
            return x + p;
        }
    """)
    fn = func(module, "probe")
    global_x = glob(module, "x")
    assert init(fn, "y").variable is global_x
    outer = decl(fn, "x").variable
    inner = [d.variable for d in find(fn.body, ir.VarDecl) if d.variable.name == "x"][1]
    assert outer is not inner and inner.type is I and outer.type is F
    nested = fn.body.stmts[2]
    assert isinstance(nested, ir.Block)
    assert nested.stmts[1].expr.target.variable is inner
    inner_p = [d for d in find(nested, ir.VarDecl) if d.variable.name == "p"][0]
    assert strip(inner_p.init).variable is inner and inner_p.variable is not fn.params[0]
    ret = fn.body.stmts[-1].value
    assert ret.left.variable is outer and ret.right.variable is fn.params[0]


def test_function_and_block_scopes():
    module = analyze_text("""
        void probe(int p) {
            { float t = 1; }
            { int t = 2; float q = t; }
            for (int i = 0; i < 2; i++) {}
            for (uint i = 0; i < 2; i++) {}
        }
    """)
    fn = func(module, "probe")
    ts = [d.variable for d in find(fn.body, ir.VarDecl) if d.variable.name == "t"]
    assert [v.type for v in ts] == [F, I] and ts[0] is not ts[1]
    assert strip(init(fn, "q")).variable is ts[1]
    loops = find(fn.body, ir.Loop)
    assert [lp.init[0].variable.type for lp in loops] == [I, U]
    assert loops[1].cond.left.variable is loops[1].init[0].variable


def test_a_local_cannot_redeclare_a_parameter_in_the_outermost_block():
    assert error_codes("void probe(int p) { float p = 1; }") == ["WG0302"]


def test_forward_declaration_resolves_to_the_definition():
    module = analyze_text("""
        float proto(float a, float b = 1);
        float use() { return proto(2); }
        float proto(float a, float b) { return a * b; }
    """)
    assert [f.name for f in module.functions] == ["use", "proto"]
    proto = func(module, "proto")
    call = find(func(module, "use").body, ir.Call)[0]
    assert call.function is proto and [a.value for a in call.args] == [2.0, 1.0]
    assert proto.body is not None and func(module, "use").callees == [proto]


OVERLOADS = "float f(float x) { return x; } float f(int x) { return x; }"


@pytest.mark.parametrize("arg_decl,arg,param_type", [
    ("half a;", "a", F),          # promotion beats conversion
    ("float a;", "a", F),         # exact
    ("int a;", "a", I),           # exact
    ("min16float a;", "a", F),    # promotion
    ("int16_t a;", "a", I),       # promotion
    ("", "1", I),                 # an int literal is exactly int
    ("", "1.5", F),               # a float literal is exactly float
    ("", "1.5f", F),
])
def test_overload_ranking(arg_decl, arg, param_type):
    expr = probe(f"f({arg})", body=arg_decl, prelude=OVERLOADS, enable_16bit_types="16" in arg_decl)
    assert isinstance(expr, ir.Call) and expr.function.params[0].type is param_type


def test_overload_uint_argument_prefers_int_over_float():
    # dxc's scores (SemaHLSL.cpp ScoreCast): uint -> int is an integer cast (bit 2 + 7 * 3), uint -> float
    # another cast (bit 2 + 7 * 6), so f(int) has the lower score
    expr = probe("f(u)", body="uint u;", prelude=OVERLOADS)
    assert isinstance(expr, ir.Call) and expr.function.params[0].type is I


@pytest.mark.parametrize("prelude,call,picked", [
    # (int2, int): one splat (bit 2) beats two int -> float casts (2 * bit 44): DXC picks f(int2, int2)
    ("float f(int2 a, int2 b) { return 1; } float f(float2 a, float b) { return 2; }", "f(i2, i)",
     ("int2", "int2")),
    # int -> int2 is a splat (bit 2), int -> float a cast (bit 44): the vector wins
    ("float s(int2 a) { return 1; } float s(float a) { return 2; }", "s(i)", ("int2",)),
    # int -> uint is an integer cast (bit 23), int -> float a cast (bit 44)
    ("float g(float a) { return 1; } float g(uint a) { return 2; }", "g(i)", ("uint",)),
    # a literal int converts to int with no cost, to float with a cast
    ("float k(float a, float b) { return 1; } float k(int a, float b) { return 2; }", "k(1, 2.0)",
     ("int", "float")),
    # half -> float is a promotion (bit 16), half -> int a cast
    ("float p(int a) { return 1; } float p(float a) { return 2; }", "p(h)", ("float",)),
    # the sum decides: (float, float) costs two casts, (int, double) one promotion (float -> double)
    ("float q(float a, float b) { return 1; } float q(int a, double b) { return 2; }", "q(i, x)",
     ("int", "double")),
])
def test_overload_ranking_is_dxcs_score(prelude, call, picked):
    expr = probe(call, body="int2 i2; int i; half h; float x;", prelude=prelude)
    assert isinstance(expr, ir.Call) and tuple(str(p.type) for p in expr.function.params) == picked


def test_overload_score_ties_are_ambiguous():
    # (int2 -> int2, int -> float) and (int2 -> float2, int -> int) both cost one cast
    prelude = "float f(int2 a, float b) { return 1; } float f(float2 a, int b) { return 2; }"
    assert error_codes(prelude + "void probe(int2 i2, int i) { f(i2, i); }") == ["WG0305"]


@pytest.mark.parametrize("arg,param_type", [
    ("float3(1, 2, 3)", F3), ("2.0", F), ("int3(1, 2, 3)", F3), ("1", F), ("uint3(1, 2, 3)", F3),
])
def test_overload_shape_ranking(arg, param_type):
    prelude = "float g(float x) { return x; } float g(float3 x) { return x.x; }"
    module, warnings = analyze_allowing_warnings(prelude + f"void probe() {{ g({arg}); }}")
    call = func(module, "probe").body.stmts[0].expr
    assert call.function.params[0].type is param_type
    assert warnings == []


def test_default_arguments():
    module = analyze_text("""
        float d(float a, float b = 3, int c = 4) { return a + b + c; }
        struct S { float k; float scale(float f = 2) { return k * f; } };
        void probe() { float r1 = d(1); float r2 = d(1, 2); float r3 = d(1, 2, 3); S s; float r4 = s.scale(); }
    """)
    fn = func(module, "probe")
    assert [[a.value for a in init(fn, n).args] for n in ("r1", "r2", "r3")] == [[1.0, 3.0, 4], [1.0, 2.0, 4],
                                                                               [1.0, 2.0, 3]]
    assert [a.type for a in init(fn, "r1").args] == [F, F, I]
    scale = init(fn, "r4")
    assert len(scale.args) == 2 and scale.args[1].value == 2.0


def test_out_and_inout_arguments():
    module = analyze_text("""
        void io(out float o, inout int x, in float i) { o = i; x += 1; }
        void probe() { float o; int x = 0; io(o, x, 1); half h; io(h, x, 2); float3 v; io(v.y, x, 3); }
    """)
    f = func(module, "io")
    assert [p.direction for p in f.params] == [ir.Direction.OUT, ir.Direction.INOUT, ir.Direction.IN]
    calls = find(func(module, "probe").body, ir.Call)
    assert isinstance(calls[0].args[0], ir.VarRef) and calls[0].args[0].variable.name == "o"
    # copy-in/copy-out: the caller's l-value is passed as is, even with another type
    assert calls[1].args[0].type is HALF32 and isinstance(calls[1].args[0], ir.VarRef)
    assert isinstance(calls[2].args[0], ir.Swizzle)


def test_out_argument_must_be_an_lvalue():
    assert error_codes("void o(out float x) { x = 1; } void probe() { o(1.0); }") == ["WG0332"]


def test_templates_deduced_and_explicit():
    module = analyze_text("""
        template<typename T> T twice(T v) { return v + v; }
        template<typename T, typename U> T conv(U u) { return (T)u; }
        void probe() {
            int a = twice(3); float b = twice(1.5f); float3 c = twice(float3(1, 2, 3));
            uint d = twice<uint>(4); float e = conv<float>(3); int a2 = twice(7);
        }
    """)
    fn = func(module, "probe")
    instances = {n: init(fn, n).function for n in ("a", "b", "c", "d", "e", "a2")}
    assert [instances[n].return_type for n in "abcde"] == [I, F, F3, U, F]
    assert instances["a"] is instances["a2"]
    assert instances["d"].name == "twice<uint>" and instances["d"].params[0].type is U
    assert instances["e"].name == "conv<float, int>" and instances["e"].params[0].type is I
    assert sum(1 for f in module.functions if f.name.startswith("twice")) == 4


def test_struct_scope_members_see_later_fields_and_methods():
    module = analyze_text("""
        static float later = 100;
        struct S { float get() { return later + other(); } float other() { return 2; } float later; };
    """)
    ret = func(module, "S::get").body.stmts[0].value
    assert isinstance(ret.left, ir.FieldAccess) and ret.left.name == "later"
    assert ret.right.function is func(module, "S::other")


# ---------------------------------------------------------------- conversions and literals


@pytest.mark.parametrize("params,expr,result,left,right", [
    ("int i, float f", "i * f", F, F, F),
    ("uint u", "u + 1", U, U, U),
    ("half h", "h * 0.5", HALF32, HALF32, HALF32),
    ("float f", "f * 2", F, F, F),
    ("int i", "i + 1.5", F, F, F),
    ("int i, uint u", "i + u", U, U, U),
    ("float f, double d", "f + d", D, D, D),
    ("int i, int64_t l", "i + l", t.INT64, t.INT64, t.INT64),
    ("float3 v, float f", "v * f", F3, F3, F3),
    ("float3 v", "v * 2", F3, F3, F3),
    ("float4x4 m", "m * 2", m(F, 4, 4), m(F, 4, 4), m(F, 4, 4)),
    ("int3 a, float3 b", "a + b", F3, F3, F3),
    ("bool a, bool b", "a + b", I, I, I),
    ("bool3 a", "a * 2", I3, I3, I3),
    ("bool a, bool b", "a & b", I, I, I),
    ("float3 a, float3 b", "a < b", B3, F3, F3),
    ("int2 a, int b", "a == b", v(B, 2), I2, I2),
    ("float a, int b", "a != b", B, F, F),
    ("uint u", "u << 2", U, U, U),
    ("int i, uint u", "i >> u", I, I, I),
    ("int i", "i % 3", I, I, I),
])
def test_binary_operand_and_result_types(params, expr, result, left, right):
    node = probe(expr, params)
    assert isinstance(node, ir.Binary) and node.op == expr.split()[1]
    assert (node.type, node.left.type, node.right.type) == (result, left, right)


@pytest.mark.parametrize("params,expr", [
    ("half h, float f", "h + f"), ("min16float h, float f", "h * f"), ("half h, float f", "max(h, f)"),
])
def test_half_and_float_meet_at_float(params, expr):
    assert probe(expr, params).type is F


def test_implicit_int_to_float_is_a_convert_node():
    node = probe("i * f", "int i, float f")
    assert isinstance(node.left, ir.Convert) and not node.left.explicit and node.left.operand.type is I
    assert isinstance(node.right, ir.VarRef)


@pytest.mark.parametrize("params,expr,literal_type,value", [
    ("uint u", "u + 1", U, 1),
    ("half h", "h * 0.5", HALF32, 0.5),
    ("float f", "f * 2", F, 2.0),
    ("int64_t l", "l + 1", t.INT64, 1),
    ("double d", "d * 0.5", D, 0.5),
])
def test_literals_take_the_other_operands_type(params, expr, literal_type, value):
    node = probe(expr, params)
    assert isinstance(node.right, ir.Constant) and node.right.type is literal_type and node.right.value == value


def test_literal_only_expressions_fold():
    node = probe("1 + 2 * 3")
    assert isinstance(node, ir.Constant) and node.value == 7 and node.type is I and node.literal


def test_half_literal_suffix_with_16bit_types():
    node = probe("h * 0.5", "half h", enable_16bit_types=True)
    assert node.type is F16 and node.right.type is F16


def test_scalar_splat():
    fn = func(analyze_text("void probe(float f) { float3 a = 2; float4 b = f; float2x2 c = 1; }"), "probe")
    for name, type_ in (("a", F3), ("b", F4), ("c", m(F, 2, 2))):
        value = init(fn, name)
        assert isinstance(value, ir.Convert) and value.type is type_ and t.component_count(value.operand.type) == 1


@pytest.mark.parametrize("code", [
    "float2 a = float3(1, 2, 3);",
    "float a = float3(1, 2, 3);",
    "float3x3 m3 = (float4x4)0;",
])
def test_implicit_truncation_warns_but_is_accepted(code):
    module, warnings = analyze_allowing_warnings(f"void probe() {{ {code} }}")
    assert warnings == ["WG0313"]
    value = find(func(module, "probe").body, ir.VarDecl)[0].init
    assert isinstance(value, ir.Convert) and not value.explicit


def test_truncation_in_binary_operands_and_returns():
    module, warnings = analyze_allowing_warnings("""
        float2 shrink(float4 v) { return v; }
        void probe(float3 a, float2 b) { float2 c = a + b; }
    """)
    assert warnings == ["WG0313", "WG0313"]
    ret = func(module, "shrink").body.stmts[0].value
    assert isinstance(ret, ir.Convert) and ret.type is F2
    add = init(func(module, "probe"), "c")
    assert add.type is F2 and add.left.type is F2


def test_return_value_converted_to_the_return_type():
    module = analyze_text("float r(int i) { return i; } float3 s() { return 1; } uint u(bool b) { return b; }")
    assert [func(module, n).body.stmts[0].value.type for n in ("r", "s", "u")] == [F, F3, U]
    assert all(isinstance(func(module, n).body.stmts[0].value, ir.Convert) for n in ("r", "u"))


def test_conditions_become_scalar_bool():
    fn = func(analyze_text("void probe(int i, float f, uint4 v) { if (i) {} while (f) {} if (v.x) {} }"), "probe")
    conds = [s.cond for s in fn.body.stmts]
    assert all(c.type is B and isinstance(c, ir.Convert) for c in conds)


# ---------------------------------------------------------------- constants


def test_static_consts_fold_into_attributes_array_sizes_cases_and_templates():
    module = analyze_text("""
        static const uint X = 8;
        static const uint N = X / 4;
        static const float K = 1.5;
        static const float3 V3 = float3(1, 2, 3);
        static const int ARR[2] = {1, 2};
        [Shader("node")][NodeLaunch("broadcasting")][NodeDispatchGrid(X, N, 1)][NumThreads(X, 1, 1)]
        void probe() {
            float a[N * 2 + 1];
            vector<float, N> vn;
            matrix<float, N, N + 1> mn;
            int s = 3;
            switch (s) { case X: case N + 1: break; default: break; }
            const float k2 = K * 2;
        }
    """)
    assert [glob(module, n).constant for n in ("X", "N", "K", "V3", "ARR")] == [8, 2, 1.5, (1.0, 2.0, 3.0), (1, 2)]
    assert all(glob(module, n).const and glob(module, n).storage is ir.Storage.STATIC for n in ("X", "N"))
    fn = func(module, "probe")
    assert ir.find_attribute(fn.attributes, "numthreads").values() == (8, 1, 1)
    assert ir.find_attribute(fn.attributes, "nodedispatchgrid").values() == (8, 2, 1)
    assert decl(fn, "a").variable.type is t.array(F, 5)
    assert decl(fn, "vn").variable.type is F2
    assert decl(fn, "mn").variable.type is m(F, 2, 3)
    switch = find(fn.body, ir.Switch)[0]
    assert [(c.values, c.is_default) for c in switch.cases] == [((8, 3), False), ((), True)]
    assert decl(fn, "k2").variable.constant == 3.0


def test_attribute_arguments_strings_and_names():
    module = analyze_text(NODE_PRELUDE + """
        [Shader("node")][NodeLaunch("thread")][NodeID("Named", 2)]
        void probe([MaxRecords(2)] NodeOutput<Rec> a, [MaxRecordsSharedWith(a)] NodeOutput<Rec> b) {}
    """)
    fn = func(module, "probe")
    assert ir.find_attribute(fn.attributes, "nodeid").values() == ("Named", 2)
    assert fn.shader_kind == "node" and module.node_shaders == [fn]
    shared = ir.find_attribute(fn.params[1].attributes, "maxrecordssharedwith")
    assert shared.args[0].name == "a" and shared.args[0].value is None


def test_enum_case_labels():
    fn = func(analyze_text("""
        enum E { EA = 1, EB = 4 };
        void probe(E e) { switch (e) { case EA: break; case EB: case EB + 1: break; } }
    """), "probe")
    switch = fn.body.stmts[0]
    assert [c.values for c in switch.cases] == [(1,), (4, 5)] and switch.selector.type is I


# ---------------------------------------------------------------- expressions


def test_swizzle_read_and_write():
    fn = func(analyze_text("void probe(float4 v, float s) { v.xy = v.yx; v.w = 1; float3 c = v.rgb; "
                           "float3 sc = s.xxx; v.zw += 2; }"), "probe")
    assign = fn.body.stmts[0].expr
    assert isinstance(assign.target, ir.Swizzle) and assign.target.components == (0, 1)
    assert assign.value.components == (1, 0) and assign.type is F2
    assert fn.body.stmts[1].expr.target.components == (3,) and fn.body.stmts[1].expr.target.type is F
    assert init(fn, "c").components == (0, 1, 2)
    scalar = init(fn, "sc")
    assert isinstance(scalar, ir.Swizzle) and scalar.components == (0, 0, 0) and scalar.type is F3
    compound = fn.body.stmts[-1].expr
    assert compound.op == "+" and compound.operation_type is F2


def test_repeated_swizzle_is_not_assignable():
    assert error_codes("void probe(float4 v) { v.xx = float2(1, 2); }") == ["WG0306"]


def test_matrix_swizzles_and_indexing():
    fn = func(analyze_text("void probe(float4x4 m) { float a = m._m01; float b = m._12; float2 c = m._m00_m11; "
                           "m._11_22 = float2(1, 2); float4 row = m[1]; float e = m[1][2]; }"), "probe")
    assert init(fn, "a").components == ((0, 1),) and init(fn, "a").type is F
    assert init(fn, "b").components == ((0, 1),)
    assert init(fn, "c").components == ((0, 0), (1, 1)) and init(fn, "c").type is F2
    assert fn.body.stmts[3].expr.target.components == ((0, 0), (1, 1))
    row = init(fn, "row")
    assert isinstance(row, ir.Index) and row.type is F4
    assert init(fn, "e").type is F


@pytest.mark.parametrize("code,op,target_type,operation_type", [
    ("int i; float f; i += f;", "+", I, F),
    ("int i; i *= 2;", "*", I, I),
    ("uint u; u <<= 1;", "<<", U, U),
    ("float f; int i; f /= i;", "/", F, F),
    ("float3 v; v *= 2;", "*", F3, F3),
    ("uint u; u |= 4;", "|", U, U),
    ("float4x4 mm; mm -= 1;", "-", m(F, 4, 4), m(F, 4, 4)),
])
def test_compound_assignment(code, op, target_type, operation_type):
    fn = func(analyze_text(f"void probe() {{ {code} }}"), "probe")
    assign = fn.body.stmts[-1].expr
    assert isinstance(assign, ir.Assign) and assign.op == op
    assert (assign.type, assign.operation_type, assign.value.type) == (target_type, operation_type, operation_type)


def test_logical_operators_on_scalars():
    node = probe("i && f", "int i, float f")
    assert isinstance(node, ir.Binary) and node.type is B and node.left.type is B and node.right.type is B
    node = probe("(i > 0) || (f < 1)", "int i, float f")
    assert node.op == "||" and node.left.op == ">"


def test_logical_operators_reject_vectors():
    assert error_codes("void probe(bool3 a, bool3 b) { a && b; }") == ["WG0320"]


@pytest.mark.parametrize("params,expr,cond_type,result", [
    ("int i, float f", "i > 0 ? 1 : f", B, F),
    ("bool b", "b ? 1 : 2", B, I),
    ("bool3 c, float3 v", "c ? v : 0", B3, F3),
    ("float3 v", "v > 0 ? v : -v", B3, F3),
    ("bool3 c, float f", "c ? f : 0", B3, F3),
    ("bool b, int x", "b ? x : 2.5", B, F),
])
def test_ternary_select(params, expr, cond_type, result):
    node = probe(expr, params)
    assert isinstance(node, ir.Select) and node.cond.type is cond_type and node.type is result
    assert node.then.type is result and node.else_.type is result


def test_ternary_on_structs():
    node = probe("b ? s : t", "bool b, S s, S t", prelude="struct S { float x; };")
    assert isinstance(node, ir.Select) and node.type.name == "S"


@pytest.mark.parametrize("params,expr,result", [
    ("float4 v", "(float2)v", F2),
    ("float4 v", "(int3)v", I3),
    ("float f", "(float4)f", F4),
    ("float4x4 mm", "(float3x3)mm", m(F, 3, 3)),
    ("float4x4 mm", "(float2x4)mm", m(F, 2, 4)),
    ("int i", "(float)i", F),
    ("float3 v", "(uint3)v", U3),
    ("double d", "(int)d", I),
    ("uint u", "(bool)u", B),
])
def test_numeric_casts(params, expr, result):
    node = probe(expr, params)
    assert isinstance(node, ir.Convert) and node.explicit and node.type is result


def test_struct_casts():
    module = analyze_text("""
        struct B { float a; };
        struct D : B { float3 b; };
        struct E : D { int c; };
        void probe(D d, E e) { B b = (B)d; B b2 = (B)e; D z = (D)0; int zi = (int)0; }
    """)
    base, derived, _ = module.structs
    fn = func(module, "probe")
    cast = init(fn, "b")
    assert isinstance(cast, ir.Convert) and cast.explicit and cast.type is base and cast.operand.type is derived
    assert init(fn, "b2").type is base
    zero = init(fn, "z")
    assert isinstance(zero, ir.Construct) and zero.type is derived
    assert [a.type for a in zero.args] == [F, F3]


@pytest.mark.parametrize("expr,result,arg_types", [
    ("float4(v3, 1)", F4, [F3, F]),
    ("float4(1, v2, 2)", F4, [F, F2, F]),
    ("float4(v2, v2)", F4, [F2, F2]),
    ("float3(1, 2, 3)", F3, [F, F, F]),
    ("int2(1.5, 2)", I2, [I, I]),
    ("float2x2(v2, v2)", m(F, 2, 2), [F2, F2]),
    ("float2x2(1, 2, 3, 4)", m(F, 2, 2), [F, F, F, F]),
    ("uint3(v2, 7)", U3, [U2, U]),
])
def test_constructors(expr, result, arg_types):
    node = probe(expr, "float3 v3, float2 v2")
    assert isinstance(node, ir.Construct) and node.type is result
    assert [a.type for a in node.args] == arg_types


def test_constructor_keeps_the_parts():
    node = probe("float4(v3, 1)", "float3 v3")
    assert isinstance(node.args[0], ir.VarRef) and node.args[0].variable.name == "v3"
    assert isinstance(node.args[1], ir.Constant) and node.args[1].value == 1.0


def test_initializer_lists_flatten():
    module = analyze_text("""
        struct S { float3 p; uint k; };
        struct T { S s; float w[2]; };
        void probe(float4 v) {
            float4 a[2] = {1, 2, 3, 4, 5, 6, 7, 8};
            S s = {float3(1, 2, 3), 1};
            T t = {1, 2, 3, 4, 5, 6};
            T t2 = {s, {7, 8}};
            S s2 = {v};
            float3 vi = {1, 2, 3};
            float2x2 mi = {1, 2, 3, 4};
            float u[] = {1, 2, 3};
            S arr2[2] = {1, 2, 3, 4, 5, 6, 7, 8};
        }
    """)
    s_type, t_type = module.structs
    fn = func(module, "probe")
    a = init(fn, "a")
    assert isinstance(a, ir.Construct) and a.type is t.array(F4, 2)
    assert [[c.value for c in part.args] for part in a.args] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    s = init(fn, "s")
    assert [arg.type for arg in s.args] == [F3, U] and isinstance(s.args[0], ir.Construct)
    assert s.args[1].value == 1 and s.args[1].type is U
    nested = init(fn, "t")
    assert nested.args[0].type is s_type and nested.args[1].type is t.array(F, 2)
    assert [c.value for c in nested.args[1].args] == [5.0, 6.0]
    t2 = init(fn, "t2")
    assert isinstance(t2.args[0], ir.VarRef) and t2.args[0].variable is decl(fn, "s").variable
    s2 = init(fn, "s2")
    assert s2.args[0].type is F3 and s2.args[1].type is U and isinstance(s2.args[1], ir.Convert)
    assert init(fn, "vi").type is F3 and init(fn, "mi").type is m(F, 2, 2)
    assert decl(fn, "u").variable.type is t.array(F, 3)
    assert init(fn, "arr2").type is t.array(s_type, 2)


@pytest.mark.parametrize("code,length", [
    ("S arr[] = { {float3(1, 2, 3), 1}, {float3(4, 5, 6), 2} };", 2),
    ("float3 arr[] = { float3(1, 2, 3), float3(4, 5, 6) };", 2),
])
def test_unsized_array_from_initializer_list(code, length):
    fn = func(analyze_text(f"struct S {{ float3 p; uint k; }}; void probe() {{ {code} }}"), "probe")
    assert decl(fn, "arr").variable.type.length == length


def test_unary_operators():
    fn = func(analyze_text("void probe(float3 v, int i, uint u, bool b) { bool3 n = !v; int t = ~i; uint neg = -u;"
                           " int nb = -b; int pre = ++i; uint post = u--; }"), "probe")
    n = init(fn, "n")
    assert isinstance(n, ir.Unary) and n.op == "!" and n.type is B3 and n.operand.type is B3
    assert init(fn, "t").type is I and init(fn, "neg").type is U
    nb = init(fn, "nb")
    assert nb.type is I and isinstance(nb.operand, ir.Convert)
    pre, post = init(fn, "pre"), init(fn, "post")
    assert isinstance(pre, ir.IncDec) and pre.prefix and pre.op == "++"
    assert isinstance(post, ir.IncDec) and not post.prefix and post.op == "--"


@pytest.mark.parametrize("literal,type_,value", [
    ("1", I, 1), ("1u", U, 1), ("0xFFFFFFFF", U, 0xFFFFFFFF), ("5000000000", t.INT64, 5000000000),
    ("1ull", t.UINT64, 1), ("1.5", F, 1.5), ("1.5f", F, 1.5), ("2.0l", D, 2.0), ("true", B, True),
])
def test_literal_types(literal, type_, value):
    node = probe(literal)
    assert isinstance(node, ir.Constant) and node.type is type_ and node.value == value


def test_sizeof_is_a_uint_constant():
    node = probe("sizeof(float4)")
    assert isinstance(node, ir.Constant) and node.type is U and node.value == 16


# ---------------------------------------------------------------- statements


def test_loop_shapes():
    fn = func(analyze_text("""
        void probe() {
            [unroll] for (int i = 0, j = 1; i < 4; i++, j++) {}
            for (;;) { break; }
            int k = 0;
            [loop] while (k < 3) { k++; }
            do { k--; } while (k > 0);
        }
    """), "probe")
    loops = find(fn.body, ir.Loop)
    assert [lp.kind for lp in loops] == [ir.LoopKind.FOR, ir.LoopKind.FOR, ir.LoopKind.WHILE, ir.LoopKind.DO_WHILE]
    first = loops[0]
    assert [s.variable.name for s in first.init] == ["i", "j"] and isinstance(first.step, ir.Comma)
    assert first.cond.type is B and ir.find_attribute(first.attributes, "unroll") is not None
    assert loops[1].cond is None and loops[1].init == [] and loops[1].step is None
    assert ir.find_attribute(loops[2].attributes, "loop") is not None


def test_switch_shape_and_fallthrough():
    fn = func(analyze_text("""
        void probe(uint s) {
            [branch] switch (s) {
                case 1: case 2: s = 5; break;
                case 3: s = 6;
                default: s = 7; break;
                case 4: { return; }
            }
        }
    """), "probe")
    switch = fn.body.stmts[0]
    assert isinstance(switch, ir.Switch) and switch.selector.type is U
    assert [(c.values, c.is_default, c.falls_through) for c in switch.cases] == [
        ((1, 2), False, False), ((3,), False, True), ((), True, False), ((4,), False, False)]
    assert ir.find_attribute(switch.attributes, "branch") is not None


def test_break_and_continue_inside_nested_loop_and_switch():
    fn = func(analyze_text("""
        void probe() {
            for (int i = 0; i < 4; ++i) {
                switch (i) { case 1: continue; case 2: break; default: { for (;;) { break; } break; } }
                if (i == 3) break;
                while (true) { if (i) continue; break; }
            }
        }
    """), "probe")
    loop = fn.body.stmts[0]
    switch = loop.body.stmts[0]
    assert isinstance(switch.cases[0].body.stmts[0], ir.Continue)
    assert isinstance(switch.cases[1].body.stmts[0], ir.Break)
    assert len(find(loop, ir.Break)) == 5 and len(find(loop, ir.Continue)) == 2


def test_continue_in_switch_outside_a_loop_is_rejected():
    assert error_codes("void probe(int s) { switch (s) { case 0: continue; } }") == ["WG0317"]


def test_local_static_const_struct_and_groupshared():
    module = analyze_text("""
        groupshared float shared_data[64];
        void probe() {
            static int counter = 0; counter++;
            const float k = 3 * 2;
            struct Local { float z; } loc; loc.z = k;
            shared_data[0] = k;
        }
    """)
    assert glob(module, "shared_data").storage is ir.Storage.GROUPSHARED
    fn = func(module, "probe")
    counter = decl(fn, "counter").variable
    assert counter.storage is ir.Storage.STATIC and counter.init.value == 0
    k = decl(fn, "k").variable
    assert k.const and k.constant == 6.0
    assert [s.name for s in module.structs] == ["Local"]


# ---------------------------------------------------------------- intrinsics


MATH_PARAMS = ("float f, float3 v, float4 v4, double d, uint u, int i, half h, float4x4 m44, float3x4 m34, "
               "float4x2 m42, float2x2 m22, bool3 b3")

# expression, result type (the arguments' types are checked to be the result's where marked)
INTRINSICS = [
    ("abs(f)", F), ("abs(i)", I), ("abs(v)", F3), ("min(v, f)", F3), ("max(u, 2)", U), ("max(i, u)", U),
    ("clamp(f, 0, 1)", F), ("clamp(i, 0, 10)", I), ("saturate(v)", F3), ("saturate(h)", HALF32), ("saturate(d)", D),
    ("lerp(v, v, f)", F3), ("lerp(0, 1, 0.5)", F), ("step(f, 1)", F), ("smoothstep(0, 1, v)", F3),
    ("sqrt(f)", F), ("rsqrt(v)", F3), ("rcp(f)", F), ("pow(v, 2)", F3), ("exp(f)", F), ("exp2(f)", F),
    ("log(f)", F), ("log2(v)", F3), ("log10(f)", F), ("sin(f)", F), ("cos(v)", F3), ("tan(f)", F),
    ("asin(f)", F), ("acos(f)", F), ("atan(f)", F), ("atan2(f, f)", F), ("sinh(f)", F), ("sqrt(i)", F),
    ("floor(v)", F3), ("ceil(f)", F), ("round(f)", F), ("trunc(f)", F), ("frac(v)", F3), ("fmod(f, 2)", F),
    ("dot(v, v)", F), ("dot(int3(1, 2, 3), int3(4, 5, 6))", I), ("cross(v, v)", F3), ("length(v)", F),
    ("distance(v, v)", F), ("normalize(v)", F3), ("reflect(v, v)", F3), ("refract(v, v, f)", F3),
    ("faceforward(v, v, v)", F3), ("mad(f, f, f)", F), ("mad(i, i, i)", I), ("fma(d, d, d)", D),
    ("sign(f)", I), ("sign(v)", I3), ("isnan(v)", B3), ("isinf(f)", B), ("isfinite(v)", B3),
    ("all(v)", B), ("any(b3)", B), ("countbits(u)", U), ("firstbithigh(i)", U), ("firstbitlow(u)", U),
    ("reversebits(u)", U), ("asuint(f)", U), ("asuint(v)", U3), ("asint(f)", I), ("asfloat(u)", F),
    ("asfloat(int3(1, 2, 3))", F3), ("f32tof16(f)", U), ("f16tof32(u)", F),
    ("mul(f, m44)", m(F, 4, 4)), ("mul(m44, f)", m(F, 4, 4)), ("mul(v4, m44)", F4), ("mul(m44, v4)", F4),
    ("mul(m44, m44)", m(F, 4, 4)), ("mul(m34, m42)", m(F, 3, 2)), ("mul(m34, v4)", F3), ("mul(v, m34)", F4),
    ("mul(v, v)", F), ("mul(f, f)", F), ("mul(f, v)", F3),
    ("transpose(m34)", m(F, 4, 3)), ("determinant(m44)", F), ("determinant(m22)", F),
    ("select(b3, v, -v)", F3), ("select(f > 0, 1, 2)", I),
]


@pytest.mark.parametrize("expr,result", INTRINSICS, ids=[e for e, _ in INTRINSICS])
def test_intrinsic_result_types(expr, result):
    node = probe(expr, MATH_PARAMS)
    assert isinstance(node, ir.IntrinsicCall) and node.name == expr.split("(")[0]
    assert node.type is result
    assert node.out_params == ()


def test_intrinsic_arguments_have_parameter_types():
    node = probe("lerp(v, v, f)", MATH_PARAMS)
    assert [a.type for a in node.args] == [F3, F3, F3] and isinstance(node.args[2], ir.Convert)
    node = probe("max(u, 2)", MATH_PARAMS)
    assert node.args[1].type is U and isinstance(node.args[1], ir.Constant)
    node = probe("mul(m34, m42)", MATH_PARAMS)
    assert [a.type for a in node.args] == [m(F, 3, 4), m(F, 4, 2)]


@pytest.mark.parametrize("body,expr,result,outs", [
    ("float ip;", "modf(f, ip)", F, (1,)),
    ("float3 ip3;", "modf(v, ip3)", F3, (1,)),
    ("float3 e;", "frexp(v, e)", F3, (1,)),
    ("uint lo, hi;", "asuint(d, lo, hi)", t.VOID, (1, 2)),
])
def test_intrinsics_with_out_parameters(body, expr, result, outs):
    node = probe(expr, MATH_PARAMS, body=body)
    assert node.type is result and node.out_params == outs
    assert all(isinstance(node.args[i], ir.VarRef) for i in outs)


ATOMIC_PRELUDE = """
groupshared uint gs; groupshared int gsa[4];
struct Counter { uint count; float v; };
RWStructuredBuffer<uint> rb; RWStructuredBuffer<Counter> rbc; RWTexture2D<uint> rt; RWStructuredBuffer<int64_t> r64;
"""

ATOMICS = [
    ("InterlockedAdd(gs, 1)", U, ()),
    ("InterlockedAdd(gs, u, o)", U, (2,)),
    ("InterlockedMin(gsa[2], i)", I, ()),
    ("InterlockedMax(rb[0], u)", U, ()),
    ("InterlockedAnd(rt[uint2(1, 2)], u, o)", U, (2,)),
    ("InterlockedOr(rbc[1].count, 4)", U, ()),
    ("InterlockedXor(gs, u)", U, ()),
    ("InterlockedExchange(gs, u, o)", U, (2,)),
    ("InterlockedCompareExchange(gs, 0, u, o)", U, (3,)),
    ("InterlockedCompareStore(rb[1], 0, 1)", U, ()),
    ("InterlockedAdd(r64[0], 5, o64)", t.INT64, (2,)),
]


@pytest.mark.parametrize("expr,component,outs", ATOMICS, ids=[e for e, *_ in ATOMICS])
def test_atomics(expr, component, outs):
    node = probe(expr, "uint u, int i", prelude=ATOMIC_PRELUDE, body="uint o; int64_t o64;")
    assert isinstance(node, ir.IntrinsicCall) and node.type is t.VOID
    assert node.out_params == (0, *outs)
    assert all(a.type is component for a in node.args)


def test_atomic_on_node_record_field():
    fn = node_fn("RWThreadNodeInputRecord<Rec> rec, [MaxRecords(4)] NodeOutput<Rec> o",
                 "uint old; InterlockedAdd(rec.Get().a, 1, old);"
                 "ThreadNodeOutputRecords<Rec> r = o.GetThreadNodeOutputRecords(1); InterlockedMax(r.Get().arr[1], 2);"
                 "r.OutputComplete();", launch="thread")
    first, second = find(fn.body, ir.IntrinsicCall)
    assert first.out_params == (0, 2) and isinstance(first.args[0], ir.FieldAccess)
    assert isinstance(first.args[0].base, ir.RecordAccess)
    assert find(second.args[0], ir.RecordAccess)


def test_atomic_destination_must_be_shared_memory():
    assert error_codes("void probe() { uint x = 0; InterlockedAdd(x, 1); }") == ["WG0332"]


@pytest.mark.parametrize("expr,component,outs", [
    ("bab.InterlockedAdd(0, 1)", I, ()),
    ("bab.InterlockedAdd(4, u, o)", U, (2,)),
    ("bab.InterlockedMax(0, i, io)", I, (2,)),
    ("bab.InterlockedCompareExchange(8, 0, 1, o)", U, (3,)),
    ("bab.InterlockedCompareStore(8, 0u, 1u)", U, ()),
    ("bab.InterlockedExchange(12, u, o)", U, (2,)),
])
def test_byte_address_buffer_atomic_methods(expr, component, outs):
    node = probe(expr, "uint u, int i", prelude="RWByteAddressBuffer bab;", body="uint o; int io;")
    assert isinstance(node, ir.MethodCall) and node.method == expr.split(".")[1].split("(")[0]
    assert node.type is t.VOID and node.out_params == outs
    assert node.args[0].type is U and all(a.type is component for a in node.args[1:])


@pytest.mark.parametrize("expr", [
    "GroupMemoryBarrier()", "GroupMemoryBarrierWithGroupSync()", "DeviceMemoryBarrier()",
    "DeviceMemoryBarrierWithGroupSync()", "AllMemoryBarrier()", "AllMemoryBarrierWithGroupSync()",
])
def test_legacy_barriers(expr):
    node = probe(expr)
    assert isinstance(node, ir.IntrinsicCall) and node.name == expr[:-2] and node.type is t.VOID and node.args == ()


@pytest.mark.parametrize("flags,value", [
    ("UAV_MEMORY", 0x1), ("GROUP_SHARED_MEMORY", 0x2), ("NODE_INPUT_MEMORY", 0x4), ("NODE_OUTPUT_MEMORY", 0x8),
    ("ALL_MEMORY", 0xF), ("GROUP_SYNC", 0x1), ("GROUP_SCOPE", 0x2), ("DEVICE_SCOPE", 0x4),
    ("UAV_MEMORY | GROUP_SHARED_MEMORY", 0x3),
])
def test_barrier_flag_constants(flags, value):
    node = probe(f"Barrier({flags}, {flags})")
    assert isinstance(node, ir.IntrinsicCall) and node.name == "Barrier" and node.type is t.VOID
    assert all(a.type is U for a in node.args)
    folded = [consteval.fold(a) for a in node.args]
    assert [f.value for f in folded] == [value, value]


def test_barrier_flag_constants_can_be_shadowed():
    module = analyze_text("static const uint GROUP_SYNC = 42; void probe() { uint g = GROUP_SYNC; }")
    assert init(func(module, "probe"), "g").variable is glob(module, "GROUP_SYNC")


@pytest.mark.parametrize("launch,param,obj", [
    ("thread", "RWThreadNodeInputRecord<Rec> r", "r"),
    ("broadcasting", "RWDispatchNodeInputRecord<Rec> r", "r"),
    ("coalescing", "[MaxRecords(4)] RWGroupNodeInputRecords<Rec> r", "r"),
    ("broadcasting", "[MaxRecords(8)] NodeOutput<Rec> o", "o.GetGroupNodeOutputRecords(8)"),
])
def test_barrier_on_record_object(launch, param, obj):
    fn = node_fn(param, f"Barrier({obj}, GROUP_SCOPE | GROUP_SYNC);", launch=launch)
    node = fn.body.stmts[-1].expr
    assert isinstance(node, ir.IntrinsicCall) and node.name == "Barrier"
    assert isinstance(node.args[0].type, t.NodeObjectType) and node.args[1].type is U


WAVE_PARAMS = "uint u, float3 v, bool b, int2 i2, float f"
WAVES = [
    ("WaveGetLaneIndex()", U), ("WaveGetLaneCount()", U), ("WaveIsFirstLane()", B),
    ("WaveActiveSum(v)", F3), ("WaveActiveProduct(f)", F), ("WaveActiveMin(u)", U), ("WaveActiveMax(i2)", I2),
    ("WavePrefixSum(v)", F3), ("WavePrefixProduct(u)", U),
    ("WaveActiveBitAnd(u)", U), ("WaveActiveBitOr(i2)", I2), ("WaveActiveBitXor(u)", U),
    ("WaveActiveAllTrue(b)", B), ("WaveActiveAnyTrue(b)", B), ("WaveActiveAllEqual(v)", B3),
    ("WaveActiveCountBits(b)", U), ("WavePrefixCountBits(b)", U), ("WaveActiveBallot(b)", U4),
    ("WaveReadLaneAt(v, 0)", F3), ("WaveReadLaneFirst(f)", F),
    ("QuadReadAcrossX(v)", F3), ("QuadReadAcrossY(u)", U), ("QuadReadAcrossDiagonal(f)", F),
    ("QuadReadLaneAt(v, 1)", F3), ("QuadAny(b)", B), ("QuadAll(b)", B), ("WaveMatch(v)", U4),
    ("WaveMultiPrefixSum(v, WaveMatch(u))", F3), ("WaveMultiPrefixProduct(i2, WaveMatch(u))", I2),
    ("WaveMultiPrefixBitAnd(u, WaveMatch(u))", U), ("WaveMultiPrefixBitOr(i2, WaveMatch(u))", I2),
    ("WaveMultiPrefixBitXor(u, WaveMatch(u))", U), ("WaveMultiPrefixCountBits(b, WaveMatch(u))", U),
]


def test_every_wave_intrinsic_is_covered():
    from wgc.sema.intrinsics import intrinsic_names

    listed = {e.split("(")[0] for e, _ in WAVES}
    assert {n for n in intrinsic_names() if n.startswith(("Wave", "Quad"))} == listed


@pytest.mark.parametrize("expr,result", WAVES, ids=[e for e, _ in WAVES])
def test_wave_intrinsics(expr, result):
    node = probe(expr, WAVE_PARAMS)
    assert isinstance(node, ir.IntrinsicCall) and node.type is result


# ---------------------------------------------------------------- resource methods


RESOURCE_PRELUDE = """
struct S { float3 p; uint k; };
Buffer<float4> b; RWBuffer<uint> rwb; StructuredBuffer<float3> sb; RWStructuredBuffer<float> rsb;
RWStructuredBuffer<S> rss; ByteAddressBuffer ba; RWByteAddressBuffer rba;
Texture1D<float4> t1; Texture1DArray<float4> t1a; Texture2D<float4> t2; Texture2DArray<float> t2a; Texture3D<float2> t3;
TextureCube<float4> tc; TextureCubeArray<float4> tca;
RWTexture2D<float4> rt2; RWTexture2DArray<uint> rt2a; RWTexture3D<float4> rt3; RWTexture1D<float> rt1;
SamplerState ss; SamplerComparisonState scs;
AppendStructuredBuffer<uint> ap; ConsumeStructuredBuffer<S> co;
"""
RESOURCE_BODY = "uint w, h, n, mips; float fw, fh; S s; uint status;"

# expression, IR class, method (None for operator[]), result type text, out parameters
RESOURCE_METHODS = [
    ("b.Load(i)", ir.MethodCall, "Load", "float4", ()),
    ("b.Load(i, status)", ir.MethodCall, "Load", "float4", (1,)),
    ("b[i]", ir.ResourceIndex, None, "float4", ()),
    ("rwb[i]", ir.ResourceIndex, None, "uint", ()),
    ("sb.Load(i)", ir.MethodCall, "Load", "float3", ()),
    ("sb[i]", ir.ResourceIndex, None, "float3", ()),
    ("rss[i].p", ir.FieldAccess, None, "float3", ()),
    ("ba.Load(0)", ir.MethodCall, "Load", "uint", ()),
    ("ba.Load2(4)", ir.MethodCall, "Load2", "uint2", ()),
    ("ba.Load3(8)", ir.MethodCall, "Load3", "uint3", ()),
    ("ba.Load4(16)", ir.MethodCall, "Load4", "uint4", ()),
    ("ba.Load<S>(32)", ir.MethodCall, "Load", "S", ()),
    ("rba.Load<float2>(0)", ir.MethodCall, "Load", "float2", ()),
    ("rba.Store(0, 1u)", ir.MethodCall, "Store", "void", ()),
    ("rba.Store2(0, uint2(1, 2))", ir.MethodCall, "Store2", "void", ()),
    ("rba.Store3(0, uint3(1, 2, 3))", ir.MethodCall, "Store3", "void", ()),
    ("rba.Store4(0, uint4(1, 2, 3, 4))", ir.MethodCall, "Store4", "void", ()),
    ("rba.Store<S>(0, s)", ir.MethodCall, "Store", "void", ()),
    ("rba.Store(4, s)", ir.MethodCall, "Store", "void", ()),
    ("t2.GetDimensions(w, h)", ir.MethodCall, "GetDimensions", "void", (0, 1)),
    ("t2.GetDimensions(0, w, h, mips)", ir.MethodCall, "GetDimensions", "void", (1, 2, 3)),
    ("t2.GetDimensions(fw, fh)", ir.MethodCall, "GetDimensions", "void", (0, 1)),
    ("t2a.GetDimensions(w, h, n)", ir.MethodCall, "GetDimensions", "void", (0, 1, 2)),
    ("rt3.GetDimensions(w, h, n)", ir.MethodCall, "GetDimensions", "void", (0, 1, 2)),
    ("sb.GetDimensions(n, w)", ir.MethodCall, "GetDimensions", "void", (0, 1)),
    ("ba.GetDimensions(n)", ir.MethodCall, "GetDimensions", "void", (0,)),
    ("b.GetDimensions(n)", ir.MethodCall, "GetDimensions", "void", (0,)),
    ("t2.SampleLevel(ss, uv, 0)", ir.MethodCall, "SampleLevel", "float4", ()),
    ("t1.SampleLevel(ss, uv.x, 0)", ir.MethodCall, "SampleLevel", "float4", ()),
    ("t1a.SampleLevel(ss, uv, 0)", ir.MethodCall, "SampleLevel", "float4", ()),
    ("t2a.SampleLevel(ss, uv.xyx, 0)", ir.MethodCall, "SampleLevel", "float", ()),
    ("t3.SampleLevel(ss, uv.xyx, 0)", ir.MethodCall, "SampleLevel", "float2", ()),
    ("tc.SampleLevel(ss, uv.xyx, 1)", ir.MethodCall, "SampleLevel", "float4", ()),
    ("tca.SampleLevel(ss, float4(uv, uv), 0)", ir.MethodCall, "SampleLevel", "float4", ()),
    ("t2.SampleGrad(ss, uv, uv, uv)", ir.MethodCall, "SampleGrad", "float4", ()),
    ("t3.SampleGrad(ss, uv.xyx, uv.xyx, uv.xyx)", ir.MethodCall, "SampleGrad", "float2", ()),
    ("t2.SampleCmpLevelZero(scs, uv, 0.5)", ir.MethodCall, "SampleCmpLevelZero", "float", ()),
    ("t2.Gather(ss, uv)", ir.MethodCall, "Gather", "float4", ()),
    ("t2a.Gather(ss, uv.xyx)", ir.MethodCall, "Gather", "float4", ()),
    ("t2.Load(int3(1, 2, 0))", ir.MethodCall, "Load", "float4", ()),
    ("t2[uint2(1, 2)]", ir.ResourceIndex, None, "float4", ()),
    ("t3[uint3(1, 2, 3)]", ir.ResourceIndex, None, "float2", ()),
    ("rt2.Load(int2(1, 1))", ir.MethodCall, "Load", "float4", ()),
    ("rt2[uint2(1, 1)]", ir.ResourceIndex, None, "float4", ()),
    ("rsb.IncrementCounter()", ir.MethodCall, "IncrementCounter", "uint", ()),
    ("rsb.DecrementCounter()", ir.MethodCall, "DecrementCounter", "uint", ()),
    ("ap.Append(5)", ir.MethodCall, "Append", "void", ()),
    ("co.Consume()", ir.MethodCall, "Consume", "S", ()),
]


@pytest.mark.parametrize("expr,cls,method,result,outs", RESOURCE_METHODS, ids=[e for e, *_ in RESOURCE_METHODS])
def test_resource_methods(expr, cls, method, result, outs):
    node = probe(expr, "uint i, float2 uv", prelude=RESOURCE_PRELUDE, body=RESOURCE_BODY)
    assert isinstance(node, cls) and str(node.type) == result
    if cls is ir.MethodCall:
        assert node.method == method and node.out_params == outs
        assert all(isinstance(node.args[k], ir.VarRef) for k in outs)


@pytest.mark.parametrize("expr,template", [
    ("ba.Load<S>(32)", "S"), ("rba.Load<float2>(0)", "float2"), ("rba.Store<S>(0, s)", "S"), ("rba.Store(4, s)", "S"),
    ("rba.Store(0, 1u)", None),
])
def test_byte_address_templates(expr, template):
    node = probe(expr, prelude=RESOURCE_PRELUDE, body=RESOURCE_BODY)
    assert (str(node.template_type) if node.template_type is not None else None) == template


@pytest.mark.parametrize("code,element", [
    ("rwb[i] = 2;", U), ("rsb[i] = 1.0;", F), ("rt2[uint2(1, 1)] = 0;", F4), ("rt2a[uint3(0, 0, 1)] = 5;", U),
    ("rt1[0] = 1;", F), ("rt3[uint3(1, 1, 1)] += 1;", F4), ("rss[i].k = 3;", U), ("rss[i].k++;", U),
])
def test_rw_resource_elements_are_assignable(code, element):
    node = probe(code.rstrip(";"), "uint i", prelude=RESOURCE_PRELUDE)
    assert isinstance(node, (ir.Assign, ir.IncDec)) and node.type is element
    assert find(node.target, ir.ResourceIndex)


@pytest.mark.parametrize("code", ["b[0] = 1;", "sb[0] = 1;", "t2[uint2(0, 0)] = 1;"])
def test_read_only_resource_elements_are_not_assignable(code):
    assert error_codes(RESOURCE_PRELUDE + f"void probe() {{ {code} }}") == ["WG0307"]


def test_resource_method_index_arguments_are_converted():
    node = probe("b.Load(i)", "uint i", prelude=RESOURCE_PRELUDE)
    assert node.args[0].type is I and isinstance(node.args[0], ir.Convert)
    node = probe("b[n]", "int n", prelude=RESOURCE_PRELUDE)
    assert node.index.type is U


def test_resources_as_locals_and_function_arguments():
    module = analyze_text(RESOURCE_PRELUDE + """
        Texture2D<float4> texs[2];
        float4 sample_it(Texture2D<float4> tex, SamplerState smp, float2 uv) { return tex.SampleLevel(smp, uv, 0); }
        void probe(uint i) {
            Texture2D<float4> local_tex = texs[i];
            float4 c = sample_it(local_tex, ss, float2(0, 0)) + sample_it(texs[1], ss, float2(1, 1));
            uint2 dims; t2.GetDimensions(dims.x, dims.y);
        }
    """)
    helper = func(module, "sample_it")
    assert not helper.must_inline and helper.params[0].type is t.resource(RK.TEXTURE_2D, F4)
    fn = func(module, "probe")
    assert isinstance(init(fn, "local_tex"), ir.Index)
    calls = find(fn.body, ir.Call)
    assert [c.function for c in calls] == [helper, helper] and isinstance(calls[1].args[0], ir.Index)
    dims = find(fn.body, ir.MethodCall, method="GetDimensions")[0]
    assert dims.out_params == (0, 1) and all(isinstance(a, ir.Swizzle) for a in dims.args)


@pytest.mark.parametrize("expr", ["dot(f, f)", "length(f)", "distance(f, f)"])
def test_vector_intrinsics_accept_scalars(expr):
    assert probe(expr, MATH_PARAMS).type is F


@pytest.mark.parametrize("expr", [
    "t2.Load(int3(0, 0, 0), int2(1, 1))",
    "t2.SampleLevel(ss, uv, 0, int2(1, 0))",
    "t2.SampleGrad(ss, uv, uv, uv, int2(0, 1))",
    "t2.Gather(ss, uv, int2(1, 1))",
])
def test_texture_methods_with_offsets(expr):
    node = probe(expr, "float2 uv", prelude=RESOURCE_PRELUDE)
    assert isinstance(node, ir.MethodCall) and node.type is F4


# ---------------------------------------------------------------- bindings


BINDINGS = """
Texture2D<float4> ta : register(t3);
Texture2D<float4> tb : register(t1, space2);
[[vk::binding(7, 1)]] Texture2D<float4> tc : register(t5);
[[vk::binding(9)]] RWStructuredBuffer<uint> ud;
RWStructuredBuffer<uint> ua : register(u2);
SamplerState sa : register(s0);
Texture2D<float4> tauto;
cbuffer CB : register(b1) { float cbx; };
ConstantBuffer<P> cp : register(b4, space1);
struct PC { float4 c; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
float plain_global;
"""


def binding_of(module: ir.Module, name: str) -> tuple | None:
    b = glob(module, name).binding
    return None if b is None else (b.set, b.binding, b.source)


def test_bindings_register_vk_binding_auto_and_push_constant():
    module = analyze_text("struct P { float x; };" + BINDINGS)
    assert binding_of(module, "ta") == (0, 3, "register") and glob(module, "ta").binding.register == "t3"
    assert binding_of(module, "tb") == (2, 1, "register")
    assert binding_of(module, "tc") == (1, 7, "vk::binding")
    assert binding_of(module, "ud") == (0, 9, "vk::binding")
    assert binding_of(module, "ua") == (0, 2, "register")
    assert binding_of(module, "sa") == (0, 0, "register")
    assert binding_of(module, "CB") == (0, 1, "register")
    assert binding_of(module, "cp") == (1, 4, "register")
    assert binding_of(module, "pc") is None and glob(module, "pc").push_constant
    # automatic: the lowest free bindings of set 0, in declaration order
    assert binding_of(module, "tauto") == (0, 4, "auto")
    assert binding_of(module, "$Globals") == (0, 5, "auto")


def test_binding_shifts():
    module = analyze_text("struct P { float x; };" + BINDINGS,
                          binding_shifts=(BindingShift("t", 10, None), BindingShift("u", 100, 0)))
    assert binding_of(module, "ta") == (0, 13, "register")
    assert binding_of(module, "tb") == (2, 11, "register")
    assert binding_of(module, "tc") == (1, 7, "vk::binding")  # vk::binding ignores shifts
    assert binding_of(module, "ua") == (0, 102, "register")
    assert binding_of(module, "sa") == (0, 0, "register")


def test_binding_overlap_from_registers_is_a_warning():
    """dxc's SPIR-V path is silent; wgc warns (WG0360) and compiles (docs/reference.md "Diagnostic policy")."""
    src = "Texture2D<float4> a : register(t0); Texture2D<float4> b : register(t0);"
    assert error_codes(src) == []
    assert [(d.code, d.severity) for d in run_sema(src).diagnostics] == [("WG0360", Severity.WARNING)]


# ---------------------------------------------------------------- samples


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.hlsl")))
def test_samples_analyze_without_diagnostics(sample):
    options = driver.Options(input=str(SAMPLES / sample), include_dirs=(str(SAMPLES / "include"),), emit="ir",
                             proposals=sample_proposals(SAMPLES / sample))
    front = driver.run_front_end(options)
    assert front.analysis is not None, Renderer().render(list(front.diagnostics))
    assert not front.diagnostics, Renderer().render(list(front.diagnostics))
    module = front.analysis.module
    assert module.node_shaders and all(f.body is not None for f in module.functions)
    for function in module.functions:
        for node in walk(function.body):
            if isinstance(node, ir.Expr):
                assert isinstance(node.type, t.Type), (function.name, node)


def test_structs_may_hold_node_objects():
    # dxc allows node objects as struct fields (not in globals, records, buffers: see test_sema_errors
    # and test_workgraph_rules); SPIR-V compilation refuses such locals (WG0454, test_stage_policy)
    module = analyze_text("""
        struct Rec { uint a; };
        struct Targets { NodeOutput<Rec> near; uint count; };
        void pick(Targets t) { t.near.GetThreadNodeOutputRecords(1).OutputComplete(); }
    """)
    targets = next(s for s in module.structs if s.name == "Targets")
    assert isinstance(targets.fields[0].type, t.NodeObjectType) and func(module, "pick").must_inline


def test_derived_member_hides_the_base_member_of_the_same_name():
    # C++ name lookup: `d.x` and `x` inside Derived's methods are Derived::x; the layout keeps both
    # (all_fields order: Base::x = 0, Base::y = 1, Derived::x = 2)
    module = analyze_text("""
        struct Base { float x; uint y; };
        struct Derived : Base { float x; float sum() { return x + y; } };
        float probe(Derived d) { return d.x; }
    """)
    derived = next(s for s in module.structs if s.name == "Derived")
    assert [f.name for f in derived.all_fields()] == ["x", "y", "x"]
    [access] = find(func(module, "probe").body, ir.FieldAccess)
    assert access.index == 2
    indices = sorted(a.index for a in find(func(module, "Derived::sum").body, ir.FieldAccess))
    assert indices == [1, 2]


def test_unsized_array_parameters_take_arrays_of_any_size():
    module = analyze_text("""
        float total(float a[], uint n) { return a[0] + a[n - 1]; }
        float probe() { float three[3] = { 1, 2, 3 }; float five[5] = { 1, 2, 3, 4, 5 };
                        return total(three, 3) + total(five, 5); }
    """)
    total = func(module, "total")
    assert total.params[0].type is t.array(F, None) and total.must_inline
    assert [c.args[0].type for c in find(func(module, "probe").body, ir.Call)] == [t.array(F, 3), t.array(F, 5)]


def test_unsized_array_parameter_needs_an_array_of_its_element_type():
    prelude = "float total(float a[]) { return a[0]; }"
    assert error_codes(prelude + "void probe() { int ints[2] = { 1, 2 }; total(ints); }") == ["WG0304"]
    assert error_codes(prelude + "void probe() { total(1.0); }") == ["WG0304"]


def test_find_word_finds_what_the_word_boundary_expression_finds() -> None:
    """`_find_word` (declaration names in their declaration's text) against `re` on every slice."""
    import re

    from wgc.sema.declarations import _find_word

    text = "struct Rec2 { uint Rec; } Rec  Rec_1 xRec Rec; é_Rec Recé S::f(S::f) f ::f"
    for word in ("Rec", "Rec2", "Rec_1", "S::f", "f", "::f", "é_Rec", "x", "Re"):
        for start in range(len(text) + 1):
            for end in range(start, len(text) + 1, 3):
                match = re.search(rf"\b{re.escape(word)}\b", text[start:end])
                assert _find_word(text, word, start, end) == (start + match.start() if match else -1), (word, start, end)


def _attribute_test_units() -> list[ast.TranslationUnit | None]:
    """The units of the samples, the SPIR-V test programs and a text with attributes in every place."""
    from conftest import SAMPLE_INCLUDE, SAMPLES
    from wgc.driver import Options, run_front_end

    every_place = SourceFile("t.hlsl", """
        struct [NodeTrackRWInputSharing] R { uint a : SV_DispatchGrid; float b[2] : B; };
        cbuffer C : register(b0) { [[vk::offset(0)]] float4 c : packoffset(c0); };
        [[vk::push_constant]] struct { float p; } pc;
        typedef struct { float q; } Q;
        [Shader("node")] [NodeLaunch("thread")]
        void N([MaxRecords(1)] NodeOutput<R> o : O, uint i : SV_GroupIndex) : S {
            struct L { float l : LL; } x = (L)0;
            [unroll] for (uint k = 0; k < (uint)sizeof(Q); ++k) { [branch] if (k) { [loop] while (false) {} } }
            [flatten] switch (i) { default: break; }
            float4 v = float4(x.l, vector<float, 2>(1, 2), 0);
        }
    """)
    parsed = parse_source(every_place)
    assert parsed.diagnostics == ()
    units = [parsed.unit]
    paths = sorted(SAMPLES.glob("*.hlsl")) + sorted((Path(__file__).parent / "spirv_programs").glob("*.hlsl"))
    for path in paths:
        front = run_front_end(Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),), emit="ast"))
        units.append(front.unit)

    return units


def test_the_attribute_walk_skips_only_what_carries_no_attributes() -> None:
    """`check_written_attributes` does not walk into expressions and written types: over the
    samples, the SPIR-V test programs and a text with attributes in every place, the nodes that
    carry attributes or annotations are the same as a walk of the whole tree finds."""
    from wgc.sema.attributes import _WITHOUT_ATTRIBUTES, _nodes

    units = _attribute_test_units()

    def carriers(nodes):  # type: ignore[no-untyped-def]
        return [id(n) for n in nodes if getattr(n, "attributes", None) or getattr(n, "annotations", None)]

    total = 0
    for unit in units:
        assert unit is not None
        whole = carriers(_nodes(unit))
        assert carriers(_nodes(unit, _WITHOUT_ATTRIBUTES)) == whole
        total += len(whole)
    assert total > 250


def test_the_carrier_walk_finds_what_the_whole_walk_finds() -> None:
    """`_carriers` (the walk `check_written_attributes` makes, through the fields that may lead to a
    node carrying attributes or annotations) finds, over the same units, the nodes that carry some
    that a walk of the whole tree finds, in the same order."""
    from wgc.sema.attributes import _carriers, _nodes

    def carriers(nodes):  # type: ignore[no-untyped-def]
        return [id(n) for n in nodes if getattr(n, "attributes", None) or getattr(n, "annotations", None)]

    total = 0
    for unit in _attribute_test_units():
        assert unit is not None
        whole = carriers(_nodes(unit))
        assert carriers(_carriers(unit)) == whole
        total += len(whole)
    assert total > 250


def test_the_attribute_checks_skip_only_declarations_with_nothing_to_report() -> None:
    """`_check_attributes` returns at once when each attribute is known and none is written twice, and
    `_check_annotations` for a single annotation: over every attribute and annotation list of the same
    units, each also doubled (written twice, identically), with its first name upper-cased and then
    doubled, with an unknown attribute added, with one of its attributes again with other arguments, and
    with each of its annotations twice, they report what
    the checks they stand for (`_attribute_reports`, `_annotation_reports`) report, and the skip is taken."""
    import dataclasses

    from wgc.sema import attributes
    from wgc.sema.attributes import _carriers

    def reports(check, items) -> list[tuple]:  # type: ignore[no-untyped-def]
        found: list = []
        check(tuple(items), found)
        return [(d.code, d.span.start, d.message, [(label.span.start, label.message) for label in d.labels])
                for d in found]

    skipped = reported = 0
    for unit in _attribute_test_units():
        for node in _carriers(unit):
            lists = []
            if getattr(node, "attributes", None):
                attrs = list(node.attributes)
                upper = [dataclasses.replace(attrs[0], name=attrs[0].name.upper()), *attrs[1:]]
                unknown = dataclasses.replace(attrs[0], name="NotAnAttribute")
                changed = [dataclasses.replace(a, args=()) for a in attrs if a.args][:1]   # other arguments
                lists += [(attributes._check_attributes, attributes._attribute_reports, variant)
                          for variant in (attrs, attrs + attrs, upper, upper + attrs, attrs + [unknown],
                                          attrs + changed)]
            if getattr(node, "annotations", None):
                notes = list(node.annotations)
                lists += [(attributes._check_annotations, attributes._annotation_reports, variant)
                          for variant in (notes, notes + notes, notes[:1] * 2)]
            for check, general, items in lists:
                expected = reports(general, items)
                assert reports(check, items) == expected, items
                reported += bool(expected)
                skipped += not expected
    assert skipped > 100 and reported > 100


def test_groupshared_bytes_skipped_without_groupshared_globals_equal_the_full_count() -> None:
    """`NodeChecker` counts no groupshared memory when the module declares no groupshared global (only
    globals can be groupshared): for every node of the samples, the HLSL files of the tests and sources
    with groupshared variables used directly, through a helper, not at all, and none declared,
    `groupshared_bytes` equals `_groupshared_bytes` of what the node reaches (the full count)."""
    from conftest import SAMPLE_INCLUDE, hlsl_corpus
    from wgc import driver
    from wgc.driver import Options, run_front_end
    from wgc.sema.nodes import _groupshared_bytes
    from wgc.irtools.walk import reachable_functions

    node = """[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(8, 1, 1)]
void {name}(uint gi : SV_GroupIndex) {{ {body} }}
"""
    sources = [
        "groupshared float a[16]; groupshared uint b;\nvoid Helper() { b = 1; }\n"
        + node.format(name="Direct", body="a[0] = 1;") + node.format(name="Through", body="Helper();")
        + node.format(name="Neither", body="uint x = gi;"),
        node.format(name="Plain", body="uint x = gi;"),
    ]
    inputs = [SourceFile(f"t{i}.hlsl", text) for i, text in enumerate(sources)]
    paths = hlsl_corpus()
    counted = []
    for item in [*inputs, *paths]:
        if isinstance(item, SourceFile):
            analysis = analyze(parse_source(item).unit)
        else:
            analysis = run_front_end(Options(input=str(item), include_dirs=(str(SAMPLE_INCLUDE),),
                                             proposals=driver.PROPOSALS)).analysis
        for info in (analysis.nodes if analysis is not None else ()):
            full = _groupshared_bytes(reachable_functions(info.function))
            assert info.groupshared_bytes == full, (item, info.function.name)
            counted.append((info.function.name, full))
    assert ("Direct", 64) in counted and ("Through", 4) in counted and ("Neither", 0) in counted
    assert ("Plain", 0) in counted and len(counted) > 30
