"""Module assembly for SPV_AMDX_shader_enqueue: node declarations and entry points (SPIR-V back end).

Input: the checked `ir.Module`, the `NodeInfo`s of the nodes to put in this module, the
`GraphInfo` (entries) and `LowerOptions`.
Output: `lower_module` -> the module's words (not yet validated: `emit.py` does that).

Invariants:
- One GLCompute entry point per node, named after its NodeID name (`sema.modules.entry_point_names`; its index
  is ShaderIndexAMDX), in every output mode, so that PayloadNodeNameAMDX of an output links to
  the entry point of its target (dxc names entry points after the function, which does not link
  without VkPipelineShaderStageNodeCreateInfoAMDX::pName). Members of one node array, or nodes of
  one NodeID (overloads), in one module would share a name with the same execution model: they are
  named by their keys (`NodeInfo.key`: the function name, `name.N` for the N-th overload; sema
  warns, WG0604 / WG0501), and the application names them with pName, or uses --split-nodes.
  With execution modes from the node's attributes:
  LocalSize (1,1,1 for thread launch), CoalescingAMDX (coalescing and thread launch),
  IsApiEntryAMDX (true for the graph's entry nodes), ShaderIndexAMDX (always),
  MaxNodeRecursionAMDX, StaticNumWorkgroupsAMDX or MaxNumWorkgroupsAMDX, SharesInputWithAMDX.
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
  orders node-record memory (OutputMemory semantics need the Vulkan memory model). Under the
  Vulkan model barriers carry MakeAvailable|MakeVisible, storage-buffer/workgroup accesses
  NonPrivatePointer, storage-image reads/writes NonPrivateTexel, and `globallycoherent` accesses
  MakePointer(Texel)Available/Visible at QueueFamily scope (`lower.ModuleLowering.memory_access`),
  so a node means the same in either model, alone (`--split-nodes`, `-E`) or with others.
- A `globallycoherent` RWDispatchNodeInputRecord is a Coherent NodePayloadAMDX variable under
  GLSL450. Under the Vulkan model spirv-val allows neither the Coherent decoration nor
  NonPrivatePointer/MakePointer* on NodePayloadAMDX pointers: the node barriers' OutputMemory
  with MakeAvailable|MakeVisible at QueueFamily scope are then the only coherence expressible
  (`emit.py` warns, WG0605).
"""

from __future__ import annotations

from wgc import ir
from wgc import types as t
from wgc.sema.graph import GraphInfo
from wgc.sema.layout import TypeLayout
from wgc.sema.modules import entry_point_names, needs_vulkan_memory_model
from wgc.sema.nodes import NodeInfo, NodeOutput
from wgc.sema.uniformity import all_exprs, reachable_functions

from . import resources
from .lower import FunctionLowering, InputHandle, LowerOptions, ModuleLowering, OutputHandle


def _declare_node_input(ml: ModuleLowering, node: NodeInfo) -> InputHandle:
    info = node.input
    assert info is not None
    struct = _record_struct(ml, info.record, info.layout)
    if info.track_rw_input_sharing:
        ml.b.decorate(struct, "TrackFinishWritingAMDX")
    if info.record is not None and info.layout is not None:
        _decorate_dispatch_grid(ml, info.record, info.layout)
    max_payloads = ml.uint(info.max_records or 1)
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
    else:
        max_records = output.max_records if output.max_records is not None else 1
    max_payloads = ml.uint(max_records)
    base_index = ml.uint(output.target.index) if output.target.index else None
    # the spec requires PayloadNodeArraySizeAMDX on every non-sparse output: a single output is an
    # array of one node; an unbounded array ([UnboundedSparseNodes], always sparse) has none
    size = 1 if output.array_size is None else output.array_size
    array_size = ml.uint(size) if 0 < size < 0xFFFFFFFF else None
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
    if output.allow_sparse_nodes or output.unbounded_sparse_nodes:
        ml.b.decorate(array, "PayloadNodeSparseArrayAMDX")
    declared[output.parameter.name] = array
    return OutputHandle(output, array)



