"""`wgc run` end to end: graphs of our own compiled for the emulated target and run on a Vulkan
device (lavapipe here), the dumped buffers compared with values a few lines of Python compute from
what each graph is written to do (never from an earlier run); then the runtime's diagnostics
(WG0021-WG0023, WG0804, WG0805, WG0806) as rendered text, and the command line.

Skips, with the reason printed (`-ra`), where there is no Vulkan device.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import wgc
from amdx_paths import assert_amdx_agrees
from wgc.diagnostics import Renderer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


pytestmark = pytest.mark.usefixtures("vulkan_device")   # every test here runs a graph (conftest)


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run_graph(tmp_path, source: str, dispatch: dict, **options):
    """Run on the emulated path, and again on the AMDX path (`amdx_paths`): both must agree."""
    path = write(tmp_path, "graph.hlsl", source)
    result = wgc.run(path, dispatch, **options)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert_amdx_agrees(path, dispatch, result, **options)
    return result


THREAD = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint slot; uint value; };
[Shader("node")] [NodeLaunch("thread")]
void Square(ThreadNodeInputRecord<Item> item)
{
    Out[item.Get().slot] = item.Get().value * item.Get().value + 1;
}
"""


def test_thread_launch_one_record_per_invocation(tmp_path) -> None:
    # 70 records: two full groups of 32 and a partial one of 6; slots in reverse order
    records = [{"slot": 69 - i, "value": 3 * i} for i in range(70)]
    result = run_graph(tmp_path, THREAD, {"inputs": [{"entry": "Square", "records": records}],
                                          "resources": {"u0": {"bytes": 80 * 4}}})
    expected = [0] * 80
    for r in records:
        expected[r["slot"]] = r["value"] ** 2 + 1
    assert result.resources == {"u0": {"uint32": expected}}
    (step,) = result.trace
    assert [(d.node, d.records_in, d.groups) for d in step.dispatches] == [("Square", 70, 3)]


def test_raw_records_with_stride_zero_repeat_one_record(tmp_path) -> None:
    # stride 0: five invocations all read the one record (slot 2, value 6)
    result = run_graph(tmp_path, THREAD, {"inputs": [{"entry": "Square", "records": {
        "hex": "02000000" "06000000", "stride": 0, "count": 5}}], "resources": {"u0": {"uint32": [0, 0, 0, 0]}}})
    assert result.resources["u0"] == {"uint32": [0, 0, 37, 0]}


COALESCE = """\
RWStructuredBuffer<uint> Sizes : register(u0);   // Sizes[n]: groups that received n records
RWStructuredBuffer<uint> Sum : register(u1);
struct Start { uint base; };
struct Value { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2, 1, 1)] [NumThreads(8, 1, 1)]
void Produce(DispatchNodeInputRecord<Start> start, [MaxRecords(8)] NodeOutput<Value> Batch,
             uint tid : SV_DispatchThreadID)
{
    ThreadNodeOutputRecords<Value> rec = Batch.GetThreadNodeOutputRecords(1);
    rec.Get().v = start.Get().base + tid;
    rec.OutputComplete();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(8, 1, 1)]
void Batch([MaxRecords(5)] GroupNodeInputRecords<Value> values, uint gi : SV_GroupIndex)
{
    if (gi == 0)
        InterlockedAdd(Sizes[values.Count()], 1);
    if (gi < values.Count())
        InterlockedAdd(Sum[0], values[gi].v);
}
"""


def test_coalescing_batches_with_a_partial_last_batch(tmp_path) -> None:
    # two entry records x 2 groups x 8 threads = 32 records; batches of 5: six full and one of 2
    bases = [100, 1000]
    result = run_graph(tmp_path, COALESCE, {"inputs": [{"entry": "Produce", "records": [{"base": b} for b in bases]}],
                                            "resources": {"u0": {"bytes": 32}, "u1": {"uint32": [0]}}})
    values = [b + tid for b in bases for tid in range(16)]
    sizes = [0] * 8
    for start in range(0, len(values), 5):
        sizes[len(values[start:start + 5])] += 1
    assert sizes == [0, 0, 1, 0, 0, 6, 0, 0]
    assert result.resources == {"u0": {"uint32": sizes}, "u1": {"uint32": [sum(values)]}}
    assert [[(d.node, d.records_in, d.groups, d.records_out) for d in s.dispatches] for s in result.trace] == [
        [("Produce", 2, 4, {"Batch": 32})], [("Batch", 32, 7, {})]]


BROADCAST = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Fixed { uint base; };
struct Dynamic { uint2 grid : SV_DispatchGrid; uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(3, 2, 1)] [NumThreads(4, 1, 1)]
void Tile(DispatchNodeInputRecord<Fixed> r, uint3 gid : SV_GroupID, uint3 gtid : SV_GroupThreadID,
          uint3 dtid : SV_DispatchThreadID)
{
    Out[r.Get().base + dtid.x + 12 * dtid.y] = 1000 * (gid.x + 1) + 100 * (gid.y + 1) + gtid.x;
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 8, 1)] [NumThreads(2, 1, 1)]
void Spread(DispatchNodeInputRecord<Dynamic> r, uint3 gid : SV_GroupID)
{
    InterlockedAdd(Out[r.Get().slot], 1);
    InterlockedMax(Out[r.Get().slot + 1], 100 * gid.x + gid.y + 1);
}
"""


def test_broadcasting_fixed_and_record_given_grids_in_one_dispatch(tmp_path) -> None:
    dynamic = [{"grid": [3, 2], "slot": 60}, {"grid": [0, 5], "slot": 62}, {"grid": [8, 8], "slot": 64},
               {"grid": [1, 1], "slot": 66}]
    result = run_graph(tmp_path, BROADCAST, {
        "inputs": [{"entry": "Tile", "records": [{"base": 0}, {"base": 24}]},
                   {"entry": "Spread", "records": dynamic}],
        "resources": {"u0": {"bytes": 68 * 4}}})
    expected = [0] * 68
    for base in (0, 24):
        for gy in range(2):
            for gx in range(3):
                for tx in range(4):
                    expected[base + gx * 4 + tx + 12 * gy] = 1000 * (gx + 1) + 100 * (gy + 1) + tx
    for record in dynamic:
        gx, gy = record["grid"]
        expected[record["slot"]] = 2 * gx * gy
        expected[record["slot"] + 1] = 100 * (gx - 1) + (gy - 1) + 1 if gx * gy else 0
    assert result.resources == {"u0": {"uint32": expected}}
    (step,) = result.trace
    assert [(d.node, d.records_in, d.groups) for d in step.dispatches] == [
        ("Tile", 2, 12), ("Spread", 4, 3 * 2 + 0 * 5 + 8 * 8 + 1 * 1)]     # the 4 records in one dispatch


TWO_LEVEL = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint first; uint count; };
struct Piece { uint index; };
[Shader("node")] [NodeLaunch("thread")]
void Split(ThreadNodeInputRecord<Job> job, [MaxRecords(4)] NodeOutput<Piece> Leaf)
{
    uint n = job.Get().count;
    ThreadNodeOutputRecords<Piece> pieces = Leaf.GetThreadNodeOutputRecords(n);
    for (uint i = 0; i < n; i++)
        pieces[i].index = job.Get().first + i;
    pieces.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Piece> piece)
{
    InterlockedAdd(Out[piece.Get().index], piece.Get().index + 1);
}
"""


