"""Golden SPIR-V of small programs, one per construct family (tests/spirv_programs/*.hlsl ->
tests/out/spv/programs/*.spvasm): a wrong opcode or operand fails a test, not only a missing one.

A difference fails the test; `pytest --update-goldens` rewrites the files so the change can be
reviewed in the commit. Each golden is assembled and validated again (vulkan1.3, scalar layout).
"""

from __future__ import annotations

import pytest

from conftest import ROOT
from spirv_util import check_golden
from wgc import driver
from wgc.diagnostics import Renderer, Severity
from wgc.spirv import tools

PROGRAMS = ROOT / "tests" / "spirv_programs"
GOLDEN_DIR = ROOT / "tests" / "out" / "spv" / "programs"
PROGRAM_PATHS = sorted(PROGRAMS.glob("*.hlsl"))


@pytest.mark.parametrize("path", PROGRAM_PATHS, ids=[p.stem for p in PROGRAM_PATHS])
def test_program_spirv_matches_golden(path, update_goldens):
    result = driver.compile(driver.Options(input=str(path), emit="asm", enable_16bit_types=True))
    errors = [d for d in result.diagnostics if d.severity >= Severity.ERROR]
    assert result.ok and not errors, Renderer().render(result.diagnostics)
    text = result.outputs["asm"].decode()
    check_golden(text, GOLDEN_DIR / f"{path.stem}.spvasm", path.name, update_goldens)
    assert tools.validate(tools.assemble(text, "vulkan1.3"), "vulkan1.3", scalar_block_layout=True) == []


def test_every_program_golden_has_a_program():
    stems = {p.stem for p in PROGRAM_PATHS}
    orphans = sorted(g.name for g in GOLDEN_DIR.glob("*.spvasm") if g.stem not in stems)
    assert not orphans, f"goldens without a program: {orphans}"


def _opcodes(path, wanted: set[str]) -> list[str]:
    """The opcodes of `wanted` in the module's function bodies, in order."""
    text = driver.compile(driver.Options(input=str(path), emit="asm", enable_16bit_types=True)).outputs["asm"].decode()
    found = []
    for line in text.splitlines():
        words = line.split()
        op = words[2] if len(words) > 2 and words[1] == "=" else (words[0] if words else "")
        if op in wanted:
            found.append(op)
    return found


def test_operator_opcodes_follow_signedness():
    # expected per HLSL's conversions (int op uint is uint; a shift has the left operand's type)
    # and dxc's SPIR-V (SRem for signed %, FRem for float %): the comments of operators.hlsl
    expected = [
        "OpShiftRightArithmetic", "OpShiftRightLogical", "OpShiftRightArithmetic", "OpShiftRightLogical",
        "OpShiftLeftLogical", "OpSRem", "OpUMod", "OpUMod", "OpFRem", "OpSDiv", "OpUDiv", "OpUDiv", "OpFDiv",
        "OpSLessThan", "OpULessThan", "OpFOrdLessThan", "OpUGreaterThanEqual", "OpSNegate", "OpNot", "OpIMul",
        "OpISub", "OpBitwiseXor", "OpFUnordNotEqual", "OpShiftRightArithmetic", "OpShiftRightLogical",
    ]
    assert _opcodes(PROGRAMS / "operators.hlsl", set(expected)) == expected


def test_conversion_opcodes_follow_kinds_and_widths():
    expected = ["OpConvertSToF", "OpConvertUToF", "OpConvertFToS", "OpConvertFToU", "OpBitcast", "OpSConvert",
                "OpUConvert", "OpBitcast", "OpFConvert", "OpINotEqual", "OpSelect", "OpFUnordNotEqual", "OpSelect"]
    assert _opcodes(PROGRAMS / "conversions.hlsl", set(expected)) == expected
