"""Semantic analysis, work-graph rules of node bodies: thread-group uniformity, OutputComplete,
FinishedCrossGroupSharing, barriers, launch-mode bans and SV_DispatchGrid writes.

Input: one checked node shader (`ir.Function` carrying `[Shader("node")]`) and its launch mode
("broadcasting" | "coalescing" | "thread"); the bodies of the user functions it calls
(transitively) are analysed with it, in the node's launch mode.
Output: the diagnostics of workgraph-rules.md §1.8-§1.11 for that body, sorted by position:
WG0417 operations that need thread-group-uniform control flow or operands (broadcasting and
coalescing only); WG0418/WG0419 output records not completed on every path / used after
OutputComplete(); WG0420 FinishedCrossGroupSharing() reachable twice on one path; WG0421 Barrier
flags that do not apply; WG0416 operations thread launch does not have (GetGroupNodeOutputRecords,
groupshared, quad operations, implicit-derivative sampling); WG0415 writes to an SV_DispatchGrid
field through RWDispatchNodeInputRecord.

Invariants: pure (the IR is not modified); never raises for bad input; a helper reached from
several nodes is analysed once per node (callers merging nodes should drop identical duplicates).
OutputComplete tracking is per function ("in the same function as the Get"): a helper that calls
OutputComplete() on a record parameter completes the caller's argument; records a helper returns
are tracked in the caller; records copied into another variable stop being tracked.

Uniformity model (varying = may differ between the threads of one group):
- Sources: parameters with SV_GroupIndex/SV_GroupThreadID/SV_DispatchThreadID (SV_GroupID is
  uniform); wave and quad operations (wave-uniform is not group-uniform); atomics' returned values
  (Interlocked* originals, IncrementCounter, DecrementCounter, Consume); per-thread output records
  (GetThreadNodeOutputRecords). Constants, cbuffers, DispatchNodeInputRecord fields, Count(),
  IsValid(), FinishedCrossGroupSharing() and loads from groupshared/resources/records are uniform
  when their index/address is (the user's barriers are assumed to make shared memory consistent).
- Propagation: an expression with a varying operand is varying. Locals, parameters and statics
  are flow-insensitive: varying once any assignment (=, op=, ++/--, out/inout argument, element
  at a varying index) stores a varying value or runs under varying control; re-walk to a fixpoint.
- Control: varying inside an if/switch on a varying condition; in the whole body (every
  iteration) of a loop whose condition is varying or that breaks/continues/returns under varying
  control; after a varying break/continue until its loop/switch ends (structured flow reconverges
  there); after a varying return/discard until the function ends (a discard also after the call).
- Calls: a callee is analysed once per tuple of its parameters' uniformity; its result and
  out/inout parameters carry what it computes, and its returns reconverge at the call. A call in
  varying control to a function that (transitively) needs uniform control is reported at the call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic, DiagnosticKind, Label
from wgc.sema.consteval import Folded, fold
from wgc.source import Span

NK = t.NodeObjectKind

# ---------------------------------------------------------------- tables

VARYING_SYSTEM_VALUES = frozenset({"sv_groupindex", "sv_groupthreadid", "sv_dispatchthreadid"})
GROUP_UNIFORM_METHODS = frozenset({"GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords", "OutputComplete",
                                   "GroupIncrementOutputCount", "ThreadIncrementOutputCount",
                                   "FinishedCrossGroupSharing"})
UNIFORM_OPERAND_METHODS = {  # method -> what to use when each thread needs its own
    "GetGroupNodeOutputRecords": "GetThreadNodeOutputRecords",
    "GroupIncrementOutputCount": "ThreadIncrementOutputCount",
}
GET_RECORDS = frozenset({"GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords"})
COUNTER_METHODS = frozenset({"IncrementCounter", "DecrementCounter", "Consume"})
UNIFORM_INTRINSICS = frozenset({"WaveGetLaneCount", "GetRemainingRecursionLevels", "GetCurrentLoopIterationIndex"})
QUAD_OPS = frozenset({"QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal"})
DERIVATIVE_METHODS = frozenset({"Sample", "SampleBias"})  # implicit derivatives (no ddx/ddy intrinsics exist)

UAV, GROUP_SHARED, NODE_INPUT, NODE_OUTPUT, ALL_MEMORY = 0x1, 0x2, 0x4, 0x8, 0xF
GROUP_SYNC, GROUP_SCOPE, DEVICE_SCOPE = 0x1, 0x2, 0x4
MEMORY_NAMES = {UAV: "UAV_MEMORY", GROUP_SHARED: "GROUP_SHARED_MEMORY", NODE_INPUT: "NODE_INPUT_MEMORY",
                NODE_OUTPUT: "NODE_OUTPUT_MEMORY"}
SEMANTIC_NAMES = {GROUP_SYNC: "GROUP_SYNC", GROUP_SCOPE: "GROUP_SCOPE", DEVICE_SCOPE: "DEVICE_SCOPE"}
LEGACY_BARRIERS = {  # name -> (memory flags, semantic flags) of the equivalent Barrier() (workgraph-rules §1.10)
    "GroupMemoryBarrier": (GROUP_SHARED, GROUP_SCOPE),
    "GroupMemoryBarrierWithGroupSync": (GROUP_SHARED, GROUP_SCOPE | GROUP_SYNC),
    "DeviceMemoryBarrier": (UAV, DEVICE_SCOPE),
    "DeviceMemoryBarrierWithGroupSync": (UAV, DEVICE_SCOPE | GROUP_SYNC),
    "AllMemoryBarrier": (ALL_MEMORY, DEVICE_SCOPE),
    "AllMemoryBarrierWithGroupSync": (ALL_MEMORY, DEVICE_SCOPE | GROUP_SYNC),
}
# Barrier(object, flags): the scopes the object's records are visible in ("thread" < "group" < "device").
BARRIER_OBJECT_SCOPE = {
    NK.RW_DISPATCH_NODE_INPUT_RECORD: "device", NK.RW_GROUP_NODE_INPUT_RECORDS: "group",
    NK.GROUP_NODE_OUTPUT_RECORDS: "group", NK.RW_THREAD_NODE_INPUT_RECORD: "thread",
    NK.THREAD_NODE_OUTPUT_RECORDS: "thread",
}
MSG_BAD_MEMORY = ("invalid MemoryTypeFlags for Barrier operation; expected 0, ALL_MEMORY, or some combination of "
                  "UAV_MEMORY, GROUP_SHARED_MEMORY, NODE_INPUT_MEMORY, NODE_OUTPUT_MEMORY flags")
MSG_BAD_SEMANTIC = ("invalid SemanticFlags for Barrier operation; expected 0 or some combination of GROUP_SYNC, "
                    "GROUP_SCOPE, DEVICE_SCOPE flags")
MSG_GROUP_MEMORY = "GROUP_SHARED_MEMORY specified for Barrier operation when context has no visible group"
MSG_GROUP_SEMANTIC = "GROUP_SYNC or GROUP_SCOPE specified for Barrier operation when context has no visible group"
MSG_GROUP_SCOPE = "GROUP_SCOPE specified for Barrier operation without applicable memory"
MSG_DEVICE_SCOPE = "DEVICE_SCOPE specified for Barrier operation without applicable memory"

# ---------------------------------------------------------------- IR walking

def children(node: ir.Expr | ir.Stmt | ir.SwitchCase) -> Iterator:
    """The direct sub-expressions (and sub-statements) of an IR node, in field order
    (evaluation order, except an assignment's target, which comes before its value)."""
    for value in vars(node).values():
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, (ir.Expr, ir.Stmt, ir.SwitchCase)):
                yield item


