"""Work-graph rules of node bodies (`wgc.sema.uniformity.check_node_body`): uniformity (WG0417),
OutputComplete (WG0418/WG0419), FinishedCrossGroupSharing (WG0420), barriers (WG0421),
thread-launch bans (WG0416) and SV_DispatchGrid writes (WG0415).

Sources go through the real front end (parse + analyze) and `check_node_body` is called for each
node shader with the launch mode of its `[NodeLaunch]` attribute (broadcasting by default).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable

import pytest

from wgc import ir
from wgc.diagnostics import Diagnostic, Renderer, Severity
from wgc import driver
from wgc.driver import Options, run_front_end
from wgc.sema.analyze import analyze
from wgc.sema.uniformity import check_node_body
from wgc.source import SourceFile
from wgc.syntax.parse import parse_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OWN_CODES = {f"WG04{n}" for n in range(15, 22)} | {"WG0443"}

PRELUDE = """\
struct Rec { uint x; };
struct In { uint count; uint value; };
[NodeTrackRWInputSharing] struct Shared { uint3 grid : SV_DispatchGrid; uint total; };
struct Inner { uint2 size : SV_DispatchGrid; };
struct Nested { Inner inner; uint v; };
cbuffer Constants { uint g_mode; };
RWStructuredBuffer<uint> buf;
RWByteAddressBuffer raw;
Texture2D<float4> tex;
SamplerState samp;
groupshared uint gsCounter;
groupshared uint gsArr[64];
static uint s_flag;
"""

SIGNATURES = {
    "broadcasting": """[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(64, 1, 1)]
void Main(DispatchNodeInputRecord<In> input, [MaxRecords(64)] NodeOutput<Rec> out1,
          [MaxRecords(64)] EmptyNodeOutput empty,
          [MaxRecords(64)] [NodeArraySize(4)] [MaxRecordsPerNode(64)] NodeOutputArray<Rec> outs,
          uint gi : SV_GroupIndex, uint3 gtid : SV_GroupThreadID, uint3 dtid : SV_DispatchThreadID,
          uint3 gid : SV_GroupID)""",
    "coalescing": """[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(64, 1, 1)]
void Main([MaxRecords(8)] GroupNodeInputRecords<In> items, [MaxRecords(64)] NodeOutput<Rec> out1,
          [MaxRecords(64)] EmptyNodeOutput empty, uint gi : SV_GroupIndex)""",
    "rwcoalescing": """[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(64, 1, 1)]
void Main([MaxRecords(8)] RWGroupNodeInputRecords<In> items, uint gi : SV_GroupIndex)""",
    "thread": """[Shader("node")] [NodeLaunch("thread")]
void Main(ThreadNodeInputRecord<In> input, [MaxRecords(4)] NodeOutput<Rec> out1,
          [MaxRecords(4)] EmptyNodeOutput empty)""",
    "rwthread": """[Shader("node")] [NodeLaunch("thread")]
void Main(RWThreadNodeInputRecord<In> input, [MaxRecords(4)] NodeOutput<Rec> out1)""",
    "shared": """[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(64, 1, 1)]
void Main(globallycoherent RWDispatchNodeInputRecord<Shared> input, uint gi : SV_GroupIndex,
          uint3 gid : SV_GroupID)""",
    "nested": """[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 4, 1)] [NumThreads(8, 1, 1)]
void Main(RWDispatchNodeInputRecord<Nested> input)""",
}
PRODUCERS = {  # a node that feeds Main, so Main is not a graph entry (FinishedCrossGroupSharing needs that)
    "shared": """
[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1, 1, 1)] [NumThreads(1, 1, 1)]
void Producer([MaxRecords(1)] NodeOutput<Shared> Main)
{
  GroupNodeOutputRecords<Shared> r = Main.GetGroupNodeOutputRecords(1);
  r.Get().grid = uint3(4, 1, 1);
  r.OutputComplete();
}
""",
}


def node(body: str, launch: str = "broadcasting", pre: str = "") -> str:
    """A source with the prelude, helper functions `pre` and a node `Main` whose body is `body`."""
    return f"{PRELUDE}{pre}\n{SIGNATURES[launch]}\n{{\n{body}\n}}\n{PRODUCERS.get(launch, '')}"


def check(src: str) -> list[Diagnostic]:
    file = SourceFile("t.hlsl", src)
    parsed = parse_source(file)
    assert not parsed.diagnostics, Renderer().render(parsed.diagnostics)
    analysis = analyze(parsed.unit)
    others = [d for d in analysis.diagnostics if d.severity >= Severity.ERROR and d.code not in OWN_CODES]
    assert not others, Renderer().render(others)
    found: list[Diagnostic] = []
    for function in analysis.module.node_shaders:
        attribute = ir.find_attribute(function.attributes, "nodelaunch")
        found += check_node_body(function, attribute.args[0].value if attribute else "broadcasting")
    return found


def render(src: str) -> str:
    return Renderer().render(check(src))


def at(src: str, needle: str, nth: int = 0) -> str:
    """The line:col of the `nth` occurrence of `needle` in `src`."""
    offset = -1
    for _ in range(nth + 1):
        offset = src.index(needle, offset + 1)
    line = src.count("\n", 0, offset) + 1
    return f"{line}:{offset - src.rfind(chr(10), 0, offset)}"


def main_end(src: str) -> str:
    """The line:col of the brace that closes `Main`."""
    offset = src.index("\n}\n", src.index("void Main")) + 1
    return f"{src.count(chr(10), 0, offset) + 1}:1"


def describe(diags: list[Diagnostic]) -> list[str]:
    """Each diagnostic as 'line:col CODE message [line:col label]...'."""
    def pos(span) -> str:  # type: ignore[no-untyped-def]
        line, col = span.line_col
        return f"{line}:{col}"
    return [f"{pos(d.span)} {d.code} {d.message}" + "".join(f" [{pos(l.span)} {l.message}]" for l in d.labels)
            for d in diags]


SYNC = "Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC);"
SYNC_MSG = "'Barrier' with GROUP_SYNC must be called in thread-group-uniform control flow"
GI = "depends on 'gi' (SV_GroupIndex)"


# ---------------------------------------------------------------- WG0417: rendered in full


def test_barrier_under_varying_if_renders_with_the_condition() -> None:
    src = node(f"  if (gi < 4)\n  {{\n    {SYNC}\n  }}")
    line = int(at(src, "if (gi").split(":")[0])
    assert render(src) == f"""\
t.hlsl:{line + 2}:5: warning: {SYNC_MSG} [WG0417] [-Wgroup-uniformity]
    {SYNC}
    ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
t.hlsl:{line}:7: note: this condition {GI}
  if (gi < 4)
      ^~~~~~
1 warning generated.
"""


def test_early_return_renders_the_return_and_its_condition() -> None:
    src = node("  if (dtid.x >= input.Get().count)\n    return;\n"
               "  GroupNodeOutputRecords<Rec> r = out1.GetGroupNodeOutputRecords(1);\n  r.OutputComplete();")
    line = int(at(src, "if (dtid").split(":")[0])
    assert render(src) == f"""\
t.hlsl:{line + 2}:35: warning: 'GetGroupNodeOutputRecords' must be called in thread-group-uniform control flow [WG0417] [-Wgroup-uniformity]
  GroupNodeOutputRecords<Rec> r = out1.GetGroupNodeOutputRecords(1);
                                  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
t.hlsl:{line + 1}:5: note: some threads may have returned here
    return;
    ^~~~~~~
t.hlsl:{line}:7: note: this condition depends on 'dtid' (SV_DispatchThreadID)
  if (dtid.x >= input.Get().count)
      ^~~~~~~~~~~~~~~~~~~~~~~~~~~
t.hlsl:{line + 3}:3: warning: 'OutputComplete' must be called in thread-group-uniform control flow [WG0417] [-Wgroup-uniformity]
  r.OutputComplete();
  ^~~~~~~~~~~~~~~~~~
t.hlsl:{line + 1}:5: note: some threads may have returned here
    return;
    ^~~~~~~
t.hlsl:{line}:7: note: this condition depends on 'dtid' (SV_DispatchThreadID)
  if (dtid.x >= input.Get().count)
      ^~~~~~~~~~~~~~~~~~~~~~~~~~~
2 warnings generated.
"""


def test_call_to_helper_in_varying_flow_renders_the_operation_inside() -> None:
    src = node("  if (gtid.y == 1)\n    Sync();", pre=f"void Sync()\n{{\n  {SYNC}\n}}\n")
    line = int(at(src, "if (gtid").split(":")[0])
    helper = int(at(src, SYNC).split(":")[0])
    assert render(src) == f"""\
t.hlsl:{line + 1}:5: warning: 'Sync' must be called in thread-group-uniform control flow [WG0417] [-Wgroup-uniformity]
    Sync();
    ^~~~~~
t.hlsl:{line}:7: note: this condition depends on 'gtid' (SV_GroupThreadID)
  if (gtid.y == 1)
      ^~~~~~~~~~~
t.hlsl:{helper}:3: note: 'Barrier' with GROUP_SYNC is called here
  {SYNC}
  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
