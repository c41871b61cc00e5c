"""Work Graph Loops in index space, lowered (SPIR-V back end): the code `sema.stages` describes.

Input: the `StagePlan` of the module's graph (`ModuleLowering.stages`; None when loops are not
unrolled: the emulated target's native form, or a graph without loops), the node whose entry
function is being lowered (`FunctionLowering.node`), and the target's two built-in values
(`NodeOperations.shader_index`, `remaining_recursion_levels`).
Output: the instructions of GetCurrentLoopIterationIndex(), GetRemainingRecursionLevels() of a
self-feeding loop entry (0: not a recursive node), the terminator guard at the start of a
loop entry, an output's node index into its target's stages, and IsValid() of a back edge.

Invariants: the same code for both targets, so the AMDX modules and the emulated modules under
`--loops=index-space` (which `wgc run` executes) compute the same stage indices; functions that
read the iteration are inlined into their node (`ModuleLowering.reads_loop_iteration`), so the
node is always known; every formula is `sema.stages`' (its docstring).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import types as t
from wgc.sema.nodes import NodeInfo, NodeOutput
from wgc.sema.stages import NodeStages, OutputSpan, TargetIndex

from .places import OutputHandle

if TYPE_CHECKING:
    from .lower import FunctionLowering, ModuleLowering


def node_stages(fl: FunctionLowering, node: NodeInfo | None = None) -> NodeStages | None:
    """The stages of `node` (default: the function's node) when its loops are unrolled, else None."""
    plan = fl.ml.stages
    node = node or fl.node
    if plan is None or node is None:
        return None
    stages = plan.of.get(node.key)
    return stages if stages is not None and stages.unrolled else None


def _dimension_iteration(fl: FunctionLowering, stages: NodeStages, position: int) -> int:
    """Iteration of dimension `position`: (ShaderIndex / the strides after it) mod its stride."""
    b, uint = fl.b, fl.types.id(t.UINT)
    value = fl.ml.nodes.shader_index(fl)
    after = stages.after(position)
    if after > 1:
        value = b.emit("OpUDiv", uint, value, fl.uint(after))
    return b.emit("OpUMod", uint, value, fl.uint(stages.dimensions[position].stride))


def iteration(fl: FunctionLowering) -> int | None:
    """GetCurrentLoopIterationIndex() of the function's node in index space, or None (native form,
    or a node outside loops: the target's own value)."""
    stages = node_stages(fl)
    if stages is None:
        return None
    if stages.recursion_loop is not None:      # N - RemainingRecursionLevelsAMDX
        remaining = fl.ml.nodes.remaining_recursion_levels(fl)
        return fl.b.emit("OpISub", fl.types.id(t.UINT), fl.uint(stages.recursion_loop.iterations), remaining)
    return _dimension_iteration(fl, stages, len(stages.dimensions) - 1)


def remaining_recursion_levels(fl: FunctionLowering) -> int | None:
    """GetRemainingRecursionLevels() of a self-feeding loop entry in index space: 0, as for every
    node that is not recursive (a loop entry may not be one: the loops proposal); its recursion
    levels are the loop's iterations, not the program's. None elsewhere (the target's own value)."""
    stages = node_stages(fl)
    if stages is None or stages.recursion_loop is None:
        return None
    return fl.uint(0)


def terminator_guard(fl: FunctionLowering, node: NodeInfo) -> None:
    """At the start of a loop entry: return at the terminator stage (iteration N), consuming the record."""
    stages = node_stages(fl, node)
    if stages is None:
        return
    b = fl.b
    if stages.recursion_loop is not None:
        at_limit = b.emit("OpIEqual", b.type_bool(), fl.ml.nodes.remaining_recursion_levels(fl), fl.uint(0))
    elif stages.terminates:
        last = len(stages.dimensions) - 1
        at_limit = b.emit("OpIEqual", b.type_bool(), _dimension_iteration(fl, stages, last),
                          fl.uint(stages.dimensions[last].iterations))
    else:
        return
    leave, stay = b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", stay, "None")
    b.emit("OpBranchConditional", at_limit, leave, stay)
    fl.new_block(leave)
    b.emit("OpReturn")
    fl.new_block(stay)


def _mapping(fl: FunctionLowering, output: NodeOutput) -> TargetIndex | None:
    plan = fl.ml.stages
    producer = fl.node
    if plan is None or producer is None:
        return None
    target = plan.output_target(output, fl.ml.graph)
    if target is None or not target.unrolled:
        return None
    return plan.target_index(producer, output, target)


def output_index(fl: FunctionLowering, handle: OutputHandle) -> int | None:
    """The node index (relative to the output's base) of the stage `handle` targets, or None when
    the output's index is its written one."""
    mapping = _mapping(fl, handle.output)
    if mapping is None or (mapping.stride == 1 and not mapping.terms):
        return None
    b, uint = fl.b, fl.types.id(t.UINT)
    stages = node_stages(fl)
    value = handle.node_index
    if value is not None and mapping.stride > 1:
        value = b.emit("OpIMul", uint, value, fl.uint(mapping.stride))
    for position, increment, weight in mapping.terms:
        if position is None or stages is None:
            continue                                   # a loop the record enters: iteration 0
        term = _dimension_iteration(fl, stages, position)
        if increment:
            term = b.emit("OpIAdd", uint, term, fl.uint(increment))
        if weight > 1:
            term = b.emit("OpIMul", uint, term, fl.uint(weight))
        value = term if value is None else b.emit("OpIAdd", uint, value, term)
    return value if value is not None else fl.uint(0)


def output_valid(fl: FunctionLowering, handle: OutputHandle, valid: int) -> int:
    """IsValid() of a back edge is false at the loop's last iteration (its records would reach the
    terminator stage), as in the native form."""
    stages = node_stages(fl)
    b = fl.b
    plan = fl.ml.stages
    if stages is not None and stages.recursion_loop is not None and plan is not None \
            and plan.output_target(handle.output, fl.ml.graph) is stages:
        # a self-feeding entry's feedback: the next recursion level exists until the last iteration
        more = b.emit("OpUGreaterThan", b.type_bool(), fl.ml.nodes.remaining_recursion_levels(fl), fl.uint(1))
        return b.emit("OpLogicalAnd", b.type_bool(), valid, more)
    mapping = _mapping(fl, handle.output)
    if mapping is None or mapping.feedback is None or stages is None:
        return valid
    dimension = stages.dimensions[mapping.feedback]
    more = b.emit("OpULessThan", b.type_bool(), _dimension_iteration(fl, stages, mapping.feedback),
                  fl.uint(dimension.iterations - 1))
    return b.emit("OpLogicalAnd", b.type_bool(), valid, more)


def output_span(ml: ModuleLowering, output: NodeOutput) -> OutputSpan | None:
    """The base index, array size and sparseness of an output into a loop's stages
    (`StagePlan.output_span`), or None when its target is outside loops."""
    plan = ml.stages
    return plan.output_span(output, ml.graph) if plan is not None else None
