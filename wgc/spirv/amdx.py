"""The AMDX target's node operations: SPV_AMDX_shader_enqueue revision 2 (SPIR-V back end).

Input: calls through `node_ops.NodeOperations` (module docstring there).
Output: node declarations, AMDX instructions and execution modes.

Invariants and decisions:
- One GLCompute entry point per node (MeshEXT for a mesh node, with its mesh outputs and modes
  from `stageio.py`) with execution modes from the node's attributes:
  LocalSize (1,1,1 for thread launch), CoalescingAMDX (coalescing and thread launch),
  IsApiEntryAMDX (true for the graph's entry nodes), ShaderIndexAMDX (always),
  MaxNodeRecursionAMDX, StaticNumWorkgroupsAMDX or MaxNumWorkgroupsAMDX, SharesInputWithAMDX.
- Every <id> operand that an attribute argument sets is that argument's specialization constant
  when it is one (`ir.AttributeArg.spec`, `ModuleLowering.attribute_operand`; LocalSizeId replaces
  LocalSize, `ModuleLowering.local_size`), so the application can specialise it; else a constant.
- The input is one NodePayloadAMDX variable of an OpTypeNodePayloadArrayAMDX of the record,
  laid out with scalar rules (NodeMaxPayloadsAMDX, TrackFinishWritingAMDX on the struct,
  PayloadDispatchIndirectAMDX on the SV_DispatchGrid member, nested structs included); it is listed
  in the entry point's interface even when the body does not read it.
- Each output is its own OpTypeNodePayloadArrayAMDX, decorated (after its node-name string and
  count constants are defined, as spirv-val requires) with PayloadNodeNameAMDX,
  NodeMaxPayloadsAMDX (the budget owner's MaxRecords for a shared budget),
  NodeSharesPayloadLimitsWithAMDX, PayloadNodeBaseIndexAMDX, PayloadNodeArraySizeAMDX (the
  NodeArraySize of an array, 1 for a single output; the spec requires it on every non-sparse
  output, and it bounds the allocation's Node Index, the base index not included, as spirv's
  OpIsNodePayloadValidAMDX text and dxc have it; none when unbounded) and
  PayloadNodeSparseArrayAMDX. The record struct of an output is TrackFinishWritingAMDX when its
  type is [NodeTrackRWInputSharing], whether or not its consumer is in the module.
  [MaxRecordsPerNode] has no AMDX decoration: it is in the metadata.
- Memory model, decided from the module's own reachable code only: GLSL450, unless a Barrier
  orders node-record memory (OutputMemory semantics need the Vulkan memory model).
- A `globallycoherent` RWDispatchNodeInputRecord is a Coherent NodePayloadAMDX variable under
  GLSL450 (under the Vulkan model spirv-val allows no coherence on NodePayloadAMDX: WG0605).
- Output records are the pointer OpAllocateNodePayloadsAMDX returned; OutputComplete and
  *IncrementOutputCount are OpEnqueueNodePayloadsAMDX; IsValid passes a Function variable of the
  output's payload-array type (spirv-val rejects the type id the spec names; dxc passes such a
  variable, spirv-amdx.md §1.4); GetCurrentLoopIterationIndex() is 0 outside loops.
- Work Graph Loops are unrolled in index space (`sema.stages`, lowered by `loop_stages.py`): a
  loop member's ShaderIndexAMDX is its first stage (the application creates one pipeline stage
  per index), the iteration is read from the ShaderIndexAMDX built-in, an output into a loop
  targets its stage (PayloadNodeBaseIndexAMDX and PayloadNodeArraySizeAMDX span the target's
  stages, PayloadNodeSparseArrayAMDX where the span has indices that are no stage), and a
  self-feeding loop entry has MaxNodeRecursionAMDX = its iterations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.irtools.layout import TypeLayout
from wgc.sema.nodes import NodeInfo, NodeOutput

from . import loop_stages
from .node_ops import NodeOperations
from .places import InputHandle, OutputHandle, Place, RecordsHandle
from .stageio import mesh_execution_modes, setup_mesh

if TYPE_CHECKING:
    from .lower import FunctionLowering, ModuleLowering

BUILTINS = {
    "sv_dispatchthreadid": ("GlobalInvocationId", 3),
    "sv_groupid": ("WorkgroupId", 3),
    "sv_groupthreadid": ("LocalInvocationId", 3),
    "sv_groupindex": ("LocalInvocationIndex", 1),
}


class _FunctionState:
    """Payload-array type -> the Function variable standing for that output in IsValid."""

    def __init__(self) -> None:
        self.output_objects: dict[int, int] = {}


class AmdxNodes(NodeOperations):
    name = "amdx"
    record_memory = "OutputMemory"

    # ------------------------------------------------------------ module and entry points

    def setup_module(self, ml: ModuleLowering, nodes: list[NodeInfo]) -> None:
        ml.b.capability("Shader")
        if any(node.stage == "node" for node in nodes):    # a module of other stages only needs no AMDX
            ml.b.capability("ShaderEnqueueAMDX")
            ml.b.extension("SPV_AMDX_shader_enqueue")
        if any(node.mesh is not None for node in nodes):
            setup_mesh(ml)
        if ml.results.needs_vulkan_memory_model(nodes):
            ml.vulkan_memory_model = True
            ml.b.capability("VulkanMemoryModel")
            ml.b.memory_model("Logical", "Vulkan")

    def declare_node(self, ml: ModuleLowering, node: NodeInfo
                     ) -> tuple[InputHandle | None, dict[ir.Variable, OutputHandle]]:
        input_handle = _declare_node_input(ml, node) if node.input is not None and not node.input.implied \
            else None
        declared: dict[str, int] = {}
        # an output sharing the budget of a later one (WG0470) is declared after it: OpDecorateId's
        # operand must be defined before its target
        order = sorted(node.outputs, key=lambda o: o.shared_with is not None
                       and (o.shared_with_index or 0) > o.index)
        outputs = {o.parameter: _declare_node_output(ml, node, o, declared) for o in order}
        return input_handle, outputs

    def function_state(self) -> object:
        return _FunctionState()

    def begin_entry(self, fl: FunctionLowering, node: NodeInfo, input_handle: InputHandle | None) -> None:
        if input_handle is not None:
            fl.use_global(input_handle.variable)   # listed even when the body never reads it

    def declare_entry_point(self, ml: ModuleLowering, fn: int, node: NodeInfo, is_entry: bool, name: str) -> None:
        b = ml.b
        b.entry_point("MeshEXT" if node.mesh is not None else "GLCompute", fn, name, ml.reached_globals(fn))
        attributes = node.function.attributes
        if node.launch == "thread":
            b.execution_mode(fn, "LocalSize", 1, 1, 1)
        else:
            ml.local_size(fn, attributes, node.num_threads)
        if node.mesh is not None:
            mesh_execution_modes(ml, fn, node)
        if node.launch in ("coalescing", "thread"):
            b.execution_mode(fn, "CoalescingAMDX")
        b.execution_mode(fn, "IsApiEntryAMDX", b.constant_bool(is_entry))
        stages = ml.stages.of.get(node.key) if ml.stages is not None else None
        b.execution_mode(fn, "ShaderIndexAMDX", ml.attribute_operand(attributes, "nodeid", 1, node.id.index,
                                                                     stages.stride if stages is not None else 1))
        if stages is not None:
            if stages.max_recursion is not None:
                b.execution_mode(fn, "MaxNodeRecursionAMDX", ml.uint(stages.max_recursion))
        elif node.max_recursion_depth is not None:
            b.execution_mode(fn, "MaxNodeRecursionAMDX", ml.attribute_operand(
                attributes, "nodemaxrecursiondepth", 0, node.max_recursion_depth))
        if node.dispatch_grid is not None:
            b.execution_mode(fn, "StaticNumWorkgroupsAMDX", *(ml.attribute_operand(attributes, "nodedispatchgrid", i, v)
                                                              for i, v in enumerate(node.dispatch_grid)))
        elif node.max_dispatch_grid is not None:
            b.execution_mode(fn, "MaxNumWorkgroupsAMDX", *(ml.attribute_operand(attributes, "nodemaxdispatchgrid", i, v)
                                                           for i, v in enumerate(node.max_dispatch_grid)))
        if node.share_input_of is not None:
            b.execution_mode(fn, "SharesInputWithAMDX", b.constant_string_amdx(node.share_input_of.name),
                             ml.attribute_operand(attributes, "nodeshareinputof", 1, node.share_input_of.index))

    def system_value(self, fl: FunctionLowering, semantic: str) -> tuple[int, int]:
        if semantic not in BUILTINS:
            raise AssertionError(f"semantic '{semantic}' has no SPIR-V built-in in a node shader")
        name, count = BUILTINS[semantic]
        builtin_type = t.UINT if count == 1 else t.vector(t.UINT, count)
        var = fl.ml.builtin(name, builtin_type)
        fl.use_global(var)
        return fl.b.emit("OpLoad", fl.types.id(builtin_type), var), count

    # ------------------------------------------------------------ records

    def record_place(self, fl: FunctionLowering, handle: InputHandle | RecordsHandle, index: int,
                     type_: object) -> Place:
        assert isinstance(type_, t.Type)
        if isinstance(handle, InputHandle):
            fl.use_global(handle.variable)
            return Place(handle.variable, type_, "NodePayloadAMDX", handle.layout, (index,))
        return Place(handle.pointer, type_, "NodePayloadAMDX", handle.layout, (index,))

    def input_count(self, fl: FunctionLowering, handle: InputHandle) -> int:
        fl.use_global(handle.variable)
        return fl.b.emit("OpNodePayloadArrayLengthAMDX", fl.b.type_int(32, False), handle.variable)

    def _allocate(self, fl: FunctionLowering, handle: OutputHandle, count: int, scope: str) -> int:
        pointer_type = fl.b.type_pointer("NodePayloadAMDX", handle.array_type)
        return fl.b.emit("OpAllocateNodePayloadsAMDX", pointer_type, fl.ml.scope(scope), count,
                         _node_index(fl, handle))

    def allocate(self, fl: FunctionLowering, handle: OutputHandle, count: int, scope: str) -> RecordsHandle:
        output = handle.output
        return RecordsHandle(self._allocate(fl, handle, count, scope), output.record, output.layout)

    def increment_output_count(self, fl: FunctionLowering, handle: OutputHandle, count: int, scope: str) -> None:
        fl.b.emit("OpEnqueueNodePayloadsAMDX", self._allocate(fl, handle, count, scope))

    def output_complete(self, fl: FunctionLowering, records: RecordsHandle) -> None:
        fl.b.emit("OpEnqueueNodePayloadsAMDX", records.pointer)

    def is_valid(self, fl: FunctionLowering, handle: OutputHandle) -> int:
        valid = fl.b.emit("OpIsNodePayloadValidAMDX", fl.b.type_bool(),
                          self._output_object(fl, handle), _node_index(fl, handle))
        return loop_stages.output_valid(fl, handle, valid)

    def _output_object(self, fl: FunctionLowering, handle: OutputHandle) -> int:
        """An id standing for the output in OpIsNodePayloadValidAMDX (module docstring)."""
        state = fl.node_state
        assert isinstance(state, _FunctionState)
        found = state.output_objects.get(handle.array_type)
        if found is None:
            found = fl.b.local_variable(fl.b.type_pointer("Function", handle.array_type))
            state.output_objects[handle.array_type] = found
        return found

    def finished_cross_group_sharing(self, fl: FunctionLowering, handle: InputHandle) -> int:
        fl.use_global(handle.variable)
        return fl.b.emit("OpFinishWritingNodePayloadAMDX", fl.b.type_bool(), handle.variable)

    def remaining_recursion_levels(self, fl: FunctionLowering) -> int:
        var = fl.ml.builtin("RemainingRecursionLevelsAMDX", t.UINT)
        fl.use_global(var)
        return fl.b.emit("OpLoad", fl.types.id(t.UINT), var)

    def loop_iteration_index(self, fl: FunctionLowering) -> int:
        """0: the index outside loops (inside them, `loop_stages.iteration` reads the shader index)."""
        return fl.uint(0)

    def shader_index(self, fl: FunctionLowering) -> int:
        var = fl.ml.builtin("ShaderIndexAMDX", t.UINT)
        fl.use_global(var)
        return fl.b.emit("OpLoad", fl.types.id(t.UINT), var)


def _node_index(fl: FunctionLowering, handle: OutputHandle) -> int:
    """The Node Index operand: the written index, or the stage a loop's unrolling targets."""
    staged = loop_stages.output_index(fl, handle)
    if staged is not None:
        return staged
    return handle.node_index or fl.uint(0)


