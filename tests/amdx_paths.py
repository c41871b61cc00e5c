"""The AMDX path beside the emulated one: run a graph again through `wgc.run(..., path="amdx")`
(compiled for SPV_AMDX_shader_enqueue, translated by `wgc.spirv_in`) and require the same buffers.

A disagreement names the node: the first (in trace order) whose records in or out differ between
the two runs; where every node saw the same records, the resources that differ."""

from __future__ import annotations

from collections import Counter
from typing import Any

import wgc
from wgc.diagnostics import Renderer


def _records(result: Any) -> dict[str, Counter]:
    per_node: dict[str, Counter] = {}
    for step in result.trace:
        for d in step.dispatches:
            seen = per_node.setdefault(d.node, Counter())
            seen["in"] += d.records_in
            for key, value in d.records_out.items():
                seen[f"out:{key}"] += value
    return per_node


TARGET_LIMITS = ("WG06",)
"""Codes of what the AMDX target cannot express (`wgc.codes`): such a graph has no AMDX module to run."""


def assert_amdx_agrees(source: Any, dispatch: Any, emulated: Any, racy: frozenset[str] = frozenset(),
                       **options: Any) -> Any:
    """Run `source` (a path or `wgc.Options`) on the AMDX path, as one module and as one module per
    node (`--split-nodes`, merged after translation), and compare with the emulated run `emulated`.
    The AMDX compile is not held to the device's maxExecutionGraphDepth (a property of AMD's
    driver, not of the module's meaning). Returns None where the AMDX target refuses the
    graph (a WG06xx error: no module to prove) or warns that its module reads no local root
    arguments (WG0450: it means something else by design). `racy`: resources whose contents depend
    on the order the device runs threads in (the program races on them): not compared."""
    from dataclasses import replace

    compile_options = source if isinstance(source, wgc.Options) else wgc.Options(input=str(source))
    compile_options = replace(compile_options, max_graph_depth=1 << 20)
    amdx = wgc.run(compile_options, dispatch, path="amdx", **options)
    errors = [d for d in amdx.diagnostics if d.severity.name == "ERROR"]
    if errors and all(d.code.startswith(TARGET_LIMITS) for d in errors):
        return None
    if any(d.group == "node-local-root-arguments" for d in amdx.diagnostics):
        return None   # AMDX has no local root arguments: its module reads another block (WG0450 says so)
    assert amdx.ok, "the AMDX path failed:\n" + Renderer().render(list(amdx.diagnostics))
    _compare(emulated, amdx, racy)
    assert amdx.attachments == emulated.attachments, "the paths drew different pictures"
    if emulated.attachments:
        return amdx      # a graph that draws: the AMDX path draws from one module (no --split-nodes)
    split = wgc.run(replace(compile_options, split_nodes=True), dispatch, path="amdx", **options)
    assert split.ok, "the AMDX path (one module per node) failed:\n" + Renderer().render(list(split.diagnostics))
    _compare(emulated, split, racy)
    return amdx


def _compare(emulated: Any, amdx: Any, racy: frozenset[str] = frozenset()) -> None:
    if {k: v for k, v in amdx.resources.items() if k not in racy} == \
            {k: v for k, v in emulated.resources.items() if k not in racy}:
        return
    ours, theirs = _records(emulated), _records(amdx)
    for node in list(ours) + [n for n in theirs if n not in ours]:
        if ours.get(node) != theirs.get(node):
            raise AssertionError(f"node '{node}' disagrees between the paths: emulated {dict(ours.get(node, {}))}, "
                                 f"AMDX {dict(theirs.get(node, {}))}")
    differing = [k for k in emulated.resources if k not in racy and emulated.resources[k] != amdx.resources.get(k)]
    raise AssertionError(f"every node saw the same records but resources {differing} differ: emulated "
                         f"{[emulated.resources[k] for k in differing]}, "
                         f"AMDX {[amdx.resources.get(k) for k in differing]}")
