"""The `wgc` command's front door: a compile the cache can answer is answered here.

Stage: first code of the process (`wgc` script, `python -m wgc`).
Input: the process arguments. Output: the exit code.
Invariants: a cache hit (`wgc.buildcache.replay`) imports neither click nor any compiler stage, so it
costs little more than starting Python; everything else goes to `wgc.cli.main`. A broken cache
never breaks a command: any unexpected problem while replaying is a miss, and the compile runs.
"""

from __future__ import annotations

import signal
import sys


def replay_from_cache(argv: list[str]) -> int | None:
    """The exit code of `argv` answered from the compile cache, or None (not cached, or a miss)."""
    from wgc import buildcache

    if not buildcache.wanted(argv):
        return None
    try:
        return buildcache.replay(argv)
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except Exception:      # noqa: BLE001 - the cache is an optimisation: compile instead
        return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `wgc` command and `python -m wgc`; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    cached = replay_from_cache(args)
    if cached is not None:
        return cached
    from wgc.cli import main as command_line

    return command_line(None if argv is None else args, consult_cache=False)   # None: may end the process
