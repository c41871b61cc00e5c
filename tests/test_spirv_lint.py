"""wgc's AMDX lint (`wgc.spirv.lint`): the rules spirv-val does not check.

Every case mutates the validated reference module of spirv-amdx.md §2.2 (`REFERENCE_AMDX`) so that
it breaks exactly one rule. spirv-val (vulkan1.3) accepts every mutant, as §1.4 says; that is why
the lint exists. The MeshEXT rules mutate the module wgc compiles for a small mesh node.
"""

from __future__ import annotations

import re

import pytest

from test_spirv_builder import REFERENCE_AMDX
from test_spirv_optimize import RICH_AMDX
from spirv_util import words_of
from wgc import driver
from wgc.spirv import tools
from wgc.spirv.lint import lint


def named(text: str) -> str:
    """`text` with an OpName for every id it defines, so that messages say `%name`, not `%N`."""
    names = "".join(f'OpName %{n} "{n}"\n' for n in re.findall(r"^\s*%(\w+) =", text, flags=re.M))
    first_annotation = re.search(r"^\s*Op(Member)?Decorate", text, flags=re.M).start()
    return text[:first_annotation] + names + text[first_annotation:]


def mutant(*replacements: tuple[str, str]) -> list[int]:
    text = REFERENCE_AMDX
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return tools.assemble(named(text), "vulkan1.3")


# Places to add to the reference module.
ANNOTATIONS = "OpMemberDecorate %InRec 0 Offset 0"
TYPES = "%uint = OpTypeInt 32 0"
MAIN_BODY = "OpEnqueueNodePayloadsAMDX %outs"
LEAF_BODY = "%lv = OpLoad %uint %lp"


def add(anchor: str, lines: str) -> tuple[str, str]:
    return anchor, f"{anchor}\n{lines}"