def all_exprs(function: ir.Function) -> Iterator[ir.Expr]:
    """Every expression of a function's body, pre-order."""
    stack: list = [function.body] if function.body is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Expr):
            yield node
        stack.extend(reversed(list(children(node))))


def reachable_functions(function: ir.Function) -> list[ir.Function]:
    """The function and every user function it calls (transitively), each once, in first-call order."""
    seen: dict[ir.Function, None] = {}

    def visit(current: ir.Function) -> None:
        if current not in seen:
            seen[current] = None
            for callee in current.callees:
                visit(callee)
    visit(function)
    return list(seen)


def out_targets(expr: ir.Expr) -> list[ir.Expr]:
    """The l-values a call writes through out/inout arguments."""
    if isinstance(expr, ir.Call):
        return [a for p, a in zip(_params(expr), expr.args) if p.direction is not ir.Direction.IN]
    if isinstance(expr, (ir.IntrinsicCall, ir.MethodCall)):
        return [expr.args[i] for i in expr.out_params if i < len(expr.args)]
    return []


def _params(call: ir.Call) -> list[ir.Variable]:
    return call.function.params[:len(call.args)]


def _lvalue_chain(target: ir.Expr) -> tuple[ir.Expr, list[ir.Expr]]:
    """The base of an l-value (a VarRef, ResourceIndex, RecordAccess, ...) and the projections above it."""
    path = []
    while isinstance(target, (ir.FieldAccess, ir.Swizzle, ir.Index, ir.Convert)):
        path.append(target)
        target = target.operand if isinstance(target, ir.Convert) else target.base
    return target, path


def _is_records(type_: t.Type) -> bool:
    return isinstance(type_, t.NodeObjectType) and type_.kind.is_output_records


def _is_sv(semantic: str | None, name: str) -> bool:
    return semantic is not None and semantic.lower().rstrip("0123456789") == name


def _flags(expr: ir.Expr) -> int | None:
    folded = fold(expr)
    return folded.value if isinstance(folded, Folded) and isinstance(folded.value, int) else None


def _needs_group_sync(expr: ir.Expr) -> str | None:
    """The display name of a barrier that synchronises the group (needs uniform flow), else None."""
    if isinstance(expr, ir.IntrinsicCall):
        if expr.name == "Barrier" and len(expr.args) == 2 and (_flags(expr.args[1]) or 0) & GROUP_SYNC:
            return "'Barrier' with GROUP_SYNC"
        if expr.name.endswith("WithGroupSync"):
            return f"'{expr.name}'"
    return None


def _group_op_name(expr: ir.Expr) -> str | None:
    """How to name an operation that needs thread-group-uniform control flow (None for other expressions)."""
    if isinstance(expr, ir.MethodCall) and expr.method in GROUP_UNIFORM_METHODS:
        return f"'{expr.method}'"
    return _needs_group_sync(expr)


