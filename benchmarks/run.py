"""`wgc run` benchmark: graphs run by the runtime against the same work written as plain compute.

run: `python benchmarks/run.py [--repeat K] [--device D] [--threads N] [--groups G] [--levels L] [--check]`
where wgc, `vulkan` and a Vulkan device are installed.  Or in two halves, for a machine that has
the device but not wgc's compiler dependencies: `--prepare DIR` here (compiles the graphs and the
hand-written kernels, pickles them) and `--from DIR` there (needs only `wgc.runtime` and `vulkan`).

Three measurements, each the median and the best of K timed runs after one warm-up run (llvmpipe
compiles a pipeline at its first dispatch), the wall time of the whole dispatch on the host
(record, submit, wait, read back):

- thread: a broadcasting node of N/64 groups x 64 threads emits one record per thread to a thread
  node that writes `Out[i] = 3 i + 7` (N thread records, 2 levels).  Hand-written: a `fill` kernel
  writes the N records, a barrier, a `work` kernel reads them and writes Out (one submit).
- broadcast: a thread node with G/100 entry records emits one record each to a broadcasting node
  with a fixed 100-group grid of 64 threads (G groups).  Hand-written: `fill` the G/100 records,
  a barrier, a `blast` kernel of G groups.
- levels: one record through a recursive thread node L levels deep: (time / L) is the per-level
  overhead, measured for both schedules: GPU-driven (the default, `wgc.runtime.gpu_schedule`: a
  meta dispatch, a barrier, the indirect dispatch and a barrier per level, one submit) and
  host-driven (`gpu_driven=False`: submit, wait, counters read back, next level recorded).

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

Records per second = records processed / median time; the ratio graph / hand is the figure the
issue asks for.  The results of both versions are compared for equality before timing.
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
        "levels": (LEVELS_GRAPH.replace("LEVELS", str(levels - 1)),
                   '{"inputs": [{"entry": "Down", "records": [{"depth": 0}]}], "resources": {"u0": {"bytes": %d}}}'
                   % (4 * levels)),
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


class Hand:
    """The hand-written version: kernels from push-constant addresses, one submit."""

    def __init__(self, device, module: bytes) -> None:
        self.device = device
        self.layout, self.set_layouts = device.pipeline_layout([], 24)
        self.pipelines = device.pipelines(module, ["fill", "work", "blast"], self.layout)

    def run(self, steps: list[tuple[str, int, int, int, int, int]]) -> None:
        """steps: (kernel, groups, rec address, out address, n, mul), a barrier after each."""
        device = self.device
        device.begin()
        for kernel, groups, rec, out, n, mul in steps:
            device.bind(self.pipelines[kernel], self.layout, [])
            device.push(self.layout, struct.pack("<QQII", rec, out, n, mul))
            from wgc.runtime.scheduler import dispatch_shapes

            shapes = dispatch_shapes(groups, *device.max_group_count[:2])
            assert len(shapes) == 1, "the hand kernels take one dispatch (their bounds checks skip the excess)"
            device.dispatch(shapes[0][1], shapes[0][2], 1)
            device.barrier()
        device.submit()

    def close(self) -> None:
        pool = self.device.descriptor_sets([], [])[0]
        self.device.destroy_pipelines(self.pipelines, self.layout, self.set_layouts, pool)


def measure(prepared: dict, repeat: int, selector: str | None) -> None:
    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    threads, groups = prepared["threads"], prepared["groups"]
    with Device(selector) as device:
        print(f"device: {device.info.name} ({device.info.kind}, Vulkan {device.info.api_version})")
        hand = Hand(device, prepared["hand"])
        results = {}
        schedules = {}
        runs = [(name, name, True) for name in prepared["graphs"]] + [("levels-host", "levels", False),
                                                                       ("thread --time", "thread", True)]
        cpu: dict[str, float] = {}
        for label, name, gpu_driven in runs:
            module, program, described = prepared["graphs"][name]
            options = _session_options(Session, module, label)
            if prepared.get("check"):
                options["check"] = True
            with Session(device, module, program, described, gpu_driven=gpu_driven, **options) as session:
                out = program.resources[0]
                steps = session.run_once()
                graph_time = timed(session.run_once, repeat)
                cpu[label] = CPU_TIMES[-1]
                graph_out = session.dump(out)
                results[label] = (graph_time, graph_out, len(steps))
                schedules[label] = "gpu-driven" if session.scheduler.last_run_gpu_driven else "host-driven"
        # the same work by hand
        rec = device.buffer(4 * max(threads, groups // 100))
        out_thread = device.buffer(4 * threads)
        out_blast = device.buffer(4 * groups * 64)
        thread_steps = [("fill", threads // 64, rec.address, 0, threads, 1),
                        ("work", -(-threads // 32), rec.address, out_thread.address, threads, 0)]
        seeds = groups // 100
        blast_steps = [("fill", -(-seeds // 64), rec.address, 0, seeds, 6400),
                       ("blast", groups, rec.address, out_blast.address, seeds, 0)]
        hand_thread = timed(lambda: hand.run(thread_steps), repeat)
        thread_same = struct.unpack(f"<{threads}I", out_thread.read(0, 4 * threads)) == tuple(
            results["thread"][1]["uint32"])
        hand_blast = timed(lambda: hand.run(blast_steps), repeat)
        blast_same = struct.unpack(f"<{groups * 64}I", out_blast.read(0, 4 * groups * 64)) == tuple(
            results["broadcast"][1]["uint32"])
        hand.close()
        for buffer in (rec, out_thread, out_blast):
            device.free(buffer)
    (t_med, t_best), _, t_levels = results["thread"]
    (b_med, b_best), _, b_levels = results["broadcast"]
    print(f"thread graph ({schedules['thread']}): {threads} thread records, {t_levels} levels: median {t_med * 1e3:.2f} ms (best "
          f"{t_best * 1e3:.2f}), {threads / t_med / 1e6:.2f} M records/s; hand-written {hand_thread[0] * 1e3:.2f} ms "
          f"(best {hand_thread[1] * 1e3:.2f}); ratio {t_med / hand_thread[0]:.2f}; same results: {thread_same}")
    print(f"broadcast graph ({schedules['broadcast']}): {groups} groups of 64 ({groups // 100} records), {b_levels} levels: median "
          f"{b_med * 1e3:.2f} ms (best {b_best * 1e3:.2f}), {groups / b_med / 1e6:.3f} M groups/s; hand-written "
          f"{hand_blast[0] * 1e3:.2f} ms (best {hand_blast[1] * 1e3:.2f}); ratio {b_med / hand_blast[0]:.2f}; "
          f"same results: {blast_same}")
    for label in ("levels", "levels-host"):
        (l_med, l_best), _, l_levels = results[label]
        print(f"levels ({schedules[label]}): {l_levels} levels of one record: median {l_med * 1e3:.2f} ms, "
              f"{l_med / l_levels * 1e6:.0f} µs per level (best {l_best / l_levels * 1e6:.0f})")
    for label in ("thread", "broadcast", "levels", "levels-host", "thread --time", "thread-print",
                  "thread-print-all", "thread-loop"):
        (median, best), _, _ = results[label]
        print(f"cost {label} ({schedules[label]}): median {median * 1e3:.2f} ms (best {best * 1e3:.2f}), "
              f"cpu {cpu[label] * 1e3:.2f} ms")


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
    args = parser.parse_args()
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
    measure(prepared, args.repeat, args.device)


if __name__ == "__main__":
    main()
