"""The caches' security model (docs/guide.md, "Security model: caches and the server"), run through the real
`wgc`: a cache folder another user owns or may write is not used (nothing planted in it runs, no
path it names is written, the compile still succeeds with the outputs of an uncached compile); in
the user's own folder, entries are checked, a hit writes only the outputs the command line names,
counters never follow links; inputs that are not regular files (pipes, FIFOs, devices) bypass the
cache and behave as without it; a file rewritten during a compile is never stored stale.
"""

from __future__ import annotations

import marshal
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_buildcache import COMMAND, GRAPH, HEADER, files, project, statistics, uncached

from wgc import buildcache, startup_cache

NOBODY = 65534
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="giving a folder to another user needs root")


def run(run_wgc, cache: Path, work: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return run_wgc(args[0], "--cache", *args[1:], cwd=work, stdin=stdin, env={"WGC_CACHE_DIR": str(cache)})


class _Planted:
    """Builds a pickle that creates `marker` when it is loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


def _plant_start_up_caches(cache: Path, marker: Path, monkeypatch) -> None:
    """A parser cache that runs code when unpickled and dataclass code that runs when executed,
    each under the name and key this wgc looks for."""
    from wgc import cached_dataclass
    from wgc.syntax import parse

    monkeypatch.setenv("WGC_CACHE_DIR", str(cache))
    grammar = parse.grammar_text()
    assert Path(startup_cache.path(parse.PARSER_CACHE, parse._parser_cache_key(grammar))).exists()   # the one wgc reads
    assert startup_cache.write(parse.PARSER_CACHE, parse._parser_cache_key(grammar),
                               pickle.dumps(_Planted(marker)))
    codes = marshal.loads(startup_cache.read(cached_dataclass.CACHE_NAME, cached_dataclass._CODE_CACHE.key))
    planted = {source: compile(f"open({str(marker)!r}, 'w').close()\n" + source, "<planted>", "exec")
               for source in codes}
    assert startup_cache.write(cached_dataclass.CACHE_NAME, cached_dataclass._CODE_CACHE.key, marshal.dumps(planted))


def _rewrite_entry(cache: Path, change) -> None:
    """Apply `change(payload)` to the one result entry in `cache`, keeping it intact (magic, digest)."""
    [entry] = [p for p in (cache / "results").glob("*/*") if p.name not in buildcache.COUNTERS]
    payload = buildcache._decode(entry.read_bytes())
    change(payload)
    entry.write_bytes(buildcache._encode(payload))


def _aim_at(victim: Path):
    def change(payload) -> None:
        payload["named"].append(["-o", str(victim)])
        payload["named"] = [tuple(n) for n in payload["named"]]
        payload["staged"].append(("stage", str(victim), b"planted output"))
    return change


@as_root
@pytest.mark.parametrize("how", ["owned by another user", "open to all"])
def test_a_cache_folder_another_user_may_write_runs_and_writes_nothing(run_wgc, tmp_path, monkeypatch, how):
    """Nothing planted in a folder another user owns or may write is used: not the parser pickle,
    not the dataclass code, not a result entry naming another path, not links from the counters;
    the compile runs without the cache (WG0037) and writes the outputs of an uncached compile."""
    reference = uncached(run_wgc, project(tmp_path / "plain"), *COMMAND)
    work = project(tmp_path / "work")
    cache, marker, victim = tmp_path / "cache", tmp_path / "planted-code-ran", tmp_path / "victim"
    victim.write_bytes(b"precious")
    assert run(run_wgc, cache, work, *COMMAND).returncode == 0           # a real entry and real start-up caches
    _plant_start_up_caches(cache, marker, monkeypatch)
    _rewrite_entry(cache, _aim_at(victim))
    for counter in buildcache.COUNTERS:
        (cache / "results" / counter).unlink(missing_ok=True)
        (cache / "results" / counter).symlink_to(victim)
    for folder in (cache, *cache.rglob("*")):
        if how == "owned by another user":
            os.lchown(folder, NOBODY, NOBODY)
        elif folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o777)
    done = run(run_wgc, cache, work, *COMMAND)
    assert done.returncode == 0, done.stderr
    assert not marker.exists() and victim.read_bytes() == b"precious", done.stderr
    assert files(work / "out") == files(tmp_path / "plain" / "out")
    warning, rest = done.stderr.decode().split("\n", 1)
    assert warning.startswith(f"warning: the compile cache is not used: '{cache}' ")
    assert warning.endswith("; compiling without it [WG0037] [-Wcompile-cache]")
    assert rest == reference.stderr.decode().replace("1 warning generated", "2 warnings generated")


def test_a_cache_folder_open_to_others_is_warning_wg0037(run_wgc, tmp_path):
    work = project(tmp_path / "work")
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    cache.chmod(0o757)
    done = run(run_wgc, cache, work, "compile", "-Wno-#warnings", "-o", "out/graph.spv", "graph.hlsl")
    assert (done.returncode, done.stderr.decode()) == (0, (
        f"warning: the compile cache is not used: '{cache}' may be written by other users (mode 0757); "
        "compiling without it [WG0037] [-Wcompile-cache]\n1 warning generated.\n"))
    assert (work / "out" / "graph.spv").exists() and not (cache / "results").exists()
    inside = tmp_path / "open" / "cache"
    inside.parent.mkdir(mode=0o777)
    inside.parent.chmod(0o777)
    done = run(run_wgc, inside, work, "compile", "-Wno-#warnings", "-o", "out/graph.spv", "graph.hlsl")
    assert done.returncode == 0 and not (inside / "results").exists()
    assert f"'{inside}' is inside '{inside.parent}', which other users may change (mode 0777)" in done.stderr.decode()


def test_planted_start_up_caches_in_a_foreign_folder_are_not_loaded(tmp_path, monkeypatch):
    """The start-up caches (code: a pickle, marshalled code objects) are read only from a private folder."""
    from wgc.syntax import parse

    cache, marker = tmp_path / "cache", tmp_path / "planted-code-ran"
    cache.mkdir()
    monkeypatch.setenv("WGC_CACHE_DIR", str(cache))
    assert startup_cache.write("thing", "key", b"data")
    assert startup_cache.write(parse.PARSER_CACHE, parse._parser_cache_key(parse.grammar_text()),
                               pickle.dumps(_Planted(marker)))
    cache.chmod(0o777)
    assert startup_cache.read("thing", "key") is None
    assert parse._cached_parser(parse.grammar_text(), parse.TypeNamePostLexer()) is None
    assert startup_cache.write("thing", "other key", b"data") is False
    cache.chmod(0o700)
    assert startup_cache.read("thing", "key") == b"data"
    target = tmp_path / "elsewhere"
    target.write_bytes(Path(startup_cache.path("thing", "key")).read_bytes())
    Path(startup_cache.path("thing", "key")).unlink()
    Path(startup_cache.path("thing", "key")).symlink_to(target)          # a link is never followed
    assert startup_cache.read("thing", "key") is None
    assert not marker.exists()


def test_the_parser_cache_names_only_lark_classes(tmp_path, monkeypatch):
    """Defence in depth: even in the user's own folder, a parser cache that names any other
    callable (here `exec`) is refused by the unpickler and rebuilt; nothing in it runs."""
    from wgc.syntax import parse

    marker = tmp_path / "planted-code-ran"
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path / "cache"))
    assert startup_cache.write(parse.PARSER_CACHE, parse._parser_cache_key(parse.grammar_text()),
                               pickle.dumps(_Planted(marker)))
    assert parse._cached_parser(parse.grammar_text(), parse.TypeNamePostLexer()) is None
    assert not marker.exists()


@pytest.mark.parametrize("change", ["another path", "a module outside the folder", "a path in a dependency"])
def test_a_hit_writes_only_the_outputs_the_command_line_names(run_wgc, tmp_path, change):
    """An entry (in the user's own folder: written by a bug, an older wgc, a shared home) that names
    an output the current command line does not ask for is not replayed: a miss, removed, and the
    compile writes what an uncached one writes."""
    reference = uncached(run_wgc, project(tmp_path / "plain"), *COMMAND)
    work = project(tmp_path / "work")
    cache, victim = tmp_path / "cache", tmp_path / "victim"
    victim.write_bytes(b"precious")
    split = ("compile", "--split-nodes", "nodes", "-MD", "-MF", "nodes.d", "graph.hlsl")
    used = split if change == "a module outside the folder" else COMMAND
    assert run(run_wgc, cache, work, *used).returncode == 0

    def outside(payload) -> None:
        [(kind, modules)] = [item for item in payload["staged"] if item[0] == "split"]
        payload["staged"] = [("split", [*modules, ("../../victim.spv", b"planted")])]

    def dependency(payload) -> None:
        payload["dependencies"].append((str(victim), "included file", buildcache._digest(b"precious")))
        payload["staged"].append(("stage", str(victim), b"planted"))

    _rewrite_entry(cache, {"another path": _aim_at(victim), "a module outside the folder": outside,
                           "a path in a dependency": dependency}[change])
    done = run(run_wgc, cache, work, *used)
    assert done.returncode == 0
    assert victim.read_bytes() == b"precious" and not (tmp_path / "victim.spv").exists()
    assert statistics(cache)[2] == 0                                       # never a hit
    if used == COMMAND:
        assert done.stderr == reference.stderr
        assert files(work / "out") == files(tmp_path / "plain" / "out")


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_counters_never_follow_links(run_wgc, tmp_path, link):
    work = project(tmp_path / "work")
    cache, victim = tmp_path / "cache", tmp_path / "victim"
    victim.write_bytes(b"precious")
    for _ in range(2):
        assert run(run_wgc, cache, work, *COMMAND).returncode == 0
    for counter in buildcache.COUNTERS:
        (cache / "results" / counter).unlink(missing_ok=True)
        if link == "symbolic":
            (cache / "results" / counter).symlink_to(victim)
        else:
            os.link(victim, cache / "results" / counter)
    for _ in range(2):
        assert run(run_wgc, cache, work, *COMMAND).returncode == 0
        (work / "graph.hlsl").write_text(GRAPH + "// changed\n")       # a miss next time
    assert victim.read_bytes() == b"precious"


def test_an_oversized_or_foreign_entry_is_a_miss(run_wgc, tmp_path):
    work = project(tmp_path / "work")
    cache = tmp_path / "cache"
    assert run(run_wgc, cache, work, *COMMAND).returncode == 0
    [entry] = [p for p in (cache / "results").glob("*/*") if p.name not in buildcache.COUNTERS]
    entry.chmod(0o666)                                                     # others may have written it
    assert run(run_wgc, cache, work, *COMMAND).returncode == 0
    assert statistics(cache)[2:] == (0, 2)
    assert run(run_wgc, cache, work, *COMMAND).returncode == 0
    assert statistics(cache)[2:] == (1, 2)


# ------------------------------------------------------------------ inputs that are not regular files

SOURCE = GRAPH.replace('#include "inc/records.hlsli"', HEADER).encode()


@pytest.mark.parametrize("cached", [True, False])
def test_standard_input_by_name_and_process_substitution(run_wgc, tmp_path, cached):
    """`cat x | wgc compile /dev/stdin` (the user guide's example) and `wgc compile <(cat x)` work on
    every run: the cache never opens a pipe (it would drain it) and never stores such a compile."""
    from conftest import wgc_command

    work = project(tmp_path / "work")
    env = dict(os.environ, WGC_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NO_COLOR", None)
    flag = ["--cache"] if cached else []
    for number in range(3):
        done = subprocess.run([*wgc_command(), "compile", *flag, "-o", f"out/stdin{number}.spv", "/dev/stdin"],
                              input=SOURCE, capture_output=True, cwd=work, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        read, write = os.pipe()
        writer = threading.Thread(target=lambda: (os.write(write, SOURCE), os.close(write)))
        writer.start()
        try:
            done = subprocess.run([*wgc_command(), "compile", *flag, "-o", f"out/fd{number}.spv", f"/dev/fd/{read}"],
                                  capture_output=True, cwd=work, env=env, timeout=120, pass_fds=(read,))
        finally:
            os.close(read)
            writer.join(timeout=30)
        assert done.returncode == 0, done.stderr
    outputs = {(work / "out" / f"{kind}{n}.spv").read_bytes() for kind in ("stdin", "fd") for n in range(3)}
    assert len(outputs) == 1
    if cached:
        assert statistics(tmp_path / "cache")[0] == 0


def _fifo_writer(path: Path, data: bytes) -> threading.Thread:
    """A thread that writes `data` into the FIFO at `path` once a reader opens it (gives up after 30 s)."""
    def write() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:                  # no reader yet
                time.sleep(0.02)
                continue
            os.set_blocking(fd, True)
            try:
                os.write(fd, data)
            except BrokenPipeError:
                pass
            finally:
                os.close(fd)
            return
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("cached", [True, False])
def test_a_fifo_input_is_read_once_and_never_waited_for(run_wgc, tmp_path, cached):
    work = project(tmp_path / "work")
    fifo = work / "graph.fifo"
    os.mkfifo(fifo)
    args = ("compile", "-o", "out/fifo.spv", "graph.fifo")
    for _ in range(2):
        writer = _fifo_writer(fifo, SOURCE)
        done = (run(run_wgc, tmp_path / "cache", work, *args) if cached
                else run_wgc(*args, cwd=work, env={"WGC_CACHE_DIR": str(tmp_path / "cache")}))
        writer.join(timeout=30)
        assert done.returncode == 0, done.stderr
    if cached:
        assert statistics(tmp_path / "cache")[0] == 0


@pytest.mark.parametrize("cached", [True, False])
@pytest.mark.parametrize("replacement", ["a FIFO", "/dev/zero"])
def test_a_header_replaced_by_a_fifo_or_a_device_is_wg0112(run_wgc, tmp_path, cached, replacement):
    """After a stored compile, the header becomes a FIFO with no writer or a link to /dev/zero: the
    lookup must neither block on it nor read it without bound; the compile reports WG0112."""
    work = project(tmp_path / "work")
    args = ("compile", "-o", "out/graph.spv", "graph.hlsl")
    header = work / "inc" / "records.hlsli"
    if cached:
        assert run(run_wgc, tmp_path / "cache", work, *args).returncode == 0
    header.unlink()
    if replacement == "a FIFO":
        os.mkfifo(header)
    else:
        header.symlink_to("/dev/zero")
    done = (run(run_wgc, tmp_path / "cache", work, *args) if cached
            else run_wgc(*args, cwd=work, env={"WGC_CACHE_DIR": str(tmp_path / "cache")}))
    assert done.returncode == 1 and b"[WG0112]" in done.stderr


_REWRITE_DURING_COMPILE = r"""
import os, sys
from wgc import driver
from wgc.entry import main

header = sys.argv[1]
compile_ = driver.compile

def compile_and_rewrite(*args, **kwargs):
    result = compile_(*args, **kwargs)
    info = os.stat(header)
    with open(header, "r+b") as handle:                 # same size, in place
        text = handle.read()
        handle.seek(0)
        handle.write(text.replace(b"v1", b"v2"))
    os.utime(header, ns=(info.st_atime_ns, info.st_mtime_ns))   # and the same mtime
    return result

driver.compile = compile_and_rewrite
sys.exit(main(sys.argv[2:]))
"""


def test_a_header_rewritten_during_the_compile_is_not_served_stale(run_wgc, tmp_path):
    """The header is rewritten in place (same size, mtime set back) after the compiler read it: that
    compile must not be stored, or every later compile of the new header would get the old output."""
    work = project(tmp_path / "work")
    cache = tmp_path / "cache"
    header = work / "inc" / "records.hlsli"
    env = dict(os.environ, WGC_CACHE_DIR=str(cache))
    env.pop("NO_COLOR", None)
    first = subprocess.run([sys.executable, "-c", _REWRITE_DURING_COMPILE, str(header), COMMAND[0], "--cache",
                            *COMMAND[1:]], cwd=work, env=env, capture_output=True, timeout=120)
    assert first.returncode == 0 and b'"records v1"' in first.stderr
    assert b"v2" in header.read_bytes()
    reference = uncached(run_wgc, project(tmp_path / "plain", HEADER.replace("v1", "v2")), *COMMAND)
    done = run(run_wgc, cache, work, *COMMAND)
    assert (done.returncode, done.stderr) == (0, reference.stderr)
    assert files(work / "out") == files(tmp_path / "plain" / "out")


def test_wgc_cache_neither_reads_nor_clears_a_folder_others_may_write(run_wgc, tmp_path):
    work = project(tmp_path / "work")
    cache = tmp_path / "cache"
    for _ in range(2):
        assert run(run_wgc, cache, work, *COMMAND).returncode == 0
    cache.chmod(0o777)
    env = {"WGC_CACHE_DIR": str(cache), "WGC_CACHE": "", "WGC_CACHE_MAX_SIZE": "1G"}
    warning = (f"warning: the compile cache is not used: '{cache}' may be written by other users (mode 0777); "
               "compiling without it [WG0037] [-Wcompile-cache]\n1 warning generated.\n")
    stats = run_wgc("cache", "--stats", env=env)
    assert (stats.returncode, stats.stderr.decode()) == (0, warning)
    assert "hits:    0\nmisses:  0\nentries: 0\n" in stats.stdout.decode()
    cleared = run_wgc("cache", "--clear", env=env)
    assert (cleared.returncode, cleared.stderr.decode()) == (0, warning)
    assert cleared.stdout.decode() == f"removed 0 compile results from {cache / 'results'}\n"
    cache.chmod(0o700)
    assert statistics(cache)[0] == 1                                       # left alone


def test_a_bounded_hostile_cache_fuzz_campaign():
    """benchmarks/fuzz_cache.py, a few dozen inputs (the script runs longer campaigns): every damaged,
    linked, planted or foreign cache gives the uncached compile's exit code, diagnostics and outputs,
    no traceback, no write outside the cache and the outputs, no planted code run."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_cache.py"
    done = subprocess.run([sys.executable, str(script), "--count", "24", "--seconds", "300", "--seed", "24"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fuzz_cache: 24 inputs (seed 24)" in done.stdout and ": 0 failures" in done.stdout


@pytest.mark.parametrize(("argv", "named", "allowed"), [
    (["compile", "-o", "x.spv", "g.hlsl"], [("-o", "x.spv")], True),
    (["compile", "-ox.spv", "g.hlsl"], [("-o", "x.spv")], True),
    (["compile", "-Fo=x.spv", "-MD", "g.hlsl"], [("-o", "x.spv"), ("-MF", "x.spv.d")], True),
    (["compile", "g.hlsl"], [("-o", "a.spv")], True),
    (["compile", "-o", "x.spv", "g.hlsl"], [("-o", "a.spv")], False),            # a default, but -o was given
    (["compile", "-o", "x.spv", "g.hlsl"], [("-Fre", "x.spv")], False),          # another option's path
    (["compile", "-o", "x.spv", "g.hlsl"], [("-o", "g.hlsl")], False),           # the input
    (["compile", "-o", "x.spv", "--", "-Fe", "y", "g.hlsl"], [("-Fe", "y")], False),   # after --
    (["compile", "-o", "x.spv", "g.hlsl"], [("--bogus", "x.spv")], False),
])
def test_an_entry_may_name_only_the_outputs_the_command_line_requests(argv, named, allowed):
    payload = {"dependencies": [], "absent": [], "named": named, "split": None,
               "staged": [("stage", path, b"") for _option, path in named], "stderr": "", "exit": 0}
    if allowed:
        assert buildcache._checked(payload, argv) is payload
    else:
        with pytest.raises(ValueError):
            buildcache._checked(payload, argv)


@pytest.mark.parametrize("staged", [[], [("stage", "x.spv", b""), ("stage", "x.spv", b"")]])
def test_an_entry_must_stage_each_output_it_names_once(staged):
    payload = {"dependencies": [], "absent": [], "named": [("-o", "x.spv")], "split": None, "staged": staged,
               "stderr": "", "exit": 0}
    with pytest.raises(ValueError):
        buildcache._checked(payload, ["compile", "-o", "x.spv", "g.hlsl"])
