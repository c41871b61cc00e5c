"""Test helper: a graph compiled for the emulated target with its dispatch read, as `wgc run` does,
for tests that drive `wgc.runtime.run.Session` themselves."""

from __future__ import annotations

import json
from typing import Any


def load(tmp_path, source: str, dispatch: str | dict, **options: Any):
    """(module, program, described) of HLSL `source` (written to tmp_path/graph.hlsl; `options` for
    `driver.Options`) and `dispatch` (JSON text or its object)."""
    from wgc import driver
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import _compile
    from wgc.source import SourceFile

    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    diagnostics, module, program = _compile(driver.Options(input=str(path), **options), None)
    assert module is not None, diagnostics
    text = dispatch if isinstance(dispatch, str) else json.dumps(dispatch)
    described, problems = read_dispatch(SourceFile("dispatch.json", text), program)
    assert described is not None, problems
    return module, program, described
