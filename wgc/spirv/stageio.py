"""Graphics stage inputs and outputs of an entry point, and the entry points of the stages beside
the nodes (SPIR-V back end): a mesh node's or mesh shader's `out vertices`, `out indices`, `out
primitives` and `in payload` (SPV_EXT_mesh_shader), a pixel shader's inputs and outputs.

Input: an entry point (`NodeInfo`: a mesh node, or a compute/pixel/mesh shader of `sema/entry_stages.py`)
and the `ModuleLowering`.
Output: one Input/Output variable per stage value, decorated from `irtools/stageio.py`'s table (the
one semantic -> built-in / Location mapping); the places the entry's parameters (and a pixel
shader's result) are bound to; the stage's entry point and execution modes; OpSetMeshOutputsEXT.
- Mesh: every MeshEXT entry point of a module declares the module's largest vertex and primitive
  counts (`ModuleLowering.mesh_counts`; one mesh entry point alone: its own), and its output
  arrays are that long: spirv-val compares each mesh built-in array with the OutputVertices /
  OutputPrimitivesEXT of every MeshEXT entry point of the module (`--split-nodes` gives each its
  own); SetMeshOutputCounts still says how many are used. The indices are the
  PrimitiveTriangleIndicesEXT or PrimitiveLineIndicesEXT built-in; a
  vertex or primitive struct is split into one array per field (`places.SplitPlace`), each a
  built-in (Position, PrimitiveId, CullPrimitiveEXT, Layer, ViewportIndex) or a Location; every
  per-primitive variable is PerPrimitiveEXT; `in payload` is a TaskPayloadWorkgroupEXT variable.
- `bool` stage values that are no built-in (pixel inputs and outputs, mesh vertex and primitive
  values; vectors and arrays too) are `uint` variables of the same shape, converted at every load
  and store (`Place.stage_bool`), as DXC stores them: SPIR-V has no bool Input/Output variables.
- Pixel: inputs are copied into locals on entry (HLSL may write its parameters); FragCoord,
  FrontFacing, PrimitiveId, SampleId or a Location (declaration order) each; `nointerpolation`
  and integer values are Flat, `noperspective` NoPerspective, `centroid` Centroid, `sample`
  Sample; outputs: SV_TargetN is Location N, SV_Depth FragDepth (with DepthReplacing); the
  entry point is OriginUpperLeft.
- Compute: GLCompute with LocalSize; thread-group system values as the nodes'.
- Amplification: TaskEXT with LocalSize; the groupshared variable given to DispatchMesh is a
  TaskPayloadWorkgroupEXT variable (`task_payloads`), DispatchMesh is a group barrier (as DXC) and
  OpEmitMeshTasksEXT. Under the Vulkan memory model the payload stays Workgroup memory (task-payload
  accesses cannot be NonPrivatePointer there, so barriers would not order them) and the first
  invocation copies it to its TaskPayloadWorkgroupEXT twin before OpEmitMeshTasksEXT
  (`ModuleLowering.task_payload_copies`).

Invariants: every variable made here is given to the caller, which lists it in the entry point's
interface; nothing is re-checked (sema guarantees the parameters' shapes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.irtools.stageio import FLAT_BUILTINS, StageVariable, assign_locations, flatten, mesh_qualifier, semantic_key
from wgc.sema.nodes import NodeInfo

from .places import Place, SplitPlace, is_bool_value, stage_uint_type

if TYPE_CHECKING:
    from wgc.sema.results import Analysis

    from .lower import FunctionLowering, ModuleLowering

STAGE_MODELS = {"compute": "GLCompute", "pixel": "Fragment", "mesh": "MeshEXT", "amplification": "TaskEXT"}
INTERPOLATION_DECORATIONS = {"nointerpolation": "Flat", "noperspective": "NoPerspective", "centroid": "Centroid",
                             "sample": "Sample"}
FRAGMENT_INPUT_CAPABILITIES = {"PrimitiveId": "Geometry", "SampleId": "SampleRateShading"}
"""Built-in fragment inputs that need a capability (as DXC declares them)."""
INDEX_BUILTINS = {"triangle": "PrimitiveTriangleIndicesEXT", "line": "PrimitiveLineIndicesEXT"}
TOPOLOGY_MODES = {"triangle": "OutputTrianglesEXT", "line": "OutputLinesEXT"}


def setup_mesh(ml: ModuleLowering) -> None:
    ml.b.capability("MeshShadingEXT")
    ml.b.extension("SPV_EXT_mesh_shader")


def mesh_execution_modes(ml: ModuleLowering, fn: int, node: NodeInfo) -> None:
    mesh = node.mesh
    assert mesh is not None and mesh.topology is not None
    vertices, primitives = ml.mesh_counts
    ml.b.execution_mode(fn, "OutputVertices", vertices)
    ml.b.execution_mode(fn, "OutputPrimitivesEXT", primitives)
    ml.b.execution_mode(fn, TOPOLOGY_MODES[mesh.topology])


def declare_mesh_outputs(ml: ModuleLowering, node: NodeInfo
                         ) -> tuple[dict[ir.Variable, Place | SplitPlace], tuple[int, ...]]:
    """The places of the node's mesh output parameters, and every variable they hold."""
    mesh = node.mesh
    assert mesh is not None and mesh.topology is not None
    params = [p for p in node.function.params if mesh_qualifier(p) in ("vertices", "primitives")]
    groups = assign_locations([flatten(_element(p), p.semantic, mesh_qualifier(p) or "",
                                       interpolation=p.modifiers & _INTERPOLATION) for p in params])
    places: dict[ir.Variable, Place | SplitPlace] = {}
    variables: list[int] = []
    vertices, primitives = ml.mesh_counts
    for param, group in zip(params, groups):
        per_primitive = mesh_qualifier(param) == "primitives"
        length = primitives if per_primitive else vertices
        made = {v.path: _variable(ml, v, length, per_primitive) for v in group}
        variables.extend(made.values())
        places[param] = _split(ml, param.type, (), made, length, booleans=_booleans(group))
    indices = mesh.indices
    if indices is not None:
        builtin = INDEX_BUILTINS[mesh.topology]
        array = t.array(_element(indices), primitives)
        var = ml.b.variable(ml.b.type_pointer("Output", ml.types.id(array)), "Output")
        ml.b.decorate(var, "BuiltIn", builtin)
        ml.b.name(var, f"gl_{builtin}")
        places[indices] = Place(var, array, "Output")
        variables.append(var)
    return places, tuple(variables)


