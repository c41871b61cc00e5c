"""A reused worker of the compile server: one process, forked from the warm server, that runs
commands one after the other, so that the fork and the first compile's copies of the server's
pages are paid once per worker instead of once per command.

Stage: around the CLI (`wgc.server.daemon` forks it and hands it requests).
Input: HANDOFF messages on its control socket (`protocol`): a request and the client's
connection. Output: per command, what `wgc.server.command` does (the client's state adopted, its
consent, the run), DONE to the server ((reusable, why not): the server may hand it the next
request from then on), then EXITED to the client.

Invariants:
- Each command runs as if alone: before it, the process adopts the client's folder, environment,
  umask, signal dispositions, argv and standard streams (`command.adopt`); the server hands a
  worker only requests whose resource limits are the worker's own (others get a process of their
  own). After it, standard input, output and error are /dev/null again before the client hears
  EXITED (a pipeline reading the command's output ends with the command), and the folder is /, the
  environment and umask the worker's.
- A forwarded signal reaches only its own command (`command.Watch`).
- A worker is used again only if the command left no process-wide state behind: the same signal
  dispositions and mask, descriptors, threads, resource limits, import machinery (`sys.path`,
  meta path, path hooks), warning filters, recursion limit, collector settings, switch interval,
  trace and profile functions, hooks (`State`); no new top-level module from outside wgc and the
  standard library (a plugin may hold state; a submodule of a package loaded before, e.g. click's
  help formatting, is part of what wgc already uses); its exit status neither an internal
  error (3) nor an interrupt (> 128); its resident memory at most `MEMORY_GROWTH` above what it
  was after its first command. Otherwise it says so in DONE and exits; the server forks another
  when needed. A worker whose control socket closes (the server stops or died) exits after its
  command.
"""

from __future__ import annotations

import gc
import io
import os
import signal
import socket
import sys
import sysconfig
import threading
import warnings
from typing import Any, NoReturn

from wgc.portable import signals
from wgc.server import command, protocol

MEMORY_GROWTH = 256 << 20
"""Resident memory (bytes) a worker may gain over its size after its first command."""


