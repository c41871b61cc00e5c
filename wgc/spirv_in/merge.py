"""Merging translated modules into one (SPIR-V input stage, after `translate.py`).

Stage:  spirv_in, for a graph of several AMDX modules (`--split-nodes`, AMD's samples): each is
        translated alone, the runtime wants one module holding every node's entry point.
Input:  translated modules (bytes, each valid on its own) with their names, and the entry points
        each one's nodes use.
Output: `merge(modules) -> (bytes, renamed)`: one module; `renamed[(module index, entry point)]`
        is the entry point's name in it (the name itself where no other module has it, else
        "<module name>:<entry point>").
Invariants: each module's ids are moved past the previous ones'; non-aggregate, non-pointer types
(which SPIR-V allows once per module) are declared once and every use points at that one;
capabilities, extensions and extended-instruction imports are united; the memory model is the
contract's (every input has it); nothing else is changed, so each entry point means what it meant
in its own module.
"""

from __future__ import annotations

import struct

from wgc.spirv import grammar

from .reader import Instruction, read_module

_UNIQUE_TYPES = ("OpTypeVoid", "OpTypeBool", "OpTypeInt", "OpTypeFloat", "OpTypeVector", "OpTypeMatrix",
                 "OpTypeImage", "OpTypeSampler", "OpTypeSampledImage", "OpTypeFunction",
                 "OpTypeAccelerationStructureKHR", "OpTypeRayQueryKHR")


def _remapped(inst: Instruction, ids: dict[int, int]) -> list[int]:
    """The instruction's words with every id (result, result type, operands) mapped by `ids`."""
    info = grammar.instruction_by_opcode(inst.opcode)
    words = list(inst.words)
    at = 1
    id_positions = []
    for spec in info.operands:
        if spec.kind in ("IdResultType", "IdResult"):
            id_positions.append(at)
            at += 1
    for op in inst.operands:
        width = _width(op)
        if op.kind in ("IdRef", "IdScope", "IdMemorySemantics"):
            id_positions.append(at)
        elif op.kind == "PairIdRefIdRef":
            id_positions += [at, at + 1]
        elif op.kind == "PairIdRefLiteralInteger":
            id_positions.append(at)
        elif op.kind == "PairLiteralIntegerIdRef":
            id_positions.append(at + 1)
        at += width
    for position in id_positions:
        words[position] = ids[words[position]]
    return words


def _width(op) -> int:
    if isinstance(op.value, str):
        return len(op.value.encode("utf-8")) // 4 + 1
    if isinstance(op.value, tuple):
        return len(op.value)
    return 1


def merge(modules: list[tuple[str, bytes]]) -> tuple[bytes, dict[tuple[int, str], str]]:
    """One module of `modules` (module docstring)."""
    read = [read_module(data, name) for name, data in modules]
    counts: dict[str, int] = {}
    for m in read:
        for e in m.entry_points:
            counts[e.name] = counts.get(e.name, 0) + 1
    renamed = {(k, e.name): (e.name if counts[e.name] == 1 else f"{m.name}:{e.name}")
               for k, m in enumerate(read) for e in m.entry_points}
    caps: list[list[int]] = []
    exts: list[list[int]] = []
    imports: dict[str, int] = {}
    sections: dict[str, list[int]] = {k: [] for k in ("entry", "mode", "source", "name", "processed", "annotation",
                                                      "global", "function")}
    types: dict[tuple, int] = {}
    next_id = 1
    memory_model: list[int] = []
    for k, m in enumerate(read):
        ids = {i: next_id + i - 1 for i in range(1, m.bound)}
        next_id += m.bound - 1
        dropped: set[int] = set()
        for inst in m.instructions:          # first: the ids that become another module's
            if inst.opname == "OpExtInstImport":
                if inst.literal(0) in imports:
                    ids[inst.result or 0] = imports[inst.literal(0)]
                    dropped.add(inst.result or 0)
                else:
                    imports[inst.literal(0)] = ids[inst.result or 0]
            elif inst.opname in _UNIQUE_TYPES:
                words = _remapped(inst, ids)
                key = (words[0], *words[2:])
                if key in types:
                    ids[inst.result or 0] = types[key]
                    dropped.add(inst.result or 0)
                else:
                    types[key] = words[1]
        in_functions = False
        for inst in m.instructions:
            name = inst.opname
            if name == "OpFunction":
                in_functions = True
            if in_functions:
                sections["function"] += _remapped(inst, ids)
                continue
            if inst.result in dropped or name == "OpExtInstImport":
                continue
            if name == "OpCapability":
                if list(inst.words) not in caps:
                    caps.append(list(inst.words))
            elif name == "OpExtension":
                if list(inst.words) not in exts:
                    exts.append(list(inst.words))
            elif name == "OpMemoryModel":
                memory_model = list(inst.words)
            elif name == "OpEntryPoint":
                words = _remapped(inst, ids)
                new_name = renamed[(k, inst.literal(2))]
                text = new_name.encode("utf-8") + b"\0"
                text += b"\0" * (-len(text) % 4)
                name_words = list(struct.unpack(f"<{len(text) // 4}I", text))
                old = len(inst.literal(2).encode("utf-8")) // 4 + 1
                words = words[:3] + name_words + words[3 + old:]
                words[0] = (len(words) << 16) | inst.opcode
                sections["entry"] += words
            elif name in ("OpExecutionMode", "OpExecutionModeId"):
                sections["mode"] += _remapped(inst, ids)
            elif name in ("OpName", "OpMemberName"):
                sections["name"] += _remapped(inst, ids)
            elif name == "OpModuleProcessed":
                sections["processed"] += _remapped(inst, ids)
            elif grammar.instruction_by_opcode(inst.opcode).category == "Debug":   # strings and sources
                sections["source"] += _remapped(inst, ids)
            elif grammar.instruction_by_opcode(inst.opcode).category == "Annotation":
                sections["annotation"] += _remapped(inst, ids)
            else:
                sections["global"] += _remapped(inst, ids)
    out = [grammar.magic_number(), (1 << 16) | (6 << 8), 0, next_id, 0]
    for words in caps + exts:
        out += words
    for import_name, id_ in imports.items():
        raw = import_name.encode("utf-8") + b"\0"
        raw += b"\0" * (-len(raw) % 4)
        body = list(struct.unpack(f"<{len(raw) // 4}I", raw))
        out += [((2 + len(body)) << 16) | grammar.opcode("OpExtInstImport"), id_, *body]
    out += memory_model
    for section in ("entry", "mode", "source", "name", "processed", "annotation", "global", "function"):
        out += sections[section]
    return struct.pack(f"<{len(out)}I", *out), renamed

