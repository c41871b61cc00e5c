"""The work graph of SPV_AMDX_shader_enqueue modules, from the modules alone (SPIR-V input stage).

Stage:  spirv_in, after `reader.py`; `translate.py` and the runtime use what it gives.
Input:  one or several read modules (`reader.Module`; several make one graph: `--split-nodes`, or
        a module per node as AMD's samples ship them) and, optionally, the node name the
        application gives an entry point (`VkPipelineShaderStageNodeCreateInfoAMDX::pName`).
Output: `read_graph(modules, names) -> AmdxGraph`: a `wgc.metadata.reflection.Reflection` (the
        model the runtime's `build_program` consumes, loop_lowering "index-space": every node is
        one stage at its own index) plus, per node, the module and the facts `translate.py` needs
        (input variable, output payload-array types in order).
Where each fact comes from:
- node name: the OpEntryPoint name unless renamed; index: ShaderIndexAMDX (0 without);
  program entry: IsApiEntryAMDX (true without);
- launch: CoalescingAMDX is coalescing, or thread launch when its LocalSize is 1x1x1 and it takes
  at most one record (how the AMDX target writes `[NodeLaunch("thread")]`); else broadcasting with
  StaticNumWorkgroupsAMDX (fixed grid) or MaxNumWorkgroupsAMDX (grid from the record's
  PayloadDispatchIndirectAMDX member); MaxNodeRecursionAMDX, SharesInputWithAMDX;
- the input: the entry point's NodePayloadAMDX variable (where DXC dropped an unread one, the
  module's one payload array that names no node); its OpTypeNodePayloadArrayAMDX's
  NodeMaxPayloadsAMDX is a coalescing node's records per group; TrackFinishWritingAMDX on the
  record struct is cross-group sharing;
- outputs: the payload-array types decorated PayloadNodeNameAMDX that the entry point's code
  reaches (allocations, IsValid's variables), in module order (the order the AMDX target declares
  them in; a type no code reaches belongs to the entry point its OpName "<function>.<param>"
  names); target name and base index, PayloadNodeArraySizeAMDX (1: a single output),
  PayloadNodeSparseArrayAMDX (without array size: unbounded), NodeMaxPayloadsAMDX,
  NodeSharesPayloadLimitsWithAMDX. AMDX has no [MaxRecordsPerNode]: the output's budget bounds
  each node of an array;
- records: struct layouts from Offset / ArrayStride / MatrixStride / RowMajor, HLSL type names,
  member names where OpMemberName keeps them (else `_m<i>`);
- resources: the descriptor-set variables the entry points list, by set and binding (no
  register: SPIR-V has none), the resource kind from the type's name where a compiler keeps it
  (`type.RWStructuredBuffer<uint>`, DXC's `type.RWStructuredBuffer.uint`), else from the type;
  a storage image's or texel buffer's `image_format`: its OpTypeImage's Image Format; `access`:
  what the module's code does to the variable (`access.py`); `stages`: the execution models of
  the entry points that list it;
- a node input's kind: by launch, the RW one where the code writes the payload (`access.py`) or
  the record struct is TrackFinishWritingAMDX;
- mesh nodes: MeshEXT entry points are nodes of launch "mesh" (a broadcasting node that draws);
  Fragment entry points are no nodes: `AmdxGraph.pixel_shaders` names them, and their resources
  are described with the nodes'.
Invariants: reads nothing but the modules; a module it cannot describe raises `GraphError` with
the place (file, word offset, instruction) and what it is.
"""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Mapping, Sequence

from wgc.cached_dataclass import dataclass, field
from wgc.metadata.reflection import (
    BlockLayout, DispatchGrid, FieldLayout, InputReflection, NodeId, NodeReflection, OutputReflection,
    VK_SHADER_STAGES, PushConstantRange, RecordLayout, Reflection, Resource, StageReflection)

from .access import variable_access
from .reader import Instruction, Module, execution_mode


class GraphError(ValueError):
    """A module whose graph cannot be read (the message says where and what)."""


@dataclass
class NodeCode:
    """What translate.py needs of one node (entry point) beyond the reflection."""

    module: Module
    function: int
    entry_point: str
    launch: str
    input_variable: int | None
    outputs: list[int] = field(default_factory=list)
    """Payload-array type ids of the outputs, in OutputParameter order."""