1 warning generated.
"""


# ---------------------------------------------------------------- WG0417: each operation


OPERATIONS = [  # (statement, launch, the operations reported, in order)
    (SYNC, "broadcasting", [SYNC_MSG]),
    ("GroupMemoryBarrierWithGroupSync();", "broadcasting", ["'GroupMemoryBarrierWithGroupSync' must"]),
    ("DeviceMemoryBarrierWithGroupSync();", "coalescing", ["'DeviceMemoryBarrierWithGroupSync' must"]),
    ("AllMemoryBarrierWithGroupSync();", "broadcasting", ["'AllMemoryBarrierWithGroupSync' must"]),
    ("Barrier(buf, DEVICE_SCOPE | GROUP_SYNC);", "broadcasting", [SYNC_MSG]),
    ("ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1); r.OutputComplete();", "broadcasting",
     ["'GetThreadNodeOutputRecords' must", "'OutputComplete' must"]),
    ("GroupNodeOutputRecords<Rec> r = out1.GetGroupNodeOutputRecords(1); r.OutputComplete();", "coalescing",
     ["'GetGroupNodeOutputRecords' must", "'OutputComplete' must"]),
    ("empty.GroupIncrementOutputCount(1);", "broadcasting", ["'GroupIncrementOutputCount' must"]),
    ("empty.ThreadIncrementOutputCount(1);", "coalescing", ["'ThreadIncrementOutputCount' must"]),
    ("input.FinishedCrossGroupSharing();", "shared", ["'FinishedCrossGroupSharing' must"]),
]


@pytest.mark.parametrize("statement, launch, expected", OPERATIONS)
def test_each_operation_in_varying_flow(statement: str, launch: str, expected: list[str]) -> None:
    src = node(f"  if (gi == 3) {{ {statement} }}", launch)
    found = describe(check(src))
    assert len(found) == len(expected)
    for line, start in zip(found, expected):
        assert f" WG0417 {start}" in line
        assert f"[{at(src, 'gi == 3')} this condition {GI}]" in line
        assert "thread-group-uniform control flow" in line


@pytest.mark.parametrize("statement, launch, expected", OPERATIONS)
def test_each_operation_in_uniform_flow(statement: str, launch: str, expected: list[str]) -> None:
    condition = "items.Count() == 3" if launch == "coalescing" else "gid.x == 3"
    src = node(f"  if ({condition}) {{ {statement} }}", launch)
    assert check(src) == []


# ---------------------------------------------------------------- WG0417: each way flow becomes varying

CONTROL = [  # (body around OP, the labels expected on the diagnostic)
    ("if (gi == 0) { OP }", [("gi == 0", f"this condition {GI}")]),
    ("if (gi == 0) { } else { OP }", [("gi == 0", f"this condition {GI}")]),
    ("for (uint i = 0; i < gi; ++i) { OP }", [("i < gi", f"this condition {GI}")]),
    ("uint n = gi; while (n > 0) { OP n--; }", [("n > 0", f"this condition depends on 'n', which {GI}")]),
    ("uint k = 0; do { OP k++; } while (k < gi);", [("k < gi", f"this condition {GI}")]),
    ("switch (gi) { case 0: OP break; default: break; }", [("gi)", f"this selector {GI}")]),
    ("switch (gi & 1) { case 0: break; default: OP break; }", [("gi & 1", f"this selector {GI}")]),
    ("if (gi == 0) return; OP", [("return;", "some threads may have returned here"),
                                 ("gi == 0", f"this condition {GI}")]),
    ("for (uint i = 0; i < 4; ++i) { if (gi == i) return; } OP",
     [("return;", "some threads may have returned here"), ("gi == i", f"this condition {GI}")]),
    ("for (uint i = 0; i < 4; ++i) { OP if (gi == i) break; }",
     [("break;", "some threads may have left the loop here"), ("gi == i", f"this condition {GI}")]),
    ("for (uint i = 0; i < 4; ++i) { if (gi == i) continue; OP }",
     [("continue;", "some threads may have skipped to the next iteration here"), ("gi == i", f"this condition {GI}")]),
    ("switch (g_mode) { case 0: if (gi == 2) break; OP break; default: break; }",
     [("break;", "some threads may have left the switch here"), ("gi == 2", f"this condition {GI}")]),
    ("switch (g_mode) { case 0: if (gi == 2) break; case 1: OP break; default: break; }",
     [("break;", "some threads may have left the switch here"), ("gi == 2", f"this condition {GI}")]),
    ("uint k = 0; if (gi == 1) k = 2; if (k == 2) { OP }",
     [("k == 2", "this condition depends on 'k', which is assigned in non-uniform control flow")]),
    ("uint k = 0; if (gi == 1) { k++; } if (k == 1) { OP }",
     [("k == 1", "this condition depends on 'k', which is assigned in non-uniform control flow")]),
    ("uint k = gtid.x * 2 + 1; if (k > 3) { OP }",
     [("k > 3", "this condition depends on 'k', which depends on 'gtid' (SV_GroupThreadID)")]),
    ("uint k[4] = { 0, 0, 0, 0 }; k[gi & 3] = 1; if (k[0] == 1) { OP }",
     [("k[0] == 1", f"this condition depends on 'k', which {GI}")]),
    ("if (WaveIsFirstLane()) { OP }",
     [("WaveIsFirstLane()", "this condition depends on the result of 'WaveIsFirstLane' (wave operations are not "
                            "thread-group-uniform)")]),
    ("if (WaveActiveSum(1u) > 3) { OP }",
     [("WaveActiveSum(1u) > 3", "this condition depends on the result of 'WaveActiveSum' (wave operations are "
                                "not thread-group-uniform)")]),
    ("uint o; InterlockedAdd(gsCounter, 1, o); if (o == 0) { OP }",
     [("o == 0", "this condition depends on 'o', which depends on the value returned by 'InterlockedAdd'")]),
    ("uint o; raw.InterlockedAdd(0, 1, o); if (o == 0) { OP }",
     [("o == 0", "this condition depends on 'o', which depends on the value returned by 'InterlockedAdd'")]),
    ("uint v; GetValue(v, gi); if (v == 0) { OP }", [("v == 0", f"this condition depends on 'v', which {GI}")]),
    ("if (Identity(gi) == 0) { OP }", [("Identity(gi) == 0", f"this condition {GI}")]),
    ("if (gi == 0) { SetFlag(); } if (s_flag == 1) { OP }",
     [("s_flag == 1", "this condition depends on 's_flag', which is assigned in non-uniform control flow")]),
    ("uint r = gi == 0 ? SyncAndGet() : 0;", [("gi == 0", f"this condition {GI}")]),
    ("bool b = gi > 2 && SyncAndGet() > 0;", [("gi > 2", f"this condition {GI}")]),
]
HELPERS = f"""
void GetValue(out uint v, uint x) {{ v = x * 2; }}
uint Identity(uint x) {{ return x; }}
void SetFlag() {{ s_flag = 1; }}
uint SyncAndGet() {{ {SYNC} return 1; }}
"""


@pytest.mark.parametrize("body, labels", CONTROL)
def test_each_cause_of_varying_flow(body: str, labels: list[tuple[str, str]]) -> None:
    src = node("  " + body.replace("OP", SYNC), pre=HELPERS)
    found = describe(check(src))
    expected_labels = "".join(f" [{at(src, needle)} {message}]" for needle, message in labels)
    if "SyncAndGet()" in body:
        call = at(src, "SyncAndGet()", 1)
        assert found == [f"{call} WG0417 'SyncAndGet' must be called in thread-group-uniform control flow"
                         f"{expected_labels} [{at(src, SYNC)} 'Barrier' with GROUP_SYNC is called here]"]
    else:
        assert found == [f"{at(src, SYNC, 1)} WG0417 {SYNC_MSG}{expected_labels}"]


UNIFORM = [  # conditions and flows that keep the group together
    ("broadcasting", "if (gid.x == 0) { OP }"),
    ("broadcasting", "if (input.Get().count > 3) { OP }"),
    ("broadcasting", "for (uint i = 0; i < input.Get().count; ++i) { OP }"),
    ("broadcasting", "if (g_mode == 2) { OP }"),
    ("broadcasting", "if (gi == 0) { gsCounter = 5; } OP if (gsCounter > 2) { OP }"),
    ("broadcasting", "if (gsArr[3] > 0) { OP }"),
    ("broadcasting", "if (buf[g_mode] > 0) { OP }"),
    ("broadcasting", "if (gi == 0) { buf[0] = 1; } OP"),
    ("broadcasting", "for (uint i = 0; i < 4; ++i) { if (gi == i) break; } OP"),
    ("broadcasting", "uint k = gi; k = 0; OP"),
    ("broadcasting", "switch (g_mode) { case 0: if (gi == 2) break; gsCounter = 1; break; default: OP break; }"),
    ("broadcasting", "if (g_mode == 0) { if (gi == 2) return; } else { OP }"),
    ("broadcasting", "if (Early(gi) == 0) { OP }"),
    ("broadcasting", "if (Identity(gid.y) == 0) { OP }"),
    ("broadcasting", "uint v; GetValue(v, gid.x); if (v == 0) { OP }"),
    ("broadcasting", "if (out1.IsValid()) { OP }"),
    ("broadcasting", "if (WaveGetLaneCount() == 32) { OP }"),
    ("broadcasting", "if (GetRemainingRecursionLevels() == 0) { OP }"),
    ("coalescing", "if (items.Count() > 2) { OP }"),
    ("coalescing", "if (items.Get().value == 1) { OP }"),
    ("coalescing", "if (items[0].value == 1) { OP }"),
    ("coalescing", "for (uint i = 0; i < items.Count(); ++i) { if (items[i].value > 1) { OP } }"),
    ("shared", "if (input.FinishedCrossGroupSharing()) { OP }"),
]


@pytest.mark.parametrize("launch, body", UNIFORM)
def test_uniform_flow_is_accepted(launch: str, body: str) -> None:
    pre = HELPERS + "uint Early(uint x) { if (x == 0) return 1; return 2; }\n"
    src = node("  " + body.replace("OP", SYNC), launch, pre=pre)
    found = describe(check(src))
    if "Early(gi)" in body:  # the result varies, but the helper's return reconverges at the call
        assert found == [f"{at(src, SYNC, 1)} WG0417 {SYNC_MSG} [{at(src, 'Early(gi) == 0')} this condition depends "
                         "on the result of 'Early', which returns in non-uniform control flow]"]
    else:
        assert found == []


def test_varying_argument_is_reported_inside_the_helper_with_the_call_site() -> None:
    pre = f"void MaybeSync(uint n)\n{{\n  if (n > 2) {{ {SYNC} }}\n}}\n"
    src = node("  MaybeSync(gi);\n  MaybeSync(7);", pre=pre)
    assert describe(check(src)) == [
        f"{at(src, SYNC)} WG0417 {SYNC_MSG} [{at(src, 'n > 2')} this condition depends on 'n', which {GI}]"
        f" [{at(src, 'MaybeSync(gi)')} 'MaybeSync' is called here from 'Main']"]


def test_coalescing_input_record_at_a_varying_index_is_varying() -> None:
    src = node(f"  if (items[gi].value == 1) {{ {SYNC} }}\n  if (items.Get(gi).count > 0) {{ {SYNC} }}",
               "coalescing")
    assert describe(check(src)) == [
        f"{at(src, SYNC)} WG0417 {SYNC_MSG} [{at(src, 'items[gi]')} this condition {GI}]",
        f"{at(src, SYNC, 1)} WG0417 {SYNC_MSG} [{at(src, 'items.Get(gi)')} this condition {GI}]"]


def test_per_thread_output_records_are_varying() -> None:
    body = ("  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n"
            f"  r.Get().x = 4;\n  if (r.Get().x == 4) {{ {SYNC} }}\n  r.OutputComplete();")
    src = node(body)
    assert describe(check(src)) == [
        f"{at(src, SYNC)} WG0417 {SYNC_MSG} [{at(src, 'r.Get().x == 4')} this condition depends on 'r', which "
        "depends on per-thread records from 'GetThreadNodeOutputRecords']"]


# ---------------------------------------------------------------- WG0417: uniform operands


def test_group_records_need_a_uniform_count_and_output() -> None:
    body = ("  GroupNodeOutputRecords<Rec> a = out1.GetGroupNodeOutputRecords(gi & 1);\n  a.OutputComplete();\n"
            "  GroupNodeOutputRecords<Rec> b = outs[gi & 3].GetGroupNodeOutputRecords(1);\n  b.OutputComplete();\n"
            "  GroupNodeOutputRecords<Rec> c = outs[gid.x & 3].GetGroupNodeOutputRecords(input.Get().count);\n"
            "  c.OutputComplete();")
    src = node(body)
    assert describe(check(src)) == [
        f"{at(src, 'out1.GetGroup')} WG0417 the record count passed to 'GetGroupNodeOutputRecords' must be "
        f"thread-group-uniform [{at(src, 'gi & 1')} this value {GI}]",
        f"{at(src, 'outs[gi')} WG0417 'GetGroupNodeOutputRecords' must be called on a thread-group-uniform node "
        f"output [{at(src, 'outs[gi')} this node output {GI}]"]
    assert check(src)[1].notes == ("use 'GetThreadNodeOutputRecords' when each thread picks its own output",)


def test_group_increment_needs_a_uniform_count() -> None:
    body = "  empty.GroupIncrementOutputCount(gi);\n  uint w = WaveActiveCountBits(true);\n" \
           "  empty.GroupIncrementOutputCount(w);\n  empty.GroupIncrementOutputCount(input.Get().count);"
    src = node(body)
    assert describe(check(src)) == [
        f"{at(src, 'empty.')} WG0417 the count passed to 'GroupIncrementOutputCount' must be thread-group-uniform"
        f" [{at(src, 'gi);')} this value {GI}]",
        f"{at(src, 'empty.', 1)} WG0417 the count passed to 'GroupIncrementOutputCount' must be "
        f"thread-group-uniform [{at(src, 'w);')} this value depends on 'w', which depends on the result of "
        "'WaveActiveCountBits' (wave operations are not thread-group-uniform)]"]


def test_thread_variants_accept_varying_counts_and_outputs() -> None:
    body = ("  ThreadNodeOutputRecords<Rec> a = out1.GetThreadNodeOutputRecords(gi & 1);\n  a.OutputComplete();\n"
            "  ThreadNodeOutputRecords<Rec> b = outs[gi & 3].GetThreadNodeOutputRecords(dtid.x & 1);\n"
            "  b.OutputComplete();\n  empty.ThreadIncrementOutputCount(gi & 1);")
    assert check(node(body)) == []


def test_thread_launch_has_no_uniformity_rules() -> None:
    body = ("  if (input.Get().value == 0) return;\n"
            "  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(input.Get().count);\n"
            "  if (input.Get().count > 0) { r.Get().x = 1; }\n  r.OutputComplete();\n"
            "  if (WaveIsFirstLane()) { empty.GroupIncrementOutputCount(input.Get().value); }")
    assert check(node(body, "thread")) == []


# ---------------------------------------------------------------- WG0418 / WG0419: OutputComplete


def test_output_complete_missing_on_one_branch_renders() -> None:
    body = ("  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n"
            "  if (input.Get().count > 0)\n    r.OutputComplete();")
    src = node(body)
    line = int(at(src, "ThreadNodeOutputRecords<Rec> r").split(":")[0])
    assert render(src) == f"""\
