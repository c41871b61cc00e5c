"""The `wgc` command's thin client, started before `site` has finished: a served command or a
cache hit does not pay for the other packages' `.pth` files.

Stage: first code of a `wgc` process, run from `_wgc_thin_client.pth` (installed beside the wgc
package by its wheel, normal and editable installs alike) while Python's `site` module reads the
`.pth` files of the environment, in name order: after the editable install's own path file, before
`cmeel.pth` (the SPIR-V packages': it imports `pathlib` and its dependencies, some 10 ms, and the
thin path needs none of it).
Input: `sys.argv` (set before `site` runs) and the environment. Output: nothing, or the end of the
process with the command's exit code (`wgc.entry.answer_early`).

Why here: pip writes the `wgc` script itself, with a `#!` line of the bare interpreter (any flag
dropped), so the command cannot start Python with `-S`; a `.pth` file of the package is the
earliest code of ours any installed command runs.

Invariants:
- Every Python process of the environment reads the `.pth` line; it calls `run` only when the
  script's name is `wgc`, and `run` does anything only for pip's script of `wgc.entry:main` (its
  first bytes read) asked for the server (--server, $WGC_SERVER) or the cache (--cache,
  $WGC_CACHE). Anything else returns at once, and the process starts as before.
- It never starts a server (a server started now would get this partial search path) and never
  compiles: a command neither the cache nor a listening server answers goes on exactly as without
  this module (`site` finishes, the script calls `wgc.entry.main`, which starts a server if
  needed), only without asking the cache twice.
- The cache and the server are found by wgc's fingerprint, which lists the distributions of the
  site-packages folders on the search path as it is now: where a later `.pth` file adds such a
  folder holding distributions, the early fingerprint differs, the early attempt finds no entry
  and no server, and the command goes on as without this module (slower, never wrong).
- Nothing escapes: an unexpected error returns (the normal path then runs), so `site` never
  reports a failing line; runs at most once per process (a venv's `lib64` link makes `site` read
  the same `.pth` file twice).
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import os
import sys

SCRIPT_MARK = b"from wgc.entry import main"
"""What pip's (and uv's) console script of `wgc = "wgc.entry:main"` holds in its first lines."""

_ran = False


def run() -> None:
    """Answer the command now if the cache or a listening server can (see the module docstring)."""
    global _ran
    if _ran:
        return
    _ran = True
    argv = sys.argv[1:]
    if not (os.environ.get("WGC_SERVER") or os.environ.get("WGC_CACHE") or "--server" in argv
            or "--cache" in argv):
        return
    try:
        with open(sys.argv[0], "rb") as script:
            if SCRIPT_MARK not in script.read(1024):
                return
        from wgc import entry
    except Exception:       # noqa: BLE001 - not pip's script, or no wgc to import: start as usual
        return
    try:
        entry.answer_early(argv)
    except Exception:       # noqa: BLE001 - the normal path runs the command instead
        return
