"""Interlocked* on node records one invocation owns: a load, the operation, a store.

spirv-val allows no OpAtomic* on NodePayloadAMDX memory (WG0620). Where a single invocation owns
the record (RWThreadNodeInputRecord; ThreadNodeOutputRecords; group records in a one-thread
group) no other invocation can observe the read-modify-write, so it is lowered as plain
instructions (`sema.target.plain_record_atomics` decides, `spirv.intrinsics` lowers). The expected
instruction sequences below are the HLSL definitions of the operations (the value loaded is the
`original`; Min/Max are signed on int, unsigned on uint; the FloatBitwise forms compare bits).
Every module is validated by spirv-val in process.
"""

from __future__ import annotations

import re

import pytest

from wgc import driver
from wgc.diagnostics import Renderer


def lines(*text: str) -> str:
    return "\n".join(text) + "\n"


def run(source: str, **options: object) -> driver.Result:
    return driver.compile(driver.Options(input="-", emit="asm", **options), stdin=source.encode())  # type: ignore[arg-type]


def asm_of(source: str, **options: object) -> str:
    result = run(source, **options)
    assert result.ok, Renderer().render(result.diagnostics)
    return result.outputs["asm"].decode()


RECORD = "struct R { uint u; int s; float f; uint64_t w; };"
THREAD_NODE = ('[Shader("node")]', '[NodeLaunch("thread")]')


def thread_input(statement: str) -> str:
    return lines(RECORD, *THREAD_NODE, "void Main(RWThreadNodeInputRecord<R> r)", "{",
                 "    uint uo; int so; float fo;", f"    {statement}", "}")


def body(asm: str, function: str = "Main") -> list[str]:
    """The instructions of `function`, without OpLine/OpName noise, one per line, stripped."""
    text = asm.split(f"%{function} = OpFunction ")[1].split("OpFunctionEnd")[0]
    return [line.strip() for line in text.splitlines()[1:] if line.strip() and not line.strip().startswith("OpLine")]


def sequence(asm: str, patterns: list[str], function: str = "Main") -> dict[str, str]:
    """Match `patterns` (regexes with named groups; a group reused later is a backreference) against
    consecutive instructions of `function`, skipping OpAccessChain; returns the named ids."""
    instructions = [i for i in body(asm, function) if "OpAccessChain" not in i and "OpLabel" not in i]
    for start in range(len(instructions)):
        ids: dict[str, str] = {}
        for offset, pattern in enumerate(patterns):
            if start + offset >= len(instructions):
                break
            pattern = re.sub(r"\(\?P=(\w+)\)", lambda m: re.escape(ids.get(m.group(1), "\0")), pattern)
            match = re.fullmatch(pattern, instructions[start + offset])
            if match is None:
                break
            ids.update(match.groupdict())
        else:
            return ids
    raise AssertionError("sequence not found:\n" + "\n".join(patterns) + "\nin:\n" + "\n".join(instructions))


ID = r"%\w+"


