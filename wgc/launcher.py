"""`wgc server --launcher FILE`: a launcher of wgc that starts Python without its `site` module.

Stage: command line (`wgc.cli`'s `server` command calls `write`).
Input: this process's interpreter (`sys.executable`) and module search path (`sys.path`), which
name the wgc and the packages this very command runs; the file to write.
Output: an executable Python script at FILE, run by this interpreter with `-S`, that sets this
search path (in place of the whole of its own) and calls `wgc.entry.main`; or a diagnostic
(WG0091) and nothing written.

Why: every `wgc` process starts Python, and Python's `site` reads the environment's `.pth` files
before any of wgc's code runs; with wgc's dependencies that is most of a thin client's time (the
`cmeel.pth` of the SPIR-V packages imports `pathlib`). The `wgc` command pip installs cannot pass
`-S` (pip writes its scripts' `#!` line itself), so the launcher is a file of its own that build
systems call in its place.

Invariants:
- The launcher runs exactly what this command ran: the same interpreter, the same search path
  (the `.pth` files' entries included, as read now), so the same wgc and packages; only `site`
  itself is skipped (no `sitecustomize`, no user site folder added later). The launcher's own
  folder (the first entry Python gives a script) is not searched: files beside it, in a build
  folder, never shadow a module, and no import lists that folder (a build folder of thousands of
  files cost a client a millisecond). Its Python flags
  differ (`-S`), so the compile server its commands use is another one than `wgc`'s (the key
  includes the flags).
- When its wgc cannot be imported any more (moved, uninstalled), it says so with WG0090 and exits
  1, naming the command that writes it again.
- The `#!` line names the interpreter and `-S` where the kernel can take it (no whitespace, at
  most 127 bytes); otherwise the file starts as a `/bin/sh` script that runs the interpreter on
  itself (a string literal to Python).
- Written atomically (a temporary file in FILE's folder, then renamed), mode 0777 less the umask;
  an existing FILE that is not a wgc launcher is never overwritten (WG0091).
- Two kinds. A script launcher is the Python script above. A native launcher (Linux,
  where a C compiler is found: $CC, else `cc`, `gcc`, `clang`) is `wgc/server/native_client.c`
  built for this interpreter and search path: a served command's client without Python's start
  (about 1 ms instead of 10), which becomes that same Python program (`python -S -c PROGRAM`)
  for anything but a served command a warm server takes. "auto" (the default) writes a native
  launcher where one can be built, else a script launcher.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from wgc import codes
from wgc.diagnostics import Diagnostic
from wgc.version import __version__

MARK = "# A launcher of wgc written by 'wgc server --launcher'"
"""A line at the top of every launcher: an existing file that has it may be replaced."""
SHEBANG_MAX = 127
"""The longest `#!` line (bytes) every kernel still in use takes whole."""
MARK_SEARCHED = 1 << 20
"""How much of an existing file is searched for `MARK` (a native launcher holds it among its data)."""
COMPILE_SECONDS = 120.0
NATIVE_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "server", "native_client.c")


def search_path() -> list[str]:
    """This process's module search path as the launcher sets it: absolute entries, without the
    first (the folder of the script Python ran: the launcher's own is not searched either), with
    the folder that holds the wgc package first when it is not on it otherwise."""
    entries = [os.path.abspath(entry) for entry in sys.path[1:] if entry]
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if package_root not in entries:
        entries.insert(0, package_root)
    return list(dict.fromkeys(entries))


def program(path: str, entry: str = "wgc.entry") -> str:
    """The launcher's Python program: this search path, then `main()` of `entry` (`wgc.entry`, or
    `wgc.server.native` for a native launcher's), or WG0090 where wgc cannot be imported."""
    again = f"wgc server --launcher {path}"
    return ("import sys\n"
            f"sys.path[:] = {search_path()!r}\n"
            "try:\n"
            f"    from {entry} import main\n"
            "except ImportError as err:\n"
            "    sys.stderr.write(f\"error: this wgc launcher's wgc cannot be imported ({err}); write it again with \"\n"
            f"                     {again!r} \" [WG0090]\\n1 error generated.\\n\")\n"
            "    raise SystemExit(1)\n"
            "raise SystemExit(main())\n")


def text(path: str) -> str:
    """The script launcher's contents (see the module docstring)."""
    interpreter = sys.executable
    shebang = f"#!{interpreter} -S"
    if any(c.isspace() for c in interpreter) or len(os.fsencode(shebang)) > SHEBANG_MAX:
        quoted = "'" + interpreter.replace("'", "'\"'\"'") + "'"
        head = f"#!/bin/sh\n'''exec' {quoted} -S \"$0\" \"$@\"\n' '''\n{MARK}\n"
    else:
        head = f"{shebang}\n{MARK}\n"
    return (f"{head}"
            f"# (wgc {__version__}): this Python without its site module, wgc's search path as it was.\n"
            f"# Write it again after moving or reinstalling wgc or its environment: wgc server --launcher {path}\n"
            + program(path))


def compiler() -> list[str] | None:
    """The C compiler a native launcher is built with ($CC, else the first of cc, gcc, clang on
    PATH), or None: none, or not Linux (the native client speaks Linux's socket options)."""
    if not sys.platform.startswith("linux"):
        return None
    import shlex

    if os.environ.get("CC", "").strip():
        try:
            words = shlex.split(os.environ["CC"])
        except ValueError:
            return None
        return words if words and shutil.which(words[0]) else None
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return [found]
    return None


def _c_string(text: str) -> str:
    """`text` (file-system bytes) as a C string literal: letters, digits and a few marks as they
    are, every other byte as an octal escape."""
    safe = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 /._-+,:=@"
    return '"' + "".join(chr(c) if c in safe else f"\\{c:03o}" for c in os.fsencode(text)) + '"'


def config_header(interpreter: str, python_program: str, launcher_id: str, path: str) -> str:
    """`launcher_config.h` of the native launcher at `path` (see `native_client.c`)."""
    return (f"#define WGC_PYTHON {_c_string(interpreter)}\n"
            f"#define WGC_PYTHON_CODE {_c_string(python_program)}\n"
            f"#define WGC_LAUNCHER_ID {_c_string(launcher_id)}\n"
            f"#define WGC_MARK {_c_string(MARK)}\n"
            f"#define WGC_AGAIN {_c_string(f'wgc server --launcher {path}')}\n")


def build_native(command: list[str], interpreter: str, python_program: str, launcher_id: str, path: str) -> bytes | str:
    """The native launcher for `path` built with the C compiler `command` (in a private temporary
    folder): its bytes, or why it could not be built."""
    with tempfile.TemporaryDirectory(prefix="wgc-launcher-") as folder:
        with open(os.path.join(folder, "launcher_config.h"), "w", encoding="ascii") as header:
            header.write(config_header(interpreter, python_program, launcher_id, path))
        output = os.path.join(folder, "launcher")
        try:
            done = subprocess.run([*command, "-O2", "-std=gnu11", "-w", "-I", folder, "-o", output, NATIVE_SOURCE],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=COMPILE_SECONDS)
        except (OSError, subprocess.SubprocessError) as err:
            return f"{command[0]} could not be run: {err}"
        if done.returncode != 0:
            said = (done.stderr or done.stdout).decode(errors="replace").strip().splitlines()
            return f"{command[0]} failed ({said[-1] if said else f'exit status {done.returncode}'})"
        try:
            with open(output, "rb") as built:
                return built.read()
        except OSError as err:
            return f"{command[0]} wrote no launcher ({err.strerror or err})"


def launcher_id(python_program: str) -> str:
    """The native launcher's id: it names its pointer file (`wgc.server.native`)."""
    from wgc.identity import digest

    return digest(os.fsencode(f"{sys.executable}\0{python_program}")).hex()[:24]


def write(path: str, kind: str = "auto") -> tuple[int, str, list[Diagnostic]]:
    """Write the launcher of `kind` ("auto", "native" or "script") at `path`: (exit code, text for
    standard output, diagnostics)."""
    target = os.path.abspath(path)
    problem = _refusal(target)
    if problem is not None:
        return 1, "", [codes.LAUNCHER_NOT_WRITTEN(None, f"the launcher '{path}' cannot be written: {problem}")]
    try:
        contents, note = _contents(target, kind)
    except _NotBuilt as why:
        return 1, "", [codes.LAUNCHER_NOT_WRITTEN(None, f"the native launcher '{path}' cannot be built: {why}")]
    temporary = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{os.getpid()}.tmp")
    umask = os.umask(0o022)
    os.umask(umask)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o777 & ~umask)
        try:
            view = memoryview(contents)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, 0o777 & ~umask)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError as err:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return 1, "", [codes.LAUNCHER_NOT_WRITTEN(None, f"the launcher '{path}' cannot be written: "
                                                        f"{err.strerror or err}")]
    runs = f"{sys.executable} -S with the wgc of {os.path.dirname(os.path.abspath(__file__))}"
    if note is None:
        return 0, f"wrote {path}: a native launcher; it runs {runs} for what a warm compile server does not run", []
    return 0, f"wrote {path}: it runs {runs}{note}", []


