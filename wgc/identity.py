"""Which wgc this is, and where its caches live: what the compile cache and the compile server's
thin client need before anything else.

Stage: foundation (`wgc.portable` and the standard library's C modules only: not `os`, which the
thin client does without, see `wgc.portable`; importing this costs next to nothing).
Input: the environment, the files of the wgc package, the installed distributions, Python's version.
Output: `cache_folder()`, `fingerprint()` (memoised per process), `compute_fingerprint()` (read now),
`digest()`, `digest_of()` (of a value, the same in every process).

Invariants:
- The fingerprint changes with any file of the wgc package (path, size, mtime), the checkout's
  grammar, any installed distribution (its dist-info name carries its version) and Python's
  version: the compile cache keys its entries by it and the compile server is named by it, so a
  changed wgc is never answered by stale code or results. The one folder left out is a wheel's
  `wgc/samples` (`SAMPLES`): the files `wgc samples` copies out, which no command reads as part
  of wgc (a compile of one reads it as its input, as any other); a served client reads the
  fingerprint per command, and those 43 files and folders were a fifth of its reads.
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import marshal
import sys

TYPE_CHECKING = False   # not `typing`'s: the thin client does without importing it
if TYPE_CHECKING:
    from typing import Any

from wgc.portable import SEP, absolute, environ, join, system

try:
    from _blake2 import blake2b       # the hashlib import would load OpenSSL for the same function
except ImportError:                   # pragma: no cover - other Pythons
    from hashlib import blake2b

DIGEST_SIZE = 32


def cache_folder() -> str:
    """`$WGC_CACHE_DIR`, else `$XDG_CACHE_HOME/wgc`, else `~/.cache/wgc`."""
    variables = environ()
    return variables.get("WGC_CACHE_DIR") or join(variables.get("XDG_CACHE_HOME") or join(_home(), ".cache"), "wgc")


def _home() -> str:
    """`os.path.expanduser("~")`: $HOME where it is set (and not the root folder's spelling)."""
    home = environ().get("HOME")
    if home and SEP == "/" and home.rstrip("/"):
        return home.rstrip("/")
    import os

    return os.path.expanduser("~")


def digest(data: bytes) -> bytes:
    return blake2b(data, digest_size=DIGEST_SIZE).digest()


STABLE_MARSHAL = 2
"""The marshal version whose bytes depend on values only: from version 3 on, marshal marks an
object met twice (a reference) and an interned string, so equal values held by other objects, or
interned in one process and not in another, would give other bytes and another digest."""


def digest_of(value: "Any") -> bytes:
    """The digest of a plain value (strings, bytes, numbers, tuples, lists, dicts, None)."""
    return digest(marshal.dumps(value, STABLE_MARSHAL))


_fingerprint: bytes | None = None


def fingerprint() -> bytes:
    """What identifies this wgc (`compute_fingerprint`), computed once per process."""
    global _fingerprint
    if _fingerprint is None:
        _fingerprint = compute_fingerprint()
    return _fingerprint


def forget() -> None:
    """Compute the fingerprint again when next asked (the search path it reads has changed)."""
    global _fingerprint
    _fingerprint = None


SAMPLES = "samples"
"""The package's folder of sample copies (a wheel's; a checkout has its samples beside the package),
which the fingerprint leaves out (see the module docstring)."""


_FORMAT, _FOLDER = 0o170000, 0o040000
"""`stat.S_IFMT`'s mask and `stat.S_IFDIR` (POSIX's values, which Python's `stat` has everywhere)."""


def _folder_of(path: str) -> str:
    """`os.path.dirname(path)` (answered here for an absolute path without "//")."""
    if SEP == "/" and path[:1] == "/" and "//" not in path:
        return path.rpartition("/")[0] or "/"
    import os

    return os.path.dirname(path)


def compute_fingerprint(package: str | None = None) -> bytes:
    """What identifies this wgc now (see the module docstring); `package`: the folder of the wgc
    package to read (this module's by default)."""
    if package is None:
        package = _folder_of(absolute(__file__))
    parts: list[object] = [sys.version]
    folders = [package]
    stat = system.stat
    while folders:                              # (one stat a name: it also tells a folder)
        folder = folders.pop()
        for name in sorted(system.listdir(folder)):
            if name == "__pycache__" or name == SAMPLES and folder == package:
                continue
            path = join(folder, name)
            info = stat(path)
            if info.st_mode & _FORMAT == _FOLDER:
                folders.append(path)
            else:
                parts.append((path, info.st_size, info.st_mtime_ns))
    grammar = join(join(_folder_of(package), "grammar"), "hlsl.lark")
    try:
        info = stat(grammar)
        parts.append((grammar, info.st_size, info.st_mtime_ns))
    except OSError:
        pass
    for folder in sys.path:
        if folder.rpartition(SEP)[2] in ("site-packages", "dist-packages"):
            try:
                names = system.listdir(folder)
            except OSError:
                continue
            parts.append((folder, sorted(n for n in names if n.endswith((".dist-info", ".egg-info")))))
    return digest_of(parts)
