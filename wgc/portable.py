"""Portability: the operating-system facilities wgc uses that not every platform has, each with its fallback.

Stage: foundation, below everything that touches files, signals, processes or the terminal
(`wgc.outputs`, `wgc.interrupts`, the caches, the compile server, `wgc.diagnostics`' colours). No
wgc imports; only `_signal`, `sys` and the operating system's C module (`posix`, else `os`) at
import (a compile-cache hit and the compile server's thin client import it), `os` in the calls that
need it (ctypes only on Windows).
Input: the running Python's `os` and `_signal` modules, read at each call (so tests can take
attributes away to stand for Windows or macOS). Output: open flags, signal lists and a few calls
that degrade instead of raising `AttributeError`; `system`, `environ()`, `absolute()` and `join()`
for the thin client, which does without `os` (see below).

Invariants:
- Nothing here raises for a facility the platform lacks: a missing open flag is 0, a missing
  signal is left out, `chmod` of a descriptor falls back to the path (Windows before Python 3.13).
- `O_BINARY` (Windows) is in every set of open flags: a descriptor opened without it would turn
  "\\n" into "\\r\\n" on writing and stop reading at a Ctrl-Z byte.
- `has_owners()` says whether files have POSIX owners and permission bits that wgc can check
  (os.geteuid exists). Where they do not (Windows), wgc cannot prove a folder private to the user,
  so the features whose security rests on that (the start-up and compile caches, the compile
  server) are not used there; docs/guide.md's "Platforms" section says so.
- Colour on a terminal (`ansi_terminal`): a Windows console shows ANSI sequences only once
  virtual-terminal processing is on (Windows 10 and later can turn it on); where it cannot be,
  diagnostics are not coloured rather than sprinkled with escape codes.
- The thin client (`wgc.entry` to `wgc.server.client`, run by a launcher with `-S`) does not import
  `os` (with `stat`, `posixpath` and `_collections_abc` it was a fifth of the client's own time):
  it calls the C module `os` is made of (`system`: `posix`; `os` itself where Python has no
  `posix`, e.g. Windows) and the few helpers below, each exactly what `os` would answer:
  `environ()` is `os.environ` once `os` is loaded (it may have been changed since the start) and
  otherwise the start-up environment decoded as `os.environ` decodes it; `absolute` and `join`
  answer a path already absolute and normal (or a plain name) themselves and leave every other
  path to `os.path`.
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import sys

TYPE_CHECKING = False   # not `typing`'s: a cache hit or a server client does without importing typing
if TYPE_CHECKING:
    import os
    import os as system
    import signal as signals
else:
    try:                    # `os` is made of it; importing `os` too costs a thin client ~1 ms
        import posix as system
    except ImportError:     # pragma: no cover - not POSIX: `os` knows the platform's module
        import os as system
    try:                    # the C module: `signal` wraps it in enums, which cost a thin client 4 ms of
        import _signal as signals       # imports (enum, functools, collections) when `site` loaded none
    except ImportError:     # pragma: no cover - a Python without it
        import signal as signals

INTERRUPT_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK")
"""The signals that end a command in order, those the platform has (SIGHUP: POSIX; SIGBREAK:
Windows' Ctrl+Break)."""


SEP = "/" if system.__name__ == "posix" else system.sep      # type: ignore[attr-defined,redundant-expr,unused-ignore]
"""The separator of the paths `absolute` and `join` answer themselves."""

_environ: dict[str, str] | None = None


def environ() -> "dict[str, str] | os._Environ[str]":
    """The process's environment as `os.environ` has it (see the module docstring); read-only."""
    global _environ
    loaded = sys.modules.get("os")
    if loaded is not None:
        return loaded.environ
    if _environ is None:
        encoding = sys.getfilesystemencoding()          # (`os.environ`'s own decoding, on POSIX)
        _environ = {(k.decode(encoding, "surrogateescape") if isinstance(k, bytes) else k):  # type: ignore[redundant-expr,unused-ignore]
                    (v.decode(encoding, "surrogateescape") if isinstance(v, bytes) else v)
                    for k, v in system.environ.items()}
    return _environ


def provides(name: str) -> bool:
    """Whether the platform has `os.<name>`, read from `os` where it is loaded (tests take attributes
    away from it to stand for another platform), else from `system`."""
    return hasattr(sys.modules.get("os", system), name)


def absolute(path: str) -> str:
    """`os.path.abspath(path)`: `path` itself when it is absolute and normal already."""
    if path[:1] == SEP == "/" and not any(part in ("", ".", "..") for part in path[1:].split("/")):
        return path
    import os

    return os.path.abspath(path)


def join(folder: str, name: str) -> str:
    """`os.path.join(folder, name)`, for a `name` without separators (a file's name in `folder`)."""
    if SEP == "/" and folder and "/" not in name:
        return folder + name if folder.endswith("/") else folder + "/" + name
    import os

    return os.path.join(folder, name)


def open_flags(*names: str) -> int:
    """The `os.O_*` flags named (those the platform has) or'ed, with `O_BINARY` where it exists."""
    import os

    flags = getattr(os, "O_BINARY", 0)
    for name in names:
        flags |= getattr(os, name, 0)
    return flags


def has_owners() -> bool:
    """Whether files have POSIX owners and permission bits (not on Windows)."""
    import os

    return hasattr(os, "geteuid")


def interrupt_signals() -> tuple[int, ...]:
    """`INTERRUPT_SIGNALS` as numbers, those this platform has."""
    return tuple(getattr(signals, name) for name in INTERRUPT_SIGNALS if hasattr(signals, name))


def block_signals(blocked: tuple[int, ...]) -> bool:
    """Block `blocked` in this thread (POSIX); False where the platform cannot (Windows)."""
    mask = getattr(signals, "pthread_sigmask", None)
    if mask is None or not blocked:
        return False
    mask(signals.SIG_BLOCK, blocked)
    return True


def copy_mode_and_owner(fd: int, path: str, old: "os.stat_result") -> None:
    """Give the new file open at `fd` (named `path`) the mode and, where allowed, the owner of `old`
    (the file it replaces); what the platform cannot do is skipped."""
    import os

    mode = old.st_mode & 0o7777
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:                                   # Windows before Python 3.13: only the read-only bit exists
        os.chmod(path, mode)
    if has_owners() and hasattr(os, "fchown") and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            pass


_ENABLE_VIRTUAL_TERMINAL_PROCESSING = 0x0004
_STD_ERROR_HANDLE = -12


def ansi_terminal() -> bool:
    """Whether the terminal on standard error shows ANSI colour sequences: yes off Windows; on Windows
    once its console's virtual-terminal processing is on, which this turns on (False where it cannot)."""
    if sys.platform != "win32":
        return True
    try:
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.GetStdHandle(_STD_ERROR_HANDLE)
        mode = ctypes.c_uint32()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        if mode.value & _ENABLE_VIRTUAL_TERMINAL_PROCESSING:
            return True
        return bool(kernel32.SetConsoleMode(handle, mode.value | _ENABLE_VIRTUAL_TERMINAL_PROCESSING))
    except (ImportError, AttributeError, OSError):
        return False
