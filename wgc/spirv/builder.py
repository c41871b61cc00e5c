"""A SPIR-V module builder: ids, sections, types, constants and function bodies (SPIR-V back end).

Input: calls from the lowering (`begin_function`, `emit`, `type_*`, `constant*`, `decorate`, ...).
Output: `to_words()` / `to_bytes()`: a binary module in the logical layout order of the SPIR-V
spec (§2.4): capabilities, extensions, ext-inst imports, memory model, entry points, execution
modes, debug (OpString/OpSource, then OpName/OpMemberName), annotations, types/constants/global
variables, functions.

Invariants:
- Every opcode, enumerant and operand layout comes from `wgc.spirv.grammar`; instructions are
  encoded by walking the grammar's operand kinds (ints for ids, literals and enum values; str for
  literal strings, enum names ("Inline", "Unroll|DontUnroll") and GLSL.std.450 names; a tuple/list
  of ints is emitted verbatim, e.g. a 64-bit OpSwitch literal). The common instructions take a
  layout derived from the grammar once per (instruction, operand count) instead
  (`_simple_layout`); it gives the same words, and leaves every error to the walk. `emit` writes
  the body instructions whose operands are all ids itself once the encoder has taken them
  (`_IDS_ONLY`): the same words again, anything else to the encoder.
- Types are deduplicated by structure, except `OpTypeNodePayloadArrayAMDX` (one per request: each
  node output carries its own decorations) and aggregates requested with `fresh=True`.
  Scalar, composite, null and string constants are deduplicated.
- Types, constants and global variables are written in definition order, so an operand is always
  defined before its use. `to_words` checks the SPIR-V rule spirv-val enforces for OpDecorateId
  (its id operands, e.g. an OpConstantStringAMDX node name, must be defined before the target).
- Capabilities are written sorted by value, extensions by name: the output depends only on the
  sequence of calls, and two identical call sequences give identical bytes.
- A module declaring ShaderEnqueueAMDX must have SPIR-V version >= 1.4 (the extension requires it;
  spirv-val does not check it).
- The header generator word is 0 (wgc has no registered generator id) and the schema is 0.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Iterable, Sequence

from . import grammar

OperandValue = int | float | str | Sequence[int]

#: SPIR-V version to emit for a Vulkan target environment: the newest it accepts (libspirv.h:
#: SPV_ENV_VULKAN_1_2 -> SPIR-V 1.5, SPV_ENV_VULKAN_1_3 and _1_4 -> 1.6). All are >= 1.4.
VERSION_FOR_ENV: dict[str, tuple[int, int]] = {
    "vulkan1.2": (1, 5), "vulkan1.3": (1, 6), "vulkan1.4": (1, 6),
}
#: SPV_AMDX_shader_enqueue: "This extension requires SPIR-V 1.4".
AMDX_MIN_VERSION = (1, 4)

_TERMINATORS = frozenset({
    "OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
    "OpUnreachable", "OpTerminateInvocation", "OpIgnoreIntersectionKHR", "OpTerminateRayKHR",
    "OpEmitMeshTasksEXT",
})
# Instruction classes that belong to a module section, never to a function body.
_MODULE_CLASSES = frozenset({"Type-Declaration", "Constant-Creation", "Annotation", "Mode-Setting"})
# Instructions with their own Builder method (which keeps the function/block state right).
_DEDICATED = {"OpFunction": "begin_function", "OpFunctionParameter": "parameter",
              "OpLabel": "label", "OpFunctionEnd": "end_function", "OpVariable": "local_variable"}

_BODY_INSTRUCTIONS: set[str] = set()
"""The instructions `Builder.emit` has accepted (it checks each name once per process)."""
_IDS_ONLY: dict[tuple[str, int], tuple[int, int, tuple[int, int] | None, bool]] = {}
"""(instruction, operand count) -> (opcode, word of the result id, the SPIR-V version it needs, whether it
ends a block), for the instructions `Builder.emit` has accepted whose operands are all ids (OpLoad,
OpIAdd, ...): `emit` writes their words itself, as `_encode_simple` would."""


MAX_DEBUG_NAME = 1024
"""Characters of an OpName/OpMemberName kept: names are debug information, and one instruction
holds at most 65535 words (a 300,000-character identifier would not fit)."""


def _debug_name(text: str) -> str:
    return text if len(text) <= MAX_DEBUG_NAME else text[:MAX_DEBUG_NAME]


def string_words(text: str) -> list[int]:
    """A literal string: UTF-8, nul-terminated, zero-padded to whole little-endian words."""
    data = text.encode("utf-8")
    if b"\0" in data:
        raise ValueError(f"SPIR-V literal string contains a NUL character: {text!r}")
    data += b"\0" * (4 - len(data) % 4)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def _parse_version(text: str) -> tuple[int, int] | None:
    if text in ("None", ""):
        return None
    major, minor = text.split(".")
    return int(major), int(minor)


# --- the fast encoding of the common instructions --------------------------------------------
#
# Most instructions are ids, literal integers, enum names without parameters and literal strings,
# one value per operand slot: their words follow from the operand count alone. `_simple_layout`
# derives that layout once per (instruction, operand count) from the grammar, and `_encode_simple`
# fills it in, declining (None) whatever it does not cover so that `Builder._encode_walk` handles
# it, errors included.

_TYPE, _ID, _LITERAL, _STRING, _EXT_INST, _NUMBER = (
    "IdResultType", "Id", "LiteralInteger", "LiteralString", "ExtInst", "Number")
"""Slot codes of a `_SimpleLayout`; an enum slot's code is its operand kind (e.g. "StorageClass")."""
_CODES = (_TYPE, _ID, _LITERAL, _STRING, _EXT_INST, _NUMBER)


