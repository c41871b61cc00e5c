"""The AMDX path's cost (issue 25): translation time per module, and the run time of a graph's
translated AMDX module against its emulated-target module, for the graphs of `benchmarks/run.py`.

run: `python benchmarks/amdx_path.py [--repeat K] [--device D] [--threads N] [--groups G] [--levels L]`
where wgc, `vulkan` and a Vulkan device are installed; or `--prepare DIR` here (compiles and
translates, pickles) and `--from DIR` on a machine with the device (needs only `wgc.runtime` and
`vulkan`), as `benchmarks/run.py` does.

Translation: `wgc.runtime.amdx.amdx_program` on the AMDX module (read, graph, translate, spirv-val),
median of K, beside the AMDX compile itself. Run time: both modules of each graph are loaded in
their own `Session` on one device, warmed up, then run interleaved (emulated, AMDX, emulated,
AMDX, ... K times each: a load that comes and goes hits both alike); each run of the whole
dispatch (record, submit, wait, read back) is timed by the process's CPU time (`time.process_time`:
every thread of the process, lavapipe's workers included, so on a CPU device it is the GPU work
itself and what other processes do to the machine does not count) and by the wall clock; the
results of both are compared for equality. The ratio AMDX / emulated of the CPU-time medians is
the figure the issue asks for on lavapipe (aim: within 1.2); on a real GPU, whose work takes no
CPU time of the process, read the wall-clock ratio.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def _median(function, repeat: int) -> tuple[float, float]:
    function()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), min(samples)


def prepare(threads: int, groups: int, levels: int, repeat: int) -> dict:
    import struct

    import run as bench
    from wgc import driver
    from wgc.runtime import amdx
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import _compile
    from wgc.source import SourceFile

    seeds = groups // 100
    cases = {
        "thread": (bench.THREAD_GRAPH.replace("GROUPS", str(threads // 64)),
                   '{"inputs": [{"entry": "Fan", "records": [{}]}], "resources": {"u0": {"bytes": %d}}}'
                   % (4 * threads)),
        "broadcast": (bench.BROADCAST_GRAPH,
                      '{"inputs": [{"entry": "Spawn", "records": {"hex": "%s", "stride": 4, "count": %d}}], '
                      '"resources": {"u0": {"bytes": %d}}}' % (
                          struct.pack(f"<{seeds}I", *(i * 6400 for i in range(seeds))).hex(), seeds, 4 * seeds * 6400)),
        "levels": (bench.LEVELS_GRAPH.replace("LEVELS", str(levels - 1)),
                   '{"inputs": [{"entry": "Down", "records": [{"depth": 0}]}], "resources": {"u0": {"bytes": %d}}}'
                   % (4 * levels)),
    }
    prepared: dict = {"graphs": {}, "translation": {}}
    with tempfile.TemporaryDirectory() as folder:
        for name, (source, dispatch) in cases.items():
            path = os.path.join(folder, f"{name}.hlsl")
            Path(path).write_text(source)
            paths = {}
            makers = (("emulated", lambda: _compile(path, None)), ("amdx", lambda: amdx.compile_amdx(path, None)))
            for label, make in makers:
                diagnostics, module, program = make()
                assert module is not None, diagnostics
                described, problems = read_dispatch(SourceFile("dispatch.json", dispatch), program)
                assert described is not None, problems
                paths[label] = (module, program, described)
            prepared["graphs"][name] = paths
            compiled = driver.compile(driver.Options(input=path, reflection=True))
            words = compiled.outputs["spirv"]
            compile_time = _median(lambda: driver.compile(driver.Options(input=path)), repeat)
            translate_time = _median(lambda: amdx.amdx_program([(path, words)]), repeat)
            prepared["translation"][name] = (len(words), compile_time, translate_time)
    return prepared


def measure(prepared: dict, repeat: int, selector: str | None) -> None:
    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    for name, (size, (c_med, _), (t_med, t_best)) in prepared["translation"].items():
        print(f"{name}: AMDX module {size} bytes: translation median {t_med * 1e3:.2f} ms (best {t_best * 1e3:.2f}); "
              f"the AMDX compile itself {c_med * 1e3:.1f} ms")
    with Device(selector) as device:
        print(f"device: {device.info.name} ({device.info.kind}, Vulkan {device.info.api_version})")
        for name, paths in prepared["graphs"].items():
            sessions = {label: Session(device, module, program, described)
                        for label, (module, program, described) in paths.items()}
            try:
                cpu: dict[str, list[float]] = {label: [] for label in sessions}
                wall: dict[str, list[float]] = {label: [] for label in sessions}
                for session in sessions.values():
                    session.run_once()                      # warm-up: pipelines, first allocations
                for _ in range(repeat):
                    for label, session in sessions.items():     # interleaved: emulated, AMDX, emulated, ...
                        start_cpu, start_wall = time.process_time(), time.perf_counter()
                        session.run_once()
                        cpu[label].append(time.process_time() - start_cpu)
                        wall[label].append(time.perf_counter() - start_wall)
                outs = {label: session.dump(paths[label][1].resources[0]) for label, session in sessions.items()}
            finally:
                for session in sessions.values():
                    session.close()
            e_cpu, a_cpu = statistics.median(cpu["emulated"]), statistics.median(cpu["amdx"])
            e_wall, a_wall = statistics.median(wall["emulated"]), statistics.median(wall["amdx"])
            print(f"{name}: CPU time median emulated {e_cpu * 1e3:.2f} ms, AMDX translated {a_cpu * 1e3:.2f} ms, "
                  f"ratio {a_cpu / e_cpu:.2f}; wall median {e_wall * 1e3:.2f} / {a_wall * 1e3:.2f} ms, ratio "
                  f"{a_wall / e_wall:.2f}; same results: {outs['emulated'] == outs['amdx']}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=1 << 20)
    parser.add_argument("--groups", type=int, default=100_000)
    parser.add_argument("--levels", type=int, default=32)
    parser.add_argument("--prepare", metavar="DIR", help="compile, translate and pickle the cases into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure the cases pickled in DIR")
    args = parser.parse_args()
    if args.source:
        prepared = pickle.loads((Path(args.source) / "amdx_cases.pickle").read_bytes())
    else:
        prepared = prepare(args.threads, args.groups, args.levels, args.repeat)
    if args.prepare:
        Path(args.prepare).mkdir(parents=True, exist_ok=True)
        (Path(args.prepare) / "amdx_cases.pickle").write_bytes(pickle.dumps(prepared))
        return
    measure(prepared, args.repeat, args.device)


if __name__ == "__main__":
    main()
