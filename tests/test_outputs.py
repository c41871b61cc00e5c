"""Output files and the file system (`wgc/outputs.py`, driven by `wgc/cli.py`).

What is checked: write failures are diagnostics with exit code 1 and leave nothing behind (WG0007);
outputs that are files the compile read are refused before anything is written or removed
(WG0008), as is one file named by two options (WG0009); a stale output that cannot be removed
is WG0010; devices and FIFOs are written directly and symbolic links are followed; modes are a
compiler's; the split-node manifest; interrupts clean up; `#include` of something that is not a
regular file (WG0112); and a bounded hypothesis campaign over all of it.

Most tests run the CLI in process (`wgc.cli.main`, fast); those that need a real process (standard
output on /dev/full, signals, `<(...)` inputs) run the real `wgc`. We run as root here and in CI,
so a chmod'ed read-only folder is still writable: a real EACCES comes from creating a file under
/sys (sysfs refuses file creation even to root), and failures root cannot get otherwise (a file
that cannot be unlinked, a failing rename) come from monkeypatching `os` functions in process.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLES, wgc_command
from wgc import cli, outputs
from wgc.spirv import tools

HELLO = (SAMPLES / "hello.hlsl").read_bytes()
BROKEN = b"void f(uint x)\n{\n    x = 1\n}\n"
ONE_ERROR = "1 error generated.\n"


def wgc(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the CLI in process; (exit code, stderr)."""
    capsys.readouterr()
    code = cli.main(list(args))
    return code, capsys.readouterr().err


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def is_valid_spirv(data: bytes) -> bool:
    return data[:4] == bytes.fromhex("03022307") and tools.validate(data, "vulkan1.3") == []


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path as the working folder, holding hello.hlsl."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hello.hlsl").write_bytes(HELLO)
    return tmp_path


# ----------------------------------------------------------------------------- 1. write failures (WG0007)


