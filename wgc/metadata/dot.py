"""Graphviz view of the inspect model: `wgc inspect --format dot|svg|png`.

Stage:      output view (runs after the inspect model is built; reads nothing else).
Input:      the inspect model (`metadata.schema.InspectModel`; its JSON is docs/reference.md's "The JSON model"); for
            `render_image`, DOT text and an image format ("svg" or "png").
Output:     `render_dot(model, resources=False) -> str`, a Graphviz digraph:

                digraph "work graph" {
                  graph [label="lib_6_9: 3 nodes, depth 3 of 48", labelloc=t, ...];
                  node [shape=box, style=rounded, fontname="Helvetica"];
                  edge [fontname="Helvetica", fontsize=10];
                  "Generate" [label="Generate\\nbroadcasting, max grid 1024x1x1\\nthreads 64x1x1\\nEntryRecord",
                              style="rounded,bold", peripheries=2];
                  "Classify" [label="Classify\\nthread\\nItemRecord"];
                  "Sum" [label="Sum\\ncoalescing, ≤32 records\\nthreads 32x1x1\\nBinRecord\\nover the output limits",
                         color=red, fontcolor=red, tooltip="..."];
                  subgraph "cluster_loop_0" {
                    graph [label="loop L (≤16 iterations, ≤4 records/iteration)", style=dashed, ...];
                    "L" [...];  ... the loop's own nodes, then nested loop clusters ...
                  }
                  "Missing" [label="Missing\\n(missing)", style="rounded,dotted"];
                  "Generate" -> "Classify" [label="Classify (≤64)"];
                  "R" -> "R" [label="Recurse\\nrecursion ≤ 3", style=dashed];
                  "M" -> "L" [label="Next (≤4)\\nloop", color=blue, fontcolor=blue, constraint=false];
                  "Sum" -> "Copy" [label="shared input", style=dashed, color=darkgreen, ..., constraint=false];
                  {rank=same; "Sum"; "Copy"}
                  subgraph "resources" { rank=sink; "resource Histogram" [...]; }   ... with `resources` ...
                  "Accumulate" -> "resource Histogram" [style=dashed, ...];
                  subgraph "legend" { rank=sink; "(legend)" [label="legend\\l...\\l", shape=note, ...]; }
                }

            One DOT node per node, identified by its `graph_name` (the NodeID's display name:
            name, plus "[i]" when i > 0; followed by " (key)" when several nodes carry that
            NodeID), labelled with the display name, the key (function name, `f.2` for a
            second overload) when it differs, the launch mode with what sizes a launch (the
            fixed or maximum dispatch grid; a coalescing node's input MaxRecords, 1 when not
            written), the thread group (not for thread launch), and the input record type
            ("EmptyNodeInput" / "no input" without a record).  Program entries are
            bold with a double border; a loop member's label ends with its SPIR-V AMDX stages
            (`text.stages_text`; beyond 48 characters, their count and index range), and the
            caption adds the unrolled depth where it differs.
            A limit exceeded is red, with the reason as the tooltip (SVG): a node deeper than
            the graph's depth limit (32, 48 with Work Graph Loops), the deepest node when the
            unrolled depth exceeds maxExecutionGraphDepth (`--max-graph-depth`, 32), a node over
            the spec's node output limits (`NodeModel.limits_exceeded`), and the caption when a
            depth is over.  Every loop is a `cluster_loop_<n>` subgraph (n = its
            position in graph.loops) nested inside its parent's cluster; a node is declared in
            its innermost loop's cluster.  Edge targets that are not nodes become dotted
            placeholder nodes, and edges to them are dotted.  `[NodeShareInputOf(X)]` is a dashed
            green edge from X to the sharing node, which does not constrain the ranking (both are
            put on one rank when neither is in a loop cluster).  With `resources`, each resource some node reaches is
            a gray cylinder ("resource <name>", so it cannot clash with a node; its name, type,
            set and binding, and "read", "written" or "read, written": the model's `access`) on
            the last rank, joined to its users by dashed, undirected lines that do not constrain
            the ranking.  The library's
            compute, pixel, mesh and amplification shaders are separate dashed square boxes
            ("entry <key>": key, stage, threads, mesh counts), joined to nothing.  A legend note
            ("(legend)", on the last rank) explains the edge labels and styles the picture uses
            (none without edges).
            `render_image(dot_text, fmt) -> bytes` runs Graphviz `dot -T<fmt>`; raises
            `GraphvizMissing` when `dot` is not on PATH, `GraphvizError` when it fails.
Invariants: deterministic (model order for nodes, clusters and edges; placeholders in
            first-use order); every identifier and label is a quoted, escaped DOT string;
            no trailing spaces; ends with a newline; never mutates the model.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from wgc.metadata.reflection import Resource
from wgc.metadata.schema import EdgeModel, EntryPointModel, GraphModel, InspectModel, LoopModel, NodeModel
from wgc.metadata.text import display_name, stages_text

IMAGE_FORMATS = ("svg", "png")
LOOP_COLOR = "blue"
FONT = ("fontname", '"Helvetica"')
RESOURCE_PREFIX = "resource "
"""DOT identifiers of resources: the prefix keeps them apart from node display names."""
RESOURCE_STYLE = [("shape", "cylinder"), ("color", "gray40"), ("fontcolor", "gray40"), ("fontsize", "10")]
ENTRY_PREFIX = "entry "
"""DOT identifiers of the other stages' entry points (outside the graph): kept apart from node names."""
ENTRY_STYLE = [("shape", "box"), ("style", "dashed"), ("color", "gray40"), ("fontcolor", "gray40")]
SHARE_COLOR = "darkgreen"
SHARE_EDGE = [("style", "dashed"), ("color", SHARE_COLOR), ("fontcolor", SHARE_COLOR), ("arrowhead", "empty"),
              ("constraint", "false")]
