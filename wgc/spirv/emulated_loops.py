"""Loops in the emulated target: which loops count their header runs at their exit (SPIR-V back end).

Input: an `ir.Loop` that `emulated.EmulatedNodes` lowers (its loop-budget counter, `wgc.emulation_abi`,
"Loop budget"). Output: `header_runs`, the number of times a counted loop's header runs, or None.

A counted loop, `for (T i = a; i < b; i++)` (also `<=`, `!=`, `++i`, `i += 1`) with constant `a`
and `b` and an integer `i` that nothing else writes or passes on, runs its header a known number
of times; it adds them to the counter where it is left (an upper bound when a `break` leaves it
early: at worst a warning for a run that came near the budget) instead of one per iteration, which
costs llvmpipe a tenth of a tight loop's time. Every other loop adds one per header run.

Invariants: never wrong by defect (a loop's count is its header runs or more, so a cut loop is
always seen); pure (reads the IR, changes nothing).
"""

from __future__ import annotations

from wgc import emulation_abi as abi
from wgc import ir
from wgc import types as t
from wgc.irtools import walk
from wgc.irtools.consteval import Folded, fold


_COMPARISONS = {"<": 0, "<=": 1, "!=": 0}


def header_runs(loop: ir.Loop) -> int | None:
    """How often a counted loop's header runs (iterations + the failing test), at most
    `LOOP_BUDGET`; None for any other loop (module docstring)."""
    if loop.kind is not ir.LoopKind.FOR or len(loop.init) != 1 or not isinstance(loop.init[0], ir.VarDecl):
        return None
    declared = loop.init[0]
    variable = declared.variable
    scalar = variable.type
    if not isinstance(scalar, t.ScalarType) or scalar.kind not in (t.ScalarKind.INT, t.ScalarKind.UINT) \
            or declared.init is None:
        return None
    start = _constant(declared.init)
    cond = loop.cond
    if start is None or not isinstance(cond, ir.Binary) or cond.op not in _COMPARISONS \
            or not _is(cond.left, variable):
        return None
    end = _constant(cond.right)
    if end is None or not _steps_by_one(loop.step, variable):
        return None
    if any(node is not loop.step and _writes(node, variable) for node in _nodes(loop.body)) \
            or any(_writes(node, variable) for node in _nodes(cond)):
        return None
    iterations = end - start + _COMPARISONS[cond.op]
    if cond.op == "!=" and iterations < 0:
        return None
    return min(max(iterations, 0) + 1, abi.LOOP_BUDGET)


def _constant(expr: ir.Expr) -> int | None:
    folded = fold(expr)
    if isinstance(folded, Folded) and isinstance(folded.value, int) and not isinstance(folded.value, bool):
        return folded.value
    return None


def _is(expr: ir.Expr | None, variable: ir.Variable) -> bool:
    while isinstance(expr, ir.Convert):
        expr = expr.operand
    return isinstance(expr, ir.VarRef) and expr.variable is variable


def _steps_by_one(step: ir.Expr | None, variable: ir.Variable) -> bool:
    if isinstance(step, ir.IncDec):
        return step.op == "++" and _is(step.target, variable)
    return (isinstance(step, ir.Assign) and step.op == "+" and _is(step.target, variable)
            and _constant(step.value) == 1)


def _writes(node: object, variable: ir.Variable) -> bool:
    """Whether an IR node assigns `variable` or passes it to a call (which may write it)."""
    if isinstance(node, (ir.Assign, ir.IncDec)):
        return _is(walk.lvalue_chain(node.target)[0], variable)
    if isinstance(node, (ir.Call, ir.IntrinsicCall, ir.MethodCall)):
        return any(_is(walk.lvalue_chain(arg)[0], variable) for arg in node.args)
    return False


def _nodes(root: object) -> list[object]:
    """Every IR node under `root` (statements and expressions), pre-order."""
    found: list[object] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        found.append(node)
        if isinstance(node, ir.Block):
            stack.extend(reversed(node.stmts))
        elif isinstance(node, (ir.Expr, ir.Stmt, ir.SwitchCase)):
            stack.extend(reversed(walk.children(node)))
    return found
