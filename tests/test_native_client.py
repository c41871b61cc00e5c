"""The native launcher's client (`wgc/server/native_client.c`) against a stand-in server and a
stand-in Python.

The client is built as `wgc server --launcher` builds it (`wgc.launcher.build_native`), but with a
shell script in place of the interpreter, which records the words it was given (the Python way:
`wgc.server.native.main`'s), and a server of the test's own on the pointer's socket, which reads
the request with `wgc.server.protocol` and answers as a test needs. Each request is compared with
the dict the Python client would send (`wgc.server.client.run`), computed here from the process's
state as the test set it.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from wgc import launcher
from wgc.server import native, protocol

pytestmark = pytest.mark.skipif(launcher.compiler() is None, reason="no C compiler, or not Linux")

LAUNCHER_ID = "0123456789abcdef01234567"
KEY = "feedfacefeedfacefeedface"
FALLBACK_STATUS = 7
WAIT = 30.0
STDIO = [(True, "utf-8", "strict", False, False), (True, "utf-8", "strict", False, False),
         (True, "utf-8", "backslashreplace", True, False)]
"""The request's "stdio" as the pointer holds it (standard input, output and error open, none a terminal)."""


class Setup:
    """A built client, its stand-in Python, a private server folder and an environment."""

    def __init__(self, root: Path, short: Path) -> None:
        self.root = root
        self.python = root / "python"
        self.said = root / "said"
        self.python.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" > '{self.said}'\nexit {FALLBACK_STATUS}\n")
        self.python.chmod(0o755)
        self.client = root / "wgc-native"
        built = launcher.build_native(launcher.compiler() or [], str(self.python), "PROGRAM", LAUNCHER_ID,
                                      str(self.client))
        assert isinstance(built, bytes), built
        self.client.write_bytes(built)
        self.client.chmod(0o755)
        self.cache = short / "cache"          # (a socket path must fit sockaddr_un)
        self.folder = self.cache / f"server-{os.getuid()}"
        self.folder.mkdir(parents=True, mode=0o700)
        self.work = root / "work"
        self.work.mkdir()
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root), "WGC_CACHE_DIR": str(self.cache),
                    "WGC_SERVER": "1", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "OTHER": "x y"}

    def startup_hex(self, env: dict[str, str]) -> str:
        """The launcher's start-up variables as it lists them (sorted "name=value\\0", hex)."""
        entries = sorted(f"{k}={v}".encode() for k, v in env.items() if k.startswith(native.STARTUP_PREFIXES))
        return b"".join(e + b"\0" for e in entries).hex() or "_"

    def write_pointer(self, env: dict[str, str] | None = None, adopted: dict[str, str] | None = None,
                      streams: str = "10 10 10", key: str = KEY, mode: int = 0o600) -> Path:
        env = self.env if env is None else env
        adopted = {k: v for k, v in env.items() if k.startswith(native.STARTUP_PREFIXES)} if adopted is None else adopted
        import marshal

        lines = [native.POINTER_HEAD, key, self.startup_hex(env), native.startup_variables(adopted).hex(), streams,
                 marshal.dumps(STDIO, 2).hex()]
        path = self.folder / f"launcher-{LAUNCHER_ID}"
        path.write_text("".join(line + "\n" for line in lines))
        path.chmod(mode)
        return path

    def start(self, words: list[str], env: dict[str, str] | None = None, **options: object) -> subprocess.Popen[bytes]:
        return subprocess.Popen([str(self.client), *words], cwd=self.work, env=self.env if env is None else env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                **options)  # type: ignore[call-overload]

    def run(self, words: list[str], env: dict[str, str] | None = None, **options: object) -> subprocess.CompletedProcess[bytes]:
        process = self.start(words, env, **options)
        out, err = process.communicate(timeout=WAIT)
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    def fallback_words(self) -> list[str] | None:
        """The words the stand-in Python got (after `-S -c PROGRAM`), or None when it did not run."""
        if not self.said.exists():
            return None
        words = self.said.read_bytes().split(b"\0")[:-1]
        assert words[:3] == [b"-S", b"-c", b"PROGRAM"]
        return [w.decode(errors="surrogateescape") for w in words[3:]]


