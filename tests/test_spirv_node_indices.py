"""Every node index an AMDX output declaration may name is a node of the graph (SPIR-V back end):
for every sample, every loop program of the tests and every SPIR-V test program, in one module and
with --split-nodes, the (PayloadNodeNameAMDX, PayloadNodeBaseIndexAMDX + i) of each output that is
not PayloadNodeSparseArrayAMDX, for i below its PayloadNodeArraySizeAMDX, names an entry point of
the module(s) with that name at that index (its ShaderIndexAMDX, or one of the stages of a loop
member the reflection lists, which the application creates from the same entry point).

The nodes come from the modules themselves (OpEntryPoint names, ShaderIndexAMDX) and the
reflection's stage lists; the decorations are read back from the disassembly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import test_loop_stages as loops
from conftest import SAMPLES, sample_proposals
from spirv_util import words_of
from wgc import driver
from wgc.diagnostics import Renderer, Severity
from wgc.spirv import tools

PROGRAMS = Path(__file__).parent / "spirv_programs"

NESTED_INTO_THE_BODY = """\
struct R { uint v; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Start(ThreadNodeInputRecord<R> input, [MaxRecords(1)] NodeOutput<R> Outer) {
    ThreadNodeOutputRecords<R> o = Outer.GetThreadNodeOutputRecords(1);
    o.Get().v = input.Get().v;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
[NodeMaxLoopIterations(3)] [NodeMaxRecordsPerLoopIteration(1)]
void Outer(ThreadNodeInputRecord<R> input, [MaxRecords(1)] NodeOutput<R> Inner) {
    ThreadNodeOutputRecords<R> o = Inner.GetThreadNodeOutputRecords(1);
    o.Get().v = input.Get().v;
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
[NodeMaxLoopIterations(2)] [NodeMaxRecordsPerLoopIteration(1)]
void Inner(ThreadNodeInputRecord<R> input, [MaxRecords(1)] NodeOutput<R> Body) {
    ThreadNodeOutputRecords<R> o = Body.GetThreadNodeOutputRecords(1);
    o.Get().v = input.Get().v + GetCurrentLoopIterationIndex();
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Body(ThreadNodeInputRecord<R> input, [MaxRecords(1)] NodeOutput<R> Inner,
          [MaxRecords(1)] NodeOutput<R> Outer) {
    if (input.Get().v < 5) {
        ThreadNodeOutputRecords<R> o = Inner.GetThreadNodeOutputRecords(1);
        o.Get().v = input.Get().v + 1;
        o.OutputComplete();
    } else {
        ThreadNodeOutputRecords<R> o = Outer.GetThreadNodeOutputRecords(1);
        o.Get().v = 0;
        o.OutputComplete();
    }
}
"""
"""Two nested loops: outer entry -> inner entry -> body, the body back to both entries (the
outer loop's terminator slot is a hole in every inner stage span, and the inner terminator slot
is one in the body's)."""

LOOP_SOURCES = {
    "recursion_in_a_loop": loops.RECURSION_IN_A_LOOP,
    "inner_loop_left_to_the_outside": loops.INNER_LOOP_LEFT_TO_THE_OUTSIDE,
    "self_feeding": loops.SELF_FEEDING,
    "at_the_limit": loops.AT_THE_LIMIT,
    "spinning": loops.SPINNING,
    "array_of_loop_entries": loops.ARRAY_OF_LOOP_ENTRIES,
    "broadcasting_loop": loops.BROADCASTING_LOOP,
    "nested_into_the_body": NESTED_INTO_THE_BODY,
}


def _cases() -> list[tuple[str, Path | str]]:
    return ([(p.stem, p) for p in sorted(SAMPLES.glob("*.hlsl"))]
            + [(f"tests/{p.stem}", p) for p in sorted(PROGRAMS.glob("*.hlsl"))]
            + [(f"loops/{k}", v) for k, v in LOOP_SOURCES.items()])


def _parse(asm: str) -> tuple[set[tuple[str, int]], list[tuple[str, int, int | None, bool, str]]]:
    """(the module's (entry-point name, ShaderIndexAMDX) nodes, its outputs as (target name, base
    index, array size or None, sparse, the payload array's name))."""
    constants = {m[1]: int(m[2]) for m in re.finditer(r"^\s*(%\S+) = Op(?:Spec)?Constant %uint (\d+)$", asm, re.M)}
    strings = {m[1]: m[2] for m in re.finditer(r'^\s*(%\S+) = OpConstantStringAMDX "([^"]*)"', asm, re.M)}
    entries = {m[1]: m[2] for m in re.finditer(r'^\s*OpEntryPoint \w+ (%\S+) "([^"]*)"', asm, re.M)}
    nodes = {(entries[m[1]], constants[m[2]])
             for m in re.finditer(r"^\s*OpExecutionModeId (%\S+) ShaderIndexAMDX (%\S+)$", asm, re.M)}
    decorations: dict[str, dict[str, str]] = {}
    for m in re.finditer(r"^\s*OpDecorate(?:Id)? (%\S+) (PayloadNode\w+)(?: (%\S+))?$", asm, re.M):
        decorations.setdefault(m[1], {})[m[2]] = m[3]
    outputs = []
    for array, found in decorations.items():
        if "PayloadNodeNameAMDX" not in found:
            continue
        base = constants[found["PayloadNodeBaseIndexAMDX"]] if "PayloadNodeBaseIndexAMDX" in found else 0
        size = constants[found["PayloadNodeArraySizeAMDX"]] if "PayloadNodeArraySizeAMDX" in found else None
        outputs.append((strings[found["PayloadNodeNameAMDX"]], base, size,
                        "PayloadNodeSparseArrayAMDX" in found, array))
    return nodes, outputs


@pytest.mark.parametrize("split", [False, True], ids=["module", "split"])
@pytest.mark.parametrize(("name", "program"), _cases(), ids=[c[0] for c in _cases()])
def test_every_index_an_output_names_without_sparse_is_a_node(tmp_path, name, program, split):
    """SPV_AMDX_shader_enqueue, PayloadNodeSparseArrayAMDX: "Decorates an OpTypeNodePayloadArrayAMDX
    declaration to indicate that nodes at some node indexes may not exist in the execution graph
    pipeline and cannot be used to allocate payloads. If not specified, all node indexes between 0
    and the PayloadNodeArraySizeAMDX value must be valid nodes in the graph."
    """
    if isinstance(program, Path):
        path, proposals = program, sample_proposals(program) or (("work-graph-loops",) if "loop" in name else ())
    else:
        path, proposals = tmp_path / "loops.hlsl", ("work-graph-loops",)
        path.write_text(program)
    result = driver.compile(driver.Options(input=str(path), emit="spirv", reflection=True, proposals=proposals,
                                           enable_16bit_types=True, include_dirs=(str(SAMPLES / "include"),),
                                           split_nodes=split, max_graph_depth=100000))
    if not result.ok:
        errors = [d for d in result.diagnostics if d.severity >= Severity.ERROR]
        if name == "syntax_tour" and {d.code for d in errors} == {"WG0620"}:  # atomics on shared records: no SPIR-V
            pytest.skip("syntax_tour: WG0620 (docs/guide.md: not expressible in SPIR-V)")
        raise AssertionError(Renderer().render(errors))
    nodes: set[tuple[str, int]] = set()
    outputs = []
    for key, data in result.outputs.items():
        if key.startswith("spirv"):
            found, declared = _parse(tools.disassemble(words_of(data), header=False))
            nodes |= found
            outputs += declared
    for node in json.loads(result.outputs["reflection"])["nodes"]:
        nodes |= {(node["entry_point"], stage["index"]) for stage in node["stages"]}
    names = {n for n, _ in nodes}
    for target, base, size, sparse, array in outputs:
        if sparse or target not in names:       # a target in no module of this file: another library's
            continue
        assert size is not None, f"{array}: neither sparse nor sized"
        missing = [base + i for i in range(size) if (target, base + i) not in nodes]
        assert not missing, f"{array} names ({target}, {missing[:8]}) without PayloadNodeSparseArrayAMDX"


def test_random_loop_graphs_and_mesh_pixel_interfaces_keep_their_meaning():
    """The bounded form of tests/fuzz/meaning_stress.py (its docstring lists the invariants: node
    indices without PayloadNodeSparseArrayAMDX exist, no bool Input/Output, a pixel input decorated
    as the mesh output of its semantic, native and index-space runs agree with
    GetRemainingRecursionLevels() 0 in loops); the script runs it longer."""
    from fuzz import meaning_stress
    from wgc.runtime.device import DeviceFailure, VulkanUnavailable, list_devices

    inputs, failures = meaning_stress.stress(8, seed=24)
    assert inputs == 16 and not failures, failures[0]
    try:
        list_devices()
    except (VulkanUnavailable, DeviceFailure):
        return
    inputs, failures = meaning_stress.stress(2, seed=7, run=True)
    assert not failures, failures[0]
