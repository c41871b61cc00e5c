"""Cold compile against Slang: whole `wgc compile` processes and Slang's compiler, interleaved, in CPU time.

run: `python benchmarks/vs_slang.py [--repeat N] [--sample NAME] [--slang-python PYTHON]` where wgc is
installed (with compiled bytecode, as pip installs it), and slangpy is installed for this Python or
for PYTHON (e.g. a venv of its own: `python3 -m venv /tmp/slang-venv && /tmp/slang-venv/bin/pip
install slangpy`, then `--slang-python /tmp/slang-venv/bin/python`). Without slangpy it says so and
measures nothing. In two halves, for a machine without a C++ compiler or slangpy: `--prepare DIR`
here (builds the native driver into DIR, with copies of Slang's libraries and the shader; about
40 MiB), then `--from DIR` there. `--also CHECKOUT` adds the cold compile of another checkout's wgc
(a `git worktree` of the revision before a change) to the same loop: before and after, interleaved.

Contestants, each a fresh process per run, in one interleaved loop (a run of each in turn, N
times, so that load from other processes falls on all of them alike); the CPU time (user + system)
of each process, medians, is printed with its ratio to the anchor, Slang (native):
- `python -c pass`: the interpreter's own start-up (the floor for any Python tool);
- wgc: `python -m wgc compile SAMPLE -o out.spv` (what the `wgc` script runs) of the sample nearest
  150 lines that compiles to SPIR-V (validation in process included), from a cold process with the
  grammar tables cached;
- wgc, cache hit: the same command with `--cache` after it was stored (`wgc.buildcache`);
- Slang (native): `NATIVE_DRIVER` below, a 25-line slangc in C++ built here with the system C++
  compiler (`c++`) against the `libslang-compiler` and `slang.h` that PyPI slangpy ships (its C API
  `spCreateSession` / `spProcessCommandLineArguments` / `spCompile` / `spGetEntryPointCode`, the
  module written to `-o`), compiling a 19-line compute shader to SPIR-V (`-target spirv -o out.spv`):
  the anchor of issue 31 (goal: cold wgc <= 0.6 x Slang native);
- Slang (Python driver): the same driver in Python + ctypes (`SLANGC`; run by PYTHON, or under `--from`
  by this Python), which pays a Python start:
  the anchor of the earlier rounds (issue 16: cold wgc <= 0.8 x it).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
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


NATIVE_DRIVER = """\
// a minimal slangc: Slang's C API, the code of entry point 0 written to the file after -o
#include <slang.h>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv)
{
    SlangSession* session = spCreateSession(nullptr);
    SlangCompileRequest* request = spCreateCompileRequest(session);
    bool failed = SLANG_FAILED(spProcessCommandLineArguments(request, argv + 1, argc - 1));
    failed = failed || SLANG_FAILED(spCompile(request));
    fputs(spGetDiagnosticOutput(request), stderr);
    const char* output = nullptr;
    for (int i = 1; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "-o"))
            output = argv[i + 1];
    if (!failed) {              // the C API leaves writing the output to its caller, as slangc does
        size_t size = 0;
        const void* code = spGetEntryPointCode(request, 0, &size);
        FILE* file = code && output ? fopen(output, "wb") : nullptr;
        failed = !file || fwrite(code, 1, size, file) != size;
        if (file)
            failed = fclose(file) != 0 || failed;
    }
    spDestroyCompileRequest(request);
    spDestroySession(session);
    return failed ? 1 : 0;
}
"""

DRIVER = "slangc-native"
LIBRARIES = ("libslang-compiler.so*", "libslang-glslang*.so*", "libslang-glsl-module*.so*")
"""Slang's shared libraries the driver loads (the compiler, and glslang, which it opens for SPIR-V)."""


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


def build_driver(library: Path, folder: Path) -> Path:
    """The native driver built into `folder` (run path `$ORIGIN`), with copies of Slang's libraries
    beside it, so that the folder runs anywhere; `slang.h` is slangpy's (`include/` beside the library)."""
    compiler = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    header = library.parent / "include" / "slang.h"
    if compiler is None or not header.exists():
        raise SystemExit(f"cannot build the native Slang driver: {'no C++ compiler (c++)' if compiler is None else f'no {header}'}")
    folder.mkdir(parents=True, exist_ok=True)
    for pattern in LIBRARIES:
        for found in library.parent.glob(pattern):
            shutil.copy2(found, folder / found.name)
    source = folder / "slangc.cpp"
    source.write_text(NATIVE_DRIVER)
    subprocess.run([compiler, "-O2", "-I", str(header.parent), str(source), str(folder / library.name),
                    "-Wl,-rpath,$ORIGIN", "-o", str(folder / DRIVER)], check=True)
    (folder / "shader.slang").write_text(SHADER)
    (folder / "slangc.py").write_text(SLANGC)
    return folder / DRIVER