@dataclass
class AmdxGraph:
    reflection: Reflection
    code: list[NodeCode]
    """One per node, in `reflection.nodes` order."""
    pixel_shaders: tuple[str, ...] = ()
    """The Fragment entry points beside mesh nodes (kept as they are by the translation)."""


# ---------------------------------------------------------------- types and layouts

_SCALAR_NAMES = {("int", 16, 0): "uint16_t", ("int", 16, 1): "int16_t", ("int", 32, 0): "uint", ("int", 32, 1): "int",
                 ("int", 64, 0): "uint64_t", ("int", 64, 1): "int64_t", ("float", 16, 0): "float16_t",
                 ("float", 32, 0): "float", ("float", 64, 0): "double", ("int", 8, 0): "uint8_t",
                 ("int", 8, 1): "int8_t"}


def _where(module: Module, inst: Instruction | None) -> str:
    return module.where(inst) if inst is not None else module.name


def _type(module: Module, id_: int) -> Instruction:
    inst = module.defs.get(id_)
    if inst is None:
        raise GraphError(f"{module.name}: id {id_} is used as a type and never defined")
    return inst


def _scalar(module: Module, inst: Instruction) -> tuple[str, int, int]:
    """(HLSL name, bytes, alignment) of an OpTypeInt / OpTypeFloat / OpTypeBool."""
    if inst.opname == "OpTypeInt":
        bits, signed = inst.literal(0), inst.literal(1)
        key = ("int", bits, signed)
    elif inst.opname == "OpTypeFloat":
        bits = inst.literal(0)
        key = ("float", bits, 0)
    else:
        raise GraphError(f"{_where(module, inst)}: a record or block member of a type without a size in memory")
    return _SCALAR_NAMES.get(key, f"{key[0]}{bits}"), bits // 8, bits // 8


