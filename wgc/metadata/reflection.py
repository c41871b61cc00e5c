"""Metadata, reflection: what an application (or wgc's runtime) needs to drive a compiled work graph.

Stage:  metadata (after sema; reads sema's decisions, recomputes none of them).
Input:  the node descriptions of the nodes compiled (`sema.nodes.NodeInfo`; all, or the one `-E`
        names), the graph (`sema.graph.GraphInfo`), the module's globals (`ir.Module.globals`),
        the profile and target environment, and whether each node gets a module of its own
        (`--split-nodes`).
Output: `build_reflection(...) -> Reflection`, typed frozen dataclasses; `Reflection.to_json()` is the
        `wgc compile --emit=reflection` / `-Fre FILE` document, described in docs/reference.md
        ("Reflection") and by the JSON Schema docs/reflection.schema.json. The pieces the inspect model shares with it are here too:
        `describe_resources` (`Resource`, with `BlockLayout`, `Register`, `Counter`),
        `record_layout` (`RecordLayout`, `FieldLayout`), `spec_constants` (`SpecConstant`),
        `attribute_spec_constants` (`AttributeSpecConstant`: a node's attribute arguments that are
        specialization constants; the node's values are their defaults), `input_reflection` and
        `output_reflection` (a node's input and outputs), `wave_size`, and `entry_point_reflection`
        (`EntryPointReflection`: a compute, pixel, mesh or amplification shader beside the graph).

Where each fact comes from (sema decides, this module only reads):
- record and block layouts: `ir.Variable.layout` / `NodeInput.layout` / `NodeOutput.layout` (the
  `TypeLayout`s the SPIR-V back end turns into Offset/ArrayStride/MatrixStride decorations) and the
  rule they were computed by (`ir.Variable.layout_rule`); fields are paired with their struct
  members by `irtools.layout.member_fields`;
- descriptor set, binding, counter binding and the register as written: `ir.Binding`
  (`sema.bindings`); the Vulkan descriptor type: `sema.bindings.descriptor_type_of`;
- which node reaches which resource and counter, and whether it reads or writes it:
  `sema.usage.resource_use`; a storage image's format: `spirv.resources.storage_format` (the
  function the back end declares the OpTypeImage with);
- entry point names and modules: `sema.modules`;
- the (name, index) stages of loop members, MaxNodeRecursionAMDX and the stage indices an output
  reaches: `sema.stages` (Work Graph Loops unrolled in index space, as the AMDX modules are).

Invariants: deterministic (source order for resources and specialization constants, node order
for nodes, declaration order for outputs; dict keys in a fixed order; no paths, ids or times);
`to_json()` returns only JSON types; a NodeID is shown by its display name (name, plus "[i]"
when the index is not 0) where a list of nodes is given (`used_by`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass
from wgc.emulation_abi import ABI_VERSION
from wgc.irtools.layout import LayoutRule, TypeLayout, laid_out_type, layout_of, member_fields, runtime_array_stride
from wgc.sema.bindings import VULKAN_DESCRIPTOR_TYPES
from wgc.sema.graph import GraphInfo
from wgc.sema.nodes import DispatchGridField, NodeId, NodeInfo, NodeInput, NodeOutput
from wgc.sema.results import Analysis
from wgc.sema.root_layout import LocalRootLayout
from wgc.sema.stages import OutputSpan, StagePlan

FORMAT = "wgc-reflection"
VERSION = 2
"""2: one shape with the inspect model (outputs, inputs, wave_size, entry_points); 1 before."""


def _node_id(node_id: NodeId) -> dict[str, Any]:
    return {"name": node_id.name, "index": node_id.index}


def _array_dims(type_: t.Type) -> tuple[int, ...]:
    """The lengths of `type_`'s array levels, outermost first (0 for an unsized level)."""
    dims = []
    while isinstance(type_, t.ArrayType):
        dims.append(type_.length or 0)
        type_ = type_.element
    return tuple(dims)


def _count(dims: tuple[int, ...]) -> int | None:
    """How many elements arrays of `dims` hold (0 when one level is unsized); None for no array."""
    return math.prod(dims) if dims else None


# ---------------------------------------------------------------- layouts


