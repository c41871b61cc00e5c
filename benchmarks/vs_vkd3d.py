"""`wgc run` side by side with vkd3d-proton's work-graph emulation, on vkd3d-proton's own 30 cases.

run: `python benchmarks/vs_vkd3d.py --vkd3d-bin PATH/tests/d3d12 [--rounds R] [--repeat K] [--device D]
[--only TEXT[,TEXT...]]`
on a machine with wgc, `vulkan`, a Vulkan device and vkd3d-proton's test binary built with
`../shared/tools/vkd3d-proton/build.sh` (its `wg-timing.patch` prints the `WGTIME` lines read
here).  Or in two halves, for a machine without wgc's compiler (the H200 machine): `--prepare DIR`
here (compiles the graphs, pickles them with the cases) and `--from DIR --vkd3d-bin ...` there
(needs only `wgc.runtime` and `vulkan`; the binary from `bundle.sh`).

The graphs are vkd3d-proton's `tests/shaders/workgraph/*.hlsl`, read at run time from its snapshot
(`--mirror`, a git directory, at the commit `build.sh` builds): they are not part of wgc.  What
each case dispatches (`CASES`) was written here from `tests/d3d12_workgraphs.c`:

- the entry records as its `D3D12_DISPATCH_GRAPH_DESC` gives them.  A case that issues
  `DispatchGraph` D times, or a multi-node input of M copies, is one wgc run of the records D x M
  times over (every node of these graphs only adds atomically, so the sum is the same); a record
  stride of 0 repeats one record (`"stride": 0` in wgc's dispatch files too);
- GPU-input cases (`D3D12_DISPATCH_MODE_NODE_GPU_INPUT`: the records read from a GPU buffer) run
  with the same records from the host in wgc, which has no GPU-input mode;
- the output buffers (u0, and u1 for the two-level graphs: 1024 uints each; `local_root_signature`'s
  is u0 of space 1, which both nodes' root UAVs address: the table's entries give its address as
  "@U0" and the root constants as the C test's `local_data`), and the values the C code checks (its `*_expected` callbacks and reference arrays, rewritten here in Python).
  vkd3d-proton marks its 4 multi-node GPU-input cases todo (it reads back zeros): wgc is checked
  against what the test expects all the same.

Timing, per case, both sides warm (the graph compiled and its pipelines created once):

- vkd3d-proton: `VKD3D_WG_TIMING=N` executes the command list holding SetProgram and the
  DispatchGraph calls N times; `gpu` is the GPU timestamps around them, `submit+wait` the host
  time of ExecuteCommandLists and the wait for idle.  The medians of executions 2..N.
- wgc: a `Session` (as `wgc run` builds it) runs the case K times after a warm-up; `gpu` is the
  timestamps of a timed session (`wgc run --time`'s queries, `Timestamps.whole_run_only`: one
  before the first level and one after the last, as vkd3d's two, since `--time`'s queries around
  every level and dispatch are points where lavapipe finishes the work before them and cost
  time), `GpuScheduler.last_gpu_ns`, and `submit+wait` the wall time of `run_once` in an
  untimed session: writing the schedule's control block, submit, wait, and reading its counters
  back (a little more than vkd3d's submit+wait, which reads nothing back).  A graph the
  GPU-driven schedule cannot plan runs host-driven (a submit per level; its result says so): its
  GPU time is the sum of its levels' `--time` spans, each with queries around every dispatch.

Rounds alternate the two (vkd3d's test process, then a process of wgc's cases of that test: each
side opens its device afresh per test), so that a drift of a loaded machine, and a GPU's clock
governor, fall on both alike: an NVIDIA GPU lowers its clock while a process starts and ramps it
up under work, and wgc's cases timed in one long-lived process beside vkd3d's short ones ran at
other clocks than vkd3d's (the clocks each side ran at are printed where `nvidia-smi` is,
`gpu_clock.py`).  The table gives the medians over all rounds and the ratio wgc / vkd3d-proton.
Each wgc case is checked against the C code's values on its first run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import pickle
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

MIRROR = "/work/.mirror/HansKristian-Work+vkd3d-proton/repo"
COMMIT = "444561a920b253c9e03f702c67bdd7550ad14900"
"""The vkd3d-proton commit `build.sh` builds (its graphs and test code)."""
SHADERS = "tests/shaders/workgraph/"
WORDS = 1024
"""Each output buffer: 1024 uints (the test's `create_default_buffer(1024 * 4)`)."""


@dataclass
class Case:
    test: str                 # vkd3d-proton's test function
    context: str              # its vkd3d_test_set_context text ("" where it sets none)
    hlsl: str                 # file under tests/shaders/workgraph/
    entry: str
    records: bytes            # the entry records, `stride` bytes apart
    stride: int
    count: int
    expected: dict[str, list[int]]    # buffer register -> the values the C code checks
    note: str = ""
    not_run: str = ""         # why wgc does not run this case
    checked: dict[str, int] = field(default_factory=dict)   # register -> how many words are checked
    local_root: list[dict] | None = None
    """The local-root-argument table's entries ("local_root_arguments": {"entries": ...})."""

    @property
    def key(self) -> str:
        return self.test + (":" + self.context if self.context else "")


def _u32(*values: int) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def _grid_sum(records: list[tuple[int, ...]], inside, value) -> list[int]:
    """out[idx] for idx = z*100 + y*10 + x: the sum over the records of value(r) where the thread
    (x, y, z) exists for the record (`inside`)."""
    out = []
    for i in range(WORDS):
        x, y, z = i % 10, (i // 10) % 10, i // 100
        out.append(sum(value(r) for r in records if inside(r, x, y, z)) & 0xFFFFFFFF)
    return out


def _basic(context: str, words: list[int], stride: int, count: int, copies: int, note: str = "") -> Case:
    """test_workgraph_basic: BroadcastNode, [NumThreads(2, 3, 4)], record = uint3 grid;
    basic_expected: +copies at (x, y, z) for each record whose grid covers it."""
    size = 12
    if stride == 0:
        block, one = _u32(*words[:3]), [tuple(words[:3])] * count
    else:
        block = b"".join(_u32(*words[i * stride // 4:i * stride // 4 + 3]) + bytes(stride - size) for i in range(count))
        one = [tuple(words[i * stride // 4:i * stride // 4 + 3]) for i in range(count)]
    records = one * copies
    expected = _grid_sum(records, lambda r, x, y, z: x < r[0] * 2 and y < r[1] * 3 and z < r[2] * 4, lambda r: 1)
    return Case("test_workgraph_basic", context, "basic.lib_6_8.hlsl", "BroadcastNode",
                block * (copies if stride else 1), stride, count * copies, {"u0": expected}, note)


GPU_INPUT = "vkd3d: records from a GPU buffer"
MULTI_GPU = "vkd3d: todo, multi-node GPU input unimplemented, runs nothing"


def _broadcast(context: str, hlsl: str, words: list[int], stride: int, grid, value) -> Case:
    records = [tuple(words[i * stride // 4:(i + 1) * stride // 4]) for i in range(len(words) * 4 // stride)]
    expected = _grid_sum(records, lambda r, x, y, z: x < grid(r)[0] * 2 and y < grid(r)[1] * 3 and z < grid(r)[2] * 4,
                         value)
    return Case("test_workgraph_broadcast_input", context, hlsl, "BroadcastNode", _u32(*words), stride,
                len(records), {"u0": expected})


def _two_level(context: str, hlsl: str) -> Case:
    """test_workgraph_two_level_broadcast_inner: 4 EntryData records {grid, node_idx, size, offset,
    increment}; buffer node_idx gets +increment at offset + k for k < size * grid * 64."""
    data = [(2, 0, 1, 1, 1), (2, 1, 1, 3, 2), (3, 0, 3, 5, 3), (1, 1, 3, 4, 4)]
    outputs = {"u0": [0] * WORDS, "u1": [0] * WORDS}
    for grid, node, size, offset, increment in data:
        for k in range(size * grid * 64):
            outputs[f"u{node}"][offset + k] += increment
    return Case("test_workgraph_two_level_broadcast", context, hlsl, "EntryNode",
                b"".join(_u32(*r) for r in data), 20, 4, outputs)


def _prefix(values: list[int]) -> list[int]:
    return values + [0] * (WORDS - len(values))


def _cases() -> list[Case]:
    cases = [
        _basic("CPU Input, stride 0", [1, 2, 2, 0, 2, 1, 1, 0], 0, 2, 3),
        _basic("CPU Input, stride 16", [1, 2, 2, 0, 2, 1, 1, 0], 16, 2, 3),
        _basic("Empty CPU Input - num records", [1, 2, 2], 0, 0, 1),
        _basic("Empty CPU Input - empty workgroup", [1, 0, 2], 0, 10, 1),
        _basic("Multi CPU Input", [1, 2, 2, 2, 1, 1], 12, 2, 3 * 4),
    ]
    gpu = [2, 1, 2, 2, 2, 2, 2, 2, 1]
    for prefix, copies, note in (("GPU Input", 4, GPU_INPUT), ("Multi GPU Input", 4 * 2, MULTI_GPU)):
        cases += [_basic(f"{prefix} - single", gpu, 0, 1, copies, note),
                  _basic(f"{prefix} - empty", gpu, 0, 0, copies, note),
                  _basic(f"{prefix} - multi", gpu, 0, 3, copies, note),
                  _basic(f"{prefix} - multi + stride", gpu, 12, 3, copies, note)]
    cases += [
        _broadcast("Plain broadcast", "broadcast_custom_input.lib_6_8.hlsl", [19, 800, 400, 90], 8,
                   lambda r: (3, 3, 2), lambda r: r[0] ^ r[1]),
        _broadcast("uint2 broadcast", "broadcast_custom_input_uint2.lib_6_8.hlsl", [19, 3, 2, 800, 400, 2, 1, 90], 16,
                   lambda r: (r[1], r[2], 1), lambda r: r[0] ^ r[3]),
        _broadcast("uint broadcast", "broadcast_custom_input_uint.lib_6_8.hlsl", [19, 3, 800, 400, 2, 90], 12,
                   lambda r: (r[1], 1, 1), lambda r: r[0] ^ r[2]),
        _broadcast("uint16_t broadcast", "broadcast_custom_input_u16_2.lib_6_8.enable-16bit-types.hlsl",
                   [19, 3 | (2 << 16), 800, 400, 2 | (1 << 16), 90], 12,
                   lambda r: (r[1] & 0xFFFF, r[1] >> 16, 1), lambda r: r[0] ^ r[2]),
    ]
    # test_workgraph_thread_input: 256 records {idx = (i ^ 7) * 3, v = i ^ 0xabcd}; out[idx] = v
    thread = [((i ^ 7) * 3, i ^ 0xABCD) for i in range(256)]
    expected = [0] * WORDS
    for idx, v in thread:
        expected[idx] = v
    for context, note in (("CPU", ""), ("GPU", GPU_INPUT)):
        cases.append(Case("test_workgraph_thread_input", context, "thread_custom_input.lib_6_8.hlsl", "ThreadNode",
                          b"".join(_u32(*r) for r in thread), 8, 256, {"u0": expected}, note))
    # test_workgraph_coalesced_input: records {offset, v}; out[offset .. offset + 24) = v
    coalesce = [(100, 50), (150, 40), (200, 79), (300, 40), (400, 30), (490, 20), (530, 10), (32, 32)]
    expected = [0] * WORDS
    for i in range(WORDS):
        expected[i] = next((v for offset, v in coalesce if offset <= i < offset + 24), 0)
    for context, note in (("CPU", ""), ("GPU", GPU_INPUT)):
        cases.append(Case("test_workgraph_coalesced_input", context, "coalesce_custom_input.lib_6_8.hlsl",
                          "CoalesceNode", b"".join(_u32(*r) for r in coalesce), 8, len(coalesce), {"u0": expected},
                          note))
    cases += [_two_level("Broadcast - Node", "two_level_broadcast.lib_6_8.hlsl"),
              _two_level("Broadcast - NodeArray", "two_level_broadcast_node_array.lib_6_8.hlsl"),
              _two_level("Thread - Node", "two_level_thread.lib_6_8.hlsl"),
              _two_level("Thread - NodeArray", "two_level_thread_node_array.lib_6_8.hlsl")]
    # the graphs without an entry record: one empty record (NumRecords 1, pRecords NULL); the C code
    # checks only a prefix of the buffer
    empty = [5, 5, 4, 6, 4, 6, 3, 2, 3, 2, 9, 7, 9, 7, 0, 0]
    recursion = [0, 7, 13, 17, 25, 34, 46, 59, 71, 76, 68, 47, 23, 7, 1] + [0] * 49
    cross = [512 * 64 + 9] * 64 + [256 * 64 + 11] * 64 + [0] * 128
    shared = [512 * 9] * 64 + [256 * 9] * 64 + [0] * 128
    for test, hlsl, values in (("test_workgraph_two_level_empty", "two_level_empty_node.lib_6_8.hlsl", empty),
                               ("test_workgraph_basic_recursion", "basic_recursion.lib_6_8.hlsl", recursion),
                               ("test_workgraph_cross_group_sharing", "cross_group_sharing.lib_6_8.hlsl", cross),
                               ("test_workgraph_shared_inputs", "shared_inputs.lib_6_8.hlsl", shared)):
        cases.append(Case(test, "", hlsl, "EntryNode", b"", 0, 1, {"u0": _prefix(values)},
                          checked={"u0": len(values)}))
    # test_workgraph_local_root_signature: local_data[] = {va, const0, const1} = {out, 30, 20}, {out, 40, 50},
    # stride 16. Node A (LRS0: u0 space1, b0, b1) reads entry 0: Index = b0 = 30, Count = b1 = 20; node B (LRS1:
    # u1 space1, b1, b0) reads entry 1: Count = b1 = 40, Index = b0 = 50; both addresses are the output's. A runs
    # 30 times, B 60: value0 = out[const0 of 0] = const1 * 30, value1 = out[const1 of 1] = const0 * 60.
    local = [(30, 20), (40, 50)]
    out = [0] * WORDS
    out[local[0][0]] += local[0][1] * 30
    out[local[1][1]] += local[1][0] * 60
    cases.append(Case("test_workgraph_local_root_signature", "", "local_root_signature.lib_6_8.hlsl", "EntryNode",
                      b"", 0, 1, {"space1/u0": out}, local_root=[
                          {"space1/u0": "@U0", "b0": local[0][0], "b1": local[0][1]},
                          {"space1/u1": "@U0", "b1": local[1][0], "b0": local[1][1]}]))
    return cases


CASES = _cases()


def _dispatch_text(case: Case) -> str:
    resources = {reg: {"bytes": 4 * WORDS} for reg in (case.expected or {"u0": []})}
    inputs = [{"entry": case.entry, "records": {"hex": case.records.hex(), "stride": case.stride, "count": case.count}}]
    if not case.records:
        inputs = [{"entry": case.entry, "records": [{}] * case.count}]
    dispatch = {"inputs": inputs, "resources": resources}
    if case.local_root is not None:
        dispatch["local_root_arguments"] = {"entries": case.local_root}
    return json.dumps(dispatch)


def prepare(mirror: str) -> dict:
    """Compile each graph of the mirror's commit (emulated target), describe each case's dispatch."""
    from wgc import driver
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import _compile
    from wgc.source import SourceFile

    compiled: dict[str, tuple] = {}
    prepared: dict = {"cases": {}, "problems": {}}
    with tempfile.TemporaryDirectory() as folder:
        for case in CASES:
            if case.not_run:
                continue
            if case.hlsl not in compiled:
                text = subprocess.run(["git", "-C", mirror, "show", f"{COMMIT}:{SHADERS}{case.hlsl}"],
                                      check=True, capture_output=True).stdout
                path = os.path.join(folder, case.hlsl)
                Path(path).write_bytes(text)
                options = driver.Options(input=path, enable_16bit_types="enable-16bit-types" in case.hlsl)
                diagnostics, module, program = _compile(options, None)
                errors = [d.message for d in diagnostics if d.severity.name == "ERROR"]
                compiled[case.hlsl] = (module, program, "; ".join(errors))
            module, program, error = compiled[case.hlsl]
            if module is None:
                prepared["problems"][case.key] = f"wgc cannot compile it: {error}"
                continue
            described, problems = read_dispatch(SourceFile("dispatch.json", _dispatch_text(case)), program)
            if described is None:
                prepared["problems"][case.key] = "wgc refuses the dispatch: " + "; ".join(p.message for p in problems)
                continue
            prepared["cases"][case.key] = (module, program, described)
    return prepared


WGTIME = re.compile(r"WGTIME dispatch (.*) exec=(\d+)/(\d+) record_ms=([\d.]+) submit_wait_ms=([\d.]+) "
                    r"gpu_ms=([-\d.]+)")


def run_vkd3d(binary: str, test: str, executions: int) -> tuple[dict[str, list[tuple[float, float]]], str]:
    """(case key -> [(submit+wait ms, gpu ms)] of executions 2..N, the run's summary line)."""
    env = dict(os.environ, VKD3D_SHADER_CACHE_PATH="0", VKD3D_TEST_MATCH=test, VKD3D_WG_TIMING=str(executions))
    done = subprocess.run([binary], env=env, capture_output=True, text=True, timeout=600)
    times: dict[str, list[tuple[float, float]]] = {}
    for line in done.stdout.splitlines():
        m = WGTIME.match(line)
        if m and int(m.group(2)) > 1:
            times.setdefault(m.group(1), []).append((float(m.group(5)), float(m.group(6))))
    summary = next((line for line in done.stdout.splitlines() if "tests executed" in line), f"rc {done.returncode}")
    return times, summary


def check(case: Case, session, program) -> str:
    """'ok', or the first values that differ from the C code's."""
    from wgc.runtime.dispatch import find_resource

    for register, expected in case.expected.items():
        resource = find_resource(program, register)
        got = next(iter(session.dump(resource).values()))
        n = case.checked.get(register, WORDS)
        wrong = [i for i in range(n) if got[i] != expected[i]]
        if wrong:
            i = wrong[0]
            return f"{register}: {len(wrong)} values differ, [{i}] = {got[i]}, expected {expected[i]}"
    return "ok"


def measure_wgc(device, entry: tuple, case: Case, repeat: int) -> tuple[str, list[float], list[float]]:
    """(check, gpu ms samples, submit-to-result ms samples) of K warm runs of the case."""
    from wgc.runtime.run import Session

    module, program, described = entry
    with Session(device, module, program, described) as session:
        steps = session.run_once()
        verdict = check(case, session, program)
        if steps and not getattr(session.scheduler, "last_run_gpu_driven", True):
            verdict += ", host-driven"
        walls = []
        for _ in range(repeat):
            start = time.perf_counter()
            session.run_once()
            walls.append((time.perf_counter() - start) * 1e3)
    gpus = []
    with Session(device, module, program, described, timing=True) as session:
        if session.timing is not None and hasattr(session.timing, "whole_run_only"):
            session.timing.whole_run_only = True       # two queries, as vkd3d's: no per-level ones
        session.run_once()
        for _ in range(repeat):
            steps = session.run_once()
            span = getattr(session.scheduler, "last_gpu_ns", None)
            if span is None:
                span = sum(step.gpu_ns or 0 for step in steps)
            gpus.append(span / 1e6)
    return verdict, gpus, walls


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _ratio(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None or b <= 0 else f"{a / b:.2f}"


def measure_test(prepared: dict, test: str, repeat: int, selector: str | None) -> dict[str, tuple]:
    """case key -> (check, gpu ms samples, submit+wait ms samples) of the wgc cases of `test`, on a
    device opened for them (as vkd3d-proton's test process opens its own)."""
    from wgc.runtime.device import Device

    results = {}
    with Device(selector) as device:
        print(f"device: {device.info.name} ({device.info.kind}, Vulkan {device.info.api_version})", file=sys.stderr)
        for case in CASES:
            if case.test == test and case.key in prepared["cases"]:
                results[case.key] = measure_wgc(device, prepared["cases"][case.key], case, repeat)
    return results


READBACK: list[str | None] = [None]
"""`--readback`, passed on to the wgc processes."""


def run_wgc(source: str, test: str, repeat: int, selector: str | None) -> dict[str, tuple]:
    """`measure_test` in a process of its own (`--child`), reading the cases pickled in `source`."""
    command = [sys.executable, __file__, "--from", source, "--child", test, "--repeat", str(repeat)]
    if selector:
        command += ["--device", selector]
    if READBACK[0] is not None:
        command += ["--readback", READBACK[0]]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"the wgc side of {test} failed:\n{done.stderr}")
    if test == CASES[0].test:
        print(done.stderr.strip().splitlines()[0], flush=True)
    return {key: tuple(value) for key, value in json.loads(done.stdout.splitlines()[-1]).items()}


def measure(prepared: dict, source: str, binary: str | None, rounds: int, repeat: int, executions: int,
            selector: str | None) -> None:
    from gpu_clock import ClockLog

    tests = list(dict.fromkeys(case.test for case in CASES))
    vkd3d: dict[str, list[tuple[float, float]]] = {}
    wgc_gpu: dict[str, list[float]] = {}
    wgc_wall: dict[str, list[float]] = {}
    verdicts: dict[str, str] = {}
    clocks: dict[str, list[str]] = {"vkd3d": [], "wgc": []}
    with ClockLog() as clock:
        for round_index in range(rounds):
            for test in tests:
                if binary:
                    started = time.monotonic()
                    times, summary = run_vkd3d(binary, test, executions)
                    clocks["vkd3d"].append(clock.window(started, time.monotonic()))
                    if round_index == 0:
                        print(f"vkd3d-proton {test}: {summary}", flush=True)
                    for key, samples in times.items():
                        vkd3d.setdefault(key, []).extend(samples)
                started = time.monotonic()
                for key, (verdict, gpus, walls) in run_wgc(source, test, repeat, selector).items():
                    verdicts.setdefault(key, verdict)
                    wgc_gpu.setdefault(key, []).extend(gpus)
                    wgc_wall.setdefault(key, []).extend(walls)
                clocks["wgc"].append(clock.window(started, time.monotonic()))
    for side, windows in clocks.items():
        if any(windows):
            print(f"{side}'s processes ran at{' '.join(dict.fromkeys(w for w in windows if w))}")
    print()
    print("| case | vkd3d GPU ms | wgc GPU ms | ratio | vkd3d submit+wait ms | wgc submit+wait ms | ratio | wgc result |")
    print("|---|---|---|---|---|---|---|---|")
    for case in CASES:
        key = case.key
        samples = vkd3d.get(key, [])
        v_wall = _median([s for s, _ in samples])
        v_gpu = _median([g for _, g in samples if g >= 0])
        g_gpu, g_wall = _median(wgc_gpu.get(key, [])), _median(wgc_wall.get(key, []))
        result = case.not_run or prepared["problems"].get(key) or verdicts.get(key, "—")
        if case.note and key in verdicts:
            result += f" ({case.note})"
        gpu_ratio, wall_ratio = _ratio(g_gpu, v_gpu), _ratio(g_wall, v_wall)
        if case.note == MULTI_GPU:          # the peer runs nothing: no ratio to give
            gpu_ratio = wall_ratio = "n/a"
        print(f"| {key} | {_ms(v_gpu)} | {_ms(g_gpu)} | {gpu_ratio} | {_ms(v_wall)} | {_ms(g_wall)} | "
              f"{wall_ratio} | {result} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vkd3d-bin", help="vkd3d-proton's tests/d3d12, built with wg-timing.patch")
    parser.add_argument("--mirror", default=MIRROR, help="vkd3d-proton's git directory (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of (vkd3d test, wgc cases), interleaved")
    parser.add_argument("--repeat", type=int, default=5, help="wgc warm runs per case and round")
    parser.add_argument("--executions", type=int, default=6, help="vkd3d executions per case and round "
                        "(VKD3D_WG_TIMING; the first, cold, is left out)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--only", metavar="TEXT[,TEXT...]",
                        help="only the tests whose name holds one of the TEXTs (e.g. local_root,two_level)")
    parser.add_argument("--prepare", metavar="DIR", help="compile and pickle the cases into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure the cases pickled in DIR")
    parser.add_argument("--child", metavar="TEST", help=argparse.SUPPRESS)   # run_wgc's process
    parser.add_argument("--readback", choices=("auto", "always", "never"), default=None,
                        help="wgc reads its results from a host-cached copy: where it pays (auto, the default), "
                        "always or never (wgc.runtime.readback.MODE)")
    args = parser.parse_args()
    READBACK[0] = args.readback
    if args.readback is not None:
        from run import readback_options
        readback_options(args.readback, None)
    if args.only:
        texts = [text for text in args.only.split(",") if text]
        CASES[:] = [case for case in CASES if any(text in case.test for text in texts)]
        if not CASES:
            raise SystemExit(f"--only {args.only}: no test's name holds any of these")
    if args.source:
        prepared = pickle.loads(gzip.decompress((Path(args.source) / "vkd3d_cases.pickle").read_bytes()))
    else:
        prepared = prepare(args.mirror)
    if args.child:
        print(json.dumps(measure_test(prepared, args.child, args.repeat, args.device)))
        return
    if args.prepare:
        Path(args.prepare).mkdir(parents=True, exist_ok=True)
        (Path(args.prepare) / "vkd3d_cases.pickle").write_bytes(gzip.compress(pickle.dumps(prepared)))
        return
    if args.source:
        measure(prepared, args.source, args.vkd3d_bin, args.rounds, args.repeat, args.executions, args.device)
        return
    with tempfile.TemporaryDirectory() as folder:      # the wgc processes read the cases from here
        (Path(folder) / "vkd3d_cases.pickle").write_bytes(gzip.compress(pickle.dumps(prepared)))
        measure(prepared, folder, args.vkd3d_bin, args.rounds, args.repeat, args.executions, args.device)


if __name__ == "__main__":
    main()
