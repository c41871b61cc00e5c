"""Runtime output: a colour attachment as a PNG picture (`wgc run --image`), through `pypng`.

Input: a `Picture`: the attachment's size, its `formats.Format` and its texels, row by row from the
top.  Output: the bytes of an 8-bit RGBA PNG file (the CLI stages them with its other outputs, so a
failed run writes no picture).

Conversion per component (texels are read as the format's typed array): UNORM and float formats
are clamped to [0, 1] and scaled to 0..255 (rounded to nearest); SNORM ones clamped to [0, 1] the
same way; integer formats are clamped to 0..255.  Components the format lacks are D3D12's defaults
for a missing component: G and B 0, A 1 (opaque).

Invariants: pure (no I/O); the whole picture is in memory (the render target's size is bounded by
`render_target.MAX_SIZE`).
"""

from __future__ import annotations

import io
import struct

from wgc.cached_dataclass import dataclass
from wgc.runtime.formats import Format

_STRUCT = {"float": "f", "uint32": "I", "int32": "i", "float16": "e", "uint16": "H", "int16": "h", "uint8": "B",
           "int8": "b"}
_UNORM_MAX = {"uint8": 255, "uint16": 65535, "int8": 127, "int16": 32767}


@dataclass
class Picture:
    width: int
    height: int
    format: Format
    data: bytes


def to_rgba8(picture: Picture) -> list[bytearray]:
    """The picture's rows as RGBA8 bytes (module docstring)."""
    fmt = picture.format
    count = picture.width * picture.height * fmt.components
    values = struct.unpack(f"<{count}{_STRUCT[fmt.array]}", picture.data[:count * struct.calcsize(_STRUCT[fmt.array])])
    normalised = fmt.reads == "float" and fmt.array in _UNORM_MAX
    scale = _UNORM_MAX.get(fmt.array, 1)
    rows = []
    for y in range(picture.height):
        row = bytearray()
        for x in range(picture.width):
            at = (y * picture.width + x) * fmt.components
            texel = [0, 0, 0, 255]
            for c in range(fmt.components):
                value = values[at + c]
                if normalised:
                    value = value / scale
                if fmt.reads == "float":
                    value = round(min(max(value, 0.0), 1.0) * 255)
                else:
                    value = min(max(int(value), 0), 255)
                texel[c] = value
            if fmt.name.startswith("B8G8R8"):
                texel[0], texel[2] = texel[2], texel[0]
            row.extend(texel)
        rows.append(row)
    return rows


def encode_png(picture: Picture) -> bytes:
    """The picture as the bytes of an 8-bit RGBA PNG file."""
    import png

    out = io.BytesIO()
    png.Writer(picture.width, picture.height, greyscale=False, alpha=True, bitdepth=8).write(out, to_rgba8(picture))
    return out.getvalue()
