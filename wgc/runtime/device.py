"""Runtime: the Vulkan device, on PyPI `vulkan` (cffi over the system's libvulkan).

Input: a device selector (`--device`: an index into the listed devices or a substring of a
device's name; default: the first discrete or integrated GPU, else the first device, which on a
machine without a GPU is Mesa's lavapipe).  Output: a `Device` that makes buffers with device
addresses, compute pipelines from SPIR-V words with push constants and descriptor-set layouts,
descriptor sets, and records and submits command buffers.

Invariants:
- `vulkan` is imported here only, and only when a device is opened: `import wgc` and
  `wgc compile` never load libvulkan.
- A missing binding, loader or driver is `VulkanUnavailable` with what to install; a selector
  that matches nothing is `DeviceNotFound` (with the list); a failing Vulkan call is
  `DeviceFailure`.  None of them is a Python traceback for the user.
- Hot recording calls go through the raw cffi functions (`vulkan.lib.vkCmd*`) with cdata built
  once (see ../shared/reference/vulkan-emulation.md: the wrapper costs 4-30 µs per call).
- Memory: HOST_VISIBLE | HOST_COHERENT, DEVICE_LOCAL as well where a heap offers both (lavapipe:
  all memory; discrete GPUs: the BAR / ReBAR heap), so buffers are mapped once and read back
  without staging copies; device addresses through `bufferDeviceAddress`.
"""

from __future__ import annotations

import os
from typing import Any

from wgc.cached_dataclass import dataclass

INSTALL_HINT = ("install a Vulkan loader and driver: on Debian/Ubuntu `apt-get install libvulkan1 "
                "mesa-vulkan-drivers` (mesa-vulkan-drivers holds lavapipe, a CPU device)")

BUFFER_USAGE_SHADER_DEVICE_ADDRESS = 0x20000   # missing from the `vulkan` package
MEMORY_ALLOCATE_DEVICE_ADDRESS = 0x2
PIPELINE_STAGE_COMPUTE_SHADER = 0x800
PIPELINE_STAGE_TRANSFER = 0x1000
PIPELINE_STAGE_HOST = 0x4000
ACCESS_SHADER_READ_WRITE = 0x20 | 0x40
ACCESS_TRANSFER_READ_WRITE = 0x800 | 0x1000
ACCESS_HOST_READ_WRITE = 0x2000 | 0x4000
MAX_GROUP_COUNT = 65535


class VulkanUnavailable(Exception):
    """No Vulkan here: the binding, the loader or any device is missing."""


class DeviceNotFound(Exception):
    """A --device selector that matches no device."""


class DeviceFailure(Exception):
    """A Vulkan call failed (out of memory, device lost) or the device lacks a needed feature."""


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    kind: str
    """"discrete", "integrated", "virtual", "cpu" or "other"."""
    api_version: str


_KINDS = {1: "integrated", 2: "discrete", 3: "virtual", 4: "cpu"}


def load_vulkan() -> Any:
    """The `vulkan` module; VulkanUnavailable when the package or libvulkan is missing."""
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")   # quiets the loader's warning, changes nothing else
    try:
        import vulkan
    except ImportError:
        raise VulkanUnavailable("the Python package 'vulkan' is not installed (pip install 'vulkan==1.3.275.1'; "
                                "it is a dependency of wgc)") from None
    except OSError as error:   # cffi could not open libvulkan.so.1
        raise VulkanUnavailable(f"no Vulkan loader ({error}); {INSTALL_HINT}") from None
    return vulkan


def _instance(vk: Any) -> Any:
    app = vk.VkApplicationInfo(pApplicationName="wgc", apiVersion=vk.VK_MAKE_VERSION(1, 3, 0))
    try:
        return vk.vkCreateInstance(vk.VkInstanceCreateInfo(pApplicationInfo=app), None)
    except vk.VkError as error:
        raise VulkanUnavailable(f"no Vulkan driver ({type(error).__name__}); {INSTALL_HINT}") from None


def _describe(vk: Any, index: int, physical: Any) -> DeviceInfo:
    props = vk.vkGetPhysicalDeviceProperties(physical)
    version = props.apiVersion
    text = f"{version >> 22}.{(version >> 12) & 0x3FF}.{version & 0xFFF}"
    return DeviceInfo(index, str(props.deviceName), _KINDS.get(props.deviceType, "other"), text)


