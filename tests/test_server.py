"""The compile server (`WGC_SERVER=1`, `--server`, `wgc server`), run through the real `wgc`.

The reference for every output is the same command run by a plain `wgc` process (no server), at
the same paths: files, standard output, standard error and exit code must be byte-identical.
Which server answered is read from its pid file (locked while it lives) and `wgc server --status`.
Every test has a cache folder of its own (seeded with the start-up caches, so servers start
warm-ish), and the fixture stops every server in it afterwards. Nothing here is timed: waits for a
server to appear or go are polls with a generous limit.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import PROPOSAL_SAMPLES, SAMPLES, wgc_command

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(socket, "AF_UNIX"),
                                reason="the compile server needs fork and Unix-domain sockets")

GRAPH = """\
#include "inc/records.hlsli"
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Entry(DispatchNodeInputRecord<R> i, [MaxRecords(8)] NodeOutput<R> Leaf) { }
[Shader("node")] [NodeLaunch("thread")] void Leaf(ThreadNodeInputRecord<R> i) { }
"""
HEADER = 'struct R { uint grid : SV_DispatchGrid; uint x; };\n#warning "records v1"\n'
BROKEN = ('[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Missing> i) { }\n'
          '[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<Absent> i) { }\n')
COMMAND = ("compile", "-MD", "-MP", "-o", "out/graph.spv", "-Fre", "out/graph.json", "-Fh", "out/graph.h",
           "graph.hlsl")
WAIT_SECONDS = 120.0


def project(folder: Path) -> Path:
    (folder / "inc").mkdir(parents=True, exist_ok=True)
    (folder / "out").mkdir(exist_ok=True)
    (folder / "inc" / "records.hlsli").write_text(HEADER)
    (folder / "graph.hlsl").write_text(GRAPH)
    (folder / "broken.hlsl").write_text(BROKEN)
    return folder


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def wgc(*args: str, env: dict[str, str], cwd: Path | str | None = None, stdin: bytes | None = None,
        command: list[str] | None = None, preexec=None) -> subprocess.CompletedProcess[bytes]:
    full_env = dict(os.environ)
    for name in ("NO_COLOR", "WGC_SERVER", "WGC_SERVER_IDLE", "WGC_CACHE"):
        full_env.pop(name, None)
    full_env.update(env)
    return subprocess.run((command or wgc_command()) + list(args), input=stdin, capture_output=True, cwd=cwd,
                          env=full_env, timeout=WAIT_SECONDS, preexec_fn=preexec)


def locked(path: Path) -> bool:
    """Whether a live server holds the lock of pid file `path`."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def live_servers(cache: Path) -> dict[str, int]:
    """key -> pid of each live server in the cache folder `cache`."""
    folder = cache / f"server-{os.getuid()}"
    found = {}
    for pid_file in sorted(folder.glob("*.pid")) if folder.is_dir() else ():
        if locked(pid_file):
            found[pid_file.stem] = int(pid_file.read_text().strip())
    return found


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_SECONDS} s for {what}")
        time.sleep(0.05)


def served_count(env: dict[str, str]) -> int:
    status = wgc("server", "--status", env=env)
    assert status.returncode == 0, status.stderr
    return int(re.search(rb"requests: (\d+) served", status.stdout).group(1))


@pytest.fixture(scope="session")
def warm_startup_caches(tmp_path_factory) -> Path:
    """A cache folder holding the start-up caches (parser tables, ...) of the wgc under test."""
    folder = tmp_path_factory.mktemp("startup-caches")
    work = project(folder / "work")
    done = wgc(*COMMAND, cwd=work, env={"WGC_CACHE_DIR": str(folder / "cache")})
    assert done.returncode == 0, done.stderr
    return folder / "cache"


@pytest.fixture
def cache(tmp_path, warm_startup_caches):
    """A cache folder of the test's own (seeded with the start-up caches); every server started in
    it is stopped afterwards, and the test fails if one is left."""
    folder = tmp_path / "cache"
    folder.mkdir()
    for seed in warm_startup_caches.glob("*.cache"):
        shutil.copy(seed, folder / seed.name)
    yield folder
    stopped = wgc("server", "--stop", env={"WGC_CACHE_DIR": str(folder)})
    assert stopped.returncode == 0, stopped.stderr
    assert live_servers(folder) == {}


def plain_and_served(folder: Path, cache: Path, *args: str, stdin: bytes | None = None,
                     env: dict[str, str] | None = None, preexec=None, modes: bool = False):
    """The same command run by a plain process and through the server, each from a clean out/
    (`modes`: with the files' permission bits)."""
    results = []
    for mode in ({"WGC_SERVER": "0"}, {"WGC_SERVER": "1"}):
        shutil.rmtree(folder / "out", ignore_errors=True)
        (folder / "out").mkdir()
        done = wgc(*args, cwd=folder, stdin=stdin, env={"WGC_CACHE_DIR": str(cache), **mode, **(env or {})},
                   preexec=preexec)
        permissions = {str(p.relative_to(folder)): p.stat().st_mode & 0o777 for p in folder.rglob("*")} if modes else {}
        results.append((done.returncode, done.stdout, done.stderr, files(folder), permissions))
    return results