# (id, replacements, the lint's messages). Each mutant assembles and spirv-val accepts it.
CASES = [
    ("NodeMaxPayloadsAMDX missing",
     [("OpDecorateId %out_arr NodeMaxPayloadsAMDX %uint_4\n", "")],
     ["%out_arr: OpTypeNodePayloadArrayAMDX without NodeMaxPayloadsAMDX"]),
    ("PayloadNodeNameAMDX on a struct",
     [add(ANNOTATIONS, "OpDecorateId %InRec PayloadNodeNameAMDX %str_leaf")],
     ["%InRec: PayloadNodeNameAMDX on something that is not a payload array type"]),
    ("PayloadNodeNameAMDX on a variable",
     [add(ANNOTATIONS, "OpDecorateId %main_in PayloadNodeNameAMDX %str_leaf")],
     ["%main_in: PayloadNodeNameAMDX on something that is not a payload array type"]),
    ("PayloadNodeNameAMDX names a uint",
     [("PayloadNodeNameAMDX %str_leaf", "PayloadNodeNameAMDX %uint_1")],
     ["%out_arr: PayloadNodeNameAMDX does not name a string constant"]),
    ("output payload array without a name",
     [("OpDecorateId %out_arr PayloadNodeNameAMDX %str_leaf\n", "")],
     ["%out_arr: output payload array without PayloadNodeNameAMDX"]),
    ("visibility Device",
     [("%p_out_arr %uint_2 %uint_4", "%p_out_arr %uint_1 %uint_4")],
     ["%outs: OpAllocateNodePayloadsAMDX visibility is not a constant Invocation or Workgroup scope"]),
    ("visibility 7",
     [add(TYPES, "%uint_7 = OpConstant %uint 7"), ("%p_out_arr %uint_2 %uint_4", "%p_out_arr %uint_7 %uint_4")],
     ["%outs: OpAllocateNodePayloadsAMDX visibility is not a constant Invocation or Workgroup scope"]),
    ("visibility not a constant",
     [("%p_out_arr %uint_2 %uint_4", "%p_out_arr %v %uint_4")],
     ["%outs: OpAllocateNodePayloadsAMDX visibility is not a constant Invocation or Workgroup scope"]),
    ("allocation of a pointer to a uint",
     [("%outs = OpAllocateNodePayloadsAMDX %p_out_arr", "%outs = OpAllocateNodePayloadsAMDX %p_uint"),
      ("%o0 = OpAccessChain %p_uint %outs %uint_0 %uint_0\n", ""), ("OpStore %o0 %v", "OpStore %outs %v")],
     ["%outs: OpAllocateNodePayloadsAMDX does not return a NodePayloadAMDX pointer to a payload array"]),
    ("IsApiEntryAMDX is a uint",
     [("IsApiEntryAMDX %true", "IsApiEntryAMDX %uint_1")],
     ["%main: IsApiEntryAMDX is not a bool constant"]),
    ("CoalescingAMDX with StaticNumWorkgroupsAMDX",
     [add("OpExecutionMode %leaf CoalescingAMDX", "OpExecutionModeId %leaf StaticNumWorkgroupsAMDX %uint_1 %uint_1 %uint_1")],
     ["%leaf: CoalescingAMDX together with a workgroup-count mode"]),
    ("CoalescingAMDX with MaxNumWorkgroupsAMDX",
     [add("OpExecutionMode %leaf CoalescingAMDX", "OpExecutionModeId %leaf MaxNumWorkgroupsAMDX %uint_4 %uint_1 %uint_1")],
     ["%leaf: CoalescingAMDX together with a workgroup-count mode"]),
    ("SharesInputWithAMDX names a uint",
     [add("OpExecutionMode %leaf CoalescingAMDX", "OpExecutionModeId %leaf SharesInputWithAMDX %uint_0 %uint_0")],
     ["%leaf: SharesInputWithAMDX does not name a string constant"]),
    ("enqueue of an input payload",
     [("OpEnqueueNodePayloadsAMDX %outs", "OpEnqueueNodePayloadsAMDX %main_in")],
     ["OpEnqueueNodePayloadsAMDX of %main_in, which is not an allocation"]),
    ("enqueue of a uint",
     [("OpEnqueueNodePayloadsAMDX %outs", "OpEnqueueNodePayloadsAMDX %v")],
     ["OpEnqueueNodePayloadsAMDX of %v, which is not an allocation"]),
    ("payload array length as a signed int",
     [add(TYPES, "%int = OpTypeInt 32 1"), ("OpNodePayloadArrayLengthAMDX %uint", "OpNodePayloadArrayLengthAMDX %int")],
     ["%n: OpNodePayloadArrayLengthAMDX does not yield a 32-bit uint"]),
    ("payload array length as a bool",
     [("OpNodePayloadArrayLengthAMDX %uint", "OpNodePayloadArrayLengthAMDX %bool")],
     ["%n: OpNodePayloadArrayLengthAMDX does not yield a 32-bit uint"]),
    ("payload struct without Offset",
     [("OpMemberDecorate %LeafRec 0 Offset 0\n", "")],
     ["%LeafRec: payload struct member 0 has no Offset"]),
    ("nested payload struct without Offset",
     [("%InRec = OpTypeStruct %uint", "%Inner = OpTypeStruct %uint\n%InRec = OpTypeStruct %uint %Inner"),
      add(ANNOTATIONS, "OpMemberDecorate %InRec 1 Offset 4")],
     ["%Inner: payload struct member 0 has no Offset"]),
    ("finish writing without TrackFinishWritingAMDX",
     [add(MAIN_BODY, "%done = OpFinishWritingNodePayloadAMDX %bool %main_in")],
     ["%done: OpFinishWritingNodePayloadAMDX on a payload without TrackFinishWritingAMDX"]),
    ("finish writing in a coalescing node",
     [add(ANNOTATIONS, "OpDecorate %LeafRec TrackFinishWritingAMDX"),
      add(LEAF_BODY, "%done = OpFinishWritingNodePayloadAMDX %bool %leaf_in")],
     ["%done: OpFinishWritingNodePayloadAMDX in a coalescing node"]),
]


