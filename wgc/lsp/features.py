"""wgc lsp, the editor features: a `Snapshot` (`lsp.check`) as Language Server Protocol values.

Stage: command line (`wgc lsp`), answering the editor.
Input: the latest `Snapshot` of a document and a position or range in one of its files.
Output: `lsprotocol` values: diagnostics per file, hover text, definition locations, document
symbols and code actions (a diagnostic's fix-its, `wgc.diagnostics.FixIt`).

What each reads: hover reads the inspect model (`metadata.schema`: launch, grid, limits, record
layouts with offsets, backing memory, edges), never `wgc inspect`'s text; definitions and symbols
read the spans of sema's results object (nodes, outputs, records, functions) and the graph's edges.

Positions: the protocol counts UTF-16 code units within a line (its default position encoding, the
only one the server offers), wgc counts characters; `position` and `offset` convert. Files are
matched by absolute path (a span's file is named as it was found: the document's absolute path,
or an include's folder joined with its name).

Invariants: pure functions of the snapshot (nothing is compiled or read here).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from wgc.diagnostics import Diagnostic, Severity
from wgc.source import SourceFile, Span

if TYPE_CHECKING:
    from wgc.lsp.check import Snapshot
    from wgc.metadata.schema import InputModel, NodeModel, OutputModel
    from wgc.metadata.reflection import RecordLayout
    from wgc.sema.nodes import NodeInfo, NodeInput, NodeOutput

SOURCE = "wgc"


# --------------------------------------------------------------------------- positions


def _units(text: str) -> int:
    """UTF-16 code units of `text`."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def position(file: SourceFile, offset: int) -> lsp.Position:
    line, column = file.line_col(offset)
    return lsp.Position(line=line - 1, character=_units(file.line_text(line)[: column - 1]))


def offset(file: SourceFile, where: lsp.Position) -> int:
    text = file.line_text(where.line + 1)
    units = column = 0
    while column < len(text) and units < where.character:
        units += 2 if ord(text[column]) > 0xFFFF else 1
        column += 1
    return file.offset_of(where.line + 1, column + 1)


def span_range(span: Span) -> lsp.Range:
    return lsp.Range(start=position(span.file, span.start), end=position(span.file, max(span.start, span.end)))


def path_of(span: Span) -> str:
    return os.path.abspath(span.file.path)


def location(span: Span) -> lsp.Location:
    from pygls.uris import from_fs_path

    return lsp.Location(uri=from_fs_path(path_of(span)) or path_of(span), range=span_range(span))


# --------------------------------------------------------------------------- diagnostics

_SEVERITY = {Severity.FATAL: lsp.DiagnosticSeverity.Error, Severity.ERROR: lsp.DiagnosticSeverity.Error,
             Severity.WARNING: lsp.DiagnosticSeverity.Warning, Severity.NOTE: lsp.DiagnosticSeverity.Information}
_START = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))


def diagnostic(diag: Diagnostic) -> lsp.Diagnostic:
    """One wgc diagnostic as the protocol's: its code, group (`data`), labels (related information)
    and notes (lines of the message)."""
    message = diag.message + "".join(f"\nnote: {note}" for note in diag.notes)
    group = diag.group
    data: dict[str, object] = {"group": group, "option": f"-W{group}"} if group else {}
    if diag.fixes:
        data["fixes"] = [fix.title for fix in diag.fixes]
    return lsp.Diagnostic(
        range=span_range(diag.span) if diag.span is not None else _START,
        message=message, severity=_SEVERITY.get(diag.severity, lsp.DiagnosticSeverity.Error),
        code=diag.code, source=SOURCE if not group else f"{SOURCE} -W{group}",
        related_information=[lsp.DiagnosticRelatedInformation(location=location(label.span), message=label.message)
                             for label in diag.labels] or None,
        data=data or None)


