"""IR dump: a readable, deterministic text view of the typed IR (`--emit=ir`, golden tests).

Stage: an output view of `wgc.ir`; it formats and never changes or checks anything.
Input: an `ir.Module` as sema built it.  Output: text ending in a newline.

Layout of the text:
- `module` (plus `enable_16bit_types` / `default_row_major` when set), then, indented,
  the structs (`struct S : Base { float3 v; row_major float4x4 m; }`), enums
  (`enum [class] E : int { A = 0, B = 3 }`) and globals, one a line:
  `global <storage> [block kind] [attributes] [modifiers] [const] <type> <name>[dims]
  [: semantic] [set S binding B by register(b0) | by vk::binding|auto [register(u3)]]
  [push_constant] [= init] [=> folded value]`.
- Each function after a blank line: its attributes (`[Shader("node")]`; an argument that is a
  specialization constant is `name = default`: `[NumThreads(Threads = 64, 1, 1)]`), then
  `function <ret> <name>(<dir> [attributes] [modifiers] <type> <name> [: semantic], ...)
  [: semantic]`, then indented
  `method_of S`, `must_inline`, `calls f, g` and the layouts of parameters, then the body.
- A layout (only where a Variable carries one) is `layout [of <param>] size N align A
  [array_stride X] [matrix_stride M row_major|column_major]`, then one indented line per
  member: `@<offset> <type> <name>  <same properties>`, nested for struct members.
- Statements, one a line: `var [static] [modifiers] [const] <type> <name> [= <expr>]
  [=> folded]`, `<expr>`, `if (c) {` ... `} else if (c) {` / `} else {`,
  `for (init, ...; cond; step) {`, `while (c) {`,
  `do {` ... `} while (c)`, `switch (s) {` with `case 1: default: {` ... `}` (followed by
  `fallthrough` when control reaches the end of the case), `break`, `continue`, `discard`,
  `return [expr]`; statement attributes are written first (`[unroll(4)] for (...)`).
- Expressions show every node's type once:
  - leaves: `name:type` for variables; constants by suffix (`7`, `7u`, `7ll`, `7ull`,
    `1.5f`, `0.5h`, `2.0l`, `true`), `(T)value` for other scalar types and non-finite
    floats, `Enum::Member`, `const<uint2>(1u, 2u)` for vectors/matrices (row-major),
    `"text"` for strings; an unsuffixed source literal is `7:int` / `1.5:float`;
  - operators, fully parenthesised, type after: `(a:uint + b:uint):uint`, `(-x:int):int`,
    `(c:bool ? a:int : b:int):int`, `(a:int, b:int):int`;
  - conversions name their type: `convert<float>(a:uint)` (implicit, inserted by sema),
    `cast<float>(a:uint)` (written cast); constructors `float3(x:float, 1.0f, 0.0f)`
    (vectors, matrices) and `S{...}` (structs, arrays);
  - postfix chains give the type once, after the chain (the variable's and the links'
    types follow from declarations): `s.f:float`, `v.zx:float2`, `m._m01_m10:float2`,
    `a[i:uint]:float`, `g_Out[i:uint]:float4` (resource element),
    `input.Get():Rec` / `recs.Get(i:uint):Rec`, `g_Raw.Load<uint2>(0u):uint2`;
    any other base is parenthesised: `(call f():S).x:float`;
  - calls: `call ns::f(a:uint, inout b:float):uint` (user function; `out`/`inout` mark
    the caller's l-values), `dot(a:float3, b:float3):float` (intrinsic; `out` marks
    out/inout arguments); `void` results have no `:type`;
  - `a:uint = b:uint`, `y:uint += 1u`, `i:int *=[float] 1.5f` (computed in float, when that
    differs from the target's type), `x++:uint`, `++x:uint`; an assignment has its target's
    type and is parenthesised when nested.
- A name declared twice in one function (shadowing), or shadowing a global, gets `#2`,
  `#3`, ... in declaration order, at the declaration and at every reference.

Invariants: the text depends only on the IR's content: no object ids, spans, paths or
set ordering (modifiers are sorted); floats print with `repr` (round-trip precision);
every concrete `ir.Expr` / `ir.Stmt` class has a renderer (an unknown one raises TypeError).
"""

from __future__ import annotations

import json
import math
from typing import Callable

from wgc import ir
from wgc import types as t
from wgc.irtools.layout import TypeLayout, laid_out_type, member_fields