@dataclass(frozen=True)
class FieldLayout:
    """One member of a laid-out struct, as the SPIR-V module decorates it."""

    name: str
    type: str
    """The HLSL type as declared, arrays included (`uint16_t[3]`, `Inner[2]`)."""
    offset: int
    """Byte offset in the enclosing struct (the SPIR-V `Offset`)."""
    size: int
    alignment: int
    array_dims: tuple[int, ...] = ()
    """Array lengths, outermost first (0: unsized); empty when the member is not an array."""
    array_stride: int | None = None
    """Arrays: bytes between consecutive elements (the SPIR-V `ArrayStride`; an array of arrays is
    contiguous, so element k of the flattened array is at offset + k * the innermost stride)."""
    matrix_stride: int | None = None
    row_major: bool | None = None
    """Matrices: HLSL's majorness (SPIR-V decorates the transpose), and the stride between HLSL vectors."""
    semantic: str | None = None
    fields: tuple[FieldLayout, ...] = ()
    """A struct member (or an array of structs): the struct's members, offsets relative to it."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "offset": self.offset, "size": self.size,
                "alignment": self.alignment, "array_count": _count(self.array_dims),
                "array_dims": list(self.array_dims), "array_stride": self.array_stride,
                "matrix_stride": self.matrix_stride, "row_major": self.row_major, "semantic": self.semantic,
                "fields": [f.to_json() for f in self.fields]}


def field_layouts(type_: t.Type | None, layout: TypeLayout) -> tuple[FieldLayout, ...]:
    """The members of `layout` (of struct `type_`, or of the innermost element of an array of structs)."""
    fields = []
    for member, declared in member_fields(type_, layout):
        member_type = declared.type if declared is not None else None
        inner = t.innermost_element(member_type) if member_type is not None else None
        own = member.layout
        innermost_stride = own
        while innermost_stride.element is not None and innermost_stride.element.array_stride is not None:
            innermost_stride = innermost_stride.element
        fields.append(FieldLayout(
            name=member.name, type=str(member_type) if member_type is not None else "?",
            offset=member.offset, size=own.size, alignment=own.alignment,
            array_dims=_array_dims(member_type) if member_type is not None else (),
            array_stride=innermost_stride.array_stride, matrix_stride=own.matrix_stride, row_major=own.row_major,
            semantic=declared.semantic if declared is not None else None,
            fields=field_layouts(member_type, own) if isinstance(inner, t.StructType) else ()))
    return tuple(fields)


@dataclass(frozen=True)
class DispatchGrid:
    """The `SV_DispatchGrid` field of a record."""

    offset: int
    components: int
    bits: int

    @property
    def type(self) -> str:
        scalar = "uint16_t" if self.bits == 16 else "uint"
        return scalar if self.components == 1 else f"{scalar}{self.components}"

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "components": self.components, "bits": self.bits, "type": self.type}


@dataclass(frozen=True)
class RecordLayout:
    """A node record in memory: scalar block layout, as the SPIR-V payload struct is decorated."""

    type: str
    size: int
    alignment: int
    fields: tuple[FieldLayout, ...]
    dispatch_grid: DispatchGrid | None
    track_rw_input_sharing: bool

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "size": self.size, "alignment": self.alignment,
                "dispatch_grid": self.dispatch_grid.to_json() if self.dispatch_grid else None,
                "track_rw_input_sharing": self.track_rw_input_sharing,
                "fields": [f.to_json() for f in self.fields]}


def _dispatch_grid(field: DispatchGridField | None) -> DispatchGrid | None:
    return DispatchGrid(field.offset, field.components, field.bits) if field is not None else None


_RECORD_LAYOUTS: dict[tuple[int, int, DispatchGridField | None, bool], tuple[Any, Any, RecordLayout]] = {}
"""record_layout's results by the identity of the record type and layout (hashing a layout walks all of
it); each entry holds its type and layout, so their ids stay theirs while it is kept."""


def record_layout(record: t.Type | None, layout: TypeLayout | None, grid: DispatchGridField | None,
                  track_rw_input_sharing: bool) -> RecordLayout | None:
    """The record of a node input or output; None for an empty one (one per record, layout and grid:
    the inputs and outputs of a graph share a few records)."""
    if record is None or layout is None:
        return None
    key = (id(record), id(layout), grid, track_rw_input_sharing)
    kept = _RECORD_LAYOUTS.get(key)
    if kept is None:
        if len(_RECORD_LAYOUTS) >= 1024:
            _RECORD_LAYOUTS.clear()
        kept = _RECORD_LAYOUTS[key] = (record, layout, RecordLayout(
            str(record), layout.size, layout.alignment, field_layouts(record, layout), _dispatch_grid(grid),
            track_rw_input_sharing))
    return kept[2]


@dataclass(frozen=True)
class BlockLayout:
    """The memory of a uniform block (its struct) or of a structured buffer's element."""

    type: str
    rule: str
    """"std140" (dxc's relaxed std140), "std430" (relaxed std430), "scalar" or "dx" (FXC packing)."""
    size: int
    alignment: int
    stride: int | None
    """Structured buffers: bytes between elements (the runtime array's ArrayStride); blocks: None."""
    fields: tuple[FieldLayout, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "rule": self.rule, "size": self.size, "alignment": self.alignment,
                "stride": self.stride, "fields": [f.to_json() for f in self.fields]}


# ---------------------------------------------------------------- resources


@dataclass(frozen=True)
class Register:
    """A `register(xN, spaceM)` as written (space 0 when not written)."""

    register_class: str
    number: int
    space: int

    def to_json(self) -> dict[str, Any]:
        return {"class": self.register_class, "number": self.number, "space": self.space}


@dataclass(frozen=True)
class Counter:
    """The counter buffer (`counter.var.<name>`, a storage buffer holding one int) of a structured buffer."""

    name: str
    set: int
    binding: int
    binding_source: str
    used_by: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "set": self.set, "binding": self.binding, "binding_source": self.binding_source,
                "descriptor_type": "storage buffer", "vk_descriptor_type": VULKAN_DESCRIPTOR_TYPES["storage buffer"],
                "used_by": list(self.used_by)}