"""[NodeShareInputOf]: the shared node -> the node reading its input (ranked beside it, not below)."""
STAGES_WIDTH = 48
"""A loop member's stages longer than this (`text.stages_text`) are shown as their count and index range."""
OVER_COLOR = "red"
"""A node, or the caption, over a limit of the spec (depth, node output limits)."""
LEGEND = "(legend)"
"""The DOT identifier of the legend note: parentheses keep it apart from node names (NodeIDs)."""
LEGEND_STYLE = [("shape", "note"), ("fontsize", "9"), ("color", "gray40"), ("fontcolor", "gray30")]
RESOURCE_EDGE = [("style", "dashed"), ("color", "gray60"), ("arrowhead", "none"), ("constraint", "false")]


class GraphvizError(RuntimeError):
    """Graphviz `dot` could not render the graph."""


class GraphvizMissing(GraphvizError):
    """The Graphviz `dot` executable is not installed (not on PATH)."""

    def __init__(self) -> None:
        super().__init__("Graphviz 'dot' is not installed; install Graphviz "
                         "(e.g. 'apt-get install graphviz') or use --format dot and render it yourself")


def _escape(text: Any) -> str:
    return (str(text).replace("\\", "\\\\").replace('"', '\\"')
            .replace("\r", " ").replace("\n", " "))


def quote(text: Any) -> str:
    """A DOT quoted string (ID) holding `text` literally."""
    return f'"{_escape(text)}"'


def label(*lines: Any) -> str:
    """A quoted DOT label with one line per argument (escaped, joined by DOT's \\n)."""
    return '"' + "\\n".join(_escape(line) for line in lines) + '"'


def _attrs(pairs: list[tuple[str, str]]) -> str:
    return "[" + ", ".join(f"{key}={value}" for key, value in pairs) + "]"


def graph_name(node: NodeModel) -> str:
    """The node's DOT identifier: the model's `graph_name` (its NodeID, plus ` (key)` when shared)."""
    return node.graph_name or display_name(node.id)