class _SimpleLayout:
    """The words of an instruction with a given operand count, one value per code in `codes`."""
    __slots__ = ("opcode", "needed", "has_result", "result_at", "codes", "only_ids")

    def __init__(self, opcode: int, needed: tuple[int, int] | None, result_at: int,
                 codes: tuple[str, ...]) -> None:
        self.opcode = opcode
        self.needed = needed            # the SPIR-V version the instruction needs (None: any)
        self.has_result = result_at > 0
        self.result_at = result_at      # the word index of the result id (0: none)
        self.codes = codes
        self.only_ids = all(code is _ID or code is _TYPE for code in codes)   # OpLoad, OpIAdd, ...


def _slot_code(inst: grammar.Instruction, kind: str) -> str | None:
    """The `_SimpleLayout` code of an operand kind in `inst` (None: only the walk encodes it)."""
    category = grammar.operand_kind(kind).category
    if kind == "IdResultType":          # an id that is never given as pre-encoded words
        return _TYPE
    if category == "Id":
        return _ID
    if category in ("ValueEnum", "BitEnum"):
        return kind
    if kind == "LiteralContextDependentNumber":
        return _NUMBER if inst.name in ("OpConstant", "OpSpecConstant") else _LITERAL
    return {"LiteralInteger": _LITERAL, "LiteralString": _STRING,
            "LiteralExtInstInteger": _EXT_INST}.get(kind)


@functools.lru_cache(maxsize=4096)
def _simple_layout(op_name: str, count: int,
                   enum_value: int | str | None = None) -> _SimpleLayout | int | None:
    """The layout of `op_name` with `count` operand values, if each fills one slot (see above).

    Where an enum operand's value decides the layout (its enumerant's parameters follow it, as in
    `OpDecorate %x ArrayStride 16`), this is that operand's index: ask again with its value as
    `enum_value`. One such operand per instruction; None for anything else the walk must do."""
    try:
        inst = grammar.instruction(op_name)
    except KeyError:
        return None
    needed = _parse_version(inst.version)
    codes: list[str] = []
    result_at = 0
    slots = list(inst.operands)
    keyed = False
    while slots:
        slot = slots.pop(0)
        if slot.kind == "IdResult":
            result_at = 1 + len(codes)
            continue
        if slot.quantifier is None:
            if len(codes) >= count:
                return None
            take = 1
        elif slot.quantifier == "?":
            take = 1 if len(codes) < count else 0
        else:
            take = max(count - len(codes), 0)
        if not take:
            continue
        code = _slot_code(inst, slot.kind)
        if code is None:
            return None
        if code not in _CODES and _has_parameters(code):
            if keyed or slot.quantifier == "*":
                return None
            if enum_value is None:
                return len(codes)
            parameters = _enum_parameters(code, enum_value)
            if parameters is None:
                return None
            keyed = True
            slots[:0] = parameters
        codes.extend([code] * take)
    if len(codes) != count:
        return None
    return _SimpleLayout(inst.opcode, None if inst.extensions else needed, result_at, tuple(codes))


@functools.lru_cache(maxsize=None)
def _has_parameters(kind: str) -> bool:
    """Whether some enumerant of an enum kind takes parameters (Decoration, MemoryAccess, ...)."""
    return any(e.parameters for e in grammar.operand_kind(kind).by_value.values())


def _enum_parameters(kind: str, value: int | str) -> tuple[grammar.Operand, ...] | None:
    """The parameter slots that follow an enum operand (for a bit enum: of each bit, low to high);
    None for an unknown value."""
    try:
        number = Builder._enum_value(kind, value)
        if grammar.operand_kind(kind).category == "ValueEnum":
            bits = [number]
        else:
            bits = [1 << b for b in range(32) if number & (1 << b)]
        return tuple(p for bit in bits for p in grammar.enumerant_by_value(kind, bit).parameters)
    except (KeyError, ValueError, TypeError):
        return None


