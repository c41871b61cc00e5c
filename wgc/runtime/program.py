"""Runtime: what the scheduler needs to know about a compiled graph, as plain typed data.

Input: sema's node descriptions and graph (`sema.nodes.NodeInfo`, `sema.graph.GraphInfo`) and
the module's resource variables with the bindings sema gave them (`ir.Variable.binding`).
Output: a `Program`: per node its entry point, launch, group shape, grids, input record layout
(with the `SV_DispatchGrid` field), outputs (targets per array index, record budgets) and
recursion depth; per resource its Vulkan descriptor and how to show its contents.

Invariants: nodes in source order, outputs in declaration order (the order of the ABI's
`OutputParameter`s); record strides are the size rounded up to the alignment
(`emulation_abi.OUTPUT_SLOT["stride"]`); nothing here touches Vulkan.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from wgc import ir
from wgc import types as t
from wgc.sema.layout import TypeLayout, round_up


@dataclass(frozen=True)
class RecordLayout:
    """A node record struct as laid out in record memory (scalar layout)."""

    type: t.Type | None
    layout: TypeLayout | None

    @property
    def size(self) -> int:
        return self.layout.size if self.layout is not None else 0

    @property
    def stride(self) -> int:
        if self.layout is None:
            return 0
        return round_up(self.layout.size, max(1, self.layout.alignment))

    @property
    def name(self) -> str:
        return str(self.type) if self.type is not None else "(empty)"


@dataclass(frozen=True)
class GridField:
    """The record's `SV_DispatchGrid` member: byte offset, 1-3 components, 16 or 32 bits."""

    offset: int
    components: int
    bits: int


def record_grid(node: NodePlan, record: bytes) -> tuple[int, int, int]:
    """The SV_DispatchGrid of `record` (bytes of `node`'s input record); missing components are 1."""
    grid = node.grid_field
    assert grid is not None
    code = "H" if grid.bits == 16 else "I"
    values = list(struct.unpack_from(f"<{grid.components}{code}", record, grid.offset))
    return tuple((values + [1, 1])[:3])  # type: ignore[return-value]


def grid_problem(node: NodePlan, grid: tuple[int, int, int]) -> str | None:
    """Why `grid` may not launch `node` (beyond [NodeMaxDispatchGrid]), or None."""
    limit = node.max_dispatch_grid
    if limit is None or all(g <= m for g, m in zip(grid, limit)):
        return None
    return (f"a record asks node '{node.label}' for a grid of {grid[0]}x{grid[1]}x{grid[2]} groups, beyond its "
            f"[NodeMaxDispatchGrid({limit[0]}, {limit[1]}, {limit[2]})]")


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
    loop: tuple[str, int] | None
    """The entry of the innermost loop holding the node (Work Graph Loops), if any."""
    cross_group_sharing: bool = False
    """The input record is [NodeTrackRWInputSharing]: the runtime keeps a group counter per record."""

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
    """"storage" or "uniform"; None for what `wgc run` cannot bind (textures, samplers, typed buffers)."""
    element: str
    """The JSON array type a dump of it uses ("uint32", "float", ...)."""
    writable: bool
    counter_of: str | None = None
    """The hidden counter of an RW/Append/Consume structured buffer: the buffer's name (the counter
    starts at 0 unless the dispatch gives it, as '<name>.counter')."""


@dataclass(frozen=True)
class Program:
    nodes: tuple[NodePlan, ...]
    resources: tuple[ResourcePlan, ...]
    push_constant_bytes: int
    """Size of the user's [[vk::push_constant]] block (0 without one)."""

    def node(self, name: str, index: int = 0) -> NodePlan | None:
        for node in self.nodes:
            if node.name == name and node.index == index:
                return node
        return None


_SCALAR_ARRAY_TYPE = {("uint", 8): "uint8", ("uint", 16): "uint16", ("uint", 32): "uint32", ("uint", 64): "uint64",
                      ("int", 8): "int8", ("int", 16): "int16", ("int", 32): "int32", ("int", 64): "int64",
                      ("float", 16): "float16", ("float", 32): "float", ("float", 64): "float64",
                      ("bool", 32): "uint32"}


def element_array_type(type_: t.Type | None) -> str:
    """The typed-array name for dumping memory holding `type_`: its scalar type when it has only
    one (scalars, vectors, matrices, arrays of them), else "uint32" (structs, raw bytes)."""
    while isinstance(type_, t.ArrayType):
        type_ = type_.element
    if isinstance(type_, (t.VectorType, t.MatrixType)):
        type_ = type_.element
    if isinstance(type_, t.EnumType):
        type_ = type_.underlying
    if isinstance(type_, t.ScalarType):
        return _SCALAR_ARRAY_TYPE.get((type_.kind.value, type_.bits), "uint32")
    return "uint32"


