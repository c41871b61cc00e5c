"""Mesh nodes benchmark: triangles drawn through a work graph against the same mesh shader drawn directly.

run: `python benchmarks/mesh.py [--triangles N] [--repeat K] [--device D] [--size S]` where wgc,
`vulkan` and a device with VK_EXT_mesh_shader are installed (lavapipe from Mesa 23.2: on this
machine `. /opt/mesa25/env.sh` first).  Or in two halves, as benchmarks/run.py: `--prepare DIR`
here (compiles, pickles) and `--from DIR` on the machine with the device (needs only
`wgc.runtime` and `vulkan`).

Both draw N triangles (64 per thread group, tiny ones on an S x S R8G8B8A8 target, so the mesh
stage rather than the fill dominates) with the same mesh-shader body:

- graph: a thread entry node sends one record whose SV_DispatchGrid is N/64 groups to a mesh node
  (`wgc run`'s Session), on both schedules: GPU-driven (`wgc run`'s default: one submit, the draw a
  vkCmdDrawMeshTasksIndirectEXT whose group counts the indirect-setup shader writes from the
  thread node's record) and host-driven (level 0 the thread node, level 1 the draw, each a submit);
- direct: the mesh shader of the same body, compiled as a plain `[Shader("mesh")]` entry point,
  drawn with one `vkCmdDrawMeshTasksEXT` (N/64 groups, split to the mesh limits) in one rendering
  pass and one submit.

Each figure is the median and the best of K timed runs after one warm-up run (llvmpipe compiles a
pipeline at its first draw), the host's wall time of the whole run (record, submit, wait).
Primitives per second = N / median; the ratio graph / direct is the figure the issue asks for.
The three pictures are compared for equality.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import tempfile
import time

BODY = """
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
static const uint PER_GROUP = 64;

void Emit(uint group, uint t, out vertices V v[192], out indices uint3 tri[64])
{
    SetMeshOutputCounts(192, 64);
    uint n = group * PER_GROUP + t;
    float2 at = float2(n % 1024, (n / 1024) % 1024) / 512.0 - 1.0;
    float s = 1.0 / 512.0;
    float4 color = float4((n & 7) / 7.0, ((n >> 3) & 7) / 7.0, 1, 1);
    v[3 * t].pos = float4(at, 0, 1);
    v[3 * t + 1].pos = float4(at + float2(s, 0), 0, 1);
    v[3 * t + 2].pos = float4(at + float2(0, s), 0, 1);
    v[3 * t].color = color;
    v[3 * t + 1].color = color;
    v[3 * t + 2].color = color;
    tri[t] = uint3(3 * t, 3 * t + 1, 3 * t + 2);
}
[Shader("pixel")] float4 Shade(float4 p : SV_Position, nointerpolation float4 c : COLOR0) : SV_Target0 { return c; }
"""

GRAPH = BODY + """
struct Start { uint groups; };
struct Draw { uint3 grid : SV_DispatchGrid; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Launch(ThreadNodeInputRecord<Start> s, [MaxRecords(1)] NodeOutput<Draw> Triangles)
{
    ThreadNodeOutputRecords<Draw> d = Triangles.GetThreadNodeOutputRecords(1);
    d.Get().grid = uint3(s.Get().groups, 1, 1);
    d.OutputComplete();
}
[Shader("node")] [NodeLaunch("mesh")] [NodeMaxDispatchGrid(65535, 1, 1)] [NumThreads(64, 1, 1)]
[OutputTopology("triangle")]
void Triangles(DispatchNodeInputRecord<Draw> d, uint t : SV_GroupThreadID, uint g : SV_GroupID,
               out vertices V v[192], out indices uint3 tri[64])
{
    Emit(g, t, v, tri);
}
"""

DIRECT = BODY + """
[Shader("mesh")] [NumThreads(64, 1, 1)] [OutputTopology("triangle")]
void Direct(uint t : SV_GroupThreadID, uint g : SV_GroupID, out vertices V v[192], out indices uint3 tri[64])
{
    Emit(g, t, v, tri);
}
"""


def _compile(text: str, folder: str, name: str, target: str) -> tuple[bytes, object]:
    from wgc import driver

    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    result = driver.compile(driver.Options(input=path, emit="spirv", target=target, reflection=True,
                                           profile="lib_6_9"))
    assert result.ok, [d.message for d in result.diagnostics]
    return result.outputs["spirv"], result.reflection


def _timed(run, repeat: int) -> tuple[float, float]:
    run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def prepare(triangles: int, size: int) -> dict:
    """Compile both cases and read the graph's dispatch (what `--prepare` pickles)."""
    from wgc.runtime.dispatch import read_dispatch
    from wgc.runtime.program import build_program
    from wgc.source import SourceFile