def _xyz(values: tuple[int, ...]) -> str:
    return "x".join(str(v) for v in values)


def _launch_lines(node: NodeModel) -> list[str]:
    """The launch mode with what sizes its launches: the grid (broadcasting, mesh) or the records per
    group (coalescing), then the group's threads (none for thread launch)."""
    mesh = node.mesh
    first = f"mesh ({mesh.output_topology})" if mesh else node.launch
    if node.dispatch_grid:
        first += f", grid {_xyz(node.dispatch_grid)}"
    elif node.max_dispatch_grid:
        first += f", max grid {_xyz(node.max_dispatch_grid)}"
    elif node.launch == "coalescing":
        count = node.input.max_records if node.input is not None else None
        first += f", ≤{count or 1} records"
    if node.launch == "thread":
        return [first]
    return [first, f"threads {_xyz(node.num_threads)}"]


def _over_depth(node: NodeModel, graph: GraphModel) -> bool:
    return bool(graph.depth_limit) and node.depth > graph.depth_limit


def _unrolled_over(graph: GraphModel) -> bool:
    """Whether the graph, its loops unrolled for SPIR-V AMDX, is deeper than maxExecutionGraphDepth."""
    return (graph.unrolled_depth is not None and graph.unrolled_depth_limit is not None
            and graph.unrolled_depth > graph.unrolled_depth_limit)


def _node_statement(node: NodeModel, graph: GraphModel) -> str:
    name = display_name(node.id)
    lines = [name]
    key = node.key or node.function
    if key and key != name:
        lines.append(f"({key})")
    if node.entry_point and node.entry_point != node.id.name:   # node-array members
        lines.append(f"entry point {node.entry_point}")
    lines.extend(_launch_lines(node))
    inp = node.input
    lines.append("no input" if inp is None else inp.record.type if inp.record else inp.kind)
    stages = stages_text(node)
    if stages and len(stages) > STAGES_WIDTH and node.stages:   # a long list would widen the box
        indices = [stage.index for stage in node.stages]
        stages = f"{len(indices)}, index {min(indices)}-{max(indices)}"
    if stages:
        lines.append(f"stages {stages}")
    problems = list(node.limits_exceeded)
    if _over_depth(node, graph):
        problems.insert(0, f"depth {node.depth} exceeds the limit {graph.depth_limit}")
        lines.append(f"depth {node.depth} > {graph.depth_limit}")
    if _unrolled_over(graph) and graph_name(node) == graph.unrolled_deepest:
        problems.append(f"unrolled for SPIR-V AMDX, the graph is {graph.unrolled_depth} deep here; "
                        f"maxExecutionGraphDepth is {graph.unrolled_depth_limit}")
        lines.append(f"unrolled depth {graph.unrolled_depth} > {graph.unrolled_depth_limit}")
    if node.limits_exceeded:
        lines.append("over the output limits")
    attrs = [("label", label(*lines))]
    if node.program_entry:
        attrs += [("style", quote("rounded,bold")), ("peripheries", "2")]
    if problems:
        attrs += [("color", OVER_COLOR), ("fontcolor", OVER_COLOR), ("tooltip", quote("; ".join(problems)))]
    return f"{quote(graph_name(node))} {_attrs(attrs)};"


def _innermost_loops(nodes: tuple[NodeModel, ...], loops: tuple[LoopModel, ...]) -> dict[str, int]:
    """Display name of each node in a loop -> index (in `loops`) of its innermost loop."""
    by_entry = {loop.entry: i for i, loop in enumerate(loops)}

    def nesting(i: int) -> int:
        depth, seen, parent = 0, set(), loops[i].parent
        while parent in by_entry and parent not in seen:
            seen.add(parent)
            depth += 1
            parent = loops[by_entry[parent]].parent
        return depth

    result: dict[str, int] = {}
    for node in nodes:
        name = graph_name(node)
        if name in by_entry:
            result[name] = by_entry[name]
        elif node.loop in by_entry:
            result[name] = by_entry[node.loop]
        else:
            containing = [i for i, loop in enumerate(loops) if name in loop.members]
            if containing:
                result[name] = max(containing, key=lambda i: (nesting(i), -i))
    return result


