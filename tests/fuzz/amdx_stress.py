"""Stress the AMDX path (issue 25): random work graphs run on every path against a Python model,
and damaged AMDX modules fed to the translation.

Random graphs (`random_graph`): a DAG of 2-6 nodes below an entry, each of a random launch
(thread, coalescing with a random [MaxRecords] and group, broadcasting with a fixed grid or, below
the entry, a grid its producer writes into an SV_DispatchGrid field of any type DXC allows: uint,
uint2, uint3, uint16_t, uint16_t2, uint16_t3, under [NodeMaxDispatchGrid]), a random
record (uint, uint16_t, uint64_t, vectors, float matrices row- and column-major, uint matrices
row-major, arrays of any of them: every scalar of every field is written by the producer and read
back), single outputs, an output array to the node array "F" (1-4 members, sparse when some are
missing: IsValid() decides), thread nodes that feed themselves ([NodeMaxRecursionDepth],
GetRemainingRecursionLevels(); or, under -fwork-graph-loops, loop entries with
[NodeMaxLoopIterations], GetCurrentLoopIterationIndex(), feeding back also at the last iteration,
where the record is dropped), empty outputs (counted with IncrementOutputCount into an
EmptyNodeInput node), thread- and group-scope allocation, up to two leaf nodes of a random launch
sharing the input of a non-recursive node, the entry included ([NodeShareInputOf]: they see every
record it sees); every node adds what it saw to `Out` and sends a record to a random subset of its
children. A small Python model (`model`) computes `Out` from the same choices. Every path must
agree with it: the emulated target (with loops: natively and in index space), and the AMDX module
translated (as one module and one module per node).
Damaged modules (`damaged`): the AMDX modules of the samples with random words changed, dropped or
appended; `wgc.runtime.amdx.amdx_program` must answer with a WG0820 diagnostic or a module that
passes spirv-val, never raise.

Run longer than the suite does: `python tests/fuzz/amdx_stress.py --graphs 200 --damaged 2000 [--seed S]`;
it prints one line per graph as it finishes (its nodes, launches, loop, "ok" or the paths that
failed, seconds), one per hundred damaged modules, every failure, and a summary (graphs, damaged
modules refused and translated, failures, time); exit 1 when any input failed, else 0.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import re
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OUT_WORDS = 128
FAMILY_SLOT = 64
SHARER_SLOT = 48
"""Out[48 + 8 j ..]: the node S<j> that shares the input of another ([NodeShareInputOf])."""
"""Out[64 + 8 i ..]: member i of the node array "F"; Out[127]: the empty input's count."""
FIELD_TYPES = ["uint", "uint16_t", "uint64_t", "uint2", "uint16_t3", "float2", "float2x2", "row_major float2x3",
               "column_major float3x2", "row_major uint2x2", "row_major uint16_t2x3", "column_major float3x3"]
"""Record field types besides f0 (scalars, vectors, matrices of either majorness; wgc refuses column-major
non-float matrices, WG diagnostic); any may be an array."""
GRID_TYPES = ["uint", "uint2", "uint3", "uint16_t", "uint16_t2", "uint16_t3"]
"""SV_DispatchGrid types DXC allows (16-bit ones with -enable-16bit-types)."""
MASK = {"uint": 0xFFFFFFFF, "uint16_t": 0xFFFF, "uint64_t": 0xFFFFFFFFFFFFFFFF, "float": 0xFFFFFFFF}


def _base(type_: str) -> str:
    return re.match(r"(?:\w+_major )?(uint16_t|uint64_t|uint|float)", type_).group(1)


def _size(record: list[tuple[str, int]]) -> int:
    """An upper estimate of a record's bytes (8 bytes of padding per field)."""
    return sum(8 + len(_components(t, n)) * (8 if _base(t) == "uint64_t" else 4) for t, n in record)


