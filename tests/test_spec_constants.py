"""`[[vk::constant_id(N)]]` globals: Vulkan specialization constants, as dxc's SPIR-V path makes them.

Each becomes one OpSpecConstant / OpSpecConstantTrue / OpSpecConstantFalse decorated SpecId N whose
literal is the default value (converted to the declared type), and every use reads that id; they are
never cbuffer members. Plain globals with initialisers stay `$Globals` members (the initialiser is
ignored with WG0365). Expected words come from IEEE-754 / two's complement, not from wgc.
"""

from __future__ import annotations

import json
import struct

from spirv_util import compile_hlsl
from wgc import driver

NODE = ('[Shader("node")] [NodeLaunch("broadcasting")] [NodeDispatchGrid(1,1,1)] [NumThreads(1,1,1)]\n'
        "void main(uint i : SV_DispatchThreadID) {\n")

SOURCE = (
    "RWStructuredBuffer<uint> o : register(u0);\n"
    "[[vk::constant_id(3)]] const uint Count = 4;\n"
    "[[vk::constant_id(4)]] const bool On = true;\n"
    "[[vk::constant_id(5)]] bool Off = 0;\n"
    "[[vk::constant_id(6)]] const float Scale = -2.5;\n"
    "[[vk::constant_id(7)]] int Bias = -7;\n"
    "[[vk::constant_id(8)]] int Truncated = 2.5;\n"
    "static const uint Base = 0xC0FFEE;\n"
    "[[vk::constant_id(9)]] const uint FromStatic = Base;\n"
    "static const uint Twice = Count * 2;\n"
    + NODE +
    "    o[0] = Count + Twice + FromStatic;\n"
    "    o[1] = On && !Off ? asuint(Scale) : (uint)(Bias + Truncated);\n"
    "    for (uint j = 0; j < Count; j++) o[2 + j] = j;\n"
    "}\n")


def _spec_instructions(words: list[int]) -> dict[int, tuple[int, list[int]]]:
    """result id -> (opcode, literal words) of every OpSpecConstant* in the module (read from the words)."""
    found = {}
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if opcode in (48, 49, 50):          # OpSpecConstantTrue, OpSpecConstantFalse, OpSpecConstant
            found[words[i + 2]] = (opcode, words[i + 3:i + count])
        i += count
    return found


def _spec_ids(words: list[int]) -> dict[int, int]:
    """target id -> SpecId (OpDecorate 71 with Decoration SpecId 1)."""
    found = {}
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if opcode == 71 and words[i + 2] == 1:
            found[words[i + 1]] = words[i + 3]
        i += count
    return found


def test_spec_constants_are_decorated_spec_constants_with_their_defaults(tmp_path) -> None:
    module = compile_hlsl(SOURCE, tmp_path)
    constants = _spec_instructions(module.words)
    by_spec_id = {spec_id: constants[target] for target, spec_id in _spec_ids(module.words).items()}
    assert by_spec_id == {
        3: (50, [4]),
        4: (48, []),
        5: (49, []),
        6: (50, [struct.unpack("<I", struct.pack("<f", -2.5))[0]]),
        7: (50, [(-7) & 0xFFFFFFFF]),
        8: (50, [2]),
        9: (50, [0xC0FFEE]),
    }
    assert sorted(module.lines("OpSpecConstant")) == sorted([
        "%Count = OpSpecConstant %uint 4", "%Scale = OpSpecConstant %float -2.5", "%Bias = OpSpecConstant %int -7",
        "%Truncated = OpSpecConstant %int 2", "%FromStatic = OpSpecConstant %uint 12648430"])


def test_uses_read_the_spec_constant_not_a_folded_value_nor_a_buffer(tmp_path) -> None:
    module = compile_hlsl(SOURCE, tmp_path)
    # the static initialised from a spec constant is computed from it (not folded to 8)
    assert "%uint_8 = OpConstant %uint 8" not in module.asm
    assert [line.split(" = ")[1] for line in module.lines("OpIMul")] == ["OpIMul %uint %Count %uint_2"]
    assert [line.split(" %bool ")[1].split()[1] for line in module.lines("OpULessThan")] == ["%Count"]
    assert [line.split(" = ")[1] for line in module.lines("OpLogicalNot")] == ["OpLogicalNot %bool %Off"]
    assert "OpBranchConditional %On " in module.asm      # `&&` short-circuits on the spec constant itself
    assert "OpIAdd %int %Bias %Truncated" in module.asm
    assert "Globals" not in module.asm and module.count("OpTypeStruct") == 1   # only the RWStructuredBuffer's


def test_spec_constants_are_listed_by_inspect() -> None:
    result = driver.compile(driver.Options(input="-", emit="json"), stdin=SOURCE.encode())
    assert result.ok
    model = json.loads(result.outputs["json"])
    assert model["specialization_constants"] == [
        {"name": "Count", "spec_id": 3, "type": "uint", "default": 4},
        {"name": "On", "spec_id": 4, "type": "bool", "default": True},
        {"name": "Off", "spec_id": 5, "type": "bool", "default": False},
        {"name": "Scale", "spec_id": 6, "type": "float", "default": -2.5},
        {"name": "Bias", "spec_id": 7, "type": "int", "default": -7},
        {"name": "Truncated", "spec_id": 8, "type": "int", "default": 2},
        {"name": "FromStatic", "spec_id": 9, "type": "uint", "default": 0xC0FFEE},
    ]
    text = driver.compile(driver.Options(input="-", emit="text"), stdin=SOURCE.encode()).outputs["text"].decode()
    assert text.endswith("\nspecialization constants:\n"
                         "  SpecId 3: uint Count = 4\n"
                         "  SpecId 4: bool On = true\n"
                         "  SpecId 5: bool Off = false\n"
                         "  SpecId 6: float Scale = -2.5\n"
                         "  SpecId 7: int Bias = -7\n"
                         "  SpecId 8: int Truncated = 2\n"
                         "  SpecId 9: uint FromStatic = 12648430\n")


def test_a_reused_spec_id_still_validates(tmp_path) -> None:
    module = compile_hlsl("RWStructuredBuffer<uint> o : register(u0);\n"
                          "[[vk::constant_id(1)]] const uint A = 1;\n"
                          "[[vk::constant_id(1)]] const uint B = 2;\n" + NODE + "    o[0] = A + B;\n}\n", tmp_path)
    assert sorted(_spec_ids(module.words).values()) == [1, 1]


def test_plain_global_with_initializer_stays_a_globals_member(tmp_path) -> None:
    """dxc ignores the initializer (WG0365): the value is loaded from $Globals, not the constant 3.0."""
    module = compile_hlsl("RWStructuredBuffer<float> o : register(u0);\n"
                          "float Gain = 3.0;\n" + NODE + "    o[i] = Gain;\n}\n", tmp_path)
    assert 'OpMemberName %type__Globals 0 "Gain"' in module.asm
    assert "OpConstant %float 3" not in module.asm
    assert any("%_Globals" in line for line in module.lines("OpAccessChain"))