def serve(control: socket.socket) -> NoReturn:
    """The worker's life: run the requests handed over `control` until told to go; never returns."""
    null = os.open(os.devnull, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    idle = _Idle(null)
    idle.restore()
    kept = Kept()
    while True:
        try:
            kind, request, fds = protocol.receive(control)
        except (OSError, EOFError, ValueError, TypeError):
            os._exit(0)
        if kind != protocol.HANDOFF or len(fds) != 1:
            os._exit(0)
        connection = socket.socket(fileno=fds[0])
        if not run_one(connection, request, idle, kept, control):
            os._exit(0)


class _Idle:
    """The worker between commands: standard streams on /dev/null, folder /, its own environment
    and umask."""

    def __init__(self, null: int) -> None:
        self.null = null
        self.environ = dict(os.environ)
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.streams = [io.TextIOWrapper(io.open(fd, "rb" if fd == 0 else "wb", closefd=False), encoding="utf-8",
                                         errors="replace") for fd in range(3)]

    def restore(self) -> None:
        for fd in range(3):
            os.dup2(self.null, fd)
        sys.stdin, sys.stdout, sys.stderr = self.streams
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = self.streams     # type: ignore[misc]
        os.chdir("/")
        command.set_environment(self.environ)
        os.umask(self.umask)
        sys.argv = ["wgc"]


class Kept:
    """What a worker keeps across its commands: its resident memory after the first, and the thread
    that watches each command's connection (`command.Watch`, started by the first: a thread per
    command cost more than the command's other handling)."""

    def __init__(self) -> None:
        self.resident: int | None = None
        self.watch: command.Watch | None = None


def run_one(connection: socket.socket, request: dict[str, Any], idle: _Idle, kept: Kept,
            control: socket.socket) -> bool:
    """Run one handed-over request to its end: DONE to the server on `control` (first, so that the
    server knows the worker free before the client can send its next command), then EXITED to the
    client; whether this worker may run another."""
    streams_taken = False
    try:
        connection.setblocking(True)
        if request["limits"] != protocol.limits():
            raise ValueError("its resource limits are not the worker's")
        command.adopt(request)
        interrupted, streams = command.consent(connection, request)
        if interrupted is None:
            streams_taken = True
            command.adopt_streams(request, streams)
    except BaseException as err:       # nothing was run: the client compiles in process
        try:
            protocol.send(connection, protocol.REFUSED, (False, f"the request could not be set up: {err}"))
        except BaseException:
            pass
        connection.close()
        idle.restore()                 # a failure amid the client's descriptors may have left one open
        return _done(control, (False, f"its set-up failed: {err}") if streams_taken else (True, ""))
    if interrupted is not None:        # a signal before GO: nothing was run, as an interrupt at the start
        idle.restore()
        reusable = _done(control, (True, ""))
        command.report(connection, interrupted)
        connection.close()
        return reusable
    if kept.watch is None:
        kept.watch = command.Watch(connection)
    else:
        kept.watch.rearm(connection)
    watch = kept.watch
    before = State.capture()
    modules = set(sys.modules)
    code = command.run_command()
    watch.finish()
    after = State.capture()
    idle.restore()                     # the client's descriptors closed before it hears the end
    reusable = _done(control, verdict(code, before, after, modules, kept))
    command.report(connection, code)
    watch.release()
    return reusable


def _done(control: socket.socket, outcome: tuple[bool, str]) -> bool:
    """Send DONE with `outcome`; whether the worker goes on (not when the server is gone)."""
    try:
        protocol.send(control, protocol.DONE, outcome)
    except OSError:
        return False
    return outcome[0]


def verdict(code: int, before: State, after: State, modules: set[str], kept: Kept) -> tuple[bool, str]:
    """(whether the worker may run another command, why not) after a command that ended with `code`,
    with the process state `before` and `after` it and the modules loaded before it."""
    if code == 3 or code > 128:
        return False, f"the command ended with {code}"
    changed = before.differences(after)
    if changed:
        return False, "the command changed " + ", ".join(changed)
    foreign = sorted(name for name in set(sys.modules) - modules
                     if name.partition(".")[0] not in modules and not _harmless(sys.modules.get(name)))
    if foreign:
        return False, "the command loaded " + ", ".join(foreign[:5])
    resident = _resident_bytes()
    if kept.resident is None:
        kept.resident = resident
    elif resident is not None and resident > kept.resident + MEMORY_GROWTH:
        return False, f"it grew to {resident >> 20} MiB"
    return True, ""


_HOME = tuple({os.path.abspath(p) for p in (sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")) if p})
"""The standard library's folders (its modules, like wgc's, hold no state of a command)."""


def _harmless(module: Any) -> bool:
    """Whether `module`, newly imported by a command, is wgc's or the standard library's."""
    spec = getattr(module, "__spec__", None)
    if module is None or spec is None:
        return module is None
    origin = spec.origin
    if origin in ("built-in", "frozen") or spec.name.partition(".")[0] == "wgc":
        return True
    if not isinstance(origin, str):
        return False
    path = os.path.abspath(origin)
    return any(path.startswith(home + os.sep) and "site-packages" not in path[len(home):] for home in _HOME)


def _resident_bytes() -> int | None:
    """This process's resident memory now (Linux: /proc/self/statm), None where unknown."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class State:
    """The process-wide state a command could leave behind (see the module docstring)."""

    NAMES = ("signal dispositions", "the signal mask", "open descriptors", "threads", "resource limits",
             "sys.path", "the import machinery", "warning filters", "the recursion limit",
             "the garbage collector's settings", "the switch interval", "trace or profile functions",
             "the process's hooks")

    def __init__(self, values: tuple[Any, ...]) -> None:
        self.values = values

    @classmethod
    def capture(cls) -> State:
        dispositions = []
        getsignal = signals.getsignal         # the C function: no enum per call
        for number in command.CATCHABLE:
            try:
                dispositions.append((number, getsignal(number)))
            except (ValueError, OSError):
                pass
        return cls((tuple(dispositions), frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
                    _descriptors(), frozenset(t.ident for t in threading.enumerate()), protocol.limits(),
                    list(sys.path), (list(sys.meta_path), list(sys.path_hooks)), list(warnings.filters),
                    sys.getrecursionlimit(), (gc.isenabled(), gc.get_threshold()), sys.getswitchinterval(),
                    (sys.gettrace(), sys.getprofile(), threading.gettrace(), threading.getprofile()),
                    (sys.excepthook, sys.displayhook, sys.unraisablehook, sys.breakpointhook,
                     threading.excepthook)))

    def differences(self, other: State) -> list[str]:
        return [name for name, mine, theirs in zip(self.NAMES, self.values, other.values) if mine != theirs]


def _descriptors() -> frozenset[str]:
    """The open descriptors of this process (Linux, macOS: /dev/fd), empty where unknown."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return frozenset(os.listdir(folder))
        except OSError:
            continue
    return frozenset()
