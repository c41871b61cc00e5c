"""AST dump: a readable, indented tree of any `wgc.syntax.ast` node (`--emit=ast`).

Input: an AST node.  Output: text, one node per line with its scalar fields,
children indented below, each line ending in the node's `file:line:col`.

Invariants: deterministic; shows every field of every node (spans as
locations, never as offsets); no behaviour beyond formatting.  Indentation stops
growing at MAX_INDENT levels (deeper lines show their level as `[N]`), so that the
dump of deep input (a 10,000-arm `else if` chain) stays linear in size.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from wgc.syntax.ast import Node


MAX_INDENT = 64


def _indent(depth: int) -> str:
    if depth <= MAX_INDENT:
        return "  " * depth
    return "  " * MAX_INDENT + f"[{depth}] "


def dump_ast(node: Node) -> str:
    lines: list[str] = []
    _dump(node, 0, "", lines)
    return "\n".join(lines) + "\n"


def _location(node: Node) -> str:
    line, col = node.span.line_col
    return f"<{node.span.file.path}:{line}:{col}>"


def _is_child(value: Any) -> bool:
    if isinstance(value, Node):
        return True
    return isinstance(value, tuple) and any(isinstance(v, Node) for v in value)


def _dump(node: Node, depth: int, label: str, lines: list[str]) -> None:
    indent = _indent(depth)
    scalars = []
    children = []
    for field in dataclasses.fields(node):
        if field.name == "span":
            continue
        value = getattr(node, field.name)
        if _is_child(value):
            children.append((field.name, value))
        elif value not in (None, (), False, ""):
            scalars.append(f"{field.name}={_scalar(value, field.name)}")
    head = f"{indent}{label}{type(node).__name__}"
    if scalars:
        head += " " + " ".join(scalars)
    lines.append(f"{head} {_location(node)}")
    for name, value in children:
        if isinstance(value, Node):
            _dump(value, depth + 1, f"{name}: ", lines)
        else:
            for index, item in enumerate(value):
                if isinstance(item, Node):
                    _dump(item, depth + 1, f"{name}[{index}]: ", lines)
                else:
                    lines.append(f"{_indent(depth + 1)}{name}[{index}]: {_scalar(item)}")


def _scalar(value: Any, field_name: str = "") -> str:
    if isinstance(value, tuple):
        if all(isinstance(v, str) for v in value):
            return ("::" if field_name == "name" else " ").join(value)
        return "(" + ", ".join(_scalar(v) for v in value) + ")"
    if isinstance(value, str):
        return repr(value)
    return str(value)
