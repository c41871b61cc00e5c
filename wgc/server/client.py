"""The compile server's thin client: a `wgc compile`/`wgc inspect` handed to a warm server.

Stage: first code of the process (`wgc.entry`), after the compile cache had no answer; standard
library, `wgc.server.protocol` and `wgc.buildcache` only (no click, no compiler stage).
Input: the command line, the current folder, the whole environment, the umask, the resource
limits and the process's standard input, output and error (their descriptors, passed with
SCM_RIGHTS).
Output: the command's exit status (the server's child ran the normal `wgc.cli.main` with them),
or None: the caller compiles in process.

Invariants:
- Never fails a command because of the server: a server that cannot be reached, started (within
  `START_SECONDS`) or that refuses the request means None, and nothing was run; the command is then
  compiled in process. A request is sent once per attempt, and a refused or unanswered one was not
  run (the server says so before running), so a command never runs twice.
- Once the server's child runs the command, the client only waits: SIGINT, SIGTERM and SIGHUP are
  forwarded to the child (which cleans up as an in-process compile does), and a child killed by a
  signal makes the client end by that signal.
- Starting a server: `python -c BOOT` in a new session, its standard streams on /dev/null, with
  this interpreter's flags and `sys.path` (so it imports this very wgc); it reports on a pipe
  "ready", "busy" (another server won the race: the client connects to that one) or an error.
"""

from __future__ import annotations

import os
import signal
import sys
import time

TYPE_CHECKING = False   # not `typing`'s: the client does without it (4 ms)
if TYPE_CHECKING:
    from typing import Any

from wgc.server import protocol

SERVED_COMMANDS = frozenset({"compile", "inspect"})
COMMANDS = frozenset({"compile", "inspect", "run", "cache", "server"})
"""`wgc.cli`'s commands (a test checks): any other first word means `compile` (dxc-style)."""
NOT_COMMANDS = frozenset({"--version", "-h", "--help", "-help"})
START_SECONDS = 30.0
"""How long a client waits for a server it started (or that another client started) to listen."""
ATTEMPTS = 2
"""Connections tried when a server closes before running the request (it was stopping)."""
FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")

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


def run(argv: list[str]) -> int | None:
    """Run `argv` on the server (started if needed): its exit status, or None (compile in process)."""
    if not protocol.supported():
        return None
    try:
        cwd = os.getcwd()
        server_folder = protocol.folder()
        server_key = protocol.key()
    except (OSError, protocol.Unavailable):
        return None
    from wgc.buildcache import fingerprint

    umask = os.umask(0o022)
    os.umask(umask)
    request = {"fingerprint": fingerprint(), "argv": list(argv), "argv0": sys.argv[0] if sys.argv else "wgc",
               "cwd": cwd, "env": dict(os.environ), "umask": umask, "limits": protocol.limits(), "stdio": _stdio()}
    where = protocol.paths(server_folder, server_key)
    for _attempt in range(ATTEMPTS):
        connection, _problem = connect_or_start(where, server_key)
        if connection is None:
            return None
        try:
            outcome = _exchange(connection, request)
        finally:
            connection.close()
        if outcome is not _RETRY:
            return outcome  # type: ignore[return-value]
    return None


def _stdio() -> list[tuple[bool, str, str, bool, bool]]:
    """(open, encoding, errors, line buffering, write-through) of standard input, output and error."""
    streams = []
    for fd, stream in ((0, sys.stdin), (1, sys.stdout), (2, sys.stderr)):
        try:
            os.fstat(fd)
            is_open = True
        except OSError:
            is_open = False
        streams.append((is_open, getattr(stream, "encoding", None) or "utf-8",
                        getattr(stream, "errors", None) or "strict", bool(getattr(stream, "line_buffering", False)),
                        bool(getattr(stream, "write_through", False))))
    return streams


def connect_or_start(where: protocol.Paths, server_key: str) -> tuple[Any, str]:
    """(a connection to the server of `server_key`, started if none listens, ""), or (None, why there
    is none within `START_SECONDS`)."""
    try:
        return protocol.connect(where.socket), ""
    except (OSError, protocol.Unavailable):
        pass
    deadline = time.monotonic() + START_SECONDS
    problem = start(server_key, deadline)
    if problem is not None:
        return None, problem
    while True:
        try:
            return protocol.connect(where.socket), ""
        except protocol.Unavailable as err:
            return None, str(err)
        except OSError:
            if time.monotonic() > deadline:
                return None, "it did not listen in time"
            time.sleep(0.02)


def start(server_key: str, deadline: float) -> str | None:
    """Start a server for `server_key` in the background: None when one listens (this one, or another
    that won the race and is starting), else why not."""
    if not sys.executable:
        return "no Python interpreter to start it with"
    import select
    import subprocess   # only its list of this interpreter's flags

    flags = subprocess._args_from_interpreter_flags()        # type: ignore[attr-defined]
    path = [entry or os.getcwd() for entry in sys.path]
    ready, ready_writer = os.pipe()
    try:
        os.set_inheritable(ready_writer, True)
        null = os.devnull
        pid = os.posix_spawn(sys.executable, [sys.executable, *flags, "-c", BOOT, str(ready_writer), server_key, *path],
                             os.environ, setsid=True,
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


def _exchange(connection: Any, request: dict[str, Any]) -> int | None | object:
    """Send `request` and wait for its end: the exit status, None (refused), or _RETRY (the server
    closed before running it)."""
    state: dict[str, Any] = {"pid": None, "pending": []}

    def forward(signum: int, _frame: Any) -> None:
        if state["pid"] is None:
            state["pending"].append(signum)
            return
        try:
            os.kill(state["pid"], signum)
        except OSError:
            pass

    previous = {}
    try:
        for name in FORWARDED_SIGNALS:
            number = getattr(signal, name)
            previous[number] = signal.signal(number, forward)
    except ValueError:          # not the main thread: nothing is forwarded
        pass
    try:
        descriptors = tuple(fd for fd, (is_open, *_how) in enumerate(request["stdio"]) if is_open)
        try:
            protocol.send(connection, protocol.COMPILE, request, descriptors)
        except OSError:
            return _RETRY
        while True:
            try:
                kind, body, fds = protocol.receive(connection)
            except (OSError, EOFError, ValueError, TypeError):
                if state["pid"] is None:
                    return _RETRY
                return _lost(state["pid"])
            for fd in fds:
                os.close(fd)
            if kind == protocol.RUNNING:
                state["pid"] = int(body)
                for signum in state["pending"]:
                    forward(signum, None)
            elif kind == protocol.REFUSED:
                retry, _reason = body
                return _RETRY if retry else None
            elif kind == protocol.EXITED:
                how, number = body
                if how == "signal":
                    _end_by_signal(int(number))
                    return 128 + int(number)
                return int(number)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if state["pid"] is None:       # not run here: a signal that came meanwhile is this process's again
            for signum in state["pending"]:
                os.kill(os.getpid(), signum)


def _lost(pid: int) -> int:
    """The server ended while its child ran the command: wait for the child, then report (exit 3)."""
    while True:
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.02)
    sys.stderr.write("wgc: internal error: the compile server ended before it reported the command's exit "
                     "status; run the command again (without WGC_SERVER=1 or --server to compile in process)\n")
    return 3


def _end_by_signal(number: int) -> None:
    """End this process by signal `number`, as the server's child was (returns if it does not end it)."""
    try:
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    except (OSError, ValueError):
        pass