def lower_module(module: ir.Module, nodes: list[NodeInfo], graph: GraphInfo,
                 options: LowerOptions) -> list[int]:
    """The words of a module holding `nodes` (one entry point each)."""
    ml = ModuleLowering(module, graph, options)
    if needs_vulkan_memory_model(nodes):
        ml.vulkan_memory_model = True
        ml.b.capability("VulkanMemoryModel")
        ml.b.memory_model("Logical", "Vulkan")
    if options.debug_info:
        chunks = _source_chunks(options.source_text or "")
        file = ml.file_string(options.source_name)
        ml.b.debug("OpSource", "HLSL", 660, file, *chunks[:1])
        for chunk in chunks[1:]:
            ml.b.debug("OpSourceContinued", chunk)
    entries = {n.key for n in graph.entry_nodes}
    # statics with non-constant initialisers are initialised by each entry point that uses them
    ml.dynamic_statics = [v for v in module.globals
                          if v.storage is ir.Storage.STATIC and v.constant is None and v.init is not None
                          and ml.constant_initializer(v.init) is None]
    names, _ = entry_point_names(nodes)
    for node in nodes:
        _lower_node(ml, node, node.key in entries, names[node.key])
    return ml.b.to_words()


def _source_chunks(text: str, limit: int = 200_000) -> list[str]:
    """The source text cut into pieces that fit one instruction (65535 words) each."""
    chunks = []
    while text:
        cut = min(len(text), limit // 4)
        while len(text[:cut].encode("utf-8")) > limit:
            cut //= 2
        chunks.append(text[:cut])
        text = text[cut:]
    return chunks


def _refers(function: ir.Function, variable: ir.Variable) -> bool:
    return any(isinstance(e, ir.VarRef) and e.variable is variable for e in all_exprs(function))


def _lower_node(ml: ModuleLowering, node: NodeInfo, is_entry: bool, name: str) -> None:
    b = ml.b
    input_handle = _declare_node_input(ml, node) if node.input is not None and not node.input.implied \
        else None
    declared: dict[str, int] = {}
    # an output sharing the budget of a later one (WG0470) is declared after it: OpDecorateId's
    # operand must be defined before its target
    order = sorted(node.outputs, key=lambda o: o.shared_with is not None and o.shared_with_index > o.index)
    outputs = {o.parameter: _declare_node_output(ml, node, o, declared) for o in order}
    reachable = reachable_functions(node.function)
    statics = [(v, ml.global_binding(v)) for v in ml.dynamic_statics
               if any(_refers(f, v) for f in reachable)]
    fn = FunctionLowering(ml, node.function).lower_entry(node, input_handle, outputs, statics)
    resources.derivative_mode(ml, fn, node)      # implicit-LOD sampling anywhere in its code
    b.entry_point("GLCompute", fn, name, ml.reached_globals(fn))
    x, y, z = (1, 1, 1) if node.launch == "thread" else node.num_threads
    b.execution_mode(fn, "LocalSize", x, y, z)
    if node.launch in ("coalescing", "thread"):
        b.execution_mode(fn, "CoalescingAMDX")
    b.execution_mode(fn, "IsApiEntryAMDX", b.constant_bool(is_entry))
    b.execution_mode(fn, "ShaderIndexAMDX", ml.uint(node.id.index))
    if node.max_recursion_depth is not None:
        b.execution_mode(fn, "MaxNodeRecursionAMDX", ml.uint(node.max_recursion_depth))
    if node.dispatch_grid is not None:
        b.execution_mode(fn, "StaticNumWorkgroupsAMDX", *(ml.uint(v) for v in node.dispatch_grid))
    elif node.max_dispatch_grid is not None:
        b.execution_mode(fn, "MaxNumWorkgroupsAMDX", *(ml.uint(v) for v in node.max_dispatch_grid))
    if node.share_input_of is not None:
        b.execution_mode(fn, "SharesInputWithAMDX", b.constant_string_amdx(node.share_input_of.name),
                         ml.uint(node.share_input_of.index))
