"""Semantic analysis, `globallycoherent` conversions: DXC's `warn_hlsl_impcast_coherence_mismatch`.

Input: the checked `ir.Module`.  Output: warning WG0362 (`-Wconversion`, on by default as in DXC)
wherever a UAV or `RWDispatchNodeInputRecord` held by a variable declared `globallycoherent` flows
into one that is not ("loses globallycoherent annotation") or the other way round ("adds ...").
The flows are the ones DXC checks: a local's initialiser, a plain assignment and an `in`
argument, each naming the source variable directly.

Invariants: pure (the IR is not modified); never raises; one diagnostic per flow, at the source.
"""

from __future__ import annotations

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic
from wgc.irtools.walk import nodes_of

COHERENT = "globallycoherent"


def _described(variable: ir.Variable) -> str:
    return f"{COHERENT} {variable.type}" if COHERENT in variable.modifiers else str(variable.type)


def _flow(source: ir.Expr | None, target: ir.Variable, found: list[Diagnostic]) -> None:
    if not isinstance(source, ir.VarRef) or not t.accepts_globallycoherent(target.type):
        return
    had, has = COHERENT in source.variable.modifiers, COHERENT in target.modifiers
    if had != has:
        found.append(codes.COHERENCE_MISMATCH(
            source.span, f"implicit conversion from '{_described(source.variable)}' to '{_described(target)}' "
                         f"{'loses' if had else 'adds'} {COHERENT} annotation"))


def check_coherence(module: ir.Module) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for function in module.functions:
        for node in nodes_of(function, ir.VarDecl, ir.Assign, ir.Call):   # pre-order
            if isinstance(node, ir.VarDecl):
                _flow(node.init, node.variable, found)
            elif isinstance(node, ir.Assign) and node.op in ("", "=") and isinstance(node.target, ir.VarRef):
                _flow(node.value, node.target.variable, found)
            elif isinstance(node, ir.Call):
                for param, arg in zip(node.function.params, node.args):
                    if param.direction is ir.Direction.IN:
                        _flow(arg, param, found)
    return found
