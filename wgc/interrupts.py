"""Interrupts: SIGINT, SIGTERM and SIGHUP (Windows: SIGBREAK) end a command in order, at every instant.

Stage: process-wide, below the CLI (`wgc.entry` installs it first thing; `wgc.outputs` defers it
around file operations and checks it before a commit; the runtime waits for the device in slices
so that it is seen). Imports only `wgc.portable`.
Input: the signals the process receives. Output: `Interrupted` raised in the main thread (exit
status 128 + the signal, after the clean-up a failure does), and the final exit code (`conclude`).

Invariants:
- The handler first records the signal (`received`), then raises `Interrupted` at most once, and
  only where the command's clean-up is in place (`raising`: from `install` until then signals are
  only recorded, so one that comes while Python imports or click parses is raised where the
  command knows its outputs), never inside a critical section (`deferred`: it is raised at the
  section's end instead). A raise
  that Python swallows (the handler ran inside a weakref callback, a `__del__` or the garbage
  collector: "Exception ignored in ...") is not lost: the unraisable hook drops it silently and
  the next `checkpoint` raises it again; output commits and the command's end are checkpoints.
- `conclude`, the command's last word, blocks the signals (in a real process, where the platform
  can: they stay blocked until it exits; elsewhere the handlers only record from then on), lets
  any handler still pending run, and if a signal came at any time, runs the registered undo
  actions (`on_interrupt`: remove the outputs just committed) and answers
  128 + the first signal. So a command ends either with its exit code and all its outputs, or
  with 128 + N and none of them.
"""

# (no `from __future__ import annotations`: the thin client does without loading `__future__`)

import sys

from wgc import portable
from wgc.portable import signals as signal

TYPE_CHECKING = False   # not `typing`'s: a server client does without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager

SIGNALS = portable.interrupt_signals()
"""The signals handled, those this platform has (read again by `install` and `handled`)."""


class Interrupted(BaseException):
    """A signal arrived; raised so that clean-up runs (exit status 128 + signum)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


received: int | None = None
"""The first signal of this command, or None."""
_delivered = False          # an `Interrupted` for `received` is on its way up (not swallowed)
_deferring = 0
_ready = True               # False from `install` until a `raising` section: record only
_installed = False
_active = False
_undo: "list[Callable[[], object]]" = []
_previous_unraisable = sys.unraisablehook


def _on_signal(signum: int, _frame: object) -> None:
    global received
    if received is None:
        received = signum
    checkpoint()


def _unraisable(info: object) -> None:
    global _delivered
    if isinstance(getattr(info, "exc_value", None), Interrupted):
        _delivered = False          # swallowed: the next checkpoint raises it again
        return
    _previous_unraisable(info)      # type: ignore[arg-type]


def checkpoint() -> None:
    """Raise `Interrupted` if a signal came that no raise has delivered yet."""
    global _delivered
    if received is not None and not _delivered and not _deferring and _ready:
        _delivered = True
        raise Interrupted(received)


def _reset() -> None:
    global received, _delivered, _deferring, _ready
    received, _delivered, _deferring, _ready = None, False, 0, True
    _undo.clear()


def install() -> None:
    """Handle the signals for the rest of the process (the `wgc` process's first act)."""
    global _installed, _ready
    if not _installed:             # (again in a process that forked from one, e.g. the compile server's child:
        _reset()                   # its handlers were changed, the state of this command is kept)
        _ready = False
    sys.unraisablehook = _unraisable
    _installed = True
    for signum in portable.interrupt_signals():
        signal.signal(signum, _on_signal)


def _context_manager(generator: "Callable[[], Iterator[None]]") -> "Callable[[], AbstractContextManager[None]]":
    """`contextlib.contextmanager(generator)`, with contextlib imported at the first use (a thin
    client of the compile server, which enters none of these sections, does without it)."""
    made: list[Callable[[], AbstractContextManager[None]]] = []

    def enter() -> "AbstractContextManager[None]":
        if not made:
            from contextlib import contextmanager

            made.append(contextmanager(generator))
        return made[0]()

    enter.__name__, enter.__doc__ = generator.__name__, generator.__doc__
    return enter


@_context_manager
def handled() -> "Iterator[None]":
    """Handle the signals while active (a command run in process, e.g. by the tests; main thread
    only); nothing more where `install` ran or inside another `handled`."""
    global _active
    if _installed or _active:
        yield
        return
    import threading          # here: a process where `install` ran (a cache hit) need not load it

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _reset()
    previous = {signum: signal.signal(signum, _on_signal) for signum in portable.interrupt_signals()}
    previous_hook, sys.unraisablehook = sys.unraisablehook, _unraisable
    _active = True
    try:
        yield
    finally:
        _active = False
        sys.unraisablehook = previous_hook
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


@_context_manager
def raising() -> "Iterator[None]":
    """A section whose clean-up is in place (the caller's `except BaseException` removes the
    command's outputs): a signal raises `Interrupted` here, one that came before at its start."""
    global _ready
    previous, _ready = _ready, True
    try:
        checkpoint()
        yield
    finally:
        _ready = previous


@_context_manager
def deferred() -> "Iterator[None]":
    """A section that a signal may not cut in half; a signal that came meanwhile is raised at its end."""
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        checkpoint()


def on_interrupt(undo: "Callable[[], object]") -> None:
    """Have `conclude` call `undo` if the command turns out interrupted (after its outputs were committed)."""
    _undo.append(undo)


def _let_pending_handlers_run() -> None:
    """A Python call: CPython runs the handlers of signals that arrived before it at its start."""


def conclude(code: int, *, process: bool) -> int:
    """The command's exit code, final: 128 + the first signal if one came at any time (then the undo
    actions ran). `process`: this is the process's end, signals stay blocked until it exits."""
    global _deferring
    if process:
        portable.block_signals(portable.interrupt_signals())
    _deferring += 1
    _let_pending_handlers_run()
    if received is None:
        if not process:
            _deferring -= 1
        return code
    for undo in _undo:
        try:
            undo()
        except Exception:       # noqa: BLE001 - one undo failing does not keep the others from running
            pass
    _undo.clear()
    if not process:
        _deferring -= 1
    return 128 + received
