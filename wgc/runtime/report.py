"""Runtime: the HTML report of a run (`wgc run --report FILE`).

Input: the `run.RunResult` of a debugging run (its `schedules.DebugRun`: the program, the levels
and their host times, the record log), the compile options (to draw the graph with wgc's own DOT,
`wgc.metadata.dot`, and to show the source), and further tables a caller adds (`Section`).
Output: one self-contained HTML page (inline CSS, JavaScript and SVG; nothing fetched): the graph
(Graphviz's SVG of wgc's DOT, or a plain list of nodes and edges where Graphviz is missing), the
levels as a timeline with record counts and times, each node's input records in a table, the
records waiting after a stopped run, the dumped resources, the diagnostics, the prints and the
`--check` reports linked to the source lines (`run_sections`), the GPU times of a timed run
(`--time`: in the timeline and a table per node), a banner where the run failed and the page shows
what it had made (`RunResult.partial`), and the source.

Invariants: every text from the program, the records or the files is HTML-escaped; a table shows
at most `MAX_ROWS` rows and says how many it left out; the page works without JavaScript (the
script only filters tables and links the picture's nodes to their tables).
"""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import replace
from typing import Any

from wgc.cached_dataclass import dataclass, field

MAX_ROWS = 2000
"""Rows a table shows (the whole set is in `--dump-records`)."""
MAX_VALUES = 4096
"""Elements of a resource the page shows."""


@dataclass
class Section:
    """A further table of the page: `rows` of `columns`; a row's "where" ("file:line") links to
    the source (prints, check reports)."""

    title: str
    columns: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)
    key: str = ""
    """The table's id is `section-KEY` (else `section-N`, N its place on the page)."""


