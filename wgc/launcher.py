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
"""

from __future__ import annotations

import os
import sys

from wgc import codes
from wgc.diagnostics import Diagnostic
from wgc.version import __version__

MARK = "# A launcher of wgc written by 'wgc server --launcher'"
"""A line at the top of every launcher: an existing file that has it may be replaced."""
SHEBANG_MAX = 127
"""The longest `#!` line (bytes) every kernel still in use takes whole."""


def search_path() -> list[str]:
    """This process's module search path as the launcher sets it: absolute entries, without the
    first (the folder of the script Python ran: the launcher's own is not searched either), with
    the folder that holds the wgc package first when it is not on it otherwise."""
    entries = [os.path.abspath(entry) for entry in sys.path[1:] if entry]
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if package_root not in entries:
        entries.insert(0, package_root)
    return list(dict.fromkeys(entries))


def text(path: str) -> str:
    """The launcher's contents (see the module docstring)."""
    interpreter = sys.executable
    shebang = f"#!{interpreter} -S"
    if any(c.isspace() for c in interpreter) or len(os.fsencode(shebang)) > SHEBANG_MAX:
        quoted = "'" + interpreter.replace("'", "'\"'\"'") + "'"
        head = f"#!/bin/sh\n'''exec' {quoted} -S \"$0\" \"$@\"\n' '''\n{MARK}\n"
    else:
        head = f"{shebang}\n{MARK}\n"
    again = f"wgc server --launcher {path}"
    return (f"{head}"
            f"# (wgc {__version__}): this Python without its site module, wgc's search path as it was.\n"
            f"# Write it again after moving or reinstalling wgc or its environment: {again}\n"
            "import sys\n"
            f"sys.path[:] = {search_path()!r}\n"
            "try:\n"
            "    from wgc.entry import main\n"
            "except ImportError as err:\n"
            "    sys.stderr.write(f\"error: this wgc launcher's wgc cannot be imported ({err}); write it again with \"\n"
            f"                     {again!r} \" [WG0090]\\n1 error generated.\\n\")\n"
            "    raise SystemExit(1)\n"
            "raise SystemExit(main())\n")


def write(path: str) -> tuple[int, str, list[Diagnostic]]:
    """Write the launcher at `path`: (exit code, text for standard output, diagnostics)."""
    target = os.path.abspath(path)
    problem = _refusal(target)
    if problem is not None:
        return 1, "", [codes.LAUNCHER_NOT_WRITTEN(None, f"the launcher '{path}' cannot be written: {problem}")]
    temporary = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{os.getpid()}.tmp")
    umask = os.umask(0o022)
    os.umask(umask)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o777 & ~umask)
        try:
            os.write(fd, text(target).encode("utf-8"))
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
    package = os.path.dirname(os.path.abspath(__file__))
    return 0, f"wrote {path}: it runs {sys.executable} -S with the wgc of {package}", []


def _refusal(target: str) -> str | None:
    """Why `target` may not be written, or None."""
    if os.path.isdir(target):
        return "it is a folder"
    if not os.path.lexists(target):
        return None
    try:
        with open(target, "rb") as handle:
            head = handle.read(4096)
    except OSError as err:
        return err.strerror or str(err)
    if MARK.encode() not in head:
        return "a file that is not a wgc launcher is there (remove it first)"
    return None
