"""The emulated target's node operations: plain compute shaders for `wgc run` (SPIR-V back end).

Input: calls through `node_ops.NodeOperations` (module docstring there).
Output: each node as a GLCompute entry point (a mesh node: MeshEXT, with its mesh outputs and
modes from `stageio.py`, read as a broadcasting node reads its record and grid) with no AMDX
instruction, capability or storage class, which reads its inputs and writes its outputs through PhysicalStorageBuffer pointers, by the
contract in `wgc.emulation_abi` (read that first: every offset, size and rule used here is there).

Invariants and decisions:
- `OpMemoryModel PhysicalStorageBuffer64 Vulkan`, always. Every load and store through a physical
  pointer carries `Aligned` with the largest scalar size of the accessed type (records are laid out
  with scalar rules, and the runtime aligns every record to that) and `NonPrivatePointer`;
  `globallycoherent` records add MakePointerAvailable/Visible at QueueFamily scope
  (`lower.ModuleLowering.memory_access`). Barriers order record memory with UniformMemory (the
  semantics that cover PhysicalStorageBuffer).
- Push constants: one Block `EmulationPushConstants` holding the NodeContext address at offset 0
  and, when the program has a `[[vk::push_constant]]` block, that block as a member at
  `USER_PUSH_CONSTANT_OFFSET` (Vulkan allows one push-constant block per entry point).
- `[[vk::shader_record_ext]]` blocks (local root arguments) are read through a physical pointer to
  the node's table entry (`NodeContext.local_root_arguments`), loaded where each use is: they
  take no descriptor in this target.
- Uniform blocks and buffers the node's local root signature binds (`NodeInfo.local_root_bindings`) are
  read from its table entry too: root constants in place, a root CBV, SRV or UAV through the 8-byte
  address at its offset (a buffer as a PhysicalStorageBuffer pointer to its Block struct,
  `resources.root_buffer`), each address computed (and loaded) once in the prologue; helpers naming
  them are inlined into their nodes (`ModuleLowering`).
- The entry function starts with a prologue that reads the NodeContext, computes the flat group
  index and the record index (per launch mode, as the ABI says) and leaves at once where there is
  no work: an invocation past the records (thread launch) or a whole group past the records or
  the grid (coalescing, broadcasting; all invocations of a group leave together). Its ids dominate
  the body; node operations that are not in the entry function (none take node objects there:
  sema inlines every function that does) read the NodeContext again.
- A compute node's entry point is a function that calls its entry function and then runs the
  level tail (`emulated_tail.py`, emulation ABI "Level tail"), so every exit of the entry function
  reaches it; a mesh node's entry point is its entry function.
- A mesh node declares built-in variables and a push-constant block of its own (the compute nodes
  share theirs), and the module lists mesh nodes first (`module.py`): NVIDIA's driver (580) drew
  nothing from a MeshEXT entry point whose built-ins another entry point of the module used first.
- Thread launch: THREAD_GROUP_SIZE invocations, each its own group of one thread, so a
  group-scope operation in a thread node is done by each invocation. Broadcasting and coalescing:
  group-scope allocation, GroupIncrementOutputCount and FinishedCrossGroupSharing are done by
  invocation 0, the result broadcast through a Workgroup variable of their own between two
  workgroup barriers (they are group-uniform calls, so every invocation reaches the barriers).
- An allocation every invocation makes exactly once (`emulated_placement.static_calls`, read in
  the prologue; `FunctionLowering.node_call` names the call being lowered) is placed by group index
  (`_static_base`): no subgroup operation, no barrier, one atomic per group, by invocation 0.
- A thread-scope allocation on a node-array element that every invocation of a broadcasting or
  coalescing group makes once (`emulated_placement.keyed_calls`) is counted per element in
  Workgroup memory between barriers (`_group_add_per_key`): one atomic per group and element,
  where the subgroup size is at least `abi.PER_KEY_MIN_SUBGROUP` (else one per invocation,
  below), read from the specialization constant `abi.SUBGROUP_SIZE_SPEC_ID`, which the runtime
  sets: on llvmpipe even barriers that never run make the shader slower (coroutines).
- Thread-scope allocation and ThreadIncrementOutputCount (and group scope in thread launch) on
  an output without a node-array subscript add once per subgroup: the elected invocation adds
  the subgroup's total (GroupNonUniformIAdd Reduce) and broadcasts the old value, each invocation
  adds its exclusive prefix sum; no subgroup size is assumed.  With a subscript (invocations may
  target different slots) the same is done once per distinct index among the subgroup's
  invocations, in a loop over the indices (`_subgroup_add_per_key`): one atomic per target and
  subgroup, not one per invocation (many invocations on a few counters are slow on a GPU), where
  SubgroupSize is at least `abi.PER_KEY_MIN_SUBGROUP`; on smaller subgroups (llvmpipe's 8) every
  invocation adds its own count.
- An output slot index past the output's slot count, or a slot not valid, allocates the scratch
  record (stride 0); an allocation past the slot's capacity sets STATUS_OUT_OF_RECORDS and also
  uses scratch. Slot fields are read only where the slot exists (a single output has one slot:
  its `valid` is read with no count check), `scratch` only where it is used.  On llvmpipe every
  load after the prologue's `return` is an 8-lane gather, so each field read costs: the fields of
  single outputs' slots (`_hoist_outputs`) and of node arrays' OutputParameters (`_hoist_arrays`)
  are read once, before it.
- Loops: natively (the default), GetCurrentLoopIterationIndex() is the NodeContext's
  `loop_iteration` and the runtime routes back edges; under `--loops=index-space` they are unrolled
  as for the AMDX target (`loop_stages.py`), the iteration and stage indices read from
  `shader_index`, and the runtime runs the (name, index) stages as plain nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wgc import emulation_abi as abi
from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass, field
from wgc.irtools.consteval import Folded, fold
from wgc.irtools.walk import nodes_of
from wgc.sema.nodes import NodeInfo

from . import emulated_checks, emulated_grid, emulated_keys, emulated_loops, emulated_placement, emulated_prints, emulated_tail, loop_stages, resources
from .emulated_memory import builtin as _builtin
from .emulated_memory import load_field as _load
from .emulated_memory import load_scalar as _load_scalar
from .emulated_memory import offset as _offset
from .emulated_memory import pointer as _pointer
from .node_ops import NodeOperations
from .places import InputHandle, OutputHandle, Place, RecordsHandle
from .stageio import mesh_execution_modes, setup_mesh

if TYPE_CHECKING:
    from .lower import FunctionLowering, ModuleLowering

_U64 = t.UINT64


@dataclass
class _Entry:
    """The prologue's values of one entry function (ids of its first blocks)."""

    node: NodeInfo
    context: int
    """u64 address of the NodeContext."""
    flat: int
    """u32 flat group index."""
    record: int
    """u32 index of this invocation's record (thread, broadcasting) or the group's first (coalescing)."""
    records: int
    """u64 `input_records`."""
    stride: int
    """u64 `input_stride`."""
    count: int
    """u32 `Count()` of the input."""
    input_count: int = 0
    """u32 NodeContext `input_count` (the records of the dispatch)."""
    input_address: int | None = None
    """u64 address of the record of a thread or broadcasting node."""
    group_id: tuple[int, int, int] | None = None
    """SV_GroupID of a broadcasting group."""
    check_counters: dict[int, Place] | None = None
    """`--check`: the group's MaxRecords counter of each output (`emulated_checks.begin_entry`)."""
    check_allocations: dict[int, Any] | None = None
    """`--check`: the allocations whose records were poisoned, by their records' address id."""
    check_inputs: set[int] | None = None
    """`--check`: the pointers to the input record that `record_place` made."""
    check_pending: dict[int, Any] | None = None
    """`--check`: each allocation's flag 'not completed yet', by its records' address id."""
    local_root: dict[ir.Variable, int] = field(default_factory=dict)
    """u64 address of each variable the node's local root signature binds (`local_root_binding`): the
    table entry plus its offset (root constants), or the address loaded from there (root descriptors)."""
    static: dict[int, int] = field(default_factory=dict)
    """The allocation calls placed statically, id(call) -> count (`emulated_placement`)."""
    singles: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Per single output (its `NodeOutput.index`): (bool `valid`, u64 address of its OutputSlot after
    the NodeContext), from `_hoist_outputs`."""
    elements: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    """Per (node-array output's `NodeOutput.index`, constant index id) the function uses: (bool
    `valid`, u64 address of its OutputSlot, or of the NodeContext where the index is out of range),
    from `_hoist_arrays`."""
    fields: dict[tuple[int, str], int] = field(default_factory=dict)
    """(address id, field name) -> the value `_hoist_outputs`, `_hoist_arrays` or `_read_slot` loaded
    (`_field`)."""
    arrays: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    """Per node-array output (its `NodeOutput.index`): (u64 address of its OutputParameter, u64 `slots`,
    u32 `count`, u32 index of the group's stripe's first slot), from `_hoist_arrays`."""
    keyed: dict[int, int] = field(default_factory=dict)
    """The node-array allocation calls every invocation makes once, id(call) -> count
    (`emulated_placement.keyed_calls`)."""


class EmulatedNodes(NodeOperations):
    name = "emulated"
    record_memory = "UniformMemory"

    def __init__(self) -> None:
        self._push_block: int | None = None
        self._push_user: ir.Variable | None = None
        self._prints: emulated_prints.PrintState | None = None
        self._loop_counter: int | None = None
        self._subgroup_spec: int | None = None
        self._tail_switch: int | None = None
        """The level tail's specialization constant (`emulated_tail.declare_switch`), once per module."""
        self._mesh_saved: tuple[dict[str, int], int | None] | None = None
        """While a mesh node is lowered: the module's shared built-ins and push-constant block."""

    # ------------------------------------------------------------ module and entry points

    def setup_module(self, ml: ModuleLowering, nodes: list[NodeInfo]) -> None:
        ml.b.capability("Shader", "Int64", "PhysicalStorageBufferAddresses", "VulkanMemoryModel")
        ml.vulkan_memory_model = True
        ml.b.memory_model("PhysicalStorageBuffer64", "Vulkan")
        self._push_user = next((v for v in ml.module.globals
                                if v.storage is ir.Storage.UNIFORM and v.push_constant), None)
        self._prints = emulated_prints.PrintState(ml)
        if any(node.mesh is not None for node in nodes):
            setup_mesh(ml)

    def declare_node(self, ml: ModuleLowering, node: NodeInfo
                     ) -> tuple[InputHandle | None, dict[ir.Variable, OutputHandle]]:
        info = node.input
        handle = None
        if info is not None and not info.implied:
            handle = InputHandle(0, info.record, info.layout, coherent=info.globally_coherent)
        return handle, {o.parameter: OutputHandle(o, o.index) for o in node.outputs}

    def entry_function(self, ml: ModuleLowering, fn: int, node: NodeInfo) -> int:
        """A compute node's entry point calls its function, then the level tail (`emulated_tail`)."""
        if node.mesh is not None:
            return fn
        x, y, z = (abi.THREAD_GROUP_SIZE, 1, 1) if node.launch == "thread" else node.num_threads
        if self._tail_switch is None:
            self._tail_switch = emulated_tail.declare_switch(ml)
        return emulated_tail.wrap_entry(ml, fn, node.key + ".tail", self._push_constants(ml), x * y * z,
                                        self._tail_switch)

    def declare_entry_point(self, ml: ModuleLowering, fn: int, node: NodeInfo, is_entry: bool, name: str) -> None:
        ml.b.entry_point("MeshEXT" if node.mesh is not None else "GLCompute", fn, name, ml.reached_globals(fn))
        if self._mesh_saved is not None:         # a mesh node's own variables end with it
            ml.builtins, self._push_block = self._mesh_saved
            self._mesh_saved = None
        size = (abi.THREAD_GROUP_SIZE, 1, 1) if node.launch == "thread" else node.num_threads
        ml.b.execution_mode(fn, "LocalSize", *size)
        if node.mesh is not None:
            mesh_execution_modes(ml, fn, node)

    def push_constant_place(self, ml: ModuleLowering, variable: ir.Variable) -> Place | None:
        assert variable is self._push_user, "sema allows one [[vk::push_constant]] block"
        assert variable.layout is not None
        return Place(self._push_constants(ml), variable.type, "PushConstant", variable.layout,
                     (ml.uint(1),))

    def shader_record_place(self, fl: FunctionLowering, variable: ir.Variable) -> Place | None:
        """The block at the node's local-root-argument table entry (NodeContext), a physical pointer."""
        assert variable.layout is not None
        address = _load(fl, self._context(fl), abi.NODE_CONTEXT["local_root_arguments"])
        pointer_type = fl.b.type_pointer("PhysicalStorageBuffer", fl.types.id(variable.type, variable.layout))
        return Place(fl.b.emit("OpConvertUToPtr", pointer_type, address), variable.type, "PhysicalStorageBuffer",
                     variable.layout)

    reads_local_root = True

    def local_root_binding(self, fl: FunctionLowering, variable: ir.Variable) -> object:
        """A variable the node's local root signature binds, read from its table entry (module docstring):
        root constants in place, a root CBV/SRV/UAV through the 8-byte address at the parameter's offset."""
        parameter = fl.node.local_root_bindings.get(variable) if fl.node is not None else None
        if parameter is None or parameter.kind == "table":
            return None                  # a descriptor (a table: WG0459 keeps such a node out of this target)
        state = fl.node_state
        assert isinstance(state, _Entry), "helpers naming such variables are inlined into their node"
        address = state.local_root[variable]
        if variable.storage is ir.Storage.UNIFORM:
            assert variable.layout is not None
            pointer_type = fl.b.type_pointer("PhysicalStorageBuffer", fl.types.id(variable.type, variable.layout))
            return Place(fl.b.emit("OpConvertUToPtr", pointer_type, address), variable.type, "PhysicalStorageBuffer",
                         variable.layout)
        return resources.root_buffer(fl, variable, address)

    def _push_constants(self, ml: ModuleLowering) -> int:
        """The push-constant block (module docstring), declared on first use."""
        if self._push_block is None:
            members = [ml.types.id(_U64)]
            user = self._push_user
            if user is not None:
                assert user.layout is not None
                members.append(ml.types.id(user.type, user.layout))
            struct = ml.b.type_struct(members, fresh=True)
            ml.b.name(struct, "EmulationPushConstants")
            ml.b.member_name(struct, 0, "node_context")
            ml.b.member_decorate(struct, 0, "Offset", 0)
            if user is not None:
                ml.b.member_name(struct, 1, user.name)
                ml.b.member_decorate(struct, 1, "Offset", abi.USER_PUSH_CONSTANT_OFFSET)
                ml.types.decorate_matrix_member(struct, 1, user.type, user.layout)  # type: ignore[arg-type]
            ml.b.decorate(struct, "Block")
            self._push_block = ml.b.variable(ml.b.type_pointer("PushConstant", struct), "PushConstant")
            ml.b.name(self._push_block, "emulation")
        return self._push_block

    def begin_entry(self, fl: FunctionLowering, node: NodeInfo, input_handle: InputHandle | None) -> None:
        if node.stage != "node":         # a pixel shader beside mesh nodes: no NodeContext, no prologue
            return
        if node.mesh is not None:        # its own built-ins and push-constant block (module docstring)
            self._mesh_saved = (fl.ml.builtins, self._push_block)
            fl.ml.builtins, self._push_block = {}, None
        b = fl.b
        uint = fl.types.id(t.UINT)
        context = self._context(fl)
        group_offset = _load(fl, context, abi.NODE_CONTEXT["group_offset"])
        group = _builtin(fl, "WorkgroupId", 3)
        groups = _builtin(fl, "NumWorkgroups", 3)
        x, y, z = (b.emit("OpCompositeExtract", uint, group, i) for i in range(3))
        nx, ny = (b.emit("OpCompositeExtract", uint, groups, i) for i in range(2))
        # flat = group_offset + x + nx * (y + ny * z)
        flat = b.emit("OpIAdd", uint, group_offset, b.emit("OpIAdd", uint, x, b.emit(
            "OpIMul", uint, nx, b.emit("OpIAdd", uint, y, b.emit("OpIMul", uint, ny, z)))))
        records = _load(fl, context, abi.NODE_CONTEXT["input_records"])
        count = _load(fl, context, abi.NODE_CONTEXT["input_count"])
        stride = b.emit("OpUConvert", fl.types.id(_U64), _load(fl, context, abi.NODE_CONTEXT["input_stride"]))
        entry = _Entry(node, context, flat, fl.uint(0), records, stride, fl.uint(1), count)
        if node.local_root_bindings:     # read once, here: the entry block dominates every use
            table = _load(fl, context, abi.NODE_CONTEXT["local_root_arguments"])
            for variable, parameter in node.local_root_bindings.items():
                if parameter.kind != "table":
                    address = _offset(fl, table, parameter.offset)
                    entry.local_root[variable] = address if parameter.kind == "constants" else \
                        _load_scalar(fl, address, _U64)
        _hoist_outputs(fl, entry)
        _hoist_arrays(fl, entry)
        if node.launch == "thread":
            first = b.emit("OpIMul", uint, flat, fl.uint(abi.THREAD_GROUP_SIZE))
            entry.record = b.emit("OpIAdd", uint, first, _builtin(fl, "LocalInvocationIndex", 1))
            _leave_if(fl, b.emit("OpUGreaterThanEqual", b.type_bool(), entry.record, count))
        elif node.launch == "coalescing":
            most = node.input.max_records if node.input is not None and node.input.max_records else 1
            entry.record = b.emit("OpIMul", uint, flat, fl.uint(most))
            _leave_if(fl, b.emit("OpUGreaterThanEqual", b.type_bool(), entry.record, count))
            left = b.emit("OpISub", uint, count, entry.record)
            entry.count = b.ext_inst(uint, "UMin", left, fl.uint(most))
        else:
            self._broadcast_prologue(fl, entry, count)
        if input_handle is not None and input_handle.record is not None and node.launch != "coalescing":
            entry.input_address = _element(fl, records, entry.record, stride)
        fl.node_state = entry
        if fl.ml.stages is None:                # loops in index space keep the counter (module docstring)
            entry.static = emulated_placement.static_calls(fl.function, node)
            entry.keyed = emulated_placement.keyed_calls(fl.function, node)
        if emulated_checks.enabled(fl):
            entry.check_counters = emulated_checks.begin_entry(fl, node)
        assert self._prints is not None
        emulated_prints.begin_entry(fl, self._prints, entry.flat, entry.record)

    def _broadcast_prologue(self, fl: FunctionLowering, entry: _Entry, count: int) -> None:
        """The record index and SV_GroupID of a broadcasting group (ABI: fixed or record grid)."""
        b, node = fl.b, entry.node
        uint = fl.types.id(t.UINT)
        if node.dispatch_grid is not None:
            gx, gy = fl.uint(node.dispatch_grid[0]), fl.uint(node.dispatch_grid[1])
            size = fl.uint(node.dispatch_grid[0] * node.dispatch_grid[1] * node.dispatch_grid[2])
            entry.record = b.emit("OpUDiv", uint, entry.flat, size)
            _leave_if(fl, b.emit("OpUGreaterThanEqual", b.type_bool(), entry.record, count))
            local = b.emit("OpUMod", uint, entry.flat, size)
        else:                        # the grid is the record's SV_DispatchGrid: `emulated_grid`
            entry.record, local = _grid_record(fl, _load(fl, entry.context, abi.NODE_CONTEXT["grid_prefix"]),
                                               _load(fl, entry.context, abi.NODE_CONTEXT["grid_records"]),
                                               count, entry.flat)
            field = node.input.dispatch_grid_field if node.input is not None else None
            assert field is not None, "sema requires SV_DispatchGrid in a record-sized broadcasting input"
            scalar = t.scalar(t.ScalarKind.UINT, field.bits)
            record: list[int] = []          # its address, at the first component the formula reads

            def component(i: int) -> int:
                record[:] = record or [_element(fl, entry.records, entry.record, entry.stride)]
                value = _load_scalar(fl, _offset(fl, record[0], field.offset + i * field.bits // 8), scalar)
                return value if field.bits == 32 else b.emit("OpUConvert", uint, value)

            ones = emulated_grid.known_ones(node.max_dispatch_grid, field.components)
            entry.group_id = emulated_grid.group_id(emulated_tail.BuilderEmitter(fl.ml), local, component, ones)
            return
        plane = b.emit("OpIMul", uint, gx, gy)
        entry.group_id = (b.emit("OpUMod", uint, local, gx),
                          b.emit("OpUMod", uint, b.emit("OpUDiv", uint, local, gx), gy),
                          b.emit("OpUDiv", uint, local, plane))

    def system_value(self, fl: FunctionLowering, semantic: str) -> tuple[int, int]:
        """SV_GroupIndex and SV_GroupThreadID are the built-ins; SV_GroupID and SV_DispatchThreadID
        (broadcasting only: sema, `nodes.SYSTEM_VALUES`) come from the prologue's group."""
        entry = _entry(fl)
        if semantic == "sv_groupindex":
            return _builtin(fl, "LocalInvocationIndex", 1), 1
        if semantic == "sv_groupthreadid":
            return _builtin(fl, "LocalInvocationId", 3), 3
        assert entry.group_id is not None and semantic in ("sv_groupid", "sv_dispatchthreadid"), \
            f"sema allows '{semantic}' in broadcasting nodes only"
        uint3 = fl.types.id(t.vector(t.UINT, 3))
        group = fl.b.emit("OpCompositeConstruct", uint3, *entry.group_id)
        if semantic == "sv_groupid":
            return group, 3
        size = fl.ml.constant(t.vector(t.UINT, 3), tuple(entry.node.num_threads))
        return fl.b.emit("OpIAdd", uint3, fl.b.emit("OpIMul", uint3, group, size),
                         _builtin(fl, "LocalInvocationId", 3)), 3

    # ------------------------------------------------------------ records

    def record_place(self, fl: FunctionLowering, handle: InputHandle | RecordsHandle, index: int,
                     type_: object) -> Place:
        assert isinstance(type_, t.Type) and handle.layout is not None
        if isinstance(handle, RecordsHandle):
            assert handle.stride is not None
            address = _element(fl, handle.pointer, index, handle.stride)
        else:
            entry = _entry(fl)
            if entry.node.launch == "coalescing":
                if emulated_checks.enabled(fl):
                    emulated_checks.input_index(fl, entry, index)
                first = fl.b.emit("OpIAdd", fl.types.id(t.UINT), entry.record, index)
                address = _element(fl, entry.records, first, entry.stride)
            else:
                assert entry.input_address is not None
                address = entry.input_address
        pointer_type = fl.b.type_pointer("PhysicalStorageBuffer", fl.types.id(type_, handle.layout))
        pointer = fl.b.emit("OpConvertUToPtr", pointer_type, address)
        if isinstance(handle, InputHandle) and emulated_checks.enabled(fl):
            entry = _entry(fl)
            entry.check_inputs = (entry.check_inputs or set()) | {pointer}
        return Place(pointer, type_, "PhysicalStorageBuffer", handle.layout,
                     coherent=isinstance(handle, InputHandle) and handle.coherent)

    def input_count(self, fl: FunctionLowering, handle: InputHandle) -> int:
        return _entry(fl).count

    def allocate(self, fl: FunctionLowering, handle: OutputHandle, count: int, scope: str) -> RecordsHandle:
        b = fl.b
        uint, u64, boolean = fl.types.id(t.UINT), fl.types.id(_U64), b.type_bool()
        entry = _entry(fl)
        if emulated_checks.enabled(fl):
            emulated_checks.max_records(fl, entry, handle.output, count, scope, handle.node_index)
        valid, slot = self._slot(fl, handle)
        call = fl.node_call
        static = entry.static.get(id(call)) if call is not None and handle.node_index is None else None
        wide = None
        keyed = entry.keyed.get(id(call)) if call is not None and handle.node_index is not None else None
        if static is not None:
            wide = self._static_base(fl, entry, valid, slot, static, scope)
            base = b.emit("OpUConvert", uint, wide)
        elif keyed is not None and scope == "Invocation" and _group_keys(entry.node, handle):
            base = self._group_add_per_key(fl, handle, valid, slot, count)
        else:
            base = self._counter_add(fl, valid, slot, count, scope, result=True, key=handle.node_index)
        address = fl.local(_U64, "records")
        stride = fl.local(_U64, "stride")
        fl.store(stride, b.constant_uint(0, 64))
        in_slot, no_slot, done = b.new_id(), b.new_id(), b.new_id()
        b.emit("OpSelectionMerge", done, "None")
        b.emit("OpBranchConditional", valid, in_slot, no_slot)
        fl.new_block(no_slot)                # scratch is read only where it is used
        fl.store(address, _field(fl, entry.context, abi.NODE_CONTEXT, "scratch"))
        b.emit("OpBranch", done)
        fl.new_block(in_slot)
        capacity, raw_stride = _field_pair(fl, slot, abi.OUTPUT_SLOT, "capacity", "stride")
        if wide is not None:             # base + count <= capacity, in 64 bits
            fits = b.emit("OpULessThanEqual", boolean, b.emit("OpIAdd", u64, wide, b.emit("OpUConvert", u64, count)),
                          b.emit("OpUConvert", u64, capacity))
        else:                            # base + count <= capacity, without overflow
            fits = b.emit("OpLogicalAnd", boolean, b.emit("OpULessThanEqual", boolean, base, capacity),
                          b.emit("OpULessThanEqual", boolean, count, b.emit("OpISub", uint, capacity, base)))
        ok, full, inner = b.new_id(), b.new_id(), b.new_id()
        b.emit("OpSelectionMerge", inner, "None")
        b.emit("OpBranchConditional", fits, ok, full)
        fl.new_block(ok)
        slot_stride = b.emit("OpUConvert", u64, raw_stride)
        fl.store(address, _element(fl, _field(fl, slot, abi.OUTPUT_SLOT, "records"), base, slot_stride))
        fl.store(stride, slot_stride)
        b.emit("OpBranch", inner)
        fl.new_block(full)
        fl.store(address, _field(fl, entry.context, abi.NODE_CONTEXT, "scratch"))
        status = _field(fl, entry.context, abi.NODE_CONTEXT, "status")
        b.emit("OpAtomicOr", uint, _pointer(fl, status, t.UINT), fl.ml.scope("Device"), fl.ml.semantics(),
               fl.uint(abi.STATUS_OUT_OF_RECORDS))
        b.emit("OpBranch", inner)
        fl.new_block(inner)
        b.emit("OpBranch", done)
        fl.new_block(done)
        output = handle.output
        records = RecordsHandle(fl.load(address), output.record, output.layout, fl.load(stride))
        if emulated_checks.enabled(fl):
            assert records.stride is not None
            emulated_checks.poison(fl, entry, output, records.pointer, records.stride, count, scope)
            emulated_checks.allocated(fl, entry, output, records.pointer, scope)
        return records

    def _static_base(self, fl: FunctionLowering, entry: _Entry, valid: int, slot: int, count: int,
                     scope: str) -> int:
        """The u64 first record of a static allocation of `count` records (`emulated_placement`; the
        ABI's "Outputs"): group `flat - first_group` owns K consecutive records, an invocation's
        thread-scope records follow those of the invocations before it; invocation 0 adds the group's
        total to the counter.  0 where the slot is not valid."""
        b, node = fl.b, entry.node
        uint, u64 = fl.types.id(t.UINT), fl.types.id(_U64)
        per_invocation = scope == "Invocation" or node.launch == "thread"
        if node.launch == "thread":
            invocations = abi.THREAD_GROUP_SIZE
        else:
            x, y, z = node.num_threads
            invocations = x * y * z
        size = count * invocations if per_invocation else count
        base = fl.local(_U64, "static_base")
        fl.store(base, b.constant_uint(0, 64))
        place, done = b.new_id(), b.new_id()
        b.emit("OpSelectionMerge", done, "None")
        b.emit("OpBranchConditional", valid, place, done)
        fl.new_block(place)
        group = b.emit("OpISub", uint, entry.flat, _field(fl, slot, abi.OUTPUT_SLOT, "first_group"))
        first = b.emit("OpIMul", u64, b.emit("OpUConvert", u64, group), b.constant_uint(size, 64))
        index = _builtin(fl, "LocalInvocationIndex", 1)
        if per_invocation and count:
            first = b.emit("OpIAdd", u64, first, b.emit("OpUConvert", u64, b.emit("OpIMul", uint, index, fl.uint(count))))
        fl.store(base, first)
        if node.launch == "thread":      # the group's invocations that passed the prologue
            past = b.emit("OpISub", uint, entry.input_count, b.emit("OpIMul", uint, entry.flat,
                                                                     fl.uint(abi.THREAD_GROUP_SIZE)))
            total = b.emit("OpIMul", uint, b.ext_inst(uint, "UMin", past, fl.uint(abi.THREAD_GROUP_SIZE)),
                           fl.uint(count))
        else:
            total = fl.uint(size)
        _add_where(fl, b.emit("OpIEqual", b.type_bool(), index, fl.uint(0)), slot, total)
        b.emit("OpBranch", done)
        fl.new_block(done)
        return fl.load(base)

    def increment_output_count(self, fl: FunctionLowering, handle: OutputHandle, count: int, scope: str) -> None:
        if emulated_checks.enabled(fl):
            emulated_checks.max_records(fl, _entry(fl), handle.output, count, scope, handle.node_index)
        valid, slot = self._slot(fl, handle)
        self._counter_add(fl, valid, slot, count, scope, result=False, key=handle.node_index)

    def _counter_add(self, fl: FunctionLowering, valid: int, slot: int, count: int, scope: str,
                     *, result: bool, key: int | None) -> int:
        """atomicAdd(*slot.counter, count) where the slot is valid, once per group for a group-scope
        call of a group of several threads; with `result`, every invocation gets the old value
        (0 where the slot is not valid).  Per-invocation calls are aggregated per subgroup: on a
        slot every invocation shares (`key` None: no node-array subscript, or a constant one) by
        `_subgroup_add`, on the slot of node-array index `key` (a u32 id) by `_subgroup_add_per_key`."""
        b = fl.b
        boolean = b.type_bool()
        if scope != "Workgroup" or _entry(fl).node.launch == "thread":
            if key is None or fl.b.is_constant(key):     # one slot for the whole subgroup
                return self._subgroup_add(fl, valid, slot, count, result=result, constant=_constant_count(fl))
            return self._subgroup_add_per_key(fl, key, valid, slot, count, result=result)
        first = b.emit("OpIEqual", boolean, _builtin(fl, "LocalInvocationIndex", 1), fl.uint(0))
        cond = b.emit("OpLogicalAnd", boolean, first, valid)
        shared = self._shared(fl) if result else None
        base = fl.local(t.UINT, "base") if result else None
        if base is not None:
            fl.store(base, fl.uint(0))
        _add_where(fl, cond, slot, count, shared)
        if shared is not None:
            assert base is not None
            _group_barrier(fl)
            fl.store(base, fl.load(shared))
            _group_barrier(fl)
        return fl.load(base) if base is not None else 0

    def _subgroup_add(self, fl: FunctionLowering, valid: int, slot: int, count: int, *, result: bool,
                      constant: int | None = None) -> int:
        """One atomicAdd per subgroup: where the slot is valid (the same for every invocation), the
        elected invocation adds the subgroup's total and every invocation's old value is the
        elected one's plus its exclusive prefix sum of the counts (any subgroup size: llvmpipe's is
        8).  0 where the slot is not valid.  A count known to be the constant c (`constant`, c's id
        in `count`) takes the sums from a ballot of the active invocations (c times its bit counts:
        on llvmpipe a mask operation, where Reduce and ExclusiveScan are loops over the lanes)."""
        b = fl.b
        uint = fl.types.id(t.UINT)
        b.capability("GroupNonUniform", "GroupNonUniformArithmetic", "GroupNonUniformBallot")
        subgroup = fl.ml.scope("Subgroup")
        base = fl.local(t.UINT, "base") if result else None
        if base is not None:
            fl.store(base, fl.uint(0))
        add, done = b.new_id(), b.new_id()
        b.emit("OpSelectionMerge", done, "None")
        b.emit("OpBranchConditional", valid, add, done)
        fl.new_block(add)
        if constant is not None:         # c times the active invocations, and c times those below this one
            mask = b.emit("OpGroupNonUniformBallot", fl.types.id(t.vector(t.UINT, 4)), subgroup, b.constant_bool(True))
            lanes = b.emit("OpGroupNonUniformBallotBitCount", uint, subgroup, "Reduce", mask)
            total = lanes if constant == 1 else b.emit("OpIMul", uint, lanes, count)
        else:
            total = b.emit("OpGroupNonUniformIAdd", uint, subgroup, "Reduce", count)
        leader_old = fl.local(t.UINT, "subgroup_base") if result else None
        if leader_old is not None:
            fl.store(leader_old, fl.uint(0))
        _add_where(fl, b.emit("OpGroupNonUniformElect", b.type_bool(), subgroup), slot, total, leader_old)
        if base is not None and leader_old is not None:
            first = b.emit("OpGroupNonUniformBroadcastFirst", uint, subgroup, fl.load(leader_old))
            if constant is not None:
                below = b.emit("OpGroupNonUniformBallotBitCount", uint, subgroup, "ExclusiveScan", mask)
                prefix = below if constant == 1 else b.emit("OpIMul", uint, below, count)
            else:
                prefix = b.emit("OpGroupNonUniformIAdd", uint, subgroup, "ExclusiveScan", count)
            fl.store(base, b.emit("OpIAdd", uint, first, prefix))
        b.emit("OpBranch", done)
        fl.new_block(done)
        return fl.load(base) if base is not None else 0

    def _subgroup_add_per_key(self, fl: FunctionLowering, key: int, valid: int, slot: int, count: int, *,
                              result: bool) -> int:
        """The old value of the slot of node-array index `key` (a u32 id; 0 where not valid) after
        adding `count`.  On a subgroup of at least `abi.PER_KEY_MIN_SUBGROUP` invocations, one
        atomicAdd per distinct key among them: a loop in which the invocations whose key is the
        first active invocation's (OpGroupNonUniformBroadcastFirst) do `_subgroup_add` on their slot
        (the same for all of them, and so is `valid`) and leave it; the others go round again (once
        per distinct key, once where the index is uniform).  On a smaller subgroup (llvmpipe's 8
        lanes, which it runs as one CPU vector: the loop costs more than the atomics it saves) every
        invocation adds its own count.  SubgroupSize is a constant of the pipeline, so drivers fold
        the branch."""
        b = fl.b
        b.capability("GroupNonUniform", "GroupNonUniformBallot")
        base = fl.local(t.UINT, "keyed_base") if result else None
        if base is not None:
            fl.store(base, fl.uint(0))
        done = _unless_narrow(fl, _builtin(fl, "SubgroupSize", 1), valid, slot, count, base)

        def matched() -> None:
            old = self._subgroup_add(fl, valid, slot, count, result=result, constant=_constant_count(fl))
            if base is not None:
                fl.store(base, old)
        emulated_keys.per_key_loop(emulated_tail.BuilderEmitter(fl.ml), key, matched)
        b.emit("OpBranch", done)
        fl.new_block(done)
        return fl.load(base) if base is not None else 0

    def _group_add_per_key(self, fl: FunctionLowering, handle: OutputHandle, valid: int, slot: int, count: int) -> int:
        """The old value of the counter of node-array element `handle.node_index` after adding
        `count`, for a thread-scope call that every invocation of a broadcasting or coalescing group
        makes once (`emulated_placement.keyed_calls`, `_group_keys`).  Where the subgroup size is at
        least `abi.PER_KEY_MIN_SUBGROUP` (the specialization constant `_subgroup_size`: the branch is
        folded when the pipeline is made, so on smaller subgroups the barriers are not there), the
        group counts its records per element in Workgroup memory (a Workgroup atomic per
        invocation), invocation j adds element j's total to its counter (one atomic per group and
        element that receives records, where the subgroup loop of `_subgroup_add_per_key` makes one
        per subgroup and element, its atomics' round trips one after another) and every
        invocation's old value is its element's plus its place among the group's: three workgroup
        barriers, which every invocation reaches (the call is at the top level of the entry
        function, and groups leave the prologue whole).  On smaller subgroups (llvmpipe's 8, where
        a barrier is a coroutine switch: 313 instructions per record against 245, measured) every
        invocation adds its own count."""
        b = fl.b
        uint, boolean = fl.types.id(t.UINT), b.type_bool()
        key = handle.node_index
        assert key is not None and handle.output.array_size is not None
        size = handle.output.array_size
        result = fl.local(t.UINT, "keyed_base")
        fl.store(result, fl.uint(0))
        done = _unless_narrow(fl, self._subgroup_size(fl), valid, slot, count, result)
        array = fl.types.id(t.array(t.UINT, size))
        counts, bases = (b.variable(b.type_pointer("Workgroup", array), "Workgroup") for _ in range(2))
        b.name(counts, "element_records")
        b.name(bases, "element_bases")
        fl.use_global(counts)
        fl.use_global(bases)

        def at(variable: int, index: int) -> Place:
            return Place(variable, t.UINT, "Workgroup", indices=(index,))
        lane = _builtin(fl, "LocalInvocationIndex", 1)
        owner = b.emit("OpULessThan", boolean, lane, fl.uint(size))      # invocation j keeps element j
        _if(fl, owner, lambda: fl.store(at(counts, lane), fl.uint(0)))
        _group_barrier(fl)
        member = b.emit("OpLogicalAnd", boolean, valid, b.emit("OpULessThan", boolean, key, fl.uint(size)))
        offset = fl.local(t.UINT, "element_offset")
        fl.store(offset, fl.uint(0))
        _if(fl, member, lambda: fl.store(offset, b.emit(
            "OpAtomicIAdd", uint, fl.pointer(at(counts, key)), fl.ml.scope("Workgroup"), fl.ml.semantics(), count)))
        _group_barrier(fl)

        def add_total() -> None:           # only valid slots below the slot count received records
            total = fl.load(at(counts, lane))
            parameter, slots = self._slots(fl, handle)
            hoisted = _entry(fl).arrays.get(handle.array_type)
            stripe = hoisted[3] if hoisted is not None else \
                self._stripe(fl, parameter, _load(fl, parameter, abi.OUTPUT_PARAMETER["count"]))
            own = _element(fl, slots, b.emit("OpIAdd", uint, stripe, lane), b.constant_uint(abi.OUTPUT_SLOT_SIZE, 64))
            old = fl.local(t.UINT, "element_old")
            fl.store(old, fl.uint(0))
            _add_where(fl, b.emit("OpINotEqual", boolean, total, fl.uint(0)), own, total, old)
            fl.store(at(bases, lane), fl.load(old))
        _if(fl, owner, add_total)
        _group_barrier(fl)
        _if(fl, member, lambda: fl.store(result, b.emit("OpIAdd", uint, fl.load(at(bases, key)), fl.load(offset))))
        b.emit("OpBranch", done)
        fl.new_block(done)
        return fl.load(result)

    def _subgroup_size(self, fl: FunctionLowering) -> int:
        """The u32 specialization constant `abi.SUBGROUP_SIZE_SPEC_ID` (default 0), which the runtime
        sets to the device's subgroup size, declared on first use: a branch on it is folded when the
        pipeline is made, so the path not taken (and its barriers) is not in the device's code."""
        if self._subgroup_spec is None:
            spec = fl.b.global_instruction("OpSpecConstant", fl.types.id(t.UINT), 0)
            fl.b.decorate(spec, "SpecId", abi.SUBGROUP_SIZE_SPEC_ID)
            fl.b.name(spec, "emulation_subgroup_size")
            self._subgroup_spec = spec
        return self._subgroup_spec

    def _slots(self, fl: FunctionLowering, handle: OutputHandle) -> tuple[int, int]:
        """(u64 address of the handle's OutputParameter, u64 address of its first OutputSlot)."""
        hoisted = _entry(fl).arrays.get(handle.array_type)
        if hoisted is not None:
            return hoisted[0], hoisted[1]
        outputs = _load(fl, _entry(fl).context, abi.NODE_CONTEXT["outputs"])
        parameter = _offset(fl, outputs, handle.array_type * abi.OUTPUT_PARAMETER_SIZE)
        return parameter, _load(fl, parameter, abi.OUTPUT_PARAMETER["slots"])

    def _stripe(self, fl: FunctionLowering, parameter: int, count: int) -> int:
        """The u32 index of the first OutputSlot of the group's stripe of a node-array output whose
        OutputParameter is at `parameter` (`_stripe_slot`)."""
        return _stripe_slot(fl, _entry(fl).flat, _load(fl, parameter, abi.OUTPUT_PARAMETER["stripe_mask"]), count)

    def _shared(self, fl: FunctionLowering) -> Place:
        """A Workgroup uint of one group-scope call (module docstring)."""
        var = fl.b.variable(fl.b.type_pointer("Workgroup", fl.types.id(t.UINT)), "Workgroup")
        fl.b.name(var, "group_result")
        fl.use_global(var)
        return Place(var, t.UINT, "Workgroup")

    def _slot(self, fl: FunctionLowering, handle: OutputHandle) -> tuple[int, int]:
        """(bool: a node exists at the handle's index, u64 address of its OutputSlot; only valid
        when the bool is true)."""
        b = fl.b
        boolean = b.type_bool()
        entry = _entry(fl)
        index = loop_stages.output_index(fl, handle) or handle.node_index
        if index is None and handle.array_type in entry.singles:    # after the NodeContext (ABI: "Outputs")
            return entry.singles[handle.array_type]
        if index is not None and (handle.array_type, index) in entry.elements:    # `_hoist_arrays`
            return entry.elements[(handle.array_type, index)]
        parameter, slots = self._slots(fl, handle)
        if index is None and not handle.output.is_array:       # the one slot of a single output
            return b.emit("OpINotEqual", boolean, _load(fl, slots, abi.OUTPUT_SLOT["valid"]), fl.uint(0)), slots
        index = index or fl.uint(0)
        hoisted = entry.arrays.get(handle.array_type)
        if hoisted is not None:
            _, _, count, stripe = hoisted
        else:
            count = _load(fl, parameter, abi.OUTPUT_PARAMETER["count"])
            stripe = self._stripe(fl, parameter, count)
        in_range = b.emit("OpULessThan", boolean, index, count)
        at = b.emit("OpIAdd", fl.types.id(t.UINT), stripe, index)
        slot = _element(fl, slots, at, b.constant_uint(abi.OUTPUT_SLOT_SIZE, 64))
        valid = fl.local(t.BOOL, "valid")
        fl.store(valid, b.constant_bool(False))
        read, done = b.new_id(), b.new_id()
        b.emit("OpSelectionMerge", done, "None")
        b.emit("OpBranchConditional", in_range, read, done)
        fl.new_block(read)
        flag = _load(fl, slot, abi.OUTPUT_SLOT["valid"])
        fl.store(valid, b.emit("OpINotEqual", boolean, flag, fl.uint(0)))
        early = _read_slot(fl, slot, handle.output.is_empty)
        b.emit("OpBranch", done)
        fl.new_block(done)
        for name, local in early.items():
            entry.fields[(slot, name)] = fl.load(local)
        return fl.load(valid), slot

    def output_complete(self, fl: FunctionLowering, records: RecordsHandle) -> None:
        """Nothing: the runtime reads the outputs after the dispatch (`--check`: the records never
        written are reported)."""
        if emulated_checks.enabled(fl):
            emulated_checks.output_complete(fl, _entry(fl), records.pointer)
            emulated_checks.completed(fl, _entry(fl), records.pointer)

    def is_valid(self, fl: FunctionLowering, handle: OutputHandle) -> int:
        return loop_stages.output_valid(fl, handle, self._slot(fl, handle)[0])

    def finished_cross_group_sharing(self, fl: FunctionLowering, handle: InputHandle) -> int:
        b = fl.b
        uint, boolean = fl.types.id(t.UINT), b.type_bool()
        entry = _entry(fl)
        shared = self._shared(fl)
        first = b.emit("OpIEqual", boolean, _builtin(fl, "LocalInvocationIndex", 1), fl.uint(0))
        decrement, done = b.new_id(), b.new_id()
        b.emit("OpSelectionMerge", done, "None")
        b.emit("OpBranchConditional", first, decrement, done)
        fl.new_block(decrement)
        counters = _load(fl, entry.context, abi.NODE_CONTEXT["shared_counters"])
        counter = _pointer(fl, _element(fl, counters, entry.record, b.constant_uint(4, 64)), t.UINT)
        old = b.emit("OpAtomicISub", uint, counter, fl.ml.scope("Device"),
                     fl.ml.barrier_semantics("UniformMemory"), fl.uint(1))
        fl.store(shared, old)
        b.emit("OpBranch", done)
        fl.new_block(done)
        _group_barrier(fl)
        last = b.emit("OpIEqual", boolean, fl.load(shared), fl.uint(1))
        _group_barrier(fl)
        return last

    def remaining_recursion_levels(self, fl: FunctionLowering) -> int:
        return _load(fl, self._context(fl), abi.NODE_CONTEXT["remaining_recursion_levels"])

    def loop_iteration_index(self, fl: FunctionLowering) -> int:
        return _load(fl, self._context(fl), abi.NODE_CONTEXT["loop_iteration"])

    def shader_index(self, fl: FunctionLowering) -> int:
        return _load(fl, self._context(fl), abi.NODE_CONTEXT["shader_index"])

    def context_address(self, fl: FunctionLowering) -> int:
        """The u64 NodeContext address, in any function of the module (`emulated_checks`)."""
        return self._context(fl)
    def printf(self, fl: FunctionLowering, format_: str, args: list[ir.Expr]) -> bool:
        """A print record in the print buffer (`emulated_prints`)."""
        assert self._prints is not None
        state = fl.node_state
        entry = (state.flat, state.record) if isinstance(state, _Entry) else None
        emulated_prints.lower_printf(fl, self._prints, self._context(fl), entry, format_, args)
        return True

    def loop_iteration(self, fl: FunctionLowering, loop: ir.Loop) -> None:
        """Count the iteration against the loop budget (`wgc.emulation_abi`, "Loop budget"); a
        counted loop (`emulated_loops.header_runs`) adds its header runs where it is left instead."""
        if emulated_loops.header_runs(loop) is not None:
            return
        b = fl.b
        uint = fl.types.id(t.UINT)
        counter = self._loop_iterations(fl)
        b.emit("OpStore", counter, b.emit("OpIAdd", uint, b.emit("OpLoad", uint, counter), fl.uint(1)))

    def _loop_iterations(self, fl: FunctionLowering) -> int:
        """The Private loop counter, declared on first use."""
        if self._loop_counter is None:
            pointer = fl.b.type_pointer("Private", fl.types.id(t.UINT))
            self._loop_counter = fl.b.variable(pointer, "Private", fl.uint(0))
            fl.b.name(self._loop_counter, "loop_iterations")
        fl.use_global(self._loop_counter)
        return self._loop_counter

    def loop_exit(self, fl: FunctionLowering, loop: ir.Loop) -> None:
        """Where a loop is left (so once per loop run, not per iteration): the invocation that has
        reached the budget sets STATUS_LOOP_BUDGET (`wgc.emulation_abi`, "Loop budget")."""
        b = fl.b
        uint = fl.types.id(t.UINT)
        count = b.emit("OpLoad", uint, self._loop_iterations(fl))
        runs = emulated_loops.header_runs(loop)
        if runs is not None:
            count = b.emit("OpIAdd", uint, count, fl.uint(runs))
            b.emit("OpStore", self._loop_iterations(fl), count)
        reached, report, done = (b.emit("OpUGreaterThanEqual", b.type_bool(), count, fl.uint(abi.LOOP_BUDGET)),
                                 b.new_id(), b.new_id())
        b.emit("OpSelectionMerge", done, "None")
        b.emit("OpBranchConditional", reached, report, done)
        fl.new_block(report)
        status = _load(fl, self._context(fl), abi.NODE_CONTEXT["status"])
        b.emit("OpAtomicOr", uint, _pointer(fl, status, t.UINT), fl.ml.scope("Device"), fl.ml.semantics(),
               fl.uint(abi.STATUS_LOOP_BUDGET))
        b.emit("OpBranch", done)
        fl.new_block(done)

    def _context(self, fl: FunctionLowering) -> int:
        """The u64 NodeContext address: the prologue's, or read from push constants again."""
        if isinstance(fl.node_state, _Entry):
            return fl.node_state.context
        block = self._push_constants(fl.ml)
        fl.use_global(block)
        u64 = fl.types.id(_U64)
        pointer = fl.b.emit("OpAccessChain", fl.b.type_pointer("PushConstant", u64), block, fl.uint(0))
        return fl.b.emit("OpLoad", u64, pointer)


# ---------------------------------------------------------------- helpers


def _add_where(fl: FunctionLowering, cond: int, slot: int, value: int, into: Any = None) -> None:
    """Where `cond` (a bool id): atomicAdd(*slot.counter, value) at Device scope, the old value stored
    in `into` (a local or Workgroup place) where given; the lowering goes on after the selection."""
    b = fl.b
    add, added = b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", added, "None")
    b.emit("OpBranchConditional", cond, add, added)
    fl.new_block(add)
    counter = _pointer(fl, _field(fl, slot, abi.OUTPUT_SLOT, "counter"), t.UINT)
    old = b.emit("OpAtomicIAdd", fl.types.id(t.UINT), counter, fl.ml.scope("Device"), fl.ml.semantics(), value)
    if into is not None:
        fl.store(into, old)
    b.emit("OpBranch", added)
    fl.new_block(added)


HOISTED_ELEMENTS = 16
"""At most this many constant elements of node-array outputs (of all of a node's outputs together)
are loaded in the prologue: each holds its fields in registers until its use."""


def _hoist_outputs(fl: FunctionLowering, entry: _Entry) -> None:
    """Load the OutputSlot fields of the single outputs (after the NodeContext: emulation ABI
    "Outputs") and NodeContext's `scratch` and `status` before the prologue can return: the
    same values for the whole dispatch.  A load whose address is the push constant's plus a
    constant, outside any branch, is one scalar load on llvmpipe (Mesa 25: `invocation 0 must be
    active` and an address `nir_src_is_always_uniform`); after the prologue's `return` every
    load is a gather of 8 lanes.  Drivers drop the loads nothing uses.  Not in a module whose
    loops are unrolled in index space (its outputs into loops are arrays at run time)."""
    if fl.ml.stages is not None or all(output.is_array for output in entry.node.outputs):
        return
    b = fl.b
    named = {ref.variable for ref in nodes_of(fl.function, ir.VarRef)}
    single = 0
    records = False
    for output in entry.node.outputs:
        if output.is_array:
            continue
        single += 1
        if output.parameter not in named:
            continue
        slot = _offset(fl, entry.context, abi.single_slot_offset(single - 1))
        names = ("valid", "counter") if output.is_empty else (
            "valid", "first_group", "counter", "capacity", "stride", "records")
        for name in names:
            entry.fields[(slot, name)] = _load(fl, slot, abi.OUTPUT_SLOT[name])
        valid = b.emit("OpINotEqual", b.type_bool(), entry.fields[(slot, "valid")], fl.uint(0))
        entry.singles[output.index] = (valid, slot)
        records = records or not output.is_empty
    for name in ("scratch", "status") if records else ():
        entry.fields[(entry.context, name)] = _load(fl, entry.context, abi.NODE_CONTEXT[name])


def _hoist_arrays(fl: FunctionLowering, entry: _Entry) -> None:
    """Load the OutputParameter fields of the node-array outputs the body names (`slots`, `count`,
    and the group's stripe from `stripe_mask`) before the prologue can return, once per entry
    function: the same values for the whole dispatch (`_hoist_outputs` says why on llvmpipe); and
    the OutputSlots of the first `HOISTED_ELEMENTS` elements that constant subscripts name
    (`_hoist_element`).  Not in a module whose loops are unrolled in index space."""
    arrays = [output for output in entry.node.outputs if output.is_array]
    if fl.ml.stages is not None or not arrays:
        return
    named = {ref.variable for ref in nodes_of(fl.function, ir.VarRef)}
    constant_indices: dict[ir.Variable, set[int]] = {}
    for element in nodes_of(fl.function, ir.Index):       # outputs[i] (and other arrays: unused)
        folded = fold(element.index)
        if isinstance(element.base, ir.VarRef) and isinstance(folded, Folded) \
                and isinstance(folded.value, int) and not isinstance(folded.value, bool) and folded.value >= 0:
            constant_indices.setdefault(element.base.variable, set()).add(folded.value)
    outputs = None
    for output in arrays:
        if output.parameter not in named:
            continue
        if outputs is None:
            outputs = _load(fl, entry.context, abi.NODE_CONTEXT["outputs"])
        parameter = _offset(fl, outputs, output.index * abi.OUTPUT_PARAMETER_SIZE)
        slots = _load(fl, parameter, abi.OUTPUT_PARAMETER["slots"])
        count, stripe_mask = _field_pair(fl, parameter, abi.OUTPUT_PARAMETER, "count", "stripe_mask")
        stripe = _stripe_slot(fl, entry.flat, stripe_mask, count)
        entry.arrays[output.index] = (parameter, slots, count, stripe)
        for index in sorted(constant_indices.get(output.parameter, ()))[:HOISTED_ELEMENTS - len(entry.elements)]:
            _hoist_element(fl, entry, output, index)


def _stripe_slot(fl: FunctionLowering, flat: int, stripe_mask: int, count: int) -> int:
    """The u32 index of the first OutputSlot of the stripe of the group whose flat index is `flat`,
    given its OutputParameter's `stripe_mask` word (emulation ABI, "Stripes"): ((flat >> (word >>
    16)) & (word & 0xFFFF)) * count."""
    b = fl.b
    uint = fl.types.id(t.UINT)
    shift = b.emit("OpShiftRightLogical", uint, stripe_mask, fl.uint(16))
    mask = b.emit("OpBitwiseAnd", uint, stripe_mask, fl.uint(0xFFFF))
    stripe = b.emit("OpBitwiseAnd", uint, b.emit("OpShiftRightLogical", uint, flat, shift), mask)
    return b.emit("OpIMul", uint, stripe, count)


def _hoist_element(fl: FunctionLowering, entry: _Entry, output: Any, index: int) -> None:
    """Load the OutputSlot fields of element `index` (a constant) of a node-array output, in the
    prologue (`_hoist_arrays`): without a branch, from the NodeContext's address where the index
    is not below the OutputParameter's count (the fields are then unused: the element is not
    valid), so that the loads of every element are in flight at once, where each element's call
    would otherwise load its slot after the atomic of the one before."""
    b = fl.b
    uint, u64, boolean = fl.types.id(t.UINT), fl.types.id(_U64), b.type_bool()
    _, slots, count, stripe = entry.arrays[output.index]
    position = fl.uint(index)
    in_range = b.emit("OpULessThan", boolean, position, count)
    slot = _element(fl, slots, b.emit("OpIAdd", uint, stripe, position), b.constant_uint(abi.OUTPUT_SLOT_SIZE, 64))
    safe = b.emit("OpSelect", u64, in_range, slot, entry.context)
    if output.is_empty:
        for name in ("valid", "counter"):
            entry.fields[(safe, name)] = _load(fl, safe, abi.OUTPUT_SLOT[name])
    else:                               # u32 fields by pairs (`_field_pair`)
        for name in ("counter", "records"):
            entry.fields[(safe, name)] = _load(fl, safe, abi.OUTPUT_SLOT[name])
        for low, high in (("valid", "first_group"), ("capacity", "stride")):
            entry.fields[(safe, low)], entry.fields[(safe, high)] = _field_pair(fl, safe, abi.OUTPUT_SLOT, low, high)
    flag = b.emit("OpINotEqual", boolean, entry.fields[(safe, "valid")], fl.uint(0))
    entry.elements[(output.index, position)] = (b.emit("OpLogicalAnd", boolean, in_range, flag), safe)


def _field(fl: FunctionLowering, base: int, layout: dict[str, tuple[int, int]], name: str) -> int:
    """Field `name` of the ABI structure `layout` at `base` (an OutputSlot, or the NodeContext): the
    prologue's load where `_hoist_outputs` or `_hoist_arrays` made one, else a load here."""
    state = fl.node_state
    hoisted = state.fields.get((base, name)) if isinstance(state, _Entry) else None
    return hoisted if hoisted is not None else _load(fl, base, layout[name])


def _read_slot(fl: FunctionLowering, slot: int, empty: bool) -> dict[str, Place]:
    """Load the fields of the OutputSlot at `slot` (a per-invocation address: a node-array element
    whose subscript is not a constant) that an allocation or output count uses (`counter`, and for
    records `records`, `capacity` and `stride`) into locals, in the block that reads its `valid`:
    the loads are issued together, before the atomic, where each was read after the one before it
    and after the atomic's result (on llvmpipe each is a gather of 8 lanes in a masked block of its
    own: benchmarks/RESULTS.md, "h-lvparr2").  Returns the locals by field name; the caller loads them after the block's merge into `_Entry.fields` (a load nothing uses
    is dropped by the driver)."""
    names: tuple[tuple[str, Any], ...] = (("counter", _U64),) if empty else (
        ("counter", _U64), ("records", _U64), ("capacity", t.UINT), ("stride", t.UINT))
    locals_ = {name: fl.local(type_, "slot_" + name) for name, type_ in names}
    fl.store(locals_["counter"], _load(fl, slot, abi.OUTPUT_SLOT["counter"]))
    if not empty:
        fl.store(locals_["records"], _load(fl, slot, abi.OUTPUT_SLOT["records"]))
        capacity, stride = _field_pair(fl, slot, abi.OUTPUT_SLOT, "capacity", "stride")
        fl.store(locals_["capacity"], capacity)
        fl.store(locals_["stride"], stride)
    return locals_


def _field_pair(fl: FunctionLowering, base: int, layout: dict[str, tuple[int, int]], low: str,
                high: str) -> tuple[int, int]:
    """Fields `low` and `high` (u32s, `high` the 4 bytes after `low`, which is 8-aligned) of the ABI
    structure `layout` at `base`: the prologue's loads where `_hoist_outputs` or `_hoist_arrays`
    made them, else one u64 load split in two (on llvmpipe a load from a per-invocation address is
    a gather of 8 lanes: one gather instead of two)."""
    state = fl.node_state
    fields = state.fields if isinstance(state, _Entry) else {}
    if (base, low) in fields and (base, high) in fields:
        return fields[(base, low)], fields[(base, high)]
    at, size = layout[low]
    assert size == 4 and at % 8 == 0 and layout[high] == (at + 4, 4)
    b = fl.b
    uint = fl.types.id(t.UINT)
    both = _load(fl, base, (at, 8))
    return b.emit("OpUConvert", uint, both), b.emit("OpUConvert", uint, b.emit(
        "OpShiftRightLogical", fl.types.id(_U64), both, b.constant_uint(32, 64)))


def _if(fl: FunctionLowering, condition: int, then: Any) -> None:
    """`then()` (which emits into the current block) where `condition` (a bool id) holds."""
    b = fl.b
    inside, after = b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", after, "None")
    b.emit("OpBranchConditional", condition, inside, after)
    fl.new_block(inside)
    then()
    b.emit("OpBranch", after)
    fl.new_block(after)


def _unless_narrow(fl: FunctionLowering, width: int, valid: int, slot: int, count: int,
                   base: Place | None) -> int:
    """Where `width` (a subgroup size) is below PER_KEY_MIN_SUBGROUP, each invocation adds its own
    `count` (`_add_where`); else the caller's path, whose block this leaves open: the label of the
    selection's merge block, which the caller branches to and starts."""
    b = fl.b
    wide = b.emit("OpUGreaterThanEqual", b.type_bool(), width, fl.uint(abi.PER_KEY_MIN_SUBGROUP))
    grouped, alone, done = b.new_id(), b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", done, "None")
    b.emit("OpBranchConditional", wide, grouped, alone)
    fl.new_block(alone)
    _add_where(fl, valid, slot, count, base)
    b.emit("OpBranch", done)
    fl.new_block(grouped)
    return done


def _group_keys(node: NodeInfo, handle: OutputHandle) -> bool:
    """Whether a keyed call on `handle` may count per element in Workgroup memory
    (`EmulatedNodes._group_add_per_key`): a broadcasting or coalescing node (its groups leave the
    prologue together) on an array of known size of at most its group's invocations and
    `GROUP_KEYS_LIMIT` elements."""
    size = handle.output.array_size
    if node.launch not in ("broadcasting", "coalescing") or size is None or handle.output.unbounded_sparse_nodes:
        return False
    x, y, z = node.num_threads
    return 0 < size <= min(x * y * z, GROUP_KEYS_LIMIT)


GROUP_KEYS_LIMIT = 64
"""The largest node array whose elements a group counts in Workgroup memory (two u32 per element)."""


def _entry(fl: FunctionLowering) -> _Entry:
    state = fl.node_state
    assert isinstance(state, _Entry), "sema inlines every function using node objects into its node"
    return state


def _constant_count(fl: FunctionLowering) -> int | None:
    """The count of the allocation or increment call being lowered where it is a constant."""
    call = fl.node_call
    folded = fold(call.args[0]) if call is not None and call.args else None
    if isinstance(folded, Folded) and isinstance(folded.value, int) and not isinstance(folded.value, bool):
        return folded.value
    return None


def _element(fl: FunctionLowering, base: int, index: int, stride: int) -> int:
    """base + u64(index) * stride (u64 ids; index a u32 id)."""
    u64 = fl.types.id(_U64)
    wide = fl.b.emit("OpUConvert", u64, index)
    return fl.b.emit("OpIAdd", u64, base, fl.b.emit("OpIMul", u64, wide, stride))


def _grid_record(fl: FunctionLowering, prefix: int, table: int, count: int, flat: int) -> tuple[int, int]:
    """(record, group within its grid) of flat group `flat` of a launch whose grid comes from its
    records (emulation ABI; `emulated_grid.grid_record`, shared with the AMDX path)."""
    return emulated_grid.grid_record(emulated_tail.BuilderEmitter(fl.ml), prefix, table, count, flat,
                                     lambda condition: _leave_if(fl, condition))


def _leave_if(fl: FunctionLowering, condition: int) -> None:
    """Return from the entry function where `condition` holds."""
    leave, stay = fl.b.new_id(), fl.b.new_id()
    fl.b.emit("OpSelectionMerge", stay, "None")
    fl.b.emit("OpBranchConditional", condition, leave, stay)
    fl.new_block(leave)
    fl.b.emit("OpReturn")
    fl.new_block(stay)


def _group_barrier(fl: FunctionLowering) -> None:
    scope = fl.ml.scope("Workgroup")
    fl.b.emit("OpControlBarrier", scope, scope, fl.ml.barrier_semantics("WorkgroupMemory"))

