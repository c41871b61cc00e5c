"""Golden SPIR-V: every sample without a loop compiles to a module that validates, and its
disassembly matches tests/out/spv/<sample>.spvasm; each golden is assembled and validated again.

A difference fails the test; `pytest --update-goldens` rewrites the files so the change can be
reviewed in the commit. Samples whose graph has a loop compile with their loops unrolled in index
space (`wgc.sema.stages`) given the device depth their unrolling needs (--max-graph-depth; without
it they are WG0513). Atomics on a shared input record, which spirv-val forbids on NodePayloadAMDX
memory, must fail with WG0620.
"""

from __future__ import annotations

import pytest

from conftest import ROOT, SAMPLE_INCLUDE, SAMPLES, sample_proposals
from spirv_util import check_golden, words_of
from wgc import driver
from wgc.diagnostics import Renderer, Severity
from wgc.spirv import tools

GOLDEN_DIR = ROOT / "tests" / "out" / "spv"
LOOP_DEPTHS = {
    # stages of the longest unrolled chain: the chain into the loop, N iterations x the loop's length,
    # then the node after the loop or the terminator stage a last-iteration feedback reaches
    "seed_loops_simple": 16 * 2 + 1,              # Entry, Body x 16 iterations, MyOtherNode
    "seed_loops_inner": 32 * 3 + 1,               # Entry, Body, Terminal x 32, the terminator
    "seed_loops_nested": 8 * (1 + 8 * 2) + 1,     # 8 outer iterations of Outer + 8 x (Inner, Terminal)
    "loop_particles": 1 + 16 * 2 + 1,             # EmitParticles, (IntegrateStep, Resolve) x 16, Write
}
LOOP_SAMPLES = set(LOOP_DEPTHS)
NOT_EXPRESSIBLE: set[str] = set()
NODE_ARRAY_SAMPLES = {"material_dispatch", "seed_max_records_per_node", "mesh_materials"}
"""Samples with several members of one node array: WG0604 (they keep function names as entry points)."""
SAMPLE_PATHS = sorted(p for p in SAMPLES.glob("*.hlsl") if p.stem not in NOT_EXPRESSIBLE)


def _compile(path, **options):  # type: ignore[no-untyped-def]
    options.setdefault("max_graph_depth", LOOP_DEPTHS.get(path.stem))
    return driver.compile(driver.Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                         proposals=sample_proposals(path), **options))


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_sample_spirv_validates_and_matches_golden(path, update_goldens):
    result = _compile(path, emit="asm")
    assert result.ok, Renderer().render(result.diagnostics)
    expected = ["WG0604"] if path.stem in NODE_ARRAY_SAMPLES else []
    assert [d.code for d in result.diagnostics] == expected, Renderer().render(result.diagnostics)
    text = result.outputs["asm"].decode()
    check_golden(text, GOLDEN_DIR / f"{path.stem}.spvasm", path.name, update_goldens)


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_golden_reassembles_to_a_valid_module(path):
    golden = GOLDEN_DIR / f"{path.stem}.spvasm"
    words = tools.assemble(golden.read_text(), "vulkan1.3")
    assert tools.validate(words, "vulkan1.3", scalar_block_layout=True) == []


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
@pytest.mark.parametrize("env", ["vulkan1.2", "vulkan1.4"])
def test_sample_validates_for_other_target_environments(path, env):
    result = _compile(path, target_env=env)
    assert result.ok, Renderer().render(result.diagnostics)
    assert tools.validate(words_of(result.outputs["spirv"]), env) == []


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_sample_split_into_one_module_per_node(path):
    result = _compile(path, split_nodes=True)
    assert result.ok, Renderer().render(result.diagnostics)
    whole = _compile(path)
    entry_count = tools.disassemble(words_of(whole.outputs["spirv"])).count("OpEntryPoint")
    assert len(result.outputs) == entry_count
    for data in result.outputs.values():
        text = tools.disassemble(words_of(data))
        assert text.count("OpEntryPoint") == 1
        assert tools.validate(words_of(data), "vulkan1.3") == []


@pytest.mark.parametrize("path", SAMPLE_PATHS, ids=[p.stem for p in SAMPLE_PATHS])
def test_optimized_sample_still_validates_and_keeps_every_node_instruction(path):
    plain = tools.disassemble(words_of(_compile(path).outputs["spirv"]))
    result = _compile(path, optimize=True)
    assert result.ok, Renderer().render(result.diagnostics)
    words = words_of(result.outputs["spirv"])
    assert tools.validate(words, "vulkan1.3") == []
    optimized = tools.disassemble(words)
    for opcode in ("OpEntryPoint", "OpTypeNodePayloadArrayAMDX", "OpEnqueueNodePayloadsAMDX",
                   "PayloadNodeNameAMDX", "NodeMaxPayloadsAMDX"):
        assert optimized.count(opcode) == plain.count(opcode), opcode


@pytest.mark.parametrize("stem", sorted(LOOP_SAMPLES))
def test_loop_samples_need_the_device_depth_their_unrolling_reaches(stem):
    depth = LOOP_DEPTHS[stem]
    refused = _compile(SAMPLES / f"{stem}.hlsl", max_graph_depth=depth - 1)
    assert not refused.ok and not refused.outputs
    assert [d.code for d in refused.diagnostics if d.severity >= Severity.ERROR] == ["WG0513"]
    assert f"the graph is {depth} stages deep" in refused.diagnostics[0].message
    default = _compile(SAMPLES / f"{stem}.hlsl", max_graph_depth=None)     # 32, the least a device offers
    assert [d.code for d in default.diagnostics] == ["WG0513"] and not default.ok
    assert _compile(SAMPLES / f"{stem}.hlsl", max_graph_depth=depth).ok


SHARED_RECORD_ATOMIC = """\
struct [NodeTrackRWInputSharing] SharedRecord { uint grid : SV_DispatchGrid; uint total; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(64, 1, 1)]
void Shared(globallycoherent RWDispatchNodeInputRecord<SharedRecord> sharedInput)
{
    InterlockedAdd(sharedInput.Get().total, 1);
}
"""


def test_atomics_on_shared_node_records_warn_with_the_reason(tmp_path):
    (tmp_path / "shared.hlsl").write_text(SHARED_RECORD_ATOMIC)
    result = _compile(tmp_path / "shared.hlsl")
    assert result.ok and result.outputs
    rendered = Renderer().render(result.diagnostics)
    assert "shared.hlsl:5:5: warning: 'InterlockedAdd' on a record of 'RWDispatchNodeInputRecord<SharedRecord>' " \
           "is not valid Vulkan SPIR-V: the record is shared by every thread group of the dispatch, and Vulkan " \
           "allows no atomic operations on NodePayloadAMDX memory [WG0620]" in rendered


def test_every_golden_has_a_sample():
    stems = {p.stem for p in SAMPLE_PATHS}
    orphans = sorted(g.name for g in GOLDEN_DIR.glob("*.spvasm") if g.stem not in stems)
    assert not orphans, f"goldens without a sample: {orphans}"


def test_spirv_is_byte_identical_across_runs_and_independent_of_the_working_directory(run_wgc, tmp_path):
    first = run_wgc("compile", "-I", str(SAMPLE_INCLUDE), str(SAMPLES / "material_dispatch.hlsl"), "-o", "-")
    second = run_wgc("compile", "-I", "include", "material_dispatch.hlsl", "-o", str(tmp_path / "out.spv"),
                     cwd=SAMPLES)
    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    assert first.stdout == (tmp_path / "out.spv").read_bytes()
