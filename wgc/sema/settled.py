"""Semantic analysis, settled statics: the `static` globals whose value after optimisation is
their initialiser, because no code writes them.

Input: the checked `ir.Module` (every function body and global initialiser).
Output: `ir.Variable.settled` set on each `static` variable (a global, or a function-level
static, which LLVM also keeps as a global) that is neither `const` nor `groupshared` (those are
constants already, or shared), has an initialiser that folds to a constant (reading constants
and statics settled before it, as globalopt evaluates static constructors), and is written
nowhere: not assigned (plainly or compound), incremented or
decremented, given to an `out`/`inout` parameter (a user function's, a method's `this`, an
intrinsic's such as an Interlocked* destination or an original value), whole or through a member,
element or swizzle.

This is the fact DXC relies on when it accepts `static uint i = 7; ... Barrier(ALL_MEMORY, i + i)`:
LLVM's globalopt turns such a global into its initialiser before DXIL validation requires the
flags to be constant. It is no constant expression: array sizes, template arguments, attribute
arguments and case labels do not see it (`consteval.fold(..., optimized=True)` does).

Invariants: pure apart from setting `settled`; a write anywhere in the module (a function no
node calls included) keeps the variable unsettled; HLSL has no pointers or references, so the
l-values written are the whole of the aliasing.
"""

from __future__ import annotations

from wgc import ir
from wgc.irtools.consteval import Folded, fold
from wgc.irtools.walk import WRITERS, children, lvalue_chain, nodes_of, written


def settle_statics(module: ir.Module) -> None:
    """Set `settled` on every static of `module` that qualifies (module docstring)."""
    statics: dict[ir.Variable, ir.Expr] = {v: v.init for v in module.globals if v.init is not None}
    for function in module.functions:
        statics.update((item.variable, item.init) for item in nodes_of(function, ir.VarDecl) if item.init is not None)
    candidates = {v for v in statics if v.storage is ir.Storage.STATIC and not v.const}
    if not candidates:
        return
    for expr in _every_expression(module):
        for target in written(expr):
            base, _ = lvalue_chain(target)
            if isinstance(base, ir.VarRef):
                candidates.discard(base.variable)
    for variable, init in statics.items():  # source order: an initialiser reads statics settled before it
        if variable in candidates and isinstance(folded := fold(init, optimized=True), Folded):
            variable.settled = folded.value


def _every_expression(module: ir.Module):
    """Every expression of the module that may write (`written`): in bodies, those of the classes
    that can (`nodes_of`, kept with the body's walk for the later passes); in global initialisers, all."""
    for function in module.functions:
        yield from nodes_of(function, *WRITERS)
    stack: list = [v.init for v in module.globals if v.init is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Expr):
            yield node
        stack.extend(children(node))