t.hlsl:{line}:36: warning: output records in 'r' are not completed with OutputComplete() on every path [WG0418] [-Woutput-complete]
  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);
                                   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
t.hlsl:{line + 3}:1: note: 'r' is still open when 'Main' ends here
}}
^
note: every Get*NodeOutputRecords() must reach OutputComplete() in the same function
1 warning generated.
"""


def test_output_complete_missing_after_an_early_return() -> None:
    body = ("  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n"
            "  if (input.Get().count == 0)\n    return;\n  r.OutputComplete();")
    src = node(body)
    assert describe(check(src)) == [
        f"{at(src, 'out1.Get')} WG0418 output records in 'r' are not completed with OutputComplete() on every path"
        f" [{at(src, 'return;')} 'r' is still open when the function returns here]"]


def test_output_complete_never_called() -> None:
    src = node("  GroupNodeOutputRecords<Rec> r = out1.GetGroupNodeOutputRecords(2);\n  r.Get(1).x = 3;")
    assert describe(check(src)) == [
        f"{at(src, 'out1.Get')} WG0418 output records in 'r' are never completed with OutputComplete() "
        f"[{main_end(src)} 'Main' ends here]"]


def test_records_not_stored_are_never_completed() -> None:
    src = node("  out1.GetThreadNodeOutputRecords(1).Get().x = 1;\n  out1.GetThreadNodeOutputRecords(0);\n"
               "  out1.GetThreadNodeOutputRecords(0).OutputComplete();")
    message = "WG0418 output records from 'GetThreadNodeOutputRecords' are never completed with OutputComplete()"
    assert describe(check(src)) == [f"{at(src, 'out1.')} {message}", f"{at(src, 'out1.', 1)} {message}"]


def test_records_completed_on_every_path_are_accepted() -> None:
    body = """
  ThreadNodeOutputRecords<Rec> a = out1.GetThreadNodeOutputRecords(1);
  if (input.Get().count > 0) { a.Get().x = 1; a.OutputComplete(); } else { a.OutputComplete(); }
  ThreadNodeOutputRecords<Rec> b = out1.GetThreadNodeOutputRecords(1);
  switch (g_mode) { case 0: b.OutputComplete(); break; default: b.OutputComplete(); break; }
  for (uint i = 0; i < 3; ++i) {
    ThreadNodeOutputRecords<Rec> c = out1.GetThreadNodeOutputRecords(1);
    c.Get().x = i;
    c.OutputComplete();
  }
  ThreadNodeOutputRecords<Rec> d = out1.GetThreadNodeOutputRecords(1);
  Finish(d);
  ThreadNodeOutputRecords<Rec> e = out1.GetThreadNodeOutputRecords(1);
  if (g_mode == 3) { e.OutputComplete(); return; }
  e.OutputComplete();
  Finish(out1.GetThreadNodeOutputRecords(1));
  ThreadNodeOutputRecords<Rec> f = Make(out1);
  f.OutputComplete();"""
    pre = ("void Finish(ThreadNodeOutputRecords<Rec> r) { r.OutputComplete(); }\n"
           "ThreadNodeOutputRecords<Rec> Make(NodeOutput<Rec> o) { return o.GetThreadNodeOutputRecords(1); }\n")
    assert check(node(body, pre=pre)) == []


def test_switch_without_default_and_zero_trip_loop_miss_the_complete() -> None:
    body = ("  ThreadNodeOutputRecords<Rec> a = out1.GetThreadNodeOutputRecords(1);\n"
            "  switch (g_mode) { case 0: a.OutputComplete(); break; case 1: a.OutputComplete(); break; }\n"
            "  ThreadNodeOutputRecords<Rec> b = out1.GetThreadNodeOutputRecords(1);\n"
            "  while (g_mode > 4) { b.OutputComplete(); break; }")
    src = node(body)
    end = main_end(src)
    assert describe(check(src)) == [
        f"{at(src, 'out1.Get')} WG0418 output records in 'a' are not completed with OutputComplete() on every path"
        f" [{end} 'a' is still open when 'Main' ends here]",
        f"{at(src, 'out1.Get', 1)} WG0418 output records in 'b' are not completed with OutputComplete() on every "
        f"path [{end} 'b' is still open when 'Main' ends here]"]


def test_helpers_check_their_record_parameters() -> None:
    pre = "void Twice(ThreadNodeOutputRecords<Rec> p)\n{\n  p.OutputComplete();\n  p.Get().x = 1;\n}\n"
    src = node("  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n  Twice(r);", pre=pre)
    assert describe(check(src)) == [
        f"{at(src, 'p.Get()')} WG0419 the records in 'p' are accessed after OutputComplete() "
        f"[{at(src, 'p.OutputComplete')} OutputComplete() is called here]"]


def test_a_copy_of_records_stops_tracking() -> None:
    body = ("  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n"
            "  ThreadNodeOutputRecords<Rec> copy = r;\n  copy.OutputComplete();")
    assert check(node(body)) == []


def test_use_after_complete_renders() -> None:
    body = "  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n" \
           "  r.OutputComplete();\n  r.Get().x = 2;"
    src = node(body)
    line = int(at(src, "r.OutputComplete").split(":")[0])
    assert render(src) == f"""\