def _cluster_lines(nodes: tuple[NodeModel, ...], loops: tuple[LoopModel, ...],
                   records: dict[str, int | None], graph: GraphModel) -> list[str]:
    home = _innermost_loops(nodes, loops)
    entries = {loop.entry: i for i, loop in enumerate(loops)}
    children: dict[int | None, list[int]] = {}
    for i, loop in enumerate(loops):
        parent = entries.get(loop.parent) if loop.parent in entries else None
        children.setdefault(None if parent == i else parent, []).append(i)
    lines: list[str] = []
    emitted: set[int] = set()

    def cluster(i: int, indent: str) -> None:
        emitted.add(i)
        loop = loops[i]
        caption = f"loop {loop.entry} (≤{loop.max_iterations} iterations"
        if loop.entry in records:
            caption += f", ≤{records[loop.entry]} records/iteration"
        lines.append(f"{indent}subgraph {quote(f'cluster_loop_{i}')} {{")
        inner = indent + "  "
        style = [("label", quote(caption + ")")), ("style", "dashed"), ("color", LOOP_COLOR),
                 ("fontcolor", LOOP_COLOR)]
        lines.append(f"{inner}graph {_attrs(style)};")
        lines.extend(inner + _node_statement(node, graph) for node in nodes
                     if home.get(graph_name(node)) == i)
        for child in children.get(i, []):
            if child not in emitted:
                cluster(child, inner)
        lines.append(f"{indent}}}")

    for root in children.get(None, []):
        cluster(root, "  ")
    for i in range(len(loops)):  # parent cycles in a malformed model: still draw each loop once
        if i not in emitted:
            cluster(i, "  ")
    return lines


def _edge_statement(edge: EdgeModel, nodes_by_name: dict[str, NodeModel], missing: set[str]) -> str:
    source = nodes_by_name.get(edge.source)
    out = None
    if source is not None:
        out = next((o for o in source.outputs if o.name == edge.parameter), None)
    if edge.max_records is not None:
        first = f"{edge.parameter} (≤{edge.max_records})"
    elif out is not None and out.max_records_shared_with is not None:
        first = f"{edge.parameter} (shared with {out.max_records_shared_with})"
    else:
        first = str(edge.parameter)
    lines = [first]
    attrs: list[tuple[str, str]] = []
    if edge.loop_back:
        lines.append("loop")
        attrs += [("color", LOOP_COLOR), ("fontcolor", LOOP_COLOR), ("constraint", "false")]
    elif edge.recursive:
        depth = source.max_recursion_depth if source else None
        lines.append(f"recursion ≤ {depth}" if depth is not None else "recursion")
        attrs.append(("style", "dashed"))
    if edge.target in missing or edge.source in missing:
        attrs.append(("style", "dotted"))
    return f"{quote(edge.source)} -> {quote(edge.target)} {_attrs([('label', label(*lines))] + attrs)};"


def _entry_point_lines(entries: tuple[EntryPointModel, ...]) -> list[str]:
    """The library's other shaders, outside the graph: a separate square box each ("entry <key>")."""
    lines = []
    for entry in entries:
        parts = [entry.key, f"{entry.stage} shader"]
        if entry.num_threads:
            parts.append("threads " + "x".join(str(n) for n in entry.num_threads))
        mesh = entry.mesh
        if mesh:
            parts.append(f"{mesh.output_topology}, ≤{mesh.max_vertices} vertices, "
                         f"≤{mesh.max_primitives} primitives")
        lines.append(f"  {quote(ENTRY_PREFIX + entry.key)} {_attrs([('label', label(*parts))] + ENTRY_STYLE)};")
    return lines


