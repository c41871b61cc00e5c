"""Semantic analysis, the mesh-shader part of mesh nodes: output topology, the `out vertices` /
`out indices` / `out primitives` parameters and `SetMeshOutputCounts`.

Input: one `ir.Function` that is a mesh node (`[NodeLaunch("mesh")]`, checked by `nodes.py`, which
calls this module) or a mesh shader (`entry_stages.py`), its attributes, and a `report` callback.
Output: a `MeshInfo` (data only: topology, the three output parameters, a mesh shader's payload,
the vertex and primitive counts) and the diagnostics WG0491 ([OutputTopology]), WG0493 (the output
parameters), WG0494 (SetMeshOutputCounts) and WG0495 (a write not after SetMeshOutputCounts); and the DispatchMesh helpers of amplification
shaders (`dispatch_mesh_calls`, `task_payload`; a call outside one is WG0390); the user semantics
the file's mesh entry points output per primitive (`per_primitive_semantics`, matched to pixel
inputs by `semantic_key`).

Rules (hlsl-specs proposal 0019, workgraph-rules.md §1.14; DXC's mesh-shader checks):
- `[OutputTopology("triangle" | "line")]` is required (case-sensitive, as DXC's attribute values);
- `out vertices T v[N]` and `out indices uintK i[M]` are required in a mesh node (proposal 0019; a
  mesh shader may go without, as DXC accepts), `out primitives P p[M]` optional;
  each at most once, `out` and an array of 1..256 elements; indices are uint3 for triangles and
  uint2 for lines; the primitives array has as many elements as the indices array;
- every value of a vertex or primitive (each field, nested structs flattened) has a semantic;
- `SetMeshOutputCounts(v, p)` is called at most once (at one call site) in the code the node reaches,
  and on every path before each write to a mesh output (proposal 0019's rules 2, 3 and 5, which
  DXC's validator enforces): WG0495 at each write it does not dominate. The walk follows the
  structured flow (both arms of an if; a for/while body may not run; breaks, continues and returns
  leave with their state) into the helpers the entry calls, where a parameter passed (part of) a
  mesh output by reference is one too.
Outside mesh nodes (`check_misplaced_mesh_parameters`): a mesh qualifier on another parameter is WG0493
and a SetMeshOutputCounts call in another node is WG0494.

Invariants: never raises for bad input; a `MeshInfo` is always returned, with None for what is broken.
"""

from __future__ import annotations

from collections.abc import Callable

from wgc import codes, ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.diagnostics import Label
from wgc.irtools.walk import children, lvalue_chain, nodes_of, reachable_functions, written
from wgc.irtools.stageio import MESH_QUALIFIERS, flatten, mesh_qualifier, semantic_key

TOPOLOGIES = {"triangle": 3, "line": 2}
"""[OutputTopology] value -> components of an index (uint3, uint2)."""
MAX_MESH_OUTPUTS = 256
MAX_MESH_THREADS = 128


@dataclass
class MeshInfo:
    topology: str | None = None
    vertices: ir.Variable | None = None
    indices: ir.Variable | None = None
    primitives: ir.Variable | None = None
    max_vertices: int = 0
    max_primitives: int = 0
    set_counts: ir.IntrinsicCall | None = None
    payload: ir.Variable | None = None
    """A mesh shader's `in payload` (from its amplification shader)."""


def per_primitive_semantics(entries: list) -> frozenset[str]:
    """The `semantic_key`s of the user values that the mesh entry points among `entries` (mesh
    shaders, mesh nodes) output per primitive (`out primitives`): a pixel input of one of these
    semantics is fed per primitive, so it is PerPrimitiveEXT (SPV_EXT_mesh_shader)."""
    found = set()
    for entry in entries:
        if entry.mesh is None:
            continue
        for param in entry.function.params:
            if mesh_qualifier(param) != "primitives" or not isinstance(param.type, t.ArrayType):
                continue
            for value in flatten(param.type.element, param.semantic, "primitives"):
                if value.builtin is None and value.semantic:
                    found.add(semantic_key(value.semantic))
    return frozenset(found)


def set_mesh_output_counts_calls(function: ir.Function) -> list[ir.IntrinsicCall]:
    """The SetMeshOutputCounts calls in the code `function` reaches, in source order."""
    return [e for f in reachable_functions(function) for e in nodes_of(f, ir.IntrinsicCall)
            if e.name == "SetMeshOutputCounts"]


