"""wgc lsp, the check of one document: what an editor shows of it.

Stage: command line (`wgc lsp`), after each change of a document (debounced by the server).
Input: the `driver.Options` of the document (`lsp.project`) and the texts of the files open in the
editor (absolute path -> text), used in place of the disk's. Output: `Snapshot`: every diagnostic
`wgc compile` would report (the front end's, sema's and the target's limits, after the warning
policy), the results object of sema and the inspect model of its graph (for hover, definitions and
symbols), and the files the check read.

Invariants: never raises for bad input: a nesting too deep is WG0020, as in `driver.compile`, and
an inspect model that cannot be built leaves `model` None (the diagnostics still come); never
writes a file; no SPIR-V is made (the limits of the target are checked in sema, `check_target`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from wgc import codes, driver
from wgc.cached_dataclass import dataclass
from wgc.diagnostics import Diagnostic, apply_policy, has_errors

if TYPE_CHECKING:
    from wgc.metadata.schema import InspectModel
    from wgc.sema.results import Analysis

_LONE_CR = re.compile(r"\r(?!\n)")


@dataclass(frozen=True)
class Snapshot:
    path: str
    """The absolute path of the document checked."""
    diagnostics: tuple[Diagnostic, ...]
    analysis: Analysis | None = None
    model: InspectModel | None = None
    files: tuple[str, ...] = ()
    """The absolute paths of the files read (the document and what it includes)."""
    model_error: str | None = None
    """Why there is no inspect model although sema ran (an internal error, logged by the server)."""


def check(options: driver.Options, overlay: Mapping[str, str]) -> Snapshot:
    """Check the document `options.input` (an absolute path) with the editor's texts `overlay`."""
    texts = {path: _LONE_CR.sub("\n", text) for path, text in overlay.items()}
    try:
        return driver.run_with_deep_stack(_check, options, texts)
    except RecursionError as error:
        diagnostic = codes.NESTING_TOO_DEEP(
            driver._innermost_span(error), "the program is nested too deeply for wgc to process "
            "(statements, expressions, types or calls)")
        return Snapshot(options.input, (diagnostic,))


def _check(options: driver.Options, overlay: Mapping[str, str]) -> Snapshot:
    options = replace(options, emit="ir")
    policy, option_warnings = driver.warning_policy(options)
    front = driver.run_front_end(options, overlay=overlay)
    raw = list(option_warnings) + list(front.diagnostics)
    analysis = front.analysis
    has_entries = analysis is not None and (analysis.nodes or analysis.stage_entries)
    if analysis is not None and has_entries and not has_errors(apply_policy(raw, policy)):
        raw.extend(_target_diagnostics(options, analysis))
    diagnostics = tuple(apply_policy(raw, policy))
    model, model_error = None, None
    if analysis is not None and analysis.graph is not None:
        nodes = analysis.graph.nodes if has_errors(diagnostics) else analysis.nodes
        try:
            from wgc.metadata.model import build_model

            model = build_model(analysis, nodes, driver.wgc_version(), options.max_graph_depth)
        except Exception as error:   # noqa: BLE001 - the diagnostics matter more than the hover
            model_error = f"{type(error).__name__}: {error}"
    files = tuple(os.path.abspath(f) for f in front.dependencies)
    return Snapshot(options.input, diagnostics, analysis, model, files, model_error)


def _target_diagnostics(options: driver.Options, analysis: Analysis) -> list[Diagnostic]:
    """What `wgc compile` reports of the AMDX target's limits beside sema's diagnostics (a file without
    any entry point, a header, is not told that it has none: WG0603)."""
    nodes, unselectable = analysis.select_nodes(list(analysis.nodes) + list(analysis.stage_entries),
                                                driver.entry_name(options))
    if unselectable:
        return list(unselectable)
    found = analysis.check_target(nodes, None, "amdx", index_space=True, target_env=options.target_env)
    if has_errors(found):
        return found
    return (found + analysis.composition_warnings(nodes, False, "amdx")
            + analysis.depth_warnings(options.max_graph_depth))
