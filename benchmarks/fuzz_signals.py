"""Signals at random instants of a command: each run must end either with exit status 0 and all
its outputs complete, or with 128 + the signal, no output file, and no traceback on stderr.

Usage: python benchmarks/fuzz_signals.py [--count N] [--root TREE] [--seed S]

Commands: compile (-o, -Fh, -MD), compile --split-nodes, inspect -o, run -o, on samples/hello.hlsl,
each with the outputs of an earlier run in place (an interrupted command removes them, as a failed
one does); signals SIGINT, SIGTERM, SIGHUP in turn. The delay after wgc installed its handlers is spread over
the command's whole time (and a little past it) by a low-discrepancy sequence, so a count of N
covers the whole duration evenly; `--seed` shifts the sequence. `--root` picks the wgc tree to
run (default: this checkout). tests/test_outputs.py runs the same check in bounded form.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
COMMANDS = {
    "compile": (["compile", "hello.hlsl", "-o", "x.spv", "-Fh", "x.h", "-MD"], ["x.spv", "x.h", "x.spv.d"]),
    "split": (["compile", "hello.hlsl", "--split-nodes", "nodes"], None),
    "inspect": (["inspect", "hello.hlsl", "--format", "json", "-o", "r.json"], ["r.json"]),
    "run": (["run", "hello.hlsl", "--dispatch", "hello.dispatch.json", "-o", "res.json"], ["res.json"]),
}
INPUTS = ("hello.hlsl", "hello.dispatch.json")


def listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*")) if p.name not in INPUTS}


def wait_for_handler(pid: int, deadline: float) -> bool:
    """True once process `pid` catches SIGTERM (Linux: SigCgt in /proc); False if it ended first."""
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False
        found = re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M)
        if found and int(found.group(1), 16) & (1 << (signal.SIGTERM - 1)):
            return True
        time.sleep(0.001)
    return False


class Campaign:
    def __init__(self, root: Path, folder: Path, commands: list[str]) -> None:
        self.root, self.folder, self.commands = root, folder, commands
        for name in INPUTS:
            shutil.copy(ROOT / "samples" / name, folder / name)
        self.env = dict(os.environ, PYTHONPATH=str(root))
        self.expected: dict[str, dict[str, bytes]] = {}
        self.duration: dict[str, float] = {}
        for command in commands:
            self.clean()
            start = time.monotonic()
            done = self.start(command)
            started = time.monotonic() if wait_for_handler(done.pid, start + 60) else start
            out, err = done.communicate(timeout=120)
            assert done.returncode == 0, err.decode()
            self.duration[command] = time.monotonic() - started
            self.expected[command] = listing(folder)

    def clean(self) -> None:
        for path in self.folder.iterdir():
            if path.name not in INPUTS:
                shutil.rmtree(path) if path.is_dir() else path.unlink()

    def stale(self, command: str) -> None:
        """The outputs of an earlier run, in place: an interrupted command must remove them too."""
        for name, data in self.expected[command].items():
            path = self.folder / name
            if data == b"<dir>":
                path.mkdir(parents=True, exist_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)

    def start(self, command: str) -> subprocess.Popen[bytes]:
        args, _ = COMMANDS[command]
        return subprocess.Popen([sys.executable, "-m", "wgc", *args], cwd=self.folder, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def one(self, index: int, seed: float = 0.0) -> str | None:
        """Run case `index`; None if it ended as promised, else what went wrong."""
        command = self.commands[index % len(self.commands)]
        signum = SIGNALS[(index // len(self.commands)) % len(SIGNALS)]
        fraction = (seed + index * 0.6180339887498949) % 1.0
        delay = fraction * self.duration[command] * 1.1
        self.clean()
        self.stale(command)
        process = self.start(command)
        wait_for_handler(process.pid, time.monotonic() + 60)
        time.sleep(delay)
        try:
            process.send_signal(signum)
        except ProcessLookupError:
            pass
        _, err = process.communicate(timeout=60)
        text = err.decode(errors="replace")
        what = f"{command} {signal.Signals(signum).name} after {delay * 1000:.0f} ms"
        if "Traceback" in text or "Exception ignored" in text:
            return f"{what}: traceback on stderr (exit {process.returncode}):\n{text}"
        found = listing(self.folder)
        if process.returncode == 0:
            if found != self.expected[command]:
                return f"{what}: exit 0 but outputs {sorted(found)} differ from {sorted(self.expected[command])}"
        elif process.returncode == 128 + signum:
            if [name for name, data in found.items() if data != b"<dir>"]:
                return f"{what}: exit {process.returncode} but outputs left: {sorted(found)}"
        else:
            return f"{what}: exit {process.returncode} (expected 0 or {128 + signum}):\n{text}"
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--seed", type=float, default=0.0)
    parser.add_argument("--commands", default=",".join(COMMANDS))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        campaign = Campaign(options.root.resolve(), Path(folder), options.commands.split(","))
        failures = 0
        for index in range(options.count):
            problem = campaign.one(index, options.seed)
            if problem is not None:
                failures += 1
                print(f"FAIL #{index}: {problem}", flush=True)
        print(f"{options.count} runs, {failures} failures "
              f"(durations: {', '.join(f'{k} {v:.2f}s' for k, v in campaign.duration.items())})")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
