"""One command in a process of the compile server: the client's state adopted, its consent, the run,
the report.

Stage: around the CLI; used by the server's processes that run commands (`wgc.server.daemon`'s
one-shot child, `wgc.server.worker`'s reused worker). Imports `wgc.server.protocol` and, to run the
command, `wgc.cli`.
Input: a request (`protocol`: argv, folder, environment, umask, resource limits, the signals the
client ignores, its standard streams' settings) and the connection it came on.
Output: this process made the client's (`adopt`, `adopt_streams`), the command's exit status
(`run_command`), reported to the client (`report`).

Invariants:
- The command runs only once the client said GO (`consent`); the client's standard streams arrive
  only with GO. A SIGNAL message before GO means nothing runs (128 + N).
- While the command runs, `Watch` reads the connection in a thread: a SIGNAL message (a signal the
  client received and forwards) is raised in the main thread (`signal.pthread_kill`), and the client
  going away raises SIGTERM; both only until `Watch.finish`, which takes the same lock: a signal
  forwarded by a client whose command ended never reaches this process's next command.
- Signal dispositions as a fresh `wgc` process of the client has them: every catchable signal the
  client ignores (SIG_IGN, inherited from its parent) is ignored, every other one is at its
  default; SIGINT, SIGTERM and SIGHUP, which wgc handles itself while a command runs
  (`wgc.interrupts`), have a handler that does nothing outside a command (a forwarded signal that
  lands after the command's end is dropped there, not taken for a new one).
"""

from __future__ import annotations

import io
import os
import signal
import socket
import sys
import threading
from typing import Any

from wgc.portable import signals
from wgc.server import protocol

WAIT_SECONDS = 10.0
"""How long a process waits for the client's GO once it said RUNNING."""
HANDLED = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals wgc handles itself while a command runs (`wgc.interrupts`)."""
UNCATCHABLE = frozenset(getattr(signal, name) for name in ("SIGKILL", "SIGSTOP") if hasattr(signal, name))
CATCHABLE = tuple(sorted(int(number) for number in signals.valid_signals() if number not in UNCATCHABLE))
"""The signals whose disposition a process may set, as plain numbers, read once (`signal.valid_signals`
makes an enum member of each, which costs more than setting them all)."""


def _between_commands(_signum: int, _frame: Any) -> None:
    """SIGINT, SIGTERM and SIGHUP outside a command: nothing (see the module docstring)."""


def set_dispositions(ignored: list[int] | tuple[int, ...]) -> None:
    """Every catchable signal ignored when in `ignored`, else at its default; wgc's own three at
    `_between_commands` (the command's `wgc.interrupts` takes them while it runs)."""
    ignore = set(ignored)
    getsignal, setsignal = signals.getsignal, signals.signal      # the C functions: no enum per call
    for number in CATCHABLE:
        wanted = (_between_commands if number in HANDLED
                  else signals.SIG_IGN if number in ignore else signals.SIG_DFL)
        try:
            if getsignal(number) != wanted:
                setsignal(number, wanted)
        except (ValueError, OSError):
            pass


def adopt(request: dict[str, Any]) -> None:
    """Make this process the client's: its folder, environment, umask, resource limits, signal
    dispositions, argv (its standard streams come with GO: `adopt_streams`)."""
    os.chdir(request["cwd"])
    set_environment(request["env"])
    os.umask(request["umask"])
    if request["limits"] and request["limits"] != protocol.limits():
        import resource

        for name, (soft, hard) in request["limits"].items():
            resource.setrlimit(getattr(resource, name), (soft, hard))     # fails: compiled in process
    set_dispositions(request["ignored"])
    sys.argv = [request["argv0"], *request["argv"]]


def set_environment(wanted: dict[str, str]) -> None:
    """Make `os.environ` (and so the process's environment) `wanted`: the same names, in the same
    order, with the same values; where only values differ, only those are set (a worker's
    environment is mostly its client's)."""
    environ = os.environ
    if list(environ) == list(wanted):
        for name, value in wanted.items():
            if environ[name] != value:
                environ[name] = value
    else:
        environ.clear()
        environ.update(wanted)


def consent(connection: socket.socket, request: dict[str, Any]) -> tuple[int | None, list[int]]:
    """Say RUNNING (this pid) and wait for the client's GO, which brings its open standard streams:
    (None, their descriptors) once it came; (128 + N, []) when the client forwarded signal N
    first. Raises when the client goes away or says anything else (then nothing runs). The
    descriptors come only now, so a server that stalls before this point never holds the client's
    standard output (a pipeline would wait for it)."""
    protocol.send(connection, protocol.RUNNING, os.getpid())
    connection.settimeout(WAIT_SECONDS)
    kind, body, streams = protocol.receive(connection)
    if kind == protocol.SIGNAL and isinstance(body, int) and not streams:
        return 128 + body, []
    if kind != protocol.GO or len(streams) != sum(bool(spec[0]) for spec in request["stdio"]):
        for fd in streams:
            os.close(fd)
        raise ValueError("the client did not say GO with its standard streams")
    connection.settimeout(None)
    return None, streams


class Watch:
    """The connection watched while the command runs (see the module docstring). One watching thread
    serves the commands of a process one after the other: a reused worker hands it the next
    command's connection (`rearm`) once the previous one is `release`d, instead of starting a
    thread per command."""

    def __init__(self, connection: socket.socket) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.connection: socket.socket | None = connection     # the command's, until `release`
        self.held = True               # whether the thread reads `connection` (until it ends)
        self.finished = False
        self.ending = False
        self.main = threading.main_thread().ident
        self.thread = threading.Thread(target=self._serve, name="wgc-client-watch", daemon=True)
        self.thread.start()

    def rearm(self, connection: socket.socket) -> None:
        """Watch `connection`, the next command's (the previous one `release`d)."""
        with self.lock:
            self.connection, self.held, self.finished = connection, True, False
            self.changed.notify_all()

    def _serve(self) -> None:
        while True:
            with self.lock:
                while not self.held and not self.ending:
                    self.changed.wait()
                if self.ending:
                    return
                connection = self.connection
            assert connection is not None
            try:
                self._watch(connection)
            except Exception:          # noqa: BLE001 - unexpected: this connection is no longer watched (as
                pass                   # when a thread per command died of it); the next one is
            with self.lock:            # done with it: `release` may close it now
                self.held = False
                self.changed.notify_all()

    def _watch(self, connection: socket.socket) -> None:
        while True:
            try:
                kind, body, fds = protocol.receive(connection)
            except (OSError, EOFError, ValueError, TypeError):
                self._raise(signal.SIGTERM)          # the client went away: stop its command
                return
            for fd in fds:
                os.close(fd)
            if kind == protocol.SIGNAL and isinstance(body, int) and body in HANDLED:
                self._raise(body)

    def _raise(self, signum: int) -> None:
        with self.lock:
            if not self.finished and self.main is not None:
                signal.pthread_kill(self.main, signum)

    def finish(self) -> None:
        """The command ended: no signal is raised from now on, and one raised before has run its
        handler when this returns (the handlers are `_between_commands` by then)."""
        with self.lock:
            self.finished = True
        for number in HANDLED:
            signal.signal(number, _between_commands)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])     # a system call: pending signals are delivered, handled

    def release(self) -> None:
        """Close the command's connection once the watching thread let go of it (it reads nothing
        more of it, so the descriptor's number can serve the next connection); the thread waits
        for `rearm`."""
        connection = self.connection
        if connection is None:
            return
        try:
            connection.shutdown(socket.SHUT_RDWR)         # the thread's read ends
        except OSError:
            pass
        with self.lock:
            while self.held:
                self.changed.wait()
            self.connection = None
        connection.close()

    def close(self) -> None:
        """`release` the connection and end the watching thread (waiting for it)."""
        self.release()
        with self.lock:
            self.ending = True
            self.changed.notify_all()
        self.thread.join()