class _Cache:
    """Per-function facts that follow calls transitively (memoised; recursion, already an error, stops)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[str, ir.Function], Any] = {}

    def first(self, what: str, function: ir.Function, match: Callable[[ir.Expr], Any]) -> Any:
        """The first `match(e)` that is not None in `function` or, through its calls, in what it calls."""
        if (what, function) not in self.memo:
            self.memo[what, function] = None
            self.memo[what, function] = next(
                (found for e in all_exprs(function) if (found := self.first(what, e.function, match) if
                                                        isinstance(e, ir.Call) else match(e)) is not None), None)
        return self.memo[what, function]

    def group_op(self, function: ir.Function) -> tuple[Span, str] | None:
        """The first operation needing uniform control flow, in `function` or what it calls."""
        return self.first("group", function, lambda e: (e.span, name) if (name := _group_op_name(e)) else None)

    def finishes_sharing(self, function: ir.Function) -> Span | None:
        """Where `function` (or what it calls) calls FinishedCrossGroupSharing()."""
        return self.first("fcgs", function, lambda e: e.span if isinstance(e, ir.MethodCall) and
                          e.method == "FinishedCrossGroupSharing" else None)

    def completes(self, function: ir.Function) -> frozenset[int]:
        """Indices of the record parameters `function` calls OutputComplete() on (directly or via a call)."""
        if ("completes", function) not in self.memo:
            self.memo["completes", function] = frozenset()
            found: set[ir.Variable] = set()
            for e in all_exprs(function):
                if isinstance(e, ir.MethodCall) and e.method == "OutputComplete" and isinstance(e.object, ir.VarRef):
                    found.add(e.object.variable)
                elif isinstance(e, ir.Call):
                    done = self.completes(e.function)
                    found.update(a.variable for i, a in enumerate(e.args) if i in done and isinstance(a, ir.VarRef))
            self.memo["completes", function] = frozenset(i for i, p in enumerate(function.params) if p in found)
        return self.memo["completes", function]

    def assigned_statics(self, function: ir.Function) -> set[ir.Variable]:
        """The static variables `function` (or what it calls) assigns."""
        found: set[ir.Variable] = set()
        for f in reachable_functions(function):
            for e in all_exprs(f):
                for target in [e.target] if isinstance(e, (ir.Assign, ir.IncDec)) else out_targets(e):
                    base, _ = _lvalue_chain(target)
                    if isinstance(base, ir.VarRef) and base.variable.storage is ir.Storage.STATIC:
                        found.add(base.variable)
        return found


class _Sink:
    """Collects diagnostics, one per (code, location)."""

    def __init__(self) -> None:
        self.found: dict[tuple, Diagnostic] = {}

    def __call__(self, kind: DiagnosticKind, span: Span, message: str, labels: tuple[Label, ...] = (),
                 notes: tuple[str, ...] = ()) -> None:
        key = (kind.code, id(span.file), span.start, span.end)
        if key not in self.found:
            self.found[key] = kind(span, message, labels=labels, notes=notes)


# ---------------------------------------------------------------- the entry point


def check_node_body(function: ir.Function, launch: str) -> list[Diagnostic]:
    """The body rules of one node shader (and of the functions it calls) in launch mode `launch`."""
    if function.body is None:
        return []
    sink, cache = _Sink(), _Cache()
    functions = reachable_functions(function)
    if launch != "thread":
        _Uniformity(function, cache, sink).run()
    for current in functions:
        if current.body is not None:
            _Paths(current, cache, sink).run()
    _scan(functions, launch, sink)
    return sorted(sink.found.values(), key=lambda d: (d.span.file.path, d.span.start, d.code) if d.span else ("", 0, ""))


# ---------------------------------------------------------------- uniformity (WG0417)

Reason = tuple[Label, ...]
"""Why control flow is varying: the labels to show (the condition, the return, ...)."""


@dataclass(frozen=True)
class Val:
    """A varying value: `root` completes "... which <root>" (what it depends on); `via` the variable read."""

    root: str
    via: str | None = None

    def phrase(self) -> str:
        return f"depends on '{self.via}', which {self.root}" if self.via else self.root


def _join(*values: Val | None) -> Val | None:
    return next((v for v in values if v is not None), None)


@dataclass
class _Summary:
    result: Val | None
    outs: dict[int, Val]
    discard: Reason | None


class _Uniformity:
    """The node's analysis: one `_Flow` per (function, parameter uniformity), statics shared."""

    def __init__(self, node: ir.Function, cache: _Cache, sink: _Sink) -> None:
        self.node, self.cache, self.sink = node, cache, sink
        self.statics: dict[ir.Variable, str] = {}
        self.flows: dict[tuple, _Flow] = {}

    def run(self) -> None:
        roots: list[str | None] = []
        for param in self.node.params:
            semantic = param.semantic or next(iter(_varying_fields(param.type)), None)
            varying = semantic is not None and semantic.lower().rstrip("0123456789") in VARYING_SYSTEM_VALUES
            roots.append(f"depends on '{param.name}' ({semantic})" if varying else None)
        while True:  # statics are shared by every function: redo until they are stable
            count = len(self.statics)
            self.flows.clear()
            flow = self.flow(self.node, tuple(roots), None)
            flow.summary()
            if len(self.statics) == count:
                break
        flow.report()

    def flow(self, function: ir.Function, roots: tuple[str | None, ...], call: Label | None) -> _Flow:
        key = (function, roots)
        if key not in self.flows:
            self.flows[key] = _Flow(self, function, roots, call)
        return self.flows[key]


def _varying_fields(type_: t.Type) -> Iterator[str]:
    if isinstance(type_, t.StructType):
        for field in type_.all_fields():
            if field.semantic and field.semantic.lower().rstrip("0123456789") in VARYING_SYSTEM_VALUES:
                yield field.semantic
            yield from _varying_fields(field.type)


