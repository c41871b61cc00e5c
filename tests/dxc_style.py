"""The hand-written DXC-style AMDX modules of tests/data/dxc_style/ (see its README): SPIR-V assembly
in the form DXC's `-spirv` emits for work graphs, assembled here with the generator word DXC writes
("Google spiregg", generator id 14 in the header's high half)."""

from __future__ import annotations

import struct
from pathlib import Path

from wgc.spirv import tools

FOLDER = Path(__file__).parent / "data" / "dxc_style"
SPIREGG = 14 << 16
"""The header's generator word of a DXC module: Khronos' registry id 14, "Google spiregg", version 0."""


def module(name: str) -> bytes:
    """tests/data/dxc_style/<name>.spvasm assembled, with DXC's generator word."""
    words = tools.assemble((FOLDER / f"{name}.spvasm").read_text())
    words[2] = SPIREGG
    return struct.pack(f"<{len(words)}I", *words)