@dataclass(frozen=True)
class Resource:
    """A resource, uniform block or push-constant block the program declares."""

    name: str
    type: str
    """As declared: `RWStructuredBuffer<uint>[4]`, `cbuffer`, `ConstantBuffer<P>`, `$Globals`'s `cbuffer`."""
    kind: str
    """`cbuffer`, `tbuffer`, `ConstantBuffer`, `TextureBuffer`, or the resource object (`Texture2D`, ...)."""
    register_class: str
    """The register class that suits it (b, t, u, s), written or not."""
    register: Register | None
    """The register as written; None: implicit."""
    set: int | None
    binding: int | None
    binding_source: str | None
    """"register", "vk::binding" or "auto" (sema's rule); None for a push-constant block."""
    descriptor_type: str | None
    """Vulkan descriptor type in words ("storage buffer"); None for a push-constant block."""
    array_dims: tuple[int, ...]
    globally_coherent: bool
    push_constant: bool
    shader_record: bool
    """`[[vk::shader_record_ext]]`: the node's local root arguments (emulated target: read from its
    local-root-argument table entry, no descriptor; AMDX target: an ordinary uniform buffer)."""
    element_type: str | None
    """Buffers and textures: the template argument (`float4`); None for the others."""
    element_component: str | None
    """Typed buffers and textures: the element's scalar as a component type (u32, f32, unorm_f32, ...)."""
    layout: BlockLayout | None
    counter: Counter | None
    used_by: tuple[str, ...]
    """Display names of the nodes (of those described) whose code reaches it."""
    image_format: str | None = None
    """Storage images and storage texel buffers (RWTexture*, RWBuffer): the SPIR-V ImageFormat of the
    OpTypeImage (`[[vk::image_format]]`, or inferred from the element; "Unknown" where it cannot
    be); None for the other resources."""
    access: str | None = None
    """What the code of `used_by` does to it: "read", "write", "read_write" (SPIR-V NonWritable /
    NonReadable: not written / not read); None when no node described uses it."""
    stages: tuple[str, ...] = ()
    """The Vulkan shader stages of `used_by` ("compute"; "mesh" for mesh nodes)."""

    @property
    def descriptor_count(self) -> int:
        """Descriptors in the binding: 1, an array's element count, or 0 for an unsized array."""
        return _count(self.array_dims) if self.array_dims else 1  # type: ignore[return-value]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "type": self.type, "kind": self.kind, "register_class": self.register_class,
            "register": self.register.to_json() if self.register else None,
            "set": self.set, "binding": self.binding, "binding_source": self.binding_source,
            "descriptor_type": self.descriptor_type,
            "vk_descriptor_type": VULKAN_DESCRIPTOR_TYPES.get(self.descriptor_type or ""),
            "count": None if self.push_constant else self.descriptor_count, "array_dims": list(self.array_dims),
            "globally_coherent": self.globally_coherent, "push_constant": self.push_constant,
            "shader_record": self.shader_record,
            "element_type": self.element_type, "element_component": self.element_component,
            "layout": self.layout.to_json() if self.layout else None,
            "counter": self.counter.to_json() if self.counter else None,
            "used_by": list(self.used_by),
            "image_format": self.image_format, "access": self.access, "stages": list(self.stages),
            "vk_shader_stage_flags": [VK_SHADER_STAGES[stage] for stage in self.stages],
        }


def _component(scalar: t.Type | None, modifier: str | None) -> str | None:
    """`float` -> "f32", `unorm float` -> "unorm_f32", `uint16_t` -> "u16", `bool` -> "i1"."""
    if not isinstance(scalar, t.ScalarType):
        return None
    if scalar.kind is t.ScalarKind.BOOL:
        return "i1"
    letter = {t.ScalarKind.INT: "i", t.ScalarKind.UINT: "u", t.ScalarKind.FLOAT: "f"}.get(scalar.kind)
    if letter is None:
        return None
    name = f"{letter}{scalar.bits}"
    return f"{modifier}_{name}" if modifier in ("unorm", "snorm") else name


def _element_scalar(type_: t.Type | None) -> t.Type | None:
    if isinstance(type_, (t.VectorType, t.MatrixType)):
        return type_.element
    return type_


VK_SHADER_STAGES = {"compute": "VK_SHADER_STAGE_COMPUTE_BIT", "mesh": "VK_SHADER_STAGE_MESH_BIT_EXT",
                    "task": "VK_SHADER_STAGE_TASK_BIT_EXT", "fragment": "VK_SHADER_STAGE_FRAGMENT_BIT"}
"""Vulkan shader stages by name, in the order a binding lists them."""
STAGE_OF_LAUNCH = {"mesh": "mesh", "pixel": "fragment", "amplification": "task"}
"""The Vulkan stage of a node (by launch: compute but for mesh nodes) or of another shader the AMDX
module holds (by stage); "compute" for the others."""


def _access(read: bool, written: bool) -> str | None:
    return "read_write" if read and written else "read" if read else "write" if written else None


def _image_format(variable: ir.Variable, inner: t.Type | None) -> str | None:
    """The storage-image format the SPIR-V back end declares (`spirv.resources.storage_format`)."""
    if not isinstance(inner, t.ResourceType) or not inner.kind.writable or not inner.kind.has_element_type \
            or inner.kind.value.endswith("StructuredBuffer"):
        return None
    from wgc.spirv.resources import storage_format

    return storage_format(inner, variable)


