"""Semantic analysis, implementation limits: what is valid HLSL but deeper than SPIR-V can hold.

Input: the checked `ir.Module`.  Output: diagnostics (WG037x), each located at the construct
that crosses the limit, so that the back end never produces a module that spirv-val rejects.

Limits:
- control flow (if, switch, loops, and the `?:`, `&&` and `||` that are lowered to branches)
  nested more than MAX_CONTROL_FLOW_NESTING deep in one function (each arm of an `else if`
  chain is one more level, and so is each arm of a `?:` chain).  SPIR-V's universal limit
  is 1023, but spirv-val's structured control-flow checks grow with about the cube of the
  nesting (benchmarks/RESULTS.md has the times), so wgc
  stops at 256, where validating stays within seconds;
- a struct nested in structs (directly or through arrays, bases included) more than
  MAX_STRUCT_NESTING deep (SPIR-V's universal limit): checked as each struct is declared
  (`declarations`), where a deeper base is left out, so that a long chain costs linear time;
- a buffer whose laid-out size does not fit the 32-bit Offset and ArrayStride decorations.

Invariants: iterative walks (the input may nest thousands deep); one diagnostic per
function or struct.
"""

from __future__ import annotations

from typing import Any

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic
from wgc.irtools.walk import children, nodes_of

MAX_CONTROL_FLOW_NESTING = 256
SPIRV_CONTROL_FLOW_NESTING = 1023
MAX_STRUCT_NESTING = 255
MAX_LAYOUT_BYTES = 2**32 - 1


def check_limits(module: ir.Module) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in module.functions:
        if function.body is not None:
            diagnostics.extend(_control_flow_nesting(function))
    diagnostics.extend(_layout_sizes(module.globals))
    return diagnostics


def _branches(node: object) -> bool:
    """Whether the back end lowers `node` to a structured selection or loop: `if`, loops, `switch`, and
    in expressions a `?:` with a scalar condition and a scalar `&&` or `||` (which evaluate one side
    only; with vectors they are component-wise selects)."""
    kind = type(node)
    if kind is ir.If or kind is ir.Loop or kind is ir.Switch:
        return True
    if kind is ir.Select:
        return not isinstance(node.cond.type, (t.VectorType, t.MatrixType))  # type: ignore[attr-defined]
    if kind is ir.Binary:
        return node.op in ("&&", "||") and not isinstance(node.type, (t.VectorType, t.MatrixType))  # type: ignore[attr-defined]
    return False


def _control_flow_nesting(function: ir.Function) -> list[Diagnostic]:
    """The first construct nested more than MAX_CONTROL_FLOW_NESTING selections and loops deep: a
    condition (of an `if`, a `?:`, a `switch`, the left side of `&&`) is evaluated before its
    selection begins, at the depth of the construct; the rest of it is one level deeper."""
    if function.body is None:
        return []
    binaries = nodes_of(function, ir.Binary)
    count = len(nodes_of(function, ir.If, ir.Loop, ir.Switch, ir.Select))
    if count + sum(1 for b in binaries if b.op in ("&&", "||")) <= MAX_CONTROL_FLOW_NESTING:
        return []   # nesting deeper than that needs more of them (a look-up in the kept walk,
        #             so most functions are not walked for nesting)
    stack: list[tuple[Any, int]] = [(function.body, 0)]
    while stack:
        node, depth = stack.pop()
        inner = children(node)
        if not _branches(node):
            stack.extend((child, depth) for child in inner)
            continue
        depth += 1
        if depth > MAX_CONTROL_FLOW_NESTING:
            keyword = {ir.If: "if", ir.Switch: "switch", ir.Select: "?:"}.get(type(node)) or \
                getattr(node, "op", None) or node.kind.value
            return [codes.CONTROL_FLOW_TOO_DEEP(
                node.span, f"this '{keyword}' is nested {depth} levels deep in '{function.name}'; wgc allows "
                f"{MAX_CONTROL_FLOW_NESTING} levels of nested control flow",
                notes=[f"SPIR-V allows {SPIRV_CONTROL_FLOW_NESTING}, but validating deeper modules takes minutes; "
                       "each arm of an 'else if' chain is one level deeper, and so is each '?:' with a scalar "
                       "condition and each '&&' or '||' in the operand it may skip: a 'switch' or a lookup may "
                       "replace a long chain"])]
        before = _evaluated_before(node)
        stack.extend((child, depth - 1 if child is before else depth) for child in inner)
    return []


def _evaluated_before(node: object) -> object:
    """The part of a branching construct evaluated before its selection (None for a loop)."""
    kind = type(node)
    if kind is ir.If or kind is ir.Select:
        return node.cond  # type: ignore[attr-defined]
    if kind is ir.Switch:
        return node.selector  # type: ignore[attr-defined]
    if kind is ir.Binary:
        return node.left  # type: ignore[attr-defined]
    return None


def _layout_sizes(variables: list[ir.Variable]) -> list[Diagnostic]:
    return [codes.LAYOUT_TOO_LARGE(
        v.span, f"'{v.name}' is laid out in {v.layout.size} bytes; SPIR-V offsets and strides are 32-bit "
        f"(at most {MAX_LAYOUT_BYTES})") for v in variables if v.layout is not None and v.layout.size > MAX_LAYOUT_BYTES]


