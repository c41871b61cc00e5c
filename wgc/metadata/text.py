"""Text view of the inspect model: the default output of `wgc inspect`.

Stage:      output view (runs after the inspect model is built; reads nothing else).
Input:      the inspect model (`metadata.schema.InspectModel`; its JSON is docs/reference.md's "The JSON model").
Output:     `render_text(model) -> str`, a human-readable summary:

                work graph: 3 nodes, profile lib_6_9, depth 3 (limit 48)
                entries: Generate

                Generate  [broadcasting, entry]  NodeID Generate[0]
                  threads: 64x1x1
                  max dispatch grid: 1024x1x1
                  input: DispatchNodeInputRecord<EntryRecord> (8 bytes, align 4),
                         SV_DispatchGrid at byte 0 (1 x uint)      [one line in the output]
                  output 0 Classify: NodeOutput<ItemRecord> (4 bytes, align 4), MaxRecords 64 -> Classify
                  backing memory: 256 bytes
                ...
                graph:
                  edges:
                    Generate --Classify (≤64)--> Classify
                  loops: none
                  longest chain: Generate -> Classify -> Accumulate (depth 3)
                  NodeID slots: 3
                  backing memory: 260 bytes

                resources:                                 [only when there are some]
                  Histogram: RWStructuredBuffer<uint>, register(u0) -> set 0, binding 0
                    (storage buffer), uint: 4 bytes std430, stride 4, counter at set 0,
                    binding 1 (unused); used by Accumulate          [one line in the output]
                  Consts: cbuffer, implicit register (b) -> set 0, binding 2 (uniform
                    buffer), 32 bytes std140; used by Generate
                    @0 float4 tint                          [layout: one line per member,
                    @16 uint seed                            nested members indented]

                specialization constants:                  [only when there are some]
                  SpecId 3: uint Count = 4

            A node's header is `Key  [launch, entry]  NodeID name[index]  SPIR-V entry point E`
            (the key is the function name; `f.2` for the second node shader named f, whose
            body then starts with `function: <signature>`, as the first's does); its indented
            lines appear only when they apply (grid, recursion, loop, the SPIR-V AMDX stages of
            a loop member, shared input, root argument table, groupshared, resources reached);
            the graph's unrolled depth is shown when it differs from its depth. The graph section names a node by its
            NodeID, followed by ` (key)` when several nodes carry that NodeID.  Edges end with `[recursion]`, `[loop back-edge]`
            or `[missing target]` when relevant.
            The library's compute, pixel, mesh and amplification shaders follow the nodes, each
            `Key  [pixel shader]  SPIR-V entry point E` with its signature, threads, mesh counts,
            its interface (`in uv: float2 TEXCOORD0 -> Location 0`, `out verts.pos: float4
            SV_Position -> BuiltIn Position`, ", per primitive" on a primitive's values) and resources.
Invariants: deterministic for a given model (model order is kept; nothing is sorted by
            hash); no trailing spaces on any line; the text ends with exactly one newline;
            never mutates the model.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from wgc.metadata.reflection import FieldLayout, Resource
from wgc.metadata.schema import (EdgeModel, EntryPointModel, GridFieldModel, InspectModel, InterfaceModel, LoopModel,
                                 NodeIdModel, NodeModel, OutputModel)

UNBOUNDED = 4294967295


def display_name(node_id: NodeIdModel | None) -> str:
    """The display name of a NodeID: its name, plus "[i]" when the index is not 0."""
    if not node_id:
        return "?"
    index = node_id.index or 0
    return f"{node_id.name}[{index}]" if index else str(node_id.name)


def _xyz(values: tuple[int, ...] | None) -> str:
    return "x".join(str(v) for v in values or [])


def _bytes(count: int | None) -> str:
    return f"{count} byte" if count == 1 else f"{count} bytes"


def _record_type(kind: str, record: str | None) -> str:
    return f"{kind}<{record}>" if record else kind


def _layout(size: int | None, align: int | None) -> str:
    return f" ({_bytes(size)}, align {align})" if size else ""


def _grid_field(field: GridFieldModel) -> str:
    scalar = "uint16_t" if field.bits == 16 else "uint"
    return f"SV_DispatchGrid at byte {field.offset} ({field.components} x {scalar})"


def _input_line(node: NodeModel) -> str:
    inp = node.input
    if inp is None:
        return "input: none"
    parts = [_record_type(inp.kind, inp.record.type if inp.record else None) + _layout(inp.record_size, inp.record_alignment)]
    if inp.dispatch_grid_field:
        parts.append(_grid_field(inp.dispatch_grid_field))
    if inp.max_records_written and inp.max_records is not None:
        parts.append(f"MaxRecords {inp.max_records}")
    if inp.globally_coherent:
        parts.append("globallycoherent")
    if inp.track_rw_input_sharing:
        parts.append("NodeTrackRWInputSharing")
    return "input: " + ", ".join(parts)


def _target_text(out: OutputModel, node_names: set[str]) -> str:
    target = out.target
    name, first = target.name, target.index or 0
    size = out.array_size
    if size is None:
        text = display_name(target)
    elif size == UNBOUNDED:
        text = f"{name}[{first}..]"
    else:
        text = f"{name}[{first}..{first + size - 1}]"
    if size is None and display_name(target) not in node_names:
        text += " (no such node)"
    return text


def _output_line(index: int, out: OutputModel, node_names: set[str]) -> str:
    parts = [_record_type(out.kind, out.record.type if out.record else None) + _layout(out.record_size, out.record_alignment)]
    if out.max_records_shared_with is not None:
        owner = out.max_records_shared_with
        owner_index = out.max_records_shared_with_index
        where = f" (output {owner_index})" if owner_index is not None else ""
        parts.append(f"MaxRecords shared with {owner}{where}")
    elif out.max_records is not None:
        parts.append(f"MaxRecords {out.max_records}")
    if out.max_records_per_node is not None:
        implied = "" if out.max_records_per_node_written else " (implied)"
        parts.append(f"MaxRecordsPerNode {out.max_records_per_node}{implied}")
    size = out.array_size
    if size is not None:
        parts.append("NodeArraySize unbounded" if size == UNBOUNDED else f"NodeArraySize {size}")
    if out.unbounded_sparse_nodes:
        parts.append("UnboundedSparseNodes")
    elif out.allow_sparse_nodes:
        parts.append("AllowSparseNodes")
    if out.track_rw_input_sharing:
        parts.append("NodeTrackRWInputSharing")
    return (f"output {index} {out.name}: " + ", ".join(parts)
            + " -> " + _target_text(out, node_names))


def _graph_name(node: NodeModel) -> str:
    """How the graph section names `node` (the model's `graph_name`)."""
    return node.graph_name or display_name(node.id)


def _node_lines(node: NodeModel, node_names: set[str], overloaded: bool) -> list[str]:
    tags = [node.launch]
    if node.program_entry:
        tags.append("entry")
    if node.loop_entry:
        tags.append("loop entry")
    lines = [f"{node.key or node.function}  [{', '.join(tags)}]  "
             f"NodeID {node.id.name}[{node.id.index or 0}]  "
             f"SPIR-V entry point {node.entry_point or node.function}"]
    body = [f"function: {node.signature}"] if overloaded and node.signature else []
    body.append(f"threads: {_xyz(node.num_threads)}")
    if node.dispatch_grid:
        body.append(f"dispatch grid: {_xyz(node.dispatch_grid)}")
    if node.max_dispatch_grid:
        body.append(f"max dispatch grid: {_xyz(node.max_dispatch_grid)}")
    if node.max_recursion_depth:
        body.append(f"recursion: max depth {node.max_recursion_depth}")
    loop_entry = node.loop_entry
    if loop_entry:
        body.append(f"loop entry: max {loop_entry.max_iterations} iterations, "
                    f"max {loop_entry.max_records_per_iteration} records per iteration")
    if node.loop:
        body.append(f"loop: member of {node.loop}")
    stages = stages_text(node)
    if stages:
        body.append(f"stages: {stages}")
    if node.share_input_of:
        body.append(f"shares input of: {display_name(node.share_input_of)}")
    if node.local_root_arguments_table_index is not None:
        body.append(f"local root arguments table index: {node.local_root_arguments_table_index}")
    if node.groupshared_bytes:
        body.append(f"groupshared: {_bytes(node.groupshared_bytes)}")
    for spec in node.attribute_spec_constants:
        where = f"({spec.parameter})" if spec.parameter else ""
        body.append(f"specialised: {spec.attribute}{where}[{spec.argument}] = {spec.name} "
                    f"(specialisation constant {spec.spec_id}, default {spec.default})")
    mesh = node.mesh
    if mesh:
        line = (f"mesh: {mesh.output_topology} topology, max {mesh.max_vertices} vertices, "
                f"max {mesh.max_primitives} primitives")
        per_entry = mesh.max_input_records_per_graph_entry_record
        if per_entry:
            shared = ", shared across the node array" if per_entry.shared_across_node_array else ""
            line += f", max {per_entry.count} input records per graph entry record{shared}"
        body.append(line)
    body.append(_input_line(node))
    outputs = node.outputs
    if not outputs:
        body.append("outputs: none")
    body.extend(_output_line(i, out, node_names) for i, out in enumerate(outputs))
    if node.resources:
        body.append("resources: " + ", ".join(node.resources))
    body.append(f"backing memory: {_bytes(node.backing_bytes)}")
    return lines + ["  " + line for line in body]


def _ranges(indices: list[int]) -> str:
    """`0-15, 17-32`: sorted indices as ranges."""
    parts: list[str] = []
    start = previous = None
    for index in sorted(indices) + [None]:
        if start is not None and (index is None or index != previous + 1):   # type: ignore[operator]
            parts.append(str(start) if start == previous else f"{start}-{previous}")
            start = None
        if index is not None and start is None:
            start = index
        previous = index
    return ", ".join(parts)


def stages_text(node: NodeModel) -> str | None:
    """The node's SPIR-V AMDX stages when its loops unroll it (None when it is one plain stage):
    `17 at index 0-15, terminator 16` or the recursion form of a self-feeding loop entry."""
    stages = node.stages
    recursion = node.max_node_recursion
    self_feeding = node.loop_entry and recursion is not None and not node.max_recursion_depth
    if len(stages) <= 1 and not self_feeding:
        return None
    name = node.id.name
    members = [s.index for s in stages if not s.terminator]
    terminators = [s.index for s in stages if s.terminator]
    text = f"{len(stages)} ({name} at index {_ranges(members)}"
    if terminators:
        text += f"; terminator{'s' if len(terminators) > 1 else ''} {_ranges(terminators)}"
    text += ")"
    if self_feeding:
        text += (f", iterations as recursion levels: MaxNodeRecursionAMDX {recursion}, the last level the "
                 "terminator")
    return text


def _edge_line(edge: EdgeModel, outputs: dict[tuple[str, str], OutputModel],
               node_names: set[str]) -> str:
    out = outputs.get((edge.source, edge.parameter))
    if edge.max_records is not None:
        budget = f" (≤{edge.max_records})"
    elif out is not None and out.max_records_shared_with is not None:
        budget = f" (shared with {out.max_records_shared_with})"
    else:
        budget = ""
    line = f"{edge.source} --{edge.parameter}{budget}--> {edge.target}"
    notes = []
    if edge.recursive:
        notes.append("recursion")
    if edge.loop_back:
        notes.append("loop back-edge")
    if edge.target not in node_names:
        notes.append("missing target")
    return line + "".join(f"  [{note}]" for note in notes)


def _loop_lines(loops: tuple[LoopModel, ...], records: dict[str, int | None]) -> list[str]:
    children: dict[str | None, list[LoopModel]] = {}
    entries = {loop.entry for loop in loops}
    for loop in loops:
        parent = loop.parent if loop.parent in entries else None
        children.setdefault(parent, []).append(loop)
    lines: list[str] = []
    seen: set[str] = set()

    def walk(parent: str | None, depth: int) -> None:
        for loop in children.get(parent, []):
            if loop.entry in seen:
                continue
            seen.add(loop.entry)
            inside = f" (inside {loop.parent})" if loop.parent else ""
            per_iteration = ""
            if loop.entry in records:
                per_iteration = f", max {records[loop.entry]} records per iteration"
            lines.append("    " + "  " * depth + f"{loop.entry}{inside}: max "
                         f"{loop.max_iterations} iterations{per_iteration}; members: "
                         + ", ".join(loop.members))
            walk(loop.entry, depth + 1)

    walk(None, 0)
    for loop in loops:  # a parent cycle (malformed model): still show every loop once
        if loop.entry not in seen:
            seen.add(loop.entry)
            lines.append(f"    {loop.entry}: max {loop.max_iterations} iterations; "
                         "members: " + ", ".join(loop.members))
    return lines


def _interface_line(value: InterfaceModel) -> str:
    """`in uv: float2 TEXCOORD0 -> Location 0` (a field: `verts.pos`; an index or payload: its built-in or storage)."""
    name = value.parameter + (f".{value.field}" if value.field else "")
    semantic = f" {value.semantic}" if value.semantic else ""
    if value.builtin:
        where = f"BuiltIn {value.builtin}"
    elif value.location is not None:
        where = f"Location {value.location}"
    else:
        where = "TaskPayloadWorkgroupEXT"
    index = (value.builtin or "").endswith("IndicesEXT")   # the indices: per primitive by nature
    per_primitive = ", per primitive" if value.per_primitive and not index else ""
    return f"{value.direction} {name}: {value.type}{semantic} -> {where}{per_primitive}"


def _entry_point_lines(entry: EntryPointModel) -> list[str]:
    """A compute, pixel, mesh or amplification shader of the library (outside the graph)."""
    lines = [f"{entry.key}  [{entry.stage} shader]  SPIR-V entry point {entry.entry_point}"]
    body = [f"function: {entry.signature}"]
    if entry.num_threads:
        body.append(f"threads: {_xyz(entry.num_threads)}")
    mesh = entry.mesh
    if mesh:
        body.append(f"mesh: {mesh.output_topology} topology, max {mesh.max_vertices} vertices, "
                    f"max {mesh.max_primitives} primitives")
    interface = entry.interface
    body.append("interface:" if interface else "interface: none")
    body.extend("  " + _interface_line(value) for value in interface)
    if entry.resources:
        body.append("resources: " + ", ".join(entry.resources))
    return lines + ["  " + line for line in body]


def render_text(model: InspectModel) -> str:
    """Render the inspect model as the human-readable summary described in the module doc."""
    nodes = model.nodes
    graph = model.graph
    node_names = {display_name(node.id) for node in nodes}
    graph_names = {_graph_name(node) for node in nodes}
    functions = Counter(node.function for node in nodes)
    count = len(nodes)
    lines = [f"work graph: {count} node{'' if count == 1 else 's'}, profile "
             f"{model.profile}, depth {graph.depth} "
             f"(limit {graph.depth_limit})",
             "entries: " + (", ".join(graph.entry_nodes) or "none")]
    for node in nodes:
        lines.append("")
        lines.extend(_node_lines(node, node_names, functions[node.function] > 1))

    for entry in model.entry_points:
        lines.append("")
        lines.extend(_entry_point_lines(entry))

    outputs = {(_graph_name(node), out.name): out
               for node in nodes for out in node.outputs}
    lines += ["", "graph:"]
    edges = graph.edges
    lines.append("  edges:" if edges else "  edges: none")
    lines.extend("    " + _edge_line(edge, outputs, graph_names) for edge in edges)
    loops = graph.loops
    lines.append("  loops:" if loops else "  loops: none")
    records = {_graph_name(node): node.loop_entry.max_records_per_iteration
               for node in nodes if node.loop_entry}
    lines.extend(_loop_lines(loops, records))
    chain = graph.longest_chain
    lines.append(f"  longest chain: {' -> '.join(chain) or 'none'} (depth {graph.depth})")
    unrolled = graph.unrolled_depth
    if unrolled is not None and unrolled != graph.depth:
        lines.append(f"  unrolled for SPIR-V AMDX: depth {unrolled} (deepest: {graph.unrolled_deepest}; "
                     f"maxExecutionGraphDepth {graph.unrolled_depth_limit})")
    lines.append(f"  NodeID slots: {graph.node_id_slots}")
    backing = graph.backing_bytes
    without = graph.backing_bytes_without_max_records_per_node
    memory = f"  backing memory: {_bytes(backing)}"
    if without != backing:
        memory += (f" (without [MaxRecordsPerNode]: {_bytes(without)}; "
                   f"saves {_bytes(without - backing)})")
    lines.append(memory)
    resources = model.resources
    if resources:
        lines += ["", "resources:"]
        for resource in resources:
            lines.extend(_resource_lines(resource))
    specs = model.specialization_constants
    if specs:
        lines += ["", "specialization constants:"]
        lines.extend(f"  SpecId {c.spec_id}: {c.type} {c.name} = {_default(c.default)}" for c in specs)
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _register(resource: Resource) -> str:
    register = resource.register
    if register is None:
        return f"implicit register ({resource.register_class})"
    space = f", space{register.space}" if register.space else ""
    return f"register({register.register_class}{register.number}{space})"


def _users(users: tuple[str, ...]) -> str:
    return "used by " + ", ".join(users) if users else "not used by any node"


def _field_lines(fields: tuple[FieldLayout, ...], depth: int) -> list[str]:
    lines = []
    for f in fields:
        stride = f" (stride {f.array_stride})" if f.array_stride is not None else ""
        if f.matrix_stride is not None:
            major = "row_major" if f.row_major else "column_major"
            stride += f" ({major}, matrix stride {f.matrix_stride})"
        semantic = f" : {f.semantic}" if f.semantic else ""
        lines.append("  " * depth + f"@{f.offset} {f.type} {f.name}{semantic}{stride}")
        lines.extend(_field_lines(f.fields, depth + 1))
    return lines


def _resource_lines(resource: Resource) -> list[str]:
    """`Name: type, register(u0) -> set 0, binding 0 (storage buffer); used by A, B`, then the layout."""
    parts = [resource.type]
    if resource.globally_coherent:
        parts[0] = "globallycoherent " + parts[0]
    layout = resource.layout
    if resource.push_constant:
        where = "push constant"
    else:
        count = resource.descriptor_count
        times = "" if count == 1 else (" x unbounded" if count == 0 else f" x {count}")
        where = (f"{_register(resource)} -> set {resource.set}, binding {resource.binding} "
                 f"({resource.descriptor_type}{times})")
    parts.append(where)
    if layout is not None:
        stride = f", stride {layout.stride}" if layout.stride is not None else ""
        of = f"{layout.type}: " if layout.stride is not None else ""
        parts.append(f"{of}{_bytes(layout.size)} {layout.rule}{stride}")
    counter = resource.counter
    if counter is not None:
        users = counter.used_by
        parts.append(f"counter at set {counter.set}, binding {counter.binding} "
                     f"({'used by ' + ', '.join(users) if users else 'unused'})")
    lines = [f"  {resource.name}: " + ", ".join(parts) + "; " + _users(resource.used_by)]
    if layout is not None:
        lines.extend(_field_lines(layout.fields, 2))
    return lines


def _default(value: Any) -> str:
    """A specialization constant's default as HLSL writes it (`true`, `4`, `-2.5`); a non-finite float
    as the JSON model's string for it, quoted (`'inf'`)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(repr(value))
    return ("true" if value else "false") if isinstance(value, bool) else repr(value)
