"""Reading SPIR-V binaries: words -> instructions with decoded operands (SPIR-V input stage).

Stage:  spirv_in, the first step of running an AMDX module (`graph.py`, `translate.py` follow).
Input:  the bytes of a SPIR-V module (any producer: wgc, DXC's "Google spiregg", ...).
Output: `read_module(data, name) -> Module`: its header, its instructions in order (each with its
        operands decoded by the grammar JSON of `wgc.spirv.grammar`: kinds, enumerant names, the
        parameters of enumerants, literal strings), and lookups built from them: names and member
        names, decorations (OpDecorate, OpDecorateId, OpMemberDecorate), definitions by result id,
        integer constants and specialization constants (with their SpecId), entry points and
        execution modes.
Invariants: no opcode, enumerant or operand layout is typed here (all come from the grammar);
        a malformed module raises `ModuleError` naming the word offset, never another exception;
        `Instruction.words` are the instruction's words exactly as read (a translator copies them).
"""

from __future__ import annotations

import struct
from typing import Any

from wgc.cached_dataclass import dataclass, field
from wgc.spirv import grammar


class ModuleError(ValueError):
    """The bytes are not a SPIR-V module wgc can read (the message says where and why)."""


@dataclass(frozen=True)
class Operand:
    kind: str
    """The grammar's operand kind ("IdRef", "LiteralInteger", "Decoration", ...)."""
    value: Any
    """An int (ids, literals, enumerant values, masks), a str (LiteralString), or a tuple of ints
    (LiteralContextDependentNumber words, composite pairs)."""
    name: str | None = None
    """The enumerant's name for enumerant kinds."""


@dataclass
class Instruction:
    opname: str
    opcode: int
    words: tuple[int, ...]
    offset: int
    """Word offset in the module (the header is words 0-4)."""
    operands: list[Operand]
    result_type: int | None = None
    result: int | None = None

    def ids(self) -> list[int]:
        """Every id operand (result type and result excluded)."""
        out = []
        for op in self.operands:
            if op.kind in _ID_KINDS:
                out.append(op.value)
            elif op.kind in ("PairIdRefIdRef",):
                out.extend(op.value)
            elif op.kind == "PairIdRefLiteralInteger":
                out.append(op.value[0])
            elif op.kind == "PairLiteralIntegerIdRef":
                out.append(op.value[1])
        return out

    def literal(self, i: int) -> Any:
        return self.operands[i].value


_ID_KINDS = ("IdRef", "IdScope", "IdMemorySemantics")


@dataclass
class EntryPoint:
    model: str
    function: int
    name: str
    interface: tuple[int, ...]
    instruction: Instruction