OPERATIONS = [
    pytest.param("InterlockedAdd(r.Get().u, 5, uo);", [
        rf"(?P<old>{ID}) = OpLoad %uint {ID}", rf"(?P<new>{ID}) = OpIAdd %uint (?P=old) %uint_5",
        rf"OpStore {ID} (?P=new)", r"OpStore %uo (?P=old)"], id="add-with-original"),
    pytest.param("InterlockedAnd(r.Get().u, 6);", [
        rf"(?P<old>{ID}) = OpLoad %uint {ID}", rf"(?P<new>{ID}) = OpBitwiseAnd %uint (?P=old) %uint_6",
        rf"OpStore {ID} (?P=new)"], id="and"),
    pytest.param("InterlockedOr(r.Get().s, 6, so);", [
        rf"(?P<old>{ID}) = OpLoad %int {ID}", rf"(?P<new>{ID}) = OpBitwiseOr %int (?P=old) %int_6",
        rf"OpStore {ID} (?P=new)", r"OpStore %so (?P=old)"], id="or-signed"),
    pytest.param("InterlockedXor(r.Get().w, 3);", [
        rf"(?P<old>{ID}) = OpLoad %ulong {ID}", rf"(?P<new>{ID}) = OpBitwiseXor %ulong (?P=old) %ulong_3",
        rf"OpStore {ID} (?P=new)"], id="xor-64-bit"),
    pytest.param("InterlockedMin(r.Get().s, -4, so);", [
        rf"(?P<old>{ID}) = OpLoad %int {ID}", rf"(?P<new>{ID}) = OpExtInst %int {ID} SMin (?P=old) %int_n4",
        rf"OpStore {ID} (?P=new)", r"OpStore %so (?P=old)"], id="min-signed"),
    pytest.param("InterlockedMin(r.Get().u, 4);", [
        rf"(?P<old>{ID}) = OpLoad %uint {ID}", rf"(?P<new>{ID}) = OpExtInst %uint {ID} UMin (?P=old) %uint_4",
        rf"OpStore {ID} (?P=new)"], id="min-unsigned"),
    pytest.param("InterlockedMax(r.Get().s, 7);", [
        rf"(?P<old>{ID}) = OpLoad %int {ID}", rf"(?P<new>{ID}) = OpExtInst %int {ID} SMax (?P=old) %int_7",
        rf"OpStore {ID} (?P=new)"], id="max-signed"),
    pytest.param("InterlockedMax(r.Get().u, 7, uo);", [
        rf"(?P<old>{ID}) = OpLoad %uint {ID}", rf"(?P<new>{ID}) = OpExtInst %uint {ID} UMax (?P=old) %uint_7",
        rf"OpStore {ID} (?P=new)", r"OpStore %uo (?P=old)"], id="max-unsigned"),
    pytest.param("InterlockedExchange(r.Get().u, 9, uo);", [
        rf"(?P<old>{ID}) = OpLoad %uint {ID}", r"OpStore %\w+ %uint_9", r"OpStore %uo (?P=old)"], id="exchange"),
    pytest.param("InterlockedCompareStore(r.Get().u, 1, 2);", [
        rf"(?P<old>{ID}) = OpLoad %uint {ID}", rf"(?P<same>{ID}) = OpIEqual %bool (?P=old) %uint_1",
        rf"(?P<new>{ID}) = OpSelect %uint (?P=same) %uint_2 (?P=old)", rf"OpStore {ID} (?P=new)"],
        id="compare-store"),
    pytest.param("InterlockedCompareExchange(r.Get().s, 1, 2, so);", [
        rf"(?P<old>{ID}) = OpLoad %int {ID}", rf"(?P<same>{ID}) = OpIEqual %bool (?P=old) %int_1",
        rf"(?P<new>{ID}) = OpSelect %int (?P=same) %int_2 (?P=old)", rf"OpStore {ID} (?P=new)",
        r"OpStore %so (?P=old)"], id="compare-exchange"),
    pytest.param("InterlockedCompareStoreFloatBitwise(r.Get().f, 0.0, 123.45);", [
        rf"(?P<old>{ID}) = OpLoad %float {ID}", rf"(?P<bits>{ID}) = OpBitcast %uint (?P=old)",
        rf"(?P<cmp>{ID}) = OpBitcast %uint %float_0", rf"(?P<same>{ID}) = OpIEqual %bool (?P=bits) (?P=cmp)",
        rf"(?P<new>{ID}) = OpSelect %float (?P=same) %float_123_449997 (?P=old)", rf"OpStore {ID} (?P=new)"],
        id="compare-store-float-bitwise"),
    pytest.param("InterlockedCompareExchangeFloatBitwise(r.Get().f, -0.0, 2.0, fo);", [
        rf"(?P<old>{ID}) = OpLoad %float {ID}", rf"(?P<bits>{ID}) = OpBitcast %uint (?P=old)",
        rf"(?P<cmp>{ID}) = OpBitcast %uint %float_n0", rf"(?P<same>{ID}) = OpIEqual %bool (?P=bits) (?P=cmp)",
        rf"(?P<new>{ID}) = OpSelect %float (?P=same) %float_2 (?P=old)", rf"OpStore {ID} (?P=new)",
        r"OpStore %fo (?P=old)"], id="compare-exchange-float-bitwise"),
]


@pytest.mark.parametrize(("statement", "patterns"), OPERATIONS)
def test_an_atomic_on_a_thread_input_record_is_a_load_the_operation_and_a_store(statement: str,
                                                                                 patterns: list[str]) -> None:
    asm = asm_of(thread_input(statement))
    assert "OpAtomic" not in asm
    sequence(asm, patterns)