def _resource(results: Analysis, variable: ir.Variable, users: Sequence[str], counter_users: Sequence[str]) -> Resource:
    binding = variable.binding
    written = results.written_register(binding) if binding is not None else None
    kind = variable.block_kind
    inner = t.innermost_element(variable.type)
    element_type = element_component = None
    if variable.storage is ir.Storage.UNIFORM:
        assert kind is not None
        declared = kind if kind in ("cbuffer", "tbuffer") else f"{kind}<{variable.type}>"
        dims: tuple[int, ...] = ()
    else:
        assert isinstance(inner, t.ResourceType)
        kind = inner.kind.value
        declared = str(variable.type)
        dims = _array_dims(variable.type)
        if inner.element is not None:
            element_type = str(inner.element)
            if not kind.endswith("StructuredBuffer"):
                element_component = _component(_element_scalar(inner.element), inner.element_modifier)
    layout = None
    if variable.layout is not None:
        rule = variable.layout_rule.value if variable.layout_rule is not None else "?"
        described = laid_out_type(variable.type)
        stride = runtime_array_stride(variable.layout) if variable.storage is ir.Storage.RESOURCE else None
        layout = BlockLayout(str(described), rule, variable.layout.size, variable.layout.alignment, stride,
                             field_layouts(described, variable.layout))
    counter = None
    if variable.counter_binding is not None:
        counter = Counter(f"counter.var.{variable.name}", variable.counter_binding.set, variable.counter_binding.binding,
                          variable.counter_binding.source, tuple(counter_users))
    descriptor = None if variable.push_constant else results.descriptor_type(variable)
    return Resource(
        name=variable.name, type=declared, kind=kind, register_class=results.register_class(variable) or "?",
        register=Register(*written) if written is not None else None,
        set=binding.set if binding is not None else None,
        binding=binding.binding if binding is not None else None,
        binding_source=binding.source if binding is not None else None,
        descriptor_type=descriptor, array_dims=dims,
        globally_coherent="globallycoherent" in variable.modifiers, push_constant=variable.push_constant,
        shader_record=variable.shader_record,
        element_type=element_type, element_component=element_component, layout=layout, counter=counter,
        used_by=tuple(users), image_format=_image_format(variable, inner))


def describe_resources(results: Analysis, nodes: Sequence[NodeInfo]) -> list[Resource]:
    """Every uniform block, push-constant block and resource of the module, in source order, with
    the nodes among `nodes` that reach it (and its counter)."""
    users: dict[ir.Variable, list[str]] = {}
    counter_users: dict[ir.Variable, list[str]] = {}
    read: set[ir.Variable] = set()
    written: set[ir.Variable] = set()
    stages: dict[ir.Variable, set[str]] = {}
    for node in nodes:
        use = results.resource_use(node.function)
        for variable in use.variables:
            users.setdefault(variable, []).append(str(node.id))
            stages.setdefault(variable, set()).add(STAGE_OF_LAUNCH.get(node.launch, "compute"))
        for variable in use.counters:
            counter_users.setdefault(variable, []).append(str(node.id))
        read |= use.read
        written |= use.written
    found = []
    for v in results.module.globals:
        if v.storage in (ir.Storage.UNIFORM, ir.Storage.RESOURCE):
            resource = _resource(results, v, users.get(v, ()), counter_users.get(v, ()))
            found.append(replace(resource, access=_access(v in read, v in written),
                                 stages=tuple(s for s in VK_SHADER_STAGES if s in stages.get(v, ()))))
    return found


# ---------------------------------------------------------------- specialization constants


@dataclass(frozen=True)
class SpecConstant:
    """A `[[vk::constant_id(N)]]` global: a Vulkan specialization constant."""

    name: str
    spec_id: int
    type: str
    default: bool | int | float

    def to_json(self) -> dict[str, Any]:
        default = self.default
        if isinstance(default, float) and not math.isfinite(default):
            default = repr(default)   # type: ignore[assignment]  # JSON has no infinity or NaN: "inf", "nan"
        return {"name": self.name, "spec_id": self.spec_id, "type": self.type, "default": default}


def spec_constants(globals_: Sequence[ir.Variable]) -> list[SpecConstant]:
    """The module's specialization constants, in source order."""
    return [SpecConstant(v.name, v.spec_id, str(v.type), v.spec_default)  # type: ignore[arg-type]
            for v in globals_ if v.storage is ir.Storage.SPEC_CONSTANT]


@dataclass(frozen=True)
class AttributeSpecConstant:
    """A work-graph attribute argument that is a specialization constant (`ir.AttributeArg.spec`): its
    default is the value every check and view uses; the AMDX module gives the constant's <id>."""

    attribute: str
    """As written (`NumThreads`), with `parameter` the node parameter it is on (None: the function)."""
    parameter: str | None
    argument: int
    name: str
    spec_id: int
    default: int

    def to_json(self) -> dict[str, Any]:
        return {"attribute": self.attribute, "parameter": self.parameter, "argument": self.argument,
                "constant": self.name, "spec_id": self.spec_id, "default": self.default}


