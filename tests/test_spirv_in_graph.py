"""The graph read from AMDX modules alone (`wgc.spirv_in.graph`) equals the one wgc's reflection
gives, for every sample and every graph the runtime tests run, compiled as one module and with
--split-nodes (one module per node, several modules making one graph)."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from wgc import driver
from wgc.runtime.program import build_program
from wgc.spirv_in.graph import GraphError, read_graph
from wgc.spirv_in.reader import ModuleError, read_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _runtime_graphs() -> dict[str, str]:
    """The HLSL graphs of the runtime tests (module-level strings holding node shaders)."""
    import importlib
    graphs = {}
    for name in ("test_runtime_run", "test_loop_stages"):
        module = importlib.import_module(f"tests.{name}" if __package__ else name)
        for key, value in vars(module).items():
            if key.isupper() and isinstance(value, str) and '[Shader("node")]' in value:
                graphs[f"{name}.{key}"] = value
    return graphs


SAMPLES = sorted(glob.glob(os.path.join(ROOT, "samples", "*.hlsl")))
MESH = ("mesh_draw", "mesh_materials")


def _cases() -> list:
    cases = [pytest.param(("path", p), id=os.path.basename(p)) for p in SAMPLES
             if not os.path.basename(p).startswith(MESH)]
    cases += [pytest.param(("text", text), id=key) for key, text in sorted(_runtime_graphs().items())]
    return cases


def compile_amdx(tmp_path, case, split: bool):
    kind, value = case
    path = value
    if kind == "text":
        path = str(tmp_path / "graph.hlsl")
        with open(path, "w") as f:
            f.write(value)
    result = driver.compile(driver.Options(input=path, emit="spirv", target="amdx", reflection=True,
                                           proposals=("work-graph-loops",), max_graph_depth=100000,
                                           enable_16bit_types=kind == "text" and "uint16_t" in value,
                                           include_dirs=(os.path.join(ROOT, "samples", "include"),),
                                           split_nodes=split))
    if not result.ok:   # graphs the runtime tests give other options (and expect errors from)
        pytest.skip("; ".join(d.message for d in result.diagnostics))
    modules = [read_module(data, f"{key[6:]}.spv" if ":" in key else key)
               for key, data in sorted(result.outputs.items()) if key.startswith("spirv")]
    return result, modules


def comparable(node):
    """What the runtime uses of a node, with what AMDX writes alike made alike: a coalescing node of
    one thread and one record is thread launch; an output array of one node is a single output;
    AMDX has no [MaxRecordsPerNode] (the output's budget bounds each node)."""
    launch = node.launch
    if launch == "coalescing" and node.num_threads == (1, 1, 1) and node.max_records == 1:
        launch = "thread"
    outputs = []
    for o in node.outputs:
        array = o.array and o.array_size != 1
        outputs.append((o.target, o.target_index, array, o.array_size if array else None, o.empty,
                        o.max_records, o.record.size, o.record.alignment, o.record.fields))
    return dict(name=node.name, index=node.index, entry_point=node.entry_point, launch=launch,
                num_threads=node.num_threads, dispatch_grid=node.dispatch_grid,
                max_dispatch_grid=node.max_dispatch_grid, grid_field=node.grid_field,
                record=(node.record.size, node.record.alignment, node.record.fields),
                max_records=node.max_records if launch == "coalescing" else 1,
                max_recursion_depth=node.max_recursion_depth, outputs=outputs,
                share_input_of=node.share_input_of, cross_group_sharing=node.cross_group_sharing)


def application_names(reflection) -> dict[str, str]:
    """The node names an application gives the entry points (pName), where they differ from them.
    (And, in `assert_same_graph`, the indices it creates loop stages at: a stage only a sparse span
    or a loop's recursion reaches is no fact of the module.)"""
    return {n.entry_point: n.id.name for n in reflection.nodes if n.entry_point != n.id.name}


def assert_same_graph(result, modules) -> None:
    expected = build_program(result.reflection)
    indices: dict[str, list[int]] = {}
    for n in result.reflection.nodes:
        key = f"{n.module}:{n.entry_point}" if n.module else n.entry_point
        indices.setdefault(key, []).extend(s.index for s in n.stages)
    got = build_program(read_graph(modules, application_names(result.reflection), indices).reflection)
    key = lambda n: (n.name, n.index)  # noqa: E731
    assert sorted(key(n) for n in got.nodes) == sorted(key(n) for n in expected.nodes)
    by_key = {key(n): n for n in got.nodes}
    for node in expected.nodes:
        assert comparable(by_key[key(node)]) == comparable(node), f"node {node.label}"
    want = {(r.set, r.binding): (r.name, r.descriptor, r.element, r.writable, r.count)
            for r in expected.resources if r.counter_of is None and not r.shader_record}
    have = {(r.set, r.binding): (r.name, r.descriptor, r.element, r.writable, r.count)
            for r in got.resources if r.counter_of is None}
    assert have == want
    assert got.push_constant_bytes == expected.push_constant_bytes


@pytest.mark.parametrize("case", _cases())
def test_the_graph_from_the_module_is_the_reflections(tmp_path, case) -> None:
    result, modules = compile_amdx(tmp_path, case, split=False)
    assert len(modules) == 1
    assert_same_graph(result, modules)


@pytest.mark.parametrize("case", _cases())
def test_the_graph_from_split_modules_is_the_reflections(tmp_path, case) -> None:
    result, modules = compile_amdx(tmp_path, case, split=True)
    assert_same_graph(result, modules)


def test_entry_points_renamed_by_the_application(tmp_path) -> None:
    """spirv-amdx.md: "The node name is the `OpEntryPoint` name ...; the index comes from
    `ShaderIndexAMDX`, default 0. The API can override both with
    `VkPipelineShaderStageNodeCreateInfoAMDX{pName,index}`."""
    _, modules = compile_amdx(tmp_path, ("path", os.path.join(ROOT, "samples", "hello.hlsl")), split=False)
    graph = read_graph(modules, {"Generate": "Start"})
    assert [n.id.name for n in graph.reflection.nodes] == ["Start", "Classify", "Accumulate"]


def test_bad_modules_are_refused_with_a_located_message(tmp_path) -> None:
    with pytest.raises(ModuleError, match="not a SPIR-V module"):
        read_module(b"\0" * 20)
    with pytest.raises(ModuleError, match="past the end"):
        read_module(bytes.fromhex("03022307") + b"\0" * 16 + bytes.fromhex("ffff0500"))
    _, modules = compile_amdx(tmp_path, ("path", os.path.join(ROOT, "samples", "hello.hlsl")), split=False)
    with pytest.raises(GraphError, match="two entry points are node 'Classify'"):
        read_graph(modules, {"Generate": "Classify"})


def test_the_stage_imports_neither_sema_nor_the_driver() -> None:
    """It works on SPIR-V, not on wgc's IR: its modules import no `wgc.sema` and no `wgc.driver`."""
    import ast
    folder = os.path.join(ROOT, "wgc", "spirv_in")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(folder, name)) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for imported in names:
                assert not imported.startswith(("wgc.sema", "wgc.driver")), f"{name} imports {imported}"


def test_an_output_span_past_the_node_bound_is_refused_before_anything_is_made():
    """A damaged AMDX module whose output claims 1,952,886,970 node indices (found by
    tests/fuzz/amdx_stress.py: one word changed) made the graph reader create a node per index until
    memory ran out; it is refused with WG0820 naming the node and the span."""
    from wgc.runtime import amdx

    data = (Path(__file__).parent / "data" / "amdx_huge_output_span.spv").read_bytes()
    diagnostics, module, _ = amdx.amdx_program([("damaged.spv", data)])
    assert module is None
    assert [d.code for d in diagnostics] == ["WG0820"]
    assert "spans 1952886970 node indices" in diagnostics[0].message
