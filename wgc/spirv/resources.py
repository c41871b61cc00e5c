"""Resources in SPIR-V: descriptors, uniform blocks, buffer and texture access (SPIR-V back end).

Input: IR variables of storage UNIFORM / RESOURCE and the expressions that use them
(`ir.ResourceIndex`, `ir.MethodCall` on resources), through a `FunctionLowering`.
Output: module-scope variables with DescriptorSet/Binding (or PushConstant) decorations,
`Place`s for buffer elements, and the instructions of resource methods.

Invariants (dxc's Vulkan mapping):
- cbuffer / ConstantBuffer<T> / $Globals: a Block struct in Uniform storage, laid out as sema
  computed (std140, DX or scalar); push constants: the same in PushConstant storage.
- tbuffer / TextureBuffer<T>: a Block struct in StorageBuffer storage, NonWritable.
- StructuredBuffer<T> and its RW/Append/Consume forms: a Block struct holding a runtime array of
  T (ArrayStride from the layout) in StorageBuffer storage; ByteAddressBuffer: a runtime array
  of uint. Read-only buffers are NonWritable; `globallycoherent` is Coherent.
"""

from __future__ import annotations

from dataclasses import dataclass

from wgc import ir
from wgc import types as t
from wgc.sema.consteval import Folded, fold
from wgc.sema.layout import TypeLayout, round_up

from .lower import FunctionLowering, ModuleLowering, Place, ResourceHandle, Unsupported

RK = t.ResourceKind

_STRUCTURED = (RK.STRUCTURED_BUFFER, RK.RW_STRUCTURED_BUFFER, RK.APPEND_STRUCTURED_BUFFER,
               RK.CONSUME_STRUCTURED_BUFFER)
_BYTE_ADDRESS = (RK.BYTE_ADDRESS_BUFFER, RK.RW_BYTE_ADDRESS_BUFFER)
_WORD = TypeLayout(size=4, alignment=4)


def _decorate_binding(ml: ModuleLowering, var: int, variable: ir.Variable) -> None:
    if variable.binding is not None:
        ml.b.decorate(var, "DescriptorSet", variable.binding.set)
        ml.b.decorate(var, "Binding", variable.binding.binding)


def declare_block(ml: ModuleLowering, variable: ir.Variable) -> Place:
    """A uniform block (cbuffer, ConstantBuffer, tbuffer, push constants): a Place of its struct."""
    assert variable.layout is not None
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


def declare(ml: ModuleLowering, variable: ir.Variable) -> ResourceHandle:
    """A resource variable (or an array of them): buffers, images, samplers."""
    type_, lengths = variable.type, []
    while isinstance(type_, t.ArrayType):
        lengths.append(type_.length)
        type_ = type_.element
    if not isinstance(type_, t.ResourceType):
        raise Unsupported(variable.span, f"resource '{variable.name}' of type '{type_}' cannot be lowered")
    layout = None
    if type_.kind in _STRUCTURED or type_.kind in _BYTE_ADDRESS:
        if type_.kind in (RK.APPEND_STRUCTURED_BUFFER, RK.CONSUME_STRUCTURED_BUFFER):
            raise Unsupported(variable.span, f"'{type_.kind.value}' needs a counter buffer, which wgc "
                              "does not create yet")
        element, element_layout = (t.UINT, _WORD) if type_.kind in _BYTE_ADDRESS else \
            (type_.element, variable.layout)
        assert element is not None and element_layout is not None
        stride = round_up(element_layout.size, element_layout.alignment) or 4
        layout = TypeLayout(size=0, alignment=element_layout.alignment, array_stride=stride,
                            matrix_stride=element_layout.matrix_stride, row_major=element_layout.row_major,
                            element=element_layout)
        pointee = ml.types.block(t.array(element, None), layout, f"type.{type_}")
        if not type_.kind.writable:
            ml.b.member_decorate(pointee, 0, "NonWritable")
        storage = "StorageBuffer"
    elif type_.kind.is_sampler:
        pointee, storage = ml.b.type("OpTypeSampler"), "UniformConstant"
    else:
        pointee, storage = image_type(ml, type_), "UniformConstant"
    outer = pointee
    for length in reversed(lengths):
        if length is None:
            ml.b.capability("RuntimeDescriptorArray")
            outer = ml.b.type_runtime_array(outer)
        else:
            outer = ml.b.type_array(outer, ml.uint(length))
    var = ml.b.variable(ml.b.type_pointer(storage, outer), storage)
    ml.b.name(var, variable.name)
    if "globallycoherent" in variable.modifiers and not ml.vulkan_memory_model:
        ml.b.decorate(var, "Coherent")
    _decorate_binding(ml, var, variable)
    return ResourceHandle(var, type_, storage, pointee, layout)