def test_dxc_member_atomics_node04_on_thread_output_records() -> None:
    """DXC's member_atomics.hlsl node04: atomics on a ThreadNodeOutputRecords record (per thread)."""
    asm = asm_of(lines(
        "struct RECORD { uint ival; float fval; };",
        '[Shader("node")]', "[NumThreads(1024, 1, 1)]", '[NodeLaunch("coalescing")]',
        "void node04([MaxRecords(5)] NodeOutput<RECORD> outputs4)", "{",
        "    ThreadNodeOutputRecords<RECORD> outrec = outputs4.GetThreadNodeOutputRecords(1);",
        "    InterlockedCompareStoreFloatBitwise(outrec.Get().fval, 0.0, 123.45);",
        "    InterlockedCompareStore(outrec.Get().ival, 111, 222);",
        "    InterlockedAdd(outrec.Get().ival, 333);",
        "    outrec.OutputComplete();", "}",
        '[Shader("node")] [NodeLaunch("thread")] void outputs4(ThreadNodeInputRecord<RECORD> r) { }'),
        warning_flags=("no-missing-node",))
    assert "OpAtomic" not in asm
    sequence(asm, [
        rf"(?P<f>{ID}) = OpLoad %float {ID}", rf"(?P<bits>{ID}) = OpBitcast %uint (?P=f)",
        rf"(?P<cmp>{ID}) = OpBitcast %uint %float_0", rf"(?P<same>{ID}) = OpIEqual %bool (?P=bits) (?P=cmp)",
        rf"(?P<newf>{ID}) = OpSelect %float (?P=same) %float_123_449997 (?P=f)", rf"OpStore {ID} (?P=newf)",
        rf"(?P<i>{ID}) = OpLoad %uint {ID}", rf"(?P<eq>{ID}) = OpIEqual %bool (?P=i) %uint_111",
        rf"(?P<newi>{ID}) = OpSelect %uint (?P=eq) %uint_222 (?P=i)", rf"OpStore {ID} (?P=newi)",
        rf"(?P<j>{ID}) = OpLoad %uint {ID}", rf"(?P<sum>{ID}) = OpIAdd %uint (?P=j) %uint_333",
        rf"OpStore {ID} (?P=sum)"], function="node04")


def test_an_element_of_an_array_of_thread_output_records() -> None:
    """Get(i) with a run-time i: every record of the thread's allocation is the thread's."""
    asm = asm_of(lines(
        RECORD, '[Shader("node")]', "[NumThreads(8, 1, 1)]", '[NodeLaunch("broadcasting")]', "[NodeDispatchGrid(1, 1, 1)]",
        "void Main(uint gi : SV_GroupIndex, [MaxRecords(32)] NodeOutput<R> Next)", "{",
        "    ThreadNodeOutputRecords<R> recs = Next.GetThreadNodeOutputRecords(4);",
        "    InterlockedAdd(recs.Get(gi % 4).u, 2);",
        "    recs.OutputComplete();", "}",
        '[Shader("node")] [NodeLaunch("thread")] void Next(ThreadNodeInputRecord<R> r) { }'))
    assert "OpAtomic" not in asm
    index = sequence(asm, [rf"(?P<i>{ID}) = OpUMod %uint {ID} %uint_4"])["i"]
    chain = next(i for i in body(asm) if "OpAccessChain" in i and index in i)
    pointer = chain.split(" = ")[0]
    sequence(asm, [rf"(?P<old>{ID}) = OpLoad %uint {pointer}", rf"(?P<new>{ID}) = OpIAdd %uint (?P=old) %uint_2",
                   rf"OpStore {ID} (?P=new)"])


def test_a_thread_record_reached_through_a_helper() -> None:
    """Ownership is a property of the record object's type, which a helper parameter keeps."""
    source = lines(RECORD, "void Bump(RWThreadNodeInputRecord<R> rec, out uint was) { InterlockedAdd(rec.Get().u, 1, was); }",
                   *THREAD_NODE, "void Main(RWThreadNodeInputRecord<R> r)", "{",
                   "    uint was; Bump(r, was);", "}")
    asm = asm_of(source)
    assert "OpAtomic" not in asm
    sequence(asm, [rf"(?P<old>{ID}) = OpLoad %uint {ID}", rf"(?P<new>{ID}) = OpIAdd %uint (?P=old) %uint_1",
                   rf"OpStore {ID} (?P=new)"])


def group_input(threads: int) -> str:
    return lines(RECORD, '[Shader("node")]', '[NodeLaunch("coalescing")]', f"[NumThreads({threads}, 1, 1)]",
                 "void Main([MaxRecords(4)] RWGroupNodeInputRecords<R> recs)",
                 "{", "    InterlockedAdd(recs[1].u, 3);", "}")


def test_group_records_of_a_one_thread_group_are_owned() -> None:
    asm = asm_of(group_input(1))
    assert "OpAtomic" not in asm
    sequence(asm, [rf"(?P<old>{ID}) = OpLoad %uint {ID}", rf"(?P<new>{ID}) = OpIAdd %uint (?P=old) %uint_3",
                   rf"OpStore {ID} (?P=new)"])


def test_group_records_of_a_larger_group_keep_dxcs_atomic_with_a_warning() -> None:
    result = run(group_input(2))
    assert [(d.code, d.severity.name, d.message) for d in result.diagnostics] == [
        ("WG0620", "WARNING", "'InterlockedAdd' on a record of 'RWGroupNodeInputRecords<R>' is not valid Vulkan "
                   "SPIR-V: the record is shared by the 2 threads of a group of node 'Main', and Vulkan allows no "
                   "atomic operations on NodePayloadAMDX memory")]


