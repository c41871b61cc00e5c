"""Metadata, the inspect model's types: what `wgc inspect` shows, as typed records.

Stage: output model (built by `metadata.model.build_model`, read by the views `text`, `dot` and
`dxil`, printed by `--format json` through `to_json`).
Input: the values `build_model` reads from the results object of analysis.
Output: `InspectModel` and the records it holds; `to_json()` gives the JSON document of docs/reference.md
("The JSON model"), key for key and in that order; docs/reflection.schema.json is its JSON Schema
(and the reflection's). Resources, specialization constants, a node's attribute specialization
constants and the records of its input and outputs (`RecordLayout`) are the reflection's own
records (`metadata.reflection`), so they have one shape in both documents.

Invariants: frozen records; a view reads fields (a renamed or removed field fails type checking
and at run time), never keys of a dictionary; `to_json` only converts (tuples become lists,
nested records their JSON), so the JSON is the model's, byte for byte.
"""

from __future__ import annotations

from typing import Any

from wgc.cached_dataclass import dataclass
from wgc.metadata.reflection import AttributeSpecConstant, RecordLayout, Resource, SpecConstant
from wgc.metadata.reflection import NodeId as NodeIdModel   # a NodeID: sema's, as the reflection gives it
from wgc.metadata.reflection import DispatchGrid as GridFieldModel   # where a record's SV_DispatchGrid is
from wgc.metadata.reflection import EntryPointReflection as EntryPointModel   # another shader: the same record
from wgc.metadata.reflection import Interface as InterfaceModel  # noqa: F401  (for tests)
from wgc.metadata.reflection import Mesh as MeshModel
from wgc.metadata.reflection import PerEntry as PerEntryModel  # noqa: F401  (the name views and tests use)
from wgc.metadata.reflection import InputReflection as InputModel   # a node input: the same record
from wgc.metadata.reflection import OutputReflection as OutputModel   # a node output: the same record
from wgc.metadata.reflection import StageReflection as StageModel   # one (name, index) stage: the same record


def _node_id(node_id: NodeIdModel) -> dict[str, Any]:
    return {"name": node_id.name, "index": node_id.index}


def _list(values: tuple[int, ...] | None) -> list[int] | None:
    return list(values) if values is not None else None


def _grid_of(record: RecordLayout | None) -> GridFieldModel | None:
    grid = record.dispatch_grid if record is not None else None
    return GridFieldModel(grid.offset, grid.components, grid.bits) if grid is not None else None


@dataclass(frozen=True)
class LoopEntryModel:
    max_iterations: int | None
    max_records_per_iteration: int | None
    """None only in the model of a node whose attributes have errors."""

    def to_json(self) -> dict[str, Any]:
        return {"max_iterations": self.max_iterations, "max_records_per_iteration": self.max_records_per_iteration}