ACCESS_WORDS = {"read": "read", "write": "written", "read_write": "read, written"}


def _resource_lines(resources: tuple[Resource, ...]) -> list[str]:
    """A gray cylinder per resource some node uses (what the nodes do to it), all on the last rank,
    joined to each user by a dashed line."""
    cylinders: list[str] = []
    lines: list[str] = []
    for resource in resources:
        users = resource.used_by
        if not users:
            continue
        ident = quote(f"{RESOURCE_PREFIX}{resource.name}")
        where = ("push constant" if resource.push_constant
                 else f"set {resource.set}, binding {resource.binding}")
        parts = [resource.name, resource.type, where]
        if resource.access in ACCESS_WORDS:
            parts.append(ACCESS_WORDS[resource.access])
        attrs = [("label", label(*parts))] + RESOURCE_STYLE
        cylinders.append(f"    {ident} {_attrs(attrs)};")
        lines.extend(f"  {quote(user)} -> {ident} {_attrs(RESOURCE_EDGE)};" for user in users)
    if not cylinders:
        return []
    return ['  subgraph "resources" {', "    rank=sink;", *cylinders, "  }", *lines]


def _share_lines(nodes: tuple[NodeModel, ...], nodes_by_name: dict[str, NodeModel],
                 home: dict[str, int]) -> list[str]:
    """[NodeShareInputOf(X)]: an edge from X to each node that reads X's input records; the two are
    ranked side by side when neither is inside a loop cluster."""
    lines: list[str] = []
    by_id: dict[tuple[str, int], str] = {}
    for node in nodes:
        by_id.setdefault((node.id.name, node.id.index), graph_name(node))
    for node in nodes:
        shared = node.share_input_of
        if shared is None:
            continue
        source = by_id.get((shared.name, shared.index), display_name(shared))
        sharer = graph_name(node)
        attrs = [("label", label("shared input"))] + SHARE_EDGE
        lines.append(f"  {quote(source)} -> {quote(sharer)} {_attrs(attrs)};")
        if source in nodes_by_name and source not in home and sharer not in home:
            lines.append(f"  {{rank=same; {quote(source)}; {quote(sharer)}}}")
    return lines


def _legend_lines(model: InspectModel, resources: bool) -> list[str]:
    """A note explaining the edges' labels and styles that this picture uses."""
    edges = model.graph.edges
    outputs = {(graph_name(n), o.name): o for n in model.nodes for o in n.outputs}
    rows: list[str] = []
    if any(e.max_records is not None for e in edges):
        rows.append("Out (≤N): output parameter Out, at most N records ([MaxRecords])")
    if any((o := outputs.get((e.source, e.parameter))) is not None and o.max_records_shared_with is not None
           for e in edges if e.max_records is None):
        rows.append("(shared with P): Out shares the [MaxRecords] budget of output P")
    if any(e.recursive and not e.loop_back for e in edges):
        rows.append("dashed, recursion ≤ D: the node feeds itself, [NodeMaxRecursionDepth(D)]")
    if any(e.loop_back for e in edges):
        rows.append("blue, loop: back to a loop entry (Work Graph Loops)")
    if any(n.share_input_of is not None for n in model.nodes):
        rows.append("green, shared input: [NodeShareInputOf] reads the records of the arrow's tail")
    names = {graph_name(n) for n in model.nodes}
    if any(e.target not in names for e in edges):
        rows.append("dotted: the target is not in this file")
    if resources and any(r.used_by for r in model.resources):
        rows.append("gray line: the node's code uses the resource")
    if _unrolled_over(model.graph) or any(n.limits_exceeded or _over_depth(n, model.graph) for n in model.nodes):
        rows.append("red: over a limit of the spec or the device (hover for which)")
    if not rows:
        return []
    text = "".join(_escape(row) + "\\l" for row in ["legend"] + rows)
    return ["  subgraph \"legend\" {",
            "    rank=sink;",
            f"    {quote(LEGEND)} {_attrs([('label', chr(34) + text + chr(34))] + LEGEND_STYLE)};",
            "  }"]


