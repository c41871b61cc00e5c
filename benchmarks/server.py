"""Build-step speed of edited files: plain `wgc compile` processes vs the compile server vs cache hits.

run: `python benchmarks/server.py [--count N] [--sample NAME]` where wgc is installed (or with
PYTHONPATH at a checkout). In a private cache folder (the user's is not touched), it compiles N
edited versions of a sample (each adds a different constant, so the compile cache cannot answer)
with `wgc compile -MD -o out.spv` as (a) plain processes, (b) clients of the compile server
(WGC_SERVER=1; the server is started by one warm-up compile before timing), interleaved, and then
(c) N compile-cache hits of one unchanged file (WGC_CACHE=1); and `python -c pass` for scale.
Prints the median and the best wall time per compile of each, in ms, and the server's status.
Every compile's outputs are checked to be the same through the server as in a plain process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "samples"


def command() -> list[str]:
    script = Path(sys.executable).with_name("wgc")
    return [str(script)] if script.exists() else [sys.executable, "-m", "wgc"]


def timed(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr.decode()}")
    return elapsed, done.stderr


def summary(name: str, seconds: list[float]) -> str:
    return (f"{name:<34} median {statistics.median(seconds) * 1000:6.0f} ms   best {min(seconds) * 1000:6.0f} ms"
            f"   ({len(seconds)} compiles)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20, help="edited compiles per mode (default 20)")
    parser.add_argument("--sample", default="mesh_materials", help="the sample to edit (default mesh_materials)")
    args = parser.parse_args()
    source = (SAMPLES / f"{args.sample}.hlsl").read_text()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONDONTWRITEBYTECODE", "WGC_SERVER", "WGC_CACHE", "WGC_SERVER_IDLE")}
        env["WGC_CACHE_DIR"] = str(folder / "cache")
        plain_env = {**env, "WGC_SERVER": "0"}
        server_env = {**env, "WGC_SERVER": "1"}
        compile_args = ["compile", "-I", str(SAMPLES / "include"), "-MD", "-o", "out.spv", "edited.hlsl"]

        def edit(number: int) -> None:
            (folder / "edited.hlsl").write_text(f"{source}\nstatic const uint kEdit = {number}u;\n")

        edit(0)
        timed(command() + compile_args, plain_env, folder)            # start-up caches, bytecode
        timed(command() + compile_args, server_env, folder)           # starts the server (not timed)
        plain, served = [], []
        for number in range(1, args.count + 1):
            edit(number)
            seconds, plain_stderr = timed(command() + compile_args, plain_env, folder)
            plain.append(seconds)
            expected = (folder / "out.spv").read_bytes(), (folder / "out.spv.d").read_bytes()
            (folder / "out.spv").unlink()
            seconds, served_stderr = timed(command() + compile_args, server_env, folder)
            served.append(seconds)
            if ((folder / "out.spv").read_bytes(), (folder / "out.spv.d").read_bytes(), served_stderr) != (
                    *expected, plain_stderr):
                raise SystemExit(f"edit {number}: the server's outputs differ from the plain process's")
        cached_env = {**env, "WGC_CACHE": "1"}
        timed(command() + compile_args, cached_env, folder)           # stores the result
        hits = [timed(command() + compile_args, cached_env, folder)[0] for _ in range(args.count)]
        bare = [timed([sys.executable, "-c", "pass"], env, folder)[0] for _ in range(args.count)]
        status = subprocess.run(command() + ["server", "--status"], capture_output=True, env=env, text=True).stdout
        subprocess.run(command() + ["server", "--stop"], capture_output=True, env=env)
    lines = len(source.splitlines()) + 1
    print(f"{args.sample}.hlsl ({lines} lines), edited before each compile; outputs identical both ways")
    print(summary("plain process (no server)", plain))
    print(summary("through the server (WGC_SERVER=1)", served))
    print(summary("compile-cache hit (unchanged file)", hits))
    print(summary("python -c pass", bare))
    print(f"server vs plain: {statistics.median(served) / statistics.median(plain):.2f}x\n{status.rstrip()}")


if __name__ == "__main__":
    main()
