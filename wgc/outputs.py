"""Outputs: every file a wgc command writes, all of them or none (the CLI's only writer).

Stage: after `wgc.driver` (which never writes); `wgc.cli` drives it; no click here.
Input: the output paths of one command, each with the option that named it (`OutputPlan.name`,
`OutputPlan.name_split_dir`), the files the compile read (`OutputPlan.note_read`, fed while the
compile runs), and the bytes of each output (`Transaction.stage`).
Output: the files on disk, or `Diagnostic`s (WG0007-WG0010) saying why not; never a traceback.

Invariants (docs/reference.md's "Outputs" section says the same for users):
- Prepare, then commit: every output that is a regular file (or does not exist yet) is first
  written to a temporary file `.wgc-<random>` in the folder of its final path; only when every
  output of the command was prepared are they renamed into place, in staging order (the depfile
  and `-Fe` last). An output whose file (this user's) holds exactly its bytes already is not
  written again: the commit sets its modification time to now in its turn (`_holds`). On any failure every temporary file is removed, and so is every output of an
  earlier run at the command's output paths (`OutputPlan.remove_stale`): a build never sees a
  partial, stale or mixed set of outputs.
- Only regular files are replaced by a rename. Standard output (`-`), character devices and FIFOs
  are opened for writing and written directly (before any rename, so a failure there leaves
  nothing renamed); a directory, or a path ending in '/', is refused (and never "cleaned up").
- Symbolic links are followed as gcc follows them: the link's target is replaced atomically and
  the link stays a link; a dangling link creates its target.
- A new file gets mode 0666 & ~umask (the kernel applies the umask, as for a compiler's
  `open(O_CREAT)`); a replaced file keeps its mode and, where allowed, its owner. Descriptors are
  opened with `wgc.portable.open_flags` (binary on Windows; flags a platform lacks are left out).
- Refused before anything is written or removed (`OutputPlan.refusals`): an output that is a
  file the compile read (the input or an `#include`d file, compared by st_dev/st_ino, so `./x`,
  hard links and symlinks are caught), and one file named by two output options.
- Stale outputs are only regular files and never a file the compile read.
- `--split-nodes DIR`: the names wgc wrote in DIR are listed in `DIR/.wgc.manifest`. A run removes
  the modules of the previous manifest that it no longer produces; a failed run removes them all
  (and the manifest). Files that no manifest lists are never touched. A folder the command
  created is removed again when the command fails.
- SIGINT, SIGTERM and SIGHUP raise `Interrupted` (`wgc.interrupts`), so clean-up code runs; inside
  the short critical sections that create, rename or remove files they are deferred to the end
  of the section, so no temporary file escapes the bookkeeping. A commit starts with a checkpoint
  (a signal whose raise Python swallowed is raised there), and a committed transaction is undone
  (its files removed) if the command still turns out interrupted (`wgc.interrupts.conclude`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys

from wgc import interrupts, portable
from wgc.interrupts import Interrupted  # noqa: F401 - re-exported: the CLI and the cache catch it here
from wgc.interrupts import deferred as _critical
from wgc.interrupts import handled as signals_interrupt  # noqa: F401 - re-exported

TYPE_CHECKING = False   # not `typing`'s: a cache hit does without importing typing

if TYPE_CHECKING:  # the diagnostics modules load only when a diagnostic is made: `wgc --version` stays fast
    from wgc.diagnostics import Diagnostic

STDOUT = "-"
_SEPARATORS = ("/", os.sep)     # a path ending in one names a folder ('\\' too on Windows)
TEMP_PREFIX = ".wgc-"
MANIFEST_NAME = ".wgc.manifest"
MANIFEST_HEADER = "# wgc --split-nodes: the files wgc wrote in this folder (it removes them when stale)\n"


# ----------------------------------------------------------------------------- errors


class OutputError(Exception):
    """An output could not be written; `diagnostic` says which and why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


def cannot_write(path: str, reason: str) -> OutputError:
    from wgc import codes

    if path == STDOUT:
        return OutputError(codes.OUTPUT_NOT_WRITABLE(None, f"cannot write to standard output: {reason}"))
    return OutputError(codes.OUTPUT_NOT_WRITABLE(None, f"cannot write '{path}': {reason}"))


# ----------------------------------------------------------------------------- identities

