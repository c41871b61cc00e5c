"""Semantic analysis, module composition: how the nodes compiled together form SPIR-V modules.

Input: the `NodeInfo`s of the file's node shaders, the `-E` choice, and whether each node gets a
module of its own (`--split-nodes`).
Output: the nodes to compile (`select_nodes`, with error WG0603 when `-E` names none or several),
the modules (`module_groups`), each module's entry point names (`entry_point_names`) and
memory model (`needs_vulkan_memory_model`), and the warnings these choices call for
(`composition_warnings`: WG0604, WG0605, WG0646). The SPIR-V back end and the metadata model read these
decisions; they do not make them.

Invariants:
- Nodes are told apart by `NodeInfo.key`: the function name, `name.N` for the N-th node shader
  of one name (overloads, N >= 2, in source order). Modules, entry point names, `--split-nodes`
  file names (`DIR/<key>.spv`) and `-E` use it. `-E NAME` selects the node shader of that name;
  when several node shaders have that name it is an error listing them, each selectable as
  `NAME.N` (`NAME.1` the first).
- A node's entry point is named after its NodeID name (ShaderIndexAMDX carries the index), so an
  output's PayloadNodeNameAMDX links to its target on a driver (AMDX: the node name is the entry
  point's name unless VkPipelineShaderStageNodeCreateInfoAMDX::pName overrides it). Members of one
  node array, and nodes of one NodeID (overloads, WG0501), share a NodeID name, and one module cannot
  hold two GLCompute entry points of one name (spirv-val: "Entry points cannot share the same name
  and ExecutionMode"): when two or more are in one module they are named by their keys (WG0604 for
  array members; WG0501 already says it for one NodeID). A module of one node is always named by
  NodeID. Entry points of different execution models may share a name (a node `Draw` beside a
  pixel shader `Draw`), so only one model's names clash; a compute, mesh or amplification shader
  whose name is a node's in the same model (a compute shader `Draw` beside node `Draw`) gives way,
  as `<function>.<stage>` (WG0646), since producers target the node by name; so does a node named by
  its key (a node-array member) whose key is another node's NodeID name (`<key>.node`).
- A module uses the Vulkan memory model exactly when its own reachable code has a Barrier on node
  memory (OutputMemory semantics need it); nothing outside the module counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from wgc import codes, ir
from wgc import types as t
from wgc.diagnostics import Diagnostic, Label
from wgc.irtools.consteval import Folded, fold
from wgc.irtools.walk import all_exprs, reachable_functions
from wgc.sema.intrinsics import BARRIER_CONSTANTS
from wgc.sema.nodes import NodeInfo
from wgc.suggest import did_you_mean

NODE_MEMORY = BARRIER_CONSTANTS["NODE_INPUT_MEMORY"] | BARRIER_CONSTANTS["NODE_OUTPUT_MEMORY"]


def selectors(nodes: Sequence[NodeInfo]) -> list[str]:
    """How `-E` names each node: its key, or `name.1` for the first of several node shaders of one name."""
    count = Counter(n.function.name for n in nodes)
    return [f"{n.key}.1" if count[n.function.name] > 1 and n.key == n.function.name else n.key for n in nodes]


def select_nodes(nodes: Sequence[NodeInfo], entry: str | None,
                 functions: Sequence[str] = ()) -> tuple[list[NodeInfo], list[Diagnostic]]:
    """The nodes to compile: all, or the one `-E entry` selects; WG0603 when there is none to compile
    or `entry` names several (overloads: like dxc's "ambiguous entry point function"), with a
    did-you-mean among the nodes' spellings (or, when there is no node, as under a shader profile
    where only the `-E` function is an entry, among `functions`)."""
    if entry is None:
        chosen = list(nodes)
        if not chosen:
            return [], [codes.NO_NODE_TO_COMPILE(
                None, "the input has no [Shader(\"node\")] function (nor a compute, pixel, mesh or amplification "
                "shader), so there is nothing to compile")]
        return chosen, []
    named = list(zip(nodes, selectors(nodes)))
    chosen = [n for n, spelling in named if spelling == entry]
    if chosen:
        return chosen, []
    candidates = [(n, spelling) for n, spelling in named if n.function.name == entry]
    if len(candidates) > 1:
        return [], [codes.NO_NODE_TO_COMPILE(
            None, f"-E {entry}: {len(candidates)} node shaders have that name (overloads); choose one: "
            + ", ".join(f"-E {spelling}" for _, spelling in candidates),
            labels=[Label(n.span, f"-E {spelling}: '{n.function.signature}'") for n, spelling in candidates])]
    choices = [spelling for _, spelling in named] or list(functions)
    return [], [codes.NO_NODE_TO_COMPILE(None, f"-E {entry}: no node shader or entry point function has that name",
                                         notes=[did_you_mean(entry, choices, "entry points")])]


def module_groups(nodes: Sequence[NodeInfo], split: bool) -> list[tuple[str, list[NodeInfo]]]:
    """(key, nodes) of each module: one per node keyed by the node's key, or one keyed ""."""
    return [(n.key, [n]) for n in nodes] if split else [("", list(nodes))]


