"""SPIR-V back end: work-graph constructs, entry points, functions and control flow.

Each test compiles a small graph with `compile_hlsl` (the driver validates the module in process
with spirv-val and wgc's lint, and the helper validates it once more) and asserts the instructions
the construct must produce.
"""

from __future__ import annotations

import re

import pytest

from spirv_util import compile_errors, compile_hlsl, words_of
from conftest import SAMPLES
from wgc import driver

RECORDS = """
struct Rec { uint value; float weight; };
struct Grid { uint3 grid : SV_DispatchGrid; uint count; };
"""


def mode_line(compiled, entry: str, mode: str) -> str:
    found = [line for line in compiled.lines("OpExecutionMode(?:Id)?") if f"%{entry} {mode}" in line]
    assert len(found) == 1, (mode, compiled.lines("OpExecutionMode(?:Id)?"))
    return found[0]


def constant_value(compiled, name: str) -> str:
    """The literal of an OpConstant given its result name (e.g. %uint_4 -> '4')."""
    line = next(line for line in compiled.asm.splitlines() if line.strip().startswith(f"{name} = "))
    return line.split()[-1]


def test_thread_node_with_one_output_allocates_with_invocation_scope_and_enqueues(tmp_path):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void Producer(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] NodeOutput<Rec> Consumer) {
    ThreadNodeOutputRecords<Rec> recs = Consumer.GetThreadNodeOutputRecords(1);
    recs.Get().value = input.Get().value + 1;
    recs.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Consumer(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path)
    [allocate] = c.lines("OpAllocateNodePayloadsAMDX")
    scope = allocate.split()[4]
    assert constant_value(c, scope) == "4"                      # Invocation
    assert c.count("OpEnqueueNodePayloadsAMDX") == 1
    assert "LocalSize 1 1 1" in mode_line(c, "Producer", "LocalSize")
    mode_line(c, "Producer", "CoalescingAMDX")
    assert re.search(r'OpConstantStringAMDX "Consumer"', c.asm)
    assert "OpDecorateId %Producer_Consumer PayloadNodeNameAMDX" in c.asm
    assert "OpDecorateId %Producer_Consumer NodeMaxPayloadsAMDX %uint_1" in c.asm


def test_group_records_use_workgroup_scope_and_count_reads_the_input_length(tmp_path):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(32,1,1)]
void Gather([MaxRecords(16)] GroupNodeInputRecords<Rec> inputs, [MaxRecords(4)] NodeOutput<Rec> Sink,
            uint tid : SV_GroupIndex) {
    GroupNodeOutputRecords<Rec> recs = Sink.GetGroupNodeOutputRecords(inputs.Count() / 4);
    if (tid < inputs.Count())
        recs[tid / 4].value = inputs[tid].value;
    recs.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Sink(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path)
    [allocate] = c.lines("OpAllocateNodePayloadsAMDX")
    assert constant_value(c, allocate.split()[4]) == "2"        # Workgroup
    assert c.count("OpNodePayloadArrayLengthAMDX") == 2
    assert "OpDecorateId %_payloadarr_Rec NodeMaxPayloadsAMDX %uint_16" in c.asm
    assert "LocalSize 32 1 1" in mode_line(c, "Gather", "LocalSize")


def test_output_array_decorations_and_node_index(tmp_path):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2,3,4)] [NumThreads(1,1,1)]
void Root([MaxRecords(8)] [MaxRecordsPerNode(2)] [NodeArraySize(5)] [NodeID("Mat", 3)]
          NodeOutputArray<Rec> outs, [AllowSparseNodes] [NodeArraySize(2)] [MaxRecords(1)]
          [MaxRecordsPerNode(1)] NodeOutputArray<Rec> Sparse,
          [UnboundedSparseNodes] [MaxRecords(1)] [MaxRecordsPerNode(1)] NodeOutputArray<Rec> Open) {
    uint which = 2;
    ThreadNodeOutputRecords<Rec> r = outs[which].GetThreadNodeOutputRecords(1);
    r.Get().value = which;
    r.OutputComplete();
}
""", tmp_path, warning_flags=("no-missing-node",))
    assert "OpDecorateId %Root_outs PayloadNodeArraySizeAMDX %uint_5" in c.asm
    assert "OpDecorateId %Root_outs PayloadNodeBaseIndexAMDX %uint_3" in c.asm
    assert "OpDecorateId %Root_outs NodeMaxPayloadsAMDX %uint_8" in c.asm
    assert 'OpConstantStringAMDX "Mat"' in c.asm
    assert "OpDecorate %Root_Sparse PayloadNodeSparseArrayAMDX" in c.asm
    assert "OpDecorateId %Root_Sparse PayloadNodeArraySizeAMDX %uint_2" in c.asm
    assert "OpDecorate %Root_Open PayloadNodeSparseArrayAMDX" in c.asm
    assert "PayloadNodeArraySizeAMDX" not in " ".join(c.lines("OpDecorateId %Root_Open"))
    [allocate] = c.lines("OpAllocateNodePayloadsAMDX")
    node_index = allocate.split()[-1]
    assert node_index != "%uint_0"                              # the subscript, loaded from `which`
    assert "StaticNumWorkgroupsAMDX %uint_2 %uint_3 %uint_4" in mode_line(c, "Root", "StaticNumWorkgroupsAMDX")


def test_shared_budget_and_empty_outputs(tmp_path):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Root([MaxRecords(4)] NodeOutput<Rec> A, [MaxRecordsSharedWith(A)] NodeOutput<Rec> B,
          [MaxRecords(2)] EmptyNodeOutput Ping) {
    Ping.GroupIncrementOutputCount(2);
    Ping.ThreadIncrementOutputCount(1);
}
[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Rec> i) { }
[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<Rec> i) { }
[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1,1,1)] void Ping(EmptyNodeInput e) { uint n = e.Count(); }
""", tmp_path)
    assert "OpDecorateId %Root_B NodeSharesPayloadLimitsWithAMDX %Root_A" in c.asm
    assert "OpDecorateId %Root_B NodeMaxPayloadsAMDX %uint_4" in c.asm
    allocations = c.lines("OpAllocateNodePayloadsAMDX")
    assert len(allocations) == 2 and c.count("OpEnqueueNodePayloadsAMDX") == 2
    assert re.search(r"%Root_Ping = OpTypeNodePayloadArrayAMDX %(\w+)", c.asm)
    empty = re.search(r"%Root_Ping = OpTypeNodePayloadArrayAMDX %(\w+)", c.asm).group(1)
    assert re.search(rf"%{empty} = OpTypeStruct$", c.asm, flags=re.M)


