"""What the level tail costs against the meta pass it replaces, by the width of the next level.

run: `python benchmarks/tail_width.py [--widths 4,14,32,64,96,128,256] [--rounds R] [--repeat K]
[--device D]` where wgc, `vulkan` and a Vulkan device are installed; or in two halves, for a
machine without wgc's compiler (the H200 machine): `--prepare DIR` here (compiles and pickles the
graphs) and `--from DIR` there (needs only `wgc.runtime` and `vulkan`).

The graph (`source`): an entry node fed one record adds one empty record to each of the n nodes of
an array of thread nodes without input (vkd3d-proton's `two_level_empty` has 14), each of which
adds 1 to a word: a GPU-driven run of two levels, the second of n launches.  The entry is a thread
node (its workgroup: 32 invocations, which share the n launches out) or, with `--root 1`, a
broadcasting node of one thread (one invocation sets all n up, as the tail did before it shared
them out).  Each graph runs under two settings of `gpu_schedule.FUSED_LAUNCHES`: 0 (the meta pass
and its barrier set level 1 up) and 1 << 20 (the entry's tail does), interleaved (meta, tail,
meta, tail, ... R rounds of K warm runs each).  GPU time: the two timestamps of a timed session
around the whole run (`Timestamps.whole_run_only`, as `vs_vkd3d.py`); wall: `run_once` of an
untimed session (control block written, submit, wait, counters read).  Printed: the medians, and
tail / meta per width; the results are checked against the hand count (every word n_k = 1).
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

ALL_TAILS = 1 << 20


def source(n: int, root_threads: int) -> str:
    """The graph of width n (module docstring)."""
    calls = "".join(f"    e[{k}].ThreadIncrementOutputCount(1);\n" for k in range(n))
    if root_threads == 32:
        root = '[Shader("node")] [NodeLaunch("thread")]\nvoid Root(ThreadNodeInputRecord<Seed> s,\n'
    else:
        root = ('[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]\n'
                'void Root(DispatchNodeInputRecord<Seed> s,\n')
    nodes = "".join(f'[Shader("node")] [NodeLaunch("thread")] [NodeID("E", {k})]\n'
                    f"void E{k}() {{ InterlockedAdd(Out[{k}], 1); }}\n" for k in range(n))
    return (f"RWStructuredBuffer<uint> Out : register(u0);\nstruct Seed {{ uint v; }};\n{root}"
            f'          [MaxRecords(1)] [NodeID("E")] [NodeArraySize({n})] EmptyNodeOutputArray e)\n{{\n{calls}}}\n'
            f"{nodes}")


def prepare(widths: list[int], root_threads: int) -> dict:
    from wgc import driver
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import _compile
    from wgc.source import SourceFile

    cases = {}
    with tempfile.TemporaryDirectory() as folder:
        for n in widths:
            path = Path(folder) / f"width{n}.hlsl"
            path.write_text(source(n, root_threads))
            diagnostics, module, program = _compile(driver.Options(input=str(path)), None)
            if module is None:
                raise SystemExit("\n".join(d.message for d in diagnostics))
            text = ('{"inputs": [{"entry": "Root", "records": [{"v": 0}]}], "resources": {"u0": {"bytes": %d}}}'
                    % (4 * n))
            described, problems = read_dispatch(SourceFile("dispatch.json", text), program)
            if described is None:
                raise SystemExit("; ".join(p.message for p in problems))
            cases[n] = (module, program, described)
    return {"root_threads": root_threads, "cases": cases}


def one(device, case: tuple, n: int, launches: int, repeat: int) -> tuple[list[float], list[float], bool]:
    """(GPU µs samples, wall µs samples, whether level 1 was set up by tails) under FUSED_LAUNCHES."""
    from wgc.runtime import gpu_schedule
    from wgc.runtime.run import Session

    module, program, described = case
    gpu_schedule.FUSED_LAUNCHES = launches
    walls, gpus = [], []
    with Session(device, module, program, described) as session:
        session.run_once()
        plan, = session.scheduler._plans.values()
        fused = bool(plan and plan.fused and plan.fused[0])
        for _ in range(repeat):
            start = time.perf_counter()
            session.run_once()
            walls.append((time.perf_counter() - start) * 1e6)
        out = session.dump(program.resources[0])["uint32"]
        if out != [1 + repeat] * n:
            raise SystemExit(f"width {n}: wrong words {out[:8]}...")
    with Session(device, module, program, described, timing=True) as session:
        if session.timing is not None:
            session.timing.whole_run_only = True
        session.run_once()
        for _ in range(repeat):
            session.run_once()
            if session.scheduler.last_gpu_ns is not None:
                gpus.append(session.scheduler.last_gpu_ns / 1e3)
    return gpus, walls, fused


def measure(prepared: dict, rounds: int, repeat: int, selector: str | None) -> None:
    from wgc.runtime.device import Device

    samples: dict[tuple[int, int], tuple[list[float], list[float]]] = {}
    with Device(selector) as device:
        print(f"device: {device.info.name} ({device.info.kind}); entry workgroup: {prepared['root_threads']} "
              f"invocation(s)")
        for _ in range(rounds):
            for n, case in prepared["cases"].items():
                for launches in (0, ALL_TAILS):
                    gpus, walls, fused = one(device, case, n, launches, repeat)
                    if fused != (launches == ALL_TAILS):
                        raise SystemExit(f"width {n}: FUSED_LAUNCHES {launches} gave fused={fused}")
                    got = samples.setdefault((n, launches), ([], []))
                    got[0].extend(gpus)
                    got[1].extend(walls)
    print("| next level's launches | meta pass GPU µs | tails GPU µs | tails / meta | meta pass wall µs | "
          "tails wall µs | tails / meta |")
    print("|---|---|---|---|---|---|---|")
    for n in prepared["cases"]:
        (mg, mw), (tg, tw) = samples[(n, 0)], samples[(n, ALL_TAILS)]
        gm, gt = statistics.median(mg or [0]), statistics.median(tg or [0])
        wm, wt = statistics.median(mw), statistics.median(tw)
        print(f"| {n} | {gm:.1f} | {gt:.1f} | {gt / gm if gm else 0:.2f} | {wm:.1f} | {wt:.1f} | {wt / wm:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="4,14,32,64,96,128,256", help="launches of the second level, comma-separated")
    parser.add_argument("--root", type=int, choices=(1, 32), default=32,
                        help="invocations of the entry's workgroup (32: a thread node; 1: a broadcasting node)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--device", default=None)
    parser.add_argument("--prepare", metavar="DIR", help="compile and pickle the graphs into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure the graphs pickled in DIR")
    args = parser.parse_args()
    name = f"tail_width_{args.root}.pickle"
    if args.source:
        prepared = pickle.loads(gzip.decompress((Path(args.source) / name).read_bytes()))
    else:
        prepared = prepare([int(w) for w in args.widths.split(",")], args.root)
    if args.prepare:
        Path(args.prepare).mkdir(parents=True, exist_ok=True)
        (Path(args.prepare) / name).write_bytes(gzip.compress(pickle.dumps(prepared)))
        return
    measure(prepared, args.rounds, args.repeat, args.device)


if __name__ == "__main__":
    main()