def check_mesh(function: ir.Function, attributes: dict[str, ir.Attribute], report: Callable[..., None],
               what: str = "mesh node") -> MeshInfo:
    """`what`: "mesh node", or "mesh shader" (`[Shader("mesh")]`, which may take an `in payload`)."""
    info = MeshInfo()
    topology = attributes.get("outputtopology")
    if topology is None:
        report(codes.INVALID_MESH_NODE_ATTRIBUTE, function.span,
               f"{what} '{function.name}' needs [OutputTopology(\"triangle\")] or [OutputTopology(\"line\")]")
    else:
        values = topology.values()
        if len(values) == 1 and values[0] in TOPOLOGIES:
            info.topology = values[0]
        else:
            written = f"\"{values[0]}\"" if len(values) == 1 and isinstance(values[0], str) else "that"
            report(codes.INVALID_MESH_NODE_ATTRIBUTE, topology.span,
                   f"[OutputTopology] must be \"triangle\" or \"line\", not {written}")
    seen: dict[str, ir.Variable] = {}
    for param in function.params:
        qualifier = mesh_qualifier(param)
        if qualifier is None:
            continue
        if qualifier == "payload" and what == "mesh shader":
            if param.direction is not ir.Direction.IN or not isinstance(param.type, t.StructType):
                report(codes.INVALID_MESH_OUTPUT, param.span,
                       f"'payload' parameter '{param.name}' must be declared 'in payload' with a struct type")
            elif info.payload is not None:
                report(codes.INVALID_MESH_OUTPUT, param.span, "a mesh shader has at most one 'in payload' parameter",
                       labels=[Label(info.payload.span, "the first is declared here")])
            else:
                info.payload = param
            continue
        if qualifier == "payload":
            report(codes.INVALID_MESH_OUTPUT, param.span,
                   f"'in payload' parameter '{param.name}' is for mesh shaders fed by an amplification shader; a "
                   "mesh node receives its record through DispatchNodeInputRecord")
            continue
        if qualifier in seen:
            report(codes.INVALID_MESH_OUTPUT, param.span, f"a mesh shader has at most one 'out {qualifier}' parameter",
                   labels=[Label(seen[qualifier].span, "the first is declared here")])
            continue
        seen[qualifier] = param
        length = _length(param, qualifier, report)
        if length is None:
            continue
        if qualifier == "vertices":
            info.vertices, info.max_vertices = param, length
        elif qualifier == "primitives":
            info.primitives, info.max_primitives = param, max(info.max_primitives, length)
        elif _index_type_ok(param, info.topology, report):
            info.indices = param
            info.max_primitives = max(info.max_primitives, length)
    for output in (info.vertices, info.primitives):
        if output is None:
            continue
        for variable in flatten(_element(output), output.semantic, mesh_qualifier(output) or ""):
            if variable.semantic is None:
                where = "its element" if not variable.path else \
                    f"field '{field_path(_element(output), variable.path)}' of its element"
                report(codes.INVALID_MESH_OUTPUT, output.span,
                       f"'out {mesh_qualifier(output)}' parameter '{output.name}' needs a semantic on {where}")
    for qualifier, example in (("vertices", "out vertices V verts[N]"), ("indices", "out indices uint3 tris[M]")):
        if qualifier not in seen and what == "mesh node":   # a mesh shader may output nothing (DXC)
            report(codes.INVALID_MESH_OUTPUT, function.span,
                   f"{what} '{function.name}' needs an 'out {qualifier}' parameter (e.g. '{example}')")
    if info.indices is not None and info.primitives is not None:
        indices, primitives = _array_length(info.indices), _array_length(info.primitives)
        if indices != primitives:
            report(codes.INVALID_MESH_OUTPUT, info.primitives.span,
                   f"'out primitives' has {primitives} elements but 'out indices' has {indices}: both count the "
                   "primitives", labels=[Label(info.indices.span, "the indices are declared here")])
    calls = set_mesh_output_counts_calls(function)
    if calls:
        info.set_counts = calls[0]
    for extra in calls[1:]:
        report(codes.INVALID_SET_MESH_OUTPUT_COUNTS, extra.span,
               "SetMeshOutputCounts may be called only once in a mesh shader",
               labels=[Label(calls[0].span, "it is first called here")])
    outputs = {p for p in function.params if mesh_qualifier(p) in MESH_QUALIFIERS}
    if outputs and function.body is not None:
        _CountsBeforeWrites(outputs, info.set_counts, report).run(function)
    return info


def check_misplaced_mesh_parameters(function: ir.Function, what: str, report: Callable[..., None]) -> None:
    """Mesh qualifiers and SetMeshOutputCounts in `function`, an entry point that is not a mesh shader."""
    for param in function.params:
        qualifier = mesh_qualifier(param)
        if qualifier is not None:
            report(codes.INVALID_MESH_OUTPUT, param.span,
                   f"'{param.direction.value} {qualifier}' parameters are only allowed in mesh shaders and mesh "
                   f"nodes, not in {what}")
    for call in set_mesh_output_counts_calls(function):
        report(codes.INVALID_SET_MESH_OUTPUT_COUNTS, call.span,
               f"SetMeshOutputCounts is only allowed in mesh shaders and mesh nodes, not in {what}")


