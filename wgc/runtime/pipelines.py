"""Runtime: compute pipelines and descriptor sets for an emulated module.

Input: an open `device.Device`, the emulated SPIR-V module (bytes), the `program.Program` and the
resource buffers a dispatch binds.  Output: `GraphPipelines`: one pipeline layout (a descriptor-set
layout per set the module's variables use, push constants of the emulation ABI plus the user's
block), one compute pipeline per node entry point, and descriptor sets pointing at the buffers.

Invariants: the bindings come from the module itself (`module_bindings`: the variables an
`OpEntryPoint` lists with `DescriptorSet`/`Binding` decorations), so the layout follows exactly
what the shaders use; the program's resources only say what kind of descriptor each one is.
"""

from __future__ import annotations

import struct
from typing import Any

from wgc import emulation_abi as abi
from wgc.cached_dataclass import dataclass
from wgc.runtime.device import Buffer, Device
from wgc.runtime.program import Program, ResourcePlan

_OP_ENTRY_POINT = 15
_OP_DECORATE = 71
_DECORATION_BINDING = 33
_DECORATION_DESCRIPTOR_SET = 34


@dataclass(frozen=True)
class ModuleInterface:
    entry_points: tuple[str, ...]
    bindings: frozenset[tuple[int, int]]
    """(set, binding) of every decorated variable some entry point lists."""


def module_bindings(module: bytes) -> ModuleInterface:
    """The entry point names and used (set, binding) pairs of a SPIR-V module."""
    words = struct.unpack(f"<{len(module) // 4}I", module[: len(module) // 4 * 4])
    names: list[str] = []
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
        elif opcode == _OP_DECORATE and len(operands) >= 3:
            if operands[1] == _DECORATION_BINDING:
                binds[operands[0]] = operands[2]
            elif operands[1] == _DECORATION_DESCRIPTOR_SET:
                sets[operands[0]] = operands[2]
        at += max(count, 1)
    used = frozenset((sets.get(v, 0), binds[v]) for v in interface if v in binds)
    return ModuleInterface(tuple(names), used)


class GraphPipelines:
    """The pipelines of one emulated module, with its resources bound."""

    def __init__(self, device: Device, module: bytes, program: Program,
                 buffers: dict[tuple[int, int], tuple[ResourcePlan, Buffer]], user_push_bytes: int) -> None:
        self.device = device
        interface = module_bindings(module)
        max_set = max((s for s, _ in interface.bindings), default=-1)
        sets: list[list[tuple[int, str]]] = [[] for _ in range(max_set + 1)]
        writes: list[list[tuple[int, str, Buffer]]] = [[] for _ in range(max_set + 1)]
        for set_, binding in sorted(interface.bindings):
            resource, buffer = buffers[(set_, binding)]
            kind = resource.descriptor or "storage"
            sets[set_].append((binding, kind))
            writes[set_].append((binding, kind, buffer))
        push = abi.USER_PUSH_CONSTANT_OFFSET + user_push_bytes if user_push_bytes else 8
        self.layout, self.set_layouts = device.pipeline_layout(sets, push)
        self.pool = None
        self._pipelines: dict[str, Any] = {}
        try:
            self.pool, self.sets = device.descriptor_sets(self.set_layouts, writes)
            entry_points = sorted({n.entry_point for n in program.nodes})
            self._pipelines = device.pipelines(module, entry_points, self.layout)
        except BaseException:
            self.close()
            raise

    def pipeline(self, entry_point: str) -> Any:
        return self._pipelines[entry_point]

    def bind(self, device: Device, pipeline: Any) -> None:
        device.bind(pipeline, self.layout, self.sets)

    def close(self) -> None:
        if self.layout is not None:
            pool = self.pool if self.pool is not None else self.device.descriptor_sets([], [])[0]
            self.device.destroy_pipelines(self._pipelines, self.layout, self.set_layouts, pool)
            self.layout = None