def test_samples_compile_byte_identically_through_the_server(cache, tmp_path):
    env = {"WGC_CACHE_DIR": str(cache)}
    out = tmp_path / "out"
    samples = sorted(SAMPLES.glob("*.hlsl"))
    failed = set()
    for sample in samples:
        proposals = ["-fwork-graph-proposals"] if sample.stem in PROPOSAL_SAMPLES else []
        args = ["compile", *proposals, "--max-graph-depth", "256", "-I", "samples/include", "-MD", "-Fre", str(out / f"{sample.stem}.json"),
                "-o", str(out / f"{sample.stem}.spv"), f"samples/{sample.name}"]
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        expected = wgc(*args, cwd=ROOT, env=env)
        expected_files = files(out)
        shutil.rmtree(out)
        out.mkdir()
        served = wgc(args[0], "--server", *args[1:], cwd=ROOT, env=env)
        assert (served.returncode, served.stdout, served.stderr) == (expected.returncode, expected.stdout,
                                                                     expected.stderr), sample.name
        assert files(out) == expected_files, sample.name
        if expected.returncode != 0:
            failed.add(sample.stem)
        else:
            assert len(expected_files) == 3, sample.name                      # .spv, .json, .spv.d
        inspect_args = ["inspect", *proposals, "-I", "samples/include", f"samples/{sample.name}"]
        expected = wgc(*inspect_args, cwd=ROOT, env=env)
        served = wgc(*inspect_args, cwd=ROOT, env={**env, "WGC_SERVER": "1"})
        assert (served.returncode, served.stdout, served.stderr) == (expected.returncode, expected.stdout,
                                                                     expected.stderr), sample.name
    assert failed == set()
    assert len(live_servers(cache)) == 1
    assert served_count(env) == 2 * len(samples)


def test_outputs_warnings_and_depfile_match_an_in_process_compile(cache, tmp_path):
    work = project(tmp_path / "work")
    plain, served = plain_and_served(work, cache, *COMMAND)
    assert served == plain
    code, _stdout, stderr, written, _modes = served
    assert code == 0
    assert stderr.decode() == ("In file included from graph.hlsl:1:\n"
                               'inc/records.hlsli:2:2: warning: "records v1" [WG0103] [-W#warnings]\n'
                               '#warning "records v1"\n ^~~~~~~\n1 warning generated.\n')
    assert written["out/graph.spv.d"] == (b"out/graph.spv: \\\n  graph.hlsl \\\n  inc/records.hlsli\n"   # gcc's -MD -MP
                                          b"\ninc/records.hlsli:\n")
    assert written["out/graph.spv"][:4] == b"\x03\x02\x23\x07"
    assert live_servers(cache)


def test_failing_compiles_usage_errors_and_standard_streams_match(cache, tmp_path):
    work = project(tmp_path / "work")
    # errors, forced colour, standard input, output to standard output, a usage error, msvc format
    for args, stdin in ((("compile", "-fcolor-diagnostics", "-o", "out/broken.spv", "broken.hlsl"), None),
                        (("compile", "-fdiagnostics-format=msvc", "-o", "-", "-S", "-"), BROKEN.encode()),
                        (("compile", "-Wno-#warnings", "-o", "-", "-S", "-"), GRAPH.replace(
                            '#include "inc/records.hlsli"', HEADER.splitlines()[0]).encode()),
                        (("compile", "-T", "lib_9_9", "graph.hlsl"), None),
                        (("inspect", "--format", "dot", "graph.hlsl"), None),
                        (("-T", "lib_6_8", "-Fo", "out/dxc-style.spv", "graph.hlsl"), None)):
        plain, served = plain_and_served(work, cache, *args, stdin=stdin)
        assert served == plain, args
    plain, served = plain_and_served(work, cache, "compile", "-fcolor-diagnostics", "-o", "out/broken.spv",
                                     "broken.hlsl")
    assert served[0] == 1 and b"\x1b[" in served[2] and b"2 errors generated." in served[2]
    assert "out/broken.spv" not in served[3]
    plain, served = plain_and_served(work, cache, "compile", "-T", "lib_9_9", "graph.hlsl")
    assert served[0] == 2 and b"Invalid value for '-T'" in served[2]


def test_the_clients_umask_and_resource_limits_apply(cache, tmp_path):
    import resource

    work = project(tmp_path / "work")
    previous = os.umask(0o022)
    try:
        assert wgc("server", "--daemon", env={"WGC_CACHE_DIR": str(cache)}).returncode == 0   # umask 022, no limits
    finally:
        os.umask(previous)

    def private_files() -> None:
        os.umask(0o077)

    plain, served = plain_and_served(work, cache, *COMMAND, preexec=private_files, modes=True)
    assert served == plain and served[4]["out/graph.spv"] == 0o600

    def small_files() -> None:                        # the module does not fit: an output error
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    plain, served = plain_and_served(work, cache, *COMMAND, preexec=small_files)
    assert served == plain and served[0] == 1 and b"[WG0007]" in served[2]
    assert len(live_servers(cache)) == 1 and served_count({"WGC_CACHE_DIR": str(cache)}) == 2