class StageIO:
    """The places of an entry point's stage parameters (and result), and every variable they hold."""

    def __init__(self) -> None:
        self.places: dict[ir.Variable, Place | SplitPlace] = {}
        self.inputs: dict[ir.Variable, Place | SplitPlace] = {}
        """Pixel inputs: copied into a local of the parameter's type on entry."""
        self.result: Place | SplitPlace | None = None
        self.variables: list[int] = []
        self.depth = False


def declare_stage_io(ml: ModuleLowering, entry: NodeInfo) -> StageIO:
    io = StageIO()
    if entry.mesh is not None:
        places, variables = declare_mesh_outputs(ml, entry)
        io.places.update(places)
        io.variables.extend(variables)
        payload = entry.mesh.payload
        if payload is not None:
            var = ml.b.variable(ml.b.type_pointer("TaskPayloadWorkgroupEXT", ml.types.id(payload.type)),
                                "TaskPayloadWorkgroupEXT")
            ml.b.name(var, payload.name)
            io.places[payload] = Place(var, payload.type, "TaskPayloadWorkgroupEXT")
            io.variables.append(var)
    if entry.stage == "pixel":
        _pixel_io(ml, entry, io)
    return io


def declare_stage_entry_point(ml: ModuleLowering, fn: int, entry: NodeInfo, name: str, io: StageIO) -> None:
    """The entry point of a compute, pixel, mesh or amplification shader (not a node: no AMDX modes)."""
    b = ml.b
    b.entry_point(STAGE_MODELS[entry.stage], fn, name, ml.reached_globals(fn))
    if entry.stage == "pixel":
        b.execution_mode(fn, "OriginUpperLeft")
        if io.depth:
            b.execution_mode(fn, "DepthReplacing")
        return
    ml.local_size(fn, entry.function.attributes, entry.num_threads)
    if entry.mesh is not None:
        mesh_execution_modes(ml, fn, entry)
    if entry.stage in ("mesh", "amplification"):
        setup_mesh(ml)


def discard(fl: FunctionLowering) -> None:
    """`discard`: OpDemoteToHelperInvocation from SPIR-V 1.6 (vulkan1.3), OpKill before (as DXC)."""
    if fl.ml.options.target_env == "vulkan1.2":
        fl.b.emit("OpKill")
        fl.b.label()                 # what follows is unreachable, in a block of its own
    else:
        fl.b.capability("DemoteToHelperInvocation")
        fl.b.emit("OpDemoteToHelperInvocation")


def _pixel_io(ml: ModuleLowering, entry: NodeInfo, io: StageIO) -> None:
    function = entry.function
    inputs = [p for p in function.params if p.direction is ir.Direction.IN]
    groups = assign_locations([flatten(p.type, p.semantic, "pixel-in", interpolation=p.modifiers & _INTERPOLATION)
                               for p in inputs])
    for param, group in zip(inputs, groups):
        made = {v.path: _io_variable(ml, v, "Input") for v in group}
        io.variables.extend(made.values())
        io.inputs[param] = _split(ml, param.type, (), made, None, "Input", _booleans(group))
    for param in function.params:
        if param.direction is not ir.Direction.IN:
            io.places[param] = _pixel_output(ml, param.type, param.semantic, io)
    if function.return_type is not t.VOID:
        io.result = _pixel_output(ml, function.return_type, function.return_semantic, io)


