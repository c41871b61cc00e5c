"""The compile server: imports and warms the compiler once, then hands each request to a reused
worker, or forks a child for it.

Stage: around the CLI. Input: requests on its Unix-domain socket (`wgc.server.protocol`): a
command line, folder, environment, umask, resource limits, ignored signals and the client's
standard input, output and error.
Output: per request, a process that adopts all of these and runs the normal `wgc.cli.main`, so its
outputs, diagnostics, colours, depfiles, atomic writes and exit status are the in-process
command's (`wgc.server.command`): one of up to `MAX_WORKERS` workers (`wgc.server.worker`) when
the request's resource limits are the server's and one is idle or may be started, else a child
forked for the request; the server reports a worker's or child's death by a signal while it ran
the command to the client.

Invariants:
- One server per key and user: the server holds an exclusive flock on its pid file for its whole
  life; whoever gets it replaces a stale socket file (a killed server's) and binds, and a server
  that finds the lock held exits ("busy"): two clients starting servers at once get one server.
- It listens only once warm (imports done, a small compile and an inspect run, the collector's
  survivors frozen), so a client that connects is answered at once.
- Stale code never answers: each request carries the fingerprint the client read from the files
  on disk for this very command (`wgc.entry.main` forgets a previous command's), which must equal
  the one the server read when it started: a file changed since then makes them differ, and the
  request is refused (the client's key names another server). A native launcher's request
  (`native_client.c`) carries None: the server reads its files for it, and when they changed it
  refuses the request and stops. The server also reads its files
  every `FILE_CHECK_SECONDS` while idle (counted from the last request it ran, whose client read
  them); a change stops it.
- Single-threaded (a selector loop; SIGCHLD through the wakeup descriptor), so forking is safe.
  No connection blocks the loop: a request is read as its bytes come (non-blocking), and a
  connection that has not sent a whole request within `REQUEST_SECONDS` (or that sends garbage,
  or more than `MAX_PENDING` waiting at once) is closed; replies are a few bytes.
- Only this user: a connection from another uid (SO_PEERCRED) is closed unread, and the server's
  files are opened without following links in its private folder (`protocol.folder`).
- A worker or child closes everything of the server (listening socket, lock, selector, other
  connections, the workers' control sockets), restores the default signal handlers and ends with
  `os._exit`: it never runs the server's code. A worker talks to the server over a socketpair (no
  path): HANDOFF brings it a request and its connection, DONE (sent before the client hears
  EXITED) makes it idle again or, when it may not run another command, retires it. Either runs
  the command only once the client said GO (`protocol`), reports its exit status to the client
  itself (so a client learns it even if the server died meanwhile), and a thread of it watches the
  connection (`command.Watch`): a forwarded signal is raised in it while the command runs, and a
  client that goes away gets its command SIGTERMed (it cleans up as an interrupted compile does).
- Started by a client, it keeps no descriptor of the command that started it: its standard streams
  are /dev/null (then its log), every other inherited descriptor is closed (a pipeline reading
  the command's output ends when the command does).
- It stops after `$WGC_SERVER_IDLE` seconds without a request (default 600), on SIGTERM, SIGINT or
  SIGHUP (`wgc server --stop` sends SIGTERM), and when its files change: it unlinks its socket first
  (new clients start a new server), tells connections still queued to retry, waits for its running
  children, then removes its pid file and releases the lock.
"""

from __future__ import annotations

import errno
import fcntl
import gc
import os
import selectors
import signal
import socket
import sys
import time
from typing import Any

from wgc import buildcache
from wgc.server import command, protocol
from wgc.server import worker as worker_process    # imported here: a forked worker starts at once

FILE_CHECK_SECONDS = 2.0
"""How often an idle server looks for a change of its own files."""
REQUEST_SECONDS = 10.0
"""How long the server waits for a connected client's request, and its child for the client's GO."""
MAX_PENDING = 64
"""Connections whose request is still being read, at most (more are closed at once)."""
NOT_RUN = 125
"""A child's exit status when it could not set up the command (the client compiled in process)."""
MAX_WORKERS = max(1, min(os.cpu_count() or 1, 8))
"""Reused workers (`wgc.server.worker`) at most; a request that finds them all busy gets a child."""

