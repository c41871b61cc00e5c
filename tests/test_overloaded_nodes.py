"""Overloaded node shaders and duplicate NodeIDs (WG0501, a warning): what every stage does with them.

HLSL lets two `[Shader("node")]` functions share a name when their parameter types differ (DXC
accepts it: dispatch_grid_type_nodeoutput.hlsl, barrier-node.hlsl); both get the default NodeID
(name, 0). A library may hold both, a graph only one of them. Each node has a key (`f`, `f.2`):
distinct entry points in one module, distinct `--split-nodes` files, `-E f.N`, distinct nodes in
`wgc inspect`; the graph analysis takes the union of the graphs the application can form.

Expected values come from the rules (docs/guide.md "Overloaded node shaders", graph.py's docstring), worked
out by hand in the comments; SPIR-V modules are validated by `compile_hlsl` (spirv-val, vulkan1.3).
"""

from __future__ import annotations

import json

from spirv_util import compile_hlsl, words_of
from wgc import driver
from wgc.diagnostics import Renderer, Severity
from wgc.spirv import tools

OVERLOADS = """struct A { uint x; };
struct B { float y; };

[Shader("node")]
[NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<A> input) {}

[Shader("node")]
[NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<B> input) {}

[Shader("node")]
[NodeLaunch("broadcasting")]
[NodeDispatchGrid(1, 1, 1)]
[NumThreads(1, 1, 1)]
void Root([MaxRecords(2)] NodeOutput<B> Leaf) {
    ThreadNodeOutputRecords<B> r = Leaf.GetThreadNodeOutputRecords(1);
    r.Get().y = 1.0;
    r.OutputComplete();
}
"""
"""Two overloads of Leaf (records A and B); Root sends B records to NodeID Leaf: only Leaf(B) takes them."""


def compile_source(source: str, tmp_path, **options) -> driver.Result:  # type: ignore[no-untyped-def]
    path = tmp_path / "graph.hlsl"
    path.write_text(source)
    return driver.compile(driver.Options(input=str(path), **options))


def entry_points(asm: str) -> list[str]:
    return [line.split('"')[1] for line in asm.splitlines() if "OpEntryPoint" in line]


def codes_of(result: driver.Result) -> list[str]:
    return [d.code for d in result.diagnostics]


# ---------------------------------------------------------------- SPIR-V: one module, split, -E

def test_overloads_get_distinct_entry_points_in_one_module(tmp_path):
    c = compile_hlsl(OVERLOADS, tmp_path)          # validated with spirv-val (vulkan1.3)
    assert entry_points(c.asm) == ["Leaf", "Leaf.2", "Root"]
    assert 'OpName %Leaf_2 "Leaf.2"' in c.asm                  # the entry function is named by its key too
    # both carry NodeID (Leaf, 0); the first keeps the NodeID name, the second is named by its key
    modes = c.lines("OpExecutionModeId")
    assert "OpExecutionModeId %Leaf ShaderIndexAMDX %uint_0" in modes
    assert "OpExecutionModeId %Leaf_2 ShaderIndexAMDX %uint_0" in modes
    # Root's output only reaches Leaf(B): Leaf(A) is targeted by nothing, so it is an entry
    assert "OpExecutionModeId %Leaf IsApiEntryAMDX %true" in modes
    assert "OpExecutionModeId %Leaf_2 IsApiEntryAMDX %false" in modes
    assert "OpExecutionModeId %Root IsApiEntryAMDX %true" in modes
    # the output names the NodeID, never a key
    assert [line.split('"')[1] for line in c.lines("OpConstantStringAMDX")] == ["Leaf"]
    assert "OpDecorateId %Root_Leaf PayloadNodeNameAMDX" in c.asm


def test_only_the_duplicate_node_id_warning_is_given(tmp_path):
    result = compile_source(OVERLOADS, tmp_path)
    assert result.ok and codes_of(result) == ["WG0501"]          # no WG0604: these are not array members
    assert result.diagnostics[0].severity is Severity.WARNING
    quiet = compile_source(OVERLOADS, tmp_path, warning_flags=("no-duplicate-node-id",))
    assert quiet.ok and quiet.diagnostics == ()
    strict = compile_source(OVERLOADS, tmp_path, warning_flags=("error=duplicate-node-id",))
    assert not strict.ok and strict.outputs == {}