_INTERPOLATION = frozenset(INTERPOLATION_DECORATIONS) | {"linear"}


def _pixel_output(ml: ModuleLowering, type_: t.Type, semantic: str | None, io: StageIO) -> Place | SplitPlace:
    variables = flatten(type_, semantic, "pixel-out")
    made = {v.path: _io_variable(ml, v, "Output") for v in variables}
    io.variables.extend(made.values())
    io.depth = io.depth or any(v.builtin == "FragDepth" for v in variables)
    return _split(ml, type_, (), made, None, "Output", _booleans(variables))


def _placed_variable(ml: ModuleLowering, variable: StageVariable, type_: t.Type, storage: str) -> int:
    """A `storage` variable of `type_` for a stage variable: decorated with its built-in (named
    `gl_X`) or its location (named `in_var_S`/`out_var_S` after its semantic, as dxc names them)."""
    if variable.builtin is None and is_bool_value(type_):
        type_ = stage_uint_type(type_)                 # SPIR-V has no bool Input/Output: uint, as DXC
    var = ml.b.variable(ml.b.type_pointer(storage, ml.types.id(type_)), storage)
    if variable.builtin is not None:
        ml.b.decorate(var, "BuiltIn", variable.builtin)
        ml.b.name(var, f"gl_{variable.builtin}")
    else:
        assert variable.location is not None
        ml.b.decorate(var, "Location", variable.location)
        ml.b.name(var, f"{'in' if storage == 'Input' else 'out'}_var_{variable.semantic}")
    return var


def _io_variable(ml: ModuleLowering, variable: StageVariable, storage: str) -> int:
    var = _placed_variable(ml, variable, variable.type, storage)
    if storage == "Input":
        if variable.builtin in FRAGMENT_INPUT_CAPABILITIES:
            ml.b.capability(FRAGMENT_INPUT_CAPABILITIES[variable.builtin])
        if variable.builtin in FLAT_BUILTINS:
            ml.b.decorate(var, "Flat")
        _interpolate(ml, var, variable)
        if variable.builtin is None and variable.semantic and \
                semantic_key(variable.semantic) in ml.options.per_primitive_semantics:
            setup_mesh(ml)                     # fed per primitive by a mesh shader of the file
            ml.b.decorate(var, "PerPrimitiveEXT")
    return var


def mesh_counts(entries: list[NodeInfo]) -> tuple[int, int]:
    """The largest vertex and primitive counts of the mesh entry points among `entries` (at least 1:
    Vulkan wants OutputVertices and OutputPrimitivesEXT above 0, also for a mesh shader that outputs
    nothing, which DXC accepts)."""
    meshes = [e.mesh for e in entries if e.mesh is not None]
    return (max((m.max_vertices for m in meshes), default=1) or 1,
            max((m.max_primitives for m in meshes), default=1) or 1)


def task_payloads(results: Analysis, entries: list[NodeInfo]) -> set[ir.Variable]:
    """The groupshared variables the amplification shaders among `entries` pass to DispatchMesh:
    declared TaskPayloadWorkgroupEXT instead of Workgroup."""
    return {v for e in entries if e.stage == "amplification" for call in results.dispatch_mesh_calls(e.function)
            if (v := results.task_payload(call)) is not None}