def _describe(module: Module, id_: int) -> tuple[str, int, int]:
    """(HLSL type name, size, alignment) of a type in an explicitly laid-out block (scalar rules; a
    struct's size is its last member's end rounded up to its alignment, as HLSL sizes structs)."""
    inst = _type(module, id_)
    if inst.opname in ("OpTypeInt", "OpTypeFloat", "OpTypeBool"):
        return _scalar(module, inst)
    if inst.opname == "OpTypeVector":
        name, size, align = _describe(module, inst.literal(0))
        return f"{name}{inst.literal(1)}", size * inst.literal(1), align
    if inst.opname == "OpTypeMatrix":
        column = _type(module, inst.literal(0))
        name, size, align = _describe(module, column.literal(0))
        return f"{name}{inst.literal(1)}x{column.literal(1)}", size * inst.literal(1) * column.literal(1), align
    if inst.opname == "OpTypeArray":
        name, _, align = _describe(module, inst.literal(0))
        length = module.constant(inst.literal(1)) or 0
        stride = _array_stride(module, inst)
        return f"{name}[{length}]", stride * length, align
    if inst.opname == "OpTypeRuntimeArray":
        name, _, align = _describe(module, inst.literal(0))
        return f"{name}[]", 0, align
    if inst.opname == "OpTypeStruct":
        size, align = 0, 1
        for i, member in enumerate(inst.operands):
            _, msize, malign = _describe(module, member.value)
            offset = _member_offset(module, id_, i)
            member_size = _member_size(module, id_, i, member.value, msize)
            size, align = max(size, offset + member_size), max(align, malign)
        return module.names.get(id_, "record"), -(-size // align) * align, align   # C's rounding, as HLSL
    raise GraphError(f"{_where(module, inst)}: a record or block member of a type wgc run cannot lay out")


def _array_stride(module: Module, inst: Instruction) -> int:
    deco = module.decoration(inst.result or 0, "ArrayStride")
    if deco is None:
        raise GraphError(f"{_where(module, inst)}: an array in a record or block without ArrayStride")
    return deco.operands[2].value


def _member_offset(module: Module, struct: int, i: int) -> int:
    deco = module.member_decoration(struct, i, "Offset")
    if deco is None:
        raise GraphError(f"{_where(module, module.defs.get(struct))}: member {i} of a record or block has no Offset")
    return deco.operands[3].value


def _member_size(module: Module, struct: int, i: int, type_id: int, size: int) -> int:
    """A matrix member takes its MatrixStride per column; other members their size."""
    inst = _type(module, type_id)
    while inst.opname == "OpTypeArray":
        inst = _type(module, inst.literal(0))
    stride = module.member_decoration(struct, i, "MatrixStride")
    if inst.opname == "OpTypeMatrix" and stride is not None:
        outer = _type(module, type_id)
        if outer.opname == "OpTypeMatrix":
            return stride.operands[3].value * inst.literal(1)
    return size


def _fields(module: Module, struct_id: int) -> tuple[FieldLayout, ...]:
    struct = _type(module, struct_id)
    out = []
    for i, member in enumerate(struct.operands):
        type_id = member.value
        name, size, align = _describe(module, type_id)
        dims: list[int] = []
        inner = _type(module, type_id)
        array_stride = None
        while inner.opname == "OpTypeArray":
            dims.append(module.constant(inner.literal(1)) or 0)
            array_stride = _array_stride(module, inner)
            inner = _type(module, inner.literal(0))
        matrix_stride = module.member_decoration(struct_id, i, "MatrixStride")
        row_major = None
        if inner.opname == "OpTypeMatrix":
            # HLSL's row_major is SPIR-V's ColMajor (the AMDX target and DXC transpose matrices)
            row_major = module.member_decoration(struct_id, i, "ColMajor") is not None
        size = _member_size(module, struct_id, i, type_id, size)
        out.append(FieldLayout(
            name=module.member_names.get((struct_id, i), f"_m{i}"), type=name,
            offset=_member_offset(module, struct_id, i),
            size=size, alignment=align, array_dims=tuple(dims), array_stride=array_stride,
            matrix_stride=matrix_stride.operands[3].value if matrix_stride is not None else None,
            row_major=row_major, semantic=None,
            fields=_fields(module, inner.result or 0) if inner.opname == "OpTypeStruct" else ()))
    return tuple(out)


def _record(module: Module, struct_id: int) -> RecordLayout | None:
    struct = _type(module, struct_id)
    if struct.opname != "OpTypeStruct":
        raise GraphError(f"{_where(module, struct)}: a node payload that is not a struct")
    if not struct.operands:
        return None
    name, size, align = _describe(module, struct_id)
    grid = None
    for i, member in enumerate(struct.operands):
        if module.member_decoration(struct_id, i, "PayloadDispatchIndirectAMDX") is not None:
            type_ = _type(module, member.value)
            components = type_.literal(1) if type_.opname == "OpTypeVector" else 1
            scalar = _type(module, type_.literal(0)) if type_.opname == "OpTypeVector" else type_
            grid = DispatchGrid(_member_offset(module, struct_id, i), components, scalar.literal(0))
    tracked = module.decoration(struct_id, "TrackFinishWritingAMDX") is not None
    return RecordLayout(name, size, align, _fields(module, struct_id), grid, tracked)


# ---------------------------------------------------------------- nodes


def _mode_ids(module: Module, function: int, mode: str) -> list[int] | None:
    inst = execution_mode(module, function, mode)
    if inst is None:
        return None
    values = []
    for op in inst.operands[2:]:
        value = module.constant(op.value) if inst.opname == "OpExecutionModeId" else op.value
        if value is None:
            raise GraphError(f"{_where(module, inst)}: {mode} takes an <id> that is not an integer constant")
        values.append(value)
    return values


def _payload_struct(module: Module, array_type: int) -> int:
    inst = _type(module, array_type)
    if inst.opname != "OpTypeNodePayloadArrayAMDX":
        raise GraphError(f"{_where(module, inst)}: a NodePayloadAMDX pointer to something other than "
                         "an OpTypeNodePayloadArrayAMDX")
    return inst.literal(0)


def _pointee(module: Module, pointer_type: int) -> tuple[str, int]:
    inst = _type(module, pointer_type)
    if inst.opname != "OpTypePointer":
        raise GraphError(f"{_where(module, inst)}: a variable whose type is not a pointer")
    return inst.operands[0].name or "?", inst.literal(1)


def reached_functions(module: Module, function: int) -> list[int]:
    """`function` and every function its calls reach, in the order first reached."""
    seen = [function]
    for fn in seen:
        for inst in module.functions.get(fn, ()):
            if inst.opname == "OpFunctionCall" and inst.literal(0) not in seen:
                seen.append(inst.literal(0))
    return seen


def _output_types(module: Module, function: int, entry_name: str) -> list[int]:
    """The PayloadNodeNameAMDX payload-array types of an entry point, in module order."""
    reached: set[int] = set()
    for fn in reached_functions(module, function):
        for inst in module.functions.get(fn, ()):
            if inst.opname == "OpAllocateNodePayloadsAMDX":
                reached.add(_pointee(module, inst.result_type or 0)[1])
            elif inst.opname == "OpVariable":
                storage, pointee = _pointee(module, inst.result_type or 0)
                if _type(module, pointee).opname == "OpTypeNodePayloadArrayAMDX":
                    reached.add(pointee)
    named = set()
    for inst in module.instructions:
        if inst.opname == "OpTypeNodePayloadArrayAMDX" and inst.result not in reached:
            name = module.names.get(inst.result or 0, "")
            if name.startswith(entry_name + ".") and module.decoration(inst.result or 0, "PayloadNodeNameAMDX"):
                named.add(inst.result)
    return [inst.result for inst in module.instructions  # type: ignore[misc]
            if inst.opname == "OpTypeNodePayloadArrayAMDX" and (inst.result in reached or inst.result in named)
            and module.decoration(inst.result or 0, "PayloadNodeNameAMDX") is not None]


def _deco_value(module: Module, target: int, name: str) -> int | None:
    inst = module.decoration(target, name)
    if inst is None:
        return None
    value = module.constant(inst.operands[2].value)
    if value is None:
        raise GraphError(f"{_where(module, inst)}: {name} takes an <id> that is not an integer constant")
    return value


def _outputs(module: Module, types: list[int]) -> tuple[OutputReflection, ...]:
    out = []
    labels = [module.names.get(type_id, "").rpartition(".")[2] or f"output{i}" for i, type_id in enumerate(types)]
    for i, type_id in enumerate(types):
        name_deco = module.decoration(type_id, "PayloadNodeNameAMDX")
        assert name_deco is not None
        target = module.string(name_deco.operands[2].value)
        if target is None:
            raise GraphError(f"{_where(module, name_deco)}: PayloadNodeNameAMDX names no string constant")
        base = _deco_value(module, type_id, "PayloadNodeBaseIndexAMDX") or 0
        size = _deco_value(module, type_id, "PayloadNodeArraySizeAMDX")
        sparse = module.decoration(type_id, "PayloadNodeSparseArrayAMDX") is not None
        unbounded = sparse and size is None
        shared = module.decoration(type_id, "NodeSharesPayloadLimitsWithAMDX")
        shared_with = None
        if shared is not None:
            other = shared.operands[2].value
            if other not in types:
                raise GraphError(f"{_where(module, shared)}: NodeSharesPayloadLimitsWithAMDX names a payload "
                                 "array that is no output of the same node")
            shared_with = types.index(other)
        record = _record(module, _payload_struct(module, type_id))
        array_size = (0xFFFFFFFF if unbounded else size) if (size is not None and size != 1) or unbounded else None
        kind = ("EmptyNodeOutput" if record is None else "NodeOutput") + ("Array" if array_size is not None else "")
        out.append(OutputReflection(
            name=labels[i], index=i, kind=kind, target=NodeId(target, base), array_size=array_size,
            allow_sparse_nodes=sparse, unbounded_sparse_nodes=unbounded,
            max_records=None if shared_with is not None else (_deco_value(module, type_id, "NodeMaxPayloadsAMDX") or 0),
            max_records_shared_with=labels[shared_with] if shared_with is not None else None,
            max_records_shared_with_index=shared_with, max_records_per_node=None, max_records_per_node_written=False,
            record=record))
    return tuple(out)


_INPUT_KINDS = {"broadcasting": "DispatchNodeInputRecord", "coalescing": "GroupNodeInputRecords",
                "thread": "ThreadNodeInputRecord", "mesh": "DispatchNodeInputRecord"}


def _input_kind(launch: str, record: RecordLayout | None, written: bool) -> str:
    """The HLSL input object a node of `launch` reads its record through: the RW one where the code
    writes the payload or the record is tracked (TrackFinishWritingAMDX)."""
    if record is None:
        return "EmptyNodeInput"
    rw = written or record.track_rw_input_sharing
    return ("RW" if rw else "") + _INPUT_KINDS[launch]


def _node(module: Module, entry, name: str, access: dict[int, tuple[bool, bool]]) -> tuple[NodeReflection, NodeCode]:
    fn = entry.function
    index = (_mode_ids(module, fn, "ShaderIndexAMDX") or [0])[0]
    api_entry = (_mode_ids(module, fn, "IsApiEntryAMDX") or [1])[0] != 0
    local = _mode_ids(module, fn, "LocalSize") or _mode_ids(module, fn, "LocalSizeId")
    if local is None:
        raise GraphError(f"{_where(module, entry.instruction)}: entry point '{entry.name}' has no LocalSize")
    static = _mode_ids(module, fn, "StaticNumWorkgroupsAMDX")
    maximum = _mode_ids(module, fn, "MaxNumWorkgroupsAMDX")
    recursion = _mode_ids(module, fn, "MaxNodeRecursionAMDX")
    shares = execution_mode(module, fn, "SharesInputWithAMDX")
    input_var = None
    for id_ in entry.interface:
        var = module.defs.get(id_)
        if var is not None and var.opname == "OpVariable" and var.operands[0].name == "NodePayloadAMDX":
            if input_var is not None:
                raise GraphError(f"{_where(module, var)}: entry point '{entry.name}' has two NodePayloadAMDX inputs")
            input_var = id_
    record = max_payloads = None
    coherent = False
    array_type = None
    if input_var is not None:
        array_type = _pointee(module, module.defs[input_var].result_type or 0)[1]
    elif len(module.entry_points) == 1:
        # DXC drops an input variable its code never reads; the record is still the one payload
        # array of the module that names no node (an output's names its target)
        inputs = [i.result for i in module.instructions if i.opname == "OpTypeNodePayloadArrayAMDX"
                  and module.decoration(i.result or 0, "PayloadNodeNameAMDX") is None]
        if len(inputs) == 1:
            array_type = inputs[0]
    if array_type is not None:
        record = _record(module, _payload_struct(module, array_type))
        max_payloads = _deco_value(module, array_type, "NodeMaxPayloadsAMDX")
        coherent = input_var is not None and module.decoration(input_var, "Coherent") is not None
    if execution_mode(module, fn, "CoalescingAMDX") is not None:
        launch = "thread" if tuple(local) == (1, 1, 1) and (max_payloads or 1) == 1 else "coalescing"
    elif static is not None or maximum is not None:
        launch = "broadcasting"
    else:
        raise GraphError(f"{_where(module, entry.instruction)}: entry point '{entry.name}' is neither "
                         "CoalescingAMDX nor given StaticNumWorkgroupsAMDX or MaxNumWorkgroupsAMDX")
    if entry.model == "MeshEXT":
        if launch != "broadcasting":
            raise GraphError(f"{_where(module, entry.instruction)}: mesh node '{entry.name}' is CoalescingAMDX")
        launch = "mesh"      # read and run as a broadcasting node, drawn (`wgc.runtime.graphics`)
    if launch in ("broadcasting", "mesh") and static is None and (record is None or record.dispatch_grid is None):
        raise GraphError(f"{_where(module, entry.instruction)}: entry point '{entry.name}' has "
                         "MaxNumWorkgroupsAMDX but its record no PayloadDispatchIndirectAMDX member")
    share = None
    if shares is not None:
        target = module.string(shares.operands[2].value)
        share_index = module.constant(shares.operands[3].value)
        if target is None or share_index is None:
            raise GraphError(f"{_where(module, shares)}: SharesInputWithAMDX takes a node name string and an "
                             "integer constant")
        share = NodeId(target, share_index)
    outputs = _output_types(module, fn, module.names.get(fn, entry.name))
    node_input = None
    if array_type is not None:
        written = input_var is not None and access.get(input_var, (False, False))[1]
        node_input = InputReflection(_input_kind(launch, record, written), record,
                                     (max_payloads or 1) if launch == "coalescing" else None, coherent,
                                     max_records_written=launch == "coalescing" and max_payloads is not None)
    reflection = NodeReflection(
        function=module.names.get(fn, entry.name), entry_point=entry.name, module=module.name, id=NodeId(name, index),
        launch=launch, program_entry=api_entry,
        num_threads=(1, 1, 1) if launch == "thread" else tuple(local),  # type: ignore[arg-type]
        dispatch_grid=tuple(static) if static else None,  # type: ignore[arg-type]
        max_dispatch_grid=tuple(maximum) if maximum else None,  # type: ignore[arg-type]
        max_recursion_depth=recursion[0] if recursion else None, share_input_of=share,
        local_root_arguments_table_index=None, loop_entry=None, loops=(), input=node_input,
        outputs=_outputs(module, outputs), resources=(),
        stages=(StageReflection(index, (), False),), stage_stride=1,
        max_node_recursion=recursion[0] if recursion else None)
    return reflection, NodeCode(module, fn, entry.name, launch, input_var, outputs)


# ---------------------------------------------------------------- resources

_KIND = re.compile(r"type\.((?:RW|Append|Consume|RasterizerOrdered)?(?:StructuredBuffer|ByteAddressBuffer|Buffer"
                   r"|Texture[123]D(?:MS)?(?:Array)?|TextureCube(?:Array)?|ConstantBuffer|TextureBuffer"
                   r"|SamplerState|SamplerComparisonState))(?:[<.](.*?)>?)?$")


_STAGES = {"GLCompute": "compute", "MeshEXT": "mesh", "MeshNV": "mesh", "TaskEXT": "task", "TaskNV": "task",
           "Fragment": "fragment"}
"""The Vulkan shader stage of an entry point's execution model (the reflection's names)."""


def _access(read: bool, written: bool) -> str | None:
    return "read_write" if read and written else "read" if read else "write" if written else None


def _resource(module: Module, var: Instruction, users: list[str], access: tuple[bool, bool],
              stages: set[str]) -> Resource | PushConstantRange | None:
    storage, pointee = _pointee(module, var.result_type or 0)
    name = module.names.get(var.result or 0, f"var{var.result}")
    inner = _type(module, pointee)
    dims: list[int] = []
    while inner.opname in ("OpTypeArray", "OpTypeRuntimeArray") and storage == "UniformConstant":
        dims.append(module.constant(inner.literal(1)) or 0 if inner.opname == "OpTypeArray" else 0)
        inner = _type(module, inner.literal(0))
    if storage == "PushConstant":
        _, size, align = _describe(module, pointee)
        push_layout = BlockLayout(module.names.get(pointee, "block"), "scalar", size, align, None,
                                  _fields(module, pointee))
        return PushConstantRange(name, 0, size, push_layout, tuple(users))
    set_ = module.decoration(var.result or 0, "DescriptorSet")
    binding = module.decoration(var.result or 0, "Binding")
    if set_ is None or binding is None:
        return None
    element_type = component = image_format = None
    layout: BlockLayout | None = None
    type_name = module.names.get(inner.result or 0, "")
    match = _KIND.match(type_name)
    if storage in ("StorageBuffer", "Uniform") and inner.opname == "OpTypeStruct":
        struct = inner.result or 0
        last = _type(module, inner.operands[-1].value) if inner.operands else None
        stride = _array_stride(module, last) if last is not None and last.opname == "OpTypeRuntimeArray" else None
        if stride is not None:
            element_type = _describe(module, last.literal(0))[0]   # type: ignore[union-attr]
        writable = module.member_decoration(struct, 0, "NonWritable") is None
        if match:
            kind = match.group(1)
        elif storage == "Uniform" and module.decoration(struct, "Block") is not None:
            kind = "ConstantBuffer"
        else:
            kind = "RWStructuredBuffer" if writable else "StructuredBuffer"
        if kind.endswith("ByteAddressBuffer"):
            element_type = None
        if storage == "StorageBuffer" or module.decoration(struct, "BufferBlock") is not None:
            descriptor = "storage buffer"
        else:
            descriptor = "uniform buffer"
        size = align = 0
        if inner.operands:
            size, align = _describe(module, struct)[1:]
        layout = BlockLayout(type_name or "block", "scalar", size, align, stride, ())
    elif inner.opname == "OpTypeImage":
        dim = inner.operands[1].name or "2D"
        sampled, arrayed, ms = inner.literal(5), inner.literal(3), inner.literal(4)
        image_format = ((inner.operands[6].name if len(inner.operands) > 6 else None) or "Unknown") \
            if sampled == 2 else None
        scalar = _type(module, inner.literal(0))
        scalar_name = _scalar(module, scalar)[0] if scalar.opname != "OpTypeVoid" else "float"
        element_type = f"{scalar_name}4"
        component = {"uint": "u32", "int": "i32", "float": "f32"}.get(scalar_name, "f32")
        if match:
            kind = match.group(1)
        else:
            base = "Buffer" if dim == "Buffer" else f"Texture{dim}{'MS' if ms else ''}{'Array' if arrayed else ''}"
            kind = ("RW" if sampled == 2 else "") + base
        if dim == "Buffer":
            descriptor = "storage texel buffer" if sampled == 2 else "uniform texel buffer"
        else:
            descriptor = "storage image" if sampled == 2 else "sampled image"
    elif inner.opname == "OpTypeSampler":
        kind, descriptor = (match.group(1) if match else "SamplerState"), "sampler"
    elif inner.opname == "OpTypeAccelerationStructureKHR":
        kind, descriptor = "RaytracingAccelerationStructure", "acceleration structure"
    else:
        raise GraphError(f"{_where(module, var)}: resource '{name}' of a type wgc run cannot bind")
    declared = kind if element_type is None else f"{kind}<{element_type}>"
    return Resource(
        name=name, type=declared, kind=kind, register_class="?", register=None, set=set_.operands[2].value,
        binding=binding.operands[2].value, binding_source="vk::binding", descriptor_type=descriptor,
        array_dims=tuple(dims), globally_coherent=module.decoration(var.result or 0, "Coherent") is not None,
        push_constant=False, shader_record=False, element_type=element_type, element_component=component,
        layout=layout, counter=None, used_by=tuple(users), image_format=image_format, access=_access(*access),
        stages=tuple(stage for stage in VK_SHADER_STAGES if stage in stages))


def _resources(modules: Sequence[Module], nodes: list[NodeReflection], code: list[NodeCode]
               ) -> tuple[list[Resource], list[PushConstantRange]]:
    resources: dict[tuple[int, int, str], Resource] = {}
    pushes: dict[str, PushConstantRange] = {}
    for module in modules:
        users: dict[int, list[str]] = {}
        stages: dict[int, set[str]] = {}
        for node, nc in zip(nodes, code):
            if nc.module is not module:
                continue
            entry = next(e for e in module.entry_points if e.function == nc.function and e.name == nc.entry_point)
            for id_ in entry.interface:
                users.setdefault(id_, []).append(node.id.name if node.id.index == 0
                                                 else f"{node.id.name}[{node.id.index}]")
                stages.setdefault(id_, set()).add(_STAGES.get(entry.model, "compute"))
        for entry in module.entry_points:          # pixel shaders beside mesh nodes bind like the nodes
            if entry.model == "Fragment":
                for id_ in entry.interface:
                    users.setdefault(id_, []).append(entry.name)
                    stages.setdefault(id_, set()).add(_STAGES["Fragment"])
        access = variable_access(module)
        for inst in module.instructions:
            if inst.opname != "OpVariable" or inst.result not in users or inst.operands[0].name not in (
                    "StorageBuffer", "Uniform", "UniformConstant", "PushConstant"):
                continue
            described = _resource(module, inst, users[inst.result], access.get(inst.result, (False, False)),
                                  stages[inst.result])
            if isinstance(described, PushConstantRange):
                pushes.setdefault(described.name, described)
            elif described is not None:   # (a sampler and an image may share a binding)
                key = (described.set or 0, described.binding or 0, described.descriptor_type or "")
                known = resources.get(key)
                if known is None:
                    resources[key] = described
                else:
                    both = (known.access, described.access)
                    resources[key] = replace(
                        known, used_by=known.used_by + described.used_by,
                        access=_access(any(a in ("read", "read_write") for a in both),
                                       any(a in ("write", "read_write") for a in both)),
                        stages=tuple(s for s in VK_SHADER_STAGES if s in known.stages + described.stages))
    return list(resources.values()), list(pushes.values())


MAX_NODES = 1 << 16
"""The most nodes a graph read from modules may have, stages included: an output span past it (a
damaged PayloadNodeArraySizeAMDX may say 2^32) is refused before anything is made."""


def _add_stages(nodes: list[NodeReflection], code: list[NodeCode]) -> None:
    """The nodes an output reaches beyond an entry point's own ShaderIndexAMDX: every index of a
    non-sparse output span (PayloadNodeBaseIndexAMDX .. + PayloadNodeArraySizeAMDX) that names an
    entry point is a node running that entry point at that index (how the AMDX target unrolls Work
    Graph Loops: one entry point, a stage per index, the iteration read from the ShaderIndexAMDX
    built-in)."""
    present = {(n.id.name, n.id.index) for n in nodes}
    by_name: dict[str, int] = {}
    for i, node in enumerate(nodes):
        by_name.setdefault(node.id.name, i)
    work = list(range(len(nodes)))
    while work:
        node = nodes[work.pop()]
        for output in node.outputs:
            if output.allow_sparse_nodes or output.target.name not in by_name:
                continue
            size = output.array_size if output.array_size is not None else 1
            if len(nodes) + size > MAX_NODES:
                raise GraphError(f"node '{node.id.name}': its output to '{output.target.name}' spans {size} node "
                                 f"indices, more than the {MAX_NODES} nodes wgc run describes a graph with")
            for index in range(output.target.index, output.target.index + size):
                if (output.target.name, index) in present:
                    continue
                present.add((output.target.name, index))
                model = by_name[output.target.name]
                nodes.append(replace(nodes[model], id=NodeId(output.target.name, index),
                                     stages=(StageReflection(index, (), False),), program_entry=False))
                code.append(code[model])
                work.append(len(nodes) - 1)


def read_graph(modules: Sequence[Module], names: dict[str, str] | None = None,
               indices: Mapping[str, Sequence[int]] | None = None) -> AmdxGraph:
    """The graph of `modules` (module docstring). `names` renames entry points: "<entry point>" or
    "<module name>:<entry point>" -> the node name the application gives it. `indices`: entry point
    (or "<module name>:<entry point>") -> further indices the application creates its node at
    (`VkPipelineShaderStageNodeCreateInfoAMDX::index`: the stages of a loop unrolled in index space
    that only sparse spans or recursion reach)."""
    names = names or {}
    nodes: list[NodeReflection] = []
    code: list[NodeCode] = []
    pixel_shaders: list[str] = []
    for module in modules:
        if not any(inst.opname == "OpCapability" and inst.operands[0].name == "ShaderEnqueueAMDX"
                   for inst in module.instructions):
            raise GraphError(f"{module.name}: not an SPV_AMDX_shader_enqueue module (no ShaderEnqueueAMDX capability)")
        access = variable_access(module)
        for entry in module.entry_points:
            if entry.model == "Fragment":
                pixel_shaders.append(entry.name)
                continue
            if entry.model not in ("GLCompute", "MeshEXT"):
                raise GraphError(f"{_where(module, entry.instruction)}: entry point '{entry.name}' is a "
                                 f"{entry.model} shader; the AMDX path executes compute and mesh nodes only")
            name = names.get(f"{module.name}:{entry.name}", names.get(entry.name, entry.name))
            node, nc = _node(module, entry, name, access)
            nodes.append(node)
            code.append(nc)
    for entry_point, wanted in (indices or {}).items():
        model = next((i for i, n in enumerate(nodes)
                      if entry_point in (n.entry_point, f"{n.module}:{n.entry_point}")), None)
        if model is None:
            raise GraphError(f"the application creates nodes of entry point '{entry_point}', which no module has")
        name = nodes[model].id.name
        for index in wanted:
            if all((n.id.name, n.id.index) != (name, index) for n in nodes):
                nodes.append(replace(nodes[model], id=NodeId(name, index), program_entry=False,
                                     stages=(StageReflection(index, (), False),)))
                code.append(code[model])
    _add_stages(nodes, code)
    seen: dict[tuple[str, int], str] = {}
    for node in nodes:
        key = (node.id.name, node.id.index)
        if key in seen:
            raise GraphError(f"two entry points are node '{node.id.name}' index {node.id.index} "
                             f"({seen[key]} and {node.module}: {node.entry_point})")
        seen[key] = f"{node.module}: {node.entry_point}"
    resources, pushes = _resources(modules, nodes, code)
    reflection = Reflection(wgc_version="spirv", profile="spirv", target_env="vulkan1.3", nodes=tuple(nodes),
                            descriptor_bindings=tuple(resources), push_constant_ranges=tuple(pushes),
                            specialization_constants=(), loop_lowering="index-space")
    return AmdxGraph(reflection, code, tuple(pixel_shaders))
