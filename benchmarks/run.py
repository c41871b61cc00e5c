"""`wgc run` benchmark: graphs run by the runtime against the same work written as plain compute.

run: `python benchmarks/run.py [--repeat K] [--device D] [--threads N] [--groups G] [--levels L] [--check]
[--only SHAPE,...]`
where wgc, `vulkan` and a Vulkan device are installed.  Or in two halves, for a machine that has
the device but not wgc's compiler dependencies: `--prepare DIR` here (compiles the graphs and the
hand-written kernels, pickles them) and `--from DIR` there (needs only `wgc.runtime` and `vulkan`).

Six graph shapes, each against the same work written as plain compute (`hand_kernels.spvasm`),
measured interleaved: one warm-up run of each (llvmpipe compiles a pipeline at its first
dispatch), then K rounds of (graph run, hand run), each timed by wall clock (record, submit, wait,
read back) and by process CPU time (the host's work; on lavapipe the device's work too, its worker
threads are in the process).  Each line gives the medians and the ratios graph / hand; the results
of both versions are compared for equality.

- thread: a broadcasting node of N/64 groups x 64 threads emits one record per thread to a thread
  node that writes `Out[i] = 3 i + 7` (N thread records, 2 levels).  Hand-written: a `fill` kernel
  writes the N records, a barrier, a `work` kernel reads them and writes Out (one submit).
- broadcast: a thread node with G/100 entry records emits one record each to a broadcasting node
  with a fixed 100-group grid of 64 threads (G groups).  Hand-written: `fill` the G/100 records,
  a barrier, a `blast` kernel of G groups.
- grid: the same with the grid given by each record (`SV_DispatchGrid`, [NodeMaxDispatchGrid]);
  the same hand-written kernels (which know the grid).
- coalescing: the thread shape with a coalescing consumer (MaxRecords 64, 64 threads); hand: `fill`, a
  barrier, `work64` (the `work` kernel 64 wide: the consumer's group size; before 2026-11-29 the
  32-wide `work` ran here, twice the groups of the graph's consumer).
- levels (recursion): one record through a recursive thread node L levels deep; hand-written: L
  one-thread `step` dispatches, a barrier after each.
- arrays: the thread shape whose producer sends record i to `Work[i % 4]`, a node array of four
  thread nodes; hand-written: the one `work` kernel.

Then the per-level cost of both schedules (GPU-driven: `wgc.runtime.gpu_schedule`, per level the
indirect dispatch and a barrier in one submit, each level set up by the last group of the one
before, emulation ABI 6's level tail (a meta dispatch and a barrier more per level before); host-driven,
`gpu_driven=False`: submit, wait, counters read back, next level recorded), measured as what a
level adds: the recursion graph at L levels and at L/2 (`levels-half`), run alternately, and the
difference of their medians divided by L - L/2 (wall and process CPU time), so that what a run
costs once (control block, submit, wait, read-back, trace) is not counted per level; beside it the
old figure, a whole run / L, which counts it; and for the GPU-driven schedule the GPU time per level
from two timestamps around each run (`Timestamps.whole_run_only`), the same difference over the
levels, and where the control block lives (device-local or host memory).  Then the debugging modes
below, median and best of K runs after a warm-up.

Each line says which schedule ran ("gpu-driven" or "host-driven": a graph the GPU-driven schedule
cannot plan runs host-driven).

`--check` compiles and runs the graphs with `wgc run --check`'s run-time checks (the cost of the
checks: compare with a run without it).
The cost of the debugging modes, on the thread graph: `thread --time` (timestamp queries around
each level and dispatch), `thread-print` (one thread in 1024 prints a line: 1024 prints with the
default 2^20 threads), `thread-print-all` (every thread prints: with 2^20 threads all but 65536
are counted as lost), and
`thread-loop` (the thread node runs a loop of 64 iterations: what the loop-budget counter costs;
compare it between revisions). A revision whose runtime lacks a mode measures the graph plainly
(its printf compiles to nothing there). Each line gives the median wall time and the median
process CPU time (the host's work; on lavapipe the device's work too).

`--grid-search` makes every device search the prefix sums for the grid shape's groups, as a GPU
does (`gpu_schedule.GRID_TABLE_KINDS`: lavapipe otherwise reads each group's record from a table).
`--dispatch-times` adds, after each shape, the median GPU time of each of its dispatches (timed
runs, `Session(timing=True)`).  `--stripe-groups N` and `--stripes S` set the GPU-driven schedule's
striping of node-array outputs (`wgc.runtime.gpu_schedule.STRIPE_GROUPS`, `STRIPES`; given, it
applies on CPU devices too): `--stripe-groups 99999999` turns it off, 0 stripes every launch.
`--fused-groups N` sets the most workgroups of a level whose tails set up the next
(`gpu_schedule.FUSED_GROUPS`, and FUSED_GROUPS_CPU: on every device; 0: a meta pass before every
level after the first).
`--readback auto|always|never` and `--readback-bytes N` set how a run reads its results back
(`wgc.runtime.readback`: a copy in host-cached memory, or the control buffer directly); compare
modes in alternating processes (A B A B).

`--prepare DIR` pickles every shape; `--from DIR` measures those it finds (a pickle of an older
revision lacks some shapes: they are named and skipped).
"""