@dataclass
class Module:
    name: str
    """The file (or what stands for it) in messages."""
    version: tuple[int, int]
    generator: int
    bound: int
    instructions: list[Instruction]
    defs: dict[int, Instruction] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    member_names: dict[tuple[int, int], str] = field(default_factory=dict)
    decorations: dict[int, list[Instruction]] = field(default_factory=dict)
    """target id -> its OpDecorate / OpDecorateId instructions."""
    member_decorations: dict[tuple[int, int], list[Instruction]] = field(default_factory=dict)
    entry_points: list[EntryPoint] = field(default_factory=list)
    execution_modes: dict[int, list[Instruction]] = field(default_factory=dict)
    """function id -> OpExecutionMode / OpExecutionModeId."""
    functions: dict[int, list[Instruction]] = field(default_factory=dict)
    """function id -> its instructions, OpFunction to OpFunctionEnd."""
    specialization: dict[int, int] = field(default_factory=dict)
    """SpecId -> the value the application gives it (`constant` reads it instead of the default)."""

    def where(self, inst: Instruction) -> str:
        """'<file>: word N (OpX)': where an instruction is, for messages."""
        return f"{self.name}: word {inst.offset} ({inst.opname})"

    def decoration(self, target: int, name: str) -> Instruction | None:
        for inst in self.decorations.get(target, ()):
            if inst.operands[1].name == name:
                return inst
        return None

    def member_decoration(self, target: int, member: int, name: str) -> Instruction | None:
        for inst in self.member_decorations.get((target, member), ()):
            if inst.operands[2].name == name:
                return inst
        return None

    def constant(self, id_: int) -> int | None:
        """The value of an integer or boolean OpConstant/OpSpecConstant (a specialization constant's
        value in `specialization`, else its default), else None."""
        inst = self.defs.get(id_)
        if inst is None:
            return None
        if inst.opname in ("OpSpecConstantTrue", "OpSpecConstantFalse") and self.spec_id(id_) in self.specialization:
            return 1 if self.specialization[self.spec_id(id_)] else 0  # type: ignore[index]
        if inst.opname in ("OpConstantTrue", "OpSpecConstantTrue"):
            return 1
        if inst.opname in ("OpConstantFalse", "OpSpecConstantFalse"):
            return 0
        if inst.opname == "OpSpecConstantOp":
            return self._spec_op(inst)
        if inst.opname in ("OpConstant", "OpSpecConstant"):
            if inst.opname == "OpSpecConstant" and self.spec_id(id_) in self.specialization:
                return self.specialization[self.spec_id(id_)]  # type: ignore[index]
            type_ = self.defs.get(inst.result_type or 0)
            if type_ is None or type_.opname != "OpTypeInt":
                return None
            words = inst.operands[0].value
            value = words[0] | (words[1] << 32 if len(words) > 1 else 0)
            bits = type_.literal(0)
            if type_.literal(1) and value >= 1 << (bits - 1):
                value -= 1 << bits
            return value
        return None

    def _spec_op(self, inst: Instruction) -> int | None:
        """An integer or boolean OpSpecConstantOp of the arithmetic the compilers use for attribute
        arguments (booleans are 0 or 1; comparisons read their operands unsigned)."""
        op = grammar.instruction_by_opcode(inst.operands[0].value).name
        args = [self.constant(o.value) for o in inst.operands[1:]]
        a = [arg for arg in args if arg is not None]
        if len(a) != len(args):
            return None
        a += [0, 0]
        type_ = self.defs.get(inst.result_type or 0)
        bits = type_.literal(0) if type_ is not None and type_.opname == "OpTypeInt" else 32
        u = [x & 0xFFFFFFFFFFFFFFFF for x in a]
        ops = {"OpIAdd": lambda: a[0] + a[1], "OpISub": lambda: a[0] - a[1], "OpIMul": lambda: a[0] * a[1],
               "OpUDiv": lambda: a[0] // a[1] if a[1] else None, "OpSConvert": lambda: a[0],
               "OpUConvert": lambda: a[0], "OpSelect": lambda: a[1] if a[0] else a[2],
               "OpShiftLeftLogical": lambda: a[0] << a[1], "OpShiftRightLogical": lambda: a[0] >> a[1],
               "OpBitwiseOr": lambda: a[0] | a[1], "OpBitwiseAnd": lambda: a[0] & a[1],
               "OpLogicalNot": lambda: int(not a[0]), "OpLogicalAnd": lambda: int(bool(a[0] and a[1])),
               "OpLogicalOr": lambda: int(bool(a[0] or a[1])), "OpLogicalEqual": lambda: int(bool(a[0]) == bool(a[1])),
               "OpLogicalNotEqual": lambda: int(bool(a[0]) != bool(a[1])),
               "OpIEqual": lambda: int(u[0] == u[1]), "OpINotEqual": lambda: int(u[0] != u[1]),
               "OpULessThan": lambda: int(u[0] < u[1]), "OpUGreaterThan": lambda: int(u[0] > u[1]),
               "OpULessThanEqual": lambda: int(u[0] <= u[1]), "OpUGreaterThanEqual": lambda: int(u[0] >= u[1])}
        if op not in ops:
            return None
        value = ops[op]()
        return None if value is None else value & ((1 << bits) - 1)

    def string(self, id_: int) -> str | None:
        """The text of an OpConstantStringAMDX / OpSpecConstantStringAMDX (its default)."""
        inst = self.defs.get(id_)
        if inst is not None and inst.opname in ("OpConstantStringAMDX", "OpSpecConstantStringAMDX"):
            return inst.operands[0].value
        return None

    def spec_id(self, id_: int) -> int | None:
        inst = self.decoration(id_, "SpecId")
        return inst.operands[2].value if inst is not None else None


