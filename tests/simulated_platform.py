"""Run `wgc` as on a platform without POSIX-only facilities (Windows), for tests/test_platforms.py.

Usage: python tests/simulated_platform.py [--keep NAME,...] WGC-ARGUMENTS...

Before wgc is imported, this takes away from the running Python what Windows' Python lacks: the
`os` calls and open flags of POSIX only (fchmod, fchown, geteuid, getuid, fork, O_CLOEXEC,
O_NONBLOCK, O_NOFOLLOW, O_DIRECTORY, O_NOCTTY, ...), SIGHUP and pthread_sigmask (from `signal` and
the C module `_signal` it wraps), Unix-domain
sockets and descriptor passing, and the modules fcntl and resource (an import of them fails). It
adds `os.O_BINARY` (a flag Linux ignores here: it is O_LARGEFILE) and `signal.SIGBREAK`, which
Windows has (standing as SIGUSR1, which a test can send). `--keep` leaves the named attributes in place (e.g. `--keep fchmod` for Python 3.13 on
Windows, which has os.fchmod). Then it runs `wgc.entry.main()` as the `wgc` script does, so
signals are handled as in a real process.
"""

from __future__ import annotations

import os
import signal
import socket
import sys

OS_CALLS = ("fchmod", "fchown", "lchown", "chown", "geteuid", "getegid", "getuid", "getgid", "getpgid",
            "setsid", "killpg", "fork", "forkpty", "wait3", "wait4", "WNOHANG", "mkfifo", "sched_getaffinity",
            "O_CLOEXEC", "O_NONBLOCK", "O_NOFOLLOW", "O_DIRECTORY", "O_NOCTTY", "O_NDELAY", "O_SYNC")
SIGNAL_NAMES = ("SIGHUP", "SIGCHLD", "SIGPIPE", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGQUIT", "pthread_sigmask",
                "pthread_kill", "sigwait", "setitimer")
SOCKET_NAMES = ("AF_UNIX", "SCM_RIGHTS", "SO_PEERCRED", "CMSG_SPACE", "CMSG_LEN", "socketpair")


def simulate(keep: set[str]) -> None:
    import _signal
    import _socket

    sigbreak = signal.SIGUSR1        # Windows' Ctrl+Break stands as SIGUSR1, which a test can send
    for module, names in ((os, OS_CALLS), (signal, SIGNAL_NAMES), (_signal, SIGNAL_NAMES), (socket, SOCKET_NAMES),
                          (_socket, SOCKET_NAMES)):
        for name in names:
            if name not in keep and hasattr(module, name):
                delattr(module, name)
    os.O_BINARY = 0o100000            # type: ignore[attr-defined]
    signal.SIGBREAK = sigbreak        # type: ignore[attr-defined]
    _signal.SIGBREAK = sigbreak       # (wgc.portable reads the C module `signal` wraps)
    for name in ("fcntl", "resource", "termios", "pwd", "grp"):
        if name not in keep:
            sys.modules[name] = None  # type: ignore[assignment]


def main() -> int:
    args = sys.argv[1:]
    keep: set[str] = set()
    if args[:1] == ["--keep"]:
        keep = set(args[1].split(","))
        args = args[2:]
    simulate(keep)
    sys.argv = ["wgc", *args]
    from wgc.entry import main as wgc_main

    return wgc_main()


if __name__ == "__main__":
    sys.exit(main())