@pytest.mark.parametrize(("args", "message"), [
    (["-o", "nodir/x.spv"], "cannot write 'nodir/x.spv': No such file or directory"),
    (["-o", "sub"], "cannot write 'sub': Is a directory"),
    (["-o", "new/"], "cannot write 'new/': Is a directory"),                  # not a file called 'new'
    (["-o", "afile/"], "cannot write 'afile/': Is a directory"),
    (["-o", "afile/x.spv"], "cannot write 'afile/x.spv': Not a directory"),
    (["-MD", "-MF", "nodir/x.d", "-o", "x.spv"], "cannot write 'nodir/x.d': No such file or directory"),
    (["-Fh", "nodir/x.h", "-o", "x.spv"], "cannot write 'nodir/x.h': No such file or directory"),
    (["-S", "-o", "nodir/x.spvasm"], "cannot write 'nodir/x.spvasm': No such file or directory"),
    (["--split-nodes", "afile"], "cannot write 'afile': Not a directory"),
    (["--split-nodes", "afile/nodes"], "cannot write 'afile/nodes': Not a directory"),
    (["-o", "x.spv", "-Fe", "nodir/diag.txt"], "cannot write 'nodir/diag.txt': No such file or directory"),
    (["-o", "full"], "cannot write 'full': No space left on device"),            # a private /dev/full
    (["-o", "/sys/wgc-test.spv"], "cannot write '/sys/wgc-test.spv': Permission denied"),    # real EACCES
])
def test_write_failure_is_a_diagnostic_and_nothing_is_written(work, capsys, args, message):
    (work / "sub").mkdir()
    (work / "afile").write_text("a file, not a folder")
    os.mknod(work / "full", 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    before = listing(work)
    code, err = wgc(capsys, "compile", "hello.hlsl", *args)
    assert (code, err) == (1, f"error: {message} [WG0007]\n{ONE_ERROR}")
    assert listing(work) == before            # no .spv beside a failed depfile, no temp file, no folder
    assert (work / "afile").read_text() == "a file, not a folder"
    assert stat.S_ISCHR(os.stat(work / "full").st_mode)


def test_a_failed_write_removes_the_outputs_of_an_earlier_run(work, capsys):
    assert wgc(capsys, "compile", "hello.hlsl", "-o", "x.spv", "-Fh", "x.h", "-MD") == (0, "")
    assert sorted(p.name for p in work.iterdir()) == ["hello.hlsl", "x.h", "x.spv", "x.spv.d"]
    code, err = wgc(capsys, "compile", "hello.hlsl", "-o", "x.spv", "-Fh", "x.h", "-MD", "-MF", "nodir/x.d")
    assert (code, err) == (1, f"error: cannot write 'nodir/x.d': No such file or directory [WG0007]\n{ONE_ERROR}")
    assert sorted(p.name for p in work.iterdir()) == ["hello.hlsl", "x.spv.d"]   # x.spv.d is no output now


def test_inspect_output_follows_the_same_rules(work, capsys):
    code, err = wgc(capsys, "inspect", "hello.hlsl", "-o", "nodir/graph.txt")
    assert (code, err) == (1, f"error: cannot write 'nodir/graph.txt': No such file or directory [WG0007]\n"
                              f"{ONE_ERROR}")
    code, err = wgc(capsys, "inspect", "hello.hlsl", "-o", "./hello.hlsl")
    assert (code, err) == (1, "error: input file 'hello.hlsl' is the same as output file './hello.hlsl' (-o) "
                              f"[WG0008]\n{ONE_ERROR}")
    assert (work / "hello.hlsl").read_bytes() == HELLO
    os.symlink("real.txt", work / "graph.txt")
    assert wgc(capsys, "inspect", "hello.hlsl", "-o", "graph.txt") == (0, "")
    assert (work / "graph.txt").is_symlink()
    assert (work / "real.txt").read_text().startswith("work graph: 3 nodes")


def test_diagnostics_file_is_an_output_too(work, capsys):
    (work / "bad.hlsl").write_bytes(BROKEN)
    report = work / "diag.txt"
    report.write_text("old report")
    assert wgc(capsys, "compile", "hello.hlsl", "-o", "x.spv", "-Fe", "diag.txt") == (0, "")
    assert report.read_text() == ""               # no diagnostics: no stale report either
    code, err = wgc(capsys, "compile", "bad.hlsl", "-o", "x.spv", "-Fe", "diag.txt")
    assert (code, err) == (1, "")
    assert report.read_text() == (
        "bad.hlsl:3:10: error: expected ';' after expression [WG0201]\n"
        "    x = 1\n"
        "         ^\n"
        f"{ONE_ERROR}")
    assert not (work / "x.spv").exists()


def test_stdout_on_dev_full_is_a_diagnostic(run_wgc, tmp_path):
    for args in (["compile", str(SAMPLES / "hello.hlsl"), "-o", "-"], ["inspect", str(SAMPLES / "hello.hlsl")]):
        with open("/dev/full", "wb") as full:
            done = subprocess.run(wgc_command() + args, stdout=full, stderr=subprocess.PIPE, timeout=120)
        assert done.returncode == 1
        assert done.stderr.decode() == (
            f"error: cannot write to standard output: No space left on device [WG0007]\n{ONE_ERROR}")
    with open("/dev/full", "wb") as full:
        done = subprocess.run(wgc_command() + ["--version"], stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert (done.returncode, done.stderr) == (1, b"wgc: error: cannot write to standard output: "
                                                 b"No space left on device\n")


def test_a_stale_output_that_cannot_be_removed(work, capsys, monkeypatch):
    # root may unlink anything on this file system: the EPERM comes from a patched os.unlink
    (work / "bad.hlsl").write_bytes(BROKEN)
    (work / "x.spv").write_bytes(b"stale")

    def refuse(path, *args, **kwargs):
        raise PermissionError(1, "Operation not permitted", path)

    monkeypatch.setattr(os, "unlink", refuse)
    code, err = wgc(capsys, "compile", "bad.hlsl", "-o", "x.spv")
    assert code == 1
    assert err == ("bad.hlsl:3:10: error: expected ';' after expression [WG0201]\n"
                   "    x = 1\n"
                   "         ^\n"
                   "error: cannot remove stale output 'x.spv': Operation not permitted [WG0010]\n"
                   "2 errors generated.\n")


def test_a_failing_rename_rolls_everything_back(work, capsys, monkeypatch):
    # the second rename fails (EXDEV cannot happen within one folder: patched): the first output,
    # already in place, is removed again, and no temporary file stays
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(18, "Invalid cross-device link", src)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    code, err = wgc(capsys, "compile", "hello.hlsl", "-Fh", "x.h", "-o", "x.spv")
    assert (code, err) == (1, f"error: cannot write 'x.spv': Invalid cross-device link [WG0007]\n{ONE_ERROR}")
    assert listing(work) == ["hello.hlsl"]


# ----------------------------------------------------------------------------- 2. devices, FIFOs, symlinks


def test_a_character_device_stays_a_device(work, capsys):
    # a private /dev/null (same major/minor) so the machine's own is never at risk
    null = work / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    before = os.stat(null)
    for args in (["-o", "null"], ["-o", "x.spv", "-MD", "-MF", "null"], ["-S", "-o", "null"]):
        assert wgc(capsys, "compile", "hello.hlsl", *args) == (0, ""), args
        after = os.stat(null)
        assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    (work / "bad.hlsl").write_bytes(BROKEN)
    assert wgc(capsys, "compile", "bad.hlsl", "-o", "null")[0] == 1      # the clean-up leaves it alone
    assert stat.S_ISCHR(os.stat(null).st_mode)


def test_a_fifo_is_written_directly(work, capsys):
    fifo = work / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert wgc(capsys, "compile", "hello.hlsl", "-o", "out.fifo") == (0, "")
    reader.join(30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert is_valid_spirv(received[0])
    assert listing(work) == ["hello.hlsl", "out.fifo"]


def test_symlinks_are_followed_and_stay_links(work, capsys):
    (work / "build").mkdir()
    (work / "build" / "old.spv").write_bytes(b"old")
    os.chmod(work / "build" / "old.spv", 0o640)
    os.symlink("build/old.spv", work / "link.spv")            # existing target: replaced, mode kept
    os.symlink("build/new.spv", work / "dangling.spv")        # dangling: the target is created
    assert wgc(capsys, "compile", "hello.hlsl", "-o", "link.spv", "-Fh", "dangling.spv") == (0, "")
    assert os.readlink(work / "link.spv") == "build/old.spv"
    assert os.readlink(work / "dangling.spv") == "build/new.spv"
    assert is_valid_spirv((work / "build" / "old.spv").read_bytes())
    assert stat.S_IMODE(os.stat(work / "build" / "old.spv").st_mode) == 0o640
    assert "static const uint32_t g_hello[]" in (work / "build" / "new.spv").read_text()
    assert listing(work) == ["build", "build/new.spv", "build/old.spv", "dangling.spv", "hello.hlsl", "link.spv"]


# ----------------------------------------------------------------------------- 3. outputs that are inputs (WG0008/9)


@pytest.mark.parametrize("args", [
    ["-o", "./hello.hlsl"], ["-o", "hard.hlsl"], ["-o", "soft.hlsl"], ["-Fh", "hello.hlsl"],
    ["-o", "x.spv", "-MD", "-MF", "hard.hlsl"], ["-S", "-o", "soft.hlsl"], ["-o", "x.spv", "-Fe", "hello.hlsl"],
    ["--split-nodes", "hello.hlsl"],
])
def test_an_output_naming_the_input_is_refused(work, capsys, args):
    os.link(work / "hello.hlsl", work / "hard.hlsl")
    os.symlink("hello.hlsl", work / "soft.hlsl")
    (work / "x.spv").write_bytes(b"stale, but nothing is removed when the command is refused")
    before = listing(work)
    code, err = wgc(capsys, "compile", "hello.hlsl", *args)
    named = {"-o": "", "-Fh": "", "-MF": "", "-Fe": "", "--split-nodes": ""}
    option, path = next((a, b) for a, b in zip(args, args[1:]) if a in named and b != "x.spv")
    assert (code, err) == (1, f"error: input file 'hello.hlsl' is the same as output file '{path}' ({option}) "
                              f"[WG0008]\n{ONE_ERROR}")
    assert (work / "hello.hlsl").read_bytes() == HELLO
    assert listing(work) == before
    assert (work / "x.spv").read_bytes().startswith(b"stale")


def test_an_output_naming_an_included_file_is_refused_and_never_removed(work, capsys):
    (work / "inc").mkdir()
    (work / "inc" / "shared.hlsli").write_text("// shared\n")
    (work / "good.hlsl").write_bytes(b'#include "inc/shared.hlsli"\n' + HELLO)
    (work / "bad.hlsl").write_bytes(b'#include "inc/shared.hlsli"\n' + BROKEN)
    for source, extra in (("good.hlsl", ""), ("bad.hlsl", "bad.hlsl:4:10: error: expected ';' after expression "
                                                          "[WG0201]\n    x = 1\n         ^\n")):
        code, err = wgc(capsys, "compile", source, "-o", "inc/../inc/shared.hlsli")
        summary = "2 errors generated.\n" if extra else ONE_ERROR
        assert (code, err) == (1, f"{extra}error: included file 'inc/shared.hlsli' is the same as output file "
                                  f"'inc/../inc/shared.hlsli' (-o) [WG0008]\n{summary}")
        assert (work / "inc" / "shared.hlsli").read_text() == "// shared\n"      # neither clobbered nor deleted


def test_one_file_named_by_two_options_is_refused(work, capsys):
    code, err = wgc(capsys, "compile", "hello.hlsl", "-o", "x.spv", "-MD", "-MF", "./x.spv")
    assert (code, err) == (1, f"error: output file 'x.spv' ('./x.spv') is named by both -o and -MF [WG0009]\n"
                              f"{ONE_ERROR}")
    assert listing(work) == ["hello.hlsl"]
    os.mknod(work / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))     # a private /dev/null
    assert wgc(capsys, "compile", "hello.hlsl", "-o", "null", "-MD", "-MF", "./null") == (0, "")
    assert stat.S_ISCHR(os.stat(work / "null").st_mode)


# ----------------------------------------------------------------------------- 4. modes


def test_modes_follow_the_umask_and_existing_files_keep_theirs(work, capsys):
    (work / "kept.h").write_text("old header")
    os.chmod(work / "kept.h", 0o604)
    old = os.umask(0o027)
    try:
        assert wgc(capsys, "compile", "hello.hlsl", "-o", "new.spv", "-Fh", "kept.h", "-MD") == (0, "")
        assert wgc(capsys, "compile", "hello.hlsl", "--split-nodes", "nodes") == (0, "")
    finally:
        os.umask(old)
    mode = {name: stat.S_IMODE(os.stat(work / name).st_mode)
            for name in ("new.spv", "new.spv.d", "kept.h", "nodes/Generate.spv", "nodes")}
    assert mode == {"new.spv": 0o640, "new.spv.d": 0o640, "kept.h": 0o604, "nodes/Generate.spv": 0o640,
                    "nodes": 0o750}


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners")
def test_an_output_that_holds_its_bytes_already_only_gets_a_new_time(work, capsys):
    """A compile whose outputs equal the files there (this user's) writes no new file: each keeps its
    inode, mode and bytes, and its modification time becomes the commit's, as a rename would make
    it (make and ninja compare times); an output with other bytes is replaced as before."""
    args = ("compile", "hello.hlsl", "-o", "out.spv", "-Fh", "out.h", "-MD")
    assert wgc(capsys, *args) == (0, "")
    first = {name: (work / name).read_bytes() for name in ("out.spv", "out.h", "out.spv.d")}
    os.chmod(work / "out.h", 0o604)
    (work / "out.spv.d").write_bytes(first["out.spv.d"].replace(b"out.spv", b"OUT.SPV"))    # same size, other bytes
    before = {name: os.stat(work / name) for name in first}
    for name in first:
        os.utime(work / name, (1_000_000_000, 1_000_000_000))
    start = time.time()
    assert wgc(capsys, *args) == (0, "")
    after = {name: os.stat(work / name) for name in first}
    assert {name: (work / name).read_bytes() for name in first} == first
    assert all(after[name].st_mtime >= start - 1 for name in first)
    assert [after[name].st_ino == before[name].st_ino for name in first] == [True, True, False]
    assert stat.S_IMODE(after["out.h"].st_mode) == 0o604
    assert not [p for p in work.iterdir() if p.name.startswith(outputs.TEMP_PREFIX)]


# ----------------------------------------------------------------------------- 5. split nodes, interrupts


def graph(*names: str) -> bytes:
    """A graph of independent broadcasting nodes."""
    return b"".join(b'[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] '
                    b'[NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)] void %s() {}\n' % n.encode()
                    for n in names)


def test_split_nodes_removes_only_the_modules_it_wrote(work, capsys):
    (work / "g.hlsl").write_bytes(graph("A", "Old"))
    nodes = work / "nodes"
    nodes.mkdir()
    (nodes / "README").write_text("not wgc's")
    (nodes / "Stray.spv").write_bytes(b"not wgc's either")
    assert wgc(capsys, "compile", "g.hlsl", "--split-nodes", "nodes") == (0, "")
    assert (nodes / outputs.MANIFEST_NAME).read_text() == outputs.MANIFEST_HEADER + "A.spv\nOld.spv\n"
    (work / "g.hlsl").write_bytes(graph("A", "New"))          # Old renamed: Old.spv is stale
    assert wgc(capsys, "compile", "g.hlsl", "--split-nodes", "nodes") == (0, "")
    assert listing(nodes) == [outputs.MANIFEST_NAME, "A.spv", "New.spv", "README", "Stray.spv"]
    assert all(is_valid_spirv((nodes / n).read_bytes()) for n in ("A.spv", "New.spv"))
    (work / "g.hlsl").write_bytes(BROKEN)                     # a failed run removes every module it wrote
    assert wgc(capsys, "compile", "g.hlsl", "--split-nodes", "nodes")[0] == 1
    assert listing(nodes) == ["README", "Stray.spv"]
    assert (nodes / "Stray.spv").read_bytes() == b"not wgc's either"


def test_a_manifest_cannot_make_wgc_remove_other_files(work, capsys):
    nodes = work / "nodes"
    nodes.mkdir()
    (work / "keep.txt").write_text("keep")
    (nodes / outputs.MANIFEST_NAME).write_text("../keep.txt\n/etc/hostname\n..\n.\nhello.hlsl\n")
    (work / "g.hlsl").write_bytes(BROKEN)
    assert wgc(capsys, "compile", "g.hlsl", "--split-nodes", "nodes")[0] == 1
    assert (work / "keep.txt").read_text() == "keep" and os.path.exists("/etc/hostname")
    assert listing(nodes) == []                               # the manifest itself is wgc's


def test_a_failed_split_run_removes_a_folder_it_created(work, capsys, monkeypatch):
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    code, err = wgc(capsys, "compile", "hello.hlsl", "--split-nodes", "new/nodes")
    assert code == 1 and "[WG0007]" in err
    assert listing(work) == ["hello.hlsl"]


def test_an_interrupt_while_committing_leaves_nothing(work, capsys, monkeypatch):
    (work / "x.spv").write_bytes(b"stale")
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(outputs.Interrupted(signal.SIGTERM)))
    code, _ = wgc(capsys, "compile", "hello.hlsl", "-o", "x.spv", "-Fh", "x.h")
    assert code == 128 + signal.SIGTERM
    assert listing(work) == ["hello.hlsl"]


def big_graph(nodes: int) -> bytes:
    body = b"uint t = id.x; for (uint k = 0; k < 4; ++k) { t = t * 3u + k; } Out[id.x] = t;"
    head = b"RWStructuredBuffer<uint> Out : register(u0);\n"
    return head + b"".join(b'[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] '
                           b'[NodeDispatchGrid(1, 1, 1)] [NumThreads(64, 1, 1)] '
                           b'void N%d(uint3 id : SV_DispatchThreadID) { %s }\n' % (i, body)
                           for i in range(nodes))


def catches_sigterm(pid: int) -> None:
    """Wait until process `pid` has wgc's SIGTERM handler installed (Linux: SigCgt in /proc)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M).group(1), 16)
        if caught & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.02)
    raise AssertionError("wgc never installed its SIGTERM handler")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_killed_compile_cleans_up(tmp_path, run_wgc, signum):
    (tmp_path / "small.hlsl").write_bytes(graph("A", "B"))
    (tmp_path / "big.hlsl").write_bytes(big_graph(6000))
    for args in (["-o", "x.spv", "-Fh", "x.h", "-MD"], ["--split-nodes", "nodes"]):
        assert run_wgc("compile", "small.hlsl", *args, cwd=tmp_path).returncode == 0
    (tmp_path / "nodes" / "mine.txt").write_text("not wgc's")
    for args in (["-o", "x.spv", "-Fh", "x.h", "-MD"], ["--split-nodes", "nodes"]):
        process = subprocess.Popen(wgc_command() + ["compile", "big.hlsl", *args], cwd=tmp_path,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        catches_sigterm(process.pid)
        time.sleep(0.5)                          # inside the compile (it takes > 15 s)
        assert process.poll() is None
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 128 + signum, err
        assert b"Traceback" not in err
    assert listing(tmp_path) == ["big.hlsl", "nodes", "nodes/mine.txt", "small.hlsl"]


def test_a_signal_swallowed_by_a_weakref_callback_still_interrupts(work, capsys, monkeypatch):
    """A signal whose handler runs inside a weakref callback: Python prints and swallows what the
    handler raises there ("Exception ignored in ..."), and the old wgc went on to exit 0 with its
    outputs. The signal is recorded first and raised again at the commit: exit 143, no output, and
    nothing printed."""
    import weakref

    from wgc import driver

    real_compile = driver.compile

    def compile_then_signal(*args, **kwargs):
        result = real_compile(*args, **kwargs)

        class Garbage:
            pass

        garbage = Garbage()
        watch = weakref.ref(garbage, lambda _ref: signal.raise_signal(signal.SIGTERM))  # the handler runs in it
        del garbage
        assert watch() is None
        return result

    monkeypatch.setattr(driver, "compile", compile_then_signal)
    code, err = wgc(capsys, "compile", "hello.hlsl", "-o", "x.spv", "-Fh", "x.h")
    assert (code, err) == (128 + signal.SIGTERM, "")
    assert listing(work) == ["hello.hlsl"]


def test_a_signal_after_the_commit_removes_the_outputs(work, capsys, monkeypatch):
    """A signal that comes after the outputs were renamed into place (here: while the commit's
    critical section defers it) still ends the command with 128 + the signal and no output."""
    real_commit = outputs.Transaction.commit

    def commit_then_signal(self):
        real_commit(self)
        with outputs._critical():
            signal.raise_signal(signal.SIGHUP)
            assert os.path.exists("x.spv")

    monkeypatch.setattr(outputs.Transaction, "commit", commit_then_signal)
    code, err = wgc(capsys, "compile", "hello.hlsl", "-o", "x.spv", "-MD")
    assert (code, err) == (128 + signal.SIGHUP, "")
    assert listing(work) == ["hello.hlsl"]


def test_signals_at_any_instant_end_in_order(tmp_path):
    """A signal at any instant of a command (SIGINT, SIGTERM, SIGHUP; compile with -o -Fh -MD,
    --split-nodes, inspect -o) ends it either with exit 0 and all its outputs complete, or with
    128 + the signal, no output file and no traceback (docs/reference.md: "the same clean-up as a
    failure"). 36 runs at instants spread over each command's time; benchmarks/fuzz_signals.py
    runs the same check longer (and `wgc run` too)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "fuzz_signals", Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_signals.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    campaign = fuzz.Campaign(Path(cli.__file__).resolve().parents[1], tmp_path, ["compile", "split", "inspect"])
    problems = [p for p in (campaign.one(index) for index in range(36)) if p is not None]
    assert problems == []


# ----------------------------------------------------------------------------- 6. inputs that are not regular files


def test_the_main_input_may_be_a_pipe(tmp_path):
    (tmp_path / "hello.hlsl").write_bytes(HELLO)
    command = " ".join(wgc_command()) + " compile <(cat hello.hlsl) -o x.spv"
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert is_valid_spirv((tmp_path / "x.spv").read_bytes())


def test_including_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "inc.hlsli")
    (tmp_path / "main.hlsl").write_text('#include "inc.hlsli"\n')
    done = subprocess.run(wgc_command() + ["compile", "--emit=ast", "main.hlsl"], cwd=tmp_path,
                          capture_output=True, timeout=60)        # today's wgc blocks here forever
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "main.hlsl:1:10: error: cannot include 'inc.hlsli': it is a FIFO [WG0112]\n"
        '#include "inc.hlsli"\n'
        "         ^~~~~~~~~~~\n"
        "note: only regular files can be included\n"
        f"{ONE_ERROR}")


