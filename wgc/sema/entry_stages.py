"""Semantic analysis, entry points of the other stages a library holds beside its nodes: compute,
pixel, mesh and amplification shaders (`[Shader("compute" | "pixel" | "mesh" | "amplification")]`),
so that a mesh-node program's pixel shader comes out of the same build.

Input: the checked `ir.Module`.
Output: one `NodeInfo` per such entry point, with `stage` (and `launch`) the stage: never part of
the graph, compiled beside the nodes (`-E` picks one, `--split-nodes` gives each its module); and
the diagnostics WG0390 (the entry point's declaration) and, through `mesh.py`, WG0491/WG0493/WG0494.

Rules (DXC's, for its SPIR-V back end):
- compute, mesh and amplification shaders need `[NumThreads(x, y, z)]`: at most 1024 threads (mesh and
  amplification: 128), z <= 64;
  their parameters are thread-group system values (`stageio.GROUP_BUILTINS`), a mesh shader's also
  its mesh outputs and `in payload` (`mesh.py`); they return void;
- a pixel shader's inputs (`in` parameters, structs flattened) each have a semantic: a system value
  of `stageio.PIXEL_INPUT_BUILTINS` or a user semantic (a Location); its outputs (the return value
  with its semantic, `out` parameters) are SV_Target0-7 or SV_Depth;
- a system value that wgc maps to no built-in (SV_ClipDistance, SV_Coverage, ...) is left to the
  target check (WG0642), as valid HLSL that wgc cannot express.
- an amplification shader calls DispatchMesh(x, y, z, payload) once; no other entry point calls it
  (nodes: `nodes.py`, through `mesh.py`). A payload that is not a groupshared variable is HLSL that
  SPIR-V cannot express (the task payload is a variable of its own): WG0644 (`target.py`), as DXC's
  SPIR-V back end refuses it.
Other stages (vertex, geometry, hull, domain, ray tracing) are WG0640 (`target.py`).

`stage_interface(entry)` lists an entry point's stage inputs and outputs (each value of a
flattened struct, its semantic, built-in or Location) for `wgc inspect`, by the same
`stageio.py` rules the SPIR-V back end declares them with.

Invariants: never raises for bad input; an entry point with errors still gets its `NodeInfo`.
"""

from __future__ import annotations

from wgc import codes, ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.diagnostics import Diagnostic, Label
from wgc.sema.mesh import (check_mesh, check_misplaced_dispatch_mesh, check_misplaced_mesh_parameters,
                           dispatch_mesh_calls, field_path)
from wgc.sema.nodes import NodeId, NodeInfo
from wgc.irtools.stageio import StageVariable, assign_locations, flatten, mesh_qualifier, target_index

STAGES = ("compute", "pixel", "mesh", "amplification")
"""The stages compiled beside node shaders."""
GROUP_STAGES = {"compute": 1024, "mesh": 128, "amplification": 128}
"""Stages with a thread group, and the most threads one may have."""


def check_stages(module: ir.Module, broken: frozenset[ir.Function] = frozenset()
                 ) -> tuple[list[NodeInfo], list[Diagnostic]]:
    """The entry points of `STAGES` and their diagnostics; `broken`: functions whose code has errors
    (dropped calls there must not read as a missing DispatchMesh)."""
    diagnostics: list[Diagnostic] = []

    def report(kind, span, message, labels=(), notes=()):
        diagnostics.append(kind(span, message, labels=labels, notes=notes))

    entries = []
    for function in module.functions:
        stage = function.shader_kind
        if stage in STAGES and function.body is not None:
            entries.append(_entry(function, stage, report, function in broken))
    return entries, diagnostics


