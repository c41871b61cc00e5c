"""Reflection (`wgc compile --emit=reflection`, `-Fre FILE`, `wgc.metadata.reflection`).

The facts the reflection states are checked against the SPIR-V module wgc emits for the same
program, read back from its disassembly (an independent path: the back end's decorations, not the
model): record and block member offsets against `Offset` decorations, descriptor sets and bindings
against `DescriptorSet`/`Binding`, each node's resources against its `OpEntryPoint` interface,
specialization constants against `SpecId`. A few layouts are also worked out by hand (scalar block
layout) in the expectations. Goldens: tests/out/reflection/<sample>.json for every sample that
compiles to SPIR-V.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLE_INCLUDE, SAMPLES, sample_proposals
from spirv_util import words_of
from wgc import driver
from wgc.diagnostics import Renderer
from wgc.metadata.reflection import FORMAT, VERSION, Reflection
from wgc.spirv import tools

GOLDEN_DIR = ROOT / "tests" / "out" / "reflection"

RECORDS = """
struct Inner { uint16_t a; float3 b; };
struct Scalars { uint grid : SV_DispatchGrid; float f; int i; bool flag; double d; };
struct Vectors { float2 v2; uint2 grid : SV_DispatchGrid; float3 v3; half4 h4; };
struct Arrays { float a[3]; uint3 grid : SV_DispatchGrid; uint2 m[2]; float2x2 mat; };
struct Nested { Inner inner; uint16_t grid[3] : SV_DispatchGrid; Inner more[2]; };
struct Halves { half h; uint16_t2 grid : SV_DispatchGrid; float f; int16_t s; };
struct Deep { Nested n; uint16_t tail; };
struct Out1 { int64_t big; uint16_t small; float3 after; };

[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(1, 1, 1)] [NodeMaxDispatchGrid(8, 1, 1)]
void S(DispatchNodeInputRecord<Scalars> r, [MaxRecords(2)] NodeOutput<Out1> O) {}
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(1, 1, 1)] [NodeMaxDispatchGrid(8, 8, 1)]
void V(DispatchNodeInputRecord<Vectors> r) {}
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(1, 1, 1)] [NodeMaxDispatchGrid(8, 8, 8)]
void A(DispatchNodeInputRecord<Arrays> r) {}
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(1, 1, 1)] [NodeMaxDispatchGrid(8, 8, 8)]
void N(DispatchNodeInputRecord<Nested> r, [MaxRecords(4)] NodeOutput<Deep> Deeper) {}
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(1, 1, 1)] [NodeMaxDispatchGrid(8, 8, 1)]
void H(DispatchNodeInputRecord<Halves> r) {}
[Shader("node")] [NodeLaunch("thread")]
void Deeper(ThreadNodeInputRecord<Deep> r) {}
[Shader("node")] [NodeLaunch("thread")]
void O(ThreadNodeInputRecord<Out1> r) {}
"""

RESOURCES = """
struct P { uint frame; float2 jitter; };
struct Elem { float3 pos; uint id; };
float g_scale;
cbuffer Frame : register(b1, space2) { float4x4 view; uint count; }
[[vk::push_constant]] P pc;
[[vk::constant_id(7)]] const uint Lanes = 4;
[[vk::constant_id(8)]] const bool Fast = true;
RWStructuredBuffer<Elem> Items : register(u0);
AppendStructuredBuffer<uint> Found;
globallycoherent RWByteAddressBuffer Raw : register(u3);
Texture2D<float4> Tex[4] : register(t2, space1);
[[vk::binding(9, 3)]] SamplerState Smp;
RWTexture2D<float4> Unused;
StructuredBuffer<float> OnlyB : register(t5);

