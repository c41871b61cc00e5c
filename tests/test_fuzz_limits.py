"""Bounded fuzz of hostile input (tests/deep_inputs.py `hostile`): deep nesting of random kinds,
huge literals, long identifiers, giant macro expansions, long chains of structs and functions,
random punctuation.

Properties: no exception escapes `driver.compile` (an internal error raises), every diagnostic has
a code wgc declares, never the last-resort WG0020 (every limit is reached first), and each input
is done within a bound of CPU time.  Budget: 30 inputs at a third of the sizes of the longer
campaign (`python benchmarks/fuzz_limits.py --count N`).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import deep_inputs as deep  # noqa: E402
from wgc import codes, driver  # noqa: E402

KNOWN = {kind.code for kind in codes.ALL_KINDS}
CPU_BOUND = 20.0
"""Seconds of CPU one hostile input may take (a bound, not a speed target: most take well under 1 s)."""


@pytest.mark.parametrize("seed", range(30))
def test_hostile_input_gives_diagnostics_in_bounded_time(seed) -> None:
    rng = random.Random(seed)
    kind, text = deep.hostile(rng, scale=0.3)
    emit = rng.choice(["spirv", "ir", "ast", "hlsl", "json"])
    start = time.process_time()
    result = driver.compile(driver.Options(input="-", emit=emit), stdin=text.encode())
    spent = time.process_time() - start
    found = [d.code for d in result.diagnostics]
    assert set(found) <= KNOWN
    assert "WG0020" not in found, (kind, result.diagnostics[:2])
    assert spent < CPU_BOUND, (kind, emit, spent)
