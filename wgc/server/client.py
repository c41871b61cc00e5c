"""The compile server's thin client: a `wgc compile`/`wgc inspect` handed to a warm server.

Stage: first code of the process (`wgc.entry`), after the compile cache had no answer; standard
library's C modules, `wgc.portable`, `wgc.server.protocol` and `wgc.identity` only (no click, no
compiler stage, and not `os` where the command is served: see `wgc.portable`).
Input: the command line, the current folder, the whole environment, the umask, the resource
limits and the process's standard input, output and error (their descriptors, passed with
SCM_RIGHTS).
Output: the command's exit status (the server's child ran the normal `wgc.cli.main` with them),
or None: the caller compiles in process.

Invariants:
- Never fails a command because of the server: a server that cannot be reached, started (within
  `START_SECONDS`), that does not take the request within $WGC_SERVER_TIMEOUT seconds (connect,
  send, its child's RUNNING: `protocol.timeout_seconds`), that refuses it, or whose socket belongs
  to another user means None, and nothing was run; the command is then compiled in process. The
  child runs the command only on the client's GO, sent once RUNNING came in time, so a command
  never runs twice (a client that gave up just closes the connection).
- Commands naming a descriptor of this process (/dev/fd/N with N > 2, /proc/self/...: process
  substitution `<(...)`) are compiled in process: the server's child would open its own.
- Signals are honoured at every instant: SIGINT, SIGTERM or SIGHUP before RUNNING ends the client
  with 128 + N (nothing was run, nothing written); after it they are forwarded to the process that
  runs the command (a worker, or a child forked for it) as SIGNAL messages on this connection,
  never by pid (`protocol`); it cleans up as an in-process compile does. A process killed by a
  signal while it ran the command makes the client end by that signal (saying so first, WG0029,
  when it was not one the client forwarded).
- The request carries the signals this process ignores (`_ignored_signals`): the command's process
  ignores them too, as a `wgc` process started here would.
- After GO the client waits as long as the command runs; the child reports its own exit status,
  so the server dying meanwhile changes nothing. A child that ended without any report (killed
  together with its server) is WG0029 and exit 1, never exit 3.
- As a native launcher's Python program (`LAUNCHER` set by `wgc.server.native.main`), after a
  server ran the command it writes the launcher's pointer (`native.remember`); with `LOCAL` (the
  launcher found the server stalled) it compiles in process, as after a timeout here.
- Starting a server: `python -c BOOT` in a new session, its standard streams on /dev/null, with
  this interpreter's flags and `sys.path` (so it imports this very wgc), and its UTF-8 mode where
  Python turned it on for the C locale (whose LC_CTYPE it changed in the environment); it reports on a pipe
  "ready", "busy" (another server won the race: the client connects to that one) or an error.
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import sys
import time

TYPE_CHECKING = False   # not `typing`'s: the client does without importing it
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

from wgc.portable import environ, system
from wgc.portable import signals as signal
from wgc.server import protocol

SERVED_COMMANDS = frozenset({"compile", "inspect"})
COMMANDS = frozenset({"compile", "inspect", "run", "cache", "server", "samples", "man", "lsp"})
"""`wgc.cli`'s commands (a test checks): any other first word means `compile` (dxc-style)."""
NOT_COMMANDS = frozenset({"--version", "-h", "--help", "-help"})
START_SECONDS = 30.0
"""How long a client waits for a server it started (or that another client started) to listen."""
ATTEMPTS = 2
"""Connections tried when a server closes before running the request (it was stopping)."""
FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
POLL_SECONDS = 1.0
"""While the command runs: how often the client checks that the server's child still lives."""

LAUNCHER: "tuple[str, str] | None" = None
"""(id, start-up variables in hex) of the native launcher whose Python program this is: after a
server ran the command, the launcher's pointer names it (`wgc.server.native`)."""
LOCAL = False
"""The native launcher found the server stalled: this command is compiled in process."""

BOOT = ("import sys; sys.path[:] = sys.argv[3:]; from wgc.server.daemon import run_detached; "
        "run_detached(int(sys.argv[1]), sys.argv[2])")
"""The server's first code: this client's `sys.path`, then `daemon.run_detached(ready_fd, key)`."""


def served(argv: list[str]) -> bool:
    """Whether `argv` is a command the server runs (`compile`, dxc-style compile, `inspect`)."""
    if not argv or argv[0] in NOT_COMMANDS:
        return False
    return argv[0] in SERVED_COMMANDS or argv[0] not in COMMANDS


