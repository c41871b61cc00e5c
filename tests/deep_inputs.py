"""Generators of deep, long and odd HLSL inputs, shared by tests/test_limits.py, tests/test_fuzz_depth.py,
tests/test_fuzz_limits.py, benchmarks/frontend.py and benchmarks/fuzz_limits.py (`hostile`).

Each generator returns the whole text of a file whose one node shader (`main`, a broadcasting
node of one thread) holds the construct, so that every stage of the pipeline sees it.
"""

from __future__ import annotations

HEADER = """RWStructuredBuffer<uint> Out : register(u0);
"""

NODE = """[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(1, 1, 1)]
void main(uint t : SV_DispatchThreadID)
{{
    uint a = t;
{body}
    Out[0] = a;
}}
"""


def node_file(body: str, before: str = "") -> str:
    """A file with `before` at top level and `body` inside the node shader `main` (uint `a` in scope)."""
    return HEADER + before + NODE.format(body=body)


def else_if_chain(arms: int) -> str:
    parts = [f"if (a == {i}u) a = {i + 1}u;" for i in range(arms)]
    return node_file("    " + "\n    else ".join(parts) + "\n")


def long_expression(operands: int, op: str = "+") -> str:
    return node_file("    a = " + f" {op} ".join(["a"] * operands) + ";\n")


def nested_blocks(depth: int) -> str:
    return node_file("    " + "{" * depth + " a = a + 1u; " + "}" * depth + "\n")


def nested_parens(depth: int) -> str:
    return node_file("    a = " + "(" * depth + "a + 1u" + ")" * depth + ";\n")


def nested_calls(depth: int) -> str:
    return node_file("    a = " + "max(" * depth + "a" + ", 1u)" * depth + ";\n")


def nested_loops(depth: int, kind: str = "for") -> str:
    if kind == "for":
        head = "".join(f"for (uint i{i} = 0; i{i} < 1u; ++i{i}) " for i in range(depth))
        return node_file("    " + head + "a = a + 1u;\n")
    if kind == "while":
        return node_file("    " + "while (a < 1u) " * depth + "a = a + 1u;\n")
    assert kind == "do"
    return node_file("    " + "do " * depth + "a = a + 1u;" + " while (a < 1u);" * depth + "\n")


def nested_ifs(depth: int) -> str:
    return node_file("    " + "if (a < 5u) " * depth + "a = a + 1u;\n")


def nested_ternaries(depth: int) -> str:
    """`a < 1u ? (a < 2u ? (... : a) : a) : a`, nested in the middle operand."""
    return node_file("    a = " + "a < 1u ? (" * depth + "a" + ") : a" * depth + ";\n")


def ternary_chain(length: int) -> str:
    """`a == 0u ? 1u : a == 1u ? 2u : ...`, nested in the last operand (no parentheses)."""
    return node_file("    a = " + "".join(f"a == {i}u ? {i}u : " for i in range(length)) + "a;\n")


def nested_unary(depth: int, op: str = "-") -> str:
    sep = " " if op in ("-", "+") else ""
    return node_file("    a = " + (op + sep) * depth + "a;\n")


def nested_casts(depth: int) -> str:
    return node_file("    a = " + "(uint)" * depth + "a;\n")


def nested_indexes(depth: int) -> str:
    return node_file("    a = " + "Out[" * depth + "0" + "]" * depth + ";\n")


def swizzle_chain(length: int) -> str:
    return node_file("    uint2 v = uint2(a, a);\n    a = v" + ".x" * length + ";\n")


def assignment_chain(length: int) -> str:
    return node_file("    uint b = 0;\n    " + "a = b = " * length + "a;\n")


def comma_chain(length: int) -> str:
    return node_file("    a = (" + ", ".join(["a"] * length) + ");\n")


def nested_init_lists(depth: int) -> str:
    return node_file("    uint v[1] = " + "{" * depth + "a" + "}" * depth + ";\n    a = v[0];\n")


def nested_structs(depth: int) -> str:
    """struct S0 { struct S1 { ... uint x; } s; } : definitions nested `depth` deep."""
    text = "uint x;"
    for i in reversed(range(depth)):
        text = f"struct S{i} {{ {text} }} s{i};" if i else f"struct S{i} {{ {text} }};"
    # S0's members: s1.s2....x
    path = ".".join(f"s{i}" for i in range(1, depth)) + ("." if depth > 1 else "") + "x"
    return node_file(f"    S0 v;\n    v.{path} = a;\n    a = v.{path};\n", before=text + "\n")


