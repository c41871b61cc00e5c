"""The compile server's shared ground: where a server lives, which wgc it is, and its messages.

Stage: around the CLI (the compile server); imported by the thin client, so it uses the standard
library's C modules, `wgc.portable` and `wgc.identity` (the fingerprint, the cache folder) only:
not `os` (see `wgc.portable`) on the client's path.
Input: the environment (the cache folder), this interpreter and wgc's installed files.
Output: `folder()` (created private), `key()`, `Paths` of one server, message framing
(`send`/`receive`) over a Unix-domain stream socket with descriptors passed as SCM_RIGHTS.

Invariants:
- One folder per user: `<cache folder>/server-<uid>`, mode 0700, owned by the user and not a link;
  `folder()` refuses any other (`Unavailable`), so another user can neither listen in nor answer.
- A server is named by `key()`: a digest of the protocol, wgc's fingerprint (every file of the
  package, the grammar, the installed distributions, Python's version: `wgc.identity.fingerprint`),
  the interpreter and its start-up settings (flags, -X and -W options, file-system and locale
  encodings). A client
  only ever talks to a server of its own key, so a changed wgc is never answered by stale code.
- Files of a server: `<key>.sock` (0600, the socket), `<key>.pid` (0600, the server's pid,
  locked with flock for the server's whole life: held means alive; a socket without a locked pid
  file is stale), `<key>.log` (the server's own standard error).
- Only this user's processes talk: each side checks its peer's uid (`peer_uid`, SO_PEERCRED) on
  top of the private folder, so a client never hands its environment and descriptors to another
  user's process, even one that got a socket into the folder's place.
- A message is one kind byte, a 4-byte length and a marshalled body; descriptors travel with its
  first byte. Bodies are plain data (dicts, lists, strings, numbers, bytes).
- A command runs only with the client's consent: COMPILE, then RUNNING (the pid of the process
  that runs it: a worker, or a child forked for it) from the server's side, then GO from the
  client, with its standard streams; a client that gave up (timeout, signal) before sending GO
  closes the connection, and nothing runs. The descriptors travel only with GO, so a stalled
  server never holds them. Signals the client receives after RUNNING travel as SIGNAL messages on
  the same connection (never as a kill of a pid that may run another client's command later).
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import marshal
import sys

from wgc.portable import absolute, environ, join, provides, system

TYPE_CHECKING = False   # not `typing`'s: the client does without importing it
if TYPE_CHECKING:
    from typing import Any

try:
    import _socket
except ImportError:                  # pragma: no cover - a Python without sockets
    _socket = None                   # type: ignore[assignment]

PROTOCOL = 3
SWITCH_ENV = "WGC_SERVER"
IDLE_ENV = "WGC_SERVER_IDLE"
DEFAULT_IDLE_SECONDS = 600.0
TIMEOUT_ENV = "WGC_SERVER_TIMEOUT"
DEFAULT_TIMEOUT_SECONDS = 10.0
"""How long a client waits for a server to take its command (connect, send, RUNNING) before it
compiles in process; a command the server took may run as long as it needs."""
ON_VALUES = ("1", "yes", "true", "on")

# message kinds
COMPILE = b"C"           # client -> server: run a command (body: the request)
STATUS = b"S"            # client -> server: report (reply: STATUS with the report)
RUNNING = b"P"           # server child -> client: ready to run the command (body: the child's pid)
GO = b"G"                # client -> server child: run it, with descriptors 0-2 (those open); without GO,
                         # the child ends without running it
EXITED = b"X"            # server or its child -> client: the command ended (body: ("exit", code) or
                         # ("signal", number)); the child reports its own exit status, the server a signal
REFUSED = b"R"           # server -> client: not run (body: the reason); the client compiles in process
SIGNAL = b"K"            # client -> the process running its command: a signal the client received (body: its
                         # number), raised there while the command runs, dropped once it ended
HANDOFF = b"W"           # server -> worker: run this request (body: the request; descriptor: the connection)
DONE = b"D"              # worker -> server: the command ended (body: (reusable?, why not))

_HEADER = 5
MAX_BODY = 64 << 20
MAX_DESCRIPTORS = 3


LIMITS = ("RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_NOFILE", "RLIMIT_AS")
"""The resource limits a client passes on (its child sets them, or refuses the request)."""


def limits() -> dict[str, tuple[int, int]]:
    """This process's `LIMITS` (those the platform has)."""
    try:
        import resource
    except ImportError:              # pragma: no cover - not POSIX
        return {}
    return {name: resource.getrlimit(getattr(resource, name)) for name in LIMITS if hasattr(resource, name)}


class Unavailable(Exception):
    """The server cannot be used here; the message says why (the client then compiles in process)."""


