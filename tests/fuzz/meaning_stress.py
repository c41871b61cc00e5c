"""Stress the meaning of wgc's SPIR-V (issue 24, "Wrong meaning"): random Work Graph Loop graphs and
random mesh -> pixel interfaces, compiled and checked against invariants the specs state.

Loop graphs (nested loops, self-feeding entries, bodies, exits; every node writes what it sees):
- the compile either succeeds or reports diagnostics (never an internal error);
- in the AMDX module and with --split-nodes, every node index an output declares without
  PayloadNodeSparseArrayAMDX (base .. base + size) is a stage of its target (`test_spirv_node_indices`);
- with `--run`: the graph run natively and in index space (`wgc run --loops=index-space`, lavapipe)
  writes the same buffer, and GetRemainingRecursionLevels() is 0 in every loop entry.
Mesh -> pixel interfaces (random fields: float/int/uint/bool scalars and vectors, interpolation
modifiers, per-vertex or per-primitive, semantics in any case, with or without index 0):
- the library and the pixel shader alone (-E) compile and validate (the driver runs spirv-val);
- no bool Input/Output variable; each pixel input carries exactly the decorations (Flat,
  NoPerspective, Centroid, Sample, PerPrimitiveEXT) of the mesh output of its semantic.

Run longer than the suite does: `python tests/fuzz/meaning_stress.py --count 500 [--seed S] [--run]`;
it prints the number of inputs and every failure (exit 1 when any).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))          # tests/ (spirv_util, test_spirv_node_indices)
sys.path.insert(0, str(HERE.parent.parent))   # the working tree's wgc

from wgc import driver  # noqa: E402
from wgc.diagnostics import Severity  # noqa: E402

LOOPS = ("work-graph-loops",)
COMPILED = {"loop graphs": 0, "refused": 0}
"""How many loop graphs compiled, and how many sema refused (diagnostics; not a failure)."""

# ---------------------------------------------------------------- loop graphs


@dataclass
class LoopGraph:
    source: str
    nodes: list[str] = field(default_factory=list)


def _node(name: str, outputs: list[str], body: str, attributes: str = "", entry: bool = False) -> str:
    params = ["ThreadNodeInputRecord<R> r"] + [f"[MaxRecords(1)] NodeOutput<R> {o}" for o in outputs]
    head = '[Shader("node")] [NodeLaunch("thread")]' + (" [NodeIsProgramEntry]" if entry else "")
    return f"{head} {attributes}\nvoid {name}({', '.join(params)})\n{{\n{body}}}\n"


def _send(output: str, value: str, guard: str = "true") -> str:
    return (f"    if ({guard}) {{\n        ThreadNodeOutputRecords<R> o_{output} = {output}.GetThreadNodeOutputRecords(1);\n"
            f"        o_{output}.Get().v = {value};\n        o_{output}.OutputComplete();\n    }}\n")


def loop_graph(rng: random.Random) -> LoopGraph:
    """Start -> loop L0 (-> nested L1 ..) -> Done; each loop an entry, 0-2 body nodes and a back
    edge; a one-node loop may feed itself; an inner loop's last body may also feed the outer entry."""
    depth = rng.randint(1, 3)
    slot = iter(range(1, 10_000))
    parts = ["RWStructuredBuffer<uint> Out : register(u0);", "struct R { uint v; };"]
    nodes: list[str] = []

    def record(name: str) -> str:
        at = next(slot) % 56
        return (f"    InterlockedAdd(Out[{at} + (r.Get().v & 7)], 1 + GetCurrentLoopIterationIndex() * 16 "
                f"+ GetRemainingRecursionLevels() * 4096);\n")

    def build(level: int) -> str:
        entry = f"L{level}"
        iterations = rng.randint(1, 4)
        attributes = f"[NodeMaxLoopIterations({iterations})] [NodeMaxRecordsPerLoopIteration(1)]"
        inner = level + 1 < depth
        bodies = [] if not inner and rng.random() < 0.3 else [f"B{level}_{i}" for i in range(rng.randint(1, 2))]
        nodes.append(entry)
        if not bodies and not inner:          # a loop of one node: it feeds itself
            body = record(entry) + _send(entry, "r.Get().v + 1", f"{entry}.IsValid() && r.Get().v < 6")
            body += _send("Done", "r.Get().v", "r.Get().v >= 6 || !" + entry + ".IsValid()")
            parts.append(_node(entry, [entry, "Done"], body, attributes))
            return entry
        first = build(level + 1) if inner else bodies[0]
        parts.append(_node(entry, [first], record(entry) + _send(first, "r.Get().v")))
        parts[-1] = parts[-1].replace('[NodeLaunch("thread")] ', f'[NodeLaunch("thread")] {attributes} ', 1)
        chain = bodies if not inner else bodies
        for i, name in enumerate(chain):
            nodes.append(name)
            last = i == len(chain) - 1
            if last:
                outputs = [entry, "Done"]
                body = record(name) + _send(entry, "r.Get().v + 1", f"r.Get().v < {rng.randint(2, 8)}")
                body += _send("Done", "r.Get().v", "r.Get().v >= 2")
            else:
                outputs = [chain[i + 1]]
                body = record(name) + _send(chain[i + 1], "r.Get().v")
            parts.append(_node(name, outputs, body))
        if inner and not bodies:               # the inner loop's exit feeds the outer entry
            pass
        return entry

    top = build(0)
    # an inner loop whose entry has no body of its own still needs a way back to the outer entry:
    # the generator always gives an outer loop (inner=True) bodies reached from the inner loop
    parts.append(_node("Start", [top], _send(top, "r.Get().v"), entry=True))
    parts.append(_node("Done", [], record("Done")))
    nodes += ["Start", "Done"]
    return LoopGraph("\n".join(parts) + "\n", nodes)


