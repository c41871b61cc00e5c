"""Static allocation of output records in the emulated target (`wgc.emulation_abi`, "Outputs").

Stage:      back end (emulated SPIR-V), asked by `emulated.EmulatedNodes` at the start of each node
            entry function and at each allocation.
Input:      the node's entry function (typed IR) and its `NodeInfo`.
Output:     the allocation calls that may be placed statically, each with its constant count.
Invariants: a call is static only where every invocation that passes the prologue runs it exactly
            once: `Get{Thread,Group}NodeOutputRecords(c)` with a constant `c`, on an output parameter
            (no node-array subscript) that the body names nowhere else, written as a statement of the
            function's top level (a declaration's initialiser or an expression statement), with no
            statement containing a `return` before it.  Then the records of a group are known from
            the group's index alone: no subgroup operation, no atomic result, one atomic per group.
            Anything else (conditions, loops, helper functions, node arrays, counts known only at run
            time) keeps the counter-based allocation.  Nothing here emits code.
"""

from __future__ import annotations

from wgc import ir
from wgc.irtools.consteval import Folded, fold
from wgc.irtools.walk import children, nodes_of
from wgc.sema.nodes import NodeInfo

ALLOCATIONS = ("GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords")


def static_calls(function: ir.Function, node: NodeInfo) -> dict[int, int]:
    """id(call) -> its constant count, for the allocation calls of `function` (the node's entry
    function) that the module docstring allows to be placed statically."""
    if function.body is None or node.launch not in ("thread", "broadcasting", "coalescing"):
        return {}
    outputs = {o.parameter for o in node.outputs}
    named: dict[ir.Variable, int] = {}
    for ref in nodes_of(function, ir.VarRef):
        if ref.variable in outputs:
            named[ref.variable] = named.get(ref.variable, 0) + 1
    found: dict[int, int] = {}
    for stmt in function.body.stmts:
        if _returns(stmt):
            break
        call = stmt.init if isinstance(stmt, ir.VarDecl) else stmt.expr if isinstance(stmt, ir.ExprStmt) else None
        if not (isinstance(call, ir.MethodCall) and call.method in ALLOCATIONS and isinstance(call.object, ir.VarRef)
                and call.object.variable in outputs and named.get(call.object.variable) == 1 and call.args):
            continue
        folded = fold(call.args[0])
        if isinstance(folded, Folded) and isinstance(folded.value, int) and not isinstance(folded.value, bool) \
                and 0 <= folded.value < 1 << 16:
            found[id(call)] = folded.value
    return found


def _returns(stmt: ir.Stmt) -> bool:
    """Whether a `return` is anywhere in `stmt`."""
    stack: list[object] = [stmt]
    while stack:
        item = stack.pop()
        if isinstance(item, ir.Return):
            return True
        if isinstance(item, (ir.Stmt, ir.SwitchCase)):
            stack.extend(children(item))
    return False
