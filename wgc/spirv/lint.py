"""wgc's lint of SPV_AMDX_shader_enqueue modules: the rules spirv-val does not check (SPIR-V back end).

Input: a module's words (normally one spirv-val already accepted).
Output: messages, one per broken rule and offending id (empty: clean); `emit.py` treats any as an
internal error. Each message starts with the offending id (its OpName, else `%N`) and says the rule.

The rules (../shared/reference/spirv-amdx.md §1.4 and §5(a)3; spirv-val v2025.5 accepts every
violation of them):
- every OpTypeNodePayloadArrayAMDX has NodeMaxPayloadsAMDX;
- PayloadNodeNameAMDX decorates only OpTypeNodePayloadArrayAMDX types and names an
  OpConstantStringAMDX or OpSpecConstantStringAMDX;
- every output payload array (the pointee of an OpAllocateNodePayloadsAMDX result type) has
  PayloadNodeNameAMDX;
- OpAllocateNodePayloadsAMDX: the Visibility is a constant Invocation or Workgroup scope, and the
  result type is a NodePayloadAMDX pointer to an OpTypeNodePayloadArrayAMDX;
- IsApiEntryAMDX's operand is a bool constant;
- an entry point with CoalescingAMDX has no StaticNumWorkgroupsAMDX or MaxNumWorkgroupsAMDX;
- CoalescingAMDX is on GLCompute entry points only; IsApiEntryAMDX, ShaderIndexAMDX,
  StaticNumWorkgroupsAMDX and MaxNumWorkgroupsAMDX on GLCompute and MeshEXT only (mesh nodes);
- SharesInputWithAMDX's node name is a string constant;
- OpEnqueueNodePayloadsAMDX enqueues the result of an OpAllocateNodePayloadsAMDX (through
  OpCopyObject too);
- OpNodePayloadArrayLengthAMDX yields a 32-bit unsigned int;
- every member of a payload struct (the payload type of an OpTypeNodePayloadArrayAMDX, and the
  structs inside it, through arrays too) has an Offset;
- OpFinishWritingNodePayloadAMDX is used on a payload whose struct has TrackFinishWritingAMDX, and
  not in the function of a CoalescingAMDX entry point;
- with `one_node_per_module`, at most one OpEntryPoint (AMD's driver takes one node per module).

Invariants:
- The binary is decoded generically with `wgc.spirv.grammar`: instructions by opcode, operands by
  their grammar name or kind, enumerants by name. No opcode or enum value is written here. One
  pass finds every instruction; only those the rules scan (`_SCANNED`) are decoded then, any
  other when an id it defines is looked up (`_Definitions`), OpName when a message needs a name.
- The lint only reads the words. It raises ValueError for a malformed binary (KeyError for an
  opcode or enumerant the grammar does not know); the messages come in a fixed order (payload
  types, then instructions in module order, then entry points).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterator

from . import grammar

_STRING_CONSTANTS = ("OpConstantStringAMDX", "OpSpecConstantStringAMDX")
_BOOL_CONSTANTS = ("OpConstantTrue", "OpConstantFalse", "OpSpecConstantTrue", "OpSpecConstantFalse")
_WORKGROUP_COUNT_MODES = ("StaticNumWorkgroupsAMDX", "MaxNumWorkgroupsAMDX")
_MODEL_OF_MODE = {   # execution mode -> the execution models the extension allows it on
    "CoalescingAMDX": ("GLCompute",),
    **{mode: ("GLCompute", "MeshEXT") for mode in ("IsApiEntryAMDX", "ShaderIndexAMDX", *_WORKGROUP_COUNT_MODES)},
}


class _Inst:
    """One decoded instruction."""
    __slots__ = ("info", "name", "words", "function", "result", "result_type")

    def __init__(self, info: grammar.Instruction, words: tuple[int, ...], function: int | None) -> None:
        self.info = info
        self.name = info.name
        self.words = words
        """The operand words (after the word holding the opcode and word count)."""
        self.function = function
        """The OpFunction this instruction is in (None at module scope)."""
        result_at, type_at = _result_words(info.name)
        self.result = words[result_at] if result_at >= 0 else 0
        """The result id; 0 (never an id) for an instruction without one."""
        self.result_type = words[type_at] if type_at >= 0 else 0
        """The result type id; 0 (never an id) for an instruction without one."""

    def _index(self, key: str) -> int:
        """The word index of the operand whose grammar name (or, if unnamed, kind) is `key`.

        Only operands before any literal string or repeated operand are addressable: those all
        take one word each."""
        return _operand_index(self.name, key)

    def operand(self, key: str) -> int:
        return self.words[self._index(key)]

    def after(self, key: str) -> tuple[int, ...]:
        """The words following operand `key` (a decoration's or mode's parameters, members, ...)."""
        return self.words[self._index(key) + 1:]


@functools.cache
def _operand_index(op_name: str, key: str) -> int:
    """`_Inst._index`, once per instruction and key (keyed by name: a grammar.Instruction hashes
    all its operands)."""
    info = grammar.instruction(op_name)
    for index, slot in enumerate(info.operands):
        if key in (slot.name, slot.kind):
            return index
        if slot.kind == "LiteralString" or slot.quantifier is not None:
            break
    raise KeyError(f"{info.name} has no single-word operand {key!r} at a fixed position")


@functools.cache
def _result_words(op_name: str) -> tuple[int, int]:
    """The operand word indexes of the result id and of the result type (-1: none)."""
    info = grammar.instruction(op_name)
    return (_operand_index(op_name, "IdResult") if info.has_result else -1,
            _operand_index(op_name, "IdResultType") if info.has_result_type else -1)


#: The instructions the rules read by scanning the module (every other one is decoded only when
#: an id it defines is looked up: `_Definitions`).
_SCANNED = frozenset({
    "OpEntryPoint", "OpDecorate", "OpDecorateId", "OpMemberDecorate", "OpExecutionMode",
    "OpExecutionModeId", "OpTypeNodePayloadArrayAMDX", "OpAllocateNodePayloadsAMDX",
    "OpEnqueueNodePayloadsAMDX", "OpNodePayloadArrayLengthAMDX", "OpFinishWritingNodePayloadAMDX",
})


class _Definitions:
    """id -> the `_Inst` defining it, decoded on first lookup (of a module's instructions the
    rules look up a few dozen: decoding all of them would be most of the lint's work)."""

    def __init__(self, words: list[int], where: dict[int, tuple[int, int | None]]) -> None:
        self._words = words
        self._where = where          # id -> (word index of its instruction, its function)
        self._decoded: dict[int, _Inst] = {}

    def __contains__(self, ident: object) -> bool:
        return ident in self._where

    def get(self, ident: int | None) -> _Inst | None:
        found = self._decoded.get(ident)    # type: ignore[arg-type]
        if found is None and ident in self._where:
            position, function = self._where[ident]
            found = self._decoded[ident] = _decode_one(self._words, position, function)
        return found

    def __getitem__(self, ident: int) -> _Inst:
        found = self.get(ident)
        if found is None:
            raise KeyError(ident)
        return found


def _decode_one(words: list[int], position: int, function: int | None) -> _Inst:
    count, code = words[position] >> 16, words[position] & 0xFFFF
    return _Inst(grammar.instruction_by_opcode(code), tuple(words[position + 1:position + count]), function)


@functools.cache
def _opcode_facts(code: int) -> tuple[bool, int, bool]:
    """(whether the rules scan it, its result's word offset from the instruction's first word or 0,
    whether it is OpFunction / OpFunctionEnd) of an opcode."""
    info = grammar.instruction_by_opcode(code)
    result_at = _result_words(info.name)[0]
    return info.name in _SCANNED, result_at + 1, info.name in ("OpFunction", "OpFunctionEnd")


_FACTS: dict[int, tuple[bool, int, bool]] = {}
"""`_opcode_facts` of the opcodes met so far (a dict lookup costs less than the cached call)."""


def _decode(words: list[int]) -> tuple[list[_Inst], _Definitions]:
    """The instructions the rules scan (in module order) and the definitions of every id."""
    if len(words) < 5 or words[0] != grammar.magic_number():
        raise ValueError("not a SPIR-V module (no header with the magic number)")
    scanned: list[_Inst] = []
    where: dict[int, tuple[int, int | None]] = {}
    position, function, end = 5, None, len(words)
    known = _FACTS
    while position < end:
        first = words[position]
        count = first >> 16
        if count == 0 or position + count > end:
            raise ValueError(f"malformed SPIR-V instruction at word {position}")
        facts = known.get(first & 0xFFFF)
        if facts is None:
            facts = known[first & 0xFFFF] = _opcode_facts(first & 0xFFFF)
        scan, result_at, is_function = facts
        if result_at:
            if result_at >= count:               # a truncated instruction: as decoding it raises
                raise IndexError(f"instruction at word {position} has no result word")
            where[words[position + result_at]] = (position, function)
        if is_function:
            function = words[position + result_at] if result_at else None
        if scan:
            scanned.append(_decode_one(words, position, function))
        position += count
    return scanned, _Definitions(words, where)


def _positions(words: list[int]) -> Iterator[int]:
    """The word index of each instruction (of a module `_decode` has read)."""
    position = 5
    while position < len(words):
        yield position
        position += words[position] >> 16


def _string(words: tuple[int, ...]) -> str:
    data = b"".join(w.to_bytes(4, "little") for w in words)
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


class _Module:
    """Lookups over the decoded instructions that the rules share."""

    def __init__(self, insts: list[_Inst], defs: _Definitions) -> None:
        self.insts = insts           # the instructions of `_SCANNED`, in module order
        self.defs = defs
        self._words = defs._words
        self._names: dict[int, str] | None = None
        # target id -> decoration name -> parameter words (OpDecorate and OpDecorateId)
        self.decorations: dict[int, dict[str, tuple[int, ...]]] = defaultdict(dict)
        # struct id -> members with an Offset
        self.offsets: dict[int, set[int]] = defaultdict(set)
        # entry point function id -> execution mode name -> parameter words
        self.modes: dict[int, dict[str, tuple[int, ...]]] = defaultdict(dict)
        # entry point function id -> execution model name
        self.models: dict[int, str] = {}
        for i in insts:
            if i.name == "OpEntryPoint":
                model = grammar.enumerant_by_value("ExecutionModel", i.operand("ExecutionModel")).name
                self.models[i.operand("Entry Point")] = model
            if i.name in ("OpDecorate", "OpDecorateId"):
                decoration = grammar.enumerant_by_value("Decoration", i.operand("Decoration")).name
                self.decorations[i.operand("Target")][decoration] = i.after("Decoration")
            elif i.name == "OpMemberDecorate" and i.operand("Decoration") == grammar.enumerant("Decoration", "Offset"):
                self.offsets[i.operand("Structure Type")].add(i.operand("Member"))
            elif i.name in ("OpExecutionMode", "OpExecutionModeId"):
                mode = grammar.enumerant_by_value("ExecutionMode", i.operand("Mode")).name
                self.modes[i.operand("Entry Point")][mode] = i.after("Mode")

    def label(self, ident: int) -> str:
        return f"%{self.names[ident]}" if self.names.get(ident) else f"%{ident}"

    @property
    def names(self) -> dict[int, str]:
        """id -> its OpName, read when a message first needs one (a clean module needs none)."""
        if self._names is None:
            op_name = grammar.opcode("OpName")
            named = (_decode_one(self._words, position, None) for position in _positions(self._words)
                     if self._words[position] & 0xFFFF == op_name)
            self._names = {i.operand("Target"): _string(i.after("Target")) for i in named}
        return self._names

    def decorated(self, target: int | None, decoration: str) -> bool:
        return target in self.decorations and decoration in self.decorations[target]

    def is_a(self, ident: int | None, *opcodes: str) -> bool:
        inst = self.defs.get(ident) if ident is not None else None
        return inst is not None and inst.name in opcodes

    def pointee(self, pointer_type: int | None) -> _Inst | None:
        """The type a pointer type points to (None if `pointer_type` is not a pointer type)."""
        if pointer_type is None or not self.is_a(pointer_type, "OpTypePointer"):
            return None
        return self.defs.get(self.defs[pointer_type].operand("Type"))

    def payload_struct(self, pointer: int) -> int | None:
        """The record struct behind a payload pointer (to a payload array or to one record)."""
        target = self.pointee(self.defs[pointer].result_type) if pointer in self.defs else None
        if target is not None and target.name == "OpTypeNodePayloadArrayAMDX":
            target = self.defs.get(target.operand("Payload Type"))
        return target.result if target is not None and target.name == "OpTypeStruct" else None


def lint(words: list[int], one_node_per_module: bool = False) -> list[str]:
    """The broken rules of the module docstring, one message each (see there)."""
    m = _Module(*_decode(words))
    problems = _payload_types(m) + _instructions(m) + _modes(m)
    entries = [i for i in m.insts if i.name == "OpEntryPoint"]
    if one_node_per_module and len(entries) > 1:
        problems.append(f"{len(entries)} entry points in a module meant to hold one node")
    return problems


def _payload_types(m: _Module) -> list[str]:
    problems: list[str] = []
    checked: set[int] = set()
    for array in (i for i in m.insts if i.name == "OpTypeNodePayloadArrayAMDX"):
        if not m.decorated(array.result, "NodeMaxPayloadsAMDX"):
            problems.append(f"{m.label(array.result)}: OpTypeNodePayloadArrayAMDX without NodeMaxPayloadsAMDX")
        problems += _struct_offsets(m, array.operand("Payload Type"), checked)
    for target, decorations in m.decorations.items():
        if "PayloadNodeNameAMDX" not in decorations:
            continue
        if not m.is_a(target, "OpTypeNodePayloadArrayAMDX"):
            problems.append(f"{m.label(target)}: PayloadNodeNameAMDX on something that is not a payload array type")
        if not m.is_a(decorations["PayloadNodeNameAMDX"][0], *_STRING_CONSTANTS):
            problems.append(f"{m.label(target)}: PayloadNodeNameAMDX does not name a string constant")
    return problems


def _struct_offsets(m: _Module, type_id: int, checked: set[int]) -> list[str]:
    """Every member of a payload struct, and of the structs (and arrays) inside it, has an Offset;
    `checked` holds the types seen already, so that each is reported once."""
    inst = m.defs.get(type_id)
    if inst is None or type_id in checked:
        return []
    checked.add(type_id)
    if inst.name in ("OpTypeArray", "OpTypeRuntimeArray"):
        return _struct_offsets(m, inst.operand("Element Type"), checked)
    if inst.name != "OpTypeStruct":
        return []
    members = inst.after("IdResult")
    problems = [f"{m.label(type_id)}: payload struct member {index} has no Offset"
                for index in range(len(members)) if index not in m.offsets.get(type_id, set())]
    for member in members:
        problems += _struct_offsets(m, member, checked)
    return problems


def _instructions(m: _Module) -> list[str]:
    scopes = {grammar.enumerant("Scope", "Invocation"), grammar.enumerant("Scope", "Workgroup")}
    node_payload = grammar.enumerant("StorageClass", "NodePayloadAMDX")
    problems: list[str] = []
    for i in m.insts:
        if i.name == "OpAllocateNodePayloadsAMDX":
            visibility = m.defs.get(i.operand("Visibility"))
            if visibility is None or visibility.name != "OpConstant" or visibility.operand("Value") not in scopes:
                problems.append(f"{m.label(i.result)}: OpAllocateNodePayloadsAMDX visibility is not a constant "
                                "Invocation or Workgroup scope")
            array = m.pointee(i.result_type)
            if array is None or array.name != "OpTypeNodePayloadArrayAMDX" or \
                    m.defs[i.result_type].operand("StorageClass") != node_payload:
                problems.append(f"{m.label(i.result)}: OpAllocateNodePayloadsAMDX does not return a NodePayloadAMDX "
                                "pointer to a payload array")
            elif not m.decorated(array.result, "PayloadNodeNameAMDX"):
                problems.append(f"{m.label(array.result)}: output payload array without PayloadNodeNameAMDX")
        elif i.name == "OpEnqueueNodePayloadsAMDX":
            payload = i.operand("Payload Array")
            source = payload
            while m.is_a(source, "OpCopyObject"):
                source = m.defs[source].operand("Operand")
            if not m.is_a(source, "OpAllocateNodePayloadsAMDX"):
                problems.append(f"OpEnqueueNodePayloadsAMDX of {m.label(payload)}, which is not an allocation")
        elif i.name == "OpNodePayloadArrayLengthAMDX":
            length = m.defs.get(i.result_type)
            if length is None or length.name != "OpTypeInt" or \
                    (length.operand("Width"), length.operand("Signedness")) != (32, 0):
                problems.append(f"{m.label(i.result)}: OpNodePayloadArrayLengthAMDX does not yield a 32-bit uint")
        elif i.name == "OpFinishWritingNodePayloadAMDX":
            struct = m.payload_struct(i.operand("Payload"))
            if not m.decorated(struct, "TrackFinishWritingAMDX"):
                problems.append(f"{m.label(i.result)}: OpFinishWritingNodePayloadAMDX on a payload without "
                                "TrackFinishWritingAMDX")
            if i.function is not None and "CoalescingAMDX" in m.modes.get(i.function, {}):
                problems.append(f"{m.label(i.result)}: OpFinishWritingNodePayloadAMDX in a coalescing node")
    return problems


def _modes(m: _Module) -> list[str]:
    problems: list[str] = []
    for entry, modes in m.modes.items():
        if "IsApiEntryAMDX" in modes and not m.is_a(modes["IsApiEntryAMDX"][0], *_BOOL_CONSTANTS):
            problems.append(f"{m.label(entry)}: IsApiEntryAMDX is not a bool constant")
        if "CoalescingAMDX" in modes and any(mode in modes for mode in _WORKGROUP_COUNT_MODES):
            problems.append(f"{m.label(entry)}: CoalescingAMDX together with a workgroup-count mode")
        if "SharesInputWithAMDX" in modes and not m.is_a(modes["SharesInputWithAMDX"][0], *_STRING_CONSTANTS):
            problems.append(f"{m.label(entry)}: SharesInputWithAMDX does not name a string constant")
        model = m.models.get(entry)
        for mode, models in _MODEL_OF_MODE.items():
            if mode in modes and model is not None and model not in models:
                problems.append(f"{m.label(entry)}: {mode} on a {model} entry point (allowed on "
                                f"{' and '.join(models)} only)")
    return problems