# ---------------------------------------------------------------- images

_DIMS = {
    RK.BUFFER: ("Buffer", False), RK.RW_BUFFER: ("Buffer", False),
    RK.TEXTURE_1D: ("1D", False), RK.TEXTURE_1D_ARRAY: ("1D", True),
    RK.TEXTURE_2D: ("2D", False), RK.TEXTURE_2D_ARRAY: ("2D", True), RK.TEXTURE_3D: ("3D", False),
    RK.TEXTURE_CUBE: ("Cube", False), RK.TEXTURE_CUBE_ARRAY: ("Cube", True),
    RK.RW_TEXTURE_1D: ("1D", False), RK.RW_TEXTURE_1D_ARRAY: ("1D", True),
    RK.RW_TEXTURE_2D: ("2D", False), RK.RW_TEXTURE_2D_ARRAY: ("2D", True), RK.RW_TEXTURE_3D: ("3D", False),
}
# storage-image formats dxc infers from the element type: (kind, components) -> format
_FORMATS = {
    ("f", 1): "R32f", ("f", 2): "Rg32f", ("f", 4): "Rgba32f",
    ("s", 1): "R32i", ("s", 2): "Rg32i", ("s", 4): "Rgba32i",
    ("u", 1): "R32ui", ("u", 2): "Rg32ui", ("u", 4): "Rgba32ui",
}


def _component(type_: t.ResourceType) -> t.ScalarType:
    scalar = t.element_scalar(type_.element) if type_.element is not None else t.FLOAT
    if scalar is None or scalar.kind is t.ScalarKind.BOOL:
        return t.UINT
    return t.scalar(scalar.kind, 32) if scalar.bits != 32 else scalar


def image_type(ml: ModuleLowering, type_: t.ResourceType) -> int:
    dim, arrayed = _DIMS[type_.kind]
    component = _component(type_)
    storage = type_.kind.writable
    fmt = "Unknown"
    if storage:
        kind = "f" if component.is_float else ("s" if component.kind is t.ScalarKind.INT else "u")
        fmt = _FORMATS.get((kind, t.component_count(type_.element) or 1), "Unknown")
        if fmt == "Unknown":
            ml.b.capability("StorageImageReadWithoutFormat", "StorageImageWriteWithoutFormat")
    if dim == "Buffer":
        ml.b.capability("ImageBuffer" if storage else "SampledBuffer")
    elif dim == "1D":
        ml.b.capability("Image1D" if storage else "Sampled1D")
    elif dim == "Cube" and arrayed:
        ml.b.capability("SampledCubeArray")
    return ml.b.type("OpTypeImage", ml.types.scalar(component), dim, 0, 1 if arrayed else 0, 0,
                     2 if storage else 1, fmt)


@dataclass(frozen=True)
class ImagePlace:
    """A texel of a typed buffer or texture (`tex[uint2(x, y)]`): read with OpImageFetch/Read,
    written with OpImageWrite."""

    handle: ResourceHandle
    coordinate: int
    type: t.Type


def _image(fl: FunctionLowering, handle: ResourceHandle) -> int:
    pointer = handle.variable
    if handle.indices:
        pointer = fl.b.emit("OpAccessChain", fl.b.type_pointer("UniformConstant", handle.pointee),
                            handle.variable, *handle.indices)
    return fl.b.emit("OpLoad", handle.pointee, pointer)


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
    source = component if count == 1 else t.vector(component, count)
    return fl.convert(value, source, result)