def test_the_first_client_starts_the_server_and_the_next_reuses_it(cache, tmp_path):
    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache)}
    assert live_servers(cache) == {}
    first = wgc("compile", "--server", "-o", "out/a.spv", "graph.hlsl", cwd=work, env=env)
    assert first.returncode == 0, first.stderr
    started = live_servers(cache)
    assert len(started) == 1
    second = wgc("compile", "-o", "out/b.spv", "graph.hlsl", cwd=work, env={**env, "WGC_SERVER": "1"})
    assert second.returncode == 0 and live_servers(cache) == started
    assert served_count(env) == 2
    assert (work / "out" / "a.spv").read_bytes() == (work / "out" / "b.spv").read_bytes()
    status = wgc("server", "--status", env=env).stdout.decode()
    [(key, pid)] = started.items()
    assert status.startswith(f"server {key} (this wgc):\n  pid:      {pid}\n  version:  wgc ")
    assert f"  socket:   {cache / f'server-{os.getuid()}' / key}.sock\n" in status
    if Path(f"/proc/{pid}/cwd").exists():
        assert os.readlink(f"/proc/{pid}/cwd") == "/"         # it keeps no build folder busy
    folder = cache / f"server-{os.getuid()}"
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert oct((folder / f"{key}.sock").stat().st_mode & 0o777) == "0o600"
    assert oct((folder / f"{key}.pid").stat().st_mode & 0o777) == "0o600"
    # --no-server runs in process: the server sees no request
    assert wgc("compile", "--no-server", "-o", "out/c.spv", "graph.hlsl", cwd=work,
               env={**env, "WGC_SERVER": "1"}).returncode == 0
    assert served_count(env) == 2


def test_two_clients_starting_at_once_get_one_server(cache, tmp_path):
    env = dict(os.environ, WGC_CACHE_DIR=str(cache), WGC_SERVER="1")
    env.pop("NO_COLOR", None)
    works = [project(tmp_path / f"work{i}") for i in range(2)]
    clients = [subprocess.Popen(wgc_command() + list(COMMAND), cwd=work, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE) for work in works]
    outcomes = [(c.wait(timeout=WAIT_SECONDS), c.stdout.read(), c.stderr.read()) for c in clients]
    for c in clients:
        c.stdout.close()
        c.stderr.close()
    reference = project(tmp_path / "plain")
    plain = wgc(*COMMAND, cwd=reference, env={"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "0"})
    for work, outcome in zip(works, outcomes):
        assert outcome == (0, plain.stdout, plain.stderr)
        assert files(work) == files(reference)
    assert len(live_servers(cache)) == 1
    assert served_count({"WGC_CACHE_DIR": str(cache)}) == 2


def test_the_server_exits_when_idle(cache, tmp_path):
    work = project(tmp_path / "work")
    # idle time long enough that the server is still there when the client has returned (at 0.5 s a
    # loaded machine let it exit before the check below); the wait below allows far more
    env = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "1", "WGC_SERVER_IDLE": "3"}
    assert wgc(*COMMAND, cwd=work, env=env).returncode == 0
    folder = cache / f"server-{os.getuid()}"
    assert list(folder.glob("*.pid"))
    wait_until(lambda: not live_servers(cache), "the idle server to exit")
    assert not list(folder.glob("*.sock")) and not list(folder.glob("*.pid"))


def test_stop_stops_the_server_and_removes_its_files(cache, tmp_path):
    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache)}
    assert wgc(*COMMAND, cwd=work, env={**env, "WGC_SERVER": "1"}).returncode == 0
    [(key, pid)] = live_servers(cache).items()
    stopped = wgc("server", "--stop", env=env)
    assert (stopped.returncode, stopped.stdout.decode()) == (0, f"stopped wgc server {key} (pid {pid})\n")
    assert live_servers(cache) == {}
    folder = cache / f"server-{os.getuid()}"
    assert not (folder / f"{key}.sock").exists() and not (folder / f"{key}.pid").exists()
    again = wgc("server", "--stop", env=env)
    assert again.stdout.decode() == f"no wgc server was running (folder {folder})\n"
    assert wgc("server", "--status", env=env).stdout.decode() == f"no wgc server is running (folder {folder})\n"


def test_a_stale_socket_of_a_killed_server_is_replaced(cache, tmp_path):
    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "1"}
    assert wgc(*COMMAND, cwd=work, env=env).returncode == 0
    [(key, pid)] = live_servers(cache).items()
    os.kill(pid, signal.SIGKILL)
    folder = cache / f"server-{os.getuid()}"
    wait_until(lambda: not locked(folder / f"{key}.pid"), "the killed server to release its lock")
    assert (folder / f"{key}.sock").exists()                   # left behind: nobody listens on it
    plain = wgc(*COMMAND, cwd=project(tmp_path / "plain"), env={**env, "WGC_SERVER": "0"})
    again = wgc(*COMMAND, cwd=work, env=env)
    assert (again.returncode, again.stderr) == (0, plain.stderr)
    [(new_key, new_pid)] = live_servers(cache).items()
    assert (new_key, new_pid != pid) == (key, True)
    assert served_count({"WGC_CACHE_DIR": str(cache)}) == 1
    # a socket file nobody ever listened on (no pid file at all) is replaced too
    assert wgc("server", "--stop", env={"WGC_CACHE_DIR": str(cache)}).returncode == 0
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    os.chdir(folder)
    try:
        dead.bind(f"{key}.sock")
    finally:
        os.chdir(ROOT)
        dead.close()
    assert wgc(*COMMAND, cwd=work, env=env).returncode == 0
    assert list(live_servers(cache)) == [key]