class _NotBuilt(Exception):
    """A native launcher asked for cannot be built (the message says why)."""


def _contents(target: str, kind: str) -> tuple[bytes, str | None]:
    """The launcher's bytes, and None for a native launcher, else what to add where a script launcher
    is said to be written; `_NotBuilt` where `kind` is "native" and none can be built."""
    if kind == "script":
        return text(target).encode("utf-8"), ""
    command = compiler()
    if command is None:
        why = "no C compiler (cc, gcc, clang, $CC)" if sys.platform.startswith("linux") else "not Linux"
    else:
        python_program = program(target, "wgc.server.native")
        built = build_native(command, sys.executable, python_program, launcher_id(python_program), target)
        if isinstance(built, bytes):
            return built, None
        why = built
    if kind == "native":
        raise _NotBuilt(why)
    return text(target).encode("utf-8"), f" (a script launcher: {why})"


def _refusal(target: str) -> str | None:
    """Why `target` may not be written, or None."""
    if os.path.isdir(target):
        return "it is a folder"
    if not os.path.lexists(target):
        return None
    try:
        with open(target, "rb") as handle:
            head = handle.read(MARK_SEARCHED)
    except OSError as err:
        return err.strerror or str(err)
    if MARK.encode() not in head:
        return "a file that is not a wgc launcher is there (remove it first)"
    return None
