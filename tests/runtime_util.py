"""Test helpers: a graph compiled for the emulated target with its dispatch read, as `wgc run` does,
for tests that drive `wgc.runtime.run.Session` themselves; a child process on 16-lane subgroups."""

from __future__ import annotations

import json
from pathlib import Path
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


def on_sixteen_lanes(child: str, *args: str) -> dict:
    """The JSON the Python source `child` prints last, run in a process whose llvmpipe has 16-lane
    subgroups (`LP_NATIVE_VECTOR_WIDTH=512`: the path a GPU's wide subgroups take), given `args`;
    the test is skipped where the device's subgroups stay narrower (not llvmpipe, or it ignores the
    setting). The child prints `{"lanes": N, ...}`."""
    import os
    import subprocess
    import sys

    import pytest

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", child, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(root), "LP_NATIVE_VECTOR_WIDTH": "512"})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.splitlines()[-1])
    if found["lanes"] < 16:
        pytest.skip(f"the device's subgroups have {found['lanes']} lanes (not llvmpipe, or it ignores "
                    "LP_NATIVE_VECTOR_WIDTH)")
    return found


def assert_schedule(session: Any, gpu_driven: bool, fused: list[bool]) -> None:
    """The session's last run took the schedule asked for, and a GPU-driven one had the level tails
    set up the levels after those marked True in `fused` (`_Plan.fused`)."""
    assert session.scheduler.last_run_gpu_driven is gpu_driven
    if gpu_driven:
        plan, = session.scheduler._plans.values()
        assert plan.fused == fused


_ALL_PATHS_CHILD = """\
import json, pathlib, sys
sys.path.insert(0, sys.argv[1])
import wgc
from test_runtime_node_arrays import LANES
from test_runtime_placement import session_run
folder, dispatch = pathlib.Path(sys.argv[2]), json.loads(sys.argv[3])
source = (folder / "source.hlsl").read_text()
(folder / "lanes.hlsl").write_text(LANES)
lanes = wgc.run(str(folder / "lanes.hlsl"), {"inputs": [{"entry": "Go", "records": [{"v": 0}]}],
                                              "resources": {"u0": {"bytes": 4}}})
found = {"lanes": lanes.resources["u0"]["uint32"][0]}
for name, gpu_driven in (("gpu", True), ("host", False)):
    found[name] = session_run(folder, source, dispatch, gpu_driven)[0]
found["amdx"] = wgc.run(str(folder / "graph.hlsl"), dispatch, path="amdx").resources["u0"]["uint32"]
print(json.dumps(found))
"""


def all_paths_on_sixteen_lanes(tmp_path, source: str, dispatch: dict) -> dict:
    """`on_sixteen_lanes` of HLSL `source` run with `dispatch` on both schedules and on the AMDX
    path: {"lanes": N, "gpu": words, "host": words, "amdx": words} (the first resource's)."""
    (tmp_path / "source.hlsl").write_text(source)
    tests = Path(__file__).resolve().parent
    return on_sixteen_lanes(_ALL_PATHS_CHILD, str(tests), str(tmp_path), json.dumps(dispatch))