def _entry(function: ir.Function, stage: str, report, broken: bool) -> NodeInfo:
    entry = NodeInfo(function, NodeId(function.name), stage, function.span, stage=stage)
    attributes = {a.key: a for a in function.attributes}
    if stage in GROUP_STAGES:
        _num_threads(entry, attributes, GROUP_STAGES[stage], report)
    if stage == "mesh":
        entry.mesh = check_mesh(function, attributes, report, "mesh shader")
    else:
        check_misplaced_mesh_parameters(function, f"{stage} shaders", report)
    _dispatch_mesh(function, stage, report, broken)
    for param in function.params:
        if mesh_qualifier(param) is not None:
            continue
        if stage == "pixel":
            _pixel_value(function, param, "pixel-out" if param.direction is not ir.Direction.IN else "pixel-in",
                         param.type, param.semantic, report, param.name)
        else:
            _group_value(function, stage, param, report)
    if function.return_type is not t.VOID:
        if stage == "pixel":
            _pixel_value(function, None, "pixel-out", function.return_type, function.return_semantic, report,
                         "the return value")
        else:
            report(codes.INVALID_STAGE_ENTRY, function.span,
                   f"{stage} shader '{function.name}' must return void, not '{function.return_type}'")
    return entry


def _dispatch_mesh(function: ir.Function, stage: str, report, broken: bool) -> None:
    """DispatchMesh: once in an amplification shader; nowhere else."""
    calls = dispatch_mesh_calls(function)
    if stage != "amplification":
        check_misplaced_dispatch_mesh(function, f"{stage} shaders", report)
        return
    if not calls and not broken:    # a call with an error in it is not in the IR: no cascade
        report(codes.INVALID_STAGE_ENTRY, function.span,
               f"amplification shader '{function.name}' must call DispatchMesh(x, y, z, payload)")
    for call in calls[1:]:
        report(codes.INVALID_STAGE_ENTRY, call.span, "DispatchMesh may be called only once in an amplification shader",
               labels=[Label(calls[0].span, "it is first called here")])


def _num_threads(entry: NodeInfo, attributes: dict[str, ir.Attribute], most: int, report) -> None:
    attribute = attributes.get("numthreads")
    values = attribute.values() if attribute is not None else ()
    if attribute is None:
        report(codes.INVALID_STAGE_ENTRY, entry.span,
               f"{entry.stage} shader '{entry.function.name}' needs [NumThreads(x, y, z)]")
    elif len(values) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in values):
        report(codes.INVALID_STAGE_ENTRY, attribute.span, "[NumThreads] takes three positive integer constants")
    elif values[2] > 64 or values[0] * values[1] * values[2] > most:  # type: ignore[operator]
        report(codes.INVALID_STAGE_ENTRY, attribute.span,
               f"[NumThreads({values[0]}, {values[1]}, {values[2]})] exceeds the limits of a {entry.stage} shader: "
               f"z <= 64 and x*y*z <= {most}")
    else:
        entry.num_threads = values  # type: ignore[assignment]


def _group_value(function: ir.Function, stage: str, param: ir.Variable, report) -> None:
    for variable in flatten(param.type, param.semantic, "group"):
        if variable.builtin is None or param.direction is not ir.Direction.IN:
            what = f"'{variable.semantic}'" if variable.semantic else "a value without a semantic"
            report(codes.INVALID_STAGE_ENTRY, param.span,
                   f"parameter '{param.name}' of {stage} shader '{function.name}' is {what}; its inputs are "
                   "SV_DispatchThreadID, SV_GroupID, SV_GroupThreadID and SV_GroupIndex"
                   + (" (and the mesh outputs and payload)" if stage == "mesh" else ""))
            return


