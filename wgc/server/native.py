"""The Python side of the native launcher (`native_client.c`): its program, and its pointer file.

Stage: first code of the process the native launcher became (`execv` of the interpreter with `-S -c`
and `launcher.program`), or the compile server's thin client after a command it ran for one
(`remember`).
Input: the words the native launcher put first (`main`): a mode and its two arguments, then its
own argv[0] and the command's words; for `remember`, the server folder, the server's key and the
request that server ran.
Output: the command's exit status (`main`); the pointer file `<server folder>/launcher-<id>`.

The pointer tells a native launcher what it cannot read as Python does: which server is this wgc's
(its key digests wgc's files as Python lists them, and Python's start-up settings), and what the
request's parts that Python's start decides hold (the standard streams' encodings, the locale
variables Python's start may set: PEP 538). Lines, each ending with a newline:

    wgc launcher pointer 1
    <the server's key>
    <the launcher's start-up variables (PYTHON*, LC_*, LANG*) as it saw them, hex of "name=value\\0"...>
    <the same variables as Python had them after its start, hex>
    <per standard stream: open, a terminal, e.g. "10 11 11">
    <the request's "stdio" list, marshal version 2 (no references), hex>

Invariants:
- A launcher uses a pointer only where its start-up variables and its standard streams' states
  are the pointer's (so Python would have computed the same key and stdio), and only the user's
  own file in the private server folder, writable by no one else; anything else goes the Python
  way, which writes the pointer again.
- Written atomically (a temporary file, then renamed), mode 0600, only after a server of this
  key ran the command (it listened and took it); the file-system encoding must be UTF-8 with
  surrogateescape (the launcher sends strings as UTF-8).
- The server checks wgc's files itself for a native launcher's request (its "fingerprint" is
  None: `daemon`), so a pointer left from an older wgc only costs a fallback.
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import sys

POINTER_HEAD = "wgc launcher pointer 1"
STARTUP_PREFIXES = ("PYTHON", "LC_", "LANG")
"""The variables Python's start reads that decide the server's key and the request's stdio."""
MODES = ("serve", "local", "lost", "signal")


def main() -> int:
    """The launcher's Python program: `sys.argv` is ["-c", mode, first, second, argv0, *words].
    serve: the command as through a script launcher (first: the launcher's start-up variables, hex;
    second: its id), remembering the server that ran it; local: compiled in this process (the
    server did not take it in time); lost, signal: a command the server's process ran ended
    without a report, or by a signal the launcher did not forward (first: that process's pid;
    second: the signal), reported as the Python client would (WG0029)."""
    if len(sys.argv) < 5 or sys.argv[1] not in MODES:
        sys.stderr.write("error: this wgc launcher was called with words it did not write; write it again "
                         "with 'wgc server --launcher FILE' [WG0090]\n1 error generated.\n")
        return 1
    mode, first, second, argv0 = sys.argv[1:5]
    sys.argv[:] = [argv0, *sys.argv[5:]]
    from wgc.server import client

    if mode == "lost":
        return client.report_lost(int(first))
    if mode == "signal":
        return client.report_signal(int(first), int(second))
    if mode == "local":
        client.LOCAL = True
    else:
        client.LAUNCHER = (second, first)
    from wgc.entry import main as command

    return command()


def startup_variables(environment: "dict[str, str]") -> bytes:
    """The start-up variables of `environment`, as the native launcher lists them: sorted
    "name=value\\0" (file-system bytes)."""
    import os

    return b"".join(os.fsencode(f"{name}={value}") + b"\0"
                    for name, value in sorted(environment.items()) if name.startswith(STARTUP_PREFIXES))


def pointer_text(server_key: str, launcher_environment: str, stdio: "list[tuple[bool, str, str, bool, bool]]") -> bytes:
    """The pointer's contents (see the module docstring) for this process."""
    import marshal
    import os

    states = " ".join(("1" if is_open else "0") + ("1" if is_open and os.isatty(fd) else "0")
                      for fd, (is_open, *_how) in enumerate(stdio))
    lines = [POINTER_HEAD, server_key, launcher_environment, startup_variables(dict(os.environ)).hex(), states,
             marshal.dumps(stdio, 2).hex()]
    return "".join(line + "\n" for line in lines).encode("ascii")


def remember(server_folder: str, server_key: str, launcher_id: str, launcher_environment: str,
             stdio: "list[tuple[bool, str, str, bool, bool]]") -> None:
    """Write the pointer of launcher `launcher_id` after server `server_key` ran its command (see the
    module docstring); a failure only leaves the launcher to go the Python way next time."""
    import os

    if (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()) != ("utf-8", "surrogateescape"):
        return
    if not launcher_id.isalnum() or launcher_environment == "-":     # ("-": the launcher did not read it)
        return
    path = os.path.join(server_folder, f"launcher-{launcher_id}")
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, pointer_text(server_key, launcher_environment, stdio))
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except (OSError, ValueError):
        try:
            os.unlink(temporary)
        except OSError:
            pass
