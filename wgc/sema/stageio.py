"""Semantic analysis, graphics stage inputs and outputs: which semantic is which SPIR-V built-in,
and the Location of every other one. The one table shared by the mesh-shader outputs of mesh nodes
(and, as they come, the amplification and pixel stages) and by the SPIR-V back end.

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
- any other SV_ semantic of a mesh output has no SPIR-V mapping in wgc: `unsupported` returns it
  (reported as a target limit, WG0641), never silently given a Location.

Invariants: pure data; no diagnostics here (the callers report).
"""

from __future__ import annotations

from dataclasses import dataclass

from wgc import types as t

MESH_VERTEX_BUILTINS = {"SV_Position": "Position"}
MESH_PRIMITIVE_BUILTINS = {
    "SV_PrimitiveID": "PrimitiveId", "SV_CullPrimitive": "CullPrimitiveEXT", "SV_RenderTargetArrayIndex": "Layer",
    "SV_ViewportArrayIndex": "ViewportIndex",
}
BUILTINS = {"vertices": MESH_VERTEX_BUILTINS, "primitives": MESH_PRIMITIVE_BUILTINS}
"""Mesh output kind -> semantic (as documented; matched case-insensitively) -> SPIR-V BuiltIn."""
_BY_KEY = {kind: {k.lower(): v for k, v in table.items()} for kind, table in BUILTINS.items()}


@dataclass(frozen=True)
class StageVariable:
    path: tuple[int, ...]
    """Field indices from the parameter's (element) type down to this value; () for the whole value."""
    type: t.Type
    semantic: str | None
    builtin: str | None
    location: int | None = None


def flatten(type_: t.Type, semantic: str | None, kind: str, path: tuple[int, ...] = ()) -> list[StageVariable]:
    """The stage variables of a value of `type_` (a struct: one per field, nested structs flattened)."""
    if isinstance(type_, t.StructType) and semantic is None:
        found: list[StageVariable] = []
        for i, field_ in enumerate(type_.all_fields()):
            found.extend(flatten(field_.type, field_.semantic, kind, path + (i,)))
        return found
    builtin = _BY_KEY.get(kind, {}).get((semantic or "").lower())
    return [StageVariable(path, type_, semantic, builtin)]


def unsupported(variables: list[StageVariable]) -> list[StageVariable]:
    """The system values (SV_*) among `variables` that map to no built-in."""
    return [v for v in variables if v.builtin is None and (v.semantic or "").lower().startswith("sv_")]


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
            if variable.builtin is None:
                placed.append(StageVariable(variable.path, variable.type, variable.semantic, None, location))
                location += location_count(variable.type)
            else:
                placed.append(variable)
        result.append(placed)
    return result