# ---------------------------------------------------------------- declarations


def _declare_node_input(ml: ModuleLowering, node: NodeInfo) -> InputHandle:
    info = node.input
    assert info is not None
    struct = _record_struct(ml, info.record, info.layout)
    if info.track_rw_input_sharing:
        ml.b.decorate(struct, "TrackFinishWritingAMDX")
    if info.record is not None and info.layout is not None:
        _decorate_dispatch_grid(ml, info.record, info.layout)
    max_payloads = ml.attribute_operand(info.parameter.attributes, "maxrecords", 0, info.max_records or 1)
    array = ml.b.type_node_payload_array(struct)
    ml.b.decorate(array, "NodeMaxPayloadsAMDX", max_payloads)
    var = ml.b.variable(ml.b.type_pointer("NodePayloadAMDX", array), "NodePayloadAMDX")
    ml.b.name(var, info.parameter.name)
    if info.globally_coherent and not ml.vulkan_memory_model:
        ml.b.decorate(var, "Coherent")
    return InputHandle(var, info.record, info.layout)


def _record_struct(ml: ModuleLowering, record: t.Type | None, layout: TypeLayout | None) -> int:
    if record is None or layout is None:
        return ml.b.type_struct([])
    if isinstance(record, t.StructType):
        return ml.types.id(record, layout)
    return ml.types.block(record, layout, str(record))