t.hlsl:{line + 1}:3: error: the records in 'r' are accessed after OutputComplete() [WG0419]
  r.Get().x = 2;
  ^~~~~~~
t.hlsl:{line}:3: note: OutputComplete() is called here
  r.OutputComplete();
  ^~~~~~~~~~~~~~~~~~
note: OutputComplete() ends the use of the records: nothing may access them after it
1 error generated.
"""


def test_use_after_complete_on_some_path_twice_and_in_loops() -> None:
    body = """
  GroupNodeOutputRecords<Rec> r = out1.GetGroupNodeOutputRecords(4);
  if (g_mode == 1) { r.OutputComplete(); }
  uint x = r[2].x;
  r.OutputComplete();
  ThreadNodeOutputRecords<Rec> t = out1.GetThreadNodeOutputRecords(1);
  for (uint i = 0; i < 2; ++i) { t.Get().x = i; t.OutputComplete(); }
  ThreadNodeOutputRecords<Rec> u = out1.GetThreadNodeOutputRecords(1);
  Finish(u);
  Barrier(u, 0);"""
    src = node(body, pre="void Finish(ThreadNodeOutputRecords<Rec> p) { p.OutputComplete(); }\n")
    first = at(src, "r.OutputComplete")
    loop_complete = at(src, "t.OutputComplete")
    assert describe(check(src)) == [
        f"{at(src, 'r[2]')} WG0419 the records in 'r' are accessed after OutputComplete() "
        f"[{first} OutputComplete() is called here]",
        f"{at(src, 'r.OutputComplete', 1)} WG0419 OutputComplete() may be called twice on 'r' "
        f"[{first} it is already called here]",
        f"{at(src, 'out1.GetThread')} WG0418 output records in 't' are not completed with OutputComplete() on "
        f"every path [{main_end(src)} 't' is still open when 'Main' ends here]",  # the loop may not run
        f"{at(src, 't.Get()')} WG0419 the records in 't' are accessed after OutputComplete() "
        f"[{loop_complete} OutputComplete() is called here]",
        f"{loop_complete} WG0419 OutputComplete() may be called twice on 't' [{at(src, 'for (')} in this loop]",
        f"{at(src, 'u, 0')} WG0419 'u' is used after OutputComplete() [{at(src, 'u);')} OutputComplete() is "
        "called here]"]


# ---------------------------------------------------------------- WG0420: FinishedCrossGroupSharing


def test_finished_cross_group_sharing_twice_renders() -> None:
    src = node("  bool last = input.FinishedCrossGroupSharing();\n  if (input.FinishedCrossGroupSharing()) { }",
               "shared")
    line = int(at(src, "bool last").split(":")[0])
    assert render(src) == f"""\
t.hlsl:{line + 1}:7: error: FinishedCrossGroupSharing() may be called more than once per thread [WG0420]
  if (input.FinishedCrossGroupSharing()) {{ }}
      ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
t.hlsl:{line}:15: note: it is already called here
  bool last = input.FinishedCrossGroupSharing();
              ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
