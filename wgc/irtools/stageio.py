"""IR helper, graphics stage inputs and outputs: which semantic is which SPIR-V built-in,
and the Location of every other one; the mesh qualifier of a parameter (`mesh_qualifier`) and a
semantic as stages match it (`semantic_key`).

Stage: below sema (imports only `wgc.ir` and `wgc.types`): sema's checks and the SPIR-V back end
share it. The one table shared by the mesh outputs (mesh nodes and mesh
shaders), the pixel shaders' inputs and outputs, the thread-group system values (node, compute,
mesh and amplification shaders), sema's checks and the SPIR-V back end.

Input: the type and semantic of an entry point's stage parameter (a struct is flattened, field by
field, nested structs included; a field's own semantic wins over none).
Output: `StageVariable`s: the path of struct fields to the value, its type, its semantic (as
written), the SPIR-V built-in it is (None: a user semantic, given a Location), and the Locations.

Rules (as DXC's SPIR-V back end, `-fvk-stage-io-order=decl`, its default):
- Locations are assigned in declaration order across all of a stage's outputs (for a mesh shader:
  the `out vertices` then the `out primitives` fields, in parameter order), from 0; a value takes
  one Location per row (an array of N takes N times its element's; a matrix one per row);
- mesh vertices: SV_Position is the Position built-in; mesh primitives: SV_PrimitiveID is
  PrimitiveId, SV_CullPrimitive is CullPrimitiveEXT, SV_RenderTargetArrayIndex is Layer,
  SV_ViewportArrayIndex is ViewportIndex, all decorated PerPrimitiveEXT as the primitive's user
  attributes are;
- pixel inputs: SV_Position is FragCoord, SV_IsFrontFace FrontFacing, SV_PrimitiveID PrimitiveId,
  SV_SampleIndex SampleId; pixel outputs: SV_TargetN is Location N (not counted in the sequence),
  SV_Depth FragDepth; interpolation modifiers are carried (`StageVariable.interpolation`);
- any other SV_ semantic of a mesh output or a pixel value has no SPIR-V mapping in wgc:
  `unsupported` returns it (reported as a target limit, WG0642), never silently given a Location.

Invariants: pure data; no diagnostics here (the callers report).
"""

from __future__ import annotations

import re

from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass

MESH_VERTEX_BUILTINS = {"SV_Position": "Position"}
MESH_PRIMITIVE_BUILTINS = {
    "SV_PrimitiveID": "PrimitiveId", "SV_CullPrimitive": "CullPrimitiveEXT", "SV_RenderTargetArrayIndex": "Layer",
    "SV_ViewportArrayIndex": "ViewportIndex",
}
GROUP_BUILTINS = {
    "SV_DispatchThreadID": "GlobalInvocationId", "SV_GroupID": "WorkgroupId", "SV_GroupThreadID": "LocalInvocationId",
    "SV_GroupIndex": "LocalInvocationIndex",
}
"""The thread-group system values of compute, mesh and amplification shaders and of node shaders."""
PIXEL_INPUT_BUILTINS = {
    "SV_Position": "FragCoord", "SV_IsFrontFace": "FrontFacing", "SV_PrimitiveID": "PrimitiveId",
    "SV_SampleIndex": "SampleId",
}
PIXEL_OUTPUT_BUILTINS = {"SV_Depth": "FragDepth", "SV_Target0-7": ""}
"""(SV_TargetN is Location N: listed for messages only, its built-in name is empty.)"""
BUILTINS = {"vertices": MESH_VERTEX_BUILTINS, "primitives": MESH_PRIMITIVE_BUILTINS, "group": GROUP_BUILTINS,
            "pixel-in": PIXEL_INPUT_BUILTINS, "pixel-out": PIXEL_OUTPUT_BUILTINS}