def _decorate_dispatch_grid(ml: ModuleLowering, record: t.Type, layout: TypeLayout) -> None:
    """PayloadDispatchIndirectAMDX on the SV_DispatchGrid member (of the innermost struct)."""
    if not isinstance(record, t.StructType):
        return
    for i, (f, member) in enumerate(zip(record.all_fields(), layout.members)):
        if f.semantic is not None and f.semantic.lower() == "sv_dispatchgrid":
            ml.b.member_decorate(ml.types.id(record, layout), i, "PayloadDispatchIndirectAMDX")
        elif isinstance(f.type, t.StructType):
            _decorate_dispatch_grid(ml, f.type, member.layout)


def _declare_node_output(ml: ModuleLowering, node: NodeInfo, output: NodeOutput,
                         declared: dict[str, int]) -> OutputHandle:
    struct = _record_struct(ml, output.record, output.layout)
    if output.track_rw_input_sharing:          # from the record type itself, consumer or not
        ml.b.decorate(struct, "TrackFinishWritingAMDX")
    name = ml.b.constant_string_amdx(output.target.name)
    owner = None
    if output.shared_with is not None:
        owner_output = next((o for o in node.outputs if o.parameter.name == output.shared_with), None)
        owner = declared.get(output.shared_with)
        max_records = owner_output.max_records if owner_output and owner_output.max_records else 1
        records_from = owner_output.parameter.attributes if owner_output is not None else ()
    else:
        max_records = output.max_records if output.max_records is not None else 1
        records_from = output.parameter.attributes
    max_payloads = ml.attribute_operand(records_from, "maxrecords", 0, max_records)
    # the spec requires PayloadNodeArraySizeAMDX on every non-sparse output: a single output is an
    # array of one node; an unbounded array ([UnboundedSparseNodes], always sparse) has none; an
    # output into a loop spans its target's stages
    size = 1 if output.array_size is None else output.array_size
    first, count = output.target.index, size if 0 < size < 0xFFFFFFFF else None
    staged = loop_stages.output_span(ml, output)
    if staged is not None:
        first, count = staged.base, staged.size
    attributes = output.parameter.attributes
    stride = 1 if staged is None else ml.stages.output_target(output, ml.graph).stride  # type: ignore[union-attr]
    node_id = ir.find_attribute(attributes, "nodeid")
    spec_index = node_id is not None and len(node_id.args) > 1 and node_id.args[1].spec is not None
    base_index = ml.attribute_operand(attributes, "nodeid", 1, output.target.index, stride) \
        if first or spec_index else None
    array_size = ml.attribute_operand(attributes, "nodearraysize", 0, count // stride, stride) \
        if count is not None else None
    array = ml.b.type_node_payload_array(struct)
    ml.b.name(array, f"{node.key}.{output.parameter.name}")
    ml.b.decorate(array, "PayloadNodeNameAMDX", name)
    ml.b.decorate(array, "NodeMaxPayloadsAMDX", max_payloads)
    if owner is not None:
        ml.b.decorate(array, "NodeSharesPayloadLimitsWithAMDX", owner)
    if base_index is not None:
        ml.b.decorate(array, "PayloadNodeBaseIndexAMDX", base_index)
    if array_size is not None:
        ml.b.decorate(array, "PayloadNodeArraySizeAMDX", array_size)
    if output.allow_sparse_nodes or output.unbounded_sparse_nodes or (staged is not None and staged.sparse):
        ml.b.decorate(array, "PayloadNodeSparseArrayAMDX")
    declared[output.parameter.name] = array
    return OutputHandle(output, array)
