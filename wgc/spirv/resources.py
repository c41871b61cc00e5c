"""Resources in SPIR-V: descriptors, uniform blocks, buffers, images and samplers (SPIR-V back end).

Input: IR variables of storage UNIFORM / RESOURCE and the expressions that use them
(`ir.ResourceIndex`, `ir.MethodCall` on resources), through a `FunctionLowering`.
Output: module-scope variables with DescriptorSet/Binding (or PushConstant) decorations, `Place`s
of buffer elements, `ImagePlace`s of texels, and the instructions of every resource method.

Invariants (dxc's Vulkan mapping unless noted):
- cbuffer / ConstantBuffer<T> / $Globals: a Block struct in Uniform storage, laid out as sema
  computed (std140, DX or scalar); push constants: the same in PushConstant storage.
  tbuffer / TextureBuffer<T>: a Block struct in StorageBuffer storage, NonWritable.
- StructuredBuffer<T> and its RW/Append/Consume forms: a Block struct holding a runtime array of
  T (ArrayStride from the layout) in StorageBuffer storage; ByteAddressBuffer: a runtime array of
  uint, read and written word by word (Load<T>/Store<T>: T in D3D's natural layout, i.e.
  `layout_of(T, SCALAR)`; a 64-bit value is two words, low first; a 16-bit value is half of a
  word, stored by a non-atomic read-modify-write as dxc does). Interlocked*: OpAtomic* on the word,
  Device scope, the opcode's signedness from the value's type.
- A buffer a node's local root signature binds as a root SRV/UAV (emulated target, `root_buffer`): a
  PhysicalStorageBuffer pointer to the same Block struct at the address from the table entry; no
  descriptor, no `--check` bound (a root descriptor has no size: GetDimensions gives 0 elements).
- Counters: a counted structured buffer (RW/Append/Consume) gets `counter.var.<name>`, a Block
  {int} in StorageBuffer storage (an array of them for an array of buffers), declared on first
  use, at the `counter_binding` sema assigned (`wgc.sema.bindings`).
  IncrementCounter returns the old value (OpAtomicIAdd), DecrementCounter the new one
  (OpAtomicISub, minus 1); Append and Consume index the buffer with them.
- Buffer<T> and Texture*: OpTypeImage, Depth 2 (unknown), Sampled 1, format Unknown;
  RWBuffer<T>/RWTexture*: Sampled 2, the format of `[[vk::image_format]]` or inferred from T
  (R32f/Rg32f/Rgba32f, the 16-bit and i/ui forms; 3-vectors and unorm/snorm T (wgc's choice: 8
  or 16 bits cannot be told) Unknown, with StorageImageRead/WriteWithoutFormat where read/written).
  The sampled type is T's scalar widened to 32 bits. Samplers: OpTypeSampler; sampling combines
  the loaded image and sampler with OpSampledImage.
- Multisampled textures (Texture2DMS[Array], RWTexture2DMS[Array]) are images with MS 1 (storage:
  StorageImageMultisample, ImageMSArray when arrayed); every texel access names its sample with
  the Sample operand (sample 0 for `tex[pos]`), GetDimensions adds OpImageQuerySamples to
  OpImageQuerySize, and GetSamplePosition picks Direct3D's standard positions by the sample count
  (`SAMPLE_POSITIONS`, DXC's tables). `.mips[level][pos]` fetches with Lod `level`.
- Texel reads are OpImageFetch (with Lod on mip-mapped textures) / OpImageRead of a 4-vector
  narrowed to T; writes are OpImageWrite. Texel offsets are ConstOffset when constant; a
  variable offset is allowed on Gather only (Offset + ImageGatherExtended; Vulkan forbids it
  elsewhere).
- Implicit-LOD sampling (Sample, SampleBias, SampleCmp, SampleCmpBias, CalculateLevelOfDetail) and
  the ddx/ddy family need derivatives: the GLCompute entry point gets
  SPV_KHR_compute_shader_derivatives with DerivativeGroupLinearKHR (numthreads X % 4 == 0,
  Y = Z = 1) or DerivativeGroupQuadsKHR (X and Y even), dxc's rule: at once when the entry
  point's own body samples so, and by `derivative_mode` (called after each entry point is
  lowered) when a called helper does. Sema rejects other group shapes (WG0441) and thread-launch
  nodes (WG0416).
- Sampling: Sample/SampleBias/SampleCmp/SampleCmpBias are implicit-LOD (Dref for Cmp),
  SampleLevel/SampleGrad/SampleCmpLevel/SampleCmpLevelZero/SampleCmpGrad explicit-LOD; the clamp
  is the MinLod image operand; Gather{Red,Green,Blue,Alpha} pick the component, GatherCmp* are
  OpImageDrefGather; four per-texel offsets are ConstOffsets (constants only);
  CalculateLevelOfDetail[Unclamped] is OpImageQueryLod's first / second component (dxc).
- An `out uint status` (Load, Sample*, Gather*) receives 1 (wgc resources are never sparse).
- RWByteAddressBuffer's *Float* atomics operate on the word with the float's bits (OpBitcast),
  returning the original bits as a float.
- NonUniformResourceIndex: an access chain into an array of descriptors whose index is a
  NonUniformResourceIndex result, the image or sampler loaded through it and the sampled image
  are decorated NonUniform, with the *ArrayNonUniformIndexing capability of the descriptor kind
  (`decorate_non_uniform`; buffer elements: `decorate_non_uniform_place`, called by
  `FunctionLowering.pointer`).
- Read-only buffers are NonWritable; `globallycoherent` is Coherent, except under the Vulkan
  memory model, where SPIR-V forbids the decoration: there its loads and stores carry
  MakePointerVisible/MakePointerAvailable (OpImageRead/OpImageWrite: MakeTexelVisible/Available)
  at QueueFamily scope, and every storage-buffer access NonPrivatePointer, every storage-image
  read or write NonPrivateTexel (`ModuleLowering.memory_access`/`texel_access`).
- Arrays of resources are arrays of descriptors (RuntimeDescriptorArray when unsized); an element
  is addressed by the handle's indices, also for samplers and counters.
- RaytracingAccelerationStructure: an OpTypeAccelerationStructureKHR in UniformConstant storage
  (`types.TypeLowering.acceleration_structure`), loaded by `load_object` where TraceRayInline
  takes it (`wgc.spirv.rayquery`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass, field
from wgc.irtools.consteval import Folded, fold
from wgc.irtools.layout import LayoutRule, TypeLayout, layout_of, runtime_array_stride
from wgc.sema.nodes import NodeInfo
from wgc.source import Span

from . import grammar
from .builder import OperandValue
from .places import ImagePlace, Place, ResourceHandle

if TYPE_CHECKING:
    from .lower import FunctionLowering, ModuleLowering

RK = t.ResourceKind

_STRUCTURED = (RK.STRUCTURED_BUFFER, RK.RW_STRUCTURED_BUFFER, RK.APPEND_STRUCTURED_BUFFER,
               RK.CONSUME_STRUCTURED_BUFFER)
_COUNTED = (RK.RW_STRUCTURED_BUFFER, RK.APPEND_STRUCTURED_BUFFER, RK.CONSUME_STRUCTURED_BUFFER)
_BYTE_ADDRESS = (RK.BYTE_ADDRESS_BUFFER, RK.RW_BYTE_ADDRESS_BUFFER)
_WORD = TypeLayout(size=4, alignment=4)
_UINT16 = t.scalar(t.ScalarKind.UINT, 16)


@dataclass
class ResourceState:
    """What this module remembers per module (`ModuleLowering.resources`)."""

    variables: dict[int, ir.Variable] = field(default_factory=dict)     # resource variable id -> IR
    counters: dict[int, int] = field(default_factory=dict)              # buffer id -> counter variable
    counter_struct: int = 0
    buffer_blocks: dict[tuple[t.Type, TypeLayout], int] = field(default_factory=dict)
    formats: dict[int, str] = field(default_factory=dict)               # storage image type -> format
    named: set[int] = field(default_factory=set)
    derivatives: set[int] = field(default_factory=set)                  # functions needing derivatives
    derivative_entries: set[int] = field(default_factory=set)           # entry points given a mode
    non_uniform: set[int] = field(default_factory=set)                  # NonUniformResourceIndex results


def _state(ml: ModuleLowering) -> ResourceState:
    return ml.resources


def _name_once(ml: ModuleLowering, target: int, name: str) -> None:
    named = _state(ml).named
    if target not in named:
        named.add(target)
        ml.b.name(target, name)


# ---------------------------------------------------------------- declarations


def _decorate_binding(ml: ModuleLowering, var: int, variable: ir.Variable) -> None:
    if variable.binding is not None:
        ml.b.decorate(var, "DescriptorSet", variable.binding.set)
        ml.b.decorate(var, "Binding", variable.binding.binding)


def declare_block(ml: ModuleLowering, variable: ir.Variable) -> Place:
    """A uniform block (cbuffer, ConstantBuffer, tbuffer, push constants): a Place of its struct.
    Push constants are the target's when it places them (`NodeOperations.push_constant_place`)."""
    assert variable.layout is not None
    if variable.push_constant:
        place = ml.nodes.push_constant_place(ml, variable)
        if place is not None:
            return place
    struct = ml.types.block(variable.type, variable.layout, f"type.{variable.name}")
    if variable.push_constant:
        storage = "PushConstant"
    elif variable.block_kind in ("tbuffer", "TextureBuffer"):
        storage = "StorageBuffer"
        for i in range(len(variable.layout.members) or 1):
            ml.b.member_decorate(struct, i, "NonWritable")
    else:
        storage = "Uniform"
    var = ml.b.variable(ml.b.type_pointer(storage, struct), storage)
    ml.b.name(var, variable.name)
    if not variable.push_constant:
        _decorate_binding(ml, var, variable)
    return Place(var, variable.type, storage, variable.layout)


