"""The parser: AST shapes for every construct family, the type-name/identifier hard cases,
syntax errors (full rendered text) and recovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from wgc.diagnostics import Renderer
from wgc.source import SourceFile
from wgc.syntax import ast
from wgc.syntax.parse import parse_source


def parse_ok(text: str) -> ast.TranslationUnit:
    result = parse_source(SourceFile("t.hlsl", text))
    assert result.diagnostics == (), Renderer().render(result.diagnostics)
    return result.unit


def body(text: str) -> tuple[ast.Stmt, ...]:
    unit = parse_ok("void f() {\n" + text + "\n}\n")
    return unit.decls[-1].body.stmts


def expr(text: str) -> ast.Expr:
    (stmt,) = body(text + ";")
    assert isinstance(stmt, ast.ExprStmt)
    return stmt.expr


def errors(text: str, name: str = "t.hlsl") -> str:
    result = parse_source(SourceFile(name, text))
    return Renderer().render(result.diagnostics)


# ---------------------------------------------------------------- type names vs identifiers


def test_cast_to_user_struct_versus_parenthesised_name():
    unit = parse_ok("struct Rec { float a; };\nvoid f(float a, float b) { Rec r = (Rec)0; float c = (a) - b; }\n")
    decl, paren = unit.decls[1].body.stmts
    assert isinstance(decl.decl.declarators[0].init, ast.CastExpr)
    assert decl.decl.declarators[0].init.type.name == ("Rec",)
    minus = paren.decl.declarators[0].init
    assert isinstance(minus, ast.BinaryExpr) and minus.op == "-"
    assert minus.left == ast.NameExpr(None, ("a",))


def test_cast_of_negation_and_builtin_vector_cast():
    cast = expr("(float3)-x")
    assert isinstance(cast, ast.CastExpr) and isinstance(cast.operand, ast.UnaryExpr)
    assert cast.type.name == ("float3",)


def test_comparisons_near_templates_stay_comparisons():
    e = expr("c = (a < b) > d")
    assert isinstance(e.value, ast.BinaryExpr) and e.value.op == ">"
    assert e.value.left.op == "<"
    e2 = expr("c = a < b && d > e")
    assert e2.value.op == "&&" and e2.value.left.op == "<" and e2.value.right.op == ">"


def test_method_template_call_and_function_template_call():
    load = expr("buf.Load<uint2>(0)")
    assert isinstance(load, ast.CallExpr)
    assert load.callee == ast.MemberExpr(None, ast.NameExpr(None, ("buf",)), "Load")
    assert load.template_args == (ast.TypeRef(None, ("uint2",)),)
    unit = parse_ok("template<typename T> T twice(T v) { return v + v; }\n"
                    "float g(float x) { return twice<float>(x); }\n")
    assert unit.decls[0].template_params == (ast.TemplateParam(None, "T", None, None),)
    call = unit.decls[1].body.stmts[0].value
    assert call.callee == ast.NameExpr(None, ("twice",)) and call.template_args == (ast.TypeRef(None, ("float",)),)


def test_nested_templates_split_the_right_shift():
    unit = parse_ok("StructuredBuffer<vector<float, 2>> nested;\nRWTexture2D<unorm float4> t;\n")
    outer = unit.decls[0].type
    assert outer.name == ("StructuredBuffer",)
    (inner,) = outer.template_args
    assert inner.name == ("vector",) and inner.template_args[1] == ast.IntLiteral(None, 2, "", "2")
    assert unit.decls[1].type.template_args[0].modifiers == ("unorm",)


def test_right_shift_is_still_a_shift_outside_templates():
    e = expr("x = a >> 2")
    assert e.value.op == ">>"


def test_declaration_versus_expression_statements():
    decl, call, ctor = body("float3 r;\nfoo(r);\nfloat3(1, 2, 3).x;")
    assert isinstance(decl, ast.DeclStmt)
    assert isinstance(call.expr, ast.CallExpr)
    assert isinstance(ctor.expr, ast.MemberExpr) and isinstance(ctor.expr.object, ast.ConstructExpr)


def test_variable_named_like_a_type_after_a_type():
    unit = parse_ok("struct Data { uint x; };\nvoid f() { Data Data; }\n")
    (stmt,) = unit.decls[1].body.stmts
    assert stmt.decl.declarators[0].name == "Data"


def test_typedef_names_become_types():
    unit = parse_ok("typedef float4 Color, Tint[2];\nColor c; Tint t;\n")
    assert unit.decls[0].declarators[1].array_dims == (ast.IntLiteral(None, 2, "", "2"),)
    assert unit.decls[1].type.name == ("Color",) and unit.decls[2].type.name == ("Tint",)


def test_namespaces_and_qualified_names():
    unit = parse_ok("namespace ns { struct S { uint a; }; uint f() { return 1; } }\n"
                    "ns::S s;\nuint g() { return ns::f(); }\nenum class E { A, B = 2 };\nuint h() { return (uint)E::B; }\n")
    assert unit.decls[1].type.name == ("ns", "S")
    assert unit.decls[2].body.stmts[0].value.callee == ast.NameExpr(None, ("ns", "f"))
    enum = unit.decls[3]
    assert enum.scoped and [m.name for m in enum.members] == ["A", "B"]
    assert unit.decls[4].body.stmts[0].value.operand == ast.NameExpr(None, ("E", "B"))


# ---------------------------------------------------------------- declarations


def test_node_shader_declaration():
    unit = parse_ok(
        'struct R { uint3 grid : SV_DispatchGrid; };\n'
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]\n'
        'void N(DispatchNodeInputRecord<R> input,\n'
        '       [MaxRecords(4)] [NodeID("x", 2)] NodeOutput<R> o,\n'
        '       uint gi : SV_GroupIndex) {}\n')
    struct, node = unit.decls
    assert struct.members[0].declarators[0].annotations == (ast.Semantic(None, "SV_DispatchGrid"),)
    assert [a.name for a in node.attributes] == ["Shader", "NodeLaunch", "NodeMaxDispatchGrid", "NumThreads"]
    assert node.attributes[0].args == (ast.StringLiteral(None, "node"),)
    out = node.params[1]
    assert [a.name for a in out.attributes] == ["MaxRecords", "NodeID"]
    assert out.attributes[1].args == (ast.StringLiteral(None, "x"), ast.IntLiteral(None, 2, "", "2"))
    assert node.params[2].annotations == (ast.Semantic(None, "SV_GroupIndex"),)


def test_globals_bindings_buffers_and_state_objects():
    unit = parse_ok(
        'static const uint N = 4;\n'
        'groupshared float cache[64];\n'
        'globallycoherent RWStructuredBuffer<float4> buf : register(u0, space1);\n'
        '[[vk::binding(0, 1)]] ByteAddressBuffer bab;\n'
        'row_major float4x4 m;\n'
        'cbuffer Params : register(b0) { float scale; uint count; }\n'
        'tbuffer Tex { float4 t; };\n'
        'ConstantBuffer<Params2> cb;\n'
        'GlobalRootSignature globalRS = { "UAV(u0)" };\n'
        'LocalRootSignature localRS = { "RootConstants(num32BitConstants = 1, b1)" };\n')
    decls = unit.decls
    assert decls[0].modifiers == ("static", "const")
    assert decls[1].declarators[0].array_dims == (ast.IntLiteral(None, 64, "", "64"),)
    assert decls[2].modifiers == ("globallycoherent",)
    assert decls[2].declarators[0].annotations == (ast.RegisterBinding(None, "u0", "space1"),)
    assert decls[3].attributes == (ast.Attribute(None, "vk::binding", (ast.IntLiteral(None, 0, "", "0"),
                                                                        ast.IntLiteral(None, 1, "", "1")), True),)
    assert decls[4].modifiers == ("row_major",)
    assert isinstance(decls[5], ast.BufferDecl) and decls[5].keyword == "cbuffer"
    assert [m.declarators[0].name for m in decls[5].members] == ["scale", "count"]
    assert isinstance(decls[6], ast.BufferDecl) and isinstance(decls[7], ast.EmptyDecl)
    assert isinstance(decls[9], ast.StateObjectDecl) and decls[9].kind == "GlobalRootSignature"
    assert decls[9].init == ast.InitList(None, (ast.StringLiteral(None, "UAV(u0)"),))


def test_structs_inheritance_members_and_attributes():
    unit = parse_ok('struct A { uint a; };\n[NodeTrackRWInputSharing] struct B : A { float x; float len() { return x; } };\n')
    struct = unit.decls[1]
    assert struct.attributes[0].name == "NodeTrackRWInputSharing"
    assert struct.base == ast.TypeRef(None, ("A",))
    assert isinstance(struct.members[1], ast.FunctionDecl)


def test_parameters_modifiers_defaults_and_semantics():
    unit = parse_ok("float f(in float a, out float b, inout float c, uniform float d = 2.0f, float e[2] : TEXCOORD0);\n")
    params = unit.decls[0].params
    assert [p.modifiers for p in params[:4]] == [("in",), ("out",), ("inout",), ("uniform",)]
    assert params[3].default == ast.FloatLiteral(None, 2.0, "f", "2.0f")
    assert params[4].array_dims == (ast.IntLiteral(None, 2, "", "2"),)
    assert unit.decls[0].body is None


# ---------------------------------------------------------------- statements and expressions


def test_every_statement_kind():
    stmts = body(
        "[branch] if (a) b = 1; else { b = 2; }\n"
        "[unroll(4)] for (int i = 0; i < 4; ++i) continue;\n"
        "[loop] while (a) break;\n"
        "do { a--; } while (a > 0);\n"
        "switch (a) { case 0: case 1: b = 1; default: b = 2; break; }\n"
        "return;\n"
        "discard;\n"
        ";\n")
    kinds = [type(s).__name__ for s in stmts]
    assert kinds == ["IfStmt", "ForStmt", "WhileStmt", "DoWhileStmt", "SwitchStmt", "ReturnStmt",
                     "DiscardStmt", "EmptyStmt"]
    assert stmts[0].attributes[0].name == "branch" and stmts[0].else_ is not None
    assert stmts[1].attributes[0].args == (ast.IntLiteral(None, 4, "", "4"),)
    switch = stmts[4]
    assert [c.labels for c in switch.cases] == [
        (ast.IntLiteral(None, 0, "", "0"), ast.IntLiteral(None, 1, "", "1")), (None,)]
    assert [len(c.stmts) for c in switch.cases] == [1, 2]


def test_precedence_and_associativity():
    e = expr("x = a + b * c - d")
    assert e.value.op == "-" and e.value.left.op == "+" and e.value.left.right.op == "*"
    chain = expr("a = b = c")
    assert isinstance(chain.value, ast.AssignExpr)
    tern = expr("x = a ? b : c ? d : e")
    assert isinstance(tern.value.else_, ast.ConditionalExpr)
    comma = expr("a = 1, b = 2")
    assert isinstance(comma, ast.BinaryExpr) and comma.op == ","


@pytest.mark.parametrize("op", ["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="])
def test_all_assignment_operators(op):
    e = expr(f"a {op} b")
    assert isinstance(e, ast.AssignExpr) and e.op == op


@pytest.mark.parametrize("text,value,suffix", [
    ("0x1Fu", 31, "u"), ("42", 42, ""), ("7ul", 7, "ul"), ("3l", 3, "l"), ("010", 8, ""),
    ("1.5f", 1.5, "f"), ("2.0h", 2.0, "h"), ("1e-3", 0.001, ""), (".5", 0.5, ""), ("3.l", 3.0, "l"),
])
def test_literals(text, value, suffix):
    e = expr(f"x = {text}")
    assert e.value.value == value and e.value.suffix == suffix and e.value.text == text


def test_swizzles_members_indexing_sizeof_and_init_lists():
    stmts = body("float4 v = {1, 2, {3, 4}};\nv.xy = o[i].Get().zw;\nuint s = sizeof(float4) + sizeof v;")
    init = stmts[0].decl.declarators[0].init
    assert isinstance(init, ast.InitList) and isinstance(init.items[2], ast.InitList)
    assign = stmts[1].expr
    assert assign.target == ast.MemberExpr(None, ast.NameExpr(None, ("v",)), "xy")
    sizes = stmts[2].decl.declarators[0].init
    assert isinstance(sizes.left.operand, ast.TypeRef) and isinstance(sizes.right.operand, ast.NameExpr)


def test_spans_point_at_the_original_text():
    source = SourceFile("s.hlsl", "void f()\n{\n    x = foo(1);\n}\n")
    unit = parse_source(source).unit
    call = unit.decls[0].body.stmts[0].expr.value
    assert call.span.line_col == (3, 9)
    assert source.text[call.span.start:call.span.end] == "foo(1)"


# ---------------------------------------------------------------- syntax errors


def test_missing_semicolon_points_after_the_expression():
    assert errors("void f()\n{\n    x = 1\n    y = 2;\n}\n") == (
        "t.hlsl:3:10: error: expected ';' after expression [WG0201]\n"
        "    x = 1\n"
        "         ^\n"
        "1 error generated.\n")


def test_missing_semicolon_after_struct():
    assert errors("struct S { float a; }\nvoid f() {}\n") == (
        "t.hlsl:1:22: error: expected ';' after struct [WG0201]\n"
        "struct S { float a; }\n"
        "                     ^\n"
        "1 error generated.\n")


def test_unknown_type_name():
    assert errors("void f() { Widget w; }\n") == (
        "t.hlsl:1:12: error: unknown type name 'Widget' [WG0201]\n"
        "void f() { Widget w; }\n"
        "           ^~~~~~\n"
        "1 error generated.\n")


def test_unbalanced_paren_says_what_is_expected():
    assert errors("void f() { foo(1, 2; }\n") == (
        "t.hlsl:1:20: error: expected ')' or ',', found ';' [WG0201]\n"
        "void f() { foo(1, 2; }\n"
        "                   ^\n"
        "1 error generated.\n")


def test_missing_expression():
    assert errors("void f() { x = ; }\n") == (
        "t.hlsl:1:16: error: expected expression, found ';' [WG0201]\n"
        "void f() { x = ; }\n"
        "               ^\n"
        "1 error generated.\n")


def test_end_of_input_inside_a_function():
    assert errors("void f() {\n  x = 1;\n") == (
        "t.hlsl:3:1: error: expected '}' at end of input [WG0203]\n"
        "\n"
        "^\n"
        "1 error generated.\n")


def test_invalid_character_and_unterminated_string():
    assert errors("void f() { x = 1 @ 2; }\n").startswith(
        "t.hlsl:1:18: error: invalid character '@' in source [WG0202]\n")
    assert "missing terminating '\"' character" in errors('[Shader("node)] void f() {}\n')


def test_literal_errors():
    assert "integer literal is too large" in errors("static const uint x = 99999999999999999999999;\n")
    assert "invalid suffix 'lul' on integer literal" in errors("static const uint x = 1lul;\n")
    assert "invalid digit in octal constant '09'" in errors("static const uint x = 09;\n")


def test_recovery_reports_one_error_per_declaration_without_cascades():
    text = (
        "void a() { x = ; }\n"          # error 1
        "struct Ok { float v; };\n"
        "void b() { y = 1 }\n"          # error 2
        "void c() { Ok o; o.v = 2; }\n"  # fine: Ok is still a type
        "void d() { foo(; }\n"          # error 3
    )
    rendered = errors(text)
    assert rendered.count("error:") == 3
    assert [line.split(":")[1] for line in rendered.splitlines() if ": error:" in line] == ["1", "3", "5"]
    assert rendered.endswith("3 errors generated.\n")


def test_recovery_does_not_blame_a_valid_declaration_before_the_error():
    assert errors("struct R { uint a; };\nstruct;\n") == (
        "t.hlsl:2:7: error: expected a type, found ';' [WG0201]\n"
        "struct;\n"
        "      ^\n"
        "1 error generated.\n")


def test_recovery_skips_braces_inside_a_declaration():
    rendered = errors("float f(float h = { 1 });\nvoid g() { x = ; }\n")
    assert [line for line in rendered.splitlines() if "error:" in line] == [
        "t.hlsl:1:19: error: expected expression, found '{' [WG0201]",
        "t.hlsl:2:16: error: expected expression, found ';' [WG0201]",
    ]


# ---------------------------------------------------------------- the fast loop and lark's own parser

def _with_spans(node: object) -> object:
    """A node as nested tuples that include every span (AST equality leaves spans out)."""
    import dataclasses

    if dataclasses.is_dataclass(node):
        return (type(node).__name__,) + tuple(
            (f.name, _with_spans(getattr(node, f.name))) for f in dataclasses.fields(node))
    if isinstance(node, tuple):
        return tuple(_with_spans(item) for item in node)
    if isinstance(node, SourceFile):
        return node.path
    return node


def _corpus() -> list[tuple[str, str]]:
    """Preprocessed texts: every sample, the SPIR-V test programs and the benchmark's generated file."""
    import sys

    from conftest import SAMPLE_INCLUDE, SAMPLES
    from wgc.preprocess import PreprocessOptions, preprocess

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from frontend import generate

    texts = [(p.name, p.read_text()) for p in sorted(SAMPLES.glob("*.hlsl"))]
    texts += [(p.name, p.read_text()) for p in sorted((Path(__file__).parent / "spirv_programs").glob("*.hlsl"))]
    texts.append(("generated.hlsl", generate(600)))
    out = []
    for name, text in texts:
        pre = preprocess(SourceFile(name, text), PreprocessOptions(include_dirs=(str(SAMPLE_INCLUDE),)))
        out.append((pre.text, pre.locations))
    return out


