"""Entry point names of SPIR-V modules (SPIR-V back end; also read by the metadata model).

Input: the `NodeInfo`s of the nodes one module holds.
Output: `entry_point_names`: the OpEntryPoint name of each node (by function name), and the
node-array groups that could not be named by NodeID.

Invariants: a node's entry point is named after its NodeID name (ShaderIndexAMDX carries the
index), so that an output's PayloadNodeNameAMDX links to its target on a driver. Members of one
node array share a NodeID name, and one module cannot hold two GLCompute entry points of one name
(spirv-val: "Entry points cannot share the same name and ExecutionMode"): when two or more are in
one module they keep their function names. A module of one node (`--split-nodes`, `-E`) is
always named by NodeID. No other imports of the back end: the metadata model calls this too.
"""

from __future__ import annotations

from wgc.sema.nodes import NodeInfo


def entry_point_names(nodes: list[NodeInfo]) -> tuple[dict[str, str], list[list[NodeInfo]]]:
    """function name -> entry point name, and the groups of array members that kept their
    function names (each with two or more nodes, in source order)."""
    by_name: dict[str, list[NodeInfo]] = {}
    for node in nodes:
        by_name.setdefault(node.id.name, []).append(node)
    names = {n.function.name: n.id.name for n in nodes}
    clashes = [group for group in by_name.values() if len(group) > 1]
    for group in clashes:
        for node in group:
            names[node.function.name] = node.function.name
    return names, clashes