def wanted(argv: list[str]) -> bool:
    """`--server`, or $WGC_SERVER on and no `--no-server`, on a served command (a guess from the raw
    words, as `buildcache.wanted`: the server runs the same CLI, so a wrong guess changes nothing
    but the time)."""
    if not served(argv) or "--no-server" in argv:
        return False
    return "--server" in argv or protocol.switched_on()


_RETRY = object()


class _Signalled(BaseException):
    """A signal came before the command ran (the client ends with 128 + `signum`)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _Signals:
    """SIGINT, SIGTERM and SIGHUP while the client runs: `_Signalled` until the server's process for
    the command said RUNNING (`pid` set), forwarded to it from then on (a SIGNAL message)."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.connection: Any = None
        self.forwarded: list[int] = []
        self.previous: dict[int, Any] = {}
        try:
            for name in FORWARDED_SIGNALS:
                number = getattr(signal, name, None)
                if number is None:
                    continue
                self.previous[number] = signal.signal(number, self._on_signal)
        except ValueError:      # not the main thread: the caller's handling stays
            self.restore()

    def _on_signal(self, signum: int, _frame: "Any") -> None:
        if self.pid is None:
            raise _Signalled(signum)
        self.forwarded.append(signum)
        try:                            # over the connection: it reaches this command only (`protocol`)
            protocol.send(self.connection, protocol.SIGNAL, int(signum))
        except (OSError, AttributeError):
            pass

    def restore(self) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        self.previous = {}


def run(argv: list[str], start: bool = True) -> int | None:
    """Run `argv` on the server (started if needed): its exit status, or None (compile in process).
    `start=False`: only on a server that already listens (None when none does)."""
    if LOCAL or not protocol.supported(locks=False):     # a server that listens took its locks
        return None
    try:
        cwd = system.getcwd()
        if names_own_descriptor(argv, cwd):
            return None
        server_folder = protocol.folder()
        server_key = protocol.key()
    except (OSError, protocol.Unavailable):
        return None
    from wgc.identity import fingerprint

    umask = system.umask(0o022)
    system.umask(umask)
    stdio = _stdio()
    request = {"fingerprint": fingerprint(), "argv": list(argv), "argv0": sys.argv[0] if sys.argv else "wgc",
               "cwd": cwd, "env": dict(environ()), "umask": umask, "limits": protocol.limits(), "stdio": stdio,
               "ignored": _ignored_signals()}
    where = protocol.paths(server_folder, server_key)
    timeout = protocol.timeout_seconds()
    signals = _Signals()
    try:
        for _attempt in range(ATTEMPTS):
            connection, _problem = connect_or_start(where, server_key, timeout, start)
            if connection is None:
                return None
            try:
                outcome = _exchange(connection, request, signals, timeout)
            finally:
                connection.close()
            if outcome is not _RETRY:
                if LAUNCHER is not None and outcome is not None:
                    from wgc.server import native

                    native.remember(server_folder, server_key, *LAUNCHER, stdio)
                return outcome  # type: ignore[return-value]
        return None
    except _Signalled as signalled:
        return 128 + signalled.signum
    finally:
        signals.restore()


def names_own_descriptor(argv: list[str], cwd: str) -> bool:
    """Whether a word of `argv` names a descriptor of this very process that the server's child does
    not have: /dev/fd/N with N > 2 (standard input, output and error are passed), /proc/self/...,
    /proc/thread-self/... (process substitution `<(...)`, `3< file`)."""
    for word in argv:
        if "fd" not in word and "self" not in word and "fd" not in cwd and "self" not in cwd:
            continue        # (normalising removes "." and ".." parts, it makes no "fd" nor "self")
        import os

        text = os.path.normpath(os.path.join(cwd, word)) + "/"
        if "/proc/self/" in text or "/proc/thread-self/" in text:
            return True
        start = text.find("/dev/fd/")
        while start >= 0:
            number = text[start + len("/dev/fd/"):].partition("/")[0]
            if not number.isdigit() or int(number) > 2:
                return True
            start = text.find("/dev/fd/", start + 1)
    return False


def _ignored_signals() -> list[int]:
    """The catchable signals this process ignores (inherited from its parent, or Python's SIGPIPE):
    the command's process ignores them too, as this process's would (read before `_Signals`)."""
    ignored = []
    for number in signal.valid_signals():
        try:
            if signal.getsignal(number) == signal.SIG_IGN:
                ignored.append(int(number))
        except (ValueError, OSError):
            pass
    return ignored