    groups = max(1, triangles // 64)
    with tempfile.TemporaryDirectory() as folder:
        graph_module, reflection = _compile(GRAPH, folder, "graph.hlsl", "emulated")
        direct_module, _ = _compile(DIRECT, folder, "direct.hlsl", "amdx")
    program = build_program(reflection)
    text = ('{"inputs": [{"entry": "Launch", "records": [{"groups": %d}]}], "render_target": {"width": %d, '
            '"height": %d}}' % (groups, size, size))
    described, problems = read_dispatch(SourceFile("<bench>", text), program)
    assert described is not None, [p.message for p in problems]
    return {"groups": groups, "size": size, "graph": (graph_module, program, described), "direct": direct_module}


def measure(prepared: dict, repeat: int, selector: str | None) -> int:
    from wgc.runtime.device import Device
    from wgc.runtime.graphics import Graphics
    from wgc.runtime.run import Session
    from wgc.runtime.scheduler import TraceDispatch

    groups, size = prepared["groups"], prepared["size"]
    triangles = groups * 64
    graph_module, program, described = prepared["graph"]
    device = Device(selector, graphics=True)
    try:
        times, pictures, drawn = {}, {}, {}
        for name, gpu_driven in (("graph gpu-driven", True), ("graph host-driven", False)):
            with Session(device, graph_module, program, described, gpu_driven=gpu_driven) as session:
                times[name] = _timed(lambda: session.run_once(), repeat)
                pictures[name] = session.graphics.read("SV_Target0")
                drawn[name] = [d.primitives for step in session.run_once() for d in step.dispatches
                               if d.launch == "mesh"]
                assert session.scheduler.last_run_gpu_driven is gpu_driven

        class _Layout:                      # what Graphics needs of GraphPipelines: a layout, no sets
            def __init__(self) -> None:
                self.layout, self.set_layouts = device.pipeline_layout([], 8)
                self.sets: list[object] = []

        class _Program:
            nodes = [type("N", (), {"launch": "mesh", "entry_point": "Direct"})()]

        layout = _Layout()
        graphics = Graphics(device, prepared["direct"], _Program(), layout, described.render_target)
        try:
            trace = TraceDispatch("Direct", "Direct", "mesh", 0, 0, 0, groups)
            draws = [(b"\0" * 8, nx, ny) for _, nx, ny in graphics.shapes(groups)]

            def direct() -> None:
                device.begin()
                graphics.draw([("Direct", trace, draws)])
                device.barrier()
                device.submit()
                graphics.collect()

            times["direct"] = _timed(direct, repeat)
            pictures["direct"] = graphics.read("SV_Target0")
        finally:
            graphics.close()
            device.vk.vkDestroyPipelineLayout(device.device, layout.layout, None)
        same = len(set(pictures.values())) == 1
        print(f"device: {device.info.name}; {triangles} triangles, {groups} groups of 64, "
              f"{size}x{size} target; pictures {'equal' if same else 'DIFFER'}")
        for name, (median, best) in times.items():
            print(f"{name:17s} median {median * 1e3:9.2f} ms  best {best * 1e3:9.2f} ms  "
                  f"{triangles / median / 1e6:8.2f} M primitives/s")
        direct_median = times["direct"][0]
        for name in ("graph gpu-driven", "graph host-driven"):
            print(f"ratio {name} / direct (median): {times[name][0] / direct_median:.2f}")
        print(f"primitives counted by the queries: {drawn}, direct {trace.primitives}")
        return 0 if same else 1
    finally:
        device.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--triangles", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default=None)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--prepare", metavar="DIR", help="compile and pickle the cases into DIR, then stop")
    parser.add_argument("--from", dest="source", metavar="DIR", help="measure the cases pickled in DIR")
    args = parser.parse_args()
    if args.source:
        with open(os.path.join(args.source, "mesh.pickle"), "rb") as f:
            prepared = pickle.load(f)
    else:
        prepared = prepare(args.triangles, args.size)
    if args.prepare:
        os.makedirs(args.prepare, exist_ok=True)
        with open(os.path.join(args.prepare, "mesh.pickle"), "wb") as f:
            pickle.dump(prepared, f)
        return 0
    return measure(prepared, args.repeat, args.device)


if __name__ == "__main__":
    sys.exit(main())