def test_programs_dxc_accepts_with_a_warning_compile_to_what_dxc_means(tmp_path):
    """docs/reference.md "Diagnostic policy": each of these is a warning, and the module says what DXC's does."""
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(64,1,1)]
void Root(DispatchNodeInputRecord<Rec> input, [MaxRecordsSharedWith(B)] NodeOutput<Rec> A,
          [MaxRecords(4)] NodeOutput<Rec> B, NodeOutput<Rec> C, uint tid : SV_GroupIndex) {
    Barrier(input, GROUP_SCOPE | GROUP_SYNC);                       // WG0473: a read-only record
    ThreadNodeOutputRecords<Rec> never = C.GetThreadNodeOutputRecords(1);  // WG0418: never completed
    if (tid >= 32) return;
    Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);         // WG0417: after some threads returned
}
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] NodeOutput<Rec> A) {
    GroupNodeOutputRecords<Rec> g = A.GetGroupNodeOutputRecords(1);  // WG0471
    g.OutputComplete();
}
""", tmp_path, warning_flags=("no-missing-node",))
    # [MaxRecordsSharedWith] of a later output (WG0470): the owner is declared first (OpDecorateId's rule)
    assert "OpDecorateId %Root_A NodeSharesPayloadLimitsWithAMDX %Root_B" in c.asm
    assert c.asm.index("%Root_B = OpTypeNodePayloadArrayAMDX") < c.asm.index("%Root_A = OpTypeNodePayloadArrayAMDX")
    assert "OpDecorateId %Root_C NodeMaxPayloadsAMDX %uint_1" in c.asm     # WG0409: DXC's SPIR-V default
    barriers = c.lines("OpControlBarrier")
    assert len(barriers) == 2                       # the read-only record's barrier and the one after return
    [group_allocation] = [line for line in c.lines("OpAllocateNodePayloadsAMDX") if "Leaf_A" in line]
    assert constant_value(c, group_allocation.split()[4]) == "2"     # Workgroup: a thread launch group of one


def test_is_valid_finished_sharing_and_dispatch_grid(tmp_path):
    c = compile_hlsl("""