class StandIn:
    """A server of this test at the pointer's socket: `script(connection)` answers each connection."""

    def __init__(self, setup: Setup, script, key: str = KEY) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(setup.folder / f"{key}.sock"))
        self.listener.listen(8)
        self.script = script
        self.seen: list[object] = []
        self.errors: list[BaseException] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(WAIT)
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        with connection:
            connection.settimeout(WAIT)
            try:
                self.script(connection, self.seen)
            except BaseException as err:    # reported by `close`
                self.errors.append(err)

    def close(self) -> None:
        self.thread.join(WAIT)
        self.listener.close()
        assert not self.errors, self.errors


@pytest.fixture
def setup(tmp_path):
    short = Path(tempfile.mkdtemp(prefix="wgcn-"))
    yield Setup(tmp_path, short)
    shutil.rmtree(short, ignore_errors=True)


def expected_request(setup: Setup, words: list[str], env: dict[str, str], adopted: dict[str, str],
                     limits: dict[str, tuple[int, int]], umask: int) -> dict[str, object]:
    """The Python client's request but its "ignored" list (compared as a set)."""
    request_env = {k: v for k, v in env.items() if not k.startswith(native.STARTUP_PREFIXES)}
    request_env.update(adopted)
    return {"fingerprint": None, "argv": words, "argv0": str(setup.client), "cwd": str(setup.work), "env": request_env,
            "umask": umask, "limits": limits, "stdio": STDIO}


def take_until_go(connection: socket.socket, seen: list[object], pid: int = 4242, write: bytes = b"") -> None:
    """As a server's child: take the request, say RUNNING (`pid`), take GO and its descriptors
    (writing `write` to the second, the launcher's standard output); both messages go to `seen`."""
    kind, request, fds = protocol.receive(connection)
    seen.append((kind, request, len(fds)))
    protocol.send(connection, protocol.RUNNING, pid)
    kind, body, fds = protocol.receive(connection)
    seen.append((kind, body, len(fds)))
    if write:
        os.write(fds[1], write)
    for fd in fds:
        os.close(fd)


def answer_with(status: tuple[str, int], write: bytes = b""):
    """A stand-in script: `take_until_go`, then EXITED with `status`."""
    def script(connection: socket.socket, seen: list[object]) -> None:
        take_until_go(connection, seen, write=write)
        protocol.send(connection, protocol.EXITED, status)
    return script