def test_a_changed_wgc_gets_a_new_server_and_the_old_one_exits(cache, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "wgc", copy / "wgc", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "grammar", copy / "grammar")
    env = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "1", "PYTHONPATH": str(copy)}
    work = project(tmp_path / "work")
    assert wgc(*COMMAND, cwd=work, env=env).returncode == 0
    [(old_key, old_pid)] = live_servers(cache).items()
    touched = copy / "wgc" / "server" / "protocol.py"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    done = wgc(*COMMAND, cwd=work, env=env)
    assert done.returncode == 0, done.stderr
    wait_until(lambda: old_key not in live_servers(cache), "the server of the old files to exit")
    [(new_key, new_pid)] = live_servers(cache).items()
    assert new_key != old_key and new_pid != old_pid
    plain = project(tmp_path / "plain")
    assert wgc(*COMMAND, cwd=plain, env={**env, "WGC_SERVER": "0"}).stderr == done.stderr
    assert files(plain) == files(work)


def test_the_compile_falls_back_in_process_when_the_server_cannot_start(cache, tmp_path):
    work = project(tmp_path / "work")
    (tmp_path / "not-a-folder").write_text("")
    unusable = {"WGC_CACHE_DIR": str(tmp_path / "not-a-folder" / "cache")}
    plain, served = plain_and_served(work, cache, *COMMAND, env=unusable)
    assert served == plain and served[0] == 0
    status = wgc("server", "--status", env=unusable)
    folder = tmp_path / "not-a-folder" / "cache" / f"server-{os.getuid()}"
    assert (status.returncode, status.stdout) == (1, b"")
    assert status.stderr.decode() == (f"error: the compile server cannot use its folder: '{folder}' cannot be "
                                      "created: Not a directory [WG0031]\n1 error generated.\n")