_SUFFIX = {"int": "", "uint": "u", "int64_t": "ll", "uint64_t": "ull",
           "float": "f", "half": "h", "double": "l"}


def dump_ir(module: ir.Module) -> str:
    dumper = _Dumper()
    dumper.module(module)
    return "\n".join(dumper.lines) + "\n"


# ---------------------------------------------------------------- values, types, attributes


def _value(value: object) -> str:
    """An attribute argument or other untyped folded constant."""
    if value is None:
        return "?"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(_value(v) for v in value) + ")"
    return str(value)


def _scalar(value: object, type_: t.Type, literal: bool = False) -> str:
    """A scalar constant of `type_`, spelled so that its type is visible."""
    if isinstance(type_, t.EnumType):
        name = next((n for n, v in type_.members.items() if v == value), None)
        return f"{type_}::{name}" if name is not None else f"({type_}){_value(value)}"
    if not isinstance(type_, t.ScalarType) or isinstance(value, (str, tuple)):
        return _value(value)
    if type_.kind is t.ScalarKind.BOOL:
        return "true" if value else "false"
    if type_.is_float:
        number = float(value)  # type: ignore[arg-type]
        text = repr(number)
        if not math.isfinite(number):
            return f"({type_}){text}"
    else:
        text = str(int(value))  # type: ignore[call-overload]
    if literal:
        return f"{text}:{type_}"
    suffix = _SUFFIX.get(type_.spelling)
    return f"({type_}){text}" if suffix is None else text + suffix


def _folded(value: ir.ConstValue, type_: t.Type) -> str:
    """A folded constant (scalar, or a tuple for a vector/matrix) of `type_`."""
    if isinstance(value, tuple):
        element = t.element_scalar(type_)
        parts = ", ".join(_scalar(v, element) if element else _value(v) for v in value)
        return f"const<{type_}>({parts})"
    return _scalar(value, type_)


def _decl(type_: t.Type, name: str) -> str:
    """`float a[4]`: HLSL declarator order."""
    dims = ""
    while isinstance(type_, t.ArrayType):
        dims += "[]" if type_.length is None else f"[{type_.length}]"
        type_ = type_.element
    return f"{type_} {name}{dims}"


def _attributes(attributes: tuple[ir.Attribute, ...]) -> str:
    out = []
    for attribute in attributes:
        texts = (arg.name if arg.name is not None
                 else f"{arg.spec.name} = {_value(arg.value)}" if arg.spec is not None   # a spec constant, its default
                 else _value(arg.value) for arg in attribute.args)
        args = f"({', '.join(texts)})" if attribute.args else ""
        out.append(f"[{attribute.name}{args}]")
    return " ".join(out)


def _typed(expr: ir.Expr) -> str:
    return "" if isinstance(expr.type, t.VoidType) else f":{expr.type}"


def _layout_props(layout: TypeLayout) -> str:
    parts = [f"size {layout.size}", f"align {layout.alignment}"]
    if layout.array_stride is not None:
        parts.append(f"array_stride {layout.array_stride}")
    if layout.matrix_stride is not None:
        parts.append(f"matrix_stride {layout.matrix_stride}")
    if layout.row_major is not None:
        parts.append("row_major" if layout.row_major else "column_major")
    return " ".join(parts)


# ---------------------------------------------------------------- the dumper


MAX_INDENT_LEVELS = 64
"""Lines nested deeper are indented as deep as this: the dump of a program nested thousands of levels
deep (the parser's limit, `parse.MAX_PARSE_DEPTH`) stays linear in its size, not quadratic."""