def _components(type_: str, length: int) -> list[str]:
    """The suffixes that name each scalar of a field of `type_` (and array `length`, 0: none)."""
    name = type_.split()[-1][len(_base(type_)):]
    if not name:
        inner = [""]
    elif "x" in name:
        rows, cols = map(int, name.split("x"))
        inner = [f"[{r}][{c}]" for r in range(rows) for c in range(cols)]
    else:
        inner = ["." + "xyzw"[c] for c in range(int(name))]
    return [f"[{e}]{i}" for e in range(length) for i in inner] if length else inner


@dataclass
class Node:
    name: str
    launch: str
    record: list[tuple[str, int]]           # (type, array length or 0)
    children: list[tuple[str, str]] = field(default_factory=list)   # (kind, target): single / array / empty
    slot: int = 0
    max_records: int = 1                    # coalescing
    threads: int = 1
    grid: int = 1                           # broadcasting
    grid_type: str = ""                     # broadcasting: the SV_DispatchGrid field's type ([NodeMaxDispatchGrid])
    grid_last: bool = False                 # the SV_DispatchGrid field after the others (else after f0)
    group_scope: bool = False
    recursion: int = 0                      # [NodeMaxRecursionDepth]: the node also feeds itself
    loop: bool = False                      # instead [NodeMaxLoopIterations(recursion + 1)] (a loop entry)
    family_index: int | None = None         # a member of the node array "F" (thread launch, record RF)
    family_size: int = 0                    # producers: NodeArraySize of their output to "F"
    family_present: tuple[int, ...] = ()    # the indices of "F" that exist (sparse when not all)
    shares: str = ""                        # [NodeShareInputOf]: the node whose input (and record) it shares


def random_graph(rng: random.Random) -> list[Node]:
    count = rng.randint(2, 6)
    nodes: list[Node] = []
    for i in range(count):
        launch = "broadcasting" if i == 0 else rng.choice(["thread", "coalescing", "broadcasting"])
        record = [(rng.choice(FIELD_TYPES), rng.choice([0, 0, 2])) for _ in range(rng.randint(1, 3))]
        record[0] = ("uint", 0)             # the value every node passes on
        while len(record) > 1 and _size(record) > 48:    # two outputs of a thread node within 128 bytes
            record.pop()
        node = Node(f"N{i}", launch, record, slot=i * 8 % (OUT_WORDS - 8))
        if launch == "coalescing":
            node.max_records = rng.choice([1, 2, 4, 8])
            node.threads = node.max_records * rng.choice([1, 2])     # a thread for every record
        elif launch == "broadcasting":
            node.threads, node.grid = rng.choice([1, 2, 4]), rng.choice([1, 2, 3])
            if i > 0 and rng.random() < 0.5:
                node.grid_type = rng.choice(GRID_TYPES)
                node.grid_last = rng.random() < 0.5
        node.group_scope = launch != "thread" and rng.random() < 0.5
        if launch == "thread" and i > 0 and rng.random() < 0.4:
            node.recursion = rng.randint(1, 3)
            node.loop = rng.random() < 0.5
        nodes.append(node)
    size = rng.randint(1, 4)
    present = tuple(k for k in range(size) if rng.random() < 0.7) or (size - 1,)
    for i, node in enumerate(nodes):
        for j in range(i + 1, count):
            limit = 1 if node.recursion else 2
            if rng.random() < 0.5 and (node.launch != "thread" or len(node.children) < limit):
                node.children.append(("single", nodes[j].name))
        if rng.random() < 0.4:
            node.children.append(("empty", "Empty"))
        if rng.random() < 0.3 and (node.launch != "thread" or len(node.children) < 2):
            node.children.append(("array", "F"))
            node.family_size, node.family_present = size, present
        if i == 0 and not node.children:
            node.children.append(("single", nodes[1].name))
    if any(kind == "array" for n in nodes for kind, _ in n.children):
        for k in present:
            nodes.append(Node(f"F_{k}", "thread", [("uint", 0)], slot=FAMILY_SLOT + 8 * k, family_index=k))
    sources = [n for n in nodes[:count] if not n.recursion]
    for j in range(rng.choice([0, 0, 1, 2])):
        source = rng.choice(sources)
        launches = ["broadcasting"] if source.grid_type else ["thread", "coalescing", "broadcasting"]
        node = Node(f"S{j}", rng.choice(launches), source.record, slot=SHARER_SLOT + 8 * j, shares=source.name,
                    grid_type=source.grid_type, grid_last=source.grid_last)
        if node.launch == "coalescing":
            node.max_records = rng.choice([1, 2, 4, 8])
            node.threads = node.max_records * rng.choice([1, 2])
        elif node.launch == "broadcasting":
            node.threads, node.grid = rng.choice([1, 2, 4]), rng.choice([1, 2, 3])
        nodes.append(node)
    return nodes


