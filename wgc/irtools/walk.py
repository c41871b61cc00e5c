"""IR helper, walking: the children of an IR node and the nodes of a function's body.

Stage: below sema (`wgc.ir` and this package import nothing from sema, the back ends or the
views); sema's rule passes, the SPIR-V back ends and the metadata read the IR through it.
Input: checked IR (`wgc.ir`): a node, or an `ir.Function` whose body sema has set.
Output: `children` (a node's direct sub-nodes, in field order), the nodes of a body pre-order
(`walk_body`, `all_exprs`, `nodes_of`, `children_in`), the functions a function reaches
(`reachable_functions`), the l-values an expression writes (`written`, `WRITERS`) and the base
of an l-value (`lvalue_chain`).
Invariants: pure with respect to the IR (nothing in it is changed); a body's walk is kept on its
`ir.Function` (attribute `_wgc_walk`) and redone only when `function.body` is another object; the
lists returned are shared: never modify them.
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections.abc import Callable, Iterator
from typing import Any

from wgc import ir

_IN = ir.Direction.IN


_IR_NODES = (ir.Expr, ir.Stmt, ir.SwitchCase)
_NODE_ANNOTATION = re.compile(r"\b(?:Expr|Stmt|Block|SwitchCase)\b")
_SEQUENCE_ANNOTATION = re.compile(r"^(?:list|tuple)\[")
_CHILDREN: dict[type, Callable[[Any], list[Any]]] = {}


def _child_fields(cls: type) -> list[tuple[str, bool]]:
    """The fields of an IR class that can hold sub-nodes (their annotation names an IR node class),
    in field order, each with whether it holds a sequence of them (`list[...]`/`tuple[...]`)."""
    return [(f.name, bool(_SEQUENCE_ANNOTATION.match(str(f.type)))) for f in dataclasses.fields(cls)
            if _NODE_ANNOTATION.search(str(f.type))]


def _no_children(node: Any) -> list[Any]:
    """`children` of the IR classes without sub-nodes (`_walked` calls no getter for them)."""
    return []


def _children_getter(cls: type) -> Callable[[Any], list[Any]]:
    """`children` for the instances of one IR class, made once per class from its annotations: every
    walk of every body asks per node, and a getter specialised to the class's fields (no loop over
    field names, no isinstance per value) does less per node than a loop over the field names.
    A single field holds a node or None, a sequence field only nodes (`tests/test_uniformity.py`
    checks this against every field's values)."""
    spec = _child_fields(cls)
    getter: Callable[[Any], list[Any]]
    if not spec:
        getter = _no_children
    elif not any(sequence for _, sequence in spec):
        if len(spec) == 1:
            single = operator.attrgetter(spec[0][0])

            def getter(node: Any) -> list[Any]:
                value = single(node)
                return [] if value is None else [value]
        else:
            several = operator.attrgetter(*(name for name, _ in spec))

            def getter(node: Any) -> list[Any]:
                found = list(several(node))
                return [value for value in found if value is not None] if None in found else found
    elif len(spec) == 1:
        only = operator.attrgetter(spec[0][0])

        def getter(node: Any) -> list[Any]:
            return list(only(node))
    elif [sequence for _, sequence in spec] == [False, True]:   # a method call: the object, the arguments
        pair = operator.attrgetter(*(name for name, _ in spec))

        def getter(node: Any) -> list[Any]:
            first, rest = pair(node)
            found = [] if first is None else [first]
            found.extend(rest)
            return found
    else:
        def getter(node: Any) -> list[Any]:
            found: list[Any] = []
            for name, sequence in spec:
                value = getattr(node, name)
                if sequence:
                    found.extend(value)
                elif value is not None:
                    found.append(value)
            return found
    _CHILDREN[cls] = getter
    return getter


def children(node: ir.Expr | ir.Stmt | ir.SwitchCase) -> list[Any]:
    """The direct sub-expressions and sub-statements of an IR node, in field order (evaluation
    order, except that an assignment's target comes before its value); a new list."""
    getter = _CHILDREN.get(type(node))
    return (getter or _children_getter(type(node)))(node)


_WALK = "_wgc_walk"
"""The attribute of an `ir.Function` that keeps its last walk (`_Walk`)."""


class _Walk:
    """A function body's nodes, pre-order, and what the passes ask of them (made when first asked)."""

    def __init__(self, body: ir.Block | None, nodes: list[Any], positions: dict[type, list[int]]) -> None:
        self.body, self.nodes, self.positions = body, nodes, positions
        """`positions`: IR class -> where its nodes are in `nodes`."""
        self.selections: dict[tuple[type, ...], list[Any]] = {}
        """`nodes_of`'s answers, by classes."""
        self.exprs: list[ir.Expr] | None = None
        self.below: dict[int, list[Any]] | None = None


def _walked(function: ir.Function) -> _Walk:
    """The nodes of the function's body, pre-order (iteratively: bodies may nest thousands deep), and
    where the nodes of each class are; kept on the function, as sema's passes walk each body many times
    (once per node that reaches the function, per rule).  A body is never changed once it is set (the
    statement checker builds it whole), so the walk is redone only when `function.body` is another
    (the kept body holds every node alive, so no id is reused while the walk is kept).  No getter is
    called for the classes without sub-nodes (a third of the nodes: references, constants) and the new
    list a getter returns is reversed in place onto the stack (no call per node, no `reversed()`)."""
    kept = function.__dict__.get(_WALK)
    if kept is not None and kept.body is function.body:
        return kept
    nodes: list[Any] = []
    positions: dict[type, list[int]] = {}
    stack: list[Any] = [function.body] if function.body is not None else []
    pop, keep, push, getters = stack.pop, nodes.append, stack.extend, _CHILDREN
    index = 0
    while stack:
        node = pop()
        cls = type(node)
        at = positions.get(cls)
        if at is None:
            positions[cls] = at = []
        at.append(index)
        index += 1
        keep(node)
        getter = getters.get(cls)
        if getter is None:
            getter = _children_getter(cls)
        if getter is not _no_children:
            found = getter(node)   # `children`, inlined
            if found:
                found.reverse()
                push(found)
    kept = function.__dict__[_WALK] = _Walk(function.body, nodes, positions)
    return kept


def children_in(function: ir.Function) -> dict[int, list[Any]]:
    """id(node) -> `children(node)` for every node of the function's body (kept with its walk;
    the lists are shared: never modify them)."""
    walk = _walked(function)
    if walk.below is None:
        walk.below = {id(node): children(node) for node in walk.nodes}
    return walk.below


def nodes_of(function: ir.Function, *classes: type) -> list[Any]:
    """The nodes of the function's body whose class is one of the IR `classes` (exactly: IR node
    classes have no subclasses), pre-order; kept with the walk (the list is shared: never modify
    it).  The rule passes (`settled`, `coherence`, `nodes`, `nodecode`, `mesh`, the scans here) each
    want a few kinds of node, in every body, for every node that reaches it: picking them by the
    positions the walk noted per class (in proportion to what is picked, not to the body) replaces
    a chain of isinstance tests per node and pass."""
    walk = _walked(function)
    found = walk.selections.get(classes)
    if found is None:
        nodes, positions = walk.nodes, walk.positions
        if len(classes) == 1:
            found = [nodes[i] for i in positions.get(classes[0], ())]
        else:
            found = [nodes[i] for i in sorted([i for cls in classes for i in positions.get(cls, ())])]
        walk.selections[classes] = found
    return found


def walk_body(function: ir.Function) -> Iterator[Any]:
    """Every statement and expression of a function's body, pre-order."""
    return iter(_walked(function).nodes)


def all_exprs(function: ir.Function) -> Iterator[ir.Expr]:
    """Every expression of a function's body, pre-order."""
    walk = _walked(function)
    if walk.exprs is None:
        walk.exprs = [node for node in walk.nodes if isinstance(node, ir.Expr)]
    return iter(walk.exprs)


def reachable_functions(function: ir.Function) -> list[ir.Function]:
    """The function and every user function it calls (transitively), each once, in first-call order."""
    seen: dict[ir.Function, None] = {}
    stack = [function]
    while stack:
        current = stack.pop()
        if current not in seen:
            seen[current] = None
            stack.extend(reversed(current.callees))
    return list(seen)


WRITERS = (ir.Assign, ir.IncDec, ir.Call, ir.IntrinsicCall, ir.MethodCall)
"""The IR classes of the expressions that may write an l-value (`written`), for `nodes_of`."""


def written(expr: ir.Expr) -> list[ir.Expr]:
    """The l-values an expression writes: an assignment's target, out/inout arguments."""
    if isinstance(expr, (ir.Assign, ir.IncDec)):
        return [expr.target]
    if isinstance(expr, ir.Call):
        return [a for p, a in zip(expr.function.params, expr.args) if p.direction is not _IN]
    if isinstance(expr, (ir.IntrinsicCall, ir.MethodCall)):
        return [expr.args[i] for i in expr.out_params if i < len(expr.args)] if expr.out_params else []
    return []


def lvalue_chain(target: ir.Expr) -> tuple[ir.Expr, list[ir.Expr]]:
    """The base of an l-value (a VarRef, ResourceIndex, RecordAccess, ...) and the projections above it."""
    path: list[ir.Expr] = []
    cls = type(target)
    while cls in _PROJECTIONS:   # exact classes (IR classes have no subclasses): no isinstance per step
        path.append(target)
        target = target.operand if cls is ir.Convert else target.base  # type: ignore[attr-defined]
        cls = type(target)
    return target, path


_PROJECTIONS = frozenset({ir.FieldAccess, ir.Swizzle, ir.Index, ir.Convert})
