"""Graphics stage outputs of an entry point: a mesh node's `out vertices`, `out indices` and
`out primitives` (SPIR-V back end, SPV_EXT_mesh_shader).

Input: a mesh node (`NodeInfo.mesh`, checked by `sema/mesh.py`) and the `ModuleLowering`.
Output: one Output variable per stage value, decorated from `sema/stageio.py`'s table (the one
semantic -> built-in / Location mapping): the indices are the PrimitiveTriangleIndicesEXT or
PrimitiveLineIndicesEXT built-in, a vertex or primitive struct is split into one array per field
(`places.SplitPlace`), each a built-in (Position, PrimitiveId, CullPrimitiveEXT, Layer,
ViewportIndex) or a Location; every per-primitive variable is PerPrimitiveEXT. Also the mesh
execution modes and OpSetMeshOutputsEXT.

Invariants: every variable made here is given to the caller, which lists it in the entry point's
interface; nothing is re-checked (sema guarantees the parameters' shapes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.sema.mesh import mesh_qualifier
from wgc.sema.nodes import NodeInfo
from wgc.sema.stageio import StageVariable, assign_locations, flatten

from .places import Place, SplitPlace

if TYPE_CHECKING:
    from .lower import FunctionLowering, ModuleLowering

INDEX_BUILTINS = {"triangle": "PrimitiveTriangleIndicesEXT", "line": "PrimitiveLineIndicesEXT"}
TOPOLOGY_MODES = {"triangle": "OutputTrianglesEXT", "line": "OutputLinesEXT"}


def setup_mesh(ml: ModuleLowering) -> None:
    ml.b.capability("MeshShadingEXT")
    ml.b.extension("SPV_EXT_mesh_shader")


def mesh_execution_modes(ml: ModuleLowering, fn: int, node: NodeInfo) -> None:
    mesh = node.mesh
    assert mesh is not None and mesh.topology is not None
    ml.b.execution_mode(fn, "OutputVertices", mesh.max_vertices)
    ml.b.execution_mode(fn, "OutputPrimitivesEXT", mesh.max_primitives)
    ml.b.execution_mode(fn, TOPOLOGY_MODES[mesh.topology])


def declare_mesh_outputs(ml: ModuleLowering, node: NodeInfo
                         ) -> tuple[dict[ir.Variable, Place | SplitPlace], tuple[int, ...]]:
    """The places of the node's mesh output parameters, and every variable they hold."""
    mesh = node.mesh
    assert mesh is not None and mesh.topology is not None
    params = [p for p in node.function.params if mesh_qualifier(p) in ("vertices", "primitives")]
    groups = assign_locations([flatten(_element(p), p.semantic, mesh_qualifier(p) or "") for p in params])
    places: dict[ir.Variable, Place | SplitPlace] = {}
    variables: list[int] = []
    for param, group in zip(params, groups):
        per_primitive = mesh_qualifier(param) == "primitives"
        length = _length(param)
        made = {v.path: _variable(ml, v, length, per_primitive) for v in group}
        variables.extend(made.values())
        places[param] = _split(ml, param.type, (), made, length)
    indices = mesh.indices
    if indices is not None:
        builtin = INDEX_BUILTINS[mesh.topology]
        var = ml.b.variable(ml.b.type_pointer("Output", ml.types.id(indices.type)), "Output")
        ml.b.decorate(var, "BuiltIn", builtin)
        ml.b.name(var, f"gl_{builtin}")
        places[indices] = Place(var, indices.type, "Output")
        variables.append(var)
    return places, tuple(variables)


def set_mesh_output_counts(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    vertices, primitives = (fl.convert(fl.value(a), a.type, t.UINT) for a in call.args)
    fl.b.emit("OpSetMeshOutputsEXT", vertices, primitives)


def _element(param: ir.Variable) -> t.Type:
    assert isinstance(param.type, t.ArrayType)
    return param.type.element


def _length(param: ir.Variable) -> int:
    assert isinstance(param.type, t.ArrayType) and param.type.length is not None
    return param.type.length


def _variable(ml: ModuleLowering, variable: StageVariable, length: int, per_primitive: bool) -> int:
    array = t.array(variable.type, length)
    var = ml.b.variable(ml.b.type_pointer("Output", ml.types.id(array)), "Output")
    if variable.builtin is not None:
        ml.b.decorate(var, "BuiltIn", variable.builtin)
        ml.b.name(var, f"gl_{variable.builtin}")
    else:
        assert variable.location is not None
        ml.b.decorate(var, "Location", variable.location)
        ml.b.name(var, f"out_var_{variable.semantic}")
    if per_primitive:
        ml.b.decorate(var, "PerPrimitiveEXT")
    return var


def _split(ml: ModuleLowering, type_: t.Type, path: tuple[int, ...], made: dict[tuple[int, ...], int],
           length: int) -> Place | SplitPlace:
    """The place of the value at `path` (of every element: `type_` is an array of `length`)."""
    if path in made:
        return Place(made[path], type_, "Output")
    assert isinstance(type_, t.ArrayType)
    struct = type_.element
    assert isinstance(struct, t.StructType)
    fields = tuple(_split(ml, t.array(f.type, length), path + (i,), made, length)
                   for i, f in enumerate(struct.all_fields()))
    return SplitPlace(type_, fields)
