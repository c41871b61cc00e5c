"""wgc's lint of SPV_AMDX_shader_enqueue modules: the rules spirv-val does not check (SPIR-V back end).

Input: a module's words (already accepted by spirv-val).
Output: messages, one per broken rule (empty: clean); `emit.py` treats any as an internal error.

The rules (../shared/reference/spirv-amdx.md §1.4): every OpTypeNodePayloadArrayAMDX has
NodeMaxPayloadsAMDX; PayloadNodeNameAMDX sits on payload-array types and names a string constant;
allocated payload arrays (outputs) have a name; OpAllocateNodePayloadsAMDX has Invocation or
Workgroup visibility and returns a NodePayloadAMDX pointer to a payload array; IsApiEntryAMDX is
a bool; CoalescingAMDX is not combined with Static/MaxNumWorkgroupsAMDX; SharesInputWithAMDX names
a string constant; OpEnqueueNodePayloadsAMDX enqueues an allocation; OpNodePayloadArrayLengthAMDX
yields a 32-bit uint; payload structs (and their nested structs) have an Offset on every member;
OpFinishWritingNodePayloadAMDX needs TrackFinishWritingAMDX and a non-coalescing node; optionally
one entry point per module (AMD's driver).

Invariants: the binary is decoded generically with `wgc.spirv.grammar` (no opcode numbers here).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from . import grammar


@dataclass(frozen=True)
class _Inst:
    name: str
    words: tuple[int, ...]
    """The operand words (after the opcode word)."""
    function: int | None
    """The OpFunction this instruction belongs to (None at module scope)."""

    @property
    def result_type(self) -> int | None:
        return self.words[0] if grammar.instruction(self.name).has_result_type else None

    @property
    def result(self) -> int | None:
        inst = grammar.instruction(self.name)
        if not inst.has_result:
            return None
        return self.words[1] if inst.has_result_type else self.words[0]


def _decode(words: list[int]) -> list[_Inst]:
    out, pos, function = [], 5, None
    while pos < len(words):
        count, opcode = words[pos] >> 16, words[pos] & 0xFFFF
        name = grammar.instruction_by_opcode(opcode).name
        inst_words = tuple(words[pos + 1:pos + count])
        if name == "OpFunction":
            function = inst_words[1]
        out.append(_Inst(name, inst_words, function))
        if name == "OpFunctionEnd":
            function = None
        pos += max(count, 1)
    return out


def lint(words: list[int], *, one_node_per_module: bool = False) -> list[str]:
    insts = _decode(words)
    defs = {i.result: i for i in insts if i.result is not None}
    names = {i.words[0]: _string(i.words[1:]) for i in insts if i.name == "OpName"}
    decorations: dict[int, dict[str, tuple[int, ...]]] = defaultdict(dict)
    member_offsets: dict[int, set[int]] = defaultdict(set)
    for i in insts:
        if i.name in ("OpDecorate", "OpDecorateId"):
            decorations[i.words[0]][grammar.enumerant_by_value("Decoration", i.words[1]).name] = i.words[2:]
        elif i.name == "OpMemberDecorate" and i.words[2] == grammar.enumerant("Decoration", "Offset"):
            member_offsets[i.words[0]].add(i.words[1])

    def label(ident: int) -> str:
        return f"%{names[ident]}" if ident in names else f"%{ident}"

    def is_string(ident: int) -> bool:
        return defs.get(ident) is not None and defs[ident].name in ("OpConstantStringAMDX",
                                                                    "OpSpecConstantStringAMDX")

    def constant(ident: int) -> int | None:
        inst = defs.get(ident)
        return inst.words[2] if inst is not None and inst.name == "OpConstant" else None

    problems: list[str] = []
    payload_arrays = [i for i in insts if i.name == "OpTypeNodePayloadArrayAMDX"]
    checked: set[int] = set()
    for array in payload_arrays:
        if "NodeMaxPayloadsAMDX" not in decorations[array.result]:
            problems.append(f"{label(array.result)}: OpTypeNodePayloadArrayAMDX without NodeMaxPayloadsAMDX")
        problems += _struct_offsets(array.words[1], defs, member_offsets, label, checked)
    for target, decos in decorations.items():
        if "PayloadNodeNameAMDX" in decos:
            if defs.get(target) is None or defs[target].name != "OpTypeNodePayloadArrayAMDX":
                problems.append(f"{label(target)}: PayloadNodeNameAMDX on something that is not a payload array type")
            if not is_string(decos["PayloadNodeNameAMDX"][0]):
                problems.append(f"{label(target)}: PayloadNodeNameAMDX does not name a string constant")
    scopes = {grammar.enumerant("Scope", "Invocation"), grammar.enumerant("Scope", "Workgroup")}
    allocations = set()
    for i in insts:
        if i.name == "OpAllocateNodePayloadsAMDX":
            allocations.add(i.result)
            if constant(i.words[2]) not in scopes:
                problems.append(f"{label(i.result)}: OpAllocateNodePayloadsAMDX visibility is not a constant "
                                "Invocation or Workgroup scope")
            pointer = defs.get(i.result_type)
            pointee = defs.get(pointer.words[2]) if pointer is not None and pointer.name == "OpTypePointer" else None
            if pointee is None or pointee.name != "OpTypeNodePayloadArrayAMDX" or \
                    pointer.words[1] != grammar.enumerant("StorageClass", "NodePayloadAMDX"):
                problems.append(f"{label(i.result)}: OpAllocateNodePayloadsAMDX does not return a NodePayloadAMDX "
                                "pointer to a payload array")
            elif "PayloadNodeNameAMDX" not in decorations[pointee.result]:
                problems.append(f"{label(pointee.result)}: output payload array without PayloadNodeNameAMDX")
        elif i.name == "OpEnqueueNodePayloadsAMDX" and i.words[0] not in allocations:
            problems.append(f"OpEnqueueNodePayloadsAMDX of {label(i.words[0])}, which is not an allocation")
        elif i.name == "OpNodePayloadArrayLengthAMDX":
            result_type = defs.get(i.result_type)
            if result_type is None or result_type.name != "OpTypeInt" or result_type.words[1:] != (32, 0):
                problems.append(f"{label(i.result)}: OpNodePayloadArrayLengthAMDX does not yield a 32-bit uint")
    problems += _modes(insts, defs, decorations, label, is_string)
    entries = [i for i in insts if i.name == "OpEntryPoint"]
    if one_node_per_module and len(entries) > 1:
        problems.append(f"{len(entries)} entry points in a module meant to hold one node")
    return problems


def _struct_offsets(type_id: int, defs, offsets, label, seen: set[int]) -> list[str]:  # type: ignore[no-untyped-def]
    """Every member of a payload struct (and of its nested structs and arrays) has an Offset;
    `seen` holds the types checked already (each is reported once)."""
    inst = defs.get(type_id)
    if inst is None or type_id in seen:
        return []
    seen.add(type_id)
    if inst.name in ("OpTypeArray", "OpTypeRuntimeArray"):
        return _struct_offsets(inst.words[1], defs, offsets, label, seen)
    if inst.name != "OpTypeStruct":
        return []
    members = inst.words[1:]
    problems = [f"{label(type_id)}: payload struct member {m} has no Offset"
                for m in range(len(members)) if m not in offsets[type_id]]
    for member in members:
        problems += _struct_offsets(member, defs, offsets, label, seen)
    return problems


def _modes(insts, defs, decorations, label, is_string) -> list[str]:  # type: ignore[no-untyped-def]
    problems: list[str] = []
    modes: dict[int, dict[str, tuple[int, ...]]] = defaultdict(dict)
    for i in insts:
        if i.name in ("OpExecutionMode", "OpExecutionModeId"):
            modes[i.words[0]][grammar.enumerant_by_value("ExecutionMode", i.words[1]).name] = i.words[2:]
    for entry, found in modes.items():
        if "IsApiEntryAMDX" in found:
            value = defs.get(found["IsApiEntryAMDX"][0])
            if value is None or value.name not in ("OpConstantTrue", "OpConstantFalse", "OpSpecConstantTrue",
                                                   "OpSpecConstantFalse"):
                problems.append(f"{label(entry)}: IsApiEntryAMDX is not a bool constant")
        if "CoalescingAMDX" in found and ({"StaticNumWorkgroupsAMDX", "MaxNumWorkgroupsAMDX"} & found.keys()):
            problems.append(f"{label(entry)}: CoalescingAMDX together with a workgroup-count mode")
        if "SharesInputWithAMDX" in found and not is_string(found["SharesInputWithAMDX"][0]):
            problems.append(f"{label(entry)}: SharesInputWithAMDX does not name a string constant")
    for i in insts:
        if i.name != "OpFinishWritingNodePayloadAMDX":
            continue
        variable = defs.get(i.words[2])
        pointer = defs.get(variable.words[0]) if variable is not None else None
        array = defs.get(pointer.words[2]) if pointer is not None and pointer.name == "OpTypePointer" else None
        struct = array.words[1] if array is not None and array.name == "OpTypeNodePayloadArrayAMDX" else None
        if struct is None or "TrackFinishWritingAMDX" not in decorations[struct]:
            problems.append(f"{label(i.result)}: OpFinishWritingNodePayloadAMDX on a payload without "
                            "TrackFinishWritingAMDX")
        if "CoalescingAMDX" in modes.get(i.function, {}):
            problems.append(f"{label(i.result)}: OpFinishWritingNodePayloadAMDX in a coalescing node")
    return problems


def _string(words: tuple[int, ...]) -> str:
    data = b"".join(w.to_bytes(4, "little") for w in words)
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")