def test_group_output_records_in_a_thread_launch_node_are_the_threads() -> None:
    asm = asm_of(lines(
        RECORD, *THREAD_NODE, "void Main(ThreadNodeInputRecord<R> r, [MaxRecords(1)] NodeOutput<R> Next)", "{",
        "    GroupNodeOutputRecords<R> recs = Next.GetGroupNodeOutputRecords(1);",
        "    InterlockedMax(recs.Get().s, r.Get().s);",
        "    recs.OutputComplete();", "}",
        '[Shader("node")] [NodeLaunch("thread")] void Next(ThreadNodeInputRecord<R> r) { }'),
        warning_flags=("no-thread-launch-group-records",))
    assert "OpAtomic" not in asm
    sequence(asm, [rf"(?P<old>{ID}) = OpLoad %int {ID}", rf"(?P<value>{ID}) = OpLoad %int {ID}",
                   rf"(?P<new>{ID}) = OpExtInst %int {ID} SMax (?P=old) (?P=value)", rf"OpStore {ID} (?P=new)"])


def test_a_helper_shared_by_an_owning_and_a_sharing_node() -> None:
    """One call, two nodes: plain only when every compiled node that reaches it owns the record."""
    source = lines(RECORD, "void Bump(RWGroupNodeInputRecords<R> recs) { InterlockedAdd(recs.Get().u, 1); }",
                   '[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(1, 1, 1)]',
                   "void One([MaxRecords(2)] RWGroupNodeInputRecords<R> recs) { Bump(recs); }",
                   '[Shader("node")] [NodeLaunch("coalescing")] [NumThreads(64, 1, 1)]',
                   "void Many([MaxRecords(2)] RWGroupNodeInputRecords<R> recs) { Bump(recs); }")
    assert [d.code for d in run(source).diagnostics] == ["WG0620"]
    assert [d.code for d in run(source, entry="Many").diagnostics] == ["WG0620"]
    assert "OpAtomic" not in asm_of(source, entry="One")
    split = run(source, split_nodes=True)
    assert [d.code for d in split.diagnostics] == ["WG0620"]


def test_a_dispatch_record_is_shared_by_every_group() -> None:
    """RWDispatchNodeInputRecord: every group of the dispatch reads the one record, even with one thread."""
    source = lines("struct R { uint3 grid : SV_DispatchGrid; uint total; };",
                   '[Shader("node")]', '[NodeLaunch("broadcasting")]', "[NodeMaxDispatchGrid(4, 1, 1)]",
                   "[NumThreads(1, 1, 1)]",
                   "void Main(RWDispatchNodeInputRecord<R> input) { InterlockedAdd(input.Get().total, 1); }")
    assert [d.code for d in run(source).diagnostics] == ["WG0620"]


def test_a_component_or_element_at_a_run_time_index_is_read_and_written_once_at_one_place() -> None:
    """The destination's index is evaluated once: the load and the store reach the same element."""
    asm = asm_of(lines("struct V { uint4 v; int a[3]; };", *THREAD_NODE,
                       "void Main(RWThreadNodeInputRecord<V> r)", "{",
                       "    uint was;", "    InterlockedAdd(r.Get().v.y, 2, was);",
                       "    InterlockedMin(r.Get().a[was % 3], -1);", "}"))
    assert "OpAtomic" not in asm
    ids = sequence(asm, [rf"(?P<old>{ID}) = OpLoad %uint (?P<p>{ID})", rf"(?P<new>{ID}) = OpIAdd %uint (?P=old) %uint_2",
                         rf"OpStore (?P<q>{ID}) (?P=new)", r"OpStore %was (?P=old)"])
    chains = {line.split(" = ")[0]: line.split("OpAccessChain ")[1].split(" ", 1)[1] for line in body(asm)
              if "OpAccessChain" in line}
    assert chains[ids["p"]] == chains[ids["q"]] == "%r %uint_0 %uint_0 %uint_1"   # record, field v, component y
    index = sequence(asm, [rf"(?P<i>{ID}) = OpUMod %uint {ID} %uint_3"])["i"]
    element = [name for name, operands in chains.items() if operands == f"%r %uint_0 %uint_1 {index}"]
    assert len(element) == 2                     # one chain for the load, one for the store, one index
    sequence(asm, [rf"(?P<old>{ID}) = OpLoad %int {element[0]}", rf"(?P<new>{ID}) = OpExtInst %int {ID} SMin (?P=old) %int_n1",
                   rf"OpStore {element[1]} (?P=new)"])
