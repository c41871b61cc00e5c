"""Checks in the right stage (issue 11): every rule is checked in sema; back ends only lower.

- HLSL rules that the SPIR-V back end used to re-check (discard, image formats, derivative group
  shapes, counter bindings) are sema errors that `wgc inspect`, `wgc compile --emit=ir` and
  `wgc compile` all report, with the same diagnostics.
- Limits of the SPIR-V AMDX target (`wgc.sema.target`, WG06xx) are reported by `wgc compile` (full
  rendered text below, one case per code) and not by the commands that only show the program.
- The SPIR-V back end creates no user diagnostic (WG0603, no node to compile, comes from `sema.modules`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wgc import codes, driver
from wgc.diagnostics import Renderer

ROOT = Path(__file__).resolve().parents[1]


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


def run(source: str, emit: str, **options: object) -> driver.Result:
    return driver.compile(driver.Options(input="-", emit=emit, **options), stdin=source.encode())  # type: ignore[arg-type]


def rendered(source: str, emit: str = "spirv", **options: object) -> str:
    return Renderer().render(run(source, emit, **options).diagnostics)


BROADCAST = ('[Shader("node")]', '[NodeLaunch("broadcasting")]', "[NodeDispatchGrid(1, 1, 1)]")

HLSL_RULES = {
    "WG0440": lines("struct Item { uint x; };",
                    '[Shader("node")]', '[NodeLaunch("thread")]',
                    "void Shade(ThreadNodeInputRecord<Item> item) { if (item.Get().x == 0) discard; }"),
    "WG0441": lines("Texture2D<float4> T : register(t0);", "SamplerState S : register(s1);",
                    "RWBuffer<float4> Out : register(u2);", *BROADCAST, "[NumThreads(2, 3, 1)]",
                    "void Shade(uint gi : SV_GroupIndex) { Out[gi] = T.SampleBias(S, float2(0, 0), 1); }"),
    "WG0340": lines('[[vk::image_format("rgb9e5")]] RWTexture2D<float4> Image : register(u0);',
                    *BROADCAST, "[NumThreads(8, 1, 1)]",
                    "void Shade(uint gi : SV_GroupIndex) { Image[uint2(gi, 0)] = 1; }"),
    "WG0323": lines("[[vk::counter_binding(1)]] RWStructuredBuffer<uint> Words : register(u0);",
                    "RWBuffer<uint> Other : register(u1);",
                    *BROADCAST, "[NumThreads(8, 1, 1)]",
                    "void Shade(uint gi : SV_GroupIndex) { Words[Words.IncrementCounter()] = Other[gi]; }"),
    "WG0341": lines(*BROADCAST, "[NumThreads(8, 1, 1)] [NumThreads(4, 1, 1)]", "void Shade() { }"),
}


@pytest.mark.parametrize("code", sorted(HLSL_RULES))
def test_hlsl_rules_are_errors_of_every_command(code: str) -> None:
    source = HLSL_RULES[code]
    results = {emit: run(source, emit) for emit in ("ir", "json", "spirv")}
    texts = {emit: Renderer().render(result.diagnostics) for emit, result in results.items()}
    assert not any(result.ok or result.outputs for result in results.values())
    assert re.findall(r"\[(WG\d{4})\]", texts["ir"]) == [code]
    assert texts["json"] == texts["ir"] == texts["spirv"]


TARGET_NOTE = "note: a limit of the SPIR-V AMDX target (SPV_AMDX_shader_enqueue); 'wgc inspect' still shows the program"

THREAD = '[Shader("node")] [NodeLaunch("thread")]'
LOOP4 = "[NodeMaxLoopIterations(4)] [NodeMaxRecordsPerLoopIteration(1)]"
LOOP_CODES = {"WG0513", "WG0606", "WG0607", "WG0608", "WG0609"}
"""Target limits of Work Graph Loops: their sources need the opt-in."""

TARGET_CASES = [
    pytest.param("WG0640", lines(
        "struct VOut { float4 pos : SV_Position; };",
        '[Shader("vertex")]',
        "VOut Main(uint id : SV_VertexID) { VOut o; o.pos = float4(id, 0, 0, 1); return o; }",
        '[Shader("node")] [NodeLaunch("thread")]',
        "void Work() { }"),
        lines("<stdin>:2:1: error: 'Main' is a vertex shader, a stage wgc does not compile (wgc compiles node "
              "shaders, mesh nodes included, and compute, pixel, mesh and amplification shaders) [WG0640]",
              '[Shader("vertex")]',
              "^~~~~~~~~~~~~~~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0640-vertex-shader"),
    pytest.param("WG0642", lines(
        "struct V { float4 pos : SV_Position; float2 clip : SV_ClipDistance; };",
        '[Shader("node")] [NodeLaunch("mesh")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(3, 1, 1)]',
        '[OutputTopology("triangle")]',
        "void Draw(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1])",
        "{",
        "    SetMeshOutputCounts(3, 1);",
        "}"),
        lines("<stdin>:4:50: error: 'SV_ClipDistance' on the vertices of mesh node 'Draw' has no SPIR-V built-in in "
              "wgc (there it maps SV_Position) [WG0642]",
              "void Draw(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1])",
              "                                                 ^~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0642-clip-distance-on-a-mesh-vertex"),
    pytest.param("WG0643", lines(
        "struct V { float4 pos : SV_Position; };",
        '[Shader("mesh")] [NumThreads(3, 1, 1)] [OutputTopology("triangle")]',
        "void Fill(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1]) { SetMeshOutputCounts(3, 1); }",
        '[Shader("mesh")] [NumThreads(2, 1, 1)] [OutputTopology("line")]',
        "void Edge(uint i : SV_GroupIndex, out vertices V verts[2], out indices uint2 segs[1]) { SetMeshOutputCounts(2, 1); }"),
        lines("<stdin>:5:6: error: 'Edge' outputs lines and 'Fill' triangles: spirv-val holds every MeshEXT entry point "
              "of a module to each index built-in, so they cannot share one module; compile with --split-nodes (one "
              "module per entry point) or pick one with -E [WG0643]",
              "void Edge(uint i : SV_GroupIndex, out vertices V verts[2], out indices uint2 segs[1]) "
              "{ SetMeshOutputCounts(2, 1); }",
              "     ^~~~",
              "<stdin>:3:6: note: the other topology",
              "void Fill(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1]) "
              "{ SetMeshOutputCounts(3, 1); }",
              "     ^~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0643-triangles-and-lines-in-one-module"),
    pytest.param("WG0644", lines(
        "struct P { uint x; };",
        '[Shader("amplification")] [NumThreads(1, 1, 1)]',
        "void Amp() { P p; p.x = 1; DispatchMesh(1, 1, 1, p); }"),
        lines("<stdin>:3:50: error: the payload of DispatchMesh must be a groupshared variable: in SPIR-V the mesh "
              "shaders' task payload is a TaskPayloadWorkgroupEXT variable of its own (DXC's SPIR-V back end refuses "
              "it too) [WG0644]",
              "void Amp() { P p; p.x = 1; DispatchMesh(1, 1, 1, p); }",
              "                                                 ^",
              TARGET_NOTE,
              "1 error generated."), id="WG0644-local-task-payload"),
    pytest.param("WG0645", lines(
        "[[vk::constant_id(7)]] const uint Threads = 16;",
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(Threads, 1, 1)]',
        "void Fill() { }"),
        lines("<stdin>:2:87: warning: the emulated target fixes attribute 'NumThreads' at the default value 16 of "
              "specialization constant 'Threads' (constant_id 7): 'wgc run' sizes and dispatches the graph by it, so "
              "specialising 'Threads' does not change the attribute [WG0645] [-Wspec-constant-in-attribute]",
              '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(Threads, 1, 1)]',
              "                                                                                      ^~~~~~~",
              "note: a limit of the emulated SPIR-V target (--target=emulated); 'wgc inspect' still shows the program",
              "1 warning generated."), id="WG0645-spec-constant-attribute-emulated"),
    pytest.param("WG0606", lines(
        "struct Item { uint x; };",
        THREAD, '[NodeID("A", 0)] [NodeIsProgramEntry]', LOOP4,
        'void A0(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("B")] NodeOutput<Item> b) { }',
        THREAD, '[NodeID("A", 1)]',
        "void A1(ThreadNodeInputRecord<Item> item) { }",
        THREAD,
        'void B(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("A")] NodeOutput<Item> a) { }'),
        lines("<stdin>:8:6: error: 'A[1]' and 'A' share the name 'A' but not their loops (in no loop; loops 'A' x 4): "
              "the stages of one name share one index space [WG0606]",
              "void A1(ThreadNodeInputRecord<Item> item) { }",
              "     ^~",
              "<stdin>:5:6: note: 'A' is declared here",
              'void A0(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("B")] NodeOutput<Item> b) { }',
              "     ^~",
              TARGET_NOTE,
              "1 error generated."), id="WG0606-array-member-outside-the-loop"),
    pytest.param("WG0607", lines(
        "struct Item { uint x; };",
        THREAD, "[NodeIsProgramEntry]", LOOP4,
        "void Spin(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Spin, "
        "[MaxRecords(1)] NodeOutput<Item> Body) { }",
        THREAD,
        "void Body(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Spin) { }"),
        lines("<stdin>:5:6: error: loop entry 'Spin' targets itself, and its loop has other members ('Body'): its "
              "iterations would be recursion levels and its members' iterations stage indices, and "
              "SPV_AMDX_shader_enqueue forbids a node enqueueing to its own name at another index [WG0607]",
              "void Spin(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] NodeOutput<Item> Spin, "
              "[MaxRecords(1)] NodeOutput<Item> Body) { }",
              "     ^~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0607-self-feeding-entry-with-members"),
    pytest.param("WG0608", lines(
        "struct Item { uint x; };",
        THREAD, '[NodeID("A", 4000000)] [NodeIsProgramEntry]',
        "[NodeMaxLoopIterations(2000)] [NodeMaxRecordsPerLoopIteration(1)]",
        'void A(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("B")] NodeOutput<Item> b) { }',
        THREAD,
        'void B(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("A", 4000000)] NodeOutput<Item> a) { }'),
        # (4000000 + 1) x 2001 stages (2000 iterations and the terminator) - 1
        lines("<stdin>:5:6: error: node 'A[4000000]' needs stage indices up to 8004002000 (loops 'A[4000000]' x "
              "2000); ShaderIndexAMDX holds at most 4294967295 [WG0608]",
              'void A(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("B")] NodeOutput<Item> b) { }',
              "     ^",
              TARGET_NOTE,
              "1 error generated."), id="WG0608-stage-index-beyond-32-bits"),
    pytest.param("WG0609", lines(
        "struct Item { uint x; };",
        THREAD, "[NodeIsProgramEntry]", LOOP4,
        'void A(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("B")] NodeOutput<Item> b) { }',
        THREAD,
        'void B(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("A")] NodeOutput<Item> a) { }',
        THREAD, '[NodeShareInputOf("B")]',
        "void C(ThreadNodeInputRecord<Item> item) { }"),
        lines("<stdin>:10:6: error: 'C' shares the input of 'B', and 'B' is in a loop: SharesInputWithAMDX names one "
              "index, but a loop member has a stage per iteration [WG0609]",
              "void C(ThreadNodeInputRecord<Item> item) { }",
              "     ^",
              TARGET_NOTE,
              "1 error generated."), id="WG0609-input-shared-with-a-loop-member"),
    pytest.param("WG0513", lines(
        "struct Item { uint x; };",
        THREAD, "[NodeIsProgramEntry]", "[NodeMaxLoopIterations(11)] [NodeMaxRecordsPerLoopIteration(1)]",
        'void A(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("B")] NodeOutput<Item> b) { }',
        THREAD,
        'void B(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("C")] NodeOutput<Item> c) { }',
        THREAD,
        'void C(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("A")] NodeOutput<Item> a) { }'),
        # 11 iterations of A, B, C: 33 stages, and a record C feeds back at the last one reaches the
        # terminator stage A[11]: 34
        lines("<stdin>:9:6: error: unrolled for SPV_AMDX_shader_enqueue, the graph is 34 stages deep (deepest: a "
              "record fed back to the terminator stage after 'C'); Vulkan guarantees maxExecutionGraphDepth >= 32 "
              "[WG0513] [-Wamdx-graph-depth]",
              'void C(ThreadNodeInputRecord<Item> item, [MaxRecords(1)] [NodeID("A")] NodeOutput<Item> a) { }',
              "     ^",
              TARGET_NOTE,
              "note: SPV_AMDX_shader_enqueue counts every enqueue, each loop iteration and recursion level included",
              "note: if the device offers more, state its maxExecutionGraphDepth with --max-graph-depth N",
              "1 error generated."), id="WG0513-unrolled-loop-deeper-than-32"),
    pytest.param("WG0620", lines(
        "struct R { uint3 grid : SV_DispatchGrid; uint total; };",
        *BROADCAST[:2], "[NodeMaxDispatchGrid(4, 1, 1)]", "[NumThreads(4, 1, 1)]",
        "void Sum(globallycoherent RWDispatchNodeInputRecord<R> input) { InterlockedAdd(input.Get().total, 1); }"),
        lines("<stdin>:6:65: warning: 'InterlockedAdd' on a record of 'RWDispatchNodeInputRecord<R>' is not valid "
              "Vulkan SPIR-V: the record is shared by every thread group of the dispatch, and Vulkan allows no atomic "
              "operations on NodePayloadAMDX memory [WG0620] [-Wamdx-record-atomics]",
              "void Sum(globallycoherent RWDispatchNodeInputRecord<R> input) { InterlockedAdd(input.Get().total, 1); }",
              "                                                                ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
              "<stdin>:6:80: note: a shared node record (atomics work on records one thread owns: "
              "RWThreadNodeInputRecord, ThreadNodeOutputRecords, and group records of a one-thread group)",
              "void Sum(globallycoherent RWDispatchNodeInputRecord<R> input) { InterlockedAdd(input.Get().total, 1); }",
              "                                                                               ^~~~~~~~~~~~~~~~~",
              "note: the Vulkan spec (VUID-StandaloneSpirv-None-04686) limits the pointer of every atomic "
              "instruction to Uniform, Workgroup, Image, StorageBuffer, PhysicalStorageBuffer or "
              "TaskPayloadWorkgroupEXT storage; SPV_AMDX_shader_enqueue adds no NodePayloadAMDX to the list, and "
              "spirv-val's universal rules refuse it too",
              "note: wgc emits the atomic on the NodePayloadAMDX pointer, as DXC does, and validates the rest of the "
              "module: spirv-val refuses the module as written, 'wgc run' runs it (the emulated target keeps records "
              "in buffer memory, where atomics are allowed); -Werror=amdx-record-atomics refuses it",
              TARGET_NOTE,
              "1 warning generated."), id="WG0620-atomic-on-record"),
    pytest.param("WG0621", lines(
        "struct Cell { float w; int2x2 m; };",
        "RWStructuredBuffer<Cell> Q : register(u0);",
        *BROADCAST, "[NumThreads(4, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex) { Q[gi] = Q[gi + 1]; }"),
        lines("<stdin>:2:26: error: a column-major 'int2x2' in 'Q' cannot be expressed: wgc keeps non-float matrices "
              "as arrays of rows in buffer and record memory; declare it row_major (or use -Zpr) [WG0621]",
              "RWStructuredBuffer<Cell> Q : register(u0);",
              "                         ^",
              "<stdin>:1:31: note: 'm' is declared here",
              "struct Cell { float w; int2x2 m; };",
              "                              ^",
              TARGET_NOTE,
              "1 error generated."), id="WG0621-column-major-int-matrix"),
    pytest.param("WG0622", lines(
        "Texture2D<float4> T : register(t0);", "SamplerState S : register(s1);",
        "RWBuffer<float4> Out : register(u2);", *BROADCAST, "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex) { Out[gi] = T.SampleLevel(S, float2(0, 0), 0, int2(gi, 0)); }"),
        lines("<stdin>:8:82: error: the texel offset of 'SampleLevel' must be a constant: Vulkan allows a variable "
              "offset only on Gather (VUID-RuntimeSpirv-Offset-10213) [WG0622]",
              "void Main(uint gi : SV_GroupIndex) { Out[gi] = T.SampleLevel(S, float2(0, 0), 0, int2(gi, 0)); }",
              "                                                                                 ^~~~~~~~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0622-variable-offset"),
    pytest.param("WG0623", lines(
        "RWStructuredBuffer<uint> A : register(u0);", "RWStructuredBuffer<uint> B : register(u1);",
        *BROADCAST, "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex) { RWStructuredBuffer<uint> C = gi > 3 ? A : B; C[gi] = 1; }"),
        lines("<stdin>:7:67: error: a conditional expression cannot choose between objects of type "
              "'RWStructuredBuffer<uint>' in SPIR-V [WG0623]",
              "void Main(uint gi : SV_GroupIndex) { RWStructuredBuffer<uint> C = gi > 3 ? A : B; C[gi] = 1; }",
              "                                                                  ^~~~~~~~~~~~~~",
              "<stdin>:7:67: note: choose with if/else and use each object on its own branch",
              "void Main(uint gi : SV_GroupIndex) { RWStructuredBuffer<uint> C = gi > 3 ? A : B; C[gi] = 1; }",
              "                                                                  ^~~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0623-select-between-buffers"),
    pytest.param("WG0450", lines(
        "struct Args { uint scale; };", "[[vk::shader_record_ext]] ConstantBuffer<Args> args;",
        "RWStructuredBuffer<uint> Out : register(u0);", *BROADCAST, "[NumThreads(8, 1, 1)]",
        "[NodeLocalRootArgumentsTableIndex(3)]",
        "void Main(uint gi : SV_GroupIndex) { Out[gi] = args.scale; }"),
        lines("<stdin>:8:1: warning: [NodeLocalRootArgumentsTableIndex(3)] of 'Main' has no SPIR-V equivalent: "
              "SPV_AMDX_shader_enqueue has no local root arguments, so the compiled node ignores it (its "
              "[[vk::shader_record_ext]] blocks are ordinary uniform buffers) [WG0450] [-Wnode-local-root-arguments]",
              "[NodeLocalRootArgumentsTableIndex(3)]",
              "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
              "note: --target=emulated (wgc run) reads the node's [[vk::shader_record_ext]] blocks from entry 3 of "
              "the dispatch's local-root-argument table",
              TARGET_NOTE,
              "1 warning generated."), id="WG0450-local-root-arguments-table-index"),
    pytest.param("WG0453", lines(
        "struct R { uint x; };", *BROADCAST, "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex, [MaxRecords(2)] NodeOutput<R> A, [MaxRecords(2)] NodeOutput<R> B)",
        "{",
        "    NodeOutput<R> chosen = A;",
        "    if (gi > 3)",
        "        chosen = B;",
        "    chosen.GetThreadNodeOutputRecords(1).OutputComplete();",
        "}",
        '[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<R> r) {}',
        '[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<R> r) {}'),
        lines("<stdin>:10:9: error: node object 'chosen' cannot be rebound here: SPIR-V binds node objects "
              "statically, and this is inside control flow that its declaration is not in [WG0453]",
              "        chosen = B;",
              "        ^~~~~~",
              "<stdin>:8:19: note: declared here",
              "    NodeOutput<R> chosen = A;",
              "                  ^~~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0453-output-chosen-in-a-branch"),
    pytest.param("WG0454", lines(
        "struct R { uint x; };", "struct Targets { NodeOutput<R> near; NodeOutput<R> far; };", *BROADCAST,
        "[NumThreads(8, 1, 1)]",
        "void Main([MaxRecords(2)] NodeOutput<R> A, [MaxRecords(2)] NodeOutput<R> B)",
        "{",
        "    Targets both;",
        "    both.near = A;",
        "    both.far = B;",
        "    both.near.GetGroupNodeOutputRecords(1).OutputComplete();",
        "}",
        '[Shader("node")] [NodeLaunch("thread")] void A(ThreadNodeInputRecord<R> r) {}',
        '[Shader("node")] [NodeLaunch("thread")] void B(ThreadNodeInputRecord<R> r) {}'),
        lines("<stdin>:9:13: error: local 'both' has type 'Targets', which holds node objects: wgc binds each node "
              "object on its own in SPIR-V and cannot keep them in a struct or array; use separate variables "
              "[WG0454]",
              "    Targets both;",
              "            ^~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0454-outputs-in-a-struct"),
    pytest.param("WG0633", lines(
        "RaytracingAccelerationStructure Scene;", "RWStructuredBuffer<uint> Out;",
        "struct Probe { RayQuery<0> q; uint hits; };", "groupshared RayQuery<0> Shared;",
        *BROADCAST, "[NumThreads(1, 1, 1)]",
        "void Main() {",
        "    Probe p;",
        "    Out[0] = Shared.CommittedStatus() + p.q.CommittedStatus();",
        "}"),
        lines("<stdin>:10:11: error: 'p' has type 'Probe', which holds a RayQuery in a struct: SPIR-V keeps a ray "
              "query only in a variable of its own type (declare the RayQuery as a variable of its own) [WG0633]",
              "    Probe p;",
              "          ^",
              TARGET_NOTE,
              "<stdin>:4:25: error: groupshared 'Shared' cannot hold a RayQuery ('RayQuery<0>'): SPIR-V keeps a ray "
              "query only in a Function or Private variable (declare it a local or a static global) [WG0633]",
              "groupshared RayQuery<0> Shared;",
              "                        ^~~~~~",
              TARGET_NOTE,
              "2 errors generated."), id="WG0633-rayquery-in-groupshared-and-in-a-struct"),
    pytest.param("WG0633", lines(
        "struct Probe { RayQuery<0> q; };",
        "Probe Make() { Probe p; return p; }",
        "uint Hits(Probe p) { return p.q.CommittedStatus(); }",
        *BROADCAST, "[NumThreads(1, 1, 1)]",
        "void Main() { Hits(Make()); }"),
        lines("<stdin>:2:7: error: the result of 'Make' has type 'Probe', which holds a RayQuery in a struct: "
              "SPIR-V keeps a ray query only in a variable of its own type [WG0633]",
              "Probe Make() { Probe p; return p; }",
              "      ^~~~",
              TARGET_NOTE,
              "<stdin>:2:22: error: 'p' has type 'Probe', which holds a RayQuery in a struct: SPIR-V keeps a ray "
              "query only in a variable of its own type (declare the RayQuery as a variable of its own) [WG0633]",
              "Probe Make() { Probe p; return p; }",
              "                     ^",
              TARGET_NOTE,
              "<stdin>:3:17: error: 'p' has type 'Probe', which holds a RayQuery in a struct: SPIR-V keeps a ray "
              "query only in a variable of its own type (declare the RayQuery as a variable of its own) [WG0633]",
              "uint Hits(Probe p) { return p.q.CommittedStatus(); }",
              "                ^",
              TARGET_NOTE,
              "3 errors generated."), id="WG0633-rayquery-struct-as-parameter-and-result"),
    pytest.param("WG0624", lines(
        '[[vk::image_format("r64ui")]] RWTexture2D<uint64_t> Image : register(u0);',
        *BROADCAST, "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex) { Image[uint2(gi, 0)] = 1; }"),
        lines("<stdin>:1:1: error: image format 'r64ui' of 'Image' is 64-bit: wgc's SPIR-V images have 32-bit "
              "sampled types [WG0624]",
              '[[vk::image_format("r64ui")]] RWTexture2D<uint64_t> Image : register(u0);',
              "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0624-64-bit-image-format"),
    pytest.param("WG0625", lines(
        "RWStructuredBuffer<uint> Out : register(u0);", "// a NUL: \0", *BROADCAST, "[NumThreads(8, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex) { Out[gi] = 1; }"),
        lines("<stdin>:2:11: error: -Zi cannot embed this source in the module: it holds a NUL character, which "
              "ends a SPIR-V literal string [WG0625]",
              "// a NUL: \0",
              "          ^",
              TARGET_NOTE,
              "1 error generated."), id="WG0625-nul-in-source-with-Zi"),
    pytest.param("WG0625", lines(
        "RWStructuredBuffer<uint> Out : register(u0);",
        '[Shader("node")] [NodeLaunch("thread")] [NodeID("Main\\0X")]',
        "void Main() { Out[0] = 1; }"),
        lines("<stdin>:3:6: error: the node name 'Main\\0X' of node 'Main' holds a NUL character, which ends a "
              "SPIR-V literal string [WG0625]",
              "void Main() { Out[0] = 1; }",
              "     ^~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0625-nul-in-a-node-name"),
    pytest.param("WG0626", lines(
        "RWBuffer<uint> B;",
        '[Shader("node")] [NodeLaunch("thread")]',
        'void N() { string s = "x"; B[0] = 1; }'),
        lines("<stdin>:3:19: error: string variable 's' cannot be lowered: SPIR-V has no string values (use a "
              "literal, or a 'static const string' global) [WG0626]",
              'void N() { string s = "x"; B[0] = 1; }',
              "                  ^",
              TARGET_NOTE,
              "1 error generated."), id="WG0626-local-string"),
    pytest.param("WG0622", lines(
        "Texture2D<float4> T;", "SamplerState S;", "RWBuffer<float4> B;",
        *BROADCAST, "[NumThreads(4, 1, 1)]",
        "void N(uint i : SV_GroupIndex) { B[0] = T.GatherRed(S, float2(0, 0), int2(0, 0), int2(i, 0), int2(0, 1), "
        "int2(1, 1)); }"),
        lines("<stdin>:8:82: error: the four texel offsets of 'GatherRed' must be constants: SPIR-V takes them as "
              "ConstOffsets [WG0622]",
              "void N(uint i : SV_GroupIndex) { B[0] = T.GatherRed(S, float2(0, 0), int2(0, 0), int2(i, 0), "
              "int2(0, 1), int2(1, 1)); }",
              "                                                                                 ^~~~~~~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0622-variable-one-of-four-gather-offsets"),
    pytest.param("WG0622", lines(
        "Texture2D<float> T;", "SamplerComparisonState S;", "RWBuffer<float> B;",
        *BROADCAST, "[NumThreads(4, 1, 1)]",
        "void N(uint i : SV_GroupIndex) { B[0] = T.SampleCmpLevel(S, float2(0, 0), 0.5, 0.0, int2(i, 0)); }"),
        lines("<stdin>:8:85: error: the texel offset of 'SampleCmpLevel' must be a constant: Vulkan allows a "
              "variable offset only on Gather (VUID-RuntimeSpirv-Offset-10213) [WG0622]",
              "void N(uint i : SV_GroupIndex) { B[0] = T.SampleCmpLevel(S, float2(0, 0), 0.5, 0.0, int2(i, 0)); }",
              "                                                                                    ^~~~~~~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0622-variable-offset-of-a-comparison-sample"),
    pytest.param("WG0627", lines(
        "RWStructuredBuffer<float> B;", "groupshared float G;",
        *BROADCAST, "[NumThreads(4, 1, 1)]",
        "void N(uint i : SV_GroupIndex) {",
        "    float seen;",
        "    InterlockedCompareExchangeFloatBitwise(G, 0.0, 1.5, seen);",
        "    InterlockedCompareStoreFloatBitwise(B[i], 0.0, seen);",
        "}"),
        lines("<stdin>:9:5: error: 'InterlockedCompareExchangeFloatBitwise' on a float variable cannot be expressed: "
              "SPIR-V compare-exchanges integers only and cannot view a float location as a uint [WG0627]",
              "    InterlockedCompareExchangeFloatBitwise(G, 0.0, 1.5, seen);",
              "    ^" + "~" * 56,
              "<stdin>:9:44: note: declare this location uint and use asuint/asfloat, or use RWByteAddressBuffer's "
              "method",
              "    InterlockedCompareExchangeFloatBitwise(G, 0.0, 1.5, seen);",
              "                                           ^",
              TARGET_NOTE,
              "<stdin>:10:5: error: 'InterlockedCompareStoreFloatBitwise' on a float variable cannot be expressed: "
              "SPIR-V compare-exchanges integers only and cannot view a float location as a uint [WG0627]",
              "    InterlockedCompareStoreFloatBitwise(B[i], 0.0, seen);",
              "    ^" + "~" * 51,
              "<stdin>:10:41: note: declare this location uint and use asuint/asfloat, or use RWByteAddressBuffer's "
              "method",
              "    InterlockedCompareStoreFloatBitwise(B[i], 0.0, seen);",
              "                                        ^~~~",
              TARGET_NOTE,
              "2 errors generated."), id="WG0627-float-compare-exchange-on-groupshared-and-buffer"),
    pytest.param("WG0628", lines(
        "float Shade(float3 n);",
        "float Unused(float x);",
        "struct Hit { float3 n; };",
        '[Shader("node")]', '[NodeLaunch("thread")]',
        "void Light(ThreadNodeInputRecord<Hit> hit)",
        "{",
        "    float s = Shade(hit.Get().n) + Shade(hit.Get().n);",
        "}"),
        lines("<stdin>:8:15: error: function 'Shade' is declared but not defined: a library may leave it to the "
              "linker, but Vulkan SPIR-V cannot import functions [WG0628]",
              "    float s = Shade(hit.Get().n) + Shade(hit.Get().n);",
              "              ^~~~~~~~~~~~~~~~~~",
              "<stdin>:1:7: note: declared here",
              "float Shade(float3 n);",
              "      ^~~~~",
              TARGET_NOTE,
              "1 error generated."), id="WG0628-undefined-function-called-by-a-node"),
]


@pytest.mark.parametrize(("code", "source", "expected"), TARGET_CASES)
def test_target_limits_are_reported_by_compile_only(code: str, source: str, expected: str) -> None:
    proposals = driver.PROPOSALS if code in LOOP_CODES else ()  # a loop needs the Work Graph Loops opt-in
    target = "emulated" if code == "WG0645" else "amdx"       # limits of the emulated target only
    assert rendered(source, debug_info=True, proposals=proposals, target=target) == expected  # -Zi: WG0625 needs it
    for emit in ("ir", "json", "text"):           # the commands that show the program accept it
        result = run(source, emit, proposals=proposals)
        assert result.ok and result.outputs and not result.diagnostics, (emit, result.diagnostics)


def test_every_target_code_has_a_case() -> None:
    # WG0603 is about the options; WG0604/WG0605/WG0646 are warnings about how modules are composed
    # (sema/modules.py), tested in test_spirv_nodes.py, test_spirv_memory_model.py and test_stage_entries.py
    # WG0453/WG0454 (node objects rebound in branches, held in aggregates) are target limits numbered in WG04xx
    target_codes = {k.code for k in codes.ALL_KINDS if k.code.startswith("WG06")} - {"WG0603", "WG0604", "WG0605", "WG0646"}
    target_codes |= {"WG0450", "WG0453", "WG0454", "WG0513"}   # WG0513: the AMDX target's depth, a DefaultError warning
    assert target_codes == {p.values[0] for p in TARGET_CASES}


def test_mixed_mesh_topologies_compile_one_module_each() -> None:
    source = next(p.values[1] for p in TARGET_CASES if p.values[0] == "WG0643")
    result = run(source, "spirv", split_nodes=True)
    assert result.ok and sorted(result.outputs) == ["spirv:Edge", "spirv:Fill"]


def test_only_the_nodes_compiled_are_checked_against_the_target() -> None:
    source = lines("struct R { uint3 grid : SV_DispatchGrid; uint total; };", "struct Seed { uint x; };",
                   '[Shader("node")] [NodeLaunch("thread")]',
                   "void Start(ThreadNodeInputRecord<Seed> i, [MaxRecords(1)] NodeOutput<R> Sum) { }",
                   *BROADCAST[:2], "[NodeMaxDispatchGrid(4, 1, 1)]", "[NumThreads(4, 1, 1)]",
                   "void Sum(globallycoherent RWDispatchNodeInputRecord<R> input) "
                   "{ InterlockedAdd(input.Get().total, 1); }")
    assert [d.code for d in run(source, "spirv").diagnostics] == ["WG0620"]
    assert [d.code for d in run(source, "spirv", entry="Sum").diagnostics] == ["WG0620"]
    start = run(source, "spirv", entry="Start")
    assert start.ok and "spirv" in start.outputs


def test_an_undefined_function_is_a_target_limit_only_where_a_compiled_node_reaches_it() -> None:
    """DXC accepts a library calling a function it only declares (the linker resolves it,
    node-object-export-link-1.hlsl): sema and inspect are silent; `wgc compile` reports WG0628 for
    the nodes it compiles (-E, --split-nodes) that reach the call, through helpers too."""
    source = lines("struct R { uint x; };",
                   "void Fill(inout uint v);",
                   "void Helper(inout uint v) { Fill(v); }",
                   "void Exported(inout uint v) { Fill(v); }",
                   '[Shader("node")] [NodeLaunch("thread")]',
                   "void Uses(ThreadNodeInputRecord<R> i) { uint v = i.Get().x; Helper(v); }",
                   '[Shader("node")] [NodeLaunch("thread")]',
                   "void Clean(ThreadNodeInputRecord<R> i) { uint v = i.Get().x; }")
    for emit in ("ir", "json", "text", "dxil"):
        result = run(source, emit)
        assert result.ok and result.outputs and not result.diagnostics, (emit, result.diagnostics)
    assert [(d.code, d.span.line_col) for d in run(source, "spirv").diagnostics] == [("WG0628", (3, 29))]
    assert [d.code for d in run(source, "spirv", split_nodes=True).diagnostics] == ["WG0628"]
    assert [d.code for d in run(source, "spirv", entry="Uses").diagnostics] == ["WG0628"]
    clean = run(source, "spirv", entry="Clean")
    assert clean.ok and "spirv" in clean.outputs
    library = run(source.replace('[Shader("node")] [NodeLaunch("thread")]', ""), "ir")  # no nodes: nothing compiles it
    assert library.ok and not library.diagnostics


def test_loop_iteration_index_outside_loops_is_zero() -> None:
    """Proposal 0025: GetCurrentLoopIterationIndex() is 0 outside loops (this target compiles no loop)."""
    source = lines("RWStructuredBuffer<uint> Out : register(u0);", *BROADCAST, "[NumThreads(8, 1, 1)]",
                   "void Main(uint gi : SV_GroupIndex) { Out[gi] = GetCurrentLoopIterationIndex() + 7; }")
    result = run(source, "asm")
    assert result.ok, Renderer().render(result.diagnostics)
    asm = result.outputs["asm"].decode()
    assert re.search(r"OpIAdd %uint %uint_0 %uint_7", asm), asm


def test_the_spirv_back_end_reports_nothing() -> None:
    """Back ends only lower: wgc/spirv creates no diagnostic (WG0603, the choice of nodes, is
    `sema.modules.select_nodes`')."""
    used = set()
    for path in sorted((ROOT / "wgc" / "spirv").glob("*.py")):
        used |= set(re.findall(r"codes\.([A-Z_0-9]+)", path.read_text()))
        assert "Unsupported" not in path.read_text(), path.name
    assert used == set()


def test_a_barrier_on_a_uav_object_lowers() -> None:
    """Barrier(uav, DEVICE_SCOPE) is valid HLSL: UAV memory, Device scope (no internal error)."""
    source = lines("RWStructuredBuffer<uint> Out : register(u0);", *BROADCAST, "[NumThreads(8, 1, 1)]",
                   "void Main(uint gi : SV_GroupIndex) { Out[gi] = 1; Barrier(Out, DEVICE_SCOPE); }")
    result = run(source, "asm")
    assert result.ok, Renderer().render(result.diagnostics)
    # Scope Device = 1; semantics AcquireRelease 0x8 | UniformMemory 0x40 = 72 (SPIR-V spec 3.27, 3.25)
    assert re.search(r"OpMemoryBarrier %uint_1 %uint_72\b", result.outputs["asm"].decode())


def _barrier_statements() -> list[tuple[str, str]]:
    from test_uniformity import BARRIERS

    return [(launch, statement) for launch, statement, _, _ in BARRIERS]


@pytest.mark.parametrize(("launch", "statement"), _barrier_statements())
def test_barriers_sema_lets_through_lower_to_valid_modules(launch: str, statement: str) -> None:
    """With the DefaultError barrier rules turned off (-Wno-hlsl-barrier), whatever sema accepts
    compiles to a module that validates (in process): no internal error."""
    from test_uniformity import node

    result = run(node(f"  {statement}", launch), "spirv", warning_flags=("no-hlsl-barrier",))
    assert result.ok and "spirv" in result.outputs, Renderer().render(result.diagnostics)


def test_a_repeated_dispatch_grid_uses_the_one_written_last() -> None:
    """dxc warns about `[NodeDispatchGrid]` written twice with other values and uses the last one."""
    import json

    from wgc import driver

    source = b'[Shader("node")] [NodeDispatchGrid(4, 1, 1)] [NodeDispatchGrid(2, 3, 1)]\n' \
             b'[NumThreads(64, 1, 1)]\nvoid Start() {}\n'
    result = driver.compile(driver.Options(input="-", emit="json"), stdin=source)
    assert result.ok
    assert [d.code for d in result.diagnostics] == ["WG0342"]
    assert json.loads(result.outputs["json"])["nodes"][0]["dispatch_grid"] == [2, 3, 1]


def test_a_conflicting_attribute_does_not_hide_the_node_rules_of_the_file() -> None:
    from wgc import driver

    source = b"""struct R { uint x; };
[Shader("node")] [NodeLaunch("thread")]
void A([MaxRecords(4)] [MaxRecords(8)] NodeOutput<R> B) {}
[Shader("node")] [NodeLaunch("thread")]
void C([MaxRecords(2)] [MaxRecordsSharedWith(D)] NodeOutput<R> E, [MaxRecords(1)] NodeOutput<R> D) {}
"""
    result = driver.compile(driver.Options(input="-", emit="json", warning_flags=("no-missing-node",)), stdin=source)
    assert [(d.code, d.message) for d in result.diagnostics] == [
        ("WG0341", "attribute 'MaxRecords' is applied twice with different arguments"),
        ("WG0404", "[MaxRecords] and [MaxRecordsSharedWith] cannot both be given on one output")]


def test_float_compare_exchange_on_a_record_member_is_checked_and_a_target_limit() -> None:
    """DXC's member_atomics.hlsl pattern: accepted by sema (--emit=ir), WG0627 when compiled to SPIR-V (a float
    compare-exchange on a shared record: OpAtomicCompareExchange takes integers only, so downgrading WG0620
    would not make it expressible)."""
    source = lines("struct R { uint i; float f; };", *BROADCAST, "[NumThreads(1, 1, 1)]",
                   "void N(RWDispatchNodeInputRecord<R> r) {",
                   "    InterlockedCompareStoreFloatBitwise(r.Get().f, 0.0, 123.45);",
                   "    float seen;",
                   "    InterlockedCompareExchangeFloatBitwise(r.Get().f, 1.0, 2.0, seen);",
                   "}")
    assert run(source, "ir").ok
    assert [d.code for d in run(source, "spirv").diagnostics] == ["WG0627", "WG0627"]
    wrong = source.replace("r.Get().f, 0.0", "r.Get().i, 0.0")
    assert [d.code for d in run(wrong, "ir").diagnostics] == ["WG0304"]   # the location must be a float


def test_a_target_warning_keeps_the_module() -> None:
    """WG0450 is a warning among the target limits: the AMDX module is still written (the shader
    record an ordinary uniform buffer), and the emulated target, which reads the table, says nothing;
    -Werror makes it an error like any warning."""
    source = next(p.values[1] for p in TARGET_CASES if p.values[0] == "WG0450")
    amdx = run(source, "spirv")
    assert amdx.ok and [d.code for d in amdx.diagnostics] == ["WG0450"]
    assert amdx.outputs["spirv"][:4] == b"\x03\x02\x23\x07" and b"args" in amdx.outputs["spirv"]
    emulated = run(source, "spirv", target="emulated")
    assert emulated.ok and not emulated.diagnostics and emulated.outputs["spirv"][:4] == b"\x03\x02\x23\x07"
    strict = run(source, "spirv", warning_flags=("error=node-local-root-arguments",))
    assert not strict.ok and not strict.outputs


def test_a_vertex_profile_names_the_stage_at_the_entry_function() -> None:
    # -T vs_6_0: `main` is a vertex shader without [Shader("vertex")] (DXC implies it); wgc does not
    # compile vertex shaders, and says so at the function, not "no entry point"
    source = lines("float4 main(float4 p : POSITION) : SV_Position { return p; }")
    assert rendered(source, profile="vs_6_0") == lines(
        "<stdin>:1:8: error: 'main' is a vertex shader, a stage wgc does not compile (wgc compiles node shaders, "
        "mesh nodes included, and compute, pixel, mesh and amplification shaders) [WG0640]",
        "float4 main(float4 p : POSITION) : SV_Position { return p; }",
        "       ^~~~",
        TARGET_NOTE,
        "1 error generated.")
