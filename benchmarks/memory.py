"""Peak memory of whole `wgc compile` processes: a ~150-line sample and generated graphs up to 2,000 nodes.

run: `python benchmarks/memory.py [--sizes 10,100,1000,2000]` where wgc is installed.
Every sample that compiles to SPIR-V (52-261 lines), then the generated graphs.
Each compile (`python -m wgc compile FILE -o out.spv`, in-process validation included) runs in a
fresh process after one warm-up run (bytecode and grammar tables written); its peak resident set
is that child's own `ru_maxrss` (from `os.wait4`, so one child's peak is never confused with
another's). The generated graphs are `benchmarks/graph.py`'s "with bodies" graphs (a broadcasting
root fanning out to N/2 thread nodes that each enqueue a record to their own tail node).
Issue 16's budgets: <= 60 MiB for a 150-line compile, <= 250 MiB at 2,000 nodes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from graph import generate  # noqa: E402
from spirv import SKIPPED  # noqa: E402
from vs_slang import default_sample  # noqa: E402

SAMPLES = HERE.parent / "samples"
BUDGET_150_LINES_MIB = 60
BUDGET_2000_NODES_MIB = 250


def peak_rss_mib(argv: list[str], env: dict[str, str], cwd: str) -> float:
    """The peak resident set of the process `argv` (MiB), from its own rusage."""
    child = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    errors = child.stderr.read()
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{errors.decode(errors='replace')}")
    return usage.ru_maxrss / 1024          # Linux: KiB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,2000")
    args = parser.parse_args()
    wgc = [sys.executable, "-m", "wgc", "compile"]
    with tempfile.TemporaryDirectory() as folder:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "WGC_CACHE")}
        env["WGC_CACHE_DIR"] = str(Path(folder) / "cache")
        base = peak_rss_mib([sys.executable, "-c", "pass"], env, folder)
        print(f"python -c pass: peak RSS {base:5.1f} MiB")
        nearest = default_sample()
        for sample in sorted((p for p in SAMPLES.glob("*.hlsl") if p.stem not in SKIPPED),
                             key=lambda p: p.read_text().count("\n")):
            argv = wgc + ["-I", str(SAMPLES / "include"), str(sample), "-o", "out.spv"]
            peak_rss_mib(argv, env, folder)                 # warm-up: bytecode, grammar tables
            peak = peak_rss_mib(argv, env, folder)
            lines = sample.read_text().count("\n")
            verdict = "within" if peak <= BUDGET_150_LINES_MIB else "OVER"
            print(f"sample {sample.name:28} {lines:4} lines: peak RSS {peak:5.1f} MiB ({verdict} the "
                  f"{BUDGET_150_LINES_MIB} MiB budget{'; the sample nearest 150 lines' if sample == nearest else ''})")
        for size in (int(s) for s in args.sizes.split(",")):
            path = Path(folder) / f"graph{size}.hlsl"
            path.write_text(generate(size))
            peak = peak_rss_mib(wgc + [str(path), "-o", "out.spv"], env, folder)
            note = ""
            if size == 2000:
                note = f" ({'within' if peak <= BUDGET_2000_NODES_MIB else 'OVER'} the {BUDGET_2000_NODES_MIB} MiB budget)"
            print(f"generated graph of {size:5} nodes ({path.read_text().count(chr(10)):6} lines): "
                  f"peak RSS {peak:6.1f} MiB{note}")


if __name__ == "__main__":
    main()