struct [NodeTrackRWInputSharing] Shared { uint3 grid : SV_DispatchGrid; uint total; };
struct Inner { uint2 grid : SV_DispatchGrid; };
struct Outer { uint first; Inner inner; };
[Shader("node")] [NodeLaunch("thread")]
void Start(ThreadNodeInputRecord<Inner> i, [MaxRecords(1)] NodeOutput<Shared> Reduce) { }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(8,8,1)] [NumThreads(8,1,1)]
void Reduce(globallycoherent RWDispatchNodeInputRecord<Shared> input, [MaxRecords(1)] NodeOutput<Outer> Next) {
    input.Get().total += 1;
    Barrier(input, GROUP_SCOPE | GROUP_SYNC);
    if (input.FinishedCrossGroupSharing()) {
        if (Next.IsValid()) {
            GroupNodeOutputRecords<Outer> r = Next.GetGroupNodeOutputRecords(1);
            r.Get().first = input.Get().total;
            r.OutputComplete();
        }
    }
}
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4,4,1)] [NumThreads(1,1,1)]
void Next(DispatchNodeInputRecord<Outer> input) { }
""", tmp_path)
    assert c.count("OpFinishWritingNodePayloadAMDX") == 1
    assert c.count("OpIsNodePayloadValidAMDX") == 1
    assert "OpDecorate %Shared TrackFinishWritingAMDX" in c.asm
    assert "OpMemberDecorate %Shared 0 PayloadDispatchIndirectAMDX" in c.asm
    assert "OpMemberDecorate %Inner 0 PayloadDispatchIndirectAMDX" in c.asm
    assert "MaxNumWorkgroupsAMDX %uint_8 %uint_8 %uint_1" in mode_line(c, "Reduce", "MaxNumWorkgroupsAMDX")
    # Barrier(record, ...) orders the record's memory (NodePayloadAMDX: OutputMemory, which needs the
    # Vulkan memory model, whose barriers make writes available and visible themselves)
    assert "OpCapability VulkanMemoryModel" in c.asm and "OpMemoryModel Logical Vulkan" in c.asm
    [barrier] = c.lines("OpControlBarrier")
    assert constant_value(c, barrier.split()[-1]) == str(0x8 | 0x1000 | 0x2000 | 0x4000)  # AcqRel|Output|MA|MV


def test_recursion_entry_flags_shader_index_and_shared_input(tmp_path):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")] [NodeMaxRecursionDepth(5)] [NodeID("Walk", 2)]
void Walker(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] [NodeID("Walk", 2)] NodeOutput<Rec> self) {
    uint left = GetRemainingRecursionLevels();
    if (left > 0) {
        ThreadNodeOutputRecords<Rec> r = self.GetThreadNodeOutputRecords(1);
        r.Get().value = left;
        r.OutputComplete();
    }
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Plain", 1)]
void Plain(ThreadNodeInputRecord<Rec> input) { }
[Shader("node")] [NodeLaunch("thread")] [NodeShareInputOf("Plain", 1)]
void Twin(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path)
    assert "MaxNodeRecursionAMDX %uint_5" in mode_line(c, "Walker", "MaxNodeRecursionAMDX")
    assert "ShaderIndexAMDX %uint_2" in mode_line(c, "Walker", "ShaderIndexAMDX")
    assert "IsApiEntryAMDX %true" in mode_line(c, "Walker", "IsApiEntryAMDX")
    assert "ShaderIndexAMDX %uint_0" in mode_line(c, "Twin", "ShaderIndexAMDX")
    shares = mode_line(c, "Twin", "SharesInputWithAMDX")
    assert shares.endswith("%uint_1")
    assert "IsApiEntryAMDX %true" in mode_line(c, "Plain", "IsApiEntryAMDX")
    assert "OpDecorate %RemainingRecursionLevelsAMDX BuiltIn RemainingRecursionLevelsAMDX" in c.asm
    [entry] = [line for line in c.lines("OpEntryPoint") if "%Walker \"Walk\"" in line]   # named by NodeID
    assert "%RemainingRecursionLevelsAMDX" in entry


def test_helpers_taking_node_objects_are_inlined_even_with_returns_inside_loops(tmp_path):
    c = compile_hlsl(RECORDS + """
