"""The `wgc` command's front door: a compile the cache can answer is answered here, and one the
compile server should run is handed to it.

Stage: first code of the process (`wgc` script, `python -m wgc`).
Input: the process arguments. Output: the exit code.
Invariants: a cache hit (`wgc.buildcache.replay`) imports neither click nor any compiler stage, so it
costs little more than starting Python; so does a command run by the compile server
(`wgc.server.client`, with `WGC_SERVER=1` or `--server`: the cache is consulted first, when it is
wanted: a command line without `--cache` and without $WGC_CACHE imports nothing of it). A plain
`compile` or `inspect` is read and run without click (`wgc.fast_args`). Everything else goes to
`wgc.cli.main`. A broken cache or server never breaks a command: any unexpected
problem while replaying is a miss, and a server that cannot run the command leaves it to this process.
SIGINT, SIGTERM and SIGHUP are handled from the start (`wgc.interrupts.install`): whatever the
instant, a command ends with 128 + the signal and no output, or with its own exit code.
The process runs with the cyclic garbage collector off (`main`, as the process's entry): a cold
compile makes some 100,000 long-lived objects (modules, tables, the program), which collections
during the imports and after the compile would walk again and again for nothing (an eighth of
the process's time) and the process ends with `os._exit`, freeing nothing; `wgc.cli.main` turns
it back on for the commands that do not end that way (`wgc run`, `wgc lsp`, ...).
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import gc
import sys

from wgc.portable import environ, system
from wgc.portable import signals as signal


def replay_from_cache(argv: list[str]) -> int | None:
    """The exit code of `argv` answered from the compile cache, or None (not cached, or a miss)."""
    if "--cache" not in argv and not environ().get("WGC_CACHE"):
        return None        # the usual case costs no import (`buildcache.wanted` needs one of them)
    from wgc import buildcache

    if not buildcache.wanted(argv):
        return None
    try:
        return buildcache.replay(argv)
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except Exception:      # noqa: BLE001 - the cache is an optimisation: compile instead
        return None


def run_on_server(argv: list[str], start: bool = True) -> int | None:
    """The exit code of `argv` run by the compile server, or None (not wanted, or not run there);
    `start=False`: only by a server that listens already."""
    if "--server" not in argv and not environ().get("WGC_SERVER"):
        return None        # the usual case costs no import
    from wgc.server import client

    if not client.wanted(argv):
        return None
    try:
        return client.run(argv, start)
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except Exception:      # noqa: BLE001 - the server is an optimisation: compile here instead
        return None


def _relocated(args: list[str]) -> list[str]:
    """`args` with the paths under $WGC_CACHE_BASEDIR made relative, for a compile using the cache
    (`wgc.buildcache.relocated`); the usual case costs no import."""
    if not environ().get("WGC_CACHE_BASEDIR"):
        return args
    from wgc import buildcache

    return buildcache.relocated(args) if buildcache.wanted(args) else args


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `wgc` command and `python -m wgc`; returns the exit code."""
    from wgc import interrupts

    if argv is None:
        gc.disable()          # for good in a compile, inspect, cache hit or served command (see above)
    else:
        from wgc import identity

        identity.forget()     # read this wgc's files again: a served command's fingerprint is this command's
    args = _relocated(list(sys.argv[1:] if argv is None else argv))
    try:
        if argv is None:
            interrupts.install()      # first: from here on a signal ends the command in order
            code = _answer(args)      # (`handled` would add nothing once `install` ran)
        else:
            with interrupts.handled():
                code = _answer(args)
        if code is None:
            from wgc.cli import main as command_line

            return command_line(None if argv is None else args, consult_cache=False,  # None: may end
                                read_fast=False)                                      # the process
    except interrupts.Interrupted as interrupt:
        code = 128 + interrupt.signum
    code = interrupts.conclude(code, process=argv is None)
    if argv is None:
        _end_process(code)
    return code


_cache_missed = False
"""`answer_early` asked the compile cache already, and it had no answer."""


def answer_early(argv: list[str]) -> None:
    """End the process with the exit code of `argv` when the compile cache or a compile server that
    already listens answers it; otherwise return, having changed nothing `main` does not do again
    (the signal handlers are installed, the collector is off). Called by `wgc.thin_start` while
    `site` still runs (see there): nothing here may start a server (whose search path would lack
    what `site` has not added yet) or import more than the thin path."""
    global _cache_missed
    from wgc import interrupts

    gc.disable()
    args = _relocated(list(argv))
    try:
        interrupts.install()
        code = replay_from_cache(args)
        _cache_missed = code is None
        if code is None:
            code = run_on_server(args, start=False)
        if code is None:
            if interrupts.received is None:
                from wgc import identity

                identity.forget()       # it read a search path `site` has not finished
                return
            code = 1
    except interrupts.Interrupted as interrupt:
        code = 128 + interrupt.signum
    _end_process(interrupts.conclude(code, process=True))
    system._exit(120)       # a standard stream could not be flushed: Python's own status for that at exit


def _answer(args: list[str]) -> int | None:
    """The exit code of `args` answered by the compile cache or the compile server, or run without
    click (`wgc.fast_args`: a plain compile or inspect); None for `wgc.cli`."""
    code = None if _cache_missed else replay_from_cache(args)
    if code is None:
        code = run_on_server(args)
    if code is None:
        from wgc import fast_args

        code = fast_args.run(args)
    return code


def _end_process(code: int) -> None:
    """End the process now with `code` (`os._exit`: a cache hit or a command the server ran has
    nothing left to free, and the interpreter's teardown would be a tenth of its time), once the
    start-up caches (if this process loaded them) are written and standard output and error are
    flushed; where a flush fails, the normal exit reports it instead."""
    caches = sys.modules.get("wgc.startup_cache")
    if caches is not None:
        caches.flush()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    system._exit(code)
