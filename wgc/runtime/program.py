"""Runtime: what the scheduler needs to know about a compiled graph, read from its reflection.

Input: the typed reflection of the compile (`wgc.metadata.reflection.Reflection`, what
`wgc compile --emit=reflection` writes and `driver.Result.reflection` holds).
Output: a `Program`: per node its entry point, launch, group shape, grids, input record layout
(with the `SV_DispatchGrid` field), outputs (targets per array index, record budgets), recursion
depth and enclosing loops; per resource its Vulkan descriptor type (or why `wgc run` cannot bind
it), array count, texture shape, whether it is a shader record (local root arguments) and how to
show its contents; the size of the push-constant block; the pixel shaders beside mesh nodes.

With loops unrolled in index space (the reflection's `loop_lowering`), each (name, index) stage is
a node of the program (`expand_stages`), and a NodeID's records enter at its first stage.

Invariants: nodes in reflection order, outputs in declaration order (the order of the ABI's
`OutputParameter`s); record strides are the size rounded up to the alignment
(`emulation_abi.OUTPUT_SLOT["stride"]`); every fact comes from the reflection (which reads sema's
decisions), nothing is recomputed from the program text; nothing here touches Vulkan.
"""

from __future__ import annotations

import re
import struct
from dataclasses import replace
from collections.abc import Sequence
from typing import Any

from wgc.cached_dataclass import dataclass, field

_BASES = {  # HLSL scalar spellings as wgc prints types -> (kind, bits or None when the size decides)
    "min16float": ("float", None), "min10float": ("float", None), "min16uint": ("uint", None),
    "min16int": ("int", None), "min12int": ("int", None), "float16_t": ("float", 16), "float32_t": ("float", 32),
    "float64_t": ("float", 64), "uint16_t": ("uint", 16), "uint32_t": ("uint", 32), "uint64_t": ("uint", 64),
    "int16_t": ("int", 16), "int32_t": ("int", 32), "int64_t": ("int", 64), "double": ("float", 64),
    "float": ("float", 32), "half": ("float", None), "dword": ("uint", 32), "uint": ("uint", 32),
    "int": ("int", 32), "bool": ("bool", 32),
}
_SHAPE = re.compile(r"(?:([1-4])(?:x([1-4]))?)?")


