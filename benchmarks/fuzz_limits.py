"""The longer campaign of hostile input: `python benchmarks/fuzz_limits.py --count N [--seed S] [--scale F]`.

Each input comes from tests/deep_inputs.py `hostile` (deep nesting of random kinds, huge literals,
long identifiers, giant macro expansions, long chains of structs and functions, random
punctuation) and is compiled in this process to a random output kind.  A finding is an exception
escaping `driver.compile` (an internal error), a diagnostic code wgc does not declare, the
last-resort WG0020 (a limit that was not reached first), or more than --cpu seconds of CPU for one
input.  Prints each finding as it happens (kind, seed, output kind) and a summary: the count of
inputs, the findings, the slowest inputs per kind.  Exits 1 if there was a finding.  The bounded
form of this campaign is tests/test_fuzz_limits.py.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import deep_inputs as deep  # noqa: E402
from wgc import codes, driver  # noqa: E402

EMITS = ("spirv", "ir", "ast", "hlsl", "json")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="how many inputs (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="the first input's seed (input i has seed+i)")
    parser.add_argument("--scale", type=float, default=1.0, help="size factor of the inputs (default 1.0)")
    parser.add_argument("--cpu", type=float, default=30.0, help="CPU seconds one input may take (default 30)")
    args = parser.parse_args()
    known = {kind.code for kind in codes.ALL_KINDS}
    findings: list[str] = []
    slowest: dict[str, tuple[float, int, str]] = defaultdict(lambda: (0.0, -1, ""))
    counts: dict[str, int] = defaultdict(int)
    outcome: dict[str, int] = defaultdict(int)
    started = time.perf_counter()
    for i in range(args.count):
        seed = args.seed + i
        rng = random.Random(seed)
        kind, text = deep.hostile(rng, args.scale)
        emit = rng.choice(EMITS)
        counts[kind] += 1
        start = time.process_time()
        try:
            result = driver.compile(driver.Options(input="-", emit=emit), stdin=text.encode())
        except Exception:   # an internal error
            findings.append(f"seed {seed} ({kind}, {emit}): internal error\n{traceback.format_exc(limit=4)}")
            print(findings[-1], flush=True)
            continue
        spent = time.process_time() - start
        found = [d.code for d in result.diagnostics]
        outcome["compiled" if result.ok else found[0]] += 1
        problem = None
        if not set(found) <= known:
            problem = f"undeclared codes {sorted(set(found) - known)}"
        elif "WG0020" in found:
            problem = "the last-resort WG0020"
        elif spent > args.cpu:
            problem = f"{spent:.1f} s of CPU"
        if problem:
            findings.append(f"seed {seed} ({kind}, {emit}, {len(text):,} characters): {problem}")
            print(findings[-1], flush=True)
        if spent > slowest[kind][0]:
            slowest[kind] = (spent, seed, emit)
    wall = time.perf_counter() - started
    print(f"{args.count} inputs (seeds {args.seed}..{args.seed + args.count - 1}, scale {args.scale}) in {wall:.0f} s: "
          f"{len(findings)} findings")
    print("outcomes: " + ", ".join(f"{name} {n}" for name, n in sorted(outcome.items())))
    for kind in sorted(counts):
        spent, seed, emit = slowest[kind]
        print(f"  {kind:16} {counts[kind]:4} inputs, slowest {spent:6.2f} s CPU (seed {seed}, {emit})")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
