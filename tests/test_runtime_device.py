"""The runtime's Vulkan pieces (wgc/runtime/device.py, pipelines.py, scheduler.py) on a real device.

The tests that need Vulkan run on Debian's lavapipe (`.ci/run` installs it) and skip, with the
reason shown by `pytest -ra` (the default options), where there is no Vulkan loader, driver or
`vulkan` package.  The shaders are hand-written SPIR-V assembly (validated with spirv-val), so these
tests do not depend on wgc's own code generation; the expected buffer contents are computed here
from the shader's formula.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap

import pytest

from wgc.runtime.device import DescriptorWrite, DeviceInfo, choose_device
from wgc.spirv.tools import assemble, validate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# out[gid] = gid * 3 + 7 through a buffer device address from push constants (bytes 0..8), and
# data[gid] += push constant word at byte 16 through a storage buffer at set 1, binding 3
SHADER = """
               OpCapability Shader
               OpCapability Int64
               OpCapability PhysicalStorageBufferAddresses
               OpCapability VulkanMemoryModel
               OpMemoryModel PhysicalStorageBuffer64 Vulkan
               OpEntryPoint GLCompute %main "main" %gid %pc %ssbo
               OpEntryPoint GLCompute %other "other" %pc
               OpExecutionMode %main LocalSize 8 1 1
               OpExecutionMode %other LocalSize 1 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %PC Block
               OpMemberDecorate %PC 0 Offset 0
               OpMemberDecorate %PC 1 Offset 16
               OpDecorate %arr ArrayStride 4
               OpDecorate %Data Block
               OpMemberDecorate %Data 0 Offset 0
               OpDecorate %ssbo DescriptorSet 1
               OpDecorate %ssbo Binding 3
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
     %v3uint = OpTypeVector %uint 3
    %p_in_v3 = OpTypePointer Input %v3uint
        %gid = OpVariable %p_in_v3 Input
        %arr = OpTypeRuntimeArray %uint
       %Data = OpTypeStruct %arr
      %pData = OpTypePointer PhysicalStorageBuffer %Data
      %pUint = OpTypePointer PhysicalStorageBuffer %uint
      %sData = OpTypePointer StorageBuffer %Data
      %sUint = OpTypePointer StorageBuffer %uint
       %ssbo = OpVariable %sData StorageBuffer
         %PC = OpTypeStruct %ulong %uint
       %p_pc = OpTypePointer PushConstant %PC
   %p_pc_u64 = OpTypePointer PushConstant %ulong
   %p_pc_u32 = OpTypePointer PushConstant %uint
         %pc = OpVariable %p_pc PushConstant
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_3 = OpConstant %uint 3
     %uint_7 = OpConstant %uint 7
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
         %ap = OpAccessChain %p_pc_u64 %pc %uint_0
          %a = OpLoad %ulong %ap
          %p = OpConvertUToPtr %pData %a
          %e = OpAccessChain %pUint %p %uint_0 %x
          %m = OpIMul %uint %x %uint_3
          %v = OpIAdd %uint %m %uint_7
               OpStore %e %v Aligned 4
         %bp = OpAccessChain %p_pc_u32 %pc %uint_1
       %bias = OpLoad %uint %bp
          %s = OpAccessChain %sUint %ssbo %uint_0 %x
         %old = OpLoad %uint %s
         %new = OpIAdd %uint %old %bias
               OpStore %s %new
               OpReturn
               OpFunctionEnd
      %other = OpFunction %void None %fn
     %entry2 = OpLabel
               OpReturn
               OpFunctionEnd
