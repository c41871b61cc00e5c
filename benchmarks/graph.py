"""`wgc inspect` benchmark: the whole pipeline up to the graph model on generated graphs.

run: `python benchmarks/graph.py [--nodes 500] [--repeat K]` in an environment where wgc is
installed.  Prints, for graphs of 10, 100 and N nodes: the in-process time of
`wgc.compile(emit="json")` (preprocess, parse, sema, node and graph rules, model; best of K
runs) and the time of its graph stage alone; and the wall time of the whole `wgc inspect`
process on the N-node graph (cold start included).

Two generated graphs of N nodes each, both a broadcasting entry that fans out through a node
array with [MaxRecordsPerNode] to N/2 thread nodes, each of which forwards to its own tail node
(about N edges, depth 3):
- "lean": node bodies are empty (about 4 source lines per node): measures the graph work;
- "with bodies": every forwarding node allocates, fills and completes a record (about 7.5 lines
  per node): closer to real shaders, and dominated by parsing.

`python benchmarks/graph.py --scale 1000,2000,5000,10000` instead compiles the "with bodies"
graph of each size to SPIR-V in a whole `wgc compile` process (validation included) and prints its
CPU time (user + system), its peak RSS, and both per node: linear growth keeps them flat.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from frontend import best  # noqa: E402

HEADER = """\
struct Rec {{ uint value; float weight; }};

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeIsProgramEntry]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(64, 1, 1)]
void Root([MaxRecords(64)] [MaxRecordsPerNode(4)] [NodeArraySize({count})] NodeOutputArray<Rec> Work,
          uint gi : SV_GroupIndex)
{{
    ThreadNodeOutputRecords<Rec> r = Work[gi % {count}u].GetThreadNodeOutputRecords(1);
    r.Get().value = gi;
    r.Get().weight = 1.0f;
    r.OutputComplete();
}}
"""

LEAN_NODE = """
[Shader("node")] [NodeLaunch("thread")] [NodeID("Work", {i})]
void Work{i}(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] [NodeID("Tail", {i})] NodeOutput<Rec> next) {{ }}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Tail", {i})]
void Tail{i}(ThreadNodeInputRecord<Rec> input) {{ }}
"""

NODE = """
[Shader("node")]
[NodeLaunch("thread")]
[NodeID("Work", {i})]
void Work{i}(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] [NodeID("Tail", {i})] NodeOutput<Rec> next)
{{
    ThreadNodeOutputRecords<Rec> r = next.GetThreadNodeOutputRecords(input.Get().value & 1u);
    if (input.Get().value & 1u) {{ r.Get().value = input.Get().value + {i}u; r.Get().weight = 0.5f; }}
    r.OutputComplete();
}}

[Shader("node")]
[NodeLaunch("thread")]
[NodeID("Tail", {i})]
void Tail{i}(ThreadNodeInputRecord<Rec> input) {{ }}
"""


def generate(nodes: int, lean: bool = False) -> str:
    count = max(1, (nodes - 1) // 2)
    template = LEAN_NODE if lean else NODE
    return HEADER.format(count=count) + "".join(template.format(i=i) for i in range(count))


def in_process(nodes: int, repeat: int, lean: bool) -> None:
    from wgc import driver
    from wgc.sema.graph import check_graph

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.hlsl"
        path.write_text(generate(nodes, lean))
        options = driver.Options(input=str(path), emit="json")
        result = driver.compile(options)
        assert result.ok, [d.message for d in result.diagnostics][:3]
        total = best(repeat, lambda: driver.compile(options))
        front = driver.run_front_end(options)
        analysis = front.analysis
        graph_time = best(repeat, lambda: check_graph(list(analysis.nodes), "lib_6_9"))  # type: ignore[union-attr]
        lines = path.read_text().count("\n")
        kind = "lean" if lean else "with bodies"
        print(f"{kind:11} {len(analysis.nodes):5} nodes ({lines:6} lines): inspect in-process {total * 1000:8.1f} ms, "  # type: ignore[union-attr]
              f"graph analysis {graph_time * 1000:7.1f} ms")


def whole_process(nodes: int, repeat: int, lean: bool) -> None:
    script = Path(sys.executable).with_name("wgc")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "wgc"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "graph.hlsl"
        path.write_text(generate(nodes, lean))
        wall = best(repeat, lambda: subprocess.run(command + ["inspect", "--format", "json", str(path)],
                                                   check=True, capture_output=True))
    kind = "lean" if lean else "with bodies"
    print(f"whole `wgc inspect --format json` process, {nodes} nodes ({kind}): {wall * 1000:.0f} ms "
          f"(best of {repeat})")


def scale(sizes: list[int]) -> None:
    import os

    script = Path(sys.executable).with_name("wgc")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "wgc"]
    with tempfile.TemporaryDirectory() as folder:
        for nodes in sizes:
            path = Path(folder) / f"graph{nodes}.hlsl"
            path.write_text(generate(nodes))
            process = subprocess.Popen(command + ["compile", str(path), "-o", str(path.with_suffix(".spv"))],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _pid, status, usage = os.wait4(process.pid, 0)
            if status:
                raise SystemExit(f"the {nodes}-node graph failed to compile ({status})")
            cpu, rss = usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
            print(f"{nodes:6} nodes: `wgc compile` CPU {cpu:7.2f} s ({cpu / nodes * 1000:.2f} ms per node), "
                  f"peak RSS {rss:6.0f} MiB ({rss / nodes * 1024:.1f} KiB per node)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", help="compile graphs of these sizes (comma-separated) and stop")
    args = parser.parse_args()
    if args.scale:
        scale([int(n) for n in args.scale.split(",")])
        return
    from wgc.syntax.parse import load_grammar

    load_grammar()
    for lean in (True, False):
        for nodes in (10, 100, args.nodes):
            in_process(nodes, args.repeat, lean)
    for lean in (True, False):
        whole_process(args.nodes, args.repeat, lean)


if __name__ == "__main__":
    main()