note: it may be called at most once per thread
1 error generated.
"""


def test_finished_cross_group_sharing_in_a_loop_and_through_a_helper() -> None:
    body = ("  for (uint i = 0; i < 2; ++i) { input.FinishedCrossGroupSharing(); }\n")
    src = node(body, "shared")
    assert describe(check(src)) == [
        f"{at(src, 'input.F')} WG0420 FinishedCrossGroupSharing() may be called more than once per thread "
        f"[{at(src, 'for (')} in this loop]"]
    pre = "bool Done(RWDispatchNodeInputRecord<Shared> r) { return r.FinishedCrossGroupSharing(); }\n"
    src = node("  Done(input);\n  Done(input);", "shared", pre=pre)
    assert describe(check(src)) == [
        f"{at(src, 'Done(input)', 1)} WG0420 FinishedCrossGroupSharing() may be called more than once per thread "
        f"[{at(src, 'Done(input)')} it is already called here] [{at(src, 'r.F')} FinishedCrossGroupSharing() is "
        "called here]"]


def test_finished_cross_group_sharing_once_per_path_is_accepted() -> None:
    body = ("  if (gid.x == 0) { input.FinishedCrossGroupSharing(); } else { input.FinishedCrossGroupSharing(); }\n"
            "  for (uint i = 0; i < 2; ++i) { if (input.FinishedCrossGroupSharing()) { } break; }")
    src = node(body, "shared")
    # the loop's call follows the if's on every path
    assert [d.split(" [")[0] for d in describe(check(src))] == [
        f"{at(src, 'input.F', 2)} WG0420 FinishedCrossGroupSharing() may be called more than once per thread"]
    assert check(node("  if (gid.x == 0) { input.FinishedCrossGroupSharing(); }\n"
                      "  else { input.FinishedCrossGroupSharing(); }", "shared")) == []


# ---------------------------------------------------------------- WG0421: barriers


BARRIERS = [  # (launch, statement, message or None, note)
    ("broadcasting", "Barrier(16, GROUP_SCOPE);", "invalid MemoryTypeFlags for Barrier operation; expected 0, "
     "ALL_MEMORY, or some combination of UAV_MEMORY, GROUP_SHARED_MEMORY, NODE_INPUT_MEMORY, NODE_OUTPUT_MEMORY "
     "flags", None),
    ("broadcasting", "Barrier(UAV_MEMORY, 8);", "invalid SemanticFlags for Barrier operation; expected 0 or some "
     "combination of GROUP_SYNC, GROUP_SCOPE, DEVICE_SCOPE flags", None),
    ("broadcasting", "Barrier(GROUP_SHARED_MEMORY, DEVICE_SCOPE);",
     "DEVICE_SCOPE specified for Barrier operation without applicable memory",
     "DEVICE_SCOPE needs UAV_MEMORY or NODE_INPUT_MEMORY"),
    ("broadcasting", "Barrier(NODE_OUTPUT_MEMORY | UAV_MEMORY, DEVICE_SCOPE);", None, None),
    ("broadcasting", "Barrier(NODE_INPUT_MEMORY, DEVICE_SCOPE | GROUP_SYNC);", None, None),
    ("broadcasting", "Barrier(ALL_MEMORY, DEVICE_SCOPE);", None, None),
    ("broadcasting", "Barrier(0, GROUP_SCOPE);", "GROUP_SCOPE specified for Barrier operation without applicable "
     "memory", "GROUP_SCOPE needs memory flags (e.g. GROUP_SHARED_MEMORY or UAV_MEMORY)"),
    ("broadcasting", "Barrier(0, GROUP_SYNC);", None, None),
    ("broadcasting", "Barrier(UAV_MEMORY, GROUP_SCOPE | DEVICE_SCOPE);", None, None),
    ("broadcasting", "Barrier(buf, DEVICE_SCOPE);", None, None),
    ("broadcasting", "Barrier(tex, GROUP_SCOPE);", "Barrier() needs a UAV or a writable node record object, not "
     "'Texture2D<float4>'", None),
    ("broadcasting", "GroupMemoryBarrierWithGroupSync(); AllMemoryBarrier(); DeviceMemoryBarrier();", None, None),
    ("shared", "Barrier(input, DEVICE_SCOPE);", None, None),
    ("rwcoalescing", "Barrier(items, GROUP_SCOPE | GROUP_SYNC);", None, None),
    ("rwcoalescing", "Barrier(items, DEVICE_SCOPE);", "DEVICE_SCOPE specified for Barrier operation without "
     "applicable memory", "'RWGroupNodeInputRecords<In>' is not visible beyond its thread group: DEVICE_SCOPE "
     "does not apply to it"),
    ("broadcasting", "GroupNodeOutputRecords<Rec> r = out1.GetGroupNodeOutputRecords(1); "
     "Barrier(r, DEVICE_SCOPE); r.OutputComplete();", "DEVICE_SCOPE specified for Barrier operation without "
     "applicable memory", "'GroupNodeOutputRecords<Rec>' is not visible beyond its thread group: DEVICE_SCOPE "
     "does not apply to it"),
    ("broadcasting", "GroupNodeOutputRecords<Rec> r = out1.GetGroupNodeOutputRecords(1); "
     "Barrier(r, GROUP_SCOPE | GROUP_SYNC); r.OutputComplete();", None, None),
    ("broadcasting", "ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1); "
     "Barrier(r, GROUP_SCOPE); r.OutputComplete();", "GROUP_SCOPE specified for Barrier operation without "
     "applicable memory", "'ThreadNodeOutputRecords<Rec>' belongs to one thread: GROUP_SCOPE does not apply to it"),
    ("broadcasting", "ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1); "
     "Barrier(r, DEVICE_SCOPE); r.OutputComplete();", "DEVICE_SCOPE specified for Barrier operation without "
     "applicable memory", "'ThreadNodeOutputRecords<Rec>' is not visible beyond its thread: DEVICE_SCOPE does "
     "not apply to it"),
    ("rwthread", "Barrier(input, GROUP_SCOPE);", "GROUP_SYNC or GROUP_SCOPE specified for Barrier operation when "
     "context has no visible group", "each thread of a thread launch node is its own group"),
    ("rwthread", "Barrier(input, 0);", None, None),
    ("thread", "Barrier(GROUP_SHARED_MEMORY, 0);", "GROUP_SHARED_MEMORY specified for Barrier operation when "
     "context has no visible group", "group shared memory is not available in thread launch nodes"),
    ("thread", "Barrier(UAV_MEMORY, GROUP_SYNC);", "GROUP_SYNC or GROUP_SCOPE specified for Barrier operation "
     "when context has no visible group", "each thread of a thread launch node is its own group"),
    ("thread", "Barrier(UAV_MEMORY, GROUP_SCOPE);", "GROUP_SYNC or GROUP_SCOPE specified for Barrier operation "
     "when context has no visible group", "each thread of a thread launch node is its own group"),
    ("thread", "Barrier(ALL_MEMORY, DEVICE_SCOPE);", None, None),
    ("thread", "Barrier(UAV_MEMORY, DEVICE_SCOPE);", None, None),
    ("thread", "DeviceMemoryBarrier(); AllMemoryBarrier();", None, None),
    ("thread", "GroupMemoryBarrier();", "GROUP_SHARED_MEMORY specified for Barrier operation when context has no "
     "visible group", "group shared memory is not available in thread launch nodes; 'GroupMemoryBarrier()' is "
     "Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE)"),
    ("thread", "GroupMemoryBarrierWithGroupSync();", "GROUP_SHARED_MEMORY specified for Barrier operation when "
     "context has no visible group", "group shared memory is not available in thread launch nodes; "
     "'GroupMemoryBarrierWithGroupSync()' is Barrier(GROUP_SHARED_MEMORY, GROUP_SYNC | GROUP_SCOPE)"),
    ("thread", "DeviceMemoryBarrierWithGroupSync();", "GROUP_SYNC or GROUP_SCOPE specified for Barrier operation "
     "when context has no visible group", "each thread of a thread launch node is its own group; "
     "'DeviceMemoryBarrierWithGroupSync()' is Barrier(UAV_MEMORY, GROUP_SYNC | DEVICE_SCOPE)"),
    ("thread", "AllMemoryBarrierWithGroupSync();", "GROUP_SYNC or GROUP_SCOPE specified for Barrier operation "
     "when context has no visible group", "each thread of a thread launch node is its own group; "
     "'AllMemoryBarrierWithGroupSync()' is Barrier(ALL_MEMORY, GROUP_SYNC | DEVICE_SCOPE)"),
]


@pytest.mark.parametrize("launch, statement, message, note", BARRIERS)
def test_barrier_rules(launch: str, statement: str, message: str | None, note: str | None) -> None:
    src = node(f"  {statement}", launch)
    found = check(src)
    if message is None:
        assert found == []
        return
    barrier = statement.index("Barrier") if "Barrier(" in statement else 0
    start = statement[:barrier].rfind(" ") + 1 if barrier else 0
    assert [(d.code, d.message) for d in found] == [("WG0421", message)]
    assert describe(found)[0].startswith(at(src, statement[start:]))
    assert found[0].group == "hlsl-barrier"
    assert found[0].notes == ((note,) if note else ())


# what DXC accepts and the spec does not: warnings (docs/reference.md "Diagnostic policy")
SPEC_ONLY_BARRIERS = [  # (launch, statement, code, group)
    ("broadcasting", "Barrier(NODE_OUTPUT_MEMORY, DEVICE_SCOPE);", "WG0474", "barrier-node-output-scope"),
    ("broadcasting", "Barrier(NODE_OUTPUT_MEMORY, DEVICE_SCOPE | GROUP_SCOPE | GROUP_SYNC);", "WG0474",
     "barrier-node-output-scope"),
    ("broadcasting", "Barrier(input, GROUP_SCOPE | GROUP_SYNC);", "WG0473", "barrier-read-only-record"),
    ("thread", "Barrier(input, 0);", "WG0473", "barrier-read-only-record"),
]


@pytest.mark.parametrize("launch, statement, code, group", SPEC_ONLY_BARRIERS)
def test_barriers_dxc_accepts_are_warnings(launch: str, statement: str, code: str, group: str) -> None:
    src = node(f"  {statement}", launch)
    found = check(src)
    assert [(d.code, d.group, d.severity) for d in found] == [(code, group, Severity.WARNING)]
    assert describe(found)[0].startswith(at(src, "Barrier("))


NOT_CONSTANT_FLAGS = ("Barrier flags must be compile-time constants: a barrier's memory semantics and scope are "
                      "constant operands in SPIR-V (and in DXIL)")
NOT_CONSTANT_LABEL = "this argument is not a constant (a static global counts as its initialiser only when nothing writes it)"


def test_non_constant_barrier_flag_is_labelled() -> None:
    src = node("  Barrier(UAV_MEMORY, gi & 1);")
    assert describe(check(src)) == [f"{at(src, 'Barrier')} WG0443 {NOT_CONSTANT_FLAGS} "
                                    f"[{at(src, 'gi & 1')} {NOT_CONSTANT_LABEL}]"]
    src = node("  Barrier(gi, GROUP_SYNC);", "broadcasting")
    assert describe(check(src)) == [f"{at(src, 'Barrier')} WG0443 {NOT_CONSTANT_FLAGS} "
                                    f"[{at(src, 'gi,')} {NOT_CONSTANT_LABEL}]"]
    assert check(src)[0].group is None          # an error no -W option lowers: the back end needs the value


# ---------------------------------------------------------------- WG0416: thread launch


def test_thread_launch_bans() -> None:
    body = """
  gsCounter = 1;
  gsCounter += 2;
  Touch();
  GroupNodeOutputRecords<Rec> g = out1.GetGroupNodeOutputRecords(1);
  g.OutputComplete();
  uint q = QuadReadAcrossX(input.Get().value) + QuadReadAcrossY(1u) + QuadReadAcrossDiagonal(2u);
  float4 c = tex.Sample(samp, float2(0, 0)) + tex.SampleBias(samp, float2(0, 0), 1.0);
  float4 d = tex.SampleLevel(samp, float2(0, 0), 0);"""
    src = node(body, "thread", pre="void Touch() { gsArr[3] = 2; }\n")
    assert describe(check(src)) == [
        f"{at(src, 'gsArr[3]')} WG0416 groupshared variable 'gsArr' cannot be used in thread launch nodes "
        f"[{at(src, 'gsArr[64]')} 'gsArr' is declared here]",
        f"{at(src, 'gsCounter = 1')} WG0416 groupshared variable 'gsCounter' cannot be used in thread launch nodes "
        f"[{at(src, 'gsCounter;')} 'gsCounter' is declared here]",
        f"{at(src, 'out1.GetGroup')} WG0471 'GetGroupNodeOutputRecords' in a thread launch node: the spec does not "
        "allow it (DXC does)",
        *(f"{at(src, name)} WG0429 '{name}' in a thread launch node reads a quad the node does not have: its "
          "result is undefined" for name in ("QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal")),
        f"{at(src, 'tex.Sample(')} WG0416 'Sample' computes implicit derivatives, which are not available in thread "
        "launch nodes",
        f"{at(src, 'tex.SampleBias')} WG0416 'SampleBias' computes implicit derivatives, which are not available in "
        "thread launch nodes"]


def test_group_launches_allow_groupshared_quads_and_derivatives() -> None:
    body = ("  gsCounter = QuadReadAcrossX(gi);\n  float4 c = tex.Sample(samp, float2(0, 0));\n"
            "  GroupNodeOutputRecords<Rec> g = out1.GetGroupNodeOutputRecords(1);\n  g.OutputComplete();")
    assert check(node(body)) == []
    assert check(node(body, "coalescing")) == []


# ---------------------------------------------------------------- WG0415: SV_DispatchGrid writes


def test_dispatch_grid_write_renders() -> None:
    src = node("  input.Get().grid.x = 2;", "shared")
    line = int(at(src, "input.Get().grid").split(":")[0])
    column = int(at(src, "grid :").split(":")[1])
    assert render(src) == f"""\
t.hlsl:{line}:3: error: field 'grid' with SV_DispatchGrid semantic is not assignable through \
RWDispatchNodeInputRecord [WG0415]
  input.Get().grid.x = 2;
  ^~~~~~~~~~~~~~~~~~