def test_a_socket_path_too_long_for_sockaddr_un_works(cache, tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "cache"
    shutil.copytree(cache, deep)
    assert len(str(deep / f"server-{os.getuid()}" / ("k" * 24 + ".sock"))) > 108
    work = project(tmp_path / "work")
    plain, served = plain_and_served(work, deep, *COMMAND)
    try:
        assert served == plain and len(live_servers(deep)) == 1
    finally:
        assert wgc("server", "--stop", env={"WGC_CACHE_DIR": str(deep)}).returncode == 0


def test_a_malformed_idle_timeout_is_an_error_of_wgc_server_and_compiles_go_on(cache, tmp_path):
    work = project(tmp_path / "work")
    bad = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER_IDLE": "soon"}
    started = wgc("server", "--daemon", env=bad)
    assert (started.returncode, started.stdout) == (1, b"")
    assert started.stderr.decode() == ("error: WGC_SERVER_IDLE='soon' is not a number of seconds (e.g. 600, or 0.5) "
                                       "[WG0030]\n1 error generated.\n")
    plain, served = plain_and_served(work, cache, *COMMAND, env={"WGC_SERVER_IDLE": "soon"})
    assert served == plain and served[0] == 0
    assert live_servers(cache) == {}


def test_wgc_server_daemon_foreground_and_their_errors(cache, tmp_path):
    env = {"WGC_CACHE_DIR": str(cache)}
    started = wgc("server", "--daemon", env=env)
    assert started.returncode == 0, started.stderr
    [(key, pid)] = live_servers(cache).items()
    folder = cache / f"server-{os.getuid()}"
    assert started.stdout.decode() == f"wgc server {key} (pid {pid}) is listening on {folder / key}.sock\n"
    assert wgc("server", "--daemon", env=env).stdout == started.stdout        # already running: the same one
    second = wgc("server", env=env)
    assert (second.returncode, second.stdout) == (1, b"")
    assert second.stderr.decode() == (f"error: a server for this wgc is already running (pid {pid}); stop it with "
                                      "'wgc server --stop' [WG0033]\n1 error generated.\n")
    assert wgc("server", "--stop", env=env).returncode == 0
    (folder / f"{key}.sock").mkdir()                        # the server cannot replace it
    failed = wgc("server", "--daemon", env=env)
    assert (failed.returncode, failed.stdout) == (1, b"")
    assert failed.stderr.decode() == (f"error: the compile server did not start: [Errno 21] Is a directory: "
                                      f"'{folder / key}.sock' [WG0034]\n1 error generated.\n")
    (folder / f"{key}.sock").rmdir()
    foreground = subprocess.Popen(wgc_command() + ["server"], env=dict(os.environ, **env, WGC_SERVER_IDLE="600"),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = foreground.stdout.readline().decode()
        [(key2, pid2)] = live_servers(cache).items()
        assert line == (f"wgc server {key2} (pid {pid2}) is listening on {folder / key2}.sock; it stops after "
                        "600 s without a request, or on Ctrl-C\n")
        foreground.send_signal(signal.SIGINT)
        assert foreground.wait(timeout=WAIT_SECONDS) == 0
        assert foreground.stdout.read().decode() == f"wgc server {key2} stopped (signal 2; 0 requests served)\n"
    finally:
        if foreground.poll() is None:
            foreground.kill()
            foreground.wait()
        foreground.stdout.close()
        foreground.stderr.close()


def test_without_fork_the_server_option_compiles_in_process(cache, tmp_path):
    work = project(tmp_path / "work")
    no_fork = [sys.executable, "-c", "import os, sys; del os.fork; from wgc.entry import main; "
               "sys.argv[0] = 'wgc'; raise SystemExit(main())"]
    plain = wgc(*COMMAND, cwd=work, env={"WGC_CACHE_DIR": str(cache)})
    expected = (plain.returncode, plain.stdout, plain.stderr, files(work))
    shutil.rmtree(work / "out")
    (work / "out").mkdir()
    done = wgc(*COMMAND, "--server", cwd=work, env={"WGC_CACHE_DIR": str(cache)}, command=no_fork)
    assert (done.returncode, done.stdout, done.stderr, files(work)) == expected
    assert not (cache / f"server-{os.getuid()}").exists()
    status = wgc("server", "--status", env={"WGC_CACHE_DIR": str(cache)}, command=no_fork)
    assert (status.returncode, status.stderr.decode()) == (
        1, "error: the compile server needs Unix-domain sockets, fork and file locks, which this platform lacks; "
           "WGC_SERVER=1 and --server compile in process here [WG0032]\n1 error generated.\n")


def big_graph(folder: Path) -> Path:
    """A graph with 3,000 functions beside it: a compile long enough to be interrupted."""
    lines = [GRAPH.replace('#include "inc/records.hlsli"', HEADER.splitlines()[0])]
    lines += [f"float f{i}(float x) {{ float y = x * {i}.0; for (int k = 0; k < 4; ++k) {{ y = y * 0.5 + sin(y); }} "
              "return y; }" for i in range(3000)]
    (folder / "big.hlsl").write_text("\n".join(lines) + "\n")
    return folder / "big.hlsl"


def running_count(env: dict[str, str]) -> int:
    status = wgc("server", "--status", env=env)
    found = re.search(rb"(\d+) running", status.stdout)
    return int(found.group(1)) if found else 0


def native_launchers() -> bool:
    from wgc import launcher

    return launcher.compiler() is not None


@pytest.mark.parametrize("client_kind", ["wgc", pytest.param("native launcher", marks=pytest.mark.skipif(
    not native_launchers(), reason="no C compiler, or not Linux"))])
@pytest.mark.parametrize("how", ["interrupt", "terminate", "kill"])
def test_a_client_interrupted_or_killed_stops_its_compile(cache, tmp_path, how, client_kind):
    """The `wgc` command's client, or a native launcher (which forwards the signals itself), killed
    or sent SIGINT or SIGTERM while the server's process compiles: the compile stops as an
    interrupted one in process would."""
    work = project(tmp_path / "work")
    big_graph(work)
    env = {"WGC_CACHE_DIR": str(cache)}
    (work / "out" / "big.spv").write_bytes(b"an output of an earlier build")
    command = wgc_command()
    if client_kind == "wgc":
        assert wgc("server", "--daemon", env=env).returncode == 0
    else:
        command = [str(tmp_path / "wgc-native")]
        assert wgc("server", "--launcher", command[0], "--launcher-kind", "native", env=env).returncode == 0
        first = wgc(*COMMAND, cwd=work, env={**env, "WGC_SERVER": "1"}, command=command)    # starts its server
        assert first.returncode == 0, first.stderr                                        # and writes its pointer
    client = subprocess.Popen(command + ["compile", "-o", "out/big.spv", "big.hlsl"], cwd=work,
                              env=dict(os.environ, **env, WGC_SERVER="1"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        wait_until(lambda: running_count(env) == 1, "the server's child to run the compile")
        client.send_signal({"interrupt": signal.SIGINT, "terminate": signal.SIGTERM, "kill": signal.SIGKILL}[how])
        code = client.wait(timeout=WAIT_SECONDS)
        wait_until(lambda: running_count(env) == 0, "the server's child to end")
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        client.stdout.close()
        client.stderr.close()
    # as an interrupted in-process compile: exit 128 + SIGINT, no output, the earlier one removed
    assert code == {"interrupt": 130, "terminate": 143, "kill": -signal.SIGKILL}[how]
    assert not (work / "out" / "big.spv").exists()
    if client_kind == "wgc":
        assert served_count(env) == 1
    else:
        assert b"requests: 2 served (1 from native launchers)" in wgc("server", "--status", env=env).stdout


def test_the_cache_answers_before_the_server(cache, tmp_path):
    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "1", "WGC_CACHE": "1"}
    first = wgc(*COMMAND, cwd=work, env=env)
    assert first.returncode == 0 and served_count({"WGC_CACHE_DIR": str(cache)}) == 1
    (work / "out" / "graph.spv").unlink()
    second = wgc(*COMMAND, cwd=work, env=env)                 # a hit: written by the client, no request
    assert (second.returncode, second.stderr) == (0, first.stderr)
    assert served_count({"WGC_CACHE_DIR": str(cache)}) == 1
    assert (work / "out" / "graph.spv").exists()


def test_the_client_imports_neither_click_nor_the_compiler(cache, tmp_path):
    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "1"}
    client = [sys.executable, "-X", "importtime", "-m", "wgc"]
    assert wgc(*COMMAND, cwd=work, env=env, command=client).returncode == 0   # starts its server (-X is in the key)
    done = wgc(*COMMAND, "-Wno-#warnings", cwd=work, env=env, command=client)
    assert done.returncode == 0
    imported = {line.split("|")[-1].strip() for line in done.stderr.decode().splitlines()
                if line.startswith("import time:")}
    assert {"wgc.entry", "wgc.server.client", "wgc.server.protocol"} <= imported
    assert not {"click", "lark", "pcpp", "wgc.cli", "wgc.driver", "wgc.codes", "wgc.syntax", "subprocess"} & imported
    assert served_count({"WGC_CACHE_DIR": str(cache)}) == 2


THIN_CLIENT_MODULES = {"wgc", "wgc.entry", "wgc.interrupts", "wgc.portable", "wgc.identity",
                       "wgc.server", "wgc.server.client", "wgc.server.protocol"}


def test_the_thin_client_imports_only_what_it_needs(cache, tmp_path):
    """A command the server runs (its server already listening, no compile cache wanted) loads
    only the client's own modules: not the compile cache (`wgc.buildcache`), not the start-up
    caches (`wgc.startup_cache`, zlib), not `struct`, not `fcntl` (only a server takes file locks)
    nor `wgc.version` (the modules of the client process itself: the server's child writes its own
    import trace to the same standard error)."""
    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "1"}
    client = [sys.executable, "-c", "import sys; from wgc import entry; code = entry.main(sys.argv[1:]); "
              "sys.stdout.write(' '.join(sorted(sys.modules)) + '\\n'); raise SystemExit(code)"]
    assert wgc(*COMMAND, cwd=work, env=env, command=client).returncode == 0      # starts its server
    done = wgc(*COMMAND, cwd=work, env=env, command=client)
    assert done.returncode == 0, done.stderr
    imported = set(done.stdout.decode().split())
    assert {name for name in imported if name.startswith("wgc")} == THIN_CLIENT_MODULES
    assert not {"wgc.buildcache", "wgc.startup_cache", "zlib", "struct", "fcntl"} & imported
    assert served_count({"WGC_CACHE_DIR": str(cache)}) == 2


def test_the_clients_command_names_are_the_clis():
    from wgc import cli
    from wgc.server import client

    assert client.COMMANDS == frozenset(cli.cli.commands)
    assert client.served(["-T", "lib_6_8", "x.hlsl"]) and client.served(["inspect", "x.hlsl"])
    assert not client.served(["run", "x.hlsl"]) and not client.served(["--version"]) and not client.served([])


def test_every_compile_server_code_has_a_rendered_case():
    from wgc import codes

    server_codes = {k.code for k in codes.ALL_KINDS if "WG0029" <= k.code <= "WG0034"}
    assert server_codes == {"WG0029", "WG0030", "WG0031", "WG0032", "WG0033", "WG0034"}   # rendered above


# ---------------------------------------------------------------------- hostile servers, connections and fates
# Each wait below is bounded (a subprocess timeout, a join with a timeout): nothing here can hang the suite.

QUICK_SECONDS = 60.0
"""The bound on a command that must end promptly (the old code waited 600 s or for ever)."""
INLINE_GRAPH = GRAPH.replace('#include "inc/records.hlsli"', HEADER.splitlines()[0])
"""The graph without its #include (for inputs whose folder is /dev/fd)."""


def server_key(cache: Path) -> str:
    """The key of the server the wgc under test uses (read from a server started and stopped)."""
    env = {"WGC_CACHE_DIR": str(cache)}
    assert wgc("server", "--daemon", env=env).returncode == 0
    [key] = live_servers(cache)
    assert wgc("server", "--stop", env=env).returncode == 0
    return key


class FakeServer:
    """A socket at the client's socket path whose listener accepts connections (or not: `accept`),
    reads what comes and never answers."""

    def __init__(self, cache: Path, accept: bool = True) -> None:
        import threading

        from wgc.server import protocol

        self.path = cache / f"server-{os.getuid()}" / f"{server_key(cache)}.sock"
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = protocol.Address(str(self.path))
        try:
            self.listener.bind(address.address)
        finally:
            address.close()
        self.listener.listen(1 if not accept else 16)
        self.listener.settimeout(0.05)
        self.connections: list[socket.socket] = []
        self.received = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True) if accept else None
        if self.thread is not None:
            self.thread.start()

    def _serve(self) -> None:
        while not self.done.is_set():
            try:
                connection, _address = self.listener.accept()
                connection.setblocking(False)
                self.connections.append(connection)
            except OSError:
                pass
            for connection in self.connections:
                try:
                    self.received += len(connection.recv(1 << 16))
                except OSError:
                    pass

    def close(self) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join(timeout=10)
        for connection in self.connections:
            connection.close()
        self.listener.close()
        self.path.unlink(missing_ok=True)


