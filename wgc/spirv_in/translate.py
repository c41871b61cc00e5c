"""Translating an SPV_AMDX_shader_enqueue module to the emulated contract (SPIR-V input stage).

Stage:  spirv_in, after `graph.py` (which says which entry point is which node, its launch and its
        outputs in OutputParameter order).
Input:  a read module (`reader.Module`) and the `graph.NodeCode`s of its nodes.
Output: `translate(module, nodes) -> bytes`: a module following `wgc.emulation_abi` (read that
        first) that passes `spirv-val --target-env vulkan1.3`: SPIR-V 1.6, `OpMemoryModel
        PhysicalStorageBuffer64 Vulkan`, no AMDX capability, extension, storage class, type,
        instruction, execution mode or decoration.
How (the same contract `wgc/spirv/emulated.py` writes from wgc's IR, here from the instructions):
- Each entry point gets a new entry function, the wrapper: it reads the NodeContext, computes the
  flat group index, the record index and, per launch mode, leaves where there is no work; it keeps
  the node's state in Private variables (context address, the address and stride of its input
  records, their count, the record index) and the values of the compute built-ins the node reads
  (whose Input variables become Private: in a thread-launch node SV_GroupIndex and the group and
  dispatch ids are 0; in a broadcasting node the group id and grid are the flattened dispatch's;
  RemainingRecursionLevelsAMDX, ShaderIndexAMDX and CoalescedInputCountAMDX come from the
  NodeContext), then calls the original function. A compute node's entry point is one function
  more, which calls the wrapper and then runs the level tail (`wgc.spirv.emulated_tail`, emulation
  ABI "Level tail"). Execution modes move to the entry function; a thread node's LocalSize is
  THREAD_GROUP_SIZE.
- Node operations become calls to helper functions (so that no block of the original code is split:
  its OpPhi and merge instructions stay as they are): OpAllocateNodePayloadsAMDX -> `allocate`
  (the slot, its fields read with its valid flag, the counter atomic per group, per subgroup, or
  per subgroup and distinct node index
  where the index may differ between invocations; the capacity check,
  the scratch record), returning the records' address and stride; OpIsNodePayloadValidAMDX ->
  `valid`; OpFinishWritingNodePayloadAMDX -> `finish` (the cross-group counter);
  OpNodePayloadArrayLengthAMDX -> the input count; OpEnqueueNodePayloadsAMDX -> nothing (the
  runtime reads outputs after the dispatch).
- NonSemantic.DebugPrintf's DebugPrintf (printf) becomes a call to `print<N>` (N: its argument
  words), which appends a print record to the buffer at NodeContext's `prints` as the emulated
  target does (`wgc.emulation_abi`, "Prints"; `wgc.spirv.emulated_prints`): the arguments become
  32-bit words in the body (straight-line conversions), each distinct (format, argument kinds,
  strings) gets an `OpString` describing it, and the wrapper keeps the flat group index for the
  record's header (only in a module that prints).
- NodePayloadAMDX element pointer types become PhysicalStorageBuffer pointers (same ids); an access
  chain into the input variable or an allocation's result computes the record's address
  (`base + index * stride`) and converts it to a pointer; every load and store through such a
  pointer carries `Aligned` (the accessed type's largest scalar) and NonPrivatePointer.
- The memory model becomes Vulkan: Device scope becomes QueueFamily, SequentiallyConsistent
  becomes AcquireRelease, a barrier ordering memory gets MakeAvailable|MakeVisible (what
  GLSL450 barriers imply), OutputMemory semantics (record memory) become UniformMemory.
Mesh nodes (MeshEXT entry points) get the wrapper of a broadcasting node and stay MeshEXT (their
mesh outputs and execution modes unchanged); Fragment entry points (the pixel shaders beside them)
are kept as they are, their functions rewritten like every other (memory model).
Refused (`TranslateError`, naming the instruction and where it is): a printf argument that is not
a number, a vector of numbers, a bool or an OpString; a payload pointer used other
than by the instructions above (OpPhi, OpSelect, OpCopyObject, function parameters, loading a
whole payload array), Volatile variables and Coherent images (the Vulkan memory model has no such
decorations; Coherent buffers and input records are translated: their loads carry
MakePointerVisible, their stores MakePointerAvailable, at QueueFamily scope), node operations in a
function that nodes of different launch modes or output orders reach.
Invariants: the original function bodies are copied word for word except for the instructions
named above; ids of the input module keep their meaning; new ids start at its bound.
"""

from __future__ import annotations

import json
import struct

from wgc import emulation_abi as abi
from wgc.spirv import grammar
from wgc.spirv.builder import Builder
from wgc.spirv.emulated_grid import grid_record, known_ones
from wgc.spirv.emulated_grid import group_id as group_id_of
from wgc.spirv.emulated_keys import per_key_loop
from wgc.spirv.emulated_tail import emit_tail

from .graph import NodeCode, reached_functions
from .reader import Instruction, Module


class TranslateError(ValueError):
    """An AMDX construct the translation cannot express (the message names it and where it is)."""


_PRIVATIZED = ("GlobalInvocationId", "WorkgroupId", "LocalInvocationId", "LocalInvocationIndex", "NumWorkgroups",
               "RemainingRecursionLevelsAMDX", "ShaderIndexAMDX", "CoalescedInputCountAMDX")
_SCOPE_DEVICE = grammar.enumerant("Scope", "Device")
_SCOPE_QUEUE_FAMILY = grammar.enumerant("Scope", "QueueFamily")
_SEQ_CST = grammar.mask("MemorySemantics", "SequentiallyConsistent")
_ACQ_REL = grammar.mask("MemorySemantics", "AcquireRelease")
_ORDERING = grammar.mask("MemorySemantics", "Acquire", "Release", "AcquireRelease", "SequentiallyConsistent")
_STORAGE = grammar.mask("MemorySemantics", "UniformMemory", "SubgroupMemory", "WorkgroupMemory",
                        "CrossWorkgroupMemory", "AtomicCounterMemory", "ImageMemory", "OutputMemory")
_OUTPUT_MEMORY = grammar.mask("MemorySemantics", "OutputMemory")
_UNIFORM_MEMORY = grammar.mask("MemorySemantics", "UniformMemory")
_AVAILABLE_VISIBLE = grammar.mask("MemorySemantics", "MakeAvailable", "MakeVisible")


class _Encoder(Builder):
    """The builder's encoder, for instructions this stage places itself."""

    def encode(self, op: str, *operands, result: int | None = None) -> tuple[list[int], int]:
        return self._encode(op, list(operands), result)


class _Body:
    """The words of one function under construction."""

    def __init__(self, t: _Translator) -> None:
        self.t = t
        self.words: list[int] = []
        self.vars: list[int] = []

    def emit(self, op: str, *operands) -> int:
        words, result = self.t.enc.encode(op, *operands)
        self.words.extend(words)
        return result

    def label(self, id_: int | None = None) -> int:
        id_ = id_ if id_ is not None else self.t.new_id()
        self.words.extend(self.t.enc.encode("OpLabel", result=id_)[0])
        return id_

    def local(self, type_: int, init: int | None = None) -> int:
        """A Function variable of `type_` (placed in the first block), optionally stored `init` here."""
        pointer = self.t.pointer("Function", type_)
        words, id_ = self.t.enc.encode("OpVariable", pointer, "Function")
        self.vars.extend(words)
        if init is not None:
            self.emit("OpStore", id_, init)
        return id_

    def if_(self, condition: int, then, otherwise=None) -> None:
        """A selection construct: `then(self)` where `condition`, `otherwise(self)` where not."""
        yes, no, done = self.t.new_id(), self.t.new_id(), self.t.new_id()
        self.emit("OpSelectionMerge", done, "None")
        self.emit("OpBranchConditional", condition, yes, no if otherwise else done)
        self.label(yes)
        then(self)
        self.emit("OpBranch", done)
        if otherwise:
            self.label(no)
            otherwise(self)
            self.emit("OpBranch", done)
        self.label(done)

    def finish(self, header: list[int]) -> list[int]:
        """OpFunction (+ parameters and first label) in `header`; the variables go after the first label."""
        return header + self.vars + self.words + self.t.enc.encode("OpFunctionEnd")[0]