def dispatch_mesh_calls(function: ir.Function) -> list[ir.IntrinsicCall]:
    """The DispatchMesh calls in the code `function` reaches, in source order."""
    return [e for f in reachable_functions(function) for e in nodes_of(f, ir.IntrinsicCall)
            if e.name == "DispatchMesh"]


def task_payload(call: ir.IntrinsicCall) -> ir.Variable | None:
    """The groupshared variable a DispatchMesh call passes as its payload (None: another expression)."""
    arg = call.args[3] if len(call.args) == 4 else None
    if isinstance(arg, ir.VarRef) and arg.variable.storage is ir.Storage.GROUPSHARED:
        return arg.variable
    return None


def check_misplaced_dispatch_mesh(function: ir.Function, what: str, report: Callable[..., None]) -> None:
    """DispatchMesh calls in `function`, an entry point that is not an amplification shader (WG0390)."""
    for call in dispatch_mesh_calls(function):
        report(codes.INVALID_STAGE_ENTRY, call.span, f"DispatchMesh is only allowed in amplification shaders, not in {what}")


def _element(param: ir.Variable) -> t.Type:
    assert isinstance(param.type, t.ArrayType)
    return param.type.element


def field_path(type_: t.Type, path: tuple[int, ...]) -> str:
    """The dotted field names a path of field indices takes through nested structs (`a.b`)."""
    names = []
    for index in path:
        assert isinstance(type_, t.StructType)
        field_ = type_.all_fields()[index]
        names.append(field_.name)
        type_ = field_.type
    return ".".join(names)


def _array_length(param: ir.Variable) -> int | None:
    return param.type.length if isinstance(param.type, t.ArrayType) else None


def _length(param: ir.Variable, qualifier: str, report: Callable[..., None]) -> int | None:
    if param.direction is not ir.Direction.OUT:
        report(codes.INVALID_MESH_OUTPUT, param.span,
               f"'{qualifier}' parameter '{param.name}' must be declared 'out {qualifier}'")
        return None
    length = _array_length(param)
    if length is None or isinstance(param.type, t.ArrayType) and isinstance(param.type.element, t.ArrayType):
        report(codes.INVALID_MESH_OUTPUT, param.span,
               f"'out {qualifier}' parameter '{param.name}' must be a one-dimensional array with a size")
        return None
    if not 1 <= length <= MAX_MESH_OUTPUTS:
        report(codes.INVALID_MESH_OUTPUT, param.span,
               f"'out {qualifier}' parameter '{param.name}' has {length} elements; a mesh shader outputs 1 to "
               f"{MAX_MESH_OUTPUTS} {qualifier}")
        return None
    return length


def _index_type_ok(param: ir.Variable, topology: str | None, report: Callable[..., None]) -> bool:
    assert isinstance(param.type, t.ArrayType)
    element = param.type.element
    count = TOPOLOGIES.get(topology or "", 0)
    components = t.component_count(element) if isinstance(element, t.VectorType) else None
    if t.element_scalar(element) is not t.UINT or components not in (2, 3) or count and components != count:
        wanted = f"uint{count}" if count else "uint3 (triangles) or uint2 (lines)"
        why = f" for topology \"{topology}\"" if count else ""
        report(codes.INVALID_MESH_OUTPUT, param.span,
               f"'out indices' parameter '{param.name}' must be an array of {wanted}{why}, not '{element}'")
        return False
    return True


