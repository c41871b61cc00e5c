"""The GPU's shader clock while a benchmark row runs, where `nvidia-smi` can say it.

An NVIDIA GPU's driver lowers the shader clock when it judges the GPU idle: on the H200 a run of
light, latency-bound work (one-group dispatches, host round trips between them) can fall from
1,980 MHz to 345 MHz in the middle of a benchmark, and a row measured after the fall is about 3x
slower (benchmarks/RESULTS.md, "The H200's clock").  A row's numbers mean little without the clock
they ran at, so the benchmarks that time small GPU work print it beside each row.

`ClockLog()` starts `nvidia-smi` sampling the clock every `period_ms` in the background (nothing
where there is no `nvidia-smi`, e.g. lavapipe); `window(start, end)` gives the lowest and highest
clock sampled between two `time.monotonic()` readings, as text for the row.  `close()` (or the
end of a `with` block) stops it.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time


class ClockLog:
    """Background samples of the SM clock (module docstring)."""

    def __init__(self, period_ms: int = 50) -> None:
        self.samples: list[tuple[float, int]] = []
        self._process: subprocess.Popen[str] | None = None
        smi = shutil.which("nvidia-smi")
        if smi is None:
            return
        self._process = subprocess.Popen(
            [smi, "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", f"--loop-ms={period_ms}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            value = line.strip().split(",")[0]
            if value.isdigit():
                self.samples.append((time.monotonic(), int(value)))

    def window(self, start: float, end: float) -> str:
        """' [SM clock A-B MHz]' over the samples between `start` and `end`, or '' without any."""
        inside = [mhz for at, mhz in list(self.samples) if start <= at <= end]
        if not inside:
            return ""
        low, high = min(inside), max(inside)
        return f" [SM clock {low} MHz]" if low == high else f" [SM clock {low}-{high} MHz]"

    def __enter__(self) -> ClockLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait()
            self._process = None
