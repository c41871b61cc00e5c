"""Submit-to-result time of `wgc run` on small graphs: `Session.run_once` against an empty submit.

run: `python benchmarks/submit_wait.py [--repeat K] [--device D] [--tree DIR]` where wgc, `vulkan` and
a Vulkan device are installed.  Or in two halves, for a machine without wgc's compiler (the H200
machine): `--prepare DIR` here (compiles the graphs, pickles them) and `--from DIR` there (needs
only `wgc.runtime` and `vulkan`).  `--tree DIR` imports the runtime from another checkout of wgc
(the same cases, measured by an older runtime: run the two alternately, A B A B, to compare).

What a run costs from the host's call to its results, for graphs whose GPU work is a few
microseconds (vkd3d-proton's small cases are of this kind): the wall time and the process CPU time
of `Session.run_once` (writing the control block, submit, wait, reading the counters back, the
trace), against an anchor measured in the same rounds, an empty command buffer submitted and waited
for through raw cffi calls written here (the same code whichever runtime is measured: the floor of
any submit on this device); and, per graph, the median host time outside `Device.replay` (the
submit and the wait): what the runtime's Python does per run.  Rounds are
interleaved (anchor, then each graph, K times) after one warm-up of each; each line gives the
medians and the ratio to the anchor's.

- one-level: a thread node reading 2 entry records, each adding to a buffer (one dispatch);
- two-level: the same node sending each record on to a second thread node (two levels);
- recursion-8: one record through a recursive thread node 8 levels deep.

`--readback` adds two sessions of each graph, interleaved with the others: one that reads its
results from a copy in host-cached memory ('always', `wgc.runtime.readback`) and one that reads the
control buffer directly ('never'); the plain line is the runtime's choice ('auto': on lavapipe,
whose memory is all cached, 'never'; on a discrete GPU, the copy where the region exceeds a line).

`--spin NS` adds two lines: the first graph with `Device.spin_ns` (the fence polled before the
blocking wait; 0 by default) set to NS, and set to 0 (on lavapipe, whose threads share the cores
with the polling host, it is no gain: see benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import gzip
import os
import pickle
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import LEVELS_GRAPH  # noqa: E402

GRAPHS = {
    "one-level": ("""\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Entry(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[0], r.Get().v); }
""", '{"inputs": [{"entry": "Entry", "records": [{"v": 1}, {"v": 2}]}], "resources": {"u0": {"bytes": 4}}}'),
    "two-level": ("""\
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint v; };
[Shader("node")] [NodeLaunch("thread")]
void Entry(ThreadNodeInputRecord<Item> r, [MaxRecords(1)] NodeOutput<Item> Leaf)
{
    ThreadNodeOutputRecords<Item> o = Leaf.GetThreadNodeOutputRecords(1);
    o.Get().v = r.Get().v + 1;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> r) { InterlockedAdd(Out[0], r.Get().v); }