def list_devices() -> list[DeviceInfo]:
    """Every Vulkan device of this machine, in the loader's order."""
    vk = load_vulkan()
    instance = _instance(vk)
    try:
        return [_describe(vk, i, p) for i, p in enumerate(_physical_devices(vk, instance))]
    finally:
        vk.vkDestroyInstance(instance, None)


def _physical_devices(vk: Any, instance: Any) -> list[Any]:
    try:
        devices = list(vk.vkEnumeratePhysicalDevices(instance))
    except vk.VkError as error:
        raise VulkanUnavailable(f"no Vulkan device ({type(error).__name__}); {INSTALL_HINT}") from None
    if not devices:
        raise VulkanUnavailable(f"no Vulkan device; {INSTALL_HINT}")
    return devices


def choose_device(devices: list[DeviceInfo], selector: str | None) -> DeviceInfo:
    """The device `selector` names (an index, or a case-insensitive substring of the name); without
    one the first discrete GPU, else the first integrated one, else the first device."""
    if selector is None or selector == "":
        for kind in ("discrete", "integrated"):
            for device in devices:
                if device.kind == kind:
                    return device
        return devices[0]
    if selector.isdigit():
        index = int(selector)
        if index < len(devices):
            return devices[index]
    else:
        for device in devices:
            if selector.lower() in device.name.lower():
                return device
    listed = "; ".join(f"{d.index}: {d.name} ({d.kind})" for d in devices)
    raise DeviceNotFound(f"no Vulkan device '{selector}' (the devices: {listed})")


@dataclass
class Buffer:
    handle: Any
    memory: Any
    size: int
    address: int
    mapped: Any
    """A cffi buffer over the whole mapped range."""

    def write(self, offset: int, data: bytes | bytearray | memoryview) -> None:
        self.mapped[offset:offset + len(data)] = bytes(data)

    def read(self, offset: int = 0, size: int | None = None) -> bytes:
        end = self.size if size is None else offset + size
        return bytes(self.mapped[offset:end])


