"""Which wgc this is, and where its caches live: what the compile cache and the compile server's
thin client need before anything else.

Stage: foundation (no wgc imports; the standard library's C modules and `os`/`sys` only, which
every Python has loaded at start-up, so importing this costs next to nothing).
Input: the environment, the files of the wgc package, the installed distributions, Python's version.
Output: `cache_folder()`, `fingerprint()` (memoised per process), `compute_fingerprint()` (read now),
`digest()`.

Invariants:
- The fingerprint changes with any file of the wgc package (path, size, mtime), the checkout's
  grammar, any installed distribution (its dist-info name carries its version) and Python's
  version: the compile cache keys its entries by it and the compile server is named by it, so a
  changed wgc is never answered by stale code or results. The one folder left out is a wheel's
  `wgc/samples` (`SAMPLES`): the files `wgc samples` copies out, which no command reads as part
  of wgc (a compile of one reads it as its input, as any other); a served client reads the
  fingerprint per command, and those 43 files and folders were a fifth of its reads.
"""

from __future__ import annotations

import marshal
import os
import sys

try:
    from _blake2 import blake2b       # the hashlib import would load OpenSSL for the same function
except ImportError:                   # pragma: no cover - other Pythons
    from hashlib import blake2b

DIGEST_SIZE = 32


def cache_folder() -> str:
    """`$WGC_CACHE_DIR`, else `$XDG_CACHE_HOME/wgc`, else `~/.cache/wgc`."""
    return os.environ.get("WGC_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "wgc")


def digest(data: bytes) -> bytes:
    return blake2b(data, digest_size=DIGEST_SIZE).digest()


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


def compute_fingerprint(package: str | None = None) -> bytes:
    """What identifies this wgc now (see the module docstring); `package`: the folder of the wgc
    package to read (this module's by default)."""
    if package is None:
        package = os.path.dirname(os.path.abspath(__file__))
    parts: list[object] = [sys.version]
    folders = [package]
    while folders:
        folder = folders.pop()
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name == "__pycache__" or entry.name == SAMPLES and folder == package:
                    continue
                if entry.is_dir():
                    folders.append(entry.path)
                else:
                    info = entry.stat()
                    parts.append((entry.path, info.st_size, info.st_mtime_ns))
    grammar = os.path.join(os.path.dirname(package), "grammar", "hlsl.lark")
    try:
        info = os.stat(grammar)
        parts.append((grammar, info.st_size, info.st_mtime_ns))
    except OSError:
        pass
    for folder in sys.path:
        if os.path.basename(folder) in ("site-packages", "dist-packages"):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            parts.append((folder, sorted(n for n in names if n.endswith((".dist-info", ".egg-info")))))
    return digest(marshal.dumps(parts))