t.hlsl:3:{column}: note: 'grid' is declared with SV_DispatchGrid here
[NodeTrackRWInputSharing] struct Shared {{ uint3 grid : SV_DispatchGrid; uint total; }};
{" " * (column - 1)}^~~~
note: the dispatch grid is fixed when the record is launched
1 error generated.
"""


def test_dispatch_grid_writes_in_every_form() -> None:
    body = """
  input.Get().grid = uint3(1, 1, 1);
  input.Get().grid.y++;
  input.Get().grid[2] += 1;
  InterlockedAdd(input.Get().grid.x, 1);
  SetGrid(input.Get().grid);
  input.Get().total = input.Get().grid.x;
  InterlockedAdd(input.Get().total, 1);"""
    pre = "void SetGrid(out uint3 g) { g = uint3(1, 1, 1); }\n"
    src = node(body, "shared", pre=pre)
    found = describe(check(src))
    assert [f.split(" WG0415")[0] for f in found] == [
        at(src, "input.Get().grid = "), at(src, "input.Get().grid.y"), at(src, "input.Get().grid[2]"),
        at(src, "input.Get().grid.x, 1"), at(src, "input.Get().grid)")]
    assert all("field 'grid' with SV_DispatchGrid semantic is not assignable" in f for f in found)


def test_dispatch_grid_nested_in_a_struct() -> None:
    """A write naming the field is an error; a write of the struct member holding it overwrites the
    field as a whole-record write does (DXC accepts both: warning WG0480)."""
    src = node("  input.Get().inner.size.x = 3;\n  input.Get().inner = (Inner)0;\n  input.Get().v = 1;", "nested")
    assert describe(check(src)) == [
        f"{at(src, 'input.Get().inner.size')} WG0415 field 'size' with SV_DispatchGrid semantic is not assignable "
        f"through RWDispatchNodeInputRecord [{at(src, 'size :')} 'size' is declared with SV_DispatchGrid here]",
        f"{at(src, 'input.Get().inner =')} WG0480 this write of 'inner' overwrites its SV_DispatchGrid field 'size', "
        f"which the spec says must not be written [{at(src, 'size :')} 'size' is declared with SV_DispatchGrid here]"]


def test_whole_record_writes_overwrite_the_dispatch_grid() -> None:
    """Assignment, out and inout arguments of the whole record (member_write_diagnostics.hlsl:34):
    DXC accepts them, the spec forbids writing the field: warning WG0480, not error WG0415."""
    body = """
  Shared copy = input.Get();
  input.Get() = copy;
  Reset(input.Get());
  Touch(input.Get());
  Read(input.Get());"""
    pre = ("void Reset(out Shared s) { s = (Shared)0; }\nvoid Touch(inout Shared s) { s.total++; }\n"
           "uint Read(Shared s) { return s.total; }\n")
    src = node(body, "shared", pre=pre)
    found = check(src)
    assert [(d.code, d.severity, d.group) for d in found] == [("WG0480", Severity.WARNING, "dispatch-grid-overwrite")] * 3
    assert [describe([d])[0].split(" WG0480")[0] for d in found] == [
        at(src, "input.Get() = copy"), at(src, "input.Get());", 0), at(src, "input.Get());", 1)]


def test_a_method_call_writes_what_its_body_writes() -> None:
    """`this` is a reference: a method on the record writes only the fields its body (and the
    methods it calls on `this`) writes, so reading methods and writes of other fields are silent."""
    src = """struct Job {
  uint3 grid : SV_DispatchGrid; uint total;
  uint Sum() { return total + grid.x; }
  void Reset() { total = 0; }
  void Regrid() { grid.x = 1; }
  void Clear() { Reset(); Regrid(); }
  void Replace(Job other) { this = other; }
};
[Shader("node")] [NodeLaunch("broadcasting")] [NodeMaxDispatchGrid(4, 1, 1)] [NumThreads(4, 1, 1)]
void Main(RWDispatchNodeInputRecord<Job> input)
{
  uint s = input.Get().Sum();
  input.Get().Reset();
  input.Get().Clear();
  input.Get().Replace((Job)0);
}
"""
    found = describe(check(src))
    grid = f"[{at(src, 'grid :')} 'grid' is declared with SV_DispatchGrid here]"
    assert found == [
        f"{at(src, 'input.Get().Clear')} WG0415 field 'grid' with SV_DispatchGrid semantic is not assignable "
        f"through RWDispatchNodeInputRecord {grid}",
        f"{at(src, 'input.Get().Replace')} WG0480 this write of the whole record overwrites its SV_DispatchGrid "
        f"field 'grid', which the spec says must not be written {grid}"]


# ---------------------------------------------------------------- the samples are valid


def _samples() -> list[str]:
    return sorted(glob.glob(os.path.join(ROOT, "samples", "*.hlsl")))


@pytest.mark.parametrize("path", _samples(), ids=os.path.basename)
def test_samples_have_no_body_diagnostics(path: str) -> None:
    front = run_front_end(Options(input=path, emit="ir", include_dirs=(os.path.join(ROOT, "samples", "include"),)))
    assert front.analysis is not None
    module = front.analysis.module
    assert module.node_shaders
    for function in module.node_shaders:
        attribute = ir.find_attribute(function.attributes, "nodelaunch")
        launch = attribute.args[0].value if attribute else "broadcasting"
        assert check_node_body(function, launch) == [], function.name


def test_barriers_in_entries_of_other_stages_follow_dxcs_rules() -> None:
    """A vertex shader has no visible group and no node memory (DXC's warn_hlsl_barrier_* rules,
    DefaultError); a compute shader has a group. Reported at the flag argument, the entry labelled."""
    src = "\n".join(['RWBuffer<uint> buf;',
                     'void Helper() { Barrier(NODE_INPUT_MEMORY | GROUP_SHARED_MEMORY, GROUP_SYNC); }',
                     '[Shader("vertex")]',
                     'float4 VS() : SV_Position { Helper(); Barrier(buf, DEVICE_SCOPE); return 0; }',
                     '[Shader("compute")] [NumThreads(8, 1, 1)]',
                     'void CS() { Barrier(GROUP_SHARED_MEMORY, GROUP_SCOPE | GROUP_SYNC); '
                     'Barrier(ALL_MEMORY, GROUP_SYNC); }']) + "\n"
    result = driver.compile(Options(input="-", emit="ir"), stdin=src.encode())
    vs = "<stdin>:4:8: note: entry function 'VS' (vertex shader) is defined here"
    assert [line for line in Renderer().render(result.diagnostics).splitlines()
            if line.startswith("<stdin>")] == [
        "<stdin>:2:25: error: GROUP_SHARED_MEMORY specified for Barrier operation when context has no visible group "
        "[WG0421] [-Whlsl-barrier]", vs,
        "<stdin>:2:25: error: NODE_INPUT_MEMORY or NODE_OUTPUT_MEMORY may only be specified for Barrier operation in "
        "a node shader [WG0421] [-Whlsl-barrier]", vs,
        "<stdin>:2:66: error: GROUP_SYNC or GROUP_SCOPE specified for Barrier operation when context has no visible "
        "group [WG0421] [-Whlsl-barrier]", vs]


def test_dxcs_barrier_rules_skip_flags_that_are_constant_only_after_optimisation() -> None:
    """barrier-vs.hlsl: `static uint i = 7; Barrier(ALL_MEMORY, i + i); Barrier(i + i, 0);` in a
    helper of a vertex shader: DXC's Sema has no diagnostic for them (not constant expressions),
    while the same flags written as constants break its rules."""
    settled = "\n".join(["static uint i = 7;",
                         "void Helper() { Barrier(ALL_MEMORY, i + i); Barrier(i + i, 0); }",
                         '[Shader("vertex")]',
                         "float4 VS() : SV_Position { Helper(); return 0; }"]) + "\n"
    result = driver.compile(Options(input="-", emit="ir"), stdin=settled.encode())
    assert result.ok and not result.diagnostics, Renderer().render(result.diagnostics)
    constant = settled.replace("static uint i = 7;", "static const uint i = 7;")
    result = driver.compile(Options(input="-", emit="ir"), stdin=constant.encode())
    assert [d.code for d in result.diagnostics] == ["WG0421", "WG0421", "WG0421"]


# ---------------------------------------------------------------- the IR walk

def test_children_are_every_ir_node_in_field_order() -> None:
    """`children` reads only the fields whose annotation names an IR node class (looked up once
    per class); a walk of every field's value of every IR node of the samples and SPIR-V test
    programs must find the same sub-nodes in the same order."""
    from pathlib import Path

    from conftest import SAMPLE_INCLUDE, SAMPLES
    from wgc.irtools.walk import children, walk_body

    def every_field(node):  # type: ignore[no-untyped-def]
        found = []
        for value in vars(node).values():
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, (ir.Expr, ir.Stmt, ir.SwitchCase)):
                    found.append(item)
        return found

    paths = sorted(SAMPLES.glob("*.hlsl")) + sorted((Path(__file__).parent / "spirv_programs").glob("*.hlsl"))
    visited = set()
    for path in paths:
        front = run_front_end(Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                      proposals=driver.PROPOSALS))
        assert front.analysis is not None
        for function in front.analysis.module.functions:
            for node in walk_body(function):
                assert children(node) == every_field(node), (path.name, node)
                visited.add(type(node).__name__)
    assert len(visited) >= 25   # the walk saw most IR classes


def test_reports_replayed_from_the_last_fixpoint_walk_equal_a_reporting_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_Flow.report` replays what the walk that ended the fixpoint recorded instead of walking the body
    again: on every source of this file's tables (helpers called in varying and uniform flow, statics
    set by helpers, loops, switches, early returns) the diagnostics, in order, equal those of the
    reporting walk it replaces, which walks each flow's body once more."""
    from wgc.sema import uniformity

    sources = [node("  " + body.replace("OP", SYNC), pre=HELPERS) for body, _ in CONTROL]
    sources += [node("  " + body.replace("OP", SYNC), launch, pre=HELPERS + "uint Early(uint x) { if (x == 0) "
                     "return 1; return 2; }\n") for launch, body in UNIFORM]
    sources += [node(f"  if (gi == 3) {{ {statement} }}", launch) for statement, launch, _ in OPERATIONS]
    sources.append(node("  MaybeSync(gi);\n  MaybeSync(7);\n  if (gi > 1) MaybeSync(3);",
                        pre=f"void MaybeSync(uint n)\n{{\n  if (n > 2) {{ {SYNC} }}\n}}\n"))
    walks = []
    original_walk = uniformity._Flow.walk

    def counting_walk(self, reporting):  # type: ignore[no-untyped-def]
        walks.append(reporting)
        original_walk(self, reporting)

    def walking_report(self):  # type: ignore[no-untyped-def]
        if not self.reported:
            self.reported = True
            self.walk(reporting=True)

    monkeypatch.setattr(uniformity._Flow, "walk", counting_walk)
    replayed = [describe(check(src)) for src in sources]
    replay_walks = len(walks)
    assert True not in walks   # nothing walked to report
    monkeypatch.setattr(uniformity._Flow, "report", walking_report)
    walks.clear()
    assert [describe(check(src)) for src in sources] == replayed
    assert sum(1 for found in replayed if found) >= len(CONTROL) + len(OPERATIONS)   # the sources do report
    assert len(walks) == replay_walks + walks.count(True) and walks.count(True) >= len(sources)


def test_children_kept_with_the_walk_equal_children() -> None:
    """`children_in(function)` (kept with the body's walk, looked up by id) holds, for every node of
    every body of the samples and SPIR-V test programs, the same sub-nodes as `children(node)`."""
    from pathlib import Path

    from conftest import SAMPLE_INCLUDE, SAMPLES
    from wgc.irtools.walk import children, children_in, walk_body

    paths = sorted(SAMPLES.glob("*.hlsl")) + sorted((Path(__file__).parent / "spirv_programs").glob("*.hlsl"))
    count = 0
    for path in paths:
        front = run_front_end(Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                      proposals=driver.PROPOSALS))
        assert front.analysis is not None
        for function in front.analysis.module.functions:
            kept = children_in(function)
            nodes = list(walk_body(function))
            assert len(kept) == len({id(item) for item in nodes})   # a node may occur twice (shared)
            for item in nodes:
                assert [id(c) for c in kept[id(item)]] == [id(c) for c in children(item)], (path.name, item)
                count += 1
    assert count > 1000


