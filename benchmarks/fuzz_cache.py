"""Hostile-cache fuzzing of `wgc compile --cache` (the caches' security model, docs/guide.md "Security model:
caches and the server").

Each input is a cache folder seeded by a real cached compile, then damaged one way: result entries
mutated bytewise (digest left wrong) or structurally (re-encoded with a valid digest: other paths,
other types, dependencies on FIFOs, devices or another user's files, modules outside their folder),
entries, shards and counters replaced by links (symbolic, hard) to a victim file or by FIFOs, start-up
caches damaged, the folder opened to others (mode 0777, 0757, 0775) or given to another user (as
root) with a planted parser pickle and planted dataclass code. Then the same command runs again.

Checked for every input: the exit code and stdout are those of an uncached compile; stderr is too,
except for warning WG0037 (the folder is not private) in front; the outputs are byte-identical to
the uncached compile's; no traceback; nothing outside the cache folder and the outputs changed
(the victim file and the project's sources are compared byte for byte); no planted code ran.

Usage: python benchmarks/fuzz_cache.py [--count N] [--seconds S] [--seed K] [--keep]
Prints one line per failure and a summary (inputs run, failures by class); exit 1 on a failure.
"""

from __future__ import annotations

import argparse
import marshal
import os
import pickle
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wgc import buildcache, startup_cache  # noqa: E402

GRAPH = """\
#include "inc/records.hlsli"
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(8, 1, 1)]
void Entry(DispatchNodeInputRecord<R> i, [MaxRecords(8)] NodeOutput<R> Leaf) { }
[Shader("node")] [NodeLaunch("thread")] void Leaf(ThreadNodeInputRecord<R> i) { }
"""
HEADER = 'struct R { uint grid : SV_DispatchGrid; uint x; };\n#warning "records v1"\n'
COMMANDS = (
    ("compile", "-MD", "-MP", "-o", "out/graph.spv", "-Fre", "out/graph.json", "-Fh", "out/graph.h", "graph.hlsl"),
    ("compile", "--split-nodes", "out/nodes", "-MD", "-MF", "out/nodes.d", "-Fe", "out/diagnostics.txt",
     "graph.hlsl"),
    ("compile", "-S", "-o", "-", "graph.hlsl"),
)
NOBODY = 65534
TIMEOUT = 120