def _string(words: tuple[int, ...], at: int, end: int, where: int) -> tuple[str, int]:
    raw = b"".join(struct.pack("<I", w) for w in words[at:end])
    nul = raw.find(b"\0")
    if nul < 0:
        raise ModuleError(f"word {where}: a literal string without its terminating NUL")
    try:
        text = raw[:nul].decode("utf-8")
    except UnicodeDecodeError:
        raise ModuleError(f"word {where}: a literal string that is not UTF-8") from None
    return text, at + nul // 4 + 1


class _Decoder:
    def __init__(self, words: tuple[int, ...], offset: int) -> None:
        self.words, self.at, self.offset = words, 1, offset
        self.out: list[Operand] = []

    def more(self) -> bool:
        return self.at < len(self.words)

    def word(self) -> int:
        if self.at >= len(self.words):
            raise ModuleError(f"word {self.offset}: the instruction ends before its operands do")
        self.at += 1
        return self.words[self.at - 1]

    def operand(self, kind: str, context_words: int | None) -> None:
        if kind in ("IdResult", "IdResultType"):
            self.out.append(Operand(kind, self.word()))
            return
        if kind == "LiteralString":
            text, self.at = _string(self.words, self.at, len(self.words), self.offset)
            self.out.append(Operand(kind, text))
            return
        if kind == "LiteralContextDependentNumber":
            count = context_words if context_words is not None else len(self.words) - self.at
            self.out.append(Operand(kind, tuple(self.word() for _ in range(count))))
            return
        info = grammar.operand_kind(kind)
        if info.category == "Composite":
            self.out.append(Operand(kind, tuple(self.word() for _ in info.bases)))
            return
        if info.category in ("Id", "Literal"):
            self.out.append(Operand(kind, self.word()))
            return
        value = self.word()
        if info.category == "ValueEnum":
            enum = info.by_value.get(value)
            self.out.append(Operand(kind, value, enum.name if enum is not None else None))
            for param in (enum.parameters if enum is not None else ()):
                self.operand(param.kind, None)
            return
        # BitEnum: the parameters of each set bit, lowest bit first
        names = [e for v, e in sorted(info.by_value.items()) if v and value & v == v]
        self.out.append(Operand(kind, value, "|".join(e.name for e in names) or "None"))
        for enum in names:
            for param in enum.parameters:
                self.operand(param.kind, None)


def read_module(data: bytes, name: str = "<module>") -> Module:
    """Decode a SPIR-V binary (see the module docstring); a `ModuleError`'s message starts with `name`."""
    try:
        return _read(data, name)
    except ModuleError as problem:
        raise ModuleError(f"{name}: {problem}") from None


def _read(data: bytes, name: str) -> Module:
    if len(data) % 4 or len(data) < 20:
        raise ModuleError(f"{len(data)} bytes is not a SPIR-V module (a whole number of words, at least 5)")
    words = struct.unpack(f"<{len(data) // 4}I", data)
    if words[0] != grammar.magic_number():
        if struct.unpack(">I", data[:4])[0] == grammar.magic_number():
            words = struct.unpack(f">{len(data) // 4}I", data)
        else:
            raise ModuleError("not a SPIR-V module (no magic number)")
    version = ((words[1] >> 16) & 0xFF, (words[1] >> 8) & 0xFF)
    module = Module(name=name, version=version, generator=words[2], bound=words[3], instructions=[])
    at = 5
    current: list[Instruction] | None = None
    while at < len(words):
        count, code = words[at] >> 16, words[at] & 0xFFFF
        if count == 0 or at + count > len(words):
            raise ModuleError(f"word {at}: an instruction of {count} words past the end of the module")
        try:
            info = grammar.instruction_by_opcode(code)
        except KeyError:
            raise ModuleError(f"word {at}: unknown opcode {code}") from None
        inst_words = tuple(words[at:at + count])
        inst = _decode(module, info, inst_words, at)
        module.instructions.append(inst)
        _index(module, inst)
        if inst.opname == "OpFunction":
            current = module.functions.setdefault(inst.result or 0, [])
        if current is not None:
            current.append(inst)
        if inst.opname == "OpFunctionEnd":
            current = None
        at += count
    for inst in module.instructions:    # every id used is defined (forward references allowed)
        if inst.opname in ("OpName", "OpMemberName", "OpDecorate", "OpMemberDecorate", "OpDecorateId",
                           "OpDecorateString", "OpMemberDecorateString"):
            continue
        used = ([inst.result_type] if inst.result_type is not None else []) + inst.ids()
        for id_ in used:
            if id_ not in module.defs:
                raise ModuleError(f"word {inst.offset}: {inst.opname} uses id {id_}, which nothing defines")
    return module