def check_loop_graph(graph: LoopGraph, work: Path, run: bool) -> list[str]:
    """The problems of one loop graph (empty: fine)."""
    import test_spirv_node_indices as indices

    path = work / "loops.hlsl"
    path.write_text(graph.source)
    problems: list[str] = []
    for split in (False, True):
        try:
            result = driver.compile(driver.Options(input=str(path), emit="spirv", reflection=True, proposals=LOOPS,
                                                   split_nodes=split, max_graph_depth=100000))
        except Exception as error:  # noqa: BLE001 - an internal error is what this looks for
            return [f"internal error ({'split' if split else 'module'}): {error!r}"]
        if not result.ok:
            errors = [d for d in result.diagnostics if d.severity >= Severity.ERROR]
            COMPILED["refused"] += not split
            if errors and not split:
                COMPILED.setdefault("first refusal", errors[0].message)
            return [] if errors else ["not ok without an error"]
        COMPILED["loop graphs"] += not split
        problems += _index_problems(indices, result)
    if run and not problems:
        problems += _run_problems(path)
    return problems


def _index_problems(indices, result) -> list[str]:  # type: ignore[no-untyped-def]
    from spirv_util import words_of

    from wgc.spirv import tools

    nodes: set[tuple[str, int]] = set()
    outputs = []
    for key, data in result.outputs.items():
        if key.startswith("spirv"):
            found, declared = indices._parse(tools.disassemble(words_of(data), header=False))
            nodes |= found
            outputs += declared
    for node in json.loads(result.outputs["reflection"])["nodes"]:
        nodes |= {(node["entry_point"], stage["index"]) for stage in node["stages"]}
    names = {n for n, _ in nodes}
    problems = []
    for target, base, size, sparse, array in outputs:
        if sparse or target not in names:
            continue
        if size is None:
            problems.append(f"{array}: neither sparse nor sized")
            continue
        missing = [base + i for i in range(size) if (target, base + i) not in nodes]
        if missing:
            problems.append(f"{array} names ({target}, {missing[:4]}) without PayloadNodeSparseArrayAMDX")
    return problems


def _run_problems(path: Path) -> list[str]:
    import wgc

    dispatch = {"inputs": [{"entry": "Start", "records": [{"v": v} for v in range(3)]}],
                "resources": {"u0": {"bytes": 64 * 4}}}
    buffers = []
    for lowering in ("native", "index-space"):
        result = wgc.run(driver.Options(input=str(path), proposals=LOOPS, loop_lowering=lowering), dispatch)
        if not result.ok:
            return [f"wgc run ({lowering}) failed: {[d.message for d in result.diagnostics][:2]}"]
        buffers.append(result.resources["u0"]["uint32"])
    problems = []
    if buffers[0] != buffers[1]:
        problems.append(f"native and index-space runs differ: {buffers[0][:16]} vs {buffers[1][:16]}")
    if any(value >= 4096 for value in buffers[1]):
        problems.append("GetRemainingRecursionLevels() was not 0 in a loop node")
    return problems


# ---------------------------------------------------------------- mesh -> pixel interfaces

TYPES = ["float", "float2", "float3", "float4", "uint", "uint2", "int", "int3", "bool", "bool2", "bool3"]
FLOAT_MODIFIERS = ["", "nointerpolation", "noperspective", "centroid", "sample", "linear", "noperspective centroid"]


def _value(type_: str, index: str) -> str:
    if type_.startswith("bool"):
        return f"({type_})(({index} & 1) != 0)"
    return f"({type_})({index} + 1)"


def _use(type_: str, name: str) -> str:
    if type_.startswith("bool"):
        return f"(any({name}) ? 1.0 : 0.0)"
    return f"(float)dot({name}, {name})" if type_[-1].isdigit() else f"(float){name}"


