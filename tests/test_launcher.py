"""`wgc server --launcher FILE` (`wgc/launcher.py`): a launcher that starts Python without `site`.

Each launcher is written by the real `wgc` and run as a build would run it; its outputs are
compared with the `wgc` command's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SAMPLES, wgc_command

WAIT_SECONDS = 120.0


def run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    full = dict(os.environ)
    for name in ("NO_COLOR", "WGC_SERVER", "WGC_CACHE", "PYTHONVERBOSE"):
        full.pop(name, None)
    full.update(env)
    return subprocess.run(command, cwd=cwd, capture_output=True, env=full, timeout=WAIT_SECONDS)


def write_launcher(path: Path, cwd: Path, kind: str = "script") -> subprocess.CompletedProcess[bytes]:
    return run(wgc_command() + ["server", "--launcher", str(path), "--launcher-kind", kind], cwd)


def native_launchers() -> bool:
    from wgc import launcher

    return launcher.compiler() is not None


KINDS = ["script", pytest.param("native", marks=pytest.mark.skipif(not native_launchers(),
                                                                   reason="no C compiler, or not Linux"))]


@pytest.fixture
def folder(tmp_path):
    """A build folder with a sample and its include, and a cache folder of its own (its servers are
    stopped afterwards)."""
    work = tmp_path / "work"
    shutil.copytree(SAMPLES, work)
    (work / "out").mkdir()
    yield work
    for command in (wgc_command(), [str(work / "wgc-fast")]):
        if Path(command[0]).exists():
            run(command + ["server", "--stop"], work, WGC_CACHE_DIR=str(tmp_path / "cache"))


@pytest.mark.parametrize("kind", KINDS)
def test_the_launcher_runs_the_same_wgc_without_site(folder, tmp_path, kind):
    """A script launcher's `#!` line runs this Python with -S; a native launcher is an executable
    that runs the served commands itself, then through its pointer (the first one, and what
    the server does not run, by this Python with -S). Their commands (in process, through the
    compile server, a failing one, a usage error) give what `wgc` gives, byte for byte; and
    their processes import no `site` (nor the environment's .pth files' modules), which the
    `wgc` command's does."""
    launcher = folder / "wgc-fast"
    written = write_launcher(launcher, folder, kind)
    assert written.returncode == 0, written.stderr
    said = written.stdout.decode()
    if kind == "script":
        assert said.startswith(f"wrote {launcher}: it runs ") and " -S with the wgc of " in said
        shebang, mark = launcher.read_text().splitlines()[:2]
        assert shebang.startswith("#!/") and shebang.endswith(" -S") and os.access(shebang[2:-3], os.X_OK)
        assert mark.startswith("# A launcher of wgc written by")
    else:
        assert said.startswith(f"wrote {launcher}: a native launcher; it runs ") and " -S with the wgc of " in said
        assert launcher.read_bytes()[:4] == b"\x7fELF" and b"# A launcher of wgc written by" in launcher.read_bytes()
    assert os.access(launcher, os.X_OK)
    cache = str(tmp_path / "cache")
    for args in (["compile", "-I", "include", "-MD", "-o", "out/hello.spv", "hello.hlsl"],
                 ["inspect", "hello.hlsl"],
                 ["compile", "-T", "lib_9_9", "hello.hlsl"],
                 ["compile", "-o", "out/missing.spv", "missing.hlsl"]):
        results = []
        for command, server in ((wgc_command(), "0"), ([str(launcher)], "0"), ([str(launcher)], "1"),
                                ([str(launcher)], "1")):
            for leftover in (folder / "out").iterdir():
                leftover.unlink()
            done = run(command + args, folder, WGC_CACHE_DIR=cache, WGC_SERVER=server)
            results.append((done.returncode, done.stdout, done.stderr,
                            {p.name: p.read_bytes() for p in sorted((folder / "out").iterdir())}))
        assert results[1] == results[0] and results[2] == results[0] and results[3] == results[0], args
    status = run([str(launcher), "server", "--status"], folder, WGC_CACHE_DIR=cache)
    served = b"requests: 8 served, " if kind == "script" else b"requests: 8 served (7 from native launchers), "
    assert b"(this wgc)" in status.stdout and served in status.stdout, status.stdout
    imports = {}
    for name, command in (("wgc", wgc_command()), ("launcher", [str(launcher)])):
        done = run(command + ["--version"], folder, PYTHONVERBOSE="1")
        assert done.returncode == 0
        imports[name] = done.stderr.decode()
    assert "import 'site'" in imports["wgc"]
    assert "import 'site'" not in imports["launcher"] and "import 'wgc.entry'" in imports["launcher"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_launcher_replaces_only_its_own_kind(folder, kind):
    """An existing launcher (of either kind) is rewritten; a file that is not one, or a folder, is
    left alone (WG0091, exit 1); --launcher with another action, or --launcher-kind without it,
    is a usage error."""
    launcher = folder / "wgc-fast"
    other_kind = "native" if kind == "script" else "script"
    assert write_launcher(launcher, folder, kind).returncode == 0
    assert write_launcher(launcher, folder, kind).returncode == 0
    if native_launchers():
        assert write_launcher(launcher, folder, other_kind).returncode == 0
        assert write_launcher(launcher, folder, kind).returncode == 0
    other = folder / "tool"
    other.write_text("#!/bin/sh\necho mine\n")
    done = write_launcher(other, folder)
    assert (done.returncode, done.stderr.decode()) == (
        1, f"error: the launcher '{other}' cannot be written: a file that is not a wgc launcher is there (remove it "
           "first) [WG0091]\n1 error generated.\n")
    assert other.read_text() == "#!/bin/sh\necho mine\n"
    done = write_launcher(folder / "include", folder)
    assert done.returncode == 1 and b"it is a folder [WG0091]" in done.stderr
    done = run(wgc_command() + ["server", "--status", "--launcher", str(launcher)], folder)
    assert done.returncode == 2 and b"--launcher cannot be given with --status" in done.stderr
    done = run(wgc_command() + ["server", "--launcher-kind", kind], folder)
    assert done.returncode == 2 and b"--launcher-kind is given with --launcher FILE" in done.stderr
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []     # no temporary left


def test_a_launcher_whose_wgc_is_gone_says_so(folder):
    """A launcher whose search path no longer leads to wgc (moved, uninstalled) fails with WG0090,
    naming the command that writes it again, and no traceback."""
    launcher = folder / "wgc-fast"
    assert write_launcher(launcher, folder).returncode == 0
    text = launcher.read_text()
    start = text.index("sys.path[:] = ")
    end = text.index("\n", start)
    launcher.write_text(text[:start] + "sys.path[:] = ['/nonexistent']" + text[end:])
    done = run([str(launcher), "compile", "hello.hlsl"], folder)
    assert done.returncode == 1
    assert done.stderr.decode() == (f"error: this wgc launcher's wgc cannot be imported (No module named 'wgc'); "
                                    f"write it again with wgc server --launcher {launcher} [WG0090]\n"
                                    "1 error generated.\n")


def test_files_beside_the_launcher_shadow_no_module(folder):
    """The launcher's own folder (a build folder) is not on its search path: a `wgc.py` there does not
    replace wgc (which a script's folder, first on its path, would), and the compile works."""
    launcher = folder / "wgc-fast"
    assert write_launcher(launcher, folder).returncode == 0
    (folder / "wgc.py").write_text("raise SystemExit('the wgc.py beside the launcher was imported')\n")
    done = run([str(launcher), "compile", "-o", "out/hello.spv", "hello.hlsl"], folder)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert (folder / "out" / "hello.spv").read_bytes()[:4] == bytes.fromhex("03022307")    # SPIR-V's magic


def test_an_interpreter_path_that_a_shebang_cannot_hold(folder, tmp_path, monkeypatch):
    """An interpreter whose path has a space (or is too long for a `#!` line) is run by a /bin/sh
    head that is a string literal to Python; the launcher works the same."""
    from wgc import launcher

    plain_command = wgc_command()          # (it looks beside sys.executable)
    spaced = tmp_path / "a folder"
    spaced.mkdir()
    (spaced / "python").symlink_to(sys.executable)
    monkeypatch.setattr(sys, "executable", str(spaced / "python"))
    text = launcher.text(str(folder / "wgc-fast"))
    assert text.startswith(f"#!/bin/sh\n'''exec' '{spaced / 'python'}' -S \"$0\" \"$@\"\n' '''\n{launcher.MARK}\n")
    (folder / "wgc-fast").write_text(text)
    (folder / "wgc-fast").chmod(0o755)
    done = run([str(folder / "wgc-fast"), "compile", "-o", "out/hello.spv", "hello.hlsl"], folder)
    plain = run(plain_command + ["compile", "-o", "out/plain.spv", "hello.hlsl"], folder)
    assert (done.returncode, done.stderr) == (plain.returncode, plain.stderr) == (0, b""), plain.stderr.decode()
    assert (folder / "out" / "hello.spv").read_bytes() == (folder / "out" / "plain.spv").read_bytes()


THIN_NEVER = ("__future__", "os", "posixpath", "genericpath", "stat", "_collections_abc", "typing", "enum", "re",
              "threading", "subprocess", "collections", "functools", "contextlib", "fcntl", "select", "socket",
              "signal", "hashlib", "struct", "click", "wgc.cli", "wgc.version", "wgc.codes", "wgc.diagnostics")
"""Modules a served compile's client never loads: `__future__`, `os` and what it brings (wgc calls `posix`,
`wgc.portable`), the wrappers of the C modules it calls, and anything of the command line."""
HIT_NEVER = ("typing", "enum", "re", "threading", "subprocess", "fcntl", "select", "socket", "signal", "hashlib",
             "click", "wgc.cli", "wgc.version")
"""Modules a compile-cache hit never loads."""


def observed_launcher(launcher: Path, record: Path) -> Path:
    """A copy of `launcher` beside it that writes the names of the modules loaded to `record` when the
    process ends by `posix._exit` (wrapped, before any import of wgc's, with `posix` calls only: the
    observation loads nothing; an `os` imported later has the wrapper as its `_exit`)."""
    hook = ("import posix\n"
            "_exit_now = posix._exit\n"
            "def _observed_exit(code):\n"
            f"    fd = posix.open({str(record)!r}, posix.O_WRONLY | posix.O_CREAT | posix.O_TRUNC, 0o600)\n"
            "    posix.write(fd, ' '.join(sorted(sys.modules)).encode())\n"
            "    posix.close(fd)\n"
            "    _exit_now(code)\n"
            "posix._exit = _observed_exit\n")
    text = launcher.read_text()
    assert "\nimport sys\n" in text
    observed = launcher.with_name("wgc-observed")
    observed.write_text(text.replace("\nimport sys\n", "\nimport sys\n" + hook, 1))     # before wgc's first import
    observed.chmod(0o755)
    return observed


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the compile server needs fork and Unix-domain sockets")
def test_the_launchers_served_compile_and_cache_hit_load_only_the_thin_client(folder, tmp_path):
    """Through a launcher (`python -S`, so nothing but the interpreter's own start-up has run), a
    compile the server runs loads wgc's thin client and C modules only: no `os` (nor `stat`,
    `posixpath`, `_collections_abc`), no `typing`, `enum`, `re`, `threading`, `subprocess`; a
    compile-cache hit no `typing`, `enum`, `re`, `threading`, `subprocess`. Both give the
    plain compile's output."""
    launcher = folder / "wgc-fast"
    assert write_launcher(launcher, folder).returncode == 0
    record = tmp_path / "modules.txt"
    observed = observed_launcher(launcher, record)
    cache = str(tmp_path / "cache")
    plain = run([str(launcher), "compile", "-o", "out/plain.spv", "hello.hlsl"], folder, WGC_CACHE_DIR=cache)
    assert plain.returncode == 0, plain.stderr
    loaded = {}
    for name, extra, env in (("served", [], {"WGC_SERVER": "1"}), ("hit", ["--cache"], {})):
        for _ in range(2):      # the first starts the server, or fills the cache
            record.unlink(missing_ok=True)
            (folder / "out" / f"{name}.spv").unlink(missing_ok=True)
            done = run([str(observed), "compile", *extra, "-o", f"out/{name}.spv", "hello.hlsl"], folder,
                       WGC_CACHE_DIR=cache, **env)
            assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), done.stderr
            assert (folder / "out" / f"{name}.spv").read_bytes() == (folder / "out" / "plain.spv").read_bytes()
        loaded[name] = set(record.read_text().split())
    assert {"wgc.server.client", "posix"} <= loaded["served"], "not served by the thin client"
    assert "wgc.buildcache" in loaded["hit"], "not a cache hit"
    for name in ("served", "hit"):
        assert "wgc.driver" not in loaded[name] and "site" not in loaded[name]
    assert sorted(loaded["served"] & set(THIN_NEVER)) == [], " ".join(sorted(loaded["served"]))
    assert sorted(loaded["hit"] & set(HIT_NEVER)) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="native launchers are built on Linux")
def test_a_native_launcher_that_cannot_be_built(folder):
    """--launcher-kind native without a working C compiler ($CC failing, or none found) is WG0091 and
    writes nothing; the default (auto) writes a script launcher then, and says why."""
    launcher = folder / "wgc-fast"
    for cc, why in (("false", "false failed (exit status 1)"), ("/nonexistent/cc", "no C compiler (cc, gcc, clang, $CC)")):
        done = run(wgc_command() + ["server", "--launcher", str(launcher), "--launcher-kind", "native"], folder, CC=cc)
        assert (done.returncode, done.stderr.decode()) == (
            1, f"error: the native launcher '{launcher}' cannot be built: {why} [WG0091]\n1 error generated.\n")
        assert not launcher.exists()
        done = run(wgc_command() + ["server", "--launcher", str(launcher)], folder, CC=cc)
        assert done.returncode == 0 and done.stdout.decode().rstrip().endswith(f" (a script launcher: {why})")
        assert launcher.read_text().startswith("#!")
        launcher.unlink()