def _stdio() -> list[tuple[bool, str, str, bool, bool]]:
    """(open, encoding, errors, line buffering, write-through) of standard input, output and error."""
    streams = []
    for fd, stream in ((0, sys.stdin), (1, sys.stdout), (2, sys.stderr)):
        try:
            system.fstat(fd)
            is_open = True
        except OSError:
            is_open = False
        streams.append((is_open, getattr(stream, "encoding", None) or "utf-8",
                        getattr(stream, "errors", None) or "strict", bool(getattr(stream, "line_buffering", False)),
                        bool(getattr(stream, "write_through", False))))
    return streams


def connect_or_start(where: protocol.Paths, server_key: str, timeout: float | None = None,
                     start_one: bool = True) -> "tuple[Any, str]":
    """(a connection to the server of `server_key`, started if none listens, ""), or (None, why there
    is none within `START_SECONDS`, or why it is not used). The connection's operations time out
    after `timeout` seconds ($WGC_SERVER_TIMEOUT by default). `start_one=False`: none is started."""
    if timeout is None:
        timeout = protocol.timeout_seconds()
    try:
        return _connect(where, timeout)
    except TimeoutError:                # one listens but does not accept: it is stalled
        return None, "it did not accept the connection in time"
    except protocol.Unavailable as err:
        return None, str(err)
    except OSError:
        if not start_one:
            return None, "no server listens"
    if not protocol.supported():
        return None, "this platform has no file locks (fcntl)"
    deadline = time.monotonic() + START_SECONDS
    problem = start(server_key, deadline)
    if problem is not None:
        return None, problem
    while True:
        try:
            return _connect(where, timeout)
        except protocol.Unavailable as err:
            return None, str(err)
        except OSError as err:
            if isinstance(err, TimeoutError):
                return None, "it did not accept the connection in time"
            if time.monotonic() > deadline:
                return None, "it did not listen in time"
            time.sleep(0.02)


def _connect(where: protocol.Paths, timeout: float) -> "tuple[Any, str]":
    """(a connection to the socket of `where`, ""); `Unavailable` when another user listens there."""
    connection = protocol.connect(where.socket, timeout)
    if not protocol.same_user(connection):
        connection.close()
        raise protocol.Unavailable(f"'{where.socket}' is served by another user's process")
    return connection, ""