def _unwrap(type_: t.Type) -> tuple[t.Type, list[int | None]]:
    lengths: list[int | None] = []
    while isinstance(type_, t.ArrayType):
        lengths.append(type_.length)
        type_ = type_.element
    return type_, lengths


def _descriptor_array(ml: ModuleLowering, pointee: int, lengths: list[int | None]) -> int:
    for length in reversed(lengths):
        if length is None:
            ml.b.capability("RuntimeDescriptorArray")
            pointee = ml.b.type_runtime_array(pointee)
        else:
            pointee = ml.b.type_array(pointee, ml.uint(length))
    return pointee


def declare(ml: ModuleLowering, variable: ir.Variable) -> ResourceHandle:
    """A resource variable (or an array of them): buffers, images, samplers."""
    type_, lengths = _unwrap(variable.type)
    if not isinstance(type_, t.ResourceType) or type_.kind in (RK.CONSTANT_BUFFER, RK.TEXTURE_BUFFER):
        raise AssertionError(f"resource '{variable.name}' of type '{type_}' cannot be lowered")
    layout = None
    if type_.kind in _STRUCTURED or type_.kind in _BYTE_ADDRESS:
        pointee, layout = _buffer_block(ml, type_, variable.layout)
        storage = "StorageBuffer"
    elif type_.kind.is_sampler:
        pointee, storage = ml.b.type("OpTypeSampler"), "UniformConstant"
        _name_once(ml, pointee, "type.sampler")
    elif type_.kind is RK.RAYTRACING_ACCELERATION_STRUCTURE:
        pointee, storage = ml.types.acceleration_structure(), "UniformConstant"
    else:
        pointee, storage = image_type(ml, type_, variable), "UniformConstant"
    var = ml.b.variable(ml.b.type_pointer(storage, _descriptor_array(ml, pointee, lengths)), storage)
    ml.b.name(var, variable.name)
    coherent = "globallycoherent" in variable.modifiers
    if coherent and not ml.vulkan_memory_model:
        ml.b.decorate(var, "Coherent")
    _decorate_binding(ml, var, variable)
    _state(ml).variables[var] = variable
    return ResourceHandle(var, type_, storage, pointee, layout, coherent=coherent)


def root_buffer(fl: FunctionLowering, variable: ir.Variable, address: int) -> ResourceHandle:
    """A structured or byte-address buffer at a device address (a root SRV/UAV of a local root signature,
    emulated target): a PhysicalStorageBuffer pointer to its Block struct, no descriptor, no known length."""
    type_ = variable.type
    assert isinstance(type_, t.ResourceType)
    pointee, layout = _buffer_block(fl.ml, type_, variable.layout)
    pointer = fl.b.emit("OpConvertUToPtr", fl.b.type_pointer("PhysicalStorageBuffer", pointee), address)
    return ResourceHandle(pointer, type_, "PhysicalStorageBuffer", pointee, layout,
                          coherent="globallycoherent" in variable.modifiers)


def _buffer_block(ml: ModuleLowering, type_: t.ResourceType,
                  element_layout: TypeLayout | None) -> tuple[int, TypeLayout]:
    """The Block struct of a structured or byte-address buffer (one per type and layout)."""
    element = t.UINT if type_.kind in _BYTE_ADDRESS else type_.element
    if type_.kind in _BYTE_ADDRESS:
        element_layout = _WORD
    assert element is not None and element_layout is not None
    stride = runtime_array_stride(element_layout)
    layout = TypeLayout(size=0, alignment=element_layout.alignment, array_stride=stride,
                        matrix_stride=element_layout.matrix_stride, row_major=element_layout.row_major,
                        element=element_layout)
    blocks = _state(ml).buffer_blocks
    found = blocks.get((type_, layout))
    if found is None:
        found = blocks[(type_, layout)] = ml.types.block(t.array(element, None), layout, f"type.{type_}")
        if not type_.kind.writable:
            ml.b.member_decorate(found, 0, "NonWritable")
    return found, layout


# ---------------------------------------------------------------- counters


def _counter_pointer(fl: FunctionLowering, handle: ResourceHandle, span: Span | None) -> int:
    """A pointer to the int counter of a counted structured buffer (declared on first use)."""
    ml, state = fl.ml, _state(fl.ml)
    var = state.counters.get(handle.variable)
    if var is None:
        variable = state.variables[handle.variable]
        assert variable.counter_binding is not None, "sema gives every counted buffer a counter binding"
        set_, binding = variable.counter_binding.set, variable.counter_binding.binding
        if not state.counter_struct:
            state.counter_struct = ml.b.type_struct([ml.types.id(t.INT)], fresh=True)
            ml.b.name(state.counter_struct, "type.ACSBuffer.counter")
            ml.b.member_name(state.counter_struct, 0, "counter")
            ml.b.member_decorate(state.counter_struct, 0, "Offset", 0)
            ml.b.decorate(state.counter_struct, "Block")
        pointee = _descriptor_array(ml, state.counter_struct, _unwrap(variable.type)[1])
        var = state.counters[handle.variable] = ml.b.variable(ml.b.type_pointer("StorageBuffer", pointee),
                                                              "StorageBuffer")
        ml.b.name(var, f"counter.var.{variable.name}")
        ml.b.decorate(var, "DescriptorSet", set_)
        ml.b.decorate(var, "Binding", binding)
    fl.use_global(var)
    return fl.b.emit("OpAccessChain", fl.b.type_pointer("StorageBuffer", fl.types.id(t.INT)), var,
                     *handle.indices, fl.uint(0))