def test_two_levels_two_entry_inputs_and_repeat_accumulates(tmp_path) -> None:
    jobs = [{"first": 4 * i, "count": i % 5} for i in range(40)]
    extra = [{"first": 0, "count": 4}]
    result = run_graph(tmp_path, TWO_LEVEL, {
        "inputs": [{"entry": "Split", "records": jobs}, {"entry": "Split", "records": extra}],
        "resources": {"u0": {"bytes": 160 * 4}}, "repeat": 3})
    expected = [0] * 160
    for job in jobs + extra:
        for i in range(job["count"]):
            expected[job["first"] + i] += 3 * (job["first"] + i + 1)
    assert result.resources == {"u0": {"uint32": expected}}
    pieces = sum(j["count"] for j in jobs + extra)
    assert [[(d.node, d.records_in, d.records_out) for d in s.dispatches] for s in result.trace] == [
        [("Split", 40, {"Leaf": pieces - 4}), ("Split", 1, {"Leaf": 4})],
        [("Leaf", pieces - 4, {}), ("Leaf", 4, {})]] * 3
    assert [(s.repeat, s.level) for s in result.trace] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]


def test_zero_records_run_nothing(tmp_path) -> None:
    result = run_graph(tmp_path, TWO_LEVEL, {"inputs": [{"entry": "Split", "records": []}],
                                             "resources": {"u0": {"uint32": [5]}}})
    assert result.resources == {"u0": {"uint32": [5]}}
    assert result.trace == []


def test_results_are_the_same_on_every_run(tmp_path) -> None:
    dispatch = {"inputs": [{"entry": "Split", "records": [{"first": 0, "count": 3}]}],
                "resources": {"u0": {"bytes": 16}}}
    first = run_graph(tmp_path, TWO_LEVEL, dispatch).results_json()
    assert run_graph(tmp_path, TWO_LEVEL, dispatch).results_json() == first
    assert json.loads(first) == {"resources": {"u0": {"uint32": [1, 2, 3, 0]}}}


# --------------------------------------------------------------------------- diagnostics

def rendered(result) -> str:
    return Renderer().render(list(result.diagnostics))


def test_a_used_resource_without_contents(tmp_path) -> None:
    result = wgc.run(write(tmp_path, "graph.hlsl", THREAD), {"inputs": []})
    assert rendered(result) == (
        "error: the graph uses 'Out' (u0) but the dispatch gives it no contents [WG0804]\n"
        "note: add it to \"resources\", e.g. \"u0\": {\"bytes\": 1024}\n"
        "1 error generated.\n")


def test_an_amdx_module_that_cannot_be_read_or_translated(tmp_path) -> None:
    """WG0820: what `wgc.spirv_in` cannot read or translate is located and named, never a traceback."""
    assert rendered(wgc.run(b"\0" * 20, {"inputs": []})) == (
        "error: <module 0>: not a SPIR-V module (no magic number) [WG0820]\n"
        "1 error generated.\n")
    module = write(tmp_path, "graph.hlsl", "globallycoherent RWTexture2D<float4> Img : register(u1);\n"
                   + THREAD.replace("{\n", "{\n    Img[uint2(0, 0)] = 1;\n", 1))
    text = rendered(wgc.run(module, {"resources": {"u0": {"bytes": 4}, "u1": {"width": 1, "height": 1}}},
                            path="amdx"))
    assert "a Coherent variable: the emulated contract's Vulkan memory model has no such decoration" in text
    assert "[WG0820]" in text and ": word " in text and "(OpDecorate)" in text


def test_dump_of_an_unknown_resource(tmp_path) -> None:
    result = wgc.run(write(tmp_path, "graph.hlsl", THREAD), {"resources": {"u0": {"bytes": 4}}}, dump=("u1",))
    assert rendered(result) == (
        "error: --dump u1: the graph has no resource 'u1' [WG0806]\n"
        "note: its resources: Out (u0)\n"
        "1 error generated.\n")


def test_records_beyond_the_memory_limit_run_in_passes(tmp_path) -> None:
    """Seed 002: "the only limiting factor is how much VRAM we're willing to give intermediate
    buffers" - entry records whose first level does not fit run through the graph in passes.
    64 jobs of 8 bytes + 16 bytes of Out = 528 bytes of data; with a 1000-byte bound 472 are left,
    and each job may write MaxRecords(4) records of 4 bytes: 1024 bytes for all, 512 for half, 256
    for a quarter (with the 16-byte rounding of its arena, 272): four passes of 16 jobs."""
    jobs = [{"first": 0, "count": i % 4 + 1} for i in range(64)]
    result = wgc.run(write(tmp_path, "graph.hlsl", TWO_LEVEL), {
        "inputs": [{"entry": "Split", "records": jobs}], "resources": {"u0": {"bytes": 16}}}, memory_limit=1000)
    assert result.ok, rendered(result)
    # Out[j] += j + 1 for each job with count > j: 16 * (4 - j) jobs
    assert result.resources["u0"] == {"uint32": [(j + 1) * 16 * (4 - j) for j in range(4)]}
    assert (result.schedule, result.passes) == ("gpu-driven", 4)
    trace = json.loads(result.trace_json())
    assert (trace["schedule"], trace["passes"]) == ("gpu-driven", 4)
    assert [(s["pass"], s["level"], [d["records_in"] for d in s["dispatches"]]) for s in trace["steps"]] == [
        (p, level, [16 if level == 0 else 40]) for p in range(4) for level in range(2)]
    assert result.trace_text().splitlines()[0].endswith("schedule: gpu-driven in 4 passes; path: emulated")