def scalar_shape(type_name: str, size: int) -> tuple[str, int, tuple[int, ...], str]:
    """(kind, bits, shape, scalar name) of a scalar, vector (shape (n,)) or matrix ((rows, columns))
    type name taking `size` bytes in scalar layout; an enum (any other name) is an int of its size."""
    for base in sorted(_BASES, key=len, reverse=True):
        if type_name.startswith(base):
            match = _SHAPE.fullmatch(type_name[len(base):])
            if match is None:
                continue
            kind, bits = _BASES[base]
            shape = tuple(int(g) for g in match.groups() if g)
            count = 1
            for n in shape:
                count *= n
            return kind, bits or max(8, 8 * size // count), shape, base
    return "int", 8 * size if size in (2, 4, 8) else 32, (), type_name


@dataclass(frozen=True)
class Field:
    """A record member: where it is and how its value is written (from a reflection FieldLayout)."""

    name: str
    type: str
    offset: int
    size: int
    array_dims: tuple[int, ...]
    array_stride: int | None
    matrix_stride: int | None
    row_major: bool | None
    fields: tuple[Field, ...]
    """A struct (or array of structs): its members, offsets relative to it."""


@dataclass(frozen=True)
class RecordLayout:
    """A node record as laid out in record memory (scalar layout)."""

    name: str
    size: int
    alignment: int
    fields: tuple[Field, ...]

    @property
    def stride(self) -> int:
        return -(-self.size // max(1, self.alignment)) * max(1, self.alignment) if self.size else 0


EMPTY_RECORD = RecordLayout("(empty)", 0, 1, ())


@dataclass(frozen=True)
class GridField:
    """The record's `SV_DispatchGrid` member: byte offset, 1-3 components, 16 or 32 bits."""

    offset: int
    components: int
    bits: int


@dataclass(frozen=True)
class OutputPlan:
    parameter: str
    target: str
    target_index: int
    """The NodeID the output targets: (target, target_index); array index i targets (target, target_index + i)."""
    array: bool
    array_size: int | None
    """Node arrays: [NodeArraySize]; None when unbounded ([UnboundedSparseNodes])."""
    empty: bool
    max_records: int
    """Records the output may emit per thread group (per thread for thread launch)."""
    max_records_per_node: int
    record: RecordLayout


@dataclass(frozen=True)
class NodePlan:
    name: str
    index: int
    function: str
    entry_point: str
    launch: str
    num_threads: tuple[int, int, int]
    dispatch_grid: tuple[int, int, int] | None
    max_dispatch_grid: tuple[int, int, int] | None
    grid_field: GridField | None
    record: RecordLayout
    max_records: int
    """Coalescing: records per group ([MaxRecords] of the input, 1 without)."""
    max_recursion_depth: int
    outputs: tuple[OutputPlan, ...]
    share_input_of: tuple[str, int] | None
    local_root_arguments_table_index: int | None
    max_loop_iterations: int | None
    local_root: Any = None
    """The local root signature of the node's export (`sema.root_layout.LocalRootLayout`): where each root
    parameter lies in its table entry ("local_root_arguments": {"entries": ...}); None without one."""
    loops: tuple[tuple[str, int], ...] = ()
    """The entries of every loop holding the node (Work Graph Loops), outermost first: the
    reflection's, which are `sema.graph`'s."""
    cross_group_sharing: bool = False
    """The input record is [NodeTrackRWInputSharing]: the runtime keeps a group counter per record."""
    wave_size: tuple[int, ...] | None = None
    """[WaveSize(min[, max[, preferred]])] of the node (None: any)."""

    @property
    def label(self) -> str:
        return self.name if self.index == 0 else f"{self.name}[{self.index}]"


@dataclass(frozen=True)
class ResourcePlan:
    name: str
    type: str
    register: str | None
    """As written: "u0", or None for an implicit binding."""
    space: int
    set: int
    binding: int
    descriptor: str | None
    """The Vulkan descriptor type in the reflection's words ("storage buffer", "sampled image",
    "sampler", ...; `BOUND_DESCRIPTORS`); None for what `wgc run` cannot bind (why: `unsupported`)."""
    element: str
    """The JSON array type a dump of a buffer uses ("uint32", "float", ...)."""
    writable: bool
    counter_of: str | None = None
    """The hidden counter of an RW/Append/Consume structured buffer: the buffer's name (the counter
    starts at 0 unless the dispatch gives it, as '<name>.counter')."""
    count: int | None = 1
    """Descriptors: 1, an array's element count, or None for an unbounded array (`t[]`)."""
    image: ImageShape | None = None
    """Textures and typed buffers: what the shader declares."""
    unsupported: str | None = None
    """Why `wgc run` cannot bind it (with `descriptor` None)."""
    shader_record: bool = False
    """A `[[vk::shader_record_ext]]` block: the emulated target reads it from the node's local root
    argument table entry; it takes no descriptor."""
    size: int = 0
    alignment: int = 1
    """Uniform blocks: the block's size and alignment (a shader record's table entry holds it)."""
    used_by: tuple[str, ...] = ()
    """Labels of the nodes whose code reaches it."""
    root_only: bool = False
    """Every node reaching it reads it through its local root signature (`NodePlan.local_root`): the emulated
    module declares no descriptor for it (its buffer is made all the same, for "@Name" addresses and dumps)."""


@dataclass(frozen=True)
class ImageShape:
    """A texture or typed buffer as the shader declares it."""

    dim: str
    """"1D", "2D", "3D", "Cube" or "Buffer"."""
    arrayed: bool
    multisampled: bool
    component: str
    """The scalar kind a shader reads: "float", "uint" or "int"."""
    components: int
    """Components of the element type (`float4`: 4)."""


BOUND_DESCRIPTORS = ("storage buffer", "uniform buffer", "sampled image", "storage image", "uniform texel buffer",
                     "storage texel buffer", "sampler")
"""The descriptor types `wgc run` binds."""


@dataclass(frozen=True)
class Program:
    nodes: tuple[NodePlan, ...]
    resources: tuple[ResourcePlan, ...]
    push_constant_bytes: int
    """Size of the user's [[vk::push_constant]] block (0 without one)."""
    first_stage: dict[tuple[str, int], int] = field(default_factory=dict)
    """Loops unrolled in index space (`expand_stages`): a NodeID's index -> the index of its first
    stage (iteration 0), where the application's records enter; empty otherwise."""
    graph_spec_ids: dict[int, str] = field(default_factory=dict)
    """SpecId -> name of the specialization constants that set the graph's shape (grids, MaxRecords,
    array sizes): the program holds their defaults, so a dispatch may specialise them only where
    `graph_specializable` (the program can be read again with other values)."""
    graph_specializable: bool = False
    """True for a program read from AMDX modules (`amdx.amdx_program`), whose graph reads its
    specialization constants' values, and for one `wgc.run` compiled from HLSL itself, which it
    compiles again with them (`run._compile_specialized`); False for a compile's `Result` given to it."""
    source_spec_constants: tuple[Any, ...] = ()
    """The AMDX modules' specialization constants (`pipelines.SpecConstantInfo`): those the
    translation keeps only in the graph."""
    pixel_shaders: tuple[str, ...] = ()
    """Entry points of the pixel shaders beside mesh nodes (the reflection's "pixel" entry points, which
    are no nodes): the render target shades with one of them (`render_target.py`)."""
    level_tail: bool = False
    """The compute nodes end with the level tail (emulation ABI 6, "Level tail"): true for every
    program `build_program` makes (this wgc compiled or translated its module); False by default, so
    a program pickled by an older revision (benchmarks' `--from`) keeps the meta pass everywhere."""
    tail_grids: bool = False
    """The level tail also sets up launches whose grid comes from their records (emulation ABI 9):
    true for every program `build_program` makes; False in one pickled by an older revision, whose
    tails leave those launches to `grid_setup`."""
    stripes: bool = False
    """Its shaders take a node-array element's slot from the group's stripe (emulation ABI 10,
    "Stripes"), so the GPU-driven schedule may split an element's allocation into stripes: true for
    a program `build_program` makes of a module this wgc compiled; false for the AMDX translation
    (its `allocate` knows one slot per element) and for programs pickled by an older revision."""

    def node(self, name: str, index: int = 0) -> NodePlan | None:
        """The node the application addresses as NodeID (name, index): with loops in index space, its
        first stage."""
        index = self.first_stage.get((name, index), index)
        for node in self.nodes:
            if node.name == name and node.index == index:
                return node
        return None


def record_grid(node: NodePlan, record: bytes) -> tuple[int, int, int]:
    """The SV_DispatchGrid of `record` (bytes of `node`'s input record); missing components are 1."""
    grid = node.grid_field
    assert grid is not None
    code = "H" if grid.bits == 16 else "I"
    values = list(struct.unpack_from(f"<{grid.components}{code}", record, grid.offset))
    return tuple((values + [1, 1])[:3])


def grid_problem(node: NodePlan, grid: tuple[int, int, int]) -> str | None:
    """Why `grid` may not launch `node` (beyond [NodeMaxDispatchGrid]), or None."""
    limit = node.max_dispatch_grid
    if limit is None or all(g <= m for g, m in zip(grid, limit)):
        return None
    return (f"a record asks node '{node.label}' for a grid of {grid[0]}x{grid[1]}x{grid[2]} groups, beyond its "
            f"[NodeMaxDispatchGrid({limit[0]}, {limit[1]}, {limit[2]})]")


_ARRAY_TYPES = {("uint", 8): "uint8", ("uint", 16): "uint16", ("uint", 32): "uint32", ("uint", 64): "uint64",
                ("int", 8): "int8", ("int", 16): "int16", ("int", 32): "int32", ("int", 64): "int64",
                ("float", 16): "float16", ("float", 32): "float", ("float", 64): "float64", ("bool", 32): "uint32"}


def element_array_type(element: str | None, stride: int | None) -> str:
    """The typed-array name for dumping a buffer of `element` (`stride` bytes apart): its scalar type
    for scalars, vectors and matrices, else "uint32" (structs, byte-address buffers)."""
    if element is None:
        return "uint32"
    base = element.split("[")[0]
    for name in sorted(_BASES, key=len, reverse=True):
        if base.startswith(name) and _SHAPE.fullmatch(base[len(name):]):
            kind, bits = _BASES[name]
            if bits is None:            # half, min16*: 16-bit only with -enable-16bit-types, which
                match = _SHAPE.fullmatch(base[len(name):])   # std430 strides tell: 2, 4, 8, 8 bytes
                count = 1                                    # for 1-4 components, against 4, 8, 16, 16
                for g in (match.groups() if match else ()):
                    count *= int(g) if g else 1
                bits = 16 if stride is not None and stride < 4 * count else 32
            return _ARRAY_TYPES.get((kind, bits), "uint32")
    return "uint32"


def _field(layout: Any) -> Field:
    return Field(name=layout.name, type=layout.type, offset=layout.offset, size=layout.size,
                 array_dims=tuple(layout.array_dims), array_stride=layout.array_stride,
                 matrix_stride=layout.matrix_stride, row_major=layout.row_major,
                 fields=tuple(_field(f) for f in layout.fields))


def _record(layout: Any) -> RecordLayout:
    if layout is None:
        return EMPTY_RECORD
    return RecordLayout(layout.type, layout.size, layout.alignment, tuple(_field(f) for f in layout.fields))


_IMAGE_DIMS = (("TextureCube", "Cube"), ("Texture1D", "1D"), ("Texture2D", "2D"), ("Texture3D", "3D"),
               ("Buffer", "Buffer"))
_COMPONENT_KINDS = {"f": "float", "u": "uint", "i": "int"}


def _image_shape(kind: str, element_type: str | None, component: str | None) -> ImageShape | None:
    """The shape of a texture or typed-buffer kind ("RWTexture2DArray", "Buffer", ...), else None."""
    base = kind[2:] if kind.startswith("RW") else kind
    for prefix, dim in _IMAGE_DIMS:
        if base.startswith(prefix):
            rest = base[len(prefix):]
            multisampled = rest.startswith("MS")
            arrayed = rest.endswith("Array")
            scalar = (component or "f32").split("_")[-1]
            shape = re.search(r"([1-4])$", element_type or "")
            return ImageShape(dim, arrayed, multisampled, _COMPONENT_KINDS.get(scalar[:1], "float"),
                              int(shape.group(1)) if shape else 1)
    return None


def _unsupported(resource: Any, shape: ImageShape | None, count: int | None) -> str | None:
    """Why `wgc run` cannot bind a descriptor of the reflection, or None."""
    if resource.shader_record:
        return ("it is a [[vk::shader_record_ext]] block, which each node reads from its entry of the local root "
                "argument table (\"local_root_arguments\"), not a descriptor")
    if resource.descriptor_type not in BOUND_DESCRIPTORS:
        return f"wgc run cannot bind an {resource.descriptor_type or resource.kind} descriptor"
    if shape is not None and shape.multisampled:
        return "wgc run cannot fill multisampled textures (Vulkan copies no buffer into a multisampled image)"
    if resource.layout is not None and count != 1 and resource.descriptor_type.endswith(" buffer") \
            and "texel" not in resource.descriptor_type:
        return "wgc run binds arrays of textures, typed buffers and samplers, not of buffers"
    return None


def _resources(reflection: Any) -> list[ResourcePlan]:
    plans = []
    for resource in reflection.descriptor_bindings:
        register = resource.register
        shape = _image_shape(resource.kind, resource.element_type, resource.element_component)
        count = resource.descriptor_count if resource.array_dims else 1
        unsupported = _unsupported(resource, shape, count or None)
        descriptor = resource.descriptor_type if unsupported is None else None
        stride = resource.layout.stride if resource.layout is not None else None
        element = resource.element_type if resource.kind.endswith("StructuredBuffer") else None
        plans.append(ResourcePlan(
            name=resource.name, type=resource.type,
            register=f"{register.register_class}{register.number}" if register is not None else None,
            space=register.space if register is not None else 0, set=resource.set, binding=resource.binding,
            descriptor=descriptor, element=element_array_type(element, stride),
            writable=resource.kind.startswith(("RW", "Append", "Consume")) and descriptor is not None,
            count=count or None, image=shape, unsupported=unsupported, shader_record=resource.shader_record,
            size=resource.layout.size if resource.layout is not None else 0,
            alignment=resource.layout.alignment if resource.layout is not None else 1,
            used_by=tuple(resource.used_by)))
        if resource.counter is not None:
            counter = resource.counter
            plans.append(ResourcePlan(
                name=f"{resource.name}.counter", type="counter", register=None, space=0, set=counter.set,
                binding=counter.binding, descriptor="storage buffer", element="uint32", writable=True,
                counter_of=resource.name))
    return plans


def _wave_size(sizes: Sequence[int] | None) -> tuple[int, ...] | None:
    """The reflection's (min, max, preferred), 0 for one not written, as written: (min[, max[, preferred]])."""
    if not sizes:
        return None
    found = list(sizes)
    while found and found[-1] == 0:
        found.pop()
    return tuple(found) or None


def build_program(reflection: Any, stripes: bool = True) -> Program:
    """The program of a compile's reflection (`wgc.metadata.reflection.Reflection`); `stripes`:
    whether its module takes node-array slots by stripe (`Program.stripes`)."""
    nodes = []
    pixel_shaders = tuple(e.entry_point for e in reflection.entry_points if e.stage == "pixel")
    for node in reflection.nodes:
        node_input = node.input
        record = _record(node_input.record if node_input is not None else None)
        grid = node_input.record.dispatch_grid if node_input is not None and node_input.record else None
        budgets = {o.index: o.max_records for o in node.outputs}
        outputs = []
        for output in node.outputs:
            own = output.max_records
            if own is None and output.max_records_shared_with_index is not None:
                own = budgets.get(output.max_records_shared_with_index)
            max_records = own if own is not None else 1
            per_node = output.max_records_per_node if output.max_records_per_node is not None else max_records
            outputs.append(OutputPlan(
                parameter=output.name, target=output.target.name, target_index=output.target.index,
                array=output.array_size is not None,
                array_size=None if output.unbounded_sparse_nodes else output.array_size,
                empty=output.empty, max_records=max_records, max_records_per_node=min(per_node, max_records),
                record=_record(output.record)))
        loops = tuple((entry.name, entry.index) for entry in node.loops)
        nodes.append(NodePlan(
            name=node.id.name, index=node.id.index, function=node.function, entry_point=node.entry_point,
            launch=node.launch, num_threads=tuple(node.num_threads),
            dispatch_grid=node.dispatch_grid, max_dispatch_grid=node.max_dispatch_grid,
            grid_field=GridField(grid.offset, grid.components, grid.bits) if grid is not None else None,
            record=record, max_records=(node_input.max_records or 1) if node_input is not None else 1,
            max_recursion_depth=node.max_recursion_depth or 0, outputs=tuple(outputs),
            share_input_of=((node.share_input_of.name, node.share_input_of.index) if node.share_input_of else None),
            local_root_arguments_table_index=node.local_root_arguments_table_index,
            local_root=getattr(node, "local_root_signature", None),
            max_loop_iterations=node.loop_entry[0] if node.loop_entry is not None else None,
            loops=loops,
            cross_group_sharing=bool(node_input is not None and node_input.record is not None
                                     and node_input.record.track_rw_input_sharing),
            wave_size=_wave_size(getattr(node, "wave_size", None))))
    push = max((r.size for r in reflection.push_constant_ranges), default=0)
    shaping = {c.spec_id: c.name for node in reflection.nodes for c in getattr(node, "attribute_spec_constants", ())}
    program = Program(nodes=tuple(nodes), resources=tuple(_root_only(_resources(reflection), nodes)),
                      push_constant_bytes=push,
                      graph_spec_ids=shaping, pixel_shaders=pixel_shaders, level_tail=True,
                      tail_grids=True, stripes=stripes)
    if getattr(reflection, "loop_lowering", "native") == "index-space":
        return expand_stages(program, reflection)
    return program


def _root_only(resources: list[ResourcePlan], nodes: list[NodePlan]) -> list[ResourcePlan]:
    """`resources`, those every node reaching them reads through its local root signature marked `root_only`."""
    by_label = {node.label: node for node in nodes}

    def through_root(resource: ResourcePlan, label: str) -> bool:
        node = by_label.get(label)
        layout = node.local_root if node is not None else None
        if layout is None or resource.register is None:
            return False
        parameter = layout.find(resource.register[0].lower(), int(resource.register[1:]), resource.space)
        return parameter is not None and parameter.kind != "table"

    return [replace(r, root_only=True) if r.used_by and r.counter_of is None
            and all(through_root(r, label) for label in r.used_by) else r for r in resources]


def expand_stages(program: Program, reflection: Any) -> Program:
    """The program of a module whose loops are unrolled in index space (`wgc.sema.stages`): every
    (name, index) stage of the reflection is a node of its own, outside any loop, running its node's
    entry point (which reads its iteration from the `shader_index` the scheduler passes); an output
    into a loop becomes an array over its target's stages (`stage_span`); a self-feeding loop entry
    recurses `max_node_recursion` levels.  The scheduler then runs it as a graph without loops."""
    stages: list[NodePlan] = []
    first_stage: dict[tuple[str, int], int] = {}
    for plan, node in zip(program.nodes, reflection.nodes):
        outputs = []
        for output_plan, output in zip(plan.outputs, node.outputs):
            span = output.stage_span
            if span is None:
                outputs.append(output_plan)
                continue
            base, size = span.base, span.size
            per_node = output_plan.max_records_per_node if output_plan.array else output_plan.max_records
            outputs.append(replace(output_plan, target_index=base, array=True, array_size=size,
                                   max_records_per_node=per_node))
        first_stage[(plan.name, plan.index)] = plan.index * node.stage_stride
        for stage in node.stages:
            stages.append(replace(plan, index=stage.index, outputs=tuple(outputs), loops=(),
                                  max_loop_iterations=None, max_recursion_depth=node.max_node_recursion or 0))
    return replace(program, nodes=tuple(stages), first_stage=first_stage)