uint Scale(uint v, out uint doubled) { doubled = v * 2; return v + 1; }
void Emit(NodeOutput<Rec> output, uint value) {
    for (uint i = 0; i < 4; i++) {
        if (i == value) {
            ThreadNodeOutputRecords<Rec> r = output.GetThreadNodeOutputRecords(1);
            r.Get().value = i;
            r.OutputComplete();
            return;
        }
    }
    ThreadNodeOutputRecords<Rec> r = output.GetThreadNodeOutputRecords(1);
    r.Get().value = 99;
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Root(ThreadNodeInputRecord<Rec> input, [MaxRecords(2)] NodeOutput<Rec> Leaf) {
    uint twice;
    uint next = Scale(input.Get().value, twice);
    Emit(Leaf, next + twice);
}
[Shader("node")] [NodeLaunch("thread")] void Leaf(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path)
    assert c.count("OpFunctionCall") == 1                       # Scale is called, Emit inlined
    assert c.count("OpFunction") == 3                           # Root, Leaf, Scale
    assert c.count("OpAllocateNodePayloadsAMDX") == 2


def test_control_flow_constructs(tmp_path):
    c = compile_hlsl(RECORDS + """
RWStructuredBuffer<uint> Out : register(u0);
[Shader("node")] [NodeLaunch("thread")]
void Flow(ThreadNodeInputRecord<Rec> input) {
    uint v = input.Get().value, acc = 0;
    switch (v & 3) {
        case 0: acc += 1;
        case 1: acc += 2; break;
        case 2: { acc = 7; break; }
        default: acc = 9;
    }
    [unroll] for (int i = 0; i < 3; ++i) { if (i == 1) continue; acc += i; }
    [loop] while (acc > 100) { acc /= 2; if (acc == 51) break; }
    do { acc++; } while (acc < 5 && v != 0);
    acc = v > 3 ? acc : acc * 2;
    Out[v] = (v == 0 || acc == 3) ? 1u : acc;
}
""", tmp_path)
    assert c.count("OpSwitch") == 1
    assert c.count("OpLoopMerge") == 3
    assert any("Unroll" in line for line in c.lines("OpLoopMerge"))
    assert any("DontUnroll" in line for line in c.lines("OpLoopMerge"))
    assert c.count("OpSelectionMerge") >= 5


@pytest.mark.parametrize("env,version", [("vulkan1.2", 0x00010500), ("vulkan1.3", 0x00010600),
                                         ("vulkan1.4", 0x00010600)])
def test_target_environments_set_the_module_version(tmp_path, env, version):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")] void Only(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path, target_env=env)
    assert c.words[1] == version


def test_split_nodes_gives_one_module_per_node_named_by_node_id(tmp_path):
    path = tmp_path / "graph.hlsl"
    path.write_text(RECORDS + """
[Shader("node")] [NodeLaunch("thread")] [NodeID("First")]
void A(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] NodeOutput<Rec> Second) { }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Second")] void B(ThreadNodeInputRecord<Rec> input) { }
""")
    result = driver.compile(driver.Options(input=str(path), split_nodes=True))
    assert result.ok
    assert sorted(result.outputs) == ["spirv:A", "spirv:B"]
    from wgc.spirv import tools
    for data in result.outputs.values():
        assert tools.validate(words_of(data), "vulkan1.3") == []
    assert '"First"' in tools.disassemble(words_of(result.outputs["spirv:A"]))
    assert tools.disassemble(words_of(result.outputs["spirv:A"])).count("OpEntryPoint") == 1


def test_entry_option_selects_one_node(tmp_path):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Rec> input) { }
[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path, entry="B")
    assert [line.split('"')[1] for line in c.lines("OpEntryPoint")] == ["B"]
    assert compile_errors(RECORDS + """
[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path, entry="C") == ["WG0603: -E C: no node shader or entry point function has that name"]


def test_a_loop_is_unrolled_in_index_space(tmp_path):
    # 16 iterations: each member is a node array of 17 stages (16 iterations and the terminator
    # slot), its iteration the shader index mod 17; MyOtherNode, outside the loop, is one node
    source = (SAMPLES / "seed_loops_simple.hlsl").read_text()
    c = compile_hlsl(source, tmp_path, proposals=("work-graph-loops",), max_graph_depth=33)
    for output in ("MyLoopEntry_myLoopBody", "MyLoopBody_myLoopEntry"):
        assert f"OpDecorateId %{output} PayloadNodeArraySizeAMDX %uint_17" in c.asm
    assert "OpDecorateId %MyLoopBody_myOtherNode PayloadNodeArraySizeAMDX %uint_1" in c.asm
    assert "OpDecorate %ShaderIndexAMDX BuiltIn ShaderIndexAMDX" in c.asm
    mods = c.lines("OpUMod")
    assert len(mods) >= 3 and all(line.endswith("%uint_17") for line in mods)


def test_no_node_shader_is_an_error(tmp_path):
    assert compile_errors("struct S { uint x; };\n", tmp_path) == [
        "WG0603: the input has no [Shader(\"node\")] function (nor a compute, pixel, mesh or amplification shader), so there is nothing to compile"]


def test_structs_with_bases_bools_and_matrices_in_records(tmp_path):
    c = compile_hlsl("""
struct Base { bool flag; float2x3 m; };
struct Derived : Base { row_major float3x2 r; uint tail[2]; };
[Shader("node")] [NodeLaunch("thread")]
void Read(ThreadNodeInputRecord<Derived> input, [MaxRecords(1)] NodeOutput<Derived> Write) {
    Derived d = input.Get();
    ThreadNodeOutputRecords<Derived> o = Write.GetThreadNodeOutputRecords(1);
    o.Get() = d;
    o.Get().flag = !d.flag;
    o.Get().tail[1] = (uint)d.m[1][2];
    o.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void Write(ThreadNodeInputRecord<Derived> input) { }
""", tmp_path)
    # scalar layout: bool as uint at 0, float2x3 at 4 (24 bytes), float3x2 at 28, uint[2] at 52
    offsets = [line.split()[-1] for line in c.lines("OpMemberDecorate %Derived [0-9] Offset")]
    assert offsets == ["0", "4", "28", "52"]
    assert "OpMemberDecorate %Derived 2 ColMajor" in c.asm      # HLSL row_major is SPIR-V ColMajor
    assert "OpMemberDecorate %Derived 1 RowMajor" in c.asm


def test_debug_info_has_the_source_and_a_line_per_statement(tmp_path):
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void Only(ThreadNodeInputRecord<Rec> input) {
    uint v = input.Get().value;
    v += 1;
}
""", tmp_path, debug_info=True)
    assert c.count("OpSource") == 1 and 'OpString "' in c.asm and "struct Rec" in c.asm
    lines = [int(line.split()[2]) for line in c.lines("OpLine")]
    assert lines == [7, 8]


def test_no_validation_with_vd(tmp_path, monkeypatch):
    from wgc.spirv import tools

    def refuse(*args, **kwargs):
        raise AssertionError("validate must not run under -Vd")
    monkeypatch.setattr(tools, "validate", refuse)
    path = tmp_path / "graph.hlsl"
    path.write_text(RECORDS + '[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Rec> i) { }\n')
    assert driver.compile(driver.Options(input=str(path), validate=False)).ok
    with pytest.raises(AssertionError, match="must not run"):
        driver.compile(driver.Options(input=str(path)))


def test_a_module_the_checks_reject_is_an_internal_error_with_the_message(tmp_path, monkeypatch, capsys):
    from wgc import cli
    from wgc.spirv import lint

    monkeypatch.setattr(lint, "lint", lambda words, **kwargs: ["%7: something the lint refuses"])
    path = tmp_path / "graph.hlsl"
    path.write_text(RECORDS + '[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<Rec> i) { }\n')
    assert cli.main(["compile", str(path), "-o", str(tmp_path / "out.spv")]) == 3
    assert "the generated SPIR-V does not validate: %7: something the lint refuses" in capsys.readouterr().err
    assert not (tmp_path / "out.spv").exists()


def test_matrix_conditional_selects_row_by_row(tmp_path):
    c = compile_hlsl("""
RWStructuredBuffer<float2x2> M : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) { float2x2 a = M[gi]; M[0] = a > 1 ? a : -a; }
""", tmp_path)
    assert c.count("OpSelect") == 2


def test_column_major_integer_matrices_in_buffers_are_refused_with_a_location(tmp_path):
    errors = compile_errors("""
RWStructuredBuffer<int2x3> Q : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) { Q[gi] = Q[gi + 1]; }
""", tmp_path)
    assert errors == ["WG0621: a column-major 'int2x3' in 'Q' cannot be expressed: wgc keeps non-float matrices "
                      "as arrays of rows in buffer and record memory; declare it row_major (or use -Zpr)"]
    assert compile_hlsl("""
struct S { row_major int2x3 m; };
RWStructuredBuffer<S> Q : register(u0);
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(4,1,1)]
void Main(uint gi : SV_GroupIndex) { Q[gi] = Q[gi + 1]; Q[0].m[1][2] = 7; }
""", tmp_path).count("OpStore") >= 1


TRACKED_PRODUCER = """
struct [NodeTrackRWInputSharing] Shared { uint3 grid : SV_DispatchGrid; uint total; };
[Shader("node")] [NodeLaunch("thread")]
void Producer([MaxRecords(1)] [AllowSparseNodes] NodeOutput<Shared> Consumer) {
    ThreadNodeOutputRecords<Shared> r = Consumer.GetThreadNodeOutputRecords(1);
    r.Get().grid = uint3(1, 1, 1);
    r.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] void Other() { }
"""


@pytest.mark.parametrize("mode", ["whole", "entry", "split"])
def test_track_finish_writing_comes_from_the_producers_record_type(tmp_path, mode):
    # the spec: a payload enqueued with a TrackFinishWritingAMDX struct needs it on the receiver's
    # input too, so the producer's output struct must carry it with no consumer in the module
    if mode == "split":
        path = tmp_path / "graph.hlsl"
        path.write_text(TRACKED_PRODUCER)
        result = driver.compile(driver.Options(input=str(path), split_nodes=True))
        assert result.ok
        from wgc.spirv import tools
        asm = tools.disassemble(words_of(result.outputs["spirv:Producer"]), header=False)
    else:
        asm = compile_hlsl(TRACKED_PRODUCER, tmp_path, **({"entry": "Producer"} if mode == "entry" else {})).asm
    assert "OpDecorate %Shared TrackFinishWritingAMDX" in asm


def test_every_non_sparse_output_has_an_array_size(tmp_path):
    # SPV_AMDX_shader_enqueue, PayloadNodeArraySizeAMDX: "If PayloadNodeSparseArrayAMDX is not set
    # ... for a type initialized by OpAllocateNodePayloadsAMDX, this must be specified."
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("thread")]
void Root([MaxRecords(1)] NodeOutput<Rec> One, [MaxRecords(1)] [MaxRecordsPerNode(1)] [NodeID("Arr", 2)] [NodeArraySize(3)]
          NodeOutputArray<Rec> Many, [MaxRecords(1)] EmptyNodeOutput Ping,
          [UnboundedSparseNodes] [MaxRecords(1)] [MaxRecordsPerNode(1)] NodeOutputArray<Rec> Open) {
    One.GetThreadNodeOutputRecords(1).OutputComplete();
}
""", tmp_path, warning_flags=("no-missing-node",))
    sizes = {line.split()[1]: line.split()[-1] for line in c.lines("OpDecorateId")
             if "PayloadNodeArraySizeAMDX" in line}
    assert sizes == {"%Root_One": "%uint_1", "%Root_Many": "%uint_3", "%Root_Ping": "%uint_1"}
    assert "OpDecorate %Root_Open PayloadNodeSparseArrayAMDX" in c.asm


NAMED_GRAPH = """
struct Rec { uint v; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry] [NodeID("Start")]
void RootFunction([MaxRecords(1)] [NodeID("Walk")] NodeOutput<Rec> next) {
    next.GetThreadNodeOutputRecords(1).OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Walk", 2)] [NodeMaxRecursionDepth(3)]
void WalkFunction(ThreadNodeInputRecord<Rec> input, [MaxRecords(1)] [NodeID("Walk", 2)] NodeOutput<Rec> again) {
    if (GetRemainingRecursionLevels() > 0)
        again.GetThreadNodeOutputRecords(1).OutputComplete();
}
"""


@pytest.mark.parametrize("options", [{}, {"entry": "WalkFunction"}], ids=["whole", "entry"])
def test_entry_points_are_named_by_node_id_so_outputs_link(tmp_path, options):
    c = compile_hlsl(NAMED_GRAPH, tmp_path, warning_flags=("no-missing-node",), **options)
    names = {line.split()[2]: line.split('"')[1] for line in c.lines("OpEntryPoint")}
    if not options:
        assert names == {"%RootFunction": "Start", "%WalkFunction": "Walk"}
        assert "ShaderIndexAMDX %uint_0" in mode_line(c, "RootFunction", "ShaderIndexAMDX")
    else:
        assert names == {"%WalkFunction": "Walk"}
    assert "ShaderIndexAMDX %uint_2" in mode_line(c, "WalkFunction", "ShaderIndexAMDX")
    # the self-recursive output names the entry point itself (name "Walk", base index 2)
    assert 'OpConstantStringAMDX "Walk"' in c.asm
    assert "OpDecorateId %WalkFunction_again PayloadNodeBaseIndexAMDX %uint_2" in c.asm


NODE_ARRAY = """struct Rec { uint v; };
[Shader("node")] [NodeLaunch("thread")] [NodeIsProgramEntry]
void Root([MaxRecords(1)] [MaxRecordsPerNode(1)] [NodeArraySize(2)] NodeOutputArray<Rec> Mat) {
    Mat[1].GetThreadNodeOutputRecords(1).OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 0)]
