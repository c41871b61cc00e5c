"""The warm compile by stage: what a reused server worker spends on one edited compile.

Run: `python benchmarks/warm_stages.py [--count N] [--sample NAME]` where wgc is installed (or with
PYTHONPATH at a checkout). In a temporary folder, one process runs `wgc compile -I samples/include
-MD -o out.spv edited.hlsl` through `wgc.cli.main` (as a server worker runs a command:
`consult_cache=False`) on N edited versions of the sample (each adds a different constant) after
three untimed ones, and prints per stage the median CPU time in ms (`time.thread_time` around each
stage's function, in the thread that runs it) and the whole command's (`time.process_time`):
preprocess, parse, sema, the target's checks, SPIR-V lowering, validation (spirv-val), the lint,
the outputs' writing (with the depfile), and the rest of the command (options, the warning's
rendering, the compile thread, ...). `--between process` runs a short Python process before each
compile (untimed), as a served compile's client runs before the worker compiles: what the caches
that process evicts cost the compile. A CPU benchmark of the compiler itself: it needs wgc where it
runs (no device; no `--prepare`/`--from`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

STAGES = (
    ("preprocess", "wgc.preprocess", "preprocess"),
    ("parse", "wgc.syntax.parse", "parse"),
    ("sema", "wgc.sema.analyze", "analyze"),
    ("target checks", "wgc.sema.results", "Analysis.check_target"),
    ("lowering", "wgc.spirv.emit", "lower_module"),
    ("validation", "wgc.spirv.validate_parts", "validate"),
    ("lint", "wgc.spirv.lint", "lint"),
    ("outputs", "wgc.compiling", "_conclude"),
)


def wrap(spent: dict[str, float], name: str, module_name: str, attribute: str) -> None:
    """Replace `module.attribute` (a function, or `Class.method`) with a timed one."""
    import importlib

    owner: object = importlib.import_module(module_name)
    path = attribute.split(".")
    for part in path[:-1]:
        owner = getattr(owner, part)
    original = getattr(owner, path[-1])

    def timed(*args: object, **kwargs: object) -> object:
        start = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[name] += time.thread_time() - start

    setattr(owner, path[-1], timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=30, help="timed compiles (default 30)")
    parser.add_argument("--sample", default="mesh_materials", help="the sample to edit (default mesh_materials)")
    parser.add_argument("--between", choices=("none", "process", "sleep"), default="none",
                        help="before each compile, untimed: nothing (default), a `python -c pass` process run "
                             "to its end (as a served compile's client runs before the worker compiles), or a "
                             "30 ms sleep (idle without another process)")
    args = parser.parse_args()
    from wgc import cli

    source = (SAMPLES / f"{args.sample}.hlsl").read_text()
    argv = ["compile", "-I", str(SAMPLES / "include"), "-MD", "-o", "out.spv", "edited.hlsl"]
    spent = dict.fromkeys([name for name, _, _ in STAGES], 0.0)
    rows: dict[str, list[float]] = {name: [] for name in [*spent, "rest", "whole command"]}
    for stage in STAGES:
        wrap(spent, *stage)
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        for number in range(3 + args.count):
            Path("edited.hlsl").write_text(f"{source}\nstatic const uint kEdit = {number}u;\n")
            for name in spent:
                spent[name] = 0.0
            if args.between == "process":
                subprocess.run([sys.executable, "-c", "pass"], check=True)
            elif args.between == "sleep":
                time.sleep(0.03)
            start = time.process_time()
            with contextlib.redirect_stderr(io.StringIO()):
                code = cli.main(argv, consult_cache=False)
            whole = time.process_time() - start
            if code != 0:
                raise SystemExit(f"the compile failed ({code})")
            if number < 3:
                continue
            for name, value in spent.items():
                rows[name].append(value)
            rows["rest"].append(whole - sum(spent.values()))
            rows["whole command"].append(whole)
        os.chdir("/")
    print(f"{args.sample}.hlsl, edited, {args.count} compiles in one process; median CPU ms:")
    for name, values in rows.items():
        print(f"  {name:14} {statistics.median(values) * 1e3:6.2f}")


if __name__ == "__main__":
    main()