class _Flow:
    """One function analysed with given parameter uniformity: a fixpoint of walks over its body."""

    def __init__(self, owner: _Uniformity, function: ir.Function, roots: tuple[str | None, ...],
                 call: Label | None) -> None:
        self.owner, self.function, self.call = owner, function, call
        self.vars: dict[ir.Variable, str] = {p: r for p, r in zip(function.params, roots) if r is not None}
        self.own_roots = set(self.vars) if function is owner.node else set()
        self.loop_taint: dict[ir.Loop, Reason] = {}
        self.result: Val | None = None
        self.discard: Reason | None = None
        self.done: _Summary | None = None
        self.running = self.reported = False

    # -- driving

    def summary(self) -> _Summary:
        if self.running:  # recursion (already an error): assume the worst
            return _Summary(Val("depends on a recursive call"), {}, None)
        if self.done is None:
            self.running = self.changed = True
            while self.changed:
                self.changed = False
                self._walk(reporting=False)
            self.running = False
            outs = {i: Val(self.vars[p]) for i, p in enumerate(self.function.params)
                    if p.direction is not ir.Direction.IN and p in self.vars}
            self.done = _Summary(self.result, outs, self.discard)
        return self.done

    def report(self) -> None:
        if not self.reported:
            self.reported = True
            self._walk(reporting=True)

    def _walk(self, reporting: bool) -> None:
        self.reporting = reporting
        self.control: list[Reason] = []
        self.returned: Reason | None = None
        self.breakables: list[list] = []  # [statement, divergence Reason | None]
        if self.function.body is not None:
            self.block(self.function.body)

    def _report(self, span: Span, message: str, labels: Reason, notes: tuple[str, ...] = ()) -> None:
        if self.reporting:
            if self.call is not None:
                labels = (*labels, self.call)
            self.owner.sink(codes.NON_UNIFORM_CALL, span, message, labels, notes)

    # -- state

    def current(self) -> Reason | None:
        """Why control is varying here, or None when it is uniform."""
        if self.control:
            return self.control[-1]
        return next((b[1] for b in reversed(self.breakables) if b[1] is not None), None) or self.returned

    def mark(self, variable: ir.Variable, root: str) -> None:
        table = self.owner.statics if variable.storage is ir.Storage.STATIC else self.vars
        if variable.storage in (ir.Storage.LOCAL, ir.Storage.PARAMETER, ir.Storage.STATIC) and variable not in table:
            table[variable] = root
            self.changed = True

    def taint(self, loop: ir.Loop, reason: Reason) -> None:
        if loop not in self.loop_taint:
            self.loop_taint[loop] = reason
            self.changed = True

    def assign(self, target: ir.Expr, value: Val | None) -> None:
        base, path = _lvalue_chain(target)
        index = _join(*(self.expr(p.index) for p in path if isinstance(p, ir.Index)))
        if not isinstance(base, ir.VarRef):
            for sub in children(base):
                self.expr(sub)
            return
        if (found := _join(value, index)) is not None:
            self.mark(base.variable, found.root)
        elif self.current() is not None:
            self.mark(base.variable, "is assigned in non-uniform control flow")

    # -- statements

    def block(self, block: ir.Block) -> None:
        for stmt in block.stmts:
            self.stmt(stmt)

    def stmt(self, stmt: ir.Stmt) -> None:
        if isinstance(stmt, ir.Block):
            self.block(stmt)
        elif isinstance(stmt, ir.VarDecl):
            value = self.expr(stmt.init) if stmt.init is not None else None
            if value is not None:
                self.mark(stmt.variable, value.root)
            elif self.current() is not None and stmt.init is not None:
                self.mark(stmt.variable, "is assigned in non-uniform control flow")
        elif isinstance(stmt, ir.ExprStmt):
            self.expr(stmt.expr)
        elif isinstance(stmt, ir.If):
            self.branch(stmt.cond, [stmt.then] + ([stmt.else_] if stmt.else_ is not None else []), "condition")
        elif isinstance(stmt, ir.Switch):
            self.breakables.append([stmt, None])
            self.branch(stmt.selector, [case.body for case in stmt.cases], "selector", merge_cases=True)
            self.breakables.pop()
        elif isinstance(stmt, ir.Loop):
            self.loop(stmt)
        elif isinstance(stmt, (ir.Break, ir.Continue)):
            reason = self.current()
            if reason is not None and self.breakables:
                target = self.breakables[-1] if isinstance(stmt, ir.Break) else \
                    next((b for b in reversed(self.breakables) if isinstance(b[0], ir.Loop)), None)
                if target is not None:
                    what = "left the loop" if isinstance(target[0], ir.Loop) else "left the switch"
                    if isinstance(stmt, ir.Continue):
                        what = "skipped to the next iteration"
                    diverged = (Label(stmt.span, f"some threads may have {what} here"), *reason)
                    target[1] = target[1] or diverged
                    if isinstance(target[0], ir.Loop):
                        self.taint(target[0], diverged)
        elif isinstance(stmt, ir.Return):
            value = self.expr(stmt.value) if stmt.value is not None else None
            reason = self.current()
            if value is None and reason is not None and stmt.value is not None:
                value = Val(f"depends on the result of '{self.function.name}', which returns in non-uniform "
                            "control flow")
            self.result = self.result or (Val(value.root) if value else None)
            if reason is not None:
                self.diverge(Label(stmt.span, "some threads may have returned here"), reason)
        elif isinstance(stmt, ir.Discard):
            if (reason := self.current()) is not None:
                self.discard = self.discard or (Label(stmt.span, "some threads may have been discarded here"), *reason)
                self.diverge(Label(stmt.span, "some threads may have been discarded here"), reason)

    def diverge(self, label: Label, reason: Reason) -> None:
        """Some threads leave the function here: the rest of it (and every enclosing loop) is varying."""
        diverged = (label, *reason)
        self.returned = self.returned or diverged
        for entry in self.breakables:
            if isinstance(entry[0], ir.Loop):
                self.taint(entry[0], diverged)

    def branch(self, cond: ir.Expr, blocks: list[ir.Block], what: str, merge_cases: bool = False) -> None:
        value = self.expr(cond)
        if value is not None:
            self.control.append((Label(cond.span, f"this {what} {value.phrase()}"),))
        saved = (self.returned, [b[1] for b in self.breakables])
        ends = []
        for block in blocks:
            if not merge_cases:  # each branch starts from the state before it (cases may fall through)
                self.returned = saved[0]
                for entry, divergence in zip(self.breakables, saved[1]):
                    entry[1] = divergence
            self.block(block)
            ends.append((self.returned, [b[1] for b in self.breakables]))
        self.returned = _join(saved[0], *(e[0] for e in ends))  # type: ignore[arg-type]
        for i, entry in enumerate(self.breakables):
            entry[1] = _join(saved[1][i], *(e[1][i] for e in ends))  # type: ignore[arg-type]
        if value is not None:
            self.control.pop()

    def loop(self, loop: ir.Loop) -> None:
        for stmt in loop.init:
            self.stmt(stmt)
        depth = len(self.control)
        if loop in self.loop_taint:
            self.control.append(self.loop_taint[loop])
        self.breakables.append([loop, None])
        if loop.kind is not ir.LoopKind.DO_WHILE:
            self.loop_cond(loop, depth)
        self.block(loop.body)
        self.expr(loop.step)
        if loop.kind is ir.LoopKind.DO_WHILE:
            self.loop_cond(loop, depth)
        self.breakables.pop()
        del self.control[depth:]

    def loop_cond(self, loop: ir.Loop, depth: int) -> None:
        value = self.expr(loop.cond)
        if value is not None:
            self.taint(loop, (Label(loop.cond.span, f"this condition {value.phrase()}"),))  # type: ignore[union-attr]
            if len(self.control) == depth:
                self.control.append(self.loop_taint[loop])

    # -- expressions

    def expr(self, e: ir.Expr | None) -> Val | None:
        if e is None or isinstance(e, ir.Constant):
            return None
        if isinstance(e, ir.VarRef):
            var = e.variable
            root = (self.owner.statics if var.storage is ir.Storage.STATIC else self.vars).get(var)
            return None if root is None else Val(root, None if var in self.own_roots else var.name)
        if isinstance(e, ir.Binary) and e.op in ("&&", "||") or isinstance(e, ir.Select):
            first = e.left if isinstance(e, ir.Binary) else e.cond
            cond = self.expr(first)
            if cond is not None:
                self.control.append((Label(first.span, f"this condition {cond.phrase()}"),))
            rest = [self.expr(sub) for sub in list(children(e))[1:]]
            if cond is not None:
                self.control.pop()
            return _join(cond, *rest)
        if isinstance(e, ir.Assign):
            value = self.expr(e.value)
            if e.op:
                value = _join(value, self.expr(e.target))
            self.assign(e.target, value)
            return value
        if isinstance(e, ir.IncDec):
            value = self.expr(e.target)
            self.assign(e.target, value)
            return value
        if isinstance(e, ir.Call):
            return self.call_(e)
        if isinstance(e, ir.IntrinsicCall):
            return self.intrinsic(e)
        if isinstance(e, ir.MethodCall):
            return self.method(e)
        if isinstance(e, ir.Comma):
            self.expr(e.left)
            return self.expr(e.right)
        return _join(*[self.expr(sub) for sub in children(e)])

    def args(self, e: ir.Expr, outs: set[int]) -> list[Val | None]:
        values = []
        for i, arg in enumerate(e.args):  # type: ignore[attr-defined]
            values.append(None if i in outs else self.expr(arg))
        return values

    def uniform_control(self, span: Span, what: str, extra: tuple[Label, ...] = ()) -> bool:
        reason = self.current()
        if reason is not None:
            self._report(span, f"{what} must be called in thread-group-uniform control flow", (*reason, *extra))
        return reason is None

    def call_(self, e: ir.Call) -> Val | None:
        params = _params(e)
        outs = {i for i, p in enumerate(params) if p.direction is ir.Direction.OUT}
        values = self.args(e, outs)
        roots = tuple(v.root if v else None for v in values) + (None,) * (len(e.function.params) - len(values))
        flow = self.owner.flow(e.function, roots, Label(e.span, f"'{e.function.name}' is called here from "
                                                                f"'{self.function.name}'"))
        summary = flow.summary()
        if self.reporting:
            flow.report()
        op = self.owner.cache.group_op(e.function)
        if op is not None:
            self.uniform_control(e.span, f"'{e.function.name}'", (Label(op[0], f"{op[1]} is called here"),))
        for i, param in enumerate(params):
            if param.direction is not ir.Direction.IN:
                self.assign(e.args[i], summary.outs.get(i))
        if self.current() is not None:
            for static in self.owner.cache.assigned_statics(e.function):
                self.mark(static, "is assigned in non-uniform control flow")
        if summary.discard is not None and self.returned is None:
            self.returned = (Label(e.span, f"some threads may have been discarded in '{e.function.name}'"),)
        return summary.result

    def intrinsic(self, e: ir.IntrinsicCall) -> Val | None:
        values = self.args(e, set(e.out_params))
        name = e.name
        sync = _needs_group_sync(e)
        if sync is not None:
            self.uniform_control(e.span, sync)
        if name.startswith("Interlocked"):
            result = Val(f"depends on the value returned by '{name}'")
        elif name.startswith(("Wave", "Quad")) and name not in UNIFORM_INTRINSICS:
            result = Val(f"depends on the result of '{name}' (wave operations are not thread-group-uniform)")
        else:
            result = _join(*values)
        for i in e.out_params:
            self.assign(e.args[i], result)
        return None if e.type is t.VOID else result

    def method(self, e: ir.MethodCall) -> Val | None:
        obj = self.expr(e.object)
        values = self.args(e, set(e.out_params))
        name = e.method
        if name in GROUP_UNIFORM_METHODS and self.uniform_control(e.span, f"'{name}'") \
                and name in UNIFORM_OPERAND_METHODS:
            count = values[0] if values else None
            if obj is not None:
                self._report(e.span, f"'{name}' must be called on a thread-group-uniform node output",
                             (Label(e.object.span, f"this node output {obj.phrase()}"),),
                             (f"use '{UNIFORM_OPERAND_METHODS[name]}' when each thread picks its own output",))
            elif count is not None:
                what = "record count" if name in GET_RECORDS else "count"
                self._report(e.span, f"the {what} passed to '{name}' must be thread-group-uniform",
                             (Label(e.args[0].span, f"this value {count.phrase()}"),),
                             (f"use '{UNIFORM_OPERAND_METHODS[name]}' when the count differs between threads",))
        if name in COUNTER_METHODS or name.startswith("Interlocked"):
            result: Val | None = Val(f"depends on the value returned by '{name}'")
        elif name == "GetThreadNodeOutputRecords":
            result = Val("depends on per-thread records from 'GetThreadNodeOutputRecords'")
        elif name == "FinishedCrossGroupSharing":
            result = None
        else:
            result = _join(obj, *values)
        for i in e.out_params:
            self.assign(e.args[i], result)
        return None if e.type is t.VOID else result


