"""The AMDX path end to end: `wgc run` executing SPV_AMDX_shader_enqueue modules (from HLSL with
`--path amdx`, or .spv files, several making one graph), the samples' dispatch files on both
paths, the trace saying which path ran, and what the translation refuses.

Expected values: the hello sample's histogram is computed here from what the graph is written to do
(bin = (i * 2654435761 mod 2^32) >> 28); the other comparisons are between the two paths."""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import wgc
from amdx_paths import assert_amdx_agrees
from conftest import mesh_device_problem, sample_proposals
from wgc.diagnostics import Renderer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


pytestmark = pytest.mark.usefixtures("vulkan_device")   # every test here runs a graph (conftest)


def hello_histogram(items: int) -> list[int]:
    histogram = [0] * 16
    for i in range(items):
        histogram[((i * 2654435761) % 2 ** 32) >> 28] += 1
    return histogram


RACY = {"syntax_tour": frozenset({"g_TourOut", "g_TourCounters"}), "spec_constant_attributes": frozenset({"u0"})}
"""Resources the samples race on (tests/test_sample_dispatches.py checks the range each race allows):
their contents depend on the order the device runs threads in, so the two paths may differ there."""


@pytest.mark.parametrize("dispatch", sorted(glob.glob(os.path.join(ROOT, "samples", "*.dispatch.json"))),
                         ids=os.path.basename)
def test_the_samples_dispatch_files_run_the_same_on_both_paths(dispatch) -> None:
    sample = dispatch.replace(".dispatch.json", ".hlsl")
    with open(dispatch) as f:
        draws = "render_target" in json.load(f)
    if draws and mesh_device_problem() is not None:        # a graph of mesh nodes (test_runtime_mesh.py)
        pytest.skip(mesh_device_problem())
    options = wgc.Options(input=sample, include_dirs=(os.path.join(ROOT, "samples", "include"),),
                          proposals=sample_proposals(Path(sample)))       # as the samples' guide runs them
    emulated = wgc.run(options, dispatch)
    assert emulated.ok, Renderer().render(list(emulated.diagnostics))
    racy = RACY.get(Path(sample).stem, frozenset())
    assert assert_amdx_agrees(options, dispatch, emulated, racy=racy) is not None


def wgc_command(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wgc", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)


def test_modules_on_the_command_line_with_names_and_the_path_in_the_trace(tmp_path) -> None:
    """spirv-amdx.md: "The node name is the `OpEntryPoint` name ...; the index comes from
    `ShaderIndexAMDX`, default 0. The API can override both with
    `VkPipelineShaderStageNodeCreateInfoAMDX{pName,index}`." -- here --node-name."""
    done = wgc_command("compile", os.path.join(ROOT, "samples", "hello.hlsl"), "--split-nodes", str(tmp_path))
    assert done.returncode == 0, done.stderr
    dispatch = tmp_path / "d.json"
    dispatch.write_text(json.dumps({"inputs": [{"entry": "Start", "records": [{"gridSize": 4, "itemCount": 200}]}],
                                    "resources": {"Histogram": {"bytes": 64}}}))
    modules = [str(tmp_path / f"{n}.spv") for n in ("Generate", "Classify", "Accumulate")]
    done = wgc_command("run", *modules, "--dispatch", str(dispatch), "--node-name", "Generate=Start", "--trace")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"resources": {"Histogram": {"uint32": hello_histogram(200)}}}
    assert done.stderr.splitlines()[0].endswith("; path: amdx")
    assert "Start (broadcasting): records in 1, groups 4, records out: Classify=200" in done.stderr


