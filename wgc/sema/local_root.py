"""Semantic analysis, local root signatures: DXR-style subobjects that give nodes local root arguments.

Stage:  sema, after the declarations, bindings and node descriptions (`analyze.py` calls `apply`).
Input:  the translation unit's `LocalRootSignature`, `GlobalRootSignature` and
        `SubobjectToExportsAssociation` declarations (`ast.StateObjectDecl`), the module's nodes and the
        resources each reaches (`usage.resource_use`).
Output: diagnostics, and on each node whose export a local root signature is associated with its
        `LocalRootLayout` (`NodeInfo.local_root`) and the variables that layout binds
        (`NodeInfo.local_root_bindings`: uniform block or buffer -> `RootParameter`), which the emulated
        back end reads from the node's local-root-argument table entry instead of a descriptor.

The root signature strings follow D3D12's grammar (as DXC's root signature parser reads it, keywords
case-insensitive): `RootFlags(...)`, `RootConstants(num32BitConstants=N, bR[, space=S][, visibility=V])`,
`CBV(bR, ...)`, `SRV(tR, ...)`, `UAV(uR, ...)`, `DescriptorTable(...)`, `StaticSampler(sR, ...)`.
The local root argument layout is D3D12's: parameters in order, root constants 4 bytes each (aligned
to 4), a root descriptor an 8-byte GPU virtual address aligned to 8, a descriptor table an 8-byte
GPU descriptor handle aligned to 8; static samplers and flags take no bytes.

Rules (DXC compiles every root signature string of a library and fails on a malformed one, WG0455; it
accepts associations it cannot resolve, which may name another library's exports or subobjects,
and leaves conflicts to the runtime's state-object creation, so those only warn):
- WG0455 (error): a malformed root signature string, located at the offending character.
- WG0456 (warning): an association naming a subobject or an export this file does not declare.
- WG0457 (default error): two local root signatures associated with one node's export.
- WG0458 (default error): a resource a node reaches whose register its local root signature binds as a
  root parameter that cannot hold it (a root SRV/UAV is a structured or byte-address buffer without a
  counter, root constants cover the whole constant buffer).
Default associations: an association with no export, or a local root signature no association names,
applies to every node with no explicit one, where there is exactly one such default.
Invariants: pure but for the two fields it sets on nodes; the layouts depend on the strings alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic
from wgc.sema.bindings import written_register
from wgc.sema.nodes import NodeInfo
from wgc.sema.root_layout import LocalRootLayout, RootParameter
from wgc.sema.usage import resource_use
from wgc.source import Span
from wgc.syntax import ast

RK = t.ResourceKind


class RootSignatureError(Exception):
    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.message, self.at = message, at


_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<number>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fF]?)"
                    r"|(?P<punct>[(),=|]))")
_REGISTER = re.compile(r"([btus])(\d+)", re.IGNORECASE)
_ROOT_KINDS = {"cbv": ("CBV", "b"), "srv": ("SRV", "t"), "uav": ("UAV", "u")}
_TABLE_KINDS = {"cbv": "b", "srv": "t", "uav": "u", "sampler": "s"}


class _Reader:
    """Tokens of a root signature string with their offsets."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str, int]] = []
        at = 0
        while at < len(text):
            match = _TOKEN.match(text, at)
            if match is None or match.end() == at:
                if text[at:].strip() == "":
                    break
                start = at + len(text[at:]) - len(text[at:].lstrip())
                raise RootSignatureError(f"unexpected character '{text[start]}'", start)
            kind = match.lastgroup
            assert kind is not None
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            at = match.end()
        self.end = len(text)
        self.position = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.position] if self.position < len(self.tokens) else ("end", "", self.end)

    def take(self, kind: str, value: str | None = None, what: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if token[0] != kind or (value is not None and token[1] != value):
            shown = f"'{token[1]}'" if token[0] != "end" else "the end of the string"
            raise RootSignatureError(f"expected {what or repr(value or kind)}, found {shown}", token[2])
        self.position += 1
        return token


def _integer(token: tuple[str, str, int], what: str) -> int:
    if token[0] != "number" or not token[1].isdigit():
        raise RootSignatureError(f"{what} must be a non-negative integer, not '{token[1]}'", token[2])
    return int(token[1])


def _arguments(reader: _Reader) -> list[tuple[str | None, list[tuple[str, str, int]], int]]:
    """`( a, key = v | w, ... )` as (key or None, value tokens, offset) items; nested parentheses are
    kept as one item whose tokens are those inside (a descriptor table's ranges)."""
    reader.take("punct", "(")
    items: list[tuple[str | None, list[tuple[str, str, int]], int]] = []
    if reader.peek()[:2] == ("punct", ")"):
        reader.position += 1
        return items
    while True:
        first = reader.peek()
        if first[0] == "end" or first[0] == "punct":
            raise RootSignatureError(f"expected an argument, found {repr(first[1]) if first[1] else 'the end'}",
                                     first[2])
        reader.position += 1
        if reader.peek()[:2] == ("punct", "="):
            reader.position += 1
            values = [reader.take("number") if reader.peek()[0] == "number" else reader.take("name", what="a value")]
            while reader.peek()[:2] == ("punct", "|"):
                reader.position += 1
                token = reader.peek()
                if token[0] not in ("name", "number"):
                    raise RootSignatureError("expected a flag after '|'", token[2])
                values.append(token)
                reader.position += 1
            items.append((first[1].lower(), values, first[2]))
        elif reader.peek()[:2] == ("punct", "("):
            start = reader.position
            depth = 0
            while True:
                token = reader.peek()
                if token[0] == "end":
                    raise RootSignatureError("unbalanced '('", reader.tokens[start][2])
                reader.position += 1
                if token[1] == "(":
                    depth += 1
                elif token[1] == ")":
                    depth -= 1
                    if depth == 0:
                        break
            items.append((None, [first, *reader.tokens[start:reader.position]], first[2]))
        else:
            while reader.peek()[:2] == ("punct", "|"):   # RootFlags(A | B)
                reader.position += 2
            items.append((None, [first], first[2]))
        token = reader.take("punct", what="',' or ')'")
        if token[1] == ")":
            return items
        if token[1] != ",":
            raise RootSignatureError(f"expected ',' or ')', found '{token[1]}'", token[2])


def _register(token: tuple[str, str, int], expected: str, item: str) -> int:
    match = _REGISTER.fullmatch(token[1]) if token[0] == "name" else None
    if match is None or match.group(1).lower() != expected:
        raise RootSignatureError(f"{item} takes a '{expected}' register (as '{expected}0'), not '{token[1]}'", token[2])
    return int(match.group(2))


def _space(items: list[tuple[str | None, list[tuple[str, str, int]], int]], item: str,
           allowed: frozenset[str]) -> int:
    space = 0
    for key, values, at in items:
        if key is None:
            raise RootSignatureError(f"{item} takes one register, then 'key = value' arguments", at)
        if key not in allowed:
            raise RootSignatureError(f"'{key}' is no argument of {item}", at)
        if key == "space":
            space = _integer(values[0], "space")
    return space


def parse_root_signature(text: str, name: str) -> LocalRootLayout:
    """The layout of a root signature string; RootSignatureError(message, offset) if it is malformed."""
    reader = _Reader(text)
    parameters: list[RootParameter] = []
    size = 0
    if reader.peek()[0] == "end":
        return LocalRootLayout(name, (), 0)
    while True:
        kind_token = reader.take("name", what="a root parameter (RootConstants, CBV, SRV, UAV, DescriptorTable, "
                                              "StaticSampler or RootFlags)")
        kind = kind_token[1].lower()
        items = _arguments(reader)
        if kind == "rootconstants":
            count = None
            register = None
            space = 0
            for key, values, at in items:
                if key is None:
                    register = _register(values[0], "b", "RootConstants")
                elif key == "num32bitconstants":
                    count = _integer(values[0], "num32BitConstants")
                elif key == "space":
                    space = _integer(values[0], "space")
                elif key != "visibility":
                    raise RootSignatureError(f"'{key}' is no argument of RootConstants", at)
            if count is None or register is None:
                raise RootSignatureError("RootConstants needs num32BitConstants = N and a 'b' register",
                                         kind_token[2])
            parameters.append(RootParameter("constants", "b", register, space, size, 4 * count))
            size += 4 * count
        elif kind in _ROOT_KINDS:
            item, register_class = _ROOT_KINDS[kind]
            if not items or items[0][0] is not None:
                raise RootSignatureError(f"{item} needs a '{register_class}' register first", kind_token[2])
            register = _register(items[0][1][0], register_class, item)
            space = _space(items[1:], item, frozenset({"space", "visibility", "flags"}))
            size = (size + 7) // 8 * 8
            parameters.append(RootParameter(item, register_class, register, space, size, 8))
            size += 8
        elif kind == "descriptortable":
            ranges = []
            for key, values, at in items:
                if key is not None:
                    if key not in ("visibility", "flags"):
                        raise RootSignatureError(f"'{key}' is no argument of DescriptorTable", at)
                    continue
                range_kind = values[0][1].lower()
                if range_kind not in _TABLE_KINDS or len(values) < 3:
                    raise RootSignatureError("a descriptor table holds CBV, SRV, UAV or Sampler ranges", at)
                inner = _Reader("")
                inner.tokens, inner.end = values[1:], values[-1][2]
                range_items = _arguments(inner)
                register_class = _TABLE_KINDS[range_kind]
                if not range_items or range_items[0][0] is not None:
                    raise RootSignatureError(f"a {values[0][1]} range needs a '{register_class}' register first", at)
                first = _register(range_items[0][1][0], register_class, values[0][1])
                descriptors: int | None = 1
                space = 0
                for range_key, range_values, range_at in range_items[1:]:
                    if range_key == "numdescriptors":
                        descriptors = None if range_values[0][1].lower() == "unbounded" else \
                            _integer(range_values[0], "numDescriptors")
                    elif range_key == "space":
                        space = _integer(range_values[0], "space")
                    elif range_key not in ("offset", "flags"):
                        raise RootSignatureError(f"'{range_key}' is no argument of a descriptor range", range_at)
                ranges.append((register_class, first, descriptors, space))
            size = (size + 7) // 8 * 8
            parameters.append(RootParameter("table", "", 0, 0, size, 8, tuple(ranges)))
            size += 8
        elif kind == "staticsampler":
            if not items or items[0][0] is not None:
                raise RootSignatureError("StaticSampler needs an 's' register first", kind_token[2])
            _register(items[0][1][0], "s", "StaticSampler")
        elif kind != "rootflags":
            raise RootSignatureError(f"unknown root parameter '{kind_token[1]}' (RootConstants, CBV, SRV, UAV, "
                                     "DescriptorTable, StaticSampler or RootFlags)", kind_token[2])
        token = reader.peek()
        if token[0] == "end":
            return LocalRootLayout(name, tuple(parameters), size)
        reader.take("punct", ",", what="',' between root parameters")


def _string_items(decl: ast.StateObjectDecl) -> list[ast.StringLiteral]:
    return [item for item in decl.init.items if isinstance(item, ast.StringLiteral)]


def _at(literal: ast.StringLiteral, offset: int) -> Span:
    """The span of character `offset` of a string literal's value (its quote skipped); the literal
    itself where escapes or concatenation make the place unknown."""
    span = literal.span
    text = span.file.text[span.start:span.end]
    if text.startswith('"') and text.endswith('"') and text[1:-1] == literal.value:
        start = min(span.start + 1 + offset, span.end - 1)
        return Span(span.file, start, start + 1)
    return span


def apply(decls: Sequence[ast.Decl], nodes: Sequence[NodeInfo]) -> list[Diagnostic]:
    """Read the subobjects, report their mistakes and give each node its local root layout."""
    diagnostics: list[Diagnostic] = []
    layouts: dict[str, LocalRootLayout] = {}
    subobjects: dict[str, str] = {}
    associations: list[tuple[ast.StateObjectDecl, str, list[str]]] = []
    for decl in decls:
        if not isinstance(decl, ast.StateObjectDecl):
            continue
        subobjects[decl.name] = decl.kind
        strings = _string_items(decl)
        if decl.kind in ("LocalRootSignature", "GlobalRootSignature") and strings:
            try:
                layout = parse_root_signature(strings[0].value, decl.name)
            except RootSignatureError as error:
                diagnostics.append(codes.ROOT_SIGNATURE_MALFORMED(
                    _at(strings[0], error.at), f"malformed root signature of {decl.kind} '{decl.name}': "
                                               f"{error.message}"))
                continue
            if decl.kind == "LocalRootSignature":
                layouts[decl.name] = layout
        elif decl.kind == "SubobjectToExportsAssociation" and strings:
            exports = [e.strip() for e in strings[1].value.split(";")] if len(strings) > 1 else []
            associations.append((decl, strings[0].value, [e for e in exports if e]))
    exported = {node.function.name: node for node in nodes}
    reported: set[tuple[ir.Variable, str]] = set()
    explicit: dict[str, list[tuple[str, ast.StateObjectDecl]]] = {}
    defaults: set[str] = {name for name in layouts
                          if not any(subobject == name for _, subobject, _ in associations)}
    for decl, subobject, exports in associations:
        strings = _string_items(decl)
        if subobject not in subobjects:
            diagnostics.append(codes.UNRESOLVED_ASSOCIATION(
                strings[0].span, f"association '{decl.name}' names subobject '{subobject}', which this file does "
                                 "not declare (another library may)"))
            continue
        if subobject not in layouts:
            continue
        if not exports:
            defaults.add(subobject)
        for export in exports:
            if export not in exported:
                diagnostics.append(codes.UNRESOLVED_ASSOCIATION(
                    strings[1].span, f"association '{decl.name}' names export '{export}', which is no node "
                                     "shader of this file (another library may define it)"))
                continue
            explicit.setdefault(export, []).append((subobject, decl))
    default = next(iter(defaults)) if len(defaults) == 1 else None
    for node in nodes:
        named = explicit.get(node.function.name, [])
        chosen = {s for s, _ in named}
        if len(chosen) > 1:
            first, second = sorted(chosen, key=lambda s: [x for x, _ in named].index(s))[:2]
            span = next(_string_items(d)[1].span for s, d in named if s == second)
            diagnostics.append(codes.CONFLICTING_LOCAL_ROOT_SIGNATURES(
                span, f"node '{node.function.name}' is associated with two local root signatures, '{first}' and "
                      f"'{second}' (D3D12 fails to create the state object)"))
            continue
        name = next(iter(chosen)) if chosen else default
        if name is None:
            continue
        layout = layouts[name]
        node.local_root = layout
        node.local_root_bindings = _bindings(node, layout, diagnostics, reported)
    return diagnostics


def _bindings(node: NodeInfo, layout: LocalRootLayout, diagnostics: list[Diagnostic],
              reported: set[tuple[ir.Variable, str]]) -> dict[ir.Variable, RootParameter]:
    """The uniform blocks and buffers `node` reaches that `layout` binds, WG0458 for one it cannot hold (once
    per variable and signature)."""
    found: dict[ir.Variable, RootParameter] = {}
    use = resource_use(node.function)
    for variable in use.variables:
        written = written_register(variable.binding) if variable.binding is not None else None
        if written is None or variable.push_constant or variable.shader_record:
            continue
        parameter = layout.find(*written)
        if parameter is None:
            continue
        if parameter.kind == "table":
            found[variable] = parameter
            continue
        problem = _cannot_hold(variable, parameter, variable in use.counters)
        if problem is not None:
            if (variable, layout.name) in reported:
                continue
            reported.add((variable, layout.name))
            diagnostics.append(codes.LOCAL_ROOT_KIND_MISMATCH(
                variable.span, f"'{variable.name}' of node '{node.function.name}' is bound by {parameter.describe()} "
                               f"of local root signature '{layout.name}', which {problem}"))
            continue
        found[variable] = parameter
    return found


def _cannot_hold(variable: ir.Variable, parameter: RootParameter, counted: bool) -> str | None:
    """Why a root parameter cannot hold `variable`, or None."""
    if parameter.kind in ("constants", "CBV"):
        if variable.storage is not ir.Storage.UNIFORM or variable.block_kind not in ("cbuffer", "ConstantBuffer"):
            return "holds a constant buffer"
        layout = variable.layout
        size = max((m.offset + m.layout.size for m in layout.members), default=0) if layout is not None else 0
        if parameter.kind == "constants" and size > parameter.size:
            return f"holds {parameter.size} bytes where '{variable.name}' needs {size}"
        return None
    wanted = (RK.STRUCTURED_BUFFER, RK.BYTE_ADDRESS_BUFFER) if parameter.kind == "SRV" else \
        (RK.RW_STRUCTURED_BUFFER, RK.RW_BYTE_ADDRESS_BUFFER)
    if not isinstance(variable.type, t.ResourceType) or variable.type.kind not in wanted:
        return f"holds the address of a {' or '.join(k.value for k in wanted)} (not an array of them)"
    if counted:
        return "holds a buffer address, not a counter"
    return None