from __future__ import annotations

import argparse
import gzip
import os
import pickle
import statistics
import struct
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

THREAD_GRAPH = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Start { uint unused; };
struct Item { uint index; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(GROUPS, 1, 1)] [NumThreads(64, 1, 1)]
void Fan(DispatchNodeInputRecord<Start> start, [MaxRecords(64)] NodeOutput<Item> Work, uint i : SV_DispatchThreadID)
{
    ThreadNodeOutputRecords<Item> rec = Work.GetThreadNodeOutputRecords(1);
    rec.Get().index = i;
    rec.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Work(ThreadNodeInputRecord<Item> item) { Out[item.Get().index] = item.Get().index * 3 + 7; }
"""

BROADCAST_GRAPH = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Seed { uint base; };
[Shader("node")] [NodeLaunch("thread")]
void Spawn(ThreadNodeInputRecord<Seed> seed, [MaxRecords(1)] NodeOutput<Seed> Blast)
{
    ThreadNodeOutputRecords<Seed> rec = Blast.GetThreadNodeOutputRecords(1);
    rec.Get().base = seed.Get().base;
    rec.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(100, 1, 1)] [NumThreads(64, 1, 1)]
void Blast(DispatchNodeInputRecord<Seed> seed, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint base = seed.Get().base;
    Out[base + gid.x * 64 + gi] = base + gid.x;
}
"""

GRID_GRAPH = BROADCAST_GRAPH.replace("struct Seed { uint base; };", """struct Seed { uint base; };
struct Wide { uint3 grid : SV_DispatchGrid; uint base; };""").replace(
    "NodeOutput<Seed> Blast", "NodeOutput<Wide> Blast").replace(
    "ThreadNodeOutputRecords<Seed> rec", "ThreadNodeOutputRecords<Wide> rec").replace(
    "rec.Get().base = seed.Get().base;", "rec.Get().grid = uint3(100, 1, 1); rec.Get().base = seed.Get().base;").replace(
    "[NodeDispatchGrid(100, 1, 1)]", "[NodeMaxDispatchGrid(100, 1, 1)]").replace(
    "DispatchNodeInputRecord<Seed> seed", "DispatchNodeInputRecord<Wide> seed")

COALESCING_GRAPH = THREAD_GRAPH.replace("""[Shader("node")] [NodeLaunch("thread")]
void Work(ThreadNodeInputRecord<Item> item) { Out[item.Get().index] = item.Get().index * 3 + 7; }""",
                                        """[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(64, 1, 1)]
void Work([MaxRecords(64)] GroupNodeInputRecords<Item> items, uint gi : SV_GroupIndex)
{
    if (gi < items.Count()) Out[items[gi].index] = items[gi].index * 3 + 7;
}""")

ARRAY_GRAPH = THREAD_GRAPH.replace("[MaxRecords(64)] NodeOutput<Item> Work", "[MaxRecords(64)] [NodeArraySize(4)] "
                                   "NodeOutputArray<Item> Work").replace(
    "Work.GetThreadNodeOutputRecords(1)", "Work[i % 4].GetThreadNodeOutputRecords(1)").replace(
    """[Shader("node")] [NodeLaunch("thread")]
void Work(""", "".join(f"""[Shader("node")] [NodeLaunch("thread")] [NodeID("Work", {k})]
void Work{k}(ThreadNodeInputRecord<Item> item) {{ Out[item.Get().index] = item.Get().index * 3 + 7; }}
""" for k in range(3)) + """[Shader("node")] [NodeLaunch("thread")] [NodeID("Work", 3)]
void Work3(""")

LEVELS_GRAPH = """\
RWStructuredBuffer<uint> Out : register(u0);
struct Level { uint depth; };
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(LEVELS)]
void Down(ThreadNodeInputRecord<Level> r, [MaxRecords(1)] NodeOutput<Level> Down)
{
    Out[r.Get().depth] = r.Get().depth + 1;
    uint n = GetRemainingRecursionLevels() > 0 ? 1 : 0;
    ThreadNodeOutputRecords<Level> next = Down.GetThreadNodeOutputRecords(n);
    if (n > 0) next.Get().depth = r.Get().depth + 1;
    next.OutputComplete();
}
"""


def prepare(threads: int, groups: int, levels: int, check: bool = False) -> dict:
    """Compile the graphs (emulated target) and the hand kernels; describe the dispatches."""
    import tempfile

    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import _compile
    from wgc.source import SourceFile
    from wgc.spirv.tools import assemble

    seeds = groups // 100
    thread_dispatch = '{"inputs": [{"entry": "Fan", "records": [{}]}], "resources": {"u0": {"bytes": %d}}}' % (4 * threads)
    thread_graph = THREAD_GRAPH.replace("GROUPS", str(threads // 64))
    work = "void Work(ThreadNodeInputRecord<Item> item) { "
    cases = {
        "thread": (THREAD_GRAPH.replace("GROUPS", str(threads // 64)),
                   '{"inputs": [{"entry": "Fan", "records": [{}]}], "resources": {"u0": {"bytes": %d}}}' % (4 * threads)),
        "broadcast": (BROADCAST_GRAPH,
                      '{"inputs": [{"entry": "Spawn", "records": {"hex": "%s", "stride": 4, "count": %d}}], '
                      '"resources": {"u0": {"bytes": %d}}}' % (
                          struct.pack(f"<{seeds}I", *(i * 6400 for i in range(seeds))).hex(), seeds, 4 * seeds * 6400)),
        "grid": (GRID_GRAPH,
                 '{"inputs": [{"entry": "Spawn", "records": {"hex": "%s", "stride": 4, "count": %d}}], '
                 '"resources": {"u0": {"bytes": %d}}}' % (
                     struct.pack(f"<{seeds}I", *(i * 6400 for i in range(seeds))).hex(), seeds, 4 * seeds * 6400)),
        "coalescing": (COALESCING_GRAPH.replace("GROUPS", str(threads // 64)), thread_dispatch),
        "arrays": (ARRAY_GRAPH.replace("GROUPS", str(threads // 64)), thread_dispatch),
        "levels": (LEVELS_GRAPH.replace("LEVELS", str(levels - 1)),
                   '{"inputs": [{"entry": "Down", "records": [{"depth": 0}]}], "resources": {"u0": {"bytes": %d}}}'
                   % (4 * levels)),
        "levels-half": (LEVELS_GRAPH.replace("LEVELS", str(max(1, levels // 2) - 1)),
                        '{"inputs": [{"entry": "Down", "records": [{"depth": 0}]}], "resources": {"u0": {"bytes": '
                        '%d}}}' % (4 * levels)),
        "thread-print": (thread_graph.replace(work, work + 'if ((item.Get().index & 1023) == 0) '
                                              'printf("index %u", item.Get().index); '), thread_dispatch),
        "thread-print-all": (thread_graph.replace(work, work + 'printf("index %u", item.Get().index); '),
                             thread_dispatch),
        "thread-loop": (thread_graph.replace(
            "Out[item.Get().index] = item.Get().index * 3 + 7;",
            "uint v = item.Get().index; for (uint k = 0; k < 64; k++) v = v * 1664525u + 1013904223u; "
            "Out[item.Get().index] = v;"), thread_dispatch),
    }
    prepared: dict = {"threads": threads, "groups": groups, "levels": levels, "graphs": {}, "check": check}
    with tempfile.TemporaryDirectory() as folder:
        for name, (source, dispatch) in cases.items():
            path = os.path.join(folder, f"{name}.hlsl")
            Path(path).write_text(source)
            diagnostics, module, program = _compile(path, None, check) if check else _compile(path, None)
            assert module is not None, diagnostics
            described, problems = read_dispatch(SourceFile("dispatch.json", dispatch), program)
            assert described is not None, problems
            prepared["graphs"][name] = (module, program, described)
    words = assemble((HERE / "hand_kernels.spvasm").read_text())
    prepared["hand"] = struct.pack(f"<{len(words)}I", *words)
    return prepared


def timed(function, repeat: int) -> tuple[float, float]:
    function()                                  # warm-up: pipelines compile at their first dispatch
    samples = []
    cpu = []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        samples.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    CPU_TIMES.append(statistics.median(cpu))
    return statistics.median(samples), min(samples)


CPU_TIMES: list[float] = []
"""The median process CPU time of each `timed` call, in order."""


def _session_options(session_class, module: bytes, label: str) -> dict:
    """The debugging modes a case asks for, where this revision's runtime has them."""
    import inspect

    parameters = inspect.signature(session_class).parameters
    options = {}
    if label == "thread --time" and "timing" in parameters:
        options["timing"] = True
    if "prints" in parameters:
        from wgc.runtime.prints import DEFAULT_MAX_PRINTS, read_formats

        formats = read_formats(module)
        if formats:
            options["prints"] = (formats, DEFAULT_MAX_PRINTS)
    return options


SHAPES = ("thread", "broadcast", "grid", "coalescing", "levels", "arrays")
"""The graph shapes measured against hand-written dispatches, interleaved (module docstring)."""


def interleaved(graph, hand, repeat: int) -> dict[str, tuple[float, float]]:
    """Median (wall, process CPU) seconds of `graph` and of `hand`, run alternately (graph, hand,
    graph, hand, ...) after one warm-up run of each, so that a drift of the machine (clocks, other
    load, caches) falls on both alike."""
    graph()
    hand()
    samples: dict[str, list[tuple[float, float]]] = {"graph": [], "hand": []}
    for _ in range(repeat):
        for name, function in (("graph", graph), ("hand", hand)):
            start, start_cpu = time.perf_counter(), time.process_time()
            function()
            samples[name].append((time.perf_counter() - start, time.process_time() - start_cpu))
    return {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
            for name, runs in samples.items()}


class Hand:
    """The hand-written version: kernels from push-constant addresses, one submit."""

    def __init__(self, device, module: bytes) -> None:
        self.device = device
        self.layout, self.set_layouts = device.pipeline_layout([], 24)
        self.wide = b"work64" in module          # a pickle of an older revision has no `work64`
        kernels = ["fill", "work", "blast", "step"] + (["work64"] if self.wide else [])
        self.pipelines = device.pipelines(module, kernels, self.layout)

    def run(self, steps: list[tuple[str, int, int, int, int, int]]) -> None:
        """steps: (kernel, groups, rec address, out address, n, mul), a barrier after each."""
        from wgc.runtime.scheduler import dispatch_shapes

        device = self.device
        device.begin()
        for kernel, groups, rec, out, n, mul in steps:
            device.bind(self.pipelines[kernel], self.layout, [])
            device.push(self.layout, struct.pack("<QQII", rec, out, n, mul))
            shapes = dispatch_shapes(groups, *device.max_group_count[:2])
            assert len(shapes) == 1, "the hand kernels take one dispatch (their bounds checks skip the excess)"
            device.dispatch(shapes[0][1], shapes[0][2], 1)
            device.barrier()
        device.submit()

    def close(self) -> None:
        pool = self.device.descriptor_sets([], [])[0]
        self.device.destroy_pipelines(self.pipelines, self.layout, self.set_layouts, pool)


def dispatch_times(device, module, program, described, repeat: int) -> str:
    """`--dispatch-times`: the median GPU time of each dispatch of the trace over `repeat` timed runs
    (`Session(timing=True)`: a timestamp around each dispatch; the stripes of a node-array element
    are one trace dispatch, their times summed), per level, as "level: node µs, ..."."""
    from wgc.runtime.run import Session

    found: dict[tuple[int, str], list[float]] = {}
    with Session(device, module, program, described, timing=True) as session:
        session.run_once()
        for _ in range(repeat):
            for step in session.run_once():
                for dispatch in step.dispatches:
                    if dispatch.gpu_ns is not None:
                        found.setdefault((step.level, dispatch.node), []).append(dispatch.gpu_ns / 1e3)
    if not found:
        return "  GPU per dispatch: not timed on this device"
    levels: dict[int, list[str]] = {}
    for (level, node), times in found.items():
        levels.setdefault(level, []).append(f"{node} {statistics.median(times):.1f}")
    return "  GPU per dispatch (µs, median): " + "; ".join(
        f"level {level}: {', '.join(parts)}" for level, parts in sorted(levels.items()))


def measure(prepared: dict, repeat: int, selector: str | None, only: set[str] | None = None,
            per_dispatch: bool = False) -> None:
    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    from gpu_clock import ClockLog

    threads, groups, levels = prepared["threads"], prepared["groups"], prepared["levels"]
    seeds = groups // 100
    with ClockLog() as clock, Device(selector) as device:
        print(f"device: {device.info.name} ({device.info.kind}, Vulkan {device.info.api_version})")
        hand = Hand(device, prepared["hand"])
        rec = device.buffer(4 * max(threads, seeds, 1))
        outs = {"thread": device.buffer(4 * threads), "broadcast": device.buffer(4 * groups * 64),
                "levels": device.buffer(4 * levels)}
        work = [("fill", threads // 64, rec.address, 0, threads, 1),
                ("work", -(-threads // 32), rec.address, outs["thread"].address, threads, 0)]
        work64 = [work[0], ("work64", -(-threads // 64), rec.address, outs["thread"].address, threads, 0)] \
            if hand.wide else work
        blast = [("fill", -(-seeds // 64), rec.address, 0, seeds, 6400),
                 ("blast", groups, rec.address, outs["broadcast"].address, seeds, 0)]
        chain = [("fill", 1, rec.address, 0, 1, 0)] + [("step", 1, rec.address, outs["levels"].address, 1, 0)] * levels
        hand_steps = {"thread": (work, "thread"), "broadcast": (blast, "broadcast"), "grid": (blast, "broadcast"),
                      "coalescing": (work64, "thread"), "levels": (chain, "levels"), "arrays": (work, "thread")}
        for shape in SHAPES:
            if only is not None and shape not in only:
                continue
            if shape not in prepared["graphs"]:
                print(f"shape {shape}: not in the prepared cases (prepared by an older revision)")
                continue
            module, program, described = prepared["graphs"][shape]
            options = {"check": True} if prepared.get("check") else {}
            steps_of, out_name = hand_steps[shape]
            started = time.monotonic()
            with Session(device, module, program, described, **options) as session:
                steps = session.run_once()
                times = interleaved(session.run_once, lambda: hand.run(steps_of), repeat)
                graph_out = session.dump(program.resources[0])["uint32"]
                schedule = "gpu-driven" if session.scheduler.last_run_gpu_driven else "host-driven"
            out = outs[out_name]
            same = list(struct.unpack(f"<{out.size // 4}I", out.read(0, out.size)))[:len(graph_out)] == graph_out
            (g_wall, g_cpu), (h_wall, h_cpu) = times["graph"], times["hand"]
            print(f"shape {shape} ({schedule}, {len(steps)} levels): graph median {g_wall * 1e3:.2f} ms wall, "
                  f"{g_cpu * 1e3:.2f} ms cpu; hand {h_wall * 1e3:.2f} ms wall, {h_cpu * 1e3:.2f} ms cpu; ratio cpu "
                  f"{g_cpu / h_cpu:.2f}, wall {g_wall / h_wall:.2f}; same results: {same}"
                  + clock.window(started, time.monotonic()))
            if per_dispatch:
                print(dispatch_times(device, module, program, described, repeat))
        hand.close()
        for buffer in (rec, *outs.values()):
            device.free(buffer)
        for gpu_driven in (True, False):
            started = time.monotonic()
            line = per_level(prepared, device, repeat, gpu_driven)
            print(line + clock.window(started, time.monotonic()))
        # graph-only costs: the debugging modes
        for label, name, gpu_driven in [("thread --time", "thread", True), ("thread-print", "thread-print", True),
                                        ("thread-print-all", "thread-print-all", True),
                                        ("thread-loop", "thread-loop", True)]:
            if only is not None and label not in only:
                continue
            module, program, described = prepared["graphs"][name]
            options = _session_options(Session, module, label)
            if prepared.get("check"):
                options["check"] = True
            with Session(device, module, program, described, gpu_driven=gpu_driven, **options) as session:
                steps = session.run_once()
                median, best = timed(session.run_once, repeat)
                schedule = "gpu-driven" if session.scheduler.last_run_gpu_driven else "host-driven"
            print(f"cost {label} ({schedule}): median {median * 1e3:.2f} ms (best {best * 1e3:.2f}), "
                  f"cpu {CPU_TIMES[-1] * 1e3:.2f} ms")


def per_level(prepared: dict, device, repeat: int, gpu_driven: bool) -> str:
    """The `levels` line: what one level of the recursion graph adds to a run (module docstring)."""
    from wgc.runtime.run import Session

    label = "levels" if gpu_driven else "levels-host"
    long_graph, short_graph = prepared["graphs"]["levels"], prepared["graphs"].get("levels-half")
    if short_graph is None:
        return f"{label}: no levels-half case (prepared by an older revision)"
    options = {"check": True} if prepared.get("check") else {}
    with Session(device, *long_graph, gpu_driven=gpu_driven, **options) as long_run, \
            Session(device, *short_graph, gpu_driven=gpu_driven, **options) as short_run:
        many, few = len(long_run.run_once()), len(short_run.run_once())
        times = interleaved(long_run.run_once, short_run.run_once, repeat)
        schedule = "gpu-driven" if long_run.scheduler.last_run_gpu_driven else "host-driven"
        control = getattr(long_run.scheduler, "_gpu_control", None)
    (long_wall, long_cpu), (short_wall, short_cpu) = times["graph"], times["hand"]
    if many == few:
        return f"{label} ({schedule}): {many} levels; whole run / levels {long_wall / many * 1e6:.1f} µs"
    wall = (long_wall - short_wall) / (many - few)
    cpu = (long_cpu - short_cpu) / (many - few)
    line = (f"{label} ({schedule}): {many} and {few} levels of one record, per level {wall * 1e6:.1f} µs wall, "
            f"{cpu * 1e6:.1f} µs cpu; whole run / levels {long_wall / many * 1e6:.1f} µs (a run's fixed cost included)")
    if gpu_driven and schedule == "gpu-driven":
        if control is not None and hasattr(control, "device_local"):
            line += "; control block in " + ("device-local" if control.device_local else "host") + " memory"
        spans = []
        for graph in (long_graph, short_graph):
            with Session(device, *graph, timing=True, **options) as session:
                if session.timing is None or not hasattr(session.timing, "whole_run_only"):
                    return line + "; the device cannot time"
                session.timing.whole_run_only = True
                session.run_once()
                runs = []
                for _ in range(repeat):
                    session.run_once()
                    runs.append(session.scheduler.last_gpu_ns or 0)
                spans.append(statistics.median(runs))
        line += (f"; GPU per level {(spans[0] - spans[1]) / (many - few) / 1e3:.1f} µs (whole run / levels "
                 f"{spans[0] / many / 1e3:.1f} µs)")
    return line


def search_grids() -> None:
    """`--grid-search`: `gpu_schedule.GRID_TABLE_KINDS` empty, so no device gets a group table for
    produced records (the grid shape's) and every group searches (a runtime without the setting
    is left as it is)."""
    from wgc.runtime import gpu_schedule

    if hasattr(gpu_schedule, "GRID_TABLE_KINDS"):
        gpu_schedule.GRID_TABLE_KINDS = frozenset()


def _stripe_options(groups: int | None, stripes: int | None) -> None:
    """`--stripe-groups` and `--stripes`: the GPU-driven schedule's striping of node-array outputs
    (`wgc.runtime.gpu_schedule`, emulation ABI "Stripes"), set before any session is made."""
    from wgc.runtime import gpu_schedule

    if groups is not None and hasattr(gpu_schedule, "STRIPE_GROUPS"):
        gpu_schedule.STRIPE_GROUPS = groups
        gpu_schedule.UNSTRIPED_KINDS = frozenset()      # on every device, lavapipe too
    if stripes is not None and hasattr(gpu_schedule, "STRIPES"):
        if stripes < 1 or stripes & (stripes - 1):
            sys.exit("--stripes: a power of two")
        gpu_schedule.STRIPES = stripes


def fused_options(groups: int | None) -> None:
    """`--fused-groups`: the most workgroups a level whose tails set up the next may have, on every
    device (`wgc.runtime.gpu_schedule.FUSED_GROUPS`, and FUSED_GROUPS_CPU, which counts the groups
    wider than a subgroup on CPU devices, where the runtime has it); 0 gives every level after the
    first its meta pass."""
    from wgc.runtime import gpu_schedule

    if groups is not None:
        gpu_schedule.FUSED_GROUPS = groups
        if hasattr(gpu_schedule, "FUSED_GROUPS_CPU"):
            gpu_schedule.FUSED_GROUPS_CPU = groups


def readback_options(mode: str | None, copy_bytes: int | None) -> None:
    """`--readback` and `--readback-bytes`: how a run reads its results back (`wgc.runtime.readback`
    MODE: auto, always, never; COPY_BYTES), set before any session is made; a runtime without
    readback.py ignores them."""
    try:
        from wgc.runtime import readback
    except ImportError:
        return
    if mode is not None:
        readback.MODE = mode
    if copy_bytes is not None:
        readback.COPY_BYTES = copy_bytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=1 << 20)
    parser.add_argument("--groups", type=int, default=100_000)
    parser.add_argument("--levels", type=int, default=32)
    parser.add_argument("--prepare", metavar="DIR", help="compile and pickle the cases into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure the cases pickled in DIR")
    parser.add_argument("--check", action="store_true", help="compile and run with wgc run --check's checks")
    parser.add_argument("--only", help="a comma-separated list of the shapes and costs to measure (default: all), "
                        "e.g. grid,broadcast,levels")
    parser.add_argument("--grid-search", action="store_true",
                        help="no group table on any device: the groups of record-given grids search the "
                        "prefix sums, as on a GPU (lavapipe otherwise reads a table)")
    parser.add_argument("--stripe-groups", type=int, default=None, metavar="N",
                        help="stripe the node-array outputs of launches of at least N workgroups, on any device "
                        "(default: the runtime's STRIPE_GROUPS, none on CPU devices; 0 stripes every one; a "
                        "revision without stripes ignores it)")
    parser.add_argument("--dispatch-times", action="store_true",
                        help="after each shape, the median GPU time of each of its dispatches (timed runs)")
    parser.add_argument("--stripes", type=int, default=None, metavar="S",
                        help="stripes per node-array element, a power of two (default: the runtime's STRIPES)")
    parser.add_argument("--readback", choices=("auto", "always", "never"), default=None,
                        help="read the results from a copy in host-cached memory: where it pays (auto, the "
                        "runtime's default), always, or never (wgc.runtime.readback.MODE)")
    parser.add_argument("--readback-bytes", type=int, default=None, metavar="N",
                        help="auto copies results regions of more than N bytes (default: the runtime's COPY_BYTES)")
    parser.add_argument("--fused-groups", type=int, default=None, metavar="N",
                        help="level tails set up the next level only after levels of at most N workgroups, on "
                        "any device (default: the runtime's FUSED_GROUPS, FUSED_GROUPS_CPU on CPU devices)")
    args = parser.parse_args()
    readback_options(args.readback, args.readback_bytes)
    fused_options(args.fused_groups)
    if args.grid_search:
        search_grids()
    _stripe_options(args.stripe_groups, args.stripes)
    if args.source:
        raw = (Path(args.source) / "cases.pickle").read_bytes()
        prepared = pickle.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    else:
        prepared = prepare(args.threads, args.groups, args.levels, args.check) if args.check else \
            prepare(args.threads, args.groups, args.levels)
    if args.prepare:
        Path(args.prepare).mkdir(parents=True, exist_ok=True)
        (Path(args.prepare) / "cases.pickle").write_bytes(gzip.compress(pickle.dumps(prepared)))
        return
    measure(prepared, args.repeat, args.device, set(args.only.split(",")) if args.only else None,
            args.dispatch_times)


if __name__ == "__main__":
    main()
