"""`wgc run --time` (GPU time per level and per dispatch from Vulkan timestamp queries,
`wgc.runtime.timing`) and the progress line of a long run on a terminal (`wgc.runtime.progress`).

The device tests skip, with the reason, where there is no Vulkan device.
"""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time

import pytest

import wgc
from wgc.runtime.progress import Progress

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HELLO = os.path.join(ROOT, "samples", "hello.hlsl")
HELLO_DISPATCH = os.path.join(ROOT, "samples", "hello.dispatch.json")

GRID = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Start { uint3 grid : SV_DispatchGrid; };
struct Item { uint value; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(2, 1, 1)]
void Grid(DispatchNodeInputRecord<Start> start, uint3 group : SV_GroupID, [MaxRecords(2)] NodeOutput<Item> Leaf)
{
    ThreadNodeOutputRecords<Item> made = Leaf.GetThreadNodeOutputRecords(1);
    made.Get().value = group.x;
    made.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> item) { InterlockedAdd(Out[0], item.Get().value); }
"""


@pytest.mark.usefixtures("vulkan_device")
@pytest.mark.parametrize("which", ["gpu-driven", "host-driven"])
def test_timed_runs_have_gpu_time_per_level_and_dispatch(tmp_path, which) -> None:
    """hello (fixed grids: one submit per run) and a grid read from the record (one submit per
    level): every level and dispatch has a time, the results a total, per level and per node."""
    if which == "gpu-driven":
        source, dispatch = HELLO, HELLO_DISPATCH
        nodes = ["Generate", "Classify", "Accumulate"]
    else:
        source = str(tmp_path / "grid.hlsl")
        open(source, "w").write(GRID)
        dispatch = {"inputs": [{"entry": "Grid", "records": [{"grid": [3, 1, 1]}]}], "resources": {"u0": {"bytes": 4}}}
        nodes = ["Grid", "Leaf"]
    plain = wgc.run(source, dispatch)
    timed = wgc.run(source, dispatch, timing=True)
    assert timed.ok and timed.resources == plain.resources
    assert [[d.node for d in s.dispatches] for s in timed.trace] == [[n] for n in nodes]
    for step in timed.trace:
        assert step.gpu_ns is not None and step.gpu_ns >= 0
        assert all(d.gpu_ns is not None and 0 <= d.gpu_ns for d in step.dispatches)
    times = json.loads(timed.results_json())["gpu_time"]
    assert list(times["nodes_ms"]) == nodes and len(times["levels_ms"]) == len(nodes)
    assert times["total_ms"] == pytest.approx(sum(times["levels_ms"]), abs=1e-5)
    assert all("; GPU " in line for line in timed.trace_text().splitlines()[1:])
    steps = json.loads(timed.trace_json())["steps"]
    assert all("gpu_ms" in s and all("gpu_ms" in d for d in s["dispatches"]) for s in steps)
    # an untimed run keeps the shapes it had: no time anywhere
    assert plain.gpu_time() is None and "gpu_time" not in plain.results_json()
    assert "GPU" not in plain.trace_text() and "gpu_ms" not in plain.trace_json()


def test_the_progress_line_shows_after_its_delay_and_is_erased() -> None:
    stream = io.StringIO()
    progress = Progress(stream, after=0.0)
    progress(0, 2, 200)
    time.sleep(0.4)
    progress.stop()
    text = stream.getvalue()
    assert "\r\x1b[Kwgc run: level 2 done, 200 records in it, 200 in all, " in text
    assert text.endswith("\r\x1b[K")
    quiet = io.StringIO()
    progress = Progress(quiet, after=5.0)
    progress.stop()
    assert quiet.getvalue() == ""


LONG = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Size { uint n; };
[Shader("node")] [NodeLaunch("thread")]
void Spin(ThreadNodeInputRecord<Size> size)
{
    uint total = 0;
    for (uint i = 0; i < size.Get().n; i++)
        total = total * 1664525u + 1013904223u;
    InterlockedAdd(Out[0], total & 1);
}
"""


@pytest.mark.usefixtures("vulkan_device")
def test_cli_progress_on_a_terminal(tmp_path) -> None:
    """stderr a terminal (a pty): the line shows once the run has lasted $WGC_PROGRESS_AFTER
    seconds and is erased before anything else; stdout (a pipe) holds the results alone."""
    graph = tmp_path / "long.hlsl"
    graph.write_text(LONG)
    dispatch = tmp_path / "long.json"
    dispatch.write_text(json.dumps({"inputs": [{"entry": "Spin", "records": [{"n": 60000}] * 4096}],
                                    "resources": {"u0": {"bytes": 4}}}))
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "wgc", "run", str(graph), "--dispatch", str(dispatch)],
                               stdout=subprocess.PIPE, stderr=slave, text=True,
                               env={**os.environ, "PYTHONPATH": ROOT, "WGC_PROGRESS_AFTER": "0"})
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 300)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:                  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out, _ = process.communicate(timeout=300)
    os.close(master)
    assert process.returncode == 0, seen
    assert json.loads(out)["resources"]["u0"]["uint32"][0] <= 4096
    text = seen.decode()
    assert "wgc run: running, " in text or "wgc run: level 0 done" in text
    assert text.endswith("\r\x1b[K")
