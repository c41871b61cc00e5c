"""The pretty-printer: parse -> print -> parse gives the same AST and printing is idempotent,
on the samples, on inline sources covering every AST node type, and on random expressions."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wgc.diagnostics import Renderer
from wgc.source import SourceFile, Span
from wgc.syntax import ast
from wgc.syntax.parse import parse, parse_source
from wgc.syntax.printer import _Printer, print_hlsl

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("**/*.hlsl"))
SPAN = Span(SourceFile("<generated>", ""), 0, 0)


def parse_clean(text: str, name: str = "t.hlsl") -> ast.TranslationUnit:
    result = parse_source(SourceFile(name, text))
    assert result.diagnostics == (), Renderer().render(result.diagnostics) + "\n" + text
    return result.unit


def assert_round_trip(unit: ast.TranslationUnit) -> str:
    """print(unit) parses back to `unit` without diagnostics, and printing that gives the same text."""
    printed = print_hlsl(unit)
    reparsed = parse_clean(printed, "printed.hlsl")
    assert reparsed == unit, printed
    assert print_hlsl(reparsed) == printed
    return printed


def round_trip(text: str) -> str:
    return assert_round_trip(parse_clean(text))


def all_node_types() -> set[type]:
    return {cls for cls in vars(ast).values()
            if isinstance(cls, type) and issubclass(cls, ast.Node) and cls is not ast.Node}


def node_types_in(node: object) -> set[type]:
    found: set[type] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Node):
            found.add(type(item))
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item) if f.name != "span")
        elif isinstance(item, tuple):
            stack.extend(item)
    return found


# ---------------------------------------------------------------- (a) the samples


def _sample_id(path: Path) -> str:
    return str(path.relative_to(ROOT / "samples"))


@pytest.mark.parametrize("path", SAMPLES, ids=_sample_id)
def test_sample_round_trips_through_the_preprocessor(path: Path) -> None:
    pre_module = pytest.importorskip("wgc.preprocess")
    source = SourceFile(str(path), path.read_text(encoding="utf-8"))
    options = pre_module.PreprocessOptions(include_dirs=(str(ROOT / "samples" / "include"), str(path.parent / "include")))
    pre = pre_module.preprocess(source, options)
    assert pre.diagnostics == (), Renderer().render(pre.diagnostics)
    result = parse(pre.text, pre.locations)
    assert result.diagnostics == (), Renderer().render(result.diagnostics)
    assert result.unit.decls, "the sample declares nothing"
    assert_round_trip(result.unit)


# ---------------------------------------------------------------- (b) inline sources

CASES = {
    "statements": """
        void f(int n)
        {
            int i = 0, j[2], k[] = { 1, 2 };
            ;
            { i = 1; }
            if (n) i = 2;
            if (n) { i = 3; } else if (i) i = 4; else { i = 5; }
            if (n) if (i) i = 6; else i = 7;
            [unroll(4)] for (int a = 0; a < 4; ++a) i += a;
            [loop] for (;;) { break; }
            for (i = 0; i < n; i++) continue;
            for (; i < n;) { }
            [branch] if (i) { return; }
            while (i < n) i++;
            [loop] while (true) { break; }
            do { i--; } while (i > 0);
            [loop] do i--; while (i);
            switch (n)
            {
            case 0:
            case 1:
                i = 1;
            case 2:
                i = 2;
                break;
            case 3:
            {
                i = 3;
            }
                break;
            case 4 + 1:
                return;
            default:
                i = 0;
            }
            [branch] switch (i) { default: break; case 7: break; }
            [flatten] switch (i) { }
            struct Local { float x; } loc;
            Local other;
            typedef float LocalF;
            LocalF lf = 1;
            enum LocalE { LA, LB };
            discard;
            return;
        }
        int g() { return 1 + 2; }
    """,
    "operators": """
        int foo(int p, int q) { return p; }
        void ops(int a, int b, int c, int d, int x, int y, int z, int w, int v, float3 f3)
        {
            a - (b - c); a - b - c; a = b = c; (a = b) = c; foo((a, b), c);
            x ? y : z ? w : v; (x ? y : z) ? w : v; x ? (y, z) : w; x ? y : (z = w);
            -(-x); - -x; -(--x); --(-x); +(+x); +(++x); !~x; ~!x; ++x--; (x++)++;
            (float3)-x; (float)(int)x; (float)(x + y); ((float)x).y; (float)x.y; (float[2])x;
            (a < b) > c; a < (b > c); a << b + c; (a << b) + c; a >> 2; (a >> b) >> c;
            a + b * c; (a + b) * c; a * (b * c); a / b % c; a & b | c ^ d; (a | b) & c;
            a && b || c && d; a && (b || c); a == b != c; a == (b != c); a <= b >= c;
            (a & b) == c; a & (b == c); a ^ (b | c);
            x++ + ++y; x-- - --y; a - -b; a + +b; (-x).y; -x.y; (1).x; (a + b)[0];
            f3[(a, b)]; foo(x, y)(z); f3.xy.x; f3.x++;
            a += b; a -= b; a *= b; a /= b; a %= b; a <<= b; a >>= b; a &= b; a |= b; a ^= b;
            sizeof(float4) + sizeof(a); (sizeof(a))++; sizeof -x; sizeof (a + b);
            a, b, c; a, (b, c); float3(1, 2, 3).x; vector<float, 2>(1, 2); ns::v; true; false;
            -(a + b); !(a && b); (a ? b : c) + 1; a + (b ? c : d); (a = b) ? c : d;
        }
    """,
    "templates": """
        StructuredBuffer<vector<float, 2>> nested;
        RWTexture2D<unorm float4> tex;
        RWStructuredBuffer<matrix<float, 4, 4> > mats;
        RWTexture2D<snorm float2> snormTex;
        vector<float, (4 >> 1)> shifted;
        vector<float, (2 > 1 ? 3 : 4)> chosen;
        vector<float, 1 + 1> summed;
        ByteAddressBuffer raw;
        template <typename T> T twice(T v) { return v + v; }
        template <class T, uint N = 4> T pick(T v) { return v; }
        template <typename T = float> struct Box { T value; };
        struct Conv { template <typename U> U conv(U u) { return u; } };
        Box<float> box;
        void f()
        {
            uint2 a = raw.Load<uint2>(0);
            float b = twice<float>(1.0f);
            float c = pick<float>(b);
            vector<float, 2> v = vector<float, 2>(1, 2);
        }
    """,
    "namespaces": """
        namespace ns
        {
            struct S { uint a; };
            uint f() { return 1; }
            namespace inner { static const uint k = 2; }
        }
        ns::S s;
        uint g() { return ns::f() + ns::inner::k; }
    """,
    "enums": """
        enum Color { Red, Green = 2, Blue, };
        enum class Mode : uint { Off, On = 1 << 2 };
        enum struct Scoped { X };
        enum : int { Anonymous = 3 };
        enum Empty { };
        void f() { Mode m = Mode::On; Color c = Green; }
    """,
    "typedefs": """
        typedef float4 Color4, Pair[2];
        typedef const uint ConstU;
        typedef vector<float, 3> V3;
        typedef struct { float a; float b; } AB;
        typedef struct Tagged { uint t; } TaggedAlias;
        AB ab;
        Pair pair;
        TaggedAlias tagged;
    """,
    "buffers_and_bindings": """
        struct S { float4 v; };
        cbuffer CB : register(b0, space1) { float4 a : packoffset(c0); float b : packoffset(c1.y); row_major float4x4 m; };
        tbuffer TB : register(t0) { float c; }
        [[vk::binding(2)]] cbuffer VB { uint q; };
        [[vk::binding(0, 1)]] RWStructuredBuffer<uint> buf : register(u0);
        [[vk::push_constant]] ConstantBuffer<S> pushed;
        RWBuffer<uint> profiled : register(ps, u1);
        Texture2D tex : register(t1, space2);
        globallycoherent RWByteAddressBuffer counters : register(u3);
        SamplerState smp : register(s0);
    """,
    "structs": """
        struct Base { uint id; };
        [NodeTrackRWInputSharing] struct Derived : Base
        {
            float3 pos : POSITION;
            float w[4];
            float len() const;
            float get() { return w[0]; }
            static const uint K = 3;
            struct Inner { int i; };
            enum InnerE { IE };
            typedef float InnerF;
            ;
        };
        float Derived::len() const { return length(pos); }
        struct [NodeTrackRWInputSharing] AttributeAfterKeyword { uint a; };
        struct Forward;
        struct { float q; } anonymousVar;
        struct Named { int z; } namedVar, namedArr[2];
        struct NoFields { };
        interface IFoo { float f(); };
        class Klass { float x; };
    """,
    "globals_and_state_objects": """
        GlobalRootSignature rs = { "UAV(u0)" };
        LocalRootSignature lrs = { "RootConstants(num32BitConstants = 1, b0)" };
        StateObjectConfig cfg = { STATE_OBJECT_FLAGS_ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITIONS };
        SubobjectToExportsAssociation assoc = { "lrs", "f;g" };
        static const float kPi = 3.14159f;
        groupshared uint gs[64];
        static const uint kArr[3] = { 1, 2, 3 };
        static const float2 kNested[2] = { { 1.0, 2.0 }, { 3.0, 4.0 }, };
        static const string kEscapes = "quote\\" backslash\\\\ nl\\n tab\\t cr\\r nul\\0 bel\\a bs\\b ff\\f vt\\v q\\? ap\\' end";
        static const string kJoined = "ab" "cd";
        uint emptyInit[] = {};
        precise float p;
        nointerpolation float ni;
        export float exported();
        inline float inlined() { return 1; }
        static float helper(float x) { return x; }
        ;
    """,
    "literals": """
        void f()
        {
            uint a = 0x2Au; uint b = 7ul; uint c = 0XFFu; int d = 010; uint e = 42U; uint64_t f = 1ull;
            float g = 1.5f; float h = .5; float i = 1.; float j = 1e-3; half k = 2.0h; double l = 3.0L;
            float m = 1E+4f; float n2 = 2.5e3F; bool t = true, u = false;
        }
    """,
    "parameters_and_node_shaders": """
        struct R { uint3 grid : SV_DispatchGrid; };
        float f(in float a, out float b, inout float c, uniform float d = 2.0f, float e[2] : TEXCOORD0,
                const float g = 1 + 2, float, int[2], float h[] = 1, float x = (1, 2));
        [Shader("node")]
        [NodeLaunch("broadcasting")]
        [NodeMaxDispatchGrid(16, 1, 1)]
        [NumThreads(64, 1, 1)]
        void entry(DispatchNodeInputRecord<R> input,
                   [MaxRecords(4)] [NodeID("next", 2)] NodeOutput<R> next,
                   [MaxRecordsSharedWith(next)] [AllowSparseNodes] [NodeArraySize(3)] NodeOutputArray<R> arr,
                   uint tid : SV_GroupIndex)
        {
            Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);
        }
        [numthreads(8, 8, 1)] void cs(uint3 id : SV_DispatchThreadID) { }
        float4 ps(float4 pos : SV_Position) : SV_Target { return pos; }
        [unroll()] void emptyArgs();
    """,
    "sizeof_and_init_lists": """
        struct S { uint a; float2 b; float c[2]; };
        void f(float x)
        {
            uint a = sizeof(float4);
            uint b = sizeof x;
            uint c = sizeof(S) + sizeof(x.y);
            uint d = sizeof -x;
            float4 v[2] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } };
            S s = { 1, { 2, 3 }, float2(4, 5) };
            S t = { a, b, { c, d } };
        }
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_inline_source_round_trips(name: str) -> None:
    round_trip(CASES[name])