def diagnostics_by_file(snapshot: Snapshot) -> dict[str, list[lsp.Diagnostic]]:
    """The snapshot's diagnostics per absolute path (one without a place: on the document)."""
    found: dict[str, list[lsp.Diagnostic]] = {snapshot.path: []}
    for diag in snapshot.diagnostics:
        path = path_of(diag.span) if diag.span is not None else snapshot.path
        found.setdefault(path, []).append(diagnostic(diag))
    return found


def code_actions(snapshot: Snapshot, uri: str, path: str, wanted: lsp.Range) -> list[lsp.CodeAction]:
    """The fix-its of the diagnostics of `path` whose range meets `wanted`, as quick fixes."""
    actions = []
    for diag in snapshot.diagnostics:
        if not diag.fixes or diag.span is None or path_of(diag.span) != path:
            continue
        shown = span_range(diag.span)
        if _before(shown.end, wanted.start) or _before(wanted.end, shown.start):
            continue
        for fix in diag.fixes:
            edit = lsp.TextEdit(range=span_range(fix.span), new_text=fix.text)
            actions.append(lsp.CodeAction(title=fix.title, kind=lsp.CodeActionKind.QuickFix,
                                          diagnostics=[diagnostic(diag)], is_preferred=len(diag.fixes) == 1,
                                          edit=lsp.WorkspaceEdit(changes={uri: [edit]})))
    return actions


def _before(a: lsp.Position, b: lsp.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


# --------------------------------------------------------------------------- what is at a position


def _inside(span: Span | None, path: str, at: int) -> bool:
    return span is not None and span.start <= at <= span.end and path_of(span) == path


def _file_at(snapshot: Snapshot, path: str) -> SourceFile | None:
    analysis = snapshot.analysis
    if analysis is None:
        return None
    for function in analysis.module.functions:
        if path_of(function.span) == path:
            return function.span.file
    for struct in analysis.module.structs:
        if struct.span is not None and path_of(struct.span) == path:
            return struct.span.file
    return None


def _all_nodes(snapshot: Snapshot) -> list[NodeInfo]:
    analysis = snapshot.analysis
    return list(analysis.nodes) if analysis is not None else []


def _what_is_at(snapshot: Snapshot, path: str, where: lsp.Position):
    """("node", NodeInfo) | ("output", NodeInfo, NodeOutput) | ("input", NodeInfo, NodeInput) |
    ("record", StructType) | None."""
    file = _file_at(snapshot, path)
    if file is None:
        return None
    at = offset(file, where)
    for node in _all_nodes(snapshot):
        if _inside(node.function.span, path, at):
            return ("node", node)
        for output in node.outputs:
            parameter = output.parameter
            if _inside(parameter.declaration or parameter.span, path, at):
                return ("output", node, output)
        if node.input is not None:
            parameter = node.input.parameter
            if _inside(parameter.declaration or parameter.span, path, at):
                return ("input", node, node.input)
    analysis = snapshot.analysis
    assert analysis is not None
    for struct in analysis.module.structs:
        if _inside(struct.span, path, at):
            return ("record", struct)
    return None


# --------------------------------------------------------------------------- hover


def hover(snapshot: Snapshot, path: str, where: lsp.Position) -> lsp.Hover | None:
    found = _what_is_at(snapshot, path, where)
    if found is None:
        return None
    if found[0] == "record":
        text = _record_text(snapshot, found[1])
    else:
        text = _node_text(snapshot, found)
    if not text:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))


def _model_of(snapshot: Snapshot, node: NodeInfo) -> NodeModel | None:
    if snapshot.model is None:
        return None
    return next((m for m in snapshot.model.nodes if m.key == node.key), None)


def _dims(values: Iterable[int]) -> str:
    return "x".join(str(v) for v in values)


