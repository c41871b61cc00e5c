"""Build-step speed: cold `wgc compile` processes and warm in-process compiles of the samples.

run: `python benchmarks/startup.py [--repeat K]` where wgc is installed (as pip installs it: with
compiled bytecode; a PYTHONDONTWRITEBYTECODE=1 environment recompiles every module on every start
and adds about 0.15 s, so this script clears that variable for the processes it starts).
Prints `wgc --version` start-up, then for each sample that compiles to SPIR-V: the wall time of a
whole `wgc compile -o out.spv` process (best of K, after one warm-up run that writes the bytecode
and the grammar cache), its peak RSS, and the warm in-process time of `wgc.compile` (best of K).
The growth from 10 to 2,000 nodes is `benchmarks/spirv.py`'s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from frontend import best  # noqa: E402
from spirv import SKIPPED  # noqa: E402

SAMPLES = HERE.parent / "samples"


def command() -> list[str]:
    script = Path(sys.executable).with_name("wgc")
    return [str(script)] if script.exists() else [sys.executable, "-m", "wgc"]


def process(args: list[str], repeat: int) -> tuple[float, float]:
    """(best wall seconds, peak RSS MiB) of `wgc args` in fresh processes."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(command() + args, check=True, capture_output=True, env=env)       # warm-up
    times, peak = [], 0.0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        subprocess.run(command() + args, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
        peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, before)
    return min(times), peak / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from wgc import driver

    version, _ = process(["--version"], args.repeat)
    print(f"wgc --version: {version * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "out.spv")
        for path in sorted(SAMPLES.glob("*.hlsl")):
            if path.stem in SKIPPED:
                continue
            include = str(SAMPLES / "include")
            cold, rss = process(["compile", "-I", include, str(path), "-o", out], args.repeat)
            options = driver.Options(input=str(path), include_dirs=(include,))
            driver.compile(options)
            warm = best(args.repeat, lambda: driver.compile(options))
            lines = path.read_text().count("\n")
            print(f"{path.stem:28} {lines:4} lines: cold process {cold * 1000:5.0f} ms (peak RSS {rss:3.0f} MiB), "
                  f"warm in-process {warm * 1000:5.1f} ms")


if __name__ == "__main__":
    main()