def attribute_spec_constants(results: Analysis, node: NodeInfo) -> list[AttributeSpecConstant]:
    """The node's attribute arguments that are specialization constants (`sema.nodes.spec_constant_arguments`)."""
    return [AttributeSpecConstant(attribute.name, parameter, i, arg.spec.name,  # type: ignore[union-attr]
                                  arg.spec.spec_id, arg.value)  # type: ignore[union-attr, arg-type]
            for parameter, attribute, i, arg in results.spec_constant_arguments(node)]


# ---------------------------------------------------------------- nodes


class _RecordFacts:
    """The facts of an input's or output's record (`record`; None: no record), read by the views."""

    record: RecordLayout | None

    @property
    def record_size(self) -> int:
        return self.record.size if self.record is not None else 0

    @property
    def record_alignment(self) -> int:
        return self.record.alignment if self.record is not None else 0

    @property
    def track_rw_input_sharing(self) -> bool:
        return self.record.track_rw_input_sharing if self.record is not None else False

    @property
    def dispatch_grid_field(self) -> DispatchGrid | None:
        return self.record.dispatch_grid if self.record is not None else None


@dataclass(frozen=True)
class InputReflection(_RecordFacts):
    """A node's input: the same record in the reflection and the inspect model (`schema.InputModel`)."""

    kind: str
    record: RecordLayout | None = None
    """The record's layout; None: no record (EmptyNodeInput)."""
    max_records: int | None = None
    """Coalescing: records per group (`[MaxRecords]`, 1 when not written); None for the other launches."""
    globally_coherent: bool = False
    max_records_written: bool = False
    """The input has `[MaxRecords]` (or is the EmptyNodeInput, 1 record, wgc implies for a coalescing
    node without input: DXIL writes MaxRecords for both)."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "max_records": self.max_records, "max_records_written": self.max_records_written,
                "globally_coherent": self.globally_coherent,
                "record": self.record.to_json() if self.record else None}


@dataclass(frozen=True)
class OutputReflection(_RecordFacts):
    """A node output: the same record in the reflection and the inspect model (`schema.OutputModel`)."""

    name: str
    """The output parameter's name."""
    index: int
    """Its position among the node's outputs (declaration order)."""
    kind: str
    target: NodeId
    record: RecordLayout | None = None
    """None for an empty output."""
    max_records: int | None = None
    """`[MaxRecords]` (wgc's 1 when neither it nor `[MaxRecordsSharedWith]` is written); None when the
    budget is shared (`max_records_shared_with`)."""
    max_records_written: bool = True
    """False: the output has neither [MaxRecords] nor [MaxRecordsSharedWith]."""
    max_records_shared_with: str | None = None
    """`[MaxRecordsSharedWith(name)]`: the output whose budget this one shares, by name..."""
    max_records_shared_with_index: int | None = None
    """...and by index (None only in the model of a program with errors)."""
    max_records_per_node: int | None = None
    max_records_per_node_written: bool = True
    array_size: int | None = None
    """Output arrays: `[NodeArraySize]` (4294967295 for `[UnboundedSparseNodes]`); None for single outputs."""
    allow_sparse_nodes: bool = False
    """`[AllowSparseNodes]` or `[UnboundedSparseNodes]` (SPIR-V PayloadNodeSparseArrayAMDX)."""
    unbounded_sparse_nodes: bool = False
    stage_span: OutputSpan | None = None
    """An output into a loop's stages (`sema.stages`): PayloadNodeBaseIndexAMDX, PayloadNodeArraySizeAMDX
    (None when unbounded) and PayloadNodeSparseArrayAMDX, the stage indices it reaches; None when its
    target is in no loop."""

    @property
    def empty(self) -> bool:
        return self.kind.startswith("Empty")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "index": self.index, "kind": self.kind, "target": _node_id(self.target),
                "array_size": self.array_size, "allow_sparse_nodes": self.allow_sparse_nodes,
                "unbounded_sparse_nodes": self.unbounded_sparse_nodes, "max_records": self.max_records,
                "max_records_written": self.max_records_written,
                "max_records_shared_with": self.max_records_shared_with,
                "max_records_shared_with_index": self.max_records_shared_with_index,
                "max_records_per_node": self.max_records_per_node,
                "max_records_per_node_written": self.max_records_per_node_written, "empty": self.empty,
                "record": self.record.to_json() if self.record else None,
                "stage_span": ({"base_index": self.stage_span.base, "array_size": self.stage_span.size,
                                "sparse": self.stage_span.sparse}
                               if self.stage_span is not None else None)}


@dataclass(frozen=True)
class StageReflection:
    """One (name, index) stage the application creates: its node's entry point at `index`."""

    index: int
    iterations: tuple[int, ...]
    """The iteration of each loop holding the node (`NodeReflection.loops` order, recursion-form loop left out)."""
    terminator: bool
    """Iteration N of the loop entry: consumes and discards what the last iteration fed back."""

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "iterations": list(self.iterations), "terminator": self.terminator}