def test_the_fast_loop_builds_what_lark_builds_spans_included(monkeypatch) -> None:
    """`parse` drives lark's tables with its own loop; lark's parser on the same text must give
    the same AST, every span and builder diagnostic included."""
    from wgc.syntax import parse as parse_module

    corpus = _corpus()
    fast = [parse_module.parse(text, locations) for text, locations in corpus]
    calls = []
    monkeypatch.setattr(parse_module._FastParser, "run",
                        lambda self, text, postlex: calls.append(text) or parse_module._FAILED)
    slow = [parse_module.parse(text, locations) for text, locations in corpus]
    assert len(calls) == len(corpus)
    for one, other in zip(fast, slow, strict=True):
        assert _with_spans(one.unit) == _with_spans(other.unit)
        assert [(d.code, d.message, d.span) for d in one.diagnostics] == \
            [(d.code, d.message, d.span) for d in other.diagnostics]


def test_the_fast_loop_leaves_errors_to_lark() -> None:
    """A file with a syntax error: the loop gives up, and lark's parse of the same text raises the
    error that the diagnostic is made from (its expected tokens come from lark's parser state)."""
    from wgc.syntax import parse as parse_module

    _builder, postlex = parse_module._shared()
    text = "float a = 1;\nfloat b = 1 +;\n"
    postlex.begin(text, parse_module.prescan_type_names(text))
    assert parse_module._fast_parser().run(text, postlex) is parse_module._FAILED
    assert errors(text) == (
        "t.hlsl:2:14: error: expected expression, found ';' [WG0201]\n"
        "float b = 1 +;\n"
        "             ^\n"
        "1 error generated.\n")


