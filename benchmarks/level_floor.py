"""What one dependent dispatch costs on the GPU: the floor under a level of a GPU-driven run.

run: `python benchmarks/level_floor.py [--count K] [--repeat R] [--device D]` where wgc's runtime,
`vulkan` and a Vulkan device are installed; or `--prepare DIR` here (assembles the kernel) and
`--from DIR` on a machine without SPIRV-Tools.

K one-group dispatches of `hand_kernels.spvasm`'s `step` kernel (one thread adds 1 to a word and
reads the previous value: each dispatch depends on the one before), recorded in one command buffer
with a pipeline barrier after each, between two timestamps; the GPU time / K, median of R submits.
Variants of the barrier and of the dispatch:
- `full`: `Device.barrier` (every stage and access: compute, transfer, host, indirect);
- `compute+indirect`: `Device.compute_barrier` (compute to compute and indirect-argument reads,
  what a GPU-driven run records between levels);
- `compute`: compute to compute, shader reads and writes only;
- `indirect dispatch`: as `compute+indirect`, the dispatch's group count read from a buffer
  (`vkCmdDispatchIndirect`, as a level's node dispatch is);
- `two per level`: a one-group dispatch, a barrier, the indirect dispatch, a barrier (what a
  level of a GPU-driven run records: its setup shader, then the node); the chain advances twice
  per level.
"""

from __future__ import annotations

import argparse
import gzip
import pickle
import statistics
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

STAGE_COMPUTE = 0x800
ACCESS_SHADER_READ_WRITE = 0x20 | 0x40


def kernel_words() -> bytes:
    from wgc.spirv.tools import assemble

    words = assemble((HERE / "hand_kernels.spvasm").read_text())
    return struct.pack(f"<{len(words)}I", *words)


def measure(module: bytes, count: int, repeat: int, selector: str | None) -> None:
    from wgc.runtime.device import Device
    from wgc.runtime.timing import Timestamps

    with Device(selector) as device:
        timing = Timestamps.create(device)
        if timing is None:
            raise SystemExit(f"{device.info.name} cannot time compute work")
        layout, set_layouts = device.pipeline_layout([], 24)
        pipelines = device.pipelines(module, ["step", "fill"], layout)
        words = device.buffer(16 + 4 * (count + 2) * 2)     # rec[0] (the chain's counter), then out[]
        args = device.buffer(16)
        args.write(0, struct.pack("<3I", 1, 1, 1))
        compute_only = device.ffi.new("VkMemoryBarrier[1]", [device.vk.VkMemoryBarrier(
            srcAccessMask=ACCESS_SHADER_READ_WRITE, dstAccessMask=ACCESS_SHADER_READ_WRITE)])

        def compute_barrier() -> None:
            device.lib.vkCmdPipelineBarrier(device.command_buffer, STAGE_COMPUTE, STAGE_COMPUTE, 0, 1, compute_only,
                                            0, device.ffi.NULL, 0, device.ffi.NULL)

        def direct() -> None:
            device.dispatch(1)

        def indirect() -> None:
            device.dispatch_indirect(args, 0)

        def setup_and_node(barrier) -> None:
            device.dispatch(1)
            barrier()
            device.dispatch_indirect(args, 0)

        def two_pipelines() -> None:
            """`fill` (of no records: push constant n = 0) as the setup shader, then `step`."""
            device.bind(pipelines["fill"], layout, [])
            device.dispatch(1)
            device.compute_barrier()
            device.bind(pipelines["step"], layout, [])
            device.dispatch_indirect(args, 0)

        variants = [("full", direct, device.barrier), ("compute+indirect", direct, device.compute_barrier),
                    ("compute", direct, compute_barrier), ("indirect dispatch", indirect, device.compute_barrier),
                    ("two per level", lambda: setup_and_node(device.compute_barrier), device.compute_barrier),
                    ("two pipelines", two_pipelines, device.compute_barrier)]
        print(f"device: {device.info.name} ({device.info.kind}, Vulkan {device.info.api_version}); "
              f"{count} dependent one-group dispatches per submit, median of {repeat} submits")
        for name, dispatch, barrier in variants:
            samples = []
            for _ in range(repeat + 1):                    # the first: a warm-up
                words.write(0, bytes(16))
                device.begin()
                timing.begin()
                device.bind(pipelines["step"], layout, [])
                device.push(layout, struct.pack("<QQII", words.address, words.address + 16, 1, 0))
                start = timing.write()
                for _ in range(count):
                    dispatch()
                    barrier()
                end = timing.write(end=True)
                device.submit()
                ticks = timing.read(timing.used)
                samples.append(timing.nanoseconds(ticks, start, end))
            per = statistics.median(samples[1:]) / count / 1000
            print(f"{name:<20} {per:6.2f} µs per level (best {min(samples[1:]) / count / 1000:.2f})")
        pool = device.descriptor_sets([], [])[0]
        device.destroy_pipelines(pipelines, layout, set_layouts, pool)
        timing.close()
        for buffer in (words, args):
            device.free(buffer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--device", default=None)
    parser.add_argument("--prepare", metavar="DIR", help="assemble the kernel into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure with the kernel in DIR")
    args = parser.parse_args()
    if args.source:
        with gzip.open(Path(args.source) / "level_floor.pickle.gz") as file:
            module = pickle.load(file)
    else:
        module = kernel_words()
    if args.prepare:
        Path(args.prepare).mkdir(parents=True, exist_ok=True)
        with gzip.open(Path(args.prepare) / "level_floor.pickle.gz", "wb") as file:
            pickle.dump(module, file)
        return
    measure(module, args.count, args.repeat, args.device)


if __name__ == "__main__":
    main()
