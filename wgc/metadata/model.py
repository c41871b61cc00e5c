"""Metadata, the inspect model: what wgc understood of a work graph, as typed records (`schema.py`).

Input: the results object of analysis (`sema.results.Analysis`: the node descriptions, the graph,
the other stages' entry points, the module's globals: its resources, uniform and push-constant
blocks, and specialization constants, `[[vk::constant_id]]`), the nodes to show and wgc's version.
Output: an `InspectModel` (`schema.py`), whose `to_json()` follows the schema in docs/reference.md ("The
JSON model"): the one model every `wgc inspect` view renders (`--format json` prints its JSON).
Resources (`"resources"`: every one the program declares, with the nodes that reach it) and
specialization constants are the reflection's records (`metadata.reflection`: `describe_resources`,
`spec_constants`): the reflection and the inspect model describe them alike.

Invariants: only frozen records of plain values; nodes in source order,
outputs in declaration order, edges in node-then-output order, loops innermost first, resources
and specialization constants in source order; the same input always gives the same model (no
ids, paths or timestamps). `entry_point` is the node's OpEntryPoint name in the SPIR-V of the
whole file (`sema.modules.entry_point_names`: the NodeID name, or the node's key when other nodes
of the module share that NodeID name). `key` tells every node apart (overloads: `f`, `f.2`); the
graph section names nodes by `graph_name`: the NodeID's display name, followed by ` (key)` when
several nodes of the model carry that NodeID. Bindings, layouts and resource use are sema's
decisions, read, never recomputed. `entry_points` lists the library's compute, pixel, mesh and amplification shaders (outside the
graph) in source order, with their stage inputs and outputs (`sema.entry_stages.stage_interface`).
`stages` (every node's (name, index) stages, with loops
unrolled in index space as the AMDX target compiles them), `stage_stride`, `max_node_recursion` and
the graph's `unrolled_depth` are `sema.stages`'. A node's `attribute_spec_constants` lists its attribute
arguments that are specialization constants (`metadata.reflection.attribute_spec_constants`): its
values (`num_threads`, `max_records`, ...) are their defaults.
"""

from __future__ import annotations

from wgc.metadata.reflection import (attribute_spec_constants, describe_resources, entry_point_reflection,
                                     input_reflection, mesh_node, output_reflection, spec_constants, wave_size)
from wgc.metadata.schema import (EdgeModel, GraphModel, GridFieldModel, InspectModel,
                                 LoopEntryModel, LoopModel, NodeIdModel, NodeModel,
                                 StageModel)
from wgc.sema.graph import GraphInfo, Loop
from wgc.sema.nodes import DispatchGridField, NodeId, NodeInfo
from wgc.sema.results import Analysis
from wgc.sema.stages import AMDX_MIN_GRAPH_DEPTH, StagePlan


def _id(node_id: NodeId) -> NodeIdModel:
    return NodeIdModel(node_id.name, node_id.index)


def _grid_field(grid: DispatchGridField | None) -> GridFieldModel | None:
    return GridFieldModel(grid.offset, grid.components, grid.bits) if grid else None