# ---------------------------------------------------------------- OutputComplete and FinishedCrossGroupSharing paths

State = dict  # key (a records Variable, or "fcgs") -> frozenset of facts ("open"|"done"|"call", Span)
FCGS = "fcgs"


def _merge(*states: State | None) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    merged: State = {}
    for state in live:
        for key, facts in state.items():
            merged[key] = merged.get(key, frozenset()) | facts
    return merged


def _facts(state: State, key: object, kind: str) -> list[Span]:
    """The spans of the facts of one kind about `key`, in source order (sets have no stable order)."""
    return sorted((span for k, span in state.get(key, frozenset()) if k == kind), key=lambda span: span.start)


def _producer(expr: ir.Expr) -> bool:
    """An expression that yields fresh output records the caller must complete."""
    return isinstance(expr, ir.MethodCall) and expr.method in GET_RECORDS or \
        isinstance(expr, ir.Call) and _is_records(expr.type)


class _Paths:
    """A structured walk of one function tracking, per path, which output records are open or completed
    (WG0418, WG0419) and whether FinishedCrossGroupSharing() was already called (WG0420)."""

    def __init__(self, function: ir.Function, cache: _Cache, sink: _Sink) -> None:
        self.function, self.cache, self.sink = function, cache, sink
        self.frames: list[tuple[ir.Stmt, list[State], list[State]]] = []  # statement, breaks, continues
        self.completed_vars = {e.object.variable for e in all_exprs(function) if isinstance(e, ir.MethodCall)
                               and e.method == "OutputComplete" and isinstance(e.object, ir.VarRef)}

    def run(self) -> None:
        body = self.function.body
        end = self.block(body, {})
        closing = Span(body.span.file, max(body.span.start, body.span.end - 1), body.span.end)
        self.exit(end, Label(closing, f"'{self.function.name}' ends here"))

    def exit(self, state: State | None, where: Label) -> None:
        for key in state or {}:
            if not isinstance(key, ir.Variable):
                continue
            for span in _facts(state, key, "open"):  # type: ignore[arg-type]
                if key in self.completed_vars:
                    message = f"output records in '{key.name}' are not completed with OutputComplete() on every path"
                    label = Label(where.span, f"'{key.name}' is still open when {where.message}")
                else:
                    message, label = f"output records in '{key.name}' are never completed with OutputComplete()", where
                self.sink(codes.OUTPUT_NOT_COMPLETED, span, message, (label,),
                          ("every Get*NodeOutputRecords() must reach OutputComplete() in the same function",))

    # -- statements

    def block(self, block: ir.Block, state: State | None) -> State | None:
        for stmt in block.stmts:
            if state is None:
                break
            state = self.stmt(stmt, state)
        return state

    def stmt(self, stmt: ir.Stmt, s: State) -> State | None:
        if isinstance(stmt, ir.Block):
            return self.block(stmt, s)
        if isinstance(stmt, ir.VarDecl):
            if stmt.init is None:
                return {**s, stmt.variable: frozenset()} if _is_records(stmt.variable.type) else s
            return self.store(stmt.variable, stmt.init, s, stmt.span)
        if isinstance(stmt, ir.ExprStmt):
            return self.expr(stmt.expr, s)
        if isinstance(stmt, ir.If):
            s = self.expr(stmt.cond, s)
            then = self.block(stmt.then, s)
            return _merge(then, self.block(stmt.else_, s) if stmt.else_ is not None else s)
        if isinstance(stmt, ir.Loop):
            return self.loop(stmt, s)
        if isinstance(stmt, ir.Switch):
            s = self.expr(stmt.selector, s)
            breaks: list[State] = []
            self.frames.append((stmt, breaks, []))
            fall: State | None = None
            for case in stmt.cases:
                end = self.block(case.body, _merge(s, fall))
                fall = end if case.falls_through else None
            self.frames.pop()
            has_default = any(case.is_default for case in stmt.cases)
            return _merge(fall, *breaks, None if has_default else s)
        if isinstance(stmt, (ir.Break, ir.Continue)):
            frames = self.frames if isinstance(stmt, ir.Break) else [f for f in self.frames if isinstance(f[0], ir.Loop)]
            if frames:
                frames[-1][1 if isinstance(stmt, ir.Break) else 2].append(s)
            return None
        if isinstance(stmt, ir.Return):
            if stmt.value is not None:
                s = self.expr(stmt.value, s, consumed=True)
                if isinstance(stmt.value, ir.VarRef) and stmt.value.variable in s:
                    s = {**s, stmt.value.variable: frozenset()}  # returned to the caller, which tracks it
            self.exit(s, Label(stmt.span, "the function returns here"))
            return None
        return None if isinstance(stmt, ir.Discard) else s

    def loop(self, loop: ir.Loop, s: State) -> State | None:
        for stmt in loop.init:
            s = self.stmt(stmt, s)
            if s is None:
                return None
        entry: State | None = s
        test = loop.cond is not None and not (isinstance(loop.cond, ir.Constant) and loop.cond.value is True)
        for _ in range(2):  # the second walk sees what the first iteration left (use after complete, twice)
            breaks: list[State] = []
            continues: list[State] = []
            self.frames.append((loop, breaks, continues))
            tested = self.expr(loop.cond, entry) if test and loop.kind is not ir.LoopKind.DO_WHILE else entry
            end = _merge(self.block(loop.body, tested), *continues)
            if end is not None and loop.step is not None:
                end = self.expr(loop.step, end)
            if end is not None and test and loop.kind is ir.LoopKind.DO_WHILE:
                end = self.expr(loop.cond, end)
            self.frames.pop()
            entry = _merge(s, end)
        if loop.kind is ir.LoopKind.DO_WHILE:
            return _merge(end if test else None, *breaks)
        return _merge(tested if test else None, *breaks)

    # -- expressions

    def store(self, var: ir.Variable, value: ir.Expr, s: State, span: Span) -> State:
        """`var = value` (declaration or assignment) for a records variable."""
        if not _is_records(var.type):
            return self.expr(value, s)
        if _producer(value):
            s = self.expr(value, s, consumed=True)
            for get in _facts(s, var, "open"):
                self.sink(codes.OUTPUT_NOT_COMPLETED, get, f"output records in '{var.name}' are overwritten "
                          "before OutputComplete() is called", (Label(span, "overwritten here"),))
            return {**s, var: frozenset({("open", value.span)})}
        if isinstance(value, ir.VarRef) and value.variable in s:
            return {**s, value.variable: frozenset(), var: frozenset()}  # a copy: stop tracking both
        return {**self.expr(value, s), var: frozenset()}

    def use(self, var: ir.Variable, s: State, span: Span, what: str) -> None:
        for done in _facts(s, var, "done")[:1]:
            self.sink(codes.RECORD_USE_AFTER_COMPLETE, span, f"{what} after OutputComplete()",
                      (Label(done, "OutputComplete() is called here"),),
                      ("OutputComplete() ends the use of the records: nothing may access them after it",))

    def complete(self, var: ir.Variable, s: State, span: Span) -> State:
        self.use(var, s, span, f"OutputComplete() is called on '{var.name}' again")
        return {**s, var: frozenset({("done", span)})}

    def finished_sharing(self, s: State, span: Span, inner: Span | None) -> State:
        previous = _facts(s, FCGS, "call")
        if previous:
            labels = [Label(inner, "FinishedCrossGroupSharing() is called here")] if inner is not None else []
            others = [p for p in previous if p != span]
            if others:  # another call first; else this very call again, around a loop
                labels.insert(0, Label(others[0], "it is already called here"))
            else:
                loop = next((f[0] for f in reversed(self.frames) if isinstance(f[0], ir.Loop)), None)
                labels[:0] = [Label(loop.span, "in this loop")] if loop is not None else []
            self.sink(codes.INVALID_CROSS_GROUP_SHARING, span,
                      "FinishedCrossGroupSharing() may be called more than once per thread", tuple(labels),
                      ("it may be called at most once per thread",))
        return {**s, FCGS: frozenset({("call", span)})}

    def expr(self, e: ir.Expr | None, s: State, consumed: bool = False) -> State:
        if e is None:
            return s
        if isinstance(e, ir.VarRef):
            if e.variable in s:
                self.use(e.variable, s, e.span, f"'{e.variable.name}' is used")
            return s
        if isinstance(e, ir.RecordAccess) and isinstance(e.object, ir.VarRef) and e.object.variable in s:
            self.use(e.object.variable, s, e.span, f"the records in '{e.object.variable.name}' are accessed")
            return self.expr(e.index, s)
        if isinstance(e, ir.Binary) and e.op in ("&&", "||") or isinstance(e, ir.Select):
            subs = list(children(e))
            s = self.expr(subs[0], s)
            return _merge(s, *(self.expr(sub, s) for sub in subs[1:])) or s
        if isinstance(e, ir.Assign) and isinstance(e.target, ir.VarRef) and _is_records(e.target.type):
            return self.store(e.target.variable, e.value, s, e.span)
        if isinstance(e, ir.MethodCall):
            if e.method == "OutputComplete":
                if isinstance(e.object, ir.VarRef) and e.object.variable in s:
                    return self.complete(e.object.variable, s, e.span)
                return self.expr(e.object, s, consumed=True)
            for sub in children(e):
                s = self.expr(sub, s)
            if e.method in GET_RECORDS and not consumed:
                self.sink(codes.OUTPUT_NOT_COMPLETED, e.span, f"output records from '{e.method}' are never "
                          "completed with OutputComplete()", (),
                          ("store the records in a variable and call OutputComplete() on it on every path",))
            if e.method == "FinishedCrossGroupSharing":
                s = self.finished_sharing(s, e.span, None)
            return s
        if isinstance(e, ir.Call):
            completes = self.cache.completes(e.function)
            for i, arg in enumerate(e.args):
                if i in completes and isinstance(arg, ir.VarRef) and arg.variable in s:
                    s = self.complete(arg.variable, s, arg.span)
                else:
                    s = self.expr(arg, s, consumed=i in completes)
            inner = self.cache.finishes_sharing(e.function)
            return self.finished_sharing(s, e.span, inner) if inner is not None else s
        for sub in children(e):
            s = self.expr(sub, s)
        return s