class _Dumper:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[ir.Variable, str] = {}
        self.used: set[str] = set()

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * min(depth, MAX_INDENT_LEVELS) + text)

    def declare(self, variable: ir.Variable) -> str:
        name, k = variable.name, 2
        while name in self.used:
            name, k = f"{variable.name}#{k}", k + 1
        self.used.add(name)
        self.names[variable] = name
        return name

    def name(self, variable: ir.Variable) -> str:
        return self.names.get(variable, variable.name)

    # -------------------------------------------------------- module level

    def module(self, module: ir.Module) -> None:
        flags = [f for f, on in (("enable_16bit_types", module.enable_16bit_types),
                                 ("default_row_major", module.default_row_major)) if on]
        self.emit(0, " ".join(["module", *flags]))
        for struct in module.structs:
            self.emit(1, self.struct(struct))
        for enum in module.enums:
            members = "".join(f"{n} = {v}, " for n, v in enum.members.items()).removesuffix(", ")
            kind = "enum class" if enum.scoped else "enum"
            self.emit(1, f"{kind} {enum} : {enum.underlying} {{ {members + ' ' if members else ''}}}")
        for variable in module.globals:
            self.emit(1, self.variable(variable, f"global {variable.storage.value}"))
            self.layout(2, variable)
        for function in module.functions:
            self.function(function)

    def struct(self, struct: t.StructType) -> str:
        attributes = "".join(f"[{a}] " for a in struct.attributes)
        base = f" : {struct.base}" if struct.base is not None else ""
        fields = []
        for f in struct.fields:
            major = {True: "row_major ", False: "column_major ", None: ""}[f.row_major]
            semantic = f" : {f.semantic}" if f.semantic else ""
            fields.append(f"{major}{_decl(f.type, f.name)}{semantic}; ")
        return f"{attributes}struct {struct}{base} {{ {''.join(fields)}}}"

    def variable(self, v: ir.Variable, head: str, init: ir.Expr | None = None) -> str:
        """The declaration; `init` is a local's initialiser (from its VarDecl)."""
        name = self.declare(v)
        parts = [head]
        if v.block_kind:
            parts.append(v.block_kind)
        if v.attributes:
            parts.append(_attributes(v.attributes))
        parts.extend(sorted(v.modifiers))
        if v.const:
            parts.append("const")
        parts.append(_decl(v.type, name))
        if v.semantic:
            parts.append(f": {v.semantic}")
        if v.binding is not None:
            b = v.binding
            register = f"({b.register})" if b.register else ""
            if b.source == "register":
                parts.append(f"set {b.set} binding {b.binding} by register{register}")
            else:
                parts.append(f"set {b.set} binding {b.binding} by {b.source}")
                if register:
                    parts.append(f"register{register}")
        if v.push_constant:
            parts.append("push_constant")
        parts.extend(f"= {self.expr(i)}" for i in (v.init, init) if i is not None)
        if v.constant is not None:
            parts.append(f"=> {_folded(v.constant, v.type)}")
        return " ".join(parts)

    def layout(self, depth: int, v: ir.Variable, label: str = "layout") -> None:
        if v.layout is not None:
            self.emit(depth, f"{label} {_layout_props(v.layout)}")
            self.members(depth + 1, v.layout, laid_out_type(v.type))

    def members(self, depth: int, layout: TypeLayout, type_: t.Type | None) -> None:
        for member, f in member_fields(type_, layout):
            decl = _decl(f.type, member.name) if f is not None else member.name
            self.emit(depth, f"@{member.offset} {decl}  {_layout_props(member.layout)}")
            self.members(depth + 1, member.layout, f.type if f is not None else None)

    def function(self, fn: ir.Function) -> None:
        saved_names, saved_used = dict(self.names), set(self.used)
        self.emit(0, "")
        if fn.attributes:
            self.emit(0, _attributes(fn.attributes))
        params = ", ".join(self.variable(p, p.direction.value) for p in fn.params)
        semantic = f" : {fn.return_semantic}" if fn.return_semantic else ""
        self.emit(0, f"function {fn.return_type} {fn.name}({params}){semantic}")
        if fn.method_of is not None:
            self.emit(1, f"method_of {fn.method_of}")
        if fn.must_inline:
            self.emit(1, "must_inline")
        if fn.callees:
            self.emit(1, "calls " + ", ".join(c.name for c in fn.callees))
        for p in fn.params:
            self.layout(1, p, f"layout of {self.name(p)}")
        if fn.body is None:
            self.emit(0, "(no body)")
        else:
            self.block(0, fn.body, "")
        self.names, self.used = saved_names, saved_used

    # -------------------------------------------------------- statements

    def block(self, depth: int, block: ir.Block, head: str, tail: str = "", close: bool = True) -> None:
        """`head{`, the statements one level deeper, `}tail` (unless not `close`)."""
        self.emit(depth, head + "{")
        for stmt in block.stmts:
            self.stmt(depth + 1, stmt)
        if close:
            self.emit(depth, "}" + tail)

    def stmt(self, depth: int, stmt: ir.Stmt) -> None:
        render = _STMTS.get(type(stmt))
        if render is None:
            raise TypeError(f"irdump: no renderer for statement {type(stmt).__name__}")
        render(self, depth, stmt)

    def inline(self, stmt: ir.Stmt) -> str:
        """A `for` initialiser: a declaration or expression on one line."""
        if isinstance(stmt, ir.VarDecl):
            return self.var_decl_text(stmt)
        if isinstance(stmt, ir.ExprStmt):
            return self.expr(stmt.expr, top=True)
        raise TypeError(f"irdump: unexpected {type(stmt).__name__} in a for initialiser")

    def var_decl_text(self, s: ir.VarDecl) -> str:
        static = s.variable.storage is ir.Storage.STATIC
        return self.variable(s.variable, "var static" if static else "var", s.init)

    def s_if(self, depth: int, s: ir.If, head: str = "") -> None:
        attrs = _attributes(s.attributes) + " " if s.attributes else ""
        head = f"{head}{attrs}if ({self.expr(s.cond)}) "
        else_ = s.else_
        if else_ is None:
            self.block(depth, s.then, head)
            return
        self.block(depth, s.then, head, close=False)  # `}` continues with `else`
        if len(else_.stmts) == 1 and type(else_.stmts[0]) is ir.If:
            self.s_if(depth, else_.stmts[0], "} else ")
        else:
            self.block(depth, else_, "} else ")

    def s_loop(self, depth: int, s: ir.Loop) -> None:
        attrs = _attributes(s.attributes) + " " if s.attributes else ""
        cond = self.expr(s.cond) if s.cond is not None else ""
        if s.kind is ir.LoopKind.DO_WHILE:
            self.block(depth, s.body, f"{attrs}do ", f" while ({cond})")
        elif s.kind is ir.LoopKind.WHILE and not s.init and s.step is None:
            self.block(depth, s.body, f"{attrs}while ({cond}) ")
        else:
            init = ", ".join(self.inline(i) for i in s.init)
            step = self.expr(s.step, top=True) if s.step is not None else ""
            self.block(depth, s.body, f"{attrs}for ({init}; {cond}; {step}) ")

    def s_switch(self, depth: int, s: ir.Switch) -> None:
        attrs = _attributes(s.attributes) + " " if s.attributes else ""
        self.emit(depth, f"{attrs}switch ({self.expr(s.selector)}) {{")
        for case in s.cases:
            labels = [f"case {_scalar(v, s.selector.type)}: " for v in case.values]
            if case.is_default:
                labels.append("default: ")
            self.block(depth + 1, case.body, "".join(labels), " fallthrough" if case.falls_through else "")
        self.emit(depth, "}")

    # -------------------------------------------------------- expressions

    def expr(self, e: ir.Expr, top: bool = False) -> str:
        render = _EXPRS.get(type(e))
        if render is None:
            raise TypeError(f"irdump: no renderer for expression {type(e).__name__}")
        if type(e) in _CHAINS:
            return render(self, e) + _typed(e)
        text = render(self, e)
        return f"({text})" if type(e) is ir.Assign and not top else text

    def base(self, e: ir.Expr) -> str:
        """The base of a postfix chain: a variable or chain link untyped, else parenthesised."""
        return _EXPRS[type(e)](self, e) if type(e) in _CHAINS else f"({self.expr(e)})"

    def args(self, args: tuple[ir.Expr, ...], prefixes: Callable[[int], str]) -> str:
        return ", ".join(prefixes(i) + self.expr(a) for i, a in enumerate(args))

    def e_constant(self, e: ir.Constant) -> str:
        if isinstance(e.value, tuple):
            return _folded(e.value, e.type)
        if isinstance(e.value, str):
            return _value(e.value)
        return _scalar(e.value, e.type, e.literal)

    def e_field(self, e: ir.FieldAccess) -> str:
        return f"{self.base(e.base)}.{e.name}"

    def e_swizzle(self, e: ir.Swizzle) -> str:
        text = "".join(f"_m{c[0]}{c[1]}" if isinstance(c, tuple) else "xyzw"[c] for c in e.components)
        return f"{self.base(e.base)}.{text}"

    def e_index(self, e: ir.Index) -> str:
        return f"{self.base(e.base)}[{self.expr(e.index)}]"

    def e_resource_index(self, e: ir.ResourceIndex) -> str:
        if e.slice is not None:
            assert isinstance(e.resource.type, t.ResourceType)
            member = "sample" if e.resource.type.kind.multisampled else "mips"
            return f"{self.base(e.resource)}.{member}[{self.expr(e.slice)}][{self.expr(e.index)}]"
        return f"{self.base(e.resource)}[{self.expr(e.index)}]"

    def e_record(self, e: ir.RecordAccess) -> str:
        index = self.expr(e.index) if e.index is not None else ""
        return f"{self.base(e.object)}.Get({index})"

    def e_method(self, e: ir.MethodCall) -> str:
        template = f"<{e.template_type}>" if e.template_type is not None else ""
        args = self.args(e.args, lambda i: "out " if i in e.out_params else "")
        return f"{self.base(e.object)}.{e.method}{template}({args})"

    def e_unary(self, e: ir.Unary) -> str:
        return f"({e.op}{self.expr(e.operand)}){_typed(e)}"

    def e_binary(self, e: ir.Binary) -> str:
        return f"({self.expr(e.left)} {e.op} {self.expr(e.right)}){_typed(e)}"

    def e_select(self, e: ir.Select) -> str:
        return f"({self.expr(e.cond)} ? {self.expr(e.then)} : {self.expr(e.else_)}){_typed(e)}"

    def e_comma(self, e: ir.Comma) -> str:
        return f"({self.expr(e.left)}, {self.expr(e.right)}){_typed(e)}"

    def e_convert(self, e: ir.Convert) -> str:
        return f"{'cast' if e.explicit else 'convert'}<{e.type}>({self.expr(e.operand)})"

    def e_construct(self, e: ir.Construct) -> str:
        args = ", ".join(self.expr(a) for a in e.args)
        if isinstance(e.type, (t.StructType, t.ArrayType)):
            return f"{e.type}{{{args}}}"
        return f"{e.type}({args})"

    def e_assign(self, e: ir.Assign) -> str:
        computed = ""
        if e.op and e.operation_type is not None and e.operation_type is not e.target.type:
            computed = f"[{e.operation_type}]"
        return f"{self.expr(e.target)} {e.op}={computed} {self.expr(e.value)}"

    def e_incdec(self, e: ir.IncDec) -> str:
        target = self.base(e.target)
        return (f"{e.op}{target}" if e.prefix else f"{target}{e.op}") + _typed(e)

    def e_call(self, e: ir.Call) -> str:
        params = e.function.params

        def direction(i: int) -> str:
            if i < len(params) and params[i].direction is not ir.Direction.IN:
                return params[i].direction.value + " "
            return ""

        return f"call {e.function.name}({self.args(e.args, direction)}){_typed(e)}"

    def e_intrinsic(self, e: ir.IntrinsicCall) -> str:
        args = self.args(e.args, lambda i: "out " if i in e.out_params else "")
        return f"{e.name}({args}){_typed(e)}"