class _CountsBeforeWrites:
    """Walks an entry's structured flow (and the helpers it calls) with one fact per path: has
    SetMeshOutputCounts been called? A path that ended (return, break, continue, discard) counts as
    called, so that joins take the paths that go on. Reports WG0495 at each write to a mesh output
    reached on a path where the fact is false."""

    skip_called = True
    """Skip what a path walks once the fact is true: it stays true to the path's end, nothing is
    reported on it, and what it adds to `returns` and `loop_exits` (true) changes no `all()` of them
    (tests turn it off to check that the diagnostics are the same)."""

    def __init__(self, outputs: set[ir.Variable], first_call: ir.IntrinsicCall | None,
                 report: Callable[..., None]) -> None:
        self.outputs = outputs
        self.first_call = first_call
        self.report = report
        self.reported: set[tuple[int, int]] = set()
        self.entry_call: ir.Call | None = None
        """The entry's call that the walk is inside (labelled at a write in a helper)."""
        self.returns: list[bool] = []
        self.loop_exits: list[list[bool]] = []

    def run(self, function: ir.Function) -> None:
        assert function.body is not None
        self.block(function.body, False)

    # ------------------------------------------------------------ statements

    def block(self, block: ir.Block, called: bool) -> bool:
        if called and self.skip_called:
            return True
        for stmt in block.stmts:
            called = self.stmt(stmt, called)
        return called

    def stmt(self, stmt: ir.Stmt, called: bool) -> bool:
        if isinstance(stmt, ir.Block):
            return self.block(stmt, called)
        if isinstance(stmt, ir.VarDecl):
            return self.expr(stmt.init, called) if stmt.init is not None else called
        if isinstance(stmt, ir.ExprStmt):
            return self.expr(stmt.expr, called)
        if isinstance(stmt, ir.If):
            called = self.expr(stmt.cond, called)
            then = self.block(stmt.then, called)
            return then and (self.block(stmt.else_, called) if stmt.else_ is not None else called)
        if isinstance(stmt, ir.Loop):
            return self.loop(stmt, called)
        if isinstance(stmt, ir.Switch):
            called = self.expr(stmt.selector, called)
            self.loop_exits.append([])
            ends = [self.block(case.body, called) for case in stmt.cases]
            exits = self.loop_exits.pop()
            if not any(case.is_default for case in stmt.cases):
                exits.append(called)
            # a case falling through goes on in the next one (whose own entry path has `called`)
            exits.extend(end for case, end in zip(stmt.cases, ends) if case is stmt.cases[-1] and case.falls_through)
            return all(exits)
        if isinstance(stmt, (ir.Break, ir.Continue)):
            if self.loop_exits:
                self.loop_exits[-1].append(called)
            return True
        if isinstance(stmt, ir.Return):
            if stmt.value is not None:
                called = self.expr(stmt.value, called)
            self.returns.append(called)
            return True
        if isinstance(stmt, ir.Discard):
            return True
        return called

    def loop(self, loop: ir.Loop, called: bool) -> bool:
        for init in loop.init:
            called = self.stmt(init, called)
        if loop.kind is not ir.LoopKind.DO_WHILE and loop.cond is not None:
            called = self.expr(loop.cond, called)
        self.loop_exits.append([])
        end = self.block(loop.body, called)
        if loop.step is not None:
            self.expr(loop.step, end)
        if loop.kind is ir.LoopKind.DO_WHILE and loop.cond is not None:
            end = self.expr(loop.cond, end)
        exits = self.loop_exits.pop()
        if loop.kind is ir.LoopKind.DO_WHILE:   # the body runs once: its end and its breaks leave
            return end and all(exits)
        return called                           # the body may not run

    # ------------------------------------------------------------ expressions

    def expr(self, expr: ir.Expr, called: bool) -> bool:
        if called and self.skip_called:
            return True
        if isinstance(expr, ir.Select):
            called = self.expr(expr.cond, called)
            return self.expr(expr.then, called) and self.expr(expr.else_, called)
        if isinstance(expr, ir.Binary) and expr.op in ("&&", "||"):
            called = self.expr(expr.left, called)
            self.expr(expr.right, called)
            return called
        for child in children(expr):
            called = self.expr(child, called)
        if isinstance(expr, ir.IntrinsicCall) and expr.name == "SetMeshOutputCounts":
            return True
        if isinstance(expr, ir.Call):
            return self.call(expr, called)
        for target in written(expr):
            self.write(target, called)
        return called

    def call(self, call: ir.Call, called: bool) -> bool:
        function = call.function
        if function.body is None:
            return called
        outputs = {param for param, arg in zip(function.params, call.args)
                   if param.direction is not ir.Direction.IN and self._output(arg) is not None}
        saved = (self.outputs, self.returns, self.loop_exits, self.entry_call)
        self.outputs, self.returns, self.loop_exits = self.outputs | outputs, [], []
        self.entry_call = self.entry_call or call
        end = self.block(function.body, called)
        done = end and all(self.returns)
        self.outputs, self.returns, self.loop_exits, self.entry_call = saved
        return done

    def _output(self, target: ir.Expr) -> ir.Variable | None:
        root, _path = lvalue_chain(target)
        return root.variable if isinstance(root, ir.VarRef) and root.variable in self.outputs else None

    def write(self, target: ir.Expr, called: bool) -> None:
        output = self._output(target)
        if called or output is None:
            return
        key = (target.span.start, target.span.end)
        if key in self.reported:
            return
        self.reported.add(key)
        labels = []
        if self.entry_call is not None:
            labels.append(Label(self.entry_call.span, "the mesh shader reaches the write through this call"))
        if self.first_call is None:
            message = f"mesh output '{output.name}' is written, but SetMeshOutputCounts is never called"
        else:
            message = (f"mesh output '{output.name}' may be written before SetMeshOutputCounts is called: it must be "
                       "called on every path before a write to the mesh outputs")
            labels.append(Label(self.first_call.span, "SetMeshOutputCounts is called here"))
        self.report(codes.MESH_OUTPUT_BEFORE_COUNTS, target.span, message, labels=labels)