def test_split_nodes_names_each_module_by_key_and_each_entry_point_by_node_id(tmp_path):
    result = compile_source(OVERLOADS, tmp_path, split_nodes=True)
    assert result.ok
    assert sorted(result.outputs) == ["spirv:Leaf", "spirv:Leaf.2", "spirv:Root"]
    for key, entry in (("Leaf", "Leaf"), ("Leaf.2", "Leaf"), ("Root", "Root")):
        words = words_of(result.outputs[f"spirv:{key}"])
        assert tools.validate(words, "vulkan1.3", scalar_block_layout=True) == []
        assert entry_points(tools.disassemble(words)) == [entry]
    # the module of the second overload holds the B input: a float member
    assert "OpTypeFloat 32" in tools.disassemble(words_of(result.outputs["spirv:Leaf.2"]))
    assert "OpTypeFloat 32" not in tools.disassemble(words_of(result.outputs["spirv:Leaf"]))


def test_split_nodes_files_on_disk_and_a_removed_overload_leaves_no_stale_module(run_wgc, tmp_path):
    (tmp_path / "graph.hlsl").write_text(OVERLOADS)
    done = run_wgc("compile", "--split-nodes", "nodes", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "nodes").iterdir()) == [
        ".wgc.manifest", "Leaf.2.spv", "Leaf.spv", "Root.spv"]
    # without the second overload (and Root, which targets it), Leaf.2.spv is stale and removed
    (tmp_path / "graph.hlsl").write_text(OVERLOADS.split("[Shader(\"node\")]\n[NodeLaunch(\"thread\")]\n"
                                                         "void Leaf(ThreadNodeInputRecord<B>")[0])
    again = run_wgc("compile", "--split-nodes", "nodes", "graph.hlsl", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in (tmp_path / "nodes").iterdir()) == [".wgc.manifest", "Leaf.spv"]


def test_entry_option_naming_overloads_is_an_error_listing_the_candidates(tmp_path):
    result = compile_source(OVERLOADS, tmp_path, entry="Leaf", warning_flags=("no-duplicate-node-id",))
    assert not result.ok and result.outputs == {}
    assert Renderer().render(result.diagnostics).replace(str(tmp_path), "") == (
        "error: -E Leaf: 2 node shaders have that name (overloads); choose one: -E Leaf.1, -E Leaf.2 [WG0603]\n"
        "/graph.hlsl:6:6: note: -E Leaf.1: 'void Leaf(ThreadNodeInputRecord<A> input)'\n"
        "void Leaf(ThreadNodeInputRecord<A> input) {}\n"
        "     ^~~~\n"
        "/graph.hlsl:10:6: note: -E Leaf.2: 'void Leaf(ThreadNodeInputRecord<B> input)'\n"
        "void Leaf(ThreadNodeInputRecord<B> input) {}\n"
        "     ^~~~\n"
        "1 error generated.\n")


def test_entry_option_selects_one_overload_by_position(tmp_path):
    first = compile_hlsl(OVERLOADS, tmp_path, entry="Leaf.1")
    second = compile_hlsl(OVERLOADS, tmp_path, entry="Leaf.2")
    # a module of one node: its entry point is named by NodeID
    assert entry_points(first.asm) == ["Leaf"] and entry_points(second.asm) == ["Leaf"]
    assert "OpTypeFloat 32" not in first.asm and "OpTypeFloat 32" in second.asm
    assert entry_points(compile_hlsl(OVERLOADS, tmp_path, entry="Root").asm) == ["Root"]
    for missing in ("Leaf.3", "Root.1", "Leaf.0"):
        result = compile_source(OVERLOADS, tmp_path, entry=missing)
        assert [f"{d.code}: {d.message}" for d in result.diagnostics if d.severity >= Severity.ERROR] == [
            f"WG0603: -E {missing}: no node shader or entry point function has that name"]


def test_entry_option_exit_code_on_the_command_line(run_wgc, tmp_path):
    (tmp_path / "graph.hlsl").write_text(OVERLOADS)
    done = run_wgc("compile", "-E", "Leaf", "-o", "x.spv", "graph.hlsl", cwd=tmp_path)
    assert done.returncode == 1 and not (tmp_path / "x.spv").exists()
    assert b"choose one: -E Leaf.1, -E Leaf.2 [WG0603]" in done.stderr
    chosen = run_wgc("compile", "-E", "Leaf.2", "-o", "x.spv", "graph.hlsl", cwd=tmp_path)
    assert chosen.returncode == 0, chosen.stderr