def _count(fl: FunctionLowering, handle: ResourceHandle, increment: bool, span: Span | None) -> int:
    """IncrementCounter (the old value) / DecrementCounter (the new value), as a uint."""
    pointer = _counter_pointer(fl, handle, span)
    int_id, one = fl.types.id(t.INT), fl.ml.constant(t.INT, 1)
    scope, semantics = fl.ml.scope("Device"), fl.ml.semantics()
    if increment:
        value = fl.b.emit("OpAtomicIAdd", int_id, pointer, scope, semantics, one)
    else:
        old = fl.b.emit("OpAtomicISub", int_id, pointer, scope, semantics, one)
        value = fl.b.emit("OpISub", int_id, old, one)
    return fl.b.emit("OpBitcast", fl.types.id(t.UINT), value)


# ---------------------------------------------------------------- images

_DIMS = {
    RK.BUFFER: ("Buffer", False), RK.RW_BUFFER: ("Buffer", False),
    RK.TEXTURE_1D: ("1D", False), RK.TEXTURE_1D_ARRAY: ("1D", True),
    RK.TEXTURE_2D: ("2D", False), RK.TEXTURE_2D_ARRAY: ("2D", True), RK.TEXTURE_3D: ("3D", False),
    RK.TEXTURE_CUBE: ("Cube", False), RK.TEXTURE_CUBE_ARRAY: ("Cube", True),
    RK.RW_TEXTURE_1D: ("1D", False), RK.RW_TEXTURE_1D_ARRAY: ("1D", True),
    RK.RW_TEXTURE_2D: ("2D", False), RK.RW_TEXTURE_2D_ARRAY: ("2D", True), RK.RW_TEXTURE_3D: ("3D", False),
    RK.TEXTURE_2D_MS: ("2D", False), RK.TEXTURE_2D_MS_ARRAY: ("2D", True),
    RK.RW_TEXTURE_2D_MS: ("2D", False), RK.RW_TEXTURE_2D_MS_ARRAY: ("2D", True),
}


def is_image(type_: t.ResourceType) -> bool:
    """Whether a resource is an image (a texture or typed buffer), not a buffer block."""
    return type_.kind in _DIMS


_SIZES = {"Buffer": 1, "1D": 1, "2D": 2, "Cube": 2, "3D": 3}
"""GetDimensions' size outputs per Dim, before the array size."""
_CAPABILITIES = {"Buffer": ("SampledBuffer", "ImageBuffer"), "1D": ("Sampled1D", "Image1D")}
"""Dim -> (capability when sampled, when storage)."""
_FORMATS = {
    (kind, bits, count): f"{prefix}{bits}{suffix}"
    for kind, suffix in (("f", "f"), ("s", "i"), ("u", "ui")) for bits in (16, 32)
    for count, prefix in ((1, "R"), (2, "Rg"), (4, "Rgba"))
}
"""Storage-image formats inferred from the element: (scalar kind, bits, components) -> format."""


def _format_names() -> dict[str, str]:
    """`[[vk::image_format("...")]]` spellings -> ImageFormat enumerants (64-bit ones excluded:
    wgc's sampled types are 32-bit)."""
    names = {e.name.lower(): e.name for e in grammar.operand_kind("ImageFormat").by_value.values()
             if not e.name.startswith("R64")}
    names["r11g11b10f"] = "R11fG11fB10f"
    return names


def _component(type_: t.ResourceType) -> t.ScalarType:
    """The image's sampled type: the element's scalar widened to 32 bits (bool -> uint)."""
    scalar = t.element_scalar(type_.element) if type_.element is not None else t.FLOAT
    if scalar is None or scalar.kind is t.ScalarKind.BOOL:
        return t.UINT
    return t.scalar(scalar.kind, 32) if scalar.bits != 32 else scalar


def storage_format(type_: t.ResourceType, variable: ir.Variable | None) -> str:
    """The ImageFormat enumerant of a storage image or texel buffer (RWBuffer, RWTexture*): the one
    `[[vk::image_format]]` names, else inferred from the element (`Unknown` where it cannot be)."""
    attribute = ir.find_attribute(variable.attributes, "vk::image_format") if variable is not None else None
    if attribute is not None and attribute.values() and isinstance(attribute.values()[0], str):
        written = str(attribute.values()[0])
        # a name no format has (or a 64-bit one) is sema's error (WG0340, WG0624): no module is made
        # then, and the views of that program (the reflection of `wgc inspect`) show Unknown
        return _format_names().get(written.lower(), "Unknown")
    if type_.element_modifier is not None:       # unorm/snorm: 8 or 16 bits, wgc cannot tell
        return "Unknown"
    scalar = t.element_scalar(type_.element) if type_.element is not None else None
    component = _component(type_)
    kind = "f" if component.is_float else ("s" if component.kind is t.ScalarKind.INT else "u")
    bits = scalar.bits if scalar is not None and scalar.kind is not t.ScalarKind.BOOL else 32
    count = t.component_count(type_.element) if type_.element is not None else None
    return _FORMATS.get((kind, bits, count or 1), "Unknown")


def _storage_format(ml: ModuleLowering, type_: t.ResourceType, variable: ir.Variable | None) -> str:
    fmt = storage_format(type_, variable)
    for capability in grammar.enumerant_info("ImageFormat", fmt).capabilities:
        ml.b.capability(capability)
    return fmt


def image_type(ml: ModuleLowering, type_: t.ResourceType, variable: ir.Variable | None = None) -> int:
    """The OpTypeImage of a typed buffer or texture (the variable supplies `vk::image_format`)."""
    dim, arrayed = _DIMS[type_.kind]
    storage = type_.kind.writable
    fmt = _storage_format(ml, type_, variable) if storage else "Unknown"
    multisampled = type_.kind.multisampled
    if dim in _CAPABILITIES:
        ml.b.capability(_CAPABILITIES[dim][storage])
    elif dim == "Cube" and arrayed:
        ml.b.capability("SampledCubeArray")
    if multisampled and storage:
        ml.b.capability("StorageImageMultisample")
        if arrayed:
            ml.b.capability("ImageMSArray")
    image = ml.b.type("OpTypeImage", ml.types.scalar(_component(type_)), dim, 2, 1 if arrayed else 0,
                      1 if multisampled else 0, 2 if storage else 1, fmt)
    _name_once(ml, image, f"type.{dim.lower()}.image" + (".ms" if multisampled else "") + (".array" if arrayed else ""))
    if storage:
        _state(ml).formats[image] = fmt
    return image


def slice_operands(fl: FunctionLowering, place: ImagePlace, *, lod: bool) -> tuple[str, int] | tuple[()]:
    """The image operand that picks the texel's slice: Sample on a multisampled image, else Lod
    where `lod` (fetches from sampled images), else none."""
    value = place.slice if place.slice is not None else fl.uint(0)
    if place.handle.type.kind.multisampled:
        return ("Sample", value)
    return ("Lod", value) if lod else ()


def _descriptor(fl: FunctionLowering, handle: ResourceHandle) -> int:
    """A pointer to the resource (through the array of descriptors it is an element of)."""
    if not handle.indices:
        return handle.variable
    chain = fl.b.emit("OpAccessChain", fl.b.type_pointer(handle.storage, handle.pointee), handle.variable,
                      *handle.indices)
    return decorate_non_uniform(fl, chain, handle.indices, handle.type)


def load_object(fl: FunctionLowering, expr: ir.Expr) -> int:
    """The loaded image, sampler or acceleration structure that `expr` denotes."""
    return _object(fl, _handle(fl, expr))


def _object(fl: FunctionLowering, handle: ResourceHandle) -> int:
    """The loaded image, sampler or acceleration structure."""
    loaded = fl.b.emit("OpLoad", handle.pointee, _descriptor(fl, handle))
    return decorate_non_uniform(fl, loaded, handle.indices, handle.type)