def test_inline_sources_cover_every_node_type() -> None:
    seen: set[type] = set()
    for text in CASES.values():
        seen |= node_types_in(parse_clean(text))
    assert all_node_types() - seen == set()


def test_literals_keep_their_spelling_and_strings_are_re_escaped() -> None:
    printed = round_trip(CASES["literals"] + CASES["globals_and_state_objects"])
    for spelling in ("0x2Au", "7ul", "0XFFu", "= 010;", "42U", "1ull", "= .5;", "= 1.;", "1e-3",
                     "2.0h", "3.0L", "1E+4f", "2.5e3F"):
        assert spelling in printed
    assert ('"quote\\" backslash\\\\ nl\\n tab\\t cr\\r nul\\000 bel\\a bs\\b ff\\f vt\\v q? ap\' end"'
            in printed)
    assert 'kJoined = "abcd";' in printed


def test_the_printer_has_a_handler_for_every_node_type() -> None:
    assert _Printer().handled_node_types() == all_node_types()


def test_unknown_nodes_are_an_error_not_skipped() -> None:
    @dataclasses.dataclass(frozen=True)
    class Strange(ast.Node):
        pass

    strange = Strange(SPAN)
    void = ast.TypeRef(SPAN, ("void",))
    for body in ((ast.ExprStmt(SPAN, strange),), (strange,)):
        func = ast.FunctionDecl(SPAN, (), (), void, ("f",), (), (), ast.Block(SPAN, body))
        with pytest.raises(TypeError, match="Strange"):
            print_hlsl(ast.TranslationUnit(SPAN, (func,)))
    with pytest.raises(TypeError, match="Strange"):
        print_hlsl(ast.TranslationUnit(SPAN, (strange,)))
    with pytest.raises(TypeError):
        print_hlsl(void)  # type: ignore[arg-type]