struct R { uint x; };
[Shader("node")] [NodeLaunch("broadcasting")] [NumThreads(4, 1, 1)] [NodeDispatchGrid(2, 1, 1)]
void First(DispatchNodeInputRecord<R> r, [MaxRecords(4)] NodeOutput<R> Second)
{
    Elem e = Items[r.Get().x];
    Found.Append(e.id + Lanes + pc.frame);
    Raw.Store(0, count);
    ThreadNodeOutputRecords<R> o = Second.GetThreadNodeOutputRecords(1);
    o.Get().x = (uint)(Tex[1].SampleLevel(Smp, pc.jitter, 0).x * g_scale);
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(8, 1, 1)]
void Second([MaxRecords(8)] GroupNodeInputRecords<R> rs)
{
    if (Fast) Raw.Store(4, rs.Count() + (uint)OnlyB[0]);
}
"""


# ---------------------------------------------------------------- reading SPIR-V back


class Module:
    """The facts of a disassembled module that the reflection must agree with."""

    def __init__(self, asm: str) -> None:
        self.names: dict[str, str] = {}                       # id -> OpName
        self.member_names: dict[tuple[str, int], str] = {}
        self.offsets: dict[tuple[str, int], int] = {}         # (struct id, member) -> Offset
        self.decorations: dict[str, dict[str, list[str]]] = {}
        self.structs: dict[str, list[str]] = {}               # struct id -> member type ids
        self.arrays: dict[str, str] = {}                      # array type id -> element type id
        self.storage: dict[str, str] = {}                     # variable id -> storage class
        self.pointee: dict[str, str] = {}                     # pointer type id -> pointee
        self.variable_type: dict[str, str] = {}
        self.entry_points: dict[str, list[str]] = {}          # name -> interface ids
        for line in asm.splitlines():
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == "OpName":
                self.names[tokens[1]] = line.split('"')[1]
            elif tokens[0] == "OpMemberName":
                self.member_names[(tokens[1], int(tokens[2]))] = line.split('"')[1]
            elif tokens[0] == "OpMemberDecorate" and tokens[3] == "Offset":
                self.offsets[(tokens[1], int(tokens[2]))] = int(tokens[4])
            elif tokens[0] == "OpDecorate":
                self.decorations.setdefault(tokens[1], {})[tokens[2]] = tokens[3:]
            elif tokens[0] == "OpEntryPoint":
                name = line.split('"')[1]
                self.entry_points[name] = line.split('"')[2].split()
            elif len(tokens) > 2 and tokens[1] == "=":
                result, opcode, operands = tokens[0], tokens[2], tokens[3:]
                if opcode == "OpTypeStruct":
                    self.structs[result] = operands
                elif opcode in ("OpTypeArray", "OpTypeRuntimeArray"):
                    self.arrays[result] = operands[0]
                elif opcode == "OpTypePointer":
                    self.pointee[result] = operands[1]
                elif opcode == "OpVariable":
                    self.variable_type[result] = operands[0]
                    self.storage[result] = operands[1]

    def variable(self, name: str) -> str:
        found = [i for i, n in self.names.items() if n == name and i in self.storage]
        assert len(found) == 1, f"{name}: {found}"
        return found[0]

    def struct_named(self, name: str, member_names: list[str]) -> list[str]:
        """Every struct type named `name` whose members are `member_names` (laid-out copies)."""
        return [i for i in self.structs if self.names.get(i) == name
                and [self.member_names.get((i, k)) for k in range(len(self.structs[i]))] == member_names]

    def element(self, type_id: str) -> str:
        while type_id in self.arrays:
            type_id = self.arrays[type_id]
        return type_id


def spirv_module(source: str, tmp_path: Path, **options: object) -> tuple[Module, dict]:  # type: ignore[type-arg]
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), reflection=True, **options))  # type: ignore[arg-type]
    assert result.ok, Renderer().render(result.diagnostics)
    assert isinstance(result.reflection, Reflection)
    reflection = json.loads(result.outputs["reflection"])
    assert reflection == result.reflection.to_json()
    return Module(tools.disassemble(words_of(result.outputs["spirv"]), header=False)), reflection


def check_fields(module: Module, struct_ids: list[str], fields: list[dict]) -> int:  # type: ignore[type-arg]
    """Assert that one of `struct_ids` has exactly these members at these offsets (nested structs
    recursively); the number of members compared."""
    assert struct_ids, "no SPIR-V struct of that name and members"
    compared = 0
    for struct_id in struct_ids:
        offsets = [module.offsets.get((struct_id, k)) for k in range(len(fields))]
        if offsets != [f["offset"] for f in fields]:
            continue
        for k, field in enumerate(fields):
            compared += 1
            if field["fields"]:
                member_type = module.element(module.structs[struct_id][k])
                names = [f["name"] for f in field["fields"]]
                assert [module.member_names.get((member_type, j)) for j in range(len(names))] == names
                compared += check_fields(module, [member_type], field["fields"])
        return compared
    raise AssertionError(f"no struct among {struct_ids} has the offsets {[f['offset'] for f in fields]}: "
                         f"{[[module.offsets.get((s, k)) for k in range(len(fields))] for s in struct_ids]}")


# ---------------------------------------------------------------- records


def test_record_offsets_are_the_offset_decorations_of_the_module(tmp_path):
    module, reflection = spirv_module(RECORDS, tmp_path, enable_16bit_types=True)
    records = []
    for node in reflection["nodes"]:
        if node["input"] and node["input"]["record"]:
            records.append(node["input"]["record"])
        records.extend(o["record"] for o in node["outputs"] if o["record"])
    assert sorted({r["type"] for r in records}) == ["Arrays", "Deep", "Halves", "Nested", "Out1", "Scalars",
                                                    "Vectors"]
    compared = 0
    for record in records:
        ids = module.struct_named(record["type"], [f["name"] for f in record["fields"]])
        compared += check_fields(module, ids, record["fields"])
    assert compared >= 40


def test_record_layouts_worked_out_by_hand(tmp_path):
    """Scalar block layout: each member at the next multiple of its component size."""
    _, reflection = spirv_module(RECORDS, tmp_path, enable_16bit_types=True)
    record = {n["function"]: n["input"]["record"] for n in reflection["nodes"]}

    def offsets(name: str) -> list[tuple[str, int, int]]:
        return [(f["name"], f["offset"], f["size"]) for f in record[name]["fields"]]

    # uint 0..4, float 4..8, int 8..12, bool (4 bytes) 12..16, double at 16 (8-aligned)
    assert offsets("S") == [("grid", 0, 4), ("f", 4, 4), ("i", 8, 4), ("flag", 12, 4), ("d", 16, 8)]
    assert (record["S"]["size"], record["S"]["alignment"]) == (24, 8)
    # float2 0..8, uint2 8..16, float3 16..28, half4 28..36; align 4 -> size 36
    assert offsets("V") == [("v2", 0, 8), ("grid", 8, 8), ("v3", 16, 12), ("h4", 28, 8)]
    assert record["V"]["size"] == 36
    # float[3] 0..12, uint3 12..24, uint2[2] 24..40, float2x2 40..56
    assert offsets("A") == [("a", 0, 12), ("grid", 12, 12), ("m", 24, 16), ("mat", 40, 16)]
    arrays = {f["name"]: f for f in record["A"]["fields"]}
    assert (arrays["m"]["array_count"], arrays["m"]["array_stride"], arrays["m"]["type"]) == (2, 8, "uint2[2]")
    # Inner {uint16_t a @0; float3 b @4} = 16 bytes; uint16_t[3] @16..22; Inner[2] @24 (align 4), stride 16
    assert offsets("N") == [("inner", 0, 16), ("grid", 16, 6), ("more", 24, 32)]
    nested = record["N"]["fields"]
    assert [(f["name"], f["offset"]) for f in nested[0]["fields"]] == [("a", 0), ("b", 4)]
    assert (nested[2]["array_dims"], nested[2]["array_stride"]) == ([2], 16)
    assert [(f["name"], f["offset"]) for f in nested[2]["fields"]] == [("a", 0), ("b", 4)]
    # half 0..2, uint16_t2 at 2..6, float at 8, int16_t at 12; align 4 -> 16
    assert offsets("H") == [("h", 0, 2), ("grid", 2, 4), ("f", 8, 4), ("s", 12, 2)]
    assert record["H"]["size"] == 16
    grids = {name: record[name]["dispatch_grid"] for name in ("S", "V", "A", "N", "H")}
    assert grids == {
        "S": {"offset": 0, "components": 1, "bits": 32, "type": "uint"},
        "V": {"offset": 8, "components": 2, "bits": 32, "type": "uint2"},
        "A": {"offset": 12, "components": 3, "bits": 32, "type": "uint3"},
        "N": {"offset": 16, "components": 3, "bits": 16, "type": "uint16_t3"},
        "H": {"offset": 2, "components": 2, "bits": 16, "type": "uint16_t2"},
    }
    assert [f["semantic"] for f in record["H"]["fields"]] == [None, "SV_DispatchGrid", None, None]
    # a record holding the Nested struct: its grid is not this record's (only the input's counts)
    output = next(n for n in reflection["nodes"] if n["function"] == "N")["outputs"][0]
    assert (output["record"]["type"], output["record"]["size"], output["max_records"]) == ("Deep", 60, 4)
    assert [(f["name"], f["offset"]) for f in output["record"]["fields"]] == [("n", 0), ("tail", 56)]


# ---------------------------------------------------------------- resources


def test_bindings_resources_and_spec_constants_are_the_modules(tmp_path):
    module, reflection = spirv_module(RESOURCES, tmp_path)
    bindings = {b["name"]: b for b in reflection["descriptor_bindings"]}
    # declared but reached by no node: not in the module, not in the reflection
    assert "Unused" not in bindings
    assert list(bindings) == ["$Globals", "Frame", "Items", "Found", "Raw", "Tex", "Smp", "OnlyB"]
    for name, binding in bindings.items():
        decorations = module.decorations[module.variable(name)]
        assert (decorations["DescriptorSet"], decorations["Binding"]) == ([str(binding["set"])],
                                                                          [str(binding["binding"])]), name
        counter = binding["counter"]
        if counter is not None:
            decorations = module.decorations[module.variable(counter["name"])]
            assert (decorations["DescriptorSet"], decorations["Binding"]) == ([str(counter["set"])],
                                                                              [str(counter["binding"])])
    # hand: register(b1, space2) -> set 2 binding 1; vk::binding(9, 3); t2 space1 -> set 1 binding 2
    assert (bindings["Frame"]["set"], bindings["Frame"]["binding"], bindings["Frame"]["register"]) == \
        (2, 1, {"class": "b", "number": 1, "space": 2})
    assert (bindings["Smp"]["set"], bindings["Smp"]["binding"], bindings["Smp"]["register"]) == (3, 9, None)
    assert (bindings["Tex"]["set"], bindings["Tex"]["binding"], bindings["Tex"]["count"]) == (1, 2, 4)
    assert bindings["Tex"]["vk_descriptor_type"] == "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE"
    assert bindings["Raw"]["globally_coherent"] and not bindings["Items"]["globally_coherent"]
    assert bindings["Found"]["counter"]["used_by"] == ["First"]
    assert bindings["Items"]["counter"] is None          # declared, never used: not in the module
    assert bindings["Raw"]["used_by"] == ["First", "Second"]
    # std430 element: float3 @0, uint @12 -> 16 bytes, the runtime array's ArrayStride
    items = bindings["Items"]["layout"]
    assert (items["rule"], items["size"], items["stride"]) == ("std430", 16, 16)
    assert [(f["name"], f["offset"]) for f in items["fields"]] == [("pos", 0), ("id", 12)]
    # std140 cbuffer: float4x4 @0 (64 bytes), uint @64
    frame = bindings["Frame"]["layout"]
    assert [(f["name"], f["offset"]) for f in frame["fields"]] == [("view", 0), ("count", 64)]
    check_fields(module, module.struct_named("type.Frame", ["view", "count"]), frame["fields"])
    # the push-constant block: a range of its size, dxc's relaxed std430: uint @0, float2 @4 (a
    # vector needs only its component's alignment unless it would straddle 16 bytes), align 8 -> 16
    (push,) = reflection["push_constant_ranges"]
    assert (push["name"], push["offset"], push["size"], push["stages"]) == ("pc", 0, 16, ["compute"])
    assert [(f["name"], f["offset"]) for f in push["layout"]["fields"]] == [("frame", 0), ("jitter", 4)]
    assert module.storage[module.variable("pc")] == "PushConstant"
    check_fields(module, module.struct_named("type.pc", ["frame", "jitter"]), push["layout"]["fields"])
    specs = reflection["specialization_constants"]
    assert specs == [{"name": "Lanes", "spec_id": 7, "type": "uint", "default": 4},
                     {"name": "Fast", "spec_id": 8, "type": "bool", "default": True}]
    for spec in specs:
        ids = [i for i, n in module.names.items() if n == spec["name"]]
        assert [module.decorations[i]["SpecId"] for i in ids] == [[str(spec["spec_id"])]]


DESCRIPTOR_STORAGE = {"Uniform", "StorageBuffer", "UniformConstant", "PushConstant"}


def node_resources_match_interfaces(module: Module, reflection: dict) -> int:  # type: ignore[type-arg]
    checked = 0
    for node in reflection["nodes"]:
        interface = module.entry_points[node["entry_point"]]
        names = {module.names[i] for i in interface if module.storage.get(i) in DESCRIPTOR_STORAGE}
        assert set(node["resources"]) == names, node["function"]
        checked += len(names)
    return checked


def test_each_nodes_resources_are_its_entry_point_interface(tmp_path):
    module, reflection = spirv_module(RESOURCES, tmp_path)
    assert node_resources_match_interfaces(module, reflection) == 11
    assert [n["resources"] for n in reflection["nodes"]] == [
        ["Items", "Found", "pc", "Raw", "Frame", "Tex", "Smp", "$Globals", "counter.var.Found"],
        ["Raw", "OnlyB"]]


def test_a_static_initialiser_reaches_what_it_names(tmp_path):
    source = """