def test_a_record_beyond_the_memory_limit_names_the_node(tmp_path) -> None:
    """One job may write 4 records of 4 bytes: 16 bytes, with 16 bytes of data more than a 24-byte
    bound; a pass holds at least one record, so this is refused before the device is opened."""
    result = wgc.run(write(tmp_path, "graph.hlsl", TWO_LEVEL), {
        "inputs": [{"entry": "Split", "records": [{"first": 0, "count": 1}]}], "resources": {"u0": {"bytes": 8}}},
        memory_limit=24)
    assert rendered(result).splitlines()[0] == (
        "<dispatch>:5:18: error: 1 entry record of node 'Split' needs up to 16 bytes (4 records to 'Leaf' "
        "(1 thread groups × MaxRecords)); with the 16 bytes of the dispatch's data that is more than the 24 "
        "bytes wgc run may use [WG0805]")


def test_an_unknown_device_lists_the_devices(tmp_path) -> None:
    from wgc.runtime.device import list_devices

    listed = "; ".join(f"{d.index}: {d.name} ({d.kind})" for d in list_devices())
    result = wgc.run(write(tmp_path, "graph.hlsl", THREAD), {"resources": {"u0": {"bytes": 4}}},
                     device="no such device")
    assert rendered(result) == (f"error: no Vulkan device 'no such device' (the devices: {listed}) [WG0022]\n"
                                "1 error generated.\n")


def test_push_constants_the_device_cannot_hold(tmp_path) -> None:
    from wgc.runtime.device import Device

    with Device() as gpu:
        limit = gpu.max_push_constants
    words = (limit - 16) // 4 + 1                      # one word more than fits after the ABI's 16 bytes
    source = (f"struct Push {{ uint words[{words}]; }};\n[[vk::push_constant]] ConstantBuffer<Push> push;\n"
              + THREAD.replace("* item.Get().value + 1", "+ push.words[0]"))
    result = wgc.run(write(tmp_path, "graph.hlsl", source), {"resources": {"u0": {"bytes": 4}}})
    assert rendered(result).startswith(f"error: the shaders need {16 + 4 * words} bytes of push constants; '")
    assert rendered(result).endswith(f"' offers {limit} [WG0023]\n1 error generated.\n")


# --------------------------------------------------------------------------- the command line

def wgc_command(*args: str, cwd=None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wgc", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": ROOT, **env}, timeout=300)


def test_cli_runs_writes_results_and_traces(tmp_path) -> None:
    graph = write(tmp_path, "graph.hlsl", TWO_LEVEL)
    dispatch = write(tmp_path, "dispatch.json", json.dumps(
        {"inputs": [{"entry": "Split", "records": [{"first": 1, "count": 2}]}], "resources": {"u0": {"bytes": 16}}}))
    out = tmp_path / "results.json"
    done = wgc_command("run", graph, "--dispatch", dispatch, "--dump", "Out", "-o", str(out), "--trace")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert out.read_text() == '{\n  "resources": {\n    "Out": {"uint32": [0, 2, 3, 0]}\n  }\n}\n'
    lines = done.stderr.splitlines()
    assert lines[1:] == ["level 0: 1 dispatch",
                         "  Split (thread): records in 1, groups 1, records out: Leaf=2",
                         "level 1: 1 dispatch",
                         "  Leaf (thread): records in 2, groups 1, records out: no outputs"]
    done = wgc_command("run", graph, "--dispatch", dispatch, "--trace", "--trace-format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"resources": {"u0": {"uint32": [0, 2, 3, 0]}}}
    trace = json.loads(done.stderr)
    assert [[d["node"] for d in s["dispatches"]] for s in trace["steps"]] == [["Split"], ["Leaf"]]


def test_cli_bad_dispatch_is_located_and_leaves_no_results(tmp_path) -> None:
    graph = write(tmp_path, "graph.hlsl", THREAD)
    dispatch = write(tmp_path, "dispatch.json", '{"inputs": [{"entry": "Sqaure", "records": []}]}\n')
    out = tmp_path / "results.json"
    out.write_text("stale")
    done = wgc_command("run", graph, "--dispatch", dispatch, "-o", str(out))
    assert done.returncode == 1
    assert done.stderr == (
        f"{dispatch}:1:23: error: the graph has no node 'Sqaure' [WG0801]\n"
        '{"inputs": [{"entry": "Sqaure", "records": []}]}\n'
        "                      ^~~~~~~~\n"
        "note: did you mean 'Square'?\n"
        "1 error generated.\n")
    assert not out.exists()


def test_cli_missing_dispatch_file_and_compile_errors(tmp_path) -> None:
    graph = write(tmp_path, "graph.hlsl", THREAD)
    done = wgc_command("run", graph, "--dispatch", str(tmp_path / "none.json"))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"error: cannot open dispatch file '{tmp_path / 'none.json'}': No such file or directory "
                           "[WG0001]\n1 error generated.\n")
    broken = write(tmp_path, "broken.hlsl", THREAD.replace("item.Get().slot]", "item.Get().slot"))
    done = wgc_command("run", broken, "--dispatch", str(tmp_path / "none.json"))
    assert done.returncode == 1 and "error: expected" in done.stderr and "Traceback" not in done.stderr


def test_cli_without_a_vulkan_driver_says_what_to_install(tmp_path) -> None:
    graph = write(tmp_path, "graph.hlsl", THREAD)
    dispatch = write(tmp_path, "dispatch.json", '{"resources": {"u0": {"bytes": 4}}}')
    done = wgc_command("run", graph, "--dispatch", dispatch, VK_ICD_FILENAMES="/nonexistent.json",
                       VK_DRIVER_FILES="/nonexistent.json")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "error: cannot run the graph: no Vulkan driver (VkErrorIncompatibleDriver); install a Vulkan loader and "
        "driver: on Debian/Ubuntu `apt-get install libvulkan1 mesa-vulkan-drivers` (mesa-vulkan-drivers holds "
        "lavapipe, a CPU device) [WG0021]\n1 error generated.\n")