_TRICKY = [
    # `>>` closing two template argument lists, one and a shift, a shift; a template function call
    "StructuredBuffer<vector<float, 2>> a;\nstatic const uint s = 8 >> 1;\n"
    "template<typename T> T twice(T x) { return x + x; }\n"
    "void f() { uint y = twice<uint>(3) >> 1; vector<vector<int, 2>, 2> z; y >>= 1; y = y > 2 ? y < 3 : 0; }\n",
    # names learned as types: typedefs (a struct body's level is not the typedef's), template headers
    "typedef float2 F2, F3[2];\nstruct S { F2 v; };\ntypedef struct { int a; } T;\nT t;\nF3 f3;\n",
    "template<typename T> struct Box { T get(); };\ntemplate<typename T> T Box<T>::get() { return (T)0; }\n"
    "template<> struct Box<int> { int get(); };\ntemplate<class U, int N = 2> U first(U u[N]) { return u[0]; }\n",
    # words that are modifiers in one place and identifiers elsewhere
    "struct V { sample float4 uv : TEXCOORD0; linear float x; };\n"
    "void g(out vertices V v[3], in payload V p) { float sample = .5f; int linear = u'x' + 'y'; }\n",
    # ignored comments, literals, every single-character token
    "/* block\n comment */ void h() { // line\n int a[2] = { 1, 2 }; a[0] = a[1] ? ~a[0] : 1e3; h(); }\n",
    "namespace N { enum class E : uint { A = 1, B }; }\ncbuffer C : register(b0) { float k; };\n",
    # a `>` inside parentheses or brackets within a template argument list compares
    "vector<float, (3 > 2) + 1> v;\nvector<float, a[2 > 1]> w;\n",
]