@pytest.mark.parametrize("accepts", [True, False], ids=["accepts-never-answers", "never-accepts"])
def test_a_stalled_server_is_given_up_and_the_command_compiles_in_process(cache, tmp_path, accepts):
    """A server that takes a connection and never answers (or never accepts it, its backlog full)
    costs a command $WGC_SERVER_TIMEOUT seconds, then it compiles in process; it never hangs."""
    work = project(tmp_path / "work")
    fake = FakeServer(cache, accept=accepts)
    blockers = []
    try:
        if not accepts:                 # fill the backlog: a connect would block
            for _ in range(4):
                blocker = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                blocker.setblocking(False)
                try:
                    blocker.connect(fake.listener.getsockname())
                except OSError:
                    pass
                blockers.append(blocker)
        plain, served = plain_and_served(work, cache, *COMMAND, env={"WGC_SERVER_TIMEOUT": "1"})
        assert served == plain and served[0] == 0
        if accepts:
            assert fake.connections and fake.received > 0         # the client did send its request there
    finally:
        for blocker in blockers:
            blocker.close()
        fake.close()
    assert live_servers(cache) == {}                              # the stalled one was not replaced


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"])
def test_a_client_waiting_for_a_stalled_server_honours_signals(cache, tmp_path, signum):
    """While the client waits for a server's answer, SIGINT, SIGTERM and SIGHUP end it at once with
    128 + the signal, and nothing was written (the command never ran)."""
    work = project(tmp_path / "work")
    fake = FakeServer(cache)
    client = subprocess.Popen(wgc_command() + list(COMMAND), cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=dict(os.environ, WGC_CACHE_DIR=str(cache), WGC_SERVER="1", WGC_SERVER_TIMEOUT="600"))
    try:
        wait_until(lambda: fake.received > 0, "the client to send its request to the stalled server")
        client.send_signal(signum)
        code = client.wait(timeout=QUICK_SECONDS)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        client.stdout.close()
        client.stderr.close()
        fake.close()
    assert code == 128 + signum
    assert files(work / "out") == {}


