"""Semantic analysis, implementation limits: what is valid HLSL but deeper than SPIR-V can hold.

Input: the checked `ir.Module`.  Output: diagnostics (WG037x), each located at the construct
that crosses the limit, so that the back end never produces a module that spirv-val rejects.

Limits:
- control flow (if, switch, loops) nested more than MAX_CONTROL_FLOW_NESTING deep in one
  function (each arm of an `else if` chain is one more level).  SPIR-V's universal limit
  is 1023, but spirv-val's structured control-flow checks grow with about the cube of the
  nesting (nested loops: 200 levels 1.5 s, 400 levels 12 s, 1000 levels minutes), so wgc
  stops at 256, where validating stays within seconds;
- a struct nested in structs (directly or through arrays, bases included) more than
  MAX_STRUCT_NESTING deep (SPIR-V's universal limit);
- a buffer whose laid-out size does not fit the 32-bit Offset and ArrayStride decorations.

Invariants: iterative walks (the input may nest thousands deep); one diagnostic per
function or struct.
"""

from __future__ import annotations

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic
from wgc.irtools.walk import nodes_of

MAX_CONTROL_FLOW_NESTING = 256
SPIRV_CONTROL_FLOW_NESTING = 1023
MAX_STRUCT_NESTING = 255
MAX_LAYOUT_BYTES = 2**32 - 1


def check_limits(module: ir.Module) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in module.functions:
        if function.body is not None:
            diagnostics.extend(_control_flow_nesting(function))
    diagnostics.extend(_struct_nesting(module.structs))
    diagnostics.extend(_layout_sizes(module.globals))
    return diagnostics


def _control_flow_nesting(function: ir.Function) -> list[Diagnostic]:
    if function.body is None:
        return []
    if len(nodes_of(function, ir.If, ir.Loop, ir.Switch)) <= MAX_CONTROL_FLOW_NESTING:
        return []   # nesting deeper than that needs more statements (a look-up in the kept walk:
        #             check_limits 8 -> 3 ms on the 20k-line benchmark)
    stack: list[tuple[ir.Stmt, int]] = [(function.body, 0)]
    while stack:
        stmt, depth = stack.pop()
        if isinstance(stmt, (ir.If, ir.Loop, ir.Switch)):
            depth += 1
            if depth > MAX_CONTROL_FLOW_NESTING:
                keyword = {ir.If: "if", ir.Switch: "switch"}.get(type(stmt)) or stmt.kind.value  # type: ignore[union-attr]
                return [codes.CONTROL_FLOW_TOO_DEEP(
                    stmt.span, f"this '{keyword}' is nested {depth} levels deep in '{function.name}'; wgc allows "
                    f"{MAX_CONTROL_FLOW_NESTING} levels of nested control flow",
                    notes=[f"SPIR-V allows {SPIRV_CONTROL_FLOW_NESTING}, but validating deeper modules takes minutes; "
                           "each arm of an 'else if' chain is one level deeper: a 'switch' or a lookup may "
                           "replace a long chain"])]
        if isinstance(stmt, ir.Block):
            stack.extend((s, depth) for s in stmt.stmts)
        elif isinstance(stmt, ir.If):
            stack.append((stmt.then, depth))
            if stmt.else_ is not None:
                stack.append((stmt.else_, depth))
        elif isinstance(stmt, ir.Loop):
            stack.extend((s, depth) for s in stmt.init)
            stack.append((stmt.body, depth))
        elif isinstance(stmt, ir.Switch):
            stack.extend((case.body, depth) for case in stmt.cases)
    return []


def _struct_nesting(structs: list[t.StructType]) -> list[Diagnostic]:
    """Structs are complete in declaration order, so one pass sees each member's depth first."""
    depth: dict[int, int] = {}
    diagnostics = []
    for struct in structs:
        inner = [t.innermost_element(f.type) for f in struct.fields] + [struct.base]
        level = 1 + max((depth.get(id(s), 1) for s in inner if isinstance(s, t.StructType)), default=0)
        depth[id(struct)] = level
        if level == MAX_STRUCT_NESTING + 1:  # the first one over: the deeper ones hold it
            diagnostics.append(codes.STRUCT_TOO_DEEP(
                struct.span, f"struct '{struct.name}' nests {level} structs deep; SPIR-V allows "
                f"{MAX_STRUCT_NESTING}"))
    return diagnostics


def _layout_sizes(variables: list[ir.Variable]) -> list[Diagnostic]:
    return [codes.LAYOUT_TOO_LARGE(
        v.span, f"'{v.name}' is laid out in {v.layout.size} bytes; SPIR-V offsets and strides are 32-bit "
        f"(at most {MAX_LAYOUT_BYTES})") for v in variables if v.layout is not None and v.layout.size > MAX_LAYOUT_BYTES]