def start(server_key: str, deadline: float) -> str | None:
    """Start a server for `server_key` in the background: None when one listens (this one, or another
    that won the race and is starting), else why not."""
    if not sys.executable:
        return "no Python interpreter to start it with"
    import os
    import select
    import subprocess   # only its list of this interpreter's flags

    flags = subprocess._args_from_interpreter_flags()        # type: ignore[attr-defined]
    path = [entry or os.getcwd() for entry in sys.path]
    environment: "Mapping[str, str]" = os.environ
    if sys.flags.utf8_mode and "utf8" not in sys._xoptions and not os.environ.get("PYTHONUTF8"):
        # Python turned its UTF-8 mode on for the C locale (PEP 540) after setting LC_CTYPE=C.UTF-8 in
        # this environment (PEP 538): a server started with it would not, and its key would differ
        environment = {**os.environ, "PYTHONUTF8": "1"}
    ready, ready_writer = os.pipe()
    try:
        os.set_inheritable(ready_writer, True)
        null = os.devnull
        pid = os.posix_spawn(sys.executable, [sys.executable, *flags, "-c", BOOT, str(ready_writer), server_key, *path],
                             environment, setsid=True,
                             file_actions=[(os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
                                           (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                                           (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)])
    except (OSError, NotImplementedError, ValueError) as err:
        os.close(ready)
        return f"it could not be started: {err}"
    finally:
        os.close(ready_writer)
    answer = b""
    try:
        while not answer.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([ready], [], [], left)[0]:
                return "it did not start in time"
            more = os.read(ready, 4096)
            if not more:
                break
            answer += more
    finally:
        os.close(ready)
        if answer.strip() != b"ready":
            try:
                os.waitpid(pid, 0 if answer else os.WNOHANG)     # it ends (or ended) on its own
            except ChildProcessError:
                pass
    word, _, reason = answer.decode(errors="replace").strip().partition(" ")
    if word in ("ready", "busy"):
        return None
    return reason or "it ended before it was ready"


def _exchange(connection: "Any", request: "dict[str, Any]", signals: _Signals, timeout: float) -> int | None | object:
    """Send `request`, say GO once the server's child is ready, and wait for the command's end: the
    exit status, None (refused, or not taken in time: compile in process), or _RETRY (the server
    closed before running it)."""
    deadline = time.monotonic() + timeout
    signals.pid, signals.forwarded, signals.connection = None, [], connection   # (a new attempt: nothing runs yet)
    try:
        connection.settimeout(timeout)
        protocol.send(connection, protocol.COMPILE, request)
        connection.settimeout(max(0.001, deadline - time.monotonic()))
        kind, body, fds = protocol.receive(connection)
    except TimeoutError:
        return None
    except (OSError, EOFError, ValueError, TypeError):
        return _RETRY
    for fd in fds:
        system.close(fd)
    if kind == protocol.REFUSED:
        retry, _reason = body
        return _RETRY if retry else None
    if kind != protocol.RUNNING or not isinstance(body, int):
        return None                    # not GO: nothing runs
    signals.pid = body                 # from now on a signal is the child's
    descriptors = tuple(fd for fd, (is_open, *_how) in enumerate(request["stdio"]) if is_open)
    try:
        connection.settimeout(timeout)
        protocol.send(connection, protocol.GO, None, descriptors)
    except OSError:                    # it never got GO: nothing ran
        return 128 + signals.forwarded[0] if signals.forwarded else _RETRY
    return _wait(connection, body, timeout, signals)


def _wait(connection: "Any", pid: int, grace: float, signals: _Signals) -> int | None | object:
    """Wait for the command's end (its child's report, or the server's): the exit status. A child
    that is gone without a report for `grace` seconds (its server stalled or dead) is `report_lost`; one
    killed by a signal this client did not forward is reported (WG0029), then the client ends by
    that signal too."""
    connection.settimeout(POLL_SECONDS)
    gone_since = None
    while True:
        try:
            kind, body, fds = protocol.receive(connection)
        except TimeoutError:
            if _alive(pid):
                gone_since = None
            elif gone_since is None:
                gone_since = time.monotonic()
            elif time.monotonic() - gone_since > grace:
                return report_lost(pid)
            continue
        except (OSError, EOFError, ValueError, TypeError):
            return report_lost(pid)
        for fd in fds:
            system.close(fd)
        if kind == protocol.REFUSED:   # the child gave up before GO reached it: nothing ran
            retry, _reason = body
            return _RETRY if retry else None
        if kind == protocol.EXITED:
            how, number = body
            if how == "signal":
                if int(number) not in signals.forwarded:
                    return report_signal(pid, int(number))
                _end_by_signal(int(number))
                return 128 + int(number)
            return int(number)


def _alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, which its stalled server did not reap, does not)."""
    import os

    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return False
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass
    return True


def report_signal(pid: int, number: int) -> int:
    """The server's child running this command was killed by signal `number`, which this client did
    not forward: say so (WG0029), then end by that signal too (128 + it, where that returns)."""
    _report_lost(f"the compile server's process for this command (pid {pid}) was killed by "
                 f"signal {number}; its outputs may be missing or left from an earlier run")
    _end_by_signal(number)
    return 128 + number


def report_lost(pid: int) -> int:
    """The server's child ended without reporting the command's exit status (it was killed, with its
    server): say so (WG0029), exit 1. Its outputs are whatever it had committed (each is whole)."""
    _report_lost(f"the compile server's process for this command (pid {pid}) ended without reporting its exit "
                 "status (it was killed, and its server is gone); its outputs may be missing or left from an "
                 "earlier run: run the command again")
    return 1


def _report_lost(message: str) -> None:
    """`message` as a WG0029 error on standard error (the command's fate is unknown or violent)."""
    from wgc import codes
    from wgc.diagnostics import Renderer, RenderOptions, color_wanted

    problem = codes.SERVER_LOST(None, message)
    stream = sys.stderr
    if stream is not None:
        try:
            colour = color_wanted("auto", stream.isatty())
            stream.write(Renderer(RenderOptions(format="clang", color=colour)).render([problem]))
            stream.flush()
        except (OSError, ValueError):
            pass


def _end_by_signal(number: int) -> None:
    """End this process by signal `number`, as the server's child was (returns if it does not end it)."""
    try:
        signal.signal(number, signal.SIG_DFL)
    except (OSError, ValueError):      # SIGKILL, SIGSTOP: their handling cannot be changed (nor needs to)
        pass
    try:
        system.kill(system.getpid(), number)
    except OSError:
        pass
