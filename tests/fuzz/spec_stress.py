"""Stress "specialization" in dispatch descriptions (issue 25): the graph of
tests/test_runtime_specialization.py run with random values for its constants (K written by the
shaders, Negate, and on the AMDX path G, the fixed grid, and M, the records each group sends),
on the emulated path, the AMDX path and the AMDX .spv, each against the Python model `expected`;
values outside a constant's range or a grid's bounds must give a diagnostic, never a traceback.

Run: `python tests/fuzz/spec_stress.py --runs 60 [--seed S]` from the worktree; it prints the number
of inputs and every failure (exit 1 when any).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import wgc  # noqa: E402
from test_runtime_specialization import dispatch, expected, sources  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        cases = sources(pathlib.Path(tmp))
        for i in range(args.runs):
            source, path = rng.choice(cases)
            k = rng.choice([0, 1, rng.randrange(1 << 16), (1 << 32) - 1, -1, 1 << 32])
            negate = rng.choice([False, True])
            spec: dict = {rng.choice(["K", "3"]): k, rng.choice(["Negate", "8"]): negate}
            g, m = 2, 3
            if path == "amdx":
                g, m = rng.choice([1, 2, 3, 0, 70000]), rng.choice([1, 2, 3, 4])
                spec.update({"G": g, "M": m})
            try:
                result = wgc.run(source, dispatch(spec), path=path)
            except Exception as problem:      # noqa: BLE001 - a traceback is the failure sought
                print(f"run {i}: {path} {spec}: raised {type(problem).__name__}: {problem}")
                failures += 1
                continue
            valid = 0 <= k < 1 << 32 and 1 <= g <= 65535
            if valid != result.ok:
                print(f"run {i}: {path} {spec}: ok={result.ok}, expected {valid}: {result.diagnostics}")
                failures += 1
            elif valid:
                want = [v & 0xFFFFFFFF for v in expected(k, negate, g, min(m, 4))]
                if result.resources["Out"]["uint32"] != want:
                    print(f"run {i}: {path} {spec}: {result.resources['Out']['uint32']} != {want}")
                    failures += 1
    print(f"{args.runs} inputs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