def _node(results: Analysis, node: NodeInfo, graph: GraphInfo, entries: set[str], entry_point: str,
          graph_name: dict[str, str], plan: StagePlan) -> NodeModel:
    loop = graph.loop_of.get(node.key)
    stages = plan.stages_of(node)
    use = results.resource_use(node.function)
    return NodeModel(
        function=node.function.name,
        key=node.key,
        signature=node.function.signature,
        entry_point=entry_point,
        id=_id(node.id),
        graph_name=graph_name[node.key],
        launch=node.launch,
        program_entry=node.key in entries,
        program_entry_explicit=node.program_entry_explicit,
        num_threads=tuple(node.num_threads),
        wave_size=wave_size(node.function),
        dispatch_grid=node.dispatch_grid,
        max_dispatch_grid=node.max_dispatch_grid,
        max_recursion_depth=node.max_recursion_depth,
        local_root_arguments_table_index=node.local_root_arguments_table_index,
        share_input_of=_id(node.share_input_of) if node.share_input_of else None,
        loop_entry=(LoopEntryModel(node.max_loop_iterations, node.max_records_per_loop_iteration)
                    if node.is_loop_entry else None),
        loop=graph_name[loop.entry.key] if loop is not None else None,
        loops=tuple(_id(entry.entry.id) for entry in results.loop_chain(node)),
        depth=graph.depth_of.get(node.key, 0),
        groupshared_bytes=node.groupshared_bytes,
        mesh=mesh_node(node),
        input=input_reflection(node, node.input) if node.input is not None else None,
        outputs=tuple(output_reflection(o, graph, plan) for o in node.outputs),
        backing_bytes=graph.backing_of.get(node.key, 0),
        resources=tuple([v.name for v in use.variables] + [f"counter.var.{v.name}" for v in use.counters]),
        stages=tuple(StageModel(s.index, tuple(s.iterations), s.terminator) for s in stages.stages()),
        stage_stride=stages.stride,
        max_node_recursion=stages.max_recursion,
        attribute_spec_constants=tuple(attribute_spec_constants(results, node)),
        limits_exceeded=tuple(graph.limits_exceeded.get(node.key, ())),
    )


def _loop(loop: Loop, graph_name: dict[str, str]) -> LoopModel:
    return LoopModel(
        entry=graph_name[loop.entry.key],
        members=tuple(graph_name[m.key] for m in loop.members),
        max_iterations=loop.entry.max_loop_iterations,
        parent=graph_name[loop.parent.entry.key] if loop.parent is not None else None,
    )


def graph_names(nodes: list[NodeInfo]) -> dict[str, str]:
    """Each node's name in the graph section (by key): `Name[i]`, or `Name[i] (key)` when several of
    `nodes` carry that NodeID."""
    carriers: dict[NodeId, int] = {}
    for node in nodes:
        carriers[node.id] = carriers.get(node.id, 0) + 1
    return {n.key: f"{n.id} ({n.key})" if carriers[n.id] > 1 else str(n.id) for n in nodes}


def build_model(results: Analysis, nodes: tuple[NodeInfo, ...] | list[NodeInfo], version: str,
                max_graph_depth: int | None = None) -> InspectModel:
    """The inspect model of `nodes` (the analysis's, or those of its graph) and the analysis's other
    stages' entry points."""
    graph, globals_, stage_entries = results.graph, results.module.globals, results.stage_entries
    assert graph is not None
    entries = {n.key for n in graph.entry_nodes}
    plan = results.stage_plan()
    unrolled = results.unrolled_depth()
    names = results.entry_point_names([*nodes, *stage_entries])
    shown = {n.key for n in nodes}
    graph_name = graph_names([*nodes, *(n for n in graph.nodes if n.key not in shown)])
    return InspectModel(
        wgc_version=version,
        profile=graph.profile,
        nodes=tuple(_node(results, n, graph, entries, names[n.key], graph_name, plan) for n in nodes),
        graph=GraphModel(
            depth=graph.depth,
            depth_limit=graph.depth_limit,
            longest_chain=tuple(graph_name[n.key] for n in graph.longest_chain),
            entry_nodes=tuple(graph_name[n.key] for n in graph.entry_nodes),
            edges=tuple(EdgeModel(graph_name[e.source.key], graph_name[e.target.key], e.output.parameter.name,
                                  e.output.kind.value, e.output.max_records, e.recursive, e.loop_back)
                        for e in graph.edges),
            loops=tuple(_loop(loop, graph_name) for loop in graph.loops),
            node_id_slots=graph.node_id_slots,
            unrolled_depth=unrolled.depth,
            unrolled_depth_limit=max_graph_depth if max_graph_depth is not None else AMDX_MIN_GRAPH_DEPTH,
            unrolled_deepest=graph_name[unrolled.deepest.key] if unrolled.deepest is not None else None,
            backing_bytes=graph.backing_bytes,
            backing_bytes_without_max_records_per_node=graph.backing_bytes_without_max_records_per_node,
        ),
        entry_points=tuple(entry_point_reflection(results, e, names[e.key]) for e in stage_entries),
        resources=tuple(describe_resources(results, nodes)),
        specialization_constants=tuple(spec_constants(globals_)),
    )