RWStructuredBuffer<uint> Table : register(u0);
StructuredBuffer<uint> Seed : register(t1);
uint first() { return Seed[0]; }
static uint start = first() + 1;
[Shader("node")] [NodeLaunch("thread")]
void T() { Table[0] = start; }
"""
    module, reflection = spirv_module(source, tmp_path)
    assert reflection["nodes"][0]["resources"] == ["Table", "Seed"]
    node_resources_match_interfaces(module, reflection)


NOT_COMPILING: set[str] = set()
COMPILING_SAMPLES = [p for p in sorted(SAMPLES.glob("*.hlsl")) if p.stem not in NOT_COMPILING]


def sample_reflection(path: Path, **options: object) -> driver.Result:
    options.setdefault("max_graph_depth", 1000)   # the loop samples unroll deeper than 32 (test_spirv_goldens)
    return driver.compile(driver.Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),), reflection=True,
                                         proposals=sample_proposals(path), **options))  # type: ignore[arg-type]


@pytest.mark.parametrize("path", COMPILING_SAMPLES, ids=[p.stem for p in COMPILING_SAMPLES])
def test_sample_reflection_agrees_with_its_module_and_golden(path, update_goldens):
    result = sample_reflection(path)
    assert result.ok and all(d.code == "WG0604" for d in result.diagnostics), Renderer().render(result.diagnostics)
    text = result.outputs["reflection"].decode()
    reflection = json.loads(text)
    assert (reflection["format"], reflection["version"]) == (FORMAT, VERSION) == ("wgc-reflection", 2)
    module = Module(tools.disassemble(words_of(result.outputs["spirv"]), header=False))
    node_resources_match_interfaces(module, reflection)
    for node in reflection["nodes"]:
        for record in [node["input"] and node["input"]["record"]] + [o["record"] for o in node["outputs"]]:
            if record:
                check_fields(module, module.struct_named(record["type"], [f["name"] for f in record["fields"]]),
                             record["fields"])
    golden = GOLDEN_DIR / f"{path.stem}.json"
    if update_goldens:
        GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden for {path.name}: run pytest --update-goldens"
    assert text == golden.read_text(), f"reflection of {path.name} differs from {golden}"


def test_every_reflection_golden_has_a_sample():
    stems = {p.stem for p in COMPILING_SAMPLES}
    assert sorted(g.stem for g in GOLDEN_DIR.iterdir() if g.stem not in stems) == []


def test_split_nodes_names_each_nodes_module_and_entry_point():
    path = SAMPLES / "material_dispatch.hlsl"
    whole = json.loads(sample_reflection(path).outputs["reflection"])
    split = json.loads(sample_reflection(path, split_nodes=True).outputs["reflection"])
    # members of one node array keep their function names in one module (WG0604), their NodeID name alone
    assert [n["entry_point"] for n in whole["nodes"] if n["entry_point"] != n["id"]["name"]] == \
        ["MaterialOpaque", "MaterialMetal", "MaterialFoliage", "MaterialEmissive"]     # Material[1..4]
    assert [(n["module"], n["entry_point"]) for n in split["nodes"]] == \
        [(f"{n['function']}.spv", n["id"]["name"]) for n in whole["nodes"]]
    assert all(n["module"] is None for n in whole["nodes"])


def test_entry_restricts_the_reflection_to_one_node(tmp_path):
    path = tmp_path / "graph.hlsl"
    path.write_text(RESOURCES)
    result = driver.compile(driver.Options(input=str(path), emit="reflection", entry="Second"))
    assert result.ok and "spirv" not in result.outputs
    reflection = json.loads(result.outputs["reflection"])
    assert [n["function"] for n in reflection["nodes"]] == ["Second"]
    assert [b["name"] for b in reflection["descriptor_bindings"]] == ["Raw", "OnlyB"]
    assert reflection["push_constant_ranges"] == []
    assert [b["used_by"] for b in reflection["descriptor_bindings"]] == [["Second"], ["Second"]]


# ---------------------------------------------------------------- command line


def test_fre_writes_the_reflection_beside_the_module_and_the_depfile_names_the_module(run_wgc, tmp_path):
    (tmp_path / "graph.hlsl").write_text('#include "inc.h"\n' + RESOURCES)
    (tmp_path / "inc.h").write_text("// nothing\n")
    done = run_wgc("compile", "graph.hlsl", "-o", "graph.spv", "-Fre", "graph.json", "-MD", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == done.stderr == b""
    reflection = json.loads((tmp_path / "graph.json").read_text())
    assert [n["entry_point"] for n in reflection["nodes"]] == ["First", "Second"]
    assert (tmp_path / "graph.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
    assert (tmp_path / "graph.spv.d").read_text() == "graph.spv: \\\n  graph.hlsl \\\n  inc.h\n"


def test_dxc_spelling_with_fre(run_wgc, tmp_path):
    (tmp_path / "graph.hlsl").write_text(RESOURCES)
    done = run_wgc("-T", "lib_6_8", "-spirv", "-Fo", "out.spv", "-Fre", "out.json", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads((tmp_path / "out.json").read_text())["profile"] == "lib_6_8"


def test_emit_reflection_to_standard_output_and_to_a_file(run_wgc, tmp_path):
    (tmp_path / "graph.hlsl").write_text(RESOURCES)
    done = run_wgc("compile", "graph.hlsl", "--emit=reflection", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["format"] == "wgc-reflection"
    assert not (tmp_path / "a.spv").exists()
    same = run_wgc("compile", "graph.hlsl", "--emit=reflection", "-o", "-", cwd=tmp_path)
    assert same.stdout == done.stdout
    to_file = run_wgc("compile", "graph.hlsl", "--emit=reflection", "-o", "r.json", "-MD", cwd=tmp_path)
    assert to_file.returncode == 0 and to_file.stdout == b""
    assert (tmp_path / "r.json").read_bytes() == done.stdout
    assert (tmp_path / "r.json.d").read_text() == "r.json: \\\n  graph.hlsl\n"


@pytest.mark.parametrize("args, message", [
    (["--emit=ir", "-Fre", "r.json"], "Error: -Fre writes the reflection beside the SPIR-V: it cannot be "
                                      "combined with --emit=ir\n"),
    (["--emit=reflection", "-Fre", "r.json"], "Error: -Fre writes the reflection beside the SPIR-V: it cannot "
                                              "be combined with --emit=reflection (use -o)\n"),
    (["--emit=reflection", "--split-nodes", "d"], "Error: --emit=reflection writes one JSON document: it cannot "
                                                  "be combined with --split-nodes (write the reflection beside "
                                                  "the modules with -Fre FILE)\n"),
])
def test_reflection_usage_errors_exit_2(run_wgc, tmp_path, args, message):
    (tmp_path / "graph.hlsl").write_text(RESOURCES)
    done = run_wgc("compile", "graph.hlsl", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode().endswith(message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.hlsl"]


def test_reflection_output_errors_leave_nothing_behind(run_wgc, tmp_path):
    (tmp_path / "graph.hlsl").write_text(RESOURCES)
    (tmp_path / "graph.spv").write_bytes(b"old")
    (tmp_path / "graph.json").write_bytes(b"old")
    done = run_wgc("compile", "graph.hlsl", "-o", "graph.spv", "-Fre", "missing/graph.json", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == ("error: cannot write 'missing/graph.json': No such file or directory "
                                    "[WG0007]\n1 error generated.\n")
    assert not (tmp_path / "graph.spv").exists()           # the earlier run's output is removed
    same = run_wgc("compile", "graph.hlsl", "-o", "graph.json", "-Fre", "./graph.json", cwd=tmp_path)
    assert same.returncode == 1
    assert b"[WG0009]" in same.stderr
    assert (tmp_path / "graph.json").read_bytes() == b"old"   # refused: nothing written or removed
    source = run_wgc("compile", "graph.hlsl", "-Fre", "graph.hlsl", cwd=tmp_path)
    assert source.stderr.decode() == ("error: input file 'graph.hlsl' is the same as output file 'graph.hlsl' "
                                      "(-Fre) [WG0008]\n1 error generated.\n")
    assert (tmp_path / "graph.hlsl").read_text() == RESOURCES


def test_no_reflection_for_a_program_with_errors_or_nothing_to_compile(run_wgc, tmp_path):
    (tmp_path / "bad.hlsl").write_text(RESOURCES.replace("uint count;", "uint count"))
    (tmp_path / "bad.json").write_bytes(b"old")
    done = run_wgc("compile", "bad.hlsl", "--emit=reflection", "-o", "bad.json", cwd=tmp_path)
    assert done.returncode == 1 and b"error:" in done.stderr
    assert not (tmp_path / "bad.json").exists()
    (tmp_path / "empty.hlsl").write_text("float4 f() { return 0; }\n")
    empty = run_wgc("compile", "empty.hlsl", "--emit=reflection", cwd=tmp_path)
    assert (empty.returncode, empty.stdout) == (1, b"")
    assert empty.stderr.decode() == ('error: the input has no [Shader("node")] function (nor a compute, pixel, mesh '
                                     "or amplification shader), so there is nothing to compile [WG0603]\n"
                                     "1 error generated.\n")
    entry = run_wgc("compile", "bad.hlsl", "--emit=reflection", "-E", "Nope", cwd=tmp_path)
    assert entry.returncode == 1


def test_a_graph_the_target_cannot_express_has_no_reflection(tmp_path):
    path = tmp_path / "shared.hlsl"        # an atomic on a shared input record: WG0620, made an error
    path.write_text('struct [NodeTrackRWInputSharing] S { uint grid : SV_DispatchGrid; uint total; };\n'
                    '[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8, 1, 1)] [NumThreads(64, 1, 1)]\n'
                    'void N(globallycoherent RWDispatchNodeInputRecord<S> r) { InterlockedAdd(r.Get().total, 1); }\n')
    result = driver.compile(driver.Options(input=str(path), emit="reflection",
                                           warning_flags=("error=amdx-record-atomics",)))
    assert not result.ok and {d.code for d in result.diagnostics if d.code.startswith("WG06")} == {"WG0620"}
    assert result.outputs == {} and result.reflection is None


def test_each_node_lists_the_loops_holding_it_outermost_first():
    """seed_loops_nested: the outer entry feeds the inner entry, which feeds the terminal, which
    feeds both entries (the proposal's rule: a node in two loops belongs to the inner one too)."""
    path = SAMPLES / "seed_loops_nested.hlsl"
    result = driver.compile(driver.Options(input=str(path), emit="reflection", target="emulated",
                                           proposals=sample_proposals(path)))
    assert result.ok, result.diagnostics
    outer = {"name": "MyOuterLoopEntry", "index": 0}
    inner = {"name": "MyInnerLoopEntry", "index": 0}
    loops = {n["function"]: n["loops"] for n in json.loads(result.outputs["reflection"])["nodes"]}
    assert loops == {"MyOuterLoopEntry": [outer], "MyInnerLoopEntry": [outer, inner],
                     "MyLoopTerminal": [outer, inner]}


@pytest.mark.parametrize("declaration", [
    "[[vk::push_constant]] struct { int value; float2 uv; } push_const;",
    "[[vk::push_constant]] struct PC { int value; float2 uv; } push_const;",
])
def test_a_push_constant_struct_declared_with_its_variable(tmp_path, declaration):
    """dxc's implicit.global.ubo.hlsl: `[[vk::push_constant]] struct {...} v;` is a push-constant
    block, not a `$Globals` member (wgc put it in `$Globals` before)."""
    source = declaration + """
float myGlobal;
RWStructuredBuffer<float> Out : register(u0);
[Shader("node")] [NodeLaunch("thread")]
void T() { Out[0] = push_const.value + push_const.uv.y + myGlobal; }
"""
    module, reflection = spirv_module(source, tmp_path)
    (push,) = reflection["push_constant_ranges"]
    # relaxed std430: int @0, float2 @4 (no 16-byte straddle), struct alignment 8 -> 16 bytes
    assert (push["name"], push["size"]) == ("push_const", 16)
    assert [(f["name"], f["offset"]) for f in push["layout"]["fields"]] == [("value", 0), ("uv", 4)]
    globals_block = next(b for b in reflection["descriptor_bindings"] if b["name"] == "$Globals")
    assert [f["name"] for f in globals_block["layout"]["fields"]] == ["myGlobal"]
    assert module.storage[module.variable("push_const")] == "PushConstant"


def test_fre_beside_split_modules_names_each_module(run_wgc, tmp_path):
    (tmp_path / "graph.hlsl").write_text(RESOURCES)
    done = run_wgc("compile", "graph.hlsl", "--split-nodes", "mods", "-Fre", "graph.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    reflection = json.loads((tmp_path / "graph.json").read_text())
    assert [(n["module"], n["entry_point"]) for n in reflection["nodes"]] == [("First.spv", "First"),
                                                                             ("Second.spv", "Second")]
    assert sorted(p.name for p in (tmp_path / "mods").iterdir() if p.suffix == ".spv") == ["First.spv",
                                                                                          "Second.spv"]
