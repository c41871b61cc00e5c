"""`wgc lsp` speed: how long after a change the editor gets the new diagnostics.

run: `python benchmarks/lsp.py [--count N] [--debounce MS]` where wgc is installed with its `lsp`
extra (pygls). Starts `wgc lsp --debounce MS` (default 0: the check's own latency; the server's
default debounce adds its 30 ms) and speaks JSON-RPC to it over its standard input and output as an
editor does. The document is `samples/material_dispatch.hlsl` with helper functions appended to
make it 300 lines or more. Prints: the time to the `initialize` answer, to the first diagnostics
of the opened document (a cold check: the parser tables and the modules are loaded then), and,
over N edits (each a whole-document change that alternately adds and removes a warning, WG0409),
the median, 90th percentile and best time from sending `didChange` to receiving the
`publishDiagnostics` of that version; then the in-process time of one check (`wgc.lsp.check.check`,
median of N) for comparison.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "material_dispatch.hlsl"

PADDING = "\n".join(
    f"float helper{i}(float x, float y)\n{{\n    float z = x * {i + 1}.0 + y;\n    return z * z - x;\n}}\n"
    for i in range(10))


def document() -> str:
    return SAMPLE.read_text() + "\n" + PADDING


def edited(text: str, version: int) -> str:
    """Every other version: the first [MaxRecords(n)] blanked out (a WG0409 warning); the next restores it."""
    return text if version % 2 else _drop_one(text)


def _drop_one(text: str) -> str:
    start = text.index("[MaxRecords(", text.index("    [MaxRecords("))   # an attribute, not a comment
    end = text.index(")]", start) + 2
    return text[:start] + " " * (end - start) + text[end:]


class Client:
    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, method: str, params: object, request: bool = False) -> int | None:
        message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return self.next_id if request else None

    def receive(self) -> dict:
        stream = self.process.stdout
        assert stream is not None
        length = 0
        while True:
            line = stream.readline()
            if not line:
                raise RuntimeError("the server ended")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(stream.read(length))

    def wait(self, predicate) -> dict:
        while True:
            message = self.receive()
            if predicate(message):
                return message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--debounce", type=int, default=0)
    args = parser.parse_args()
    text = document()
    lines = text.count("\n") + 1
    path = Path("/tmp/wgc-lsp-bench.hlsl")
    path.write_text(text)
    uri = path.as_uri()

    began = time.perf_counter()
    client = Client([sys.executable, "-m", "wgc", "lsp", "--debounce", str(args.debounce)])
    ident = client.send("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, request=True)
    client.wait(lambda m: m.get("id") == ident)
    initialized = time.perf_counter() - began
    client.send("initialized", {})
    began = time.perf_counter()
    client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "hlsl", "version": 1,
                                                          "text": text}})
    first = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    cold = time.perf_counter() - began
    base = [d["code"] for d in first["params"]["diagnostics"]]   # what `wgc compile` warns of the sample (WG0604)

    times = []
    for version in range(2, args.count + 2):
        body = edited(text, version)
        began = time.perf_counter()
        client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": body}]})
        found = client.wait(lambda m, v=version: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"].get("version") == v)
        times.append(time.perf_counter() - began)
        codes = [d["code"] for d in found["params"]["diagnostics"]]
        assert sorted(codes) == sorted(base + (["WG0409"] if version % 2 == 0 else [])), codes
    client.send("shutdown", None, request=True)
    client.send("exit", None)
    client.process.wait(timeout=30)

    from wgc.lsp.check import check
    from wgc.lsp.project import settings_for

    options = settings_for(str(path)).options
    check(options, {str(path): text})
    in_process = []
    for version in range(2, args.count + 2):
        body = edited(text, version)
        began = time.perf_counter()
        check(options, {str(path): body})
        in_process.append(time.perf_counter() - began)

    times.sort()
    print(f"document: {SAMPLE.name} + helpers, {lines} lines; debounce {args.debounce} ms")
    print(f"initialize answered: {initialized * 1000:.0f} ms; first diagnostics (cold check): {cold * 1000:.0f} ms")
    print(f"didChange -> publishDiagnostics over {len(times)} edits: median {statistics.median(times) * 1000:.1f} ms, "
          f"p90 {times[int(len(times) * 0.9) - 1] * 1000:.1f} ms, best {times[0] * 1000:.1f} ms")
    print(f"in-process check: median {statistics.median(in_process) * 1000:.1f} ms, "
          f"best {min(in_process) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
