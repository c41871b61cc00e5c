"""pack_*/unpack_* and the int8_t4_packed/uint8_t4_packed types (SM 6.6) in SPIR-V.

The emitted instructions are evaluated here by a small interpreter of the straight-line SPIR-V they
use (the opcodes' meaning from the SPIR-V and GLSL.std.450 specifications), and the stored values
are compared with the HLSL definitions computed in Python: byte i of the packed uint is component
i; pack keeps the low 8 bits, pack_clamp clamps to [0, 255] / [-128, 127] first; unpack
zero-extends (u8) or sign-extends (s8) each byte.
"""

from __future__ import annotations

import re

import pytest

from spirv_util import compile_hlsl
from wgc import driver
from wgc.diagnostics import Renderer

HEAD = ("RWStructuredBuffer<uint> o : register(u0);\n"
        "RWStructuredBuffer<int4> s : register(u1);\n"
        '[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]\n'
        "void main(uint i : SV_DispatchThreadID) {\n")


def _signed(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


class _Evaluator:
    """Values of the SSA ids of straight-line 32-bit integer SPIR-V (disassembled, friendly names)."""

    def __init__(self, asm: str) -> None:
        self.defs: dict[str, tuple[str, list[str]]] = {}
        self.stores: list[tuple[str, str]] = []
        for line in asm.splitlines():
            words = line.split()
            if len(words) >= 3 and words[1] == "=":
                self.defs[words[0]] = (words[2], words[3:])
            elif words[:1] == ["OpStore"]:
                self.stores.append((words[1], words[2]))
        self.memo: dict[str, object] = {}

    def value(self, name: str) -> object:
        if name not in self.memo:
            self.memo[name] = self._compute(name)
        return self.memo[name]

    def _compute(self, name: str) -> object:
        op, args = self.defs[name]
        if op == "OpConstant":
            return int(args[1]) & 0xFFFFFFFF
        if op in ("OpConstantComposite", "OpCompositeConstruct"):
            return [self.value(a) for a in args[1:]]
        if op == "OpCompositeExtract":
            return self.value(args[1])[int(args[2])]  # type: ignore[index]
        if op == "OpBitcast":
            return self.value(args[1])
        if op == "OpBitwiseAnd":
            return self.value(args[1]) & self.value(args[2])  # type: ignore[operator]
        if op == "OpBitFieldInsert":
            base, insert, offset, count = (self.value(a) for a in args[1:5])
            mask = ((1 << count) - 1) << offset  # type: ignore[operator]
            return (base & ~mask | (insert << offset) & mask) & 0xFFFFFFFF  # type: ignore[operator]
        if op in ("OpBitFieldUExtract", "OpBitFieldSExtract"):
            base, offset, count = (self.value(a) for a in args[1:4])
            field = (base >> offset) & ((1 << count) - 1)  # type: ignore[operator]
            if op == "OpBitFieldSExtract" and field >> (count - 1):  # type: ignore[operator]
                field -= 1 << count  # type: ignore[operator]
            return field & 0xFFFFFFFF
        if op == "OpExtInst" and args[2] == "SClamp":
            x, low, high = (self.value(a) for a in args[3:6])
            return [_signed(max(_signed(lo), min(_signed(hi), _signed(v)))) & 0xFFFFFFFF
                    for v, lo, hi in zip(x, low, high)]  # type: ignore[call-overload]
        if op == "OpLoad":   # of a local stored once (straight-line code)
            [stored] = [value for pointer, value in self.stores if pointer == args[1]]
            return self.value(stored)
        raise AssertionError(f"the evaluator does not know {op} ({name})")

    def stored(self, buffer: str) -> dict[int, object]:
        """Index -> value of each store into element `[index]` of the structured buffer `buffer`."""
        found = {}
        for pointer, value in self.stores:
            op, args = self.defs.get(pointer, ("", []))
            if op == "OpAccessChain" and args[1] == buffer:
                found[self.value(args[3])] = self.value(value)
        return found


def _pack(values: list[int], clamp: tuple[int, int] | None = None) -> int:
    if clamp:
        values = [max(clamp[0], min(clamp[1], v)) for v in values]
    return sum((v & 0xFF) << (8 * i) for i, v in enumerate(values))


def _unpack(packed: int, signed: bool) -> list[int]:
    out = []
    for i in range(4):
        byte = (packed >> (8 * i)) & 0xFF
        out.append((byte - 256 if signed and byte & 0x80 else byte) & 0xFFFFFFFF)
    return out


def test_pack_and_unpack_compute_the_hlsl_values(tmp_path) -> None:
    module = compile_hlsl(HEAD + (
        "    uint8_t4_packed a = pack_u8(uint4(1, 2, 3, 0x1FF));\n"
        "    int8_t4_packed b = pack_s8(int4(-1, 2, -3, 4));\n"
        "    o[0] = a;\n"
        "    o[1] = b;\n"
        "    o[2] = pack_clamp_u8(int4(-5, 300, 7, 255));\n"
        "    o[3] = pack_clamp_s8(int4(-500, 300, 7, -128));\n"
        "    s[0] = unpack_s8s32(b);\n"
        "    s[1] = (int4)unpack_u8u32(0x80FF7F01u);\n"
        "    s[2] = unpack_s8s32(0x80FF7F01u);\n"
        "}\n"), tmp_path)
    evaluator = _Evaluator(module.asm)
    assert evaluator.stored("%o") == {
        0: _pack([1, 2, 3, 0x1FF]),
        1: _pack([-1, 2, -3, 4]),
        2: _pack([-5, 300, 7, 255], (0, 255)),
        3: _pack([-500, 300, 7, -128], (-128, 127)),
    }
    assert evaluator.stored("%s") == {
        0: _unpack(_pack([-1, 2, -3, 4]), signed=True),
        1: _unpack(0x80FF7F01, signed=False),
        2: _unpack(0x80FF7F01, signed=True),
    }
    assert "Int8" not in module.asm


def test_sixteen_bit_forms(tmp_path) -> None:
    module = compile_hlsl(HEAD + (
        "    uint16_t4 x = unpack_u8u16(o[0]);\n"
        "    int16_t4 y = unpack_s8s16(o[1]);\n"
        "    o[2] = pack_u8(x) + pack_s8(y) + pack_clamp_u8(y);\n"
        "}\n"), tmp_path, enable_16bit_types=True)
    # bytes come out as 32-bit fields, narrowed to 16 bits; 16-bit components are widened to pack
    assert module.count("OpBitFieldUExtract") == 4 and module.count("OpBitFieldSExtract") == 4
    assert [line.split(" = ")[1].split()[1] for line in module.lines("OpUConvert")].count("%ushort") == 4
    assert [line.split(" = ")[1].split()[1] for line in module.lines("OpSConvert")].count("%short") == 4
    assert [line.split(" = ")[1].split()[1] for line in module.lines("OpUConvert")].count("%uint") == 4
    assert [line.split(" = ")[1].split()[1] for line in module.lines("OpSConvert")].count("%int") == 8
    assert module.count("OpBitFieldInsert") == 9
    [clamp] = [line for line in module.lines("OpExtInst") if "SClamp" in line]
    assert re.search(r"OpExtInst %v4short %\d+ SClamp", clamp)


def test_packed_types_are_uint_and_wrong_arguments_are_rejected() -> None:
    source = ("int8_t4_packed a = 1;\n"
              "void f() { uint b = pack_clamp_u8(uint4(1, 2, 3, 4)); uint c = pack_u8(float4(1, 2, 3, 4)); }\n")
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=source.encode())
    text = Renderer().render(result.diagnostics)
    assert "pack_clamp_u8" in text and "pack_u8" in text
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == ["WG0304", "WG0304"]


@pytest.mark.parametrize("name", ["int8_t4_packed", "uint8_t4_packed"])
def test_packed_types_have_no_vector_forms(name: str) -> None:
    result = driver.compile(driver.Options(input="-", emit="ir"), stdin=f"static {name}2 v;\n".encode())
    assert not result.ok
