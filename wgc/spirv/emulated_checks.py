"""The emulated target's run-time checks (`wgc run --check`; SPIR-V back end).

Input: a `FunctionLowering` of a module compiled with `LowerOptions.checks` (emulated target only),
and the accesses the lowering is about to make: buffer elements (`resources._buffer_place`), input
records of a coalescing node (`emulated.record_place`), output allocations and increments
(`emulated.allocate`, `increment_output_count`).
Output: instructions that test each access and, where it is wrong, write a report to the run's
report buffer, by the contract in `wgc.emulation_abi` ("Check reports": its layout, kinds and the
meaning of each field).  The access itself is left as it is (a store past a buffer's end is still
dropped by the device), so a module with checks computes what one without them computes.

Invariants and decisions:
- Nothing here is emitted unless `checks` is on: a plain module is unchanged, byte for byte.
- A report names its place by the `OpString` of the source file (the module has line info:
  `wgc run --check` compiles with it) and the line and column of the innermost statement being
  lowered (`FunctionLowering.current_span`).
- The report buffer's slot comes from one atomic add on its `count`; a slot at or past its
  `capacity` is not written (the runtime reports the overflow).
- MaxRecords is counted per thread group and output: a Workgroup counter per output that invocation
  0 zeroes in the prologue (then a workgroup barrier: the whole group is past the prologue's exits),
  or, in thread launch where each invocation is its own group, a Function variable.  A group-scope
  call adds its count once (invocation 0), a thread-scope call each invocation's own; the report is
  made by the call that goes past the limit (once per group and output).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wgc import emulation_abi as abi
from wgc import types as t
from wgc.sema.nodes import NodeInfo, NodeOutput

from .emulated_memory import builtin as _builtin
from .emulated_memory import load_field as _load
from .emulated_memory import offset as _offset
from .emulated_memory import pointer as _pointer
from .places import Place

if TYPE_CHECKING:
    from .lower import FunctionLowering

_U64 = t.UINT64


def enabled(fl: FunctionLowering) -> bool:
    return fl.ml.options.checks


# ---------------------------------------------------------------- the checks


def buffer_index(fl: FunctionLowering, set_: int, binding: int, length: int, index: int) -> None:
    """Report CHECK_BUFFER_INDEX where `index` >= `length` (u32 ids: the element and OpArrayLength)."""
    outside = fl.b.emit("OpUGreaterThanEqual", fl.b.type_bool(), index, length)
    _report(fl, abi.CHECK_BUFFER_INDEX, outside, index, length, fl.uint((set_ << 16) | (binding & 0xFFFF)))


def texel_index(fl: FunctionLowering, set_: int, binding: int, size: int, coordinate: int, count: int) -> None:
    """Report CHECK_TEXEL_INDEX where a component of `coordinate` (`count` u32 components) is at or
    past the same component of `size` (the image's size query): the first such component."""
    b = fl.b
    uint, boolean = fl.types.id(t.UINT), b.type_bool()

    def part(vector: int, i: int, type_: int) -> int:
        return vector if count == 1 else b.emit("OpCompositeExtract", type_, vector, i)

    outside, value, limit, component = b.constant_bool(False), fl.uint(0), fl.uint(0), fl.uint(0)
    for i in reversed(range(count)):               # the first component past its size wins
        coord = part(coordinate, i, uint)
        bound = part(size, i, uint)
        past = b.emit("OpUGreaterThanEqual", boolean, coord, bound)
        value = b.emit("OpSelect", uint, past, coord, value)
        limit = b.emit("OpSelect", uint, past, bound, limit)
        component = b.emit("OpSelect", uint, past, fl.uint(i), component)
        outside = b.emit("OpLogicalOr", boolean, outside, past)
    detail = b.emit("OpBitwiseOr", uint, fl.uint((set_ << 16) | (binding & 0xFFF)),
                    b.emit("OpShiftLeftLogical", uint, component, fl.uint(12)))
    _report(fl, abi.CHECK_TEXEL_INDEX, outside, value, limit, detail)


def input_index(fl: FunctionLowering, state: Any, index: int) -> None:
    """Report CHECK_INPUT_INDEX where a coalescing node reads input record `index` >= Count()."""
    outside = fl.b.emit("OpUGreaterThanEqual", fl.b.type_bool(), index, state.count)
    _report(fl, abi.CHECK_INPUT_INDEX, outside, index, state.count, fl.uint(0))


MAX_COUNTED_ARRAY = 64
"""Node arrays up to this size get a MaxRecordsPerNode counter per element."""


def _per_node(output: NodeOutput) -> int:
    """The elements of `output` counted against MaxRecordsPerNode (0: not counted)."""
    if not output.is_array or output.max_records_per_node is None or not output.array_size:
        return 0
    return output.array_size if output.array_size <= MAX_COUNTED_ARRAY else 0


def begin_entry(fl: FunctionLowering, node: NodeInfo) -> dict[int, Place]:
    """The per-group counters of `node`'s outputs, zeroed (called at the end of the prologue): output
    index -> its MaxRecords counter, and -(1 + output index) -> its MaxRecordsPerNode counters (an
    array of a counter per element, for arrays of known size up to MAX_COUNTED_ARRAY)."""
    counters: dict[int, Place] = {}
    b = fl.b
    wanted: list[tuple[int, t.Type]] = [(o.index, t.UINT) for o in node.outputs if o.max_records is not None]
    wanted += [(-1 - o.index, t.array(t.UINT, _per_node(o))) for o in node.outputs if _per_node(o)]
    if not wanted:
        return counters
    for key, type_ in wanted:
        if node.launch == "thread":
            counters[key] = fl.local(type_, f"check_records_{key}")
        else:
            var = b.variable(b.type_pointer("Workgroup", fl.types.id(type_)), "Workgroup")
            b.name(var, f"check_records_{key}")
            fl.use_global(var)
            counters[key] = Place(var, type_, "Workgroup")
    if node.launch == "thread":
        for counter in counters.values():
            b.emit("OpStore", counter.pointer, b.constant_null(fl.types.id(counter.type)))
        return counters
    first = b.emit("OpIEqual", b.type_bool(), _builtin(fl, "LocalInvocationIndex", 1), fl.uint(0))
    zero, done = b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", done, "None")
    b.emit("OpBranchConditional", first, zero, done)
    fl.new_block(zero)
    for counter in counters.values():
        b.emit("OpStore", counter.pointer, b.constant_null(fl.types.id(counter.type)))
    b.emit("OpBranch", done)
    fl.new_block(done)
    scope = fl.ml.scope("Workgroup")
    b.emit("OpControlBarrier", scope, scope, fl.ml.barrier_semantics("WorkgroupMemory"))
    return counters


def max_records(fl: FunctionLowering, state: Any, output: NodeOutput, count: int, scope: str,
                node_index: int | None = None) -> None:
    """Count `count` records of a group-scope (`scope` Workgroup) or thread-scope call on `output`
    against its MaxRecords, and on element `node_index` (u32 id) of a node array against its
    MaxRecordsPerNode; report CHECK_MAX_RECORDS / CHECK_MAX_RECORDS_PER_NODE where this call goes
    past either."""
    counters = state.check_counters or {}
    counter = counters.get(output.index)
    if counter is not None and output.max_records is not None:
        _count_against(fl, state, counter.pointer, count, scope, output.max_records, abi.CHECK_MAX_RECORDS,
                       fl.uint(output.index))
    elements = counters.get(-1 - output.index)
    if elements is None or node_index is None or output.max_records_per_node is None:
        return
    b = fl.b
    boolean = b.type_bool()
    size = _per_node(output)
    inside, count_it, done = b.emit("OpULessThan", boolean, node_index, fl.uint(size)), b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", done, "None")
    b.emit("OpBranchConditional", inside, count_it, done)
    fl.new_block(count_it)
    element = b.emit("OpAccessChain", b.type_pointer(elements.storage, fl.types.id(t.UINT)), elements.pointer,
                     node_index)
    detail = b.emit("OpBitwiseOr", fl.types.id(t.UINT), fl.uint(output.index),
                    b.emit("OpShiftLeftLogical", fl.types.id(t.UINT), node_index, fl.uint(16)))
    _count_against(fl, state, element, count, scope, output.max_records_per_node, abi.CHECK_MAX_RECORDS_PER_NODE,
                   detail)
    b.emit("OpBranch", done)
    fl.new_block(done)


def _count_against(fl: FunctionLowering, state: Any, pointer: int, count: int, scope: str, bound: int, kind: int,
                   detail: int) -> None:
    """Add `count` to the group's counter at `pointer` (once per group for a group-scope call) and
    report `kind` where this call takes it past `bound`."""
    b = fl.b
    uint, boolean = fl.types.id(t.UINT), b.type_bool()
    counter = Place(pointer, t.UINT, "Function" if state.node.launch == "thread" else "Workgroup")
    limit = fl.uint(bound)
    if state.node.launch == "thread":
        old = fl.load(counter)
        fl.store(counter, b.emit("OpIAdd", uint, old, count))
        counts = b.constant_bool(True)
    else:
        counts = b.constant_bool(True)
        if scope == "Workgroup":
            counts = b.emit("OpIEqual", boolean, _builtin(fl, "LocalInvocationIndex", 1), fl.uint(0))
        old_var = fl.local(t.UINT, "check_old")
        fl.store(old_var, limit)                    # no report where this invocation adds nothing
        add, done = b.new_id(), b.new_id()
        b.emit("OpSelectionMerge", done, "None")
        b.emit("OpBranchConditional", counts, add, done)
        fl.new_block(add)
        fl.store(old_var, b.emit("OpAtomicIAdd", uint, counter.pointer, fl.ml.scope("Workgroup"),
                                 fl.ml.semantics(), count))
        b.emit("OpBranch", done)
        fl.new_block(done)
        old = fl.load(old_var)
    total = b.emit("OpIAdd", uint, old, count)
    crossed = b.emit("OpLogicalAnd", boolean, b.emit("OpULessThanEqual", boolean, old, limit),
                     b.emit("OpUGreaterThan", boolean, total, limit))
    _report(fl, kind, b.emit("OpLogicalAnd", boolean, counts, crossed), total, limit, detail)


# ---------------------------------------------------------------- record contents


def _words(output: NodeOutput) -> bool:
    """Whether `output`'s records are poisoned and scanned: sizes and alignments of whole words."""
    layout = output.layout
    return layout is not None and layout.size > 0 and layout.size % 4 == 0 and layout.alignment % 4 == 0


def poison(fl: FunctionLowering, state: Any, output: NodeOutput, records: int, stride: int, count: int,
           scope: str) -> None:
    """Fill the `count` records just allocated at `records` (u64; `stride` u64 bytes apart) with
    CHECK_POISON, and remember the allocation for `output_complete`; for a group-scope call of a
    group of several threads invocation 0 fills them, then a barrier."""
    if not _words(output):
        return
    b = fl.b
    uint, u64, boolean = fl.types.id(t.UINT), fl.types.id(_U64), b.type_bool()
    if state.check_allocations is None:
        state.check_allocations = {}
    state.check_allocations[records] = (output, count, scope, stride)
    per_group = scope == "Workgroup" and state.node.launch != "thread"
    words = b.emit("OpIMul", uint, count, b.emit("OpUConvert", uint, b.emit("OpShiftRightLogical", u64, stride,
                                                                            b.constant_uint(2, 64))))
    fill, done = b.new_id(), b.new_id()
    first = b.constant_bool(True)
    if per_group:
        first = b.emit("OpIEqual", boolean, _builtin(fl, "LocalInvocationIndex", 1), fl.uint(0))
    b.emit("OpSelectionMerge", done, "None")
    b.emit("OpBranchConditional", first, fill, done)
    fl.new_block(fill)

    def store(word: int) -> None:
        at = b.emit("OpIAdd", u64, records, b.emit("OpUConvert", u64, b.emit("OpShiftLeftLogical", uint, word,
                                                                              fl.uint(2))))
        b.emit("OpStore", _pointer(fl, at, t.UINT), fl.uint(abi.CHECK_POISON), "Aligned|NonPrivatePointer", 4)

    _loop(fl, words, store)
    b.emit("OpBranch", done)
    fl.new_block(done)
    if per_group:
        _memory_barrier(fl)


def output_complete(fl: FunctionLowering, state: Any, records: int) -> None:
    """At OutputComplete() of the allocation whose records are at `records`: report each record that
    still holds CHECK_POISON in every word (CHECK_UNWRITTEN_RECORD)."""
    allocation = (state.check_allocations or {}).get(records)
    if allocation is None:
        return
    output, count, scope, stride = allocation
    b = fl.b
    uint, u64, boolean = fl.types.id(t.UINT), fl.types.id(_U64), b.type_bool()
    per_group = scope == "Workgroup" and state.node.launch != "thread"
    if per_group:
        _memory_barrier(fl)
    assert output.layout is not None
    words = output.layout.size // 4
    scan, done = b.new_id(), b.new_id()
    first = b.emit("OpINotEqual", boolean, stride, b.constant_uint(0, 64))   # 0: the scratch record
    if per_group:
        first = b.emit("OpLogicalAnd", boolean, first,
                       b.emit("OpIEqual", boolean, _builtin(fl, "LocalInvocationIndex", 1), fl.uint(0)))
    b.emit("OpSelectionMerge", done, "None")
    b.emit("OpBranchConditional", first, scan, done)
    fl.new_block(scan)
    untouched = fl.local(t.BOOL, "check_untouched")

    def record(k: int) -> None:
        base = b.emit("OpIAdd", u64, records, b.emit("OpIMul", u64, b.emit("OpUConvert", u64, k), stride))
        fl.store(untouched, b.constant_bool(True))

        def word(w: int) -> None:
            at = b.emit("OpIAdd", u64, base, b.emit("OpUConvert", u64, b.emit("OpShiftLeftLogical", uint, w,
                                                                               fl.uint(2))))
            value = b.emit("OpLoad", uint, _pointer(fl, at, t.UINT), "Aligned|NonPrivatePointer", 4)
            fl.store(untouched, b.emit("OpLogicalAnd", boolean, fl.load(untouched),
                                       b.emit("OpIEqual", boolean, value, fl.uint(abi.CHECK_POISON))))

        _loop(fl, fl.uint(words), word)
        _report(fl, abi.CHECK_UNWRITTEN_RECORD, fl.load(untouched), k, count, fl.uint(output.index))

    _loop(fl, count, record)
    b.emit("OpBranch", done)
    fl.new_block(done)


def record_load(fl: FunctionLowering, place: Any, value: int) -> None:
    """After a load through `place`: where it reads the node's input record (a pointer `record_place`
    made) as a 32-bit scalar or vector, report a word holding CHECK_POISON."""
    state = fl.node_state
    if place.pointer not in (getattr(state, "check_inputs", None) or ()):
        return
    type_ = place.type
    scalar = t.element_scalar(type_)
    count = (t.component_count(type_) or 1) if isinstance(type_, t.VectorType) else 1
    if (scalar is None or scalar.bits != 32 or scalar.kind not in (t.ScalarKind.INT, t.ScalarKind.UINT,
                                                                   t.ScalarKind.FLOAT)
            or not isinstance(type_, (t.ScalarType, t.VectorType))):
        return
    b = fl.b
    uint, boolean = fl.types.id(t.UINT), b.type_bool()
    bits = value
    if scalar.kind is not t.ScalarKind.UINT:
        bits = b.emit("OpBitcast", fl.types.id(t.UINT if count == 1 else t.vector(t.UINT, count)), value)
    poisoned, word = b.constant_bool(False), fl.uint(0)
    for i in range(count):
        part = bits if count == 1 else b.emit("OpCompositeExtract", uint, bits, i)
        hit = b.emit("OpIEqual", boolean, part, fl.uint(abi.CHECK_POISON))
        word = b.emit("OpSelect", uint, hit, part, word)
        poisoned = b.emit("OpLogicalOr", boolean, poisoned, hit)
    _report(fl, abi.CHECK_UNINITIALISED_READ, poisoned, word, fl.uint(0), fl.uint(0))


def allocated(fl: FunctionLowering, state: Any, output: NodeOutput, records: int, scope: str) -> None:
    """An allocation whose records are at `records` was made: it is pending until its OutputComplete()."""
    b = fl.b
    var = b.local_variable(b.type_pointer("Function", b.type_bool()), b.constant_bool(False))
    b.name(var, f"check_pending_{output.index}")
    flag = Place(var, t.BOOL, "Function")
    fl.store(flag, b.constant_bool(True))
    if state.check_pending is None:
        state.check_pending = {}
    state.check_pending[records] = (flag, getattr(fl, "current_span", None), output, scope)


def completed(fl: FunctionLowering, state: Any, records: int) -> None:
    pending = (state.check_pending or {}).get(records)
    if pending is not None:
        fl.store(pending[0], fl.b.constant_bool(False))


def before_return(fl: FunctionLowering) -> None:
    """Before the entry function returns: report each allocation still pending (CHECK_NOT_COMPLETED),
    at its own line; a group-scope one once per group (invocation 0)."""
    state: Any = fl.node_state
    pending = getattr(state, "check_pending", None)
    if not pending:
        return
    b = fl.b
    boolean = b.type_bool()
    here = fl.current_span
    for flag, span, output, scope in list(pending.values()):
        condition = fl.load(flag)
        if scope == "Workgroup" and state.node.launch != "thread":
            condition = b.emit("OpLogicalAnd", boolean, condition,
                               b.emit("OpIEqual", boolean, _builtin(fl, "LocalInvocationIndex", 1), fl.uint(0)))
        fl.current_span = span
        _report(fl, abi.CHECK_NOT_COMPLETED, condition, fl.uint(0), fl.uint(0), fl.uint(output.index))
    fl.current_span = here


def _loop(fl: FunctionLowering, count: int, body: Any) -> None:
    """for (i = 0; i < count; i++) body(i): a structured loop (u32 ids)."""
    b = fl.b
    uint, boolean = fl.types.id(t.UINT), b.type_bool()
    counter = fl.local(t.UINT, "check_i")
    fl.store(counter, fl.uint(0))
    header, test, inside, step, merge = (b.new_id() for _ in range(5))
    b.emit("OpBranch", header)
    fl.new_block(header)
    b.emit("OpLoopMerge", merge, step, "None")
    b.emit("OpBranch", test)
    fl.new_block(test)
    index = fl.load(counter)
    b.emit("OpBranchConditional", b.emit("OpULessThan", boolean, index, count), inside, merge)
    fl.new_block(inside)
    body(index)
    b.emit("OpBranch", step)
    fl.new_block(step)
    fl.store(counter, b.emit("OpIAdd", uint, fl.load(counter), fl.uint(1)))
    b.emit("OpBranch", header)
    fl.new_block(merge)


def _memory_barrier(fl: FunctionLowering) -> None:
    """A workgroup barrier that orders record memory (UniformMemory) between the group's invocations."""
    scope = fl.ml.scope("Workgroup")
    fl.b.emit("OpControlBarrier", scope, scope, fl.ml.barrier_semantics("UniformMemory"))


# ---------------------------------------------------------------- the report


def _report(fl: FunctionLowering, kind: int, condition: int, value: int, limit: int, detail: int,
            *, record: int | None = None) -> None:
    """Where `condition` holds, append a report (emulation_abi: CHECK_REPORT) to the buffer."""
    b = fl.b
    uint, u64, boolean = fl.types.id(t.UINT), fl.types.id(_U64), b.type_bool()
    span = getattr(fl, "current_span", None)
    file, line, column = 0, 0, 0
    if span is not None:
        line, column = span.line_col
        file = fl.ml.file_string(span.file.path)
    state = fl.node_state
    flat = getattr(state, "flat", None)
    if record is None:
        record = getattr(state, "record", None) if flat is not None else None
    write, done = b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", done, "None")
    b.emit("OpBranchConditional", condition, write, done)
    fl.new_block(write)
    context = fl.ml.nodes.context_address(fl)   # type: ignore[attr-defined]
    if flat is None:
        flat = _flat_group(fl, context)
    buffer = _load(fl, context, abi.NODE_CONTEXT["checks"])
    slot = b.emit("OpAtomicIAdd", uint, _pointer(fl, buffer, t.UINT), fl.ml.scope("Device"), fl.ml.semantics(),
                  fl.uint(1))
    capacity = _load(fl, buffer, (4, 4))
    room = b.emit("OpULessThan", boolean, slot, capacity)
    fits, skip = b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", skip, "None")
    b.emit("OpBranchConditional", room, fits, skip)
    fl.new_block(fits)
    at = b.emit("OpIAdd", u64, buffer, b.emit("OpIMul", u64, b.emit("OpUConvert", u64, slot),
                                                b.constant_uint(abi.CHECK_REPORT_SIZE, 64)))
    at = b.emit("OpIAdd", u64, at, b.constant_uint(abi.CHECKS_HEADER_SIZE, 64))
    fields = {"kind": fl.uint(kind), "file": fl.uint(file), "line": fl.uint(line), "column": fl.uint(column),
              "group": flat, "thread": _builtin(fl, "LocalInvocationIndex", 1),
              "record": record if record is not None else fl.uint(abi.CHECK_NO_RECORD),
              "value": value, "limit": limit, "detail": detail, "context": context}
    for name, id_ in fields.items():
        offset, size = abi.CHECK_REPORT[name]
        scalar = _U64 if size == 8 else t.UINT
        b.emit("OpStore", _pointer(fl, _offset(fl, at, offset), scalar), id_, "Aligned", size)
    b.emit("OpBranch", skip)
    fl.new_block(skip)
    b.emit("OpBranch", done)
    fl.new_block(done)


def _flat_group(fl: FunctionLowering, context: int) -> int:
    """The flat group index (emulation_abi) outside the entry function's prologue."""
    b = fl.b
    uint = fl.types.id(t.UINT)
    group, groups = _builtin(fl, "WorkgroupId", 3), _builtin(fl, "NumWorkgroups", 3)
    x, y, z = (b.emit("OpCompositeExtract", uint, group, i) for i in range(3))
    nx, ny = (b.emit("OpCompositeExtract", uint, groups, i) for i in range(2))
    offset = _load(fl, context, abi.NODE_CONTEXT["group_offset"])
    return b.emit("OpIAdd", uint, offset, b.emit("OpIAdd", uint, x, b.emit(
        "OpIMul", uint, nx, b.emit("OpIAdd", uint, y, b.emit("OpIMul", uint, ny, z)))))