void Metal(ThreadNodeInputRecord<Rec> input) { }
[Shader("node")] [NodeLaunch("thread")] [NodeID("Mat", 1)]
void Glass(ThreadNodeInputRecord<Rec> input) { }
"""


def test_node_array_members_in_one_module_keep_function_names_with_a_warning(tmp_path):
    from wgc.diagnostics import Renderer
    (tmp_path / "arr.hlsl").write_text(NODE_ARRAY)
    result = driver.compile(driver.Options(input=str(tmp_path / "arr.hlsl"), emit="asm"))
    assert result.ok
    asm = result.outputs["asm"].decode()
    assert [line.split('"')[1] for line in asm.splitlines() if "OpEntryPoint" in line] == ["Root", "Metal", "Glass"]
    assert Renderer().render(result.diagnostics).replace(str(tmp_path), "") == (
        "/arr.hlsl:9:6: warning: nodes 'Metal', 'Glass' are members of node array 'Mat' in one module: "
        "their entry points keep the function names, because one module cannot hold two GLCompute entry "
        "points of one name [WG0604] [-Wnode-array-entry-point-name]\n"
        "void Glass(ThreadNodeInputRecord<Rec> input) { }\n"
        "     ^~~~~\n"
        "note: set VkPipelineShaderStageNodeCreateInfoAMDX::pName to 'Mat' (and index to the NodeID index) "
        "for each of them, or compile with --split-nodes (one module per node, entry points named by NodeID)\n"
        "1 warning generated.\n")
    quiet = driver.compile(driver.Options(input=str(tmp_path / "arr.hlsl"),
                                          warning_flags=("no-node-array-entry-point-name",)))
    assert quiet.ok and not quiet.diagnostics
    split = driver.compile(driver.Options(input=str(tmp_path / "arr.hlsl"), split_nodes=True))
    assert split.ok and not split.diagnostics
    from wgc.spirv import tools
    assert 'OpEntryPoint GLCompute %Glass "Mat"' in tools.disassemble(words_of(split.outputs["spirv:Glass"]))


def test_inspect_shows_function_and_entry_point_names(tmp_path):
    (tmp_path / "arr.hlsl").write_text(NODE_ARRAY + """
