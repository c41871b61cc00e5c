"""A build of many permutations of one file, sequential: plain processes, cache rebuild, the compile
server (through `wgc`, and through a native launcher where one can be built), against glslc
building as many permutations of a comparable shader.

run: `python benchmarks/permutations.py [--count N] [--rounds R] [--sample NAME]` where wgc is
installed (or with PYTHONPATH at a checkout). In a private cache folder (the user's is not
touched), a build compiles N permutations of one sample (`-D VARIANT=i`, which the appended
`static const uint kVariant = VARIANT;` reads, so each permutation is its own compile and its own
cache entry) one after the other, four ways: (a) plain `wgc compile` processes, (b) a rebuild
with the compile cache warm (`WGC_CACHE=1`, every permutation stored by an untimed build
before: what a clean rebuild of an unchanged tree pays), (c) clients of the compile server
(`WGC_SERVER=1`), (c') the same through a native launcher (`wgc server --launcher FILE
--launcher-kind native`; left out where none can be built), and (d) glslc (the Debian package
`glslc`) building N permutations of `server.py`'s 121-line HLSL compute shader. The builds run in
turn, R rounds (A, B, C, C', D, A, B, ...). Prints, per build, the total wall time and CPU time of the N compiles (a process's own
user + system time; through the server, the server's and its children's added: `server.timed`)
and the CPU ratio to glslc's build, per round.
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
sys.path.insert(0, str(HERE))

from server import GLSLC_SHADER, SAMPLES, Run, command, timed  # noqa: E402

VARIANT = "\n#ifndef VARIANT\n#define VARIANT 0\n#endif\nstatic const uint kVariant = VARIANT;\n"


def build(count: int, argv_of, env: dict[str, str], folder: Path, server: int | None = None) -> Run:
    """The N compiles of one build, in turn: their summed wall and CPU seconds."""
    runs = [timed(argv_of(i), env, folder, server) for i in range(count)]
    return Run(sum(r.wall for r in runs), sum(r.cpu for r in runs), b"")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="permutations per build (default 200)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the four builds (default 2)")
    parser.add_argument("--sample", default="mesh_materials", help="the sample (default mesh_materials)")
    args = parser.parse_args()
    glslc = shutil.which("glslc")
    if glslc is None:
        raise SystemExit("permutations.py: glslc is not installed (Debian: apt-get install glslc)")
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        (folder / "graph.hlsl").write_text((SAMPLES / f"{args.sample}.hlsl").read_text() + VARIANT)
        (folder / "anchor.hlsl").write_text(GLSLC_SHADER + VARIANT)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONDONTWRITEBYTECODE", "WGC_SERVER", "WGC_CACHE", "WGC_SERVER_IDLE")}
        env["WGC_CACHE_DIR"] = str(folder / "cache")
        plain_env = {**env, "WGC_SERVER": "0"}
        cached_env = {**plain_env, "WGC_CACHE": "1"}
        server_env = {**env, "WGC_SERVER": "1"}

        native = str(folder / "wgc-native")
        has_native = subprocess.run([*command(), "server", "--launcher", native, "--launcher-kind", "native"],
                                    capture_output=True, env=env).returncode == 0

        def wgc(i: int, front: list[str] | None = None) -> list[str]:
            return [*(front or command()), "compile", "-I", str(SAMPLES / "include"), "-D", f"VARIANT={i}", "-o",
                    f"out{i}.spv", "graph.hlsl"]

        def anchor(i: int) -> list[str]:
            return [glslc, "-fshader-stage=comp", "-x", "hlsl", f"-DVARIANT={i}", "anchor.hlsl", "-o",
                    f"anchor{i}.spv"]

        build(args.count, wgc, cached_env, folder)          # stores every permutation (and warms bytecode)
        expected = [(folder / f"out{i}.spv").read_bytes() for i in range(args.count)]

        def served(front: list[str] | None = None) -> Run:
            """The build through the server (`front`: the command, `wgc` by default), started (or
            found) by one untimed compile first: an idle server ends itself while the other builds
            run (a native launcher's first compile also writes its pointer)."""
            timed(wgc(0, front), server_env, folder)
            status = subprocess.run([*(front or command()), "server", "--status"], capture_output=True, env=env,
                                    text=True).stdout
            server = int(re.search(r"\(this wgc\):\s*pid:\s*(\d+)", status).group(1))     # type: ignore[union-attr]
            return build(args.count, lambda i: wgc(i, front), server_env, folder, server)

        builds = {"plain processes": lambda: build(args.count, wgc, plain_env, folder),
                  "cache rebuild (all hits)": lambda: build(args.count, wgc, cached_env, folder),
                  "through the server": served,
                  **({"through a native launcher": lambda: served([native])} if has_native else {}),
                  "glslc, 121-line shader": lambda: build(args.count, anchor, env, folder)}
        results: dict[str, list[Run]] = {name: [] for name in builds}
        for _ in range(args.rounds):
            for name, run in builds.items():
                results[name].append(run())
                if name != "glslc, 121-line shader":
                    outputs = [(folder / f"out{i}.spv").read_bytes() for i in range(args.count)]
                    if outputs != expected:
                        raise SystemExit(f"{name}: the outputs differ from the first build's")
        subprocess.run([*command(), "server", "--stop"], capture_output=True, env=env)
    print(f"{args.count} permutations of {args.sample}.hlsl, sequential; {args.rounds} rounds, interleaved; "
          "per round: total wall s, total CPU s, CPU / glslc's build of that round")
    glslc_runs = results["glslc, 121-line shader"]
    for name, runs in results.items():
        cells = "   ".join(f"{r.wall:6.2f} {r.cpu:6.2f} {r.cpu / g.cpu:5.2f}x" for r, g in zip(runs, glslc_runs))
        print(f"{name:<28} {cells}")


if __name__ == "__main__":
    main()
