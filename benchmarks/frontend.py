"""Front-end benchmarks: preprocess + parse throughput, grammar load time, cold start.

Run: `python benchmarks/frontend.py [--lines N] [--repeat K]` in an environment where wgc is
installed.  Prints one line per measurement; numbers are wall-clock seconds (best of K runs) on
this machine, and throughput in source lines per second.

What it measures:
- throughput: a generated work-graph file of about N lines (structs, cbuffers, node shaders
  with loops, switches and intrinsics, macros) through `preprocess` and `parse`;
- grammar load: building the LALR tables from `grammar/hlsl.lark` without a cache, and loading
  them from wgc's cache;
- cold start: the whole `wgc --version` process.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NODE_TEMPLATE = """\
struct Rec{i}
{{
    uint3 grid : SV_DispatchGrid;
    float4 color;
    uint index;
}};

cbuffer Params{i} : register(b{b})
{{
    float scale{i};
    uint count{i};
}};

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeMaxDispatchGrid(64, 1, 1)]
[NumThreads(THREADS, 1, 1)]
void Node{i}(DispatchNodeInputRecord<Rec{i}> input,
            [MaxRecords(4)]{cut} NodeOutput<Rec{j}> Node{j},
            uint gi : SV_GroupIndex,
            uint3 dtid : SV_DispatchThreadID)
{{
    float4 acc = input.Get().color * scale{i};
    [unroll] for (uint k = 0; k < 4; ++k)
    {{
        acc.xyz += float3(k, k * 2, k * 3) / (1.0f + k);
    }}
    switch (gi & 3u)
    {{
    case 0:
        acc.w = max(acc.x, acc.y);
        break;
    case 1:
    case 2:
        acc.w = lerp(acc.z, acc.x, 0.5f);
        break;
    default:
        acc.w = SQUARE(acc.w);
    }}
    GroupNodeOutputRecords<Rec{j}> outs = Node{j}.GetGroupNodeOutputRecords(1);
    outs[0].grid = uint3(1, 1, 1);
    outs[0].color = acc;
    outs[0].index = input.Get().index + count{i};
    outs.OutputComplete();
}}

"""


def generate(lines: int) -> str:
    head = "#define THREADS 64\n#define SQUARE(x) ((x) * (x))\n\n"
    per_node = NODE_TEMPLATE.count("\n")
    count = max(1, lines // per_node)
    # highest index first: HLSL needs Rec{i+1} declared before Node{i} outputs it
    # every 40th output goes nowhere ([AllowSparseNodes] to a missing node), so chains stay within
    # the depth limit of 48
    cut = ' [AllowSparseNodes] [NodeID("Elsewhere")]'
    body = "".join(NODE_TEMPLATE.format(i=i, j=i + 1, b=i, cut=cut if i % 40 == 39 else "")
                   for i in reversed(range(count)))
    last = f"struct Rec{count} {{ uint3 grid : SV_DispatchGrid; float4 color; uint index; }};\n"
    return head + last + body


def best(repeat: int, fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def throughput(lines: int, repeat: int) -> None:
    from wgc.preprocess import PreprocessOptions, preprocess
    from wgc.source import SourceFile
    from wgc.syntax.parse import load_grammar, parse

    load_grammar()
    text = generate(lines)
    source = SourceFile("generated.hlsl", text)
    count = text.count("\n")
    pre_time = best(repeat, lambda: preprocess(source, PreprocessOptions()))
    pre = preprocess(source, PreprocessOptions())
    result = parse(pre.text, pre.locations)
    assert not result.diagnostics, result.diagnostics[:3]
    parse_time = best(repeat, lambda: parse(pre.text, pre.locations))
    total = pre_time + parse_time
    print(f"generated file: {count} lines, {len(text)} bytes, {len(result.unit.decls)} declarations")
    print(f"preprocess: {pre_time:.3f} s ({count / pre_time:,.0f} lines/s)")
    print(f"parse:      {parse_time:.3f} s ({count / parse_time:,.0f} lines/s)")
    print(f"preprocess + parse: {total:.3f} s ({count / total:,.0f} lines/s)")


def grammar_load(repeat: int) -> None:
    code = ("import time, sys; t=time.perf_counter(); from wgc.syntax.parse import load_grammar; "
            "load_grammar(); sys.stdout.write(str(time.perf_counter()-t))")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WGC_CACHE_DIR=cache)
        cold = []
        for _ in range(repeat):
            for entry in Path(cache).iterdir():
                entry.unlink()
            cold.append(float(subprocess.check_output([sys.executable, "-c", code], env=env)))
        warm = [float(subprocess.check_output([sys.executable, "-c", code], env=env)) for _ in range(repeat)]
    print(f"grammar load without cache: {min(cold) * 1000:.0f} ms (includes importing lark)")
    print(f"grammar load from cache:    {min(warm) * 1000:.0f} ms (includes importing lark)")


def cold_version(repeat: int) -> None:
    script = shutil.which("wgc") or str(Path(sys.executable).with_name("wgc"))
    command = [script, "--version"] if Path(script).exists() else [sys.executable, "-m", "wgc", "--version"]
    wall = best(repeat, lambda: subprocess.run(command, check=True, capture_output=True))
    print(f"cold `wgc --version`: {wall * 1000:.0f} ms (whole process, best of {repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    throughput(args.lines, args.repeat)
    grammar_load(args.repeat)
    cold_version(max(args.repeat, 5))


if __name__ == "__main__":
    main()