[Shader("node")] [NodeLaunch("thread")] [NodeID("Other")] void Renamed() { }
""")
    result = driver.compile(driver.Options(input=str(tmp_path / "arr.hlsl"), emit="json"))
    import json
    model = json.loads(result.outputs["json"])
    assert [(n["function"], n["entry_point"]) for n in model["nodes"]] == [
        ("Root", "Root"), ("Metal", "Metal"), ("Glass", "Glass"), ("Renamed", "Other")]
    text = driver.compile(driver.Options(input=str(tmp_path / "arr.hlsl"), emit="text")).outputs["text"].decode()
    assert "Renamed  [thread, entry]  NodeID Other[0]  SPIR-V entry point Other" in text
    dxil = driver.compile(driver.Options(input=str(tmp_path / "arr.hlsl"), emit="dxil")).outputs["dxil"].decode()
    assert re.search(r'^!wgc\.spirv\.entryPoints = !\{(!\d+(, )?){4}\}$', dxil, flags=re.M)
    assert '!{void ()* @Renamed, !"Other"}' in dxil and '!{void ()* @Glass, !"Glass"}' in dxil


def test_dispatch_grid_arrays_are_vectors_with_the_same_layout(tmp_path):
    from pathlib import Path
    source = (Path(__file__).parent / "spirv_programs" / "dispatch_grid_arrays.hlsl").read_text()
    c = compile_hlsl(source, tmp_path, enable_16bit_types=True)
    # the spec: PayloadDispatchIndirectAMDX decorates an integer or a 2/3-component vector member
    assert "%Rec = OpTypeStruct %v3uint %uint" in c.asm
    assert "%Rec16 = OpTypeStruct %v2ushort %ushort %uint" in c.asm
    assert "OpMemberDecorate %Rec 0 PayloadDispatchIndirectAMDX" in c.asm
    assert "OpMemberDecorate %Rec16 0 PayloadDispatchIndirectAMDX" in c.asm
    # offsets as the array had them: uint[3] at 0 then 12; uint16_t[2] at 0, then 4 and 8
    assert ["OpMemberDecorate %Rec 1 Offset 12", "OpMemberDecorate %Rec16 1 Offset 4",
            "OpMemberDecorate %Rec16 2 Offset 8"] == [
        line for line in c.lines("OpMemberDecorate") if "Offset" in line and line.split()[2] != "0"
        and line.split()[1] in ("%Rec", "%Rec16")]
    # grid[i] is a component of the vector: record 0, member 0, then the dynamic component index
    chains = c.lines("OpAccessChain")
    assert any(re.fullmatch(r"%\w+ = OpAccessChain %_ptr_NodePayloadAMDX_uint %\w+ %uint_0 %uint_0 %\d+", line)
               for line in chains)
    # a whole Rec16 stored: its logical ushort[2] becomes the v2ushort member
    assert len([line for line in c.lines("OpCompositeConstruct") if "OpCompositeConstruct %v2ushort" in line]) == 1
    # a whole Rec loaded: the v3uint member becomes the logical uint[3]
    assert len([line for line in c.lines("OpCompositeConstruct") if "OpCompositeConstruct %_arr_uint_uint_3" in line]) == 1


def _result_of(compiled, opcode: str) -> list[str]:
    """The result ids of the instructions with `opcode`, in order."""
    return [line.split("=")[0].strip() for line in compiled.lines(opcode)]


def test_assigned_record_objects_complete_the_records_they_hold(tmp_path):
    # `first = second` rebinds `first`: its OutputComplete enqueues the second allocation; an out
    # node-object parameter binds the caller's variable to what the helper assigned to it.
    c = compile_hlsl(RECORDS + """
