"""Stress the IR verifier: mutated variants of the corpus through the front end, each IR verified.

Run: `python tests/stress_ir_verify.py [N] [SEED]` (default 1000 inputs, seed 0). The mutations are
test_fuzz.py's (deleted, duplicated, swapped tokens, truncation, garbage bytes) applied to the files
of `conftest.hlsl_corpus()`; a mutant that still declares sound functions gives sema IR that sample
code never does, which `wgc.ir_verify` checks (the unsound functions are skipped, as in the tests).
Prints the counts and every violation found (with the mutant saved beside it); exit status 1 when
there is one. Not collected by pytest (not a `test_*.py` file): it is a tool for a longer run.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import SAMPLE_INCLUDE, SAMPLES, hlsl_corpus, sample_proposals  # noqa: E402
from test_fuzz import mutate  # noqa: E402
from wgc import driver  # noqa: E402
from wgc.ir_verify import verify  # noqa: E402
import wgc.sema.analyze  # noqa: E402

# conftest wraps `analyze` to raise at the first violation; here they are counted and saved instead
wgc.sema.analyze.analyze = wgc.sema.analyze.analyze.__wrapped__  # type: ignore[attr-defined]


def random_steps(rng: random.Random) -> list[tuple]:
    steps = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["delete", "duplicate", "swap", "truncate", "garbage"])
        arg = {"delete": rng.randint(1, 4), "duplicate": rng.randint(1, 4), "swap": rng.randint(0, 10**6),
               "truncate": 0, "garbage": bytes(rng.choice(b"(){}[];,+-*/=<>!?:.x0 ") for _ in range(rng.randint(1, 4)))
               }[kind]
        steps.append((kind, rng.randint(0, 10**6), arg))
    return steps


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    corpus = [(path, path.read_bytes()) for path in hlsl_corpus()]
    out = Path(tempfile.mkdtemp(prefix="ir-verify-stress-"))
    analysed = functions = skipped = failures = 0
    start = time.perf_counter()
    for i in range(count):
        path, data = rng.choice(corpus)
        mutant = mutate(data, random_steps(rng))
        options = driver.Options("-", emit="ir", proposals=sample_proposals(path), error_limit=0,
                                 include_dirs=(str(SAMPLES), str(SAMPLE_INCLUDE), str(path.parent)))
        front = driver.run_with_deep_stack(driver.run_front_end, options, mutant)
        if front.analysis is None:
            continue
        analysed += 1
        functions += len(front.analysis.module.functions)
        skipped += len(front.analysis.unsound)
        violations = verify(front.analysis)
        if violations:
            failures += 1
            saved = out / f"mutant-{i}-{path.stem}.hlsl"
            saved.write_bytes(mutant)
            print(f"{saved}:", *violations, sep="\n  ")
    print(f"{count} mutants, {analysed} analysed, {functions} functions ({skipped} unsound, skipped), "
          f"{failures} with violations, {time.perf_counter() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