def image_load(fl: FunctionLowering, place: ImagePlace, lod: int | None = None) -> int:
    handle = place.handle
    vec4 = fl.types.id(t.vector(_component(handle.type), 4))
    image = _image(fl, handle)
    if handle.type.kind.writable:
        value = fl.b.emit("OpImageRead", vec4, image, place.coordinate)
    elif _DIMS[handle.type.kind][0] == "Buffer":
        value = fl.b.emit("OpImageFetch", vec4, image, place.coordinate)
    else:
        value = fl.b.emit("OpImageFetch", vec4, image, place.coordinate, "Lod", lod or fl.uint(0))
    return _texel(fl, value, handle, place.type)


def image_store(fl: FunctionLowering, place: ImagePlace, value: int) -> None:
    component = _component(place.handle.type)
    count = t.component_count(place.type) or 1
    texel = fl.convert(value, place.type, component if count == 1 else t.vector(component, count))
    fl.b.emit("OpImageWrite", _image(fl, place.handle), place.coordinate, texel)


def texel_pointer(fl: FunctionLowering, place: ImagePlace) -> int:
    """OpImageTexelPointer for an atomic on a storage-image texel."""
    handle = place.handle
    pointer = handle.variable
    if handle.indices:
        pointer = fl.b.emit("OpAccessChain", fl.b.type_pointer("UniformConstant", handle.pointee),
                            handle.variable, *handle.indices)
    component = fl.types.scalar(_component(handle.type))
    return fl.b.emit("OpImageTexelPointer", fl.b.type_pointer("Image", component), pointer,
                     place.coordinate, fl.uint(0))


# ---------------------------------------------------------------- element access


def _buffer_place(fl: FunctionLowering, handle: ResourceHandle, index: int) -> Place:
    """The element `index` of a structured or byte-address buffer."""
    assert handle.layout is not None
    element = handle.type.element if handle.type.kind in _STRUCTURED else t.UINT
    assert element is not None
    return Place(handle.variable, element, "StorageBuffer", handle.layout.element,
                 handle.indices + (fl.uint(0), index))


def _handle(fl: FunctionLowering, expr: ir.Expr) -> ResourceHandle:
    handle = fl.value(expr)
    if not isinstance(handle, ResourceHandle):
        raise Unsupported(expr.span, "this resource cannot be used here")
    fl.use_global(handle.variable)
    return handle


def index_place(fl: FunctionLowering, expr: ir.ResourceIndex) -> Place | ImagePlace:
    """`buffer[i]` / `texture[uint2(x, y)]` as a location."""
    handle = _handle(fl, expr.resource)
    index = fl.value(expr.index)
    if handle.type.kind in _STRUCTURED:
        return _buffer_place(fl, handle, index)
    if handle.type.kind in _DIMS:
        coordinate = fl.convert(index, expr.index.type, t.with_element(expr.index.type, t.INT))
        return ImagePlace(handle, coordinate, expr.type)
    raise Unsupported(expr.span, f"'{handle.type}' cannot be indexed")


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
    raise Unsupported(expr.span, f"method '{expr.method}' of '{expr.object.type}' has no SPIR-V lowering")


def _store_out(fl: FunctionLowering, expr: ir.MethodCall, index: int, value: int, type_: t.Type) -> None:
    arg = expr.args[index]
    fl.store(fl.place(arg), fl.convert(value, type_, arg.type))


def _array_length(fl: FunctionLowering, handle: ResourceHandle) -> int:
    pointer = handle.variable
    if handle.indices:
        pointer = fl.b.emit("OpAccessChain", fl.b.type_pointer("StorageBuffer", handle.pointee),
                            handle.variable, *handle.indices)
    return fl.b.emit("OpArrayLength", fl.types.id(t.UINT), pointer, 0)


