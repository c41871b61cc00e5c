"""Build-step cost of edited files: plain `wgc compile` processes vs the compile server vs cache hits,
against glslc.

run: `python benchmarks/server.py [--count N] [--sample NAME]` where wgc is installed (or with
PYTHONPATH at a checkout). In a private cache folder (the user's is not touched), it compiles N
edited versions of a sample (each adds a different constant, so the compile cache cannot answer)
with `wgc compile -MD -o out.spv` as (a) plain processes, (b) clients of the compile server
(WGC_SERVER=1; the server is started by one warm-up compile before timing), and (c) compile-cache
hits of one unchanged file (WGC_CACHE=1), interleaved with the anchors: glslc (if installed; the
Debian package `glslc`) compiling a 121-line HLSL compute shader (`GLSLC_SHADER`, 12 functions,
about the size of the sample) and the 19-line one of `vs_slang.py`, and `python -c pass`.
Prints, per kind, the median and best wall time and the median and mean CPU time in ms: for a process its
own user + system time (`wait4`), for a compile through the server the client's plus what the
server and its processes spent for it (`/proc/<pid>/stat` of the server and of its live children,
its reused workers: utime + stime, and the server's cutime + cstime, before and after, once all
are idle), and the ratios of CPU time (median, mean) to glslc's on the 121-line shader.
Where this wgc has `server --launcher`, two more rows per kind of launcher it writes: the served
compile and the cache hit through a script launcher (Python started with -S: no `site`) and,
where `--launcher-kind native` builds one (a C compiler, Linux), through a native launcher (a
served compile without Python; a cache hit is its Python program's). Every compile's outputs are
checked to be the same through the server (and the launchers) as in a plain process. A CPU benchmark of the
compiler itself: it needs wgc where it runs (no device; no `--prepare`/`--from`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "samples"

SMALL_SHADER = """\
struct Params { float scale; uint count; };
ConstantBuffer<Params> params;
StructuredBuffer<float4> positions;
RWStructuredBuffer<float4> moved;

float4 step(float4 p, float s)
{
    float3 v = normalize(p.xyz + float3(0.0, 1.0, 0.0));
    return float4(p.xyz + v * s, p.w);
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    if (id.x < params.count)
        moved[id.x] = step(positions[id.x], params.scale);
}
"""


def glslc_shader() -> str:
    """A 121-line HLSL compute shader: 12 small functions, each a loop, called in turn."""
    parts = [SMALL_SHADER.split("\n\nfloat4 step")[0] + "\n"]
    for i in range(12):
        parts.append(f"""
float4 step{i}(float4 p, float s)
{{
    float3 v = normalize(p.xyz + float3(0.0, {i}.0, 1.0));
    for (uint k = 0; k < {i + 1}u; ++k)
        v = v * s + cross(v, float3(1.0, 0.0, {i}.0));
    return float4(p.xyz + v * s, p.w + {i}.0);
}}
""")
    calls = "\n".join(f"        p = step{i}(p, params.scale);" for i in range(12))
    parts.append(f"""
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{{
    if (id.x < params.count) {{
        float4 p = positions[id.x];
{calls}
        moved[id.x] = p;
    }}
}}
""")
    return "".join(parts)


GLSLC_SHADER = glslc_shader()


def command() -> list[str]:
    script = Path(sys.executable).with_name("wgc")
    return [str(script)] if script.exists() else [sys.executable, "-m", "wgc"]


class Run:
    """One process: wall and CPU seconds, its standard error."""

    def __init__(self, wall: float, cpu: float, stderr: bytes) -> None:
        self.wall, self.cpu, self.stderr = wall, cpu, stderr


def timed(args: list[str], env: dict[str, str], cwd: Path, server: int | None = None) -> Run:
    """Run `args`; its CPU time is its own, plus the server's (pid `server`) meanwhile."""
    before = server_cpu(server)
    start = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=errors, env=env, cwd=cwd)
        _pid, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args)} failed ({status}):\n{stderr.decode()}")
    return Run(elapsed, usage.ru_utime + usage.ru_stime + server_cpu(server) - before, stderr)


def server_cpu(pid: int | None) -> float:
    """CPU seconds of process `pid` and its children, live (the server's reused workers) or reaped (0
    for None), once they are all idle: no zombie left to reap (a child reports its command's end to
    the client before it exits: the client may end first) and none running (a worker tidies up after
    it reported the end), twice in a row 2 ms apart."""
    if pid is None:
        return 0.0
    deadline = time.monotonic() + 5
    previous = None
    while time.monotonic() < deadline:
        states = [stat(p) for p in (pid, *children_of(pid))]
        now = [(fields[0], cpu_of(fields)) for fields in states if fields]
        if all(state == "S" for state, _cpu in now) and now == previous:
            break
        previous = now
        time.sleep(0.002)
    fields = stat(pid)
    return (cpu_of(fields) + sum(int(f) for f in fields[13:15]) / os.sysconf("SC_CLK_TCK")
            + sum(cpu_of(stat(child)) for child in children_of(pid)))


def server_pid(wgc: list[str], env: dict[str, str]) -> int:
    """The pid of the server that the wgc run by `wgc` uses (`server --status`: "(this wgc)")."""
    status = subprocess.run(wgc + ["server", "--status"], capture_output=True, env=env, text=True).stdout
    return int(re.search(r"\(this wgc\):\n\s*pid:\s*(\d+)", status).group(1))     # type: ignore[union-attr]


def stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (the state first), [] when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return []