# capability of a non-uniform index into an array of descriptors, per kind of descriptor
_NON_UNIFORM_CAPABILITIES = {
    "buffer": "StorageBufferArrayNonUniformIndexing", "uniform": "UniformBufferArrayNonUniformIndexing",
    "sampled": "SampledImageArrayNonUniformIndexing", "storage": "StorageImageArrayNonUniformIndexing",
    "texel": "UniformTexelBufferArrayNonUniformIndexing", "rwtexel": "StorageTexelBufferArrayNonUniformIndexing",
}


def mark_non_uniform(fl: FunctionLowering, value: int) -> None:
    """Decorate a NonUniformResourceIndex result NonUniform and remember it, so that the descriptor
    accesses it indexes are decorated too (`decorate_non_uniform`), as dxc does. Only the result
    itself is followed: an index computed from it is not (dxc propagates through arithmetic)."""
    fl.b.capability("ShaderNonUniform")
    fl.b.decorate(value, "NonUniform")
    _state(fl.ml).non_uniform.add(value)


def decorate_non_uniform_place(fl: FunctionLowering, chain: int, place: Place) -> int:
    """The access chain of a buffer element (`FunctionLowering.pointer`), decorated NonUniform when
    the buffer is an element of an array of descriptors picked by a NonUniformResourceIndex result
    (an element index from one is uniform in this sense: nothing is decorated). Returns `chain`."""
    variable = _state(fl.ml).variables.get(place.pointer)
    if variable is None or place.storage != "StorageBuffer":
        return chain
    depth = len(_unwrap(variable.type)[1])                       # the descriptor-array indices
    if not _state(fl.ml).non_uniform.intersection(place.indices[:depth]):
        return chain
    fl.b.decorate(chain, "NonUniform")
    fl.b.capability(_NON_UNIFORM_CAPABILITIES["buffer"])
    return chain


def decorate_non_uniform(fl: FunctionLowering, id_: int, indices: tuple[int, ...], type_: t.Type | None) -> int:
    """`id_` (an access chain into an array of descriptors, or what is loaded through it), decorated
    NonUniform when one of the descriptor `indices` came from NonUniformResourceIndex; declares the
    indexing capability of the descriptor kind `type_` (None: already declared). Returns `id_`."""
    if not _state(fl.ml).non_uniform.intersection(indices):
        return id_
    fl.b.decorate(id_, "NonUniform")
    # acceleration structures have no *ArrayNonUniformIndexing capability (ShaderNonUniform suffices)
    if isinstance(type_, t.ResourceType) and type_.kind is not RK.RAYTRACING_ACCELERATION_STRUCTURE:
        kind = type_.kind
        dim = _DIMS.get(kind, ("",))[0]
        descriptor = ("uniform" if kind is RK.CONSTANT_BUFFER else
                      ("rwtexel" if kind.writable else "texel") if dim == "Buffer" else
                      ("storage" if kind.writable else "sampled") if kind in _DIMS else
                      "sampled" if kind in (RK.SAMPLER_STATE, RK.SAMPLER_COMPARISON_STATE) else "buffer")
        fl.b.capability(_NON_UNIFORM_CAPABILITIES[descriptor])
    return id_


def _without_format(fl: FunctionLowering, handle: ResourceHandle, access: str) -> None:
    if _state(fl.ml).formats.get(handle.pointee) == "Unknown":
        fl.b.capability(f"StorageImage{access}WithoutFormat")


def _vec4(fl: FunctionLowering, handle: ResourceHandle) -> int:
    return fl.types.id(t.vector(_component(handle.type), 4))


def _texel(fl: FunctionLowering, vec4: int, handle: ResourceHandle, result: t.Type) -> int:
    """The element of type `result` held in an image instruction's 4-component result."""
    component = _component(handle.type)
    count = t.component_count(result) or 1
    if count == 4:
        value = vec4
    elif count == 1:
        value = fl.b.emit("OpCompositeExtract", fl.types.scalar(component), vec4, 0)
    else:
        value = fl.b.emit("OpVectorShuffle", fl.types.id(t.vector(component, count)), vec4, vec4,
                          *range(count))
    return fl.convert(value, component if count == 1 else t.vector(component, count), result)


def _image_operands(*groups: tuple) -> tuple:
    """Image operands given as (mask, ids...) groups in ascending bit order: one mask, then the ids."""
    groups = tuple(g for g in groups if g)
    if not groups:
        return ()
    return ("|".join(g[0] for g in groups), *(value for g in groups for value in g[1:]))


def _check_texel(fl: FunctionLowering, place: ImagePlace) -> None:
    """`wgc run --check`: report a texel coordinate past the image's size (of the accessed mip level)."""
    from . import emulated_checks

    handle = place.handle
    fl.b.capability("ImageQuery")
    dim, arrayed = _DIMS[handle.type.kind]
    sizes = _SIZES[dim] + (1 if arrayed else 0)
    image = _object(fl, handle)
    size_type = fl.types.id(t.UINT if sizes == 1 else t.vector(t.UINT, sizes))
    if handle.type.kind.writable or dim == "Buffer" or handle.type.kind.multisampled:
        size = fl.b.emit("OpImageQuerySize", size_type, image)
    else:
        size = fl.b.emit("OpImageQuerySizeLod", size_type, image,
                         place.slice if place.slice is not None else fl.uint(0))
    variable = _state(fl.ml).variables[handle.variable]
    where = variable.binding
    coordinate = place.coordinate
    scalar = t.element_scalar(place.coordinate_type) if place.coordinate_type is not None else None
    if scalar is not None and scalar.kind is not t.ScalarKind.UINT:   # negative: past the end, as unsigned
        coordinate = fl.b.emit("OpBitcast", size_type, coordinate)
    emulated_checks.texel_index(fl, where.set if where else 0, where.binding if where else 0, size,
                                coordinate, sizes)


def image_load(fl: FunctionLowering, place: ImagePlace) -> int:
    handle = place.handle
    if fl.ml.options.checks:
        _check_texel(fl, place)
    image = _object(fl, handle)
    if handle.type.kind.writable:
        _without_format(fl, handle, "Read")
        value = fl.b.emit("OpImageRead", _vec4(fl, handle), image, place.coordinate,
                          *_image_operands(slice_operands(fl, place, lod=False),
                                           fl.ml.texel_access(handle.coherent, store=False)))
    elif _DIMS[handle.type.kind][0] == "Buffer":
        value = fl.b.emit("OpImageFetch", _vec4(fl, handle), image, place.coordinate)
    else:
        value = fl.b.emit("OpImageFetch", _vec4(fl, handle), image, place.coordinate,
                          *slice_operands(fl, place, lod=True))
    return _texel(fl, value, handle, place.type)


def image_store(fl: FunctionLowering, place: ImagePlace, value: int) -> None:
    component = _component(place.handle.type)
    count = t.component_count(place.type) or 1
    texel = fl.convert(value, place.type, component if count == 1 else t.vector(component, count))
    if fl.ml.options.checks:
        _check_texel(fl, place)
    _without_format(fl, place.handle, "Write")
    fl.b.emit("OpImageWrite", _object(fl, place.handle), place.coordinate, texel,
              *_image_operands(slice_operands(fl, place, lod=False),
                               fl.ml.texel_access(place.handle.coherent, store=True)))


def texel_pointer(fl: FunctionLowering, place: ImagePlace) -> int:
    """OpImageTexelPointer for an atomic on a storage-image texel (its Sample operand: the sample of
    a multisampled image, else 0)."""
    if fl.ml.options.checks:
        _check_texel(fl, place)
    component = fl.types.scalar(_component(place.handle.type))
    sample = place.slice if place.slice is not None and place.handle.type.kind.multisampled else fl.uint(0)
    return fl.b.emit("OpImageTexelPointer", fl.b.type_pointer("Image", component),
                     _descriptor(fl, place.handle), place.coordinate, sample)


