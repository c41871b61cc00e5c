"""Runtime: the Vulkan device, on PyPI `vulkan` (cffi over the system's libvulkan).

Input: a device selector (`--device`: an index into the listed devices or a substring of a
device's name; default: the first discrete or integrated GPU, else the first device, which on a
machine without a GPU is Mesa's lavapipe).  Output: a `Device` that makes buffers with device
addresses, device memory for images (`images.py` makes them), compute pipelines from SPIR-V words
with push constants and descriptor-set layouts of any descriptor type, descriptor sets
(`DescriptorWrite`: buffers, image views, samplers, texel-buffer views), and records and submits
command buffers; `features` says which optional device features it has (all of them are enabled),
`driver` the driver's name and version, `probes` the kept verdicts of probes of its behaviour
(`loop_probe`).

Invariants:
- `vulkan` is imported here only, and only when a device is opened: `import wgc` and
  `wgc compile` never load libvulkan.
- A missing binding, loader or driver is `VulkanUnavailable` with what to install; a selector
  that matches nothing is `DeviceNotFound` (with the list); a failing Vulkan call is
  `DeviceFailure`.  None of them is a Python traceback for the user.
- Indirect dispatches read their arguments from any buffer (every buffer may be an indirect
  buffer); `barrier` orders shader writes before indirect-argument reads too, and
  `compute_barrier` orders compute work before compute work and indirect reads and nothing else
  (between two levels of a GPU-driven run: nothing else runs between them).
- A submit (`replay`) goes through raw cffi with its `VkSubmitInfo` built once per command buffer
  and one fence, reset after each wait (polled for `spin_ns` first where that is set; 0 by default).
- Hot recording calls go through the raw cffi functions (`vulkan.lib.vkCmd*`) with cdata built
  once (see ../shared/reference/vulkan-emulation.md: the wrapper's cost per call).
- Memory: a buffer the host maps (`host_access=True`, the default) is HOST_VISIBLE | HOST_COHERENT,
  DEVICE_LOCAL as well where a heap offers both (lavapipe: all memory; discrete GPUs: the BAR /
  ReBAR heap), mapped once and read without staging copies.  A buffer the host only fills and reads
  back now and then (`host_access=False`: resources, record arenas) is DEVICE_LOCAL memory the host
  does not map where the device has separate device memory (`Device.staging`: a device-local
  memory type that is not host-visible exists, as on a discrete GPU); `Buffer.write`/`read` then go
  through a host-visible staging buffer and a copy on the queue.  Where memory is unified
  (lavapipe) every buffer is mapped.  Device addresses through `bufferDeviceAddress`.
  `Buffer.host_cached` says whether the host's reads of a mapped buffer go through its caches (a
  GPU's BAR is not: each read crosses the bus); `cached_buffer` makes one that is, or None where
  the device has no HOST_VISIBLE | HOST_COHERENT | HOST_CACHED memory type (`readback.py`).
"""

from __future__ import annotations

import os
import time
from typing import Any

from wgc.cached_dataclass import dataclass
from wgc.emulation_abi import SUBGROUP_OPERATIONS

INSTALL_HINT = ("install a Vulkan loader and driver: on Debian/Ubuntu `apt-get install libvulkan1 "
                "mesa-vulkan-drivers` (mesa-vulkan-drivers holds lavapipe, a CPU device)")

BUFFER_USAGE_SHADER_DEVICE_ADDRESS = 0x20000   # missing from the `vulkan` package
MEMORY_ALLOCATE_DEVICE_ADDRESS = 0x2
PIPELINE_STAGE_DRAW_INDIRECT = 0x2
PIPELINE_STAGE_COMPUTE_SHADER = 0x800
PIPELINE_STAGE_TRANSFER = 0x1000
PIPELINE_STAGE_HOST = 0x4000
PIPELINE_STAGE_ALL_COMMANDS = 0x10000
ACCESS_ATTACHMENTS = 0x80 | 0x100 | 0x200 | 0x400
"""COLOR_ATTACHMENT_READ/WRITE, DEPTH_STENCIL_ATTACHMENT_READ/WRITE."""
ACCESS_INDIRECT_COMMAND_READ = 0x1
ACCESS_SHADER_READ_WRITE = 0x20 | 0x40
ACCESS_TRANSFER_READ_WRITE = 0x800 | 0x1000
ACCESS_HOST_READ_WRITE = 0x2000 | 0x4000
ACCESS_TRANSFER_WRITE = 0x1000
ACCESS_HOST_READ = 0x2000
MAX_GROUP_COUNT = 65535
VK_TIMEOUT = 2
VK_NOT_READY = 1
WAIT_SLICE_NS = 50_000_000
"""How long one wait for the device lasts: a signal is seen within this time."""


