"""Runtime: the progress line of a long `wgc run` on a terminal.

Input: what the schedulers report after each level (`Progress.__call__`: repeat, level, records
in); a stream (standard error) and how long a run must last before the line shows.
Output: one line, rewritten in place (carriage return) at most every `INTERVAL` seconds once the
run has lasted `after` seconds: the last level finished, the records it took, the elapsed time;
`stop` erases it, so that what follows (prints, trace, diagnostics) starts on a clean line.

Invariants: only where the caller asks (the command line: standard error is a terminal); a run
shorter than `after` writes nothing; a thread of its own writes the line, so a level that runs
for a long time (or a whole graph in one submit) still shows the time going on.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

INTERVAL = 0.25
DEFAULT_AFTER = 1.0


class Progress:
    def __init__(self, stream: TextIO, after: float = DEFAULT_AFTER) -> None:
        self.stream = stream
        self.after = after
        self.start = time.monotonic()
        self.state: tuple[int, int, int] | None = None
        """(repeat, level, records in) of the last level finished."""
        self.records = 0
        """Records taken by every level so far."""
        self.shown = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="wgc-progress", daemon=True)
        self._thread.start()

    def __call__(self, repeat: int, level: int, records: int) -> None:
        self.state = (repeat, level, records)
        self.records += records

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        if self.state is None:
            return f"wgc run: running, {elapsed:.1f} s"
        repeat, level, records = self.state
        again = f" (repeat {repeat})" if repeat else ""
        return (f"wgc run: level {level}{again} done, {records} records in it, {self.records} in all, "
                f"{elapsed:.1f} s")

    def _run(self) -> None:
        if self._stop.wait(self.after):
            return
        while True:
            with self._lock:
                if self._stop.is_set():
                    return
                self.stream.write("\r\x1b[K" + self.line())
                self.stream.flush()
                self.shown = True
            if self._stop.wait(INTERVAL):
                return

    def stop(self) -> None:
        """Stop the thread and erase the line."""
        self._stop.set()
        with self._lock:
            if self.shown:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self.shown = False
        self._thread.join(timeout=1)


__all__ = ["Progress"]