def test_slow_and_silent_connections_do_not_block_other_clients(cache, tmp_path):
    """A connection that sends nothing, and one that trickles a request that never completes, do not
    keep the server from serving a normal client meanwhile (the old server read them in turn)."""
    import threading

    from wgc.server import protocol

    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache)}
    assert wgc("server", "--daemon", env=env).returncode == 0
    [key] = live_servers(cache)
    path = str(cache / f"server-{os.getuid()}" / f"{key}.sock")
    silent = protocol.connect(path)
    trickling = protocol.connect(path)
    stop = threading.Event()

    def trickle() -> None:                    # a header announcing 1,000 bytes, then a byte now and then
        try:
            trickling.sendall(protocol.COMPILE + (1000).to_bytes(4, "big"))
            while not stop.wait(0.5):
                trickling.sendall(b"\0")
        except OSError:
            pass

    feeder = threading.Thread(target=trickle, daemon=True)
    feeder.start()
    try:
        time.sleep(0.5)
        plain, served = plain_and_served(work, cache, *COMMAND)
    finally:
        stop.set()
        feeder.join(timeout=10)
        silent.close()
        trickling.close()
    assert served == plain and served[0] == 0
    assert served_count(env) == 1                      # served by the server, not compiled in process


def test_a_pipeline_through_a_started_server_ends_promptly(cache, tmp_path):
    """The server a command starts keeps none of that command's descriptors: a pipeline reading the
    command's output (here through an extra descriptor, as make's and shells' pipes can be) ends
    when the command does, not when the server exits."""
    work = project(tmp_path / "work")
    env = dict(os.environ, WGC_CACHE_DIR=str(cache), WGC_SERVER="1", WGC_SERVER_IDLE="600")
    env.pop("NO_COLOR", None)
    command = " ".join(wgc_command())
    for line in (f"{command} compile -o out/a.spv graph.hlsl 3>&1 | cat",
                 f"{command} server --daemon 3>&1 4>&2 | cat"):
        done = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=QUICK_SECONDS)
        assert done.returncode == 0, done.stderr
    [pid] = live_servers(cache).values()
    if Path(f"/proc/{pid}/fd").is_dir():
        kept = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in (0, 1)}
        assert kept == {os.devnull}
        assert os.readlink(f"/proc/{pid}/fd/2").endswith(".log")
    assert (work / "out" / "a.spv").exists()


def test_process_substitution_and_descriptor_paths_work_with_the_server(cache, tmp_path):
    """`<(...)` inputs and /dev/fd/N outputs name descriptors of the command's own process: they
    compile as without the server (in process), and /dev/stdin, /dev/stdout go through it."""
    work = project(tmp_path / "work")
    (work / "inline.hlsl").write_text(INLINE_GRAPH)
    command = " ".join(wgc_command())
    lines = (f"{command} compile -o out/a.spv <(cat inline.hlsl)",
             f"{command} compile -o /dev/fd/5 inline.hlsl 5>out/b.spv",
             f"{command} compile --emit=reflection -o /dev/fd/7 - < inline.hlsl 7>out/c.json",
             f"cat inline.hlsl | {command} compile -o out/d.spv /dev/stdin",
             f"{command} compile -o /dev/stdout inline.hlsl > out/e.spv")
    for line in lines:
        results = []
        for mode in ("0", "1"):
            shutil.rmtree(work / "out")
            (work / "out").mkdir()
            env = dict(os.environ, WGC_CACHE_DIR=str(cache), WGC_SERVER=mode)
            env.pop("NO_COLOR", None)
            done = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=WAIT_SECONDS)
            results.append((done.returncode, done.stdout, done.stderr, files(work / "out")))
        assert results[1] == results[0], line
        assert results[0][0] == 0 and len(results[0][3]) == 1 and list(results[0][3].values())[0], line


