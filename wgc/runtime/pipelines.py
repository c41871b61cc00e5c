"""Runtime: compute pipelines and descriptor sets for an emulated module.

Input: an open `device.Device`, the emulated SPIR-V module (bytes), the `program.Program` and
what each (set, binding) points at (`device.DescriptorWrite`: buffers, image views, samplers,
texel-buffer views), made by `run.Session`.  Output: `GraphPipelines`: one pipeline layout (a descriptor-set
layout per set the module's variables use, push constants of the emulation ABI plus the user's
block), compute pipelines of the node entry points (each made when a schedule first binds it, with
the level tail or without: `GraphPipelines.pipeline`), and descriptor sets pointing at the buffers.

Invariants: the bindings come from the module itself (`module_bindings`: the variables an
`OpEntryPoint` lists with `DescriptorSet`/`Binding` decorations), so the layout follows exactly
what the shaders use; a capability of the module whose device feature is off
(`CAPABILITY_FEATURES`) is a `DeviceFailure` naming both, before any pipeline is made.
"""

from __future__ import annotations

import struct
from typing import Any

from wgc import emulation_abi as abi
from wgc.cached_dataclass import dataclass, field
from wgc.runtime.device import DescriptorWrite, Device, DeviceFailure
from wgc.runtime.program import Program

_OP_ENTRY_POINT = 15
_OP_DECORATE = 71
_DECORATION_BINDING = 33
_DECORATION_DESCRIPTOR_SET = 34


_OP_CAPABILITY = 17
_OP_TYPE_IMAGE = 25
_OP_TYPE_ARRAY = 28
_OP_TYPE_RUNTIME_ARRAY = 29
_OP_TYPE_POINTER = 32
_OP_VARIABLE = 59

CAPABILITY_FEATURES = {
    10: "shaderFloat64", 22: "shaderInt16", 25: "shaderImageGatherExtended", 34: "imageCubeArray",
    45: "imageCubeArray", 42: "shaderResourceMinLod", 49: "shaderStorageImageExtendedFormats",
    55: "shaderStorageImageReadWithoutFormat", 56: "shaderStorageImageWriteWithoutFormat",
    29: "shaderSampledImageArrayDynamicIndexing", 31: "shaderStorageImageArrayDynamicIndexing",
    39: "shaderInt8", 5302: "runtimeDescriptorArray",
    5307: "shaderSampledImageArrayNonUniformIndexing", 5308: "shaderStorageBufferArrayNonUniformIndexing",
    5309: "shaderStorageImageArrayNonUniformIndexing", 5311: "shaderUniformTexelBufferArrayNonUniformIndexing",
    5312: "shaderStorageTexelBufferArrayNonUniformIndexing", 5304: "shaderUniformTexelBufferArrayDynamicIndexing",
    5305: "shaderStorageTexelBufferArrayDynamicIndexing",
}
"""SPIR-V capabilities (by number) a device feature must back (`Device.features`)."""

CAPABILITY_NAMES = {
    10: "Float64", 22: "Int16", 25: "ImageGatherExtended", 34: "ImageCubeArray", 45: "SampledCubeArray",
    42: "MinLod", 49: "StorageImageExtendedFormats", 55: "StorageImageReadWithoutFormat",
    56: "StorageImageWriteWithoutFormat", 29: "SampledImageArrayDynamicIndexing",
    31: "StorageImageArrayDynamicIndexing", 39: "Int8", 5302: "RuntimeDescriptorArray",
    5307: "SampledImageArrayNonUniformIndexing", 5308: "StorageBufferArrayNonUniformIndexing",
    5309: "StorageImageArrayNonUniformIndexing", 5311: "UniformTexelBufferArrayNonUniformIndexing",
    5312: "StorageTexelBufferArrayNonUniformIndexing", 5304: "UniformTexelBufferArrayDynamicIndexing",
    5305: "StorageTexelBufferArrayDynamicIndexing",
}


@dataclass(frozen=True)
class ModuleInterface:
    entry_points: tuple[str, ...]
    bindings: frozenset[tuple[int, int]]
    """(set, binding) of every decorated variable some entry point lists."""
    capabilities: frozenset[int] = frozenset()
    image_formats: dict[tuple[int, int], int] = field(default_factory=dict)
    """(set, binding) -> the SPIR-V ImageFormat of the storage image or texel buffer there."""