Identity = tuple[int, int]


def _stat(path: str) -> os.stat_result | None:
    """`os.stat` (following links), None when nothing is there."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None


def regular_identity(path: str) -> Identity | None:
    """(st_dev, st_ino) of the regular file at `path` (links followed), else None."""
    try:
        found = _stat(path)
    except OSError:
        return None
    if found is None or not stat.S_ISREG(found.st_mode):
        return None
    return found.st_dev, found.st_ino


# ----------------------------------------------------------------------------- the plan


class _Named:
    __slots__ = ("option", "path")

    def __init__(self, option: str, path: str) -> None:
        self.option, self.path = option, path


class OutputPlan:
    """The output paths of one command and the files its compile read.

    (A plain class, like the others here: a compile-cache hit replays outputs through this module,
    and must not pay for creating dataclasses.)
    """

    def __init__(self) -> None:
        self.named: list[_Named] = []
        self.split_option: str | None = None
        self.split_dir: str | None = None
        self.read: dict[Identity, tuple[str, str]] = {}
        """Identity of each regular file the compile read -> (its role, its path as named)."""
        self.split_written: set[str] = set()
        """Names this command staged in the split folder (removed with the stale ones on failure)."""

    def name(self, option: str, path: str) -> None:
        self.named.append(_Named(option, path))

    def name_split_dir(self, option: str, path: str) -> None:
        self.split_option, self.split_dir = option, path

    def note_read(self, path: str, role: str = "included file") -> None:
        """Record a file the compile read; outputs may not be it and clean-up never removes it."""
        if path == STDOUT:
            return
        identity = regular_identity(path)
        if identity is not None and identity not in self.read:
            self.read[identity] = (role, path)

    def split_path(self, name: str) -> str:
        assert self.split_dir is not None
        return os.path.join(self.split_dir, name)

    def refusals(self, module_names: tuple[str, ...] = ()) -> list[Diagnostic]:
        """Outputs that are files the compile read, and files named by two output options."""
        targets = [(n.option, n.path) for n in self.named if n.path != STDOUT]
        if self.split_dir is not None:
            targets.append((self.split_option or "--split-nodes", self.split_dir))
        targets += [(self.split_option or "--split-nodes", self.split_path(name)) for name in module_names]
        problems: list[Diagnostic] = []
        seen: dict[object, tuple[str, str]] = {}
        for option, path in targets:
            identity = regular_identity(path)
            if identity is not None and identity in self.read:
                from wgc import codes

                role, read_path = self.read[identity]
                problems.append(codes.OUTPUT_IS_INPUT(
                    None, f"{role} '{read_path}' is the same as output file '{path}' ({option})"))
                continue
            try:
                found = _stat(path)
            except OSError:
                found = None
            if found is not None and not stat.S_ISREG(found.st_mode):
                continue       # /dev/null may be named by several options
            key = identity if identity is not None else os.path.realpath(path)
            if key in seen:
                first_option, first_path = seen[key]
                shown = f"'{path}'" if path == first_path else f"'{first_path}' ('{path}')"
                from wgc import codes

                problems.append(codes.OUTPUT_NAMED_TWICE(
                    None, f"output file {shown} is named by both {first_option} and {option}"))
                continue
            seen[key] = (option, path)
        return problems

    def refuses_diagnostics_file(self, path: str) -> bool:
        identity = regular_identity(path)
        return identity is not None and identity in self.read

    def transaction(self) -> Transaction:
        return Transaction(self)

    def old_manifest(self) -> set[str]:
        """The names the previous run listed in the split folder's manifest (unsafe names dropped)."""
        if self.split_dir is None:
            return set()
        path = self.split_path(MANIFEST_NAME)
        try:
            found = _stat(path)
            if found is None or not stat.S_ISREG(found.st_mode):
                return set()
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return set()
        return {line for line in lines if _safe_name(line)}

    def remove_stale(self) -> list[Diagnostic]:
        """Remove what an earlier run (or this one) left at the output paths; problems as diagnostics."""
        problems: list[Diagnostic] = []
        paths = [n.path for n in self.named if n.path != STDOUT]
        if self.split_dir is not None:
            names = sorted(self.old_manifest() | self.split_written)
            paths += [self.split_path(name) for name in names] + [self.split_path(MANIFEST_NAME)]
        for path in paths:
            problem = self._remove_if_stale(path)
            if problem is not None:
                problems.append(problem)
        return problems

    def _remove_if_stale(self, path: str) -> Diagnostic | None:
        from wgc import codes

        if path.endswith(_SEPARATORS):             # 'x/' never names a file wgc wrote (realpath would drop the '/')
            return None
        real = os.path.realpath(path)
        try:
            found = _stat(real)
        except OSError as err:
            return codes.STALE_OUTPUT_NOT_REMOVABLE(None, f"cannot remove stale output '{path}': {_reason(err)}")
        if found is None or not stat.S_ISREG(found.st_mode) or (found.st_dev, found.st_ino) in self.read:
            return None
        try:
            with _critical():
                os.unlink(real)
        except FileNotFoundError:
            return None
        except OSError as err:
            return codes.STALE_OUTPUT_NOT_REMOVABLE(None, f"cannot remove stale output '{path}': {_reason(err)}")
        return None