# The printed form of single expressions: the fewest parentheses that keep the tree.
EXPRESSIONS = [
    ("a - (b - c)", "a - (b - c)"),
    ("(a - b) - c", "a - b - c"),
    ("a = (b = c)", "a = b = c"),
    ("(a = b) = c", "(a = b) = c"),
    ("foo((a, b), c)", "foo((a, b), c)"),
    ("x ? y : (z ? w : v)", "x ? y : z ? w : v"),
    ("(x ? y : z) ? w : v", "(x ? y : z) ? w : v"),
    ("x ? (y, z) : w", "x ? y, z : w"),
    ("x ? y : (z = w)", "x ? y : z = w"),
    ("(x ? y : z) = w", "(x ? y : z) = w"),
    ("-(-x)", "- -x"),
    ("- -x", "- -x"),
    ("-(--x)", "- --x"),
    ("--(-x)", "-- -x"),
    ("+(+x)", "+ +x"),
    ("(float3)(-x)", "(float3)-x"),
    ("(float)((int)x)", "(float)(int)x"),
    ("((float)x).y", "((float)x).y"),
    ("(float)(x.y)", "(float)x.y"),
    ("++((float)x)", "++((float)x)"),
    ("-((float)x)", "-(float)x"),
    ("(a < b) > c", "a < b > c"),
    ("a < (b > c)", "a < (b > c)"),
    ("a << (b + c)", "a << b + c"),
    ("(a << b) + c", "(a << b) + c"),
    ("(a * b) * c", "a * b * c"),
    ("a * (b * c)", "a * (b * c)"),
    ("(a && b) || c", "a && b || c"),
    ("a && (b || c)", "a && (b || c)"),
    ("(a & b) == c", "(a & b) == c"),
    ("a & (b == c)", "a & b == c"),
    ("(-x).y", "(-x).y"),
    ("(1).x", "(1).x"),
    ("(a + b)[0]", "(a + b)[0]"),
    ("f3[(a, b)]", "f3[a, b]"),
    ("(a, b), c", "a, b, c"),
    ("a, (b, c)", "a, (b, c)"),
    ("(x++)++", "x++++"),
    ("sizeof x", "sizeof(x)"),
    ("(sizeof x)++", "(sizeof(x))++"),
    ("sizeof((float)x)", "sizeof((float)x)"),
    ("x = (a, b)", "x = (a, b)"),
    ("(a ? b : c) + 1", "(a ? b : c) + 1"),
    ("(((a)))", "a"),
    ("buf.Load<uint2>(0)", "buf.Load<uint2>(0)"),
    ("0x2Au + 1.5e-3f + .5h", "0x2Au + 1.5e-3f + .5h"),
]


