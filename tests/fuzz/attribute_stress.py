"""Stress the work-graph attributes (issue 28, one table of node attributes): random node shaders
whose function, input, outputs, records and helpers carry random attributes of the table
(`wgc.sema.node_attributes`), and some that are unknown or misspelt, with random argument counts
and values (in range, at the bounds, beyond them, negative, bool, string, a specialization
constant, an expression), compiled under a random profile and proposals.

Checks, for every input:
- the compile either succeeds or reports diagnostics with exit status 1 semantics (never an
  internal error: no WG0000-style crash, no exception out of `driver.compile`);
- with `--against DIR` (an older wgc tree, e.g. `git archive <commit> wgc | tar -x -C DIR`), the
  rendered diagnostics and the JSON model are byte-identical to that tree's, except where the new
  tree reports WG0514 (a rule the old tree lacks) or the old one suggests 'outputtopology' (now
  spelt 'OutputTopology', as DXC spells it), and leaving out the new tree's WG0346 warnings.

Run: `python tests/fuzz/attribute_stress.py --count 2000 [--seed S] [--against /tmp/old]`; it prints the
number of inputs, how many compiled, and every failure (exit 1 when any).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent.parent

SPELLINGS = ("NodeLaunchh", "OutputTopolgy", "MaxRecord", "NodeArraySise", "numthread", "Whatever")
VALUES = ("0", "1", "2", "3", "-1", "32", "33", "64", "256", "257", "1024", "1025", "65535", "65536", "16777214",
          "16777215", "2147483647", "2147483648", "4294967295", "true", "false", '"node"', '"mesh"',
          '"broadcasting"', '"coalescing"', '"thread"', '"Draw"', "N", "N + 1", "Out", "1.5")


NEW_WARNINGS = ("WG0346",)
"""Warnings the old tree lacks (misplaced work-graph attributes): left out of the comparison, counted."""


def _attribute(rng: random.Random, names: list[str]) -> str:
    name = rng.choice(names) if rng.random() < 0.9 else rng.choice(SPELLINGS)
    if rng.random() < 0.3:
        name = name.lower() if rng.random() < 0.5 else name.upper()
    count = rng.choice((0, 1, 1, 1, 2, 3, 3, 4))
    args = ", ".join(rng.choice(VALUES[:4]) if rng.random() < 0.5 else rng.choice(VALUES) for _ in range(count))
    return f"[{name}({args})]" if count or rng.random() < 0.5 else f"[{name}]"


def source(rng: random.Random, names: list[str]) -> str:
    """A small library: a record, one to three node shaders (one of them maybe a mesh node of the
    array 'Draw'), a helper, with random attributes everywhere attributes may be written."""
    def some(low: int, high: int) -> str:   # none half of the time, so that some inputs compile
        return " ".join(_attribute(rng, names) for _ in range(rng.randint(low, high) if rng.random() < 0.5 else 0))

    lines = ["[[vk::constant_id(3)]] const uint N = 4;",
             f"struct {some(0, 1)} Item {{ uint3 grid : SV_DispatchGrid; uint v; }};",
             "struct V { float4 pos : SV_Position; };"]
    for i in range(rng.randint(1, 3)):
        launch = rng.choice(("broadcasting", "coalescing", "thread", "mesh", None))
        head = ['[Shader("node")]']
        if launch:
            head.append(f'[NodeLaunch("{launch}")]')
        if launch == "mesh":
            head += [f'[NodeID("Draw", {i})]', "[NodeDispatchGrid(4, 1, 1)]", "[NumThreads(64, 1, 1)]",
                     '[OutputTopology("triangle")]', some(0, 3)]
            if rng.random() < 0.6:
                per_entry = rng.choice(("16, true", "8, true", "16", "16, false"))
                head.append(f"[NodeMaxInputRecordsPerGraphEntryRecord({per_entry})]")
            params = "out vertices V verts[3], out indices uint3 tris[1]"
        else:
            grid = {"broadcasting": "[NodeDispatchGrid(2, 1, 1)] [NumThreads(8, 1, 1)]", "coalescing":
                    "[NumThreads(8, 1, 1)]", "thread": ""}.get(launch, "[NodeDispatchGrid(2, 1, 1)] [NumThreads(8, 1, 1)]")
            head += [grid, some(0, 4)]
            inputs = {"broadcasting": "DispatchNodeInputRecord<Item>", None: "RWDispatchNodeInputRecord<Item>",
                      "coalescing": "GroupNodeInputRecords<Item>", "thread": "ThreadNodeInputRecord<Item>"}
            params = ", ".join(p for p in (
                f"{some(0, 2)} {inputs[launch]} input" if rng.random() < 0.8 else "",
                f"{some(0, 3)} NodeOutput<Item> Out",
                f"[NodeArraySize(2)] {some(0, 4)} NodeOutputArray<Item> Arr" if rng.random() < 0.6 else "",
                f"{some(0, 2)} EmptyNodeOutput Empty" if rng.random() < 0.3 else "",
                f"{some(0, 1)} uint tid : SV_GroupThreadID" if rng.random() < 0.3 else "") if p)
        lines += [*head, f"void Node{i}({params})", "{", "}"]
    if rng.random() < 0.3:
        lines += [some(0, 2), f"void Helper({some(0, 2)} NodeOutput<Item> o, {some(0, 1)} uint x)", "{", "}"]
    if rng.random() < 0.3:
        lines += ['[Shader("compute")]', "[NumThreads(1, 1, 1)]", some(0, 2), "void Main()", "{", "}"]
    return "\n".join(lines) + "\n"


def compile_one(text: str, profile: str, proposals: tuple[str, ...]) -> dict[str, str]:
    """Rendered diagnostics and the JSON model (or what went wrong) of one compile in this process."""
    from wgc import driver
    from wgc.diagnostics import Renderer

    try:
        result = driver.compile(driver.Options(input="-", emit="json", profile=profile, proposals=proposals),
                                stdin=text.encode())
    except Exception as error:      # noqa: BLE001 - the failure this script looks for
        return {"crash": f"{type(error).__name__}: {error}"}
    kept = [d for d in result.diagnostics if d.code not in NEW_WARNINGS]
    return {"diagnostics": Renderer().render(kept), "json": result.outputs.get("json", b"").decode(),
            "new_warnings": len(result.diagnostics) - len(kept)}


def cases(count: int, seed: int) -> list[tuple[str, str, tuple[str, ...]]]:
    sys.path.insert(0, str(TREE))
    from wgc.driver import PROPOSALS
    from wgc.sema.node_attributes import TABLE

    names = [row.name for row in TABLE]
    rng = random.Random(seed)
    return [(source(rng, names), rng.choice(("lib_6_8", "lib_6_9")), rng.choice(((), PROPOSALS)))
            for _ in range(count)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--against", type=Path, help="an older tree holding wgc/ to compare with")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)   # compile the cases with this tree
    options = parser.parse_args()
    if options.worker is not None:   # the other tree's side: read cases from stdin, write results
        sys.path.insert(0, str(options.worker))
        todo = json.load(sys.stdin)
        json.dump([compile_one(text, profile, tuple(proposals)) for text, profile, proposals in todo], sys.stdout)
        return 0
    todo = cases(options.count, options.seed)
    new = [compile_one(*case) for case in todo]
    old = None
    if options.against is not None:
        run = subprocess.run([sys.executable, __file__, "--worker", str(options.against)], cwd="/",
                             input=json.dumps(todo), capture_output=True, text=True, check=True)
        old = json.loads(run.stdout)
    failures, compiled, new_rule, respelt = [], 0, 0, 0
    misplaced = sum(bool(result.get("new_warnings")) for result in new)
    for i, ((text, profile, proposals), result) in enumerate(zip(todo, new)):
        if "crash" in result:
            failures.append(f"input {i} ({profile} {proposals}): {result['crash']}\n{text}")
            continue
        compiled += bool(result["json"])
        if old is None:
            continue
        before = old[i]
        if "crash" in before:
            continue
        if "[WG0514]" in result["diagnostics"]:
            new_rule += 1
            continue
        if "did you mean 'outputtopology'?" in before["diagnostics"]:
            respelt += 1
            before = {**before, "diagnostics": before["diagnostics"].replace(
                "did you mean 'outputtopology'?", "did you mean 'OutputTopology'?")}
        if before["diagnostics"] != result["diagnostics"] or before["json"] != result["json"]:
            failures.append(f"input {i} ({profile} {proposals}) differs from {options.against}:\n{text}\n"
                            f"--- before\n{before['diagnostics']}\n--- after\n{result['diagnostics']}")
    print(f"{len(todo)} inputs, {compiled} compiled, {len(todo) - compiled - len(failures)} refused with "
          f"diagnostics" + (f"; compared with {options.against}: {new_rule} with WG0514 (new rule), "
                            f"{respelt} with the OutputTopology suggestion" if old is not None else "")
          + f"; {misplaced} with WG0346 (left out of the comparison)")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