def supported(locks: bool = True) -> bool:
    """Whether this platform has what the server needs: Unix-domain sockets, descriptor passing, fork,
    file locks and POSIX owners (Linux, macOS, the BSDs; not Windows, whose Python has no AF_UNIX).
    `locks=False`: all but the file locks, which only a server takes (a client that finds one
    listening does without importing `fcntl`; one that starts a server asks for them)."""
    if not (_socket is not None and hasattr(_socket, "AF_UNIX") and hasattr(_socket, "SCM_RIGHTS")
            and provides("fork") and provides("getuid")):
        return False
    if not locks:
        return True
    try:
        import fcntl  # noqa: F401 - the pid file's lock (flock)
    except ImportError:
        return False
    return True


def switched_on() -> bool:
    return environ().get(SWITCH_ENV, "").strip().lower() in ON_VALUES


def idle_seconds() -> float | None:
    """$WGC_SERVER_IDLE (seconds, a decimal number > 0), the default when unset; None when malformed."""
    text = environ().get(IDLE_ENV, "").strip()
    if not text:
        return DEFAULT_IDLE_SECONDS
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None


def timeout_seconds() -> float:
    """$WGC_SERVER_TIMEOUT (seconds, a decimal number > 0); the default when unset or malformed (a
    client never fails a command because of the server)."""
    try:
        value = float(environ().get(TIMEOUT_ENV, "").strip() or DEFAULT_TIMEOUT_SECONDS)
    except ValueError:
        return DEFAULT_TIMEOUT_SECONDS
    return value if 0 < value < float("inf") else DEFAULT_TIMEOUT_SECONDS


def folder() -> str:
    """The user's server folder, created if needed; `Unavailable` when it cannot be made private."""
    from wgc.identity import cache_folder

    uid = system.getuid()
    path = absolute(join(cache_folder(), f"server-{uid}"))
    try:
        try:
            info = system.lstat(path)           # the usual case: it is there (one call)
        except OSError:                         # not yet (or worse: then as `os.makedirs` says)
            import os

            os.makedirs(os.path.dirname(path), exist_ok=True)
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
            info = system.lstat(path)
    except OSError as err:
        raise Unavailable(f"'{path}' cannot be created: {err.strerror or err}") from None
    if info.st_mode & 0o170000 != 0o040000:        # stat.S_ISDIR (`stat` is not imported: see above)
        raise Unavailable(f"'{path}' is not a folder")
    if info.st_uid != uid:
        raise Unavailable(f"'{path}' belongs to another user")
    if info.st_mode & 0o077:
        raise Unavailable(f"'{path}' is open to other users (mode {info.st_mode & 0o7777:04o}; 0700 expected)")
    return path


def _locale_encoding() -> str:
    try:
        import _locale

        return str(_locale.getencoding())
    except (ImportError, AttributeError):     # pragma: no cover - before Python 3.11
        return ""


def key() -> str:
    """This wgc's server key (hex): see the module docstring."""
    from wgc.identity import digest_of, fingerprint

    identity = (PROTOCOL, fingerprint(), sys.executable, tuple(sys.flags), sorted(map(str, sys._xoptions.items())),
                list(sys.warnoptions), sys.getfilesystemencoding(), sys.getfilesystemencodeerrors(), _locale_encoding())
    return digest_of(identity).hex()[:24]


class Paths:
    """The files of one server."""

    def __init__(self, socket: str, pid: str, log: str) -> None:
        self.socket, self.pid, self.log = socket, pid, log


def paths(server_folder: str, server_key: str) -> Paths:
    base = join(server_folder, server_key)
    return Paths(base + ".sock", base + ".pid", base + ".log")


SUN_PATH_MAX = 100
"""A socket path longer than this (bytes) does not fit sockaddr_un everywhere: reached through /proc."""


class Address:
    """A socket path as bind/connect can take it: itself, or, when too long, through a descriptor of
    its folder (/proc/self/fd/N/name, Linux). Close it after use."""

    def __init__(self, path: str) -> None:
        self._folder_fd: int | None = None
        self.address = path
        if len(path.encode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())) > SUN_PATH_MAX:
            try:
                through_proc = system.stat("/proc/self/fd").st_mode & 0o170000 == 0o040000     # a folder
            except OSError:
                through_proc = False
            if not through_proc:
                raise Unavailable(f"the socket path '{path}' is too long for this system")
            folder, _, name = path.rpartition("/")          # (Linux: `os.path.dirname`, `basename`)
            self._folder_fd = system.open(folder, system.O_RDONLY | getattr(system, "O_DIRECTORY", 0))
            self.address = f"/proc/self/fd/{self._folder_fd}/{name}"

    def close(self) -> None:
        if self._folder_fd is not None:
            system.close(self._folder_fd)
            self._folder_fd = None


def new_socket() -> "Any":
    return _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)


