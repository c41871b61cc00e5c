"""`wgc server`: run the compile server in the foreground, start it in the background, show or stop servers.

Stage: the CLI's `server` command (`wgc.cli.server_command` renders what this returns).
Input: the action ("foreground", "daemon", "status", "stop") and the environment (cache folder,
$WGC_SERVER_IDLE). Output: (exit code, text for standard output, diagnostics).

Invariants:
- A problem that keeps a server from running here is a diagnostic and exit 1: $WGC_SERVER_IDLE
  malformed (WG0030), the folder unusable (WG0031), no Unix-domain sockets or fork (WG0032); the
  foreground server finding one already running is WG0033, `--daemon` failing to start one WG0034.
  (A compile never reports these: its client compiles in process instead.)
- `--status` and `--stop` act on every server of this user in the cache folder (any wgc version):
  a server is alive exactly while its pid file is locked. `--stop` sends SIGTERM to each and
  returns once each has released its lock (it finishes its running commands first).
"""

from __future__ import annotations

import os
import time
from typing import Any

from wgc import codes
from wgc.diagnostics import Diagnostic
from wgc.server import client, protocol

STOP_SECONDS = 60.0
"""How long `--stop` waits for a server to finish its running commands and exit."""


def act(action: str) -> tuple[int, str, list[Diagnostic]]:
    problem = _problem(action)
    if problem is not None:
        return 1, "", [problem]
    server_folder = protocol.folder()
    if action == "status":
        return 0, _status(server_folder), []
    if action == "stop":
        return 0, _stop(server_folder), []
    if action == "daemon":
        return _daemon(server_folder)
    return _foreground()


def _problem(action: str) -> Diagnostic | None:
    if not protocol.supported():
        return codes.SERVER_UNSUPPORTED(None, "the compile server needs Unix-domain sockets, fork and file locks, "
                                        "which this platform lacks; WGC_SERVER=1 and --server compile in "
                                        "process here")
    if action in ("daemon", "foreground", "status") and protocol.idle_seconds() is None:
        return codes.SERVER_IDLE_INVALID(None, f"{protocol.IDLE_ENV}='{os.environ[protocol.IDLE_ENV]}' is not a "
                                         "number of seconds (e.g. 600, or 0.5)")
    try:
        protocol.folder()
    except protocol.Unavailable as err:
        return codes.SERVER_FOLDER_UNUSABLE(None, f"the compile server cannot use its folder: {err}")
    return None


def servers(server_folder: str) -> list[tuple[str, int]]:
    """(key, pid) of each live server in `server_folder` (its pid file is locked)."""
    found = []
    try:
        names = sorted(os.listdir(server_folder))
    except OSError:
        return []
    for name in names:
        if not name.endswith(".pid"):
            continue
        path = os.path.join(server_folder, name)
        if _locked(path):
            from wgc.server.daemon import read_pid

            pid = read_pid(path)
            if pid is not None:
                found.append((name[:-len(".pid")], pid))
    return found


def _native(report: dict[str, Any]) -> str:
    """" (N from native launchers)" where some were (a server of an older wgc does not say)."""
    count = report.get("native") or 0
    return f" ({count} from native launchers)" if count else ""


def _locked(path: str) -> bool:
    import fcntl       # here: on a platform without it `_problem` refused first (WG0032)

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _status(server_folder: str) -> str:
    own = protocol.key()
    lines = []
    for server_key, pid in servers(server_folder):
        report = _report(protocol.paths(server_folder, server_key).socket)
        this = " (this wgc)" if server_key == own else ""
        if report is None:
            lines.append(f"server {server_key}{this}: pid {pid} (starting or stopping: no answer on its socket)")
            continue
        lines.append(f"server {server_key}{this}:\n"
                     f"  pid:      {report['pid']}\n"
                     f"  version:  wgc {report['version']} ({report['package']})\n"
                     f"  socket:   {report['socket']}\n"
                     f"  requests: {report['served']} served{_native(report)}, {report['running']} running\n"
                     f"  workers:  {_workers(report.get('workers', []))}\n"
                     f"  uptime:   {report['uptime']:.1f} s (stops after {report['idle']:g} s without a request)")
    if not lines:
        return f"no wgc server is running (folder {server_folder})"
    return "\n".join(lines)


def _workers(workers: list[tuple[int, bool]]) -> str:
    """The status line of a server's reused workers: their pids, the busy ones marked."""
    if not workers:
        return "none"
    return ", ".join(f"{pid}{' (busy)' if busy else ''}" for pid, busy in workers)


def _report(socket_path: str) -> dict[str, Any] | None:
    try:
        connection = protocol.connect(socket_path, 5.0)
    except (OSError, protocol.Unavailable):
        return None
    try:
        if not protocol.same_user(connection):
            return None
        protocol.send(connection, protocol.STATUS, None)
        kind, body, fds = protocol.receive(connection)
        for fd in fds:
            os.close(fd)
        return body if kind == protocol.STATUS and isinstance(body, dict) else None
    except (OSError, EOFError, ValueError, TypeError):
        return None
    finally:
        connection.close()


def _stop(server_folder: str) -> str:
    import signal

    lines = []
    for server_key, pid in servers(server_folder):
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            continue
        pid_path = protocol.paths(server_folder, server_key).pid
        deadline = time.monotonic() + STOP_SECONDS
        while _locked(pid_path) and time.monotonic() < deadline:
            time.sleep(0.02)
        gone = not _locked(pid_path)
        lines.append(f"stopped wgc server {server_key} (pid {pid})" if gone
                     else f"wgc server {server_key} (pid {pid}) is still finishing its commands")
    if not lines:
        return f"no wgc server was running (folder {server_folder})"
    return "\n".join(lines)


def _daemon(server_folder: str) -> tuple[int, str, list[Diagnostic]]:
    server_key = protocol.key()
    where = protocol.paths(server_folder, server_key)
    connection, reason = client.connect_or_start(where, server_key)
    if connection is None:
        return 1, "", [codes.SERVER_NOT_STARTED(None, f"the compile server did not start: {reason}")]
    connection.close()
    report = _report(where.socket)
    pid = report["pid"] if report else "?"
    return 0, f"wgc server {server_key} (pid {pid}) is listening on {where.socket}", []


def _foreground() -> tuple[int, str, list[Diagnostic]]:
    import sys

    from wgc.server.daemon import Busy, open_server

    try:
        server = open_server()
    except Busy as busy:
        return 1, "", [codes.SERVER_ALREADY_RUNNING(None, f"a server for this wgc is already running (pid "
                                                    f"{busy.pid}); stop it with 'wgc server --stop'")]
    except protocol.Unavailable as err:
        return 1, "", [codes.SERVER_FOLDER_UNUSABLE(None, f"the compile server cannot use its folder: {err}")]
    try:
        server.warm()
        server.listen()
        server.prepare()
    except BaseException:
        server.close()
        raise
    sys.stdout.write(f"wgc server {server.key} (pid {os.getpid()}) is listening on {server.paths.socket}; "
                     f"it stops after {server.idle:g} s without a request, or on Ctrl-C\n")
    sys.stdout.flush()
    server.serve()
    return 0, f"wgc server {server.key} stopped ({server.stopping}; {server.served} requests served)", []
