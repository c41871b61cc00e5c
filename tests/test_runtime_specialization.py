"""`wgc run` with a dispatch description's "specialization": the module's specialization constants
(`[[vk::constant_id(N)]]`) given values by name or constant_id, applied to the pipelines as
VkSpecializationInfo on both paths (emulated, and AMDX: `--path amdx` and .spv inputs).  Constants
that set the graph's shape (grids, MaxRecords, array sizes) are applied too: the AMDX path reads the
graph with the dispatch's values, the emulated path compiles the HLSL again with them fixed; only a
compile's Result given to `wgc.run` cannot be compiled again, and there specialising them is refused
(WG0812).  Expected buffers are computed by hand from what the graphs are written to do.

Skips, with the reason printed (`-ra`), where there is no Vulkan device.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import wgc
from wgc.diagnostics import Renderer


pytestmark = pytest.mark.usefixtures("vulkan_device")   # every test here runs a graph (conftest)


# K scales what each thread writes; G is the fixed grid; M bounds the records Entry sends Leaf.
GRAPH = """\
[[vk::constant_id(3)]] const uint K = 7;
[[vk::constant_id(5)]] const uint G = 2;
[[vk::constant_id(6)]] const uint M = 3;
[[vk::constant_id(8)]] const bool Negate = false;
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry]
[NodeDispatchGrid(G, 1, 1)] [NumThreads(4, 1, 1)]
void Entry(uint t : SV_DispatchThreadID, [MaxRecords(M)] NodeOutput<Item> Leaf)
{
    Out[t] = Negate ? 1000 - t * K : t * K;
    GroupNodeOutputRecords<Item> recs = Leaf.GetGroupNodeOutputRecords(M);
    if (t % 4 < M) recs[t % 4].slot = 16 + (t / 4) * M + t % 4;
    recs.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Item> item)
{
    Out[item.Get().slot] = K + 100;
}
"""


def expected(k: int, negate: bool = False, g: int = 2, m: int = 3) -> list[int]:
    """G groups of 4 threads write t*K (or 1000 - t*K); each group sends M records to Leaf, which
    writes K + 100 at slots 16 + group*M + i."""
    out = [(1000 - t * k if negate else t * k) for t in range(4 * g)] + [0] * (32 - 4 * g)
    for slot in range(16, 16 + g * m):
        out[slot] = k + 100
    return out


def dispatch(specialization: dict | None = None) -> dict:
    d: dict = {"inputs": [{"entry": "Entry", "records": [{}]}], "resources": {"Out": {"uint32": [0] * 32}}}
    if specialization is not None:
        d["specialization"] = specialization
    return d


def sources(tmp_path) -> list[tuple[object, str]]:
    """The graph as HLSL on the emulated path, as HLSL on the AMDX path, and as an AMDX .spv."""
    hlsl = tmp_path / "graph.hlsl"
    hlsl.write_text(GRAPH)
    spv = tmp_path / "graph.spv"
    subprocess.run([sys.executable, "-m", "wgc", str(hlsl), "-o", str(spv)], check=True)
    return [(str(hlsl), "emulated"), (str(hlsl), "amdx"), (str(spv), "amdx")]


def test_specialization_on_both_paths(tmp_path) -> None:
    """Vulkan: "specialization constants ... allow a constant value in SPIR-V to be specified at
    VkShaderModule creation time"; without "specialization" the defaults hold (K = 7, G = 2, M = 3)."""
    cases = [(None, expected(7)), ({"K": 3}, expected(3)), ({"3": 11, "Negate": True}, expected(11, True)),
             ({"8": 1}, expected(7, True))]
    for source, path in sources(tmp_path):
        for specialization, values in cases:
            result = wgc.run(source, dispatch(specialization), path=path)
            assert result.ok, Renderer().render(list(result.diagnostics))
            assert result.path == path
            assert result.resources["Out"]["uint32"] == values, (path, specialization)


def test_specialised_grid_and_max_records_on_every_path(tmp_path) -> None:
    """SPV_AMDX_shader_enqueue, StaticNumWorkgroupsAMDX: "Statically declare the number of workgroups
    dispatched for this shader" with `<id>` operands (x, y, z size), which a SPIR-V `<id>` may make
    specialization constants (here G; M is the output's max payloads).  On the AMDX path the graph is
    read with the dispatch's values (G = 3 groups, M = 2 records each); the emulated path compiles the
    HLSL with them fixed; both give the hand-computed buffer, the same on every path."""
    for specialization, values in [({"G": 3, "M": 2, "K": 5}, expected(5, g=3, m=2)),
                                   ({"5": 1, "6": 1}, expected(7, g=1, m=1)),
                                   ({"G": 4, "Negate": True}, expected(7, True, g=4))]:
        for source, path in sources(tmp_path):
            result = wgc.run(source, dispatch(specialization), path=path)
            assert result.ok, Renderer().render(list(result.diagnostics))
            assert result.resources["Out"]["uint32"] == values, (source, path, specialization)
            assert len(result.trace[0].dispatches) == 1 and result.trace[0].dispatches[0].groups == \
                specialization.get("G", specialization.get("5", 2)), path


