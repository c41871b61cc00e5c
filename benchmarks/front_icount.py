"""Instructions per warm front end: preprocess, parse, sema and the target's checks of one edited sample.

Run: `python benchmarks/front_icount.py [--sample NAME] TREE [TREE ...]` with valgrind installed; each
TREE is a checkout (or a `git archive` of one) whose `wgc` is imported (PYTHONPATH=TREE). For each
tree, callgrind counts the instructions of two processes that run the front end of the sample
(edited: a different constant appended each time, as `warm_stages.py` does) 2 and 6 times in a row
(the cyclic collector off, as in a compile); the difference divided by 4 is what one more front end
costs in a warm process, the start-up and the first compile's warm-up left out. Prints one line per
tree, and each tree's ratio to the first. Instruction counts vary by well under 1 % from run to run
where CPU times on this shared machine vary by 5-15 %. A CPU benchmark of the compiler itself: it
needs wgc where it runs (no device; no `--prepare`/`--from`).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def front_ends(sample: str, count: int, folder: str) -> None:
    """The child: `count` front ends of the edited sample in `folder`."""
    import gc

    from wgc import driver

    gc.disable()
    source = (SAMPLES / f"{sample}.hlsl").read_text()
    os.chdir(folder)
    for number in range(count):
        Path("edited.hlsl").write_text(f"{source}\nstatic const uint kEdit = {number}u;\n")
        options = driver.Options(input="edited.hlsl", include_dirs=(str(SAMPLES / "include"),))
        analysis = driver.run_front_end(options).analysis
        if analysis is None:
            raise SystemExit("the front end failed")
        nodes, _ = analysis.select_nodes(list(analysis.nodes), None)
        analysis.check_target(nodes, None, options.target)


def instructions(tree: str, sample: str, count: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                        "--child", str(count), "--sample", sample, folder],
                       env={**os.environ, "PYTHONPATH": tree}, check=True, capture_output=True)
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        if found is None:
            raise SystemExit(f"no instruction count for {tree}")
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trees", nargs="+", help="checkouts whose wgc to count")
    parser.add_argument("--sample", default="mesh_materials", help="the sample to edit (default mesh_materials)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        front_ends(args.sample, args.child, args.trees[0])
        return
    first = None
    for tree in args.trees:
        per = (instructions(tree, args.sample, 6) - instructions(tree, args.sample, 2)) / 4
        first = first or per
        print(f"{args.sample}.hlsl, {tree}: {per / 1e6:.2f} M instructions per front end ({per / first:.3f})")


if __name__ == "__main__":
    main()
