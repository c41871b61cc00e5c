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
- Trust: caches hold code (marshalled code objects, pickles, paths of libraries to load), so they
  are read and written only in a private folder (`private_folder`): owned by the current user,
  not writable by group or others, and every folder above it owned by the user or root and not
  writable by others (unless sticky, as /tmp), as ssh's StrictModes. A missing folder is created
  with mode 0700. A cache file is used only when it is a regular file (opened with O_NOFOLLOW and
  O_NONBLOCK), owned by the user, not group/other-writable, and at most `MAX_FILE_SIZE` bytes.
- A folder that cannot be created, read or written, or is not private, means no caching, never
  an error. Where files have no POSIX owners and modes (Windows: `wgc.portable.has_owners`) no
  folder can be shown private, so nothing is cached there (each process redoes the work).
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
import errno
import os
import stat
import zlib
from collections.abc import Callable

from wgc import portable

KEPT = 8
"""How many caches of one name (different keys: wgc, lark or Python versions) a folder keeps."""

_MAGIC = b"wgc startup cache 1\n"
MAX_FILE_SIZE = 64 << 20
"""A larger cache file is not read (the largest, the parser's, is about 1 MB)."""
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Added to every open in a cache folder: a symbolic link planted there is never followed."""


class NotPrivate(Exception):
    """The cache folder may be written by another user (the message says how); nothing in it is used."""


def folder() -> str:
    """`$WGC_CACHE_DIR`, else `$XDG_CACHE_HOME/wgc`, else `~/.cache/wgc` (`wgc.identity.cache_folder`)."""
    from wgc.identity import cache_folder

    return cache_folder()


def private_folder(path: str | None = None) -> str:
    """`path` (default: `folder()`), created with mode 0700 when missing, once it is private to the
    user (see the module docstring); `NotPrivate` when it is not, OSError when it cannot be made
    (NotADirectoryError when it is not a folder)."""
    path = os.path.abspath(path or folder())
    if not os.path.isdir(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
    real = os.path.realpath(path)
    info = os.stat(real)
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
    if not portable.has_owners():
        raise NotPrivate(f"this platform has no file owners and permission bits that wgc can check, so "
                         f"it cannot tell whether '{path}' is private to the user")
    user = os.geteuid()
    if info.st_uid != user:
        raise NotPrivate(f"'{path}' belongs to another user (uid {info.st_uid})")
    if info.st_mode & 0o022:
        raise NotPrivate(f"'{path}' may be written by other users (mode {stat.S_IMODE(info.st_mode):04o})")
    above = os.path.dirname(real)
    while True:
        info = os.stat(above)
        if info.st_uid not in (user, 0):
            raise NotPrivate(f"'{path}' is inside '{above}', which belongs to another user (uid {info.st_uid})")
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            raise NotPrivate(f"'{path}' is inside '{above}', which other users may change "
                             f"(mode {stat.S_IMODE(info.st_mode):04o})")
        if os.path.dirname(above) == above:
            return path
        above = os.path.dirname(above)


def _usable() -> bool:
    """Whether the cache folder exists (it is created if needed) and is private."""
    try:
        private_folder()
    except (OSError, NotPrivate):
        return False
    return True


def usable() -> bool:
    """Whether caches can be read and written here (the folder is private; made if missing): a
    caller may skip preparing a payload that `write` would not store."""
    return _usable()


def read_private(path: str, limit: int) -> bytes | None:
    """The bytes of `path` when it is a regular file (not a link: O_NOFOLLOW) of at most `limit`
    bytes, owned by the user and not writable by group or others; None otherwise (never blocks on a
    FIFO or a device, never reads more than `limit`)."""
    try:
        fd = os.open(path, os.O_RDONLY | portable.open_flags("O_NONBLOCK", "O_NOFOLLOW", "O_CLOEXEC"))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit or info.st_mode & 0o022:
            return None
        if not portable.has_owners() or info.st_uid != os.geteuid():
            return None
        chunks = []
        left = info.st_size + 1           # one more: a file that grew meanwhile is refused
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= limit and len(data) == info.st_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def write_new(path: str, data: bytes) -> None:
    """Write `data` to the new file `path` (mode 0600; O_EXCL and O_NOFOLLOW: never an existing file
    or a link); OSError when it cannot."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | portable.open_flags("O_NOFOLLOW", "O_CLOEXEC"), 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def path(name: str, key: str) -> str:
    """The file of cache `name` for `key` (which need not exist)."""
    return os.path.join(folder(), f"{name}-{zlib.crc32(key.encode()):08x}.cache")


def _header(key: str, payload: bytes) -> bytes:
    return _MAGIC + f"{len(payload)} {zlib.crc32(payload):08x} {len(key)}\n{key}\n".encode()


def read(name: str, key: str) -> bytes | None:
    """The payload stored for `name` and `key`, or None (missing, other key, truncated, corrupt,
    not private)."""
    if not _usable():
        return None
    data = read_private(path(name, key), MAX_FILE_SIZE)
    if data is None:
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
        # used: keep it among the most recently used (the link itself where one was planted)
        os.utime(path(name, key), follow_symlinks=os.utime not in os.supports_follow_symlinks)
    return payload


def write(name: str, key: str, payload: bytes) -> bool:
    """Store `payload` for `name` and `key` atomically; False when the folder is not writable.

    Removes the caches of the same name beyond the `KEPT` most recently used.
    """
    final = path(name, key)
    temp = f"{final}.{os.getpid()}.{_thread.get_ident()}.{os.urandom(4).hex()}.tmp"
    if not _usable():
        return False
    try:
        write_new(temp, _header(key, payload) + payload)
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
                others.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
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