def struct_chain(depth: int) -> str:
    """struct S1 { S0 s; }; ... each struct holds the one before (type nesting, flat text)."""
    lines = ["struct S0 { uint x; };"]
    lines += [f"struct S{i} {{ S{i - 1} s; }};" for i in range(1, depth)]
    path = "s." * (depth - 1) + "x"
    return node_file(f"    S{depth - 1} v;\n    v.{path} = a;\n    a = v.{path};\n",
                     before="\n".join(lines) + "\n")


def nested_templates(depth: int) -> str:
    """template<typename T> struct W { T v; }; W<W<...<uint>...>> nested `depth` deep."""
    type_ = "W<" * depth + "uint" + ">" * depth
    path = ".v" * depth
    return node_file(f"    {type_} w;\n    w{path} = a;\n    a = w{path};\n",
                     before="template <typename T> struct W { T v; };\n")


def function_chain(count: int) -> str:
    """f0 calls f1 calls ... f{count-1}; defined callee first."""
    lines = [f"uint f{count - 1}(uint x) {{ return x + 1u; }}"]
    lines += [f"uint f{i}(uint x) {{ return f{i + 1}(x) + 1u; }}" for i in reversed(range(count - 1))]
    return node_file("    a = f0(a);\n", before="\n".join(lines) + "\n")


def node_chain(length: int) -> str:
    """Thread-launch nodes N0 -> N1 -> ... -> N{length-1} (a graph deeper than any limit)."""
    parts = ["struct R { uint v; };\n"]
    for i in range(length):
        output = f", [MaxRecords(1)] NodeOutput<R> N{i + 1}" if i + 1 < length else ""
        launch = ('[NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]'
                  if i == 0 else '[NodeLaunch("thread")]')
        inp = "" if i == 0 else "ThreadNodeInputRecord<R> input"
        sep = ", " if inp and output else ""
        parts.append(f'[Shader("node")] {launch}\nvoid N{i}({inp}{sep}{output[2:] if not inp else output[2:]}) {{ }}\n')
    return "".join(parts)


def nested_preprocessor_ifs(depth: int) -> str:
    return "#if 1\n" * depth + node_file("    a = a + 1u;\n") + "#endif\n" * depth


def macro_chain(depth: int) -> str:
    """#define M1 (M0 + 1u) ... : each macro expands to the one before (expansion `depth` deep)."""
    lines = ["#define M0 a"] + [f"#define M{i} (M{i - 1} + 1u)" for i in range(1, depth)]
    return "\n".join(lines) + "\n" + node_file(f"    a = M{depth - 1};\n")


def many_statements(count: int, one_line: bool = False) -> str:
    """`count` statements `a = a + 1u;`, one per line or all on one line."""
    if one_line:
        return node_file("    " + "a = a + 1u; " * count + "\n")
    return node_file("    a = a + 1u;\n" * count)


def struct_base_chain(depth: int) -> str:
    """struct S1 : S0 { uint x1; }; ... each struct derives from the one before."""
    lines = ["struct S0 { uint x0; };"]
    lines += [f"struct S{i} : S{i - 1} {{ uint x{i}; }};" for i in range(1, depth)]
    return node_file(f"    S{depth - 1} v;\n    v.x0 = a;\n    a = v.x0;\n", before="\n".join(lines) + "\n")


def nested_logical(depth: int, op: str = "&&") -> str:
    """`a < 1u && (a < 2u && (...))`: each `&&` nested in the right operand of the one before."""
    return node_file("    a = (" + "".join(f"a < {i}u {op} (" for i in range(depth)) + "true" + ")" * depth + ") ? 1u : 0u;\n")


def macro_bomb(levels: int) -> str:
    """#define M0 M1 M1, #define M1 M2 M2, ...: one use of M0 expands to 2^levels tokens."""
    lines = [f"#define M{i} M{i + 1} M{i + 1}" for i in range(levels)] + [f"#define M{levels} + a"]
    return "\n".join(lines) + "\n" + node_file("    a = 0u M0;\n")


# ---------------------------------------------------------------- hostile inputs (fuzz_limits)

