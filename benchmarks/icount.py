"""Instruction counts of wgc's work, for comparing two versions on a noisy machine.

Run: `python benchmarks/icount.py [--against REV] [--lines N] [--rows cold,front,warm]` from a
checkout, with valgrind installed. Wall-clock times on a shared 2-core machine vary by ±15 % from
run to run; the number of instructions a process executes does not (it varies by well under 1 %),
so a change in speed is shown by the instructions each version executes for the same work, counted by valgrind's
callgrind tool ("Ir", all instructions of the process, the Python interpreter included).

What it counts, for this checkout and, with `--against REV`, for a temporary worktree of REV:
- cold compile: the whole `python -m wgc compile SAMPLE -o out.spv` process for each sample that
  compiles to SPIR-V in both versions (after one uncounted run that writes bytecode and the
  grammar cache, as an installed wgc has them; each version has a cache folder of its own, so that
  other wgc processes on the machine cannot remove the tables between the two runs);
- front end: one in-process `preprocess` + `parse` + sema (`wgc inspect`) of benchmarks/frontend.py's
  generated file of N lines, with the start-up of an empty process subtracted;
- warm compile (`--rows warm`): one in-process `wgc.driver.compile` of each sample after a first
  one in the same process (the difference between processes that compile it three times and once,
  halved): what a build that keeps wgc loaded pays per file.
The ratio new/old is printed per row; a regression is a ratio above 1.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from frontend import generate  # noqa: E402

SAMPLES = ["hello.hlsl", "hello_work_graphs.hlsl", "material_dispatch.hlsl", "recursive_tree.hlsl"]


def instructions(tree: Path, argv: list[str], cwd: Path) -> int:
    """Instructions executed by `python argv` with `tree` first on the module path (callgrind)."""
    env = dict(os.environ, PYTHONPATH=str(tree), WGC_CACHE_DIR=str(cwd / f"cache-{tree.name}"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run([sys.executable, *argv], env=env, cwd=cwd, capture_output=True)  # warm bytecode/caches
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                               sys.executable, *argv], env=env, cwd=cwd, capture_output=True, text=True)
        match = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
        if match is None:
            raise SystemExit(f"callgrind failed for {argv}:\n{done.stderr[-2000:]}")
        return int(match.group(1))


WARM = ("import sys; from wgc import driver; options = driver.Options(input=sys.argv[1], include_dirs=(sys.argv[2],)); "
        "results = [driver.compile(options) for _ in range(int(sys.argv[3]))]; assert results[-1].ok")
ROWS = ("cold", "front", "warm")


def rows(tree: Path, work: Path, lines: int, kinds: tuple[str, ...] = ("cold", "front")) -> dict[str, int]:
    """The counted rows of `kinds` for the checkout at `tree`."""
    result: dict[str, int] = {}
    for sample in SAMPLES if "cold" in kinds else ():
        source = tree / "samples" / sample
        if source.exists():
            result[f"cold compile {sample}"] = instructions(
                tree, ["-m", "wgc", "compile", str(source), "-o", str(work / "out.spv")], work)
    for sample in SAMPLES if "warm" in kinds else ():
        source = tree / "samples" / sample
        if source.exists():
            include = str(tree / "samples" / "include")
            once = instructions(tree, ["-c", WARM, str(source), include, "1"], work)
            thrice = instructions(tree, ["-c", WARM, str(source), include, "3"], work)
            result[f"warm compile {sample} (in process)"] = (thrice - once) // 2
    if "front" in kinds:
        base = instructions(tree, ["-c", "pass"], work)
        big = work / f"frontend_{lines}.hlsl"
        big.write_text(generate(lines))
        result[f"front end + sema, {lines} lines (minus empty process)"] = instructions(
            tree, ["-m", "wgc", "inspect", str(big), "-o", str(work / "out.txt")], work) - base
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="a git revision to compare with (checked out in a temporary worktree)")
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--rows", default="cold,front", help=f"which rows, comma-separated: {', '.join(ROWS)}")
    args = parser.parse_args()
    kinds = tuple(args.rows.split(","))
    if not set(kinds) <= set(ROWS):
        raise SystemExit(f"--rows takes {', '.join(ROWS)}")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        new = rows(ROOT, work, args.lines, kinds)
        old: dict[str, int] = {}
        if args.against:
            other = work / "against"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(other), args.against],
                           check=True)
            try:
                old = rows(other, work, args.lines, kinds)
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(other)], check=True)
        for name, count in new.items():
            line = f"{name:62s} {count / 1e9:8.3f} G instructions"
            if name in old:
                line += f"   against {args.against}: {old[name] / 1e9:8.3f} G   ratio {count / old[name]:.3f}"
            print(line)


if __name__ == "__main__":
    main()