WARM_SOURCE = """\
struct Work { uint3 grid : SV_DispatchGrid; float4 value; };
struct Item { uint index; };
RWStructuredBuffer<float> Output : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(64, 1, 1)]
void Entry(DispatchNodeInputRecord<Work> input, uint thread : SV_DispatchThreadID,
           [MaxRecords(64)] NodeOutput<Item> Leaf) {
    ThreadNodeOutputRecords<Item> item = Leaf.GetThreadNodeOutputRecords(1);
    item.Get().index = thread * 2u + (uint)input.Get().value.x;
    item.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> item) { Output[item.Get().index] = sqrt((float)item.Get().index); }
"""


class Busy(Exception):
    """Another server holds the lock of this key (its pid, or None when unknown)."""

    def __init__(self, pid: int | None) -> None:
        super().__init__(pid)
        self.pid = pid


def read_pid(path: str) -> int | None:
    try:
        with open(path, "rb") as handle:
            return int(handle.read().strip() or b"0") or None
    except (OSError, ValueError):
        return None


class Server:
    """One server: `claim`, `warm`, `listen`, then `serve` until it stops (see the module docstring)."""

    def __init__(self, server_folder: str, server_key: str, idle: float) -> None:
        self.folder = server_folder
        self.key = server_key
        self.paths = protocol.paths(server_folder, server_key)
        self.idle = idle
        self.fingerprint = buildcache.fingerprint()
        self.lock_fd: int | None = None
        self.listener: socket.socket | None = None
        self.selector: selectors.BaseSelector | None = None
        self.wakeup: tuple[int, int] | None = None
        self.children: dict[int, socket.socket] = {}
        self.workers: dict[int, _Worker] = {}
        self.limits = protocol.limits()
        self.pending: dict[socket.socket, _Incoming] = {}
        self.served = 0
        self.checked_for_launchers = 0
        """Requests of native launchers whose fingerprint the server read (`_refusal`)."""
        self.started = time.time()
        self.last_activity = time.monotonic()
        self.next_file_check = self.last_activity + FILE_CHECK_SECONDS
        self.stopping: str | None = None

    # ------------------------------------------------------------------ start

    def claim(self) -> None:
        """Take the lock of this key and write the pid file; `Busy` when another server holds it."""
        while True:
            fd = os.open(self.paths.pid, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise Busy(read_pid(self.paths.pid)) from None
            try:
                held, named = os.fstat(fd), os.stat(self.paths.pid)
                if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
                    break
            except FileNotFoundError:
                pass
            os.close(fd)               # a stopping server removed that file meanwhile: lock the new one
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.lock_fd = fd

    def warm(self) -> None:
        """Import the compiler and run a compile and an inspect, so a child starts warm."""
        import tempfile

        from wgc import cli

        with tempfile.TemporaryDirectory(dir=self.folder) as temp:
            source = os.path.join(temp, "warm.hlsl")
            with open(source, "w", encoding="utf-8") as handle:
                handle.write(WARM_SOURCE)
            for command in (["compile", "--no-cache", "-MD", "-Fre", os.path.join(temp, "warm.json"),
                             "-o", os.path.join(temp, "warm.spv"), source],
                            ["inspect", "--format", "json", "-o", os.path.join(temp, "graph.json"),
                             source]):
                cli.main(command, consult_cache=False)
        from wgc import startup_cache

        startup_cache.flush()          # caches the warm-up filled: written once, not by every child
        gc.collect()
        gc.freeze()                    # the children share these objects' pages; the collector skips them

    def listen(self) -> None:
        """Replace a stale socket file and listen (only the lock holder gets here)."""
        try:
            os.unlink(self.paths.socket)
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = protocol.Address(self.paths.socket)
        umask = os.umask(0o177)        # the socket is made 0600 (no chmod by path after the fact)
        try:
            listener.bind(address.address)
        except BaseException:
            listener.close()
            raise
        finally:
            os.umask(umask)
            address.close()
        listener.listen(128)
        listener.setblocking(False)
        self.listener = listener

    # ------------------------------------------------------------------ the loop

    def prepare(self) -> None:
        """Install the loop's signal handling (SIGTERM, SIGINT, SIGHUP stop the server; SIGCHLD
        wakes the loop): before the server says it listens, so that a signal sent as soon as it
        has said so stops it as documented instead of interrupting it."""
        if self.selector is not None:
            return                     # prepared (and maybe stopped by a signal since)
        assert self.listener is not None
        self.selector = selectors.DefaultSelector()
        reader, writer = os.pipe()
        os.set_blocking(reader, False)
        os.set_blocking(writer, False)
        self.wakeup = (reader, writer)
        signal.set_wakeup_fd(writer, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        for name in ("SIGTERM", "SIGINT", "SIGHUP"):
            signal.signal(getattr(signal, name), lambda signum, _frame: self.stop(f"signal {signum}"))
        self.selector.register(self.listener, selectors.EVENT_READ, self._accept)
        self.selector.register(reader, selectors.EVENT_READ, self._drain_wakeup)

    def serve(self) -> None:
        """Answer requests until the server stops; then clean up."""
        self.prepare()
        assert self.selector is not None
        try:
            while not (self.stopping and not self.children and not self.workers):
                for selected, _events in self.selector.select(self._timeout()):
                    selected.data(selected.fileobj)
                self._reap()
                self._expire()
                self._check_idle()
        finally:
            self.close()

    def _timeout(self) -> float | None:
        now = time.monotonic()
        soonest = min((incoming.deadline for incoming in self.pending.values()), default=now + 1.0)
        if self.stopping or self.children or self._busy():
            return max(0.0, min(soonest, now + 1.0) - now)
        return max(0.0, min(self.last_activity + self.idle, self.next_file_check, soonest) - now)

    def _check_idle(self) -> None:
        if self.stopping or self.children or self.pending or self._busy():
            return
        now = time.monotonic()
        if now - self.last_activity >= self.idle:
            self.stop("idle")
        elif now >= self.next_file_check:
            self.next_file_check = now + FILE_CHECK_SECONDS
            if buildcache.compute_fingerprint() != self.fingerprint:
                self.stop("its files changed")

    def _drain_wakeup(self, fd: int) -> None:
        try:
            while os.read(fd, 4096):
                pass
        except BlockingIOError:
            pass

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                connection, _address = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if not protocol.same_user(connection) or len(self.pending) >= MAX_PENDING:
                connection.close()
                continue
            connection.setblocking(False)
            self.pending[connection] = _Incoming(time.monotonic() + REQUEST_SECONDS)
            assert self.selector is not None
            self.selector.register(connection, selectors.EVENT_READ, self._read)

    def _read(self, connection: socket.socket) -> None:
        """More of a request: handle it once whole; drop the connection when it is malformed."""
        incoming = self.pending.get(connection)
        if incoming is None:           # dropped meanwhile (the server is stopping)
            return
        try:
            data, ancillary, flags, _address = connection.recvmsg(1 << 16, protocol.ANCILLARY_SPACE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._drop(connection)
            return
        incoming.fds += protocol.descriptors_in(ancillary)
        if not data or flags & getattr(socket, "MSG_CTRUNC", 0) or len(incoming.fds) > protocol.MAX_DESCRIPTORS:
            self._drop(connection)
            return
        incoming.data += data
        try:
            message = protocol.parse(incoming.data)
        except ValueError:
            self._drop(connection)
            return
        if message is None:
            return
        self._forget(connection)
        kind, body, _size = message
        try:
            connection.setblocking(True)
            connection.settimeout(REQUEST_SECONDS)
            self._handle(connection, kind, body, incoming.fds)
        except Exception:              # one bad request never stops the server
            connection.close()

    def _forget(self, connection: socket.socket) -> None:
        """`connection` is no longer being read (its descriptors are the caller's now)."""
        self.pending.pop(connection, None)
        if self.selector is not None:
            try:
                self.selector.unregister(connection)
            except (KeyError, ValueError):
                pass

    def _drop(self, connection: socket.socket) -> None:
        """Close a connection whose request is malformed, incomplete in time, or not wanted now."""
        incoming = self.pending.get(connection)
        self._forget(connection)
        for fd in incoming.fds if incoming is not None else ():
            try:
                os.close(fd)
            except OSError:
                pass
        connection.close()

    def _expire(self) -> None:
        now = time.monotonic()
        for connection in [c for c, incoming in self.pending.items() if incoming.deadline <= now]:
            self._drop(connection)

    def _handle(self, connection: socket.socket, kind: bytes, body: Any, fds: list[int]) -> None:
        if kind == protocol.STATUS:
            for fd in fds:
                os.close(fd)
            protocol.send(connection, protocol.STATUS, self.report())
            connection.close()
            return
        refusal = self._refusal(kind, body, fds)
        if refusal is not None:
            for fd in fds:
                os.close(fd)
            try:
                protocol.send(connection, protocol.REFUSED, refusal)
            finally:
                connection.close()
            return
        # the client read the files for this request and found them the server's: the idle check of
        # the files (`_check_idle`) need not read them again before FILE_CHECK_SECONDS from now
        self.next_file_check = time.monotonic() + FILE_CHECK_SECONDS
        if body["limits"] == self.limits and self._hand_off(connection, body):
            self.served += 1
            self.last_activity = time.monotonic()
            return
        try:
            pid = os.fork()
        except OSError as err:
            for fd in fds:
                os.close(fd)
            protocol.send(connection, protocol.REFUSED, (False, f"fork failed: {err}"))
            connection.close()
            return
        if pid == 0:
            self._child(connection, body, fds)          # never returns
        for fd in fds:
            os.close(fd)
        self.children[pid] = connection
        self.served += 1
        self.last_activity = time.monotonic()

    # ------------------------------------------------------------------ workers

    def _busy(self) -> bool:
        return any(worker.connection is not None for worker in self.workers.values())

    def _hand_off(self, connection: socket.socket, request: dict[str, Any]) -> bool:
        """Give `request` to an idle worker, or to a new one while there are fewer than
        `MAX_WORKERS`; False when none can take it (a child is forked for it instead)."""
        idle = [worker for worker in self.workers.values() if worker.connection is None]
        if not idle and len(self.workers) < MAX_WORKERS:
            started = self._start_worker(connection)
            idle = [started] if started is not None else []
        for worker in idle:
            try:
                protocol.send(worker.control, protocol.HANDOFF, request, (connection.fileno(),))
            except OSError:            # it died: reaped later
                self._retire(worker)
                continue
            worker.connection = connection
            return True
        return False

    def _start_worker(self, connection: socket.socket) -> _Worker | None:
        """A new worker (None when it cannot be forked); `connection`, the request being handled, is
        not inherited (it comes to the worker with HANDOFF, like any other)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = os.fork()
        except OSError:
            ours.close()
            theirs.close()
            return None
        if pid == 0:
            try:
                ours.close()
                connection.close()
                self._leave_server(None)
                worker_process.serve(theirs)
            finally:
                os._exit(NOT_RUN)
        theirs.close()
        started = _Worker(pid, ours)
        self.workers[pid] = started
        assert self.selector is not None
        self.selector.register(ours, selectors.EVENT_READ, self._from_worker)
        return started

    def _from_worker(self, control: socket.socket) -> None:
        """A worker's DONE: it is idle again, or it goes (it exits by itself; reaped then)."""
        worker = next((w for w in self.workers.values() if w.control is control), None)
        if worker is None:
            return
        try:
            control.settimeout(REQUEST_SECONDS)
            kind, body, fds = protocol.receive(control)
        except (OSError, EOFError, ValueError, TypeError):
            self._retire(worker)
            return
        for fd in fds:
            os.close(fd)
        if worker.connection is not None:
            worker.connection.close()
            worker.connection = None
        self.last_activity = time.monotonic()
        reusable = kind == protocol.DONE and isinstance(body, tuple) and body[0] is True
        if not reusable:
            why = body[1] if kind == protocol.DONE and isinstance(body, tuple) and len(body) == 2 else "?"
            _log(f"worker {worker.pid} is replaced: {why}")
        if not reusable or self.stopping:
            self._retire(worker)

    def _retire(self, worker: _Worker) -> None:
        """Close `worker`'s control socket: it exits once its command (if any) ended."""
        if worker.retired:
            return
        worker.retired = True
        if self.selector is not None:
            try:
                self.selector.unregister(worker.control)
            except (KeyError, ValueError):
                pass
        worker.control.close()

    def _refusal(self, kind: bytes, body: Any, fds: list[int]) -> tuple[bool, str] | None:
        """Why a request is not run ((retry elsewhere?, reason)), or None."""
        if self.stopping:
            return True, "the server is stopping"
        if kind != protocol.COMPILE or not _well_formed(body, fds):
            return False, "a malformed request"
        if body["fingerprint"] is None:                 # a native launcher's: read for it now
            self.checked_for_launchers += 1
            if buildcache.compute_fingerprint() != self.fingerprint:
                self.stop("its files changed")
                return True, "its files changed"
        elif body["fingerprint"] != self.fingerprint:   # read from disk by the client for this command:
            return False, "another wgc"                 # files changed since the server started differ
        return None

    def _reap(self) -> None:
        while self.children or self.workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            worker = self.workers.pop(pid, None)
            if worker is not None:
                self._retire(worker)
            connection = self.children.pop(pid, None) if worker is None else worker.connection
            if connection is None:
                continue
            ended = (("signal", os.WTERMSIG(status)) if os.WIFSIGNALED(status)
                     else ("exit", os.WEXITSTATUS(status)))
            try:
                protocol.send(connection, protocol.EXITED, ended)
            except OSError:
                pass
            connection.close()
            self.last_activity = time.monotonic()

    def report(self) -> dict[str, Any]:
        from wgc import __version__

        running = len(self.children) + sum(w.connection is not None for w in self.workers.values())
        return {"pid": os.getpid(), "version": __version__, "key": self.key, "socket": self.paths.socket,
                "served": self.served, "native": self.checked_for_launchers, "running": running,
                "workers": sorted((pid, w.connection is not None) for pid, w in self.workers.items()),
                "uptime": time.time() - self.started,
                "idle": self.idle, "python": sys.executable,
                "package": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}

    # ------------------------------------------------------------------ stop

    def stop(self, reason: str) -> None:
        """Stop taking requests (see the module docstring); the loop ends when the children have."""
        if self.stopping:
            return
        self.stopping = reason
        for connection in list(self.pending):     # not a whole request yet: the client retries
            self._drop(connection)
        for worker in list(self.workers.values()):    # the busy ones end after their command
            if worker.connection is None:
                self._retire(worker)
        listener, self.listener = self.listener, None
        if listener is None:
            return
        try:
            os.unlink(self.paths.socket)
        except OSError:
            pass
        if self.selector is not None:
            try:
                self.selector.unregister(listener)
            except (KeyError, ValueError):
                pass
        while True:                    # connections already queued: not run here, try again
            try:
                queued, _address = listener.accept()
            except OSError:
                break
            try:
                queued.setblocking(True)
                queued.settimeout(REQUEST_SECONDS)
                protocol.send(queued, protocol.REFUSED, (True, "the server is stopping"))
            except OSError:
                pass
            queued.close()
        listener.close()

    def close(self) -> None:
        self.stop("closing")
        if self.selector is not None:
            self.selector.close()
            self.selector = None
        if self.wakeup is not None:
            signal.set_wakeup_fd(-1)
            for fd in self.wakeup:
                os.close(fd)
            self.wakeup = None
        if self.lock_fd is not None:
            try:
                os.unlink(self.paths.pid)
            except OSError:
                pass
            os.close(self.lock_fd)
            self.lock_fd = None

    # ------------------------------------------------------------------ a child

    def _child(self, connection: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
        """In the forked child: become the client's process, and run its command once the client
        says GO; never returns."""
        try:
            self._leave_server(connection)
            command.adopt(request)
            interrupted, streams = command.consent(connection, request)
            if interrupted is None:
                command.adopt_streams(request, streams)
        except BaseException as err:   # nothing was run: the client compiles in process
            try:
                protocol.send(connection, protocol.REFUSED, (False, f"the request could not be set up: {err}"))
            except BaseException:
                pass
            os._exit(NOT_RUN)
        if interrupted is not None:    # a signal before GO: nothing was run, as an interrupt at the start
            command.report(connection, interrupted)
            os._exit(interrupted)
        watch = command.Watch(connection)
        code = command.run_command()
        watch.finish()
        command.report(connection, code)
        os._exit(code)

    def _leave_server(self, connection: socket.socket | None) -> None:
        """Close what belongs to the server (but `connection`) and restore a fresh process's signal
        handling."""
        signal.set_wakeup_fd(-1)
        for name in ("SIGCHLD", "SIGTERM", "SIGHUP"):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.selector is not None:
            self.selector.close()
        if self.listener is not None:
            self.listener.close()
        for fd in (*(self.wakeup or ()), self.lock_fd):
            if fd is not None:
                os.close(fd)
        for other in self.children.values():
            if other is not connection:
                other.close()
        for worker in self.workers.values():
            worker.control.close()
            if worker.connection is not None:
                worker.connection.close()
        for other, incoming in self.pending.items():
            other.close()
            for fd in incoming.fds:
                os.close(fd)


def _log(line: str) -> None:
    """A line in the server's log (its standard error)."""
    try:
        sys.stderr.write(f"wgc server: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _well_formed(body: Any, fds: list[int]) -> bool:
    try:
        return (isinstance(body, dict) and isinstance(body["argv"], list) and isinstance(body["cwd"], str)
                and isinstance(body["fingerprint"], (bytes, type(None)))
                and isinstance(body["env"], dict) and isinstance(body["umask"], int)
                and isinstance(body["limits"], dict) and set(body["limits"]) <= set(protocol.LIMITS)
                and len(body["stdio"]) == 3 and all(len(s) == 5 for s in body["stdio"])
                and not fds)
    except (KeyError, TypeError, IndexError):
        return False


class _Worker:
    """A reused worker as the server sees it: its control socket, the connection of the command it
    runs (None: idle)."""

    def __init__(self, pid: int, control: socket.socket) -> None:
        self.pid, self.control = pid, control
        self.connection: socket.socket | None = None
        self.retired = False


class _Incoming:
    """A request being read: its bytes and descriptors so far, and when the server gives up on it."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.data = bytearray()
        self.fds: list[int] = []


# ---------------------------------------------------------------------- starting


def open_server() -> Server:
    """A claimed server for this wgc; `protocol.Unavailable` (with the reason) or `Busy`."""
    if not protocol.supported():
        raise protocol.Unavailable("this platform lacks Unix-domain sockets or fork")
    idle = protocol.idle_seconds()
    if idle is None:
        raise protocol.Unavailable(f"{protocol.IDLE_ENV}='{os.environ[protocol.IDLE_ENV]}' is not a number of seconds")
    server = Server(protocol.folder(), protocol.key(), idle)
    try:
        server.claim()
    except OSError as err:
        raise protocol.Unavailable(f"its pid file cannot be locked: {err.strerror or err}") from None
    return server


def run_detached(ready_fd: int, expected_key: str) -> None:
    """The started server's main (`client.BOOT`): claim, warm, listen, say "ready" on `ready_fd`, serve."""
    def say(line: str) -> None:
        try:
            os.write(ready_fd, line.encode(errors="replace") + b"\n")
        except OSError:
            pass

    _close_inherited(keep=ready_fd)
    try:
        if protocol.key() != expected_key:
            say("error its wgc differs from the client's (another fingerprint)")
            return
        server = _claim_when_free()
        if server is None:
            say("busy")
            return
        os.chdir("/")                  # keeps no build folder busy (its paths are absolute: client.BOOT)
        log = os.open(server.paths.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.dup2(log, 2)
        os.close(log)
        server.warm()
        server.listen()
        server.prepare()
    except (protocol.Unavailable, OSError) as err:
        say(f"error {err}")
        return
    except BaseException as err:       # the log has the details
        import traceback

        traceback.print_exc()
        say(f"error {type(err).__name__}: {err}")
        return
    say("ready")
    os.close(ready_fd)
    server.serve()


def _close_inherited(keep: int) -> None:
    """Close every descriptor this process inherited from the command that started it, but its
    standard streams (/dev/null) and `keep`: those are the inheritable ones (Python opens its own
    non-inheritable)."""
    try:
        found = [int(name) for name in os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd")]
    except (OSError, ValueError):
        found = list(range(3, 1024))
    for fd in found:
        if fd > 2 and fd != keep:
            try:
                if os.get_inheritable(fd):
                    os.close(fd)
            except OSError:
                pass


def _claim_when_free() -> Server | None:
    """A claimed server, or None when another one serves this key (or is starting)."""
    deadline = time.monotonic() + 5.0
    while True:
        try:
            return open_server()
        except Busy:
            pass
        try:                           # one that serves: use it
            protocol.connect(protocol.paths(protocol.folder(), protocol.key()).socket, 5.0).close()
            return None
        except OSError as err:
            if err.errno not in (errno.ENOENT, errno.ECONNREFUSED) or time.monotonic() > deadline:
                return None            # starting (it listens once warm) or stopping and not gone yet
        time.sleep(0.05)