OVERFLOW = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Job { uint count; };
struct Piece { uint index; };
[Shader("node")] [NodeLaunch("thread")]
void Greedy(ThreadNodeInputRecord<Job> job, [MaxRecords(2)] NodeOutput<Piece> Leaf)
{
    // asks for more records than [MaxRecords(2)] allows when count > 2 (undefined behaviour in D3D12)
    ThreadNodeOutputRecords<Piece> pieces = Leaf.GetThreadNodeOutputRecords(job.Get().count);
    pieces.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Piece> piece) { Out[0] = 1; }
"""


def test_a_node_allocating_past_max_records_is_named(tmp_path) -> None:
    # the thread asks for 3 records of a 2-record budget: the shader flags STATUS_OUT_OF_RECORDS; the
    # message names the output and both counts (the counter counts every record asked for)
    result = wgc.run(write(tmp_path, "graph.hlsl", OVERFLOW), {
        "inputs": [{"entry": "Greedy", "records": [{"count": 3}]}], "resources": {"u0": {"bytes": 4}}})
    assert rendered(result) == (
        "error: node 'Greedy' at level 0 asked for 3 records on output 'Leaf' (node 'Leaf'), more than the 2 that "
        "its 1 thread × MaxRecords(2) allow, so some were dropped [WG0805]\n1 error generated.\n")


def test_every_runtime_code_has_a_rendered_case() -> None:
    from test_runtime_dispatch import RENDERED_HERE
    from test_run_checks import RENDERED_HERE as RENDERED_WITH_CHECKS
    from test_runtime_images import RENDERED_HERE as RENDERED_WITH_IMAGES
    from test_run_debug import RENDERED_HERE as RENDERED_DEBUGGING
    from test_runtime_limits import RENDERED_HERE as RENDERED_WITH_LIMITS
    from test_runtime_prints import RENDERED_HERE as RENDERED_WITH_PRINTS
    from test_runtime_mesh import RENDERED_HERE as RENDERED_DRAWING

    from wgc import codes

    rendered_here = {"WG0021", "WG0022", "WG0023", "WG0024", "WG0804", "WG0805", "WG0806", "WG0820",
                     "WG0812"}   # the tests here, WG0812 in test_runtime_specialization
    runtime_codes = {k.code for k in codes.ALL_KINDS                        # WG0021-WG0024: the runtime's environment
                     if k.code.startswith("WG08") or "WG0021" <= k.code <= "WG0024"}   # (WG0025-: start-up, cache)
    assert runtime_codes == (rendered_here | RENDERED_HERE | RENDERED_WITH_IMAGES | RENDERED_DEBUGGING
                             | RENDERED_WITH_CHECKS | RENDERED_WITH_PRINTS | RENDERED_WITH_LIMITS | RENDERED_DRAWING)


def run_options(tmp_path, source: str, dispatch: dict, **options):
    """Run with compile options on the emulated path, and again on the AMDX path."""
    path = write(tmp_path, "graph.hlsl", source)
    result = wgc.run(wgc.Options(input=path, **options), dispatch)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert_amdx_agrees(wgc.Options(input=path, **options), dispatch, result)
    return result


RECURSION = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Level { uint depth; };
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(4)]
void Down(ThreadNodeInputRecord<Level> r, [MaxRecords(2)] NodeOutput<Level> Down)
{
    uint remaining = GetRemainingRecursionLevels();
    InterlockedAdd(Out[r.Get().depth], 1);
    InterlockedMax(Out[8 + r.Get().depth], remaining + 1);
    uint n = remaining > 0 ? 2 : 0;
    ThreadNodeOutputRecords<Level> next = Down.GetThreadNodeOutputRecords(n);
    if (n > 0) { next[0].depth = r.Get().depth + 1; next[1].depth = r.Get().depth + 1; }
    next.OutputComplete();
}
"""


def test_recursion_to_the_limit_level_by_level(tmp_path) -> None:
    result = run_graph(tmp_path, RECURSION, {"inputs": [{"entry": "Down", "records": [{"depth": 0}]}],
                                             "resources": {"u0": {"bytes": 64}}})
    # each level doubles: 2^d records at depth d; GetRemainingRecursionLevels() is 4 - d
    expected = [2 ** d for d in range(5)] + [0] * 3 + [4 - d + 1 for d in range(5)] + [0] * 3
    assert result.resources == {"u0": {"uint32": expected}}
    assert [(s.dispatches[0].remaining_recursion_levels, s.dispatches[0].records_in) for s in result.trace] == [
        (4, 1), (3, 2), (2, 4), (1, 8), (0, 16)]


