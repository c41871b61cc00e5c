"""Metadata, the inspect model: what wgc understood of a work graph, as plain data.

Input: the node descriptions and the graph of semantic analysis (`sema.nodes.NodeInfo`,
`sema.graph.GraphInfo`), the profile, wgc's version and the module's globals (its resources,
uniform and push-constant blocks, and specialization constants, `[[vk::constant_id]]`).
Output: a dict of JSON types following the schema in README.md ("The JSON model"), the one model every
`wgc inspect` view renders (`--format json` prints it as is). Resources (`"resources"`: every one the
program declares, with the nodes that reach it) and specialization constants are the typed pieces of
`metadata.reflection` (`describe_resources`, `spec_constants`) as JSON: the reflection and the
inspect model describe them alike.

Invariants: only plain data (dict, list, str, int, bool, None); nodes in source order,
outputs in declaration order, edges in node-then-output order, loops innermost first, resources
and specialization constants in source order; the same input always gives the same model (no
ids, paths or timestamps). `entry_point` is the node's OpEntryPoint name in the SPIR-V of the
whole file (`sema.modules.entry_point_names`: the NodeID name, or the function name for members of
one node array). Bindings, layouts and resource use are sema's decisions, read, never recomputed.
"""

from __future__ import annotations

from typing import Any

from wgc import ir
from wgc.sema.graph import GraphInfo, Loop
from wgc.sema.nodes import DispatchGridField, NodeId, NodeInfo, NodeInput, NodeOutput
from wgc.metadata.reflection import describe_resources, spec_constants
from wgc.sema.modules import entry_point_names
from wgc.sema.usage import resource_use


def _id(node_id: NodeId) -> dict[str, Any]:
    return {"name": node_id.name, "index": node_id.index}


def _grid(value: tuple[int, int, int] | None) -> list[int] | None:
    return list(value) if value is not None else None


def _grid_field(grid: DispatchGridField | None) -> dict[str, int] | None:
    return {"offset": grid.offset, "components": grid.components, "bits": grid.bits} if grid else None


def _input(node_input: NodeInput | None) -> dict[str, Any] | None:
    if node_input is None:
        return None
    return {
        "kind": node_input.kind.value,
        "record": str(node_input.record) if node_input.record is not None else None,
        "record_size": node_input.layout.size if node_input.layout else 0,
        "record_alignment": node_input.layout.alignment if node_input.layout else 0,
        "max_records": node_input.max_records,
        "globally_coherent": node_input.globally_coherent,
        "track_rw_input_sharing": node_input.track_rw_input_sharing,
        "dispatch_grid_field": _grid_field(node_input.dispatch_grid_field),
    }


def _output(output: NodeOutput) -> dict[str, Any]:
    return {
        "parameter": output.parameter.name,
        "kind": output.kind.value,
        "target": _id(output.target),
        "record": str(output.record) if output.record is not None else None,
        "record_size": output.record_size,
        "record_alignment": output.layout.alignment if output.layout else 0,
        "track_rw_input_sharing": output.track_rw_input_sharing,
        "max_records": output.max_records,
        "max_records_shared_with": output.shared_with,
        "max_records_shared_with_index": output.shared_with_index,
        "max_records_per_node": output.max_records_per_node,
        "max_records_per_node_written": output.max_records_per_node_written,
        "array_size": output.array_size,
        "allow_sparse_nodes": output.allow_sparse_nodes,
        "unbounded_sparse_nodes": output.unbounded_sparse_nodes,
        "dispatch_grid_field": _grid_field(output.dispatch_grid_field),
    }


def _node(node: NodeInfo, graph: GraphInfo, entries: set[NodeId], entry_point: str) -> dict[str, Any]:
    loop = graph.loop_of.get(node.id)
    use = resource_use(node.function)
    return {
        "function": node.function.name,
        "entry_point": entry_point,
        "id": _id(node.id),
        "launch": node.launch,
        "program_entry": node.id in entries,
        "program_entry_explicit": node.program_entry_explicit,
        "num_threads": list(node.num_threads),
        "dispatch_grid": _grid(node.dispatch_grid),
        "max_dispatch_grid": _grid(node.max_dispatch_grid),
        "max_recursion_depth": node.max_recursion_depth,
        "local_root_arguments_table_index": node.local_root_arguments_table_index,
        "share_input_of": _id(node.share_input_of) if node.share_input_of else None,
        "loop_entry": ({"max_iterations": node.max_loop_iterations,
                        "max_records_per_iteration": node.max_records_per_loop_iteration}
                       if node.is_loop_entry else None),
        "loop": str(loop.entry.id) if loop is not None else None,
        "depth": graph.depth_of.get(node.id, 0),
        "groupshared_bytes": node.groupshared_bytes,
        "input": _input(node.input),
        "outputs": [_output(o) for o in node.outputs],
        "backing_bytes": graph.backing_of.get(node.id, 0),
        "resources": [v.name for v in use.variables] + [f"counter.var.{v.name}" for v in use.counters],
    }


def _loop(loop: Loop) -> dict[str, Any]:
    return {
        "entry": str(loop.entry.id),
        "members": [str(m.id) for m in loop.members],
        "max_iterations": loop.entry.max_loop_iterations,
        "parent": str(loop.parent.entry.id) if loop.parent is not None else None,
    }


def build_model(nodes: tuple[NodeInfo, ...] | list[NodeInfo], graph: GraphInfo, version: str,
                globals_: tuple[ir.Variable, ...] | list[ir.Variable] = ()) -> dict[str, Any]:
    entries = {n.id for n in graph.entry_nodes}
    names, _ = entry_point_names(list(nodes))
    return {
        "wgc_version": version,
        "profile": graph.profile,
        "nodes": [_node(n, graph, entries, names[n.function.name]) for n in nodes],
        "graph": {
            "depth": graph.depth,
            "depth_limit": graph.depth_limit,
            "longest_chain": [str(n.id) for n in graph.longest_chain],
            "entry_nodes": [str(n.id) for n in graph.entry_nodes],
            "edges": [{"from": str(e.source.id), "to": str(e.target.id), "parameter": e.output.parameter.name,
                       "kind": e.output.kind.value, "max_records": e.output.max_records,
                       "recursive": e.recursive, "loop_back": e.loop_back} for e in graph.edges],
            "loops": [_loop(loop) for loop in graph.loops],
            "node_id_slots": graph.node_id_slots,
            "backing_bytes": graph.backing_bytes,
            "backing_bytes_without_max_records_per_node": graph.backing_bytes_without_max_records_per_node,
        },
        "resources": [r.to_json() for r in describe_resources(globals_, nodes)],
        "specialization_constants": [c.to_json() for c in spec_constants(globals_)],
    }