def _reflected_children(node: object) -> list[object]:
    """The sub-nodes of an IR node found by reflection, field by field (every field's value, IR nodes
    kept, in field order): what `children`'s per-class getters must give."""
    import dataclasses

    kinds = (ir.Expr, ir.Stmt, ir.SwitchCase)
    found: list[object] = []
    for field_ in dataclasses.fields(node):  # type: ignore[arg-type]
        value = getattr(node, field_.name)
        if isinstance(value, (list, tuple)):
            found += [item for item in value if isinstance(item, kinds)]
        elif isinstance(value, kinds):
            found.append(value)
    return found


def test_children_getters_equal_reflection() -> None:
    """`children` (a getter made per IR class from its annotations) gives, for every node of every
    body of the samples, the SPIR-V test programs and the HLSL files of the tests, the sub-nodes that
    reflection over all of the node's fields finds, in the same order; and the classes `_Flow` and
    `_Paths` dispatch on by exact class have no subclasses (so the dispatch equals isinstance tests)."""
    from conftest import SAMPLE_INCLUDE, hlsl_corpus
    from wgc.sema import uniformity
    from wgc.irtools.walk import children, walk_body

    paths = hlsl_corpus()
    classes: set[type] = set()
    count = 0
    for path in paths:
        front = run_front_end(Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                      proposals=driver.PROPOSALS))
        if front.analysis is None:
            continue
        for function in front.analysis.module.functions:
            for item in walk_body(function):
                assert [id(c) for c in children(item)] == [id(c) for c in _reflected_children(item)], \
                    (path.name, item)
                classes.add(type(item))
                count += 1
    assert count > 1000 and len(classes) > 25
    for table in (uniformity._FLOW_EXPRESSIONS, uniformity._PATH_EXPRESSIONS):
        for cls in table:
            assert not cls.__subclasses__(), cls
    # `projection` and `conversion` stand for `operands` of the one field that holds a sub-node
    from wgc.irtools import walk
    assert walk._child_fields(ir.FieldAccess) == walk._child_fields(ir.Swizzle) == [("base", False)]
    assert walk._child_fields(ir.Convert) == [("operand", False)]


def test_the_kept_walk_is_the_pre_order_of_reflection() -> None:
    """`_walked` (iterative, per-class getters, no getter call for classes without sub-nodes) lists, for
    every body of the samples and the HLSL files of the tests, the nodes of a recursive pre-order walk
    over every field (`_reflected_children`), and `positions` holds each class's indices in that list."""
    from conftest import SAMPLE_INCLUDE, hlsl_corpus
    from wgc.irtools.walk import _walked

    def pre_order(item: object, found: list[object]) -> list[object]:
        found.append(item)
        for child in _reflected_children(item):
            pre_order(child, found)
        return found

    paths = hlsl_corpus()
    count = 0
    for path in paths:
        front = run_front_end(Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                      proposals=driver.PROPOSALS))
        if front.analysis is None:
            continue
        for function in front.analysis.module.functions:
            walk = _walked(function)
            expected = pre_order(function.body, []) if function.body is not None else []
            assert [id(item) for item in walk.nodes] == [id(item) for item in expected], (path.name, function.name)
            classes: dict[type, list[int]] = {}
            for i, item in enumerate(expected):
                classes.setdefault(type(item), []).append(i)
            assert walk.positions == classes
            count += len(expected)
    assert count > 1000


def test_nodes_of_equals_filtering_the_walk() -> None:
    """`nodes_of(function, *classes)` (kept with the body's walk) is, for every body of the samples
    and the HLSL files of the tests and every selection the rule passes make, the pre-order walk
    filtered with isinstance (the computation it replaces), and a second call gives the kept list."""
    from conftest import SAMPLE_INCLUDE, hlsl_corpus
    from wgc.irtools.walk import WRITERS, nodes_of, walk_body

    selections = [(ir.VarDecl,), (ir.IntrinsicCall,), (ir.MethodCall,), (ir.VarRef,), (ir.Discard,), WRITERS,
                  (*WRITERS, ir.VarRef), (ir.VarDecl, ir.Assign, ir.Call), (ir.Discard, ir.IntrinsicCall, ir.MethodCall),
                  (ir.Call, ir.MethodCall, ir.IntrinsicCall), (ir.Call, ir.MethodCall), (ir.MethodCall, ir.Call),
                  (ir.Assign, ir.Call)]
    paths = hlsl_corpus()
    found = 0
    for path in paths:
        front = run_front_end(Options(input=str(path), include_dirs=(str(SAMPLE_INCLUDE),),
                                      proposals=driver.PROPOSALS))
        if front.analysis is None:
            continue
        for function in front.analysis.module.functions:
            for classes in selections:
                expected = [item for item in walk_body(function) if isinstance(item, classes)]
                kept = nodes_of(function, *classes)
                assert [id(item) for item in kept] == [id(item) for item in expected], (path.name, classes)
                assert nodes_of(function, *classes) is kept
                found += len(kept)
    assert found > 1000


def test_helper_flows_shared_by_nodes_equal_each_nodes_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper's flow (fixpoint and reports, per parameter uniformity) that reads and writes no static
    is walked for the first node that calls it and adopted by the others (`_shared_flows`): two nodes
    (two launch modes) calling helpers with varying and uniform arguments, in varying and uniform flow,
    through a nested helper, get the diagnostics, call-site labels and order of an analysis per node
    (the computation it replaces: no flow kept between nodes); a helper using a static is not shared."""
    from wgc.sema import uniformity

    pre = (f"void Deep(uint n)\n{{\n  if (n > 2) {{ {SYNC} }}\n}}\n"
           f"uint Outer(uint n)\n{{\n  Deep(n);\n  if (n > 1) {{ {SYNC} }}\n  return n;\n}}\n"
           f"void Flagged(uint n)\n{{\n  if (n > 1) s_flag = 1;\n  if (s_flag > 0) {{ {SYNC} }}\n}}\n")
    src = node("  Outer(gi);\n  Outer(7);\n  if (gi > 1) Outer(3);\n  Flagged(gi);", pre=pre) + \
        SIGNATURES["coalescing"].replace("Main(", "Second(") + \
        "\n{\n  uint v = Outer(gi);\n  if (v > 2) Outer(3);\n  Outer(7);\n  Flagged(2);\n}\n"
    walks: list[str] = []
    original_walk = uniformity._Flow.walk

    def counting_walk(self, reporting):  # type: ignore[no-untyped-def]
        walks.append(self.function.name)
        original_walk(self, reporting)

    monkeypatch.setattr(uniformity._Flow, "walk", counting_walk)
    shared = describe(check(src))
    shared_walks = list(walks)
    monkeypatch.setattr(uniformity, "_shared_flows", lambda function: {})
    walks.clear()
    assert describe(check(src)) == shared
    assert any("called here from 'Second'" in line for line in shared)
    assert any("called here from 'Main'" in line for line in shared)
    assert shared_walks.count("Outer") < walks.count("Outer") and shared_walks.count("Deep") < walks.count("Deep")
    assert shared_walks.count("Flagged") == walks.count("Flagged")


def test_path_reports_are_computed_once_per_function_and_equal_a_fresh_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """`path_reports` keeps a function's OutputComplete/FinishedCrossGroupSharing reports on it: two
    nodes (of two launch modes) calling one helper that uses its records after completing them both
    get the helper's WG0419, the helper's paths are walked once, and each node's diagnostics equal
    those of a fresh `_Paths` walk per node and function (the computation the memo replaces)."""
    from wgc.sema import uniformity

    pre = "void Twice(ThreadNodeOutputRecords<Rec> p)\n{\n  p.OutputComplete();\n  p.Get().x = 1;\n}\n"
    body = "  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n  Twice(r);"
    src = node(body, pre=pre) + SIGNATURES["thread"].replace("Main(", "Other(") + "\n{\n" + body + "\n}\n"
    walked = []
    original_run = uniformity._Paths.run

    def counting_run(self):  # type: ignore[no-untyped-def]
        walked.append(self.function.name)
        original_run(self)

    monkeypatch.setattr(uniformity._Paths, "run", counting_run)
    kept = describe(check(src))
    assert sorted(walked) == ["Main", "Other", "Twice"]   # Twice once, though both nodes reach it
    assert kept == 2 * [f"{at(src, 'p.Get()')} WG0419 the records in 'p' are accessed after OutputComplete() "
                        f"[{at(src, 'p.OutputComplete')} OutputComplete() is called here]"]

    def fresh(function, cache=None):  # type: ignore[no-untyped-def]
        reports: list = []
        if function.body is not None:
            uniformity._Paths(function, uniformity._Cache(), lambda *report: reports.append(report)).run()
        return reports

    sources = [src, node("  Done(input);\n  Done(input);", "shared",
                         pre="bool Done(RWDispatchNodeInputRecord<Shared> r) { return r.FinishedCrossGroupSharing(); }\n"),
               node("  ThreadNodeOutputRecords<Rec> r = out1.GetThreadNodeOutputRecords(1);\n"
                    "  if (input.Get().count == 0)\n    return;\n  r.OutputComplete();")]
    memoised = [describe(check(source)) for source in sources]
    monkeypatch.setattr(uniformity, "path_reports", fresh)
    assert [describe(check(source)) for source in sources] == memoised
    assert all(memoised)


def test_path_reports_of_a_call_chain_compute_each_callee_fact_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path reports of the functions one node reaches share the node's cache of callee facts: in
    a chain Main -> F0 -> ... -> F40 what each function completes is computed once (with a cache per
    function, every function of the chain computed the rest of it again: quadratic)."""
    from wgc.sema import uniformity

    chain = "void F40() { }\n" + "".join(f"void F{i}() {{ F{i + 1}(); }}\n" for i in reversed(range(40)))
    computed = []
    original = uniformity._Cache.completes

    def counting(self, function):  # type: ignore[no-untyped-def]
        if ("completes", function) not in self.memo:
            computed.append(function.name)
        return original(self, function)

    monkeypatch.setattr(uniformity._Cache, "completes", counting)
    assert check(node("  F0();", pre=chain)) == []
    assert sorted(computed) == sorted(f"F{i}" for i in range(41))


