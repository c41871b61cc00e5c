"""Module assembly: one entry point per node, for the chosen SPIR-V target (SPIR-V back end).

Input: the checked `ir.Module`, the `NodeInfo`s of the nodes to put in this module, the
`GraphInfo` (entries) and `LowerOptions` (with the target: `amdx` or `emulated`).
Output: `lower_module` -> the module's words (not yet validated: `emit.py` does that).

Invariants:
- One GLCompute entry point per node, named after its NodeID name (`sema.modules.entry_point_names`;
  its index is ShaderIndexAMDX in the AMDX target: a loop member's first stage, `sema.stages`), in
  every output mode, so that
  PayloadNodeNameAMDX of an output links to the entry point of its target (dxc names entry points
  after the function, which does not link without VkPipelineShaderStageNodeCreateInfoAMDX::pName).
  Members of one node array, or nodes of one NodeID (overloads), in one module would share a name
  with the same execution model: they are named by their keys (`NodeInfo.key`: the function name,
  `name.N` for the N-th overload; sema warns, WG0604 / WG0501), and the application names them with
  pName, or uses --split-nodes.
- The node declarations, the entry point's execution modes and the memory model are the target's
  (`node_ops.NodeOperations`: `amdx.py`, `emulated.py`); this module orders the work: set-up,
  per node its declarations, its entry function (statics with non-constant initialisers first),
  its derivative mode, its entry point.
- Under the Vulkan memory model barriers carry MakeAvailable|MakeVisible, storage-buffer/workgroup
  accesses NonPrivatePointer, storage-image reads/writes NonPrivateTexel, and `globallycoherent`
  accesses MakePointer(Texel)Available/Visible at QueueFamily scope
  (`lower.ModuleLowering.memory_access`), so a node means the same in either model, alone
  (`--split-nodes`, `-E`) or with others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import ir
from wgc.irtools.walk import all_exprs
from wgc.sema.nodes import NodeInfo

from . import resources
from .lower import FunctionLowering, LowerOptions, ModuleLowering, release_function
from .node_ops import NodeOperations
from .places import Place
from .stageio import declare_stage_entry_point, declare_stage_io

if TYPE_CHECKING:
    from wgc.sema.results import Analysis


def lower_module(results: Analysis, nodes: list[NodeInfo], options: LowerOptions) -> list[int]:
    """The words of a module holding `nodes` (one entry point each) for `options.target`."""
    module, graph = results.module, results.graph
    assert graph is not None
    ml = ModuleLowering(results, options, node_operations(options.target), nodes)
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
    names = results.entry_point_names(nodes)
    if options.target == "emulated":
        # mesh entry points first: NVIDIA's driver (580) draws nothing from a MeshEXT entry point that
        # follows a GLCompute one sharing its built-in variables (measured on the H200)
        nodes = sorted(nodes, key=lambda n: n.mesh is None)
    for node in nodes:
        _lower_node(ml, node, node.key in entries, names[node.key])
    words = ml.b.to_words()
    ml.release()
    return words


def node_operations(target: str) -> NodeOperations:
    """A fresh implementation of `target`'s node operations (one per module); each target's module
    is imported when a compile uses it."""
    if target == "amdx":
        from .amdx import AmdxNodes

        return AmdxNodes()
    if target == "emulated":
        from .emulated import EmulatedNodes

        return EmulatedNodes()
    raise AssertionError(f"unknown SPIR-V target '{target}'")


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
    """A node's entry point, or (`node.stage` not "node") a compute, pixel, mesh or amplification shader's."""
    input_handle, outputs = ml.nodes.declare_node(ml, node) if node.stage == "node" else (None, {})
    reachable = ml.results.reachable(node.function)
    statics = []
    for variable in ml.dynamic_statics:
        if any(_refers(f, variable) for f in reachable):
            place = ml.global_binding(variable)
            assert isinstance(place, Place), "a static is a Private variable"
            statics.append((variable, place))
    io = declare_stage_io(ml, node)
    lowering = FunctionLowering(ml, node.function)
    fn = lowering.lower_entry(node, input_handle, outputs, statics, io)
    release_function(lowering)
    if node.stage == "node":
        fn = ml.nodes.entry_function(ml, fn, node)
    if node.stage != "pixel":                    # fragments have derivatives of their own
        resources.derivative_mode(ml, fn, node)  # implicit-LOD sampling anywhere in its code
    if node.stage == "node":
        ml.nodes.declare_entry_point(ml, fn, node, is_entry, name)
    else:
        declare_stage_entry_point(ml, fn, node, name, io)
