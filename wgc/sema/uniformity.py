"""Semantic analysis, work-graph rules of node bodies: thread-group uniformity, OutputComplete,
FinishedCrossGroupSharing, barriers, launch-mode bans and SV_DispatchGrid writes.

Input: one checked node shader (`ir.Function` carrying `[Shader("node")]`) and its launch mode
("broadcasting" | "coalescing" | "thread"); the bodies of the user functions it calls
(transitively) are checked with it, in the node's launch mode.
Output: the diagnostics of workgraph-rules.md §1.8-§1.11 for that body, sorted by position:
WG0417 operations needing thread-group-uniform control flow or operands (broadcasting and
coalescing only; a warning: undefined behaviour DXC accepts; SetMeshOutputCounts, which SPIR-V
needs in uniform control flow, counts too, and `check_mesh_uniformity` checks mesh shaders); WG0443 Barrier flags that are not
constants (an error: no -W option turns it off, as SPIR-V needs the values); WG0418 output records
not completed on every path (a warning, as WG0417) / WG0419 used after OutputComplete(); WG0420
FinishedCrossGroupSharing() reachable twice on one path; WG0421 Barrier flags that do not apply
(the first rule broken, one per call), and the warnings WG0473 (a read-only input record) and
WG0474 (NODE_OUTPUT_MEMORY at DEVICE_SCOPE) for what DXC accepts; WG0416 what thread launch lacks
(groupshared, implicit-derivative sampling), and the warnings WG0429 for quad operations and WG0471
for GetGroupNodeOutputRecords there (DXC accepts both); WG0415 writes to an SV_DispatchGrid field
through RWDispatchNodeInputRecord that name the field, and warning WG0480 for writes of the whole
record or of a struct member holding the field (assignment, out/inout argument), which DXC accepts.

Invariants: pure (the IR is not modified); never raises; one diagnostic per (code, span); a
helper reached from several nodes is checked once per node (callers merging nodes should drop
identical duplicates). OutputComplete is tracked per function ("the same function as the Get"):
a helper that calls OutputComplete() on a record parameter completes the caller's argument,
records a helper returns or binds to an out parameter are tracked by the caller, and `a = b;` makes
`a` hold the records `b` holds (records are tracked as objects: after it, `a.OutputComplete()`
completes `b`'s records, and the records `a` held before stay open unless completed).

Uniformity model (varying = may differ between the threads of one group):
- Sources: parameters with SV_GroupIndex/SV_GroupThreadID/SV_DispatchThreadID (SV_GroupID is
  uniform); wave and quad operations (wave-uniform is not group-uniform); values atomics return
  (Interlocked* originals, IncrementCounter, DecrementCounter, Consume); per-thread output records
  (GetThreadNodeOutputRecords). Constants, cbuffers, DispatchNodeInputRecord fields, Count(),
  IsValid(), FinishedCrossGroupSharing() and loads from groupshared memory, resources and records
  are uniform when their index/address is (the user's barriers are assumed to make them consistent).
- Propagation: an expression with a varying operand is varying. Locals, parameters and statics
  are flow-insensitive: varying once any assignment (=, op=, ++/--, out/inout argument, element
  at a varying index) stores a varying value or runs under varying control; re-walk to a fixpoint
  (a walk is repeated only when it read as uniform a variable it then made varying, or made a loop
  varying: `_Flow.mark`; a read in a store to the variable itself does not count).
- Control: varying inside an if/switch/?:/&&/|| on a varying condition; in the whole body (every
  iteration) of a loop whose condition is varying or that breaks/continues/returns under varying
  control; after a varying break/continue until its loop/switch ends (structured flow reconverges
  there); after a varying return/discard until the function ends.
- Calls: a callee is analysed once per tuple of its parameters' uniformity (once for every node that
  calls it, when it and what it calls use no static variable: `_shared_flows`); its result and
  out/inout parameters carry what it computes; its returns reconverge at the call. A call in
  varying control to a function that (transitively) needs uniform control is reported at the call.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from wgc import codes, ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.diagnostics import Diagnostic, DiagnosticKind, Label
from wgc.irtools.consteval import Folded, fold
from wgc.irtools.walk import WRITERS, children, lvalue_chain, nodes_of, reachable_functions, written
from wgc.source import Span

NK = t.NodeObjectKind

# ---------------------------------------------------------------- tables

VARYING_SYSTEM_VALUES = frozenset({"sv_groupindex", "sv_groupthreadid", "sv_dispatchthreadid"})
GROUP_UNIFORM_METHODS = frozenset({"GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords", "OutputComplete",
                                   "GroupIncrementOutputCount", "ThreadIncrementOutputCount",
                                   "FinishedCrossGroupSharing"})
UNIFORM_OPERAND_METHODS = {  # object and count must be uniform too -> what to use when each thread differs
    "GetGroupNodeOutputRecords": "GetThreadNodeOutputRecords",
    "GroupIncrementOutputCount": "ThreadIncrementOutputCount",
}
GET_RECORDS = frozenset({"GetThreadNodeOutputRecords", "GetGroupNodeOutputRecords"})
COUNTER_METHODS = frozenset({"IncrementCounter", "DecrementCounter", "Consume"})
UNIFORM_WAVE_INTRINSICS = frozenset({"WaveGetLaneCount"})
QUAD_OPS = frozenset({"QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal", "QuadReadLaneAt", "QuadAny",
                      "QuadAll"})
DERIVATIVE_METHODS = frozenset({"Sample", "SampleBias", "SampleCmp", "SampleCmpBias", "CalculateLevelOfDetail",
                                "CalculateLevelOfDetailUnclamped"})
"""Texture methods that compute implicit derivatives (implicit-LOD sampling and LOD queries)."""
DERIVATIVE_INTRINSICS = frozenset({"ddx", "ddy", "fwidth", "ddx_coarse", "ddy_coarse", "ddx_fine", "ddy_fine"})


def uses_implicit_derivatives(e: object) -> bool:
    """Whether an expression computes derivatives between the threads of a group (a derivative
    intrinsic, or an implicit-derivative method of a texture)."""
    if isinstance(e, ir.IntrinsicCall):
        return e.name in DERIVATIVE_INTRINSICS
    return isinstance(e, ir.MethodCall) and e.method in DERIVATIVE_METHODS \
        and isinstance(e.object.type, t.ResourceType) and e.object.type.kind.is_texture

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
BARRIER_OBJECT_SCOPE = {  # Barrier(object, flags): how far the object's records are visible
    NK.RW_DISPATCH_NODE_INPUT_RECORD: "device", NK.RW_GROUP_NODE_INPUT_RECORDS: "group",
    NK.GROUP_NODE_OUTPUT_RECORDS: "group", NK.RW_THREAD_NODE_INPUT_RECORD: "thread",
    NK.THREAD_NODE_OUTPUT_RECORDS: "thread",
}
READ_ONLY_RECORD_SCOPE = {  # accepted by DXC with the scope of their RW form; the spec lists only RW (WG0473)
    NK.DISPATCH_NODE_INPUT_RECORD: "device", NK.GROUP_NODE_INPUT_RECORDS: "group",
    NK.THREAD_NODE_INPUT_RECORD: "thread",
}
MSG_BAD_MEMORY = ("invalid MemoryTypeFlags for Barrier operation; expected 0, ALL_MEMORY, or some combination of "
                  "UAV_MEMORY, GROUP_SHARED_MEMORY, NODE_INPUT_MEMORY, NODE_OUTPUT_MEMORY flags")
MSG_BAD_SEMANTIC = ("invalid SemanticFlags for Barrier operation; expected 0 or some combination of GROUP_SYNC, "
                    "GROUP_SCOPE, DEVICE_SCOPE flags")
MSG_GROUP_MEMORY = "GROUP_SHARED_MEMORY specified for Barrier operation when context has no visible group"
MSG_GROUP_SEMANTIC = "GROUP_SYNC or GROUP_SCOPE specified for Barrier operation when context has no visible group"
MSG_GROUP_SCOPE = "GROUP_SCOPE specified for Barrier operation without applicable memory"
MSG_NODE_MEMORY = "NODE_INPUT_MEMORY or NODE_OUTPUT_MEMORY may only be specified for Barrier operation in a node shader"
STAGES_WITH_VISIBLE_GROUP = frozenset({"compute", "mesh", "amplification"})
MSG_DEVICE_SCOPE = "DEVICE_SCOPE specified for Barrier operation without applicable memory"
NOT_UNIFORM = "is assigned in non-uniform control flow"
FULL_FIXPOINT = False
"""Walk a `_Flow` again after every walk that made a variable varying, not only after those that read
it as uniform before it did (`_Flow.mark`): the plain fixpoint, for tests to compare the shortcut with."""
# Enum members the walks compare per node, read once: `_STATIC` looks the member up through
# its enum class at each use, which costs more than reading a module global.
_STATIC, _GROUPSHARED = ir.Storage.STATIC, ir.Storage.GROUPSHARED
_TRACKED = (ir.Storage.LOCAL, ir.Storage.PARAMETER, ir.Storage.STATIC)
_IN, _OUT = ir.Direction.IN, ir.Direction.OUT
_DO_WHILE = ir.LoopKind.DO_WHILE


def _is_records(type_: t.Type) -> bool:
    return isinstance(type_, t.NodeObjectType) and type_.kind.is_output_records


def _sv(semantic: str | None) -> str:
    """A semantic for comparison: lower case, without its index."""
    return (semantic or "").lower().rstrip("0123456789")


def _flags(expr: ir.Expr, optimized: bool = True) -> int | None:
    """Barrier flags: after optimisation (DXC's DXIL validator sees static globals that nothing
    writes as their initialisers, `settled`), or as a constant expression (`optimized=False`:
    what DXC's Sema checks)."""
    folded = fold(expr, optimized=optimized)
    return folded.value if isinstance(folded, Folded) and type(folded.value) is int else None


def _group_op_name(expr: ir.Expr) -> str | None:
    """How to name an operation that needs thread-group-uniform control flow (None for other expressions)."""
    if isinstance(expr, ir.MethodCall) and expr.method in GROUP_UNIFORM_METHODS:
        return f"'{expr.method}'"
    if isinstance(expr, ir.IntrinsicCall):
        if expr.name == "Barrier" and len(expr.args) == 2 and (_flags(expr.args[1]) or 0) & GROUP_SYNC:
            return "'Barrier' with GROUP_SYNC"
        if expr.name.endswith("WithGroupSync") or expr.name == "SetMeshOutputCounts":  # SPIR-V's
            return f"'{expr.name}'"       # OpSetMeshOutputsEXT needs uniform control flow (DXC accepts any)
    return None


class _Cache:
    """Per-function facts that follow calls transitively (memoised; recursion, already an error, stops)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[str, ir.Function], Any] = {}

    def first(self, what: str, function: ir.Function, match: Callable[[ir.Expr], Any],
              classes: tuple[type, ...]) -> Any:
        """The first `match(e)` that is not None in `function` or, through its calls, in what it calls
        (`match` is asked about expressions of `classes` only: None for the others)."""
        key = (what, function)
        if key not in self.memo:
            self.memo[key] = None
            for e in nodes_of(function, ir.Call, *classes):
                found = self.first(what, e.function, match, classes) if type(e) is ir.Call else match(e)
                if found is not None:
                    self.memo[key] = found
                    break
        return self.memo[key]

    def group_op(self, function: ir.Function) -> tuple[Span, str] | None:
        return self.first("group", function, lambda e: (e.span, name) if (name := _group_op_name(e)) else None,
                          (ir.MethodCall, ir.IntrinsicCall))

    def finishes_sharing(self, function: ir.Function) -> Span | None:
        return self.first("fcgs", function, lambda e: e.span if isinstance(e, ir.MethodCall) and
                          e.method == "FinishedCrossGroupSharing" else None, (ir.MethodCall,))

    def completes(self, function: ir.Function) -> frozenset[int]:
        """Indices of the record parameters `function` calls OutputComplete() on (directly or via a call)."""
        if ("completes", function) not in self.memo:
            self.memo["completes", function] = frozenset()
            found: set[ir.Variable] = set()
            for e in nodes_of(function, ir.MethodCall, ir.Call):
                if isinstance(e, ir.MethodCall) and e.method == "OutputComplete" and isinstance(e.object, ir.VarRef):
                    found.add(e.object.variable)
                elif isinstance(e, ir.Call):
                    done = self.completes(e.function)
                    found.update(a.variable for i, a in enumerate(e.args) if i in done and isinstance(a, ir.VarRef))
            self.memo["completes", function] = frozenset(i for i, p in enumerate(function.params) if p in found)
        return self.memo["completes", function]

    def out_records(self, function: ir.Function) -> dict[int, int | None]:
        """The out/inout record parameters `function` binds (assigns, or passes as an out argument):
        index -> the index of the `in` record parameter they are bound to, or None for other records."""
        if ("out_records", function) not in self.memo:
            self.memo["out_records", function] = {}
            params = function.params
            source: dict[ir.Variable, int | None] = {p: i for i, p in enumerate(params)
                                                      if _is_records(p.type) and p.direction is _IN}
            bound: dict[ir.Variable, int | None] = {}
            for e in nodes_of(function, ir.Assign, ir.Call):
                pairs: list[tuple[ir.Expr, int | None]] = []
                if isinstance(e, ir.Assign) and isinstance(e.target, ir.VarRef) and _is_records(e.target.type):
                    value = e.value
                    pairs.append((e.target, source.get(value.variable) if isinstance(value, ir.VarRef) else None))
                elif isinstance(e, ir.Call):
                    for i, inner in self.out_records(e.function).items():
                        given = e.args[inner] if inner is not None else None
                        pairs.append((e.args[i], source.get(given.variable) if isinstance(given, ir.VarRef)
                                      else None))
                for target, origin in pairs:
                    if isinstance(target, ir.VarRef):
                        bound[target.variable] = origin
            self.memo["out_records", function] = {
                i: bound[p] for i, p in enumerate(params) if p in bound and p.direction is not _IN}
        return self.memo["out_records", function]

    def assigned_statics(self, function: ir.Function) -> set[ir.Variable]:
        """The static variables `function` (or what it calls) writes."""
        if ("statics", function) not in self.memo:
            bases = [lvalue_chain(target)[0] for f in reachable_functions(function) for e in nodes_of(f, *WRITERS)
                     for target in written(e)]
            self.memo["statics", function] = {b.variable for b in bases if isinstance(b, ir.VarRef)
                                              and b.variable.storage is _STATIC}
        return self.memo["statics", function]


class _Sink:
    """Collects diagnostics, one per (code, location)."""

    def __init__(self) -> None:
        self.found: dict[tuple, Diagnostic] = {}

    def __call__(self, kind: DiagnosticKind, span: Span, message: str, labels: tuple[Label, ...] = (),
                 notes: tuple[str, ...] = ()) -> None:
        self.found.setdefault((kind.code, id(span.file), span.start, span.end),
                              kind(span, message, labels=labels, notes=notes))


# ---------------------------------------------------------------- the entry point


def check_node_body(function: ir.Function, launch: str) -> list[Diagnostic]:
    """The body rules of one node shader (and of the functions it calls) in launch mode `launch`."""
    if function.body is None:
        return []
    sink, cache = _Sink(), _Cache()
    functions = reachable_functions(function)
    if launch != "thread":  # in thread launch every thread is its own group
        analysis = _Uniformity(function, cache, sink)
        analysis.run()
        analysis.release()
    for current in functions:
        for report in path_reports(current, cache):
            sink(*report)
    seen_groupshared: set[ir.Variable] = set()  # reported once each, at the first use
    for current in functions:
        _scan(current, launch, sink, seen_groupshared)
    return sorted(sink.found.values(), key=lambda d: (d.span.file.path, d.span.start, d.code))  # type: ignore


def check_mesh_uniformity(function: ir.Function) -> list[Diagnostic]:
    """WG0417 in a mesh shader (`[Shader("mesh")]`; mesh nodes get it from `check_node_body`):
    SetMeshOutputCounts (SPIR-V's OpSetMeshOutputsEXT needs uniform control flow; DXC accepts any)
    and the group-synchronising barriers under control flow that varies within the group."""
    if function.body is None:
        return []
    sink = _Sink()
    analysis = _Uniformity(function, _Cache(), sink)
    analysis.run()
    analysis.release()
    return sorted(sink.found.values(), key=lambda d: (d.span.file.path, d.span.start, d.code))  # type: ignore


_PATHS = "_wgc_paths"
"""The attribute of an `ir.Function` that keeps its `path_reports`: (body, the reports)."""


def path_reports(function: ir.Function, cache: _Cache | None = None) -> list[tuple[Any, ...]]:
    """The OutputComplete and FinishedCrossGroupSharing reports (WG0418-WG0420, WG0452) of the
    function's own body, in the order `_Paths` makes them: the arguments of each `_Sink` call.  They
    depend on the function and what it calls, not on the node or its launch mode, so they are
    computed once and kept on the function (redone only when `function.body` is another), however
    many nodes reach it.  `cache`: the facts of the functions it calls, shared by the functions one
    node reaches (a fresh one per function would redo a chain of calls for each function of it)."""
    if function.body is None:
        return []
    kept = function.__dict__.get(_PATHS)
    if kept is not None and kept[0] is function.body:
        return kept[1]
    reports: list[tuple[Any, ...]] = []
    _Paths(function, cache or _Cache(), lambda *report: reports.append(report)).run()  # type: ignore[arg-type]
    function.__dict__[_PATHS] = (function.body, reports)
    return reports


def check_stage_barriers(function: ir.Function, stage: str) -> list[Diagnostic]:
    """DXC's Barrier() rules for an entry of another stage (`[Shader("vertex")]` ...) in the library
    and the functions it calls: WG0421 at the flag argument, with the entry labelled (DXC's
    `warn_hlsl_barrier_*` of group HLSLBarrier): no group memory or group semantics without a
    visible group (only compute, mesh and amplification have one), no node memory outside nodes."""
    if function.body is None:
        return []
    found: dict[tuple, Diagnostic] = {}   # one per (location, message): a flag may break two rules

    def sink(kind: DiagnosticKind, span: Span, message: str, labels: tuple[Label, ...]) -> None:
        found.setdefault((id(span.file), span.start, span.end, message), kind(span, message, labels=labels))

    visible_group = stage in STAGES_WITH_VISIBLE_GROUP
    entry = Label(function.span, f"entry function '{function.name}' ({stage} shader) is defined here")
    for current in reachable_functions(function):
        for e in nodes_of(current, ir.IntrinsicCall):
            if not (e.name == "Barrier" and len(e.args) == 2):
                continue
            first, flags = e.args
            # DXC's Sema rules: on constant expressions only (a settled static is not one)
            mem = None if isinstance(first.type, (t.NodeObjectType, t.ResourceType)) else _flags(first, optimized=False)
            if mem is not None and mem != ALL_MEMORY:
                if not visible_group and mem & GROUP_SHARED:
                    sink(codes.INVALID_BARRIER, first.span, MSG_GROUP_MEMORY, (entry,))
                if mem & (NODE_INPUT | NODE_OUTPUT):
                    sink(codes.INVALID_BARRIER, first.span, MSG_NODE_MEMORY, (entry,))
            sem = _flags(flags, optimized=False)
            if sem is not None and not visible_group and sem & (GROUP_SYNC | GROUP_SCOPE):
                sink(codes.INVALID_BARRIER, flags.span, MSG_GROUP_SEMANTIC, (entry,))
    return sorted(found.values(), key=lambda d: (d.span.file.path, d.span.start))  # type: ignore


# ---------------------------------------------------------------- uniformity (WG0417)

Reason = tuple[Label, ...]
"""Why control flow is varying: the labels to show (the condition, the return, ...)."""


@dataclass(frozen=True)
class Val:
    """A varying value: `root` completes "... which <root>" (its source); `via` the variable read, if any."""

    root: str
    via: str | None = None

    def phrase(self) -> str:
        return f"depends on '{self.via}', which {self.root}" if self.via else self.root


def _join(*values: Val | None) -> Val | None:
    """The varying operand to blame: a real source rather than a variable assigned under varying control."""
    first = None
    for value in values:
        if value is not None:
            if value.root != NOT_UNIFORM:
                return value
            if first is None:
                first = value
    return first


def _blame(first: Val | None, second: Val | None) -> Val | None:
    """`_join(first, second)` without building a tuple (the walk asks it for most expressions)."""
    if first is None or second is not None and first.root == NOT_UNIFORM and second.root != NOT_UNIFORM:
        return second
    return first


@dataclass
class _Summary:
    result: Val | None
    outs: dict[int, Val]


class _Uniformity:
    """The node's analysis: one `_Flow` per (function, parameter uniformity); statics are shared."""

    def __init__(self, node: ir.Function, cache: _Cache, sink: _Sink) -> None:
        self.node, self.cache, self.sink = node, cache, sink
        self.statics: dict[ir.Variable, str] = {}
        self.flows: dict[tuple, _Flow] = {}
        self.recursed = False
        """A recursive call got a stand-in summary: reports are walked again, not replayed."""

    def run(self) -> None:
        roots = []
        for param in self.node.params:
            semantic = param.semantic if _sv(param.semantic) in VARYING_SYSTEM_VALUES else _varying_field(param.type)
            roots.append(f"depends on '{param.name}' ({semantic})" if semantic else None)
        while True:  # statics are shared by every function: redo until they are stable
            count = len(self.statics)
            self.flows.clear()
            flow = self.flow(self.node, tuple(roots), None)
            flow.summary()
            if len(self.statics) == count:
                break
        flow.report()
        if not self.recursed:
            for done in self.flows.values():
                if done.call_site is not None and done.function is not self.node and _statics_free(done.function):
                    _shared_flows(done.function).setdefault(done.roots, done)

    def release(self) -> None:
        """Break the finished analysis's reference cycles (a flow points at this analysis and at its
        function, which keeps the flows other nodes may adopt, `_shared_flows`): a kept flow is only
        read from then on (`adopt`), and reference counting frees the rest when the compile drops it,
        with no collection of the cyclic garbage collector to find them."""
        for done in self.flows.values():
            del done.owner, done.function
        self.flows.clear()

    def flow(self, function: ir.Function, roots: tuple[str | None, ...], call: Label | None) -> _Flow:
        flow = self.flows.get((function, roots))
        if flow is None:
            shared = _shared_flows(function).get(roots) if call is not None and function is not self.node else None
            flow = self.flows[function, roots] = _Flow(self, function, roots, call)
            if shared is not None:
                self.adopt(flow, shared)
        return flow

    def adopt(self, flow: _Flow, shared: _Flow) -> None:
        """Give `flow` the fixpoint another node's analysis reached for the same function and parameter
        uniformity (`_shared_flows`; its events hold no call site: `flow`'s own is added when they are
        replayed), its callees' flows made (or adopted) here at its calls in the order walking it would."""
        flow.vars, flow.loop_taint, flow.result = dict(shared.vars), dict(shared.loop_taint), shared.result
        calls = iter(shared.calls)
        events: list[tuple[Any, ...] | _Flow] = []
        for event in shared.events:
            if isinstance(event, _Flow):
                function, roots, label = next(calls)
                callee = self.flow(function, roots, label)
                callee.summary()
                events.append(callee)
            else:
                events.append(event)
        flow.events, flow.calls, flow.done = events, shared.calls, shared.done


_SHARED = "_wgc_flows"
"""The attribute of an `ir.Function` that keeps the flows of it that any node's analysis may adopt:
(body, parameter uniformity -> a finished `_Flow`)."""


def _shared_flows(function: ir.Function) -> dict[tuple[Any, ...], _Flow]:
    """The finished flows of a helper that reads and writes no static variable, by parameter uniformity:
    then its fixpoint and reports depend on nothing else (not on the node, whose
    statics are its own), so a helper that several nodes call is walked to its fixpoint once instead of
    once per node (`_Uniformity.flow`; with material_dispatch's four material nodes sharing 'ShadeTile'
    and 'DecodeNormal', 8 + 4 walks become 2 + 1)."""
    kept = function.__dict__.get(_SHARED)
    if kept is None or kept[0] is not function.body:
        kept = function.__dict__[_SHARED] = (function.body, {})
    return kept[1]


def _statics_free(function: ir.Function) -> bool:
    """Whether `function` and what it calls declare no static variable and read or write none that is
    not `const` (a `static const` global is never in `_Uniformity.statics`: nothing can assign it).

    Each function's answer is kept with its body (`_STATICS_FREE`) and made from its callees' kept
    answers, callees first: a chain of N functions, each calling the one before, is N steps (walking
    every reachable function again for each function would be N^2/2 steps).  A call
    cycle (recursion, reported elsewhere) is answered by the plain walk, and not kept."""
    known = _kept_statics_free(function)
    if known is not None:
        return known
    order: list[ir.Function] = []     # post-order: callees before callers
    state: dict[ir.Function, bool] = {}   # False: on the path, True: finished
    stack: list[tuple[ir.Function, int]] = [(function, 0)]
    while stack:
        current, index = stack.pop()
        if index == 0:
            if current in state or _kept_statics_free(current) is not None:
                if state.get(current) is False:   # back on the path: a cycle
                    return _statics_free_walk(function)
                continue
            state[current] = False
        callees = current.callees
        if index < len(callees):
            stack.append((current, index + 1))
            stack.append((callees[index], 0))
        else:
            state[current] = True
            order.append(current)
    for current in order:
        free = not _own_statics(current) and all(_kept_statics_free(c) for c in current.callees)
        current.__dict__[_STATICS_FREE] = (current.body, free)
    return bool(_kept_statics_free(function))


_STATICS_FREE = "_wgc_statics_free"
"""The attribute of an `ir.Function` that keeps `_statics_free`'s answer: (body, answer)."""


def _kept_statics_free(function: ir.Function) -> bool | None:
    kept = function.__dict__.get(_STATICS_FREE)
    return kept[1] if kept is not None and kept[0] is function.body else None


def _own_statics(function: ir.Function) -> bool:
    """Whether the function's own body declares a static variable or uses one that is not `const`."""
    return any(d.variable.storage is _STATIC for d in nodes_of(function, ir.VarDecl)) or \
        any(r.variable.storage is _STATIC and not r.variable.const for r in nodes_of(function, ir.VarRef))


def _statics_free_walk(function: ir.Function) -> bool:
    """`_statics_free` without the kept answers, for a function in a call cycle."""
    return not any(_own_statics(current) for current in reachable_functions(function))


def _varying_field(type_: t.Type) -> str | None:
    """The semantic of a varying system value inside a struct parameter."""
    for field in type_.all_fields() if isinstance(type_, t.StructType) else ():
        if _sv(field.semantic) in VARYING_SYSTEM_VALUES:
            return field.semantic
        if (inner := _varying_field(field.type)) is not None:
            return inner
    return None


class _Flow:
    """One function with given parameter uniformity: walks of its body repeated to a fixpoint."""

    def __init__(self, owner: _Uniformity, function: ir.Function, roots: tuple[str | None, ...],
                 call: Label | None) -> None:
        self.owner, self.function, self.roots, self.call_site = owner, function, roots, call
        self.calls: list[tuple[ir.Function, tuple[str | None, ...], Label]] = []
        """Per callee flow in `events`, in order: the function, the parameter uniformity and the call's label."""
        self.vars: dict[ir.Variable, str] = {p: r for p, r in zip(function.params, roots) if r is not None}
        self.system_values = set(self.vars) if function is owner.node else set()  # named by their root
        self.loop_taint: dict[ir.Loop, Reason] = {}
        self.result: Val | None = None
        self.events: list[tuple[Any, ...] | _Flow] = []  # what the last walk would report, in order
        self.done: _Summary | None = None
        self.running = self.reported = self.changed = False
        self.uniform_reads: set[ir.Variable] = set()
        """The variables the current walk read as uniform, but for the reads in stores to themselves (`feeding`)."""
        self.feeding: ir.Variable | None = None
        """While the operands of a store to this variable whose value is discarded are walked (`discarded`),
        and not those of an expression in it that uses their uniformity for more than its value (`opaque`)."""

    def summary(self) -> _Summary:
        if self.running:  # recursion (already an error): assume the worst
            self.owner.recursed = True
            return _Summary(Val("depends on a recursive call"), {})
        if self.done is None:
            self.running = self.changed = True
            while self.changed:
                self.changed = False
                self.walk(reporting=False)
            self.running = False
            outs = {i: Val(self.vars[p]) for i, p in enumerate(self.function.params)
                    if p.direction is not _IN and p in self.vars}
            self.done = _Summary(self.result, outs)
        return self.done

    def report(self) -> None:
        """Report what the body breaks, reporting the callees' at each call.  The walk that ended the
        fixpoint changed nothing, and no flow of the last round of `_Uniformity.run` changes the
        statics, so a reporting walk would repeat it: its recorded events are replayed instead (a
        callee's summary is final by then, except where a recursive call got a stand-in: walk)."""
        if not self.reported:
            self.reported = True
            if self.owner.recursed:
                self.walk(reporting=True)
                return
            site = (self.call_site,) if self.call_site else ()
            for event in self.events:
                if isinstance(event, _Flow):
                    event.report()
                else:
                    span, message, labels, notes = event
                    self.owner.sink(codes.NON_UNIFORM_CALL, span, message, labels + site, notes)

    def walk(self, reporting: bool) -> None:
        self.reporting = reporting
        self.uniform_reads = set()
        self.events = []
        self.calls = []
        self.control: list[Reason] = []  # the varying conditions we are under, innermost last
        self.returned: Reason | None = None  # some threads have left the function
        self.breakables: list[list[Any]] = []  # [loop or switch, Reason some threads left it | None]
        if self.function.body is not None:
            self.block(self.function.body)

    def _report(self, span: Span, message: str, labels: Reason, notes: tuple[str, ...] = ()) -> None:
        if self.reporting:
            site = (self.call_site,) if self.call_site else ()
            self.owner.sink(codes.NON_UNIFORM_CALL, span, message, labels + site, notes)
        else:   # the call site is added when the event is replayed: the events do not depend on it
            self.events.append((span, message, labels, notes))

    def current(self) -> Reason | None:
        """Why control is varying here, or None when it is uniform."""
        if self.control:
            return self.control[-1]
        if not self.breakables:
            return self.returned   # outside loops and switches: no generator
        return next((b[1] for b in reversed(self.breakables) if b[1] is not None), self.returned)

    def mark(self, variable: ir.Variable, root: str) -> None:
        """`variable` is varying from here on.  Another walk is needed (`changed`) only if this one read
        it as uniform before (`uniform_reads`): the reads after this see it varying already, so without
        such a read another walk would repeat this one (the tables only grow; a read in a store to the
        variable itself reaches nothing but that store, a no-op once it is varying: `feeding`).  This
        spares the second walk of most bodies (`acc = acc * 2;` then `if (gi > 3) acc.w = 0;`).  A static
        that another flow read is `_Uniformity.run`'s: it walks every flow again when the statics grow."""
        table = self.owner.statics if variable.storage is _STATIC else self.vars
        if variable.storage in _TRACKED and variable not in table:
            table[variable] = root
            if FULL_FIXPOINT or variable in self.uniform_reads:
                self.changed = True

    def taint(self, loop: ir.Loop, reason: Reason) -> None:
        if loop not in self.loop_taint:
            self.loop_taint[loop] = reason
            self.changed = True

    def assign(self, target: ir.Expr, value: Val | None) -> None:
        base, path = lvalue_chain(target)
        index = None
        for p in path:   # `_join` of the indices, folded as `operands` does (no list for the many without)
            if type(p) is ir.Index:
                index = _blame(index, self.expr(p.index))
        if not isinstance(base, ir.VarRef):  # memory: only its sub-expressions matter
            for sub in children(base):
                self.expr(sub)
        elif (found := _join(value, index)) is not None:
            self.mark(base.variable, found.root)
        elif self.current() is not None:
            self.mark(base.variable, NOT_UNIFORM)

    # -- statements

    def block(self, block: ir.Block) -> None:
        for stmt in block.stmts:
            self.stmt(stmt)

    def stmt(self, stmt: ir.Stmt) -> None:
        if isinstance(stmt, ir.ExprStmt):   # the most frequent first (statement classes are disjoint)
            self.discarded(stmt.expr)
        elif isinstance(stmt, ir.Block):
            self.block(stmt)
        elif isinstance(stmt, ir.VarDecl) and stmt.init is not None:
            value = self.expr(stmt.init)
            if value is not None or self.current() is not None:
                self.mark(stmt.variable, value.root if value else NOT_UNIFORM)
        elif isinstance(stmt, ir.If):
            self.branch(stmt.cond, [stmt.then] + ([stmt.else_] if stmt.else_ is not None else []), "condition")
        elif isinstance(stmt, ir.Switch):
            self.breakables.append([stmt, None])
            cases = stmt.cases
            self.branch(stmt.selector, [c.body for c in cases], "selector", [c.falls_through for c in cases])
            self.breakables.pop()
        elif isinstance(stmt, ir.Loop):
            self.loop(stmt)
        elif isinstance(stmt, (ir.Break, ir.Continue)) and (reason := self.current()) is not None:
            loops = [b for b in self.breakables if isinstance(b[0], ir.Loop)]
            target = self.breakables[-1] if isinstance(stmt, ir.Break) else loops[-1] if loops else None
            if target is not None:
                what = "skipped to the next iteration" if isinstance(stmt, ir.Continue) else \
                    "left the loop" if isinstance(target[0], ir.Loop) else "left the switch"
                target[1] = target[1] or (Label(stmt.span, f"some threads may have {what} here"), *reason)
                if isinstance(target[0], ir.Loop):
                    self.taint(target[0], target[1])
        elif isinstance(stmt, ir.Return):
            value = self.expr(stmt.value)
            reason = self.current()
            if value is None and reason is not None and stmt.value is not None:
                value = Val(f"depends on the result of '{self.function.name}', which returns in non-uniform "
                            "control flow")
            self.result = self.result or (Val(value.root) if value else None)
            if reason is not None:
                self.diverge((Label(stmt.span, "some threads may have returned here"), *reason))
        elif isinstance(stmt, ir.Discard) and (reason := self.current()) is not None:
            self.diverge((Label(stmt.span, "some threads may have been discarded here"), *reason))

    def diverge(self, reason: Reason) -> None:
        """Some threads leave the function here: the rest of it (and every enclosing loop) is varying."""
        self.returned = self.returned or reason
        for entry in self.breakables:
            if isinstance(entry[0], ir.Loop):
                self.taint(entry[0], reason)

    def branch(self, cond: ir.Expr, blocks: list[ir.Block], what: str, falls: list[bool] | None = None) -> None:
        """An if (or a switch, whose cases may fall into the next): each branch starts from the state
        before the statement; threads that left in any branch stay gone after it."""
        value = self.expr(cond)
        if value is not None:
            self.control.append((Label(cond.span, f"this {what} {value.phrase()}"),))
        saved = self.divergences()
        ends: list[list[Reason | None]] = []
        for i, block in enumerate(blocks):
            if falls and i and falls[i - 1]:
                self.restore([next(filter(None, column), None) for column in zip(saved, ends[-1])])
            else:
                self.restore(saved)   # a reason is None or a non-empty tuple: the column's first is itself
            self.block(block)
            ends.append(self.divergences())
        self.restore([next(filter(None, column), None) for column in zip(saved, *ends)])
        if value is not None:
            self.control.pop()

    def divergences(self) -> list[Reason | None]:
        return [self.returned, *(b[1] for b in self.breakables)]

    def restore(self, divergences: list[Reason | None]) -> None:
        self.returned = divergences[0]
        for entry, divergence in zip(self.breakables, divergences[1:]):
            entry[1] = divergence

    def loop(self, loop: ir.Loop) -> None:
        for stmt in loop.init:
            self.stmt(stmt)
        depth = len(self.control)
        if loop in self.loop_taint:
            self.control.append(self.loop_taint[loop])
        self.breakables.append([loop, None])
        if loop.kind is not _DO_WHILE:
            self.loop_cond(loop, depth)
        self.block(loop.body)
        self.discarded(loop.step)
        if loop.kind is _DO_WHILE:
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

    def discarded(self, e: ir.Expr | None) -> None:
        """An expression whose value is not used (a statement, a loop step): in a store to a variable,
        the reads of that variable are `feeding` (see `mark`)."""
        if type(e) is ir.Assign or type(e) is ir.IncDec:
            base, _ = lvalue_chain(e.target)
            if type(base) is ir.VarRef:
                self.feeding = base.variable
                self.assignment(e)
                self.feeding = None
            else:
                self.assignment(e)  # `opaque` of no `feeding`: a statement is in no expression
            return
        self.expr(e)

    def opaque(self, handler: Callable[[_Flow, Any], Val | None], e: ir.Expr) -> Val | None:
        """`handler(e)` with no `feeding` variable: `e` uses its operands' uniformity for more than its
        value (control, a callee's flow, another store, a report about an operand)."""
        feeding = self.feeding
        if feeding is None:
            return handler(self, e)
        self.feeding = None
        try:
            return handler(self, e)
        finally:
            self.feeding = feeding

    def expr(self, e: ir.Expr | None) -> Val | None:
        """What `e` depends on that varies (None: uniform); dispatched on its class (`_FLOW_EXPRESSIONS`:
        a dict lookup instead of a chain of isinstance tests, once per expression of every walk)."""
        if e is None:
            return None
        return _FLOW_EXPRESSIONS.get(type(e), _FLOW_OPERANDS)(self, e)

    def constant(self, e: ir.Constant) -> Val | None:
        return None

    def var_ref(self, e: ir.VarRef) -> Val | None:
        var = e.variable
        root = (self.owner.statics if var.storage is _STATIC else self.vars).get(var)
        if root is None:
            if var is not self.feeding:
                self.uniform_reads.add(var)
            return None
        return Val(root, None if var in self.system_values else var.name)

    def operands(self, e: ir.Expr) -> Val | None:
        """An expression that varies when one of its operands does (each evaluated, in order; `_join` blames)."""
        found = None
        table = _FLOW_EXPRESSIONS
        for sub in children(e):   # `expr`, inlined (a sub-expression is never None)
            found = _blame(found, table.get(type(sub), _FLOW_OPERANDS)(self, sub))
        return found

    def projection(self, e: ir.FieldAccess | ir.Swizzle) -> Val | None:
        """`operands` of a member or swizzle, whose one operand is its base (no list of children)."""
        return self.expr(e.base)

    def conversion(self, e: ir.Convert) -> Val | None:
        """`operands` of a conversion, whose one operand is `operand`."""
        return self.expr(e.operand)

    def binary(self, e: ir.Binary) -> Val | None:
        if e.op in ("&&", "||"):
            return self.opaque(_Flow.conditional, e)
        return _blame(self.expr(e.left), self.expr(e.right))

    def conditional(self, e: ir.Binary | ir.Select) -> Val | None:
        """`&&`, `||` and `?:`: the operands after the first run under its condition."""
        first, *rest = children(e)
        cond = self.expr(first)
        if cond is not None:
            self.control.append((Label(first.span, f"this condition {cond.phrase()}"),))
        values = [self.expr(sub) for sub in rest]
        if cond is not None:
            self.control.pop()
        return _join(cond, *values)

    def assignment(self, e: ir.Assign | ir.IncDec) -> Val | None:
        value = self.expr(e.value) if isinstance(e, ir.Assign) else None
        if not isinstance(e, ir.Assign) or e.op:
            value = _join(value, self.expr(e.target))
        self.assign(e.target, value)
        return value

    def comma(self, e: ir.Comma) -> Val | None:
        self.expr(e.left)
        return self.expr(e.right)

    def operation(self, e: ir.IntrinsicCall | ir.MethodCall) -> Val | None:
        """An intrinsic or a method."""
        if self.feeding is not None and (e.out_params or isinstance(e, ir.MethodCall) and
                                         e.method in UNIFORM_OPERAND_METHODS):
            return self.opaque(_Flow.operation, e)
        obj = self.expr(e.object) if isinstance(e, ir.MethodCall) else None
        values = [None if i in e.out_params else self.expr(arg) for i, arg in enumerate(e.args)]
        name = e.method if isinstance(e, ir.MethodCall) else e.name
        if (op := _group_op_name(e)) is not None and self.uniform_control(e.span, op) \
                and name in UNIFORM_OPERAND_METHODS:
            self.uniform_operands(e, obj, values[0] if values else None)  # type: ignore[arg-type]
        result: Val | None
        if name.startswith("Interlocked") or name in COUNTER_METHODS:
            result = Val(f"depends on the value returned by '{name}'")
        elif isinstance(e, ir.IntrinsicCall) and name.startswith(("Wave", "Quad")) \
                and name not in UNIFORM_WAVE_INTRINSICS:
            kind = "quad" if name.startswith("Quad") else "wave"
            result = Val(f"depends on the result of '{name}' ({kind} operations are not thread-group-uniform)")
        elif name == "GetThreadNodeOutputRecords":
            result = Val("depends on per-thread records from 'GetThreadNodeOutputRecords'")
        else:
            result = _join(obj, *values) if name != "FinishedCrossGroupSharing" else None
        for i in e.out_params:
            self.assign(e.args[i], result)
        return None if e.type is t.VOID else result

    def uniform_control(self, span: Span, what: str, extra: tuple[Label, ...] = ()) -> bool:
        reason = self.current()
        if reason is not None:
            self._report(span, f"{what} must be called in thread-group-uniform control flow", (*reason, *extra))
        return reason is None

    def uniform_operands(self, e: ir.MethodCall, obj: Val | None, count: Val | None) -> None:
        instead = UNIFORM_OPERAND_METHODS[e.method]
        if obj is not None:
            self._report(e.span, f"'{e.method}' must be called on a thread-group-uniform node output",
                         (Label(e.object.span, f"this node output {obj.phrase()}"),),
                         (f"use '{instead}' when each thread picks its own output",))
        elif count is not None:
            what = "record count" if e.method in GET_RECORDS else "count"
            self._report(e.span, f"the {what} passed to '{e.method}' must be thread-group-uniform",
                         (Label(e.args[0].span, f"this value {count.phrase()}"),),
                         (f"use '{instead}' when the count differs between threads",))

    def call(self, e: ir.Call) -> Val | None:
        params = e.function.params
        values = [None if p.direction is _OUT else self.expr(a) for p, a in zip(params, e.args)]
        roots = tuple(v.root if v else None for v in values) + (None,) * (len(params) - len(values))
        label = Label(e.span, f"'{e.function.name}' is called here from '{self.function.name}'")
        flow = self.owner.flow(e.function, roots, label)
        summary = flow.summary()
        if self.reporting:
            flow.report()
        else:
            self.events.append(flow)
            self.calls.append((e.function, roots, label))
        if (op := self.owner.cache.group_op(e.function)) is not None:
            self.uniform_control(e.span, f"'{e.function.name}'", (Label(op[0], f"{op[1]} is called here"),))
        for i, (param, arg) in enumerate(zip(params, e.args)):
            if param.direction is not _IN:
                self.assign(arg, summary.outs.get(i))
        if self.current() is not None:
            for static in self.owner.cache.assigned_statics(e.function):
                self.mark(static, NOT_UNIFORM)
        return summary.result


_FLOW_OPERANDS = _Flow.operands


def _opaque(handler: Callable[[_Flow, Any], Val | None]) -> Callable[[_Flow, Any], Val | None]:
    """`handler` run by `_Flow.opaque`."""
    return lambda flow, e: flow.opaque(handler, e)


_FLOW_EXPRESSIONS: dict[type, Callable[[_Flow, Any], Val | None]] = {
    ir.Constant: _Flow.constant, ir.VarRef: _Flow.var_ref, ir.Binary: _Flow.binary,
    ir.Select: _opaque(_Flow.conditional), ir.Assign: _opaque(_Flow.assignment),
    ir.IncDec: _opaque(_Flow.assignment), ir.Comma: _Flow.comma, ir.Call: _opaque(_Flow.call),
    ir.IntrinsicCall: _Flow.operation, ir.MethodCall: _Flow.operation,
    ir.FieldAccess: _Flow.projection, ir.Swizzle: _Flow.projection, ir.Convert: _Flow.conversion,
}
"""`_Flow.expr` by the expression's class (IR classes have no subclasses); the rest: `_Flow.operands`,
which, as `constant`, `var_ref`, `comma`, `binary` but for `&&`/`||`, and `operation` but for out
arguments and `uniform_operands`, only joins the operands' uniformity into the value (a `feeding` read
reaches nothing else); the others are `opaque`."""


# ---------------------------------------------------------------- OutputComplete and FinishedCrossGroupSharing paths

State = dict
"""key -> frozenset: a `_Records` object (or FCGS) -> its facts (kind "open"|"done"|"call", Span); a
`(_HOLDS, v)` (a records variable) -> the `_Records` objects it may hold on the paths that meet here;
`(_NULL, v)`, `(_BOUND, v)` -> nothing (present or not)."""
FCGS = "FinishedCrossGroupSharing"


class _Records:
    """One set of output records: from a Get*NodeOutputRecords() or a call that returns them (`span`),
    or a record parameter; `name` is the variable that first holds it, for messages.  A value (equal
    records are the same records: a loop's second walk makes them again) whose hash is computed once:
    the states hash their keys at every lookup, and a frozen dataclass's hash of its fields (the span's
    own hash in Python) would be computed again at each of those lookups."""

    __slots__ = ("name", "span", "variable", "_hash")

    def __init__(self, name: str, span: Span, variable: ir.Variable | None = None) -> None:
        self.name, self.span, self.variable = name, span, variable
        self._hash = hash((name, span, variable))

    def __eq__(self, other: object) -> bool:
        return self is other or isinstance(other, _Records) and \
            (self.name, self.span, self.variable) == (other.name, other.span, other.variable)

    def __hash__(self) -> int:
        return self._hash


_NULL, _BOUND, _HOLDS = "null", "bound", "holds"
"""The tags of the state keys about a node-object variable `v`, plain tuples: `(_NULL, v)` is present
once `v` is a local declared without an initializer (null), `(_BOUND, v)` once it is assigned (on some
path), and `(_HOLDS, v)` maps a records variable to the `_Records` it may hold (`a = b;` makes `a` hold
`b`'s records).  Tuples are made, hashed and compared in C: the frozen dataclasses they replace (made,
hashed and compared in Python) were dearer at every state lookup of the path walks."""


def _merge(*states: State | None) -> State | None:
    """The state where paths meet: the union of their facts (None: no path gets here)."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    merged: State = {}
    for state in live:
        for key, facts in state.items():
            merged[key] = merged.get(key, frozenset()) | facts
    return merged


def _held(state: State, var: ir.Variable) -> frozenset[_Records]:
    """The records `var` may hold here."""
    return state.get((_HOLDS, var), frozenset())


def _facts(state: State, key: object, kind: str) -> list[Span]:
    """The spans of the facts of one kind about `key`, in source order (sets have no stable order)."""
    facts = state.get(key)
    if not facts:
        return []
    if len(facts) == 1:   # most keys have one fact: no generator and sort
        for k, span in facts:
            return [span] if k == kind else []
    return sorted((span for k, span in facts if k == kind), key=_START)


_START = operator.attrgetter("start")


class _Paths:
    """A structured walk of one function tracking, per path, which output records are open or completed
    (WG0418, WG0419) and whether FinishedCrossGroupSharing() was already called (WG0420). Records are
    tracked as objects (`_Records`): `a = b;` makes `a` hold `b`'s records, so `a.OutputComplete()`
    then completes them; records held by an out parameter or returned are the caller's to complete."""

    def __init__(self, function: ir.Function, cache: _Cache, sink: _Sink) -> None:
        self.function, self.cache, self.sink = function, cache, sink
        self.frames: list[tuple[ir.Stmt, list[State], list[State]]] = []  # loop or switch, breaks, continues
        self.ever_completed = {e.object.variable for e in nodes_of(function, ir.MethodCall)
                               if e.method == "OutputComplete" and isinstance(e.object, ir.VarRef)}
        self.null_uses: dict[ir.Expr, None] = {}
        self.maybe_bound: set[ir.Expr] = set()

    def run(self) -> None:
        body = self.function.body
        params: State = {}
        for p in self.function.params:
            if _is_records(p.type):
                records = _Records(p.name, p.span, p)
                params[records], params[(_HOLDS, p)] = frozenset(), frozenset({records})
        end = self.block(body, params)  # type: ignore[arg-type]
        closing = Span(body.span.file, max(body.span.start, body.span.end - 1), body.span.end)  # type: ignore
        self.exit(end, Label(closing, f"'{self.function.name}' ends here"))
        self.report_null_uses()

    def exit(self, state: State | None, where: Label) -> None:
        if state is None:
            return
        handed_back = {r for p in self.function.params if p.direction is not _IN
                       for r in state.get((_HOLDS, p), ())}
        completed_via = {r for v in self.ever_completed for r in state.get((_HOLDS, v), ())}
        for key in state:
            if not isinstance(key, _Records) or key in handed_back:
                continue
            for get in _facts(state, key, "open"):
                if key in completed_via:
                    message = f"output records in '{key.name}' are not completed with OutputComplete() on every path"
                    label = Label(where.span, f"'{key.name}' is still open when {where.message}")
                else:
                    message, label = f"output records in '{key.name}' are never completed with OutputComplete()", where
                self.sink(codes.OUTPUT_NOT_COMPLETED, get, message, (label,),
                          ("every Get*NodeOutputRecords() must reach OutputComplete() in the same function",))

    def again(self, previous: list[Span], span: Span) -> tuple[Label, ...]:
        """Labels for a second call: the earlier call, or the loop that repeats this one."""
        others = [p for p in previous if p != span]
        if others:
            return (Label(others[0], "it is already called here"),)
        loop = next((f[0] for f in reversed(self.frames) if isinstance(f[0], ir.Loop)), None)
        return (Label(loop.span, "in this loop"),) if loop is not None else ()

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
            return self.store(stmt.variable, stmt.init, s)
        if isinstance(stmt, ir.ExprStmt):
            return self.expr(stmt.expr, s)
        if isinstance(stmt, ir.If):
            s = self.expr(stmt.cond, s)
            return _merge(self.block(stmt.then, s), self.block(stmt.else_, s) if stmt.else_ is not None else s)
        if isinstance(stmt, ir.Loop):
            return self.loop(stmt, s)
        if isinstance(stmt, ir.Switch):
            s = self.expr(stmt.selector, s)
            self.frames.append((stmt, [], []))
            fall: State | None = None
            for case in stmt.cases:
                end = self.block(case.body, _merge(s, fall))
                fall = end if case.falls_through else None
            breaks = self.frames.pop()[1]
            return _merge(fall, *breaks, None if any(case.is_default for case in stmt.cases) else s)
        if isinstance(stmt, ir.Break) and self.frames:
            self.frames[-1][1].append(s)
        elif isinstance(stmt, ir.Continue) and (loops := [f for f in self.frames if isinstance(f[0], ir.Loop)]):
            loops[-1][2].append(s)
        elif isinstance(stmt, ir.Return):
            s = self.expr(stmt.value, s, consumed=True)
            if isinstance(stmt.value, ir.VarRef):
                returned = _held(s, stmt.value.variable)   # returned to the caller, which tracks them
                s = {k: v for k, v in s.items() if k not in returned}
            self.exit(s, Label(stmt.span, "the function returns here"))
        return None  # break, continue, return, discard: nothing follows on this path

    def loop(self, loop: ir.Loop, s: State) -> State | None:
        for stmt in loop.init:
            s = self.stmt(stmt, s)  # type: ignore[assignment]
        tests = loop.cond is not None and not (isinstance(loop.cond, ir.Constant) and loop.cond.value is True)
        do_while = loop.kind is _DO_WHILE
        entry = s
        for _ in range(2):  # the second walk sees what an iteration leaves (use after complete, calls repeated)
            self.frames.append((loop, [], []))
            start: State | None = entry
            exits = None  # the state when the condition ends the loop
            if tests and not do_while:
                start = exits = self.expr(loop.cond, entry)
            end = _merge(self.block(loop.body, start), *self.frames[-1][2])
            if end is not None:
                end = self.expr(loop.step, end)
                if tests and do_while:
                    end = exits = self.expr(loop.cond, end)
            breaks = self.frames.pop()[1]
            if (entry := _merge(s, end)) == s:  # type: ignore[assignment]
                break  # an iteration changes nothing: one walk is enough (nested loops stay linear)
        return _merge(exits, *breaks)

    # -- expressions

    def store(self, var: ir.Variable, value: ir.Expr | None, s: State) -> State:
        """`var = value` (declaration or assignment)."""
        if isinstance(var.type, t.NodeObjectType):
            s = {**s, ((_NULL, var) if value is None else (_BOUND, var)): frozenset()}
        if not _is_records(var.type):
            return self.expr(value, s)
        if isinstance(value, ir.MethodCall) and value.method in GET_RECORDS or \
                isinstance(value, ir.Call) and _is_records(value.type):
            return self.fresh(var, value.span, self.expr(value, s, consumed=True))
        if isinstance(value, ir.VarRef):    # a copy of the handle (not a use of the records)
            return {**s, (_HOLDS, var): _held(s, value.variable)}    # both now hold the same records
        return {**self.expr(value, s), (_HOLDS, var): frozenset()}  # null, or records not tracked

    def fresh(self, var: ir.Variable, span: Span, s: State) -> State:
        """`var` receives records that are open (requested at `span`)."""
        records = _Records(var.name, span, var)
        return {**s, records: frozenset({("open", span)}), (_HOLDS, var): frozenset({records})}

    def use(self, var: ir.Variable, s: State, span: Span, message: str) -> None:
        for records in sorted(_held(s, var), key=lambda r: r.span.start):
            for done in _facts(s, records, "done")[:1]:
                self.sink(codes.RECORD_USE_AFTER_COMPLETE, span, message,
                          (Label(done, "OutputComplete() is called here"),),
                          ("OutputComplete() ends the use of the records: nothing may access them after it",))
                return

    def complete(self, var: ir.Variable, s: State, span: Span) -> State:
        held = _held(s, var)
        for records in sorted(held, key=lambda r: r.span.start):
            if done := _facts(s, records, "done"):
                self.sink(codes.RECORD_USE_AFTER_COMPLETE, span,
                          f"OutputComplete() may be called twice on '{var.name}'", self.again(done, span))
                break
        return {**s, **{records: frozenset({("done", span)}) for records in held}}

    def finished_sharing(self, s: State, span: Span, inner: Span | None) -> State:
        if previous := _facts(s, FCGS, "call"):
            inside = (Label(inner, "FinishedCrossGroupSharing() is called here"),) if inner is not None else ()
            self.sink(codes.INVALID_CROSS_GROUP_SHARING, span, "FinishedCrossGroupSharing() may be called more than "
                      "once per thread", self.again(previous, span) + inside,
                      ("it may be called at most once per thread",))
        return {**s, FCGS: frozenset({("call", span)})}

    def null_use(self, obj: ir.Expr, s: State) -> None:
        """WG0452 candidates: an operation on a node object that is certainly null here (declared without
        an initializer, and assigned on no path that reaches here). A loop's body is walked again with
        what an iteration leaves, so a use is reported (by `run`) only if every walk finds it null."""
        if not isinstance(obj, ir.VarRef) or (_NULL, obj.variable) not in s:
            return
        if (_BOUND, obj.variable) in s:
            self.maybe_bound.add(obj)
        else:
            self.null_uses.setdefault(obj, None)

    def report_null_uses(self) -> None:
        for obj in self.null_uses:
            if obj in self.maybe_bound:
                continue
            var = obj.variable  # type: ignore[attr-defined]
            self.sink(codes.NULL_NODE_OBJECT_USE, obj.span,
                      f"'{var.name}' is null here: it is declared without an initializer and not assigned before "
                      "this use, which is undefined behaviour", (Label(var.span, "declared here"),),
                      ("node objects declared without an initializer are null",))

    def expr(self, e: ir.Expr | None, s: State, consumed: bool = False) -> State:
        """The state after evaluating `e`; `consumed`: fresh records `e` yields are kept (stored, returned, ...).
        Dispatched on the expression's class (`_PATH_EXPRESSIONS`: a dict lookup instead of a dozen
        isinstance tests per expression)."""
        if e is None:
            return s
        return _PATH_EXPRESSIONS.get(type(e), _PATH_OPERANDS)(self, e, s, consumed)

    def operands(self, e: ir.Expr, s: State, consumed: bool = False) -> State:
        """An expression that only evaluates its operands, in order."""
        table = _PATH_EXPRESSIONS
        for sub in children(e):   # `expr`, inlined (a sub-expression is never None)
            s = table.get(type(sub), _PATH_OPERANDS)(self, sub, s, False)
        return s

    def projection(self, e: ir.FieldAccess | ir.Swizzle, s: State, consumed: bool = False) -> State:
        """`operands` of a member or swizzle, whose one operand is its base (no list of children)."""
        return self.expr(e.base, s)

    def conversion(self, e: ir.Convert, s: State, consumed: bool = False) -> State:
        """`operands` of a conversion, whose one operand is `operand`."""
        return self.expr(e.operand, s)

    def var_ref(self, e: ir.VarRef, s: State, consumed: bool = False) -> State:
        # only node-object variables hold records (`_HOLDS`): the test spares building a key for the rest
        if isinstance(e.variable.type, t.NodeObjectType) and _held(s, e.variable):
            self.use(e.variable, s, e.span, f"'{e.variable.name}' is used after OutputComplete()")
        return s

    def record_access(self, e: ir.RecordAccess, s: State, consumed: bool = False) -> State:
        if isinstance(e.object.type, t.NodeObjectType):
            self.null_use(e.object, s)
        if isinstance(e.object, ir.VarRef) and _held(s, e.object.variable):
            self.use(e.object.variable, s, e.span, f"the records in '{e.object.variable.name}' are accessed after "
                     "OutputComplete()")
            return self.expr(e.index, s)
        return self.operands(e, s)

    def index(self, e: ir.Index, s: State, consumed: bool = False) -> State:
        if isinstance(e.base.type, t.NodeObjectType):
            self.null_use(e.base, s)
        return self.operands(e, s)

    def resource_index(self, e: ir.ResourceIndex, s: State, consumed: bool = False) -> State:
        if isinstance(e.resource.type, t.NodeObjectType):
            self.null_use(e.resource, s)
        return self.operands(e, s)

    def binary(self, e: ir.Binary, s: State, consumed: bool = False) -> State:
        if e.op in ("&&", "||"):
            return self.conditional(e, s)
        return self.expr(e.right, self.expr(e.left, s))

    def conditional(self, e: ir.Binary | ir.Select, s: State, consumed: bool = False) -> State:
        """`&&`, `||` and `?:`: the operands after the first run on some paths only."""
        first, *rest = children(e)
        s = self.expr(first, s)
        return _merge(s, *(self.expr(sub, s) for sub in rest))  # type: ignore[return-value]

    def assignment(self, e: ir.Assign, s: State, consumed: bool = False) -> State:
        if isinstance(e.target, ir.VarRef):
            return self.store(e.target.variable, e.value, s)
        return self.operands(e, s)

    def method_call(self, e: ir.MethodCall, s: State, consumed: bool = False) -> State:
        if isinstance(e.object.type, t.NodeObjectType):
            self.null_use(e.object, s)
        if e.method == "OutputComplete":
            if isinstance(e.object, ir.VarRef) and _held(s, e.object.variable):
                return self.complete(e.object.variable, s, e.span)
            return self.expr(e.object, s, consumed=True)
        s = self.operands(e, s)
        if e.method in GET_RECORDS and not consumed:
            self.sink(codes.OUTPUT_NOT_COMPLETED, e.span, f"output records from '{e.method}' are never completed with "
                      "OutputComplete()", (), ("store the records in a variable and call OutputComplete() on it",))
        if e.method == "FinishedCrossGroupSharing":
            s = self.finished_sharing(s, e.span, None)
        return s

    def call(self, e: ir.Call, s: State, consumed: bool = False) -> State:
        completes = self.cache.completes(e.function)
        sources = self.cache.out_records(e.function)
        params = e.function.params
        for i, arg in enumerate(e.args):
            if i < len(params) and params[i].direction is not _IN and \
                    isinstance(params[i].type, t.NodeObjectType) and isinstance(arg, ir.VarRef):
                s = {**s, (_BOUND, arg.variable): frozenset()}   # the callee may bind it
                if params[i].direction is _OUT:
                    continue                       # records bound below
            if i in completes and isinstance(arg, ir.VarRef) and _held(s, arg.variable):
                s = self.complete(arg.variable, s, arg.span)
            else:
                s = self.expr(arg, s, consumed=i in completes or i in sources.values())
        for i, source in sources.items():          # records bound to out/inout parameters
            arg = e.args[i]
            if not isinstance(arg, ir.VarRef):
                continue
            if source is None:
                s = self.fresh(arg.variable, e.span, s)
            elif isinstance(held := e.args[source], ir.VarRef):
                s = {**s, (_HOLDS, arg.variable): _held(s, held.variable)}
            else:                                  # fresh records passed straight through
                s = self.fresh(arg.variable, e.args[source].span, s)
        inner = self.cache.finishes_sharing(e.function)
        return self.finished_sharing(s, e.span, inner) if inner is not None else s


_PATH_OPERANDS = _Paths.operands
_PATH_EXPRESSIONS: dict[type, Callable[..., State]] = {
    ir.VarRef: _Paths.var_ref, ir.RecordAccess: _Paths.record_access, ir.Index: _Paths.index,
    ir.ResourceIndex: _Paths.resource_index, ir.Binary: _Paths.binary, ir.Select: _Paths.conditional,
    ir.Assign: _Paths.assignment, ir.MethodCall: _Paths.method_call, ir.Call: _Paths.call,
    ir.FieldAccess: _Paths.projection, ir.Swizzle: _Paths.projection, ir.Convert: _Paths.conversion,
}
"""`_Paths.expr` by the expression's class (IR classes have no subclasses); the rest: `_Paths.operands`."""


# ---------------------------------------------------------------- scans: barriers, launch bans, SV_DispatchGrid


def _scan(function: ir.Function, launch: str, sink: _Sink, seen_groupshared: set[ir.Variable]) -> None:
    thread = launch == "thread"
    for e in nodes_of(function, *WRITERS, ir.VarRef) if thread else nodes_of(function, *WRITERS):
        if isinstance(e, ir.IntrinsicCall) and (e.name == "Barrier" or e.name in LEGACY_BARRIERS):
            _barrier(e, launch, sink)
        for target in written(e):
            _dispatch_grid_write(e, target, sink)
        if not thread:
            continue
        if isinstance(e, ir.MethodCall) and e.method == "GetGroupNodeOutputRecords":
            sink(codes.GROUP_RECORDS_IN_THREAD_LAUNCH, e.span, "'GetGroupNodeOutputRecords' in a thread launch node: "
                 "the spec does not allow it (DXC does)",
                 notes=("each thread of a thread launch node is its own group, so the records are the thread's: use "
                        "'GetThreadNodeOutputRecords'",))
        elif isinstance(e, ir.VarRef) and e.variable.storage is _GROUPSHARED \
                and e.variable not in seen_groupshared:
            seen_groupshared.add(e.variable)
            sink(codes.METHOD_NOT_FOR_LAUNCH, e.span, f"groupshared variable '{e.variable.name}' cannot be used in "
                 "thread launch nodes", (Label(e.variable.span, f"'{e.variable.name}' is declared here"),),
                 ("thread launch nodes have no thread group to share memory with",))
        elif isinstance(e, ir.IntrinsicCall) and e.name in QUAD_OPS:
            sink(codes.QUAD_IN_THREAD_LAUNCH, e.span, f"'{e.name}' in a thread launch node reads a quad the node "
                 "does not have: its result is undefined",
                 notes=("the spec (Quad and derivative operation semantics): \"Quad and derivative operations are "
                        "invalid in thread launch nodes since there is not a sufficiently sized thread group "
                        "available.\" DXC accepts them; use a Wave operation, or a broadcasting or coalescing node",))
        elif uses_implicit_derivatives(e):
            name = e.name if isinstance(e, ir.IntrinsicCall) else e.method
            sink(codes.METHOD_NOT_FOR_LAUNCH, e.span, f"'{name}' computes implicit derivatives, which are not "
                 "available in thread launch nodes",
                 notes=("use 'SampleLevel' or 'SampleGrad'" if isinstance(e, ir.MethodCall) else
                        "thread launch nodes have no group of threads to take derivatives across",))


def _flag_names(value: int, names: dict[int, str]) -> str:
    return "ALL_MEMORY" if names is MEMORY_NAMES and value == ALL_MEMORY else \
        " | ".join(name for bit, name in names.items() if value & bit) or "0"


def _barrier(e: ir.IntrinsicCall, launch: str, sink: _Sink) -> None:
    """The rules of workgraph-rules.md §1.10 for one Barrier() or legacy barrier call (the first one broken)."""
    obj: Any = None
    if e.name in LEGACY_BARRIERS:
        mem, sem = LEGACY_BARRIERS[e.name]
    elif len(e.args) == 2:
        first, flags = e.args
        if isinstance(first.type, (t.NodeObjectType, t.ResourceType)):
            obj = first.type
        flag_args = (flags,) if obj is not None else (first, flags)
        for arg in flag_args:
            if _flags(arg) is None:
                return sink(codes.NON_CONSTANT_BARRIER_FLAGS, e.span,
                            "Barrier flags must be compile-time constants: a barrier's memory semantics and scope "
                            "are constant operands in SPIR-V (and in DXIL)",
                            (Label(arg.span, "this argument is not a constant (a static global counts as its "
                                             "initialiser only when nothing writes it)"),))
        mem, sem = 0 if obj is not None else _flags(first), _flags(flags)  # type: ignore[assignment]
        # flags that are constant only after optimisation (a settled static global): DXC's Sema has
        # no diagnostic for them, its DXIL validator checks only the values' masks (below)
        sema_constant = all(_flags(arg, optimized=False) is not None for arg in flag_args)
        if isinstance(obj, t.ResourceType) and not obj.kind.writable or \
                isinstance(obj, t.NodeObjectType) and obj.kind not in BARRIER_OBJECT_SCOPE | READ_ONLY_RECORD_SCOPE:
            return sink(codes.INVALID_BARRIER, e.span, f"Barrier() needs a UAV or a writable node record object, "
                        f"not '{obj}'", (Label(first.span, "this object"),))
        if isinstance(obj, t.NodeObjectType) and obj.kind in READ_ONLY_RECORD_SCOPE:
            sink(codes.BARRIER_ON_READ_ONLY_RECORD, e.span, f"Barrier() on the read-only record object '{obj}': "
                 "the spec allows only RW input records and output records here",
                 (Label(first.span, "this object"),), ("DXC accepts it; a barrier on memory this node cannot write "
                                                       "orders only other writers' accesses",))
        settled = () if sema_constant else ("the value of a static global that nothing writes, as after "
                                            "optimisation: DXC's DXIL validator refuses flags outside the masks",)
        if not 0 <= mem <= ALL_MEMORY:
            return sink(codes.INVALID_BARRIER, e.span, MSG_BAD_MEMORY, (Label(first.span, f"value is {mem:#x}"),),
                        settled)
        if not 0 <= sem <= GROUP_SYNC | GROUP_SCOPE | DEVICE_SCOPE:
            return sink(codes.INVALID_BARRIER, e.span, MSG_BAD_SEMANTIC, (Label(flags.span, f"value is {sem:#x}"),),
                        settled)
        if not sema_constant:
            return None
    else:
        return None
    scope = None if obj is None else "device" if isinstance(obj, t.ResourceType) else \
        (BARRIER_OBJECT_SCOPE | READ_ONLY_RECORD_SCOPE)[obj.kind]
    if obj is None and sem & DEVICE_SCOPE and mem & NODE_OUTPUT and not mem & (UAV | NODE_INPUT) \
            and not (launch == "thread" and sem & (GROUP_SYNC | GROUP_SCOPE)):
        return sink(codes.BARRIER_NODE_OUTPUT_DEVICE_SCOPE, e.span, MSG_DEVICE_SCOPE,
                    notes=("NODE_OUTPUT_MEMORY is at most group scope (the spec); DXC accepts it, and wgc emits the "
                           "barrier at device scope as written",))
    rules = [  # (broken, message, note), in order
        (launch == "thread" and obj is None and mem != ALL_MEMORY and mem & GROUP_SHARED, MSG_GROUP_MEMORY,
         "group shared memory is not available in thread launch nodes"),
        (launch == "thread" and sem & (GROUP_SYNC | GROUP_SCOPE), MSG_GROUP_SEMANTIC,
         "each thread of a thread launch node is its own group"),
        (sem & DEVICE_SCOPE and obj is None and not mem & (UAV | NODE_INPUT), MSG_DEVICE_SCOPE,
         ("NODE_OUTPUT_MEMORY is at most group scope: " if mem & NODE_OUTPUT else "")
         + "DEVICE_SCOPE needs UAV_MEMORY or NODE_INPUT_MEMORY"),
        (sem & DEVICE_SCOPE and scope in ("group", "thread"), MSG_DEVICE_SCOPE,
         f"'{obj}' is not visible beyond its thread{' group' if scope == 'group' else ''}: DEVICE_SCOPE does not "
         "apply to it"),
        # with DEVICE_SCOPE, GROUP_SCOPE is masked off
        (sem & GROUP_SCOPE and not sem & DEVICE_SCOPE and obj is None and mem == 0, MSG_GROUP_SCOPE,
         "GROUP_SCOPE needs memory flags (e.g. GROUP_SHARED_MEMORY or UAV_MEMORY)"),
        (sem & GROUP_SCOPE and not sem & DEVICE_SCOPE and scope == "thread", MSG_GROUP_SCOPE,
         f"'{obj}' belongs to one thread: GROUP_SCOPE does not apply to it"),
    ]
    for broken, message, note in rules:
        if broken:
            if e.name in LEGACY_BARRIERS:
                note += f"; '{e.name}()' is Barrier({_flag_names(mem, MEMORY_NAMES)}, " \
                        f"{_flag_names(sem, SEMANTIC_NAMES)})"
            return sink(codes.INVALID_BARRIER, e.span, message, notes=(note,))
    return None


def _grid_field(type_: t.Type) -> t.Field | None:
    """An SV_DispatchGrid field inside a value of `type_` (nested structs and arrays included)."""
    type_ = t.innermost_element(type_)
    for field in type_.all_fields() if isinstance(type_, t.StructType) else ():
        found = field if _sv(field.semantic) == "sv_dispatchgrid" else _grid_field(field.type)
        if found is not None:
            return found
    return None


def _fields_of(path: list[ir.Expr]) -> list[t.Field]:
    """The struct fields an l-value's projections name, from its base outwards."""
    return [p.base.type.all_fields()[p.index] for p in reversed(path)
            if isinstance(p, ir.FieldAccess) and isinstance(p.base.type, t.StructType)]


def _method_writes(method: ir.Function, active: frozenset[ir.Function] = frozenset()) -> list[tuple[list[t.Field], t.Type]]:
    """What a method writes of its object (`this`, a reference in HLSL, not a copy): for each write,
    the fields it names from `this` inwards and the type written; nested method calls on `this`
    or its members included."""
    if method in active or method.body is None or not method.params:
        return []
    this = method.params[0]
    found: list[tuple[list[t.Field], t.Type]] = []
    for e in nodes_of(method, *WRITERS):
        for target in written(e):
            base, path = lvalue_chain(target)
            if not isinstance(base, ir.VarRef) or base.variable is not this:
                continue
            fields = _fields_of(path)
            if isinstance(e, ir.Call) and e.function.method_of is not None and e.args and target is e.args[0]:
                found += [(fields + inner, type_) for inner, type_ in _method_writes(e.function, active | {method})]
            else:
                found.append((fields, target.type))
    return found


def _dispatch_grid_write(e: ir.Expr, target: ir.Expr, sink: _Sink) -> None:
    base, path = lvalue_chain(target)
    if not isinstance(base, ir.RecordAccess) or not isinstance(base.object.type, t.NodeObjectType) \
            or base.object.type.kind is not NK.RW_DISPATCH_NODE_INPUT_RECORD:
        return
    if isinstance(e, ir.Call) and e.function.method_of is not None and e.args and target is e.args[0]:
        writes = [(_fields_of(path) + inner, type_) for inner, type_ in _method_writes(e.function)]  # `this`: by reference
    else:
        writes = [(_fields_of(path), target.type)]
    for enclosing, type_ in writes:
        _grid_write(target, enclosing, type_, sink)


def _grid_write(target: ir.Expr, enclosing: list[t.Field], type_: t.Type, sink: _Sink) -> None:
    """WG0415 or WG0480 for a write through `target` of the fields `enclosing` (from the record
    outwards) whose value has type `type_`."""
    named = next((f for f in enclosing if _sv(f.semantic) == "sv_dispatchgrid"), None)
    field = named or _grid_field(type_)
    if field is None:
        return
    labels = (Label(field.span, f"'{field.name}' is declared with SV_DispatchGrid here"),) if field.span else ()
    if named is not None:
        sink(codes.INVALID_DISPATCH_GRID, target.span, f"field '{field.name}' with SV_DispatchGrid semantic is not "
             "assignable through RWDispatchNodeInputRecord", labels,
             ("the dispatch grid is fixed when the record is launched",))
    else:   # the whole record, or a struct member holding the field: DXC accepts it
        what = "the whole record" if not enclosing else f"'{enclosing[-1].name}'"
        sink(codes.DISPATCH_GRID_OVERWRITTEN, target.span, f"this write of {what} overwrites its SV_DispatchGrid "
             f"field '{field.name}', which the spec says must not be written", labels,
             ("the dispatch grid is fixed when the record is launched; DXC accepts the write, and the grid the "
              "node was launched with does not change",))