def _node_text(snapshot: Snapshot, found: tuple) -> str:
    node = found[1]
    model = _model_of(snapshot, node)
    if model is None:
        return f"**{node.function.name}**: node shader (not in the graph: it has errors)"
    lines = [_node_summary(model)]
    if found[0] == "output":
        output = next((o for o in model.outputs if o.name == found[2].parameter.name), None)
        if output is not None:
            lines += ["", _output_line(output), *_layout_lines(found[2])]
        return "\n".join(lines)
    if found[0] == "input":
        if model.input is not None:
            lines += ["", _input_line(model.input), *_layout_lines(found[2])]
        return "\n".join(lines)
    lines.append("")
    if model.input is not None:
        lines.append(f"- {_input_line(model.input)}")
    for output in model.outputs:
        lines.append(f"- {_output_line(output)}")
    edges = snapshot.model.graph.edges if snapshot.model is not None else ()
    into = [e for e in edges if e.target == model.graph_name]
    out = [e for e in edges if e.source == model.graph_name]
    if into or out:
        lines.append("")
        lines.append("edges: " + ", ".join(
            [f"{e.source} --{e.parameter}--> here" for e in into] + [f"here --{e.parameter}--> {e.target}" for e in out]))
    return "\n".join(lines)


def _node_summary(model: NodeModel) -> str:
    flags = [model.launch] + (["entry"] if model.program_entry else [])
    parts = [f"**{model.function}** `[{', '.join(flags)}]` NodeID `{model.id.name}[{model.id.index}]`"]
    facts = [f"threads {_dims(model.num_threads)}"]
    if model.dispatch_grid is not None:
        facts.append(f"dispatch grid {_dims(model.dispatch_grid)}")
    if model.max_dispatch_grid is not None:
        facts.append(f"max dispatch grid {_dims(model.max_dispatch_grid)}")
    if model.max_recursion_depth is not None:
        facts.append(f"max recursion depth {model.max_recursion_depth}")
    if model.share_input_of is not None:
        facts.append(f"shares the input of {model.share_input_of.name}[{model.share_input_of.index}]")
    if model.loop_entry is not None:
        facts.append(f"loop entry: max iterations {model.loop_entry.max_iterations}")
    facts.append(f"depth {model.depth}")
    facts.append(f"backing memory {model.backing_bytes} bytes")
    if model.groupshared_bytes:
        facts.append(f"groupshared {model.groupshared_bytes} bytes")
    return parts[0] + "\n\n" + " · ".join(facts)


def _record(record: RecordLayout | None) -> str:
    return f"`{record.type}` ({record.size} bytes, align {record.alignment})" if record else "no record"


def _input_line(model: InputModel) -> str:
    text = f"input: {model.kind} {_record(model.record)}"
    if model.max_records_written and model.max_records is not None:
        text += f", MaxRecords {model.max_records}"
    if model.dispatch_grid_field is not None:
        grid = model.dispatch_grid_field
        text += f", SV_DispatchGrid at byte {grid.offset} ({grid.components} x {grid.bits}-bit)"
    return text


def _output_line(model: OutputModel) -> str:
    text = f"output `{model.name}`: {model.kind} {_record(model.record)}"
    if model.max_records_shared_with is not None:
        text += f", MaxRecords shared with {model.max_records_shared_with}"
    elif model.max_records is not None:
        text += f", MaxRecords {model.max_records}" + ("" if model.max_records_written else " (not written: 1)")
    if model.max_records_per_node is not None:
        text += f", MaxRecordsPerNode {model.max_records_per_node}"
    target = f"{model.target.name}[{model.target.index}]"
    if model.array_size is not None:
        target += f"..[{model.target.index + model.array_size - 1}]"
    return text + f" -> {target}"


def _layout_lines(item: NodeInput | NodeOutput) -> list[str]:
    """The record's fields with their offsets and sizes (scalar layout), as a table."""
    from wgc.irtools.layout import member_fields

    if item.layout is None or not item.layout.members:
        return []
    rows = ["", "| field | offset | size |", "|---|---:|---:|"]
    for member, field in member_fields(item.record, item.layout):
        type_ = f" `{field.type}`" if field is not None else ""
        rows.append(f"| {member.name}{type_} | {member.offset} | {member.layout.size} |")
    return rows