def server_children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize("fate", ["server", "server-and-child", "child"])
def test_a_server_killed_mid_request(cache, tmp_path, fate):
    """The server killed while its child runs a command: the child finishes and reports its exit
    status itself (exit 0, the outputs of an in-process compile). Killed together with the child:
    the client says so (WG0029) and exits 1, never 3 (an internal error). The child killed alone:
    the client says so (WG0029) and ends by the same signal, as the command's own process would."""
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("needs /proc/PID/task/PID/children to find the server's child")
    work = project(tmp_path / "work")
    big_graph(work)
    env = {"WGC_CACHE_DIR": str(cache)}
    expected = wgc("compile", "-o", "out/expected.spv", "big.hlsl", cwd=work, env=env)
    assert expected.returncode == 0
    assert wgc("server", "--daemon", env=env).returncode == 0
    [server] = live_servers(cache).values()
    client = subprocess.Popen(wgc_command() + ["compile", "-o", "out/big.spv", "big.hlsl"], cwd=work,
                              env=dict(os.environ, **env, WGC_SERVER="1"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        wait_until(lambda: server_children(server), "the server's child to run the compile")
        [child] = server_children(server)

        def running() -> bool:          # it has the client's standard output: it was told GO
            try:
                return os.readlink(f"/proc/{child}/fd/1") == os.readlink(f"/proc/{client.pid}/fd/1")
            except OSError:
                return False

        wait_until(running, "the server's child to take the client's standard streams")
        if fate == "server":
            os.kill(server, signal.SIGKILL)
        elif fate == "child":
            os.kill(child, signal.SIGKILL)
        else:
            os.kill(server, signal.SIGSTOP)             # it cannot report the child's end
            wait_until(lambda: Path(f"/proc/{server}/stat").read_text().rpartition(")")[2].split()[0] == "T",
                       "the server to stop")
            os.kill(child, signal.SIGKILL)
            os.kill(server, signal.SIGKILL)
        code = client.wait(timeout=WAIT_SECONDS)
        stderr = client.stderr.read().decode()
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        client.stdout.close()
        client.stderr.close()
    if fate == "server":
        assert (code, stderr) == (0, expected.stderr.decode())
        assert (work / "out" / "big.spv").read_bytes() == (work / "out" / "expected.spv").read_bytes()
    else:
        assert code == (1 if fate == "server-and-child" else -signal.SIGKILL)
        assert "[WG0029]" in stderr and "Traceback" not in stderr
        assert stderr.startswith("error: the compile server's process for this command")
        assert not (work / "out" / "big.spv").exists()


def test_the_folder_must_be_private_and_the_server_this_users(cache, tmp_path):
    """The server folder is used only as a real folder (not a link), owned by the user and closed to
    others (WG0031 for `wgc server`; a compile then runs in process), and a client hands its
    command to a process of its own user only (SO_PEERCRED): a socket another user listens on gets
    nothing, not even the request."""
    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache)}
    folder = cache / f"server-{os.getuid()}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    folder.symlink_to(elsewhere)
    cases = [("a link", "is not a folder")]
    if os.getuid() == 0:
        cases.append(("another owner", "belongs to another user"))
    cases.append(("open to the group", "is open to other users (mode 0750; 0700 expected)"))
    for case, reason in cases:
        if case == "another owner":
            folder.unlink()
            folder.mkdir(mode=0o700)
            os.chown(folder, 65534, 65534)
        elif case == "open to the group":
            if folder.is_symlink():
                folder.unlink()
                folder.mkdir()
            os.chown(folder, os.getuid(), os.getgid())
            folder.chmod(0o750)
        status = wgc("server", "--status", env=env)
        assert (status.returncode, status.stderr.decode()) == (
            1, f"error: the compile server cannot use its folder: '{folder}' {reason} [WG0031]\n1 error generated.\n"), case
        plain, served = plain_and_served(work, cache, *COMMAND)
        assert served == plain and served[0] == 0, case
        assert not list(elsewhere.iterdir()) and not list(folder.iterdir()), case
    folder.chmod(0o700)
    if os.getuid() != 0:
        return
    # a socket in the folder's place that another user listens on (the folder's parent is not
    # ours to protect): the client does not send it anything and compiles in process
    key = server_key(cache)
    listening = subprocess.Popen(
        [sys.executable, "-c", "import os, socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); "
         "os.setuid(65534); s.listen(8); print('listening', flush=True); c, _ = s.accept(); c.settimeout(5); "
         "print(len(c.recv(1 << 16)), flush=True)", f"{key}.sock"],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert listening.stdout.readline() == b"listening\n"
        plain, served = plain_and_served(work, cache, *COMMAND)
        assert served == plain and served[0] == 0
        received = listening.communicate(timeout=QUICK_SECONDS)[0]
    finally:
        if listening.poll() is None:
            listening.kill()
            listening.communicate()
    assert received == b"0\n"                 # connected, then closed unused: not one byte of the request
    (folder / f"{key}.sock").unlink()


def test_the_server_stress_script_in_bounded_form(tmp_path):
    """`benchmarks/fuzz_server.py` (hostile connections, a stalled server, signals and kills, each
    outcome checked against an in-process compile), a few seeded scenarios of it."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fuzz_server.py"), "--count", "8", "--seconds",
                           "120", "--seed", "7"], capture_output=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert b"0 failures" in done.stdout


def test_a_client_in_the_c_locale_starts_a_server_of_its_own_key(cache, tmp_path):
    """Without LANG and LC_* (the C locale: a container's usual environment), Python sets
    LC_CTYPE=C.UTF-8 in its environment and turns its UTF-8 mode on (PEP 538, PEP 540); the server
    it starts gets that environment, in which the locale is not C any more, and is asked for UTF-8
    mode so that its key is the client's: the command is served, not compiled in process."""
    work = project(tmp_path / "work")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LC_", "LANG", "PYTHONUTF8", "PYTHONCOERCECLOCALE", "PYTHONIOENCODING"))}
    env.update(WGC_CACHE_DIR=str(cache), WGC_SERVER="1")
    done = subprocess.run(wgc_command() + list(COMMAND), capture_output=True, cwd=work, env=env, timeout=WAIT_SECONDS)
    assert done.returncode == 0, done.stderr
    status = subprocess.run(wgc_command() + ["server", "--status"], capture_output=True, env=env, timeout=WAIT_SECONDS)
    assert b"(this wgc)" in status.stdout and b"requests: 1 served" in status.stdout, status.stdout
