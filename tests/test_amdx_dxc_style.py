"""DXC-style AMDX modules run (issue 25), in CI: tests/data/dxc_style/ holds SPIR-V assembly written
by hand in the form DXC's `-spirv` emits for work graphs (its README lists the habits: generator
"Google spiregg", one entry point `main` per module named by the application, Function copies of
allocated payload arrays, atomics on payloads, ...).  Five modules make one graph; it runs with
`names=` / `--node-name`, and its buffer must equal the one derived by hand from graph.hlsl and
the one wgc's own compile of graph.hlsl gives on both paths.

Skips, with the reason printed (`-ra`), where there is no Vulkan device.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import wgc
from dxc_style import FOLDER, SPIREGG, module
from wgc.diagnostics import Renderer

pytestmark = pytest.mark.usefixtures("vulkan_device")

MODULES = (("entry", "main"), ("tally", "Tally"), ("gather", "Gather"), ("leaf_0", "Leaf"), ("leaf_1", "Leaf"))
BASE, GROUPS = 100, 3


def dispatch() -> dict:
    return {"inputs": [{"entry": "main", "records": [{"grid_size": [GROUPS, 1, 1], "base": BASE}]}],
            "resources": {"Out": {"uint32": [0] * 48}}}


def by_hand() -> list[int]:
    """graph.hlsl: GROUPS groups of 4 threads, thread g = 4 * group + lane.  Every thread sends
    BASE + g to Gather (Out[0] sums them, Out[1] counts them) and g to Leaf[g % 2] (Out[32 + g] =
    1000 * (g % 2 + 1) + g); every group sends one record (row = group, value = BASE + group) to
    Tally, whose 2 x 2 threads each take a slot 0..3 with an atomic on the record and write the
    value at Out[16 + 4 * row + slot]."""
    out = [0] * 48
    threads = range(4 * GROUPS)
    out[0] = sum(BASE + g for g in threads)
    out[1] = len(threads)
    for row in range(GROUPS):
        for slot in range(4):
            out[16 + 4 * row + slot] = BASE + row
    for g in threads:
        out[32 + g] = 1000 * (g % 2 + 1) + g
    return out


def test_modules_have_dxc_form() -> None:
    """The header's generator is "Google spiregg" (14) and each module has one entry point, main."""
    from wgc.spirv_in.reader import read_module

    for file, _ in MODULES:
        read = read_module(module(file), file)
        assert read.generator == SPIREGG
        assert [e.name for e in read.entry_points] == ["main"]


def test_dxc_style_graph_runs_as_written_by_hand() -> None:
    modules = [module(file) for file, _ in MODULES]
    names = {f"<module {i}>:main": name for i, (_, name) in enumerate(MODULES) if name != "main"}
    result = wgc.run(modules, dispatch(), names=names)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.path == "amdx"
    assert result.resources["Out"]["uint32"] == by_hand()
    launches = {(d.node, d.launch) for step in result.trace for d in step.dispatches}
    assert launches == {("main", "broadcasting"), ("Tally", "broadcasting"), ("Gather", "coalescing"),
                        ("Leaf", "thread"), ("Leaf[1]", "thread")}


def test_dxc_style_graph_agrees_with_wgc_compiling_its_hlsl() -> None:
    """The same graph in HLSL (graph.hlsl), compiled by wgc for the emulated target, and for the AMDX
    target and translated (`--path amdx`): Tally's atomic on a record every group of the dispatch
    shares is DXC's (tally.spvasm; WG0620, which the AMDX path does not report: its translation keeps
    records in PhysicalStorageBuffer memory, where atomics are valid)."""
    result = wgc.run(str(FOLDER / "graph.hlsl"), dispatch())
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources["Out"]["uint32"] == by_hand()
    result = wgc.run(str(FOLDER / "graph.hlsl"), dispatch(), path="amdx")
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.resources["Out"]["uint32"] == by_hand()


def test_dxc_style_modules_from_the_command_line(tmp_path) -> None:
    """`wgc run A.spv B.spv ... --node-name FILE:main=NAME`: the application's node names."""
    paths = []
    for file, _ in MODULES:
        path = tmp_path / f"{file}.spv"
        path.write_bytes(module(file))
        paths.append(str(path))
    (tmp_path / "d.json").write_text(json.dumps(dispatch()))
    command = [sys.executable, "-m", "wgc", "run", *paths, "--dispatch", str(tmp_path / "d.json"), "--trace"]
    for path, (_, name) in zip(paths, MODULES):
        if name != "main":
            command += ["--node-name", f"{path}:main={name}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "; path: amdx" in done.stderr
    assert json.loads(done.stdout)["resources"]["Out"]["uint32"] == by_hand()
