"""The compile cache (`wgc compile --cache`, `WGC_CACHE=1`, `wgc cache`), run through the real `wgc`.

Every expected output comes from an uncached compile of the same command in a copy of the
project with the same layout (the independent reference); hits and misses are read from the
cache's own counters and entries.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wgc import buildcache, identity

ROOT = Path(__file__).resolve().parents[1]

GRAPH = """\
#include "inc/records.hlsli"
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Entry(DispatchNodeInputRecord<R> i, [MaxRecords(8)] NodeOutput<R> Leaf) { }
[Shader("node")] [NodeLaunch("thread")] void Leaf(ThreadNodeInputRecord<R> i) { }
"""
HEADER = 'struct R { uint grid : SV_DispatchGrid; uint x; };\n#warning "records v1"\n'
BROKEN = '[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Missing> i) { }\n'
COMMAND = ("compile", "-MD", "-MP", "-o", "out/graph.spv", "-Fre", "out/graph.json", "-Fh", "out/graph.h",
           "graph.hlsl")


def project(folder: Path, header: str = HEADER) -> Path:
    (folder / "inc").mkdir(parents=True, exist_ok=True)
    (folder / "out").mkdir(exist_ok=True)
    (folder / "inc" / "records.hlsli").write_text(header)
    (folder / "graph.hlsl").write_text(GRAPH)
    return folder


def files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def statistics(cache: Path) -> tuple[int, int, int, int]:
    """(entries, bytes, hits, misses) of the cache in `cache`."""
    saved = os.environ.get("WGC_CACHE_DIR")
    os.environ["WGC_CACHE_DIR"] = str(cache)
    try:
        return buildcache.statistics()
    finally:
        if saved is None:
            del os.environ["WGC_CACHE_DIR"]
        else:
            os.environ["WGC_CACHE_DIR"] = saved


@pytest.fixture
def cached(run_wgc, tmp_path):
    """`cached(*args, cwd=..., env=...)`: the real wgc with --cache and a cache folder of the test's own."""
    cache = tmp_path / "cache"

    def run(*args: str, cwd: Path, env: dict[str, str] | None = None, flag: str = "--cache",
            stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return run_wgc(*args[:1], *((flag,) if flag else ()), *args[1:], cwd=cwd, stdin=stdin,
                       env={"WGC_CACHE_DIR": str(cache), **(env or {})})

    run.cache = cache  # type: ignore[attr-defined]
    return run


def uncached(run_wgc, folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return run_wgc(*args, cwd=folder, env={"WGC_CACHE_DIR": str(folder.parent / "plain-cache")})


def test_a_hit_writes_the_outputs_and_warnings_of_an_uncached_compile(run_wgc, cached, tmp_path):
    reference = uncached(run_wgc, project(tmp_path / "plain"), *COMMAND)
    assert reference.returncode == 0, reference.stderr
    assert b'warning: "records v1" [WG0103]' in reference.stderr
    work = project(tmp_path / "work")
    first = cached(*COMMAND, cwd=work)
    assert statistics(cached.cache)[2:] == (0, 1)                     # a miss, stored
    shutil.rmtree(work / "out")
    (work / "out").mkdir()
    second = cached(*COMMAND, cwd=work)
    assert statistics(cached.cache)[2:] == (1, 1)                     # a hit
    for done in (first, second):
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", reference.stderr)
    assert files(work / "out") == files(tmp_path / "plain" / "out")
    assert set(files(work / "out")) == {"graph.spv", "graph.json", "graph.h", "graph.spv.d"}


def test_split_nodes_diagnostics_files_and_standard_output_are_replayed(run_wgc, cached, tmp_path):
    for command in (("compile", "--split-nodes", "nodes", "-MD", "-MF", "nodes.d", "-Fe", "diagnostics.txt",
                     "graph.hlsl"),
                    ("compile", "-S", "-o", "-", "graph.hlsl")):
        name = command[1].strip("-")
        reference = uncached(run_wgc, project(tmp_path / f"plain-{name}"), *command)
        assert reference.returncode == 0, reference.stderr
        work = project(tmp_path / f"work-{name}")
        done = [cached(*command, cwd=work) for _ in range(2)]
        for run in done:
            assert (run.returncode, run.stdout, run.stderr) == (0, reference.stdout, reference.stderr)
        assert files(work) == files(tmp_path / f"plain-{name}")
    assert statistics(cached.cache)[2:] == (2, 2)


def test_a_hit_imports_neither_click_nor_the_compiler(cached, tmp_path):
    work = project(tmp_path / "work")
    assert cached(*COMMAND, cwd=work).returncode == 0
    env = dict(os.environ, WGC_CACHE_DIR=str(cached.cache))   # the copy `cached` ran (conftest: installed or tree)
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "wgc", COMMAND[0], "--cache", *COMMAND[1:]],
                          cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "wgc.buildcache" in imported and "wgc.outputs" in imported
    assert not {"click", "lark", "pcpp", "wgc.cli", "wgc.driver", "wgc.codes", "wgc.syntax"} & imported
    assert statistics(cached.cache)[2:] == (1, 1)


def test_a_changed_input_or_header_is_a_miss_and_both_versions_stay_cached(run_wgc, cached, tmp_path):
    work = project(tmp_path / "work")
    header = work / "inc" / "records.hlsli"
    steps = [
        (HEADER, GRAPH, (0, 1)),
        (HEADER.replace("v1", "v2"), GRAPH, (0, 2)),                       # the header changed: a miss
        (HEADER.replace("v1", "v2"), GRAPH + "// more\n", (0, 3)),         # the input changed: a miss
        (HEADER, GRAPH, (1, 3)),                                           # back to the first: a hit
        (HEADER.replace("v1", "v2"), GRAPH + "// more\n", (2, 3)),
    ]
    for number, (header_text, graph_text, counts) in enumerate(steps):
        header.write_text(header_text)
        (work / "graph.hlsl").write_text(graph_text)
        done = cached(*COMMAND, cwd=work)
        plain = project(tmp_path / f"plain{number}", header_text)
        (plain / "graph.hlsl").write_text(graph_text)
        reference = uncached(run_wgc, plain, *COMMAND)
        assert (done.returncode, done.stderr) == (0, reference.stderr)
        assert files(work / "out") == files(plain / "out")
        assert statistics(cached.cache)[2:] == counts


def test_a_new_include_is_a_dependency_of_the_new_entry(cached, tmp_path):
    work = project(tmp_path / "work")
    assert cached(*COMMAND, cwd=work).returncode == 0
    (work / "inc" / "extra.hlsli").write_text("#define EXTRA 1\n")
    (work / "graph.hlsl").write_text('#include "inc/extra.hlsli"\n' + GRAPH)
    assert cached(*COMMAND, cwd=work).returncode == 0
    (work / "inc" / "extra.hlsli").write_text("#define EXTRA 2\n")         # only the new header changes
    assert cached(*COMMAND, cwd=work).returncode == 0
    assert statistics(cached.cache)[2:] == (0, 3)
    assert (work / "out" / "graph.spv.d").read_text().splitlines()[:4] == [
        "out/graph.spv: \\", "  graph.hlsl \\", "  inc/extra.hlsli \\", "  inc/records.hlsli"]


def test_a_changed_argument_is_a_miss(cached, tmp_path):
    work = project(tmp_path / "work")
    for args, counts in ((COMMAND, (0, 1)), (("compile", "-DX=1", *COMMAND[1:]), (0, 2)),
                         (("compile", "-O", *COMMAND[1:]), (0, 3)), (COMMAND, (1, 3))):
        assert cached(*args, cwd=work).returncode == 0
        assert statistics(cached.cache)[2:] == counts


def test_a_changed_wgc_is_a_miss(run_wgc, cached, tmp_path):
    copy = tmp_path / "wgc-copy"
    shutil.copytree(ROOT / "wgc", copy / "wgc", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "grammar", copy / "grammar")
    work = project(tmp_path / "work")
    env = {"PYTHONPATH": str(copy)}
    for _ in range(2):
        assert cached(*COMMAND, cwd=work, env=env).returncode == 0
    assert statistics(cached.cache)[2:] == (1, 1)
    with open(copy / "wgc" / "depfile.py", "a") as handle:                  # an edited compiler
        handle.write("\n# edited\n")
    assert cached(*COMMAND, cwd=work, env=env).returncode == 0
    assert statistics(cached.cache)[2:] == (1, 2)


def test_the_fingerprint_follows_installed_distributions(monkeypatch, tmp_path):
    site = tmp_path / "site-packages"
    (site / "wgc-0.1.0.dist-info").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    monkeypatch.setattr(identity, "_fingerprint", None)
    before = buildcache.fingerprint()
    (site / "wgc-0.1.0.dist-info").rename(site / "wgc-0.2.0.dist-info")    # another version installed
    monkeypatch.setattr(identity, "_fingerprint", None)
    assert buildcache.fingerprint() != before


def test_the_fingerprint_follows_every_file_of_the_package_but_its_sample_copies(tmp_path):
    """Any file of the package counts (size, mtime, name), in any folder, one named `samples` deeper
    down included; the wheel's `wgc/samples` (what `wgc samples` copies out, never read as wgc) does
    not, so the served client reads 43 fewer files and folders per command."""
    package = tmp_path / "wgc"
    (package / "sema").mkdir(parents=True)
    (package / "samples" / "include").mkdir(parents=True)
    (package / "sema" / "samples").mkdir()
    (package / "driver.py").write_text("x = 1\n")
    (package / "sema" / "samples" / "table.json").write_text("{}\n")
    (package / "samples" / "hello.hlsl").write_text("// a sample\n")
    first = identity.compute_fingerprint(str(package))
    assert identity.compute_fingerprint(str(package)) == first
    (package / "samples" / "hello.hlsl").write_text("// an edited sample\n")
    (package / "samples" / "include" / "new.hlsli").write_text("// another\n")
    assert identity.compute_fingerprint(str(package)) == first
    for change in (lambda: (package / "driver.py").write_text("x = 22\n"),
                   lambda: (package / "sema" / "samples" / "table.json").write_text("{ }\n"),
                   lambda: (package / "sema" / "new.py").write_text(""),
                   lambda: (package / "sema" / "new.py").rename(package / "sema" / "renamed.py")):
        before = identity.compute_fingerprint(str(package))
        change()
        assert identity.compute_fingerprint(str(package)) != before


def _compile_in(folder: str) -> tuple[int, bytes]:
    done = subprocess.run(COMMAND_LINE, cwd=folder, capture_output=True, env=ENV, timeout=300)
    return done.returncode, done.stderr


COMMAND_LINE: list[str] = []
ENV: dict[str, str] = {}


def test_concurrent_builds_of_one_key(run_wgc, cached, tmp_path):
    from conftest import wgc_command

    reference = uncached(run_wgc, project(tmp_path / "plain"), *COMMAND)
    work = project(tmp_path / "work")
    COMMAND_LINE[:] = [*wgc_command(), COMMAND[0], "--cache", *COMMAND[1:]]
    ENV.clear()
    ENV.update({k: v for k, v in os.environ.items() if k != "NO_COLOR"}, WGC_CACHE_DIR=str(cached.cache))
    with multiprocessing.get_context("fork").Pool(4) as pool:
        outcomes = pool.map(_compile_in, [str(work)] * 8)
    assert outcomes == [(0, reference.stderr)] * 8
    assert files(work / "out") == files(tmp_path / "plain" / "out")
    entries, _size, hits, misses = statistics(cached.cache)
    assert entries == 1 and hits + misses == 8
    for entry in (cached.cache / "results").glob("*/*"):
        if entry.name not in buildcache.COUNTERS:
            buildcache._decode(entry.read_bytes())                        # whole and intact
    assert cached(*COMMAND, cwd=work).returncode == 0
    assert statistics(cached.cache)[2] == hits + 1


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty"])
def test_a_corrupt_entry_is_a_miss_and_is_replaced(run_wgc, cached, tmp_path, damage):
    reference = uncached(run_wgc, project(tmp_path / "plain"), *COMMAND)
    work = project(tmp_path / "work")
    assert cached(*COMMAND, cwd=work).returncode == 0
    [entry] = [p for p in (cached.cache / "results").glob("*/*")]
    data = entry.read_bytes()
    entry.write_bytes({"truncate": data[: len(data) // 2], "empty": b"",
                       "flip": data[:-1] + bytes([data[-1] ^ 1])}[damage])
    done = cached(*COMMAND, cwd=work)
    assert (done.returncode, done.stderr) == (0, reference.stderr)
    assert files(work / "out") == files(tmp_path / "plain" / "out")
    assert statistics(cached.cache)[2:] == (0, 2)
    assert cached(*COMMAND, cwd=work).returncode == 0
    assert statistics(cached.cache)[2:] == (1, 2)


def test_failed_compiles_are_not_stored(run_wgc, cached, tmp_path):
    work = project(tmp_path / "work")
    (work / "graph.hlsl").write_text(BROKEN)
    plain = project(tmp_path / "plain")
    (plain / "graph.hlsl").write_text(BROKEN)
    reference = uncached(run_wgc, plain, *COMMAND)
    assert reference.returncode == 1
    for _ in range(2):
        (work / "out" / "graph.spv").write_bytes(b"stale")
        done = cached(*COMMAND, cwd=work)
        assert (done.returncode, done.stderr) == (1, reference.stderr)
        assert not (work / "out" / "graph.spv").exists()                   # the stale output is removed
    assert statistics(cached.cache)[0] == 0 and statistics(cached.cache)[2:] == (0, 2)


def test_standard_input_is_not_cached(cached, tmp_path):
    work = project(tmp_path / "work")
    source = GRAPH.replace('#include "inc/records.hlsli"', HEADER).encode()
    for _ in range(2):
        done = cached("compile", "-o", "out/x.spv", "-", cwd=work, stdin=source)
        assert done.returncode == 0, done.stderr
    assert statistics(cached.cache)[0] == 0 and statistics(cached.cache)[2:] == (0, 2)


def test_the_environment_switch_and_no_cache(cached, tmp_path):
    work = project(tmp_path / "work")
    assert cached(*COMMAND, cwd=work, flag="").returncode == 0                 # off by default
    assert statistics(cached.cache)[2:] == (0, 0)
    for _ in range(2):
        assert cached(*COMMAND, cwd=work, flag="", env={"WGC_CACHE": "1"}).returncode == 0
    assert statistics(cached.cache)[2:] == (1, 1)
    assert cached(*COMMAND, cwd=work, flag="--no-cache", env={"WGC_CACHE": "1"}).returncode == 0
    assert statistics(cached.cache)[2:] == (1, 1)


def test_the_size_limit_evicts_the_least_recently_used(cached, tmp_path):
    work = project(tmp_path / "work")
    second = ("compile", "-o", "out/other.spv", "graph.hlsl")
    assert cached(*COMMAND, cwd=work).returncode == 0
    [entry] = [p for p in (cached.cache / "results").glob("*/*") if p.name not in buildcache.COUNTERS]
    limit = {"WGC_CACHE_MAX_SIZE": str(entry.stat().st_size + 100)}           # room for the first entry only
    assert cached(*second, cwd=work, env=limit).returncode == 0
    assert statistics(cached.cache)[0] == 1
    assert not entry.exists()                                                  # the older one went
    assert cached(*second, cwd=work, env=limit).returncode == 0
    assert cached(*COMMAND, cwd=work, env=limit).returncode == 0
    assert statistics(cached.cache)[2:] == (1, 3)


def test_a_malformed_size_limit_is_an_error(cached, tmp_path):
    work = project(tmp_path / "work")
    done = cached(*COMMAND, cwd=work, env={"WGC_CACHE_MAX_SIZE": "lots"})
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "error: WGC_CACHE_MAX_SIZE='lots' is not a size (a whole number of bytes, or with K, M or G, e.g. 512M) "
        "[WG0035]\n"
        "In file included from graph.hlsl:1:\n"
        'inc/records.hlsli:2:2: warning: "records v1" [WG0103] [-W#warnings]\n'
        '#warning "records v1"\n'
        " ^~~~~~~\n"
        "1 warning and 1 error generated.\n")
    assert not (work / "out" / "graph.spv").exists()


def test_an_unusable_cache_folder_is_a_warning_and_the_compile_goes_on(cached, run_wgc, tmp_path):
    work = project(tmp_path / "work")
    (tmp_path / "not-a-folder").write_text("")
    done = cached("compile", "-Wno-#warnings", "-o", "out/graph.spv", "graph.hlsl", cwd=work,
                  env={"WGC_CACHE_DIR": str(tmp_path / "not-a-folder")})
    assert done.returncode == 0
    folder = tmp_path / "not-a-folder" / "results"
    assert done.stderr.decode() == (
        f"warning: compile results cannot be cached in '{folder}': Not a directory; compiling without the cache "
        "[WG0036] [-Wcompile-cache]\n1 warning generated.\n")
    assert (work / "out" / "graph.spv").exists()
    strict = cached("compile", "-Wno-#warnings", "-Werror", "-o", "out/strict.spv", "graph.hlsl", cwd=work,
                    env={"WGC_CACHE_DIR": str(tmp_path / "not-a-folder")})
    assert strict.returncode == 1 and b"error: compile results cannot be cached" in strict.stderr
    assert not (work / "out" / "strict.spv").exists()
    quiet = cached("compile", "-Wno-compile-cache", "-Wno-#warnings", "-o", "out/graph.spv", "graph.hlsl", cwd=work,
                   env={"WGC_CACHE_DIR": str(tmp_path / "not-a-folder")})
    assert (quiet.returncode, quiet.stderr) == (0, b"")


def test_cache_stats_and_clear(run_wgc, cached, tmp_path):
    work = project(tmp_path / "work")
    for _ in range(2):
        assert cached(*COMMAND, cwd=work).returncode == 0
    env = {"WGC_CACHE_DIR": str(cached.cache), "WGC_CACHE": "", "WGC_CACHE_MAX_SIZE": "1G"}
    entries, size, _hits, _misses = statistics(cached.cache)
    stats = run_wgc("cache", "--stats", env=env)
    assert stats.stdout.decode() == (
        f"folder:  {cached.cache / 'results'}\n"
        "caching: off unless --cache (set WGC_CACHE=1 to turn it on)\n"
        "hits:    1\nmisses:  1\nentries: 1\n"
        f"size:    {size / (1 << 20):.1f} MiB of 1024.0 MiB ($WGC_CACHE_MAX_SIZE)\n")
    switched_on = run_wgc("cache", env={**env, "WGC_CACHE": "1"})
    assert switched_on.stdout.decode().splitlines()[1] == "caching: on (WGC_CACHE=1)"
    cleared = run_wgc("cache", "--clear", env=env)
    assert cleared.stdout.decode() == f"removed 1 compile results from {cached.cache / 'results'}\n"
    assert statistics(cached.cache) == (0, 0, 0, 0)
    assert (cached.cache / "results").is_dir() and list(cached.cache.glob("hlsl-parser-*"))  # the start-up caches stay


def test_every_compile_cache_code_has_a_rendered_case():
    from wgc import codes

    cache_codes = {k.code for k in codes.ALL_KINDS if "WG0035" <= k.code <= "WG0037" or k.code == "WG0060"}
    assert cache_codes == {"WG0035", "WG0036", "WG0037", "WG0060"}   # rendered in full above and in test_cache_security.py


def test_a_header_created_earlier_on_the_search_path_is_a_miss(run_wgc, cached, tmp_path):
    work = project(tmp_path / "work")
    (work / "inc" / "records.hlsli").rename(work / "records.hlsli")
    (work / "graph.hlsl").write_text(GRAPH.replace('"inc/records.hlsli"', "<records.hlsli>"))   # -I folders only
    command = ("compile", "-I", "inc", "-I", ".", "-MD", "-o", "out/graph.spv", "graph.hlsl")
    for _ in range(2):
        assert cached(*command, cwd=work).returncode == 0
    assert statistics(cached.cache)[2:] == (1, 1)
    (work / "inc" / "records.hlsli").write_text(HEADER.replace("v1", "shadow"))   # found first from now on
    done = cached(*command, cwd=work)
    assert statistics(cached.cache)[2:] == (1, 2)
    assert b'warning: "records shadow"' in done.stderr
    assert (work / "out" / "graph.spv.d").read_text() == "out/graph.spv: \\\n  graph.hlsl \\\n  inc/records.hlsli\n"


# ----------------------------------------------------------------------------- base folder (WGC_CACHE_BASEDIR)


def checkout_command(root: Path) -> tuple[str, ...]:
    """A build system's command for the project in `root`: every path absolute (as CMake writes them)."""
    return ("compile", "-MD", "-MP", "-I", str(root / "inc"), "-o", str(root / "out" / "graph.spv"),
            "-Fre", str(root / "out" / "graph.json"), f"-I{root / 'inc'}", str(root / "graph.hlsl"))


def test_another_checkout_of_the_same_sources_hits_with_a_base_folder(run_wgc, cached, tmp_path):
    """ccache's base_dir: "ccache rewrites absolute paths into paths relative to the current working
    directory, but only absolute paths that begin with base_dir"; the same sources in a second
    checkout under the base folder then hit, and write what a compile there writes."""
    env = {"WGC_CACHE_BASEDIR": str(tmp_path)}
    first, second = project(tmp_path / "one"), project(tmp_path / "two")
    assert cached(*checkout_command(first), cwd=first, env=env).returncode == 0
    assert statistics(cached.cache)[2:] == (0, 1)
    hit = cached(*checkout_command(second), cwd=second, env=env)
    assert statistics(cached.cache)[2:] == (1, 1)                     # the second checkout hits
    # the reference: the same command compiled (a miss) in a third checkout with a cache of its own
    third = project(tmp_path / "three")
    reference = run_wgc("compile", "--cache", *checkout_command(third)[1:], cwd=third,
                        env={"WGC_CACHE_DIR": str(tmp_path / "other-cache"), **env})
    assert reference.returncode == 0, reference.stderr
    assert statistics(tmp_path / "other-cache")[2:] == (0, 1)
    assert (hit.returncode, hit.stdout, hit.stderr) == (0, b"", reference.stderr)
    assert files(second / "out") == files(third / "out")
    depfile = (second / "out" / "graph.spv.d").read_text()
    assert str(tmp_path) not in depfile and "inc/records.hlsli" in depfile       # paths under the base: relative
    # without the base folder the key holds the absolute paths: the first checkout's entry is not used
    plain = cached(*checkout_command(third), cwd=third)
    assert plain.returncode == 0 and statistics(cached.cache)[2:] == (1, 2)


def test_another_build_folder_hits_with_a_base_folder(cached, tmp_path):
    """The working folder is no part of the key under the base folder: paths relative to it are
    checked by their contents (ccache's default, hash_dir off)."""
    env = {"WGC_CACHE_BASEDIR": str(tmp_path)}
    work = project(tmp_path / "work")
    for build in ("build-debug", "build-release"):
        (work / build).mkdir()
        done = cached("compile", "-MD", "-o", "graph.spv", "../graph.hlsl", cwd=work / build, env=env)
        assert done.returncode == 0, done.stderr
    assert statistics(cached.cache)[2:] == (1, 1)
    assert files(work / "build-debug") == files(work / "build-release")


def test_relocated_rewrites_only_paths_under_the_base(monkeypatch, tmp_path):
    base = tmp_path / "src"
    (base / "build").mkdir(parents=True)
    monkeypatch.chdir(base / "build")
    monkeypatch.setenv("WGC_CACHE_BASEDIR", str(base))
    argv = ["compile", f"-I{base}/inc", "-I", f"{base}/x", f"--split-nodes={base}/build/n", "-MT", f"{base}/t",
            "-D", f"P={base}/p", "/usr/include/a.hlsl", f"{base}/g.hlsl", "--", f"{base}/z.hlsl"]
    assert buildcache.relocated(argv) == [
        "compile", "-I../inc", "-I", "../x", "--split-nodes=n", "-MT", f"{base}/t", "-D", f"P={base}/p",
        "/usr/include/a.hlsl", "../g.hlsl", "--", f"{base}/z.hlsl"]
    assert buildcache.relocated(buildcache.relocated(argv)) == buildcache.relocated(argv)
    assert buildcache.relocated(["inspect", f"{base}/g.hlsl"]) == ["inspect", f"{base}/g.hlsl"]
    monkeypatch.delenv("WGC_CACHE_BASEDIR")
    assert buildcache.relocated(argv) == argv


def test_a_relative_base_folder_is_a_warning_and_the_cache_still_works(cached, tmp_path):
    work = project(tmp_path / "work")
    done = [cached("compile", "-o", "g.spv", "graph.hlsl", cwd=work, env={"WGC_CACHE_BASEDIR": "src"})
            for _ in range(2)]
    for run in done:
        assert run.returncode == 0
        assert (b"warning: WGC_CACHE_BASEDIR='src' is not an absolute path: it is ignored, and the cache hits "
                b"only in this folder [WG0060]") in run.stderr
    assert statistics(cached.cache)[2:] == (1, 1)
