"""The bundled samples: `wgc samples [DIR]` copies them out, so a pip user can follow the quick start.

Stage: a command of its own (no compile).
Input: the samples shipped with wgc (in a wheel `wgc/samples/`, put there by the build's
force-include, beside this module; in a checkout the repository's `samples/`) and a destination folder.
Output: the samples' files under the destination (the same relative paths), and their list.
Invariants:
- Never clobbers: when any file it would write already exists, nothing is written (WG0061).
- All or nothing: a write that fails removes the files written before it (WG0062); the folders it
  created stay only where they were there before or hold something else.
- Copies only regular files, skipping caches (`__pycache__`) and hidden files.
"""

from __future__ import annotations

import os
from wgc.cached_dataclass import dataclass

from wgc import codes
from wgc.diagnostics import Diagnostic

DEFAULT_FOLDER = "wgc-samples"
"""Where `wgc samples` copies to when no folder is given."""


def samples_folder() -> str | None:
    """The folder of the bundled samples: the installed package's, else the checkout's; None if neither."""
    package = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(package, "samples"), os.path.join(os.path.dirname(package), "samples")):
        if os.path.isfile(os.path.join(path, "hello.hlsl")):
            return path
    return None


def sample_files(folder: str) -> list[str]:
    """The relative paths of the samples' files under `folder`, sorted ('/'-separated)."""
    found = []
    for parent, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f != "__pycache__")
        for name in names:
            path = os.path.join(parent, name)
            if not name.startswith(".") and os.path.isfile(path) and not os.path.islink(path):
                found.append(os.path.relpath(path, folder).replace(os.sep, "/"))
    return sorted(found)


@dataclass
class Copied:
    """What `copy_samples` did: the files written (relative to the destination), or the problem."""

    written: list[str]
    problem: Diagnostic | None = None


def copy_samples(destination: str) -> Copied:
    """Copy every sample file into `destination` (created if needed); see the module's invariants."""
    source = samples_folder()
    if source is None:
        return Copied([], codes.SAMPLES_UNWRITABLE(None, "the samples are not installed with this wgc "
                                                   "(neither wgc/samples nor the checkout's samples/ exists)"))
    files = sample_files(source)
    existing = [name for name in files if os.path.lexists(os.path.join(destination, name))]
    if existing:
        listed = ", ".join(existing[:3]) + (f" and {len(existing) - 3} more" if len(existing) > 3 else "")
        return Copied([], codes.SAMPLES_EXIST(None, f"'{destination}' already holds {listed}: nothing was "
                                              "written (name an empty or new folder: wgc samples DIR)"))
    written: list[str] = []
    try:
        for name in files:
            target = os.path.join(destination, name)
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            with open(os.path.join(source, name), "rb") as file:
                data = file.read()
            with open(target, "xb") as out:
                written.append(name)
                out.write(data)
    except OSError as err:
        for name in written:
            try:
                os.unlink(os.path.join(destination, name))
            except OSError:
                pass
        where = f" '{err.filename}'" if err.filename else ""
        return Copied([], codes.SAMPLES_UNWRITABLE(None, f"cannot copy the samples to '{destination}':{where} "
                                                   f"{err.strerror or err}; nothing was left"))
    return Copied(written)
