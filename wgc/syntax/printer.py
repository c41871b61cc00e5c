"""Stage 2, output side of syntax: AST -> HLSL text (the pretty-printer).

Input: a `wgc.syntax.ast.TranslationUnit`, normally one built by
`wgc.syntax.parse`.  Output: conventionally formatted HLSL source text:
4-space indentation, braces on their own line (Allman, like the samples), one
declaration per line, attributes on their own line before functions, structs
and buffers and inline before variables, parameters and statements.

How it works: one dispatch table per kind of output, keyed by node class:
block-shaped nodes (declarations, statements) become a list of lines,
inline nodes (types, attributes, declarators, ...) become a string, and
expressions become `(text, precedence)`.  A node class missing from the tables
raises TypeError; nothing is ever skipped silently.  Expressions get the
fewest parentheses that make `grammar/hlsl.lark` re-read the same tree: an
operand is wrapped only when its precedence is below what its position demands.

Invariants (for every tree the parser produces; spans are ignored):
- parse(print(ast)) == ast, and print(parse(print(ast))) == print(ast).
- Not kept (not in the AST): comments, preprocessor lines, `class` versus
  `typename` in template headers, `enum struct` versus `enum class`, trailing
  commas, where a struct's attributes stood, and the spelling of string
  literals (adjacent literals print as one).  Integer and float literals are
  printed exactly as written (their `text`).
- Hand-built trees no parse can give (an else-less `if` as the `then` of an
  `if` with `else`, an InitList outside an initializer, template arguments on a
  callee that is not a name or member) print as they are and need not round-trip.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from wgc.syntax import ast

INDENT = "    "
MAX_SIGNATURE = 100
"""A function head longer than this puts each parameter on its own line."""

# Precedence levels, loosest first, as the parser applies them (the binary levels by
# precedence climbing over grammar/hlsl.lark's flat operator chain).
(COMMA, ASSIGN, CONDITIONAL, LOGICAL_OR, LOGICAL_AND, BIT_OR, BIT_XOR, BIT_AND, EQUALITY,
 RELATIONAL, SHIFT, ADDITIVE, MULTIPLICATIVE, CAST, UNARY, POSTFIX, PRIMARY) = range(17)

BINARY_PRECEDENCE = {",": COMMA, **{op: LOGICAL_OR - 1 + level
                                     for op, level in ast.BINARY_OPERATOR_PRECEDENCE.items()}}

_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\000",
                   "\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"}
_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')


def print_hlsl(unit: ast.TranslationUnit) -> str:
    """The HLSL text of a translation unit (ends with a newline unless empty)."""
    if not isinstance(unit, ast.TranslationUnit):
        raise TypeError(f"print_hlsl expects a TranslationUnit, got {type(unit).__name__}")
    lines = _flatten(_PRINTER.lines(unit))
    return "\n".join(lines) + "\n" if lines else ""


def print_expr(node: ast.Expr) -> str:
    """One expression, as it would be printed as a statement (for messages and summaries)."""
    return _PRINTER.expr(node)


def print_attribute(node: ast.Attribute) -> str:
    """One attribute as written in HLSL (`[NodeLaunch("thread")]`)."""
    return _PRINTER.text(node)


def print_param(node: ast.Param) -> str:
    """One function parameter as written in HLSL, attributes included."""
    return _PRINTER.text(node)


def print_type(node: ast.TypeRef) -> str:
    """A written type (`RWStructuredBuffer<uint>`)."""
    return _PRINTER.text(node)


def quote_string(value: str) -> str:
    """A string literal that the parser reads back as `value`."""
    return '"' + "".join(_STRING_ESCAPES.get(ch, ch) for ch in value) + '"'


class _Nest:
    """Lines one level deeper than those around them, indented only when the whole text is joined
    (`_flatten`): indenting them at each level copied every inner line once per level, which made
    printing a program nested N deep take N^2 (and N^3 characters)."""

    __slots__ = ("lines",)

    def __init__(self, lines: list[Any]) -> None:
        self.lines = lines


MAX_INDENT_LEVELS = 32
"""Lines nested deeper are indented as deep as this (the text of input nested thousands of levels
deep stays linear in its size)."""


def _indented(lines: list[Any]) -> list[Any]:
    return [_Nest(lines)]


def _flatten(lines: list[Any]) -> list[str]:
    """The lines as text: each `_Nest` indented (iteratively: nesting may be thousands deep)."""
    out: list[str] = []
    stack = [(iter(lines), "")]
    while stack:
        items, indent = stack[-1]
        for line in items:
            if type(line) is _Nest:
                deeper = indent + INDENT if len(indent) < MAX_INDENT_LEVELS * len(INDENT) else indent
                stack.append((iter(line.lines), deeper))
                break
            out.append(indent + line if line else line)
        else:
            stack.pop()
    return out


def _has_top_level_angle(text: str) -> bool:
    """Does `text` hold a `<` or `>` outside brackets (it would end a template list)?"""
    depth = 0
    for ch in _STRING_RE.sub('""', text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in "<>" and depth == 0:
            return True
    return False


class _Printer:
    def __init__(self) -> None:
        self._line_printers: dict[type, Callable[[Any], list[str]]] = {
            ast.TranslationUnit: lambda n: self.decl_sequence(n.decls),
            ast.VarDecl: self.var_decl,
            ast.FunctionDecl: self.function_decl,
            ast.StructDecl: lambda n: self.with_semicolon(self.struct_spec(n)),
            ast.StructType: lambda n: self.struct_spec(n.decl),
            ast.TypedefDecl: self.typedef_decl,
            ast.EnumDecl: self.enum_decl,
            ast.NamespaceDecl: lambda n: [f"namespace {n.name}", "{",
                                          *_indented(self.decl_sequence(n.decls)), "}"],
            ast.BufferDecl: self.buffer_decl,
            ast.StateObjectDecl: lambda n: [f"{n.kind} {n.name} = {self.init(n.init)};"],
            ast.EmptyDecl: lambda n: [";"],
            ast.Block: self.block,
            ast.DeclStmt: lambda n: self.lines(n.decl),
            ast.ExprStmt: lambda n: [self.expr(n.expr) + ";"],
            ast.EmptyStmt: lambda n: [";"],
            ast.IfStmt: self.if_stmt,
            ast.ForStmt: self.for_stmt,
            ast.WhileStmt: lambda n: [f"{self.stmt_attrs(n)}while ({self.expr(n.cond)})",
                                      *self.body(n.body)],
            ast.DoWhileStmt: self.do_stmt,
            ast.SwitchStmt: self.switch_stmt,
            ast.SwitchCase: self.switch_case,
            ast.BreakStmt: lambda n: ["break;"],
            ast.ContinueStmt: lambda n: ["continue;"],
            ast.ReturnStmt: lambda n: ["return;" if n.value is None
                                       else f"return {self.expr(n.value)};"],
            ast.DiscardStmt: lambda n: ["discard;"],
        }
        self._text_printers: dict[type, Callable[[Any], str]] = {
            ast.Attribute: self.attribute,
            ast.TypeRef: self.type_ref,
            ast.Semantic: lambda n: f": {n.name}",
            ast.RegisterBinding: self.register_binding,
            ast.PackOffset: lambda n: f": packoffset({n.location})",
            ast.Declarator: self.declarator,
            ast.TemplateParam: self.template_param,
            ast.Param: self.param,
            ast.Enumerator: lambda n: n.name if n.value is None
            else f"{n.name} = {self.expr(n.value, CONDITIONAL)}",
        }
        self._expr_printers: dict[type, Callable[[Any], tuple[str, int]]] = {
            ast.NameExpr: lambda n: (self.qualified(n.name, n.scope_args), PRIMARY),
            ast.IntLiteral: lambda n: (n.text or f"{n.value}{n.suffix}", PRIMARY),
            ast.FloatLiteral: lambda n: (n.text or f"{n.value!r}{n.suffix}", PRIMARY),
            ast.BoolLiteral: lambda n: ("true" if n.value else "false", PRIMARY),
            ast.StringLiteral: lambda n: (quote_string(n.value), PRIMARY),
            ast.UnaryExpr: self.unary,
            ast.PostfixExpr: lambda n: (self.expr(n.operand, POSTFIX) + n.op, POSTFIX),
            ast.BinaryExpr: self.binary,
            ast.AssignExpr: lambda n: (f"{self.expr(n.target, UNARY)} {n.op} "
                                       f"{self.expr(n.value, ASSIGN)}", ASSIGN),
            ast.ConditionalExpr: lambda n: (f"{self.expr(n.cond, LOGICAL_OR)} ? "
                                            f"{self.expr(n.then, COMMA)} : "
                                            f"{self.expr(n.else_, ASSIGN)}", CONDITIONAL),
            ast.CastExpr: lambda n: (f"({self.type_ref(n.type)}{self.dims(n.array_dims)})"
                                     f"{self.expr(n.operand, CAST)}", CAST),
            ast.ConstructExpr: lambda n: (self.type_ref(n.type) + self.args(n.args), POSTFIX),
            ast.CallExpr: self.call,
            ast.MemberExpr: self.member,
            ast.IndexExpr: lambda n: (f"{self.expr(n.object, POSTFIX)}[{self.expr(n.index)}]",
                                      POSTFIX),
            ast.SizeofExpr: lambda n: (f"sizeof({self.type_ref(n.operand)})"
                                       if isinstance(n.operand, ast.TypeRef)
                                       else f"sizeof({self.expr(n.operand)})", UNARY),
            ast.InitList: lambda n: (self.init(n), PRIMARY),
        }

    def handled_node_types(self) -> frozenset[type]:
        """Every node class this printer knows (for tests: it must be all of `ast`)."""
        return frozenset(self._line_printers) | frozenset(self._text_printers) | frozenset(
            self._expr_printers)

    # ---------------------------------------------------------------- dispatch

    def lines(self, node: Any) -> list[str]:
        """A block-shaped node (declaration, statement, struct type) as lines, unindented."""
        printer = self._line_printers.get(type(node))
        if printer is None:
            raise TypeError(f"print_hlsl: no line printer for {type(node).__name__} node")
        return printer(node)

    def text(self, node: Any) -> str:
        """An inline node (type, attribute, declarator, parameter, ...) as one string."""
        printer = self._text_printers.get(type(node))
        if printer is None:
            raise TypeError(f"print_hlsl: no text printer for {type(node).__name__} node")
        return printer(node)

    def expr(self, node: Any, min_precedence: int = COMMA) -> str:
        """An expression, parenthesised when its precedence is below `min_precedence`."""
        printer = self._expr_printers.get(type(node))
        if printer is None:
            raise TypeError(f"print_hlsl: no expression printer for {type(node).__name__} node")
        text, precedence = printer(node)
        return f"({text})" if precedence < min_precedence else text

    # ---------------------------------------------------------------- declarations

    def decl_sequence(self, decls: tuple[Any, ...]) -> list[str]:
        """Declarations one after another, a blank line around every multi-line one."""
        out: list[str] = []
        previous: Any = None
        previous_multi = False
        for decl in decls:
            if isinstance(decl, ast.EmptyDecl) and isinstance(previous, ast.BufferDecl):
                out[-1] += ";"  # `cbuffer B { ... };` keeps its conventional semicolon
                previous = decl
                continue
            lines = self.lines(decl)
            multi = len(lines) > 1
            if out and (multi or previous_multi):
                out.append("")
            out.extend(lines)
            previous, previous_multi = decl, multi
        return out

    @staticmethod
    def with_semicolon(lines: list[str]) -> list[str]:
        return [*lines[:-1], lines[-1] + ";"]

    def type_lines(self, type_: Any, prefix: str, suffix: str) -> list[str]:
        """A declaration's type (a TypeRef or an inline struct) between prefix and suffix."""
        lines = [self.text(type_)] if isinstance(type_, ast.TypeRef) else self.lines(type_)
        if len(lines) == 1:
            return [prefix + lines[0] + suffix]
        return [prefix + lines[0], *lines[1:-1], lines[-1] + suffix]

    def var_decl(self, node: ast.VarDecl) -> list[str]:
        prefix = "".join(self.text(a) + " " for a in node.attributes)
        prefix += "".join(m + " " for m in node.modifiers)
        declarators = ", ".join(self.text(d) for d in node.declarators)
        return self.type_lines(node.type, prefix, f" {declarators};")

    def typedef_decl(self, node: ast.TypedefDecl) -> list[str]:
        prefix = "typedef " + "".join(m + " " for m in node.modifiers)
        declarators = ", ".join(self.text(d) for d in node.declarators)
        return self.type_lines(node.type, prefix, f" {declarators};")

    def template_header(self, params: tuple[ast.TemplateParam, ...] | None) -> list[str]:
        if params is None:
            return []
        return ["template <" + ", ".join(self.text(p) for p in params) + ">"]

    def template_param(self, node: ast.TemplateParam) -> str:
        if node.template_params is not None:
            head = self.template_header(node.template_params)[0] + f" class {node.name}".rstrip()
        else:
            head = f"typename {node.name}".rstrip() if node.kind is None else f"{self.text(node.kind)} {node.name}"
        return head if node.default is None else f"{head} = {self.template_arg(node.default)}"

    def function_decl(self, node: ast.FunctionDecl) -> list[str]:
        lines = self.template_header(node.template_params)
        lines += [self.text(a) for a in node.attributes]
        head = "".join(m + " " for m in node.modifiers)
        head += f"{self.text(node.return_type)} {self.qualified(node.name, node.scope_args)}"
        if node.specialization_args is not None:
            head += self.template_args(node.specialization_args)
        head += "("
        params = [self.text(p) for p in node.params]
        tail = ")" + "".join(" " + m for m in node.trailing_modifiers)
        tail += "".join(" " + self.text(a) for a in node.annotations)
        if node.body is None:
            tail += ";"
        one_line = head + ", ".join(params) + tail
        if len(one_line) <= MAX_SIGNATURE or not params:
            lines.append(one_line)
        else:
            lines.append(head)
            lines += [INDENT + p + "," for p in params[:-1]]
            lines.append(INDENT + params[-1] + tail)
        if node.body is not None:
            lines += self.block(node.body)
        return lines

    def param(self, node: ast.Param) -> str:
        text = "".join(self.text(a) + " " for a in node.attributes)
        text += "".join(m + " " for m in node.modifiers) + self.text(node.type)
        if node.name is not None:
            text += " " + node.name
        text += self.dims(node.array_dims)
        text += "".join(" " + self.text(a) for a in node.annotations)
        if node.default is not None:
            text += " = " + self.expr(node.default, ASSIGN)
        return text

    def struct_spec(self, node: ast.StructDecl) -> list[str]:
        """`struct Name : Base` and its body, without the closing semicolon."""
        lines = self.template_header(node.template_params)
        lines += [self.text(a) for a in node.attributes]
        head = node.keyword
        if node.name is not None:
            head += " " + node.name
        if node.specialization_args is not None:
            head += self.template_args(node.specialization_args)
        if node.base is not None:
            head += " : " + self.text(node.base)
        lines.append(head)
        if node.members is not None:
            lines += ["{", *_indented(self.decl_sequence(node.members)), "}"]
        return lines

    def enum_decl(self, node: ast.EnumDecl) -> list[str]:
        head = "enum class" if node.scoped else "enum"
        if node.name is not None:
            head += " " + node.name
        if node.base is not None:
            head += " : " + self.text(node.base)
        members = [self.text(m) + "," for m in node.members]
        if members:
            members[-1] = members[-1][:-1]
        return [head, "{", *_indented(members), "};"]

    def buffer_decl(self, node: ast.BufferDecl) -> list[str]:
        lines = [self.text(a) for a in node.attributes]
        head = f"{node.keyword} {node.name}" + "".join(" " + self.text(a) for a in node.annotations)
        return [*lines, head, "{", *_indented(self.decl_sequence(node.members)), "}"]

    def declarator(self, node: ast.Declarator) -> str:
        text = node.name + self.dims(node.array_dims)
        text += "".join(" " + self.text(a) for a in node.annotations)
        return text if node.init is None else f"{text} = {self.init(node.init)}"

    def register_binding(self, node: ast.RegisterBinding) -> str:
        parts = [p for p in (node.profile, node.slot, node.space) if p is not None]
        return f": register({', '.join(parts)})"

    def attribute(self, node: ast.Attribute) -> str:
        text = node.name
        if node.args:
            text += "(" + ", ".join(self.expr(a, ASSIGN) for a in node.args) + ")"
        return f"[[{text}]]" if node.double_bracket else f"[{text}]"

    # ---------------------------------------------------------------- types

    def type_ref(self, node: ast.TypeRef) -> str:
        text = "".join(m + " " for m in node.modifiers) + self.qualified(node.name, node.scope_args)
        if node.template_args is not None:
            text += self.template_args(node.template_args)
        return text + self.dims(node.array_dims)

    def qualified(self, name: tuple[str, ...], scope_args: ast.ScopeArgs) -> str:
        """`a::b::c`, with the template arguments written on its scope parts (`Box<T>::get`)."""
        parts = list(name)
        for index, args in enumerate(scope_args):
            if args is not None:
                parts[index] += self.template_args(args)
        return "::".join(parts)

    def template_args(self, args: tuple[Any, ...]) -> str:
        return "<" + ", ".join(self.template_arg(a) for a in args) + ">"

    def template_arg(self, arg: Any) -> str:
        """A type, or a constant expression protected from ending the `<...>` list early."""
        if isinstance(arg, ast.TypeRef):
            return self.type_ref(arg)
        text = self.expr(arg, CONDITIONAL)
        return f"({text})" if _has_top_level_angle(text) else text

    def dims(self, dims: tuple[Any, ...]) -> str:
        return "".join("[]" if d is None else f"[{self.expr(d, CONDITIONAL)}]" for d in dims)

    # ---------------------------------------------------------------- statements

    def block(self, node: ast.Block) -> list[str]:
        return ["{", *_indented([line for s in node.stmts for line in self.lines(s)]), "}"]

    def body(self, stmt: Any) -> list[str]:
        """A controlled statement: a block at the same indent, anything else one deeper."""
        return self.block(stmt) if isinstance(stmt, ast.Block) else _indented(self.lines(stmt))

    def stmt_attrs(self, node: Any) -> str:
        return "".join(self.text(a) + " " for a in node.attributes)

    def if_stmt(self, node: ast.IfStmt) -> list[str]:
        lines: list[str] = []
        prefix = ""
        while True:   # an `else if` chain in one loop (its arms may be thousands)
            lines += [f"{prefix}{self.stmt_attrs(node)}if ({self.expr(node.cond)})", *self.body(node.then)]
            if not isinstance(node.else_, ast.IfStmt):
                break
            node, prefix = node.else_, "else "
        if node.else_ is not None:
            lines += ["else", *self.body(node.else_)]
        return lines

    def for_stmt(self, node: ast.ForStmt) -> list[str]:
        head = " ".join(_flatten(self.lines(node.init)))
        if node.cond is not None:
            head += " " + self.expr(node.cond)
        head += ";"
        if node.step is not None:
            head += " " + self.expr(node.step)
        return [f"{self.stmt_attrs(node)}for ({head})", *self.body(node.body)]

    def do_stmt(self, node: ast.DoWhileStmt) -> list[str]:
        lines = [f"{self.stmt_attrs(node)}do", *self.body(node.body)]
        tail = f"while ({self.expr(node.cond)});"
        if isinstance(node.body, ast.Block):
            lines[-1] += " " + tail
        else:
            lines.append(tail)
        return lines

    def switch_stmt(self, node: ast.SwitchStmt) -> list[str]:
        cases = [line for case in node.cases for line in self.lines(case)]
        return [f"{self.stmt_attrs(node)}switch ({self.expr(node.expr)})", "{",
                *_indented(cases), "}"]

    def switch_case(self, node: ast.SwitchCase) -> list[str]:
        labels = ["default:" if label is None else f"case {self.expr(label, CONDITIONAL)}:"
                  for label in node.labels]
        return [*labels, *_indented([line for s in node.stmts for line in self.lines(s)])]

    # ---------------------------------------------------------------- expressions

    def init(self, node: Any) -> str:
        """An initializer: an (assignment-level) expression or a braced list."""
        if isinstance(node, ast.InitList):
            if not node.items:
                return "{}"
            return "{ " + ", ".join(self.init(item) for item in node.items) + " }"
        return self.expr(node, ASSIGN)

    def args(self, args: tuple[Any, ...]) -> str:
        return "(" + ", ".join(self.expr(a, ASSIGN) for a in args) + ")"

    def unary(self, node: ast.UnaryExpr) -> tuple[str, int]:
        # `++`/`--` take a unary-expression; `-x`, `!x`, ... take a cast-expression.
        operand = self.expr(node.operand, UNARY if node.op in ("++", "--") else CAST)
        # `- -x` and `- --x` must not lex as `--x` / `---x`.
        space = " " if node.op[-1] in "+-" and operand[:1] == node.op[-1] else ""
        return node.op + space + operand, UNARY

    def binary(self, node: ast.BinaryExpr) -> tuple[str, int]:
        precedence = BINARY_PRECEDENCE.get(node.op)
        if precedence is None:
            raise ValueError(f"print_hlsl: unknown binary operator {node.op!r}")
        left = self.expr(node.left, precedence)  # left-associative: the right side binds tighter
        right = self.expr(node.right, precedence + 1)
        separator = ", " if node.op == "," else f" {node.op} "
        return left + separator + right, precedence

    def call(self, node: ast.CallExpr) -> tuple[str, int]:
        text = self.expr(node.callee, POSTFIX)
        if node.template_args is not None:
            text += self.template_args(node.template_args)
        return text + self.args(node.args), POSTFIX

    def member(self, node: ast.MemberExpr) -> tuple[str, int]:
        # `1.x` would lex as the float `1.` followed by `x`.
        minimum = PRIMARY + 1 if isinstance(node.object, ast.IntLiteral) else POSTFIX
        return f"{self.expr(node.object, minimum)}.{node.member}", POSTFIX


_PRINTER = _Printer()  # stateless: one instance serves every call