# ---------------------------------------------------------------- scans: barriers, launch bans, SV_DispatchGrid


def _scan(functions: list[ir.Function], launch: str, sink: _Sink) -> None:
    used_groupshared: set[ir.Variable] = set()
    thread = launch == "thread"
    for function in functions:
        for e in all_exprs(function):
            if isinstance(e, ir.IntrinsicCall) and (e.name == "Barrier" or e.name in LEGACY_BARRIERS):
                _barrier(e, launch, sink)
            for target in ([e.target] if isinstance(e, (ir.Assign, ir.IncDec)) else out_targets(e)):
                _dispatch_grid_write(target, sink)
            if not thread:
                continue
            if isinstance(e, ir.MethodCall) and e.method == "GetGroupNodeOutputRecords":
                sink(codes.METHOD_NOT_FOR_LAUNCH, e.span, "'GetGroupNodeOutputRecords' is not available in thread "
                     "launch nodes", notes=("each thread of a thread launch node is its own group: use "
                                            "'GetThreadNodeOutputRecords'",))
            elif isinstance(e, ir.VarRef) and e.variable.storage is ir.Storage.GROUPSHARED \
                    and e.variable not in used_groupshared:
                used_groupshared.add(e.variable)
                sink(codes.METHOD_NOT_FOR_LAUNCH, e.span, f"groupshared variable '{e.variable.name}' cannot be used "
                     "in thread launch nodes", (Label(e.variable.span, f"'{e.variable.name}' is declared here"),),
                     ("thread launch nodes have no thread group to share memory with",))
            elif isinstance(e, ir.IntrinsicCall) and e.name in QUAD_OPS:
                sink(codes.METHOD_NOT_FOR_LAUNCH, e.span, f"'{e.name}' is not available in thread launch nodes",
                     notes=("quad operations need the quads of a thread group: only broadcasting and coalescing "
                            "nodes have them",))
            elif isinstance(e, ir.MethodCall) and e.method in DERIVATIVE_METHODS \
                    and isinstance(e.object.type, t.ResourceType) and e.object.type.kind.is_texture:
                sink(codes.METHOD_NOT_FOR_LAUNCH, e.span, f"'{e.method}' computes implicit derivatives, which are "
                     "not available in thread launch nodes", notes=("use 'SampleLevel' or 'SampleGrad'",))