class _TailEmitter:
    """The level tail's `Emitter` over a function under construction."""

    def __init__(self, t: _Translator, b: _Body) -> None:
        self.t, self.b = t, b
        self.u32, self.u64, self.bool_ = t.u32, t.u64, t.bool_

    def emit(self, op: str, *operands, result: int | None = None) -> int:
        words, id_ = self.t.enc.encode(op, *operands, result=result)
        self.b.words.extend(words)
        return id_

    def label(self, id_: int) -> None:
        self.b.label(id_)

    def new_id(self) -> int:
        return self.t.new_id()

    def uint(self, value: int, bits: int = 32) -> int:
        return self.t.uint(value, bits)

    def psb(self, type_: int) -> int:
        return self.t.psb(type_)

    def f32_type(self) -> int:
        return self.t.type("OpTypeFloat", 32)

    def workgroup_word(self, name: str) -> int:
        """One module-wide variable per name, listed by every entry point (as the allocations' `shared`)."""
        t = self.t
        var = t._global(("tail", name), "OpVariable", t.pointer("Workgroup", t.u32), "Workgroup")
        if var not in t.new_interface:
            t.new_interface.append(var)
        return var

    def tail_switch(self) -> int:
        t = self.t
        if ("tail_switch",) not in t.cache:
            switch = t._global(("tail_switch",), "OpSpecConstantTrue", t.bool_)
            t.annotations.append(t.enc.encode("OpDecorate", switch, "SpecId", abi.LEVEL_TAIL_SPEC_ID)[0])
        return t.cache[("tail_switch",)]