def _fast_tokens(text: str, for_cache: bool = True) -> list[tuple[str, str, int, int]]:
    """The tokens that `_FastParser.run` shifts for `text` (each is a child of one reduction), with
    the tables made as for the cache or, not `for_cache`, as where no cache can be written."""
    from wgc.syntax import parse as parse_module

    parser, builder, postlex = parse_module._parser()
    fast = parse_module._FastParser(parse_module._plain_tables(parser, for_cache), builder)
    seen: list[parse_module.Token] = []

    def recording(callback):
        return lambda children: seen.extend(c for c in children if isinstance(c, parse_module.Token)) \
            or callback(children)

    fast.callbacks = [callback if callback is parse_module._PASS_THROUGH else recording(callback)
                      for callback in fast.callbacks]
    builder.locations = parse_module.FileLocations(SourceFile("t.hlsl", text))
    postlex.begin(text, parse_module.prescan_type_names(text))
    try:
        assert fast.run(text, postlex) is not parse_module._FAILED
    finally:
        builder.release()
    return sorted((t.type, str(t), t.start_pos, t.end_pos) for t in seen)


def _lark_tokens(text: str, monkeypatch) -> list[tuple[str, str, int, int]]:
    """The tokens that the postlexer hands to lark's own parser for `text`."""
    from wgc.syntax import parse as parse_module

    parser, builder, postlex = parse_module._parser()
    seen = []
    process = postlex.process

    def recording(stream):
        for tok in process(stream):
            seen.append((tok.type, str(tok), tok.start_pos, tok.end_pos))
            yield tok

    with monkeypatch.context() as patch:
        patch.setattr(postlex, "process", recording)
        builder.locations = parse_module.FileLocations(SourceFile("t.hlsl", text))
        postlex.begin(text, parse_module.prescan_type_names(text))
        try:
            parser.parse(text)
        finally:
            builder.release()
    return sorted(seen)


