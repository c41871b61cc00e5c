"""Hostile dispatch files through `wgc.run`: each must give results or located diagnostics (exit 1
as the CLI), never an exception, and never grow the process past the memory bound.

Usage: python benchmarks/fuzz_dispatch.py [--count N] [--max-memory BYTES]

The inputs are tests/test_runtime_dispatch.py's `hostile_texts` (a valid description of its graph
with a member replaced by a hostile value, its text cut or spliced, or nested deep) run against
samples/hello.hlsl's graph as well (its valid dispatch mutated the same way), compiled once; those
that pass every check run on the Vulkan device. Reported: the count, how many ran, how many were
diagnostics, the failures (an exception, an unlocated diagnostic, or peak memory beyond the bound
plus 300 MB of interpreter, compiler and driver).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_UNLOCATED = ("WG0022", "WG0023", "WG0024", "WG0804", "WG0805", "WG0806", "WG0807", "WG0809", "WG0810")
"""Diagnostics about the graph and the device rather than a place in the dispatch file."""
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--max-memory", type=int, default=64 << 20)
    options = parser.parse_args()

    from hypothesis import HealthCheck, given, settings

    import test_runtime_dispatch as cases
    import wgc
    from wgc import driver
    from wgc.diagnostics import Renderer
    from wgc.source import SourceFile

    graphs = []
    for source, valid in ((cases.GRAPH, cases.VALID),
                          ((ROOT / "samples" / "hello.hlsl").read_text(),
                           json.loads((ROOT / "samples" / "hello.dispatch.json").read_text()))):
        result = driver.compile(driver.Options(input="-", target="emulated", reflection=True,
                                               enable_16bit_types=True), stdin=source.encode())
        assert result.ok, Renderer().render(list(result.diagnostics))
        graphs.append((result, valid))

    counts = {"ran": 0, "refused": 0, "failures": 0}
    started = time.monotonic()

    def check(result: object, text: str) -> None:
        try:
            outcome = wgc.run(result, SourceFile("dispatch.json", text), memory_limit=options.max_memory)
        except BaseException as error:      # noqa: BLE001 - what the campaign looks for
            counts["failures"] += 1
            print(f"FAIL: {type(error).__name__}: {error}\n  input: {text[:300]!r}", flush=True)
            return
        if outcome.ok:
            counts["ran"] += 1
            return
        counts["refused"] += 1
        located = [d for d in outcome.diagnostics if d.span is not None or d.code in RUNTIME_UNLOCATED]
        if len(located) != len(outcome.diagnostics):
            counts["failures"] += 1
            print(f"FAIL: unlocated: {Renderer().render(list(outcome.diagnostics))}  input: {text[:300]!r}", flush=True)
        Renderer().render(list(outcome.diagnostics)).encode("utf-8")

    def against(result: object):  # noqa: ANN202
        def one(text: str) -> None:
            check(result, text)
        return one

    for result, valid in graphs:
        run_one = given(cases.hostile_texts(valid))(against(result))
        settings(max_examples=max(1, options.count // len(graphs)), deadline=None, database=None,
                 suppress_health_check=list(HealthCheck))(run_one)()
    ran, refused, failures = counts["ran"], counts["refused"], counts["failures"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss << 10
    if peak > options.max_memory + (300 << 20):
        failures += 1
        print(f"FAIL: peak memory {peak >> 20} MiB, beyond the bound {options.max_memory >> 20} MiB + 300 MiB")
    print(f"{options.count} dispatch files: {ran} ran, {refused} refused with diagnostics, {failures} failures; "
          f"peak memory {peak >> 20} MiB; {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