@pytest.mark.parametrize(("source", "expected"), EXPRESSIONS)
def test_expression_gets_minimal_parentheses(source: str, expected: str) -> None:
    printed = round_trip(f"void f()\n{{\n    {source};\n}}\n")
    assert printed == f"void f()\n{{\n    {expected};\n}}\n"


def test_template_argument_expressions_cannot_close_the_argument_list() -> None:
    printed = round_trip("vector<float, (4 >> 1)> a;\nvector<float, ((2 > 1) ? 3 : 4)> b;\n"
                         "vector<float, (1 + 1)> c;\ntemplate <uint N = (2 > 1)> uint f();\n")
    assert printed == ("vector<float, (4 >> 1)> a;\nvector<float, (2 > 1 ? 3 : 4)> b;\n"
                       "vector<float, 1 + 1> c;\n\ntemplate <uint N = (2 > 1)>\nuint f();\n")


def test_layout() -> None:
    source = """
        [Shader("node")] [NodeLaunch("thread")]
        void node([MaxRecords(1)] NodeOutput<R> o, uint i : SV_GroupIndex) {
          [unroll] for (uint k = 0; k < 4; ++k) { if (k == i) continue; else if (k) { o.x = k; } else break; }
          switch (i) { case 0: case 1: i++; default: { return; } }
          do i--; while (i);
        }
        struct R { uint x; float f() { return 1; } };
        cbuffer C : register(b0) { float a; float b; };
        enum class E : uint { A, B = 2 };
        namespace N { static const uint k = 1; }
        typedef struct { float a; } T;
        [[vk::binding(0, 1)]] RWBuffer<uint> b : register(u0, space1);
        static const float2 kv[2] = { { 1, 2 }, {} };
        float longFunctionName(float firstParameter, float secondParameter, float thirdParameter, float fourth);
    """
    expected = """\
[Shader("node")]
[NodeLaunch("thread")]
void node([MaxRecords(1)] NodeOutput<R> o, uint i : SV_GroupIndex)
{
    [unroll] for (uint k = 0; k < 4; ++k)
    {
        if (k == i)
            continue;
        else if (k)
        {
            o.x = k;
        }
        else
            break;
    }
    switch (i)
    {
        case 0:
        case 1:
            i++;
        default:
            {
                return;
            }
    }
    do
        i--;
    while (i);
}

struct R
{
    uint x;

    float f()
    {
        return 1;
    }
};

cbuffer C : register(b0)
{
    float a;
    float b;
};

enum class E : uint
{
    A,
    B = 2
};

namespace N
{
    static const uint k = 1;
}

typedef struct
{
    float a;
} T;

[[vk::binding(0, 1)]] RWBuffer<uint> b : register(u0, space1);
static const float2 kv[2] = { { 1, 2 }, {} };

float longFunctionName(
    float firstParameter,
    float secondParameter,
    float thirdParameter,
    float fourth);
"""
    assert round_trip(source) == expected


