"""SPIR-V generation for one compile: choose the modules, lower, validate, lint, optimize.

Input: the checked `Analysis` (typed IR, nodes, graph) and `EmitOptions`.
Output: `Emitted`: one module's words (`modules[""]`) or one per node (`--split-nodes`: keyed by
the node function's name), and diagnostics (WG06xx) for what SPIR-V cannot express, and the
WG0604 warning for node-array members that keep function names as entry point names, and the
WG0605 warning for a globallycoherent node input SPIR-V cannot mark coherent.

Invariants:
- A graph with loops is an error (WG0601) naming the loop: SPV_AMDX_shader_enqueue has no way to
  express a node re-entering its loop, and an invalid module is never produced.
- Every module is validated in process (spirv-val's rules for the target environment, scalar
  block layout for node records) and linted (`lint.py`: the AMDX rules spirv-val does not check)
  before anything is returned, unless `validate` is off (`-Vd`). A failure is an internal error:
  `InvalidModule` carries the validator's message.
- `-O` runs only the spirv-opt passes that keep AMDX modules valid (`optimize.py`), and the result
  is validated again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wgc import codes
from wgc.diagnostics import Diagnostic

from .lower import LowerOptions, Unsupported
from .module import lower_module, needs_vulkan_memory_model
from .names import entry_point_names


class InvalidModule(RuntimeError):
    """The back end produced a module the validator or the lint rejects (a wgc bug)."""


@dataclass(frozen=True)
class EmitOptions:
    target_env: str = "vulkan1.3"
    entry: str | None = None
    split_nodes: bool = False
    validate: bool = True
    optimize: bool = False
    debug_info: bool = False
    source_name: str = ""
    source_text: str | None = None


@dataclass
class Emitted:
    modules: dict[str, list[int]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def emit_spirv(analysis, options: EmitOptions) -> Emitted:  # type: ignore[no-untyped-def]
    """The SPIR-V modules of a checked analysis (see the module docstring)."""
    result = Emitted()
    graph, nodes = analysis.graph, analysis.nodes
    if graph is not None and graph.loops:
        loop = graph.loops[0]
        members = ", ".join(f"'{m.id}'" for m in loop.members)
        result.diagnostics.append(codes.LOOPS_NOT_EXPRESSIBLE(
            loop.entry.span,
            f"the graph has a loop entered at node '{loop.entry.id}' (members {members}); "
            "SPV_AMDX_shader_enqueue cannot express work-graph loops yet, so this graph cannot be "
            "compiled to SPIR-V",
            notes=("'wgc inspect' shows the graph and its DXIL-style metadata, which encode the loop",)))
        return result
    if options.entry is not None:
        nodes = [n for n in nodes if n.function.name == options.entry]
        if not nodes:
            result.diagnostics.append(codes.NO_NODE_TO_COMPILE(
                None, f"-E {options.entry}: no node shader function has that name"))
            return result
    if not nodes:
        result.diagnostics.append(codes.NO_NODE_TO_COMPILE(
            None, "the input has no [Shader(\"node\")] function, so there is nothing to compile"))
        return result
    lower_options = LowerOptions(target_env=options.target_env, debug_info=options.debug_info,
                                 source_name=options.source_name, source_text=options.source_text)
    groups = [(n.function.name, [n]) for n in nodes] if options.split_nodes else [("", nodes)]
    for key, group in groups:
        for clash in entry_point_names(group)[1]:
            functions = ", ".join(f"'{n.function.name}'" for n in clash)
            result.diagnostics.append(codes.NODE_ARRAY_ENTRY_POINT_NAME(
                clash[1].span, f"nodes {functions} are members of node array '{clash[0].id.name}' in "
                "one module: their entry points keep the function names, because one module cannot "
                "hold two GLCompute entry points of one name",
                notes=(f"set VkPipelineShaderStageNodeCreateInfoAMDX::pName to '{clash[0].id.name}' "
                       "(and index to the NodeID index) for each of them, or compile with "
                       "--split-nodes (one module per node, entry points named by NodeID)",)))
        if needs_vulkan_memory_model(group):
            for node in group:
                if node.input is not None and node.input.globally_coherent:
                    result.diagnostics.append(codes.NODE_INPUT_COHERENCE_LOST(
                        node.input.parameter.span,
                        f"'globallycoherent' on input '{node.input.parameter.name}' of '{node.function.name}' "
                        "cannot be expressed: a barrier on node memory puts the module under the Vulkan "
                        "memory model, where spirv-val allows neither Coherent nor NonPrivatePointer on "
                        "NodePayloadAMDX memory",
                        notes=("the record is ordered only by the node-memory barriers (OutputMemory with "
                               "MakeAvailable|MakeVisible); without a node-memory barrier in the module, "
                               "the input is Coherent",)))
        try:
            words = lower_module(analysis.module, group, graph, lower_options)
        except Unsupported as problem:
            result.diagnostics.append(codes.NOT_LOWERABLE(
                problem.span, f"{problem.message} (SPIR-V generation)"))
            return result
        if options.optimize:
            from .optimize import optimize
            words = optimize(words, options.target_env)
        if options.validate:
            check(words, options.target_env, one_node_per_module=options.split_nodes)
        result.modules[key] = words
    return result


def check(words: list[int], target_env: str, *, one_node_per_module: bool = False) -> None:
    """Validate and lint a module; raise `InvalidModule` with every message if it fails."""
    from .lint import lint
    from .tools import validate

    messages = validate(words, target_env, scalar_block_layout=True)
    messages += lint(words, one_node_per_module=one_node_per_module)
    if messages:
        raise InvalidModule("the generated SPIR-V does not validate: " + "; ".join(messages))