_CHAINS = frozenset({ir.VarRef, ir.FieldAccess, ir.Swizzle, ir.Index, ir.ResourceIndex,
                     ir.RecordAccess, ir.MethodCall})

_EXPRS: dict[type, Callable[..., str]] = {
    ir.Constant: _Dumper.e_constant, ir.VarRef: lambda d, e: d.name(e.variable), ir.FieldAccess: _Dumper.e_field,
    ir.Swizzle: _Dumper.e_swizzle, ir.Index: _Dumper.e_index, ir.ResourceIndex: _Dumper.e_resource_index,
    ir.RecordAccess: _Dumper.e_record, ir.Unary: _Dumper.e_unary, ir.Binary: _Dumper.e_binary,
    ir.Select: _Dumper.e_select, ir.Comma: _Dumper.e_comma, ir.Convert: _Dumper.e_convert,
    ir.Construct: _Dumper.e_construct, ir.Assign: _Dumper.e_assign, ir.IncDec: _Dumper.e_incdec,
    ir.Call: _Dumper.e_call, ir.IntrinsicCall: _Dumper.e_intrinsic, ir.MethodCall: _Dumper.e_method,
}

_STMTS: dict[type, Callable[..., None]] = {
    ir.Block: lambda d, depth, s: d.block(depth, s, ""),
    ir.VarDecl: lambda d, depth, s: d.emit(depth, d.var_decl_text(s)),
    ir.ExprStmt: lambda d, depth, s: d.emit(depth, d.expr(s.expr, top=True)),
    ir.If: _Dumper.s_if, ir.Loop: _Dumper.s_loop, ir.Switch: _Dumper.s_switch,
    ir.Return: lambda d, depth, s: d.emit(depth, "return" + ("" if s.value is None else " " + d.expr(s.value))),
    ir.Break: lambda d, depth, s: d.emit(depth, "break"),
    ir.Continue: lambda d, depth, s: d.emit(depth, "continue"),
    ir.Discard: lambda d, depth, s: d.emit(depth, "discard"),
}