def _structured_method(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> object:
    name = expr.method
    if name == "Load":
        value = fl.load(_buffer_place(fl, handle, fl.value(expr.args[0])))
        if len(expr.args) == 2:
            _store_out(fl, expr, 1, fl.uint(1), t.UINT)       # status: always resident
        return value
    if name == "GetDimensions":
        assert handle.layout is not None
        _store_out(fl, expr, 0, _array_length(fl, handle), t.UINT)
        _store_out(fl, expr, 1, fl.uint(handle.layout.array_stride or 0), t.UINT)
        return None
    raise Unsupported(expr.span, f"'{handle.type}.{name}' needs a counter buffer, which wgc does not "
                      "create yet")


def _byte_address_method(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> object:
    name = expr.method
    if name == "GetDimensions":
        length = _array_length(fl, handle)
        _store_out(fl, expr, 0, fl.binary("*", t.UINT, t.UINT, length, fl.uint(4)), t.UINT)
        return None
    address = fl.value(expr.args[0])
    word = fl.binary(">>", t.UINT, t.UINT, address, fl.uint(2))
    if name.startswith("Interlocked"):
        place = _buffer_place(fl, handle, word)
        from .intrinsics import atomic_on
        return atomic_on(fl, expr, place, expr.args[1:])
    if name.startswith("Load"):
        type_ = expr.type
        words = _word_count(expr.span, type_)
        parts = [fl.load(_buffer_place(fl, handle, fl.binary("+", t.UINT, t.UINT, word, fl.uint(i))))
                 for i in range(words)]
        value = _from_words(fl, expr, parts, type_)
        if len(expr.args) == 2:
            _store_out(fl, expr, 1, fl.uint(1), t.UINT)
        return value
    if name.startswith("Store"):
        value_type = expr.args[1].type
        parts = _to_words(fl, expr, fl.value(expr.args[1]), value_type)
        for i, part in enumerate(parts):
            fl.store(_buffer_place(fl, handle, fl.binary("+", t.UINT, t.UINT, word, fl.uint(i))), part)
        return None
    raise Unsupported(expr.span, f"method '{name}' of '{handle.type}' has no SPIR-V lowering")


def _word_count(span, type_: t.Type) -> int:  # type: ignore[no-untyped-def]
    scalar = t.element_scalar(type_)
    if scalar is None or scalar.bits != 32:
        raise Unsupported(span, f"byte-address access of '{type_}' (only 32-bit scalars and vectors "
                          "are supported by the SPIR-V back end yet)")
    return t.component_count(type_) or 1


def _from_words(fl: FunctionLowering, expr: ir.MethodCall, words: list[int], type_: t.Type) -> int:
    scalar = t.element_scalar(type_)
    assert scalar is not None
    if scalar is not t.UINT and scalar.kind is not t.ScalarKind.BOOL:
        words = [fl.b.emit("OpBitcast", fl.types.scalar(scalar), w) for w in words]
    elif scalar.kind is t.ScalarKind.BOOL:
        words = [fl.convert_scalar(w, t.UINT, scalar) for w in words]
    return fl.build(words, type_)


def _to_words(fl: FunctionLowering, expr: ir.MethodCall, value: int, type_: t.Type) -> list[int]:
    _word_count(expr.span, type_)
    scalar = t.element_scalar(type_)
    parts = fl.components(value, type_)
    if scalar.kind is t.ScalarKind.BOOL:
        return [fl.convert_scalar(p, scalar, t.UINT) for p in parts]
    if scalar is not t.UINT:
        return [fl.b.emit("OpBitcast", fl.types.id(t.UINT), p) for p in parts]
    return parts


def _image_method(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> object:
    name, args = expr.method, expr.args
    if name == "Load":
        location = fl.value(args[0])
        location_type = args[0].type
        if handle.type.kind.writable or _DIMS[handle.type.kind][0] == "Buffer":
            place = ImagePlace(handle, fl.convert(location, location_type,
                                                  t.with_element(location_type, t.INT)), expr.type)
            return image_load(fl, place)
        parts = fl.components(fl.convert(location, location_type, t.with_element(location_type, t.INT)),
                              location_type)
        coordinate = fl.build(parts[:-1], t.vector(t.INT, len(parts) - 1)) if len(parts) > 2 else parts[0]
        vec4 = fl.types.id(t.vector(_component(handle.type), 4))
        operands = ["Lod", parts[-1]]
        if len(args) == 2:
            operands = ["Lod|ConstOffset", parts[-1], _offset(fl, args[1])]
        value = fl.b.emit("OpImageFetch", vec4, _image(fl, handle), coordinate, *operands)
        return _texel(fl, value, handle, expr.type)
    if name == "GetDimensions":
        return _get_dimensions(fl, handle, expr)
    if name in ("SampleLevel", "SampleGrad", "SampleCmpLevelZero", "Gather"):
        sampler_handle = _handle(fl, args[0])
        image = _image(fl, handle)
        sampler = fl.b.emit("OpLoad", sampler_handle.pointee, sampler_handle.variable)
        sampled_type = fl.b.type("OpTypeSampledImage", handle.pointee)
        sampled = fl.b.emit("OpSampledImage", sampled_type, image, sampler)
        coordinate = fl.value(args[1])
        vec4 = fl.types.id(t.vector(_component(handle.type), 4))
        if name == "SampleLevel":
            operands, rest = ["Lod", fl.value(args[2])], args[3:]
        elif name == "SampleGrad":
            operands, rest = ["Grad", fl.value(args[2]), fl.value(args[3])], args[4:]
        elif name == "SampleCmpLevelZero":
            operands, rest = ["Lod", fl.ml.constant(t.FLOAT, 0.0)], args[3:]
        else:
            operands, rest = [], args[2:]
        if rest:
            operands = [(operands[0] + "|" if operands else "") + "ConstOffset", *operands[1:],
                        _offset(fl, rest[0])]
        if name == "SampleCmpLevelZero":
            value = fl.b.emit("OpImageSampleDrefExplicitLod", fl.types.id(t.FLOAT), sampled, coordinate,
                              fl.value(args[2]), *operands)
            return fl.convert(value, t.FLOAT, expr.type)
        if name == "Gather":
            value = fl.b.emit("OpImageGather", vec4, sampled, coordinate, fl.uint(0), *operands)
            return fl.convert(value, t.vector(_component(handle.type), 4), expr.type)
        value = fl.b.emit("OpImageSampleExplicitLod", vec4, sampled, coordinate, *operands)
        return _texel(fl, value, handle, expr.type)
    raise Unsupported(expr.span, f"'{handle.type}.{name}' needs implicit derivatives, which compute "
                      "(node) shaders do not have in SPIR-V: use SampleLevel or SampleGrad")


def _offset(fl: FunctionLowering, arg: ir.Expr) -> int:
    folded = fold(arg)
    if not isinstance(folded, Folded):
        raise Unsupported(arg.span, "a texel offset must be a constant")
    return fl.ml.constant(arg.type, folded.value)


def _get_dimensions(fl: FunctionLowering, handle: ResourceHandle, expr: ir.MethodCall) -> None:
    fl.b.capability("ImageQuery")
    dim, arrayed = _DIMS[handle.type.kind]
    sizes = {"1D": 1, "Buffer": 1, "2D": 2, "Cube": 2, "3D": 3}[dim] + (1 if arrayed else 0)
    image = _image(fl, handle)
    size_type = fl.types.id(t.UINT if sizes == 1 else t.vector(t.UINT, sizes))
    args = expr.args
    mip_first = len(args) == sizes + 2        # GetDimensions(mip, sizes..., levels)
    storage = handle.type.kind.writable or dim == "Buffer"
    if storage:
        size = fl.b.emit("OpImageQuerySize", size_type, image)
    else:
        lod = fl.value(args[0]) if mip_first else fl.uint(0)
        size = fl.b.emit("OpImageQuerySizeLod", size_type, image, lod)
    outputs = args[1:1 + sizes] if mip_first else args[:sizes]
    for i, arg in enumerate(outputs):
        part = size if sizes == 1 else fl.b.emit("OpCompositeExtract", fl.types.id(t.UINT), size, i)
        fl.store(fl.place(arg), fl.convert(part, t.UINT, arg.type))
    if mip_first:
        levels = fl.b.emit("OpImageQueryLevels", fl.types.id(t.UINT), image)
        fl.store(fl.place(args[-1]), fl.convert(levels, t.UINT, args[-1].type))
    return None