def dispatch_mesh(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    """DispatchMesh(x, y, z, payload): OpEmitMeshTasksEXT, which ends the invocation (what follows it
    is an unreachable block of its own)."""
    counts = [fl.convert(fl.value(a), a.type, t.UINT) for a in call.args[:3]]
    payload = fl.place(call.args[3])
    variable = fl.ml.results.task_payload(call)
    copy = fl.ml.task_payload_copies.get(variable) if variable is not None else None
    assert isinstance(payload, Place) and (payload.storage == "TaskPayloadWorkgroupEXT" or copy is not None), \
        "sema.target: the payload is a groupshared variable (WG0644), declared as the task payload"
    # the group's payload writes are made visible first, as DXC does (GroupMemoryBarrierWithGroupSync)
    fl.b.emit("OpControlBarrier", fl.ml.scope("Workgroup"), fl.ml.scope("Workgroup"),
              fl.ml.barrier_semantics("WorkgroupMemory"))
    if copy is None:
        fl.b.emit("OpEmitMeshTasksEXT", *counts, fl.pointer(payload))
        fl.b.label()
        return
    # Vulkan memory model: the payload was Workgroup memory (non-private, ordered by the barrier);
    # the first invocation copies it to the task payload, which the mesh shaders read
    b, uint = fl.b, fl.types.id(t.UINT)
    index = fl.ml.builtin("LocalInvocationIndex", t.UINT)
    fl.use_global(index)
    fl.use_global(copy)
    first = b.emit("OpIEqual", b.type_bool(), b.emit("OpLoad", uint, index), fl.uint(0))
    then, merge = b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", merge, "None")
    b.emit("OpBranchConditional", first, then, merge)
    fl.new_block(then)
    type_id = fl.types.id(payload.type)
    value = b.emit("OpLoad", type_id, fl.pointer(payload), *fl.ml.memory_access(payload, store=False))
    b.emit("OpStore", copy, value)
    b.emit("OpBranch", merge)
    fl.new_block(merge)
    b.emit("OpEmitMeshTasksEXT", *counts, copy)
    b.label()


def stage_bool(fl: FunctionLowering, value: int, type_: t.Type, *, to_bool: bool) -> int:
    """A bool stage value from its uint storage (`to_bool`) or back (`Place.stage_bool`), element
    by element for arrays."""
    if isinstance(type_, t.ArrayType):
        assert type_.length is not None
        source = stage_uint_type(type_.element) if to_bool else type_.element
        parts = [stage_bool(fl, fl.b.emit("OpCompositeExtract", fl.types.id(source), value, i), type_.element,
                            to_bool=to_bool) for i in range(type_.length)]
        result = type_ if to_bool else stage_uint_type(type_)
        return fl.b.emit("OpCompositeConstruct", fl.types.id(result), *parts)
    uint = stage_uint_type(type_)
    return fl.convert(value, uint, type_) if to_bool else fl.convert(value, type_, uint)


def set_mesh_output_counts(fl: FunctionLowering, call: ir.IntrinsicCall) -> None:
    vertices, primitives = (fl.convert(fl.value(a), a.type, t.UINT) for a in call.args)
    fl.b.emit("OpSetMeshOutputsEXT", vertices, primitives)


def _element(param: ir.Variable) -> t.Type:
    assert isinstance(param.type, t.ArrayType)
    return param.type.element


def _variable(ml: ModuleLowering, variable: StageVariable, length: int, per_primitive: bool) -> int:
    var = _placed_variable(ml, variable, t.array(variable.type, length), "Output")
    if per_primitive:
        ml.b.decorate(var, "PerPrimitiveEXT")
    _interpolate(ml, var, variable)
    return var


def interpolation(variable: StageVariable) -> list[str]:
    """The interpolation decorations of a mesh output or pixel input, equal on both sides of the
    interface (as DXC decides for both: a user value of integer or bool type is Flat; a float
    one carries its `nointerpolation`/`noperspective`/`centroid`/`sample`; built-ins none)."""
    if variable.builtin is not None:
        return []
    scalar = t.element_scalar(variable.type if not isinstance(variable.type, t.ArrayType)
                              else t.innermost_element(variable.type))
    if scalar is not None and not scalar.is_float:
        return ["Flat"]
    return [INTERPOLATION_DECORATIONS[m] for m in sorted(variable.interpolation) if m in INTERPOLATION_DECORATIONS]


def _interpolate(ml: ModuleLowering, var: int, variable: StageVariable) -> None:
    for decoration in interpolation(variable):
        if decoration == "Sample":
            ml.b.capability("SampleRateShading")
        ml.b.decorate(var, decoration)


def _booleans(variables: list[StageVariable]) -> frozenset[tuple[int, ...]]:
    """The paths of the bool values among `variables` that are no built-in: stored as uint."""
    return frozenset(v.path for v in variables if v.builtin is None and is_bool_value(v.type))


def _split(ml: ModuleLowering, type_: t.Type, path: tuple[int, ...], made: dict[tuple[int, ...], int],
           length: int | None, storage: str = "Output",
           booleans: frozenset[tuple[int, ...]] = frozenset()) -> Place | SplitPlace:
    """The place of the value at `path` (of every element when `type_` is an array of `length`,
    the per-vertex or per-primitive arrays of a mesh shader); the values at `booleans` are bool
    values held as uint (`Place.stage_bool`)."""
    if path in made:
        if length is not None and isinstance(type_, t.ArrayType):
            type_ = t.array(type_.element, length)      # the variable's length (`mesh_counts`)
        return Place(made[path], type_, storage, stage_bool=path in booleans)
    struct = type_.element if length is not None and isinstance(type_, t.ArrayType) else type_
    assert isinstance(struct, t.StructType)
    fields = tuple(_split(ml, t.array(f.type, length) if length is not None else f.type, path + (i,), made, length,
                          storage, booleans)
                   for i, f in enumerate(struct.all_fields()))
    return SplitPlace(type_, fields)