def test_hlsl_on_the_amdx_path_and_the_path_in_the_json_trace(tmp_path) -> None:
    sample = os.path.join(ROOT, "samples", "hello.hlsl")
    done = wgc_command("run", sample, "--dispatch", os.path.join(ROOT, "samples", "hello.dispatch.json"),
                       "--path", "amdx", "--trace", "--trace-format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"resources": {"u0": {"uint32": hello_histogram(200)}}}
    assert json.loads(done.stderr)["path"] == "amdx"


def test_modules_through_the_api(tmp_path) -> None:
    compiled = wgc.compile(wgc.Options(input=os.path.join(ROOT, "samples", "hello.hlsl")))
    assert compiled.ok
    result = wgc.run(compiled.outputs["spirv"], {
        "inputs": [{"entry": "Generate", "records": [{"gridSize": 16, "itemCount": 1000}]}],
        "resources": {"Histogram": {"bytes": 64}}})
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.path == "amdx" and result.resources == {"Histogram": {"uint32": hello_histogram(1000)}}


def test_a_bad_module_file_on_the_command_line(tmp_path) -> None:
    bad = tmp_path / "bad.spv"
    bad.write_bytes(b"\x03\x02\x23\x07" + b"\0" * 16 + b"\xff\xff\x05\x00")
    dispatch = tmp_path / "d.json"
    dispatch.write_text("{}")
    done = wgc_command("run", str(bad), "--dispatch", str(dispatch))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"error: {bad}: word 5: an instruction of 5 words past the end of the module [WG0820]" in done.stderr


def test_random_graphs_agree_with_their_model_on_every_path() -> None:
    """The bounded form of tests/fuzz/amdx_stress.py (its docstring lists what is generated and
    checked): random graphs, each with a Python model of what it writes, run on the emulated path
    and on the AMDX path (one module, one module per node); damaged AMDX modules are refused with
    WG0820 or translated to valid modules, never an exception."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from fuzz import amdx_stress

    inputs, failures = amdx_stress.stress(6, 60, seed=25)     # graph 4 has a loop entry, 0 and 1 sharers
    assert inputs == 66 and failures == []


CROSS_GROUP = """\
RWStructuredBuffer<uint> Out : register(u0);
struct [NodeTrackRWInputSharing] Shared { uint slot; };
struct Seed { uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Seed> s, [MaxRecords(1)] NodeOutput<Shared> Sum)
{
    ThreadNodeOutputRecords<Shared> o = Sum.GetThreadNodeOutputRecords(1);
    o.Get().slot = s.Get().slot;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Sum(globallycoherent RWDispatchNodeInputRecord<Shared> r, uint gi : SV_GroupIndex)
{
    if (gi == 0) InterlockedAdd(Out[8 + r.Get().slot], 1);
    if (r.FinishedCrossGroupSharing() && gi == 0) InterlockedAdd(Out[r.Get().slot], 1);
}
"""


@pytest.mark.parametrize("coherent", [False, True], ids=["plain", "globallycoherent"])
def test_finished_cross_group_sharing_on_both_paths(tmp_path, coherent) -> None:
    """OpFinishWritingNodePayloadAMDX (FinishedCrossGroupSharing()), SPV_AMDX_shader_enqueue: "_Result_
    is equal to *OpConstantTrue* if all workgroups that can access this payload have called this
    function": exactly one of a record's four groups, the last to call it, sees true. A
    globallycoherent record is a Coherent NodePayloadAMDX variable, whose accesses the translation
    makes available and visible at QueueFamily scope."""
    path = tmp_path / "graph.hlsl"
    path.write_text(CROSS_GROUP if coherent else CROSS_GROUP.replace("globallycoherent ", ""))
    dispatch = {"inputs": [{"entry": "Start", "records": [{"slot": s} for s in (1, 3, 4)]}],
                "resources": {"u0": {"bytes": 64}}}
    expected = [0] * 16
    for slot in (1, 3, 4):
        expected[slot], expected[8 + slot] = 1, 4
    emulated = wgc.run(str(path), dispatch)
    assert emulated.ok, Renderer().render(list(emulated.diagnostics))
    assert emulated.resources == {"u0": {"uint32": expected}}
    assert assert_amdx_agrees(str(path), dispatch, emulated) is not None


COHERENT_BUFFER = """\
globallycoherent RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(4, 1, 1)]
void Write(DispatchNodeInputRecord<Item> item, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    Out[item.Get().slot * 8 + gid.x * 4 + gi] = item.Get().slot * 100 + gid.x * 10 + gi;
    uint seen = Out[item.Get().slot * 8 + gid.x * 4 + gi];
    InterlockedAdd(Out[64], seen);
}
"""


def test_a_globallycoherent_buffer_on_both_paths(tmp_path) -> None:
    """A Coherent StorageBuffer variable (globallycoherent): under the Vulkan memory model its loads
    carry MakePointerVisible and its stores MakePointerAvailable; each invocation reads back what
    it wrote."""
    path = tmp_path / "graph.hlsl"
    path.write_text(COHERENT_BUFFER)
    dispatch = {"inputs": [{"entry": "Write", "records": [{"slot": s} for s in range(3)]}],
                "resources": {"u0": {"bytes": 65 * 4}}}
    expected = [0] * 65
    for s in range(3):
        for g in range(2):
            for i in range(4):
                expected[s * 8 + g * 4 + i] = s * 100 + g * 10 + i
    expected[64] = sum(expected[:64])
    emulated = wgc.run(str(path), dispatch)
    assert emulated.ok and emulated.resources == {"u0": {"uint32": expected}}
    assert assert_amdx_agrees(str(path), dispatch, emulated) is not None
    from wgc.runtime.amdx import compile_amdx
    from wgc.spirv.tools import disassemble

    _, module, _ = compile_amdx(str(path), None)
    text = disassemble(module)
    assert "Coherent" not in text and "MakePointerAvailable" in text and "MakePointerVisible" in text


def test_a_disagreement_names_the_node() -> None:
    """The comparison of the two paths names the first node whose records differ, and otherwise the
    resources that differ."""
    from types import SimpleNamespace

    from amdx_paths import _compare
    from wgc.runtime.scheduler import TraceDispatch

    def result(records_out: int, value: int):  # type: ignore[no-untyped-def]
        steps = [SimpleNamespace(dispatches=[TraceDispatch("Producer", "Producer", "thread", 0, 0, 4, 1,
                                                           {"Consumer": records_out})]),
                 SimpleNamespace(dispatches=[TraceDispatch("Consumer", "Consumer", "thread", 0, 0, records_out, 1)])]
        return SimpleNamespace(trace=steps, resources={"u0": {"uint32": [value]}})

    with pytest.raises(AssertionError, match="node 'Producer' disagrees between the paths"):
        _compare(result(4, 1), result(3, 2))
    with pytest.raises(AssertionError, match=r"every node saw the same records but resources \['u0'\] differ"):
        _compare(result(4, 1), result(4, 2))
    _compare(result(4, 1), result(4, 1))


def test_loop_stages_of_split_modules_on_the_command_line(tmp_path) -> None:
    """Work Graph Loops compiled for AMDX are stages in index space: the application creates each
    (name, index) stage; those only a sparse span or the loop's recursion reaches are no fact of the
    module, so --node-index gives them (as VkPipelineShaderStageNodeCreateInfoAMDX::index does).
    Without them the records sent to those stages find no node (every result stays 0)."""
    sample = os.path.join(ROOT, "samples", "seed_loops_simple.hlsl")
    options = wgc.Options(input=sample, proposals=("work-graph-loops",), max_graph_depth=1 << 20, reflection=True,
                          split_nodes=True)
    compiled = wgc.compile(options)
    assert compiled.ok, Renderer().render(list(compiled.diagnostics))
    modules = []
    for key, data in sorted(compiled.outputs.items()):
        if key.startswith("spirv:"):
            modules.append(tmp_path / f"{key[6:]}.spv")
            modules[-1].write_bytes(data)
    flags = []
    for node in compiled.reflection.nodes:
        flags += ["--node-index", f"{tmp_path / node.module}:{node.entry_point}="
                  + ",".join(str(s.index) for s in node.stages)]
    records = [{"id": i, "a": a, "x": 1.0} for i, a in enumerate([2.0, 9.0, 1e4])]
    dispatch = {"inputs": [{"entry": "MyLoopEntry", "records": records}], "resources": {"Results": {"bytes": 16}}}
    (tmp_path / "d.json").write_text(json.dumps(dispatch))
    emulated = wgc.run(wgc.Options(input=sample, proposals=("work-graph-loops",)),
                       dict(dispatch, resources={"u0": {"bytes": 16}}))
    assert emulated.ok and any(emulated.resources["u0"]["float"])
    done = wgc_command("run", *map(str, modules), "--dispatch", str(tmp_path / "d.json"), *flags)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["resources"]["Results"] == emulated.resources["u0"]
    done = wgc_command("run", *map(str, modules), "--dispatch", str(tmp_path / "d.json"))
    assert done.returncode == 0, done.stderr
    assert not any(json.loads(done.stdout)["resources"]["Results"]["float"])
    done = wgc_command("run", *map(str, modules), "--dispatch", str(tmp_path / "d.json"), "--node-index", "x=a")
    assert done.returncode == 2 and "'x=a': indices are integers" in done.stderr


def test_amdx_stress_prints_a_line_per_graph_as_it_goes() -> None:
    """tests/fuzz/amdx_stress.py reports each graph when it finishes (flushed, so a long campaign shows
    its progress), then a summary; exit 0 when nothing failed."""
    script = os.path.join(ROOT, "tests", "fuzz", "amdx_stress.py")
    process = subprocess.Popen([sys.executable, script, "--graphs", "2", "--damaged", "150"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    first = process.stdout.readline()   # type: ignore[union-attr]
    running = process.poll() is None    # the damaged modules (compiling the samples) are still to come
    rest, errors = process.communicate(timeout=600)
    lines = [first, *rest.splitlines(keepends=True)]
    assert process.returncode == 0, errors
    assert running, "the first graph's line came only at the end"
    assert re.fullmatch(r"graph 1/2: \d nodes \(.*\): ok \(\d+\.\d s\)\n", first), first
    assert lines[1].startswith("graph 2/2: ")
    assert lines[2] == "damaged modules 100/150: " + lines[2].split(": ", 1)[1]
    assert re.fullmatch(r"damaged modules: \d+ refused with WG0820, \d+ translated, 0 failures\n", lines[3])
    assert re.fullmatch(r"summary \(seed 25\): 2 graphs, 150 damaged modules, 152 inputs, 0 failures, \d+ s\n",
                        lines[4]), lines[4]