@dataclass(frozen=True)
class NodeReflection:
    function: str
    entry_point: str
    """The OpEntryPoint name (`VkPipelineShaderStageNodeCreateInfoAMDX::pName`)."""
    module: str | None
    """With `--split-nodes`: the module file holding this node (`<function>.spv`); else None."""
    id: NodeId
    launch: str
    program_entry: bool
    num_threads: tuple[int, int, int]
    dispatch_grid: tuple[int, int, int] | None
    max_dispatch_grid: tuple[int, int, int] | None
    max_recursion_depth: int | None
    share_input_of: NodeId | None
    local_root_arguments_table_index: int | None
    loop_entry: tuple[int, int] | None
    """Work Graph Loops: (max iterations, max records per iteration) of a loop entry."""
    loops: tuple[NodeId, ...]
    """The entries of the loops holding this node, outermost first (`sema.graph`'s loops)."""
    input: InputReflection | None
    outputs: tuple[OutputReflection, ...]
    resources: tuple[str, ...]
    """Names of the resources and blocks its code reaches (counters as `counter.var.<name>`)."""
    stages: tuple[StageReflection, ...] = ()
    """Every (name, index) stage to create with this entry point: one outside loops, one per iteration
    (and the terminators) inside them (`sema.stages`)."""
    stage_stride: int = 1
    """Stages per NodeID index: stage index = NodeID index x stage_stride + the iterations' part."""
    max_node_recursion: int | None = None
    """MaxNodeRecursionAMDX: `max_recursion_depth`, or the iterations of a loop entry that targets itself."""
    attribute_spec_constants: tuple[AttributeSpecConstant, ...] = ()
    """Attribute arguments that are specialization constants (the values above are their defaults)."""
    wave_size: tuple[int, int, int] | None = None
    """[WaveSize(min, max, preferred)] of the node's function, 0 for an argument not written; None without it."""
    mesh: Mesh | None = None
    """Mesh nodes: OutputTopology, the vertex and primitive limits, [NodeMaxInputRecordsPerGraphEntryRecord]."""
    local_root_signature: LocalRootLayout | None = None
    """The local root signature associated with the node's export (`sema.local_root`): where each root
    parameter's argument lies in the node's local-root-argument table entry; None where the node's code
    reads nothing through it."""

    def to_json(self) -> dict[str, Any]:
        data = {
            "function": self.function, "entry_point": self.entry_point, "module": self.module,
            "id": _node_id(self.id), "launch": self.launch, "program_entry": self.program_entry,
            "num_threads": list(self.num_threads),
            "dispatch_grid": list(self.dispatch_grid) if self.dispatch_grid else None,
            "max_dispatch_grid": list(self.max_dispatch_grid) if self.max_dispatch_grid else None,
            "max_recursion_depth": self.max_recursion_depth,
            "share_input_of": _node_id(self.share_input_of) if self.share_input_of else None,
            "local_root_arguments_table_index": self.local_root_arguments_table_index,
            "local_root_signature": _local_root_json(self.local_root_signature),
            "loop_entry": ({"max_iterations": self.loop_entry[0], "max_records_per_iteration": self.loop_entry[1]}
                           if self.loop_entry else None),
            "loops": [_node_id(entry) for entry in self.loops],
            "input": self.input.to_json() if self.input else None,
            "outputs": [o.to_json() for o in self.outputs],
            "resources": list(self.resources),
            "stages": [stage.to_json() for stage in self.stages],
            "stage_stride": self.stage_stride,
            "max_node_recursion": self.max_node_recursion,
            "attribute_spec_constants": [c.to_json() for c in self.attribute_spec_constants],
            "wave_size": list(self.wave_size) if self.wave_size is not None else None,
            "mesh": self.mesh.to_json() if self.mesh is not None else None,
        }
        return data


def wave_size(function: ir.Function) -> tuple[int, int, int] | None:
    """[WaveSize(min[, max[, preferred]])] as (min, max, preferred), 0 for an argument not written
    (as DXC's DxilWaveSize); None without the attribute or with an argument that is not a number."""
    attribute = ir.find_attribute(function.attributes, "wavesize")
    if attribute is None or not 1 <= len(attribute.args) <= 3:
        return None
    sizes: list[int] = []
    for arg in attribute.args:
        if isinstance(arg.value, bool) or not isinstance(arg.value, (int, float)):
            return None
        sizes.append(int(arg.value))
    sizes += [0] * (3 - len(sizes))
    return sizes[0], sizes[1], sizes[2]


def input_reflection(node: NodeInfo, node_input: NodeInput) -> InputReflection:
    """A node's input, as both documents give it."""
    max_records = (node_input.max_records or 1) if node.launch == "coalescing" else None
    return InputReflection(node_input.kind.value,
                           record_layout(node_input.record, node_input.layout, node_input.dispatch_grid_field,
                                         node_input.track_rw_input_sharing),
                           max_records, node_input.globally_coherent,
                           max_records_written=node_input.max_records is not None)


def output_reflection(output: NodeOutput, graph: GraphInfo, plan: StagePlan) -> OutputReflection:
    """A node output, as both documents give it."""
    return OutputReflection(
        name=output.parameter.name, index=output.index, kind=output.kind.value, target=output.target,
        record=record_layout(output.record, output.layout, output.dispatch_grid_field, output.track_rw_input_sharing),
        max_records=output.max_records,
        max_records_written=any(a.key in ("maxrecords", "maxrecordssharedwith") for a in output.parameter.attributes),
        max_records_shared_with=output.shared_with, max_records_shared_with_index=output.shared_with_index,
        max_records_per_node=output.max_records_per_node,
        max_records_per_node_written=output.max_records_per_node_written, array_size=output.array_size,
        allow_sparse_nodes=output.allow_sparse_nodes, unbounded_sparse_nodes=output.unbounded_sparse_nodes,
        stage_span=plan.output_span(output, graph))