def default_sample() -> Path:
    """The sample nearest 150 lines that compiles to SPIR-V."""
    candidates = [p for p in SAMPLES.glob("*.hlsl") if p.stem not in SKIPPED]
    return min(candidates, key=lambda p: (abs(p.read_text().count("\n") - 150), p.name))


def timed(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(CPU seconds: user + system, wall seconds) of the process `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}\n{done.stderr.decode(errors='replace')}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--sample", help="a sample's name (default: the one nearest 150 lines)")
    parser.add_argument("--slang-python", default=sys.executable,
                        help="a Python that has slangpy installed (default: this one)")
    parser.add_argument("--prepare", metavar="DIR", help="build the native driver (and copy Slang's libraries) "
                        "into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="use the driver --prepare built in DIR")
    parser.add_argument("--also", metavar="CHECKOUT", action="append", default=[],
                        help="add a row: the cold compile by the wgc of another checkout (e.g. a `git worktree` "
                        "of the revision before a change), in the same interleaved loop")
    args = parser.parse_args()
    if args.source:
        driver = Path(args.source).resolve() / DRIVER
        if not driver.exists():
            raise SystemExit(f"no {DRIVER} in {args.source}: run --prepare {args.source} first")
        library = next(driver.parent.glob("libslang-compiler.so*"))
        slang_python = sys.executable
    else:
        found = slang_library(args.slang_python)
        if found is None:
            print(f"skipped: slangpy is not installed for {args.slang_python}; install it into a venv of its own "
                  "(python3 -m venv /tmp/slang-venv && /tmp/slang-venv/bin/pip install slangpy) and pass "
                  "--slang-python /tmp/slang-venv/bin/python")
            return
        library, slang_python = found, args.slang_python
        if args.prepare:
            print(f"built {build_driver(found, Path(args.prepare).resolve())}")
            return
    sample = SAMPLES / f"{args.sample}.hlsl" if args.sample else default_sample()
    include = str(SAMPLES / "include")
    with tempfile.TemporaryDirectory() as folder:
        if not args.source:
            driver = build_driver(library, Path(folder) / "native")
            library = driver.parent / library.name
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "WGC_CACHE")}
        env["WGC_CACHE_DIR"] = str(Path(folder) / "cache")
        Path(folder, "shader.slang").write_text(SHADER)
        Path(folder, "slangc.py").write_text(SLANGC)
        wgc = [sys.executable, "-m", "wgc"]     # what the `wgc` script runs (the script of an older install may not)
        compile_args = ["compile", "-I", include, str(sample), "-o", "out.spv"]
        slang_args = ["shader.slang", "-target", "spirv", "-entry", "main", "-stage", "compute", "-o", "slang.spv"]
        contestants = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "wgc compile (cold)": wgc + compile_args,
            "wgc compile --cache (hit)": wgc + [compile_args[0], "--cache", *compile_args[1:]],
            **{f"wgc compile (cold), {Path(other).name}": wgc + compile_args for other in args.also},
            "Slang (native driver)": [str(driver), *slang_args],
            "Slang (Python driver)": [slang_python, "slangc.py", str(library), *slang_args],
        }
        envs = {name: env for name in contestants}
        for other in args.also:                  # another checkout's wgc first on the path, its own start-up caches
            envs[f"wgc compile (cold), {Path(other).name}"] = dict(
                env, PYTHONPATH=str(Path(other).resolve()), WGC_CACHE_DIR=str(Path(folder) / f"cache-{len(envs)}"))
        for name, argv in contestants.items():   # bytecode, grammar tables, the cache entry, Slang's own files
            timed(argv, envs[name], folder)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in contestants}
        for _ in range(args.repeat):
            for name, argv in contestants.items():
                times[name].append(timed(argv, envs[name], folder))
    lines = sample.read_text().count("\n")
    anchor = statistics.median(cpu for cpu, _ in times["Slang (native driver)"])
    print(f"{args.repeat} interleaved runs, CPU time (user + system) medians; wgc sample {sample.name} ({lines} "
          f"lines), Slang shader {SHADER.count(chr(10))} lines ({library.name})")
    for name, values in times.items():
        cpu = sorted(c for c, _ in values)
        wall = statistics.median(w for _, w in values)
        median = statistics.median(cpu)
        print(f"  {name:28} {median * 1000:6.1f} ms CPU (min {cpu[0] * 1000:5.1f}, max {cpu[-1] * 1000:5.1f}; "
              f"wall {wall * 1000:5.0f} ms)  {median / anchor:5.2f} x Slang native")


if __name__ == "__main__":
    main()