def _struct(node: Node) -> str:
    fields = []
    for k, (type_, length) in enumerate(node.record):
        fields.append(f"    {type_} f{k}{f'[{length}]' if length else ''};")
    if node.grid_type:
        fields.insert(len(fields) if node.grid_last else 1, f"    {node.grid_type} grid : SV_DispatchGrid;")
    return f"struct R{node.name} {{\n" + "\n".join(fields) + "\n};"


def _field_writes(target: Node, index: int) -> list[str]:
    """What a producer writes into the fields of `target`'s record other than f0 (from its own v)."""
    writes = []
    for k, (type_, length) in enumerate(target.record[1:], 1):
        parts = _components(type_, length)
        if len(parts) > 1:
            writes += [f"o.Get().f{k}{part} = ({_base(type_)})(v * {c + 2});" for c, part in enumerate(parts)]
        else:
            writes.append(f"o.Get().f{k} = ({type_})(v + {k});")
    if target.grid_type:
        dims = _grid_dims(target.grid_type)
        writes += [f"o.Get().grid{'.' + 'xyz'[d] if dims > 1 else ''} = ({_base(target.grid_type)})"
                   f"((v + {index + 1}) {GRID_RULE[d]});" for d in range(dims)]
    return writes


GRID_RULE = ["% 3 + 1", "% 2 + 1", "/ 2 % 2 + 1"]
"""Dimension d of a dynamic grid is record.f0 GRID_RULE[d] (at most 3 x 2 x 2 groups)."""


def _grid_dims(type_: str) -> int:
    return int(type_[-1]) if type_[-1].isdigit() else 1