_OP_NAME = 5
_OP_TYPE_BOOL = 20
_OP_TYPE_INT = 21
_OP_TYPE_FLOAT = 22
_OP_SPEC_CONSTANT_TRUE = 48
_OP_SPEC_CONSTANT_FALSE = 49
_OP_SPEC_CONSTANT = 50
_DECORATION_SPEC_ID = 1


EMULATION_SPEC_IDS = (abi.SUBGROUP_SIZE_SPEC_ID, abi.LEVEL_TAIL_SPEC_ID)
"""The SpecIds the emulation ABI reserves ("Specialization constant"): set by the runtime, never a
program's own constants."""


@dataclass(frozen=True)
class SpecConstantInfo:
    """A specialization constant of a module: its SpecId, OpName (may be empty), scalar kind
    ("bool", "int", "uint", "float") and width in bits."""
    spec_id: int
    name: str
    kind: str
    bits: int


def module_spec_constants(module: bytes) -> list[SpecConstantInfo]:
    """The scalar specialization constants (`OpSpecConstant*` decorated `SpecId`) of a SPIR-V module."""
    words = struct.unpack(f"<{len(module) // 4}I", module[: len(module) // 4 * 4])
    names: dict[int, str] = {}
    types: dict[int, tuple[str, int]] = {}
    constants: dict[int, int] = {}           # result id -> its type
    spec_ids: dict[int, int] = {}
    at = 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        operands = words[at + 1:at + count]
        if opcode == _OP_NAME and len(operands) >= 2:
            raw = struct.pack(f"<{len(operands) - 1}I", *operands[1:])
            names[operands[0]] = raw[:raw.find(b"\0") if b"\0" in raw else len(raw)].decode(errors="replace")
        elif opcode == _OP_TYPE_BOOL and operands:
            types[operands[0]] = ("bool", 32)
        elif opcode == _OP_TYPE_INT and len(operands) >= 3:
            types[operands[0]] = ("int" if operands[2] else "uint", operands[1])
        elif opcode == _OP_TYPE_FLOAT and len(operands) >= 2:
            types[operands[0]] = ("float", operands[1])
        elif opcode in (_OP_SPEC_CONSTANT_TRUE, _OP_SPEC_CONSTANT_FALSE, _OP_SPEC_CONSTANT) and len(operands) >= 2:
            constants[operands[1]] = operands[0]
        elif opcode == _OP_DECORATE and len(operands) >= 3 and operands[1] == _DECORATION_SPEC_ID:
            spec_ids[operands[0]] = operands[2]
        at += max(count, 1)
    return [SpecConstantInfo(spec_ids[c], names.get(c, ""), *types[t])
            for c, t in constants.items() if c in spec_ids and t in types
            and spec_ids[c] not in EMULATION_SPEC_IDS]      # the emulation's own, set by the runtime


def missing_features(interface: ModuleInterface, features: dict[str, bool]) -> list[str]:
    """'Capability (feature)' for each capability of a module whose device feature is off."""
    return [f"{CAPABILITY_NAMES[c]} ({CAPABILITY_FEATURES[c]})"
            for c in sorted(interface.capabilities)
            if c in CAPABILITY_FEATURES and not features.get(CAPABILITY_FEATURES[c], False)]


def module_bindings(module: bytes) -> ModuleInterface:
    """The entry point names, used (set, binding) pairs, capabilities and storage-image formats of a
    SPIR-V module."""
    words = struct.unpack(f"<{len(module) // 4}I", module[: len(module) // 4 * 4])
    names: list[str] = []
    storage_formats: dict[int, int] = {}     # OpTypeImage with Sampled 2 -> format
    pointee: dict[int, int] = {}             # pointer and array types -> what they hold
    variables: dict[int, int] = {}           # variable -> its pointer type
    capabilities: set[int] = set()
    interface: set[int] = set()
    sets: dict[int, int] = {}
    binds: dict[int, int] = {}
    at = 5
    while at < len(words):
        count, opcode = words[at] >> 16, words[at] & 0xFFFF
        operands = words[at + 1:at + count]
        if opcode == _OP_ENTRY_POINT:
            raw = struct.pack(f"<{len(operands) - 2}I", *operands[2:])
            end = raw.index(b"\0")
            names.append(raw[:end].decode())
            interface.update(operands[2 + end // 4 + 1:])
        elif opcode == _OP_TYPE_IMAGE and operands[6] == 2:
            storage_formats[operands[0]] = operands[7]
        elif opcode in (_OP_TYPE_ARRAY, _OP_TYPE_RUNTIME_ARRAY):
            pointee[operands[0]] = operands[1]
        elif opcode == _OP_TYPE_POINTER:
            pointee[operands[0]] = operands[2]
        elif opcode == _OP_VARIABLE:
            variables[operands[1]] = operands[0]
        elif opcode == _OP_CAPABILITY and operands:
            capabilities.add(operands[0])
        elif opcode == _OP_DECORATE and len(operands) >= 3:
            if operands[1] == _DECORATION_BINDING:
                binds[operands[0]] = operands[2]
            elif operands[1] == _DECORATION_DESCRIPTOR_SET:
                sets[operands[0]] = operands[2]
        at += max(count, 1)
    used = frozenset((sets.get(v, 0), binds[v]) for v in interface if v in binds)
    formats = {}
    for variable, type_ in variables.items():
        while type_ in pointee:
            type_ = pointee[type_]
        if type_ in storage_formats and variable in binds and variable in interface:
            formats[(sets.get(variable, 0), binds[variable])] = storage_formats[type_]
    return ModuleInterface(tuple(names), used, frozenset(capabilities), formats)


class GraphPipelines:
    """The pipelines of one emulated module, with its resources bound."""

    def __init__(self, device: Device, module: bytes, program: Program,
                 bindings: dict[tuple[int, int], DescriptorWrite], user_push_bytes: int,
                 specialization: dict[int, bytes] | None = None) -> None:
        self.device = device
        interface = module_bindings(module)
        missing = missing_features(interface, device.features)
        if missing:
            raise DeviceFailure(f"the graph's shaders need {', '.join(missing)}, which '{device.info.name}' lacks")
        max_set = max((s for s, _ in interface.bindings), default=-1)
        sets: list[list[tuple[int, int, int]]] = [[] for _ in range(max_set + 1)]
        writes: list[list[DescriptorWrite]] = [[] for _ in range(max_set + 1)]
        for set_, binding in sorted(interface.bindings):
            write = bindings[(set_, binding)]
            sets[set_].append((binding, write.kind, len(write.items)))
            writes[set_].append(write)
        # at least 16 bytes: the GPU-driven schedule's meta shader (`indirect_setup`) shares this layout, so
        # that the graph's descriptor sets stay bound across its dispatches
        push = abi.USER_PUSH_CONSTANT_OFFSET + user_push_bytes if user_push_bytes else 16
        self.layout, self.set_layouts = device.pipeline_layout(sets, push)
        self.pool = None
        self.module = module
        self._pipelines: dict[tuple[str, bool], Any] = {}
        try:
            self.pool, self.sets = device.descriptor_sets(self.set_layouts, writes)
            # the emulation's own constants (emulation ABI "Specialization constant"): ignored where undeclared
            self._values = {**(specialization or {}),
                            abi.SUBGROUP_SIZE_SPEC_ID: int(getattr(device, "subgroup_size", 0)).to_bytes(4, "little")}
        except BaseException:
            self.close()
            raise

    def _specialization(self, tail: bool) -> dict[int, bytes]:
        return {**self._values, abi.LEVEL_TAIL_SPEC_ID: int(tail).to_bytes(4, "little")}

    def pipeline(self, entry_point: str, tail: bool = False) -> Any:
        """The pipeline of a compute entry point (made on first use: a run makes only those it binds):
        for dispatches whose NodeContext `level` is 0 (`tail` false: the level tail folded away,
        emulation ABI "Level tail"), or for those whose `level` may be set (only GPU-driven runs with
        fused levels ask for it)."""
        key = (entry_point, tail)
        if key not in self._pipelines:
            made = self.device.pipelines(self.module, [entry_point], self.layout, self._specialization(tail))
            self._pipelines[key] = made[entry_point]
        return self._pipelines[key]

    def bind(self, device: Device, pipeline: Any) -> None:
        device.bind(pipeline, self.layout, self.sets)

    def close(self) -> None:
        if self.layout is not None:
            pool = self.pool if self.pool is not None else self.device.descriptor_sets([], [])[0]
            self.device.destroy_pipelines(self._pipelines, self.layout, self.set_layouts, pool)
            self.layout = None