def test_overloaded_array_members_in_one_module_are_named_by_their_keys(tmp_path):
    # NodeIDs Mat[0] (twice: overloads of M) and Mat[1]: one module needs three entry point names
    source = """struct A { uint x; };
struct B { float y; };
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)] void M(ThreadNodeInputRecord<A> input) {}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)] void M(ThreadNodeInputRecord<B> input) {}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 1)] void N(ThreadNodeInputRecord<A> input) {}
"""
    c = compile_hlsl(source, tmp_path)
    assert entry_points(c.asm) == ["M", "M.2", "N"]
    result = compile_source(source, tmp_path)
    assert codes_of(result) == ["WG0501", "WG0604"]
    assert result.diagnostics[1].message == (
        "nodes 'M', 'M.2', 'N' are members of node array 'Mat' in one module: their entry points are named by "
        "their keys (the function name, 'name.N' for the N-th overload), because one module cannot hold two "
        "GLCompute entry points of one name")


# ---------------------------------------------------------------- wgc inspect

def test_inspect_text_shows_both_overloads(tmp_path):
    result = compile_source(OVERLOADS, tmp_path, emit="text")
    assert result.ok
    assert result.outputs["text"].decode() == "\n".join([
        "work graph: 3 nodes, profile lib_6_9, depth 2 (limit 32)",
        "entries: Leaf (Leaf), Root",
        "",
        "Leaf  [thread, entry]  NodeID Leaf[0]  SPIR-V entry point Leaf",
        "  function: void Leaf(ThreadNodeInputRecord<A> input)",
        "  threads: 1x1x1",
        "  input: ThreadNodeInputRecord<A> (4 bytes, align 4)",
        "  outputs: none",
        "  backing memory: 0 bytes",
        "",
        "Leaf.2  [thread]  NodeID Leaf[0]  SPIR-V entry point Leaf.2",
        "  function: void Leaf(ThreadNodeInputRecord<B> input)",
        "  threads: 1x1x1",
        "  input: ThreadNodeInputRecord<B> (4 bytes, align 4)",
        "  outputs: none",
        "  backing memory: 0 bytes",
        "",
        "Root  [broadcasting, entry]  NodeID Root[0]  SPIR-V entry point Root",
        "  threads: 1x1x1",
        "  dispatch grid: 1x1x1",
        "  input: none",
        "  output 0 Leaf: NodeOutput<B> (4 bytes, align 4), MaxRecords 2 -> Leaf",
        "  backing memory: 16 bytes",                      # 2 records x 8 bytes (4 rounded up to 8)
        "",
        "graph:",
        "  edges:",
        "    Root --Leaf (≤2)--> Leaf (Leaf.2)",
        "  loops: none",
        "  longest chain: Root -> Leaf (Leaf.2) (depth 2)",
        "  NodeID slots: 2",
        "  backing memory: 16 bytes",
        ""])


def test_inspect_json_dot_and_dxil_tell_the_overloads_apart(tmp_path):
    model = json.loads(compile_source(OVERLOADS, tmp_path, emit="json").outputs["json"])
    assert [(n["function"], n["key"], n["signature"], n["entry_point"], n["graph_name"], n["program_entry"])
            for n in model["nodes"]] == [
        ("Leaf", "Leaf", "void Leaf(ThreadNodeInputRecord<A> input)", "Leaf", "Leaf (Leaf)", True),
        ("Leaf", "Leaf.2", "void Leaf(ThreadNodeInputRecord<B> input)", "Leaf.2", "Leaf (Leaf.2)", False),
        ("Root", "Root", "void Root(NodeOutput<B> Leaf)", "Root", "Root", True)]
    assert [(e["from"], e["to"]) for e in model["graph"]["edges"]] == [("Root", "Leaf (Leaf.2)")]
    assert model["graph"]["entry_nodes"] == ["Leaf (Leaf)", "Root"]
    dot = compile_source(OVERLOADS, tmp_path, emit="dot").outputs["dot"].decode()
    assert '  "Leaf (Leaf)" [label="Leaf\\nthread\\nA", style="rounded,bold", peripheries=2];' in dot
    assert '  "Leaf (Leaf.2)" [label="Leaf\\n(Leaf.2)\\nentry point Leaf.2\\nthread\\nB"];' in dot
    assert '  "Root" -> "Leaf (Leaf.2)" [label="Leaf (≤2)"];' in dot
    dxil = compile_source(OVERLOADS, tmp_path, emit="dxil").outputs["dxil"].decode()
    assert "declare void @Leaf()" in dxil and "declare void @Leaf.2()" in dxil
    assert '!{void ()* @Leaf.2, !"Leaf.2"}' in dxil
    # deterministic: the same input gives the same views
    assert compile_source(OVERLOADS, tmp_path, emit="dot").outputs["dot"].decode() == dot