@functools.lru_cache(maxsize=4096)
def _enum_number(kind: str, value: int | str) -> int:
    """`Builder._enum_lookup`, cached (a storage class is looked up ~200 times a compile)."""
    return Builder._enum_lookup(kind, value)


@functools.lru_cache(maxsize=4096)
def _id_operand_form(kind: str, enumerant: int | str) -> tuple[str, bool]:
    """(the name of an ExecutionMode or Decoration enumerant, whether its operands are ids)."""
    name = enumerant if isinstance(enumerant, str) else grammar.enumerant_by_value(kind, enumerant).name
    return name, grammar.takes_id_operands(kind, name)


@functools.lru_cache(maxsize=4096)
def _enum_word(kind: str, value: int | str) -> int | None:
    """The word of an enum operand (None: unknown). The layout has placed its parameters."""
    try:
        return Builder._enum_value(kind, value)
    except (KeyError, ValueError, TypeError):
        return None


@functools.lru_cache(maxsize=4096)
def _string_word_tuple(text: str) -> tuple[int, ...] | None:
    """`string_words(text)`, cached (None for a string SPIR-V cannot hold)."""
    try:
        return tuple(string_words(text))
    except ValueError:
        return None


def _encode_simple(layout: _SimpleLayout, values: Sequence[OperandValue]) -> list[int] | None:
    """The words of one instruction by `layout` (the result id word 0), or None where a value is
    not of the simple kinds (the grammar walk then encodes it, or raises)."""
    words: list[int]
    if layout.only_ids:                        # most instructions: no per-code dispatch
        for value in values:
            if type(value) is not int or value <= 0:
                return None
        at = layout.result_at
        if at == 0:
            words = [0, *values]               # type: ignore[list-item]
        elif at == 1:
            words = [0, 0, *values]            # type: ignore[list-item]
        else:
            words = [0, values[0], 0, *values[1:]]       # type: ignore[list-item]
        if len(words) > 0xFFFF:
            return None
        words[0] = (len(words) << 16) | layout.opcode
        return words
    words = [0]
    append = words.append
    for index, (code, value) in enumerate(zip(layout.codes, values)):
        if index + 1 == layout.result_at:
            append(0)
        kind = type(value)
        if kind is int:
            if code is _ID or code is _TYPE:
                if value <= 0:              # type: ignore[operator]
                    return None
                append(value)               # type: ignore[arg-type]
            elif code is _LITERAL or code is _EXT_INST:
                if not -(1 << 31) <= value < (1 << 32):  # type: ignore[operator]
                    return None
                append(value & 0xFFFFFFFF)  # type: ignore[operator]
            elif code is _STRING or code is _NUMBER:
                return None
            else:
                word = _enum_word(code, value)
                if word is None:
                    return None
                append(word)
        elif kind is str:
            if code is _STRING:
                string = _string_word_tuple(value)
                if string is None:
                    return None
                words.extend(string)
            elif code is _EXT_INST:
                try:
                    append(grammar.glsl_std_450(value))  # type: ignore[arg-type]
                except KeyError:
                    return None
            elif code in _CODES:
                return None
            else:
                word = _enum_word(code, value)
                if word is None:
                    return None
                append(word)
        elif (kind is tuple or kind is list) and code is not _TYPE:      # pre-encoded words
            words.extend(int(w) & 0xFFFFFFFF for w in value)  # type: ignore[union-attr]
        else:
            return None
    if layout.result_at == len(words):         # the result id is the last word (e.g. OpLabel)
        append(0)
    if len(words) > 0xFFFF:
        return None
    words[0] = (len(words) << 16) | layout.opcode
    return words