def test_reference_module_is_clean():
    assert lint(mutant()) == []
    assert lint(tools.assemble(REFERENCE_AMDX, "vulkan1.3")) == []


def test_richer_module_is_clean():
    assert lint(tools.assemble(RICH_AMDX, "vulkan1.3")) == []


@pytest.mark.parametrize("replacements,messages", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_broken_rule_gives_its_message(replacements, messages):
    assert lint(mutant(*replacements)) == messages


@pytest.mark.parametrize("replacements", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_spirv_val_accepts_what_the_lint_rejects(replacements):
    """spirv-amdx.md §1.4: spirv-val v2025.5 checks none of these rules. If it starts to, the
    case fails here and the lint rule may go."""
    assert tools.validate(mutant(*replacements), "vulkan1.3") == []


@pytest.mark.parametrize("replacements", [
    [("%p_out_arr %uint_2 %uint_4", "%p_out_arr %uint_4 %uint_4")],                   # Invocation
    [add(TYPES, "%str_main = OpSpecConstantStringAMDX \"main\""),
     ("PayloadNodeNameAMDX %str_leaf", "PayloadNodeNameAMDX %str_main")],
    [add("OpExecutionMode %leaf CoalescingAMDX", "OpExecutionModeId %leaf SharesInputWithAMDX %str_leaf %uint_0")],
    [add(MAIN_BODY, "%copy = OpCopyObject %p_out_arr %outs\nOpEnqueueNodePayloadsAMDX %copy")],
    [add(ANNOTATIONS, "OpDecorate %InRec TrackFinishWritingAMDX"),
     add(MAIN_BODY, "%done = OpFinishWritingNodePayloadAMDX %bool %main_in")],
], ids=["Invocation visibility", "spec constant name", "SharesInputWithAMDX", "enqueue of a copy",
        "finish writing with tracking"])
def test_what_the_rules_allow_is_clean(replacements):
    words = mutant(*replacements)
    assert tools.validate(words, "vulkan1.3") == []
    assert lint(words) == []


def test_unnamed_ids_are_numbers():
    words = tools.assemble(REFERENCE_AMDX.replace("OpDecorateId %out_arr NodeMaxPayloadsAMDX %uint_4\n", ""))
    [message] = lint(words)
    assert re.fullmatch(r"%\d+: OpTypeNodePayloadArrayAMDX without NodeMaxPayloadsAMDX", message)


def test_one_node_per_module():
    words = mutant()
    assert lint(words) == []
    assert lint(words, one_node_per_module=True) == ["2 entry points in a module meant to hold one node"]
    one = tools.assemble(REFERENCE_AMDX.replace('OpEntryPoint GLCompute %leaf "leaf" %leaf_in\n', ""))
    assert lint(one, one_node_per_module=True) == []


def test_not_a_module():
    with pytest.raises(ValueError, match="not a SPIR-V module"):
        lint([0, 1, 2, 3, 4])
    words = mutant()
    words[-1] = 2 << 16 | words[-1] & 0xFFFF      # OpFunctionEnd claiming a word past the end
    with pytest.raises(ValueError, match="malformed"):
        lint(words)


# ---------------------------------------------------------------- MeshEXT entry points (mesh nodes)

MESH_NODE = "\n".join((
    "struct V { float4 pos : SV_Position; };",
    '[Shader("node")] [NodeLaunch("mesh")] [NodeIsProgramEntry] [NodeDispatchGrid(2, 1, 1)] [NumThreads(3, 1, 1)]',
    '[OutputTopology("triangle")]',
    "void Draw(uint i : SV_GroupIndex, out vertices V verts[3], out indices uint3 tris[1])",
    "{",
    "    SetMeshOutputCounts(3, 1);",
    "    verts[i].pos = float4(i, 0, 0, 1);",
    "    if (i == 0) tris[0] = uint3(0, 1, 2);",
    "}", ""))


def mesh_module() -> str:
    result = driver.compile(driver.Options(input="-", emit="spirv"), stdin=MESH_NODE.encode())
    assert result.ok, result.diagnostics
    return tools.disassemble(words_of(result.outputs["spirv"]), header=False)


def test_a_mesh_node_module_is_clean() -> None:
    assert lint(tools.assemble(mesh_module(), "vulkan1.3")) == []


def test_coalescing_on_a_mesh_entry_point_is_caught_where_spirv_val_accepts_it() -> None:
    old = "OpExecutionModeId %Draw StaticNumWorkgroupsAMDX %uint_2 %uint_1 %uint_1"
    new = "OpExecutionMode %Draw CoalescingAMDX"
    text = mesh_module()
    assert text.count(old) == 1
    words = tools.assemble(text.replace(old, new), "vulkan1.3")
    assert tools.validate(words, "vulkan1.3", scalar_block_layout=True) == []
    assert lint(words) == ["%Draw: CoalescingAMDX on a MeshEXT entry point (allowed on GLCompute only)"]


def test_amdx_entry_modes_belong_to_glcompute_and_mesh_entry_points() -> None:
    text = mesh_module()
    assert text.count("OpEntryPoint MeshEXT") == 1
    words = tools.assemble(text.replace("OpEntryPoint MeshEXT", "OpEntryPoint TaskEXT"), "vulkan1.3")
    problems = lint(words)
    assert problems == [f"%Draw: {mode} on a TaskEXT entry point (allowed on GLCompute and MeshEXT only)"
                        for mode in ("IsApiEntryAMDX", "ShaderIndexAMDX", "StaticNumWorkgroupsAMDX")]


def test_lazy_definitions_match_a_full_decode():
    """The lint decodes an instruction only when an id it defines is looked up
    (`lint._Definitions`): every id of a real module gives what decoding every instruction gives."""
    from pathlib import Path

    from wgc.spirv import grammar
    from wgc.spirv.lint import _SCANNED, _decode, _Module

    samples = Path(__file__).resolve().parent.parent / "samples"
    result = driver.compile(driver.Options(input=str(samples / "material_dispatch.hlsl"),
                                           include_dirs=(str(samples / "include"),), debug_info=True))
    words = words_of(result.outputs["spirv"])
    expected = {}        # id -> (opcode name, operand words, enclosing function), decoded independently
    in_order = []        # (opcode name, operand words) of every instruction
    position, function = 5, None
    while position < len(words):
        count, info = words[position] >> 16, grammar.instruction_by_opcode(words[position] & 0xFFFF)
        operands = tuple(words[position + 1:position + count])
        kinds = [slot.kind for slot in info.operands]
        in_order.append((info.name, operands))
        if "IdResult" in kinds:
            expected[operands[kinds.index("IdResult")]] = (info.name, operands, function)
            if info.name == "OpFunction":
                function = operands[kinds.index("IdResult")]
        if info.name == "OpFunctionEnd":
            function = None
        position += count
    scanned, defs = _decode(words)
    assert len(expected) > 500
    for ident, (name, operands, function) in expected.items():
        assert ident in defs
        inst = defs[ident]
        assert (inst.name, inst.words, inst.function, inst.result) == (name, operands, function, ident)
    assert 0 not in defs and defs.get(max(expected) + 1) is None
    # the instructions the rules scan, in module order
    assert [(i.name, i.words) for i in scanned] == [(name, operands) for name, operands in in_order
                                                    if name in _SCANNED]
    assert {name for name, _ in in_order} & _SCANNED >= {"OpEntryPoint", "OpDecorateId",
                                                        "OpAllocateNodePayloadsAMDX"}
    # OpName is read only when a message needs a name: the same names (the last OpName of an id wins)
    expected_names = {}
    for name, operands in in_order:
        if name == "OpName":
            text = b"".join(w.to_bytes(4, "little") for w in operands[1:])
            expected_names[operands[0]] = text[:text.index(b"\0")].decode()
    assert len(expected_names) > 50
    assert _Module(scanned, defs).names == expected_names