def test_the_fast_loop_shifts_the_tokens_that_lark_is_handed(monkeypatch) -> None:
    """The loop does the lexer's and the postlexer's work itself (single characters without a
    regular expression, the kinds the postlexer neither renames nor counts without calling it):
    every token it shifts, kind, text and extent, is the one that lark's lexer and the postlexer
    hand to lark's parser, over the samples, the test programs and the hard cases of renaming."""
    texts = [text for text, _locations in _corpus()] + _TRICKY
    kinds = set()
    for text in texts:
        fast = _fast_tokens(text)
        assert fast == _lark_tokens(text, monkeypatch)
        kinds.update(kind for kind, *_ in fast)
    # the corpus has what the renaming and the shortcuts are about
    assert {"TYPE_NAME", "TLT", "TGT", "CONTEXTUAL_MODIFIER", "SEMI", "LPAR", "TILDE", "QMARK"} <= kinds
    split = [tok for tok in _fast_tokens(_TRICKY[0]) if tok[0] in ("TGT", "GT")]
    assert ("TGT", ">", 32, 33) in split and ("TGT", ">", 33, 34) in split   # `vector<float, 2>>`


def test_tables_made_where_no_cache_can_be_written_shift_the_same_tokens() -> None:
    """Where the start-up cache cannot be written, the tables are made for the process alone (the
    compiled expressions kept, nothing marshalled): the loop shifts the same tokens with them."""
    texts = [text for text, _locations in _corpus()] + _TRICKY
    assert all(_fast_tokens(text, for_cache=False) == _fast_tokens(text) for text in texts)