ARRAYS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Pick { uint which; uint value; };
struct V { uint value; };
[Shader("node")] [NodeLaunch("thread")]
void Route(ThreadNodeInputRecord<Pick> p,
           [MaxRecords(1)] [NodeArraySize(4)] [AllowSparseNodes] NodeOutputArray<V> Shade,
           [MaxRecords(1)] EmptyNodeOutput Tick)
{
    uint w = p.Get().which;
    InterlockedAdd(Out[10 + (Shade[w].IsValid() ? 1 : 0)], 1);
    ThreadNodeOutputRecords<V> o = Shade[w].GetThreadNodeOutputRecords(1);
    o.Get().value = p.Get().value;
    o.OutputComplete();
    Tick.ThreadIncrementOutputCount(1);
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Shade", 0)]
void Shade0(ThreadNodeInputRecord<V> v) { InterlockedAdd(Out[0], v.Get().value); }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Shade", 2)]
void Shade2(ThreadNodeInputRecord<V> v) { InterlockedAdd(Out[2], v.Get().value); }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(4, 1, 1)]
void Tick([MaxRecords(4)] EmptyNodeInput e, uint gi : SV_GroupIndex)
{
    if (gi == 0) { InterlockedAdd(Out[5], e.Count()); InterlockedAdd(Out[6], 1); }
}
"""


def test_sparse_node_arrays_is_valid_and_empty_records(tmp_path) -> None:
    picks = [{"which": i % 4, "value": i + 1} for i in range(10)]
    result = run_graph(tmp_path, ARRAYS, {"inputs": [{"entry": "Route", "records": picks}],
                                          "resources": {"u0": {"bytes": 48}}})
    expected = [0] * 12
    for pick in picks:
        if pick["which"] in (0, 2):           # Shade[1] and Shade[3] do not exist: their records go nowhere
            expected[pick["which"]] += pick["value"]
        expected[10 + (pick["which"] in (0, 2))] += 1
    expected[5] = len(picks)                  # Tick counts every increment
    expected[6] = -(-len(picks) // 4)         # in batches of at most 4
    assert result.resources == {"u0": {"uint32": expected}}
    assert [d.node for d in result.trace[1].dispatches] == ["Shade", "Shade[2]", "Tick"]


SHARED = """\
RWStructuredBuffer<uint> Out : register(u0);
struct R { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void A(ThreadNodeInputRecord<R> r) { InterlockedAdd(Out[0], r.Get().v); }
[Shader("node")] [NodeLaunch("thread")] [NodeShareInputOf("A")]
void B(ThreadNodeInputRecord<R> r) { InterlockedAdd(Out[1], r.Get().v * 2); }
"""


def test_a_node_sharing_the_input_of_another_sees_its_records(tmp_path) -> None:
    values = [3, 1, 4, 1, 5]
    result = run_graph(tmp_path, SHARED, {"inputs": [{"entry": "A", "records": [{"v": v} for v in values]}],
                                          "resources": {"u0": {"bytes": 8}}})
    assert result.resources == {"u0": {"uint32": [sum(values), 2 * sum(values)]}}


CROSS_GROUP = """\
RWStructuredBuffer<uint> Out : register(u0);
struct [NodeTrackRWInputSharing] G { uint3 grid : SV_DispatchGrid; uint slot; uint total; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(4, 1, 1)]
void Sum(globallycoherent RWDispatchNodeInputRecord<G> r, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0) InterlockedAdd(r.Get().total, gid.x + 1);
    Barrier(NODE_INPUT_MEMORY, DEVICE_SCOPE | GROUP_SYNC);
    if (r.FinishedCrossGroupSharing() && gi == 0)
        Out[r.Get().slot] = r.Get().total;
}
"""


def test_the_last_group_of_each_record_sees_every_groups_sum(tmp_path) -> None:
    grids = [5, 8, 1]
    result = run_graph(tmp_path, CROSS_GROUP, {
        "inputs": [{"entry": "Sum", "records": [{"grid": [g, 1, 1], "slot": i} for i, g in enumerate(grids)]}],
        "resources": {"u0": {"bytes": 16}}})
    assert result.resources == {"u0": {"uint32": [g * (g + 1) // 2 for g in grids] + [0]}}


LOOP = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Step { uint slot; uint left; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
[NodeMaxLoopIterations(6)] [NodeMaxRecordsPerLoopIteration(1)]
void Head(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] NodeOutput<Step> Body)
{
    ThreadNodeOutputRecords<Step> o = Body.GetThreadNodeOutputRecords(1);
    o.Get() = s.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Body(ThreadNodeInputRecord<Step> s, [MaxRecords(1)] NodeOutput<Step> Head)
{
    uint iteration = GetCurrentLoopIterationIndex();
    InterlockedAdd(Out[s.Get().slot * 8 + iteration], 1);
    bool again = s.Get().left > 0;
    ThreadNodeOutputRecords<Step> o = Head.GetThreadNodeOutputRecords(again ? 1 : 0);
    if (again) { o.Get().slot = s.Get().slot; o.Get().left = s.Get().left - 1; }
    o.OutputComplete();
}
"""


def test_a_loop_counts_its_iterations(tmp_path) -> None:
    steps = [{"slot": 0, "left": 0}, {"slot": 1, "left": 2}, {"slot": 2, "left": 5}]
    result = run_options(tmp_path, LOOP, {"inputs": [{"entry": "Head", "records": steps}],
                                          "resources": {"u0": {"bytes": 3 * 8 * 4}}},
                         proposals=("work-graph-loops",))
    expected = [0] * 24
    for step in steps:
        for iteration in range(step["left"] + 1):    # one Body per iteration until 'left' runs out
            expected[step["slot"] * 8 + iteration] = 1
    assert result.resources == {"u0": {"uint32": expected}}
    assert [d.loop_iteration for s in result.trace for d in s.dispatches if d.node == "Body"] == [0, 1, 2, 3, 4, 5]