@pytest.mark.parametrize(("name", "kind"), [("dir.hlsli", "a directory"), ("/dev/null", "a character device")])
def test_including_a_directory_or_a_device_is_refused(work, capsys, name, kind):
    (work / "dir.hlsli").mkdir()
    (work / "main.hlsl").write_text(f'#include "{name}"\n')
    code, err = wgc(capsys, "compile", "--emit=ast", "-o", "-", "main.hlsl")
    carets = "^" + "~" * (len(name) + 1)
    assert (code, err) == (1, f"main.hlsl:1:10: error: cannot include '{name}': it is {kind} [WG0112]\n"
                              f'#include "{name}"\n'
                              f"         {carets}\n"
                              "note: only regular files can be included\n"
                              f"{ONE_ERROR}")


def test_including_a_dangling_symlink_says_so(work, capsys):
    (work / "inc").mkdir()
    os.symlink("gone.hlsli", work / "inc" / "x.hlsli")
    (work / "main.hlsl").write_text('#include "x.hlsli"\n')
    code, err = wgc(capsys, "compile", "--emit=ast", "-o", "-", "-I", "inc", "main.hlsl")
    assert (code, err) == (1, "main.hlsl:1:10: error: 'x.hlsli' file not found [WG0101]\n"
                              '#include "x.hlsli"\n'
                              "         ^~~~~~~~~\n"
                              "note: searched: ., inc\n"
                              "note: 'inc/x.hlsli' is a dangling symbolic link\n"
                              f"{ONE_ERROR}")