"""Kind of stage value -> semantic (as documented; matched case-insensitively) -> SPIR-V BuiltIn.
Kinds: a mesh shader's `vertices` and `primitives`, the thread-group inputs (`group`), a pixel
shader's inputs (`pixel-in`) and outputs (`pixel-out`: SV_TargetN is Location N, not a built-in)."""
FLAT_BUILTINS = frozenset({"PrimitiveId", "SampleId"})
"""Integer built-in inputs of a fragment shader: Vulkan wants them Flat."""
_BY_KEY = {kind: {k.lower(): v for k, v in table.items() if v} for kind, table in BUILTINS.items()}


def builtin_of(kind: str, semantic: str | None) -> str | None:
    """The SPIR-V built-in a semantic is in a kind of stage value (None: a user semantic or unknown)."""
    return _BY_KEY.get(kind, {}).get((semantic or "").lower())


def target_index(semantic: str | None) -> int | None:
    """N of SV_TargetN (SV_Target is 0), None for other semantics."""
    match = re.fullmatch(r"sv_target(\d?)", (semantic or "").lower())
    return int(match.group(1) or 0) if match else None


@dataclass(frozen=True)
class StageVariable:
    path: tuple[int, ...]
    """Field indices from the parameter's (element) type down to this value; () for the whole value."""
    type: t.Type
    semantic: str | None
    builtin: str | None
    location: int | None = None
    interpolation: frozenset[str] = frozenset()
    """Interpolation modifiers of the value (written on its field or on the parameter)."""


def flatten(type_: t.Type, semantic: str | None, kind: str, path: tuple[int, ...] = (),
            interpolation: frozenset[str] = frozenset()) -> list[StageVariable]:
    """The stage variables of a value of `type_` (a struct: one per field, nested structs flattened)."""
    if isinstance(type_, t.StructType) and semantic is None:
        found: list[StageVariable] = []
        for i, field_ in enumerate(type_.all_fields()):
            found.extend(flatten(field_.type, field_.semantic, kind, path + (i,), interpolation | field_.interpolation))
        return found
    builtin = builtin_of(kind, semantic)
    location = target_index(semantic) if kind == "pixel-out" else None
    return [StageVariable(path, type_, semantic, builtin, location, interpolation)]


def unsupported(variables: list[StageVariable]) -> list[StageVariable]:
    """The system values (SV_*) among `variables` that map to no built-in."""
    return [v for v in variables if v.builtin is None and v.location is None and
            (v.semantic or "").lower().startswith("sv_")]


def location_count(type_: t.Type) -> int:
    """Locations a stage value of `type_` takes."""
    if isinstance(type_, t.ArrayType):
        return (type_.length or 1) * location_count(type_.element)
    if isinstance(type_, t.MatrixType):
        return type_.rows
    if isinstance(type_, t.StructType):
        return sum(location_count(f.type) for f in type_.all_fields())
    return 1


def assign_locations(groups: list[list[StageVariable]]) -> list[list[StageVariable]]:
    """`groups` (the stage's parameters in declaration order) with Locations given, from 0."""
    location = 0
    result = []
    for group in groups:
        placed = []
        for variable in group:
            if variable.builtin is None and variable.location is None:
                placed.append(StageVariable(variable.path, variable.type, variable.semantic, None, location,
                                            variable.interpolation))
                location += location_count(variable.type)
            else:
                placed.append(variable)
        result.append(placed)
    return result


MESH_QUALIFIERS = ("vertices", "indices", "primitives")


def mesh_qualifier(param: ir.Variable) -> str | None:
    """`vertices`, `indices`, `primitives` (or `payload`) when the parameter carries that qualifier."""
    if not param.modifiers:
        return None   # most parameters: no generator to find nothing (asked per parameter of every node)
    return next((m for m in (*MESH_QUALIFIERS, "payload") if m in param.modifiers), None)


def semantic_key(semantic: str) -> str:
    """A user semantic as stages match it: case-insensitive, a missing index is 0 (TEXCOORD is TEXCOORD0)."""
    lowered = semantic.lower()
    return lowered if lowered[-1:].isdigit() else lowered + "0"
