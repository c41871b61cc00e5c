"""Front-end benchmarks: preprocess + parse throughput, grammar load time, cold start.

Run: `python benchmarks/frontend.py [--lines N] [--repeat K] [--throughput]` in an environment where
wgc is installed (`--throughput`: only the generated file's figures).  Prints one line per
measurement; numbers are wall-clock seconds (best of K runs) on this machine, and throughput in
source lines per second.

What it measures:
- throughput: a generated work-graph file of about N lines (structs, cbuffers, node shaders
  with loops, switches and intrinsics, macros) through `preprocess` and `parse`, and through
  `parse` + sema (`analyze`) as a compile runs them (`driver.run_with_deep_stack`: in the worker
  thread, the cyclic garbage collector off) and, for comparison, with the collector on;
- grammar load: building the LALR tables from `grammar/hlsl.lark` without a cache, and loading
  them from wgc's cache;
- cold start: the whole `wgc --version` process;
- long expressions: parsing `a + a + ... + a` of 4,000 to 64,000 operands; the time per operand
  must stay flat (linear parsing; it grew with the length before the AST builder stopped
  copying the operand list at every reduction), and the whole compile of a 20,000-operand
  expression (`--long`, with peak memory).
"""

from __future__ import annotations

import argparse
import gc
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
    from wgc.driver import run_with_deep_stack
    from wgc.preprocess import PreprocessOptions, preprocess
    from wgc.sema.analyze import analyze
    from wgc.sema.context import SemaOptions
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

    options = SemaOptions(work_graph_loops=True)   # the generated chain is 40 nodes deep: the proposal's limit

    def parse_and_sema() -> None:
        analyze(parse(pre.text, pre.locations).unit, options)

    assert not any(d.severity.name == "ERROR" for d in analyze(result.unit, options).diagnostics)
    as_compiled = best(repeat, lambda: run_with_deep_stack(parse_and_sema))
    collecting = best(repeat, parse_and_sema) if gc.isenabled() else float("nan")
    print(f"generated file: {count} lines, {len(text)} bytes, {len(result.unit.decls)} declarations")
    print(f"preprocess: {pre_time:.3f} s ({count / pre_time:,.0f} lines/s)")
    print(f"parse:      {parse_time:.3f} s ({count / parse_time:,.0f} lines/s)")
    print(f"preprocess + parse: {total:.3f} s ({count / total:,.0f} lines/s)")
    print(f"parse + sema, as a compile runs them (cyclic GC off): {as_compiled:.3f} s "
          f"({count / as_compiled:,.0f} lines/s)")
    print(f"parse + sema, cyclic GC on:                           {collecting:.3f} s "
          f"({count / collecting:,.0f} lines/s)")


def grammar_load(repeat: int) -> None:
    """The parser built from the grammar, and loaded from wgc's start-up cache, in fresh processes
    (`-P`: the installed wgc, not a `wgc` folder in the current directory, e.g. a checkout's)."""
    code = ("import time, sys; t=time.perf_counter(); from wgc.syntax.parse import load_grammar; "
            "origin = load_grammar(); sys.stdout.write(f'{time.perf_counter()-t} {origin}')")

    def load(env: dict[str, str], expected: str) -> float:
        seconds, origin = subprocess.check_output([sys.executable, "-P", "-c", code], env=env, text=True).split()
        assert origin == expected, (origin, expected)
        return float(seconds)

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WGC_CACHE_DIR=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cold = []
        for _ in range(repeat):
            for entry in Path(cache).glob("hlsl-parser-*"):
                entry.unlink()
            cold.append(load(env, "built"))
        warm = [load(env, "cache") for _ in range(repeat)]
    print(f"grammar load without cache: {min(cold) * 1000:.0f} ms (includes importing lark)")
    print(f"grammar load from cache:    {min(warm) * 1000:.0f} ms (includes importing lark)")


def cold_version(repeat: int) -> None:
    script = shutil.which("wgc") or str(Path(sys.executable).with_name("wgc"))
    command = [script, "--version"] if Path(script).exists() else [sys.executable, "-m", "wgc", "--version"]
    wall = best(repeat, lambda: subprocess.run(command, check=True, capture_output=True))
    print(f"cold `wgc --version`: {wall * 1000:.0f} ms (whole process, best of {repeat})")


def long_expressions(repeat: int) -> None:
    from wgc.source import SourceFile
    from wgc.syntax.parse import load_grammar, parse_source

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import deep_inputs

    load_grammar()
    for operands in (4000, 8000, 16000, 32000, 64000):
        source = SourceFile("long.hlsl", deep_inputs.long_expression(operands))
        seconds = best(repeat, lambda: parse_source(source))
        print(f"parse a {operands}-operand expression: {seconds:.2f} s ({seconds / operands * 1e6:.1f} us/operand)")


def deep_compiles() -> None:
    """Whole compiles (SPIR-V) of the big deep targets, each in a fresh process: seconds, peak RSS."""
    cases = {"20,000-operand expression": "long_expression(20000)",
             "10,000-arm else-if chain (WG0370)": "else_if_chain(10000)",
             "2,000 chained functions": "function_chain(2000)",
             "1,000 nested blocks": "nested_blocks(1000)", "1,000 nested calls": "nested_calls(1000)",
             "256 nested for loops": "nested_loops(256)"}
    tests = str(Path(__file__).resolve().parents[1] / "tests")
    for label, call in cases.items():
        code = (f"import sys, time, resource; sys.path.insert(0, {tests!r}); import deep_inputs; "
                f"from wgc import driver; text = deep_inputs.{call}; t = time.perf_counter(); "
                "r = driver.compile(driver.Options(input='-'), stdin=text.encode()); "
                "print(f'{time.perf_counter() - t:.1f} s, peak RSS ' "
                "f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB, ' "
                "+ ('ok' if r.ok else ' '.join(d.code for d in r.diagnostics)))")
        out = subprocess.check_output([sys.executable, "-c", code], text=True).strip()
        print(f"compile {label}: {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--long", action="store_true", help="also the whole compiles of the deep targets")
    parser.add_argument("--throughput", action="store_true", help="only the throughput of the generated file")
    args = parser.parse_args()
    if args.throughput:
        throughput(args.lines, args.repeat)
        return
    long_expressions(args.repeat)
    if args.long:
        deep_compiles()
    throughput(args.lines, args.repeat)
    grammar_load(args.repeat)
    cold_version(max(args.repeat, 5))


if __name__ == "__main__":
    main()