"""


def module_bytes() -> bytes:
    words = assemble(textwrap.dedent(SHADER))
    assert validate(words) == []
    return struct.pack(f"<{len(words)}I", *words)


def test_module_bindings_lists_entry_points_and_used_bindings() -> None:
    from wgc.runtime.pipelines import module_bindings

    interface = module_bindings(module_bytes())
    assert interface.entry_points == ("main", "other")
    assert interface.bindings == frozenset({(1, 3)})


def test_buffers_addresses_push_constants_and_descriptor_sets(device) -> None:
    out = device.buffer(64 * 4)
    data = device.buffer(8 * 4)
    data.write(0, struct.pack("<8I", *range(100, 108)))
    storage_buffer = 7       # VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
    layout, set_layouts = device.pipeline_layout([[], [(3, storage_buffer, 1)]], 20)
    pool, sets = device.descriptor_sets(set_layouts, [[], [DescriptorWrite(3, storage_buffer, [data])]])
    pipelines = device.pipelines(module_bytes(), ["main", "other"], layout)
    try:
        device.begin()
        device.bind(pipelines["main"], layout, sets)
        device.push(layout, struct.pack("<Q8xI", out.address, 5))
        device.dispatch(1)
        device.barrier()
        device.bind(pipelines["other"], layout, sets)
        device.dispatch(0)                      # an empty dispatch runs nothing
        device.submit()
        assert struct.unpack("<8I", out.read(0, 32)) == tuple(i * 3 + 7 for i in range(8))
        assert struct.unpack("<8I", out.read(32, 32)) == (0,) * 8      # one group of 8: nothing more written
        assert struct.unpack("<8I", data.read(0, 32)) == tuple(range(105, 113))
    finally:
        device.destroy_pipelines(pipelines, layout, set_layouts, pool)
        device.free(out)
        device.free(data)


def test_too_many_push_constant_bytes_is_a_device_failure(device) -> None:
    from wgc.runtime.device import DeviceFailure

    with pytest.raises(DeviceFailure, match=r"the shaders need \d+ bytes of push constants"):
        device.pipeline_layout([], device.max_push_constants + 4)


def test_the_default_device_is_a_gpu_else_the_first() -> None:
    cpu = DeviceInfo(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu", "1.3.230")
    integrated = DeviceInfo(1, "Intel(R) UHD Graphics", "integrated", "1.3.0")
    discrete = DeviceInfo(2, "NVIDIA H100 80GB HBM3", "discrete", "1.4.312")
    assert choose_device([cpu, integrated, discrete], None) is discrete
    assert choose_device([cpu, integrated], None) is integrated
    assert choose_device([cpu], None) is cpu
    assert choose_device([cpu, discrete], "0") is cpu
    assert choose_device([cpu, discrete], "h100") is discrete
    assert choose_device([cpu, discrete], "LLVMPIPE") is cpu


def test_a_selector_that_matches_nothing_lists_the_devices() -> None:
    from wgc.runtime.device import DeviceNotFound

    cpu = DeviceInfo(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu", "1.3.230")
    with pytest.raises(DeviceNotFound) as raised:
        choose_device([cpu], "3")
    assert str(raised.value) == "no Vulkan device '3' (the devices: 0: llvmpipe (LLVM 15.0.6, 256 bits) (cpu))"
    with pytest.raises(DeviceNotFound):
        choose_device([cpu], "radeon")


def test_large_grids_are_split_with_group_offsets() -> None:
    from wgc.runtime.scheduler import dispatch_shapes

    assert dispatch_shapes(65535 * 65535 + 10, 65535, 65535) == [(0, 65535, 65535), (65535 * 65535, 10, 1)]
    assert dispatch_shapes(70000, 65535, 65535) == [(0, 65535, 2)]
    assert dispatch_shapes(0, 65535, 65535) == []


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": ROOT, **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=120)


def test_without_a_driver_the_message_says_what_to_install() -> None:
    pytest.importorskip("vulkan", reason="the 'vulkan' package is not installed, so the loader cannot be probed")
    code = ("from wgc.runtime.device import Device, VulkanUnavailable\n"
            "try:\n    Device()\nexcept VulkanUnavailable as e:\n    print(e)\n")
    done = _python(code, VK_ICD_FILENAMES="/nonexistent.json", VK_DRIVER_FILES="/nonexistent.json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("no Vulkan driver (VkErrorIncompatibleDriver); install a Vulkan loader and driver")
    assert "mesa-vulkan-drivers" in done.stdout


def test_without_the_binding_the_message_names_the_package() -> None:
    code = ("import sys\nsys.modules['vulkan'] = None\n"
            "from wgc.runtime.device import Device, VulkanUnavailable\n"
            "try:\n    Device()\nexcept VulkanUnavailable as e:\n    print(e)\n")
    done = _python(code)
    assert done.stdout == ("the Python package 'vulkan' is not installed (pip install 'vulkan==1.3.275.1'; "
                           "it is a dependency of wgc)\n"), done.stderr


def test_import_wgc_and_compile_do_not_load_vulkan() -> None:
    code = ("import sys, wgc, wgc.cli\n"
            "r = wgc.compile(wgc.Options(input='samples/hello.hlsl'))\n"
            "assert r.ok\n"
            "print(sorted(m for m in sys.modules if m == 'vulkan' or m.startswith('wgc.runtime')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": ROOT}, timeout=120)
    assert done.stdout == "[]\n", done.stderr


def test_a_buffer_larger_than_the_device_holds_is_a_device_failure(device) -> None:
    from wgc.runtime.device import DeviceFailure

    with pytest.raises(DeviceFailure) as raised:
        device.buffer(1 << 42)
    assert str(raised.value) in (f"out of device memory for a buffer of {1 << 42} bytes on '{device.info.name}'",
                                 f"vkCreateBuffer failed on '{device.info.name}': VkErrorOutOfDeviceMemory")


def test_without_a_loader_the_message_says_what_to_install(tmp_path) -> None:
    """The `vulkan` package opens libvulkan.so.1 when it is imported; without it that import raises
    OSError (simulated here by a stand-in package)."""
    package = tmp_path / "vulkan"
    package.mkdir()
    (package / "__init__.py").write_text("raise OSError(\"cannot load library 'libvulkan.so.1'\")\n")
    code = ("import sys\nsys.path.insert(0, %r)\n" % str(tmp_path)
            + "from wgc.runtime.device import Device, VulkanUnavailable\n"
              "try:\n    Device()\nexcept VulkanUnavailable as e:\n    print(e)\n")
    done = _python(code)
    assert done.stdout == ("no Vulkan loader (cannot load library 'libvulkan.so.1'); install a Vulkan loader and "
                           "driver: on Debian/Ubuntu `apt-get install libvulkan1 mesa-vulkan-drivers` "
                           "(mesa-vulkan-drivers holds lavapipe, a CPU device)\n"), done.stderr