def test_empty_unit_prints_nothing() -> None:
    assert print_hlsl(parse_clean("")) == ""
    assert round_trip(";\n") == ";\n"


# ---------------------------------------------------------------- (c) random expressions


def _int(text: str) -> ast.IntLiteral:
    digits = text.rstrip("uUlL")
    base = 16 if digits[:2].lower() == "0x" else 8 if len(digits) > 1 and digits[0] == "0" else 10
    return ast.IntLiteral(SPAN, int(digits, base), text[len(digits):].lower(), text)


def _float(text: str) -> ast.FloatLiteral:
    body = text.rstrip("fFhHlL")
    return ast.FloatLiteral(SPAN, float(body), text[len(body):].lower(), text)


def _type(*name: str, args: tuple = None) -> ast.TypeRef:  # type: ignore[assignment]
    return ast.TypeRef(SPAN, name, args)


TYPES = st.sampled_from([
    _type("float"), _type("uint"), _type("float3"), _type("int2x2"),
    _type("vector", args=(_type("float"), _int("2"))),
])
LEAVES = st.one_of(
    st.sampled_from([("a",), ("b",), ("x",), ("ns", "v")]).map(lambda n: ast.NameExpr(SPAN, n)),
    st.sampled_from(["0", "1", "42", "0x2A", "7u", "0x10UL", "010", "3ull"]).map(_int),
    st.sampled_from(["1.0", "0.5f", ".25", "2.", "1e3", "1.5e-2h", "3.0L"]).map(_float),
    st.booleans().map(lambda b: ast.BoolLiteral(SPAN, b)),
    st.text(alphabet='ab1 "\\\n\t\0?', max_size=4).map(lambda s: ast.StringLiteral(SPAN, s)),
)
BINARY_OPS = [",", "||", "&&", "|", "^", "&", "==", "!=", "<", ">", "<=", ">=", "<<", ">>",
              "+", "-", "*", "/", "%"]
ASSIGN_OPS = ["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="]