void pass_on(GroupNodeOutputRecords<Rec> given, out GroupNodeOutputRecords<Rec> taken) { taken = given; }
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2,1,1)] [NumThreads(8,1,1)]
void Producer([MaxRecords(8)] NodeOutput<Rec> Consumer) {
    GroupNodeOutputRecords<Rec> first = Consumer.GetGroupNodeOutputRecords(1);
    GroupNodeOutputRecords<Rec> second = Consumer.GetGroupNodeOutputRecords(2);
    first.OutputComplete();
    first = second;
    first.Get(1).value = 5;
    first.OutputComplete();
    GroupNodeOutputRecords<Rec> third = Consumer.GetGroupNodeOutputRecords(3);
    GroupNodeOutputRecords<Rec> later;
    pass_on(third, later);
    later.OutputComplete();
}
[Shader("node")] [NodeLaunch("thread")]
void Consumer(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path)
    one, two, three = _result_of(c, "OpAllocateNodePayloadsAMDX")
    counts = [constant_value(c, line.split()[5]) for line in c.lines("OpAllocateNodePayloadsAMDX")]
    assert counts == ["1", "2", "3"]
    assert [line.split()[-1] for line in c.lines("OpEnqueueNodePayloadsAMDX")] == [one, two, three]
    [store] = [line for line in c.lines("OpAccessChain") if line.split()[4] == two]
    assert constant_value(c, store.split()[5]) == "1"           # first.Get(1) is second's record 1