""", '{"inputs": [{"entry": "Entry", "records": [{"v": 1}, {"v": 2}]}], "resources": {"u0": {"bytes": 4}}}'),
    "recursion-8": (LEVELS_GRAPH.replace("LEVELS", "7"),      # 1 + 7 recursion levels
                    '{"inputs": [{"entry": "Down", "records": [{"depth": 0}]}], "resources": {"u0": {"bytes": 32}}}'),
}
EXPECTED = {"one-level": [3], "two-level": [5], "recursion-8": list(range(1, 9))}
"""u0 after one run, by hand: 1 + 2; (1 + 1) + (2 + 1); depth d writes d + 1."""


def prepare() -> dict:
    import tempfile

    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import _compile
    from wgc.source import SourceFile

    prepared = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, (source, dispatch) in GRAPHS.items():
            path = os.path.join(folder, f"{name}.hlsl")
            Path(path).write_text(source)
            diagnostics, module, program = _compile(path, None)
            assert module is not None, diagnostics
            described, problems = read_dispatch(SourceFile("dispatch.json", dispatch), program)
            assert described is not None, problems
            prepared[name] = (module, program, described)
    return prepared


def measure(prepared: dict, repeat: int, selector: str | None, spin: int | None = None,
            readback: bool = False) -> None:
    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    with Device(selector) as device:
        print(f"device: {device.info.name} ({device.info.kind}, Vulkan {device.info.api_version})")
        sessions = {name: Session(device, *prepared[name]) for name in GRAPHS}
        if readback:        # the same graphs, the results read from a copy / directly (`--readback`)
            for name in GRAPHS:
                for mode, label in (("always", "copied"), ("never", "direct")):
                    made = sessions[f"{name}, {label}"] = Session(device, *prepared[name])
                    if not hasattr(made.scheduler, "readback"):
                        sys.exit("--readback: this runtime has no wgc.runtime.readback")
                    made.scheduler.readback.mode = mode
        try:
            lib, ffi, vk = device.lib, device.ffi, device.vk
            commands = ffi.new("VkCommandBuffer[1]", [device.command_buffer])
            info = ffi.new("VkSubmitInfo[1]", [{"sType": vk.VK_STRUCTURE_TYPE_SUBMIT_INFO, "commandBufferCount": 1,
                                                "pCommandBuffers": commands}])
            fences = ffi.new("VkFence[1]", [device.fence])
            begin = ffi.new("VkCommandBufferBeginInfo[1]", [{"sType": vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                                             "flags": vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT}])

            def empty() -> None:
                """The anchor, the same code whichever runtime is measured: raw cffi calls."""
                lib.vkResetCommandBuffer(device.command_buffer, 0)
                lib.vkBeginCommandBuffer(device.command_buffer, begin)
                lib.vkEndCommandBuffer(device.command_buffer)
                assert lib.vkQueueSubmit(device.queue, 1, info, device.fence) == 0
                lib.vkWaitForFences(device.device, 1, fences, 1, 10**10)
                lib.vkResetFences(device.device, 1, fences)

            runs = {"empty submit": empty, **{name: session.run_once for name, session in sessions.items()}}
            polling = spin is not None and hasattr(device, "spin_ns")
            if polling:
                assert spin is not None
                default_spin = device.spin_ns

                def polled(run, ns):
                    def run_with() -> None:
                        device.spin_ns = ns
                        try:
                            run()
                        finally:
                            device.spin_ns = default_spin
                    return run_with
                first = next(iter(sessions))    # the same graph with the fence polled for `spin` ns, and not
                runs[f"{first}, polled {spin // 1000} µs"] = polled(sessions[first].run_once, spin)
                runs[f"{first}, not polled"] = polled(sessions[first].run_once, 0)
            for function in runs.values():      # warm-up: plans, pipelines compiled at their first dispatch
                function()
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
            in_replay: dict[str, list[float]] = {name: [] for name in runs}
            replay, spent = device.replay, [0.0]

            def timed_replay(commands) -> None:     # the submit and the wait, apart from the host's work
                start = time.perf_counter()
                replay(commands)
                spent[0] += time.perf_counter() - start
            device.replay = timed_replay
            for _ in range(repeat):
                for name, function in runs.items():
                    spent[0] = 0.0
                    start, start_cpu = time.perf_counter(), time.process_time()
                    function()
                    samples[name].append((time.perf_counter() - start, time.process_time() - start_cpu))
                    in_replay[name].append(spent[0])
            del device.replay
            wall = {name: statistics.median(w for w, _ in runs_) for name, runs_ in samples.items()}
            cpu = {name: statistics.median(c for _, c in runs_) for name, runs_ in samples.items()}
            for name in runs:
                right = ""
                if name in sessions:
                    graph = name.split(",")[0]
                    got = sessions[name].dump(prepared[graph][1].resources[0])["uint32"]
                    # every run adds again (one-level, two-level) or writes the same (recursion)
                    runs_done = (1 + repeat) * (3 if polling and name == next(iter(sessions)) else 1)
                    want = [v * runs_done for v in EXPECTED[graph]] if graph != "recursion-8" else EXPECTED[graph]
                    right = f"; results right: {got == want}"
                if name != "empty submit":
                    host = statistics.median(w - r for (w, _), r in zip(samples[name], in_replay[name]))
                    right = f"; host work outside Device.replay {host * 1e6:.1f} µs" + right
                print(f"{name}: median {wall[name] * 1e6:.1f} µs wall, {cpu[name] * 1e6:.1f} µs cpu; to the empty "
                      f"submit: wall {wall[name] / wall['empty submit']:.2f}, cpu {cpu[name] / cpu['empty submit']:.2f}"
                      + right)
        finally:
            for session in sessions.values():
                session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--device", default=None)
    parser.add_argument("--tree", metavar="DIR", help="import wgc's runtime from this checkout")
    parser.add_argument("--spin", type=int, metavar="NS", default=None,
                        help="also run the first graph with the fence polled for NS nanoseconds before the "
                             "blocking wait (Device.spin_ns), and not polled, interleaved with the others")
    parser.add_argument("--prepare", metavar="DIR", help="compile and pickle the cases into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure the cases pickled in DIR")
    parser.add_argument("--readback", action="store_true",
                        help="also each graph with its results read from a host-cached copy and directly")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.tree).resolve() if args.tree else HERE.parent))
    if args.source:
        prepared = pickle.loads(gzip.decompress((Path(args.source) / "submit_cases.pickle").read_bytes()))
    else:
        prepared = prepare()
    if args.prepare:
        Path(args.prepare).mkdir(parents=True, exist_ok=True)
        (Path(args.prepare) / "submit_cases.pickle").write_bytes(gzip.compress(pickle.dumps(prepared)))
        return
    measure(prepared, args.repeat, args.device, args.spin, args.readback)


if __name__ == "__main__":
    main()
