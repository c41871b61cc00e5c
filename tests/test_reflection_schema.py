"""One schema for the reflection (`-Fre`, `--emit=reflection`) and the inspect model (`inspect --format
json`): docs/reflection.schema.json (JSON Schema draft 2020-12) validates every sample's and every
tests/spirv_programs program's documents; the records they share have one shape; and each binding
says what SPIRV-Reflect says of ordinary shaders: the storage-image format, read/write access from
what the code does, the shader stages (issue 30, "Reflection").

Expected values are worked out by hand from the HLSL below."""

from __future__ import annotations

import json
import struct

import jsonschema
import pytest

from conftest import ROOT, SAMPLE_INCLUDE, SAMPLES, sample_proposals
from wgc import driver
from wgc.diagnostics import Renderer

SCHEMA = json.loads((ROOT / "docs" / "reflection.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
PROGRAMS = sorted(SAMPLES.glob("*.hlsl")) + sorted((ROOT / "tests" / "spirv_programs").glob("*.hlsl"))


def _documents(path, **options):
    """(inspect model, reflection) of `path`, as JSON (the loop samples unroll deeper than 32 stages)."""
    options.setdefault("max_graph_depth", 1000)
    found = []
    for emit in ("json", "reflection"):
        result = driver.compile(driver.Options(input=str(path), emit=emit, include_dirs=(str(SAMPLE_INCLUDE),),
                                               proposals=sample_proposals(path), enable_16bit_types=True,
                                               **options))
        if not result.ok and emit == "reflection":   # beyond the AMDX target (syntax_tour): the emulated one's
            result = driver.compile(driver.Options(input=str(path), emit=emit, target="emulated",
                                                   include_dirs=(str(SAMPLE_INCLUDE),), enable_16bit_types=True,
                                                   proposals=sample_proposals(path), **options))
        assert result.ok, Renderer().render(result.diagnostics)
        found.append(json.loads(result.outputs[emit]))
    return found


def _errors(document) -> list[str]:
    return [f"{e.json_path}: {e.message[:300]}" for e in VALIDATOR.iter_errors(document)]


def test_the_schema_is_a_draft_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_every_document_follows_the_schema(path):
    model, reflection = _documents(path)
    assert _errors(model) == []
    assert _errors(reflection) == []


def test_the_schema_refuses_a_bare_record_name():
    """Before issue 30, the inspect model's input.record was the record's name: no longer valid."""
    model, _ = _documents(SAMPLES / "hello.hlsl")
    model["nodes"][0]["input"]["record"] = "EntryRecord"
    assert _errors(model)
    model["nodes"][0]["input"]["record"] = None
    model["nodes"][0]["input"]["colour"] = 1           # an unknown key
    assert _errors(model)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_records_and_resources_have_one_shape(path):
    """A node's input record and its outputs' records, and a resource used by the nodes, are the same
    JSON in both documents."""
    model, reflection = _documents(path)
    nodes = {n["function"]: n for n in reflection["nodes"]}
    for node in model["nodes"]:
        other = nodes[node["function"]]
        if other["input"] is not None:
            assert node["input"]["record"] == other["input"]["record"]
            assert node["input"].keys() == other["input"].keys()
        assert [o["record"] for o in node["outputs"]] == [o["record"] for o in other["outputs"]]
    bindings = {r["name"]: r for r in reflection["descriptor_bindings"]}
    for resource in model["resources"]:
        if resource["name"] in bindings and resource["used_by"]:
            assert {**resource, "counter": None} == {**bindings[resource["name"]], "counter": None}


ACCESS = """
struct R { uint v; };
RWStructuredBuffer<uint> Written : register(u0);
RWStructuredBuffer<uint> Read : register(u1);
RWStructuredBuffer<uint> Added : register(u2);
RWByteAddressBuffer Atomics : register(u3);
RWByteAddressBuffer Stored : register(u4);
RWTexture2D<float4> Image : register(u5);
RWBuffer<uint> Texels : register(u6);
[[vk::image_format("rgba8")]] RWTexture2D<float4> Named : register(u7);
RWTexture2D<unorm float4> Normed : register(u8);
Texture2D<float4> Sampled : register(t13);
StructuredBuffer<uint> Constant : register(t14);
AppendStructuredBuffer<uint> Log : register(u9);
RWStructuredBuffer<uint> Queried : register(u10);
RWStructuredBuffer<uint> Passed : register(u11);
RWStructuredBuffer<uint> Unused : register(u12);

void Fill(RWStructuredBuffer<uint> b) { b[0] = 1; }

[Shader("node")] [NodeLaunch("thread")]
void N(ThreadNodeInputRecord<R> input)
{
    Written[input.Get().v] = 1;
    Added[0] += Read[1];
    uint old;
    Atomics.InterlockedAdd(0, 1, old);
    Stored.Store(4, old);
    Image[uint2(0, 0)] = Sampled.Load(int3(0, 0, 0));
    Texels[0] = Constant[0];
    Named[uint2(1, 1)] = float4(0, 0, 0, 1);
    float4 n = Normed[uint2(0, 0)];
    Log.Append(uint(n.x));
    uint count, stride;
    Queried.GetDimensions(count, stride);
    Written[1] = count;
    Fill(Passed);
}
"""


def _bindings(tmp_path, source: str) -> dict:
    path = tmp_path / "access.hlsl"
    path.write_text(source)
    _, reflection = _documents(path)
    assert _errors(reflection) == []
    return {r["name"]: r for r in reflection["descriptor_bindings"]}


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_a_node_is_one_object_in_both(path):
    """Every key the schema's shared `node` definition lists (outputs, input, NodeIDs, loops, wave size,
    limits, stages...) has the same value in both documents, for every node both describe; and
    the shared definitions are the ones both documents' node definitions use."""
    common = SCHEMA["$defs"]["node"]["required"]
    assert {"outputs", "input", "id", "loops", "wave_size", "loop_entry", "entry_point"} <= set(common)
    for own in ("reflectionNode", "inspectNode"):
        assert SCHEMA["$defs"][own]["allOf"] == [{"$ref": "#/$defs/node"}]
    model, reflection = _documents(path)
    nodes = {n["function"]: n for n in reflection["nodes"]}
    for node in model["nodes"]:
        other = nodes[node["function"]]
        assert {k: node[k] for k in common} == {k: other[k] for k in common}


@pytest.mark.parametrize("name", ["mesh_draw", "mesh_materials"])
def test_the_other_shaders_are_one_object_in_both(name):
    """The pixel (and mesh, amplification, compute) shaders beside the graph: the reflection lists them
    under `entry_points`, as the model does, with the same objects (stage, interface, resources...),
    and no longer among its nodes (whose launch is a node's)."""
    model, reflection = _documents(SAMPLES / f"{name}.hlsl")
    assert model["entry_points"] and reflection["entry_points"] == model["entry_points"]
    stages = {e["function"] for e in reflection["entry_points"]}
    assert not stages & {n["function"] for n in reflection["nodes"]}
    assert {n["launch"] for n in reflection["nodes"]} <= {"broadcasting", "coalescing", "thread", "mesh"}


def test_an_output_shared_budget_names_and_indexes_its_owner(tmp_path):
    """[MaxRecordsSharedWith(A)] on B: both documents give the owner's name and its output index; the
    owner keeps its [MaxRecords], the sharer has none (null)."""
    path = tmp_path / "shared.hlsl"
    path.write_text(SHARED)
    model, reflection = _documents(path)
    for document in (model, reflection):
        node = next(n for n in document["nodes"] if n["function"] == "Root")
        assert [(o["name"], o["index"], o["max_records"], o["max_records_shared_with"],
                 o["max_records_shared_with_index"]) for o in node["outputs"]] == [
            ("A", 0, 4, None, None), ("B", 1, None, "A", 0)]


def test_the_implied_input_of_a_coalescing_node_is_in_both(tmp_path):
    """A coalescing node without input has an EmptyNodeInput of one record per group (wgc implies it,
    DXIL writes it): both documents give it alike (before, the reflection gave null)."""
    path = tmp_path / "implied.hlsl"
    path.write_text(IMPLIED)
    model, reflection = _documents(path)
    expected = {"kind": "EmptyNodeInput", "max_records": 1, "max_records_written": True,
                "globally_coherent": False, "record": None}
    for document in (model, reflection):
        assert next(n for n in document["nodes"] if n["function"] == "C")["input"] == expected
        assert _errors(document) == []


IMPLIED = """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Root([MaxRecords(1)] EmptyNodeOutput C) { C.GroupIncrementOutputCount(1); }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)] void C() {}
"""


def test_a_bare_output_name_key_is_refused():
    """The pre-issue-30 reflection output keys (`sparse`, `unbounded`) and the inspect model's
    (`parameter`) are no longer valid."""
    model, reflection = _documents(SAMPLES / "hello.hlsl")
    output = model["nodes"][0]["outputs"][0]
    output["parameter"] = output.pop("name")
    assert _errors(model)
    output = reflection["nodes"][0]["outputs"][0]
    output["sparse"] = output.pop("allow_sparse_nodes")
    assert _errors(reflection)


SHARED = """
struct R { uint v; };
[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<R> r) {}
[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<R> r) {}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Root([MaxRecords(4)] NodeOutput<R> A, [MaxRecordsSharedWith(A)] NodeOutput<R> B) {}
"""


def test_access_is_what_the_code_does(tmp_path):
    """SPIR-V NonWritable / NonReadable: a binding the code only reads, or only writes. `=` into an
    element, Store and Append write; `+=` and atomics read and write; GetDimensions does neither; a
    buffer handed to a function may be either."""
    bindings = _bindings(tmp_path, ACCESS)
    access = {name: r["access"] for name, r in bindings.items()}
    assert access == {
        "Written": "write", "Read": "read", "Added": "read_write", "Atomics": "read_write", "Stored": "write",
        "Image": "write", "Texels": "write", "Named": "write", "Normed": "read", "Sampled": "read",
        "Constant": "read", "Log": "write", "Queried": None, "Passed": "read_write"}
    assert "Unused" not in bindings                      # the reflection lists what the nodes reach


def test_storage_image_format(tmp_path):
    """DXC's SPIR-V mapping: a storage image's format is `[[vk::image_format]]`, else inferred from the
    element (float4 -> Rgba32f, uint -> R32ui); unorm/snorm cannot be told (8 or 16 bits): Unknown.
    Sampled images, buffers and blocks have none."""
    bindings = _bindings(tmp_path, ACCESS)
    formats = {name: r["image_format"] for name, r in bindings.items()}
    assert formats == {
        "Written": None, "Read": None, "Added": None, "Atomics": None, "Stored": None, "Image": "Rgba32f",
        "Texels": "R32ui", "Named": "Rgba8", "Normed": "Unknown", "Sampled": None, "Constant": None, "Log": None,
        "Queried": None, "Passed": None}


def test_storage_image_format_is_the_modules(tmp_path):
    """The format the reflection gives is the OpTypeImage's in the module wgc compile writes."""
    path = tmp_path / "access.hlsl"
    path.write_text(ACCESS)
    asm = driver.compile(driver.Options(input=str(path), emit="asm")).outputs["asm"].decode()
    formats = {line.split()[-1] for line in asm.splitlines() if "OpTypeImage" in line and " 2 " in line}
    assert formats == {"Rgba32f", "R32ui", "Rgba8", "Unknown"}


def test_stages_per_binding(tmp_path):
    """Node shaders are compute shaders in Vulkan (VK_SHADER_STAGE_COMPUTE_BIT), mesh nodes mesh shaders."""
    bindings = _bindings(tmp_path, ACCESS)
    assert {(tuple(r["stages"]), tuple(r["vk_shader_stage_flags"])) for r in bindings.values()} == {
        (("compute",), ("VK_SHADER_STAGE_COMPUTE_BIT",))}
    _, reflection = _documents(SAMPLES / "mesh_draw.hlsl")
    sprites = next(r for r in reflection["descriptor_bindings"] if r["name"] == "Sprites")
    assert (sprites["stages"], sprites["vk_shader_stage_flags"]) == (["mesh"], ["VK_SHADER_STAGE_MESH_BIT_EXT"])


# ---------------------------------------------------------------- the reflection `wgc run A.spv` reads from SPIR-V


def _amdx_graph(path, asm_edit=None):
    """The reflection `wgc.spirv_in.graph.read_graph` makes of the AMDX module of `path` (its assembly
    edited by `asm_edit` first, when given), and wgc's own reflection of that module."""
    from wgc.spirv.tools import assemble
    from wgc.spirv_in.graph import read_graph
    from wgc.spirv_in.reader import read_module

    options = dict(input=str(path), target="amdx", include_dirs=(str(SAMPLE_INCLUDE),), enable_16bit_types=True,
                   proposals=sample_proposals(path), max_graph_depth=1000)
    result = driver.compile(driver.Options(emit="asm", reflection=True, **options))
    assert result.ok, Renderer().render(result.diagnostics)
    text = result.outputs["asm"].decode()
    if asm_edit is not None:
        text = asm_edit(text)
    words = assemble(text)
    module = read_module(struct.pack(f"<{len(words)}I", *words), "module.spv")
    indices: dict[str, list[int]] = {}
    for n in result.reflection.nodes:
        indices.setdefault(n.entry_point, []).extend(s.index for s in n.stages)
    names = {n.entry_point: n.id.name for n in result.reflection.nodes if n.entry_point != n.id.name}
    return read_graph([module], names, indices).reflection, json.loads(result.outputs["reflection"])


AMDX_SAMPLES = [p for p in sorted(SAMPLES.glob("*.hlsl")) if not p.stem.startswith(("mesh_", "syntax_tour"))]


@pytest.mark.parametrize("path", AMDX_SAMPLES, ids=[p.stem for p in AMDX_SAMPLES])
def test_the_reflection_read_from_spirv_follows_the_schema(path):
    """`wgc run A.spv` describes the graph of an AMDX module in the reflection's shape: valid against
    the schema, with each binding's storage-image format, access and stages those wgc's own
    reflection gives the module it wrote."""
    graph, own = _amdx_graph(path)
    document = graph.to_json()
    assert _errors(document) == []
    mine = {(b["set"], b["binding"]): b for b in own["descriptor_bindings"] if not b["shader_record"]}
    for binding in document["descriptor_bindings"]:
        other = mine[(binding["set"], binding["binding"])]
        assert (binding["image_format"], binding["stages"], binding["vk_shader_stage_flags"]) == (
            other["image_format"], other["stages"], other["vk_shader_stage_flags"]), binding["name"]
        assert binding["access"] == other["access"], binding["name"]


def test_spirv_access_format_and_stages(tmp_path):
    """Read from the module alone: the format is the OpTypeImage's Image Format operand (storage images
    and texel buffers, Sampled 2; null for the others); access is what the module's code does (wgc
    inlines `Fill`, so `Passed` is only stored to: "write"; GetDimensions is OpArrayLength: neither,
    null); the stage is that of the GLCompute entry point using it."""
    path = tmp_path / "access.hlsl"
    path.write_text(ACCESS)
    graph, _ = _amdx_graph(path)
    assert _errors(graph.to_json()) == []
    found = {r.name: (r.image_format, r.access, r.stages) for r in graph.descriptor_bindings}
    compute = ("compute",)
    assert found == {
        "Written": (None, "write", compute), "Read": (None, "read", compute), "Added": (None, "read_write", compute),
        "Atomics": (None, "read_write", compute), "Stored": (None, "write", compute),
        "Image": ("Rgba32f", "write", compute), "Texels": ("R32ui", "write", compute),
        "Named": ("Rgba8", "write", compute), "Normed": ("Unknown", "read", compute),
        "Sampled": (None, "read", compute), "Constant": (None, "read", compute), "Log": (None, "write", compute),
        "counter.var.Log": (None, "read_write", compute), "Queried": (None, None, compute),
        "Passed": (None, "write", compute)}
    node = graph.nodes[0]
    assert node.input is not None and node.input.kind == "ThreadNodeInputRecord"


def test_spirv_decorations_rule_a_use_out(tmp_path):
    """SPIR-V NonWritable: "the memory ... is not written"; NonReadable: "... is not read". A module
    whose variable carries one has no such access, whatever its code does."""
    path = tmp_path / "access.hlsl"
    path.write_text(ACCESS)

    def decorate(text):
        return text.replace("OpDecorate %Added DescriptorSet", "OpDecorate %Added NonWritable\nOpDecorate %Added DescriptorSet", 1) \
                   .replace("OpDecorate %Image DescriptorSet", "OpDecorate %Image NonReadable\nOpDecorate %Image DescriptorSet", 1) \
                   .replace("OpDecorate %Atomics DescriptorSet", "OpDecorate %Atomics NonReadable\nOpDecorate %Atomics DescriptorSet", 1)

    graph, _ = _amdx_graph(path, decorate)
    found = {r.name: r.access for r in graph.descriptor_bindings}
    assert (found["Added"], found["Image"], found["Atomics"]) == ("read", "write", "write")


def test_the_reflection_of_dxc_style_modules_follows_the_schema():
    """tests/data/dxc_style: five modules in DXC's form (one `main` each, named by the application)
    make one graph whose reflection is valid; Tally's code adds to its record with atomics, so its
    input is the RW one; Gather adds to `Out` with InterlockedAdd (read and write), the others store."""
    from dxc_style import module
    from wgc.spirv_in.graph import read_graph
    from wgc.spirv_in.reader import read_module

    files = (("entry", "main"), ("tally", "Tally"), ("gather", "Gather"), ("leaf_0", "Leaf"), ("leaf_1", "Leaf"))
    modules = [read_module(module(file), file) for file, _ in files]
    graph = read_graph(modules, {f"{file}:main": name for file, name in files}).reflection
    assert _errors(graph.to_json()) == []
    kinds = {n.id.name: n.input.kind if n.input else None for n in graph.nodes}
    assert kinds["Tally"].startswith("RW")
    assert {(r.name, r.access, r.stages) for r in graph.descriptor_bindings} == {("Out", "read_write", ("compute",))}


def _schema_keys(node) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            found |= set(node["properties"])
        for value in node.values():
            found |= _schema_keys(value)
    elif isinstance(node, list):
        for value in node:
            found |= _schema_keys(value)
    return found


def test_every_key_of_the_schema_is_documented():
    """docs/reference.md explains each key ("The JSON model", "Reflection"): every property the
    schema names appears there as "key" or `key`."""
    text = (ROOT / "docs" / "reference.md").read_text()
    assert sorted(k for k in _schema_keys(SCHEMA) if f'"{k}"' not in text and f"`{k}`" not in text) == []


def test_wave_size_is_min_max_preferred_and_wgc_run_reads_it_as_written(tmp_path):
    """Both documents give [WaveSize(min, max, preferred)] with 0 where not written (as DXC's
    DxilWaveSize); the runtime's program (what `wgc run` checks the device's subgroup size against)
    takes the arguments as written again."""
    from wgc.runtime.program import build_program

    path = tmp_path / "wave.hlsl"
    path.write_text("""
struct R { uint v; };
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(32, 1, 1)] [WaveSize(32)]
void Root([MaxRecords(1)] NodeOutput<R> Next) {}
[Shader("node")] [NodeLaunch("thread")] [WaveSize(16, 64)] void Next(ThreadNodeInputRecord<R> r) {}
""")
    model, reflection = _documents(path)
    for document in (model, reflection):
        assert [n["wave_size"] for n in document["nodes"]] == [[32, 0, 0], [16, 64, 0]]
    result = driver.compile(driver.Options(input=str(path), emit="reflection", target="emulated"))
    program = build_program(result.reflection)
    assert [n.wave_size for n in program.nodes] == [(32,), (16, 64)]