def _pixel_value(function: ir.Function, param: ir.Variable | None, kind: str, type_: t.Type, semantic: str | None,
                 report, name: str) -> None:
    span = param.span if param is not None else function.span
    shown = f"parameter '{name}'" if param is not None else name
    for variable in flatten(type_, semantic, kind):
        if variable.semantic is None:
            report(codes.INVALID_STAGE_ENTRY, span,
                   f"{shown} of pixel shader '{function.name}' needs a semantic"
                   + (" on every field" if variable.path else ""))
            return
        lowered = variable.semantic.lower()
        if kind == "pixel-out" and variable.builtin is None and target_index(variable.semantic) is None \
                and not lowered.startswith("sv_"):
            report(codes.INVALID_STAGE_ENTRY, span,
                   f"{shown} of pixel shader '{function.name}' is an output with the semantic '{variable.semantic}'; "
                   "pixel shader outputs are SV_Target0-7 and SV_Depth")
            return


INDEX_BUILTINS = {"triangle": "PrimitiveTriangleIndicesEXT", "line": "PrimitiveLineIndicesEXT"}
"""The built-in a mesh shader's `out indices` is, by topology."""
INTERPOLATION_MODIFIERS = frozenset({"nointerpolation", "noperspective", "centroid", "sample", "linear"})


@dataclass(frozen=True)
class InterfaceValue:
    """One stage input or output of an entry point (a struct parameter gives one per field)."""

    direction: str
    """"in" or "out"."""
    parameter: str
    """The parameter's name; "return" for a pixel shader's result."""
    field: str | None
    """The field of the parameter's (element) type, dotted ("a.b"); None for the whole value."""
    type: t.Type
    semantic: str | None
    builtin: str | None
    location: int | None
    per_primitive: bool = False


def stage_interface(entry: NodeInfo) -> list[InterfaceValue]:
    """The stage inputs and outputs of a compute, pixel, mesh or amplification shader, in the order
    the SPIR-V back end declares them: thread-group system values, a pixel shader's inputs (Locations
    in declaration order) and outputs, a mesh shader's vertices, primitives (Locations across both)
    and indices, its `in payload`."""
    function, values = entry.function, list[InterfaceValue]()

    def add(direction: str, name: str, type_: t.Type, variables: list[StageVariable], per_primitive: bool = False
            ) -> None:
        values.extend(InterfaceValue(direction, name, field_path(type_, v.path) if v.path else None, v.type,
                                     v.semantic, v.builtin, v.location, per_primitive) for v in variables)

    if entry.stage == "pixel":
        inputs = [p for p in function.params if p.direction is ir.Direction.IN]
        groups = assign_locations([flatten(p.type, p.semantic, "pixel-in",
                                           interpolation=p.modifiers & INTERPOLATION_MODIFIERS) for p in inputs])
        for param, group in zip(inputs, groups):
            add("in", param.name, param.type, group)
        for param in function.params:
            if param.direction is not ir.Direction.IN:
                add("out", param.name, param.type, flatten(param.type, param.semantic, "pixel-out"))
        if function.return_type is not t.VOID:
            add("out", "return", function.return_type,
                flatten(function.return_type, function.return_semantic, "pixel-out"))
        return values
    for param in function.params:
        if mesh_qualifier(param) is None:
            add("in", param.name, param.type, flatten(param.type, param.semantic, "group"))
    mesh = entry.mesh
    if mesh is None:
        return values
    outputs = [p for p in (mesh.vertices, mesh.primitives) if p is not None]
    outputs.sort(key=function.params.index)
    groups = assign_locations([flatten(_element(p), p.semantic, mesh_qualifier(p) or "") for p in outputs])
    for param, group in zip(outputs, groups):
        add("out", param.name, _element(param), group, per_primitive=param is mesh.primitives)
    if mesh.indices is not None and mesh.topology is not None:
        values.append(InterfaceValue("out", mesh.indices.name, None, _element(mesh.indices), None,
                                     INDEX_BUILTINS[mesh.topology], None, per_primitive=True))
    if mesh.payload is not None:
        values.append(InterfaceValue("in", mesh.payload.name, None, mesh.payload.type, None, None, None))
    return values


def _element(param: ir.Variable) -> t.Type:
    return param.type.element if isinstance(param.type, t.ArrayType) else param.type
