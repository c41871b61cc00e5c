"""Two wgc installations' served compiles side by side: the client's CPU and the server's share.

Run: `python benchmarks/server_ab.py --a VENV_A --b VENV_B [--count N] [--sample NAME]` with two
virtual environments that each have wgc installed (their `bin/wgc`, so that `site` and wgc's `.pth`
file behave as installed; `benchmarks/server.py` says why). Each gets a private cache folder and
its own server (started by one untimed compile); then N edited versions of the sample (each adds
a different constant) are compiled with `wgc compile -MD -o out.spv` through each server in turn
(A, B, A, B, ...). Per installation it prints the client's CPU (its own user + system time,
`wait4`: median and mean), the server's share (the CPU of the server and of its workers, read from
/proc in clock ticks before the first and after the last compile, once idle: the total divided by
N, so the ticks' truncation does not matter) and their sum, and the ratio B/A of each. A CPU
benchmark of the compiler itself: it needs wgc where it runs (no device; no `--prepare`/`--from`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import SAMPLES, server_cpu, server_pid, timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, help="the first virtual environment (e.g. before)")
    parser.add_argument("--b", required=True, help="the second virtual environment (e.g. after)")
    parser.add_argument("--count", type=int, default=40, help="edited compiles per installation (default 40)")
    parser.add_argument("--sample", default="mesh_materials", help="the sample to edit (default mesh_materials)")
    args = parser.parse_args()
    source = (SAMPLES / f"{args.sample}.hlsl").read_text()
    compile_args = ["compile", "-I", str(SAMPLES / "include"), "-MD", "-o", "out.spv", "edited.hlsl"]
    with tempfile.TemporaryDirectory() as root:
        sides = {}
        for name, venv in (("A", args.a), ("B", args.b)):
            folder = Path(root) / name
            folder.mkdir()
            (folder / "edited.hlsl").write_text(source)
            wgc = [str(Path(venv) / "bin" / "wgc")]
            env = {**os.environ, "WGC_CACHE_DIR": str(folder / "cache"), "WGC_SERVER": "1"}
            env.pop("PYTHONPATH", None)
            timed(wgc + compile_args, env, folder)                      # starts the server (not timed)
            sides[name] = (folder, wgc, env, server_pid(wgc, env))
        clients: dict[str, list[float]] = {"A": [], "B": []}
        start = {name: server_cpu(side[3]) for name, side in sides.items()}
        for number in range(args.count):
            for name, (folder, wgc, env, _pid) in sides.items():
                (folder / "edited.hlsl").write_text(f"{source}\nstatic const uint kEdit = {number}u;\n")
                clients[name].append(timed(wgc + compile_args, env, folder).cpu)
        shares = {name: (server_cpu(side[3]) - start[name]) / args.count for name, side in sides.items()}
        for _folder, wgc, env, _pid in sides.values():
            subprocess.run(wgc + ["server", "--stop"], capture_output=True, env=env)
    print(f"{args.sample}.hlsl, edited, {args.count} served compiles each, interleaved; CPU ms")
    totals = {}
    for name in ("A", "B"):
        client = clients[name]
        totals[name] = statistics.fmean(client) + shares[name]
        print(f"  {name}: client median {statistics.median(client) * 1e3:5.1f} / mean "
              f"{statistics.fmean(client) * 1e3:5.1f}, server share {shares[name] * 1e3:5.1f}, "
              f"sum of means {totals[name] * 1e3:5.1f}")
    print(f"  B/A: client {statistics.fmean(clients['B']) / statistics.fmean(clients['A']):.3f}, server share "
          f"{shares['B'] / shares['A']:.3f}, sum {totals['B'] / totals['A']:.3f}")


if __name__ == "__main__":
    main()