def _compound(sub: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    args = st.lists(sub, max_size=3).map(tuple)
    dims = st.lists(st.one_of(st.none(), st.sampled_from(["2", "4"]).map(_int)), max_size=2).map(tuple)
    unary = st.builds(lambda op, e: ast.UnaryExpr(SPAN, op, e),
                      st.sampled_from(["-", "+", "!", "~", "++", "--"]), sub)
    binary = st.builds(lambda op, l, r: ast.BinaryExpr(SPAN, op, l, r),
                       st.sampled_from(BINARY_OPS), sub, sub)
    return st.one_of(  # operators first and more often: they are what parenthesisation is about
        binary, binary, binary, unary, unary,
        st.builds(lambda op, e: ast.PostfixExpr(SPAN, op, e), st.sampled_from(["++", "--"]), sub),
        st.builds(lambda op, t, v: ast.AssignExpr(SPAN, op, t, v), st.sampled_from(ASSIGN_OPS), sub, sub),
        st.builds(lambda c, t, e: ast.ConditionalExpr(SPAN, c, t, e), sub, sub, sub),
        st.builds(lambda t, d, e: ast.CastExpr(SPAN, t, d, e), TYPES, dims, sub),
        st.builds(lambda t, a: ast.ConstructExpr(SPAN, t, a), TYPES, args),
        st.builds(lambda c, a: ast.CallExpr(SPAN, c, None, a), sub, args),
        st.builds(lambda o, a: ast.CallExpr(SPAN, ast.MemberExpr(SPAN, o, "Load"), (_type("uint2"),), a),
                  sub, args),
        st.builds(lambda t, a: ast.CallExpr(SPAN, ast.NameExpr(SPAN, ("twice",)), (t,), a), TYPES, args),
        st.builds(lambda o, m: ast.MemberExpr(SPAN, o, m), sub, st.sampled_from(["x", "yz", "Get"])),
        st.builds(lambda o, i: ast.IndexExpr(SPAN, o, i), sub, sub),
        st.builds(lambda e: ast.SizeofExpr(SPAN, e), st.one_of(sub, TYPES)),
    )


def _operators(sub: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    args = st.lists(sub, min_size=1, max_size=2).map(tuple)
    return st.one_of(
        st.builds(lambda op, l, r: ast.BinaryExpr(SPAN, op, l, r),
                  st.sampled_from(BINARY_OPS + [",", ",", "-", "<", ">>"]), sub, sub),
        st.builds(lambda op, e: ast.UnaryExpr(SPAN, op, e), st.sampled_from(["-", "+", "!", "++", "--"]), sub),
        st.builds(lambda op, t, v: ast.AssignExpr(SPAN, op, t, v), st.sampled_from(["=", "-="]), sub, sub),
        st.builds(lambda c, t, e: ast.ConditionalExpr(SPAN, c, t, e), sub, sub, sub),
        st.builds(lambda e: ast.CastExpr(SPAN, _type("int"), (), e), sub),
        st.builds(lambda e: ast.PostfixExpr(SPAN, "--", e), sub),
        st.builds(lambda o: ast.MemberExpr(SPAN, o, "x"), sub),
        st.builds(lambda a: ast.CallExpr(SPAN, ast.NameExpr(SPAN, ("f",)), None, a), args),
        st.builds(lambda o, i: ast.IndexExpr(SPAN, o, i), sub, sub),
        st.builds(lambda e: ast.SizeofExpr(SPAN, e), sub),
    )


def _nested(leaves: st.SearchStrategy[ast.Expr], extend, depth: int) -> st.SearchStrategy[ast.Expr]:
    """Trees up to `depth` deep, a leaf a third of the time at each level (st.recursive mostly
    draws tiny trees, too few of which nest operators of equal precedence)."""
    strategy = leaves
    for _ in range(depth):
        strategy = st.one_of(leaves, extend(strategy), extend(strategy))
    return strategy


EXPRS = _nested(LEAVES, _compound, 4)
"""Every expression node, literal spelling and call form."""
OPERATOR_EXPRS = _nested(
    st.one_of(st.sampled_from("abc").map(lambda n: ast.NameExpr(SPAN, (n,))), st.just(_int("1"))),
    _operators, 5)
"""Dense operator trees: where precedence, associativity and `- -x` spacing matter."""
PRELUDE = parse_clean("template <typename T> T twice(T v);\n")


def assert_expressions_round_trip(exprs: list[ast.Expr]) -> None:
    body = ast.Block(SPAN, tuple(ast.ExprStmt(SPAN, e) for e in exprs))
    func = ast.FunctionDecl(SPAN, (), (), _type("void"), ("f",), (), (), body)
    unit = ast.TranslationUnit(SPAN, (*PRELUDE.decls, func))
    printed = print_hlsl(unit)
    reparsed = parse_clean(printed, "printed.hlsl")
    assert [s.expr for s in reparsed.decls[-1].body.stmts] == exprs, printed
    assert print_hlsl(reparsed) == printed


# Several statements per example: more nodes per parse, so rare adjacencies (`- -x`,
# `a ? b : (c, d)`, `sizeof(a + b)`) turn up within the example budget.
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EXPRS, min_size=1, max_size=6))
def test_random_expressions_round_trip(exprs: list[ast.Expr]) -> None:
    assert_expressions_round_trip(exprs)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATOR_EXPRS, min_size=1, max_size=8))
def test_random_operator_trees_round_trip(exprs: list[ast.Expr]) -> None:
    assert_expressions_round_trip(exprs)