def connect(path: str, timeout: float | None = None) -> "Any":
    """A socket connected to the server at `path` (its operations time out after `timeout` seconds);
    OSError (ENOENT, ECONNREFUSED: none listens; a timeout: a full backlog)."""
    address = Address(path)
    connection = new_socket()
    try:
        connection.settimeout(timeout)
        connection.connect(address.address)
    except BaseException:
        connection.close()
        raise
    finally:
        address.close()
    return connection


_LOCAL_PEERCRED = (0, 1)
"""SOL_LOCAL and LOCAL_PEERCRED of macOS and FreeBSD (<sys/un.h>), where Python may not name them:
getsockopt then gives a `struct xucred`, whose version and uid come first (two unsigned ints)."""


def peer_uid(connection: "Any") -> int | None:
    """The uid of the process at the other end of `connection` (SO_PEERCRED on Linux, LOCAL_PEERCRED on
    macOS and FreeBSD); None where the platform cannot tell (the private folder decides there); -1
    when the query fails."""
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        if not sys.platform.startswith(("darwin", "freebsd")):
            return None
        import struct     # here only: the thin client on Linux does without it

        level = getattr(_socket, "SOL_LOCAL", _LOCAL_PEERCRED[0])
        name = getattr(_socket, "LOCAL_PEERCRED", _LOCAL_PEERCRED[1])
        try:
            version, uid = struct.unpack_from("2I", connection.getsockopt(level, name, 76))
        except (OSError, struct.error):
            return -1
        return uid if version == 0 else -1

    try:
        credentials = connection.getsockopt(_socket.SOL_SOCKET, option, 12)     # struct ucred: pid, uid, gid
    except OSError:
        return -1
    return int.from_bytes(credentials[4:8], sys.byteorder, signed=True)


def same_user(connection: "Any") -> bool:
    """Whether the peer of `connection` runs as this user (see `peer_uid`)."""
    uid = peer_uid(connection)
    return uid is None or uid == system.getuid()


def parse(data: bytes | bytearray) -> "tuple[bytes, Any, int] | None":
    """(kind, body, length) of the message at the start of `data`, None while it is incomplete;
    ValueError when it is malformed or too large."""
    if len(data) < _HEADER:
        return None
    size = int.from_bytes(data[1:_HEADER], "big")
    if size > MAX_BODY:
        raise ValueError("a message too large")
    if len(data) < _HEADER + size:
        return None
    try:
        body = marshal.loads(bytes(data[_HEADER:_HEADER + size]))
    except (EOFError, TypeError) as err:
        raise ValueError(f"a malformed message: {err}") from None
    return bytes(data[:1]), body, _HEADER + size


def send(connection: "Any", kind: bytes, body: "Any", descriptors: tuple[int, ...] = ()) -> None:
    data = marshal.dumps(body)
    message = kind + len(data).to_bytes(4, "big") + data
    ancillary = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, b"".join(fd.to_bytes(4, sys.byteorder)
                                                                    for fd in descriptors))] if descriptors else []
    sent = connection.sendmsg([message], ancillary)
    if sent < len(message):
        connection.sendall(message[sent:])


ANCILLARY_SPACE = _socket.CMSG_SPACE(MAX_DESCRIPTORS * 4) if _socket is not None and hasattr(_socket, "CMSG_SPACE") else 0
"""The ancillary buffer of one recvmsg: room for `MAX_DESCRIPTORS` descriptors."""


def descriptors_in(ancillary: list[tuple[int, int, bytes]]) -> list[int]:
    """The descriptors an SCM_RIGHTS message of recvmsg's `ancillary` data brought (now open here)."""
    descriptors: list[int] = []
    for level, kind, data in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            usable = len(data) - len(data) % 4
            descriptors += [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, usable, 4)]
    return descriptors


def receive(connection: "Any") -> "tuple[bytes, Any, list[int]]":
    """(kind, body, descriptors) of the next message; EOFError when the peer closed first, ValueError
    when the message is malformed (its descriptors are closed then)."""
    head, ancillary, _flags, _address = connection.recvmsg(_HEADER, ANCILLARY_SPACE)
    descriptors = descriptors_in(ancillary)
    try:
        while len(head) < _HEADER:
            more = connection.recv(_HEADER - len(head))
            if not more:
                break
            head += more
        if not head:
            raise EOFError("the peer closed the connection")
        if len(head) < _HEADER:
            raise ValueError("a truncated message")
        size = int.from_bytes(head[1:], "big")
        if size > MAX_BODY:
            raise ValueError("a message too large")
        chunks = []
        while size:
            chunk = connection.recv(min(size, 1 << 20))
            if not chunk:
                raise ValueError("a truncated message")
            chunks.append(chunk)
            size -= len(chunk)
        return head[:1], marshal.loads(b"".join(chunks)), descriptors
    except BaseException:
        for fd in descriptors:
            system.close(fd)
        raise