@dataclass(frozen=True)
class NodeModel:
    function: str
    id: NodeIdModel
    launch: str
    key: str = ""
    signature: str = ""
    entry_point: str = ""
    """"": the function's name (hand-built models)."""
    graph_name: str = ""
    """"": the NodeID's display name (hand-built models)."""
    program_entry: bool = False
    program_entry_explicit: bool = False
    num_threads: tuple[int, ...] = (1, 1, 1)
    wave_size: tuple[int, int, int] | None = None
    """[WaveSize(min, max, preferred)], 0 for an argument not written; None without the attribute."""
    dispatch_grid: tuple[int, ...] | None = None
    max_dispatch_grid: tuple[int, ...] | None = None
    max_recursion_depth: int | None = None
    local_root_arguments_table_index: int | None = None
    share_input_of: NodeIdModel | None = None
    loop_entry: LoopEntryModel | None = None
    loop: str | None = None
    """The graph name of the innermost loop's entry (None: in no loop)."""
    loops: tuple[NodeIdModel, ...] = ()
    """The entries of the loops holding this node, outermost first (the reflection's `loops`)."""
    depth: int = 0
    groupshared_bytes: int = 0
    mesh: MeshModel | None = None
    input: InputModel | None = None
    outputs: tuple[OutputModel, ...] = ()
    backing_bytes: int = 0
    resources: tuple[str, ...] = ()
    stages: tuple[StageModel, ...] = ()
    stage_stride: int | None = None
    max_node_recursion: int | None = None
    attribute_spec_constants: tuple[AttributeSpecConstant, ...] = ()
    limits_exceeded: tuple[str, ...] = ()
    """The spec's node output limits this node exceeds, in words (empty: none)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function, "key": self.key, "signature": self.signature, "entry_point": self.entry_point,
            "id": _node_id(self.id), "graph_name": self.graph_name, "launch": self.launch,
            "program_entry": self.program_entry, "program_entry_explicit": self.program_entry_explicit,
            "num_threads": list(self.num_threads), "wave_size": _list(self.wave_size),
            "dispatch_grid": _list(self.dispatch_grid),
            "max_dispatch_grid": _list(self.max_dispatch_grid), "max_recursion_depth": self.max_recursion_depth,
            "local_root_arguments_table_index": self.local_root_arguments_table_index,
            "share_input_of": _node_id(self.share_input_of) if self.share_input_of else None,
            "loop_entry": self.loop_entry.to_json() if self.loop_entry else None,
            "loop": self.loop, "loops": [_node_id(entry) for entry in self.loops], "depth": self.depth, "groupshared_bytes": self.groupshared_bytes,
            "mesh": self.mesh.to_json() if self.mesh else None,
            "input": self.input.to_json() if self.input else None,
            "outputs": [o.to_json() for o in self.outputs], "backing_bytes": self.backing_bytes,
            "resources": list(self.resources), "stages": [s.to_json() for s in self.stages],
            "stage_stride": self.stage_stride, "max_node_recursion": self.max_node_recursion,
            "attribute_spec_constants": [c.to_json() for c in self.attribute_spec_constants],
            "limits_exceeded": list(self.limits_exceeded),
        }


@dataclass(frozen=True)
class EdgeModel:
    source: str
    """JSON "from": the graph name of the node whose output it is."""
    target: str
    """JSON "to"."""
    parameter: str
    kind: str = "NodeOutput"
    max_records: int | None = None
    recursive: bool = False
    loop_back: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "parameter": self.parameter, "kind": self.kind,
                "max_records": self.max_records, "recursive": self.recursive, "loop_back": self.loop_back}


@dataclass(frozen=True)
class LoopModel:
    entry: str
    members: tuple[str, ...]
    max_iterations: int | None
    parent: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"entry": self.entry, "members": list(self.members), "max_iterations": self.max_iterations,
                "parent": self.parent}


@dataclass(frozen=True)
class GraphModel:
    depth: int = 0
    depth_limit: int = 0
    longest_chain: tuple[str, ...] = ()
    entry_nodes: tuple[str, ...] = ()
    edges: tuple[EdgeModel, ...] = ()
    loops: tuple[LoopModel, ...] = ()
    node_id_slots: int = 0
    unrolled_depth: int | None = None
    unrolled_depth_limit: int | None = None
    unrolled_deepest: str | None = None
    backing_bytes: int = 0
    backing_bytes_without_max_records_per_node: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "depth": self.depth, "depth_limit": self.depth_limit, "longest_chain": list(self.longest_chain),
            "entry_nodes": list(self.entry_nodes), "edges": [e.to_json() for e in self.edges],
            "loops": [loop.to_json() for loop in self.loops], "node_id_slots": self.node_id_slots,
            "unrolled_depth": self.unrolled_depth, "unrolled_depth_limit": self.unrolled_depth_limit,
            "unrolled_deepest": self.unrolled_deepest, "backing_bytes": self.backing_bytes,
            "backing_bytes_without_max_records_per_node": self.backing_bytes_without_max_records_per_node,
        }


@dataclass(frozen=True)
class InspectModel:
    profile: str
    nodes: tuple[NodeModel, ...]
    graph: GraphModel
    wgc_version: str = ""
    entry_points: tuple[EntryPointModel, ...] = ()
    resources: tuple[Resource, ...] = ()
    specialization_constants: tuple[SpecConstant, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "wgc_version": self.wgc_version, "profile": self.profile, "nodes": [n.to_json() for n in self.nodes],
            "graph": self.graph.to_json(), "entry_points": [e.to_json() for e in self.entry_points],
            "resources": [r.to_json() for r in self.resources],
            "specialization_constants": [c.to_json() for c in self.specialization_constants],
        }