_CORE_FEATURES = ("shaderInt16", "shaderFloat64", "shaderInt64", "imageCubeArray", "shaderImageGatherExtended",
                  "shaderStorageImageExtendedFormats", "shaderStorageImageReadWithoutFormat",
                  "shaderStorageImageWriteWithoutFormat", "shaderSampledImageArrayDynamicIndexing",
                  "shaderStorageImageArrayDynamicIndexing", "shaderStorageBufferArrayDynamicIndexing",
                  "shaderUniformBufferArrayDynamicIndexing", "shaderResourceMinLod", "sampleRateShading")
_VULKAN11_FEATURES = ("storageBuffer16BitAccess", "uniformAndStorageBuffer16BitAccess", "storagePushConstant16")
_VULKAN12_FEATURES = ("shaderFloat16", "shaderInt8", "storageBuffer8BitAccess", "uniformAndStorageBuffer8BitAccess",
                      "storagePushConstant8", "runtimeDescriptorArray", "shaderSampledImageArrayNonUniformIndexing",
                      "shaderStorageImageArrayNonUniformIndexing", "shaderStorageBufferArrayNonUniformIndexing",
                      "shaderUniformTexelBufferArrayDynamicIndexing", "shaderStorageTexelBufferArrayDynamicIndexing",
                      "shaderUniformTexelBufferArrayNonUniformIndexing",
                      "shaderStorageTexelBufferArrayNonUniformIndexing", "shaderBufferInt64Atomics",
                      "shaderSharedInt64Atomics")
_VULKAN13_FEATURES = ("shaderDemoteToHelperInvocation", "shaderIntegerDotProduct", "subgroupSizeControl")


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
    """A cffi buffer over the whole mapped range; None for device-local memory the host does not map
    (then `staging` copies)."""
    staging: Any = None
    """The `Device` that copies through a staging buffer when `mapped` is None."""
    length: int = 0
    """The bytes a descriptor of it covers (a resource's own size; `size` is rounded up to 16); 0:
    `size`."""
    device_local: bool = False
    """Its memory is DEVICE_LOCAL (a mapped one: a GPU's BAR heap; else host memory the device reads
    over the bus, where the BAR heap is full or absent)."""
    host_cached: bool = False
    """Its memory is HOST_CACHED: the host's reads of it are cached (lavapipe: all memory); else each
    read of a mapped one is uncached (a GPU's BAR: one transfer over the bus per line)."""
    serial: int = 0
    """Which buffer of its device this is (1, 2, ... in the order they were made): a freed buffer's
    handle and address may be given to a new one, its serial is not."""

    def write(self, offset: int, data: bytes | bytearray | memoryview) -> None:
        if self.mapped is None:
            self.staging.copy_in(self, offset, bytes(data))
            return
        self.mapped[offset:offset + len(data)] = bytes(data)

    def read(self, offset: int = 0, size: int | None = None) -> bytes:
        end = self.size if size is None else offset + size
        if self.mapped is None:
            return self.staging.copy_out(self, offset, end - offset)
        return bytes(self.mapped[offset:end])


@dataclass
class DescriptorWrite:
    """What one binding of a descriptor set points at: `kind` is a VkDescriptorType; `items` one per
    array element: Buffers (storage and uniform buffers), texel-buffer views, or (sampler, image
    view) pairs (samplers, sampled and storage images, combined image samplers; None where a kind
    has no such part)."""

    binding: int
    kind: int
    items: list[Any]