def _flag_names(value: int, names: dict[int, str]) -> str:
    return " | ".join(name for bit, name in names.items() if value & bit) or "0"


def _barrier(e: ir.IntrinsicCall, launch: str, sink: _Sink) -> None:
    legacy = e.name in LEGACY_BARRIERS
    obj: t.NodeObjectType | t.ResourceType | None = None
    if legacy:
        mem, sem = LEGACY_BARRIERS[e.name]
    else:
        if len(e.args) != 2:
            return
        first, flags = e.args
        if isinstance(first.type, (t.NodeObjectType, t.ResourceType)):
            obj, mem = first.type, 0
        else:
            mem = _flags(first)  # type: ignore[assignment]
        sem = _flags(flags)  # type: ignore[assignment]
        for arg, value in ((first, mem), (flags, sem)):
            if value is None:
                sink(codes.INVALID_BARRIER, e.span, "Barrier flags must be compile-time constants",
                     (Label(arg.span, "this argument is not a constant"),))
                return
        if isinstance(obj, t.ResourceType) and not obj.kind.writable or \
                isinstance(obj, t.NodeObjectType) and obj.kind not in BARRIER_OBJECT_SCOPE:
            sink(codes.INVALID_BARRIER, e.span, f"Barrier() needs a UAV or a writable node record object, not '{obj}'",
                 (Label(first.span, "this object"),))
            return
        if mem & ~ALL_MEMORY or mem < 0:
            sink(codes.INVALID_BARRIER, e.span, MSG_BAD_MEMORY, (Label(first.span, f"value is {mem:#x}"),))
            return
        if sem & ~(GROUP_SYNC | GROUP_SCOPE | DEVICE_SCOPE) or sem < 0:
            sink(codes.INVALID_BARRIER, e.span, MSG_BAD_SEMANTIC, (Label(flags.span, f"value is {sem:#x}"),))
            return
    problems: list[tuple[str, str]] = []
    if launch == "thread":
        if obj is None and mem != ALL_MEMORY and mem & GROUP_SHARED:
            problems.append((MSG_GROUP_MEMORY, "group shared memory is not available in thread launch nodes"))
        if sem & (GROUP_SYNC | GROUP_SCOPE):
            problems.append((MSG_GROUP_SEMANTIC, "each thread of a thread launch node is its own group"))
    scope = None if obj is None else "device" if isinstance(obj, t.ResourceType) else BARRIER_OBJECT_SCOPE[obj.kind]
    if sem & DEVICE_SCOPE:
        if obj is None and not mem & (UAV | NODE_INPUT):
            why = "NODE_OUTPUT_MEMORY is at most group scope: " if mem & NODE_OUTPUT else ""
            problems.append((MSG_DEVICE_SCOPE, f"{why}DEVICE_SCOPE needs UAV_MEMORY or NODE_INPUT_MEMORY"))
        elif scope in ("group", "thread"):
            problems.append((MSG_DEVICE_SCOPE, f"'{obj}' is not visible beyond the thread{' group' * (scope == 'group')}:"
                                               " DEVICE_SCOPE does not apply to it"))
    elif sem & GROUP_SCOPE:  # with DEVICE_SCOPE, GROUP_SCOPE is masked off
        if obj is None and mem == 0:
            problems.append((MSG_GROUP_SCOPE, "GROUP_SCOPE needs memory flags (e.g. GROUP_SHARED_MEMORY or UAV_MEMORY)"))
        elif scope == "thread":
            problems.append((MSG_GROUP_SCOPE, f"'{obj}' belongs to one thread: GROUP_SCOPE does not apply to it"))
    if legacy:
        problems = problems[:1]
        mapping = f"'{e.name}()' is Barrier({_flag_names(mem, MEMORY_NAMES) if mem != ALL_MEMORY else 'ALL_MEMORY'}, " \
                  f"{_flag_names(sem, SEMANTIC_NAMES)})"
        problems = [(message, f"{note}; {mapping}") for message, note in problems]
    for message, note in problems:
        sink(codes.INVALID_BARRIER, e.span, message, notes=(note,))