def _local_root_json(layout: LocalRootLayout | None) -> dict[str, Any] | None:
    if layout is None:
        return None
    return {"name": layout.name, "size": layout.size, "parameters": [
        {"kind": p.kind, "register": f"{p.register_class}{p.register}" if p.register_class else None,
         "space": p.space, "offset": p.offset, "size": p.size} for p in layout.parameters]}


def _node(results: Analysis, node: NodeInfo, graph: GraphInfo, plan: StagePlan, entry_point: str,
          module: str | None, entries: set[str]) -> NodeReflection:
    use = results.resource_use(node.function)
    stages = plan.stages_of(node)
    return NodeReflection(
        stages=tuple(StageReflection(s.index, s.iterations, s.terminator) for s in stages.stages()),
        stage_stride=stages.stride, max_node_recursion=stages.max_recursion,
        function=node.function.name, entry_point=entry_point, module=module, id=node.id, launch=node.launch,
        program_entry=node.key in entries,
        num_threads=(1, 1, 1) if node.launch == "thread" else node.num_threads,
        dispatch_grid=node.dispatch_grid, max_dispatch_grid=node.max_dispatch_grid,
        max_recursion_depth=node.max_recursion_depth, share_input_of=node.share_input_of,
        local_root_arguments_table_index=node.local_root_arguments_table_index,
        loop_entry=((node.max_loop_iterations, node.max_records_per_loop_iteration)  # type: ignore[arg-type]
                    if node.is_loop_entry else None),
        loops=tuple(loop.entry.id for loop in results.loop_chain(node)),
        input=input_reflection(node, node.input) if node.input is not None else None,
        outputs=tuple(output_reflection(o, graph, plan) for o in node.outputs),
        attribute_spec_constants=tuple(attribute_spec_constants(results, node)), wave_size=wave_size(node.function),
        mesh=mesh_node(node), local_root_signature=node.local_root if node.local_root_bindings else None,
        resources=tuple([v.name for v in use.variables] + [f"counter.var.{v.name}" for v in use.counters]))


# ---------------------------------------------------------------- the other shaders


@dataclass(frozen=True)
class PerEntry:
    """[NodeMaxInputRecordsPerGraphEntryRecord]."""

    count: int
    shared_across_node_array: bool

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "shared_across_node_array": self.shared_across_node_array}


@dataclass(frozen=True)
class Mesh:
    """A mesh node's or mesh shader's mesh-shader properties (`per_entry`: mesh nodes only)."""

    output_topology: str | None
    max_vertices: int
    max_primitives: int
    max_input_records_per_graph_entry_record: PerEntry | None = None

    def to_json(self, node: bool = True) -> dict[str, Any]:
        found: dict[str, Any] = {"output_topology": self.output_topology, "max_vertices": self.max_vertices,
                                 "max_primitives": self.max_primitives}
        if node:
            per_entry = self.max_input_records_per_graph_entry_record
            found["max_input_records_per_graph_entry_record"] = per_entry.to_json() if per_entry else None
        return found


@dataclass(frozen=True)
class Interface:
    """A stage input or output of a compute, pixel, mesh or amplification shader."""

    direction: str
    parameter: str
    field: str | None
    type: str
    semantic: str | None
    builtin: str | None
    location: int | None
    per_primitive: bool

    def to_json(self) -> dict[str, Any]:
        return {"direction": self.direction, "parameter": self.parameter, "field": self.field, "type": self.type,
                "semantic": self.semantic, "builtin": self.builtin, "location": self.location,
                "per_primitive": self.per_primitive}


@dataclass(frozen=True)
class EntryPointReflection:
    """A compute, pixel, mesh or amplification shader of the library (not part of the graph): the same
    record in the reflection and the inspect model (`schema.EntryPointModel`)."""

    function: str
    key: str
    signature: str
    entry_point: str
    stage: str
    num_threads: tuple[int, ...] | None = None
    wave_size: tuple[int, int, int] | None = None
    mesh: Mesh | None = None
    payload_bytes: int | None = None
    interface: tuple[Interface, ...] = ()
    resources: tuple[str, ...] = ()
    module: str | None = None
    """With `--split-nodes`: the module file holding it (the reflection's); else None."""

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function, "key": self.key, "signature": self.signature, "entry_point": self.entry_point,
            "stage": self.stage, "num_threads": list(self.num_threads) if self.num_threads is not None else None, "wave_size": list(self.wave_size) if self.wave_size is not None else None,
            "mesh": self.mesh.to_json(node=False) if self.mesh else None, "payload_bytes": self.payload_bytes,
            "interface": [v.to_json() for v in self.interface], "resources": list(self.resources),
            "module": self.module,
        }


def mesh_node(node: NodeInfo) -> Mesh | None:
    """A mesh node's mesh-shader properties (None for the other launch modes)."""
    mesh = node.mesh
    if mesh is None:
        return None
    per_entry = node.max_input_records_per_graph_entry_record
    return Mesh(mesh.topology, mesh.max_vertices, mesh.max_primitives,
                PerEntry(per_entry[0], per_entry[1]) if per_entry else None)