def wgc(args: tuple[str, ...], cwd: Path, cache: Path, cached: bool = True) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "WGC_CACHE", "WGC_SERVER")}
    env.update(WGC_CACHE_DIR=str(cache), PYTHONPATH=os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH")))))
    command = [sys.executable, "-m", "wgc", args[0], *(("--cache",) if cached else ()), *args[1:]]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def snapshot(folder: Path, skip: tuple[Path, ...] = ()) -> dict[str, bytes | str]:
    """Every entry under `folder` (not under `skip`): a file's bytes, a link's target, else its kind."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        if any(path == s or s in path.parents for s in skip):
            continue
        if path.is_symlink():
            found[str(path)] = "link " + os.readlink(path)
        elif path.is_file():
            found[str(path)] = path.read_bytes()
        else:
            found[str(path)] = "folder" if path.is_dir() else "other"
    return found


def without_wg0037(text: str) -> str:
    """`text` (diagnostics) without a leading warning WG0037 (the cache folder is not private), counted."""
    first, _, rest = text.partition("\n")
    if "[WG0037]" not in first:
        return text
    return "" if rest == "1 warning generated.\n" else rest.replace("2 warnings generated", "1 warning generated", 1)

class Campaign:
    def __init__(self, base: Path, seed: int) -> None:
        self.base = base
        self.random = random.Random(seed)
        self.victim = base / "victim"
        self.marker = base / "planted-code-ran"
        self.references: list[tuple[int, bytes, bytes, dict[str, bytes | str]]] = []
        self.seeds: list[Path] = []
        self.failures: dict[str, int] = {}
        self.kinds: dict[str, int] = {}
        """Inputs run by mutation kind."""
        self.runs = 0
        for number, command in enumerate(COMMANDS):
            plain = self.project(base / f"plain{number}")
            done = wgc(command, plain, base / "plain-cache", cached=False)
            self.references.append((done.returncode, done.stdout, done.stderr, self.outputs(plain)))
            seeded = base / f"seed{number}"
            work = self.project(base / f"work{number}")   # the key holds the current folder: runs use this one
            for _ in range(2):      # a miss that stores, then a hit: entry, counters, start-up caches
                wgc(command, work, seeded)
            self.seeds.append(seeded)

    @staticmethod
    def project(folder: Path) -> Path:
        (folder / "inc").mkdir(parents=True, exist_ok=True)
        (folder / "out").mkdir(exist_ok=True)
        (folder / "inc" / "records.hlsli").write_text(HEADER)
        (folder / "graph.hlsl").write_text(GRAPH)
        return folder

    @staticmethod
    def outputs(folder: Path) -> dict[str, bytes | str]:
        return {str(Path(k).relative_to(folder)): v for k, v in snapshot(folder / "out").items()}

    # ------------------------------------------------------------------ mutations

    def entries(self, cache: Path) -> list[Path]:
        return [p for p in (cache / "results").glob("*/*") if p.name not in buildcache.COUNTERS]

    def bytewise(self, cache: Path) -> str:
        entry = self.random.choice(self.entries(cache))
        data = bytearray(entry.read_bytes())
        how = self.random.choice(["flip", "truncate", "extend", "zero"])
        if how == "flip":
            for _ in range(self.random.randint(1, 8)):
                data[self.random.randrange(len(data))] ^= 1 << self.random.randrange(8)
        elif how == "truncate":
            del data[self.random.randrange(len(data)):]
        elif how == "extend":
            data += os.urandom(self.random.randint(1, 64))
        else:
            data[:] = bytes(len(data))
        entry.write_bytes(bytes(data))
        return f"entry bytes: {how}"

    def structural(self, cache: Path) -> str:
        entry = self.random.choice(self.entries(cache))
        payload = buildcache._decode(entry.read_bytes())
        victim = str(self.victim)
        fifo = str(self.base / "fifo")
        choices = {
            "named path elsewhere": lambda: payload.update(named=[(o, victim) for o, _p in payload["named"]],
                                                           staged=[("stage", victim, b"x") if s[0] == "stage" else s
                                                                   for s in payload["staged"]]),
            "extra named output": lambda: (payload["named"].append(("-o", victim)),
                                           payload["staged"].append(("stage", victim, b"planted"))),
            "staged path not named": lambda: payload["staged"].append(("stage", victim, b"planted")),
            "module outside its folder": lambda: payload["staged"].append(
                ("split", [("../../victim", b"planted"), ("/tmp/x.spv", b"p")])),
            "split folder elsewhere": lambda: payload.update(split=("--split-nodes", str(self.base))),
            "dependency on a FIFO": lambda: payload["dependencies"].append((fifo, "included file", bytes(32))),
            "dependency on /dev/zero": lambda: payload["dependencies"].append(("/dev/zero", "included file",
                                                                               bytes(32))),
            "dependency on the victim": lambda: payload["dependencies"].append(
                (victim, "included file", buildcache._digest(self.victim.read_bytes()))),
            "exit code": lambda: payload.update(exit=self.random.choice([1, 3, -1, "0", 2 ** 70])),
            "wrong types": lambda: self.wrong_type(payload),
            "missing field": lambda: payload.pop(self.random.choice(list(payload))),
            "extra field": lambda: payload.update(extra=1),
            "not a dict": lambda: None,
        }
        how = self.random.choice(sorted(choices))
        choices[how]()
        if how == "not a dict":
            payload = [payload]
        elif how == "dependency on a FIFO" and not os.path.exists(fifo):
            os.mkfifo(fifo)
        entry.write_bytes(buildcache._encode(payload))
        return f"entry structure: {how}"

    def wrong_type(self, payload: dict) -> None:
        """Give one field a value of another type. (A value of the right type, as another stderr text,
        makes another well-formed entry: in the user's own folder its content is trusted, as ccache's.)"""
        field = self.random.choice(sorted(payload))
        values = [None, 1, "x", b"x", {}, (1,), [("a",)], [1]]
        if field == "stderr":
            values.remove("x")
        payload[field] = self.random.choice(values)

    def links(self, cache: Path) -> str:
        results = cache / "results"
        how = self.random.choice(["counter symlink", "counter hard link", "entry symlink", "entry FIFO",
                                  "entry /dev/zero", "shard symlink", "results symlink", "start-up cache symlink"])
        if how.startswith("counter"):
            for counter in buildcache.COUNTERS:
                (results / counter).unlink(missing_ok=True)
                if how == "counter symlink":
                    (results / counter).symlink_to(self.victim)
                else:
                    os.link(self.victim, results / counter)
        elif how.startswith("entry"):
            entry = self.random.choice(self.entries(cache))
            entry.unlink()
            if how == "entry symlink":
                entry.symlink_to(self.victim)
            elif how == "entry FIFO":
                os.mkfifo(entry)
            else:
                entry.symlink_to("/dev/zero")
        elif how == "shard symlink":
            shard = self.random.choice(self.entries(cache)).parent
            moved = self.base / f"moved-shard-{self.runs}"
            shard.rename(moved)
            shard.symlink_to(moved)
        elif how == "results symlink":
            moved = self.base / f"moved-results-{self.runs}"
            results.rename(moved)
            results.symlink_to(moved)
        else:
            target = self.random.choice(sorted(cache.glob("*.cache")))
            moved = self.base / f"moved-start-up-{self.runs}"
            target.rename(moved)
            target.symlink_to(moved)
        return f"links: {how}"

    def start_up(self, cache: Path) -> str:
        target = self.random.choice(sorted(cache.glob("*.cache")))
        data = bytearray(target.read_bytes())
        for _ in range(self.random.randint(1, 8)):
            data[self.random.randrange(len(data))] ^= 1 << self.random.randrange(8)
        target.write_bytes(bytes(data))
        return "start-up cache bytes"

    def foreign(self, cache: Path) -> str:
        """Plant code in the start-up caches and a result entry naming the victim, then open the folder
        to others or give it to another user: none of it may be used."""
        from wgc import cached_dataclass
        from wgc.syntax import parse

        marker = str(self.marker)

        class Planted:
            def __reduce__(self):
                return (exec, (f"open({marker!r}, 'w').close()",))

        saved = os.environ.get("WGC_CACHE_DIR")
        os.environ["WGC_CACHE_DIR"] = str(cache)
        try:
            startup_cache.write(parse.PARSER_CACHE, parse._parser_cache_key(parse.grammar_text()),
                                pickle.dumps(Planted()))
            payload = startup_cache.read(cached_dataclass.CACHE_NAME, cached_dataclass._CODE_CACHE.key)
            if payload is not None:
                codes = marshal.loads(payload)
                startup_cache.write(cached_dataclass.CACHE_NAME, cached_dataclass._CODE_CACHE.key, marshal.dumps(
                    {s: compile(f"open({marker!r}, 'w').close()\n" + s, "<planted>", "exec") for s in codes}))
        finally:
            if saved is None:
                del os.environ["WGC_CACHE_DIR"]
            else:
                os.environ["WGC_CACHE_DIR"] = saved
        entry = self.random.choice(self.entries(cache))
        payload = buildcache._decode(entry.read_bytes())
        payload["named"].append(("-o", str(self.victim)))
        payload["staged"] = [(s[0], s[1], b"planted") if s[0] == "stage" else s for s in payload["staged"]]
        payload["staged"].append(("stage", str(self.victim), b"planted"))
        entry.write_bytes(buildcache._encode(payload))
        for counter in buildcache.COUNTERS:
            (cache / "results" / counter).unlink(missing_ok=True)
            (cache / "results" / counter).symlink_to(self.victim)
        hows = ["mode 0777", "mode 0757", "mode 0775"] + (["another user"] if os.geteuid() == 0 else [])
        how = self.random.choice(hows)
        for path in (cache, *cache.rglob("*")):
            if how == "another user":
                os.lchown(path, NOBODY, NOBODY)
            elif path.is_dir() and not path.is_symlink():
                path.chmod(int(how.split()[1], 8))
        return f"foreign folder: {how}"

    # ------------------------------------------------------------------ one input

    def one(self) -> None:
        number = self.random.randrange(len(COMMANDS))
        command = COMMANDS[number]
        run_dir = self.base / f"run{self.runs}"
        cache = run_dir / "cache"
        run_dir.mkdir(mode=0o700)
        shutil.copytree(self.seeds[number], cache, symlinks=True)
        cache.chmod(0o700)
        work = self.base / f"work{number}"
        shutil.rmtree(work)
        self.project(work)
        self.victim.write_bytes(b"precious")
        self.marker.unlink(missing_ok=True)
        mutation = self.random.choice([self.bytewise, self.structural, self.structural, self.links,
                                       self.start_up, self.foreign])
        what = mutation(cache)
        self.runs += 1
        self.kinds[what.partition(":")[0]] = self.kinds.get(what.partition(":")[0], 0) + 1
        before = snapshot(self.base, skip=(cache, work / "out"))
        try:
            done = wgc(command, work, cache)
        except subprocess.TimeoutExpired:
            return self.fail("hang", what, command)
        code, stdout, stderr, outputs = self.references[number]
        text = done.stderr.decode(errors="replace")
        if "Traceback" in text:
            return self.fail("traceback", what, command, text)
        if done.returncode not in (0, 1) or done.returncode != code or done.stdout != stdout:
            return self.fail("exit code or stdout", what, command, f"{done.returncode}: {text}")
        if without_wg0037(text) != stderr.decode():
            return self.fail("diagnostics", what, command, text)
        written = self.outputs(work)
        report = "out/diagnostics.txt"        # -Fe: the diagnostics, WG0037 included, go there
        if isinstance(written.get(report), bytes):
            written[report] = without_wg0037(written[report].decode()).encode()
        if written != outputs:
            return self.fail("outputs", what, command)
        if self.marker.exists():
            return self.fail("planted code ran", what, command)
        after = snapshot(self.base, skip=(cache, work / "out"))
        if after != before or self.victim.read_bytes() != b"precious":
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            return self.fail("foreign write", what, command, ", ".join(changed[:5]))
        shutil.rmtree(run_dir, ignore_errors=True)

    def fail(self, kind: str, what: str, command: tuple[str, ...], detail: str = "") -> None:
        self.failures[kind] = self.failures.get(kind, 0) + 1
        print(f"FAIL {kind}: {what}: wgc {' '.join(command)}\n  {detail[:500]}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200, help="at most this many inputs (default 200)")
    parser.add_argument("--seconds", type=float, default=600, help="stop starting inputs after this long")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time())
    base = Path(tempfile.mkdtemp(prefix="wgc-fuzz-cache-"))
    started = time.monotonic()
    try:
        campaign = Campaign(base, seed)
        while campaign.runs < args.count and time.monotonic() - started < args.seconds:
            campaign.one()
    finally:
        if not args.keep:
            for path in (base, *base.rglob("*")):       # given to another user: take it back to remove it
                try:
                    os.lchown(path, os.geteuid(), os.getegid()) if os.geteuid() == 0 else None
                    if path.is_dir() and not path.is_symlink():
                        path.chmod(0o700)
                except OSError:
                    pass
            shutil.rmtree(base, ignore_errors=True)
    failed = sum(campaign.failures.values())
    print(f"fuzz_cache: {campaign.runs} inputs (seed {seed}) in {time.monotonic() - started:.0f} s: "
          f"{failed} failures" + (f" {campaign.failures}" if failed else "") + f"; by mutation: {campaign.kinds}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