def test_the_first_character_shortcut_matches_what_every_state_scanner_matches() -> None:
    """`run` picks the terminals a token can be by its first character (`_first_character`): the
    token itself where that is one terminal of that one character, else a regular expression of
    fewer alternatives.  For every lexer state, every ASCII character (and one that is not) and
    what may follow it, that must give what the state's own expression matches, kind and extent."""
    from wgc.syntax import parse as parse_module

    parser, builder, _postlex = parse_module._parser()
    fast = parse_module._FastParser(parse_module._plain_tables(parser), builder)
    following = ["", " ", "\n", "5", ".5", "e5", "#INF", "=", "==", "/", "/*", "*/", "'a'", "\"s\"", "u8'a'", "0x1",
                 "x", "_1", ":", ">>", "<<=", "&&", "||", "+", "-", "]", "é"]
    characters = [chr(code) for code in range(9, 127)] + ["é"]
    singles: dict[str, set[str]] = {}
    narrowed = 0
    for state in {lexer: state for state, lexer in fast.lexers.items()}.values():
        scanner = fast._scanner(state)
        for char in characters:
            kind, match = fast._first_character(scanner, char)
            if kind is not None:
                singles.setdefault(char, set()).add(kind)
            else:
                narrowed += match is not scanner[1]
            for rest in following:
                found = scanner[1](char + rest, 0)
                expected = found and (found.lastgroup, found.end())
                if kind is not None:
                    assert expected == (kind, 1), (state, char, rest)
                else:
                    shortcut = match(char + rest, 0)
                    assert (shortcut and (shortcut.lastgroup, shortcut.end())) == expected, (state, char, rest)
    assert set("(){}[];,?~") <= set(singles)
    assert singles["<"] == {"LT"} and singles["*"] == {"STAR"}   # in states where `<=`, `<<`, `*=` cannot come
    assert narrowed > 1000


