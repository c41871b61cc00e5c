"""Semantic-analysis benchmark: AST → typed IR throughput on the generated file and every sample.

Run: `python benchmarks/sema.py [--lines N] [--repeat K]` in an environment where wgc is
installed.  Prints one line per input: source lines, the time of `analyze` alone (best of K
runs, wall-clock seconds on this machine) and its throughput in source lines per second, plus
the front end's time on the same input for comparison.

The generated file is the one `benchmarks/frontend.py` uses (node shaders with structs,
cbuffers, loops, switches, intrinsics and node outputs), so the numbers line up.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from frontend import best, generate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def measure(name: str, source_text: str, include_dirs: tuple[str, ...], repeat: int) -> None:
    from wgc.preprocess import PreprocessOptions, preprocess
    from wgc.sema.analyze import analyze
    from wgc.sema.context import SemaOptions
    from wgc.source import SourceFile
    from wgc.syntax.parse import parse

    source = SourceFile(str(ROOT / name) if (ROOT / name).exists() else name, source_text)

    def front():  # type: ignore[no-untyped-def]
        pre = preprocess(source, PreprocessOptions(include_dirs=include_dirs))
        return parse(pre.text, pre.locations)

    pre = preprocess(source, PreprocessOptions(include_dirs=include_dirs))
    assert not pre.diagnostics, pre.diagnostics[:3]
    parsed = front()
    assert not parsed.diagnostics, parsed.diagnostics[:3]
    options = SemaOptions(work_graph_loops=True)   # as frontend.py: the generated chain is 40 nodes deep
    analysis = analyze(parsed.unit, options)
    errors = [d for d in analysis.diagnostics if d.severity.name == "ERROR"]
    assert not errors, errors[:3]
    lines = source_text.count("\n")
    front_time = best(repeat, front)
    sema_time = best(repeat, lambda: analyze(parsed.unit, options))
    print(f"{Path(name).name:32} {lines:6} lines  sema {sema_time * 1000:8.1f} ms ({lines / sema_time:10,.0f} lines/s)"
          f"  front end {front_time * 1000:8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from wgc.syntax.parse import load_grammar

    load_grammar()
    measure("generated.hlsl", generate(args.lines), (), args.repeat)
    include = (str(ROOT / "samples" / "include"),)
    for path in sorted((ROOT / "samples").glob("*.hlsl")):
        measure(str(path.relative_to(ROOT)), path.read_text(), include, max(args.repeat, 5))


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.1f} s")