# ---------------------------------------------------------------- element access


def _buffer_place(fl: FunctionLowering, handle: ResourceHandle, index: int) -> Place:
    """The element `index` of a structured or byte-address buffer."""
    assert handle.layout is not None
    element = handle.type.element if handle.type.kind in _STRUCTURED else t.UINT
    assert element is not None
    if fl.ml.options.checks and handle.storage == "StorageBuffer":    # wgc run --check: an element past the end
        from . import emulated_checks

        variable = _state(fl.ml).variables[handle.variable]
        where = variable.binding
        emulated_checks.buffer_index(fl, where.set if where else 0, where.binding if where else 0,
                                     _array_length(fl, handle), index)
    return Place(handle.variable, element, handle.storage, handle.layout.element,
                 handle.indices + (fl.uint(0), index), coherent=handle.coherent)


def _handle(fl: FunctionLowering, expr: ir.Expr) -> ResourceHandle:
    handle = fl.handle(expr)
    if not isinstance(handle, ResourceHandle):
        raise AssertionError("this resource cannot be used here")
    if handle.storage != "PhysicalStorageBuffer":       # not a root buffer (`root_buffer`)
        fl.use_global(handle.variable)
    return handle


def index_place(fl: FunctionLowering, expr: ir.ResourceIndex) -> Place | ImagePlace:
    """`buffer[i]` / `texture[uint2(x, y)]` as a location."""
    handle = _handle(fl, expr.resource)
    index = fl.value(expr.index)
    if handle.type.kind in _STRUCTURED:
        return _buffer_place(fl, handle, index)
    if handle.type.kind in _DIMS:
        slice_ = fl.value(expr.slice) if expr.slice is not None else None
        return ImagePlace(handle, index, expr.type, slice_, expr.index.type)
    raise AssertionError(f"'{handle.type}' cannot be indexed")


def index_value(fl: FunctionLowering, expr: ir.ResourceIndex) -> int:
    return fl.load(index_place(fl, expr))


# ---------------------------------------------------------------- methods


def method(fl: FunctionLowering, expr: ir.MethodCall) -> object:
    handle = _handle(fl, expr.object)
    kind = handle.type.kind
    if kind in _BYTE_ADDRESS:
        return _byte_address_method(fl, handle, expr)
    if kind in _STRUCTURED:
        return _structured_method(fl, handle, expr)
    if kind in _DIMS:
        return _image_method(fl, handle, expr)
    raise AssertionError(f"method '{expr.method}' of '{expr.object.type}' has no SPIR-V lowering")


def _store_out(fl: FunctionLowering, expr: ir.MethodCall, index: int, value: int, type_: t.Type) -> None:
    arg = expr.args[index]
    place = fl.place(arg)
    if place is None:
        raise AssertionError("an out argument must be a variable or a location")
    fl.store(place, fl.convert(value, type_, arg.type))


def _status(fl: FunctionLowering, expr: ir.MethodCall, index: int) -> None:
    """A Load's optional `out uint status`: 1, as wgc's resources are never sparse."""
    if len(expr.args) > index:
        _store_out(fl, expr, index, fl.uint(1), t.UINT)


def _array_length(fl: FunctionLowering, handle: ResourceHandle) -> int:
    if handle.storage == "PhysicalStorageBuffer":      # a root buffer: D3D12 gives a root descriptor no size
        return fl.uint(0)
    return fl.b.emit("OpArrayLength", fl.types.id(t.UINT), _descriptor(fl, handle), 0)