def _grid_field(type_: t.Type) -> t.Field | None:
    """An SV_DispatchGrid field inside a value of `type_` (nested structs and arrays included)."""
    while isinstance(type_, t.ArrayType):
        type_ = type_.element
    if isinstance(type_, t.StructType):
        for field in type_.all_fields():
            if _is_sv(field.semantic, "sv_dispatchgrid"):
                return field
            if (inner := _grid_field(field.type)) is not None:
                return inner
    return None


def _dispatch_grid_write(target: ir.Expr, sink: _Sink) -> None:
    base, path = _lvalue_chain(target)
    if not isinstance(base, ir.RecordAccess) or not isinstance(base.object.type, t.NodeObjectType) \
            or base.object.type.kind is not NK.RW_DISPATCH_NODE_INPUT_RECORD:
        return
    field = None
    for projection in reversed(path):  # from the record outwards: an enclosing field may be the grid
        if isinstance(projection, ir.FieldAccess) and isinstance(projection.base.type, t.StructType):
            fields = projection.base.type.all_fields()
            candidate = fields[projection.index] if projection.index < len(fields) else None
            if candidate is not None and _is_sv(candidate.semantic, "sv_dispatchgrid"):
                field = candidate
                break
    field = field or _grid_field(target.type)
    if field is not None:
        labels = (Label(field.span, f"'{field.name}' is declared with SV_DispatchGrid here"),) if field.span else ()
        sink(codes.INVALID_DISPATCH_GRID, target.span, f"field '{field.name}' with SV_DispatchGrid semantic is not "
             "assignable through RWDispatchNodeInputRecord", labels,
             ("the dispatch grid is fixed when the record is launched",))