def cpu_of(fields: list[str]) -> float:
    """The user and system CPU seconds of a process's own (utime + stime) from its `stat` fields."""
    return sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (zombies included: not reaped yet)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def summary(name: str, runs: list[Run], anchor: list[Run] | None = None) -> str:
    """Wall time (median, best) and CPU time (median, mean) in ms, and the CPU ratios to `anchor`'s.
    The server's share of a served command is read in clock ticks (10 ms) from cumulative
    counters: a median of such differences is coarse, their mean is not (the truncation errors do
    not add up), so both are printed."""
    cpu = statistics.median(r.cpu for r in runs)
    mean = statistics.fmean(r.cpu for r in runs)
    ratio = (f"   {cpu / statistics.median(r.cpu for r in anchor):5.2f}x / "
             f"{mean / statistics.fmean(r.cpu for r in anchor):5.2f}x glslc") if anchor else ""
    return (f"{name:<40} median {statistics.median(r.wall for r in runs) * 1000:6.0f} ms   "
            f"best {min(r.wall for r in runs) * 1000:6.0f} ms   CPU median {cpu * 1000:6.1f} / mean "
            f"{mean * 1000:6.1f} ms{ratio}")


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
        (folder / "anchor.hlsl").write_text(GLSLC_SHADER)
        (folder / "small.hlsl").write_text(SMALL_SHADER)
        glslc = shutil.which("glslc")
        anchors = {"glslc, 121-line compute shader": [glslc, "-fshader-stage=comp", "-x", "hlsl", "anchor.hlsl", "-o",
                                                      "anchor.spv"],
                   "glslc, 19-line compute shader": [glslc, "-fshader-stage=comp", "-x", "hlsl", "small.hlsl", "-o",
                                                     "small.spv"]} if glslc else {}
        anchors["python -c pass"] = [sys.executable, "-c", "pass"]
        timed(command() + compile_args, plain_env, folder)            # start-up caches, bytecode
        timed(command() + compile_args, server_env, folder)           # starts the server (not timed)
        server = server_pid(command(), env)
        launchers: dict[str, list[str]] = {}
        for kind in ("script", "native"):
            path = str(folder / f"wgc-{kind}")
            written = subprocess.run(command() + ["server", "--launcher", path, "--launcher-kind", kind],
                                     capture_output=True, env=env)
            if written.returncode == 0:
                launchers[kind] = [path]
        if not launchers and subprocess.run(command() + ["server", "--launcher", str(folder / "wgc-fast")],
                                            capture_output=True, env=env).returncode == 0:
            launchers["script"] = [str(folder / "wgc-fast")]     # a wgc without --launcher-kind
        launcher_server = 0
        for launcher in launchers.values():
            timed(launcher + compile_args, server_env, folder)    # starts their server (another key: -S); a native
            launcher_server = server_pid(launcher, env)          # launcher's first compile writes its pointer
        cached_env = {**env, "WGC_CACHE": "1"}
        (folder / "same.hlsl").write_text(source)
        cached_args = [*compile_args[:-1], "same.hlsl"]
        timed(command() + cached_args, cached_env, folder)            # stores the result
        plain: list[Run] = []
        served: list[Run] = []
        hits: list[Run] = []
        fast_served: dict[str, list[Run]] = {kind: [] for kind in launchers}
        fast_hits: dict[str, list[Run]] = {kind: [] for kind in launchers}
        anchor_runs: dict[str, list[Run]] = {name: [] for name in anchors}
        for number in range(1, args.count + 1):
            edit(number)
            plain.append(timed(command() + compile_args, plain_env, folder))
            expected = (folder / "out.spv").read_bytes(), (folder / "out.spv.d").read_bytes()
            (folder / "out.spv").unlink()
            served.append(timed(command() + compile_args, server_env, folder, server))
            if ((folder / "out.spv").read_bytes(), (folder / "out.spv.d").read_bytes(), served[-1].stderr) != (
                    *expected, plain[-1].stderr):
                raise SystemExit(f"edit {number}: the server's outputs differ from the plain process's")
            hits.append(timed(command() + cached_args, cached_env, folder))
            for kind, launcher in launchers.items():
                (folder / "out.spv").unlink()
                fast_served[kind].append(timed(launcher + compile_args, server_env, folder, launcher_server))
                if ((folder / "out.spv").read_bytes(), fast_served[kind][-1].stderr) != (expected[0], plain[-1].stderr):
                    raise SystemExit(f"edit {number}: the {kind} launcher's outputs differ from the plain process's")
                fast_hits[kind].append(timed(launcher + cached_args, cached_env, folder))
            for name, anchor in anchors.items():
                anchor_runs[name].append(timed(anchor, env, folder))
        status = subprocess.run(command() + ["server", "--status"], capture_output=True, env=env, text=True).stdout
        subprocess.run(command() + ["server", "--stop"], capture_output=True, env=env)     # (every server of the folder)
    lines = len(source.splitlines()) + 1
    glslc_runs = anchor_runs.get("glslc, 121-line compute shader")
    print(f"{args.sample}.hlsl ({lines} lines), edited before each compile; outputs identical both ways; "
          f"{args.count} runs of each, interleaved")
    print(summary("plain process (no server)", plain, glslc_runs))
    print(summary("through the server (client + server CPU)", served, glslc_runs))
    print(summary("compile-cache hit (unchanged file)", hits, glslc_runs))
    for kind in fast_served:
        print(summary(f"through the server, {kind} launcher", fast_served[kind], glslc_runs))
        print(summary(f"compile-cache hit, {kind} launcher", fast_hits[kind], glslc_runs))
    for name, runs in anchor_runs.items():
        print(summary(name, runs, glslc_runs))
    print(f"server vs plain: {statistics.median(r.wall for r in served) / statistics.median(r.wall for r in plain):.2f}x "
          f"wall\n{status.rstrip()}")


if __name__ == "__main__":
    main()
