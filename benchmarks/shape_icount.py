"""Instructions per run of one `benchmarks/run.py` shape, graph and hand-written, on lavapipe.

run: `python benchmarks/shape_icount.py --from DIR [--shape arrays] [--runs 4] [--only graph|hand] [--grid-search]` where DIR holds
`benchmarks/run.py --prepare DIR`'s cases (prepare them small: `--threads 65536`; valgrind runs
llvmpipe's lanes one instruction at a time), with valgrind and a Vulkan device (lavapipe).

On a loaded machine the CPU time of a run varies by 10-30 %; the instructions a process executes
do not.  lavapipe runs the shaders in the process (llvmpipe's worker threads), so valgrind's
callgrind counts the device's work too.  For each of graph and hand it runs four processes under
callgrind: after one warm-up run (pipelines compile at their first dispatch), 0 or `--runs` more
runs, each twice; (Ir(runs) - Ir(0)) / runs is the instructions of one run, the start-up, the
compiles and the warm-up subtracted.  The per-record figure divides that by the shape's threads.
"""

from __future__ import annotations

import argparse
import gzip
import os
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _inner(source: str, shape: str, which: str, runs: int, grid_search: bool = False) -> None:
    """One process: a warm-up run, then `runs` runs of the graph or of the hand-written kernels."""
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    from run import Hand, search_grids

    if grid_search:
        search_grids()

    from wgc.runtime.device import Device
    from wgc.runtime.run import Session

    raw = (Path(source) / "cases.pickle").read_bytes()
    prepared = pickle.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    threads = prepared["threads"]
    module, program, described = prepared["graphs"][shape]
    with Device(None) as device:
        if which == "graph":
            with Session(device, module, program, described) as session:
                for _ in range(runs + 1):
                    session.run_once()
            return
        assert shape in ("thread", "coalescing", "arrays"), "hand kernels for the thread-like shapes only"
        hand = Hand(device, prepared["hand"])
        rec, out = device.buffer(4 * threads), device.buffer(4 * threads)
        second = "work64" if shape == "coalescing" and hand.wide else "work"
        steps = [("fill", threads // 64, rec.address, 0, threads, 1),
                 (second, -(-threads // (64 if second == "work64" else 32)), rec.address, out.address, threads, 0)]
        for _ in range(runs + 1):
            hand.run(steps)
        hand.close()
        device.free(rec)
        device.free(out)


def instructions(source: str, shape: str, which: str, runs: int, grid_search: bool = False) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                               __file__, "--from", source, "--shape", shape, "--inner", which, "--runs", str(runs),
                               *(["--grid-search"] if grid_search else [])],
                              capture_output=True, text=True, env=dict(os.environ))
        match = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
        if done.returncode != 0 or match is None:
            raise SystemExit(f"callgrind failed ({which}, {runs} runs):\n{done.stderr[-3000:]}")
        return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", required=True, metavar="DIR")
    parser.add_argument("--shape", default="arrays")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--only", choices=("graph", "hand"), help="count only the graph or only the hand kernels")
    parser.add_argument("--grid-search", action="store_true", help="no group table (`run.py --grid-search`)")
    parser.add_argument("--inner", choices=("graph", "hand"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        _inner(args.source, args.shape, args.inner, args.runs, args.grid_search)
        return
    raw = (Path(args.source) / "cases.pickle").read_bytes()
    threads = pickle.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)["threads"]
    per_run = {}
    for which in (args.only,) if args.only else ("graph", "hand"):       # 0 runs, R runs, 0 runs, R runs
        counts = {0: [], args.runs: []}
        for _ in range(2):
            for runs in (0, args.runs):
                counts[runs].append(instructions(args.source, args.shape, which, runs, args.grid_search))
        per_run[which] = (min(counts[args.runs]) - min(counts[0])) / args.runs
        print(f"{args.shape} {which}: {per_run[which] / 1e6:.1f} M instructions per run, "
              f"{per_run[which] / threads:.0f} per thread record ({threads} records)", flush=True)
    if len(per_run) == 2:
        print(f"{args.shape}: graph / hand {per_run['graph'] / per_run['hand']:.3f}")


if __name__ == "__main__":
    main()