def report(connection: socket.socket, code: int) -> None:
    """Tell the client the command's exit status (it may have gone: then nobody listens)."""
    try:
        protocol.send(connection, protocol.EXITED, ("exit", code))
    except OSError:
        pass


def adopt_streams(request: dict[str, Any], fds: list[int]) -> None:
    """Make the client's standard input, output and error (`fds`, those open) this process's."""
    received = list(fds)
    for target, (is_open, *_how) in enumerate(request["stdio"]):
        if is_open:
            source = received.pop(0)
            os.dup2(source, target)
            os.close(source)
        else:
            try:
                os.close(target)
            except OSError:
                pass
    streams = [_standard_stream(fd, *spec) for fd, spec in enumerate(request["stdio"])]
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams        # type: ignore[misc]


def _standard_stream(fd: int, is_open: bool, encoding: str, errors: str, line_buffering: bool,
                     write_through: bool) -> Any:
    """The text stream the client's Python made for standard descriptor `fd` (None when closed)."""
    if not is_open:
        return None
    binary = io.open(fd, "rb" if fd == 0 else "wb", closefd=False)
    binary.raw.name = ("<stdin>", "<stdout>", "<stderr>")[fd]       # type: ignore[attr-defined]
    stream = io.TextIOWrapper(binary, encoding=encoding, errors=errors, newline="\n",
                              line_buffering=line_buffering, write_through=write_through)
    stream.mode = "r" if fd == 0 else "w"                                                  # type: ignore[misc]
    return stream


def run_command() -> int:
    """Run the command as the `wgc` process would (with its arguments given, `cli.main` returns
    instead of ending the process, so the caller reports the status itself); the exit status, once
    standard output and error are flushed."""
    try:
        from wgc import cli, startup_cache

        code = cli.main(sys.argv[1:], consult_cache=False)
        startup_cache.flush()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    except KeyboardInterrupt:          # SIGINT before the command's own handling began
        code = 128 + signal.SIGINT
    except BaseException:              # cli.main reports internal errors itself; this is a last resort
        code = 3
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        code = 120                     # what Python's own exit does when flushing fails
    return code