def test_emulated_run_does_not_warn_that_the_attribute_is_fixed(tmp_path) -> None:
    """WG0645 (the emulated target fixes an attribute at a constant's default) holds for `wgc compile
    --target=emulated`, not for `wgc run`, which compiles the graph again with the dispatch's values."""
    hlsl = tmp_path / "graph.hlsl"
    hlsl.write_text(GRAPH)
    result = wgc.run(str(hlsl), dispatch({"G": 3}))
    assert result.ok and not result.diagnostics, Renderer().render(list(result.diagnostics))
    compiled = wgc.compile(wgc.Options(input=str(hlsl), target="emulated"))
    assert "WG0645" in {d.code for d in compiled.diagnostics}


def test_a_compile_result_cannot_be_specialised_in_its_shape(tmp_path) -> None:
    """A compile's Result given to `wgc.run` fixed G and M at their defaults (WG0645) and cannot be
    compiled again: specialising them is refused (WG0812), with the way out; K still applies."""
    hlsl = tmp_path / "graph.hlsl"
    hlsl.write_text(GRAPH)
    compiled = wgc.compile(wgc.Options(input=str(hlsl), target="emulated", reflection=True))
    result = wgc.run(compiled, dispatch({"K": 3}))
    assert result.ok and result.resources["Out"]["uint32"] == expected(3)
    result = wgc.run(compiled, dispatch({"G": 3}))
    out = Renderer().render(list(result.diagnostics))
    assert not result.ok
    assert ("specialization constant 'G' sets the graph's shape (a dispatch grid, MaxRecords or an array size), "
            "which the given compile fixed at its default: wgc run cannot specialise it without compiling the "
            "graph again [WG0812]") in out
    assert "give wgc.run the source (a path or driver.Options)" in out


def test_bad_specialization_entries_are_located(tmp_path) -> None:
    text = json.dumps(dispatch({"K": "x", "Q": 1, "4": 2, "K2": 1}))
    bad = dispatch({"K": -1, "Q": 1, "G": 1, "6": 9, "Negate": 2})
    for source, path in sources(tmp_path):
        file = tmp_path / "d.json"
        file.write_text(json.dumps(bad))
        result = wgc.run(source, str(file), path=path)
        out = Renderer().render(list(result.diagnostics))
        assert not result.ok
        assert "specialization constant 'K': -1 is outside the range of a 'uint32' (0..4294967295) [WG0800]" in out
        assert "the graph's shaders have no specialization constant 'Q' [WG0801]" in out
        assert "WG0812" not in out        # G and M apply on every path (the emulated one compiles again)
        assert "specialization constant 'Negate': a 'bool32' is true, false, 0 or 1 [WG0800]" in out
        assert f"{file}:1:" in out, out
        result = wgc.run(source, text, path=path)
        assert not result.ok
        result = wgc.run(source, {**dispatch(), "specialization": [1]}, path=path)
        assert "'specialization' is an object" in Renderer().render(list(result.diagnostics))


def test_specialised_grid_out_of_range(tmp_path) -> None:
    """D3D12 NodeDispatchGrid: each component is 1 to 65535, and x*y*z at most 2^24-1 (workgraph-rules.md,
    "Dispatch grid, per component" / "x·y·z"); a specialised grid outside them is refused, located: on
    the AMDX paths at the dispatch, on the emulated path by the compile with the dispatch's values."""
    hlsl = tmp_path / "graph.hlsl"
    hlsl.write_text(GRAPH)
    for grid in (0, 70000):
        out = Renderer().render(list(wgc.run(str(hlsl), dispatch({"G": grid})).diagnostics))
        assert f"grid size must be between 1 and 65535, not {grid} [WG0405]" in out
        assert f"note: wgc run compiled the graph with the dispatch's specialization values (constant_id 5 = {grid})" in out
    for source, path in sources(tmp_path)[1:]:
        for grid in (0, 70000):
            file = tmp_path / "d.json"
            file.write_text(json.dumps(dispatch({"G": grid})))
            result = wgc.run(source, str(file), path=path)
            assert not result.ok
            assert (f"error: with these values node 'Entry' has the dispatch grid ({grid}, 1, 1): each component "
                    "is 1 to 65535 and their product at most 16777215 [WG0800]") in Renderer().render(
                        list(result.diagnostics))


ARRAY = """\
[[vk::constant_id(2)]] const uint N = 2;
RWStructuredBuffer<uint> Out : register(u0);
struct Item { uint slot; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry]
[NodeDispatchGrid(1, 1, 1)] [NumThreads(4, 1, 1)]
void Entry(uint t : SV_DispatchThreadID, [MaxRecords(1)] [NodeArraySize(N)] NodeOutputArray<Item> F)
{
    ThreadNodeOutputRecords<Item> r = F[t].GetThreadNodeOutputRecords(t < N ? 1 : 0);
    if (t < N) r.Get().slot = t;
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("F", 0)]
void F0(ThreadNodeInputRecord<Item> item) { Out[item.Get().slot] = 10; }
[Shader("node")] [NodeLaunch("thread")] [NodeID("F", 1)]
void F1(ThreadNodeInputRecord<Item> item) { Out[item.Get().slot] = 11; }
[Shader("node")] [NodeLaunch("thread")] [NodeID("F", 2)]
void F2(ThreadNodeInputRecord<Item> item) { Out[item.Get().slot] = 12; }
"""