def _record_text(snapshot: Snapshot, struct) -> str:
    """A struct used as a node record: its layout and the nodes that read or write it."""
    uses: list[tuple[str, NodeInput | NodeOutput]] = []
    for node in _all_nodes(snapshot):
        if node.input is not None and node.input.record is struct:
            uses.append((f"input of {node.function.name}", node.input))
        for output in node.outputs:
            if output.record is struct:
                uses.append((f"output {output.parameter.name} of {node.function.name}", output))
    if not uses:
        return ""
    layout = uses[0][1].layout
    size = f" ({layout.size} bytes, align {layout.alignment})" if layout is not None else ""
    lines = [f"**{struct.name}**: node record{size}", *_layout_lines(uses[0][1]), "",
             "used by: " + ", ".join(use for use, _ in uses)]
    return "\n".join(lines)


# --------------------------------------------------------------------------- definitions and symbols


def definition(snapshot: Snapshot, path: str, where: lsp.Position) -> list[lsp.Location] | None:
    """From an output: the nodes it targets; from a node or its input: the outputs that send to it (its
    producers)."""
    found = _what_is_at(snapshot, path, where)
    analysis = snapshot.analysis
    if found is None or analysis is None or analysis.graph is None:
        return None
    edges = analysis.graph.edges
    if found[0] == "output":
        output = found[2]
        targets = [e.target for e in edges if e.output is output]
        if not targets:    # not in the graph (errors): by NodeID
            targets = [n for n in _all_nodes(snapshot) if n.id == output.target]
        return [location(n.function.span) for n in targets] or None
    if found[0] in ("node", "input"):
        node = found[1]
        producers = [e.output.parameter.span for e in edges if e.target is node]
        return [location(span) for span in producers] or None
    return None


def symbols(snapshot: Snapshot, path: str) -> list[lsp.DocumentSymbol]:
    """The nodes (with their input and outputs), other entry points, functions and records declared in `path`."""
    analysis = snapshot.analysis
    if analysis is None:
        return []
    found: list[tuple[int, lsp.DocumentSymbol]] = []
    nodes = {id(n.function): n for n in analysis.nodes}
    for function in analysis.module.functions:
        span = function.span
        if path_of(span) != path or function.method_of is not None:
            continue
        node = nodes.get(id(function))
        children = None
        if node is not None:
            detail = f"{node.launch} node"
            children = []
            for item, what in [(node.input, "input")] + [(o, "output") for o in node.outputs]:
                if item is None:
                    continue
                parameter = item.parameter
                children.append(lsp.DocumentSymbol(
                    name=parameter.name, kind=lsp.SymbolKind.Field, detail=f"{what}: {parameter.type}",
                    range=span_range(parameter.declaration or parameter.span),
                    selection_range=span_range(parameter.span)))
        elif function.shader_kind is not None:
            detail = f"{function.shader_kind} shader"
        else:
            detail = str(function.return_type)
        found.append((span.start, lsp.DocumentSymbol(
            name=function.name, kind=lsp.SymbolKind.Function, detail=detail, range=span_range(span),
            selection_range=span_range(span), children=children or None)))
    for struct in analysis.module.structs:
        span = struct.span
        if span is None or path_of(span) != path:
            continue
        fields = [lsp.DocumentSymbol(name=f.name, kind=lsp.SymbolKind.Field, detail=str(f.type),
                                     range=span_range(f.span), selection_range=span_range(f.span))
                  for f in struct.fields if f.span is not None and path_of(f.span) == path]
        found.append((span.start, lsp.DocumentSymbol(
            name=struct.name, kind=lsp.SymbolKind.Struct, detail="struct", range=span_range(span),
            selection_range=span_range(span), children=fields or None)))
    return [symbol for _, symbol in sorted(found, key=lambda pair: pair[0])]
