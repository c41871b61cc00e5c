"""DXC-built AMDX modules run (issue 25): AMD's `gpu_dispatch` sample (GPUOpen-LibrariesAndSDKs/
Vulkan-Samples, `shaders/gpu_dispatch/spv/`, generator "Google spiregg") ships its sanity-check
graph as four modules of one entry point `main` each, which the C++ names with
`VkPipelineShaderStageNodeCreateInfoAMDX::pName` ("main", "fixed_exp", "dynamic_exp",
"aggregation"). Run here as the C++ runs them (one entry record whose grid covers the image in
16x16 tiles, an rgba8 storage image at set 0 binding 0), and checked against the same HLSL compiled
by wgc and against values derived by hand from the HLSL: a tile's node is (tile.x + grid.x *
tile.y) % 3 (fixed expansion: red, dynamic expansion: green, aggregation: grey), each channel
toSrgb(0.5 * (u + v)) with (u, v) the pixel's position in its tile / 16, alpha 1.

The sample is not part of this repository (its license is AMD's): the test runs where
$WGC_VULKAN_SAMPLES names a checkout of it, and is skipped elsewhere.
"""

from __future__ import annotations

import math
import os
import struct

import pytest

import wgc
from wgc.diagnostics import Renderer

CHECKOUT = os.environ.get("WGC_VULKAN_SAMPLES", "")
FOLDER = os.path.join(CHECKOUT, "shaders", "gpu_dispatch")
NODES = (("sanity_entry_cs", "main"), ("sanity_fixed_exp_cs", "fixed_exp"),
         ("sanity_dynamic_exp_cs", "dynamic_exp"), ("sanity_aggregation_cs", "aggregation"))
WIDTH, HEIGHT = 48, 32     # 3 x 2 tiles: every node type


@pytest.fixture(scope="module", autouse=True)
def sample_and_device():
    if not os.path.isdir(os.path.join(FOLDER, "spv")):
        pytest.skip("AMD's Vulkan-Samples checkout is not here (set WGC_VULKAN_SAMPLES)")
    from wgc.runtime.device import DeviceFailure, VulkanUnavailable, list_devices

    try:
        list_devices()
    except (VulkanUnavailable, DeviceFailure) as problem:
        pytest.skip(f"no usable Vulkan device here: {problem}")


def dispatch() -> dict:
    grid = [math.ceil(WIDTH / 16), math.ceil(HEIGHT / 16), 1]
    return {"inputs": [{"entry": "main", "records": [{"grid_size": grid}]}],
            "resources": {"outImage": {"format": "R8G8B8A8_UNORM", "width": WIDTH, "height": HEIGHT}}}


def by_hand() -> list[int]:
    def f32(x: float) -> float:
        return struct.unpack("<f", struct.pack("<f", x))[0]

    def srgb(c: float) -> float:
        return 12.92 * c if c < 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055

    texels = []
    for y in range(HEIGHT):
        for x in range(WIDTH):
            kind = (x // 16 + 3 * (y // 16)) % 3
            value = round(srgb(f32(0.5 * ((x % 16) / 16 + (y % 16) / 16))) * 255)
            rgb = [(value, 0, 0), (0, value, 0), (value, value, value)][kind]
            texels += [*rgb, 255]
    return texels


def run_modules(modules: list[bytes]) -> list[int]:
    names = {f"<module {i}>:main": name for i, (_, name) in enumerate(NODES) if name != "main"}
    result = wgc.run(modules, dispatch(), names=names)
    assert result.ok, Renderer().render(list(result.diagnostics))
    assert result.path == "amdx"
    return result.resources["outImage"]["uint8"]


def test_dxc_modules_of_the_gpu_dispatch_sample() -> None:
    modules = []
    for file, _ in NODES:
        with open(os.path.join(FOLDER, "spv", f"{file}.spv"), "rb") as handle:
            modules.append(handle.read())
    assert all(struct.unpack_from("<I", m, 8)[0] >> 16 == 14 for m in modules)   # Google spiregg (DXC)
    dxc = run_modules(modules)
    wgc_modules = []
    for file, _ in NODES:
        compiled = wgc.compile(wgc.Options(input=os.path.join(FOLDER, f"{file}.hlsl")))
        assert compiled.ok, Renderer().render(list(compiled.diagnostics))
        wgc_modules.append(compiled.outputs["spirv"])
    assert run_modules(wgc_modules) == dxc
    expected = by_hand()
    off = [(i // 4 % WIDTH, i // 4 // WIDTH, dxc[i], expected[i])
           for i in range(len(dxc)) if abs(dxc[i] - expected[i]) > 1]
    assert off == [], off[:8]


def test_every_compute_module_of_the_sample_translates() -> None:
    """All 17 node modules of gpu_dispatch (classify, compose, sanity; DXC's) are read, described as
    a graph and translated to modules that pass spirv-val (vulkan1.3, scalar layout); 9 of them
    spirv-val itself refuses as DXC wrote them ("Parameter <ID> ... must appear earlier in the binary
    than the target": DXC places OpDecorateId operands after their target), which the translation
    does not need (it drops those decorations)."""
    import glob

    from wgc.runtime.amdx import amdx_program

    files = sorted(glob.glob(os.path.join(FOLDER, "spv", "*_cs*.spv")))
    assert len(files) == 17
    for path in files:
        with open(path, "rb") as handle:
            diagnostics, module, _ = amdx_program([(path, handle.read())])
        assert module is not None and not diagnostics, [d.message for d in diagnostics]