class Device:
    """One logical device with a compute queue, one command buffer and one fence."""

    def __init__(self, selector: str | None = None) -> None:
        vk = load_vulkan()
        self.vk = vk
        self.ffi = vk.ffi
        self.lib = vk.lib
        self.instance = _instance(vk)
        try:
            physicals = _physical_devices(vk, self.instance)
            infos = [_describe(vk, i, p) for i, p in enumerate(physicals)]
            self.info = choose_device(infos, selector)
            self.physical = physicals[self.info.index]
            self._create()
        except BaseException:
            self.close()
            raise
        self._buffers: list[Buffer] = []

    # ------------------------------------------------------------------ set-up

    def _create(self) -> None:
        vk = self.vk
        props = vk.vkGetPhysicalDeviceProperties(self.physical)
        limits = props.limits
        self.max_push_constants = limits.maxPushConstantsSize
        self.max_group_count = tuple(min(limits.maxComputeWorkGroupCount[i], MAX_GROUP_COUNT) for i in range(3))
        self.max_storage_buffer_range = limits.maxStorageBufferRange
        self.min_storage_offset_alignment = limits.minStorageBufferOffsetAlignment
        self.min_uniform_offset_alignment = limits.minUniformBufferOffsetAlignment
        f13 = vk.VkPhysicalDeviceVulkan13Features()
        f12 = vk.VkPhysicalDeviceVulkan12Features(pNext=self.ffi.addressof(f13))
        f11 = vk.VkPhysicalDeviceVulkan11Features(pNext=self.ffi.addressof(f12))
        f2 = vk.VkPhysicalDeviceFeatures2(pNext=self.ffi.addressof(f11))
        self.lib.vkGetPhysicalDeviceFeatures2(self.physical, self.ffi.addressof(f2))
        required = {"bufferDeviceAddress": f12.bufferDeviceAddress, "vulkanMemoryModel": f12.vulkanMemoryModel,
                    "scalarBlockLayout": f12.scalarBlockLayout, "shaderInt64": f2.features.shaderInt64}
        missing = [name for name, have in required.items() if not have]
        if missing:
            raise DeviceFailure(f"device '{self.info.name}' lacks {', '.join(missing)}, which emulated work "
                                "graphs need")
        # enable the features the emulation ABI requires and every optional one a node shader may use
        # that the device has (16-bit, 8-bit, float64 ...); the ones below cost speed or need more set-up
        self._feature_chain = (f13, f12, f11, f2)
        for name in ("robustBufferAccess", "sparseBinding", "sparseResidencyBuffer", "sparseResidencyImage2D",
                     "sparseResidencyImage3D", "sparseResidency2Samples", "sparseResidency4Samples",
                     "sparseResidency8Samples", "sparseResidency16Samples", "sparseResidencyAliased",
                     "inheritedQueries"):
            setattr(f2.features, name, 0)
        for name in ("bufferDeviceAddressCaptureReplay", "bufferDeviceAddressMultiDevice"):
            setattr(f12, name, 0)
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical)
        compute = [i for i, f in enumerate(families) if f.queueFlags & vk.VK_QUEUE_COMPUTE_BIT]
        if not compute:
            raise DeviceFailure(f"device '{self.info.name}' has no compute queue")
        self.queue_family = compute[0]
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.queue_family, queueCount=1,
                                                pQueuePriorities=[1.0])
        info = vk.VkDeviceCreateInfo(pNext=self.ffi.addressof(f2), queueCreateInfoCount=1,
                                     pQueueCreateInfos=[queue_info])
        self.device = self._call(vk.vkCreateDevice, self.physical, info, None)
        self.queue = vk.vkGetDeviceQueue(self.device, self.queue_family, 0)
        memory = vk.vkGetPhysicalDeviceMemoryProperties(self.physical)
        self._memory_types = [(memory.memoryTypes[i].propertyFlags, memory.memoryTypes[i].heapIndex)
                              for i in range(memory.memoryTypeCount)]
        self.pool = self._call(vk.vkCreateCommandPool, self.device, vk.VkCommandPoolCreateInfo(
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, queueFamilyIndex=self.queue_family), None)
        self.command_buffer = self._call(vk.vkAllocateCommandBuffers, self.device, vk.VkCommandBufferAllocateInfo(
            commandPool=self.pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        self.fence = self._call(vk.vkCreateFence, self.device, vk.VkFenceCreateInfo(), None)
        barrier = vk.VkMemoryBarrier(
            srcAccessMask=ACCESS_SHADER_READ_WRITE | ACCESS_TRANSFER_READ_WRITE | ACCESS_HOST_READ_WRITE,
            dstAccessMask=ACCESS_SHADER_READ_WRITE | ACCESS_TRANSFER_READ_WRITE | ACCESS_HOST_READ_WRITE)
        self._barrier = self.ffi.new("VkMemoryBarrier[1]", [barrier])
        self._all_stages = PIPELINE_STAGE_COMPUTE_SHADER | PIPELINE_STAGE_TRANSFER | PIPELINE_STAGE_HOST

    def _call(self, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except self.vk.VkError as error:
            raise DeviceFailure(f"{function.__name__} failed on '{self.info.name}': {type(error).__name__}") from None

    def close(self) -> None:
        """Destroy everything this device made (safe to call twice)."""
        vk = getattr(self, "vk", None)
        device = getattr(self, "device", None)
        if vk is not None and device is not None:
            vk.vkDeviceWaitIdle(device)
            for buffer in getattr(self, "_buffers", []):
                self._free_buffer(buffer)
            self._buffers = []
            for name in ("fence",):
                vk.vkDestroyFence(device, getattr(self, name), None)
            vk.vkDestroyCommandPool(device, self.pool, None)
            vk.vkDestroyDevice(device, None)
            self.device = None
        instance = getattr(self, "instance", None)
        if vk is not None and instance is not None:
            vk.vkDestroyInstance(instance, None)
            self.instance = None

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------------ memory

    def _memory_types_for(self, bits: int) -> list[int]:
        """Host-visible coherent memory types allowed by `bits`, device-local ones first."""
        vk = self.vk
        host = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        local = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
        chosen = [i for i, (flags, _) in enumerate(self._memory_types)
                  if bits & (1 << i) and flags & host == host]
        return sorted(chosen, key=lambda i: 0 if self._memory_types[i][0] & local else 1)

    def buffer(self, size: int, *, uniform: bool = False) -> Buffer:
        """A mapped buffer of `size` bytes (at least 16), zero-filled, with its device address; in
        device-local host-visible memory where the device has it and it is not full (a GPU's BAR
        heap), else in host memory the device reads over the bus."""
        vk = self.vk
        size = max(16, (size + 15) & ~15)
        usage = (vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT
                 | vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT | BUFFER_USAGE_SHADER_DEVICE_ADDRESS)
        if uniform:
            usage |= vk.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
        handle = self._call(vk.vkCreateBuffer, self.device, vk.VkBufferCreateInfo(
            size=size, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None)
        needs = vk.vkGetBufferMemoryRequirements(self.device, handle)
        flags = vk.VkMemoryAllocateFlagsInfo(flags=MEMORY_ALLOCATE_DEVICE_ADDRESS)
        memory = None
        for type_index in self._memory_types_for(needs.memoryTypeBits):
            try:
                memory = vk.vkAllocateMemory(self.device, vk.VkMemoryAllocateInfo(
                    pNext=self.ffi.addressof(flags), allocationSize=needs.size, memoryTypeIndex=type_index), None)
                break
            except vk.VkError:
                continue
        if memory is None:
            vk.vkDestroyBuffer(self.device, handle, None)
            raise DeviceFailure(f"out of device memory for a buffer of {size} bytes on '{self.info.name}'")
        vk.vkBindBufferMemory(self.device, handle, memory, 0)
        mapped = self._call(vk.vkMapMemory, self.device, memory, 0, size, 0)
        _zero(mapped, size)
        info = vk.VkBufferDeviceAddressInfo(buffer=handle)
        address = self.lib.vkGetBufferDeviceAddress(self.device, self.ffi.addressof(info))
        buffer = Buffer(handle, memory, size, int(address), mapped)
        self._buffers.append(buffer)
        return buffer

    def free(self, buffer: Buffer) -> None:
        if buffer in self._buffers:
            self._buffers.remove(buffer)
            self._free_buffer(buffer)

    def _free_buffer(self, buffer: Buffer) -> None:
        self.vk.vkUnmapMemory(self.device, buffer.memory)
        self.vk.vkDestroyBuffer(self.device, buffer.handle, None)
        self.vk.vkFreeMemory(self.device, buffer.memory, None)

    # ------------------------------------------------------------------ pipelines

    def pipeline_layout(self, sets: list[list[tuple[int, str]]], push_bytes: int) -> tuple[Any, list[Any]]:
        """A pipeline layout with one descriptor-set layout per entry of `sets` ((binding, "storage" |
        "uniform") pairs, visible to compute) and `push_bytes` of push constants."""
        vk = self.vk
        if push_bytes > self.max_push_constants:
            raise DeviceFailure(f"the shaders need {push_bytes} bytes of push constants; '{self.info.name}' "
                                f"offers {self.max_push_constants}")
        layouts = []
        for bindings in sets:
            entries = [vk.VkDescriptorSetLayoutBinding(
                binding=b, descriptorType=(vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER if kind == "uniform"
                                           else vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER),
                descriptorCount=1, stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT) for b, kind in bindings]
            layouts.append(self._call(vk.vkCreateDescriptorSetLayout, self.device,
                                      vk.VkDescriptorSetLayoutCreateInfo(bindingCount=len(entries),
                                                                         pBindings=entries or None), None))
        ranges = [vk.VkPushConstantRange(stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT, offset=0, size=push_bytes)]
        layout = self._call(vk.vkCreatePipelineLayout, self.device, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=len(layouts), pSetLayouts=layouts or None,
            pushConstantRangeCount=1 if push_bytes else 0, pPushConstantRanges=ranges if push_bytes else None), None)
        return layout, layouts

    def pipelines(self, words: bytes, entry_points: list[str], layout: Any) -> dict[str, Any]:
        """One compute pipeline per entry point of the SPIR-V module `words`."""
        vk = self.vk
        module = self._call(vk.vkCreateShaderModule, self.device, vk.VkShaderModuleCreateInfo(
            codeSize=len(words), pCode=words), None)
        try:
            result = {}
            for name in entry_points:
                stage = vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=module,
                                                           pName=name)
                info = vk.VkComputePipelineCreateInfo(stage=stage, layout=layout)
                result[name] = self._call(vk.vkCreateComputePipelines, self.device, None, 1, [info], None)[0]
            return result
        finally:
            vk.vkDestroyShaderModule(self.device, module, None)

    def descriptor_sets(self, layouts: list[Any], writes: list[list[tuple[int, str, Buffer]]]) -> tuple[Any, list[Any]]:
        """A pool and one set per layout, each binding pointing at its whole buffer."""
        vk = self.vk
        storage = sum(1 for w in writes for _, kind, _ in w if kind != "uniform")
        uniform = sum(1 for w in writes for _, kind, _ in w if kind == "uniform")
        sizes = [vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=max(1, storage)),
                 vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, descriptorCount=max(1, uniform))]
        pool = self._call(vk.vkCreateDescriptorPool, self.device, vk.VkDescriptorPoolCreateInfo(
            maxSets=max(1, len(layouts)), poolSizeCount=2, pPoolSizes=sizes), None)
        if not layouts:
            return pool, []
        sets = self._call(vk.vkAllocateDescriptorSets, self.device, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=pool, descriptorSetCount=len(layouts), pSetLayouts=layouts))
        updates = []
        for descriptor_set, bindings in zip(sets, writes):
            for binding, kind, buffer in bindings:
                info = vk.VkDescriptorBufferInfo(buffer=buffer.handle, offset=0, range=buffer.size)
                updates.append(vk.VkWriteDescriptorSet(
                    dstSet=descriptor_set, dstBinding=binding, descriptorCount=1,
                    descriptorType=(vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER if kind == "uniform"
                                    else vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER), pBufferInfo=[info]))
        if updates:
            vk.vkUpdateDescriptorSets(self.device, len(updates), updates, 0, None)
        return pool, list(sets)

    def destroy_pipelines(self, pipelines: dict[str, Any], layout: Any, set_layouts: list[Any], pool: Any) -> None:
        vk = self.vk
        for pipeline in pipelines.values():
            vk.vkDestroyPipeline(self.device, pipeline, None)
        vk.vkDestroyDescriptorPool(self.device, pool, None)
        vk.vkDestroyPipelineLayout(self.device, layout, None)
        for set_layout in set_layouts:
            vk.vkDestroyDescriptorSetLayout(self.device, set_layout, None)

    # ------------------------------------------------------------------ recording

    def begin(self) -> None:
        vk = self.vk
        self.lib.vkResetCommandBuffer(self.command_buffer, 0)
        vk.vkBeginCommandBuffer(self.command_buffer, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))

    def bind(self, pipeline: Any, layout: Any, sets: list[Any]) -> None:
        lib = self.lib
        lib.vkCmdBindPipeline(self.command_buffer, self.vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipeline)
        if sets:
            handles = self.ffi.new("VkDescriptorSet[]", sets)
            lib.vkCmdBindDescriptorSets(self.command_buffer, self.vk.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0,
                                        len(sets), handles, 0, self.ffi.NULL)

    def push(self, layout: Any, data: bytes) -> None:
        self.lib.vkCmdPushConstants(self.command_buffer, layout, self.vk.VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                    len(data), data)

    def dispatch(self, x: int, y: int = 1, z: int = 1) -> None:
        self.lib.vkCmdDispatch(self.command_buffer, x, y, z)

    def barrier(self) -> None:
        """Every earlier shader, transfer and host access before every later one."""
        self.lib.vkCmdPipelineBarrier(self.command_buffer, self._all_stages, self._all_stages, 0, 1, self._barrier,
                                      0, self.ffi.NULL, 0, self.ffi.NULL)

    def submit(self) -> None:
        """End the command buffer, run it and wait for it."""
        vk = self.vk
        vk.vkEndCommandBuffer(self.command_buffer)
        buffers = self.ffi.new("VkCommandBuffer[1]", [self.command_buffer])
        info = vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=buffers)
        self._call(vk.vkQueueSubmit, self.queue, 1, [info], self.fence)
        result = self.lib.vkWaitForFences(self.device, 1, self.ffi.new("VkFence[1]", [self.fence]), 1,
                                          0xFFFFFFFFFFFFFFFF)
        self.lib.vkResetFences(self.device, 1, self.ffi.new("VkFence[1]", [self.fence]))
        if result != 0:
            raise DeviceFailure(f"the device '{self.info.name}' failed while running the graph (VkResult {result})")


def _zero(mapped: Any, size: int) -> None:
    chunk = b"\0" * (1 << 20)
    for start in range(0, size, len(chunk)):
        part = min(len(chunk), size - start)
        mapped[start:start + part] = chunk[:part]
