"""`wgc run`'s debugging modes against a plain run, in process CPU time (`time.process_time`).

run: `python benchmarks/debug_run.py [--tree DIR] [--repeat K] [--threads N] [--groups G] [--levels L]`
where wgc, `vulkan` and a Vulkan device are installed.  `--tree DIR` imports wgc from DIR (another
checkout, e.g. `git archive REV | tar -x -C DIR`), so that two versions can be measured in turn:
run it for each, interleaved (A, B, A, B, ...), and compare medians.

The graphs are `benchmarks/run.py`'s (thread, broadcast, levels).  For each, the median CPU time
of K runs of a `Session` (after a warm-up run) under: the GPU-driven schedule (a plain run), the
host-driven schedule (`gpu_driven=False`, what a plain run uses where it cannot plan), and, where
the tree has `wgc.runtime.schedules`, a debugging run keeping every record (`--dump-records`) and
one under a seeded schedule (`--schedule 1`).  CPU time counts every thread of the process, so on
lavapipe it includes the shaders' execution.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", default=str(HERE.parent))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1 << 16)
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--levels", type=int, default=32)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("run_benchmark", HERE / "run.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    sys.path.insert(0, args.tree)           # before run.py's own entry: wgc comes from the tree
    prepared = bench.prepare(args.threads, args.groups, args.levels)
    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    try:
        from wgc.runtime.records import RecordLog
        from wgc.runtime.schedules import DebugRun, Schedule
        modes = ["gpu-driven", "host-driven", "dump-records", "schedule 1"]
    except ImportError:
        modes = ["gpu-driven", "host-driven"]
    import wgc
    print(f"tree: {Path(wgc.__file__).parent.parent}")
    with Device(None) as device:
        for name, (module, program, described) in prepared["graphs"].items():
            line = [f"{name}:"]
            for mode in modes:
                options: dict = {"gpu_driven": mode == "gpu-driven"}
                if mode == "dump-records":
                    options = {"debug": DebugRun(RecordLog())}
                elif mode == "schedule 1":
                    options = {"debug": DebugRun(schedule=Schedule("1", 1))}
                with Session(device, module, program, described, **options) as session:
                    debug = options.get("debug")

                    def once() -> None:
                        if debug is not None:          # what one run keeps, not every earlier one's
                            debug.levels.clear()
                            if debug.records is not None:
                                debug.records.levels.clear()
                        session.run_once()

                    once()
                    samples = []
                    for _ in range(args.repeat):
                        start = time.process_time()
                        once()
                        samples.append(time.process_time() - start)
                line.append(f"{mode} {statistics.median(samples) * 1e3:.1f} ms")
            print("  ".join(line), flush=True)


if __name__ == "__main__":
    main()