# ---------------------------------------------------------------- the fixpoint's second walk, skipped when it would repeat


SECOND_WALK = [  # (body; `v` is read as uniform first, then made varying: the second walk reports the SYNC)
    # a plain read of `v`, into another variable
    ("uint v = 0; uint w = v; if (w > 0) { OP } if (gi > 2) v = 9;",
     "w > 0", "this condition depends on 'w', which is assigned in non-uniform control flow"),
    # reads of `v` in stores to `v` that use them for more than the value stored: control (?:, &&) ...
    ("uint v = 0; v = v > 0 ? SyncAndGet() : 0; if (gi > 2) v = 9;",
     "v > 0", "this condition depends on 'v', which is assigned in non-uniform control flow"),
    ("uint v = 0; v += uint(v > 0 && SyncAndGet() > 0); if (gi > 2) v = 9;",
     "v > 0", "this condition depends on 'v', which is assigned in non-uniform control flow"),
    # ... a callee's flow, another store (nested, an out argument), a comma's left operand
    ("uint v = 0; v = SyncIf(v); if (gi > 2) v = 9;",
     "n > 2", "this condition depends on 'n', which is assigned in non-uniform control flow"),
    ("uint v = 0; uint w = 0; v = (w = v); if (w > 0) { OP } if (gi > 2) v = 9;",
     "w > 0", "this condition depends on 'w', which is assigned in non-uniform control flow"),
    ("uint v = 0; float w = 0; v += uint(frexp(float(v), w)); if (w > 0) { OP } if (gi > 2) v = 9;",
     "w > 0", "this condition depends on 'w', which is assigned in non-uniform control flow"),
    ("uint v = 0; uint w = 0; v = (w = v, 1); if (w > 0) { OP } if (gi > 2) v = 9;",
     "w > 0", "this condition depends on 'w', which is assigned in non-uniform control flow"),
    # a loop step that stores another variable; a static read before a helper makes it varying
    ("uint v = 0; uint w = 0; for (uint i = 0; i < 2; w = v) { i++; } if (w > 0) { OP } if (gi > 2) v = 9;",
     "w > 0", "this condition depends on 'w', which is assigned in non-uniform control flow"),
    ("uint w = s_flag; if (w > 0) { OP } if (gi == 0) { SetFlag(); }",
     "w > 0", "this condition depends on 'w', which is assigned in non-uniform control flow"),
]
SELF_FEEDING = [  # reads of `v` that reach only stores to `v`: made varying after them, one walk is enough
    "uint v = 0; v += 1; v = v * 2 + uint(max(v, 3)); v.x = v; v++; for (uint i = 0; i < 2; v += i) { i++; } "
    "if (gi > 2) v = 9; if (v > 0) { OP }",
    "uint4 v = 0; v.xy = v.zw + v.yx; v[v.x] = 1; if (gi > 2) v.z = 9; if (v.z > 0) { OP }",
]
SECOND_WALK_HELPERS = HELPERS + f"uint SyncIf(uint n) {{ if (n > 2) {{ {SYNC} }} return n; }}\n"


def _fixpoint_sources() -> list[str]:
    sources = [node("  " + body.replace("OP", SYNC), pre=SECOND_WALK_HELPERS) for body, _, _ in SECOND_WALK]
    sources += [node("  " + body.replace("OP", SYNC), pre=SECOND_WALK_HELPERS) for body in SELF_FEEDING]
    sources += [node("  " + body.replace("OP", SYNC), pre=HELPERS) for body, _ in CONTROL]
    sources += [node("  " + body.replace("OP", SYNC), launch, pre=HELPERS + "uint Early(uint x) { if (x == 0) "
                     "return 1; return 2; }\n") for launch, body in UNIFORM]
    sources += [node(f"  if (gi == 3) {{ {statement} }}", launch) for statement, launch, _ in OPERATIONS]
    return sources


@pytest.mark.parametrize("body, needle, label", SECOND_WALK)
def test_a_read_before_a_variable_turns_varying_walks_again(body: str, needle: str, label: str) -> None:
    """A variable read as uniform and made varying later in the walk: the walk is repeated, and what the
    repeat finds is reported, whatever the read feeds (another variable, control, a callee, an out
    argument), even inside a store to the variable itself."""
    src = node("  " + body.replace("OP", SYNC), pre=SECOND_WALK_HELPERS)
    found = describe(check(src))
    sync = at(src, SYNC, 0 if "SyncAndGet" in body else 1 if "SyncIf" in body else 2)  # helpers first
    if "SyncAndGet" in body:
        call = at(src, "SyncAndGet()", 1)
        assert found == [f"{call} WG0417 'SyncAndGet' must be called in thread-group-uniform control flow "
                         f"[{at(src, needle)} {label}] [{sync} 'Barrier' with GROUP_SYNC is called here]"]
    elif "SyncIf" in body:
        assert found == [f"{sync} WG0417 {SYNC_MSG} [{at(src, needle)} {label}] "
                         f"[{at(src, 'SyncIf(v)')} 'SyncIf' is called here from 'Main']"]
    else:
        assert found == [f"{sync} WG0417 {SYNC_MSG} [{at(src, needle)} {label}]"]


def _recorded(compute: Callable[[], list[str]], monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[tuple], int]:
    """What `compute()` gives (diagnostics), the final state of every flow of every node it analyses
    (variables, statics, loops made varying, result, recorded events) and the number of walks."""
    from wgc.sema import uniformity

    flows: list[tuple] = []
    walks = []
    original_run, original_walk = uniformity._Uniformity.run, uniformity._Flow.walk

    def recording_run(self):  # type: ignore[no-untyped-def]
        original_run(self)
        for (function, roots), flow in self.flows.items():
            events = [(e.function.name, e.roots) if isinstance(e, uniformity._Flow) else
                      (e[0].line_col, e[1], [(label.span.line_col, label.message) for label in e[2]], e[3])
                      for e in flow.events]   # spans compare their files by identity: by position
            flows.append((function.name, roots, sorted((v.name, r) for v, r in flow.vars.items()),
                          sorted((v.name, r) for v, r in self.statics.items()),
                          sorted(loop.span.start for loop in flow.loop_taint), flow.result, events))

    def counting_walk(self, reporting):  # type: ignore[no-untyped-def]
        walks.append(reporting)
        original_walk(self, reporting)

    with monkeypatch.context() as patched:
        patched.setattr(uniformity._Uniformity, "run", recording_run)
        patched.setattr(uniformity._Flow, "walk", counting_walk)
        found = compute()
    return found, flows, len(walks)


def test_the_fixpoint_shortcut_equals_the_full_fixpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_Flow.mark` walks again only when the walk read the variable as uniform before, outside a store to
    itself (`FULL_FIXPOINT`: after every new mark, the computation it replaces): on the sources of this
    file's tables (each cause of varying flow, uniform flows, each operation, reads before the variable
    turns varying of every kind) and on the samples and the HLSL files of the tests, every flow ends
    with the same variables, statics, loops, result and events, the diagnostics are the same, in order,
    and the shortcut walks fewer times (the self-feeding bodies once per flow)."""
    from conftest import SAMPLE_INCLUDE, hlsl_corpus
    from wgc.sema import uniformity

    def both(compute: Callable[[], list[str]]) -> tuple[tuple, tuple]:
        fast = _recorded(compute, monkeypatch)
        with monkeypatch.context() as patched:
            patched.setattr(uniformity, "FULL_FIXPOINT", True)
            slow = _recorded(compute, monkeypatch)
        assert fast[:2] == slow[:2]
        assert fast[2] <= slow[2]
        return fast, slow

    saved = total = 0
    for src in _fixpoint_sources():
        fast, slow = both(lambda: describe(check(src)))
        saved += slow[2] - fast[2]
        total += slow[2]
    for body in SELF_FEEDING:
        src = node("  " + body.replace("OP", SYNC), pre=SECOND_WALK_HELPERS)
        (found, flows, walks), (_, _, full_walks) = both(lambda: describe(check(src)))
        # one flow (Main) per analysis: `analyze`'s and `check`'s
        assert walks == len(flows) == 2 and full_walks == 4 and len(found) == 1 and " WG0417 " in found[0]
    assert saved >= 10 and total > 100

    paths = hlsl_corpus()
    flows = 0
    for path in paths:
        fast, _ = both(lambda: describe(list(run_front_end(Options(
            input=str(path), include_dirs=(str(SAMPLE_INCLUDE),), proposals=driver.PROPOSALS)).diagnostics)))
        flows += len(fast[1])
    assert flows > 50


def test_facts_of_one_key_equal_the_sorted_filter() -> None:
    """`_facts` (no sort for a key with one fact) gives the spans of the facts of the kind asked, sorted by
    position (the general computation), for keys with no, one and several facts of mixed kinds; and
    `_Records` made twice from equal values are equal with equal hashes (one key in a state)."""
    from wgc.sema.uniformity import _facts, _Records
    from wgc.source import Span

    file = SourceFile("t.hlsl", "x" * 100)
    spans = [Span(file, start, start + 2) for start in (40, 10, 70, 25)]
    states = [{}, {"k": frozenset()}]
    for count in range(1, 5):
        for kinds in ("open", "done", "mixed"):
            facts = [("open" if kinds == "open" or kinds == "mixed" and i % 2 else "done", span)
                     for i, span in enumerate(spans[:count])]
            states.append({"k": frozenset(facts)})
    for state in states:
        for kind in ("open", "done", "call"):
            expected = sorted((span for k, span in state.get("k", frozenset()) if k == kind), key=lambda s: s.start)
            assert _facts(state, "k", kind) == expected
    first, again = _Records("r", Span(file, 3, 5)), _Records("r", Span(file, 3, 5))
    assert first == again and hash(first) == hash(again) and len({first: 1, again: 2}) == 1
    assert first != _Records("r", Span(file, 3, 6)) and first != _Records("q", Span(file, 3, 5))