def entry_point_reflection(results: Analysis, entry: NodeInfo, entry_point: str,
                           module: str | None = None) -> EntryPointReflection:
    """A compute, pixel, mesh or amplification shader of the library (not part of the graph)."""
    use = results.resource_use(entry.function)
    mesh = entry.mesh
    return EntryPointReflection(
        function=entry.function.name,
        key=entry.key,
        signature=entry.function.signature,
        entry_point=entry_point,
        stage=entry.stage,
        num_threads=tuple(entry.num_threads) if entry.stage != "pixel" else None,
        wave_size=wave_size(entry.function), module=module,
        mesh=Mesh(mesh.topology, mesh.max_vertices, mesh.max_primitives) if mesh is not None else None,
        payload_bytes=_payload_bytes(results, entry),
        interface=tuple(Interface(v.direction, v.parameter, v.field, str(v.type), v.semantic, v.builtin,
                                       v.location, v.per_primitive) for v in results.stage_interface(entry)),
        resources=tuple([v.name for v in use.variables] + [f"counter.var.{v.name}" for v in use.counters]),
    )


def _payload_bytes(results: Analysis, entry: NodeInfo) -> int | None:
    """A mesh shader's `in payload` or an amplification shader's DispatchMesh payload, in bytes
    (scalar layout, as the groupshared sizes); None for the other stages or without one."""
    payload: ir.Variable | None = None
    if entry.mesh is not None:
        payload = entry.mesh.payload
    elif entry.stage == "amplification":
        calls = results.dispatch_mesh_calls(entry.function)
        payload = results.task_payload(calls[0]) if calls else None
    return layout_of(payload.type, LayoutRule.SCALAR).size if payload is not None else None


# ---------------------------------------------------------------- the document


@dataclass(frozen=True)
class PushConstantRange:
    """A `VkPushConstantRange` for the compute stage, with the block's layout."""

    name: str
    offset: int
    size: int
    layout: BlockLayout | None
    used_by: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "stages": ["compute"], "offset": self.offset, "size": self.size,
                "layout": self.layout.to_json() if self.layout else None, "used_by": list(self.used_by)}


@dataclass(frozen=True)
class Reflection:
    wgc_version: str
    profile: str
    target_env: str
    nodes: tuple[NodeReflection, ...]
    descriptor_bindings: tuple[Resource, ...]
    """Resources and uniform blocks the compiled nodes reach, in source order (a counter only when used)."""
    push_constant_ranges: tuple[PushConstantRange, ...]
    specialization_constants: tuple[SpecConstant, ...]
    entry_points: tuple[EntryPointReflection, ...] = ()
    """The compute, pixel, mesh and amplification shaders the AMDX module holds beside the nodes."""
    loop_lowering: str = "index-space"
    """How the module lowers Work Graph Loops: "index-space" (always for the AMDX target: create every
    node's `stages`) or "native" (the emulated target's default: the runtime keeps the iterations)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION, "wgc_version": self.wgc_version, "profile": self.profile,
            "target_env": self.target_env, "emulation_abi_version": ABI_VERSION, "loop_lowering": self.loop_lowering,
            "nodes": [n.to_json() for n in self.nodes],
            "entry_points": [e.to_json() for e in self.entry_points],
            "descriptor_bindings": [r.to_json() for r in self.descriptor_bindings],
            "push_constant_ranges": [p.to_json() for p in self.push_constant_ranges],
            "specialization_constants": [c.to_json() for c in self.specialization_constants],
        }


def build_reflection(results: Analysis, nodes: Sequence[NodeInfo], *,
                     version: str, target_env: str, split_nodes: bool = False,
                     index_space_loops: bool = True) -> Reflection:
    """The reflection of the SPIR-V that `wgc compile` makes of `nodes` (see the module docstring)."""
    graph, globals_ = results.graph, results.module.globals
    assert graph is not None
    entries = {n.key for n in graph.entry_nodes}
    plan = results.stage_plan()
    described: list[NodeReflection] = []
    others: list[EntryPointReflection] = []
    stage_entries = {e.key for e in results.stage_entries}
    for key, group in results.module_groups(nodes, split_nodes):
        names = results.entry_point_names(group)
        module = f"{key}.spv" if split_nodes else None
        described.extend(_node(results, n, graph, plan, names[n.key], module, entries)
                         for n in group if n.key not in stage_entries)
        others.extend(entry_point_reflection(results, n, names[n.key], module) for n in group if n.key in stage_entries)
    resources = [r for r in describe_resources(results, nodes) if r.used_by]
    bindings = tuple(replace(r, counter=r.counter if r.counter and r.counter.used_by else None)
                     for r in resources if not r.push_constant)
    ranges = tuple(PushConstantRange(r.name, 0, r.layout.size if r.layout else 0, r.layout, r.used_by)
                   for r in resources if r.push_constant)
    return Reflection(wgc_version=version, profile=graph.profile, target_env=target_env, nodes=tuple(described),
                      entry_points=tuple(others),
                      descriptor_bindings=bindings, push_constant_ranges=ranges,
                      specialization_constants=tuple(spec_constants(globals_)),
                      loop_lowering="index-space" if index_space_loops else "native")