def _groups(node: Node, w: int) -> list[tuple[int, int, int]]:
    """The group IDs a broadcasting `node` runs for a record with f0 == w."""
    if node.launch != "broadcasting":
        return [(0, 0, 0)]
    if not node.grid_type:
        return [(x, 0, 0) for x in range(node.grid)]
    dims = _grid_dims(node.grid_type)
    size = [w % 3 + 1, w % 2 + 1 if dims > 1 else 1, w // 2 % 2 + 1 if dims > 2 else 1]
    return [(x, y, z) for x in range(size[0]) for y in range(size[1]) for z in range(size[2])]


def hlsl(nodes: list[Node]) -> str:
    parts = ["RWStructuredBuffer<uint> Out : register(u0);"]
    by_name = {n.name: n for n in nodes}
    for node in nodes:
        if node.family_index is None and not node.shares:
            parts.append(_struct(node))
    if any(n.family_index is not None for n in nodes):
        parts.append("struct RF {\n    uint f0;\n};")
    for index, node in enumerate(nodes):
        if node.family_index is not None:
            k = node.family_index
            parts.append(f'[Shader("node")] [NodeLaunch("thread")] [NodeID("F", {k})]\n'
                         f"void {node.name}(ThreadNodeInputRecord<RF> r)\n{{\n"
                         f"    InterlockedAdd(Out[{node.slot} + (r.Get().f0 & 7)], r.Get().f0 + 1 + {k * 7});\n}}")
            continue
        attributes = ['[Shader("node")]', f'[NodeLaunch("{node.launch}")]']
        if index == 0:
            attributes.append("[NodeIsProgramEntry]")
        if node.shares:
            attributes.append(f'[NodeShareInputOf("{node.shares}")]')
        if node.loop:
            attributes.append(f"[NodeMaxLoopIterations({node.recursion + 1})] [NodeMaxRecordsPerLoopIteration(1)]")
        elif node.recursion:
            attributes.append(f"[NodeMaxRecursionDepth({node.recursion})]")
        if node.launch == "broadcasting":
            if node.grid_type:
                dims = _grid_dims(node.grid_type)
                attributes.append(f"[NodeMaxDispatchGrid(3, {2 if dims > 1 else 1}, {2 if dims > 2 else 1})]")
            else:
                attributes.append(f"[NodeDispatchGrid({node.grid}, 1, 1)]")
        if node.launch != "thread":
            attributes.append(f"[NumThreads({node.threads}, 1, 1)]")
        rec = f"R{node.shares or node.name}"
        if node.launch == "thread":
            params = [f"ThreadNodeInputRecord<{rec}> r"]
        elif node.launch == "broadcasting":
            params = [f"DispatchNodeInputRecord<{rec}> r"]
        else:
            params = [f"[MaxRecords({node.max_records})] GroupNodeInputRecords<{rec}> r"]
        if node.recursion:
            params.append(f"[MaxRecords(1)] NodeOutput<{rec}> {node.name}")
        for kind, target in node.children:
            if kind == "array":
                sparse = " [AllowSparseNodes]" if len(node.family_present) < node.family_size else ""
                params.append(f"[MaxRecords({node.max_records})] [NodeArraySize({node.family_size})]{sparse} "
                              f"[NodeID(\"F\")] NodeOutputArray<RF> o_F")
                continue
            if kind == "empty":
                params.append(f"[MaxRecords({node.max_records})] EmptyNodeOutput {target}")
            else:
                params.append(f"[MaxRecords({node.max_records})] [NodeID(\"{target}\")] "
                              f"NodeOutput<R{target}> o_{target}")
        if node.launch != "thread":
            params.append("uint gi : SV_GroupIndex")
        if node.launch == "broadcasting":
            params.append("uint3 gid : SV_GroupID")
        body = []
        if node.launch == "coalescing":
            body.append("    uint n = r.Count();")
            body.append("    uint v = gi < n ? r[gi].f0 : 0;")
            body.append("    bool active = gi < n;")
        else:
            body.append("    uint v = r.Get().f0;")
            body.append("    bool active = true;" if node.launch == "thread" else "    bool active = gi == 0;")
        extra = []
        for k, (_type, length) in enumerate(node.record[1:], 1):
            access = f"r{'[gi < n ? gi : 0]' if node.launch == 'coalescing' else '.Get()'}.f{k}"
            extra += [f"(uint)({access}{part})" for part in _components(_type, length)]
        mix = " + ".join(["v"] + extra)
        gid = " + gid.x * 1000 + gid.y * 100 + gid.z * 10" if node.launch == "broadcasting" else ""
        body.append(f"    if (active) InterlockedAdd(Out[{node.slot} + (v & 7)], ({mix}){gid} + 1);")
        if node.recursion:
            writes = ["o.Get().f0 = v + 1;"] + _field_writes(node, index)
            body.append("    uint rem = GetCurrentLoopIterationIndex();" if node.loop
                        else "    uint rem = GetRemainingRecursionLevels();")
            body.append(f"    InterlockedAdd(Out[{node.slot} + (v & 7)], rem * 16 + 1);")
            body.append("    {")
            # a loop also feeds at its last iteration: the record is dropped
            more = "v % 3 != 0" if node.loop else "rem > 0 && v % 3 != 0"
            body.append(f"        bool more = {more};")
            body.append(f"        ThreadNodeOutputRecords<{rec}> o = "
                        f"{node.name}.GetThreadNodeOutputRecords(more ? 1 : 0);")
            body.append("        if (more) { " + " ".join(writes) + " }")
            body.append("        o.OutputComplete();")
            body.append("    }")
        for kind, target in node.children:
            child = by_name.get(target)
            if kind == "array":
                body.append("    {")
                body.append(f"        uint idx = v % {node.family_size};")
                body.append("        bool ok = active && o_F[idx].IsValid();")
                body.append("        ThreadNodeOutputRecords<RF> o = o_F[idx].GetThreadNodeOutputRecords(ok ? 1 : 0);")
                body.append(f"        if (ok) {{ o.Get().f0 = v + {index + 1}; }}")
                body.append("        o.OutputComplete();")
                body.append("    }")
                continue
            if kind == "empty":
                if node.launch == "broadcasting":
                    body.append(f"    {target}.GroupIncrementOutputCount(1);")
                else:
                    body.append(f"    {target}.ThreadIncrementOutputCount(active ? 1 : 0);")
                continue
            assert child is not None
            writes = [f"o.Get().f0 = v + {index + 1};"] + _field_writes(child, index)
            body.append("    {")
            if node.group_scope:
                count, at = ("n", "gi") if node.launch == "coalescing" else ("1", "0")
                body.append(f"        GroupNodeOutputRecords<R{target}> o = "
                            f"o_{target}.GetGroupNodeOutputRecords({count});")
                body.append("        if (active) {")
                body.append("            " + " ".join(writes).replace("o.Get()", f"o[{at}]"))
                body.append("        }")
            else:
                body.append(f"        ThreadNodeOutputRecords<R{target}> o = "
                            f"o_{target}.GetThreadNodeOutputRecords(active ? 1 : 0);")
                body.append("        if (active) { " + " ".join(writes) + " }")
            body.append("        o.OutputComplete();")
            body.append("    }")
        parts.append(" ".join(attributes) + f"\nvoid {node.name}({', '.join(params)})\n{{\n" + "\n".join(body) + "\n}")
    if any(kind == "empty" for n in nodes for kind, _ in n.children):
        parts.append('[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)]\n'
                     'void Empty([MaxRecords(4)] EmptyNodeInput e)\n{\n'
                     f'    InterlockedAdd(Out[{OUT_WORDS - 1}], e.Count());\n}}')
    return "\n\n".join(parts) + "\n"


def model(nodes: list[Node], entry_values: list[int]) -> list[int]:
    """`Out` after the graph ran on `entry_values` (records of the entry node), from the choices.
    A coalescing group's threads past its records add nothing; a broadcasting node's thread 0 adds
    once per group; fields other than f0 hold what the producer wrote from its own v (v + k, or
    v * (e + 2) in the last array element); the entry's other fields are 0."""
    out = [0] * OUT_WORDS
    by_name = {n.name: n for n in nodes}
    pending: dict[str, list[dict]] = {n.name: [] for n in nodes}
    pending[nodes[0].name] = [{"v": v, "from": None, "pv": 0, "rem": 0} for v in entry_values]
    for index, node in enumerate(nodes):
        if node.family_index is not None:
            for rec in pending[node.name]:
                at = node.slot + (rec["v"] & 7)
                out[at] = (out[at] + rec["v"] + 1 + node.family_index * 7) & 0xFFFFFFFF
            continue
        work = list(pending[node.shares or node.name])
        while work:
            rec = work.pop(0)
            v = rec["v"]
            extra = 0
            for k, (type_, length) in enumerate(node.record[1:], 1):
                parts = _components(type_, length)
                for c in range(len(parts)):
                    if rec["from"] is None:
                        value = 0
                    elif len(parts) > 1:
                        value = (rec["pv"] * (c + 2)) & MASK[_base(type_)]
                    else:
                        value = (rec["pv"] + k) & MASK[_base(type_)]
                    extra += value & 0xFFFFFFFF
            ids = _groups(node, v)
            groups = len(ids)
            for x, y, z in ids:
                out[node.slot + (v & 7)] = (out[node.slot + (v & 7)] + v + extra + x * 1000 + y * 100 + z * 10
                                            + 1) & 0xFFFFFFFF
            if node.recursion:
                rem = rec["rem"]
                out[node.slot + (v & 7)] = (out[node.slot + (v & 7)] + rem * 16 + 1) & 0xFFFFFFFF
                if node.loop and rem < node.recursion and v % 3 != 0:
                    work.append({"v": v + 1, "from": node.name, "pv": v, "rem": rem + 1})
                elif not node.loop and rem > 0 and v % 3 != 0:
                    work.append({"v": v + 1, "from": node.name, "pv": v, "rem": rem - 1})
            for kind, target in node.children:
                if kind == "empty":
                    out[OUT_WORDS - 1] += groups
                    continue
                if kind == "array":
                    if v % node.family_size in node.family_present:
                        for _ in range(groups):
                            pending[f"F_{v % node.family_size}"].append({"v": v + index + 1})
                    continue
                for _ in range(groups):
                    pending[target].append({"v": v + index + 1, "from": node.name, "pv": v,
                                            "rem": 0 if by_name[target].loop else by_name[target].recursion})
    return out


def check_graph(nodes: list[Node], work: Path) -> list[str]:
    import wgc
    from wgc import driver

    path = work / "graph.hlsl"
    path.write_text(hlsl(nodes))
    values = [3, 10, 17]
    entry = nodes[0]
    records = [{"f0": v} for v in values]
    dispatch = {"inputs": [{"entry": entry.name, "records": records}], "resources": {"u0": {"bytes": OUT_WORDS * 4}}}
    expected = model(nodes, values)
    problems = []
    loops = any(n.loop for n in nodes)
    common = {"input": str(path), "enable_16bit_types": True, "max_graph_depth": 1 << 20,
              "proposals": ("work-graph-loops",) if loops else ()}
    paths = [("emulated", {}, {}), ("amdx", {"path": "amdx"}, {}),
             ("amdx split", {"path": "amdx"}, {"split_nodes": True})]
    if loops:
        paths.append(("emulated index-space", {}, {"loop_lowering": "index-space"}))
    for label, kwargs, extra in paths:
        result = wgc.run(driver.Options(**common, **extra), dispatch, **kwargs)
        if not result.ok:
            problems.append(f"{label}: {[d.message for d in result.diagnostics][:2]}")
            continue
        got = result.resources["u0"]["uint32"]
        if got != expected:
            wrong = [i for i in range(OUT_WORDS) if got[i] != expected[i]]
            names = sorted({n.name for n in nodes for i in wrong if n.slot <= i < n.slot + 8})
            problems.append(f"{label}: Out differs from the model at {wrong[:8]} (nodes {names}): "
                            f"{[got[i] for i in wrong[:8]]} vs {[expected[i] for i in wrong[:8]]}")
    return problems


def damaged(rng: random.Random, modules: list[bytes]) -> tuple[bytes, str]:
    data = bytearray(rng.choice(modules))
    words = len(data) // 4
    how = rng.choice(["flip", "word", "drop", "append"])
    if how == "flip":
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    elif how == "word":
        at = 4 * rng.randrange(5, words)
        struct.pack_into("<I", data, at, rng.choice([0, 1, 0xFFFF, 0xFFFFFFFF, rng.getrandbits(32)]))
    elif how == "drop":
        at = 4 * rng.randrange(5, words)
        del data[at:at + 4 * rng.randint(1, 3)]
    else:
        data += struct.pack("<I", rng.getrandbits(32))
    return bytes(data), how


def amdx_modules() -> list[bytes]:
    from wgc import driver

    out = []
    for sample in sorted(glob.glob(str(ROOT / "samples" / "*.hlsl"))):
        if os.path.basename(sample).startswith("mesh_"):
            continue
        result = driver.compile(driver.Options(input=sample, proposals=("work-graph-loops",), max_graph_depth=1 << 20,
                                               include_dirs=(str(ROOT / "samples" / "include"),)))
        if result.ok:
            out.append(result.outputs["spirv"])
    return out


def _describe(nodes: list[Node]) -> str:
    launches = ", ".join(f"{sum(n.launch == k for n in nodes)} {k}" for k in ("broadcasting", "coalescing", "thread")
                         if any(n.launch == k for n in nodes))
    extra = "".join([", loop" if any(n.loop for n in nodes) else "",
                     ", recursion" if any(n.recursion and not n.loop for n in nodes) else "",
                     ", node array" if any(n.family_index is not None for n in nodes) else "",
                     ", shared input" if any(n.shares for n in nodes) else ""])
    return f"{len(nodes)} nodes ({launches}{extra})"


def stress(graphs: int, damaged_count: int, seed: int,
           progress: Callable[[str], None] | None = None) -> tuple[int, list[str]]:
    """(inputs, failures) of `graphs` random graphs and `damaged_count` damaged modules; `progress`
    is called with a line per graph and per hundred damaged modules as they finish."""
    from wgc.runtime.amdx import amdx_program

    rng = random.Random(seed)
    failures: list[str] = []
    inputs = 0
    with tempfile.TemporaryDirectory() as folder:
        for i in range(graphs):
            nodes = random_graph(rng)
            started = time.perf_counter()
            problems = check_graph(nodes, Path(folder))
            for problem in problems:
                failures.append(f"graph {i} (seed {seed}): {problem}\n{hlsl(nodes)}")
            inputs += 1
            if progress is not None:
                verdict = "ok" if not problems else "FAILED: " + "; ".join(p.split(":")[0] for p in problems)
                progress(f"graph {i + 1}/{graphs}: {_describe(nodes)}: {verdict} "
                         f"({time.perf_counter() - started:.1f} s)")
    modules = amdx_modules() if damaged_count else []
    refused = wrong = 0
    for i in range(damaged_count):
        if progress is not None and i and i % 100 == 0:      # i modules done
            progress(f"damaged modules {i}/{damaged_count}: {refused} refused, {i - refused - wrong} "
                     f"translated, {wrong} failures")
        data, how = damaged(rng, modules)
        inputs += 1
        try:
            diagnostics, module, _ = amdx_program([("damaged.spv", data)])
        except Exception as error:   # noqa: BLE001 - the point: nothing may escape
            failures.append(f"damaged module {i} (seed {seed}, {how}): {type(error).__name__}: {error}")
            wrong += 1
            continue
        if module is None and not any(d.code == "WG0820" for d in diagnostics):
            failures.append(f"damaged module {i} (seed {seed}, {how}): refused without WG0820: "
                            f"{[d.message for d in diagnostics]}")
            wrong += 1
        elif module is not None and diagnostics:
            failures.append(f"damaged module {i}: a module and diagnostics")
            wrong += 1
        elif module is None:
            refused += 1
    if progress is not None and damaged_count:
        progress(f"damaged modules: {refused} refused with WG0820, {damaged_count - refused - wrong} translated, "
                 f"{wrong} failures")
    return inputs, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=20)
    parser.add_argument("--damaged", type=int, default=500)
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    started = time.perf_counter()
    inputs, failures = stress(args.graphs, args.damaged, args.seed, progress=lambda line: print(line, flush=True))
    for failure in failures:
        print(failure)
    print(f"summary (seed {args.seed}): {args.graphs} graphs, {args.damaged} damaged modules, {inputs} inputs, "
          f"{len(failures)} failures, {time.perf_counter() - started:.0f} s", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
