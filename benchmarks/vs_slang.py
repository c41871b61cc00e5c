"""Cold compile against Slang: whole `wgc compile` processes and Slang's native compiler, interleaved.

run: `python benchmarks/vs_slang.py [--repeat N] [--sample NAME] [--slang-python PYTHON]` where wgc is
installed (with compiled bytecode, as pip installs it), and slangpy is installed for this Python or
for PYTHON (e.g. a venv of its own: `python3 -m venv /tmp/slang-venv && /tmp/slang-venv/bin/pip
install slangpy`, then `--slang-python /tmp/slang-venv/bin/python`). Without slangpy it says so and
measures nothing.

Contestants, each a fresh process per run, in one interleaved loop (a run of each in turn, N
times, so that load from other processes falls on all of them alike); medians are printed:
- `python -c pass`: the interpreter's own start-up (the floor for any Python tool);
- wgc: `python -m wgc compile SAMPLE -o out.spv` (what the `wgc` script runs) of the sample nearest 150 lines that compiles to SPIR-V
  (validation in process included), from a cold process with the grammar tables cached;
- wgc, cache hit: the same command with `--cache` after it was stored (`wgc.buildcache`);
- Slang: a 25-line slangc (`SLANGC` below: Python + ctypes over the `libslang-compiler` that PyPI
  slangpy ships, its C API `spCreateSession` / `spProcessCommandLineArguments` / `spCompile` / `spGetEntryPointCode`, the module written to `-o`)
  compiling a 19-line compute shader to SPIR-V (`-target spirv -o out.spv`).
The ratios wgc / Slang are the issue-16 yardstick (goal: cold wgc <= 0.8 x Slang).
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
sys.path.insert(0, str(HERE))

from spirv import SKIPPED  # noqa: E402

SAMPLES = HERE.parent / "samples"

SHADER = """\
// a compute shader of the size a build compiles by the hundred
struct Params { float scale; uint count; };
ConstantBuffer<Params> params;
StructuredBuffer<float4> positions;
RWStructuredBuffer<float4> moved;

float4 step(float4 p, float s)
{
    float3 v = normalize(p.xyz + float3(0.0, 1.0, 0.0));
    return float4(p.xyz + v * s, p.w);
}

[shader("compute")]
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    if (id.x < params.count)
        moved[id.x] = step(positions[id.x], params.scale);
}
"""

SLANGC = """\
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.spCreateSession.restype = lib.spCreateCompileRequest.restype = ctypes.c_void_p
lib.spCreateCompileRequest.argtypes = lib.spDestroySession.argtypes = [ctypes.c_void_p]
lib.spDestroyCompileRequest.argtypes = lib.spCompile.argtypes = [ctypes.c_void_p]
lib.spGetDiagnosticOutput.argtypes = [ctypes.c_void_p]
lib.spGetDiagnosticOutput.restype = ctypes.c_char_p
lib.spProcessCommandLineArguments.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
session = lib.spCreateSession(None)
request = lib.spCreateCompileRequest(session)
args = [a.encode() for a in sys.argv[2:]]
failed = lib.spProcessCommandLineArguments(request, (ctypes.c_char_p * len(args))(*args), len(args)) < 0
failed = failed or lib.spCompile(request) < 0
sys.stderr.write((lib.spGetDiagnosticOutput(request) or b"").decode())
if not failed:                          # the C API leaves writing the output (-o) to its caller, as slangc does
    lib.spGetEntryPointCode.restype = ctypes.c_void_p
    lib.spGetEntryPointCode.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t)]
    size = ctypes.c_size_t()
    code = lib.spGetEntryPointCode(request, 0, ctypes.byref(size))
    failed = not code
    if code:
        open(args[args.index(b"-o") + 1], "wb").write(ctypes.string_at(code, size.value))
lib.spDestroyCompileRequest(request)
lib.spDestroySession(session)
sys.exit(1 if failed else 0)
"""


def slang_library(python: str) -> Path | None:
    """The libslang-compiler shipped with slangpy for `python`, if slangpy is installed there."""
    code = ("import importlib.util as u; s = u.find_spec('slangpy'); "
            "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')")
    try:
        folder = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    found = sorted(Path(folder).glob("libslang-compiler.so*")) + sorted(Path(folder).glob("slang-compiler.dll")) \
        if folder else []
    return found[0] if found else None


def default_sample() -> Path:
    """The sample nearest 150 lines that compiles to SPIR-V."""
    candidates = [p for p in SAMPLES.glob("*.hlsl") if p.stem not in SKIPPED]
    return min(candidates, key=lambda p: (abs(p.read_text().count("\n") - 150), p.name))


def timed(argv: list[str], env: dict[str, str], cwd: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{done.stderr.decode(errors='replace')}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--sample", help="a sample's name (default: the one nearest 150 lines)")
    parser.add_argument("--slang-python", default=sys.executable,
                        help="a Python that has slangpy installed (default: this one)")
    args = parser.parse_args()
    library = slang_library(args.slang_python)
    if library is None:
        print(f"skipped: slangpy is not installed for {args.slang_python}; install it into a venv of its own "
              "(python3 -m venv /tmp/slang-venv && /tmp/slang-venv/bin/pip install slangpy) and pass "
              "--slang-python /tmp/slang-venv/bin/python")
        return
    sample = SAMPLES / f"{args.sample}.hlsl" if args.sample else default_sample()
    include = str(SAMPLES / "include")
    with tempfile.TemporaryDirectory() as folder:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "WGC_CACHE")}
        env["WGC_CACHE_DIR"] = str(Path(folder) / "cache")
        Path(folder, "shader.slang").write_text(SHADER)
        Path(folder, "slangc.py").write_text(SLANGC)
        wgc = [sys.executable, "-m", "wgc"]     # what the `wgc` script runs (the script of an older install may not)
        compile_args = ["compile", "-I", include, str(sample), "-o", "out.spv"]
        contestants = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "wgc compile (cold)": wgc + compile_args,
            "wgc compile --cache (hit)": wgc + [compile_args[0], "--cache", *compile_args[1:]],
            "Slang (cold)": [args.slang_python, "slangc.py", str(library), "shader.slang", "-target", "spirv",
                             "-entry", "main", "-stage", "compute", "-o", "slang.spv"],
        }
        for argv in contestants.values():        # bytecode, grammar tables, the cache entry, Slang's own files
            timed(argv, env, folder)
        times: dict[str, list[float]] = {name: [] for name in contestants}
        for _ in range(args.repeat):
            for name, argv in contestants.items():
                times[name].append(timed(argv, env, folder))
    lines = sample.read_text().count("\n")
    slang = statistics.median(times["Slang (cold)"])
    print(f"{args.repeat} interleaved runs, medians; wgc sample {sample.name} ({lines} lines), Slang shader "
          f"{SHADER.count(chr(10))} lines ({library.name})")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:28} {median * 1000:6.0f} ms  (min {min(values) * 1000:4.0f}, max {max(values) * 1000:4.0f})"
              f"  {median / slang:5.2f} x Slang")


if __name__ == "__main__":
    main()
