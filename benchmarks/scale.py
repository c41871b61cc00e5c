"""`wgc run` on inputs larger than the memory a run may use: how large, and how fast.

run: `python benchmarks/scale.py [--sizes 20,22,24] [--max-memory BYTES] [--repeat K] [--device D]`
where wgc, `vulkan` and a Vulkan device are installed; or `--prepare DIR` here (compiles the graph,
pickles it) and `--from DIR` on a machine with the device but not wgc's compiler dependencies.

The graph: N entry records (one 4-byte record given once with stride 0, repeated N times) to a
thread node `Count` that takes a unique index from an atomic counter and sends it in one record to
the thread node `Work`, which writes `Out[i] = 3 i + 7` (2N thread records in two levels). The run
may use `--max-memory` bytes (the runtime's default is 1 GiB) for the dispatch's data and the
record arenas of a step: records that do not fit run in passes (`wgc.runtime.passes`). For each
N = 2^size: the number of passes, the median wall time of K runs after a warm-up, and the thread
records per second; `Out` is checked (every element up to 2^24 elements, beyond that 65,536
sampled ones plus the first and last) and so is the counter (N). A size whose run fails is
reported with its error, and the larger sizes are not tried.
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import random
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

GRAPH = """\
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Counter : register(u1);
struct Seed { uint unused; };
struct Item { uint index; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Count(ThreadNodeInputRecord<Seed> seed, [MaxRecords(1)] NodeOutput<Item> Work)
{
    uint index;
    Counter.InterlockedAdd(0, 1, index);
    ThreadNodeOutputRecords<Item> rec = Work.GetThreadNodeOutputRecords(1);
    rec.Get().index = index;
    rec.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Work(ThreadNodeInputRecord<Item> item) { Out[item.Get().index] = item.Get().index * 3 + 7; }
"""

FULL_CHECK = 1 << 24
"""Up to this many elements `Out` is checked whole; beyond it, sampled."""


def dispatch_text(count: int) -> str:
    return ('{"inputs": [{"entry": "Count", "records": {"hex": "00000000", "stride": 0, "count": %d}}], '
            '"resources": {"Out": {"bytes": %d}, "Counter": {"bytes": 4}}}' % (count, 4 * count))


def prepare() -> tuple[bytes, object]:
    from wgc.runtime.run import _compile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scale.hlsl"
        path.write_text(GRAPH)
        diagnostics, module, program = _compile(str(path), None)
    assert module is not None, diagnostics
    return module, program


def check(out: bytes, counter: bytes, count: int) -> str | None:
    """What is wrong with the results of N = `count`, or None."""
    if struct.unpack("<I", counter[:4])[0] != count % (1 << 32):
        return f"the counter is {struct.unpack('<I', counter[:4])[0]}, not {count}"
    values = memoryview(out).cast("I")
    picks = range(count) if count <= FULL_CHECK else \
        [0, count - 1, *random.Random(count).sample(range(count), 65536)]
    for i in picks:
        if values[i] != (3 * i + 7) % (1 << 32):
            return f"Out[{i}] is {values[i]}, not {3 * i + 7}"
    return None


def measure(module: bytes, program, sizes: list[int], memory: int | None, repeat: int, selector: str | None) -> None:
    from wgc.runtime.device import Device
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import DEFAULT_MEMORY_LIMIT
    from wgc.source import SourceFile

    with Device(selector) as device:
        print(f"device: {device.info.name} ({device.info.kind}, Vulkan {device.info.api_version}); "
              f"memory a run may use: {memory if memory is not None else 'the default'} bytes")
        for size in sizes:
            count = 1 << size
            described, problems = read_dispatch(SourceFile("scale.json", dispatch_text(count)), program, memory)
            if described is None:
                print(f"N = 2^{size}: refused: {'; '.join(p.message for p in problems)}")
                break
            arenas = (DEFAULT_MEMORY_LIMIT if memory is None else memory) - described.data_bytes   # as `wgc run`
            try:
                with Session(device, module, program, described, arenas) as session:
                    samples = []
                    for run in range(repeat + 1):        # the first: a warm-up
                        counter_buffer, _ = session.by_name["Counter"]
                        counter_buffer.write(0, bytes(4))
                        start = time.perf_counter()
                        session.run_once()
                        if run:
                            samples.append(time.perf_counter() - start)
                    passes = getattr(session.scheduler, "last_passes", 1)
                    out_buffer, out_size = session.by_name["Out"]
                    wrong = check(out_buffer.read(0, out_size), counter_buffer.read(0, 4), count)
            except Exception as problem:  # noqa: BLE001 - a benchmark reports what stopped it
                print(f"N = 2^{size}: failed: {type(problem).__name__}: {problem}")
                break
            median = statistics.median(samples)
            print(f"N = 2^{size} ({count:,} entry records, {2 * count:,} thread records): {passes} passes, "
                  f"median {median * 1e3:.1f} ms (best {min(samples) * 1e3:.1f}), "
                  f"{2 * count / median / 1e6:.0f} M records/s; results {'right' if wrong is None else wrong}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,22,24", help="log2 of N, comma-separated (default 20,22,24)")
    parser.add_argument("--max-memory", type=int, default=None, help="bytes a run may use (default: the runtime's)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default=None)
    parser.add_argument("--prepare", metavar="DIR", help="compile and pickle the graph into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure the graph pickled in DIR")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.source:
        with gzip.open(Path(args.source) / "scale.pickle.gz") as file:
            module, program = pickle.load(file)
    else:
        module, program = prepare()
    if args.prepare:
        Path(args.prepare).mkdir(parents=True, exist_ok=True)
        with gzip.open(Path(args.prepare) / "scale.pickle.gz", "wb") as file:
            pickle.dump((module, program), file)
        return
    measure(module, program, sizes, args.max_memory, args.repeat, args.device)


if __name__ == "__main__":
    main()