def _resource(variable: ir.Variable) -> ResourcePlan | None:
    binding = variable.binding
    if binding is None:
        return None
    type_ = variable.type
    while isinstance(type_, t.ArrayType):
        type_ = type_.element
    descriptor: str | None = None
    element: t.Type | None = None
    writable = False
    if variable.storage is ir.Storage.UNIFORM:
        descriptor, element = "uniform", None
    elif isinstance(type_, t.ResourceType):
        kind = type_.kind
        writable = kind.writable
        if "StructuredBuffer" in kind.value or kind.value.endswith("ByteAddressBuffer"):
            descriptor, element = "storage", type_.element
        elif kind is t.ResourceKind.CONSTANT_BUFFER:
            descriptor = "uniform"
    register = binding.register
    space = binding.set if binding.source == "register" else 0
    return ResourcePlan(name=variable.name, type=str(variable.type), register=register, space=space,
                        set=binding.set, binding=binding.binding, descriptor=descriptor,
                        element=element_array_type(element), writable=writable)


def build_program(analysis: object, node_names: dict[str, str] | None = None) -> Program:
    """The program of a checked analysis (`sema.analyze.Analysis`); `node_names` maps function
    names to entry point names (default: `sema.modules.entry_point_names`)."""
    from wgc.sema.modules import entry_point_names

    nodes_info = list(analysis.nodes)  # type: ignore[attr-defined]
    names = node_names if node_names is not None else entry_point_names(nodes_info)[0]
    graph = analysis.graph  # type: ignore[attr-defined]
    nodes = tuple(_node(n, names[n.function.name], graph) for n in nodes_info)
    resources: list[ResourcePlan] = []
    push_bytes = 0
    for variable in analysis.module.globals:  # type: ignore[attr-defined]
        if variable.push_constant:
            push_bytes = variable.layout.size if variable.layout is not None else 0
            continue
        if variable.storage in (ir.Storage.RESOURCE, ir.Storage.UNIFORM):
            plan = _resource(variable)
            if plan is not None:
                resources.append(plan)
            if variable.counter_binding is not None:
                counter = variable.counter_binding
                resources.append(ResourcePlan(
                    name=f"{variable.name}.counter", type="counter", register=None, space=0, set=counter.set,
                    binding=counter.binding, descriptor="storage", element="uint32", writable=True,
                    counter_of=variable.name))
    return Program(nodes=nodes, resources=tuple(resources), push_constant_bytes=push_bytes)


def _node(node: object, entry_point: str, graph: object) -> NodePlan:
    from wgc.sema.nodes import NodeInfo

    assert isinstance(node, NodeInfo)
    node_input = node.input
    record = RecordLayout(node_input.record, node_input.layout) if node_input is not None else RecordLayout(None, None)
    grid = node_input.dispatch_grid_field if node_input is not None else None
    budgets = {o.parameter.name: o.max_records for o in node.outputs}
    outputs = []
    for output in node.outputs:
        own = output.max_records
        if own is None and output.shared_with is not None:
            own = budgets.get(output.shared_with)
        max_records = own if own is not None else 1
        per_node = output.max_records_per_node if output.max_records_per_node is not None else max_records
        outputs.append(OutputPlan(
            parameter=output.parameter.name, target=output.target.name, target_index=output.target.index, array=output.kind.is_array,
            array_size=output.array_size if not output.unbounded_sparse_nodes else None,
            empty=output.kind.is_empty, max_records=max_records, max_records_per_node=min(per_node, max_records),
            record=RecordLayout(output.record, output.layout)))
    coalesce = 1
    if node.launch == "coalescing" and node_input is not None and node_input.max_records is not None:
        coalesce = node_input.max_records
    return NodePlan(
        name=node.id.name, index=node.id.index, function=node.function.name, entry_point=entry_point,
        launch=node.launch, num_threads=node.num_threads, dispatch_grid=node.dispatch_grid,
        max_dispatch_grid=node.max_dispatch_grid,
        grid_field=GridField(grid.offset, grid.components, grid.bits) if grid is not None else None,
        record=record, max_records=coalesce, max_recursion_depth=node.max_recursion_depth or 0,
        outputs=tuple(outputs),
        share_input_of=(node.share_input_of.name, node.share_input_of.index) if node.share_input_of else None,
        local_root_arguments_table_index=node.local_root_arguments_table_index,
        max_loop_iterations=node.max_loop_iterations,
        loop=_loop_entry(graph, node),
        cross_group_sharing=node_input is not None and node_input.track_rw_input_sharing)


def _loop_entry(graph: object, node: object) -> tuple[str, int] | None:
    loop = getattr(graph, "loop_of", {}).get(node.id)  # type: ignore[attr-defined]
    return (loop.entry.id.name, loop.entry.id.index) if loop is not None else None