def test_amdx_graph_reads_a_specialised_node_array_size(tmp_path) -> None:
    """SPV_AMDX_shader_enqueue: PayloadNodeArraySizeAMDX takes an `<id>` (a specialization constant
    here, N): thread t < N sends one record to F[t], whose node writes 10 + t at slot t.  The AMDX
    path reads the array with the dispatch's N, the emulated path compiles it with that N."""
    hlsl = tmp_path / "array.hlsl"
    hlsl.write_text(ARRAY)
    base = {"inputs": [{"entry": "Entry", "records": [{}]}], "resources": {"Out": {"uint32": [0] * 4}}}
    for n in (None, 1, 3):
        spec = {} if n is None else {"specialization": {"N": n}}
        for path in ("amdx", "emulated"):
            result = wgc.run(str(hlsl), {**base, **spec}, path=path)
            assert result.ok, Renderer().render(list(result.diagnostics))
            size = 2 if n is None else n
            assert result.resources["Out"]["uint32"] == [10 + t if t < size else 0 for t in range(4)], (path, n)


MAX_GRID = """\
[[vk::constant_id(5)]] const uint G = 2;
RWStructuredBuffer<uint> Out : register(u0);
struct Rec { uint3 grid : SV_DispatchGrid; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeIsProgramEntry]
[NodeMaxDispatchGrid(G, 1, 1)] [NumThreads(2, 1, 1)]
void Entry(DispatchNodeInputRecord<Rec> r, uint t : SV_DispatchThreadID)
{
    Out[t] = t + 1;
}
"""


def test_records_are_checked_against_the_specialised_max_grid(tmp_path) -> None:
    """SPV_AMDX_shader_enqueue, MaxNumWorkgroupsAMDX: "Declare the maximum number of workgroups
    dispatched for this shader. Dispatches must not exceed this value", an `<id>` (G here).  A
    record asking for 3 groups exceeds the default G = 2 (WG0807) but not a specialised G = 4, on
    the AMDX path: 3 groups of 2 threads write t + 1 at slots 0..5."""
    hlsl = tmp_path / "max.hlsl"
    hlsl.write_text(MAX_GRID)
    base = {"inputs": [{"entry": "Entry", "records": [{"grid": [3, 1, 1]}]}],
            "resources": {"Out": {"uint32": [0] * 8}}}
    for path in ("amdx", "emulated"):
        result = wgc.run(str(hlsl), base, path=path)
        assert "beyond its [NodeMaxDispatchGrid(2, 1, 1)] [WG0807]" in Renderer().render(list(result.diagnostics))
        result = wgc.run(str(hlsl), {**base, "specialization": {"G": 4}}, path=path)
        assert result.ok, Renderer().render(list(result.diagnostics))
        assert result.resources["Out"]["uint32"] == [1, 2, 3, 4, 5, 6, 0, 0], path


def test_boolean_spec_constants_shape_an_amdx_graph() -> None:
    """SPIR-V: "OpSpecConstantTrue/OpSpecConstantFalse: declare a Boolean-type scalar specialization
    constant with a default value of true/false", and OpSpecConstantOp may compute with them
    (LogicalNot, Select).  tests/data/dxc_style/spec_bool_grid.spvasm sets its StaticNumWorkgroupsAMDX
    grid to (Wide ? 4 : 2, !Flat ? 3 : 1, 1) and its code adds Wide ? 100 : 0: the graph reads the
    dispatch's values as the pipeline does.  By hand: Out[0] counts the groups, group (x, y) writes
    base + 10 y + x (+ 100 when Wide) at 1 + x + 4 y."""
    from dxc_style import module

    data = module("spec_bool_grid")
    for specialization, wide, flat in [(None, False, True), ({"Wide": True}, True, True),
                                       ({"Flat": False}, False, False), ({"1": 1, "2": 0}, True, False)]:
        grid_x, grid_y = 4 if wide else 2, 1 if flat else 3
        out = [0] * 16
        out[0] = grid_x * grid_y
        for y in range(grid_y):
            for x in range(grid_x):
                out[1 + x + 4 * y] = 5 + 10 * y + x + (100 if wide else 0)
        described = {"inputs": [{"entry": "main", "records": [{"base": 5}]}],
                     "resources": {"Out": {"uint32": [0] * 16}}}
        if specialization is not None:
            described["specialization"] = specialization
        result = wgc.run(data, described)
        assert result.ok, Renderer().render(list(result.diagnostics))
        assert result.resources["Out"]["uint32"] == out, specialization
