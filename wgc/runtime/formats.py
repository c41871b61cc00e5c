"""Runtime: the texel formats `wgc run` accepts for textures and typed buffers (no Vulkan here).

Input: a format name from a dispatch description (DXGI's, without the `DXGI_FORMAT_` prefix:
"R32G32B32A32_FLOAT", "R8G8B8A8_UNORM", ...) or a resource's element type.  Output: a `Format`:
its VkFormat number, SPIR-V ImageFormat, components, the typed array (`dispatch.ARRAY_FORMATS` names) its texel data
is written and dumped as, and the kind of value a shader reads from it.

Invariants: one table (`FORMATS`) is the whole list; every format in it is a plain, uncompressed
colour format whose components are all the same size, so texel data is `components` values of the
typed array per texel, in R, G, B, A order (B8G8R8A8: B, G, R, A as stored).
"""

from __future__ import annotations

from wgc.cached_dataclass import dataclass


@dataclass(frozen=True)
class Format:
    name: str
    vk: int
    """The VkFormat value."""
    components: int
    array: str
    """The typed array of its texel data ("float", "uint8", ...)."""
    reads: str
    """What a shader reads from it: "float" (FLOAT, UNORM, SNORM), "uint" or "int"."""
    spirv: str | None
    """Its SPIR-V ImageFormat name (a storage image or texel buffer declared with a format other than
    Unknown must be given exactly that one); None where SPIR-V has none."""

    @property
    def texel_bytes(self) -> int:
        return self.components * _ARRAY_BYTES[self.array]


_ARRAY_BYTES = {"float": 4, "uint32": 4, "int32": 4, "float16": 2, "uint16": 2, "int16": 2, "uint8": 1, "int8": 1}

FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("R32G32B32A32_FLOAT", 109, 4, "float", "float", "Rgba32f"),
    Format("R32G32B32A32_UINT", 107, 4, "uint32", "uint", "Rgba32ui"),
    Format("R32G32B32A32_SINT", 108, 4, "int32", "int", "Rgba32i"),
    Format("R32G32B32_FLOAT", 106, 3, "float", "float", None),
    Format("R32G32B32_UINT", 104, 3, "uint32", "uint", None),
    Format("R32G32B32_SINT", 105, 3, "int32", "int", None),
    Format("R32G32_FLOAT", 103, 2, "float", "float", "Rg32f"),
    Format("R32G32_UINT", 101, 2, "uint32", "uint", "Rg32ui"),
    Format("R32G32_SINT", 102, 2, "int32", "int", "Rg32i"),
    Format("R32_FLOAT", 100, 1, "float", "float", "R32f"),
    Format("R32_UINT", 98, 1, "uint32", "uint", "R32ui"),
    Format("R32_SINT", 99, 1, "int32", "int", "R32i"),
    Format("R16G16B16A16_FLOAT", 97, 4, "float16", "float", "Rgba16f"),
    Format("R16G16B16A16_UINT", 95, 4, "uint16", "uint", "Rgba16ui"),
    Format("R16G16B16A16_SINT", 96, 4, "int16", "int", "Rgba16i"),
    Format("R16G16B16A16_UNORM", 91, 4, "uint16", "float", "Rgba16"),
    Format("R16G16B16A16_SNORM", 92, 4, "int16", "float", "Rgba16Snorm"),
    Format("R16G16_FLOAT", 83, 2, "float16", "float", "Rg16f"),
    Format("R16G16_UINT", 81, 2, "uint16", "uint", "Rg16ui"),
    Format("R16G16_UNORM", 77, 2, "uint16", "float", "Rg16"),
    Format("R16_FLOAT", 76, 1, "float16", "float", "R16f"),
    Format("R16_UINT", 74, 1, "uint16", "uint", "R16ui"),
    Format("R16_SINT", 75, 1, "int16", "int", "R16i"),
    Format("R16_UNORM", 70, 1, "uint16", "float", "R16"),
    Format("R8G8B8A8_UNORM", 37, 4, "uint8", "float", "Rgba8"),
    Format("R8G8B8A8_SNORM", 38, 4, "int8", "float", "Rgba8Snorm"),
    Format("R8G8B8A8_UINT", 41, 4, "uint8", "uint", "Rgba8ui"),
    Format("R8G8B8A8_SINT", 42, 4, "int8", "int", "Rgba8i"),
    Format("B8G8R8A8_UNORM", 44, 4, "uint8", "float", None),
    Format("R8G8_UNORM", 16, 2, "uint8", "float", "Rg8"),
    Format("R8G8_UINT", 20, 2, "uint8", "uint", "Rg8ui"),
    Format("R8_UNORM", 9, 1, "uint8", "float", "R8"),
    Format("R8_SNORM", 10, 1, "int8", "float", "R8Snorm"),
    Format("R8_UINT", 13, 1, "uint8", "uint", "R8ui"),
    Format("R8_SINT", 14, 1, "int8", "int", "R8i"),
)}

_DEFAULT_SUFFIX = {"float": "FLOAT", "uint": "UINT", "int": "SINT"}


def default_format(component: str, components: int) -> Format | None:
    """The 32-bit format of a resource whose elements are `components` values of `component`
    ("float", "uint", "int"): `Texture2D<float4>` -> R32G32B32A32_FLOAT; None for other kinds."""
    suffix = _DEFAULT_SUFFIX.get(component)
    if suffix is None or not 1 <= components <= 4:
        return None
    return FORMATS["".join(f"{c}32" for c in "RGBA"[:components]) + "_" + suffix]