def interface(rng: random.Random) -> str:
    fields = []
    for i in range(rng.randint(1, 7)):
        type_ = rng.choice(TYPES)
        modifier = rng.choice(FLOAT_MODIFIERS) if type_.startswith("float") else rng.choice(["", "nointerpolation"])
        semantic = rng.choice(["ATTR", "Attr", "attr"]) + str(i) + ("" if i else rng.choice(["", "0"]))
        fields.append((type_, modifier, f"f{i}", semantic, rng.random() < 0.4))
    vertex = [f for f in fields if not f[4]]
    primitive = [f for f in fields if f[4]]
    lines = ["struct V { float4 pos : SV_Position; "
             + " ".join(f"{m} {t} {n} : {s};" for t, m, n, s, _ in vertex) + " };",
             "struct P { " + " ".join(f"{m} {t} {n} : {s};" for t, m, n, s, _ in primitive)
             + (" bool cull : SV_CullPrimitive;" if not primitive or rng.random() < 0.3 else "") + " };",
             '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
             "void Draw(uint i : SV_GroupIndex, out vertices V verts[3], out primitives P prims[1], "
             "out indices uint3 tris[1])", "{", "    SetMeshOutputCounts(3, 1);",
             "    verts[i].pos = float4(i, 0, 0, 1);"]
    lines += [f"    verts[i].{n} = {_value(t, 'i')};" for t, _, n, _, _ in vertex]
    lines += ["    if (i == 0) {", "        tris[0] = uint3(0, 1, 2);"]
    lines += [f"        prims[0].{n} = {_value(t, 'i')};" for t, _, n, _, _ in primitive]
    if "SV_CullPrimitive" in lines[1]:
        lines.append("        prims[0].cull = false;")
    lines += ["    }", "}"]
    rng.shuffle(fields)                        # the pixel side declares them in another order
    pixel_fields = [(t, m, n, s.upper() if rng.random() < 0.5 else s) for t, m, n, s, _ in fields]
    lines.append("struct PSIn { float4 pos : SV_Position; "
                 + " ".join(f"{m} {t} {n} : {s};" for t, m, n, s in pixel_fields) + " };")
    total = " + ".join(_use(t, f"input.{n}") for t, _, n, _ in pixel_fields)
    lines += ['[Shader("pixel")]', f"float4 Shade(PSIn input) : SV_Target0 {{ return float4({total}, 0, 0, 1); }}"]
    return "\n".join(lines) + "\n"


def _by_semantic(asm: str, prefix: str) -> dict[str, set[str]]:
    names = {m[1]: m[2] for m in re.finditer(r'^\s*OpName %(\S+) "([^"]*)"', asm, re.M)}
    found: dict[str, set[str]] = {}
    for m in re.finditer(r"^\s*OpDecorate %(\S+) (\w+)", asm, re.M):
        name = names.get(m[1], m[1])
        if name.startswith(prefix) and "SV_" not in name:
            found.setdefault(name[len(prefix):].lower().rstrip("0") or "0", set()).add(m[2])
    return {k: v - {"Location"} for k, v in found.items()}


def check_interface(source: str, work: Path) -> list[str]:
    from wgc.spirv import tools

    path = work / "interface.hlsl"
    path.write_text(source)
    problems = []
    for entry in (None, "Shade"):
        try:
            result = driver.compile(driver.Options(input=str(path), emit="spirv", entry=entry))
        except Exception as error:  # noqa: BLE001
            return [f"internal error ({entry or 'library'}): {error!r}"]
        if not result.ok:
            return [f"does not compile ({entry or 'library'}): "
                    f"{[d.message for d in result.diagnostics if d.severity >= Severity.ERROR][:2]}"]
        from spirv_util import words_of

        asm = tools.disassemble(words_of(result.outputs["spirv"]), header=False)
        if re.search(r"OpVariable %_ptr_(Input|Output)\S*bool\S* (Input|Output)$", asm, re.M) and \
                not all("gl_" in line for line in re.findall(r"^.*OpVariable %_ptr_\S*bool.*$", asm, re.M)):
            problems.append(f"a bool Input/Output variable that is no built-in ({entry or 'library'})")
        inputs = _by_semantic(asm, "in_var_")
        if entry is None:
            outputs = _by_semantic(asm, "out_var_")
            for semantic, decorations in inputs.items():
                if outputs.get(semantic) != decorations:
                    problems.append(f"{semantic}: mesh output {sorted(outputs.get(semantic, set()))} "
                                    f"vs pixel input {sorted(decorations)}")
            library_inputs = inputs
        elif inputs != library_inputs:
            problems.append("the pixel shader alone decorates its inputs otherwise than in the library")
    return problems


# ---------------------------------------------------------------- driver


def stress(count: int, seed: int, run: bool = False, log=print) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    """Check `count` loop graphs and `count` interfaces; (inputs checked, failures)."""
    rng = random.Random(seed)
    failures: list[str] = []
    inputs = 0
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for i in range(count):
            graph = loop_graph(rng)
            for problem in check_loop_graph(graph, work, run):
                failures.append(f"loop graph {i} (seed {seed}): {problem}\n{graph.source}")
            source = interface(rng)
            for problem in check_interface(source, work):
                failures.append(f"interface {i} (seed {seed}): {problem}\n{source}")
            inputs += 2
    return inputs, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--run", action="store_true", help="also run each loop graph natively and in index space")
    args = parser.parse_args()
    inputs, failures = stress(args.count, args.seed, args.run)
    for failure in failures:
        print(failure)
    print(f"{inputs} inputs ({COMPILED}), {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