class _Translator:
    def __init__(self, module: Module, nodes: list[NodeCode]) -> None:
        self.m = module
        self.nodes = nodes
        self.enc = _Encoder(names=False)
        self.enc._next_id = module.bound
        self.globals: list[list[int]] = []         # new types, constants, variables
        self.annotations: list[list[int]] = []
        self.cache: dict[tuple, int] = {}
        self.deferred: dict[int, tuple[int, int]] = {}   # privatized variable -> (its Private pointer, it)
        self.helpers: list[list[int]] = []
        self.new_interface: list[int] = []
        self.owned: dict[int, int] = {}
        self.kind_of: dict[int, str] = {}
        """New interface variables by what they are (a built-in's name, "push"): an entry point lists one
        of each."""
        """Variables of one mesh wrapper only (variable -> the node function whose wrapper owns it)."""
        self.owner: int | None = None
        """While a mesh node's wrapper is made: its function (its built-ins and push constants are its own)."""
        # what the module holds
        self.payload_arrays = {i.result for i in module.instructions
                               if i.opname == "OpTypeNodePayloadArrayAMDX" and i.result is not None}
        self.array_pointers: set[int] = set()
        self.element_pointers: set[int] = set()
        self.input_vars: set[int] = set()
        self.privatized: dict[int, str] = {}     # Input built-in variable -> built-in
        self.removed: set[int] = set()
        for inst in module.instructions:
            if inst.opname == "OpTypePointer":
                if inst.literal(1) in self.payload_arrays:
                    self.array_pointers.add(inst.result)   # type: ignore[arg-type]
                elif inst.operands[0].name == "NodePayloadAMDX":
                    self.element_pointers.add(inst.result)   # type: ignore[arg-type]
            elif inst.opname == "OpVariable" and inst.operands[0].name == "NodePayloadAMDX":
                self.input_vars.add(inst.result)   # type: ignore[arg-type]
            elif inst.opname == "OpVariable" and inst.operands[0].name == "Input":
                deco = module.decoration(inst.result or 0, "BuiltIn")
                if deco is not None and deco.operands[2].name in _PRIVATIZED:
                    self.privatized[inst.result] = deco.operands[2].name   # type: ignore[index]
        self.coherent = {i.result for i in module.instructions if i.opname == "OpVariable" and i.result is not None
                         and i.operands[0].name in ("StorageBuffer", "Uniform", "NodePayloadAMDX")
                         and module.decoration(i.result or 0, "Coherent") is not None}
        """Coherent (globallycoherent) buffers and input records: their accesses make their writes
        available and others' visible (the Vulkan memory model has no Coherent)."""
        self.user_push = next((i for i in module.instructions if i.opname == "OpVariable"
                               and i.operands[0].name == "PushConstant"), None)
        self.removed = (self.payload_arrays | self.array_pointers | self.input_vars)
        if self.user_push is not None and self.user_push.result is not None:
            self.removed.add(self.user_push.result)
        self.removed |= {i.result for i in module.instructions
                         if i.opname in ("OpConstantStringAMDX", "OpSpecConstantStringAMDX") and i.result is not None}
        self.printf_sets = {i.result for i in module.instructions
                            if i.opname == "OpExtInstImport" and i.literal(0) == "NonSemantic.DebugPrintf"}
        """The module's NonSemantic.DebugPrintf imports (empty: it does not print)."""
        self.strings = {i.result: i.literal(0) for i in module.instructions
                        if i.opname == "OpString" and i.result is not None}
        self.print_formats: dict[str, int] = {}
        """[format, kinds, strings] as JSON -> format id (`wgc.emulation_abi`, "Prints")."""
        self.debug_strings: list[list[int]] = []
        """The OpStrings describing the print formats (first in the debug section)."""

    def new_id(self) -> int:
        return self.enc.new_id()

    def fail(self, inst: Instruction | None, what: str) -> TranslateError:
        where = self.m.where(inst) if inst is not None else self.m.name
        return TranslateError(f"{where}: {what}")

    # ------------------------------------------------------------ types and constants

    def _global(self, key: tuple, op: str, *operands) -> int:
        if key in self.cache:
            return self.cache[key]
        words, id_ = self.enc.encode(op, *operands)
        self.globals.append(words)
        self.cache[key] = id_
        return id_

    def _existing_type(self, op: str, literals: tuple) -> int | None:
        for inst in self.m.instructions:
            if inst.opname == op and inst.result not in self.removed \
                    and tuple(o.value for o in inst.operands) == literals:
                return inst.result
        return None

    def type(self, op: str, *operands) -> int:
        key = ("type", op, operands)
        if key not in self.cache and op != "OpTypePointer":
            found = self._existing_type(op, operands)
            if found is not None:
                self.cache[key] = found
        return self._global(key, op, *operands)

    def pointer(self, storage: str, pointee: int) -> int:
        key = ("type", "OpTypePointer", (storage, pointee))
        if key not in self.cache:
            code = grammar.enumerant("StorageClass", storage)
            for inst in self.m.instructions:
                if inst.opname == "OpTypePointer" and inst.result not in self.removed and inst.literal(1) == pointee \
                        and (inst.literal(0) == code or (storage == "PhysicalStorageBuffer"
                                                         and inst.result in self.element_pointers)):
                    self.cache[key] = inst.result   # type: ignore[assignment]
                    break
        return self._global(key, "OpTypePointer", storage, pointee)

    @property
    def void(self) -> int:
        return self.type("OpTypeVoid")

    @property
    def bool_(self) -> int:
        return self.type("OpTypeBool")

    @property
    def u32(self) -> int:
        return self.type("OpTypeInt", 32, 0)

    @property
    def u64(self) -> int:
        return self.type("OpTypeInt", 64, 0)

    @property
    def uvec3(self) -> int:
        return self.type("OpTypeVector", self.u32, 3)

    def uint(self, value: int, bits: int = 32) -> int:
        key = ("const", bits, value)
        if key not in self.cache:
            type_ = self.u32 if bits == 32 else self.u64
            id_ = self.new_id()
            literal = [value & 0xFFFFFFFF] + ([value >> 32] if bits == 64 else [])
            self.globals.append([((3 + len(literal)) << 16) | grammar.opcode("OpConstant"), type_, id_, *literal])
            self.cache[key] = id_
        return self.cache[key]

    def bool_const(self, value: bool) -> int:
        return self._global(("bool", value), "OpConstantTrue" if value else "OpConstantFalse", self.bool_)

    def private(self, type_: int, name: str) -> int:
        """A new Private variable (listed by every entry point)."""
        key = ("private", name)
        if key not in self.cache:
            var = self._global(key, "OpVariable", self.pointer("Private", type_), "Private")
            self.new_interface.append(var)
        return self.cache[key]

    def builtin(self, name: str, type_: int) -> int:
        """A new Input variable of a built-in (the hardware's value, not the node's); a mesh node's
        wrapper gets its own (NVIDIA's driver drew nothing from a MeshEXT entry point sharing them)."""
        key = ("builtin", name) if self.owner is None else ("builtin", name, self.owner)
        if key not in self.cache:
            var = self._global(key, "OpVariable", self.pointer("Input", type_), "Input")
            self.annotations.append(self.enc.encode("OpDecorate", var, "BuiltIn", name)[0])
            self.new_interface.append(var)
            self.kind_of[var] = name
            if self.owner is not None:
                self.owned[var] = self.owner
        return self.cache[key]

    # ------------------------------------------------------------ emulation helpers

    def state(self, name: str) -> tuple[int, int]:
        """(Private variable, value type) of a piece of node state."""
        type_ = self.u64 if name in ("context", "input_base", "input_stride") else self.u32
        return self.private(type_, "wgc." + name), type_

    def load_state(self, b: _Body, name: str) -> int:
        var, type_ = self.state(name)
        return b.emit("OpLoad", type_, var)

    def psb(self, type_: int) -> int:
        return self.pointer("PhysicalStorageBuffer", type_)

    def load_field(self, b: _Body, base: int, field: tuple[int, int]) -> int:
        offset, size = field
        address = base if offset == 0 else b.emit("OpIAdd", self.u64, base, self.uint(offset, 64))
        type_ = self.u64 if size == 8 else self.u32
        pointer = b.emit("OpConvertUToPtr", self.psb(type_), address)
        return b.emit("OpLoad", type_, pointer, "Aligned", size)

    def element(self, b: _Body, base: int, index: int, stride: int) -> int:
        wide = b.emit("OpUConvert", self.u64, index)
        return b.emit("OpIAdd", self.u64, base, b.emit("OpIMul", self.u64, wide, stride))

    def group_barrier(self, b: _Body) -> None:
        scope = self.uint(grammar.enumerant("Scope", "Workgroup"))
        b.emit("OpControlBarrier", scope, scope, self.uint(grammar.mask(
            "MemorySemantics", "AcquireRelease", "WorkgroupMemory", "MakeAvailable", "MakeVisible")))

    def _function(self, name: str, result: int, params: list[int], body) -> int:
        key = ("fn", name)
        if key in self.cache:
            return self.cache[key]
        fn = self.new_id()
        self.cache[key] = fn
        fn_type = self.type("OpTypeFunction", result, *params)
        header, _ = self.enc.encode("OpFunction", result, "None", fn_type, result=fn)
        ids = []
        for p in params:
            words, id_ = self.enc.encode("OpFunctionParameter", p)
            header += words
            ids.append(id_)
        b = _Body(self)
        header += self.enc.encode("OpLabel", result=self.new_id())[0]
        body(b, *ids)
        self.helpers.append(b.finish(header))
        return fn

    def slot(self, b: _Body, param: int, index: int, fields: dict[str, int] | None = None) -> tuple[int, int]:
        """(bool valid, u64 OutputSlot address) of output parameter `param` at node index `index`;
        with `fields`, the slot's `counter`, `records`, `capacity` and `stride` too, loaded with
        `valid` (before the caller's atomic: on llvmpipe each load from a per-invocation address is
        a gather of 8 lanes, dearer one after another; wgc/spirv/emulated.py `_read_slot`), into
        `fields` by name (undefined where the slot is not valid)."""
        context = self.load_state(b, "context")
        outputs = self.load_field(b, context, abi.NODE_CONTEXT["outputs"])
        parameter = self.element(b, outputs, param, self.uint(abi.OUTPUT_PARAMETER_SIZE, 64))
        slots = self.load_field(b, parameter, abi.OUTPUT_PARAMETER["slots"])
        count = self.load_field(b, parameter, abi.OUTPUT_PARAMETER["count"])
        in_range = b.emit("OpULessThan", self.bool_, index, count)
        slot = self.element(b, slots, index, self.uint(abi.OUTPUT_SLOT_SIZE, 64))
        valid = b.local(self.bool_, self.bool_const(False))
        names = ("counter", "records", "capacity", "stride") if fields is not None else ()
        types = {name: self.u64 if abi.OUTPUT_SLOT[name][1] == 8 else self.u32 for name in names}
        locals_ = {name: b.local(types[name]) for name in names}

        def read(b: _Body) -> None:
            b.emit("OpStore", valid, b.emit(
                "OpINotEqual", self.bool_, self.load_field(b, slot, abi.OUTPUT_SLOT["valid"]), self.uint(0)))
            for name in names:
                b.emit("OpStore", locals_[name], self.load_field(b, slot, abi.OUTPUT_SLOT[name]))
        b.if_(in_range, read)
        if fields is not None:
            fields.update((name, b.emit("OpLoad", types[name], locals_[name])) for name in names)
        return b.emit("OpLoad", self.bool_, valid), slot

    def valid_function(self) -> int:
        def body(b: _Body, param: int, index: int) -> None:
            valid, _ = self.slot(b, param, index)
            b.emit("OpReturnValue", valid)
        return self._function("valid", self.bool_, [self.u32, self.u32], body)

    def counter(self, b: _Body, address: int) -> int:
        """A pointer to the u32 at `address` (an OutputSlot's `counter`)."""
        return b.emit("OpConvertUToPtr", self.psb(self.u32), address)

    def allocate_function(self) -> int:
        """allocate(param, index, count, per_group, per_subgroup) -> u64vec2(address, stride)."""
        pair = self.type("OpTypeVector", self.u64, 2)

        def body(b: _Body, param: int, index: int, count: int, per_group: int, per_subgroup: int) -> None:
            fields: dict[str, int] = {}
            valid, _ = self.slot(b, param, index, fields)
            base = b.local(self.u32, self.uint(0))
            device, relaxed = self.uint(_SCOPE_QUEUE_FAMILY), self.uint(0)
            shared = self._global(("shared",), "OpVariable", self.pointer("Workgroup", self.u32), "Workgroup")
            if shared not in self.new_interface:
                self.new_interface.append(shared)

            def group(b: _Body) -> None:
                first = b.emit("OpIEqual", self.bool_, b.emit(
                    "OpLoad", self.u32, self.builtin("LocalInvocationIndex", self.u32)), self.uint(0))

                def add(b: _Body) -> None:
                    b.emit("OpStore", shared, b.emit("OpAtomicIAdd", self.u32, self.counter(b, fields["counter"]), device,
                                                     relaxed, count))
                b.if_(b.emit("OpLogicalAnd", self.bool_, first, valid), add)
                self.group_barrier(b)
                b.emit("OpStore", base, b.emit("OpLoad", self.u32, shared))
                self.group_barrier(b)

            def subgroup(b: _Body) -> None:
                def add(b: _Body) -> None:
                    sg = self.uint(grammar.enumerant("Scope", "Subgroup"))
                    total = b.emit("OpGroupNonUniformIAdd", self.u32, sg, "Reduce", count)
                    leader = b.local(self.u32, self.uint(0))
                    elected = b.emit("OpGroupNonUniformElect", self.bool_, sg)
                    b.if_(elected, lambda b: b.emit("OpStore", leader, b.emit(
                        "OpAtomicIAdd", self.u32, self.counter(b, fields["counter"]), device, relaxed, total)))
                    first = b.emit("OpGroupNonUniformBroadcastFirst", self.u32, sg, b.emit("OpLoad", self.u32, leader))
                    prefix = b.emit("OpGroupNonUniformIAdd", self.u32, sg, "ExclusiveScan", count)
                    b.emit("OpStore", base, b.emit("OpIAdd", self.u32, first, prefix))
                b.if_(valid, add)

            def alone(b: _Body) -> None:
                b.if_(valid, lambda b: b.emit("OpStore", base, b.emit(
                    "OpAtomicIAdd", self.u32, self.counter(b, fields["counter"]), device, relaxed, count)))

            def per_index(b: _Body) -> None:
                # on a subgroup of PER_KEY_MIN_SUBGROUP or more, a loop over the distinct indices of the
                # subgroup's invocations: those whose index is the first active invocation's share one
                # slot and add as `subgroup` does, then leave; on a smaller one each adds its own
                # (emulation ABI, "Outputs"; SubgroupSize is a constant of the pipeline)
                small = b.emit("OpULessThan", self.bool_, b.emit("OpLoad", self.u32, self.builtin(
                    "SubgroupSize", self.u32)), self.uint(abi.PER_KEY_MIN_SUBGROUP))
                b.if_(small, alone, grouped)

            def grouped(b: _Body) -> None:
                per_key_loop(_TailEmitter(self, b), index, lambda: subgroup(b))

            b.if_(b.emit("OpINotEqual", self.bool_, per_group, self.uint(0)), group,
                  lambda b: b.if_(b.emit("OpINotEqual", self.bool_, per_subgroup, self.uint(0)), subgroup, per_index))
            old = b.emit("OpLoad", self.u32, base)
            context = self.load_state(b, "context")
            address = b.local(self.u64, self.load_field(b, context, abi.NODE_CONTEXT["scratch"]))
            stride = b.local(self.u64, self.uint(0, 64))

            def in_slot(b: _Body) -> None:
                capacity = fields["capacity"]
                fits = b.emit("OpLogicalAnd", self.bool_, b.emit("OpULessThanEqual", self.bool_, old, capacity),
                              b.emit("OpULessThanEqual", self.bool_, count, b.emit("OpISub", self.u32, capacity, old)))

                def ok(b: _Body) -> None:
                    s = b.emit("OpUConvert", self.u64, fields["stride"])
                    records = fields["records"]
                    b.emit("OpStore", address, self.element(b, records, old, s))
                    b.emit("OpStore", stride, s)

                def full(b: _Body) -> None:
                    status = self.load_field(b, self.load_state(b, "context"), abi.NODE_CONTEXT["status"])
                    b.emit("OpAtomicOr", self.u32, b.emit("OpConvertUToPtr", self.psb(self.u32), status), device,
                           relaxed, self.uint(abi.STATUS_OUT_OF_RECORDS))
                b.if_(fits, ok, full)
            b.if_(valid, in_slot)
            b.emit("OpReturnValue", b.emit("OpCompositeConstruct", pair, b.emit("OpLoad", self.u64, address),
                                           b.emit("OpLoad", self.u64, stride)))
        return self._function("allocate", pair, [self.u32] * 5, body)

    def finish_function(self) -> int:
        """FinishedCrossGroupSharing(): invocation 0 decrements the record's group counter."""
        def body(b: _Body) -> None:
            shared = self._global(("shared",), "OpVariable", self.pointer("Workgroup", self.u32), "Workgroup")
            if shared not in self.new_interface:
                self.new_interface.append(shared)
            first = b.emit("OpIEqual", self.bool_, b.emit(
                "OpLoad", self.u32, self.builtin("LocalInvocationIndex", self.u32)), self.uint(0))

            def decrement(b: _Body) -> None:
                counters = self.load_field(b, self.load_state(b, "context"), abi.NODE_CONTEXT["shared_counters"])
                address = self.element(b, counters, self.load_state(b, "record"), self.uint(4, 64))
                old = b.emit("OpAtomicISub", self.u32, b.emit("OpConvertUToPtr", self.psb(self.u32), address),
                             self.uint(_SCOPE_QUEUE_FAMILY), self.uint(_ACQ_REL | _UNIFORM_MEMORY | _AVAILABLE_VISIBLE),
                             self.uint(1))
                b.emit("OpStore", shared, old)
            b.if_(first, decrement)
            self.group_barrier(b)
            last = b.emit("OpIEqual", self.bool_, b.emit("OpLoad", self.u32, shared), self.uint(1))
            self.group_barrier(b)
            b.emit("OpReturnValue", last)
        return self._function("finish", self.bool_, [], body)

    def print_function(self, words: int) -> int:
        """print<words>(format id, words...): one print record in the print buffer, or `lost`
        counted where it does not fit (`wgc.emulation_abi`, "Prints")."""
        u32, u64 = self.u32, self.u64
        device, relaxed = self.uint(_SCOPE_QUEUE_FAMILY), self.uint(0)

        def body(b: _Body, format_id: int, *args: int) -> None:
            context = self.load_state(b, "context")
            buffer = self.load_field(b, context, abi.NODE_CONTEXT["prints"])

            def present(b: _Body) -> None:
                n = self.uint(abi.PRINT_RECORD_HEADER_WORDS + words)
                used_at = b.emit("OpIAdd", u64, buffer, self.uint(abi.PRINT_BUFFER["used"][0], 64)) \
                    if abi.PRINT_BUFFER["used"][0] else buffer
                used = b.emit("OpConvertUToPtr", self.psb(u32), used_at)
                capacity = self.load_field(b, buffer, abi.PRINT_BUFFER["capacity"])
                # a full buffer takes nothing more, so that `used` cannot wrap around
                full = b.emit("OpUGreaterThanEqual", self.bool_, b.emit("OpAtomicLoad", u32, used, device, relaxed),
                              capacity)
                base = b.emit("OpAtomicIAdd", u32, used, device, relaxed,
                              b.emit("OpSelect", u32, full, self.uint(0), n))
                fits = b.emit("OpLogicalAnd", self.bool_, b.emit("OpLogicalNot", self.bool_, full), b.emit(
                    "OpLogicalAnd", self.bool_, b.emit("OpULessThanEqual", self.bool_, base, capacity),
                    b.emit("OpULessThanEqual", self.bool_, n, b.emit("OpISub", u32, capacity, base))))
                first = self.element(b, b.emit("OpIAdd", u64, buffer, self.uint(abi.PRINT_HEADER_SIZE, 64)), base,
                                     self.uint(4, 64))

                def write(b: _Body) -> None:
                    low = b.emit("OpUConvert", u32, context)
                    high = b.emit("OpUConvert", u32, b.emit("OpShiftRightLogical", u64, context, self.uint(32, 64)))
                    thread = b.emit("OpLoad", u32, self.builtin("LocalInvocationIndex", u32))
                    values = [n, format_id, low, high, self.load_state(b, "flat"), thread,
                              self.load_state(b, "record"), *args]
                    for k, value in enumerate(values):
                        at = first if k == 0 else b.emit("OpIAdd", u64, first, self.uint(4 * k, 64))
                        b.emit("OpStore", b.emit("OpConvertUToPtr", self.psb(u32), at), value, "Aligned", 4)

                def lose(b: _Body) -> None:
                    b.if_(b.emit("OpULessThan", self.bool_, base, capacity),       # a size of 0 ends the records
                          lambda b: b.emit("OpStore", b.emit("OpConvertUToPtr", self.psb(u32), first), self.uint(0),
                                           "Aligned", 4))
                    lost = b.emit("OpIAdd", u64, buffer, self.uint(abi.PRINT_BUFFER["lost"][0], 64))
                    b.emit("OpAtomicIAdd", u32, b.emit("OpConvertUToPtr", self.psb(u32), lost), device, relaxed,
                           self.uint(1))
                b.if_(fits, write, lose)
            b.if_(b.emit("OpINotEqual", self.bool_, buffer, self.uint(0, 64)), present)
            b.emit("OpReturn")
        return self._function(f"print{words}", self.void, [u32] * (1 + words), body)

    def print_format(self, text: str, kinds: list[str], strings: list[str]) -> int:
        """The id of a print format, described by an OpString the first time."""
        key = json.dumps([text, kinds, strings])
        found = self.print_formats.get(key)
        if found is None:
            found = self.print_formats[key] = len(self.print_formats)
            description = {"id": found, "format": text, "args": kinds, "strings": strings}
            self.debug_strings.append(self.enc.encode(
                "OpString", abi.PRINT_FORMAT_PREFIX + json.dumps(description, ensure_ascii=True))[0])
        return found

    # ------------------------------------------------------------ the wrapper of an entry point

    def wrapper(self, node: NodeCode, max_records: int, grid: tuple | None, grid_field,
                most_grid: tuple[int, int, int] | None = None) -> int:
        self.owner = node.function if node.launch == "mesh" else None
        fn = self.new_id()
        header, _ = self.enc.encode("OpFunction", self.void, "None", self.type("OpTypeFunction", self.void), result=fn)
        header += self.enc.encode("OpLabel", result=self.new_id())[0]
        b = _Body(self)
        u32, u64 = self.u32, self.u64
        push = self.push_block()
        context = b.emit("OpLoad", u64, b.emit("OpAccessChain", self.pointer("PushConstant", u64), push, self.uint(0)))
        b.emit("OpStore", self.state("context")[0], context)
        group_offset = self.load_field(b, context, abi.NODE_CONTEXT["group_offset"])
        group = b.emit("OpLoad", self.uvec3, self.builtin("WorkgroupId", self.uvec3))
        groups = b.emit("OpLoad", self.uvec3, self.builtin("NumWorkgroups", self.uvec3))
        x, y, z = (b.emit("OpCompositeExtract", u32, group, i) for i in range(3))
        nx, ny = (b.emit("OpCompositeExtract", u32, groups, i) for i in range(2))
        flat = b.emit("OpIAdd", u32, group_offset, b.emit("OpIAdd", u32, x, b.emit(
            "OpIMul", u32, nx, b.emit("OpIAdd", u32, y, b.emit("OpIMul", u32, ny, z)))))
        records = self.load_field(b, context, abi.NODE_CONTEXT["input_records"])
        count = self.load_field(b, context, abi.NODE_CONTEXT["input_count"])
        stride = b.emit("OpUConvert", u64, self.load_field(b, context, abi.NODE_CONTEXT["input_stride"]))
        local_index = b.emit("OpLoad", u32, self.builtin("LocalInvocationIndex", u32))
        local_id = b.emit("OpLoad", self.uvec3, self.builtin("LocalInvocationId", self.uvec3))
        zero3 = self._global(("zero3",), "OpConstantComposite", self.uvec3, self.uint(0), self.uint(0), self.uint(0))
        one3 = self._global(("one3",), "OpConstantComposite", self.uvec3, self.uint(1), self.uint(1), self.uint(1))
        values = {"LocalInvocationIndex": local_index, "LocalInvocationId": local_id, "WorkgroupId": zero3,
                  "GlobalInvocationId": local_id, "NumWorkgroups": one3}
        node_count = self.uint(1)

        def leave_if(condition: int) -> None:
            leave, stay = self.new_id(), self.new_id()
            b.emit("OpSelectionMerge", stay, "None")
            b.emit("OpBranchConditional", condition, leave, stay)
            b.label(leave)
            b.emit("OpReturn")
            b.label(stay)

        if node.launch == "thread":
            record = b.emit("OpIAdd", u32, b.emit("OpIMul", u32, flat, self.uint(abi.THREAD_GROUP_SIZE)), local_index)
            leave_if(b.emit("OpUGreaterThanEqual", self.bool_, record, count))
            values.update(LocalInvocationIndex=self.uint(0), LocalInvocationId=zero3, GlobalInvocationId=zero3)
            base = self.element(b, records, record, stride)
        elif node.launch == "coalescing":
            record = b.emit("OpIMul", u32, flat, self.uint(max_records))
            leave_if(b.emit("OpUGreaterThanEqual", self.bool_, record, count))
            left = b.emit("OpISub", u32, count, record)
            node_count = b.emit("OpSelect", u32, b.emit("OpULessThan", self.bool_, left, self.uint(max_records)),
                                left, self.uint(max_records))
            base = self.element(b, records, record, stride)
        else:
            if grid is not None:
                gx, gy = self.uint(grid[0]), self.uint(grid[1])
                size = self.uint(grid[0] * grid[1] * grid[2])
                record = b.emit("OpUDiv", u32, flat, size)
                leave_if(b.emit("OpUGreaterThanEqual", self.bool_, record, count))
                local = b.emit("OpUMod", u32, flat, size)
                gz = self.uint(grid[2])
            else:                   # the grid is the record's: search `grid_prefix` (emulation ABI)
                record, local = self.grid_record(b, self.load_field(b, context, abi.NODE_CONTEXT["grid_prefix"]),
                                                 self.load_field(b, context, abi.NODE_CONTEXT["grid_records"]),
                                                 count, flat, leave_if)
                own = self.element(b, records, record, stride)
                ones = known_ones(most_grid, grid_field.components)
                parts = []
                for i in range(3):
                    if ones[i]:
                        parts.append(self.uint(1))
                        continue
                    bits = grid_field.bits
                    address = b.emit("OpIAdd", u64, own, self.uint(grid_field.offset + i * bits // 8, 64))
                    type_ = u32 if bits == 32 else self.type("OpTypeInt", bits, 0)
                    value = b.emit("OpLoad", type_, b.emit("OpConvertUToPtr", self.psb(type_), address),
                                   "Aligned", bits // 8)
                    parts.append(value if bits == 32 else b.emit("OpUConvert", u32, value))
                gx, gy, gz = parts
            if grid is None:
                group_id = b.emit("OpCompositeConstruct", self.uvec3,
                                  *group_id_of(_TailEmitter(self, b), local, parts.__getitem__, ones))
            else:
                plane = b.emit("OpIMul", u32, gx, gy)
                group_id = b.emit("OpCompositeConstruct", self.uvec3, b.emit("OpUMod", u32, local, gx),
                                  b.emit("OpUMod", u32, b.emit("OpUDiv", u32, local, gx), gy),
                                  b.emit("OpUDiv", u32, local, plane))
            size3 = self._global(("size3", node.function), "OpConstantComposite", self.uvec3,
                                 *(self.uint(v) for v in self.local_size(node)))
            values.update(WorkgroupId=group_id, NumWorkgroups=b.emit("OpCompositeConstruct", self.uvec3, gx, gy, gz),
                          GlobalInvocationId=b.emit("OpIAdd", self.uvec3, b.emit("OpIMul", self.uvec3, group_id, size3),
                                                    local_id))
            base = self.element(b, records, record, stride)
        b.emit("OpStore", self.state("input_base")[0], base)
        b.emit("OpStore", self.state("input_stride")[0], stride)
        b.emit("OpStore", self.state("count")[0], node_count)
        b.emit("OpStore", self.state("record")[0], record)
        if self.printf_sets:
            b.emit("OpStore", self.state("flat")[0], flat)
        values["RemainingRecursionLevelsAMDX"] = self.load_field(
            b, context, abi.NODE_CONTEXT["remaining_recursion_levels"])
        values["ShaderIndexAMDX"] = self.load_field(b, context, abi.NODE_CONTEXT["shader_index"])
        values["CoalescedInputCountAMDX"] = node_count
        for var, name in self.privatized.items():
            pointee = self.m.defs[self.m.defs[var].result_type or 0].literal(1)
            if pointee != (self.uvec3 if name in ("GlobalInvocationId", "WorkgroupId", "LocalInvocationId",
                                                  "NumWorkgroups") else self.u32):
                raise self.fail(self.m.defs[var], f"the built-in {name} of a type other than the 32-bit unsigned "
                                "one wgc's contract gives it")
            b.emit("OpStore", var, values[name])
        b.emit("OpFunctionCall", self.void, node.function)
        b.emit("OpReturn")
        self.helpers.append(b.finish(header))
        self.owner = None
        if node.launch == "mesh":
            return fn
        x, y, z = (abi.THREAD_GROUP_SIZE, 1, 1) if node.launch == "thread" else self.local_size(node)
        return self.tail_wrapper(fn, x * y * z)

    def tail_wrapper(self, prologue: int, group_size: int) -> int:
        """The entry function of a compute node: calls `prologue` (the wrapper above), then runs the
        level tail (`wgc.spirv.emulated_tail`) for workgroups of at least `group_size` invocations."""
        fn = self.new_id()
        header, _ = self.enc.encode("OpFunction", self.void, "None", self.type("OpTypeFunction", self.void), result=fn)
        header += self.enc.encode("OpLabel", result=self.new_id())[0]
        b = _Body(self)
        b.emit("OpFunctionCall", self.void, prologue)
        local_index = b.emit("OpLoad", self.u32, self.builtin("LocalInvocationIndex", self.u32))
        context = b.emit("OpLoad", self.u64, b.emit("OpAccessChain", self.pointer("PushConstant", self.u64),
                                                    self.push_block(), self.uint(0)))
        emit_tail(_TailEmitter(self, b), context, local_index, group_size)
        b.emit("OpReturn")
        self.helpers.append(b.finish(header))
        return fn

    def grid_record(self, b: _Body, prefix: int, table: int, count: int, flat: int, leave_if) -> tuple[int, int]:
        """(record, group within its grid) of flat group `flat` of a launch whose grid comes from
        its records (emulation ABI; `wgc.spirv.emulated_grid`, shared with the IR path)."""
        return grid_record(_TailEmitter(self, b), prefix, table, count, flat, leave_if)

    def user_pointee(self) -> int | None:
        """The struct of the module's own push-constant block, if it has one."""
        if self.user_push is None:
            return None
        return self.m.defs[self.user_push.result_type or 0].literal(1)

    def local_size(self, node: NodeCode) -> tuple[int, int, int]:
        for inst in self.m.execution_modes.get(node.function, ()):
            if inst.operands[1].name == "LocalSize":
                return tuple(o.value for o in inst.operands[2:5])
            if inst.operands[1].name == "LocalSizeId":
                return tuple(self.m.constant(o.value) or 1 for o in inst.operands[2:5])   # type: ignore[return-value]
        return (1, 1, 1)

    def push_block(self) -> int:
        """The emulation's push constants: the NodeContext address, and the user's block (if any) at
        USER_PUSH_CONSTANT_OFFSET as member 1."""
        key = ("push",) if self.owner is None else ("push", self.owner)
        if key not in self.cache:
            user = self.user_pointee()
            first = ("push-struct",) not in self.cache
            struct_ = self._global(("push-struct",), "OpTypeStruct", self.u64, *([user] if user else []))
            if first:
                self.annotations.append(self.enc.encode("OpMemberDecorate", struct_, 0, "Offset", 0)[0])
                if user:
                    self.annotations.append(self.enc.encode("OpMemberDecorate", struct_, 1, "Offset",
                                                            abi.USER_PUSH_CONSTANT_OFFSET)[0])
                self.annotations.append(self.enc.encode("OpDecorate", struct_, "Block")[0])
            var = self._global(key, "OpVariable", self.pointer("PushConstant", struct_), "PushConstant")
            self.new_interface.append(var)
            self.kind_of[var] = "push"
            if self.owner is not None:
                self.owned[var] = self.owner
        return self.cache[key]


# ---------------------------------------------------------------- the body rewrite


def _scalar_bytes(m: Module, type_id: int) -> int:
    """The largest scalar of a type, in bytes (the alignment of its place in a record)."""
    inst = m.defs[type_id]
    if inst.opname in ("OpTypeInt", "OpTypeFloat"):
        return inst.literal(0) // 8
    if inst.opname in ("OpTypeVector", "OpTypeMatrix", "OpTypeArray", "OpTypeRuntimeArray"):
        return _scalar_bytes(m, inst.literal(0))
    if inst.opname == "OpTypeStruct":
        return max((_scalar_bytes(m, o.value) for o in inst.operands), default=1)
    return 4


def translate(module: Module, nodes: list[NodeCode], graph_nodes=None) -> bytes:
    """The emulated module of `module` (see the module docstring). `graph_nodes` are the
    `NodeReflection`s of `nodes` (for the coalescing record count and the broadcasting grid)."""
    t = _Translator(module, nodes)
    m = module
    for inst in m.instructions:
        if inst.opname == "OpDecorate" and inst.operands[1].name in ("Coherent", "Volatile") \
                and inst.literal(0) not in t.coherent:
            raise t.fail(inst, f"a {inst.operands[1].name} {m.defs[inst.literal(0)].opname[2:].lower()}: the "
                         "emulated contract's Vulkan memory model has no such decoration, and the translation "
                         "makes availability explicit for buffers and node records only")
    # which entry points reach each function: their launch and output order must agree
    reach: dict[int, list[NodeCode]] = {}
    for node in nodes:
        for fn in reached_functions(m, node.function):
            reach.setdefault(fn, []).append(node)
    # the body rewrite
    bodies: list[list[int]] = []
    for fn, insts in m.functions.items():
        users = reach.get(fn, [])
        bodies.append(_rewrite_function(t, fn, insts, users))
    # wrappers
    wrapper_of: dict[int, int] = {}
    info = {id(n): g for n, g in zip(nodes, graph_nodes or [None] * len(nodes))}
    for node in sorted(nodes, key=lambda n: n.launch != "mesh"):     # mesh wrappers first (emulated.py says why)
        if node.function in wrapper_of:
            continue
        g = info[id(node)]
        max_records = g.input.max_records if g is not None and g.input is not None and g.input.max_records else 1
        grid = g.dispatch_grid if g is not None else None
        field = g.input.record.dispatch_grid if g is not None and g.input is not None and g.input.record else None
        if node.launch in ("broadcasting", "mesh") and grid is None and field is None:
            raise t.fail(None, f"entry point '{node.entry_point}': a broadcasting node without a grid")
        most = g.max_dispatch_grid if g is not None else None
        wrapper_of[node.function] = t.wrapper(node, max_records, grid, field, most)
    return _assemble(t, bodies, wrapper_of)


def _u32_operand(t: _Translator, words: list[int], value: int) -> int:
    """`value` as a u32 id (a bitcast of a signed 32-bit int)."""
    type_ = t.m.defs.get(value)
    type_id = type_.result_type if type_ is not None else None
    if type_id is not None and type_id != t.u32:
        ty = t.m.defs.get(type_id)
        if ty is not None and ty.opname == "OpTypeInt" and ty.literal(0) == 32:
            w, id_ = t.enc.encode("OpBitcast", t.u32, value)
            words.extend(w)
            return id_
    return value


def _rewrite_function(t: _Translator, fn: int, insts: list[Instruction], users: list[NodeCode]) -> list[int]:
    m = t.m
    out: list[int] = []
    allocations: dict[int, tuple[int, int, int]] = {}   # result -> (address, stride, payload array type)
    tokens: dict[int, int] = {}   # Function variable of a payload-array type -> the type
    launch = {u.launch for u in users}

    def output_index(inst: Instruction, array_type: int) -> int:
        indices = {tuple(u.outputs).index(array_type) if array_type in u.outputs else -1 for u in users}
        if len(indices) != 1 or -1 in indices:
            raise t.fail(inst, "a node operation on an output that the nodes reaching this function do not "
                         "all have at the same place")
        return indices.pop()

    def record_pointer(inst: Instruction, base: int) -> None:
        """An access chain into a payload array: the record's address, converted, then the rest."""
        ops = [o.value for o in inst.operands]
        index = ops[1] if len(ops) > 1 else t.uint(0)
        index = _u32_operand(t, out, index)
        if base in allocations:
            address, stride, array_type = allocations[base]
        else:
            words, address = t.enc.encode("OpLoad", t.u64, t.state("input_base")[0])
            out.extend(words)
            words, stride = t.enc.encode("OpLoad", t.u64, t.state("input_stride")[0])
            out.extend(words)
            array_type = m.defs[m.defs[base].result_type or 0].literal(1)
        for op, args in (("OpUConvert", (t.u64, index)),):
            words, wide = t.enc.encode(op, *args)
            out.extend(words)
        words, offset = t.enc.encode("OpIMul", t.u64, wide, stride)
        out.extend(words)
        words, at = t.enc.encode("OpIAdd", t.u64, address, offset)
        out.extend(words)
        record = m.defs[array_type].literal(0)
        rest = ops[2:]
        result_type = psb_type(inst)
        psb_values.add(inst.result)   # type: ignore[arg-type]
        if base in t.coherent:
            coherent.add(inst.result)   # type: ignore[arg-type]
        if not rest:
            out.extend(t.enc.encode("OpConvertUToPtr", result_type, at, result=inst.result)[0])
            return
        words, pointer = t.enc.encode("OpConvertUToPtr", t.psb(record), at)
        out.extend(words)
        out.extend(t.enc.encode(inst.opname, result_type, pointer, *rest, result=inst.result)[0])

    def psb_type(inst: Instruction) -> int:
        """The PhysicalStorageBuffer pointer type standing for an access chain's result type (a
        NodePayloadAMDX element pointer is one already; DXC's chains through a Function copy of a
        payload array have Function pointer types)."""
        if inst.result_type in t.element_pointers:
            return inst.result_type
        return t.psb(m.defs[inst.result_type or 0].literal(1))

    psb_values: set[int] = set()   # results that are PhysicalStorageBuffer pointers (record places)
    coherent: set[int] = set(t.coherent)   # pointers into memory of a Coherent variable
    copies: dict[int, int] = {}    # DXC: OpLoad of a whole payload array -> the allocation (or input) it read
    for inst in insts:
        name = inst.opname
        ids = inst.ids()
        if name == "OpVariable" and inst.result_type in t.array_pointers:
            tokens[inst.result] = m.defs[inst.result_type].literal(1)   # type: ignore[index]
            t.removed.add(inst.result)   # type: ignore[arg-type]  # (its name and decorations go too)
            continue
        if name == "OpLoad" and inst.result_type in t.payload_arrays and (
                inst.literal(0) in allocations or inst.literal(0) in t.input_vars):
            copies[inst.result] = inst.literal(0)   # type: ignore[index]
            continue
        if name == "OpStore" and inst.literal(0) in tokens and inst.literal(1) in copies:
            source = copies[inst.literal(1)]    # the Function variable stands for the payloads it holds
            if source in allocations:
                allocations[inst.literal(0)] = allocations[source]
            else:
                raise t.fail(inst, "a copy of the node's input payload array into a variable")
            continue
        if name in ("OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpCopyObject") \
                and inst.literal(0) in coherent:
            coherent.add(inst.result)   # type: ignore[arg-type]
        if name in ("OpAccessChain", "OpInBoundsAccessChain") and (
                inst.literal(0) in t.input_vars or inst.literal(0) in allocations):
            record_pointer(inst, inst.literal(0))
            continue
        if name in ("OpAccessChain", "OpInBoundsAccessChain", "OpCopyObject") and inst.literal(0) in psb_values:
            psb_values.add(inst.result)   # type: ignore[arg-type]
            out.extend(t.enc.encode(name, psb_type(inst), *(o.value for o in inst.operands), result=inst.result)[0])
            continue
        if name in ("OpAccessChain", "OpInBoundsAccessChain") and inst.literal(0) in t.privatized:
            pointee = m.defs[inst.result_type or 0].literal(1)
            out.extend(t.enc.encode(name, t.pointer("Private", pointee), *(o.value for o in inst.operands),
                                    result=inst.result)[0])
            continue
        if t.user_push is not None and t.user_push.result in ids:
            user = t.user_push.result
            if name in ("OpAccessChain", "OpInBoundsAccessChain") and inst.literal(0) == user:
                out.extend(t.enc.encode(name, inst.result_type, t.push_block(), t.uint(1),
                                        *(o.value for o in inst.operands[1:]), result=inst.result)[0])
                continue
            if name == "OpLoad" and inst.literal(0) == user:
                words, pointer = t.enc.encode("OpAccessChain", t.user_push.result_type, t.push_block(), t.uint(1))
                out.extend(words)
                words = list(inst.words)
                words[3] = pointer
                out.extend(words)
                continue
            raise t.fail(inst, f"{name} on the push-constant block (the translation follows it through access "
                         "chains and loads only)")
        if name == "OpAllocateNodePayloadsAMDX":
            scope = m.constant(inst.literal(0))
            array_type = m.defs[inst.result_type or 0].literal(1)
            param = output_index(inst, array_type)
            count = _u32_operand(t, out, inst.literal(1))
            index = _u32_operand(t, out, inst.literal(2))
            per_group = scope == grammar.enumerant("Scope", "Workgroup") and "thread" not in launch
            if per_group and len(launch) != 1:
                raise t.fail(inst, "a group-scope allocation in a function nodes of several launch modes reach")
            per_subgroup = not per_group and m.constant(inst.literal(2)) is not None
            words, pair = t.enc.encode("OpFunctionCall", t.type("OpTypeVector", t.u64, 2), t.allocate_function(),
                                       t.uint(param), index, count, t.uint(int(per_group)), t.uint(int(per_subgroup)))
            out.extend(words)
            words, address = t.enc.encode("OpCompositeExtract", t.u64, pair, 0)
            out.extend(words)
            words, stride = t.enc.encode("OpCompositeExtract", t.u64, pair, 1)
            out.extend(words)
            allocations[inst.result] = (address, stride, array_type)   # type: ignore[index]
            continue
        if name == "OpEnqueueNodePayloadsAMDX":
            if inst.literal(0) not in allocations:
                raise t.fail(inst, "OpEnqueueNodePayloadsAMDX of something other than an allocation's result")
            continue
        if name == "OpIsNodePayloadValidAMDX":
            target = inst.literal(0)
            array_type = tokens.get(target) or (target if target in t.payload_arrays else None)
            if array_type is None and target in allocations:
                array_type = allocations[target][2]
            if array_type is None:
                raise t.fail(inst, "OpIsNodePayloadValidAMDX of something that names no output")
            index = _u32_operand(t, out, inst.literal(1))
            out.extend(t.enc.encode("OpFunctionCall", inst.result_type, t.valid_function(),
                                    t.uint(output_index(inst, array_type)), index, result=inst.result)[0])
            continue
        if name == "OpNodePayloadArrayLengthAMDX":
            if inst.literal(0) not in t.input_vars:
                raise t.fail(inst, "OpNodePayloadArrayLengthAMDX of an output's records (only the input's is "
                             "translated)")
            if inst.result_type == t.u32:
                out.extend(t.enc.encode("OpLoad", t.u32, t.state("count")[0], result=inst.result)[0])
            else:
                words, value = t.enc.encode("OpLoad", t.u32, t.state("count")[0])
                out.extend(words)
                out.extend(t.enc.encode("OpBitcast", inst.result_type, value, result=inst.result)[0])
            continue
        if name == "OpExtInst" and inst.literal(0) in t.printf_sets and inst.literal(1) == 1:
            _rewrite_print(t, inst, out)
            continue
        if name == "OpFinishWritingNodePayloadAMDX":
            if inst.literal(0) not in t.input_vars:
                raise t.fail(inst, "OpFinishWritingNodePayloadAMDX of something other than the node's input")
            out.extend(t.enc.encode("OpFunctionCall", inst.result_type, t.finish_function(), result=inst.result)[0])
            continue
        bad = [i for i in ids if i in t.removed or i in allocations or i in tokens]
        if bad and name not in ("OpLoad", "OpStore") or (bad and name == "OpLoad" and inst.literal(0) in bad):
            raise t.fail(inst, f"{name} on a node payload array (the translation follows payload pointers through "
                         "access chains and node operations only)")
        if name in ("OpLoad", "OpStore") and bad:
            raise t.fail(inst, f"{name} of a node payload array")
        words = list(inst.words)
        if name in ("OpLoad", "OpStore"):
            pointer = inst.literal(0)
            ptype = (m.defs[pointer].result_type if pointer in m.defs else None)
            record = ptype in t.element_pointers or pointer in psb_values
            if record or pointer in coherent:
                accessed = m.defs[ptype or 0].literal(1)
                words = _with_memory_access(t, inst, _scalar_bytes(m, accessed) if record else None,
                                            pointer in coherent)
        words = _rewrite_scopes(t, inst, words)
        out.extend(words)
    return out


def _rewrite_print(t: _Translator, inst: Instruction, out: list[int]) -> None:
    """DebugPrintf(format, args...): its arguments as u32 words, then a call to `print<N>`."""
    ops = [o.value for o in inst.operands]
    text = t.strings.get(ops[2])
    if text is None:
        raise t.fail(inst, "a DebugPrintf whose format is not an OpString")
    kinds: list[str] = []
    strings: list[str] = []
    words: list[int] = []
    for arg in ops[3:]:
        if arg in t.strings:
            kinds.append("s")
            strings.append(t.strings[arg])
            continue
        kind, parts = _print_words(t, inst, out, arg)
        kinds.append(kind)
        words.extend(parts)
    format_id = t.print_format(text, kinds, strings)
    out.extend(t.enc.encode("OpFunctionCall", t.void, t.print_function(len(words)), t.uint(format_id), *words)[0])


def _print_words(t: _Translator, inst: Instruction, out: list[int], value: int) -> tuple[str, list[int]]:
    """(kind, u32 word ids) of a numeric printf argument, as `wgc.spirv.emulated_prints` makes
    them: bool 0/1, narrower values widened (floats to float32), 64-bit values split low word
    first, a vector component by component (its kind then ends with the count)."""
    m = t.m

    def emit(op: str, *operands: int) -> int:
        words, result = t.enc.encode(op, *operands)
        out.extend(words)
        return result

    defined = m.defs.get(value)
    type_ = m.defs.get(defined.result_type or 0) if defined is not None else None
    if type_ is None:
        raise t.fail(inst, "a printf argument without a type")
    components, scalar, count = [value], type_, ""
    if type_.opname == "OpTypeVector":
        scalar = m.defs[type_.literal(0)]
        count = str(type_.literal(1))
        components = [emit("OpCompositeExtract", scalar.result or 0, value, i) for i in range(type_.literal(1))]
    letter, parts = "", []
    for component in components:
        if scalar.opname == "OpTypeBool":
            letter = "b"
            parts.append(emit("OpSelect", t.u32, component, t.uint(1), t.uint(0)))
        elif scalar.opname in ("OpTypeInt", "OpTypeFloat") and scalar.literal(0) == 64:
            letter = "F" if scalar.opname == "OpTypeFloat" else "I" if scalar.literal(1) else "U"
            wide = emit("OpBitcast", t.u64, component) if letter != "U" else component
            parts += [emit("OpUConvert", t.u32, wide),
                      emit("OpUConvert", t.u32, emit("OpShiftRightLogical", t.u64, wide, t.uint(32, 64)))]
        elif scalar.opname == "OpTypeFloat":
            letter = "f"
            if scalar.literal(0) != 32:
                component = emit("OpFConvert", t.type("OpTypeFloat", 32), component)
            parts.append(emit("OpBitcast", t.u32, component))
        elif scalar.opname == "OpTypeInt":
            letter = "i" if scalar.literal(1) else "u"
            if scalar.literal(0) != 32:
                component = (emit("OpSConvert", t.type("OpTypeInt", 32, 1), component) if letter == "i"
                             else emit("OpUConvert", t.u32, component))
            parts.append(emit("OpBitcast", t.u32, component) if letter == "i" else component)
        else:
            raise t.fail(inst, f"a printf argument of type {type_.opname[6:]} (printf prints numbers, vectors of "
                         "numbers, bools and strings)")
    return letter + count, parts


def _with_memory_access(t: _Translator, inst: Instruction, align: int | None, coherent: bool) -> list[int]:
    """An OpLoad / OpStore with memory operands added: through a record pointer, Aligned and
    NonPrivatePointer; through memory of a Coherent variable (`globallycoherent`), NonPrivatePointer
    and MakePointerVisible (a load) or MakePointerAvailable (a store) at QueueFamily scope."""
    fixed = 3 if inst.opname == "OpLoad" else 2   # result type, result, pointer / pointer, object
    head = list(inst.words[:1 + fixed])
    rest = list(inst.words[1 + fixed:])
    mask = rest[0] if rest else 0
    kind = grammar.operand_kind("MemoryAccess")
    params: dict[int, list[int]] = {}
    at = 1
    for bit, enum in sorted(kind.by_value.items()):   # each set bit's parameters, lowest bit first
        if bit and mask & bit == bit:
            params[bit] = rest[at:at + len(enum.parameters)]
            at += len(enum.parameters)
    added = ["NonPrivatePointer"]
    if align is not None and not mask & grammar.mask("MemoryAccess", "Aligned"):
        params[grammar.mask("MemoryAccess", "Aligned")] = [align]
    if coherent:
        added.append("MakePointerVisible" if inst.opname == "OpLoad" else "MakePointerAvailable")
        params[grammar.mask("MemoryAccess", added[-1])] = [t.uint(_SCOPE_QUEUE_FAMILY)]
    mask |= grammar.mask("MemoryAccess", *added) | sum(params)
    words = head + [mask] + [w for bit in sorted(params) for w in params[bit]]
    words[0] = (len(words) << 16) | inst.opcode
    return words


def _rewrite_scopes(t: _Translator, inst: Instruction, words: list[int]) -> list[int]:
    """Device scope -> QueueFamily; semantics as the Vulkan memory model wants them (module docstring)."""
    info = grammar.instruction_by_opcode(inst.opcode)
    kinds = [o.kind for o in info.operands if o.kind not in ("IdResult", "IdResultType")]
    if not any(k in ("IdScope", "IdMemorySemantics") for k in kinds):
        return words
    skip = 1 + sum(1 for o in info.operands if o.kind in ("IdResult", "IdResultType"))
    words = list(words)
    barrier = inst.opname in ("OpControlBarrier", "OpMemoryBarrier")
    for i, op in enumerate(inst.operands):
        if i >= len(kinds):
            break
        position = skip + i
        if op.kind == "IdScope" and t.m.constant(op.value) == _SCOPE_DEVICE:
            words[position] = t.uint(_SCOPE_QUEUE_FAMILY)
        elif op.kind == "IdMemorySemantics":
            value = t.m.constant(op.value)
            if value is None:
                raise t.fail(inst, "memory semantics that are not a constant")
            new = value
            if new & _OUTPUT_MEMORY:
                new = (new & ~_OUTPUT_MEMORY) | _UNIFORM_MEMORY
            if new & _SEQ_CST:
                new = (new & ~_SEQ_CST) | _ACQ_REL
            if barrier and new & _STORAGE:
                new |= _AVAILABLE_VISIBLE | (0 if new & _ORDERING else _ACQ_REL)
            if new != value:
                words[position] = t.uint(new)
    return words


# ---------------------------------------------------------------- the module


def _drop_decoration(t: _Translator, inst: Instruction) -> bool:
    if inst.opname in ("OpDecorate", "OpDecorateId", "OpDecorateString"):
        target, deco = inst.literal(0), inst.operands[1].name or ""
        return (target in t.removed or deco.endswith("AMDX") or (target in t.privatized and deco == "BuiltIn")
                or (target in t.coherent and deco == "Coherent")
                or (target == t.user_pointee() and deco == "Block"))
    if inst.opname in ("OpMemberDecorate", "OpMemberDecorateString"):
        return (inst.operands[2].name or "").endswith("AMDX") or inst.literal(0) in t.removed
    return False


def _assemble(t: _Translator, bodies: list[list[int]], wrapper_of: dict[int, int]) -> bytes:
    m = t.m
    caps: list[int] = []
    section: dict[str, list[int]] = {k: [] for k in ("ext", "import", "entry", "mode", "debug", "annotation", "global")}
    amdx_cap = grammar.enumerant("Capability", "ShaderEnqueueAMDX")
    for inst in m.instructions:
        name = inst.opname
        if name == "OpCapability":
            if inst.literal(0) != amdx_cap and inst.literal(0) not in caps:
                caps.append(inst.literal(0))
        elif name == "OpExtension":
            if inst.literal(0) != "SPV_AMDX_shader_enqueue":
                section["ext"].extend(inst.words)
        elif name == "OpExtInstImport":
            section["import"].extend(inst.words)
        elif name in ("OpMemoryModel", "OpEntryPoint", "OpExecutionMode", "OpExecutionModeId"):
            pass
        elif name in ("OpName", "OpMemberName"):
            if inst.literal(0) not in t.removed:
                section["debug"].extend(inst.words)
        elif name in ("OpString", "OpSource", "OpSourceExtension", "OpSourceContinued", "OpModuleProcessed"):
            section["debug"].extend(inst.words)
        elif grammar.instruction_by_opcode(inst.opcode).category == "Annotation":
            if not _drop_decoration(t, inst):
                section["annotation"].extend(inst.words)
        elif name == "OpFunction":
            break
        elif inst.result in t.removed:
            continue
        elif name == "OpTypeFunction" and any(i in t.removed for i in inst.ids()):
            if any(f.operands[1].value == inst.result for f in m.instructions if f.opname == "OpFunction"):
                raise t.fail(inst, "a function taking a node payload pointer (the translation needs node "
                             "operations in the node's own function or functions without such parameters)")
            continue
        elif name == "OpTypePointer" and inst.result in t.element_pointers:
            section["global"].extend(t.enc.encode("OpTypePointer", "PhysicalStorageBuffer", inst.literal(1),
                                                  result=inst.result)[0])
        elif name == "OpVariable" and inst.result in t.privatized:
            pointee = m.defs[inst.result_type or 0].literal(1)
            pointer = t.pointer("Private", pointee)
            t.deferred.setdefault(inst.result, (pointer, inst.result))
        else:
            section["global"].extend(inst.words)
    # privatized built-ins are declared after the new pointer types they need
    deferred = list(t.deferred.values())
    entries: list[int] = []
    modes: list[int] = []
    for entry in m.entry_points:
        fn = wrapper_of.get(entry.function)
        if fn is None:
            if entry.model == "Fragment":      # a pixel shader beside mesh nodes: kept as it is
                entries.extend(t.enc.encode("OpEntryPoint", "Fragment", entry.function, entry.name,
                                            *entry.interface)[0])
                for inst in m.execution_modes.get(entry.function, ()):
                    modes.extend(inst.words)
            continue
        own = {t.kind_of.get(v) for v in t.new_interface if t.owned.get(v) == entry.function}
        mine = [v for v in t.new_interface if t.owned.get(v) == entry.function
                or (v not in t.owned and (t.kind_of.get(v) is None or t.kind_of[v] not in own))]
        interface = [i for i in entry.interface if i not in t.removed] + mine \
            + [v for _, v in deferred if v not in entry.interface]
        interface = list(dict.fromkeys(interface))
        entries.extend(t.enc.encode("OpEntryPoint", "MeshEXT" if entry.model == "MeshEXT" else "GLCompute", fn,
                                    entry.name, *interface)[0])
        launch = next((n.launch for n in t.nodes if n.function == entry.function), "broadcasting")
        for inst in m.execution_modes.get(entry.function, ()):
            mode = inst.operands[1].name or ""
            if mode.endswith("AMDX"):
                continue
            if launch == "thread" and mode in ("LocalSize", "LocalSizeId"):
                modes.extend(t.enc.encode("OpExecutionMode", fn, "LocalSize", abi.THREAD_GROUP_SIZE, 1, 1)[0])
                continue
            words = list(inst.words)
            words[1] = fn
            modes.extend(words)
    for cap_name in ("Shader", "Int64", "PhysicalStorageBufferAddresses", "VulkanMemoryModel", "GroupNonUniform",
                "GroupNonUniformArithmetic", "GroupNonUniformBallot"):
        value = grammar.enumerant("Capability", cap_name)
        if value not in caps:
            caps.append(value)
    out: list[int] = [grammar.magic_number(), (1 << 16) | (6 << 8), m.generator, 0, 0]
    for cap in caps:
        out += t.enc.encode("OpCapability", cap)[0]
    out += section["ext"] + section["import"]
    out += t.enc.encode("OpMemoryModel", "PhysicalStorageBuffer64", "Vulkan")[0]
    out += entries + modes
    for words in t.debug_strings:
        out += words
    out += section["debug"] + section["annotation"]
    for words in t.annotations:
        out += words
    out += section["global"]
    for words in t.globals:
        out += words
    for pointer, var in deferred:
        out += t.enc.encode("OpVariable", pointer, "Private", result=var)[0]
    for words in bodies:
        out += words
    for words in t.helpers:
        out += words
    out[3] = t.enc.bound
    return struct.pack(f"<{len(out)}I", *out)
