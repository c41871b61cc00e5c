"""A bounded stress run of the compile server: hostile connections, stalled servers, signals, kills.

run: `python benchmarks/fuzz_server.py [--count N] [--seconds S] [--seed K] [--kinds A,B]` where wgc is installed
(or with PYTHONPATH at a checkout). In a private cache folder (the user's is not touched) it runs up
to N random scenarios (stopping after S seconds), each a `wgc compile -MD -Fre` of a small graph
with a warning, a broken file or a larger graph through the compile server, beside or under one of:
- nothing (a normal compile);
- garbage connections to the real server (random bytes, a header announcing a huge or a truncated
  body, a malformed body), a silent connection, or one that sends half a request and stalls;
- a fake stalled server at the socket path (accepting and never answering; $WGC_SERVER_TIMEOUT 1 s);
- SIGINT, SIGTERM or SIGHUP to the client, or SIGKILL, at a random instant;
- the server SIGKILLed at a random instant.
Each outcome is checked against the same command compiled in process: the exit code and standard
output and error are the in-process ones (an interrupted command: 128 + the signal, or the client
ended by that signal), the outputs are byte-identical, or absent when the command failed or was
interrupted, and no temporary file is left; every client ends within its bound. Prints a line per
failure and a summary (scenarios run per kind, failures); exit status 1 when one failed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HEADER = "struct R { uint grid : SV_DispatchGrid; uint x; };\n#warning \"records v1\"\n"
GRAPH = HEADER + """\
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Entry(DispatchNodeInputRecord<R> i, [MaxRecords(8)] NodeOutput<R> Leaf) { }
[Shader("node")] [NodeLaunch("thread")] void Leaf(ThreadNodeInputRecord<R> i) { }
"""
BROKEN = '[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Missing> i) { }\n'
BIG = GRAPH + "".join(f"float f{i}(float x) {{ float y = x * {i}.0; for (int k = 0; k < 4; ++k) {{ y = y * 0.5 + "
                      "sin(y); }} return y; }}\n" for i in range(1500))
SOURCES = {"graph": GRAPH, "broken": BROKEN, "big": BIG}
CLIENT_SECONDS = 120.0
"""The bound on one client (a hang is a failure)."""
SCENARIOS = ("normal", "garbage", "silent", "half", "stalled", "signal", "kill-client", "kill-server")


def command() -> list[str]:
    script = Path(sys.executable).with_name("wgc")
    return [str(script)] if script.exists() else [sys.executable, "-m", "wgc"]


def arguments(name: str) -> list[str]:
    return ["compile", "-MD", "-Fre", f"out/{name}.json", "-o", f"out/{name}.spv", f"{name}.hlsl"]


def outputs(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


class Fuzz:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.random = random.Random(seed)
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("WGC_SERVER", "WGC_CACHE", "WGC_SERVER_IDLE", "WGC_SERVER_TIMEOUT", "NO_COLOR")}
        self.env["WGC_CACHE_DIR"] = str(root / "cache")
        self.served_env = {**self.env, "WGC_SERVER": "1"}
        self.failures: list[str] = []
        self.counts: dict[str, int] = {}
        self.serial = 0
        self.reference: dict[str, tuple[int, bytes, bytes, dict[str, bytes]]] = {}
        for name, _text in SOURCES.items():
            work = self.workspace()
            done = subprocess.run(command() + arguments(name), cwd=work, capture_output=True, timeout=CLIENT_SECONDS,
                                  env={**self.env, "WGC_SERVER": "0"})
            self.reference[name] = (done.returncode, done.stdout, done.stderr, outputs(work / "out"))

    def workspace(self) -> Path:
        self.serial += 1
        work = self.root / f"w{self.serial}"
        (work / "out").mkdir(parents=True)
        for name, text in SOURCES.items():
            (work / f"{name}.hlsl").write_text(text)
        return work

    # ------------------------------------------------------------------ the server

    def socket_path(self) -> Path | None:
        folder = self.root / "cache" / f"server-{os.getuid()}"
        for pid_file in folder.glob("*.pid") if folder.is_dir() else ():
            return pid_file.with_suffix(".sock")
        return None

    def server_pid(self) -> int | None:
        path = self.socket_path()
        try:
            return int(path.with_suffix(".pid").read_text().strip()) if path else None
        except (OSError, ValueError):
            return None

    def ensure_server(self) -> Path:
        done = subprocess.run(command() + ["server", "--daemon"], env=self.env, capture_output=True,
                              timeout=CLIENT_SECONDS)
        if done.returncode != 0:
            raise SystemExit(f"the server did not start: {done.stderr.decode()}")
        path = self.socket_path()
        assert path is not None
        return path

    def stop_server(self) -> None:
        subprocess.run(command() + ["server", "--stop"], env=self.env, capture_output=True, timeout=CLIENT_SECONDS)

    # ------------------------------------------------------------------ one scenario

    def check(self, kind: str, name: str, work: Path, code: int, stdout: bytes, stderr: bytes,
              signum: int | None = None) -> None:
        expected = self.reference[name]
        left = outputs(work / "out")
        what = f"{kind} {name} (#{self.serial}, code {code})"
        stray = [n for n in left if n not in expected[3]]
        if stray:
            self.failures.append(f"{what}: stray files {stray}")
        if signum is not None and code in (128 + signum, -signum):
            if left:
                self.failures.append(f"{what}: interrupted but left {sorted(left)}")
            return
        if kind == "kill-client" and code == -signal.SIGKILL:
            if left and left != expected[3]:
                self.failures.append(f"{what}: partial outputs {sorted(left)}")
            return
        if (code, stdout, stderr) != expected[:3]:
            self.failures.append(f"{what}: expected code {expected[0]}, stderr {expected[2][:200]!r}, got "
                                 f"stderr {stderr[:300]!r}")
        elif left != expected[3]:
            self.failures.append(f"{what}: outputs differ ({sorted(left)} vs {sorted(expected[3])})")

    def client(self, name: str, work: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        return subprocess.Popen(command() + arguments(name), cwd=work, env=env or self.served_env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish(self, process: subprocess.Popen[bytes]) -> tuple[int, bytes, bytes]:
        try:
            stdout, stderr = process.communicate(timeout=CLIENT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            stdout, stderr = process.communicate()
            self.failures.append(f"client #{self.serial} hung ({CLIENT_SECONDS:g} s)")
        return process.returncode, stdout, stderr

    def hostile(self, kind: str, path: Path) -> list[socket.socket]:
        """Connections to the real server: garbage, silent, or half a request."""
        from wgc.server import protocol

        held = []
        for _ in range(self.random.randint(1, 4)):
            try:
                connection = protocol.connect(str(path), 5.0)
            except OSError:
                continue
            held.append(connection)
            try:
                if kind == "garbage":
                    choice = self.random.randrange(4)
                    if choice == 0:
                        connection.sendall(self.random.randbytes(self.random.randint(1, 5000)))
                    elif choice == 1:
                        connection.sendall(protocol.COMPILE + (1 << 30).to_bytes(4, "big"))
                    elif choice == 2:
                        connection.sendall(protocol.COMPILE + (100).to_bytes(4, "big") + b"\xff" * 100)
                    else:
                        connection.sendall(protocol.COMPILE + (3).to_bytes(4, "big") + b"abc")
                    if self.random.random() < 0.5:
                        connection.close()
                elif kind == "half":
                    connection.sendall(protocol.COMPILE + (5000).to_bytes(4, "big") + b"\0" * 100)
            except OSError:
                pass
        return held

    def stalled(self) -> tuple[socket.socket, threading.Event, Path]:
        """Stop the server; a fake one at its socket path that accepts and never answers."""
        path = self.ensure_server()
        self.stop_server()
        from wgc.server import protocol

        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = protocol.Address(str(path))
        try:
            listener.bind(address.address)
        finally:
            address.close()
        listener.listen(16)
        listener.settimeout(0.05)
        done = threading.Event()
        held: list[socket.socket] = []

        def accept() -> None:
            while not done.is_set():
                try:
                    held.append(listener.accept()[0])
                except OSError:
                    pass
            for connection in held:
                connection.close()

        threading.Thread(target=accept, daemon=True).start()
        return listener, done, path

    def one(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        name = self.random.choice(("big",) if kind in ("signal", "kill-client", "kill-server") else ("graph", "broken", "big"))
        work = self.workspace()
        if kind == "stalled":
            listener, done, path = self.stalled()
            try:
                code, stdout, stderr = self.finish(self.client(name, work, {**self.served_env, "WGC_SERVER_TIMEOUT": "1"}))
            finally:
                done.set()
                time.sleep(0.1)
                listener.close()
                path.unlink(missing_ok=True)
            self.check(kind, name, work, code, stdout, stderr)
            return
        path = self.ensure_server()
        held = self.hostile(kind, path) if kind in ("garbage", "silent", "half") else []
        try:
            process = self.client(name, work)
            signum = None
            if kind in ("signal", "kill-client", "kill-server"):
                time.sleep(self.random.uniform(0.0, 1.5))
                if kind == "signal":
                    signum = self.random.choice((signal.SIGINT, signal.SIGTERM, signal.SIGHUP))
                    process.send_signal(signum)
                elif kind == "kill-client":
                    process.send_signal(signal.SIGKILL)
                else:
                    pid = self.server_pid()
                    if pid is not None:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
            code, stdout, stderr = self.finish(process)
        finally:
            for connection in held:
                connection.close()
        if kind == "kill-client":              # its command is stopped by the server's child itself
            deadline = time.monotonic() + CLIENT_SECONDS
            while self.running() and time.monotonic() < deadline:
                time.sleep(0.1)
        self.check(kind, name, work, code, stdout, stderr, signum)
        shutil.rmtree(work, ignore_errors=True)

    def running(self) -> int:
        done = subprocess.run(command() + ["server", "--status"], env=self.env, capture_output=True,
                              timeout=CLIENT_SECONDS)
        import re

        found = re.search(rb"(\d+) running", done.stdout)
        return int(found.group(1)) if found else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="scenarios to run at most (default 100)")
    parser.add_argument("--seconds", type=float, default=600.0, help="stop starting scenarios after this (default 600)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    parser.add_argument("--kinds", default=",".join(SCENARIOS), help=f"scenarios to draw from (default {','.join(SCENARIOS)})")
    args = parser.parse_args()
    kinds = [kind for kind in args.kinds.split(",") if kind]
    if not kinds or set(kinds) - set(SCENARIOS):
        parser.error(f"--kinds: choose among {', '.join(SCENARIOS)}")
    seed = args.seed if args.seed is not None else int(time.time())
    with tempfile.TemporaryDirectory(prefix="wgc-fuzz-server-") as temp:
        fuzz = Fuzz(Path(temp), seed)
        started = time.monotonic()
        ran = 0
        try:
            while ran < args.count and time.monotonic() - started < args.seconds:
                fuzz.one(fuzz.random.choice(kinds))
                ran += 1
        finally:
            fuzz.stop_server()
    for failure in fuzz.failures:
        print("FAIL", failure)
    tally = ", ".join(f"{kind} {count}" for kind, count in sorted(fuzz.counts.items()))
    print(f"seed {seed}: {ran} scenarios in {time.monotonic() - started:.0f} s ({tally}); "
          f"{len(fuzz.failures)} failures")
    return 1 if fuzz.failures else 0


if __name__ == "__main__":
    sys.exit(main())
