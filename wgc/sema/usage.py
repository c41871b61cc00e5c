"""Semantic analysis, resource use: which descriptors and push constants each node shader reaches.

Input: a node shader's `ir.Function` (checked IR; its callees filled in).
Output: `resource_use(function) -> ResourceUse`: the module-scope uniform blocks (cbuffers,
`$Globals`, push constants, tbuffers) and resources its code can reach, and the counted
structured buffers whose counter it uses (`IncrementCounter`, `DecrementCounter`, `Append`,
`Consume`).

"Reach" is what the SPIR-V back end puts in the entry point's interface: every variable named in
the function or a function it calls (transitively), plus what the initialisers of the dynamic
`static` globals they name reach (each entry point runs those initialisers first). Use, not
liveness: a resource named in a branch that never runs is still reached.

Invariants: pure (reads the IR, changes nothing); variables in first-reach order, each once; the
metadata (`wgc inspect`, reflection) reads this, and a test checks it against the OpEntryPoint
interfaces of the emitted modules.
"""

from __future__ import annotations


from wgc import ir
from wgc.cached_dataclass import dataclass
from wgc.irtools.walk import lvalue_chain, children, reachable_functions, walk_body

DESCRIPTOR_STORAGE = (ir.Storage.UNIFORM, ir.Storage.RESOURCE)
COUNTER_METHODS = frozenset({"IncrementCounter", "DecrementCounter", "Append", "Consume"})


@dataclass(frozen=True)
class ResourceUse:
    variables: tuple[ir.Variable, ...]
    """Uniform blocks and resources reached, in first-reach order."""
    counters: tuple[ir.Variable, ...]
    """Counted structured buffers whose counter is used, in first-use order."""


def resource_use(function: ir.Function) -> ResourceUse:
    """What `function` (a node shader) reaches of the module's descriptors and push constants."""
    variables: dict[ir.Variable, None] = {}
    counters: dict[ir.Variable, None] = {}
    seen_statics: set[ir.Variable] = set()
    seen_functions: set[ir.Function] = set()
    pending: list[object] = []

    def visit_function(start: ir.Function) -> None:
        nodes: list[object] = []
        for current in reachable_functions(start):
            if current not in seen_functions:
                seen_functions.add(current)
                nodes.extend(walk_body(current))
        pending.extend(reversed(nodes))

    visit_function(function)
    while pending:
        node = pending.pop()
        if isinstance(node, ir.VarRef):
            variable = node.variable
            if variable.storage in DESCRIPTOR_STORAGE:
                variables.setdefault(variable)
            elif variable.storage is ir.Storage.STATIC and variable.init is not None \
                    and variable not in seen_statics:
                seen_statics.add(variable)           # its initialiser runs in the entry point
                pending.extend(reversed(list(_walk(variable.init))))
        elif isinstance(node, ir.Call) and node.function not in seen_functions:
            visit_function(node.function)             # a call in a static's initialiser
        elif isinstance(node, ir.MethodCall) and node.method in COUNTER_METHODS:
            base, _ = lvalue_chain(node.object)
            if isinstance(base, ir.VarRef) and base.variable.storage is ir.Storage.RESOURCE:
                counters.setdefault(base.variable)
    return ResourceUse(tuple(variables), tuple(counters))


def _walk(expr: ir.Expr) -> list[object]:
    """`expr` and every expression below it, pre-order (iteratively: expressions may nest deeply)."""
    found: list[object] = []
    stack: list[object] = [expr]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(children(node)))  # type: ignore[arg-type]
    return found