class Device:
    """One logical device with a compute queue, one command buffer (recorded for each submit; the
    ones `record_reusable` makes are replayed as they are) and one fence."""

    def __init__(self, selector: str | None = None, *, staging: bool | None = None, graphics: bool = False) -> None:
        """`staging`: keep `host_access=False` buffers in unmapped device memory behind staging
        copies (True), or map every buffer (False); default: where the device has separate device
        memory.  `graphics`: the graph draws with mesh nodes (`graphics.py`): a queue that also
        draws, VK_EXT_mesh_shader enabled, and layouts, push constants and barriers that cover the
        mesh and fragment stages; a device without mesh shaders is `DeviceFailure`."""
        self.graphics = graphics
        self.shader_stages = 0x20 | ((0x80 | 0x10) if graphics else 0)
        """VkShaderStageFlags of layouts and push constants: COMPUTE (| MESH_EXT | FRAGMENT)."""
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
            self.staging = self.separate_memory if staging is None else staging
            self.spin_ns = 0
            """Nanoseconds `replay` polls the fence (`vkGetFenceStatus`) before it blocks in
            `vkWaitForFences` (a blocked thread wakes some time after the signal): 0, none, until a
            device shows a gain (`benchmarks/submit_wait.py --spin`; on lavapipe it is none, and a
            polling host competes with the device's own threads for the cores)."""
        except BaseException:
            self.close()
            raise
        self._buffers: list[Buffer] = []
        self._made_buffers = 0
        self.probes: dict[str, Any] = {}
        """Verdicts of probes of the device's behaviour, by probe, each run once (`loop_probe`)."""

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
        p12 = vk.VkPhysicalDeviceVulkan12Properties()
        p11 = vk.VkPhysicalDeviceVulkan11Properties(pNext=self.ffi.addressof(p12))
        p2 = vk.VkPhysicalDeviceProperties2(pNext=self.ffi.addressof(p11))
        self.lib.vkGetPhysicalDeviceProperties2(self.physical, self.ffi.addressof(p2))
        self.driver = " ".join(self.ffi.string(text).decode("utf-8", "replace")
                               for text in (p12.driverName, p12.driverInfo) if self.ffi.string(text))
        """The driver's name and version as it gives them (lavapipe: "llvmpipe Mesa 22.3.6 (LLVM 15.0.6)"; may be "")."""
        self.subgroup_size = int(p11.subgroupSize)
        """The subgroup size compute shaders run with (wgc run requires none)."""
        required["subgroup arithmetic and ballot operations in compute shaders"] = (
            p11.subgroupSupportedStages & vk.VK_SHADER_STAGE_COMPUTE_BIT
            and p11.subgroupSupportedOperations & SUBGROUP_OPERATIONS == SUBGROUP_OPERATIONS)
        self.features = {name: bool(getattr(chain, name)) for chain, names in (
            (f2.features, _CORE_FEATURES), (f11, _VULKAN11_FEATURES), (f12, _VULKAN12_FEATURES),
            (f13, _VULKAN13_FEATURES)) for name in names}
        """The device's features by Vulkan name (the ones `pipelines.CAPABILITY_FEATURES` asks for)."""
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
        wanted = vk.VK_QUEUE_COMPUTE_BIT | (vk.VK_QUEUE_GRAPHICS_BIT if self.graphics else 0)
        compute = [i for i, f in enumerate(families) if f.queueFlags & wanted == wanted]
        if not compute:
            raise DeviceFailure(f"device '{self.info.name}' has no {'graphics and ' if self.graphics else ''}"
                                "compute queue")
        self.queue_family = compute[0]
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.queue_family, queueCount=1,
                                                pQueuePriorities=[1.0])
        extensions: list[str] = []
        first_feature: Any = f2
        if self.graphics:
            from wgc.runtime.graphics import mesh_shader_features

            mesh, self.mesh_properties = mesh_shader_features(self, f2)
            if mesh is None:
                raise DeviceFailure(f"device '{self.info.name}' lacks VK_EXT_mesh_shader, which mesh nodes need "
                                    "to draw (lavapipe has it from Mesa 23.2; see the README's set-up)")
            self.mesh_features = mesh
            first_feature = mesh
            extensions.append("VK_EXT_mesh_shader")
        info = vk.VkDeviceCreateInfo(pNext=self.ffi.addressof(first_feature), queueCreateInfoCount=1,
                                     pQueueCreateInfos=[queue_info], enabledExtensionCount=len(extensions),
                                     ppEnabledExtensionNames=extensions or None)
        self.device = self.call(vk.vkCreateDevice, self.physical, info, None)
        self.queue = vk.vkGetDeviceQueue(self.device, self.queue_family, 0)
        memory = vk.vkGetPhysicalDeviceMemoryProperties(self.physical)
        self._memory_types = [(memory.memoryTypes[i].propertyFlags, memory.memoryTypes[i].heapIndex)
                              for i in range(memory.memoryTypeCount)]
        local, host = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
        self.separate_memory = any(flags & local and not flags & host for flags, _ in self._memory_types)
        """The device has device-local memory the host cannot map (a discrete GPU)."""
        self.pool = self.call(vk.vkCreateCommandPool, self.device, vk.VkCommandPoolCreateInfo(
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, queueFamilyIndex=self.queue_family), None)
        self.command_buffer = self.call(vk.vkAllocateCommandBuffers, self.device, vk.VkCommandBufferAllocateInfo(
            commandPool=self.pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        self.fence = self.call(vk.vkCreateFence, self.device, vk.VkFenceCreateInfo(), None)
        self._fences = self.ffi.new("VkFence[1]", [self.fence])
        self._submits: dict[Any, Any] = {}
        """A `VkSubmitInfo` (and the array it points at) per command buffer `replay` has run, built once."""
        barrier = vk.VkMemoryBarrier(
            srcAccessMask=ACCESS_SHADER_READ_WRITE | ACCESS_TRANSFER_READ_WRITE | ACCESS_HOST_READ_WRITE,
            dstAccessMask=(ACCESS_SHADER_READ_WRITE | ACCESS_TRANSFER_READ_WRITE | ACCESS_HOST_READ_WRITE
                           | ACCESS_INDIRECT_COMMAND_READ))
        self._barrier = self.ffi.new("VkMemoryBarrier[1]", [barrier])
        self._all_stages = (PIPELINE_STAGE_COMPUTE_SHADER | PIPELINE_STAGE_TRANSFER | PIPELINE_STAGE_HOST
                            | PIPELINE_STAGE_DRAW_INDIRECT)
        self._compute_barrier = self.ffi.new("VkMemoryBarrier[1]", [vk.VkMemoryBarrier(
            srcAccessMask=ACCESS_SHADER_READ_WRITE,
            dstAccessMask=ACCESS_SHADER_READ_WRITE | ACCESS_INDIRECT_COMMAND_READ)])
        self._host_read_barrier = self.ffi.new("VkMemoryBarrier[1]", [vk.VkMemoryBarrier(
            srcAccessMask=ACCESS_TRANSFER_WRITE, dstAccessMask=ACCESS_HOST_READ)])
        if self.graphics:          # draws too: every stage, attachment accesses included
            barrier.srcAccessMask |= ACCESS_ATTACHMENTS
            barrier.dstAccessMask |= ACCESS_ATTACHMENTS
            self._barrier = self.ffi.new("VkMemoryBarrier[1]", [barrier])
            self._all_stages = PIPELINE_STAGE_ALL_COMMANDS

    def call(self, function: Any, *args: Any) -> Any:
        try:
            return function(*args)
        except self.vk.VkError as error:
            raise DeviceFailure(f"{function.__name__} failed on '{self.info.name}': {type(error).__name__}") from None

    def close(self) -> None:
        """Destroy everything this device made (safe to call twice). Not while it still runs work a
        signal stopped waiting for (`busy`): destroying what it uses could crash the driver, and
        waiting could take for ever; the process is ending, and its end frees the device."""
        if getattr(self, "busy", False):
            return
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

    def _memory_types_for(self, bits: int, mapped: bool = True) -> list[int]:
        """Memory types allowed by `bits`: `mapped`: host-visible coherent ones, device-local ones
        first; else device-local ones, those the host cannot see first."""
        vk = self.vk
        host = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
        local = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
        if not mapped:
            chosen = [i for i, (flags, _) in enumerate(self._memory_types) if bits & (1 << i) and flags & local]
            return sorted(chosen, key=lambda i: 1 if self._memory_types[i][0] & host else 0)
        chosen = [i for i, (flags, _) in enumerate(self._memory_types)
                  if bits & (1 << i) and flags & host == host]
        return sorted(chosen, key=lambda i: 0 if self._memory_types[i][0] & local else 1)

    def allocate(self, size: int, type_bits: int, what: str) -> Any:
        """Device memory of `size` bytes for an image (`type_bits` from its requirements), device-local
        where the device has it."""
        vk = self.vk
        local = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
        allowed = [i for i in range(len(self._memory_types)) if type_bits & (1 << i)]
        for type_index in sorted(allowed, key=lambda i: 0 if self._memory_types[i][0] & local else 1):
            try:
                return vk.vkAllocateMemory(self.device, vk.VkMemoryAllocateInfo(
                    allocationSize=size, memoryTypeIndex=type_index), None)
            except vk.VkError:
                continue
        raise DeviceFailure(f"out of device memory for {what} ({size} bytes) on '{self.info.name}'")

    def buffer(self, size: int, *, uniform: bool = False, host_access: bool = True, usage: int = 0) -> Buffer:
        made = self._buffer(size, uniform, host_access, usage, None)
        assert made is not None
        return made

    def cached_buffer(self, size: int) -> Buffer | None:
        """A mapped buffer of `size` bytes in HOST_VISIBLE | HOST_COHERENT | HOST_CACHED memory (the
        host's reads of it are cached; coherent: no invalidation before them), host memory before
        device-local memory; None where the device has no such type or it is full."""
        vk = self.vk
        wanted = (vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                  | vk.VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
        local = vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
        types = sorted((i for i, (flags, _) in enumerate(self._memory_types) if flags & wanted == wanted),
                       key=lambda i: 1 if self._memory_types[i][0] & local else 0)
        return self._buffer(size, False, True, 0, types) if types else None

    def _buffer(self, size: int, uniform: bool, host_access: bool, usage: int, types: list[int] | None) -> Buffer | None:
        """A buffer of `size` bytes (at least 16), zero-filled, with its device address.  Mapped, in
        device-local host-visible memory where the device has it and it is not full (a GPU's BAR
        heap), else in host memory the device reads over the bus; with `host_access=False` on a
        device with `staging`, in device-local memory the host reaches through staging copies.
        `usage`: VkBufferUsageFlags to add (texel buffers).  `types`: only these memory types, in
        this order, and None where none has room (`cached_buffer`)."""
        vk = self.vk
        size = max(16, (size + 15) & ~15)
        usage |= (vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT
                 | vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT | BUFFER_USAGE_SHADER_DEVICE_ADDRESS
                 | vk.VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT)
        if uniform:
            usage |= vk.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
        handle = self.call(vk.vkCreateBuffer, self.device, vk.VkBufferCreateInfo(
            size=size, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None)
        needs = vk.vkGetBufferMemoryRequirements(self.device, handle)
        flags = vk.VkMemoryAllocateFlagsInfo(flags=MEMORY_ALLOCATE_DEVICE_ADDRESS)
        memory = None
        mapped = host_access or not self.staging
        local = cached = False
        candidates = self._memory_types_for(needs.memoryTypeBits, mapped)
        if types is not None:
            candidates = [i for i in types if i in candidates]
        for type_index in candidates:
            try:
                memory = vk.vkAllocateMemory(self.device, vk.VkMemoryAllocateInfo(
                    pNext=self.ffi.addressof(flags), allocationSize=needs.size, memoryTypeIndex=type_index), None)
                local = bool(self._memory_types[type_index][0] & vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
                cached = bool(self._memory_types[type_index][0] & vk.VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
                break
            except vk.VkError:
                continue
        if memory is None:
            vk.vkDestroyBuffer(self.device, handle, None)
            if types is not None:
                return None
            raise DeviceFailure(f"out of device memory for a buffer of {size} bytes on '{self.info.name}'")
        vk.vkBindBufferMemory(self.device, handle, memory, 0)
        info = vk.VkBufferDeviceAddressInfo(buffer=handle)
        address = self.lib.vkGetBufferDeviceAddress(self.device, self.ffi.addressof(info))
        if mapped:
            view = self.call(vk.vkMapMemory, self.device, memory, 0, size, 0)
            _zero(view, size)
            buffer = Buffer(handle, memory, size, int(address), view, device_local=local, host_cached=cached)
        else:
            buffer = Buffer(handle, memory, size, int(address), None, self, device_local=local)
        self._made_buffers += 1
        buffer.serial = self._made_buffers
        self._buffers.append(buffer)
        if not mapped:
            self.begin()
            self.lib.vkCmdFillBuffer(self.command_buffer, handle, 0, size, 0)
            self.submit()
        return buffer

    def copy_in(self, buffer: Buffer, offset: int, data: bytes) -> None:
        """`data` into an unmapped buffer at `offset`, through a staging buffer (waits)."""
        if not data:
            return
        stage = self.buffer(len(data))
        try:
            stage.write(0, data)
            self._copy(stage, 0, buffer, offset, len(data))
        finally:
            self.free(stage)

    def copy_out(self, buffer: Buffer, offset: int, size: int) -> bytes:
        """`size` bytes of an unmapped buffer from `offset`, through a staging buffer (waits)."""
        if size <= 0:
            return b""
        stage = self.buffer(size)
        try:
            self._copy(buffer, offset, stage, 0, size)
            return stage.read(0, size)
        finally:
            self.free(stage)

    def _copy(self, source: Buffer, source_offset: int, target: Buffer, target_offset: int, size: int) -> None:
        self.begin()
        self.barrier()
        self.copy(source, source_offset, target, target_offset, size)
        self.barrier()
        self.submit()

    def copy(self, source: Buffer, source_offset: int, target: Buffer, target_offset: int, size: int) -> None:
        """Record a copy of `size` bytes in the command buffer being recorded (barriers are the caller's)."""
        region = self.vk.VkBufferCopy(srcOffset=source_offset, dstOffset=target_offset, size=size)
        self.vk.vkCmdCopyBuffer(self.command_buffer, source.handle, target.handle, 1, [region])

    def free(self, buffer: Buffer) -> None:
        if buffer in self._buffers:
            self._buffers.remove(buffer)
            self._free_buffer(buffer)

    def _free_buffer(self, buffer: Buffer) -> None:
        if buffer.mapped is not None:
            self.vk.vkUnmapMemory(self.device, buffer.memory)
        self.vk.vkDestroyBuffer(self.device, buffer.handle, None)
        self.vk.vkFreeMemory(self.device, buffer.memory, None)

    # ------------------------------------------------------------------ pipelines

    def pipeline_layout(self, sets: list[list[tuple[int, int, int]]], push_bytes: int) -> tuple[Any, list[Any]]:
        """A pipeline layout with one descriptor-set layout per entry of `sets` ((binding,
        VkDescriptorType, descriptor count) triples, visible to `shader_stages`) and `push_bytes` of push
        constants."""
        vk = self.vk
        if push_bytes > self.max_push_constants:
            raise DeviceFailure(f"the shaders need {push_bytes} bytes of push constants; '{self.info.name}' "
                                f"offers {self.max_push_constants}")
        layouts = []
        for bindings in sets:
            entries = [vk.VkDescriptorSetLayoutBinding(binding=b, descriptorType=kind, descriptorCount=count,
                                                       stageFlags=self.shader_stages)
                       for b, kind, count in bindings]
            layouts.append(self.call(vk.vkCreateDescriptorSetLayout, self.device,
                                     vk.VkDescriptorSetLayoutCreateInfo(bindingCount=len(entries),
                                                                        pBindings=entries or None), None))
        ranges = [vk.VkPushConstantRange(stageFlags=self.shader_stages, offset=0, size=push_bytes)]
        layout = self.call(vk.vkCreatePipelineLayout, self.device, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=len(layouts), pSetLayouts=layouts or None,
            pushConstantRangeCount=1 if push_bytes else 0, pPushConstantRanges=ranges if push_bytes else None), None)
        return layout, layouts

    def specialization_info(self, specialization: dict[int, bytes] | None) -> tuple[dict[str, Any], bytes]:
        """(`{"pSpecializationInfo": ...}` for a shader stage's create info, the packed bytes it points
        at: keep them alive until the pipeline is made); SpecId -> the constant's bytes, packed in
        SpecId order; ({}, b"") without constants."""
        if not specialization:
            return {}, b""
        vk = self.vk
        entries, offset = [], 0
        for spec_id in sorted(specialization):
            size = len(specialization[spec_id])
            entries.append(vk.VkSpecializationMapEntry(constantID=spec_id, offset=offset, size=size))
            offset += size
        data = b"".join(specialization[k] for k in sorted(specialization))
        info = vk.VkSpecializationInfo(mapEntryCount=len(entries), pMapEntries=entries, dataSize=len(data),
                                       pData=vk.ffi.from_buffer(data))
        return {"pSpecializationInfo": info}, data

    def pipelines(self, words: bytes, entry_points: list[str], layout: Any,
                  specialization: dict[int, bytes] | None = None) -> dict[str, Any]:
        """One compute pipeline per entry point of the SPIR-V module `words`; `specialization`: SpecId
        -> the constant's bytes (a VkSpecializationInfo for every stage)."""
        vk = self.vk
        info_kwargs, _packed = self.specialization_info(specialization)
        module = self.call(vk.vkCreateShaderModule, self.device, vk.VkShaderModuleCreateInfo(
            codeSize=len(words), pCode=words), None)
        try:
            result = {}
            for name in entry_points:
                stage = vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=module,
                                                           pName=name, **info_kwargs)
                info = vk.VkComputePipelineCreateInfo(stage=stage, layout=layout)
                result[name] = self.call(vk.vkCreateComputePipelines, self.device, None, 1, [info], None)[0]
            return result
        finally:
            vk.vkDestroyShaderModule(self.device, module, None)

    def descriptor_sets(self, layouts: list[Any], writes: list[list[DescriptorWrite]]) -> tuple[Any, list[Any]]:
        """A pool and one set per layout, each binding pointing at its buffers (whole), image views
        (GENERAL layout), samplers or texel-buffer views."""
        vk = self.vk
        counts: dict[int, int] = {}
        for w in (w for set_writes in writes for w in set_writes):
            counts[w.kind] = counts.get(w.kind, 0) + len(w.items)
        sizes = [vk.VkDescriptorPoolSize(type=kind, descriptorCount=count) for kind, count in counts.items()] or \
            [vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=1)]
        pool = self.call(vk.vkCreateDescriptorPool, self.device, vk.VkDescriptorPoolCreateInfo(
            maxSets=max(1, len(layouts)), poolSizeCount=len(sizes), pPoolSizes=sizes), None)
        if not layouts:
            return pool, []
        sets = self.call(vk.vkAllocateDescriptorSets, self.device, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=pool, descriptorSetCount=len(layouts), pSetLayouts=layouts))
        updates = []
        for descriptor_set, bindings in zip(sets, writes):
            for write in bindings:
                kind = write.kind
                common = dict(dstSet=descriptor_set, dstBinding=write.binding, descriptorCount=len(write.items),
                              descriptorType=kind)
                if kind in (vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER):
                    infos = [vk.VkDescriptorBufferInfo(buffer=b.handle, offset=0, range=b.length or b.size)
                             for b in write.items]
                    updates.append(vk.VkWriteDescriptorSet(**common, pBufferInfo=infos))
                elif kind in (vk.VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, vk.VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER):
                    updates.append(vk.VkWriteDescriptorSet(**common, pTexelBufferView=list(write.items)))
                else:   # (sampler or None, image view or None) pairs
                    infos = [vk.VkDescriptorImageInfo(sampler=sampler, imageView=view,
                                                      imageLayout=vk.VK_IMAGE_LAYOUT_GENERAL if view else 0)
                             for sampler, view in write.items]
                    updates.append(vk.VkWriteDescriptorSet(**common, pImageInfo=infos))
        if updates:
            vk.vkUpdateDescriptorSets(self.device, len(updates), updates, 0, None)
        return pool, list(sets)

    def destroy_pipelines(self, pipelines: dict[Any, Any], layout: Any, set_layouts: list[Any], pool: Any) -> None:
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
        self.lib.vkCmdPushConstants(self.command_buffer, layout, self.shader_stages, 0, len(data), data)

    def dispatch(self, x: int, y: int = 1, z: int = 1) -> None:
        self.lib.vkCmdDispatch(self.command_buffer, x, y, z)

    def dispatch_indirect(self, buffer: Buffer, offset: int) -> None:
        """A dispatch whose group counts the device reads at `offset` in `buffer` when it runs."""
        self.lib.vkCmdDispatchIndirect(self.command_buffer, buffer.handle, offset)

    def barrier(self) -> None:
        """Every earlier shader, transfer and host access before every later one (indirect
        arguments included)."""
        self.lib.vkCmdPipelineBarrier(self.command_buffer, self._all_stages, self._all_stages, 0, 1, self._barrier,
                                      0, self.ffi.NULL, 0, self.ffi.NULL)

    def host_read_barrier(self) -> None:
        """Earlier transfer writes before the host's reads (after a copy the host reads once the
        submit's fence is signalled: a fence alone does not make device writes visible to the host)."""
        self.lib.vkCmdPipelineBarrier(self.command_buffer, PIPELINE_STAGE_TRANSFER, PIPELINE_STAGE_HOST, 0, 1,
                                      self._host_read_barrier, 0, self.ffi.NULL, 0, self.ffi.NULL)

    def compute_barrier(self) -> None:
        """Earlier compute shaders' memory accesses before later compute shaders and indirect-argument
        reads, and nothing else (no transfer, host or graphics stage: `barrier` orders those); on a
        device made for drawing, `barrier`."""
        if self.graphics:
            self.barrier()
            return
        self.lib.vkCmdPipelineBarrier(self.command_buffer, PIPELINE_STAGE_COMPUTE_SHADER,
                                      PIPELINE_STAGE_COMPUTE_SHADER | PIPELINE_STAGE_DRAW_INDIRECT, 0, 1,
                                      self._compute_barrier, 0, self.ffi.NULL, 0, self.ffi.NULL)

    def submit(self) -> None:
        """End the command buffer, run it and wait for it."""
        self.vk.vkEndCommandBuffer(self.command_buffer)
        self.replay(self.command_buffer)

    def record_reusable(self) -> None:
        """Record the following commands (bind, push, dispatch ...) into a command buffer of their
        own, which `end_reusable` returns and `replay` runs as often as wanted."""
        vk = self.vk
        self._one_time = self.command_buffer
        self.command_buffer = self.call(vk.vkAllocateCommandBuffers, self.device, vk.VkCommandBufferAllocateInfo(
            commandPool=self.pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        vk.vkBeginCommandBuffer(self.command_buffer, vk.VkCommandBufferBeginInfo(flags=0))

    def end_reusable(self) -> Any:
        recorded = self.command_buffer
        self.vk.vkEndCommandBuffer(recorded)
        self.command_buffer = self._one_time
        return recorded

    def free_commands(self, recorded: Any) -> None:
        self._submits.pop(recorded, None)
        self.lib.vkFreeCommandBuffers(self.device, self.pool, 1, self.ffi.new("VkCommandBuffer[1]", [recorded]))

    def replay(self, recorded: Any) -> None:
        """Run a recorded command buffer and wait for it."""
        submit = self._submits.get(recorded)
        if submit is None:          # raw cffi, built once per command buffer: the wrapper costs tens of µs a call
            buffers = self.ffi.new("VkCommandBuffer[1]", [recorded])
            info = self.ffi.new("VkSubmitInfo[1]", [{"sType": self.vk.VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                                     "commandBufferCount": 1, "pCommandBuffers": buffers}])
            submit = self._submits[recorded] = (info, buffers)
        result = self.lib.vkQueueSubmit(self.queue, 1, submit[0], self.fence)
        if result != 0:
            raise DeviceFailure(f"vkQueueSubmit failed on '{self.info.name}' (VkResult {result})")
        fences = self._fences
        self.busy = True            # stays so if a signal ends the wait: `close` then leaves the device alone
        result = VK_TIMEOUT
        if self.spin_ns:
            status, deadline = self.lib.vkGetFenceStatus, time.perf_counter_ns() + self.spin_ns
            while True:
                result = status(self.device, self.fence)
                if result != VK_NOT_READY:
                    break
                if time.perf_counter_ns() > deadline:
                    result = VK_TIMEOUT
                    break
        while result == VK_TIMEOUT:     # in slices: Python runs its signal handlers between two
            result = self.lib.vkWaitForFences(self.device, 1, fences, 1, WAIT_SLICE_NS)
        self.busy = False
        self.lib.vkResetFences(self.device, 1, fences)
        if result != 0:
            raise DeviceFailure(f"the device '{self.info.name}' failed while running the graph (VkResult {result})")


def _zero(mapped: Any, size: int) -> None:
    chunk = b"\0" * (1 << 20)
    for start in range(0, size, len(chunk)):
        part = min(len(chunk), size - start)
        mapped[start:start + part] = chunk[:part]
