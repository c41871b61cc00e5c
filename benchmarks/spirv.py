"""SPIR-V compile benchmark: every sample, and generated graphs of 10 to 2,000 nodes.

run: `python benchmarks/spirv.py [--repeat K] [--sizes 10,100,1000,2000]` where wgc is installed.
Prints, for each sample that compiles to SPIR-V: the in-process time of
`wgc.compile(emit="spirv")` (front end, lowering, in-process spirv-val and lint; best of K runs).
Then, for the generated graph of `graph.py` ("with bodies": a broadcasting root fanning out to
N/2 thread nodes that each allocate, fill and enqueue a record for their own tail node), for each
size in a fresh process: the whole in-process compile, the part of it after the front end
(lowering + validation), the peak resident memory of that process, and the growth of the compile
time from one size to the next compared with the growth of the node count (1.0 = linear).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from frontend import best  # noqa: E402
from graph import generate  # noqa: E402

SAMPLES = HERE.parent / "samples"
# loop graphs (WG0601) and syntax_tour (atomics on a node record, WG0602) do not compile to SPIR-V
SKIPPED = ("loop_particles", "seed_loops_inner", "seed_loops_nested", "seed_loops_simple", "syntax_tour")

# Runs in a fresh interpreter so that ru_maxrss is the peak of this size alone.
CHILD = """
import json, resource, sys, time
sys.path.insert(0, {here!r})
from frontend import best
from wgc import driver
from wgc.spirv.emit import EmitOptions, emit_spirv
options = driver.Options(input={path!r}, emit="spirv")
result = driver.compile(options)
assert result.ok, [d.message for d in result.diagnostics][:3]
total = best({repeat}, lambda: driver.compile(options))
front = driver.run_front_end(options)
back = best({repeat}, lambda: emit_spirv(front.analysis, EmitOptions()))
print(json.dumps({{"nodes": len(front.analysis.nodes), "total": total, "back": back,
                  "words": len(result.outputs["spirv"]) // 4,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def samples(repeat: int) -> None:
    from wgc import driver

    for path in sorted(SAMPLES.glob("*.hlsl")):
        if path.stem in SKIPPED:
            continue
        options = driver.Options(input=str(path), emit="spirv", include_dirs=(str(SAMPLES / "include"),))
        result = driver.compile(options)
        assert result.ok, [d.message for d in result.diagnostics][:3]
        elapsed = best(repeat, lambda: driver.compile(options))
        lines = path.read_text().count("\n")
        print(f"sample {path.stem:28} {lines:5} lines: {elapsed * 1000:7.1f} ms, "
              f"{len(result.outputs['spirv']) // 4:6} words")


def generated(sizes: list[int], repeat: int) -> None:
    previous = None
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            path = Path(folder) / f"graph{size}.hlsl"
            path.write_text(generate(size))
            code = CHILD.format(here=str(HERE), path=str(path), repeat=repeat)
            out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
            data = json.loads(out.stdout)
            growth = ""
            if previous is not None:
                ratio = data["total"] / previous["total"]
                scale = data["nodes"] / previous["nodes"]
                growth = f", x{ratio:.1f} time for x{scale:.1f} nodes (relative {ratio / scale:.2f})"
            print(f"generated {data['nodes']:5} nodes: compile {data['total']:7.2f} s "
                  f"(lowering+validation {data['back']:6.2f} s), {data['words']:8} words, "
                  f"peak RSS {data['rss_mb']:6.0f} MiB{growth}")
            previous = data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10,100,1000,2000")
    args = parser.parse_args()
    samples(args.repeat)
    generated([int(s) for s in args.sizes.split(",")], max(1, args.repeat - 2))


if __name__ == "__main__":
    main()