@pytest.mark.parametrize(("regexp", "expected"), [
    (r"(u8|[LuU])?'([^'\\]|\\.)*'", set("uLU'")),
    (r"\d+[eE]", set("0123456789")),
    (r"(\d+\.\d*|\.\d+)", set("0123456789.")),
    (r"a*b?c", set("abc")),
    (r"(?:a|)(?:b|c)*d", set("abcd")),
    (r"[A-Za-z_]\w*", set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")),
    (r"[ \t\f\r\n]+", set(" \t\f\r\n")),
    (r"[^a-y]", {chr(code) for code in range(128)} - set("abcdefghijklmnopqrstuvwxy")),
    (r"\s", set(" \t\n\r\f\v\x1c\x1d\x1e\x1f")),
])
def test_first_characters_of_a_regular_expression(regexp, expected) -> None:
    from wgc.syntax.parse import _first_characters

    assert _first_characters(regexp) == expected


@pytest.mark.parametrize("regexp", [r"(?=b)b", r"\bx", r"(?i:a)", r".", r"(?<!x)a", r"x?$"])
def test_first_characters_is_every_character_where_unsure(regexp) -> None:
    from wgc.syntax.parse import _first_characters

    assert _first_characters(regexp) == {chr(code) for code in range(128)}


def test_prescan_finds_what_the_word_boundary_patterns_find() -> None:
    """`prescan_type_names`'s patterns check the word boundary after a keyword's first letter (for
    the speed of re's search); they must find what the patterns with a leading `\\b` find."""
    import re

    from wgc.syntax.parse import prescan_type_names

    declared = re.compile(
        r"\b(?:struct|class|interface|enum(?:\s+(?:class|struct))?)\s+(?:\[+[^\[\];{}]*\]+\s*)*([A-Za-z_]\w*)")
    typedef = re.compile(r"\btypedef\b[^;{}]*?\b([A-Za-z_]\w*)\s*(?:\[[^;\]]*\]\s*)*;|\busing\s+([A-Za-z_]\w*)\s*=")

    def reference(text: str) -> set[str]:
        return {m.group(1) for m in declared.finditer(text)} | \
            {m.group(1) or m.group(2) for m in typedef.finditer(text)}

    cases = ["struct A {};", "mystruct B; struct C;", "_class D; 1struct E; éstruct F; (struct G*)0;",
             "typedef int H;", "xtypedef int I; typedef_ J; typedef float K[2];", "using L = int; confusing M = 1;",
             "enum class N { A }; enum struct O; xenum P; interface Q {}; struct [[attr]] R {};",
             "\nclass S : T {};\ninterface\tU\n{}", "struct", ""]
    texts = cases + [text for text, _locations in _corpus()]
    found = [prescan_type_names(text) for text in texts]
    assert found == [reference(text) for text in texts]
    assert found[1] == {"C"} and found[2] == {"G"} and found[5] == {"L"}


def test_the_postlexer_only_remembers_the_kinds_that_the_fast_loop_does_not_hand_it() -> None:
    """`run` calls `TypeNamePostLexer.rename` only for `_RENAMED_OR_COUNTED` and, for every other
    kind, sets the previous kinds itself: for those kinds `rename` must do just that."""
    from wgc.syntax import parse as parse_module

    parser, _builder, _postlex = parse_module._parser()
    names = {terminal.name for terminal in parser.parser.lexer.lexer.root_lexer.terminals}
    assert parse_module._RENAMED_OR_COUNTED <= names
    postlex = parse_module.TypeNamePostLexer()
    text = "template<typename T> struct S { typedef int A; float f(int x[2]);"
    tokens = [("TEMPLATE", "template", 8), ("LT", "<", 9), ("TYPENAME", "typename", 17), ("IDENT", "T", 19),
              ("GT", ">", 20), ("STRUCT", "struct", 27), ("IDENT", "S", 29), ("LBRACE", "{", 31),
              ("TYPEDEF", "typedef", 39), ("IDENT", "int", 43), ("IDENT", "A", 45), ("SEMI", ";", 46),
              ("IDENT", "float", 52), ("IDENT", "f", 54), ("LPAR", "(", 55), ("IDENT", "int", 58),
              ("IDENT", "x", 60), ("LSQB", "[", 61)]
    open_headers = 0
    for count in range(len(tokens) + 1):   # the state after each prefix of the tokens
        postlex.begin(text, set())
        for kind, value, end in tokens[:count]:
            postlex.rename(kind, value, end)
        open_headers += postlex.template_header_open
        for other in sorted(names - parse_module._RENAMED_OR_COUNTED):
            state = dict(vars(postlex))
            state["template_stack"] = list(postlex.template_stack)
            state["types"] = set(postlex.types)
            assert postlex.rename(other, other.lower(), len(text)) == other
            assert vars(postlex) == {**state, "prev2_type": state["prev_type"], "prev_type": other}
    assert open_headers == 3   # after `template <`, `template < typename` and `template < typename T`

def _reference_callback(rule, builder):
    """One generic reduction callback (what `parse` had before the callbacks were generated per
    shape): the same rules as `_install_callbacks` states, computed by loops over the children."""
    from wgc.syntax.parse import _included_children, _Spliced, _Value

    name = rule.alias or rule.options.template_source or rule.origin.name
    inline = name.startswith("_")
    expand_single = bool(rule.options.expand1) and not rule.alias
    method = None if inline else getattr(builder, name, None)
    include = _included_children(rule)
    trailing_nones = include.pop()[2]

    def callback(children):
        start = next((c.start_pos for c in children if c is not None and c.start_pos is not None), None)
        end = next((c.end_pos for c in reversed(children) if c is not None and c.end_pos is not None), None)
        kept = []
        for index, splice, nones in include:
            kept.extend([None] * nones)
            kept.extend(children[index].value if splice else [children[index]])
        kept.extend([None] * trailing_nones)
        if inline:
            return _Spliced(kept, start, end, name)
        if expand_single and len(kept) == 1:
            return kept[0]
        return _Value(method((start, end), [c.value if type(c) is _Value else c for c in kept]), start, end, name)

    return callback


def test_the_generated_callbacks_build_what_one_generic_callback_builds(monkeypatch) -> None:
    """The reduction callbacks are generated per rule shape (`_callback_source`); a generic
    callback that loops over each rule's children (`_reference_callback`) must give the same AST,
    every span and builder diagnostic included (lark's parser drives both)."""
    from wgc.syntax import parse as parse_module

    corpus = _corpus()
    generated = [parse_module.parse(text, locations) for text, locations in corpus]
    parser, builder, _postlex = parse_module._parser()
    lalr = parser.parser.parser.parser
    calls = []

    def counted(callback):
        return lambda children: calls.append(1) or callback(children)

    monkeypatch.setattr(lalr, "callbacks", {rule: counted(_reference_callback(rule, builder)) for rule in lalr.callbacks})
    monkeypatch.setattr(parse_module._FastParser, "run", lambda self, text, postlex: parse_module._FAILED)
    reference = [parse_module.parse(text, locations) for text, locations in corpus]
    assert len(calls) > 10_000   # the reference callbacks built it
    for one, other in zip(generated, reference, strict=True):
        assert _with_spans(one.unit) == _with_spans(other.unit)
        assert [(d.code, d.message, d.span) for d in one.diagnostics] == \
            [(d.code, d.message, d.span) for d in other.diagnostics]


def test_callback_source_writes_out_each_shape() -> None:
    """The generated callback of a shape: its extent, kept children and result, for the shapes
    that differ (a terminal first, an optional part first, a spliced `_rule` first)."""
    from wgc.syntax import parse as parse_module
    from wgc.syntax.parse import _Spliced, _Value

    class Tok(str):
        def __new__(cls, text: str, start: int, end: int) -> "Tok":
            tok = str.__new__(cls, text)
            tok.start_pos, tok.end_pos = start, end
            return tok

    def callback(terminals, include, trailing, kind, method=None):
        namespace: dict = {}
        exec(parse_module._callback_source(terminals, include, trailing, kind), {}, namespace)
        return namespace["make"](method, "r", _Value, _Spliced, tuple.__new__)

    calls = []
    record = lambda meta, values: calls.append((meta, values)) or "made"  # noqa: E731
    # `r: "(" x [y] ")"`: the parentheses filtered out, y absent (None) -> extent from the tokens
    made = callback((True, False, True), ((1, False, 0),), 1, "method", record)(
        [Tok("(", 3, 4), _Value("X", 4, 6, "x"), Tok(")", 6, 7)])
    assert (made.value, made.start_pos, made.end_pos, made.rule) == ("made", 3, 7, "r")
    assert calls == [((3, 7), ["X", None])]
    # `r: x? y`: a first child with no extent (it matched nothing) and a None child are skipped
    calls.clear()
    made = callback((False, False, False), ((0, False, 0), (1, False, 0), (2, False, 0)), 0, "method", record)(
        [_Value("e", None, None, "x"), None, _Value("Y", 8, 9, "y")])
    assert (made.start_pos, made.end_pos) == (8, 9) and calls == [((8, 9), ["e", None, "Y"])]
    # an inline rule whose first child is spliced: its list is taken over, then extended
    first, second = _Spliced(["a"], 0, 1, "_list"), _Value("b", 2, 3, "x")
    made = callback((False, True, False), ((0, True, 0), (2, False, 0)), 0, "inline")([first, Tok(",", 1, 2), second])
    assert type(made) is _Spliced and made.value is first.value and made.value == ["a", second]
    assert (made.start_pos, made.end_pos, made.rule) == (0, 3, "r")
    # `?r: x [y]`: with one kept child it stands for the rule; two kept children call the method
    assert callback((False,), ((0, False, 0),), 1, "expand", record) is not None
    assert callback((False, False), ((0, False, 0), (1, False, 0)), 0, "expand", record)(
        [_Value("x", 0, 1, "x"), None]).value == "made"


@pytest.mark.parametrize(("method", "general"), [("binary_chain", "_climb_precedence"), ("declarator", "_declarator")])
def test_shortcuts_of_the_builder_build_what_its_general_code_builds(monkeypatch, method, general) -> None:
    """`AstBuilder.binary_chain` builds `a op b` without the precedence-climbing loop and
    `AstBuilder.declarator` builds `x` and `x = init` directly; with every chain and declarator built
    by the general code (`_climb_precedence`, `_declarator`), the corpus must give the same AST, every
    span included, and both the shortcut's cases and the others must occur in it."""
    from wgc.syntax import parse as parse_module

    corpus = _corpus()
    shortcut = [parse_module.parse(text, locations) for text, locations in corpus]
    counts: list[int] = []
    general_code = getattr(parse_module, general)

    def built_by_the_general_code(self, meta, children):
        counts.append(len(children))
        return general_code(children) if method == "binary_chain" else general_code(self._span(meta), children)

    monkeypatch.setattr(parse_module.AstBuilder, method, built_by_the_general_code)
    for name in ("_PARSER", "_FAST", "_BUILDER", "_POSTLEX", "_PARSER_ORIGIN"):   # a new parser binds the methods
        monkeypatch.setattr(parse_module, name, None)
    general_built = [parse_module.parse(text, locations) for text, locations in corpus]
    shortest = 3 if method == "binary_chain" else 2
    assert shortest in counts and any(count > shortest for count in counts)
    for one, other in zip(shortcut, general_built, strict=True):
        assert _with_spans(one.unit) == _with_spans(other.unit)
