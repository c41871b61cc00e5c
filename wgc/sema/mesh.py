"""Semantic analysis, the mesh-shader part of mesh nodes: output topology, the `out vertices` /
`out indices` / `out primitives` parameters and `SetMeshOutputCounts`.

Input: one `ir.Function` that is a mesh node (`[NodeLaunch("mesh")]`, checked by `nodes.py`, which
calls this module) or a mesh shader (`entry_stages.py`), its attributes, and a `report` callback.
Output: a `MeshInfo` (data only: topology, the three output parameters, a mesh shader's payload,
the vertex and primitive counts) and the diagnostics WG0491 ([OutputTopology]), WG0493 (the output
parameters) and WG0494 (SetMeshOutputCounts); and the DispatchMesh helpers of amplification
shaders (`dispatch_mesh_calls`, `task_payload`; a call outside one is WG0390).

Rules (hlsl-specs proposal 0019, workgraph-rules.md §1.14; DXC's mesh-shader checks):
- `[OutputTopology("triangle" | "line")]` is required (case-sensitive, as DXC's attribute values);
- `out vertices T v[N]` and `out indices uintK i[M]` are required in a mesh node (proposal 0019; a
  mesh shader may go without, as DXC accepts), `out primitives P p[M]` optional;
  each at most once, `out` and an array of 1..256 elements; indices are uint3 for triangles and
  uint2 for lines; the primitives array has as many elements as the indices array;
- every value of a vertex or primitive (each field, nested structs flattened) has a semantic;
- `SetMeshOutputCounts(v, p)` is called at most once (at one call site) in the code the node reaches.
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
from wgc.sema.stageio import flatten
from wgc.sema.uniformity import all_exprs, reachable_functions

MESH_QUALIFIERS = ("vertices", "indices", "primitives")
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


def mesh_qualifier(param: ir.Variable) -> str | None:
    """`vertices`, `indices`, `primitives` (or `payload`) when the parameter carries that qualifier."""
    return next((m for m in (*MESH_QUALIFIERS, "payload") if m in param.modifiers), None)


def set_mesh_output_counts_calls(function: ir.Function) -> list[ir.IntrinsicCall]:
    """The SetMeshOutputCounts calls in the code `function` reaches, in source order."""
    return [e for f in reachable_functions(function) for e in all_exprs(f)
            if isinstance(e, ir.IntrinsicCall) and e.name == "SetMeshOutputCounts"]


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
            info.topology = values[0]  # type: ignore[assignment]
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
                    f"field '{_field_path(_element(output), variable.path)}' of its element"
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
    return [e for f in reachable_functions(function) for e in all_exprs(f)
            if isinstance(e, ir.IntrinsicCall) and e.name == "DispatchMesh"]


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


def _field_path(type_: t.Type, path: tuple[int, ...]) -> str:
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