def test_null_node_objects_lower_to_no_effect(tmp_path):
    # using a null node object is undefined behaviour (wgc warns, WG0452); it must still lower to a
    # valid module: no allocation, no enqueue, record accesses on a scratch Function variable
    c = compile_hlsl(RECORDS + """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(2,1,1)] [NumThreads(8,1,1)]
void Producer(DispatchNodeInputRecord<Rec> input, [MaxRecords(8)] NodeOutput<Rec> Consumer) {
    NodeOutput<Rec> none;
    GroupNodeOutputRecords<Rec> recs = none.GetGroupNodeOutputRecords(1);
    recs.Get().value = input.Get().value;
    recs.OutputComplete();
    DispatchNodeInputRecord<Rec> nothing;
    if (none.IsValid() || nothing.Get().value == 2) {
        Consumer.GetGroupNodeOutputRecords(1).OutputComplete();
    }
}
[Shader("node")] [NodeLaunch("thread")]
void Consumer(ThreadNodeInputRecord<Rec> input) { }
""", tmp_path)
    assert c.count("OpAllocateNodePayloadsAMDX") == 1 and c.count("OpEnqueueNodePayloadsAMDX") == 1
    assert c.count("OpIsNodePayloadValidAMDX") == 0
    assert "%null_record = OpVariable" in c.asm


def test_unsized_array_parameter_is_a_local_of_the_arguments_size(tmp_path):
    c = compile_hlsl(RECORDS + """
RWBuffer<float> Out : register(u0);
float total(float a[], uint n) { float s = 0; for (uint i = 0; i < n; i++) s += a[i]; return s; }
void fill(out uint u[], uint n) { for (uint i = 0; i < n; i++) u[i] = i; }
[Shader("node")] [NodeLaunch("thread")]
void Consumer(ThreadNodeInputRecord<Rec> input) {
    float three[3] = { 1, 2, 3 };
    uint four[4];
    fill(four, 4);
    Out[0] = total(three, 3) + four[3];
}
""", tmp_path)
    assert "%a = OpVariable %_ptr_Function__arr_float_uint_3 Function" in c.asm
    assert "%u = OpVariable %_ptr_Function__arr_uint_uint_4 Function" in c.asm
    assert c.count("OpFunctionCall") == 0                       # inlined