NESTED_LOOPS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Cell { uint slot; uint row; uint col; uint rows; uint cols; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
[NodeMaxLoopIterations(4)] [NodeMaxRecordsPerLoopIteration(1)]
void Outer(ThreadNodeInputRecord<Cell> c, [MaxRecords(1)] NodeOutput<Cell> Inner)
{
    Out[c.Get().slot * 4 + c.Get().row] = 1000 + GetCurrentLoopIterationIndex();
    ThreadNodeOutputRecords<Cell> o = Inner.GetThreadNodeOutputRecords(1);
    o.Get() = c.Get();
    o.Get().col = 0;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
[NodeMaxLoopIterations(5)] [NodeMaxRecordsPerLoopIteration(1)]
void Inner(ThreadNodeInputRecord<Cell> c, [MaxRecords(1)] NodeOutput<Cell> Term)
{
    ThreadNodeOutputRecords<Cell> o = Term.GetThreadNodeOutputRecords(1);
    o.Get() = c.Get();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Term(ThreadNodeInputRecord<Cell> c, [MaxRecords(1)] NodeOutput<Cell> Inner, [MaxRecords(1)] NodeOutput<Cell> Tail)
{
    Out[12 + (c.Get().slot * 4 + c.Get().row) * 5 + c.Get().col] = 1000 + GetCurrentLoopIterationIndex();
    bool again = c.Get().col + 1 < c.Get().cols;
    ThreadNodeOutputRecords<Cell> i = Inner.GetThreadNodeOutputRecords(again ? 1 : 0);
    if (again) { i.Get() = c.Get(); i.Get().col = c.Get().col + 1; }
    i.OutputComplete();
    ThreadNodeOutputRecords<Cell> t = Tail.GetThreadNodeOutputRecords(again ? 0 : 1);
    if (!again) t.Get() = c.Get();
    t.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Tail(ThreadNodeInputRecord<Cell> c, [MaxRecords(1)] NodeOutput<Cell> Outer)
{
    Out[72 + c.Get().slot * 4 + c.Get().row] = 1000 + GetCurrentLoopIterationIndex();
    bool again = c.Get().row + 1 < c.Get().rows;
    ThreadNodeOutputRecords<Cell> o = Outer.GetThreadNodeOutputRecords(again ? 1 : 0);
    if (again) { o.Get() = c.Get(); o.Get().row = c.Get().row + 1; }
    o.OutputComplete();
}
"""


def test_nested_loops_keep_the_outer_iteration_across_the_inner_loop(tmp_path) -> None:
    # Outer -> Inner -> Term -> Inner (next column) | Tail -> Outer (next row): Inner's loop is
    # {Inner, Term}, Outer's {Outer, Inner, Term, Tail}.  Outer and Tail write the outer loop's
    # iteration (the row), Term the inner loop's (the column, from 0 again on every row).
    cells = [{"slot": 0, "row": 0, "col": 0, "rows": 1, "cols": 1},
             {"slot": 1, "row": 0, "col": 0, "rows": 3, "cols": 5},
             {"slot": 2, "row": 0, "col": 0, "rows": 4, "cols": 2}]
    result = run_options(tmp_path, NESTED_LOOPS, {"inputs": [{"entry": "Outer", "records": cells}],
                                                  "resources": {"u0": {"bytes": 84 * 4}}},
                         proposals=("work-graph-loops",))
    expected = [0] * 84
    for cell in cells:
        for row in range(cell["rows"]):             # outer iteration `row`
            expected[cell["slot"] * 4 + row] = 1000 + row                           # Outer
            for col in range(cell["cols"]):         # inner iteration `col`
                expected[12 + (cell["slot"] * 4 + row) * 5 + col] = 1000 + col      # Term
            expected[72 + cell["slot"] * 4 + row] = 1000 + row                      # Tail
    assert result.resources == {"u0": {"uint32": expected}}
    iterations = [(d.node, d.loop_iteration) for s in result.trace for d in s.dispatches]
    assert ("Tail", 3) in iterations and ("Term", 4) in iterations and ("Inner", 5) not in iterations

GRID16 = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Grid { uint slot; uint16_t3 grid : SV_DispatchGrid; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 3, 2)] [NumThreads(1, 1, 1)]
void Cells(DispatchNodeInputRecord<Grid> r, uint3 gid : SV_GroupID)
{
    InterlockedAdd(Out[r.Get().slot], 1 + gid.x + 10 * gid.y + 100 * gid.z);
}
"""


def test_a_16_bit_three_component_grid_from_the_record(tmp_path) -> None:
    grids = [(4, 3, 2), (1, 1, 1), (2, 0, 1), (3, 1, 2)]
    result = run_options(tmp_path, GRID16, {
        "inputs": [{"entry": "Cells", "records": [{"slot": i, "grid": list(g)} for i, g in enumerate(grids)]}],
        "resources": {"u0": {"bytes": 16}}}, enable_16bit_types=True)
    expected = [sum(1 + x + 10 * y + 100 * z for x in range(gx) for y in range(gy) for z in range(gz))
                for gx, gy, gz in grids]
    assert result.resources == {"u0": {"uint32": expected}}
    assert [(d.records_in, d.groups) for d in result.trace[0].dispatches] == [(4, 24 + 1 + 0 + 6)]  # one dispatch


ROOT_CONSTANTS = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Push { uint scale; uint bias; };
[[vk::push_constant]] ConstantBuffer<Push> push;
struct Item { uint slot; };
[Shader("node")] [NodeLaunch("thread")]
void Apply(ThreadNodeInputRecord<Item> item) { Out[item.Get().slot] = item.Get().slot * push.scale + push.bias; }
"""


def test_root_constants_reach_the_push_constant_block(tmp_path) -> None:
    items = [{"slot": i} for i in range(6)]
    given = run_graph(tmp_path, ROOT_CONSTANTS, {"inputs": [{"entry": "Apply", "records": items}],
                                                 "resources": {"u0": {"bytes": 24}},
                                                 "root_constants": {"uint32": [5, 2]}})
    assert given.resources == {"u0": {"uint32": [i * 5 + 2 for i in range(6)]}}
    partial = run_graph(tmp_path, ROOT_CONSTANTS, {"inputs": [{"entry": "Apply", "records": items}],
                                                   "resources": {"u0": {"uint32": [9] * 6}},
                                                   "root_constants": {"uint32": [3]}})
    assert partial.resources == {"u0": {"uint32": [i * 3 for i in range(6)]}}   # bias not given: 0


def test_the_whole_push_constant_block_is_pushed(tmp_path) -> None:
    """Root constants shorter than the block are padded with zeros (the device may keep anything in
    push-constant bytes that were never pushed)."""
    from wgc.runtime.device import Device
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import Session, _compile
    from wgc.source import SourceFile

    _, module, program = _compile(write(tmp_path, "graph.hlsl", ROOT_CONSTANTS), None)
    described, _ = read_dispatch(SourceFile("d.json", '{"resources": {"u0": {"bytes": 4}}, '
                                                      '"root_constants": {"uint32": [3]}}'), program)
    with Device() as device, Session(device, module, program, described) as session:
        assert session.scheduler.push_constants == bytes([3, 0, 0, 0, 0, 0, 0, 0])


GRID_BEYOND = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Request { uint groups; };
struct Grid { uint groups : SV_DispatchGrid; };
[Shader("node")] [NodeLaunch("thread")]
void Ask(ThreadNodeInputRecord<Request> ask, [MaxRecords(1)] NodeOutput<Grid> Cells)
{
    ThreadNodeOutputRecords<Grid> o = Cells.GetThreadNodeOutputRecords(1);
    o.Get().groups = ask.Get().groups;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(1, 1, 1)]
void Cells(DispatchNodeInputRecord<Grid> g) { InterlockedAdd(Out[0], 1); }
"""


def test_a_produced_grid_beyond_the_maximum_names_the_node(tmp_path) -> None:
    within = run_graph(tmp_path, GRID_BEYOND, {"inputs": [{"entry": "Ask", "records": [{"groups": 4}]}],
                                               "resources": {"u0": {"bytes": 4}}})
    assert within.resources == {"u0": {"uint32": [4]}}
    beyond = wgc.run(write(tmp_path, "graph.hlsl", GRID_BEYOND), {
        "inputs": [{"entry": "Ask", "records": [{"groups": 4}, {"groups": 5}]}], "resources": {"u0": {"bytes": 4}}})
    assert rendered(beyond) == (
        "error: a record asks node 'Cells' for a grid of 5x1x1 groups, beyond its [NodeMaxDispatchGrid(4, 1, 1)] "
        "[WG0807]\n1 error generated.\n")


def test_many_record_given_grids_with_cross_group_counters(tmp_path) -> None:
    """One dispatch per record, each with its own NodeContext and cross-group counter: 200 of them in
    one level (the control data of a level grows with its dispatches)."""
    grids = [1 + (7 * i) % 8 for i in range(200)]
    result = run_graph(tmp_path, CROSS_GROUP, {
        "inputs": [{"entry": "Sum", "records": [{"grid": [g, 1, 1], "slot": i} for i, g in enumerate(grids)]}],
        "resources": {"u0": {"bytes": 200 * 4}}})
    assert result.resources == {"u0": {"uint32": [g * (g + 1) // 2 for g in grids]}}


def test_the_recursive_tree_sample(tmp_path) -> None:
    """samples/recursive_tree.hlsl: a constant buffer, recursion, a coalescing node and one sharing its
    input, wave operations, a byte-address counter.  Every frustum plane accepts everything (normal 0,
    distance 1); tiles split while the camera (at the origin, height 0) is nearer than 1.5 tile sizes."""
    size, lod, levels, roots = 1024.0, 1.5, 8, 4
    planes = [0.0, 0.0, 0.0, 1.0] * 6
    constants = planes + [0.0, 0.0, 0.0, size, 0.0, lod]      # camera, terrain size, max height, LOD factor
    leaves = []

    def visit(level: int, x: int, y: int) -> None:
        tile = size / (roots << level)
        distance = (((x + 0.5) * tile) ** 2 + ((y + 0.5) * tile) ** 2) ** 0.5
        assert abs(distance - tile * lod) > 1e-3 * tile            # no comparison at float32's edge
        if level < levels and distance < tile * lod:
            for c in range(4):
                visit(level + 1, 2 * x + (c & 1), 2 * y + (c >> 1))
        else:
            leaves.append((level, x, y, 0))

    for y in range(roots):
        for x in range(roots):
            visit(0, x, y)
    histogram = [sum(1 for leaf in leaves if leaf[0] == level) for level in range(levels + 1)]
    sample, dispatch = os.path.join(ROOT, "samples", "recursive_tree.hlsl"), {
        "inputs": [{"entry": "CullRoots", "records": [{}]}],
        "resources": {"b0": {"float": constants}, "u1": {"bytes": 16 * len(leaves) + 64},
                      "u2": {"uint32": [0]}, "u3": {"bytes": 4 * (levels + 1)}}}
    result = wgc.run(sample, dispatch)
    assert result.ok, rendered(result)
    assert_amdx_agrees(sample, dispatch, result)
    assert result.resources["u2"] == {"uint32": [len(leaves)]}
    assert result.resources["u3"] == {"uint32": histogram}
    tiles = result.resources["u1"]["uint32"]
    assert sorted(tuple(tiles[i:i + 4]) for i in range(0, 4 * len(leaves), 4)) == sorted(leaves)
    assert len(result.trace) == levels + 3          # roots, 9 levels of tiles (0..8), the leaves' level


def test_the_hello_sample_builds_its_histogram(tmp_path) -> None:
    """samples/hello.hlsl: item i lands in bin (i * 2654435761 mod 2^32) >> 28."""
    items = 1000
    histogram = [0] * 16
    for i in range(items):
        histogram[((i * 2654435761) % 2 ** 32) >> 28] += 1
    sample, dispatch = os.path.join(ROOT, "samples", "hello.hlsl"), {
        "inputs": [{"entry": "Generate", "records": [{"gridSize": -(-items // 64), "itemCount": items}]}],
        "resources": {"u0": {"bytes": 64}}}
    result = wgc.run(sample, dispatch)
    assert result.ok, rendered(result)
    assert_amdx_agrees(sample, dispatch, result)
    assert result.resources == {"u0": {"uint32": histogram}}


def test_a_compile_result_runs_and_other_results_are_refused(tmp_path) -> None:
    path = write(tmp_path, "graph.hlsl", THREAD)
    dispatch = {"inputs": [{"entry": "Square", "records": [{"slot": 1, "value": 4}]}],
                "resources": {"u0": {"bytes": 8}}}
    compiled = wgc.compile(wgc.Options(input=path, target="emulated", reflection=True))
    assert compiled.ok
    result = wgc.run(compiled, dispatch)
    assert result.ok and result.resources == {"u0": {"uint32": [0, 17]}}
    amdx = wgc.run(wgc.compile(wgc.Options(input=path, reflection=True)), dispatch)   # translated (issue 25)
    assert amdx.ok and amdx.path == "amdx" and amdx.resources == {"u0": {"uint32": [0, 17]}}
    split = wgc.run(wgc.compile(wgc.Options(input=path, reflection=True, split_nodes=True)), dispatch)
    assert split.ok and split.path == "amdx" and split.resources == {"u0": {"uint32": [0, 17]}}
    bare = wgc.run(wgc.compile(wgc.Options(input=path, target="emulated")), dispatch)
    assert rendered(bare) == (
        "error: wgc.run needs the SPIR-V module and the reflection of one compile: compile with "
        "Options(target='emulated', reflection=True) and emit='spirv' (no --split-nodes) [WG0024]\n"
        "1 error generated.\n")


SPIN = """\
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] [NodeDispatchGrid(65535, 64, 1)] [NumThreads(64, 1, 1)]
void Spin(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x + id.y;
    for (uint k = 0; k < Out[64]; ++k) { t = (t ^ (t >> 7)) * 0x9E3779B1u + k; }
    InterlockedAdd(Out[id.x & 63], t);
}
"""


@pytest.mark.parametrize("signum", [2, 15, 1])          # SIGINT, SIGTERM, SIGHUP
def test_a_run_is_interrupted_promptly_while_the_device_works(tmp_path, signum) -> None:
    """A signal while the device runs a long dispatch (a minute on lavapipe) ends `wgc run` within
    about a second: exit 128 + the signal, no traceback, no results file (the waits for the device
    are slices of `device.WAIT_SLICE_NS`; the process ends without waiting for the device)."""
    import time

    graph = write(tmp_path, "spin.hlsl", SPIN)
    dispatch = write(tmp_path, "spin.json", json.dumps(
        {"inputs": [{"entry": "Spin", "records": [{}]}], "resources": {"u0": {"uint32": [0] * 64 + [100]}}}))
    out = tmp_path / "results.json"
    process = subprocess.Popen([sys.executable, "-m", "wgc", "run", graph, "--dispatch", dispatch, "-o", str(out)],
                               env={**os.environ, "PYTHONPATH": ROOT}, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while "libvulkan_lvp" not in open(f"/proc/{process.pid}/maps").read() and time.monotonic() < deadline:
            time.sleep(0.05)                              # the device is opened (lavapipe's library loaded)
        time.sleep(2.0)                                   # its pipeline made, the dispatch running
        assert process.poll() is None
        sent = time.monotonic()
        process.send_signal(signum)
        _, err = process.communicate(timeout=15)
        took = time.monotonic() - sent
    finally:
        process.kill()
        process.wait()
    assert (process.returncode, err) == (128 + signum, "")
    assert took < 5          # 0.1 s on a quiet machine; the old wgc waited for the dispatch (a minute)
    assert not out.exists()


def test_records_beyond_the_memory_bound_are_refused_before_anything_is_made(tmp_path) -> None:
    """1e12 raw records with stride 0 (one record, repeated) used to hang in a loop over them, and 1e7
    took gigabytes before WG0805: both are refused at once, at their "records" value, naming the node,
    the bytes needed and the bound, in a process that stays small."""
    import resource  # noqa: F401 - Linux only, as the suite
    import time

    graph = write(tmp_path, "graph.hlsl", open(os.path.join(ROOT, "samples", "hello.hlsl")).read())
    for count in (10 ** 12, 10 ** 10):      # 1e7 runs now, in passes
        dispatch = write(tmp_path, "d.json", json.dumps(
            {"inputs": [{"entry": "Generate", "records": {"hex": "0100000001000000", "stride": 0, "count": count}}],
             "resources": {"u0": {"bytes": 64}}}))
        started = time.monotonic()
        probe = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
                 "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
                 "print(done.stderr, end='')")
        done = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "wgc", "run", graph,
                               "--dispatch", dispatch], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": ROOT})
        took = time.monotonic() - started
        status, err = done.stdout.split("\n", 1)
        code, peak_kib = map(int, status.split())
        assert code == 1
        assert err.startswith(f"{dispatch}:1:46: error: {count} entry records of node 'Generate' need up to ")
        assert "that is more than the 1073741824 bytes wgc run may use [WG0805]" in err
        assert "note: the bound is wgc run's --max-memory (default 1G)" in err
        assert peak_kib < 300 * 1024 and took < 60


def test_cli_max_memory_sets_the_bound(tmp_path) -> None:
    graph = write(tmp_path, "graph.hlsl", open(os.path.join(ROOT, "samples", "hello.hlsl")).read())
    dispatch = os.path.join(ROOT, "samples", "hello.dispatch.json")
    assert wgc_command("run", graph, "--dispatch", dispatch, "--max-memory", "512M").returncode == 0
    done = wgc_command("run", graph, "--dispatch", dispatch, "--max-memory", "1k")
    assert done.returncode == 1
    assert "1 entry record of node 'Generate' needs up to 1024 bytes (256 records to 'Classify' (4 thread groups " \
           "× MaxRecords)); with the 72 bytes of the dispatch's data that is more than the 1024 " \
           "bytes wgc run may use [WG0805]" in done.stderr
    done = wgc_command("run", graph, "--dispatch", dispatch, "--max-memory", "1.5G")
    assert done.returncode == 2
    assert "'1.5G' is not a size: a whole number of bytes, or with K, M, G or T (e.g. 512M, 2G)" in done.stderr


GROW = """\
RWStructuredBuffer<uint> Out : register(u0);
struct R { uint v; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry] [NodeMaxRecursionDepth(16)]
void Grow(ThreadNodeInputRecord<R> r, [MaxRecords(4)] NodeOutput<R> Grow)
{
    ThreadNodeOutputRecords<R> o = Grow.GetThreadNodeOutputRecords(2);
    o.Get(0).v = r.Get().v + 1; o.Get(1).v = r.Get().v + 1;
    o.OutputComplete();
    InterlockedAdd(Out[0], 1);
}
"""


def test_a_growing_graph_stays_within_the_bound(tmp_path) -> None:
    """Records that double at every recursion level: the levels run until the next would pass
    --max-memory (counting the records a level reads as well as those it writes, and arenas grown
    no further than the bound), then WG0805 names the node; the process never holds much more than
    the bound (the old runtime took 1.3 GB for its 1 GiB of arenas)."""
    graph = write(tmp_path, "grow.hlsl", GROW)
    dispatch = write(tmp_path, "d.json", json.dumps(
        {"inputs": [{"entry": "Grow", "records": {"hex": "00000000", "stride": 0, "count": 100000}}],
         "resources": {"u0": {"bytes": 4}}}))
    probe = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(done.stderr, end='')")
    done = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "wgc", "run", graph, "--dispatch", dispatch,
                           "--max-memory", "256M"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": ROOT})
    status, err = done.stdout.split("\n", 1)
    code, peak_kib = map(int, status.split())
    assert code == 1
    assert err.startswith("error: node 'Grow' may write ") and err.endswith("[WG0805]\n1 error generated.\n")
    assert peak_kib < (256 + 160) * 1024