STAGE_EXECUTION_MODELS = {"compute": "GLCompute", "mesh": "MeshEXT", "amplification": "TaskEXT",
                          "pixel": "Fragment"}


def execution_model(node: NodeInfo) -> str:
    """The SPIR-V execution model of a node's (or another stage's) entry point."""
    if node.stage == "node":
        return "MeshEXT" if node.mesh is not None else "GLCompute"
    return STAGE_EXECUTION_MODELS.get(node.stage, node.stage)


def entry_point_names(nodes: Sequence[NodeInfo]) -> tuple[dict[str, str], list[list[NodeInfo]]]:
    """node key -> entry point name in the module holding `nodes`, and the groups of node-array
    members named by their keys (each with two or more NodeIDs of one name, in source order).
    Only entry points of one execution model clash (module docstring)."""
    names, arrays, _ = _entry_point_names(nodes)
    return names, arrays


def renamed_entries(nodes: Sequence[NodeInfo]) -> list[tuple[NodeInfo, NodeInfo, str]]:
    """(entry point, the one whose name it gives way to, its new name) for each entry point that
    cannot keep its name (`<name>.<stage>`): the same name with the same execution model as
    another's in one module (module docstring)."""
    return _entry_point_names(nodes)[2]


def _entry_point_names(nodes: Sequence[NodeInfo]
                       ) -> tuple[dict[str, str], list[list[NodeInfo]], list[tuple[NodeInfo, NodeInfo, str]]]:
    by_name: dict[tuple[str, str], list[NodeInfo]] = {}
    for node in nodes:
        by_name.setdefault((execution_model(node), node.id.name), []).append(node)
    names = {n.key: n.id.name for n in nodes}
    arrays = []
    for group in by_name.values():
        graph_nodes = [n for n in group if n.stage == "node"]
        if len(graph_nodes) > 1:
            for node in graph_nodes:
                names[node.key] = node.key
            if len({n.id for n in graph_nodes}) > 1:
                arrays.append(graph_nodes)
    # producers target a node by its NodeID name: those keep it; a node named by its key, then an
    # entry point of another stage, gives way when its name is taken in its execution model
    named_by_id = [n for n in nodes if n.stage == "node" and names[n.key] == n.id.name]
    by_key = [n for n in nodes if n.stage == "node" and names[n.key] != n.id.name]
    others = [n for n in nodes if n.stage != "node"]
    taken: dict[tuple[str, str], NodeInfo] = {}
    renamed = []
    for node in (*named_by_id, *by_key, *others):
        model = execution_model(node)
        name = names[node.key]
        if (model, name) in taken:
            holder = taken[(model, name)]
            base = f"{name}.{node.stage}"
            name, n = base, 2
            while (model, name) in taken:
                name, n = f"{base}{n}", n + 1
            names[node.key] = name
            renamed.append((node, holder, name))
        taken[(model, name)] = node
    return names, arrays, renamed


def naming(clash: list[NodeInfo]) -> str:
    """How the entry points of a clash group are named, as WG0604 says it."""
    if all(n.key == n.function.name for n in clash):
        return "keep the function names"
    return "are named by their keys (the function name, 'name.N' for the N-th overload)"


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
            functions = ", ".join(f"'{n.key}'" for n in clash)
            diagnostics.append(codes.NODE_ARRAY_ENTRY_POINT_NAME(
                clash[1].span, f"nodes {functions} are members of node array '{clash[0].id.name}' in "
                f"one module: their entry points {naming(clash)}, because one module cannot "
                f"hold two {'MeshEXT' if clash[0].mesh is not None else 'GLCompute'} entry points of one name",
                notes=(f"set VkPipelineShaderStageNodeCreateInfoAMDX::pName to '{clash[0].id.name}' "
                       "(and index to the NodeID index) for each of them, or compile with "
                       "--split-nodes (one module per node, entry points named by NodeID)"
                       if target == "amdx" else
                       "select each of them by its function name ('wgc inspect' shows the node of each), "
                       "or compile with --split-nodes (one module per node, entry points named by NodeID)",)))
        names = entry_point_names(group)[0]
        for entry, holder, name in renamed_entries(group):
            what = f"the {entry.stage} shader '{entry.key}'" if entry.stage != "node" else f"node '{entry.key}'"
            diagnostics.append(codes.STAGE_ENTRY_POINT_RENAMED(
                entry.span, f"{what} is the entry point '{name}': '{holder.key}' is the entry point "
                f"'{names[holder.key]}', and one module cannot hold two {execution_model(entry)} entry points "
                "of one name",
                labels=[Label(holder.span, f"'{names[holder.key]}' is this entry point's"
                              + (", which its producers target" if holder.stage == "node" else ""))],
                notes=(f"create its pipeline stage with the entry point name '{name}', rename the function, "
                       "or compile with --split-nodes (one module per entry point)",)))
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