# ---------------------------------------------------------------- the graph analysis

RECURSIVE_OVERLOADS = """struct A { uint x; };
struct B { float y; };
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(3)]
void Rec(ThreadNodeInputRecord<A> input, [MaxRecords(1)] NodeOutput<A> Rec) {
    ThreadNodeOutputRecords<A> r = Rec.GetThreadNodeOutputRecords(1); r.Get().x = 1; r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(2)]
void Rec(ThreadNodeInputRecord<B> input, [MaxRecords(1)] NodeOutput<B> Rec) {
    ThreadNodeOutputRecords<B> r = Rec.GetThreadNodeOutputRecords(1); r.Get().y = 1; r.OutputComplete();
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Root([MaxRecords(1)] NodeOutput<B> Rec) {
    ThreadNodeOutputRecords<B> q = Rec.GetThreadNodeOutputRecords(1); q.Get().y = 1; q.OutputComplete();
}
"""


def test_recursive_overloads_each_target_only_themselves(tmp_path):
    result = compile_source(RECURSIVE_OVERLOADS, tmp_path, emit="json")
    assert result.ok and codes_of(result) == ["WG0501"]        # no WG0512 (own array), no WG0502
    graph = json.loads(result.outputs["json"])["graph"]
    assert [(e["from"], e["to"], e["recursive"]) for e in graph["edges"]] == [
        ("Rec (Rec)", "Rec (Rec)", True), ("Rec (Rec.2)", "Rec (Rec.2)", True), ("Root", "Rec (Rec.2)", False)]
    # depth: Rec(A) alone is 1 + 3 levels; Root -> Rec(B) is 1 + (1 + 2) = 4; Root never feeds Rec(A)
    # (it sends B records), so no chain is 1 + 4 = 5
    assert graph["depth"] == 4
    assert graph["longest_chain"] == ["Rec (Rec)"]
    # slots: NodeIDs Rec and Root (2) + the larger recursion of the two Rec nodes (3)
    assert graph["node_id_slots"] == 5
    # backing: Root 1 x 8; Rec(A) 1 x 8 x (1 + 3) = 32, Rec(B) 1 x 8 x (1 + 2) = 24: a graph holds one Rec
    nodes = json.loads(result.outputs["json"])["nodes"]
    assert [n["backing_bytes"] for n in nodes] == [32, 24, 8]
    assert graph["backing_bytes"] == 8 + 32
    assert compile_hlsl(RECURSIVE_OVERLOADS, tmp_path).count("OpAllocateNodePayloadsAMDX") == 3


def test_a_record_mismatch_is_reported_only_when_no_node_of_the_id_takes_the_record(tmp_path):
    source = OVERLOADS.replace("struct B { float y; };", "struct B { float y; };\nstruct C { int z; };") \
        .replace("NodeOutput<B> Leaf", "NodeOutput<C> Leaf").replace("ThreadNodeOutputRecords<B> r",
                                                                      "ThreadNodeOutputRecords<C> r") \
        .replace("r.Get().y = 1.0;", "r.Get().z = 1;")
    result = compile_source(source, tmp_path, emit="json", warning_flags=("no-duplicate-node-id",))
    assert [f"{d.code}: {d.message}" for d in result.diagnostics] == [
        "WG0502: output 'Leaf' sends record 'C' to 'Leaf', whose input takes record 'A'",
        "WG0502: output 'Leaf' sends record 'C' to 'Leaf', whose input takes record 'B'"]


def test_array_members_are_checked_against_one_node_of_the_first_node_id(tmp_path):
    source = """struct A { uint x; };
struct B { float y; };
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)] void M(ThreadNodeInputRecord<A> input) {}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)] void M(ThreadNodeInputRecord<B> input) {}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 1)] void N(ThreadNodeInputRecord<B> input) {}
"""
    # N agrees with M(B): an array {M(B), N} is consistent, though M(A) differs from N
    assert codes_of(compile_source(source, tmp_path, emit="json")) == ["WG0501"]
    broken = source.replace("void N(ThreadNodeInputRecord<B> input) {}",
                            "void N(ThreadNodeInputRecord<B> input) {}\n"
                            "[Shader(\"node\")] [NodeLaunch(\"coalescing\")] [NumThreads(1, 1, 1)] "
                            "[NodeID(\"Mat\", 2)] void K() {}")
    result = compile_source(broken, tmp_path, emit="json")
    assert [f"{d.code}: {d.message}" for d in result.diagnostics if d.code != "WG0501"] == [
        "WG0507: 'Mat[2]' and 'Mat' are nodes of one array but their launch modes differ (thread, coalescing)"]


