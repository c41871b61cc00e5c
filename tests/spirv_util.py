"""Test helpers for the SPIR-V back end: compile HLSL text to validated SPIR-V and read it back."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path

from wgc import driver
from wgc.diagnostics import Severity
from wgc.spirv import tools


@dataclass
class Compiled:
    words: list[int]
    asm: str
    """spirv-dis text with friendly names, no header."""

    def count(self, opcode: str) -> int:
        """How many instructions `opcode` (e.g. "OpAllocateNodePayloadsAMDX") the module has."""
        return len(re.findall(rf"(?:^\s*|= ){opcode}\b", self.asm, flags=re.M))

    def lines(self, opcode: str) -> list[str]:
        return [line.strip() for line in self.asm.splitlines()
                if re.search(rf"(?:^\s*|= ){opcode}\b", line)]


def words_of(data: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(data) // 4}I", data))


def compile_hlsl(source: str, tmp_path: Path, *, name: str = "shader.hlsl", target_env: str = "vulkan1.3",
                 **options: object) -> Compiled:
    """Compile HLSL text to one SPIR-V module; fail the test on any diagnostic error or validation
    failure (the driver validates in process; the words are validated here once more)."""
    path = tmp_path / name
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), emit="spirv", target_env=target_env,
                                           **options))  # type: ignore[arg-type]
    assert result.ok, "\n".join(f"{d.span.line_col if d.span else ()}: {d.message}" for d in result.diagnostics)
    words = words_of(result.outputs["spirv"])
    assert tools.validate(words, target_env, scalar_block_layout=True) == []
    return Compiled(words, tools.disassemble(words, header=False))


def compile_errors(source: str, tmp_path: Path, **options: object) -> list[str]:
    """The error messages of a compile to SPIR-V that must fail."""
    path = tmp_path / "shader.hlsl"
    path.write_text(source)
    result = driver.compile(driver.Options(input=str(path), emit="spirv", **options))  # type: ignore[arg-type]
    assert not result.ok
    return [f"{d.code}: {d.message}" for d in result.diagnostics if d.severity >= Severity.ERROR]


def check_golden(text: str, golden: Path, source_name: str, update: bool) -> None:
    """Compare a module's disassembly with its golden file (rewrite it with --update-goldens)."""
    if update:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert golden.exists(), f"no golden for {source_name}: run pytest --update-goldens"
    assert text == golden.read_text(), f"SPIR-V of {source_name} differs from {golden}; review and --update-goldens"
