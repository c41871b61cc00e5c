"""Semantic analysis, module composition: how the nodes compiled together form SPIR-V modules.

Input: the `NodeInfo`s of the file, the `-E` entry, and whether each node gets a module of its own
(`--split-nodes`).
Output: the nodes compiled (`compiled_nodes`, with WG0603 when there is none), the modules (`module_groups`), each module's entry point names (`entry_point_names`) and
memory model (`needs_vulkan_memory_model`), and the warnings these choices call for
(`composition_warnings`: WG0604, WG0605). The SPIR-V back end and the metadata model read these
decisions; they do not make them.

Invariants:
- A node's entry point is named after its NodeID name (ShaderIndexAMDX carries the index), so an
  output's PayloadNodeNameAMDX links to its target on a driver. Members of one node array share a
  NodeID name, and one module cannot hold two GLCompute entry points of one name (spirv-val:
  "Entry points cannot share the same name and ExecutionMode"): when two or more are in one module
  they keep their function names (WG0604). A module of one node is always named by NodeID.
- A module uses the Vulkan memory model exactly when its own reachable code has a Barrier on node
  memory (OutputMemory semantics need it); nothing outside the module counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic
from wgc.sema.consteval import Folded, fold
from wgc.sema.intrinsics import BARRIER_CONSTANTS
from wgc.sema.nodes import NodeInfo
from wgc.sema.uniformity import all_exprs, reachable_functions

NODE_MEMORY = BARRIER_CONSTANTS["NODE_INPUT_MEMORY"] | BARRIER_CONSTANTS["NODE_OUTPUT_MEMORY"]


def compiled_nodes(nodes: Sequence[NodeInfo], entry: str | None) -> tuple[list[NodeInfo], list[Diagnostic]]:
    """The nodes a compile to SPIR-V (and its reflection) covers: every node, or the one `-E entry`
    names; with WG0603 when there is none (a Vulkan module needs an entry point)."""
    chosen = [n for n in nodes if entry in (None, n.function.name)]
    if chosen:
        return chosen, []
    if entry is not None:
        return [], [codes.NO_NODE_TO_COMPILE(None, f"-E {entry}: no node shader function has that name")]
    return [], [codes.NO_NODE_TO_COMPILE(
        None, "the input has no [Shader(\"node\")] function, so there is nothing to compile")]


def module_groups(nodes: Sequence[NodeInfo], split: bool) -> list[tuple[str, list[NodeInfo]]]:
    """(key, nodes) of each module: one per node keyed by function name, or one keyed ""."""
    return [(n.function.name, [n]) for n in nodes] if split else [("", list(nodes))]


def entry_point_names(nodes: Sequence[NodeInfo]) -> tuple[dict[str, str], list[list[NodeInfo]]]:
    """function name -> entry point name in the module holding `nodes`, and the groups of array
    members that kept their function names (each with two or more nodes, in source order)."""
    by_name: dict[str, list[NodeInfo]] = {}
    for node in nodes:
        by_name.setdefault(node.id.name, []).append(node)
    names = {n.function.name: n.id.name for n in nodes}
    clashes = [group for group in by_name.values() if len(group) > 1]
    for group in clashes:
        for node in group:
            names[node.function.name] = node.function.name
    return names, clashes


def uses_node_memory(functions: Sequence[ir.Function]) -> bool:
    """Whether a Barrier in `functions` orders node-record memory (NODE_INPUT_MEMORY,
    NODE_OUTPUT_MEMORY, ALL_MEMORY or a record object)."""
    for function in functions:
        for expr in all_exprs(function):
            if isinstance(expr, ir.IntrinsicCall) and expr.name == "Barrier" and expr.args:
                first = expr.args[0]
                if isinstance(first.type, t.NodeObjectType):
                    return True
                folded = fold(first, optimized=True)
                if isinstance(folded, Folded) and isinstance(folded.value, int) and folded.value & NODE_MEMORY:
                    return True
    return False


def needs_vulkan_memory_model(nodes: Sequence[NodeInfo]) -> bool:
    """Whether the module holding `nodes` uses the Vulkan memory model (module docstring)."""
    return uses_node_memory([f for node in nodes for f in reachable_functions(node.function)])


def composition_warnings(nodes: Sequence[NodeInfo], split: bool, target: str = "amdx") -> list[Diagnostic]:
    """WG0604 (array members keep function names; the note says how `target`'s runtime finds
    them) and, for the AMDX target, WG0605 (a globallycoherent node input in a
    Vulkan-memory-model module), per module."""
    diagnostics: list[Diagnostic] = []
    for _key, group in module_groups(nodes, split):
        for clash in entry_point_names(group)[1]:
            functions = ", ".join(f"'{n.function.name}'" for n in clash)
            diagnostics.append(codes.NODE_ARRAY_ENTRY_POINT_NAME(
                clash[1].span, f"nodes {functions} are members of node array '{clash[0].id.name}' in "
                "one module: their entry points keep the function names, because one module cannot "
                "hold two GLCompute entry points of one name",
                notes=(f"set VkPipelineShaderStageNodeCreateInfoAMDX::pName to '{clash[0].id.name}' "
                       "(and index to the NodeID index) for each of them, or compile with "
                       "--split-nodes (one module per node, entry points named by NodeID)"
                       if target == "amdx" else
                       "select each of them by its function name ('wgc inspect' shows the node of each), "
                       "or compile with --split-nodes (one module per node, entry points named by NodeID)",)))
        if target == "amdx" and needs_vulkan_memory_model(group):
            for node in group:
                if node.input is not None and node.input.globally_coherent:
                    diagnostics.append(codes.NODE_INPUT_COHERENCE_LOST(
                        node.input.parameter.span,
                        f"'globallycoherent' on input '{node.input.parameter.name}' of '{node.function.name}' "
                        "cannot be expressed: a barrier on node memory puts the module under the Vulkan "
                        "memory model, where spirv-val allows neither Coherent nor NonPrivatePointer on "
                        "NodePayloadAMDX memory",
                        notes=("the record is ordered only by the node-memory barriers (OutputMemory with "
                               "MakeAvailable|MakeVisible); without a node-memory barrier in the module, "
                               "the input is Coherent",)))
    return diagnostics