def _decode(module: Module, info: grammar.Instruction, words: tuple[int, ...], at: int) -> Instruction:
    decoder = _Decoder(words, at)
    result_type = result = None
    context_words = None
    for spec in info.operands:
        if spec.quantifier == "*":
            while decoder.more():
                decoder.operand(spec.kind, None)
            continue
        if spec.quantifier == "?" and not decoder.more():
            continue
        if spec.kind == "LiteralContextDependentNumber" and result_type is not None:
            type_ = module.defs.get(result_type)
            if type_ is not None and type_.opname in ("OpTypeInt", "OpTypeFloat"):
                context_words = (type_.literal(0) + 31) // 32
        decoder.operand(spec.kind, context_words)
        last = decoder.out[-1]
        if last.kind == "IdResultType":
            result_type = last.value
        elif last.kind == "IdResult":
            result = last.value
    if info.name == "OpSpecConstantOp" and decoder.out and decoder.out[-1].kind == "LiteralSpecConstantOpInteger":
        try:   # the operands of the operation it names, as that instruction decodes them
            inner = grammar.instruction_by_opcode(decoder.out[-1].value)
        except KeyError:
            raise ModuleError(f"word {at}: OpSpecConstantOp of unknown opcode {decoder.out[-1].value}") from None
        for spec in inner.operands:
            if spec.kind in ("IdResult", "IdResultType") or (spec.quantifier == "?" and not decoder.more()):
                continue
            if spec.quantifier == "*":
                while decoder.more():
                    decoder.operand(spec.kind, None)
                continue
            decoder.operand(spec.kind, None)
    if decoder.more():
        raise ModuleError(f"word {at}: {info.name} has {len(words) - decoder.at} words beyond its operands")
    operands = [op for op in decoder.out if op.kind not in ("IdResult", "IdResultType")]
    return Instruction(info.name, info.opcode, words, at, operands, result_type, result)


def _index(module: Module, inst: Instruction) -> None:
    name = inst.opname
    if inst.result is not None:
        module.defs[inst.result] = inst
    if name == "OpName":
        module.names[inst.literal(0)] = inst.literal(1)
    elif name == "OpMemberName":
        module.member_names[(inst.literal(0), inst.literal(1))] = inst.literal(2)
    elif name in ("OpDecorate", "OpDecorateId", "OpDecorateString"):
        module.decorations.setdefault(inst.literal(0), []).append(inst)
    elif name in ("OpMemberDecorate", "OpMemberDecorateString"):
        module.member_decorations.setdefault((inst.literal(0), inst.literal(1)), []).append(inst)
    elif name == "OpEntryPoint":
        module.entry_points.append(EntryPoint(inst.operands[0].name or "?", inst.literal(1), inst.literal(2),
                                              tuple(op.value for op in inst.operands[3:]), inst))
    elif name in ("OpExecutionMode", "OpExecutionModeId"):
        module.execution_modes.setdefault(inst.literal(0), []).append(inst)


def execution_mode(module: Module, function: int, mode: str) -> Instruction | None:
    for inst in module.execution_modes.get(function, ()):
        if inst.operands[1].name == mode:
            return inst
    return None