HOSTILE_EXPRESSION_WRAPPERS = (
    lambda e: "(" + e + ")", lambda e: "-" + e, lambda e: "!" + e, lambda e: "~" + e, lambda e: "(uint)" + e,
    lambda e: "max(" + e + ", 1u)", lambda e: "a < 1u ? (" + e + ") : a", lambda e: "a == 3u ? 1u : " + e,
    lambda e: "a && (" + e + ")", lambda e: "Out[" + e + "]", lambda e: "a = " + e, lambda e: e + " + a",
    lambda e: "uint2(" + e + ", a).x",
)
HOSTILE_STATEMENT_WRAPPERS = (
    lambda s: "{ " + s + " }", lambda s: "if (a < 5u) " + s, lambda s: "if (a) a = 1u; else " + s,
    lambda s: "while (a < 1u) " + s, lambda s: "do " + s + " while (a < 1u);",
    lambda s: "for (uint i = 0; i < 2u; ++i) " + s, lambda s: "switch (a) { case 0: " + s + " break; }",
)


def hostile(rng, scale: float = 1.0) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """One random hostile input, (kind, text): deep nesting of random kinds, huge literals, long
    identifiers, giant macro expansions, long chains of structs or functions.  `scale` multiplies
    the sizes (1.0: up to about twice wgc's limits; the suite uses less)."""
    kind = rng.choice(["nesting", "mixed-nesting", "literal", "identifier", "macro-bomb", "macro-chain",
                       "macro-flat", "struct-chain", "base-chain", "function-chain", "else-if", "long-line",
                       "preprocessor-ifs", "init-list", "templates", "garbage"])
    def size(high: int) -> int:
        return max(1, int(rng.randint(1, high) * scale))

    if kind == "nesting":   # one construct, at a random depth around the parser's limit
        wrap = rng.choice(HOSTILE_EXPRESSION_WRAPPERS)
        expr = "a"
        for _ in range(size(9000)):
            expr = wrap(expr)
        return kind, node_file(f"    a = {expr};\n")
    if kind == "mixed-nesting":
        expr = "a"
        for _ in range(size(3000)):
            expr = rng.choice(HOSTILE_EXPRESSION_WRAPPERS)(expr)
        stmt = f"a = {expr};"
        for _ in range(size(600)):
            stmt = rng.choice(HOSTILE_STATEMENT_WRAPPERS)(stmt)
        return kind, node_file("    " + stmt + "\n")
    if kind == "literal":
        digits = size(200_000)
        literal = rng.choice(["1" * digits + "u", "0x" + "f" * digits, "0" + "7" * digits, "1." + "5" * digits,
                              "1e" + "9" * min(digits, 50_000), "0" + "9" * digits, '"' + "s" * digits + '"'])
        if literal.startswith('"'):
            return kind, node_file("", before=f'[Shader("node")] [NodeLaunch("thread")] [NodeID({literal})] void S() {{ }}\n')
        return kind, node_file(f"    a = (uint)({literal});\n")
    if kind == "identifier":
        name = "x" * size(500_000)
        return kind, node_file(f"    uint {name} = a;\n    a = {name};\n")
    if kind == "macro-bomb":
        return kind, macro_bomb(rng.randint(5, 40))
    if kind == "macro-chain":
        return kind, macro_chain(size(4000))
    if kind == "macro-flat":
        count = size(20_000)
        return kind, "#define BIG " + "a + " * count + "a\n" + node_file("    a = BIG + BIG + BIG;\n" * size(20))
    if kind == "struct-chain":
        return kind, struct_chain(size(5000))
    if kind == "base-chain":
        return kind, struct_base_chain(size(5000))
    if kind == "function-chain":
        return kind, function_chain(size(3000))
    if kind == "else-if":
        return kind, else_if_chain(size(2000))
    if kind == "long-line":
        return kind, node_file("    a = a" + " + a" * size(30_000) + ";\n")
    if kind == "preprocessor-ifs":
        return kind, nested_preprocessor_ifs(size(5000))
    if kind == "init-list":
        return kind, nested_init_lists(size(9000))
    if kind == "templates":
        return kind, nested_templates(size(5000))
    alphabet = "(){}[]<>?:;,.+-*/%!~&|^=#\\\"'abuxf019 \n"
    return kind, "".join(rng.choice(alphabet) for _ in range(size(20_000)))