def test_an_include_replaced_by_a_fifo_after_the_search_is_refused(work, capsys, monkeypatch):
    # the race: stat said "regular file", then a FIFO took its place; the non-blocking open and
    # the check on the open descriptor catch it (patched stat: the race cannot be timed)
    os.mkfifo(work / "inc.hlsli")
    (work / "main.hlsl").write_text('#include "inc.hlsli"\n')
    real_stat = os.stat
    regular = real_stat(work / "main.hlsl")
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: regular if str(path) == "inc.hlsli" else real_stat(path, *a, **k))
    code, err = wgc(capsys, "compile", "--emit=ast", "-o", "-", "main.hlsl")
    assert code == 1 and err.startswith("main.hlsl:1:10: error: cannot include 'inc.hlsli': it is a FIFO [WG0112]\n")


def test_an_include_that_disappears_between_search_and_open_is_not_found(work, capsys, monkeypatch):
    (work / "inc.hlsli").write_text("int x;\n")
    (work / "main.hlsl").write_text('#include "inc.hlsli"\n')
    real_open = os.open

    def vanished(path, flags, *args, **kwargs):
        if str(path) == "inc.hlsli":
            raise FileNotFoundError(2, "No such file or directory", path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", vanished)
    code, err = wgc(capsys, "compile", "--emit=ast", "-o", "-", "main.hlsl")
    assert code == 1 and err.startswith("main.hlsl:1:10: error: 'inc.hlsli' file not found [WG0101]\n")


def test_every_output_code_has_a_rendered_test():
    source = Path(__file__).read_text()
    for code in ("WG0007", "WG0008", "WG0009", "WG0010", "WG0112"):
        assert f"[{code}]" in source, code


# ----------------------------------------------------------------------------- the campaign

SITUATIONS = ("fresh", "missing-folder", "directory", "file-as-folder", "fifo", "symlink", "dangling-symlink",
              "input", "header", "stale", "read-only", "trailing-slash")
OPTIONS = ("-o", "-S", "-Fh", "-MD", "-MF", "-Fe", "--split-nodes", "inspect")


def _place(root: Path, situation: str, index: int, held: dict[str, int]) -> str:
    """A path for an output in `situation` (creating what the situation needs)."""
    name = f"out{index}"
    if situation == "fresh":
        return str(root / name)
    if situation == "missing-folder":
        return str(root / "missing" / name)
    if situation == "directory":
        (root / f"dir{index}").mkdir()
        return str(root / f"dir{index}")
    if situation == "file-as-folder":
        (root / f"file{index}").write_text("a file")
        return str(root / f"file{index}" / name)
    if situation == "fifo":
        os.mkfifo(root / name)
        held[str(root / name)] = os.open(root / name, os.O_RDWR | os.O_NONBLOCK)   # a reader: writes never block
        return str(root / name)
    if situation == "symlink":
        (root / f"target{index}").write_bytes(b"stale target")
        os.symlink(f"target{index}", root / name)
        return str(root / name)
    if situation == "dangling-symlink":
        os.symlink(f"target{index}", root / name)
        return str(root / name)
    if situation == "input":
        return str(root / "main.hlsl")
    if situation == "header":
        return str(root / "inc" / "shared.hlsli")
    if situation == "trailing-slash":                          # 'file/': never the file itself
        (root / f"bystander{index}").write_bytes(b"not an output")
        return str(root / f"bystander{index}") + "/"
    if situation == "stale":
        (root / name).write_bytes(b"stale from an earlier run")
        return str(root / name)
    return f"/sys/wgc-fuzz-{index}"                               # read-only: EACCES even for root


def _complete(option: str, data: bytes, split: bool) -> bool:
    if option == "-Fe":
        return data == b"" or data.endswith(b"generated.\n")
    if option == "-MF":
        return data.endswith(b"\n") and b"main.hlsl" in data
    if option == "-Fh":
        return b"static const uint32_t" in data and b"\n};\n" in data and data.endswith(b");\n")
    if option == "inspect":
        return data.startswith(b"work graph:")
    if option == "-S":
        return data.startswith(b"; SPIR-V") and b"OpEntryPoint" in data
    return is_valid_spirv(data)


@settings(max_examples=150, deadline=10_000, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(good=st.booleans(),
       chosen=st.lists(st.tuples(st.sampled_from(OPTIONS), st.sampled_from(SITUATIONS)), min_size=1, max_size=4,
                       unique_by=lambda pair: pair[0]))
def test_campaign(tmp_path_factory, monkeypatch, capsys, good, chosen):
    root = tmp_path_factory.mktemp("campaign")
    (root / "inc").mkdir()
    header = b"// shared\n"
    (root / "inc" / "shared.hlsli").write_bytes(header)
    source = b'#include "inc/shared.hlsli"\n' + (HELLO if good else BROKEN)
    (root / "main.hlsl").write_bytes(source)
    held: dict[str, int] = {}
    options = dict(chosen)
    inspect = "inspect" in options
    paths = {option: _place(root, situation, i, held) for i, (option, situation) in enumerate(chosen)}
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and not p.is_symlink()}
    existed = set(root.rglob("*"))
    monkeypatch.chdir(root)                 # outputs named by default (a.spv, X.d) land here
    if inspect:
        args = ["inspect", str(root / "main.hlsl"), "-o", paths["inspect"]]
        args += ["-Fe", paths["-Fe"]] if "-Fe" in paths else []
        written = {"inspect": paths["inspect"], **({"-Fe": paths["-Fe"]} if "-Fe" in paths else {})}
    else:
        args, written = ["compile", str(root / "main.hlsl")], {}
        split = "--split-nodes" in paths
        if split:
            args += ["--split-nodes", paths["--split-nodes"]] + (["-S"] if "-S" in paths else [])
        elif "-S" in paths:
            args += ["-S", "-o", paths["-S"]]
            written["-S"] = paths["-S"]
        else:
            if "-o" in paths:
                args += ["-o", paths["-o"]]
                written["-o"] = paths["-o"]
            if "-Fh" in paths:
                args += ["-Fh", paths["-Fh"]]
                written["-Fh"] = paths["-Fh"]
        if "-MF" in paths:
            args += ["-MD", "-MF", paths["-MF"]]
            written["-MF"] = paths["-MF"]
        elif "-MD" in paths:
            args += ["-MD"]
        if "-Fe" in paths:
            args += ["-Fe", paths["-Fe"]]
            written["-Fe"] = paths["-Fe"]
    piped: dict[str, bytes] = {}
    try:
        code = cli.main(args)
        err = capsys.readouterr().err
        for path, fd in held.items():
            try:
                piped[path] = os.read(fd, 1 << 20)
            except BlockingIOError:
                piped[path] = b""
    finally:
        for fd in held.values():
            os.close(fd)
    assert code in (0, 1), (args, err)
    assert "Traceback" not in err and "internal compiler error" not in err
    assert not [p for p in root.rglob(".wgc-*")], args
    assert (root / "main.hlsl").read_bytes() == source and (root / "inc" / "shared.hlsli").read_bytes() == header
    assert all(p.read_bytes() == b"not an output" for p in root.glob("bystander*")), args
    refused = "[WG0008]" in err or "[WG0009]" in err
    for option, path in written.items():
        if piped.get(path):                            # written straight into a FIFO
            assert code == 0 or option == "-Fe", (args, err)
            assert _complete(option, piped[path], False), (args, option)
        target = Path(os.path.realpath(path))
        if path.endswith("/") or not target.is_file() or target in (root / "main.hlsl", root / "inc" / "shared.hlsli"):
            continue
        data = target.read_bytes()
        if refused and before.get(target) == data:
            continue                                   # a refused command writes and removes nothing
        if option == "-Fe" or code == 0:
            assert _complete(option, data, False), (args, option, data[:80])
        else:
            raise AssertionError(f"{option} {path} left behind after a failure: {args} {err}")
    if code == 0 and "--split-nodes" in paths and not inspect:
        folder = Path(os.path.realpath(paths["--split-nodes"]))
        modules = sorted(p.name for p in folder.glob("*.spv*"))
        assert modules and all(_complete("-S" if n.endswith("asm") else "-o", (folder / n).read_bytes(), True)
                               for n in modules)
    if code == 1 and not refused:                      # nothing new but the report
        report = os.path.realpath(paths["-Fe"]) if "-Fe" in paths else None
        new = [p for p in root.rglob("*") if p.is_file() and p not in existed and str(p) != report]
        assert new == [], (args, err)
    if not good:
        report = ""
        if "-Fe" in written:
            fe = Path(paths["-Fe"])
            report = piped[str(fe)].decode() if str(fe) in piped else fe.read_text() if fe.is_file() else ""
        assert code == 1 and re.search(r"\[WG0(201|008|009)\]", err + report)  # refused before compiling


# ----------------------------------------------------------------------------- siblings: a bad environment


def test_a_closed_standard_input_is_a_diagnostic(tmp_path):
    (tmp_path / "x.spv").write_bytes(b"stale")
    command = " ".join(wgc_command()) + " compile - -o x.spv <&-"
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, timeout=120)
    assert (done.returncode, done.stderr.decode()) == (
        1, f"error: cannot read standard input: it is closed [WG0001]\n{ONE_ERROR}")
    assert listing(tmp_path) == []                              # the stale output went too


def test_an_internal_error_without_a_writable_temporary_folder(monkeypatch, capsys):
    import tempfile

    from wgc import driver

    monkeypatch.setattr(driver, "compile", lambda *a, **k: 1 / 0)
    monkeypatch.setattr(tempfile, "mkstemp", lambda *a, **k: (_ for _ in ()).throw(
        FileNotFoundError(2, "No usable temporary directory found")))
    code, err = wgc(capsys, "compile", "--emit=ast", str(SAMPLES / "hello.hlsl"), "-o", "-")
    assert code == 3
    assert err == ("wgc: internal compiler error: ZeroDivisionError: division by zero\n"
                   "wgc: this is a bug in wgc; please report it with the input and the command line "
                   "(the details could not be saved: No usable temporary directory found)\n")
