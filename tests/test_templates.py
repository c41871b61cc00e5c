"""Templates (HLSL 2021): user struct and function templates, explicit specialisation, array
template arguments, `::name`; checked on the AST, the IR and the SPIR-V they produce.

The SPIR-V checks are golden-free: a templated program must compile to the same instructions
as the hand-written program it stands for, once the names (`Box<float>` vs `BoxFloat`) are
normalised away. Diagnostics are compared as full rendered text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spirv_util import compile_hlsl
from wgc import driver, ir
from wgc import types as t
from wgc.diagnostics import Renderer
from wgc.sema.analyze import analyze
from wgc.sema.context import SemaOptions
from wgc.irtools.layout import LayoutRule, layout_of
from wgc.source import SourceFile
from wgc.syntax import ast
from wgc.syntax.parse import parse_source
from wgc.syntax.printer import print_hlsl

F, I, U = t.FLOAT, t.INT, t.UINT


def sema(src: str) -> ir.Module:
    parsed = parse_source(SourceFile("<test>", src))
    assert not parsed.diagnostics, Renderer().render(list(parsed.diagnostics))
    analysis = analyze(parsed.unit, SemaOptions(profile="lib_6_8"))
    assert not analysis.diagnostics, Renderer().render(list(analysis.diagnostics))
    return analysis.module


def rendered(src: str) -> str:
    result = driver.compile(driver.Options(input="-", emit="ir", profile="lib_6_8"), stdin=src.encode())
    return Renderer().render(result.diagnostics)


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


def struct(module: ir.Module, name: str) -> t.StructType:
    found = [s for s in module.structs if s.name == name]
    assert len(found) == 1, (name, [s.name for s in module.structs])
    return found[0]


def func(module: ir.Module, name: str) -> ir.Function:
    found = [f for f in module.functions if f.name == name]
    assert len(found) == 1, (name, [f.name for f in module.functions])
    return found[0]


def walk(node: object):
    yield node
    if isinstance(node, (list, tuple)):
        for item in node:
            yield from walk(item)
    elif hasattr(node, "__dataclass_fields__") and not isinstance(node, (t.Type, ir.Function, ir.Variable)):
        for name in node.__dataclass_fields__:
            yield from walk(getattr(node, name))


def calls(function: ir.Function) -> list[str]:
    return [n.function.name for n in walk(function.body) if isinstance(n, ir.Call)]


def returned(function: ir.Function) -> ir.Expr:
    found = [n for n in walk(function.body) if isinstance(n, ir.Return)]
    assert len(found) == 1 and found[0].value is not None
    return found[0].value


# ---------------------------------------------------------------- parsing


def test_parse_specialisations_global_names_and_array_arguments():
    unit = parse_source(SourceFile("<t>", """
        template<typename T> struct S { T v; };
        template<> struct S<int> { int w; };
        template<typename T> T F() { return (T)0; }
        template<> float3x3 F<float3x3>() { return (float3x3)1; }
        StructuredBuffer<float[4]> buf;
        float g() { return ::F<float>() + ::h::k; }
    """)).unit
    primary, special, template, special_f, buf, g = unit.decls
    assert isinstance(special, ast.StructDecl) and special.template_params == () and special.name == "S"
    assert [a.name for a in special.specialization_args] == [("int",)]
    assert primary.specialization_args is None and [p.name for p in primary.template_params] == ["T"]
    assert isinstance(special_f, ast.FunctionDecl) and special_f.template_params == ()
    assert special_f.name == ("F",) and [a.name for a in special_f.specialization_args] == [("float3x3",)]
    assert template.specialization_args is None
    element = buf.type.template_args[0]
    assert element.name == ("float",) and [d.value for d in element.array_dims] == [4]
    call = g.body.stmts[0].value.left
    assert call.callee.name == ("", "F")
    assert g.body.stmts[0].value.right.name == ("", "h", "k")


def test_printed_templates_parse_back_to_the_same_ast_text():
    src = """
        template<typename T, uint N = 2> struct Arr { T v[N]; };
        template<> struct Arr<int, 3> { int w; };
        template<typename T> T F() { return (T)0; }
        template<> float3x3 F<float3x3>() { return (float3x3)1; }
        RWStructuredBuffer<float[4]> buf;
        float g() { return ::F<float>(); }
    """
    once = print_hlsl(parse_source(SourceFile("<t>", src)).unit)
    twice = print_hlsl(parse_source(SourceFile("<t>", once)).unit)
    assert once == twice
    for written in ("struct Arr<int, 3>", "float3x3 F<float3x3>()", "RWStructuredBuffer<float[4]> buf", "::F<float>()"):
        assert written in once


# ---------------------------------------------------------------- struct templates


def test_each_argument_list_instantiates_once_with_a_readable_name():
    module = sema("""
        template<typename T> struct Box { T v; T get() { return v; } };
        Box<float> a;
        static Box<float> b;
        void probe() { Box<float> c; Box<int> d; float x = c.get() + a.v + b.v; int y = d.get(); }
    """)
    boxes = [s for s in module.structs if s.name.startswith("Box")]
    assert [s.name for s in boxes] == ["Box<float>", "Box<int>"]
    box_float, box_int = boxes
    assert [(f.name, f.type) for f in box_float.fields] == [("v", F)]
    assert [(f.name, f.type) for f in box_int.fields] == [("v", I)]
    probe = func(module, "probe")
    locals_ = {d.variable.name: d.variable.type for d in walk(probe.body) if isinstance(d, ir.VarDecl)}
    assert locals_["c"] is box_float and locals_["d"] is box_int
    assert calls(probe) == ["Box<float>::get", "Box<int>::get"]
    assert func(module, "Box<int>::get").return_type is I


def test_value_parameters_defaults_and_the_injected_name():
    module = sema("""
        template<typename T, uint N = 2, typename U = T> struct Arr {
            T v[N]; U extra;
            uint count() { return N; }
            Arr same() { return this; }
        };
        void probe() { Arr<int> a; Arr<int, 2> b; Arr<float, 3, uint> c; uint n = a.count(); }
    """)
    arr = struct(module, "Arr<int, 2, int>")
    assert [f.type for f in arr.fields] == [t.array(I, 2), I]
    assert [f.type for f in struct(module, "Arr<float, 3, uint>").fields] == [t.array(F, 3), U]
    count = returned(func(module, "Arr<int, 2, int>::count"))
    assert isinstance(count, ir.Constant) and count.type is U and count.value == 2
    assert func(module, "Arr<int, 2, int>::same").return_type is arr


def test_bases_and_members_that_are_template_instances():
    module = sema("""
        template<typename T> struct Base { T a; T twice() { return a + a; } };
        template<typename T> struct Derived : Base<T> { T b; };
        template<typename T> struct Pair { Base<T> first; Derived<T> second; };
        void probe() { Pair<float> p; float x = p.second.twice() + p.first.a; }
    """)
    derived = struct(module, "Derived<float>")
    assert derived.base is struct(module, "Base<float>")
    assert [f.name for f in derived.all_fields()] == ["a", "b"]
    assert [f.type for f in struct(module, "Pair<float>").fields] == [struct(module, "Base<float>"), derived]
    assert calls(func(module, "probe")) == ["Base<float>::twice"]


def test_explicit_specialisation_of_a_struct_template_replaces_the_primary():
    module = sema("""
        template<typename T> struct Traits { T zero; };
        template<> struct Traits<int> { int one; uint two; };
        void probe() { Traits<int> i; Traits<float> f; }
    """)
    assert [f.name for f in struct(module, "Traits<int>").fields] == ["one", "two"]
    assert [f.name for f in struct(module, "Traits<float>").fields] == ["zero"]


def test_templated_record_layout_equals_the_hand_written_record():
    module = sema("""
        template<typename T, uint N> struct Rec { T value[N]; uint3 grid : SV_DispatchGrid; half h; };
        struct Hand { float2 value[3]; uint3 grid : SV_DispatchGrid; half h; };
        void probe(DispatchNodeInputRecord<Rec<float2, 3> > r, DispatchNodeInputRecord<Hand> h) {}
    """)
    templated, hand = struct(module, "Rec<float2, 3>"), struct(module, "Hand")
    for rule in LayoutRule:
        assert layout_of(templated, rule) == layout_of(hand, rule)


def _normalised(asm: str) -> list[str]:
    """Disassembly without names: OpName/OpMemberName/OpString dropped, %ids numbered by first use."""
    ids: dict[str, str] = {}
    result = []
    for line in asm.splitlines():
        if re.search(r"\bOp(Name|MemberName|String|Source|SourceExtension)\b", line):
            continue
        line = re.sub(r"%[\w.<>:,-]+", lambda m: ids.setdefault(m.group(0), f"%{len(ids)}"), line)
        result.append(" ".join(line.split()))
    return result


NODE_PROGRAM = """
{decls}
RWStructuredBuffer<float> output;
[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(16, 1, 1)]
[NumThreads(8, 1, 1)]
void Producer(DispatchNodeInputRecord<{input}> input, [MaxRecords(1)] NodeOutput<{child}> next,
              uint tid : SV_GroupIndex)
{{
    {body}
}}
[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(16, 1, 1)]
[NumThreads(8, 1, 1)]
void Consumer(DispatchNodeInputRecord<{child}> input)
{{
    output[0] = input.Get().value[1].x;
}}
"""


def test_templated_program_compiles_to_the_instructions_of_the_hand_written_one(tmp_path: Path):
    templated = NODE_PROGRAM.format(
        decls="""
            template<typename T, uint N> struct Rec { T value[N]; uint3 grid : SV_DispatchGrid; };
            template<typename T> T Scale(T x, float s) { return x * s; }
            template<typename R> void Send(NodeOutput<R> out, R payload)
            {
                GroupNodeOutputRecords<R> rec = out.GetGroupNodeOutputRecords(1);
                rec.Get() = payload;
                rec.OutputComplete();
            }""",
        input="Rec<float2, 3>", child="Rec<float2, 3>",
        body="Rec<float2, 3> r = input.Get(); r.value[0] = Scale(r.value[0], 2.0f); Send(next, r);")
    hand = NODE_PROGRAM.format(
        decls="""
            struct Rec2 { float2 value[3]; uint3 grid : SV_DispatchGrid; };
            float2 ScaleF2(float2 x, float s) { return x * s; }
            void SendRec2(NodeOutput<Rec2> out, Rec2 payload)
            {
                GroupNodeOutputRecords<Rec2> rec = out.GetGroupNodeOutputRecords(1);
                rec.Get() = payload;
                rec.OutputComplete();
            }""",
        input="Rec2", child="Rec2",
        body="Rec2 r = input.Get(); r.value[0] = ScaleF2(r.value[0], 2.0f); SendRec2(next, r);")
    a = compile_hlsl(templated, tmp_path, name="templated.hlsl", profile="lib_6_8")
    b = compile_hlsl(hand, tmp_path, name="hand.hlsl", profile="lib_6_8")
    assert _normalised(a.asm) == _normalised(b.asm)
    assert 'OpName %Rec_float2__3_ "Rec<float2, 3>"' in a.asm


# ---------------------------------------------------------------- function templates


def test_deduction_from_call_arguments_and_explicit_arguments():
    module = sema("""
        template<typename T> T twice(T x) { return x + x; }
        template<typename T, uint N> T total(vector<T, N> v) { T s = 0; for (uint i = 0; i < N; i++) s += v[i]; return s; }
        template<typename T, uint R, uint C> uint cells(matrix<T, R, C> m) { return R * C; }
        template<typename T, int N> int length(T a[N]) { return N; }
        template<typename T> struct Box { T v; };
        template<typename T> T unbox(Box<T> b) { return b.v; }
        void probe() {
            float4 v4 = 1;
            float3x2 m = 0;
            int a5[5] = { 1, 2, 3, 4, 5 };
            Box<uint> b;
            float f = twice(2.0f) + twice<float>(1) + total(v4) + cells(m) + length(a5) + unbox(b);
        }
    """)
    assert calls(func(module, "probe")) == ["twice<float>", "twice<float>", "total<float, 4>", "cells<float, 3, 2>",
                                             "length<int, 5>", "unbox<uint>"]
    assert [p.type for p in func(module, "length<int, 5>").params] == [t.array(I, 5)]
    assert func(module, "unbox<uint>").return_type is U
    product = returned(func(module, "cells<float, 3, 2>"))
    assert isinstance(product, ir.Binary)


def test_deduction_through_node_objects_and_resources():
    module = sema("""
        template<typename T> struct Record { T id; };
        template<typename T> uint first(GroupNodeInputRecords<Record<T> > data) { return (uint)data[0].id; }
        template<typename T> T load(RWStructuredBuffer<T> buffer) { return buffer[0]; }
        RWStructuredBuffer<int2> ints;
        [Shader("node")]
        [NodeLaunch("coalescing")]
        [NumThreads(4, 5, 6)]
        void node(GroupNodeInputRecords<Record<float> > inputData) { ints[1] = load(ints) + first(inputData); }
    """)
    assert calls(func(module, "node")) == ["load<int2>", "first<float>"]
    assert func(module, "first<float>").params[0].type is t.node_object(
        t.NodeObjectKind.GROUP_NODE_INPUT_RECORDS, struct(module, "Record<float>"))


def test_explicit_specialisation_of_a_function_template():
    module = sema("""
        template<typename T> T Identity() { return (T)0; }
        template<> float3x3 Identity<float3x3>() { return float3x3(1, 0, 0, 0, 1, 0, 0, 0, 1); }
        template<typename T> T pick(T a, T b) { return a; }
        template<> int pick(int a, int b) { return b; }
        void probe() { float3x3 m = Identity<float3x3>(); float z = Identity<float>(); int p = pick(1, 2); }
    """)
    assert calls(func(module, "probe")) == ["Identity<float3x3>", "Identity<float>", "pick<int>"]
    assert isinstance(returned(func(module, "Identity<float3x3>")), ir.Construct)
    chosen = returned(func(module, "pick<int>"))
    assert isinstance(chosen, ir.VarRef) and chosen.variable.name == "b"


def test_global_namespace_qualified_names():
    module = sema("""
        struct S { float x; };
        float f() { return 0; }
        namespace a {
            struct S { int y; };
            float f() { return 1; }
            float g() { ::S s; s.x = ::f(); return s.x + f(); }
        }
    """)
    g = func(module, "a::g")
    assert calls(g) == ["f", "a::f"]
    local = next(d for d in walk(g.body) if isinstance(d, ir.VarDecl))
    assert local.variable.type is next(s for s in module.structs if s.name == "S" and s.fields[0].name == "x")


def test_anonymous_struct_members_are_fields_of_the_enclosing_record():
    module = sema("""
        struct Record { uint a; struct { uint3 grid : SV_DispatchGrid; float f; }; };
        RWStructuredBuffer<float> output;
        [Shader("node")]
        [NodeLaunch("broadcasting")]
        [NodeMaxDispatchGrid(4, 1, 1)]
        [NumThreads(1, 1, 1)]
        void main(DispatchNodeInputRecord<Record> r) { output[0] = r.Get().f + r.Get().grid.x; }
    """)
    record = struct(module, "Record")
    assert [f.name for f in record.fields] == ["a", ""]
    assert layout_of(record, LayoutRule.SCALAR).size == 4 + 12 + 4
    accesses = [n for n in walk(func(module, "main").body) if isinstance(n, ir.FieldAccess) and n.name == "f"]
    assert len(accesses) == 1 and isinstance(accesses[0].base, ir.FieldAccess) and accesses[0].base.index == 1


def test_templated_structured_buffer_of_arrays_compiles(tmp_path: Path):
    compiled = compile_hlsl("""
        RWStructuredBuffer<float[4]> rows;
        template<typename T, uint N> T last(T a[N]) { return a[N - 1]; }
        [Shader("node")]
        [NodeLaunch("thread")]
        void main() { float row[4] = rows[0]; rows[1][2] = last(row); }
    """, tmp_path, profile="lib_6_8")
    assert "OpTypeArray" in compiled.asm


# ---------------------------------------------------------------- diagnostics


@pytest.mark.parametrize("src,expected", [
    pytest.param(
        lines("template<typename T> void bar2() { GroupNodeInputRecords<T> data; }",
              "void test() { bar2<float>(); }"),
        lines("<stdin>:1:58: error: 'float' is not valid as a node record type: a struct is required [WG0412]",
              "template<typename T> void bar2() { GroupNodeInputRecords<T> data; }",
              "                                                         ^",
              "<stdin>:2:15: note: in instantiation of function template specialisation 'bar2<float>' requested here",
              "void test() { bar2<float>(); }",
              "              ^~~~~~~~~~~~~",
              "1 error generated."),
        id="record-of-a-template-instance"),
    pytest.param(
        lines("template<typename T> struct Empty { };",
              "void f() { RWDispatchNodeInputRecord<Empty<int> > r; }"),
        lines("<stdin>:2:38: error: record 'Empty<int>' of 'RWDispatchNodeInputRecord' has zero size; use an Empty* "
              "node object instead [WG0412]",
              "void f() { RWDispatchNodeInputRecord<Empty<int> > r; }",
              "                                     ^~~~~~~~~~",
              "<stdin>:1:29: note: zero sized record defined here",
              "template<typename T> struct Empty { };",
              "                            ^~~~~",
              "1 error generated."),
        id="zero-sized-templated-record"),
    pytest.param(
        lines("template<typename T> struct Later;",
              "void f() { Later<int> x; x.v = 1; }",
              "template<typename T> struct Later { T v; };"),
        lines("<stdin>:2:12: error: implicit instantiation of undefined template 'Later<int>' [WG0328]",
              "void f() { Later<int> x; x.v = 1; }",
              "           ^~~~~~~~~~",
              "<stdin>:1:29: note: template is declared here",
              "template<typename T> struct Later;",
              "                            ^~~~~",
              "1 error generated."),
        id="undefined-template-does-not-cascade"),
    pytest.param(
        lines("template<typename T> struct Box { T v; };",
              "void f() { Box b; }"),
        lines("<stdin>:2:12: error: use of struct template 'Box' requires template arguments [WG0328]",
              "void f() { Box b; }",
              "           ^~~",
              "1 error generated."),
        id="struct-template-without-arguments"),
    pytest.param(
        lines("template<typename T, uint N> struct Arr { T v[N]; };",
              "void f() { Arr<float> a; Arr<2, float> b; }"),
        lines("<stdin>:2:12: error: too few template arguments for 'Arr' (1 given, 2 needed) [WG0328]",
              "void f() { Arr<float> a; Arr<2, float> b; }",
              "           ^~~~~~~~~~",
              "<stdin>:2:30: error: template argument for 'T' of 'Arr' must be a type [WG0328]",
              "void f() { Arr<float> a; Arr<2, float> b; }",
              "                             ^",
              "2 errors generated."),
        id="argument-count-and-kind"),
    pytest.param(
        lines("template<typename T> T zero() { return (T)0; }",
              "float f() { return zero<float>(); }",
              "template<> float zero<float>() { return 1; }"),
        lines("<stdin>:3:18: error: explicit specialisation of 'zero<float>' after its first use [WG0328]",
              "template<> float zero<float>() { return 1; }",
              "                 ^~~~",
              "1 error generated."),
        id="specialisation-after-use"),
    pytest.param(
        lines("template<typename T> T twice(T x) { return x + undefinedName; }",
              "float f() { return twice(1.0f) + twice(2.0f); }"),
        lines("<stdin>:1:48: error: use of undeclared identifier 'undefinedName' [WG0301]",
              "template<typename T> T twice(T x) { return x + undefinedName; }",
              "                                               ^~~~~~~~~~~~~",
              "<stdin>:2:20: note: in instantiation of function template specialisation 'twice<float>' requested here",
              "float f() { return twice(1.0f) + twice(2.0f); }",
              "                   ^~~~~~~~~~~",
              "1 error generated."),
        id="an-instance-is-checked-once"),
    pytest.param(
        lines("template<typename T> void f(uint pos) { globallycoherent T local = 2; }",
              "void g() { f<float>(0); }"),
        lines("<stdin>:1:60: error: 'globallycoherent' is not a valid modifier for a declaration of type 'float' [WG0333]",
              "template<typename T> void f(uint pos) { globallycoherent T local = 2; }",
              "                                                           ^~~~~",
              "<stdin>:2:12: note: in instantiation of function template specialisation 'f<float>' requested here",
              "void g() { f<float>(0); }",
              "           ^~~~~~~~~~~",
              "note: 'globallycoherent' can only be applied to UAV or RWDispatchNodeInputRecord objects",
              "1 error generated."),
        id="globallycoherent-on-a-dependent-type"),
])
def test_template_diagnostics(src: str, expected: str):
    assert rendered(src) == expected


def test_dependent_types_are_only_checked_when_instantiated():
    """Template bodies that would not check for any argument are fine while nothing instantiates them."""
    module = sema("""
        template<typename T> struct Holder { T value; void broken() { value.anything(); } };
        template<typename T> void unused(T x) { x.method(); undefined(x); }
        void probe() {}
    """)
    assert [s.name for s in module.structs] == [] and [f.name for f in module.functions] == ["probe"]


def test_member_templates_and_derived_templates_see_their_parameters():
    module = sema("""
        template<class T> struct Box { T v; template<typename U> U as() { return (U)v; } };
        struct Rec { uint3 grid : SV_DispatchGrid; float v; };
        template<typename T> struct Derived : Rec { T w; T both() { return w + (T)v; } };
        namespace ns { static const uint K = 3; struct Base { float b; }; struct Inner : Base { float c[K]; }; }
        template<typename T> void emit(NodeOutput<Derived<T> > o)
        {
            ThreadNodeOutputRecords<Derived<T> > r = o.GetThreadNodeOutputRecords(1);
            r.Get().w = 1;
            r.OutputComplete();
        }
        [Shader("node")]
        [NodeLaunch("thread")]
        void main([MaxRecords(1)] NodeOutput<Derived<int> > next)
        {
            Box<float> b; int i = b.as<int>(); Derived<int> d; int s = d.both(); ns::Inner inner;
            emit(next);
        }
        [Shader("node")]
        [NodeLaunch("broadcasting")]
        [NodeMaxDispatchGrid(4, 1, 1)]
        [NumThreads(1, 1, 1)]
        void next(DispatchNodeInputRecord<Derived<int> > r) {}
    """)
    derived = struct(module, "Derived<int>")
    assert derived.base is struct(module, "Rec") and [f.type for f in derived.fields] == [I]
    assert [f.type for f in struct(module, "Inner").fields] == [t.array(F, 3)]
    assert calls(func(module, "main")) == ["Box<float>::as<int>", "Derived<int>::both", "emit<int>"]
    assert func(module, "Box<float>::as<int>").return_type is I


def test_string_literals_are_not_template_arguments():
    """As in DXC (C++ allows no string literal as a template argument): one precise error each."""
    assert rendered(lines('template<typename T> void f() {}',
                          'template<uint N> struct S { uint a[N]; };',
                          'void h() { f<"abc">(); S<"x"> s; }')) == lines(
        "<stdin>:3:14: error: template argument for 'T' of 'f' must be a type [WG0328]",
        'void h() { f<"abc">(); S<"x"> s; }',
        "             ^~~~~",
        "<stdin>:3:26: error: cannot convert from 'string' to 'uint' in template argument for 'N' of 'S' [WG0303]",
        'void h() { f<"abc">(); S<"x"> s; }',
        "                         ^~~",
        "2 errors generated.")


def test_a_variable_whose_type_has_errors_is_reported_once():
    """Its uses are not 'undeclared identifier' errors too (global and local alike)."""
    assert rendered(lines("RWStructuredBuffer<Missing> g;",
                          "template<typename T> struct Box { T v; };",
                          "float f() { Box<Missing> b; return b.v + g[0].x; }")) == lines(
        "<stdin>:1:20: error: unknown type name 'Missing' [WG0314]",
        "RWStructuredBuffer<Missing> g;",
        "                   ^~~~~~~",
        "<stdin>:3:17: error: unknown type name 'Missing' [WG0314]",
        "float f() { Box<Missing> b; return b.v + g[0].x; }",
        "                ^~~~~~~",
        "2 errors generated.")


def test_a_function_template_declared_before_its_definition():
    """Calls before the definition instantiate the prototype; the definition gives them their bodies."""
    module = sema("""
        template<typename T> T scaled(T value);
        float early() { return scaled(1.0f); }
        template<typename T> T scaled(T x) { return x * 2; }
        int late() { return scaled(3); }
    """)
    assert calls(func(module, "early")) == ["scaled<float>"] and calls(func(module, "late")) == ["scaled<int>"]
    body = returned(func(module, "scaled<float>"))
    assert isinstance(body, ir.Binary) and body.left.variable is func(module, "scaled<float>").params[0]
    assert func(module, "scaled<float>").params[0].name == "x"


# ---------------------------------------------------------------- partial specialisation, out-of-line
# members, qualified names through instances, template template parameters

TRAITS = """
template<typename T, typename U> struct is_same { static const bool value = false; };
template<typename T> struct is_same<T, T> { static const bool value = true; };
template<bool B, typename T> struct enable_if { };
template<typename T> struct enable_if<true, T> { typedef T type; };
template<typename T, typename U> struct Pick { static const uint which = 0; };
template<typename T> struct Pick<T, uint> { static const uint which = 1; };
template<typename T> struct Pick<vector<T, 2>, uint> { static const uint which = 2; };
template<typename T, uint N> struct Arr { T data[N]; static const uint size = N; };
template<typename T> struct Arr<T, 1> { T data; static const uint size = 100; };
"""


def constant_of(module: ir.Module, name: str) -> object:
    found = [v for v in module.globals if v.name == name]
    assert len(found) == 1 and found[0].constant is not None, name
    return found[0].constant


def test_partial_specialisations_are_chosen_as_in_cpp():
    """C++ [temp.class.spec.match]: the matching partial specialisations, the most specialised one
    winning (Pick<float2, uint> matches both Pick<T, uint> and Pick<vector<T, 2>, uint>; the second
    is more specialised); none matching: the primary template."""
    module = sema(TRAITS + """
        static const uint Same = is_same<uint, int>::value + 10 * is_same<float3, float3>::value;
        static const uint Picked = Pick<int, int>::which + 10 * Pick<int, uint>::which
                                   + 100 * Pick<float2, uint>::which;
        static const uint Sizes = Arr<int, 3>::size + Arr<float, 1>::size;
        void probe() { enable_if<is_same<uint, uint>::value, float3>::type v = 1; Arr<int, 1> one; one.data = 2; }
    """)
    assert constant_of(module, "Same") == 10
    assert constant_of(module, "Picked") == 210
    assert constant_of(module, "Sizes") == 103
    local = next(n for n in walk(func(module, "probe").body) if isinstance(n, ir.VarDecl))
    assert local.variable.type is t.vector(F, 3)
    assert [f.type for f in struct(module, "Arr<int, 1>").fields] == [I]


def test_out_of_line_members_of_struct_templates():
    """Defined after the template (before or after the first instance), with the template's own
    parameter names or others; static members through `Box<T>::make`."""
    module = sema("""
        template<typename T> struct Box { T v; T get(); T scaled(T by); static Box make(T v); };
        float early() { Box<float> b; b.v = 2; return b.get(); }
        template<typename T> T Box<T>::get() { return v; }
        template<typename U> U Box<U>::scaled(U by) { return v * by; }
        template<typename T> Box<T> Box<T>::make(T v) { Box<T> b; b.v = v; return b; }
        int late() { Box<int> b = Box<int>::make(3); return b.scaled(b.get()); }
    """)
    get = func(module, "Box<float>::get")
    assert get.body is not None and get.method_of is struct(module, "Box<float>")
    assert calls(func(module, "late")) == ["Box<int>::make", "Box<int>::scaled", "Box<int>::get"]  # pre-order
    scaled = func(module, "Box<int>::scaled")
    assert scaled.return_type is I and [p.type for p in scaled.params[1:]] == [I]
    assert func(module, "Box<int>::make").return_type is struct(module, "Box<int>")


def test_template_template_parameters():
    module = sema("""
        template<typename T> struct Box { T v; };
        template<typename T> struct Pair { T a; T b; };
        template<template<typename> class H, typename T = float> struct Wrap { H<T> held; };
        template<template<typename U> class H> struct Both { H<uint> whole; H<float> part; };
        template<template<typename> class H, typename T> T first(H<T> h) { return h.v; }
        uint probe() { Wrap<Box, uint> w; Wrap<Pair> p; Both<Pair> both; Box<uint> b; return first(b); }
    """)
    assert [f.type for f in struct(module, "Wrap<Box, uint>").fields] == [struct(module, "Box<uint>")]
    assert [f.type for f in struct(module, "Wrap<Pair, float>").fields] == [struct(module, "Pair<float>")]
    assert [f.type for f in struct(module, "Both<Pair>").fields] == [struct(module, "Pair<uint>"),
                                                                      struct(module, "Pair<float>")]
    assert calls(func(module, "probe")) == ["first<Box, uint>"]


def test_the_new_template_forms_print_parse_back_and_compile(tmp_path: Path):
    src = TRAITS + """
        template<typename T> struct Box { T v; T get(); };
        template<typename T> T Box<T>::get() { return v; }
        template<template<typename> class H> struct Wrap { H<uint> held; };
        RWStructuredBuffer<uint> Out : register(u0);
        [Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
        void Main() {
            Wrap<Box> w; w.held.v = Pick<float2, uint>::which;
            Out[0] = w.held.get() + is_same<uint, uint>::value + Arr<int, 1>::size;
        }
    """
    once = print_hlsl(parse_source(SourceFile("<t>", src)).unit)
    assert print_hlsl(parse_source(SourceFile("<t>", once)).unit) == once
    for written in ("struct is_same<T, T>", "T Box<T>::get()", "template <template <typename> class H>",
                    "Pick<float2, uint>::which"):
        assert written in once
    compiled = compile_hlsl(src, tmp_path)
    # the out-of-line member is a SPIR-V function of the instance; the chosen specialisations'
    # constants reach the code: Pick<float2, uint>::which = 2 stored, Arr<int, 1>::size = 100 added
    assert re.search(r'OpName %\w+ "Box<uint>::get"', compiled.asm)
    assert len(compiled.lines("OpFunctionCall")) == 1
    assert re.search(r"OpStore %\w+ %uint_2$", compiled.asm, flags=re.M)
    assert re.search(r"OpIAdd %uint %\w+ %uint_100$", compiled.asm, flags=re.M)


@pytest.mark.parametrize("src,expected", [
    pytest.param(
        lines("template<typename T, typename U> struct P { };",
              "template<typename T> struct P<T, int> { };",
              "template<typename T> struct P<int, T> { };",
              "void f() { P<int, int> p; }"),
        lines("<stdin>:4:12: error: ambiguous partial specialisations of 'P' for 'P<int, int>' [WG0328]",
              "void f() { P<int, int> p; }",
              "           ^~~~~~~~~~~",
              "<stdin>:2:29: note: partial specialisation matches",
              "template<typename T> struct P<T, int> { };",
              "                            ^",
              "<stdin>:3:29: note: partial specialisation matches",
              "template<typename T> struct P<int, T> { };",
              "                            ^",
              "1 error generated."),
        id="ambiguous-partial-specialisations"),
    pytest.param(
        lines("template<typename T, typename U> struct P { };",
              "template<typename T, typename U> struct P<T, U> { };",
              "template<typename T> struct P<int, float> { };"),
        lines("<stdin>:2:41: error: partial specialisation of 'P' does not specialise any template argument [WG0328]",
              "template<typename T, typename U> struct P<T, U> { };",
              "                                        ^",
              "<stdin>:3:29: error: partial specialisation of 'P' does not use any of its template parameters (for "
              "these arguments write 'template<>') [WG0328]",
              "template<typename T> struct P<int, float> { };",
              "                            ^",
              "2 errors generated."),
        id="partial-specialisations-that-specialise-nothing-or-use-no-parameter"),
    pytest.param(
        lines("template<typename T, typename U> struct P { };",
              "void f() { P<float, int> p; }",
              "template<typename T> struct P<T, int> { T a; };"),
        lines("<stdin>:3:29: error: partial specialisation of 'P' after the instantiation it would have been used "
              "for [WG0328]",
              "template<typename T> struct P<T, int> { T a; };",
              "                            ^",
              "1 error generated."),
        id="partial-specialisation-after-use"),
    pytest.param(
        lines("template<typename T> struct Box { T v; };",
              "template<typename T> T Box<T>::missing() { return v; }",
              "uint f() { return Box<uint>::nothing; }"),
        lines("<stdin>:2:32: error: out-of-line definition of 'Box<T>::missing' does not match any member function "
              "of 'Box' [WG0301]",
              "template<typename T> T Box<T>::missing() { return v; }",
              "                               ^~~~~~~",
              "<stdin>:1:29: note: 'Box' is declared here",
              "template<typename T> struct Box { T v; };",
              "                            ^~~",
              "<stdin>:3:19: error: use of undeclared identifier 'Box::nothing' [WG0301]",
              "uint f() { return Box<uint>::nothing; }",
              "                  ^~~~~~~~~~~~~~~~~~",
              "2 errors generated."),
        id="no-such-member"),
    pytest.param(
        lines("struct Plain { static const uint n = 1; };",
              "template<typename T> struct Box { T v; };",
              "uint f() { return Plain<int>::n; }",
              "template<template<typename> class H> struct W { H<float> x; };",
              "template<typename T, uint N> struct Arr { T v[N]; };",
              "void g() { W<Arr> a; W<uint> b; W<Box> fine; }"),
        lines("<stdin>:3:19: error: 'Plain' is not a struct template: it takes no template arguments [WG0328]",
              "uint f() { return Plain<int>::n; }",
              "                  ^~~~~~~~~~~~~",
              "<stdin>:6:14: error: struct template 'Arr' does not fit template template parameter 'H' of 'W': its "
              "template parameters differ [WG0328]",
              "void g() { W<Arr> a; W<uint> b; W<Box> fine; }",
              "             ^~~",
              "<stdin>:5:37: note: 'Arr' is declared here",
              "template<typename T, uint N> struct Arr { T v[N]; };",
              "                                    ^~~",
              "<stdin>:6:24: error: template argument for template template parameter 'H' of 'W' must be a struct "
              "template, named without arguments [WG0328]",
              "void g() { W<Arr> a; W<uint> b; W<Box> fine; }",
              "                       ^~~~",
              "3 errors generated."),
        id="template-arguments-where-no-template-is-or-the-wrong-one"),
    pytest.param(
        lines("template<typename T> struct Box { T v; T get(); };",
              "uint Box<uint>::get() { return v; }"),
        lines("<stdin>:2:17: error: a member of 'Box<...>' defined out of line needs its 'template<...>' header "
              "[WG0328]",
              "uint Box<uint>::get() { return v; }",
              "                ^~~",
              "1 error generated."),
        id="out-of-line-member-without-template-header"),
])
def test_new_template_form_diagnostics(src: str, expected: str):
    assert rendered(src) == expected


def test_typedefs_of_structs_and_instances_are_scopes_too():
    module = sema("""
        struct A { static const uint value = 7; static uint twice(uint x) { return 2 * x; } };
        typedef A AA;
        template<typename T> struct Box { T v; static T make(T x) { return x; } };
        typedef Box<float> FB;
        static const uint Seven = AA::value;
        float probe() { return AA::twice(1) + FB::make(2.0); }
    """)
    assert constant_of(module, "Seven") == 7
    assert calls(func(module, "probe")) == ["A::twice", "Box<float>::make"]


def test_using_aliases_and_typename_before_a_dependent_name():
    """DXC's SemaHLSL/template-implicit-this-sfinae.hlsl pattern: `using type = T;` in a partial
    specialisation, `typename hlsl::enable_if<B, U>::type` as a member template's result."""
    module = sema("""
        namespace hlsl {
        template <bool B, typename T> struct enable_if {};
        template <typename T> struct enable_if<true, T> { using type = T; };
        template <typename T> struct is_arithmetic { static const bool value = false; };
        template <> struct is_arithmetic<float> { static const bool value = true; };
        }
        using Vec = float3;
        template <typename T> struct Wrapper {
            static const bool IsArithmetic = hlsl::is_arithmetic<T>::value;
            template <typename U = T> typename hlsl::enable_if<IsArithmetic, U>::type Get() { return val; }
            T val;
        };
        float probe() { using Local = Vec; Local v = 1; Wrapper<float> w; w.val = v.x; return w.Get(); }
    """)
    get = func(module, "Wrapper<float>::Get<float>")
    assert get.return_type is F
    local = next(n for n in walk(func(module, "probe").body) if isinstance(n, ir.VarDecl))
    assert local.variable.type is t.vector(F, 3)
