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
            The same call on an element of a node array (`Work[k].Get...(c)`, the array named
            nowhere else) is a keyed call (`keyed_calls`): every invocation reaches it, so a
            broadcasting or coalescing group may count its records per element in Workgroup memory
            between barriers and add once per element (`emulated.EmulatedNodes._group_add_per_key`).
            Anything else (conditions, loops, helper functions, counts known only at run time) keeps
            the counter-based allocation.  Nothing here emits code.
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
    return _top_level_calls(function, node, keyed=False)


def keyed_calls(function: ir.Function, node: NodeInfo) -> dict[int, int]:
    """id(call) -> its constant count, for the allocation calls on a node-array element that every
    invocation passing the prologue makes exactly once (module docstring)."""
    return _top_level_calls(function, node, keyed=True)


def _top_level_calls(function: ir.Function, node: NodeInfo, keyed: bool) -> dict[int, int]:
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
        if not (isinstance(call, ir.MethodCall) and call.method in ALLOCATIONS and call.args):
            continue
        target = call.object
        if keyed and isinstance(target, ir.Index):
            target = target.base
        elif keyed:
            continue
        if not (isinstance(target, ir.VarRef) and target.variable in outputs and named.get(target.variable) == 1):
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