def _structured_method(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> object:
    name, args = expr.method, expr.args
    if name == "Load":
        value = fl.load(_buffer_place(fl, handle, fl.value(args[0])))
        _status(fl, expr, 1)
        return value
    if name == "GetDimensions":
        assert handle.layout is not None
        _store_out(fl, expr, 0, _array_length(fl, handle), t.UINT)
        _store_out(fl, expr, 1, fl.uint(handle.layout.array_stride or 0), t.UINT)
        return None
    if name in ("IncrementCounter", "DecrementCounter"):
        return _count(fl, handle, name == "IncrementCounter", expr.span)
    if name == "Append":
        value = fl.value(args[0])
        fl.store(_buffer_place(fl, handle, _count(fl, handle, True, expr.span)), value)
        return None
    if name == "Consume":
        return fl.load(_buffer_place(fl, handle, _count(fl, handle, False, expr.span)))
    raise AssertionError(f"method '{name}' of '{handle.type}' has no SPIR-V lowering")


# ---------------------------------------------------------------- byte-address buffers

_ATOMICS = {
    "InterlockedAdd": ("OpAtomicIAdd", "OpAtomicIAdd"), "InterlockedAnd": ("OpAtomicAnd", "OpAtomicAnd"),
    "InterlockedOr": ("OpAtomicOr", "OpAtomicOr"), "InterlockedXor": ("OpAtomicXor", "OpAtomicXor"),
    "InterlockedMin": ("OpAtomicSMin", "OpAtomicUMin"), "InterlockedMax": ("OpAtomicSMax", "OpAtomicUMax"),
    "InterlockedExchange": ("OpAtomicExchange", "OpAtomicExchange"),
}
"""Interlocked method -> (opcode for int, for uint)."""


def _byte_address_method(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> object:
    name, args = expr.method, expr.args
    if name == "GetDimensions":
        length = _array_length(fl, handle)
        size = fl.b.emit("OpIMul", fl.types.id(t.UINT), length, fl.uint(4))
        _store_out(fl, expr, 0, size, t.UINT)
        return None
    raw = _Raw(fl, handle, fl.value(args[0]))
    rule = {"default_row_major": fl.ml.module.default_row_major}
    if name.startswith("Interlocked"):
        _atomic(fl, raw, expr)
        return None
    if name.startswith("Load"):
        value = raw.load(expr.type, layout_of(expr.type, LayoutRule.SCALAR, **rule), 0)
        _status(fl, expr, 1)
        return value
    if name.startswith("Store"):
        type_ = args[1].type
        raw.store(type_, layout_of(type_, LayoutRule.SCALAR, **rule), 0, fl.value(args[1]))
        return None
    raise AssertionError(f"method '{name}' of '{handle.type}' has no SPIR-V lowering")


def _atomic(fl: FunctionLowering, raw: _Raw, expr: ir.MethodCall) -> None:
    """RWByteAddressBuffer.Interlocked*(address, value(s)[, out original]) on the addressed word."""
    name, args = expr.method, expr.args
    scalar = t.element_scalar(args[1].type)
    signed = scalar is not None and scalar.kind is t.ScalarKind.INT
    uint_id, pointer = fl.types.id(t.UINT), fl.pointer(raw.word(0))
    scope, semantics = fl.ml.scope("Device"), fl.ml.semantics()

    floats = "Float" in name              # the *Float* forms: the float's bits, compared bitwise

    def operand(arg: ir.Expr) -> int:
        if floats:
            return fl.b.emit("OpBitcast", uint_id, fl.value(arg))
        return fl.convert(fl.value(arg), arg.type, t.UINT)

    base = name.removesuffix("FloatBitwise").removesuffix("Float")
    if base in ("InterlockedCompareExchange", "InterlockedCompareStore"):
        compare, value = operand(args[1]), operand(args[2])
        original = fl.b.emit("OpAtomicCompareExchange", uint_id, pointer, scope, semantics, semantics,
                             value, compare)
        out = 3
    else:
        original = fl.b.emit(_ATOMICS[base][0 if signed else 1], uint_id, pointer, scope, semantics,
                             operand(args[1]))
        out = 2
    if len(args) > out:
        if floats:
            _store_out(fl, expr, out, fl.b.emit("OpBitcast", fl.types.id(t.FLOAT), original), t.FLOAT)
        else:
            _store_out(fl, expr, out, original, t.UINT)
    return None


class _Raw:
    """Loads and stores of any data type at a byte address of a byte-address buffer, laid out
    by `layout_of(T, SCALAR)` (D3D's natural layout), word by word."""

    def __init__(self, fl: FunctionLowering, handle: ResourceHandle, address: int) -> None:
        self.fl, self.handle, self.address = fl, handle, address
        self._word: int | None = None
        self.uint = fl.types.id(t.UINT)

    def word(self, offset: int) -> Place:
        """The word at the address plus `offset` bytes (a multiple of 4)."""
        fl = self.fl
        if self._word is None:
            self._word = fl.b.emit("OpShiftRightLogical", self.uint, self.address, fl.uint(2))
        index = self._word
        if offset >= 4:
            index = fl.b.emit("OpIAdd", self.uint, index, fl.uint(offset // 4))
        return _buffer_place(fl, self.handle, index)

    def _half_word(self, offset: int) -> tuple[Place, int]:
        """The word holding the 16 bits at the address plus `offset`, and their bit shift in it."""
        b, fl = self.fl.b, self.fl
        byte = self.address if offset == 0 else b.emit("OpIAdd", self.uint, self.address, fl.uint(offset))
        index = b.emit("OpShiftRightLogical", self.uint, byte, fl.uint(2))
        shift = b.emit("OpShiftLeftLogical", self.uint, b.emit("OpBitwiseAnd", self.uint, byte, fl.uint(2)),
                       fl.uint(3))
        return _buffer_place(fl, self.handle, index), shift

    @staticmethod
    def _offsets(shape: t.Type, layout: TypeLayout, size: int) -> list[int]:
        """Byte offsets of a scalar/vector/matrix's components, in row-major component order."""
        if isinstance(shape, t.VectorType):
            return [i * size for i in range(shape.count)]
        if isinstance(shape, t.MatrixType):
            stride = layout.matrix_stride or 0
            return [r * stride + c * size if layout.row_major else c * stride + r * size
                    for r in range(shape.rows) for c in range(shape.columns)]
        return [0]

    @staticmethod
    def _members(shape: t.Type, layout: TypeLayout, offset: int) -> list[tuple[t.Type, TypeLayout, int]]:
        """(type, layout, byte offset) of a struct's fields or an array's elements."""
        if isinstance(shape, t.StructType):
            return [(f.type, m.layout, offset + m.offset) for f, m in zip(shape.all_fields(), layout.members)]
        assert isinstance(shape, t.ArrayType) and shape.length is not None and layout.element is not None
        return [(shape.element, layout.element, offset + i * (layout.array_stride or 0))
                for i in range(shape.length)]

    def load(self, type_: t.Type, layout: TypeLayout, offset: int) -> int:
        fl = self.fl
        shape = fl.types.shape(type_)
        if isinstance(shape, (t.StructType, t.ArrayType)):
            parts = [self.load(*member) for member in self._members(shape, layout, offset)]
            return fl.b.emit("OpCompositeConstruct", fl.types.id(shape), *parts)
        scalar = t.element_scalar(shape)
        assert scalar is not None
        size = 4 if scalar.kind is t.ScalarKind.BOOL else scalar.bits // 8
        parts = [self._load_scalar(scalar, size, offset + o) for o in self._offsets(shape, layout, size)]
        return fl.build(parts, shape)

    def _load_scalar(self, scalar: t.ScalarType, size: int, offset: int) -> int:
        fl, b = self.fl, self.fl.b
        if size == 2:
            place, shift = self._half_word(offset)
            bits = b.emit("OpShiftRightLogical", self.uint, fl.load(place), shift)
            raw, raw_type = b.emit("OpUConvert", fl.types.id(_UINT16), bits), _UINT16
        elif size == 8:
            u64 = fl.types.id(t.UINT64)
            low = b.emit("OpUConvert", u64, fl.load(self.word(offset)))
            high = b.emit("OpUConvert", u64, fl.load(self.word(offset + 4)))
            raw = b.emit("OpBitwiseOr", u64, low, b.emit("OpShiftLeftLogical", u64, high, fl.uint(32)))
            raw_type = t.UINT64
        else:
            raw, raw_type = fl.load(self.word(offset)), t.UINT
        if scalar.kind is t.ScalarKind.BOOL:
            return fl.convert_scalar(raw, raw_type, scalar)
        if scalar.kind is t.ScalarKind.UINT:
            return raw
        return b.emit("OpBitcast", fl.types.scalar(scalar), raw)

    def store(self, type_: t.Type, layout: TypeLayout, offset: int, value: int) -> None:
        fl = self.fl
        shape = fl.types.shape(type_)
        if isinstance(shape, (t.StructType, t.ArrayType)):
            for i, (member, member_layout, at) in enumerate(self._members(shape, layout, offset)):
                part = fl.b.emit("OpCompositeExtract", fl.types.id(member), value, i)
                self.store(member, member_layout, at, part)
            return
        scalar = t.element_scalar(shape)
        assert scalar is not None
        size = 4 if scalar.kind is t.ScalarKind.BOOL else scalar.bits // 8
        for part, o in zip(fl.components(value, shape), self._offsets(shape, layout, size)):
            self._store_scalar(scalar, size, offset + o, part)

    def _store_scalar(self, scalar: t.ScalarType, size: int, offset: int, value: int) -> None:
        fl, b = self.fl, self.fl.b
        raw_type = {2: _UINT16, 4: t.UINT, 8: t.UINT64}[size]
        if scalar.kind is t.ScalarKind.BOOL:
            raw = fl.convert_scalar(value, scalar, raw_type)
        elif scalar.kind is t.ScalarKind.UINT:
            raw = value
        else:
            raw = b.emit("OpBitcast", fl.types.id(raw_type), value)
        if size == 4:
            fl.store(self.word(offset), raw)
        elif size == 8:
            fl.store(self.word(offset), b.emit("OpUConvert", self.uint, raw))
            high = b.emit("OpShiftRightLogical", fl.types.id(t.UINT64), raw, fl.uint(32))
            fl.store(self.word(offset + 4), b.emit("OpUConvert", self.uint, high))
        else:                       # 16 bits: replace them in their word (not atomically, as dxc)
            place, shift = self._half_word(offset)
            bits = b.emit("OpShiftLeftLogical", self.uint, b.emit("OpUConvert", self.uint, raw), shift)
            mask = b.emit("OpNot", self.uint, b.emit("OpShiftLeftLogical", self.uint, fl.uint(0xFFFF), shift))
            kept = b.emit("OpBitwiseAnd", self.uint, fl.load(place), mask)
            fl.store(place, b.emit("OpBitwiseOr", self.uint, kept, bits))


# ---------------------------------------------------------------- texture methods

_SAMPLES = {
    # method: (instruction, image operand of the arguments after the coordinate (and the depth
    # reference), how many, whether a MinLod clamp may follow the offset)
    "Sample": ("OpImageSampleImplicitLod", None, 0, True),
    "SampleBias": ("OpImageSampleImplicitLod", "Bias", 1, True),
    "SampleLevel": ("OpImageSampleExplicitLod", "Lod", 1, False),
    "SampleGrad": ("OpImageSampleExplicitLod", "Grad", 2, True),
    "SampleCmp": ("OpImageSampleDrefImplicitLod", None, 0, True),
    "SampleCmpBias": ("OpImageSampleDrefImplicitLod", "Bias", 1, True),
    "SampleCmpLevel": ("OpImageSampleDrefExplicitLod", "Lod", 1, False),
    "SampleCmpLevelZero": ("OpImageSampleDrefExplicitLod", "Lod", 0, False),
    "SampleCmpGrad": ("OpImageSampleDrefExplicitLod", "Grad", 2, True),
    **{f"Gather{c}": ("OpImageGather", None, 0, False) for c in ("", "Red", "Green", "Blue", "Alpha")},
    **{f"GatherCmp{c}": ("OpImageDrefGather", None, 0, False) for c in ("", "Red", "Green", "Blue", "Alpha")},
}
"""Each sampling method; after the operands above come the optional texel offset (never on cube
maps), the optional MinLod clamp (where the flag says so) and the optional `out uint status`, in
that order (gen_intrin_main.txt's overloads)."""
_GATHER_COMPONENT = {"": 0, "Red": 0, "Green": 1, "Blue": 2, "Alpha": 3}
"""Gather's component operand; GatherCmp* compare the first component (OpImageDrefGather has none)."""


def _image_method(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> object:
    name, args = expr.method, expr.args
    if name in _SAMPLES:
        return _sample(fl, handle, expr)
    if name.startswith("CalculateLevelOfDetail"):
        return _level_of_detail(fl, handle, expr)
    if name == "GetDimensions":
        _get_dimensions(fl, handle, expr)
        return None
    if name == "GetSamplePosition":
        return _sample_position(fl, handle, expr)
    if name != "Load":
        raise AssertionError(f"method '{name}' of '{handle.type}' has no SPIR-V lowering")
    location = fl.value(args[0])
    if handle.type.kind.multisampled:                       # Load(location, sample[, offset][, status])
        sample = fl.convert(fl.value(args[1]), args[1].type, t.UINT)
        if handle.type.kind.writable:
            value = image_load(fl, ImagePlace(handle, location, expr.type, sample, args[0].type))
            _status(fl, expr, 2)
            return value
        groups: list[tuple] = []
        if len(args) >= 3:
            groups.append(_offset(fl, args[2], name))
        groups.append(("Sample", sample))
        value = fl.b.emit("OpImageFetch", _vec4(fl, handle), _object(fl, handle), location, *_image_operands(*groups))
        _status(fl, expr, 3)
        return _texel(fl, value, handle, expr.type)
    if handle.type.kind.writable or _DIMS[handle.type.kind][0] == "Buffer":
        value = image_load(fl, ImagePlace(handle, location, expr.type, None, args[0].type))
        _status(fl, expr, 1)
        return value
    parts = fl.components(location, args[0].type)          # coordinates, then the mip level
    scalar = t.element_scalar(args[0].type)
    assert scalar is not None
    coordinate = parts[0] if len(parts) == 2 else fl.build(parts[:-1], t.vector(scalar, len(parts) - 1))
    if fl.ml.options.checks:
        _check_texel(fl, ImagePlace(handle, coordinate, expr.type, fl.convert(parts[-1], scalar, t.UINT),
                                    scalar if len(parts) == 2 else t.vector(scalar, len(parts) - 1)))
    operands: list[OperandValue] = ["Lod", parts[-1]]
    if len(args) >= 2:
        kind, offset = _offset(fl, args[1], name)
        operands = [f"Lod|{kind}", parts[-1], offset]
    value = fl.b.emit("OpImageFetch", _vec4(fl, handle), _object(fl, handle), coordinate, *operands)
    _status(fl, expr, 2)
    return _texel(fl, value, handle, expr.type)


def _sampled_image(fl: FunctionLowering, handle: ResourceHandle, sampler: ir.Expr) -> int:
    """OpSampledImage of the texture and the sampler (NonUniform where either index is)."""
    sampler_handle = _handle(fl, sampler)
    sampler_id, image = _object(fl, sampler_handle), _object(fl, handle)
    sampled_type = fl.b.type("OpTypeSampledImage", handle.pointee)
    _name_once(fl.ml, sampled_type, "type.sampled.image")
    sampled = fl.b.emit("OpSampledImage", sampled_type, image, sampler_id)
    return decorate_non_uniform(fl, sampled, (*handle.indices, *sampler_handle.indices), None)


def _sample(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> int:
    name, args = expr.method, expr.args
    opcode, operand, count, clamps = _SAMPLES[name]
    if "Implicit" in opcode:
        uses_derivatives(fl, expr)
    sampled = _sampled_image(fl, handle, args[0])
    coordinate, rest = fl.value(args[1]), args[2:]
    leading: list[int] = []
    dref = "Dref" in opcode
    if dref:                                                # the depth reference
        leading, rest = [fl.value(rest[0])], rest[1:]
    elif opcode == "OpImageGather":
        leading = [fl.uint(_GATHER_COMPONENT[name.removeprefix("Gather")])]
    names = [operand] if operand else []
    values: list[OperandValue] = [fl.value(a) for a in rest[:count]]
    if name == "SampleCmpLevelZero":
        names, values = ["Lod"], [fl.ml.constant(t.FLOAT, 0.0)]
    rest = rest[count:]
    if "Gather" in opcode and len(rest) >= 4:               # an offset per gathered texel
        names.append("ConstOffsets")
        values.append(_const_offsets(fl, rest[:4], name))
        rest = rest[4:]
    elif rest and _DIMS[handle.type.kind][0] != "Cube":     # the texel offset (cube maps have none)
        kind, offset = _offset(fl, rest[0], name)
        names.append(kind)
        values.append(offset)
        rest = rest[1:]
    if rest and clamps:                                     # the MinLod clamp
        fl.b.capability("MinLod")
        names.append("MinLod")
        values.append(fl.value(rest[0]))
        rest = rest[1:]
    image_operands: list[OperandValue] = ["|".join(names), *values] if names else []
    component = _component(handle.type)
    if fl.ml.options.checks:       # the checks of the operands made blocks: OpSampledImage is used in its own block
        sampled = _sampled_image(fl, handle, args[0])
    if dref and not opcode.endswith("Gather"):
        value = fl.b.emit(opcode, fl.types.scalar(component), sampled, coordinate, *leading, *image_operands)
        result = fl.convert(value, component, expr.type)
    else:
        value = fl.b.emit(opcode, _vec4(fl, handle), sampled, coordinate, *leading, *image_operands)
        result = fl.convert(value, t.vector(component, 4), expr.type) if "Gather" in opcode \
            else _texel(fl, value, handle, expr.type)
    if rest:                                                # `out uint status`: never sparse
        _status(fl, expr, len(args) - 1)
    return result


def _level_of_detail(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> int:
    """CalculateLevelOfDetail[Unclamped](s, x): OpImageQueryLod's first (clamped) or second
    (unclamped) component, as dxc; it needs implicit derivatives like Sample."""
    uses_derivatives(fl, expr)
    fl.b.capability("ImageQuery")
    sampled = _sampled_image(fl, handle, expr.args[0])
    coordinate = fl.value(expr.args[1])
    if fl.ml.options.checks:       # as in `_sample`
        sampled = _sampled_image(fl, handle, expr.args[0])
    lod = fl.b.emit("OpImageQueryLod", fl.types.id(t.vector(t.FLOAT, 2)), sampled, coordinate)
    index = 1 if expr.method.endswith("Unclamped") else 0
    return fl.b.emit("OpCompositeExtract", fl.types.id(t.FLOAT), lod, index)


def _offset(fl: FunctionLowering, arg: ir.Expr, method_name: str) -> tuple[str, int]:
    """A texel offset as (image operand, id): ConstOffset when constant, else Offset on Gather."""
    folded = fold(arg, optimized=True)
    if isinstance(folded, Folded):
        return "ConstOffset", fl.ml.constant(arg.type, folded.value)
    if method_name.startswith("Gather"):
        fl.b.capability("ImageGatherExtended")
        return "Offset", fl.value(arg)
    raise AssertionError(f"sema.target rejects variable texel offsets of '{method_name}' (WG0622)")


def _const_offsets(fl: FunctionLowering, args: tuple[ir.Expr, ...], method_name: str) -> int:
    """Gather's four texel offsets as the ConstOffsets operand: a constant array of four int2
    (SPIR-V wants constants; a variable one has no Vulkan form)."""
    parts = []
    for arg in args:
        folded = fold(arg, optimized=True)
        assert isinstance(folded, Folded), f"sema.target rejects variable offsets of '{method_name}' (WG0622)"
        parts.append(fl.ml.constant(arg.type, folded.value))
    fl.b.capability("ImageGatherExtended")
    return fl.b.constant_composite(fl.types.id(t.array(args[0].type, 4)), parts)


def _get_dimensions(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> None:
    fl.b.capability("ImageQuery")
    dim, arrayed = _DIMS[handle.type.kind]
    sizes = _SIZES[dim] + (1 if arrayed else 0)
    image = _object(fl, handle)
    size_type = fl.types.id(t.UINT if sizes == 1 else t.vector(t.UINT, sizes))
    args = expr.args
    mip_first = len(args) == sizes + 2        # GetDimensions(mip, sizes..., levels)
    if handle.type.kind.writable or dim == "Buffer" or handle.type.kind.multisampled:
        size = fl.b.emit("OpImageQuerySize", size_type, image)
    else:
        lod = fl.value(args[0]) if mip_first else fl.uint(0)
        size = fl.b.emit("OpImageQuerySizeLod", size_type, image, lod)
    first = 1 if mip_first else 0
    for i in range(sizes):
        part = size if sizes == 1 else fl.b.emit("OpCompositeExtract", fl.types.id(t.UINT), size, i)
        _store_out(fl, expr, first + i, part, t.UINT)
    if mip_first:
        levels = fl.b.emit("OpImageQueryLevels", fl.types.id(t.UINT), image)
        _store_out(fl, expr, len(args) - 1, levels, t.UINT)
    if handle.type.kind.multisampled:         # GetDimensions(sizes..., samples)
        samples = fl.b.emit("OpImageQuerySamples", fl.types.id(t.UINT), image)
        _store_out(fl, expr, sizes, samples, t.UINT)
    return None


SAMPLE_POSITIONS: dict[int, tuple[tuple[int, int], ...]] = {
    2: ((4, 4), (-4, -4)),
    4: ((-2, -6), (6, -2), (-6, 2), (2, 6)),
    8: ((1, -3), (-1, 3), (5, 1), (-3, -5), (-5, 5), (-7, -1), (3, 7), (7, -7)),
    16: ((1, 1), (-1, -3), (-3, 2), (4, -1), (-5, -2), (2, 5), (5, 3), (3, -5),
         (-2, 6), (0, -7), (-4, -6), (-6, 4), (-8, 0), (7, -4), (6, 7), (-7, -8)),
}
"""Direct3D's standard sample positions, in 1/16 pixel from the pixel's centre, per sample count
(the tables DXC's SPIR-V back end emits for GetSamplePosition: SpirvEmitter::emitGetSamplePosition)."""


def _sample_position(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> int:
    """GetSamplePosition(s): SPIR-V has no such query, so (as DXC) the position comes from the
    standard tables, picked by OpImageQuerySamples; float2(0, 0) for other sample counts. wgc keeps
    all four tables in one Function array and selects without branching; an index outside the
    table (undefined in DXC) also gives float2(0, 0)."""
    fl.b.capability("ImageQuery")
    uint_id, bool_id, float2 = fl.types.id(t.UINT), fl.types.id(t.BOOL), t.vector(t.FLOAT, 2)
    count = fl.b.emit("OpImageQuerySamples", uint_id, _object(fl, handle))
    index = fl.convert(fl.value(expr.args[0]), expr.args[0].type, t.UINT)
    entries = [pos for table in SAMPLE_POSITIONS.values() for pos in table]
    table_type = t.array(float2, len(entries))
    data = fl.b.constant_composite(fl.types.id(table_type),
                                   [fl.ml.constant(float2, (x / 16, y / 16)) for x, y in entries])
    table = fl.local(table_type, "var.GetSamplePosition.data")
    fl.store(table, data)
    base, known, first = fl.uint(0), None, 0
    for samples, positions in SAMPLE_POSITIONS.items():
        equal = fl.b.emit("OpIEqual", bool_id, count, fl.uint(samples))
        base = fl.b.emit("OpSelect", uint_id, equal, fl.uint(first), base)
        known = equal if known is None else fl.b.emit("OpLogicalOr", bool_id, known, equal)
        first += len(positions)
    assert known is not None                     # SAMPLE_POSITIONS is not empty
    in_range = fl.b.emit("OpLogicalAnd", bool_id, known, fl.b.emit("OpULessThan", bool_id, index, count))
    slot = fl.b.emit("OpSelect", uint_id, in_range, fl.b.emit("OpIAdd", uint_id, base, index), fl.uint(0))
    position = fl.load(fl.element_place(table, slot))
    return fl.b.emit("OpSelect", fl.types.id(float2), in_range, position, fl.ml.constant(float2, (0.0, 0.0)))


# ---------------------------------------------------------------- derivatives


def uses_derivatives(fl: FunctionLowering, expr: ir.Expr) -> None:
    """Note that the current SPIR-V function needs implicit derivatives (implicit-LOD sampling
    here; ddx/ddy-like intrinsics can call it too); in an entry point's own body, give the entry
    point its derivative group at once (called helpers: `derivative_mode`, after lowering)."""
    _state(fl.ml).derivatives.add(fl.spirv_function)
    node = next((n for n in fl.ml.graph.nodes if n.function is fl.function), None)
    if node is not None and fl.spirv_function not in fl.ml.functions.values():     # an entry point
        derivative_mode(fl.ml, fl.spirv_function, node, expr)


def wrapped_entry(ml: ModuleLowering, entry: int, wrapper: int) -> None:
    """`entry`'s derivative group, if it was given one while its body was lowered, becomes
    `wrapper`'s: the function that calls it and is the entry point (`emulated_tail.wrap_entry`)."""
    state = _state(ml)
    if entry in state.derivative_entries:
        ml.b.move_execution_modes(entry, wrapper)
        state.derivative_entries.discard(entry)
        state.derivative_entries.add(wrapper)


def derivative_mode(ml: ModuleLowering, entry: int, node: NodeInfo, expr: ir.Expr | None = None) -> None:
    """The DerivativeGroup*KHR execution mode of an entry point whose code, or a function it
    calls, uses implicit derivatives (dxc's rule for compute shaders); idempotent."""
    state = _state(ml)
    if entry in state.derivative_entries:
        return
    reached, stack = set(), [entry]
    while stack:
        current = stack.pop()
        if current not in reached:
            reached.add(current)
            stack.extend(ml.function_calls.get(current, ()))
    if not reached & state.derivatives:
        return
    x, y, z = node.num_threads
    assert node.launch != "thread", "sema rejects derivatives in thread launch nodes (WG0416)"
    if x % 4 == 0 and y == 1 and z == 1:
        group = "Linear"
    else:
        assert x % 2 == 0 and y % 2 == 0, "sema checks the derivative group shape (WG0441)"
        group = "Quads"
    ml.b.extension("SPV_KHR_compute_shader_derivatives")
    ml.b.capability(f"ComputeDerivativeGroup{group}KHR")
    ml.b.execution_mode(entry, f"DerivativeGroup{group}KHR")
    state.derivative_entries.add(entry)