def test_the_request_is_the_python_clients(setup):
    """Words (one not ASCII, one with a space), the folder, the environment with the start-up
    variables as Python's start left them (here PEP 538's LC_CTYPE added), the umask, every
    resource limit (one beyond 32 bits, the unlimited ones as -1), the ignored signals (inherited
    ones, one the client catches itself among them, and SIGPIPE and SIGXFSZ, which Python
    ignores) and the pointer's stdio; GO
    brings standard input, output and error, and the command's exit status is the client's."""
    adopted = {"LANG": "C.UTF-8", "LC_CTYPE": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    setup.write_pointer(adopted=adopted)
    stand_in = StandIn(setup, answer_with(("exit", 5), write=b"from the command\n"))
    words = ["compile", "--server", "ré sumé.hlsl", "-o", "out.spv"]
    big = (1 << 40) + 5

    def child_state() -> None:
        import resource

        os.umask(0o027)
        resource.setrlimit(resource.RLIMIT_FSIZE, (big, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    done = setup.run(words, preexec_fn=child_state)
    stand_in.close()
    assert (done.returncode, done.stdout, done.stderr) == (5, b"from the command\n", b"")
    assert setup.fallback_words() is None
    (kind, request, fds), (go, go_body, go_fds) = stand_in.seen
    assert (kind, fds, go, go_body, go_fds) == (protocol.COMPILE, 0, protocol.GO, None, 3)
    limits = protocol.limits()
    limits["RLIMIT_FSIZE"] = (big, limits["RLIMIT_FSIZE"][1])
    inherited = {int(n) for n in signal.valid_signals() if signal.getsignal(n) == signal.SIG_IGN}
    assert isinstance(request, dict)
    assert set(request.pop("ignored")) == inherited | {signal.SIGUSR1, signal.SIGHUP, signal.SIGPIPE, signal.SIGXFSZ}
    assert request == expected_request(setup, words, setup.env, adopted, limits, 0o027)


@pytest.mark.parametrize("case", ["no pointer", "other variables", "other streams", "pointer writable by others",
                                  "pointer is a link", "folder open to others", "no server", "refused",
                                  "closed before running"])
def test_what_it_cannot_vouch_for_goes_the_python_way(setup, case):
    """Without a pointer it can trust, whose start-up variables and standard streams are this
    process's, and a server that takes the command, the client becomes the Python program with
    its words: "serve", its start-up variables, its id, its argv[0] and the command's words."""
    words = ["compile", "a.hlsl", "-o", "a.spv"]
    stand_in = None
    pointer = setup.write_pointer()
    if case == "no pointer":
        pointer.unlink()
    elif case == "other variables":
        setup.write_pointer(env={**setup.env, "PYTHONHASHSEED": "1"})
    elif case == "other streams":
        setup.write_pointer(streams="11 10 10")
    elif case == "pointer writable by others":
        pointer.chmod(0o622)
    elif case == "pointer is a link":
        target = setup.root / "elsewhere"
        pointer.rename(target)
        pointer.symlink_to(target)
    elif case == "folder open to others":
        setup.folder.chmod(0o755)
    elif case == "refused":
        stand_in = StandIn(setup, lambda c, seen: (protocol.receive(c), protocol.send(c, protocol.REFUSED, (True, "no"))))
    elif case == "closed before running":
        stand_in = StandIn(setup, lambda c, seen: protocol.receive(c))
    done = setup.run(words)
    if stand_in is not None:
        stand_in.close()
    assert done.returncode == FALLBACK_STATUS, done.stderr
    assert setup.fallback_words() == ["serve", setup.startup_hex(setup.env), LAUNCHER_ID, str(setup.client), *words]


@pytest.mark.parametrize("words, env", [
    (["--version"], {}),
    ([], {}),
    (["run", "graph.hlsl"], {}),
    (["compile", "--no-server", "a.hlsl"], {}),
    (["compile", "--cache", "a.hlsl"], {}),
    (["compile", "a.hlsl"], {"WGC_SERVER": "0"}),
    (["compile", "a.hlsl"], {"WGC_CACHE": "1"}),
    (["compile", "a.hlsl"], {"WGC_CACHE_BASEDIR": "/tmp"}),
    (["compile", "a.hlsl"], {"WGC_SERVER_TIMEOUT": "5"}),
    (["compile", "/dev/fd/3"], {}),
    (["compile", "a.hlsl"], {"WGC_CACHE_DIR": "relative/cache"}),
])
def test_commands_it_does_not_serve_go_the_python_way_untouched(setup, words, env):
    """Commands the server does not run (or not this way: the cache asked, a timeout to parse, a
    descriptor of this process named, a cache folder to normalise) go the Python way before any
    connection; where it did not read its start-up variables, it says "-"."""
    setup.write_pointer(env={**setup.env, **env})
    stand_in = StandIn(setup, lambda c, seen: seen.append("connected"))
    done = setup.run(words, env={**setup.env, **env})
    assert done.returncode == FALLBACK_STATUS, done.stderr
    said = setup.fallback_words()
    assert said is not None and said[0] == "serve" and said[2:] == [LAUNCHER_ID, str(setup.client), *words]
    socket.socket(socket.AF_UNIX).connect(str(setup.folder / f"{KEY}.sock"))   # (ends the stand-in's wait)
    stand_in.close()
    assert stand_in.seen == ["connected"]         # only this test's own connection


@pytest.mark.parametrize("closed", [0, 1, 2])
def test_a_closed_standard_stream_goes_the_python_way(setup, closed):
    """(Its number would be the first descriptor the launcher opens.)"""
    setup.write_pointer(streams=" ".join("00" if fd == closed else "10" for fd in range(3)))
    stand_in = StandIn(setup, lambda c, seen: seen.append("connected"))
    process = subprocess.run([str(setup.client), "compile", "a.hlsl"], cwd=setup.work, env=setup.env,
                             stdin=subprocess.DEVNULL, capture_output=True, timeout=WAIT,
                             preexec_fn=lambda: os.close(closed))
    assert process.returncode == FALLBACK_STATUS
    assert setup.fallback_words() == ["serve", "-", LAUNCHER_ID, str(setup.client), "compile", "a.hlsl"]
    socket.socket(socket.AF_UNIX).connect(str(setup.folder / f"{KEY}.sock"))   # (ends the stand-in's wait)
    stand_in.close()
    assert stand_in.seen == ["connected"]


def test_a_word_that_is_not_utf8_goes_the_python_way(setup):
    """(The Python client's file-system encoding decides what it means.)"""
    setup.write_pointer()
    stand_in = StandIn(setup, lambda c, seen: seen.append("connected"))
    process = subprocess.run([str(setup.client).encode(), b"compile", b"caf\xe9.hlsl"], cwd=setup.work, env=setup.env,
                             capture_output=True, timeout=WAIT)
    assert process.returncode == FALLBACK_STATUS
    assert setup.fallback_words() == ["serve", setup.startup_hex(setup.env), LAUNCHER_ID, str(setup.client), "compile",
                                      "caf\udce9.hlsl"]
    socket.socket(socket.AF_UNIX).connect(str(setup.folder / f"{KEY}.sock"))   # (ends the stand-in's wait)
    stand_in.close()
    assert stand_in.seen == ["connected"]


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_before_running_ends_it_with_nothing_run(setup, signum):
    setup.write_pointer()
    taken = threading.Event()
    release = threading.Event()

    def script(connection, seen):
        seen.append(protocol.receive(connection)[0])
        taken.set()
        release.wait(WAIT)

    stand_in = StandIn(setup, script)
    process = setup.start(["compile", "a.hlsl"])
    assert taken.wait(WAIT)
    process.send_signal(signum)
    process.communicate(timeout=WAIT)
    release.set()
    stand_in.close()
    assert process.returncode == 128 + signum
    assert setup.fallback_words() is None


def test_a_signal_after_running_is_forwarded_and_ends_it_the_same_way(setup):
    """SIGINT while the command runs travels as a SIGNAL message; the command's process killed by it
    makes the client end by it (no report: the client forwarded it)."""
    setup.write_pointer()
    running = threading.Event()

    def script(connection, seen):
        take_until_go(connection, [])
        running.set()
        kind, body, _ = protocol.receive(connection)
        seen.append((kind, body))
        protocol.send(connection, protocol.EXITED, ("signal", int(body)))

    stand_in = StandIn(setup, script)
    process = setup.start(["compile", "a.hlsl"])
    assert running.wait(WAIT)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=WAIT)
    stand_in.close()
    assert stand_in.seen == [(protocol.SIGNAL, int(signal.SIGINT))]
    assert process.returncode == -signal.SIGINT
    assert setup.fallback_words() is None


@pytest.mark.parametrize("ending, words", [
    (("signal", 9), ["signal", "4242", "9"]),
    ("close", ["lost", "4242", "-"]),
    ("refuse", None),
])
def test_an_ending_without_a_report_is_the_python_programs_to_report(setup, ending, words):
    """The command's process killed by a signal the client did not forward, or the connection gone
    without EXITED: the Python program reports it (WG0029) with the pid and the signal. A
    REFUSED after GO (the child gave up before GO reached it) went the Python way: nothing ran."""
    setup.write_pointer()

    def script(connection, seen):
        take_until_go(connection, seen)
        if ending == "refuse":
            protocol.send(connection, protocol.REFUSED, (True, "gave up"))
        elif ending != "close":
            protocol.send(connection, protocol.EXITED, ending)

    stand_in = StandIn(setup, script)
    done = setup.run(["compile", "a.hlsl"])
    stand_in.close()
    assert done.returncode == FALLBACK_STATUS
    said = setup.fallback_words()
    assert said is not None
    if words is None:
        assert said[0] == "serve"
    else:
        assert said == [*words, str(setup.client), "compile", "a.hlsl"]


def test_a_python_that_cannot_be_run_is_wg0090(setup):
    setup.write_pointer()
    setup.python.unlink()
    done = setup.run(["--version"])
    assert done.returncode == 1
    assert done.stderr.decode().startswith(f"error: this wgc launcher's Python cannot be run ({setup.python}: ")
    assert done.stderr.decode().endswith(f"); write it again with wgc server --launcher {setup.client} [WG0090]\n"
                                         "1 error generated.\n")


def python_program(*words: str) -> subprocess.CompletedProcess[bytes]:
    """`wgc.server.native.main` given `words`, as the launcher's Python program is."""
    code = ("from wgc.server.native import main; "
            "raise SystemExit(main())")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run([sys.executable, "-c", code, *words], capture_output=True, env=env, timeout=WAIT)


def test_the_python_program_reports_what_the_launcher_could_not():
    """"lost": the command's process ended without a report (WG0029, exit 1); "signal": it was
    killed by a signal the launcher did not forward (WG0029, then the end by that signal); words
    it did not write: WG0090."""
    lost = python_program("lost", "4242", "-", "wgc-native", "compile", "a.hlsl")
    assert lost.returncode == 1
    assert b"process for this command (pid 4242) ended without reporting its exit status" in lost.stderr
    assert b"[WG0029]" in lost.stderr
    killed = python_program("signal", "4242", str(int(signal.SIGTERM)), "wgc-native", "compile", "a.hlsl")
    assert killed.returncode == -signal.SIGTERM
    assert b"(pid 4242) was killed by signal 15" in killed.stderr and b"[WG0029]" in killed.stderr
    other = python_program("elsewhere", "1", "2", "wgc-native")
    assert other.returncode == 1 and other.stderr.endswith(b"[WG0090]\n1 error generated.\n")


def test_the_pointer_is_written_whole_and_private(tmp_path):
    """After a server ran a command for a native launcher's Python program, its pointer names the
    server, the launcher's start-up variables as it saw them, those variables as this Python has
    them, the standard streams' states and the request's stdio; written by rename, mode 0600. A
    launcher that did not read its variables ("-") gets none."""
    import marshal

    stdio = [(False, "utf-8", "strict", False, False)] + STDIO[1:]
    native.remember(str(tmp_path), KEY, LAUNCHER_ID, "abcd", stdio)
    pointer = tmp_path / f"launcher-{LAUNCHER_ID}"
    lines = pointer.read_text().split("\n")
    assert lines[:3] == [native.POINTER_HEAD, KEY, "abcd"]
    assert bytes.fromhex(lines[3]) == native.startup_variables(dict(os.environ))
    assert lines[4].split(" ")[0] == "00" and marshal.loads(bytes.fromhex(lines[5])) == stdio and lines[6:] == [""]
    assert pointer.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [pointer.name]
    pointer.unlink()
    native.remember(str(tmp_path), KEY, LAUNCHER_ID, "-", stdio)
    assert list(tmp_path.iterdir()) == []
