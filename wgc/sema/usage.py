"""Semantic analysis, resource use: which descriptors and push constants each node shader reaches.

Input: a node shader's `ir.Function` (checked IR; its callees filled in).
Output: `resource_use(function) -> ResourceUse`: the module-scope uniform blocks (cbuffers,
`$Globals`, push constants, tbuffers) and resources its code can reach, and the counted
structured buffers whose counter it uses (`IncrementCounter`, `DecrementCounter`, `Append`,
`Consume`); and which of the resources it reads and which it writes (`read`, `written`: what
SPIR-V's NonWritable / NonReadable say of a binding, from what the code does).

Access: an element assigned with `=` (`buf[i] = v`, `tex[p].x = v`), a `Store*` or `Append` is a
write; a compound assignment, `++`/`--`, an `out`/`inout` argument or an atomic (`InterlockedAdd(
buf[i], ...)`, `buf.InterlockedAdd(...)`) reads and writes; `GetDimensions` and the counter
methods `IncrementCounter`/`DecrementCounter` access neither (the counter is a binding of its
own); every other use of a resource or block reads it, and a resource named outside an element
access or a method call (passed to a function, copied to a local) may be read and written.

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
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.irtools.walk import children, lvalue_chain, nodes_of, reachable_functions, written

DESCRIPTOR_STORAGE = (ir.Storage.UNIFORM, ir.Storage.RESOURCE)
COUNTER_METHODS = frozenset({"IncrementCounter", "DecrementCounter", "Append", "Consume"})
WRITE_METHODS = frozenset({"Store", "Store2", "Store3", "Store4", "Append"})
"""Methods that write a resource without reading it."""
NO_ACCESS_METHODS = frozenset({"GetDimensions", "IncrementCounter", "DecrementCounter"})
"""Methods that neither read nor write the resource's own memory (a query; the counter's binding)."""


@dataclass(frozen=True)
class ResourceUse:
    variables: tuple[ir.Variable, ...]
    """Uniform blocks and resources reached, in first-reach order."""
    counters: tuple[ir.Variable, ...]
    """Counted structured buffers whose counter is used, in first-use order."""
    read: frozenset[ir.Variable] = frozenset()
    """The variables among `variables` the code reads."""
    written: frozenset[ir.Variable] = frozenset()
    """The resources among `variables` the code writes."""


def resource_use(function: ir.Function) -> ResourceUse:
    """What `function` (a node shader) reaches of the module's descriptors and push constants."""
    variables: dict[ir.Variable, None] = {}
    counters: dict[ir.Variable, None] = {}
    seen_statics: set[ir.Variable] = set()
    seen_functions: set[ir.Function] = set()
    read: set[ir.Variable] = set()
    wrote: set[ir.Variable] = set()
    placed: dict[int, bool] = {}
    """id of a resource's VarRef whose access its parent decided -> whether that access reads."""

    def resource_ref(expr: ir.Expr) -> ir.VarRef | None:
        base, _ = lvalue_chain(expr)
        if isinstance(base, ir.ResourceIndex):
            base, _ = lvalue_chain(base.resource)
        if isinstance(base, ir.VarRef) and base.variable.storage is ir.Storage.RESOURCE:
            return base
        return None

    def place(node: object) -> None:
        """What a parent of resource references says of their access (before the references are seen)."""
        if isinstance(node, ir.ResourceIndex):
            ref = resource_ref(node.resource)
            if ref is not None:
                placed.setdefault(id(ref), True)
        elif isinstance(node, ir.MethodCall):
            ref = resource_ref(node.object)
            if ref is not None:
                if node.method in WRITE_METHODS:
                    wrote.add(ref.variable)
                placed[id(ref)] = node.method not in WRITE_METHODS and node.method not in NO_ACCESS_METHODS
                if node.method.startswith("Interlocked"):
                    wrote.add(ref.variable)
            if node.method in COUNTER_METHODS:
                base, _ = lvalue_chain(node.object)
                if isinstance(base, ir.VarRef) and base.variable.storage is ir.Storage.RESOURCE:
                    counters.setdefault(base.variable)
        if isinstance(node, _WRITERS):
            only_written = isinstance(node, ir.Assign) and not node.op
            for target in written(node):
                ref = resource_ref(target)
                if ref is not None:
                    wrote.add(ref.variable)
                    placed[id(ref)] = not only_written

    def reference(node: ir.VarRef) -> None:
        variable = node.variable
        if variable.storage in DESCRIPTOR_STORAGE:
            variables.setdefault(variable)
            reads = placed.get(id(node))
            if reads is None:
                read.add(variable)
                if _writable(variable):
                    wrote.add(variable)          # a handle passed on: may be written
            elif reads:
                read.add(variable)
        elif variable.storage is ir.Storage.STATIC and variable.init is not None and variable not in seen_statics:
            seen_statics.add(variable)           # its initialiser runs in the entry point
            visit_expression(variable.init)

    def visit_function(start: ir.Function) -> None:
        """A function's body and its callees': within one body, every parent is placed before the
        references (a parent decides only for references below it, in the same body)."""
        for current in reachable_functions(start):
            if current not in seen_functions:
                seen_functions.add(current)
                for node in nodes_of(current, *_PARENTS):
                    place(node)
                for ref in nodes_of(current, ir.VarRef):
                    reference(ref)

    def visit_expression(expr: ir.Expr) -> None:
        """A static's initialiser, in pre-order (the functions it calls first reached there)."""
        for node in _walk(expr):
            if isinstance(node, ir.VarRef):
                reference(node)
                continue
            if isinstance(node, ir.Call) and node.function not in seen_functions:
                visit_function(node.function)
            place(node)

    visit_function(function)
    # the helpers call one another through their closure cells, a reference cycle: unbound, reference
    # counting frees them
    reference = visit_expression = visit_function = None  # type: ignore[assignment]  # noqa: F811
    return ResourceUse(tuple(variables), tuple(counters), frozenset(read), frozenset(wrote))


_WRITERS = (ir.Assign, ir.IncDec, ir.Call, ir.IntrinsicCall, ir.MethodCall)
"""The expressions that may write an l-value (`walk.written`)."""
_PARENTS = (ir.ResourceIndex, *_WRITERS)
"""The expressions that decide how the resource references below them are accessed."""


def _writable(variable: ir.Variable) -> bool:
    """A RW, Append or Consume resource (or an array of them)."""
    inner = t.innermost_element(variable.type)
    return variable.storage is ir.Storage.RESOURCE and isinstance(inner, t.ResourceType) and inner.kind.writable


def _walk(expr: ir.Expr) -> list[object]:
    """`expr` and every expression below it, pre-order (iteratively: expressions may nest deeply)."""
    found: list[object] = []
    stack: list[object] = [expr]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(children(node)))  # type: ignore[arg-type]
    return found
