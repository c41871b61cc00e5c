"""On-disk caches of start-up work that every wgc process would otherwise redo.

Stage: none; infrastructure for the stages' one-time set-up (the parser's tables in
`wgc.syntax.parse`, the dataclass methods of `wgc.cached_dataclass`, the SPIR-V grammar and
SPIRV-Tools facts in `wgc.spirv`).

Input: a cache name, a key (a string naming everything the data depends on: versions,
content hashes) and the payload bytes the caller serialised.  Output: the payload of an
earlier process with the same name and key, or None.

Invariants:
- A file is `<folder>/<name>-<crc of key>.cache`: a header with the whole key, the payload's
  length and its CRC-32, then the payload.  A file whose key, length or checksum does not match
  (another version, truncated, corrupt) reads as None, and the caller rebuilds and rewrites it.
- Writes are atomic (a temporary file in the folder, then `os.replace`): readers never see a
  partial file, and processes that write the same cache at once each leave a whole one.
- A folder that cannot be created, read or written means no caching, never an error.
- Each name keeps its `KEPT` most recently used files (use marks a file as used), so that
  several wgc versions or checkouts sharing the folder do not evict each other's caches on
  every run, while the caches of versions no longer used go away.
- Caches filled while a process runs are written by `flush`, at exit (`atexit`) or earlier by a
  caller that ends the process without running the exit handlers (the CLI's `os._exit`).
- Importing this module costs almost nothing (os, zlib); payloads are serialised by the callers.
"""

from __future__ import annotations

import _thread
import atexit
import contextlib
import os
import zlib
from collections.abc import Callable

KEPT = 8
"""How many caches of one name (different keys: wgc, lark or Python versions) a folder keeps."""

_MAGIC = b"wgc startup cache 1\n"


def folder() -> str:
    """`$WGC_CACHE_DIR`, else `$XDG_CACHE_HOME/wgc`, else `~/.cache/wgc`."""
    return os.environ.get("WGC_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "wgc")


def path(name: str, key: str) -> str:
    """The file of cache `name` for `key` (which need not exist)."""
    return os.path.join(folder(), f"{name}-{zlib.crc32(key.encode()):08x}.cache")


def _header(key: str, payload: bytes) -> bytes:
    return _MAGIC + f"{len(payload)} {zlib.crc32(payload):08x} {len(key)}\n{key}\n".encode()


def read(name: str, key: str) -> bytes | None:
    """The payload stored for `name` and `key`, or None (missing, other key, truncated, corrupt)."""
    try:
        with open(path(name, key), "rb") as file:
            data = file.read()
    except OSError:
        return None
    expected_key = key.encode()
    if not data.startswith(_MAGIC):
        return None
    line_end = data.find(b"\n", len(_MAGIC))
    if line_end < 0:
        return None
    try:
        size, crc, key_size = data[len(_MAGIC):line_end].split(b" ")
        start = line_end + 1 + int(key_size) + 1
        if data[line_end + 1:start - 1] != expected_key or len(data) - start != int(size):
            return None
        payload = data[start:]
        if f"{zlib.crc32(payload):08x}".encode() != crc:
            return None
    except ValueError:
        return None
    with contextlib.suppress(OSError):
        os.utime(path(name, key))  # used: keep it among the most recently used
    return payload


def write(name: str, key: str, payload: bytes) -> bool:
    """Store `payload` for `name` and `key` atomically; False when the folder is not writable.

    Removes the caches of the same name beyond the `KEPT` most recently used.
    """
    final = path(name, key)
    temp = f"{final}.{os.getpid()}.{_thread.get_ident()}.tmp"
    try:
        os.makedirs(folder(), exist_ok=True)
        with open(temp, "wb") as file:
            file.write(_header(key, payload))
            file.write(payload)
        os.replace(temp, final)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return False
    _remove_least_recently_used(name, keep=os.path.basename(final))
    return True


def _remove_least_recently_used(name: str, keep: str) -> None:
    others = []
    try:
        entries = list(os.scandir(folder()))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(f"{name}-") and entry.name.endswith(".cache") and entry.name != keep:
            with contextlib.suppress(OSError):  # another process may remove it meanwhile
                others.append((entry.stat().st_mtime, entry.path))
    for _mtime, stale in sorted(others, reverse=True)[KEPT - 1:]:
        with contextlib.suppress(OSError):
            os.unlink(stale)


_exit_hooks: list[Callable[[], None]] = []


def at_exit(hook: Callable[[], None]) -> None:
    """Run `hook` (which writes a cache) when the process ends, or at the next `flush`."""
    if not _exit_hooks:
        atexit.register(flush)
    _exit_hooks.append(hook)


def flush() -> None:
    """Run the pending `at_exit` hooks now (each once)."""
    while _exit_hooks:
        _exit_hooks.pop(0)()