def _caption(model: InspectModel) -> tuple[str, bool]:
    """The graph's caption, and whether it tells of a depth over its limit."""
    graph = model.graph
    count = len(model.nodes)
    caption = (f"{model.profile}: {count} node{'' if count == 1 else 's'}, "
               f"depth {graph.depth} of {graph.depth_limit}")
    over = bool(graph.depth_limit) and graph.depth > graph.depth_limit
    if over:
        caption += " (over the limit)"
    unrolled = graph.unrolled_depth
    if unrolled is not None and unrolled != graph.depth:
        caption += f"; unrolled for SPIR-V AMDX {unrolled} of {graph.unrolled_depth_limit}"
    if _unrolled_over(graph):
        caption += (" (over maxExecutionGraphDepth)" if unrolled != graph.depth
                    else f"; over maxExecutionGraphDepth {graph.unrolled_depth_limit}")
        over = True
    return caption, over


def render_dot(model: InspectModel, resources: bool = False) -> str:
    """Render the inspect model as Graphviz DOT text (see the module docstring); `resources`: also
    draw the resources the nodes use (`wgc inspect --resources`)."""
    nodes = model.nodes
    graph = model.graph
    loops = graph.loops
    edges = graph.edges
    nodes_by_name = {graph_name(node): node for node in nodes}
    records = {graph_name(node): node.loop_entry.max_records_per_iteration
               for node in nodes if node.loop_entry}
    caption, over = _caption(model)
    graph_attrs = [('label', quote(caption)), ('labelloc', 't'), FONT]
    if over:
        graph_attrs.append(("fontcolor", OVER_COLOR))
    lines = ['digraph "work graph" {',
             f"  graph {_attrs(graph_attrs)};",
             f"  node {_attrs([('shape', 'box'), ('style', 'rounded'), FONT])};",
             f"  edge {_attrs([FONT, ('fontsize', '10')])};"]
    home = _innermost_loops(nodes, loops)
    lines.extend("  " + _node_statement(node, graph) for node in nodes
                 if graph_name(node) not in home)
    lines.extend(_cluster_lines(nodes, loops, records, graph))
    missing: list[str] = []
    for edge in edges:
        for end in (edge.source, edge.target):
            if end not in nodes_by_name and end not in missing:
                missing.append(end)
    placeholder = [("style", quote("rounded,dotted"))]
    lines.extend(f"  {quote(name)} {_attrs([('label', label(name, '(missing)'))] + placeholder)};"
                 for name in missing)
    lines.extend("  " + _edge_statement(edge, nodes_by_name, set(missing)) for edge in edges)
    lines.extend(_share_lines(nodes, nodes_by_name, home))
    lines.extend(_entry_point_lines(model.entry_points))
    if resources:
        lines.extend(_resource_lines(model.resources))
    lines.extend(_legend_lines(model, resources))
    lines.append("}")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def render_image(dot_text: str, image_format: str) -> bytes:
    """Run Graphviz `dot -T<image_format>` on `dot_text` and return the image bytes."""
    if image_format not in IMAGE_FORMATS:
        raise ValueError(f"unsupported image format {image_format!r}; expected one of "
                         + ", ".join(IMAGE_FORMATS))
    executable = shutil.which("dot")
    if executable is None:
        raise GraphvizMissing()
    try:
        done = subprocess.run([executable, f"-T{image_format}"], input=dot_text.encode("utf-8"),
                              capture_output=True, check=False)
    except OSError as exc:  # vanished or not executable between which() and run()
        raise GraphvizError(f"could not run Graphviz 'dot': {exc}") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit status {done.returncode}"
        raise GraphvizError(f"Graphviz 'dot' failed: {message}")
    return done.stdout