def _safe_name(name: str) -> bool:
    return (bool(name) and not name.startswith("#") and "/" not in name and "\\" not in name and "\0" not in name
            and name not in (".", "..", MANIFEST_NAME) and not name.startswith(TEMP_PREFIX))


# ----------------------------------------------------------------------------- writing


class _Rename:
    __slots__ = ("temp", "final", "shown")

    def __init__(self, temp: str | None, final: str, shown: str) -> None:
        self.temp, self.final, self.shown = temp, final, shown     # temp None: `final` holds the bytes already


class _Direct:
    __slots__ = ("target", "data", "shown")

    def __init__(self, target: str, data: bytes, shown: str) -> None:
        self.target = target       # STDOUT or the resolved path of a device / FIFO
        self.data, self.shown = data, shown


class Transaction:
    """Outputs staged as temporary files (or pending direct writes), then committed together."""

    def __init__(self, plan: OutputPlan) -> None:
        self.plan = plan
        self._temps: list[str] = []
        self._created_dirs: list[str] = []
        self._renames: list[_Rename] = []
        self._direct: list[_Direct] = []
        self._removals: list[str] = []
        self._committed: list[str] = []
        self._committed_dirs: list[str] = []

    # -- staging

    def stage(self, path: str, data: bytes) -> None:
        """Prepare `data` for `path` (raises `OutputError`, after which the caller calls `abort`)."""
        if path == STDOUT:
            self._direct.append(_Direct(STDOUT, data, path))
            return
        if path.endswith(_SEPARATORS):            # 'out/' names a folder: never a file called 'out'
            raise cannot_write(path, os.strerror(errno.EISDIR))
        real = os.path.realpath(path)
        try:
            found = _stat(real)
        except OSError as err:
            raise cannot_write(path, _reason(err)) from None
        if found is not None and stat.S_ISDIR(found.st_mode):
            raise cannot_write(path, os.strerror(errno.EISDIR))
        if found is not None and not stat.S_ISREG(found.st_mode):
            self._direct.append(_Direct(real, data, path))      # a device or a FIFO: never renamed over
            return
        if found is not None and _holds(real, found, data):
            self._renames.append(_Rename(None, real, path))    # only its time is set, at the commit
            return
        temp, fd = self._create_temp(os.path.dirname(real) or ".", path)
        try:
            with os.fdopen(fd, "wb") as handle:
                if found is not None:
                    portable.copy_mode_and_owner(handle.fileno(), temp, found)
                handle.write(data)
        except OSError as err:
            raise cannot_write(path, _reason(err)) from None
        self._renames.append(_Rename(temp, real, path))

    def stage_split(self, modules: dict[str, bytes]) -> None:
        """Prepare the split-node modules (names relative to the split folder) and the manifest."""
        plan = self.plan
        assert plan.split_dir is not None
        folder = plan.split_dir
        self._make_folder(folder)
        old = plan.old_manifest()
        for name, data in sorted(modules.items()):
            plan.split_written.add(name)
            self.stage(plan.split_path(name), data)
        manifest = MANIFEST_HEADER + "".join(f"{name}\n" for name in sorted(modules))
        self.stage(plan.split_path(MANIFEST_NAME), manifest.encode())
        self._removals += [plan.split_path(name) for name in sorted(old - set(modules))]

    def _create_temp(self, folder: str, shown: str) -> tuple[str, int]:
        """A new, empty temporary file in `folder` (mode 0666 & ~umask), registered for `abort`."""
        while True:
            temp = os.path.join(folder, TEMP_PREFIX + os.urandom(6).hex())
            try:
                with _critical():
                    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | portable.open_flags("O_CLOEXEC"), 0o666)
                    self._temps.append(temp)
            except FileExistsError:
                continue
            except OSError as err:
                raise cannot_write(shown, _reason(err)) from None
            return temp, fd

    def _make_folder(self, folder: str) -> None:
        real = os.path.realpath(folder)
        missing: list[str] = []
        here = real
        while True:
            try:
                found = _stat(here)
            except OSError as err:
                raise cannot_write(folder, _reason(err)) from None
            if found is not None:
                if not stat.S_ISDIR(found.st_mode):
                    raise cannot_write(folder, os.strerror(errno.ENOTDIR))
                break
            missing.append(here)
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
        for path in reversed(missing):
            try:
                with _critical():
                    os.mkdir(path)
                    self._created_dirs.append(path)
            except OSError as err:
                raise cannot_write(folder, _reason(err)) from None

    # -- committing

    def commit(self) -> None:
        """Write the direct outputs, then rename every temporary file into place (raises `OutputError`);
        undone if the command still turns out interrupted (`wgc.interrupts.on_interrupt`)."""
        try:
            interrupts.checkpoint()
            for direct in self._direct:
                _write_direct(direct)
            with _critical():
                for rename in self._renames:
                    try:
                        if rename.temp is None:
                            os.utime(rename.final)          # now, as a rename of a new file would make it
                        else:
                            os.replace(rename.temp, rename.final)
                    except OSError as err:
                        raise cannot_write(rename.shown, _reason(err)) from None
                    if rename.temp is not None:
                        self._temps.remove(rename.temp)
                    self._committed.append(rename.final)
                self._committed_dirs, self._created_dirs = self._created_dirs, []   # they hold outputs now
                interrupts.on_interrupt(self._undo)
                for path in self._removals:
                    problem = self.plan._remove_if_stale(path)
                    if problem is not None:
                        raise OutputError(problem)
        except BaseException:
            self.abort()
            raise

    def _undo(self) -> None:
        """Remove what `commit` put in place (the command was interrupted after all)."""
        with _critical():
            for path in self._committed:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            self._committed.clear()
            for folder in reversed(self._committed_dirs):
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
            self._committed_dirs.clear()

    def abort(self) -> None:
        """Remove every temporary file and every folder this transaction created."""
        with _critical():
            for temp in self._temps:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
            self._temps.clear()
            for folder in reversed(self._created_dirs):
                with contextlib.suppress(OSError):
                    os.rmdir(folder)
            self._created_dirs.clear()
            self._direct.clear()
            self._renames.clear()