_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 2em 3em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ddd; padding: 2px 6px; }
th { background: #f3f3f3; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.graph svg { max-width: 100%; height: auto; } .graph g.node { cursor: pointer; }
.bar { fill: #4a7fb5; } .bar-label { font-size: 12px; } .stopped { color: #a33; font-weight: bold; }
pre.source { counter-reset: line; } pre.source span { display: block; } pre.source span:target { background: #ffd; }
.error { color: #a00; } .warning { color: #a60; } input.filter { margin: .3em 0; }
code { background: #f6f6f6; }
"""

_SCRIPT = """
for (const box of document.querySelectorAll('input.filter')) {
  const table = document.getElementById(box.dataset.table);
  box.addEventListener('input', () => {
    const words = box.value.toLowerCase();
    for (const row of table.tBodies[0].rows)
      row.style.display = row.textContent.toLowerCase().includes(words) ? '' : 'none';
  });
}
for (const node of document.querySelectorAll('.graph g.node')) {
  const title = node.querySelector('title');
  const target = title && document.getElementById('node-' + title.textContent.trim());
  if (target) node.addEventListener('click', () => target.scrollIntoView());
}
document.body.dataset.ready = 'yes';
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _cell(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f'<td class="num">{_e(value)}</td>'
    text = value if isinstance(value, str) else json.dumps(value)
    return f"<td>{_e(text)}</td>"


def _table(table_id: str, columns: list[str], rows: list[list[Any]], total: int | None = None) -> str:
    parts = [f'<input class="filter" data-table="{_e(table_id)}" placeholder="filter rows">',
             f'<table id="{_e(table_id)}"><thead><tr>' + "".join(f"<th>{_e(c)}</th>" for c in columns)
             + "</tr></thead><tbody>"]
    parts.extend("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows[:MAX_ROWS])
    parts.append("</tbody></table>")
    total = len(rows) if total is None else total
    if total > min(len(rows), MAX_ROWS):
        parts.append(f"<p>the first {min(len(rows), MAX_ROWS)} of {total} rows (the rest: --dump-records)</p>")
    return "\n".join(parts)


def _graph(options: Any, program: Any) -> str:
    """The graph as Graphviz SVG of wgc's DOT, else a plain list."""
    dot = None
    if options is not None and options.input not in ("-", None) and not options.input.endswith(".spv"):
        from wgc import driver

        compiled = driver.compile(replace(options, emit="dot", target="amdx", reflection=False))
        if compiled.ok:
            dot = compiled.outputs["dot"].decode()
    if dot is not None:
        from wgc.metadata.dot import GraphvizError, GraphvizMissing, render_image

        try:
            svg = render_image(dot, "svg").decode("utf-8", "replace")
            start = svg.find("<svg")
            if start >= 0:
                return f'<div class="graph">{svg[start:]}</div>'
        except (GraphvizMissing, GraphvizError):
            pass
    lines = ['<div class="graph"><p>Graphviz is missing: the nodes and their outputs.</p><ul class="nodes">']
    for node in program.nodes if program is not None else ():
        outs = ", ".join((f"{o.parameter} → " if o.parameter != o.target else "→ ") + o.target
                         + (f"[{o.target_index}]" if o.target_index else "") + (" (array)" if o.array else "")
                         for o in node.outputs)
        lines.append(f'<li class="node"><a href="#node-{_e(node.label)}">{_e(node.label)}</a> '
                     f"({_e(node.launch)})" + (f": {_e(outs)}" if outs else "") + "</li>")
    lines.append("</ul>")
    if dot is not None:
        lines.append(f"<details><summary>wgc's DOT</summary><pre>{_e(dot)}</pre></details>")
    return "\n".join(lines) + "</div>"


def _timeline(result: Any, debug: Any) -> str:
    steps = {(s.repeat, s.level): s for s in result.trace}
    levels = debug.levels if debug is not None else []
    if not levels:
        return "<p>no level ran</p>"
    longest = max((lv.seconds for lv in levels), default=0) or 1.0
    row, width = 22, 520
    out = [f'<svg class="timeline" width="{width + 420}" height="{row * len(levels) + 4}" '
           'xmlns="http://www.w3.org/2000/svg">']
    for k, level in enumerate(levels):
        step = steps.get((level.repeat, level.level))
        records = sum(d.records_in for d in step.dispatches) if step is not None else 0
        dispatches = len(step.dispatches) if step is not None else 0
        nodes = ", ".join(dict.fromkeys(d.node for d in step.dispatches)) if step is not None else ""
        bar = max(1, round(width * level.seconds / longest))
        gpu = (f", GPU {step.gpu_ns / 1e6:.3f} ms" if step is not None and step.gpu_ns is not None else "")
        label = (f"level {level.level}" + (f" (repeat {level.repeat})" if level.repeat else "")
                 + f": {records} records, {dispatches} dispatch{'es' if dispatches != 1 else ''}, "
                 f"{level.seconds * 1e3:.2f} ms{gpu} — {nodes}")
        y = k * row + 2
        out.append(f'<g class="level" data-level="{level.level}" data-records="{records}"><title>{_e(label)}</title>'
                   f'<rect class="bar" x="0" y="{y}" width="{bar}" height="{row - 6}"/>'
                   f'<text class="bar-label" x="{bar + 6}" y="{y + row - 10}">{_e(label)}</text></g>')
    out.append("</svg>")
    return "\n".join(out)


def _records(debug: Any) -> str:
    log = debug.records if debug is not None else None
    if log is None:
        return "<p>no records were kept</p>"
    by_node: dict[str, list[tuple[Any, Any]]] = {}
    for level in log.levels:
        for dispatch in level.dispatches:
            by_node.setdefault(dispatch.node, []).append((level, dispatch))
    parts = []
    for node, dispatches in by_node.items():
        fields = list(dict.fromkeys(k for _, d in dispatches for r in d.records[:1] for k in r))
        rows = []
        for level, d in dispatches:
            source = _source_text(d.source)
            groups = [g for g, n in d.groups or () for _ in range(n)]     # the producing group of each record
            for k, record in enumerate(d.records):
                where = f"{source}, group {groups[k]}" if k < len(groups) else source
                rows.append([level.level, d.dispatch, d.first + k, where] + [record.get(f) for f in fields])
        total = sum(d.count if d.count is not None else len(d.records) for _, d in dispatches)
        parts.append(f'<h3 id="node-{_e(node)}">{_e(node)}: {total} input record{"s" if total != 1 else ""}</h3>')
        parts.append(_table(f"records-{node}", ["level", "dispatch", "record", "from", *fields], rows, total))
    if log.waiting:
        parts.append('<h3 id="waiting" class="stopped">Records waiting for the next level</h3>')
        for d in log.waiting:
            fields = list(dict.fromkeys(k for r in d.records[:1] for k in r))
            rows = [[k, _source_text(d.source)] + [r.get(f) for f in fields] for k, r in enumerate(d.records)]
            parts.append(f"<h4>{_e(d.node)}</h4>")
            parts.append(_table(f"waiting-{d.node}-{d.dispatch}", ["record", "from", *fields], rows))
    return "\n".join(parts) or "<p>no records</p>"


def _source_text(source: Any) -> str:
    if source is None:
        return ""
    if "input" in source:
        return f"dispatch input {source['input']}"
    text = f"{source['node']} (level {source['level']}, dispatch {source['dispatch']}) → {source['output']}"
    if source.get("index") is not None:
        text += f"[{source['index']}]"
    if source.get("group") is not None:
        text += f", group {source['group']}"
    return text


def _diagnostics(diagnostics: Any, source_name: str | None) -> str:
    if not diagnostics:
        return "<p>none</p>"
    items = []
    for d in diagnostics:
        where = ""
        span = getattr(d, "span", None)
        if span is not None:
            line, column = span.line_col
            label = f"{span.file.path}:{line}:{column}"
            where = (f'<a href="#src-L{line}">{_e(label)}</a>: ' if span.file.path == source_name
                     else f"{_e(label)}: ")
        severity = d.severity.name.lower()
        items.append(f'<li class="{_e(severity)}">{where}{_e(severity)}: {_e(d.message)} [{_e(d.code)}]</li>')
    return "<ul>" + "".join(items) + "</ul>"


def _section(section: Section, source_name: str | None, number: int) -> str:
    rows = [[row.get(column) for column in section.columns] for row in section.rows]
    body = _table(f"section-{section.key or number}", section.columns, rows)
    places = dict.fromkeys(str(row.get("where") or "") for row in section.rows[:MAX_ROWS]) if source_name else {}
    for where in places:        # "where": file:line[:column] links to the source
        match = _WHERE.fullmatch(where)
        if match and os.path.basename(match.group(1)) == os.path.basename(source_name or ""):
            body = body.replace(f"<td>{_e(where)}</td>", f'<td><a href="#src-L{match.group(2)}">{_e(where)}</a></td>')
    return f"<h2>{_e(section.title)}</h2>\n{body}"


_WHERE = re.compile(r"(.+?):(\d+)(?::\d+)?")


def run_sections(result: Any) -> tuple[Section, ...]:
    """The tables of a run's own findings: its prints (`prints.Print`), its `--check` reports
    (`checks.CheckReport`) and, for a timed run, the GPU time of each node; a row's "where" is
    file:line:column where the module had it."""
    sections = []
    if result.prints or result.prints_lost:
        rows = [{"node": p.node, "level": p.level, "repeat": p.repeat,       # thread launch: a record each
                 "group": p.group if p.launch != "thread" else "", "thread": p.thread if p.launch != "thread" else "",
                 "record": p.record if p.record == p.last_record else f"{p.record}-{p.last_record}",
                 "where": p.where, "text": p.text} for p in result.prints]
        title = f"Prints ({len(result.prints)}" + (f", {result.prints_lost} lost" if result.prints_lost else "") + ")"
        sections.append(Section(title, ["node", "level", "repeat", "group", "thread", "record", "where", "text"], rows, "prints"))
    if result.checks is not None:
        rows = [{"kind": c.kind, "node": c.node, "level": c.level, "group": c.group, "thread": c.thread,
                 "record": c.record, "where": f"{c.file}:{c.line}:{c.column}" if c.file else "",
                 "value": c.value, "limit": c.limit, "message": c.what} for c in result.checks]
        title = f"Check reports ({len(result.checks)}" + (f", {result.checks_lost} lost" if result.checks_lost else "") + ")"
        sections.append(Section(title, ["kind", "node", "level", "group", "thread", "record", "where", "value",
                                        "limit", "message"], rows, "checks"))
    times = result.gpu_time()
    if times is not None:
        rows = [{"node": node, "GPU ms": ms} for node, ms in times["nodes_ms"].items()]
        rows.append({"node": "all levels", "GPU ms": times["total_ms"]})
        sections.append(Section("GPU time (--time)", ["node", "GPU ms"], rows, "gpu-time"))
    return tuple(sections)


def _source(path: str | None) -> tuple[str, str | None]:
    if path is None or path == "-" or path.endswith(".spv"):
        return "", None
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return "", None
    lines = "".join(f'<span id="src-L{k}">{k:4d}  {_e(line)}</span>'
                    for k, line in enumerate(text.splitlines(), 1))
    return f'<h2>Source: {_e(path)}</h2>\n<pre class="source">{lines}</pre>', path


def render_report(result: Any, options: Any, dispatch_file: str | None = None,
                  sections: tuple[Section, ...] = ()) -> str:
    """The page of `result` (a `run.RunResult`) compiled with `options` (`driver.Options`)."""
    debug = result.debug
    program = debug.program if debug is not None else None
    name = options.input if options is not None else None
    source_html, source_name = _source(name)
    title = f"wgc run {os.path.basename(name or '')}"
    head = [f"<p>device: {_e(result.device)}; path: {_e(result.path)}"
            + (f"; dispatch: <code>{_e(dispatch_file)}</code>" if dispatch_file else "") + "</p>"]
    if debug is not None and not debug.schedule.is_default:
        head.append(f"<p>schedule: {_e(debug.schedule.name)}</p>")
    if result.partial is not None:
        where = f" at level {result.partial['level']}" if result.partial.get("level") is not None else ""
        head.append(f'<p class="stopped partial">the run failed{_e(where)} ({_e(result.partial["code"])}): '
                    f'{_e(result.partial["message"])}; this page shows what it had made when it stopped</p>')
    if debug is not None and debug.stopped is not None:
        head.append(f'<p class="stopped">{_e(debug.stopped_text().removeprefix("wgc run: ").strip())}</p>')
    resources = []
    for key, arrays in result.resources.items():
        for kind, values in arrays.items():
            shown = ", ".join(json.dumps(v) for v in values[:MAX_VALUES])
            more = f" … ({len(values)} in all)" if len(values) > MAX_VALUES else ""
            resources.append(f"<tr><th>{_e(key)}</th><td>{_e(kind)}</td><td><code>[{_e(shown)}{more}]</code></td></tr>")
    body = [f"<h1>{_e(title)}</h1>", *head,
            "<h2>Graph</h2>", _graph(options, program),
            "<h2>Levels</h2>", _timeline(result, debug),
            "<h2>Records</h2>", _records(debug),
            "<h2>Resources</h2>", "<table>" + "".join(resources) + "</table>" if resources else "<p>none</p>",
            "<h2>Diagnostics</h2>", _diagnostics(result.diagnostics, source_name)]
    body.extend(_section(s, source_name, k) for k, s in enumerate((*run_sections(result), *sections)))
    body.append(source_html)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n<body>\n" + "\n".join(body)
            + f"\n<script>{_SCRIPT}</script>\n</body></html>\n")


__all__ = ["render_report", "run_sections", "Section", "MAX_ROWS"]
