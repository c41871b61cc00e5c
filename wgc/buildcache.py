"""Compile cache: a `wgc compile` whose command and inputs did not change is answered from a stored result.

Stage: around the CLI, before click or any compiler stage is imported (ccache's "direct mode").
Input: the command line as given (argv), the current folder, the colour environment (whether
stderr is a terminal, whether NO_COLOR is set), the fingerprint of this wgc (`fingerprint`), and
the contents of every file the compile read (the input and each `#include`d file).
Output: on a hit (`replay`), the outputs the stored compile staged, written again through
`wgc.outputs` (all or none, same rules), its diagnostics on stderr, its exit code; on a miss,
nothing: the CLI compiles and a `Recording` stores the result.

Invariants:
- A hit imports neither click nor any compiler stage: only this module, `wgc.outputs`,
  `wgc.portable`, `wgc.identity` and the standard library (`wgc.entry` calls `replay` first).
- Key: a digest of (entry format, fingerprint, cwd, argv, colour environment). With a base folder
  ($WGC_CACHE_BASEDIR, ccache's `base_dir`), `relocated` first rewrites every absolute path under
  it on a compile's command line to a path relative to the working folder (the compile itself then
  runs with those words, so its outputs name no absolute path under the base), and the key holds
  no cwd when the working folder is under the base: the same sources in another checkout or build
  folder hit. Each key holds up
  to `VARIANTS_KEPT` entries, one per set of dependency contents; an entry hits when every file it
  lists still has the digest it had (so a changed input or header is a miss, and switching back
  and forth between header versions hits both) and every #include candidate that was searched
  and not found is still absent (a header created earlier on the search path is a miss). Every option is part of argv, so any change of an
  option is a miss; the fingerprint changes with any file of the wgc package (size, mtime), the
  checkout's grammar, any installed distribution (name and version) and Python's version.
- Stored: only compiles that succeeded (exit 0, warnings allowed) and read only regular files.
  An input that is not a regular file (standard input, a pipe, a FIFO, a device, /dev/fd/N) is
  never opened by the cache (only `stat`ed) and makes the compile bypass it: it is read once, by
  the compiler. A compile with errors is not stored: it runs (and reports) again, as ccache does.
  Each file is digested right after the compiler read it; a file that changed after the compile
  started (its ctime, which no `touch` can set back, is not older than the start) or whose stat
  or content differs when storing makes the compile unstored (ccache's "too new" rule).
- Trust (the security model, docs/guide.md "Security model: caches and the server"): the cache is used
  only in a private folder (`wgc.startup_cache.private_folder`: owned by the user, not writable by
  group or others); otherwise warning WG0037 and the compile runs without the cache (WG0070
  where files have no owners and modes to check: Windows). Every file in
  it is opened with O_NOFOLLOW; entries must be regular files owned by the user, at most the size
  limit, intact (magic, digest) and well formed (`_checked`); a hit writes only the outputs the
  current command line names (`_requested`: the paths given to -o, -Fh, -Fre, -MF, -Fe,
  --split-nodes, or their defaults), never a path just because an entry holds it, and reads only
  regular files. The counters are appended to only when they are regular files the user owns
  with one link (created with O_EXCL otherwise).
- Atomic: an entry is written to a temporary file in its folder and renamed, so a reader sees a
  whole entry or none and concurrent writers of one key each leave a whole entry (the last rename
  wins). An entry is checked on reading (magic, digest of its payload): a corrupt one is a miss
  and is removed.
- Bounded: after a store, the least recently used entries (by mtime; a hit touches its entry) are
  removed until the total is at most `max_size()` (WGC_CACHE_MAX_SIZE, default 256 MiB).
- A broken cache never breaks a compile: any problem reading it is a miss; a folder that cannot
  be written is warning WG0036 before the compile, one that is not private WG0037, a bad
  WGC_CACHE_MAX_SIZE is error WG0035.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time
from collections.abc import Callable

from wgc import portable
from wgc.identity import blake2b
from wgc.identity import compute_fingerprint as compute_fingerprint
from wgc.identity import digest as _digest
from wgc.identity import digest_of
from wgc.identity import fingerprint as fingerprint

TYPE_CHECKING = False   # not `typing`'s: a cache hit or a server client does without importing typing
if TYPE_CHECKING:
    from typing import Any

    from wgc.diagnostics import Diagnostic

FORMAT = b"wgc-result-cache-1"
MAGIC = b"WGCR0001"
DIGEST_SIZE = 32
VARIANTS_KEPT = 4
"""Entries one command line keeps (for different dependency contents), the most recently used."""
DEFAULT_MAX_SIZE = 256 << 20
TEMP_PREFIX = ".tmp-"
SWITCH_ENV = "WGC_CACHE"
SIZE_ENV = "WGC_CACHE_MAX_SIZE"
BASEDIR_ENV = "WGC_CACHE_BASEDIR"
ON_VALUES = ("1", "yes", "true", "on")


def results_folder() -> str:
    from wgc.startup_cache import folder

    return os.path.join(folder(), "results")


def wanted(argv: list[str]) -> bool:
    """Whether this command line may use the cache: `--cache`, or $WGC_CACHE on and no `--no-cache`.

    Only a guess from the raw words (click decides for real when it stores): a wrong guess costs a
    miss, never a wrong hit, because entries are stored only by commands click parsed as cached.
    """
    if "--no-cache" in argv:
        return False
    return "--cache" in argv or switched_on()


def switched_on() -> bool:
    return os.environ.get(SWITCH_ENV, "").strip().lower() in ON_VALUES


def max_size() -> int | None:
    """The size limit in bytes from $WGC_CACHE_MAX_SIZE (a number with an optional K, M or G:
    binary units), the default when unset; None when the value is malformed."""
    text = os.environ.get(SIZE_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_SIZE
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1].upper(), 1)
    number = text[:-1] if scale > 1 else text
    if not number.isdigit():
        return None
    return int(number) * scale


def size_problem() -> Diagnostic | None:
    """Error WG0035 when $WGC_CACHE_MAX_SIZE is malformed."""
    if max_size() is not None:
        return None
    from wgc import codes

    return codes.CACHE_SIZE_INVALID(None, f"{SIZE_ENV}='{os.environ[SIZE_ENV]}' is not a size "
                                    "(a whole number of bytes, or with K, M or G, e.g. 512M)")


# ----------------------------------------------------------------------------- keys


def base_folder() -> tuple[str, str] | None:
    """$WGC_CACHE_BASEDIR as (normalised, with links resolved), or None when unset or not absolute."""
    text = os.environ.get(BASEDIR_ENV, "")
    if not text or not os.path.isabs(text):
        return None
    return os.path.normpath(text), os.path.realpath(text)


def basedir_problem() -> Diagnostic | None:
    """Warning WG0060 when $WGC_CACHE_BASEDIR is set but is not an absolute path (it is ignored)."""
    text = os.environ.get(BASEDIR_ENV, "")
    if not text or os.path.isabs(text):
        return None
    from wgc import codes

    return codes.CACHE_BASEDIR_RELATIVE(None, f"{BASEDIR_ENV}='{text}' is not an absolute path: it is ignored, "
                                        "and the cache hits only in this folder")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


_NOT_PATHS = ("-MT", "-D", "-U", "-Vn", "-E", "-T")
"""Options whose value is never a file (a Make target, a macro, a name): kept as written."""
_ATTACHED = ("-I", "-o")
"""One-letter options whose value may be attached (`-I/abs/inc`)."""


def relocated(argv: list[str]) -> list[str]:
    """`argv` of a compile with each absolute path under the base folder (a word, `--opt=PATH`,
    `-IPATH`, `-oPATH`) made relative to the working folder, as ccache's `base_dir` does; `argv`
    unchanged without a base folder or for another command. Idempotent."""
    base = base_folder()
    if base is None or not argv or not (argv[0] == "compile" or argv[0].startswith("-") or "." in argv[0]
                                         or os.sep in argv[0]):
        return list(argv)
    cwd = os.getcwd()

    def relative(path: str) -> str | None:
        if not os.path.isabs(path):
            return None
        path = os.path.normpath(path)
        for form in base:
            if _under(path, form):
                try:
                    return os.path.relpath(os.path.join(base[1], os.path.relpath(path, form)), cwd)
                except ValueError:          # Windows: another drive than the working folder's
                    return None
        return None

    words = []
    for index, word in enumerate(argv):
        if word == "--":
            words.extend(argv[index:])
            break
        new = None
        if index > 0 and argv[index - 1] in _NOT_PATHS:
            pass
        elif word.startswith("-") and "=" in word:
            option, _, value = word.partition("=")
            found = relative(value)
            new = None if found is None else f"{option}={found}"
        elif word.startswith(_ATTACHED) and len(word) > 2:
            found = relative(word[2:])
            new = None if found is None else word[:2] + found
        else:
            new = relative(word)
        words.append(word if new is None else new)
    return words


def _working_folder() -> str:
    """The working folder as the key holds it: "" under the base folder (relative paths are checked
    by their contents), else the absolute path."""
    cwd = os.getcwd()
    base = base_folder()
    if base is not None and any(_under(cwd, form) for form in base):
        return ""
    return cwd


def command_key(argv: list[str]) -> str:
    """The key of a command line (hex): see the module docstring."""
    try:
        colour = (sys.stderr is not None and sys.stderr.isatty(), bool(os.environ.get("NO_COLOR")))
    except (OSError, ValueError):
        colour = (False, bool(os.environ.get("NO_COLOR")))
    return digest_of((FORMAT, fingerprint(), _working_folder(), list(argv), colour)).hex()


def _entry_paths(key: str) -> tuple[str, str]:
    """The shard folder of `key` and the name prefix of its entries."""
    return os.path.join(results_folder(), key[:2]), key[2:] + "."


Identity = tuple[int, int, int, int, int]
"""(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns) of a file."""


def _identity_of(info: os.stat_result) -> Identity:
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _read_regular(path: str) -> tuple[Identity, bytes] | None:
    """(identity, digest) of the regular file at `path` (links followed), None for anything else.

    The path is `stat`ed before it is opened: a FIFO, a pipe (/dev/stdin, /dev/fd/N), a device or a
    socket is never opened (opening a FIFO would block, or take its data from the compiler, or
    let its writer die of SIGPIPE); it is opened without blocking and checked again on the
    descriptor, in case it was replaced in between (as the preprocessor reads an #include)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | portable.open_flags("O_NONBLOCK", "O_CLOEXEC", "O_NOCTTY"))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        hasher = blake2b(digest_size=DIGEST_SIZE)
        while chunk := os.read(fd, 1 << 20):
            hasher.update(chunk)
        return _identity_of(info), hasher.digest()
    except OSError:
        return None
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- entries


def _encode(payload: Any) -> bytes:
    body = marshal.dumps(payload)
    return MAGIC + _digest(body) + body


def _decode(data: bytes) -> Any:
    """The payload of an entry's bytes; ValueError when they are not a whole, intact entry."""
    head = len(MAGIC) + DIGEST_SIZE
    if len(data) < head or not data.startswith(MAGIC) or _digest(data[head:]) != data[len(MAGIC):head]:
        raise ValueError("not an intact entry")
    return marshal.loads(data[head:])


def _private_results() -> str | None:
    """The results folder, created (mode 0700) in the private cache folder; None when the cache
    folder is not private (`wgc.startup_cache.private_folder`) or the results folder is not a
    folder of the user's own, not writable by others (a link is not followed)."""
    from wgc.startup_cache import NotPrivate, private_folder

    try:
        private_folder()
        folder = results_folder()
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        info = os.lstat(folder)
    except (OSError, NotPrivate):
        return None
    return folder if _own_folder(info) else None


def _own_folder(info: os.stat_result) -> bool:
    return (stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o022
            and portable.has_owners() and info.st_uid == os.geteuid())


def _candidates(key: str) -> list[str]:
    """The entries of `key` (regular files, links not followed), most recently used first."""
    folder, prefix = _entry_paths(key)
    try:
        if not _own_folder(os.lstat(folder)):
            return []
        with os.scandir(folder) as entries:
            found = []
            for entry in entries:
                if entry.name.startswith(prefix):
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISREG(info.st_mode):
                        found.append((info.st_mtime_ns, entry.path))
    except OSError:
        return []
    return [path for _mtime, path in sorted(found, reverse=True)]


_OUTPUT_OPTIONS = {"-o": ("-o", "-Fo"), "-Fh": ("-Fh",), "-Fre": ("-Fre",), "-MF": ("-MF",), "-Fe": ("-Fe",),
                   "--split-nodes": ("--split-nodes",)}
"""The options that name an output of `wgc compile` (as the output plan names them) and their spellings."""
_MODULE_SUFFIXES = (".spv", ".spvasm")


def _requested(argv: list[str]) -> dict[str, set[str]]:
    """The paths each output option names on `argv` (`-o FILE`, `-o=FILE`, `-oFILE`; up to `--`),
    with the defaults the compile command derives from them: `a.spv` or `-` for -o when neither -o
    nor -Fh is given, the main output + `.d` for -MF, `-` for -M. A word that is another option's
    value may be taken for an output too: then a hit may write only what the user typed."""
    found: dict[str, set[str]] = {option: set() for option in _OUTPUT_OPTIONS}
    for index, word in enumerate(argv):
        if word == "--":
            break
        for option, spellings in _OUTPUT_OPTIONS.items():
            for spelling in spellings:
                if word == spelling and index + 1 < len(argv):
                    found[option].add(argv[index + 1])
                elif word.startswith(spelling + "="):
                    found[option].add(word[len(spelling) + 1:])
                elif spelling == "-o" and word.startswith("-o") and len(word) > 2:
                    found[option].add(word[2:])
    mains = found["--split-nodes"] | found["-o"] | found["-Fh"]
    if not found["-o"] and not found["-Fh"]:
        found["-o"] = {"a.spv", "-"}                 # no -o: a.spv, or standard output for text
    found["-MF"] |= {f"{main}.d" for main in (mains or {"a.spv"})}
    found["-M"] = {"-"}
    return found


def _checked(payload: Any, argv: list[str]) -> dict[str, Any]:
    """`payload` when it is an entry for `argv`: well formed, and naming only outputs that `argv`
    requests (`_requested`); ValueError otherwise."""
    def strings(value: Any, size: int) -> bool:
        return isinstance(value, (list, tuple)) and len(value) == size and all(isinstance(v, str) for v in value)

    if not isinstance(payload, dict) or set(payload) != {"dependencies", "absent", "named", "split", "staged",
                                                         "stderr", "exit"}:
        raise ValueError("not an entry")
    requested = _requested(argv)
    named = payload["named"]
    split = payload["split"]
    if not isinstance(named, list) or not all(strings(n, 2) and n[1] in requested.get(n[0], ()) for n in named):
        raise ValueError("an output the command line does not name")
    if split is not None and not (strings(split, 2) and split[0] == "--split-nodes"
                                  and split[1] in requested["--split-nodes"]):
        raise ValueError("a split folder the command line does not name")
    paths = {path for _option, path in named}
    staged = payload["staged"]
    if not isinstance(staged, list):
        raise ValueError("not an entry")
    for item in staged:
        if not isinstance(item, tuple) or not item:
            raise ValueError("not an entry")
        if item[0] == "stage" and len(item) == 3 and item[1] in paths and isinstance(item[2], bytes):
            continue
        if item[0] == "split" and len(item) == 2 and split is not None and isinstance(item[1], list) and all(
                isinstance(m, tuple) and len(m) == 2 and isinstance(m[0], str) and isinstance(m[1], bytes)
                and m[0].endswith(_MODULE_SUFFIXES) and os.path.basename(m[0]) == m[0]
                and "/" not in m[0] and m[0] not in (".", "..") and not m[0].startswith(".")
                for m in item[1]):
            continue
        raise ValueError("a staged output the command line does not name")
    staged_paths = [item[1] for item in staged if item[0] == "stage"]
    if sorted(staged_paths) != sorted(paths) or len(paths) != len(named) or (
            sum(item[0] == "split" for item in staged) != (split is not None)):
        raise ValueError("not every output the entry names is staged once")
    dependencies, absent = payload["dependencies"], payload["absent"]
    if not (isinstance(dependencies, list) and all(
            isinstance(d, tuple) and len(d) == 3 and isinstance(d[0], str) and isinstance(d[1], str)
            and isinstance(d[2], bytes) and len(d[2]) == DIGEST_SIZE for d in dependencies)
            and isinstance(absent, list) and all(isinstance(a, str) for a in absent)
            and isinstance(payload["stderr"], str) and payload["exit"] == 0 and type(payload["exit"]) is int):
        raise ValueError("not an entry")
    return payload


def lookup(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The path and payload of the entry for `argv` whose dependencies are unchanged, if any.

    Only in a private folder; an entry is read only when it is a regular file of the user's own
    (no link), at most the size limit, and used only when intact and `_checked`."""
    from wgc.startup_cache import read_private

    if _private_results() is None:
        return None
    digests: dict[str, bytes | None] = {}
    for path in _candidates(command_key(argv)):
        data = read_private(path, max_size() or DEFAULT_MAX_SIZE)
        try:
            if data is None:
                raise ValueError("not a file of the user's own")
            payload = _checked(_decode(data), argv)
        except (ValueError, EOFError, TypeError, KeyError):
            _remove(path)                  # corrupt or foreign: a miss, and it goes
            continue
        for dep_path, _role, digest in payload["dependencies"]:
            if dep_path not in digests:
                found = _read_regular(dep_path)
                digests[dep_path] = None if found is None else found[1]
            if digests[dep_path] != digest:
                break
        else:
            if not any(map(_present, payload["absent"])):
                return path, payload
    return None


def _present(path: str) -> bool:
    """Whether the preprocessor would find a file at `path` (it counts a dangling link as absent)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return False
    except OSError:
        return True
    return True


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def replay(argv: list[str]) -> int | None:
    """Answer `argv` from the cache: write the stored outputs and diagnostics, return the exit code;
    None on a miss, or when the stored outputs cannot be written as stored (then the compile runs
    and reports the problem itself)."""
    found = lookup(argv)
    if found is None:
        return None
    path, payload = found
    from wgc.outputs import Interrupted, OutputError, OutputPlan, signals_interrupt

    plan = OutputPlan()
    for option, name in payload["named"]:
        plan.name(option, name)
    if payload["split"] is not None:
        plan.name_split_dir(*payload["split"])
    for dep_path, role, _ in payload["dependencies"]:
        plan.note_read(dep_path, role)
    modules = tuple(name for kind, *args in payload["staged"] if kind == "split" for name, _data in args[0])
    if plan.refusals(modules):
        return None
    try:
        with signals_interrupt():
            transaction = plan.transaction()
            try:
                for kind, *args in payload["staged"]:
                    if kind == "split":
                        transaction.stage_split(dict(args[0]))
                    else:
                        transaction.stage(args[0], args[1])
                transaction.commit()
            except OutputError:
                transaction.abort()
                return None
            except BaseException:
                transaction.abort()
                plan.remove_stale()
                raise
            if payload["stderr"]:
                sys.stderr.write(payload["stderr"])
                sys.stderr.flush()
    except Interrupted as interrupt:
        return 128 + interrupt.signum
    try:
        os.utime(path, follow_symlinks=os.utime not in os.supports_follow_symlinks)   # used: evicted last
    except OSError:
        pass
    count("hits")
    return int(payload["exit"])


# ----------------------------------------------------------------------------- storing


def folder_problem() -> Diagnostic | None:
    """Warning WG0036 when the results folder cannot be created or written, WG0037 when the cache
    folder is not private (either way the compile goes on, without the cache)."""
    from wgc.startup_cache import NotPrivate, private_folder

    folder = results_folder()
    if not portable.has_owners():
        from wgc import codes

        return codes.CACHE_UNSUPPORTED(None, "the compile cache is not used: files have no owners and permission "
                                       "bits on this platform, so wgc cannot check that its folder is private "
                                       "to you; compiling without it")
    try:
        private_folder()
        if _private_results() is None:
            raise NotPrivate(f"'{folder}' is not a folder of the user's own that only the user may write")
        if os.access(folder, os.W_OK | os.X_OK):
            return None
        reason = os.strerror(13)
    except NotPrivate as problem:
        from wgc import codes

        return codes.CACHE_NOT_PRIVATE(None, f"the compile cache is not used: {problem}; compiling without it")
    except OSError as err:
        reason = err.strerror or str(err)
    from wgc import codes

    return codes.CACHE_UNUSABLE(None, f"compile results cannot be cached in '{folder}': {reason}; "
                                "compiling without the cache")


class Recording:
    """What one cached compile read, staged and printed, stored when it succeeds (see `store`)."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = list(argv)
        self.started = time.time_ns()
        """When the compile started: a file changed since (its ctime) is not stored."""
        self.read: dict[str, tuple[str, Identity, bytes]] = {}
        """path -> (role, its identity and digest when it was read)."""
        self.absent: tuple[str, ...] = ()
        """The #include candidates that were searched and not found (`driver.Result.absent_includes`)."""
        self.staged: list[tuple[Any, ...]] = []
        self.stderr = ""
        self.cacheable = True

    def note_read(self, path: str, role: str = "included file") -> None:
        """`path` was read (an #include: just now; the input: it is about to be); anything but a
        regular file unchanged since the compile started makes the compile bypass the cache."""
        if path in self.read or not self.cacheable:
            return
        found = None if path == "-" else _read_regular(path)
        if found is None or found[0][4] >= self.started:
            self.cacheable = False
        else:
            self.read[path] = (role, *found)

    def also(self, note_read: Callable[[str, str], None]) -> Callable[..., None]:
        """`note_read` (the output plan's), recording the file too (before the compile runs on)."""
        def both(path: str, role: str = "included file") -> None:
            self.note_read(path, role)
            note_read(path, role)
        return both

    def watch(self, transaction: Any) -> _RecordingTransaction:
        return _RecordingTransaction(transaction, self)

    def store(self, plan: Any, exit_code: int) -> None:
        """Keep the result (only of a successful compile whose files did not change meanwhile)."""
        count("misses")
        if exit_code != 0 or not self.cacheable or max_size() is None:
            return
        dependencies = []
        for path, (role, identity, digest) in self.read.items():
            if _read_regular(path) != (identity, digest):
                return                      # changed (or vanished) while the compile ran
            dependencies.append((path, role, digest))
        if any(map(_present, self.absent)):
            return                          # created while the compile ran
        payload = {
            "dependencies": dependencies,
            "absent": list(self.absent),
            "named": [(named.option, named.path) for named in plan.named],
            "split": (plan.split_option, plan.split_dir) if plan.split_dir is not None else None,
            "staged": self.staged,
            "stderr": self.stderr,
            "exit": exit_code,
        }
        key = command_key(self.argv)
        folder, prefix = _entry_paths(key)
        variant = digest_of([(p, d) for p, _r, d in dependencies]).hex()[:16]
        if _private_results() is None:
            return
        try:
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
            if not _own_folder(os.lstat(folder)):
                return
            _write_atomically(os.path.join(folder, prefix + variant), _encode(payload))
        except OSError:
            return
        for stale in _candidates(key)[VARIANTS_KEPT:]:
            _remove(stale)
        evict(max_size() or DEFAULT_MAX_SIZE)


class _RecordingTransaction:
    """A `wgc.outputs.Transaction` that also records what is staged (the same calls replay it)."""

    def __init__(self, transaction: Any, recording: Recording) -> None:
        self._transaction = transaction
        self._recording = recording

    def stage(self, path: str, data: bytes) -> None:
        self._transaction.stage(path, data)
        self._recording.staged.append(("stage", path, bytes(data)))

    def stage_split(self, modules: dict[str, bytes]) -> None:
        self._transaction.stage_split(modules)
        self._recording.staged.append(("split", sorted((name, bytes(data)) for name, data in modules.items())))

    def commit(self) -> None:
        self._transaction.commit()

    def abort(self) -> None:
        self._transaction.abort()


def _write_atomically(path: str, data: bytes) -> None:
    from wgc.startup_cache import write_new

    temp = os.path.join(os.path.dirname(path), TEMP_PREFIX + os.urandom(8).hex())
    try:
        write_new(temp, data)
        os.replace(temp, path)
    except BaseException:
        _remove(temp)
        raise


# ----------------------------------------------------------------------------- size, statistics, clearing

STALE_TEMP_SECONDS = 3600
"""A temporary file this old was left by a process that died while storing: eviction removes it."""


def _entries(folder: str, visit: Callable[[os.DirEntry[str], os.stat_result], None]) -> None:
    try:
        shards = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for shard in shards:
        try:
            with os.scandir(shard.path) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISREG(info.st_mode):
                        visit(entry, info)
        except OSError:
            continue


def evict(limit: int) -> None:
    """Remove the least recently used entries until the results take at most `limit` bytes."""
    import time

    found: list[tuple[int, int, str]] = []
    now = time.time()

    def visit(entry: os.DirEntry[str], info: os.stat_result) -> None:
        if entry.name.startswith(TEMP_PREFIX):
            if now - info.st_mtime > STALE_TEMP_SECONDS:
                _remove(entry.path)
            return
        found.append((info.st_mtime_ns, info.st_size, entry.path))

    _entries(results_folder(), visit)
    total = sum(size for _mtime, size, _path in found)
    for _mtime, size, path in sorted(found):
        if total <= limit:
            break
        _remove(path)
        total -= size


COUNTERS = ("hits", "misses")


def count(counter: str) -> None:
    """Add one to `counter` (one byte appended to its file: appends of concurrent processes do not mix).

    Only in the private results folder, and only to a regular file of the user's own with one link
    (O_NOFOLLOW: a planted link is never followed); a missing counter is created (O_EXCL)."""
    folder = _private_results()
    if folder is None:
        return
    path = os.path.join(folder, counter)
    flags = os.O_WRONLY | os.O_APPEND | portable.open_flags("O_NONBLOCK", "O_NOFOLLOW", "O_CLOEXEC")
    for create in (0, os.O_CREAT | os.O_EXCL, 0):      # exists; else create it; else another process did
        try:
            fd = os.open(path, flags | create, 0o600)
            break
        except FileNotFoundError:
            continue
        except OSError:
            if not create:
                return
    else:
        return
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and _own_file(info):
            os.write(fd, b".")
    except OSError:
        pass
    finally:
        os.close(fd)


def _own_file(info: os.stat_result) -> bool:
    return not info.st_mode & 0o022 and portable.has_owners() and info.st_uid == os.geteuid()


def statistics() -> tuple[int, int, int, int]:
    """(entries, bytes, hits, misses): the results stored, and the cached compiles answered from the
    cache (hits) or compiled (misses) since the last `clear`; zeros when the folder is not private."""
    if _private_results() is None:
        return 0, 0, 0, 0
    counters = []
    for counter in COUNTERS:
        try:
            counters.append(os.lstat(os.path.join(results_folder(), counter)).st_size)
        except OSError:
            counters.append(0)
    counts = [0, 0]

    def visit(entry: os.DirEntry[str], info: os.stat_result) -> None:
        if not entry.name.startswith(TEMP_PREFIX):
            counts[0] += 1
            counts[1] += info.st_size

    _entries(results_folder(), visit)
    return counts[0], counts[1], counters[0], counters[1]


def clear() -> int:
    """Remove every stored result and zero the counters (the grammar tables stay); the number removed
    (none from a folder that is not private: it is not the user's to clear)."""
    if _private_results() is None:
        return 0
    for counter in COUNTERS:
        _remove(os.path.join(results_folder(), counter))
    removed = [0]

    def visit(entry: os.DirEntry[str], _info: os.stat_result) -> None:
        _remove(entry.path)
        removed[0] += not entry.name.startswith(TEMP_PREFIX)

    _entries(results_folder(), visit)
    return removed[0]