class Builder:
    """Builds one SPIR-V module; see the module docstring for the guarantees."""

    def __init__(self, version: tuple[int, int] = (1, 6), *, generator: int = 0,
                 names: bool = True) -> None:
        if version > grammar.version():
            raise ValueError(f"SPIR-V {version[0]}.{version[1]} is newer than the grammar "
                             f"({grammar.version()[0]}.{grammar.version()[1]})")
        self.version = version
        self.generator = generator
        self.emit_names = names          # False: name()/member_name() are no-ops
        self._next_id = 1
        self._capabilities: set[int] = set()
        self._extensions: set[str] = set()
        self._imports: dict[str, int] = {}
        self._memory_model = self._encode("OpMemoryModel", ["Logical", "GLSL450"])[0]
        self._entry_points: list[list[int]] = []
        self._modes: list[list[int]] = []
        self._debug: list[list[int]] = []
        self._names: list[list[int]] = []
        self._annotations: list[list[int]] = []
        self._annotation_keys: set[tuple[int, ...]] = set()
        self._id_decorations: list[tuple[int, tuple[int, ...], str]] = []
        self._globals: list[list[int]] = []
        self._global_pos: dict[int, int] = {}
        self._functions: list[list[int]] = []
        self._types: dict[tuple, int] = {}
        self._type_decl: dict[int, tuple] = {}
        self._constants: dict[tuple, int] = {}
        self._constant_ids: set[int] = set()
        self._int_constants: dict[tuple[int, int], int] = {}     # `constant`'s memo: (type, int) -> id
        # the open function: header words, local variables, blocks; and whether a block is open
        self._fn: list[list[int]] | None = None
        self._fn_vars: list[list[int]] = []
        self._fn_blocks: list[int] = []              # flat words, from the first OpLabel
        self._in_block = False

    # --- ids and encoding -------------------------------------------------------------------

    def new_id(self) -> int:
        """Reserve a fresh id (e.g. a forward-referenced label or phi operand)."""
        result = self._next_id
        self._next_id += 1
        return result

    @property
    def bound(self) -> int:
        return self._next_id

    def _encode(self, op_name: str, operands: Sequence[OperandValue],
                result: int | None = None) -> tuple[list[int], int]:
        """Encode one instruction; returns its words and its result id (allocated if needed; 0 for
        an instruction without one).

        The common case takes `_encode_simple` (one value per operand slot, no enumerant
        parameters); everything else, and every malformed call, the grammar walk below, which
        raises the errors. Both give the same words and allocate the same ids."""
        layout = _simple_layout(op_name, len(operands))
        if type(layout) is int:                 # an enum operand decides: ask with its value
            value = operands[layout]
            layout = _simple_layout(op_name, len(operands), value) \
                if type(value) is int or type(value) is str else None
        if isinstance(layout, _SimpleLayout) and (layout.needed is None or layout.needed <= self.version):
            words = _encode_simple(layout, operands)
            if words is not None:
                if layout.has_result:
                    result_id = self.new_id() if result is None else result
                    words[layout.result_at] = result_id
                    return words, result_id
                if result is None:
                    return words, 0
        return self._encode_walk(op_name, operands, result)

    def _encode_walk(self, op_name: str, operands: Sequence[OperandValue],
                     result: int | None = None) -> tuple[list[int], int]:
        """`_encode` by walking the grammar's operand kinds (every instruction and error)."""
        inst = grammar.instruction(op_name)
        needed = _parse_version(inst.version)
        if needed is not None and needed > self.version and not inst.extensions:
            raise ValueError(f"{op_name} needs SPIR-V {needed[0]}.{needed[1]}; the module is "
                             f"{self.version[0]}.{self.version[1]}")
        result_id = 0
        if inst.has_result:
            result_id = self.new_id() if result is None else result
        elif result is not None:
            raise ValueError(f"{op_name} has no result id")
        words = [0]
        values = list(operands)
        pos = 0
        slots = list(inst.operands)
        if slots and slots[0].kind == "IdResultType":
            if not values:
                raise ValueError(f"{op_name}: missing the result type")
            words.append(self._id(values[0], op_name))
            pos, slots = 1, slots[1:]
        if slots and slots[0].kind == "IdResult":
            words.append(result_id)
            slots = slots[1:]
        pos = self._encode_slots(inst, slots, values, pos, words)
        if pos != len(values):
            raise ValueError(f"{op_name}: {len(values) - pos} operand(s) too many: "
                             f"{values[pos:]!r}")
        if len(words) > 0xFFFF:
            raise ValueError(f"{op_name}: instruction longer than 65535 words")
        words[0] = (len(words) << 16) | inst.opcode
        return words, result_id

    def _encode_slots(self, inst: grammar.Instruction, slots: Iterable[grammar.Operand],
                      values: list, pos: int, out: list[int]) -> int:
        for slot in slots:
            if slot.quantifier is None:
                if pos >= len(values):
                    raise ValueError(f"{inst.name}: missing operand {slot.name or slot.kind}")
                pos = self._encode_one(inst, slot.kind, values, pos, out)
            elif slot.quantifier == "?":
                if pos < len(values):
                    pos = self._encode_one(inst, slot.kind, values, pos, out)
            else:
                while pos < len(values):
                    pos = self._encode_one(inst, slot.kind, values, pos, out)
        return pos

    def _encode_one(self, inst: grammar.Instruction, kind: str, values: list, pos: int,
                    out: list[int]) -> int:
        value = values[pos]
        if isinstance(value, (tuple, list)):          # pre-encoded words
            out.extend(int(w) & 0xFFFFFFFF for w in value)
            return pos + 1
        info = grammar.operand_kind(kind)
        if info.category == "Composite":
            for base in info.bases:
                if pos >= len(values):
                    raise ValueError(f"{inst.name}: incomplete {kind} operand")
                pos = self._encode_one(inst, base, values, pos, out)
            return pos
        if info.category == "Id":
            out.append(self._id(value, inst.name))
        elif kind == "LiteralString":
            if not isinstance(value, str):
                raise TypeError(f"{inst.name}: expected a str for {kind}, got {value!r}")
            out.extend(string_words(value))
        elif kind == "LiteralFloat":
            out.append(struct.unpack("<I", struct.pack("<f", value))[0])
        elif kind == "LiteralContextDependentNumber" and inst.name in ("OpConstant",
                                                                      "OpSpecConstant"):
            out.extend(self._number_words(values[0], value))
        elif kind == "LiteralExtInstInteger" and isinstance(value, str):
            out.append(grammar.glsl_std_450(value))
        elif kind == "LiteralSpecConstantOpInteger":     # then the operation's operands
            out.append(grammar.opcode(value) if isinstance(value, str) else value)
            rest = (grammar.Operand("LiteralInteger", "*", None),)
            return self._encode_slots(inst, rest, values, pos + 1, out)
        elif info.category in ("ValueEnum", "BitEnum"):
            number = self._enum_value(kind, value)
            out.append(number)
            # the enumerant's own operands follow it (for a bit enum: of each bit, low to high)
            bits = [number] if info.category == "ValueEnum" else \
                [1 << b for b in range(32) if number & (1 << b)]
            params = [p for bit in bits for p in grammar.enumerant_by_value(kind, bit).parameters]
            return self._encode_slots(inst, params, values, pos + 1, out)
        else:                                          # LiteralInteger and friends
            out.append(self._literal_int(value, inst.name))
        return pos + 1

    @staticmethod
    def _enum_value(kind: str, value: int | str) -> int:
        """An enum operand given by name ("A|B" for bit enums) or by value (checked)."""
        return _enum_number(kind, value)

    @staticmethod
    def _enum_lookup(kind: str, value: int | str) -> int:
        """`_enum_value` without the cache."""
        category = grammar.operand_kind(kind).category
        if isinstance(value, str):
            if category == "BitEnum":
                return grammar.mask(kind, *(n.strip() for n in value.split("|")))
            return grammar.enumerant(kind, value)
        if category == "ValueEnum":
            grammar.enumerant_by_value(kind, value)   # KeyError for an unknown value
        return int(value)

    @staticmethod
    def _id(value, op_name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise TypeError(f"{op_name}: expected an id (positive int), got {value!r}")
        return value

    @staticmethod
    def _literal_int(value, op_name: str) -> int:
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int) or not -(1 << 31) <= value < (1 << 32):
            raise TypeError(f"{op_name}: expected a 32-bit literal integer, got {value!r}")
        return value & 0xFFFFFFFF

    def _number_words(self, type_id: int, value: int | float) -> list[int]:
        """Literal words of an OpConstant/OpSpecConstant of the given scalar type."""
        decl = self._type_decl.get(type_id)
        if decl is None or decl[0] not in ("OpTypeInt", "OpTypeFloat"):
            raise ValueError(f"constant type %{type_id} is not a scalar int/float type")
        width = decl[1]
        if decl[0] == "OpTypeFloat":
            if width == 16:
                return [struct.unpack("<H", struct.pack("<e", value))[0]]
            if width == 32:
                return [struct.unpack("<I", struct.pack("<f", value))[0]]
            return list(struct.unpack("<2I", struct.pack("<d", value)))
        if not isinstance(value, int):
            raise TypeError(f"integer constant expected, got {value!r}")
        signed = decl[2] == 1
        low, high = (-(1 << (width - 1)), 1 << (width - 1)) if signed else (0, 1 << width)
        if not low <= value < high:
            raise ValueError(f"{value} does not fit {'' if signed else 'u'}int{width}")
        bits = value & ((1 << width) - 1)
        if width < 32 and signed and value < 0:       # narrow signed types are sign-extended
            bits |= 0xFFFFFFFF ^ ((1 << width) - 1)
        if width <= 32:
            return [bits & 0xFFFFFFFF]
        return [bits & 0xFFFFFFFF, (bits >> 32) & 0xFFFFFFFF]

    # --- module-level sections --------------------------------------------------------------

    def capability(self, *caps: int | str) -> None:
        for cap in caps:
            self._capabilities.add(self._enum_value("Capability", cap))

    def extension(self, *names: str) -> None:
        self._extensions.update(names)

    def ext_inst_import(self, name: str = "GLSL.std.450") -> int:
        """The id of an OpExtInstImport, created on first request."""
        if name not in self._imports:
            self._imports[name] = self.new_id()
        return self._imports[name]

    def memory_model(self, addressing: int | str = "Logical",
                     model: int | str = "GLSL450") -> None:
        self._memory_model = self._encode("OpMemoryModel", [addressing, model])[0]

    def entry_point(self, model: int | str, function: int, name: str,
                    interface: Iterable[int] = ()) -> None:
        self._entry_points.append(self._encode("OpEntryPoint",
                                               [model, function, name, *interface])[0])

    def execution_mode(self, entry: int, mode: int | str, *operands: OperandValue) -> None:
        """OpExecutionMode, or OpExecutionModeId when the mode's operands are ids."""
        op = "OpExecutionModeId" if _id_operand_form("ExecutionMode", mode)[1] else "OpExecutionMode"
        self._modes.append(self._encode(op, [entry, mode, *operands])[0])

    def move_execution_modes(self, entry: int, to: int) -> None:
        """The execution modes given so far to `entry` become `to`'s (an entry function that another
        function now wraps: `emulated_tail.wrap_entry`)."""
        for words in self._modes:
            if words[1] == entry:
                words[1] = to

    def string(self, text: str) -> int:
        """An OpString (debug section), e.g. a source file name."""
        words, result = self._encode("OpString", [text])
        self._debug.append(words)
        return result

    def debug(self, op_name: str, *operands: OperandValue) -> int:
        """Any other instruction of debug section 7a (OpSource, OpSourceExtension, ...)."""
        words, result = self._encode(op_name, operands)
        self._debug.append(words)
        return result

    def name(self, target: int, text: str) -> None:
        if self.emit_names:
            self._names.append(self._encode("OpName", [target, _debug_name(text)])[0])

    def member_name(self, struct_type: int, member: int, text: str) -> None:
        if self.emit_names:
            self._names.append(self._encode("OpMemberName", [struct_type, member, _debug_name(text)])[0])

    def _annotate(self, op_name: str, operands: list) -> None:
        words = self._encode(op_name, operands)[0]
        key = tuple(words)
        if key not in self._annotation_keys:        # identical decorations are written once
            self._annotation_keys.add(key)
            self._annotations.append(words)

    def decorate(self, target: int, decoration: int | str, *operands: OperandValue) -> None:
        """OpDecorate, or OpDecorateId when the decoration's operands are ids."""
        name, takes_ids = _id_operand_form("Decoration", decoration)
        if takes_ids:
            self._id_decorations.append((target, tuple(self._id(o, "OpDecorateId") for o in operands), name))
            self._annotate("OpDecorateId", [target, decoration, *operands])
        else:
            self._annotate("OpDecorate", [target, decoration, *operands])

    def member_decorate(self, struct_type: int, member: int, decoration: int | str,
                        *operands: OperandValue) -> None:
        self._annotate("OpMemberDecorate", [struct_type, member, decoration, *operands])

    # --- types, constants, global variables ---------------------------------------------------

    def global_instruction(self, op_name: str, *operands: OperandValue,
                           result: int | None = None) -> int:
        """Append any instruction to the types/constants/variables section (no deduplication);
        returns its result id, 0 for an instruction without one."""
        words, result_id = self._encode(op_name, operands, result)
        if result_id:
            self._global_pos[result_id] = len(self._globals)
        self._globals.append(words)
        return result_id

    def type(self, op_name: str, *operands: OperandValue, fresh: bool = False) -> int:
        """A type declaration, deduplicated by (opcode, operands) unless `fresh`."""
        key = (op_name, *operands)
        try:
            found = self._types.get(key)
        except TypeError:                  # a list operand: keyed as the tuple of its words
            key = (op_name, *(tuple(o) if isinstance(o, (list, tuple)) else o for o in operands))
            found = self._types.get(key)
        if found is not None and not fresh:
            return found
        result = self.global_instruction(op_name, *operands)
        self._type_decl[result] = key
        if not fresh:
            self._types[key] = result
        return result

    def type_declaration(self, type_id: int) -> tuple:
        """(op name, *operands) of a type made by this builder."""
        return self._type_decl[type_id]

    def type_void(self) -> int:
        return self.type("OpTypeVoid")

    def type_bool(self) -> int:
        return self.type("OpTypeBool")

    def type_int(self, width: int = 32, signed: bool = False) -> int:
        return self.type("OpTypeInt", width, 1 if signed else 0)

    def type_float(self, width: int = 32) -> int:
        return self.type("OpTypeFloat", width)

    def type_vector(self, component: int, count: int) -> int:
        return self.type("OpTypeVector", component, count)

    def type_matrix(self, column: int, columns: int) -> int:
        return self.type("OpTypeMatrix", column, columns)

    def type_array(self, element: int, length_id: int, *, fresh: bool = False) -> int:
        return self.type("OpTypeArray", element, length_id, fresh=fresh)

    def type_runtime_array(self, element: int, *, fresh: bool = False) -> int:
        return self.type("OpTypeRuntimeArray", element, fresh=fresh)

    def type_struct(self, members: Iterable[int], *, fresh: bool = False) -> int:
        """A struct type; pass fresh=True for one that gets its own decorations or names."""
        return self.type("OpTypeStruct", *members, fresh=fresh)

    def type_pointer(self, storage_class: int | str, pointee: int) -> int:
        return self.type("OpTypePointer", self._enum_value("StorageClass", storage_class),
                         pointee)

    def type_function(self, return_type: int, params: Iterable[int] = ()) -> int:
        return self.type("OpTypeFunction", return_type, *params)

    def type_node_payload_array(self, payload_type: int) -> int:
        """A new OpTypeNodePayloadArrayAMDX (never shared: each carries its own decorations).

        Create the node-name string and count constants of its OpDecorateId decorations first."""
        return self.type("OpTypeNodePayloadArrayAMDX", payload_type, fresh=True)

    def _constant(self, op_name: str, *operands: OperandValue) -> int:
        key = (op_name, *operands)
        if key not in self._constants:
            self._constants[key] = self.global_instruction(op_name, *operands)
            if op_name != "OpUndef":
                self._constant_ids.add(self._constants[key])
        return self._constants[key]

    def is_constant(self, value_id: int) -> bool:
        """Whether `value_id` is a constant this builder made (`constant` and its kin; not OpUndef)."""
        return value_id in self._constant_ids

    def constant(self, type_id: int, value: int | float | bool) -> int:
        """A scalar constant of a bool, int or float type made by this builder."""
        if type(value) is int:             # the common case, asked for hundreds of times a compile
            found = self._int_constants.get((type_id, value))
            if found is None:
                found = self._int_constants[(type_id, value)] = self._new_constant(type_id, value)
            return found
        return self._new_constant(type_id, value)

    def _new_constant(self, type_id: int, value: int | float | bool) -> int:
        """`constant` without the memo of int values (a float's key would make -0.0 and 0.0 one)."""
        if self._type_decl.get(type_id, ("",))[0] == "OpTypeBool":
            return self.constant_bool(bool(value))
        words = tuple(self._number_words(type_id, value))
        return self._constant("OpConstant", type_id, words)

    def constant_bool(self, value: bool) -> int:
        return self._constant("OpConstantTrue" if value else "OpConstantFalse", self.type_bool())

    def constant_uint(self, value: int, width: int = 32) -> int:
        return self.constant(self.type_int(width, False), value)

    def constant_int(self, value: int, width: int = 32) -> int:
        return self.constant(self.type_int(width, True), value)

    def constant_float(self, value: float, width: int = 32) -> int:
        return self.constant(self.type_float(width), float(value))

    def constant_composite(self, type_id: int, constituents: Iterable[int]) -> int:
        return self._constant("OpConstantComposite", type_id, *constituents)

    def constant_null(self, type_id: int) -> int:
        return self._constant("OpConstantNull", type_id)

    def constant_string_amdx(self, text: str) -> int:
        """OpConstantStringAMDX (a node name), one per distinct string."""
        return self._constant("OpConstantStringAMDX", text)

    def undef(self, type_id: int) -> int:
        return self._constant("OpUndef", type_id)

    def variable(self, pointer_type: int, storage_class: int | str,
                 initializer: int | None = None) -> int:
        """A module-scope OpVariable (its storage class must match the pointer type's)."""
        sc = self._enum_value("StorageClass", storage_class)
        decl = self._type_decl.get(pointer_type)
        if decl is not None and (decl[0] != "OpTypePointer" or decl[1] != sc):
            raise ValueError(f"%{pointer_type} is not a pointer type of storage class "
                             f"{storage_class}")
        extra = () if initializer is None else (initializer,)
        return self.global_instruction("OpVariable", pointer_type, sc, *extra)

    # --- functions ----------------------------------------------------------------------------

    def begin_function(self, result_type: int, function_type: int,
                       control: int | str = 0, result: int | None = None) -> int:
        """Open a function (with a reserved id, if given, e.g. one already called)."""
        if self._fn is not None:
            raise RuntimeError("begin_function: a function is already open")
        words, result = self._encode("OpFunction", [result_type, control, function_type], result)
        self._fn, self._fn_vars, self._fn_blocks, self._in_block = [words], [], [], False
        return result

    def parameter(self, type_id: int) -> int:
        if self._fn is None or self._fn_blocks:
            raise RuntimeError("parameter: only between begin_function and the first label")
        words, result = self._encode("OpFunctionParameter", [type_id])
        self._fn.append(words)
        return result

    def label(self, label_id: int | None = None) -> int:
        """Start a new block (with a reserved id, if given); the previous one must be closed."""
        if self._fn is None:
            raise RuntimeError("label: no open function")
        if self._in_block:
            raise RuntimeError("label: the current block has no terminator")
        words, result = self._encode("OpLabel", [], label_id)
        self._fn_blocks.extend(words)
        self._in_block = True
        return result

    @property
    def in_block(self) -> bool:
        """Whether a block is open (labelled and not yet terminated)."""
        return self._in_block

    def emit(self, op_name: str, *operands: OperandValue, result: int | None = None) -> int:
        """Append an instruction to the current block; returns its result id, 0 for an instruction
        without one (0 is never an id: passing it on as an operand raises TypeError).

        Operands follow the grammar, without the result id (give `result=` to use a reserved
        one): result type first where there is one, e.g. emit("OpIAdd", uint, a, b)."""
        if not self._in_block:
            raise RuntimeError(f"emit {op_name}: no open block (call label() first)")
        fast = _IDS_ONLY.get((op_name, len(operands)))
        if fast is not None and (result is None or fast[1]) and (fast[2] is None or fast[2] <= self.version):
            for value in operands:
                if type(value) is not int or value <= 0:
                    break
            else:                           # `_encode_simple`'s words, straight into the block
                opcode, at, _needed, ends = fast
                ids: tuple[int, ...] = operands          # type: ignore[assignment]   # checked above
                header = ((len(ids) + (2 if at else 1)) << 16) | opcode
                if at == 0:
                    result_id = 0
                    self._fn_blocks += (header, *ids)
                else:
                    result_id = self.new_id() if result is None else result
                    if at == 1:
                        self._fn_blocks += (header, result_id, *ids)
                    else:
                        self._fn_blocks += (header, ids[0], result_id, *ids[1:])
                if ends:
                    self._in_block = False
                return result_id
        if op_name not in _BODY_INSTRUCTIONS:
            if grammar.instruction(op_name).category in _MODULE_CLASSES:
                raise ValueError(f"{op_name} belongs to a module section, not a function body")
            if op_name in _DEDICATED:
                raise ValueError(f"emit {op_name}: use Builder.{_DEDICATED[op_name]}()")
            _BODY_INSTRUCTIONS.add(op_name)
        words, result_id = self._encode(op_name, operands, result)
        self._fn_blocks.extend(words)
        if op_name in _TERMINATORS:
            self._in_block = False
        if (op_name, len(operands)) not in _IDS_ONLY:
            layout = _simple_layout(op_name, len(operands))
            if isinstance(layout, _SimpleLayout) and layout.only_ids and len(operands) < 0xFF00:
                _IDS_ONLY[(op_name, len(operands))] = (layout.opcode, layout.result_at, layout.needed,
                                                       op_name in _TERMINATORS)
        return result_id

    def ext_inst(self, result_type: int, name: str, *args: int) -> int:
        """A GLSL.std.450 extended instruction in the current block (imports the set on demand)."""
        return self.emit("OpExtInst", result_type, self.ext_inst_import("GLSL.std.450"),
                         grammar.glsl_std_450(name), *args)

    def local_variable(self, pointer_type: int, initializer: int | None = None) -> int:
        """A Function-storage OpVariable, placed at the start of the function's first block."""
        if self._fn is None:
            raise RuntimeError("local_variable: no open function")
        extra = () if initializer is None else (initializer,)
        words, result = self._encode("OpVariable", [pointer_type, "Function", *extra])
        self._fn_vars.append(words)
        return result

    def end_function(self) -> None:
        if self._fn is None:
            raise RuntimeError("end_function: no open function")
        if self._in_block:
            raise RuntimeError("end_function: the last block has no terminator")
        if self._fn_blocks:
            first_label = self._fn_blocks[:2]         # OpLabel is always 2 words
            body = [*first_label, *(w for v in self._fn_vars for w in v), *self._fn_blocks[2:]]
        elif self._fn_vars:
            raise RuntimeError("end_function: local variables in a function without a body")
        else:
            body = []
        self._functions.append([w for ws in self._fn for w in ws] + body
                               + self._encode("OpFunctionEnd", [])[0])
        self._fn = None

    # --- output -------------------------------------------------------------------------------

    def _check(self) -> None:
        if self._fn is not None:
            raise RuntimeError("to_words: a function is still open")
        amdx = grammar.enumerant("Capability", "ShaderEnqueueAMDX")
        if amdx in self._capabilities and self.version < AMDX_MIN_VERSION:
            raise ValueError("SPV_AMDX_shader_enqueue requires SPIR-V 1.4 or newer; the module "
                             f"is {self.version[0]}.{self.version[1]}")
        for target, ids, name in self._id_decorations:
            where = self._global_pos.get(target)
            for ref in ids:
                if where is not None and self._global_pos.get(ref, -1) > where:
                    raise ValueError(f"OpDecorateId %{target} {name}: operand %{ref} is defined "
                                     "after the target; create it first")

    def to_words(self) -> list[int]:
        self._check()
        out = [grammar.magic_number(), (self.version[0] << 16) | (self.version[1] << 8),
               self.generator, self._next_id, 0]
        for cap in sorted(self._capabilities):
            out += self._encode("OpCapability", [cap])[0]
        for ext in sorted(self._extensions):
            out += self._encode("OpExtension", [ext])[0]
        for name, ident in self._imports.items():
            out += self._encode("OpExtInstImport", [name], ident)[0]
        out += self._memory_model
        for section in (self._entry_points, self._modes, self._debug, self._names,
                        self._annotations, self._globals):
            for words in section:
                out += words
        for words in self._functions:
            out += words
        return out

    def to_bytes(self) -> bytes:
        words = self.to_words()
        return struct.pack(f"<{len(words)}I", *words)