def test_duplicate_node_ids_in_a_deep_chain_do_not_crash_and_count_once(tmp_path):
    # N1 -> N2 -> N3 where every N has two overloads (records A and B): each chain is 3 deep
    parts = ["struct A { uint x; };", "struct B { float y; };"]
    for i in (1, 2, 3):
        for record in ("A", "B"):
            out = f", [MaxRecords(1)] NodeOutput<{record}> N{i + 1}" if i < 3 else ""
            parts.append(f'[Shader("node")] [NodeLaunch("thread")] void N{i}(ThreadNodeInputRecord<{record}> input{out}) {{}}')
    source = "\n".join(parts) + "\n"
    result = compile_source(source, tmp_path, emit="json", warning_flags=("no-duplicate-node-id",))
    assert result.ok, Renderer().render(result.diagnostics)
    graph = json.loads(result.outputs["json"])["graph"]
    assert graph["depth"] == 3 and graph["node_id_slots"] == 3
    assert graph["entry_nodes"] == ["N1 (N1)", "N1 (N1.2)"]
    assert [(e["from"], e["to"]) for e in graph["edges"]] == [
        ("N1 (N1)", "N2 (N2)"), ("N1 (N1.2)", "N2 (N2.2)"), ("N2 (N2)", "N3 (N3)"), ("N2 (N2.2)", "N3 (N3.2)")]
    assert entry_points(compile_hlsl(source, tmp_path).asm) == ["N1", "N1.2", "N2", "N2.2", "N3", "N3.2"]


# ---------------------------------------------------------------- other functions of one name

def test_plain_exported_and_template_overloads_called_from_overloaded_nodes(tmp_path):
    source = """struct A { uint x; };
struct B { float y; };
RWStructuredBuffer<uint> Out : register(u0);
uint helper(uint v) { return v + 1; }
float helper(float v) { return v * 2; }
export uint exported(uint v) { return v + 3; }
export float exported(float v) { return v + 4; }
template<typename T> T twice(T v) { return v + v; }
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<A> input) { Out[0] = helper(input.Get().x) + exported(2u) + twice(3u); }
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<B> input) { Out[1] = (uint)(helper(input.Get().y) + exported(2.0f) + twice(1.5f)); }
"""
    c = compile_hlsl(source, tmp_path)
    assert entry_points(c.asm) == ["Leaf", "Leaf.2"]
    names = [line.split('"')[1] for line in c.lines("OpName") if line.split()[1].startswith(("%helper", "%exported",
                                                                                              "%twice"))]
    # each overload and each instance is its own function: 2 helpers, 2 exported, twice<uint>, twice<float>
    assert sorted(names) == ["exported", "exported", "helper", "helper", "twice<float>", "twice<uint>"]
    assert c.count("OpFunction") == 8               # 6 helpers + 2 entry points
    ir = compile_source(source, tmp_path, emit="ir").outputs["ir"].decode()
    assert "call helper(" in ir and "call twice<float>(" in ir


def test_sharing_the_input_of_a_duplicate_node_id_needs_one_node_that_allows_it(tmp_path):
    grid = '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]'
    source = "\n".join([
        "struct A { uint x; };", "struct B { float y; };", "struct C { int z; };",
        grid, "void Leaf(DispatchNodeInputRecord<A> input) {}",
        grid, "void Leaf(DispatchNodeInputRecord<B> input) {}",
        grid + ' [NodeShareInputOf("Leaf")]', "void Sharer(DispatchNodeInputRecord<B> input) {}"]) + "\n"
    # Sharer's record B is Leaf(B)'s: allowed with that one of the two
    result = compile_source(source, tmp_path, emit="json", warning_flags=("no-duplicate-node-id",))
    assert result.ok and result.diagnostics == ()
    bad = source.replace("void Sharer(DispatchNodeInputRecord<B>", "void Sharer(DispatchNodeInputRecord<C>")
    result = compile_source(bad, tmp_path, emit="json", warning_flags=("no-duplicate-node-id",))
    assert [f"{d.code}: {d.message}" for d in result.diagnostics] == [
        "WG0506: [NodeShareInputOf(\"Leaf\")] is not allowed: its input record differs from the input record of "
        "'Leaf'"]