def _holds(real: str, found: os.stat_result, data: bytes) -> bool:
    """Whether the regular file `real` (`found`: its status) holds exactly `data` and belongs to this
    user (who may set its times): then the commit only sets its modification time to now, which is
    what the rename of a new file with these bytes, mode and owner would leave (a build tool
    compares times), without the rename, which makes some filesystems (ext4) write the file's
    data to the disk at once. POSIX only (Windows has no owners to compare)."""
    if found.st_size != len(data) or not portable.has_owners() or found.st_uid != os.geteuid():
        return False
    try:
        with open(real, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def _write_direct(direct: _Direct) -> None:
    if direct.target == STDOUT:
        write_stdout(direct.data)
        return
    try:
        fd = os.open(direct.target, os.O_WRONLY | portable.open_flags("O_CLOEXEC", "O_NOCTTY"))
        with os.fdopen(fd, "wb") as handle:
            handle.write(direct.data)
    except OSError as err:
        raise cannot_write(direct.shown, _reason(err)) from None


def write_stdout(data: bytes) -> None:
    """Write `data` to standard output (raises `OutputError`; stdout is then silenced for good)."""
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except (OSError, ValueError) as err:
        silence_stdout()
        reason = _reason(err) if isinstance(err, OSError) else str(err)
        raise cannot_write(STDOUT, reason) from None


def silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so Python's final flush of stdout cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
