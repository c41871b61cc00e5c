"""The level tail of the emulated target's compute entry points (emulation ABI 11, "Level tail").

Stage:      back end (emulated SPIR-V), shared by both generators of emulated modules:
            `wgc/spirv/emulated.py` (from wgc's IR) and `wgc/spirv_in/translate.py` (from an AMDX
            module), each through a small `Emitter` over its own builder.
Input:      an `Emitter` positioned in an open block of an entry function, just after the call of
            the node's own entry function (so every invocation of the workgroup is there, whatever
            exit it took), and the ids of the NodeContext address (u64) and LocalInvocationIndex.
Output:     the tail's instructions; the emitter is left in an open block (the caller returns).
            Where NodeContext's `level` is 0 (a uniform condition: one NodeContext per dispatch)
            the tail does nothing, not even its barrier; nor where the specialization constant
            `abi.LEVEL_TAIL_SPEC_ID` is false (a constant condition: a pipeline the runtime makes for
            dispatches without a tail holds neither its barriers nor its Workgroup words).
Invariants: the tail reads and writes only what `wgc.emulation_abi` names (`LEVEL`,
            `LEVEL_LAUNCH`, `LEVEL_FIX`, NodeContext `input_count`, OutputSlot `capacity`), with the
            arithmetic of the runtime's meta shader (`wgc/runtime/indirect_setup.py`); atomics and
            barriers at QueueFamily scope; every load and store through a physical pointer carries
            `Aligned` and `NonPrivatePointer`; the control flow is structured (selections and loops
            with their merge instructions), so the same words validate in both generators.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from wgc import emulation_abi as abi
from wgc import types as t

from . import grammar, resources

if TYPE_CHECKING:
    from .lower import ModuleLowering

_ACCESS = "Aligned|NonPrivatePointer"
assert all(abi.LEVEL_GRID_LAUNCH[name] == abi.LEVEL_LAUNCH[name] for name in ("source", "context", "indirect", "fixes"))


class Emitter(Protocol):
    """What the tail needs of a generator: instructions into its current function."""

    u32: int
    u64: int
    bool_: int

    def emit(self, op: str, *operands: Any, result: int | None = None) -> int:
        """An instruction in the current block (result type first), its result id (`result`: a
        reserved one)."""

    def label(self, id_: int) -> None:
        """Start block `id_` (the previous one is terminated)."""

    def new_id(self) -> int: ...

    def uint(self, value: int, bits: int = 32) -> int:
        """An unsigned integer constant of `bits` (32 or 64)."""

    def psb(self, type_: int) -> int:
        """The PhysicalStorageBuffer pointer type to `type_`."""

    def f32_type(self) -> int:
        """The 32-bit float type (declared where first asked for)."""

    def workgroup_word(self, name: str) -> int:
        """A Workgroup u32 variable of the tail's (`name`: one per name), listed by the entry point."""

    def tail_switch(self) -> int:
        """The module's bool specialization constant `abi.LEVEL_TAIL_SPEC_ID` (`OpSpecConstantTrue`),
        declared once per module."""


def emit_tail(e: Emitter, context: int, local_index: int, group_size: int) -> None:
    """The tail (module docstring; the contract is in `wgc.emulation_abi`, "Level tail"); `group_size`
    is at most the workgroup's invocations (invocations past it set nothing up)."""
    workgroup = e.uint(grammar.enumerant("Scope", "Workgroup"))
    queue = e.uint(grammar.enumerant("Scope", "QueueFamily"))
    device_wide = e.uint(grammar.mask("MemorySemantics", "AcquireRelease", "UniformMemory", "WorkgroupMemory",
                                      "MakeAvailable", "MakeVisible"))
    relaxed = e.uint(0)
    last_var, total_var = e.workgroup_word("tail_last"), e.workgroup_word("tail_total")
    level = _load(e, context, abi.NODE_CONTEXT["level"])
    counts, end = e.new_id(), e.new_id()
    # false where the runtime specialises the pipeline for dispatches that never run a tail: the
    # pipeline's compiler folds the branch away, and with it the barriers and the Workgroup words
    has_level = e.emit("OpLogicalAnd", e.bool_, e.tail_switch(), e.emit("OpINotEqual", e.bool_, level, e.uint(0, 64)))
    e.emit("OpSelectionMerge", end, "None")         # uniform: one NodeContext per dispatch
    e.emit("OpBranchConditional", has_level, counts, end)
    e.label(counts)
    # the level's own fields, which the host wrote before the run, are read while the group waits
    # for the barrier and its count: on a GPU each load a set-up makes after it is a round trip
    names = ("launches", "grid_launches", "launch_count", "grid_count", "next")
    table, grid_table, launch_count, grid_count, following = (_load(e, level, abi.LEVEL[name]) for name in names)
    step = e.uint(group_size)
    start = e.emit("OpSelect", e.u32, e.emit("OpULessThan", e.bool_, local_index, step), local_index, e.uint(_NONE))
    first_launch = _launch_fields(e, table, start, launch_count, context)
    e.emit("OpControlBarrier", workgroup, queue, device_wide)
    first = e.emit("OpIEqual", e.bool_, local_index, e.uint(0))
    done = e.emit("OpConvertUToPtr", e.psb(e.u32), _address(e, level, abi.LEVEL["done"][0]))

    def count(_: int) -> None:
        old = e.emit("OpAtomicIAdd", e.u32, done, queue, e.uint(grammar.mask(
            "MemorySemantics", "AcquireRelease", "UniformMemory", "MakeAvailable", "MakeVisible")), e.uint(1))
        expected = _load(e, level, abi.LEVEL["expected"])
        last = e.emit("OpIEqual", e.bool_, e.emit("OpIAdd", e.u32, old, e.uint(1)), expected)
        e.emit("OpAtomicStore", last_var, workgroup, relaxed, e.emit("OpSelect", e.u32, last, e.uint(1), e.uint(0)))
        e.emit("OpAtomicStore", total_var, workgroup, relaxed, e.uint(0))

    _if(e, first, count)
    e.emit("OpControlBarrier", workgroup, queue, device_wide)     # what invocation 0 acquired, to every invocation
    is_last = e.emit("OpINotEqual", e.bool_, e.emit("OpAtomicLoad", e.u32, last_var, workgroup, relaxed), e.uint(0))

    def set_up(block: int) -> None:
        plain, after = _loop(e, launch_count, block, lambda i, b, _, fields: _set_up(e, fields, b), start, step,
                             (first_launch, lambda i: _launch_fields(e, table, i, launch_count, context)))
        gridded, _ = _loop(e, grid_count, after,
                           lambda j, b, _: _set_up_grid(e, _entry(e, grid_table, j, abi.LEVEL_GRID_LAUNCH_SIZE), b),
                           start, step)
        e.emit("OpAtomicIAdd", e.u32, total_var, workgroup, relaxed, e.emit("OpIAdd", e.u32, plain, gridded))
        e.emit("OpControlBarrier", workgroup, workgroup, e.uint(grammar.mask(
            "MemorySemantics", "AcquireRelease", "WorkgroupMemory", "MakeAvailable", "MakeVisible")))
        total = e.emit("OpAtomicLoad", e.u32, total_var, workgroup, relaxed)

        def publish(_: int) -> None:
            _store(e, following, abi.LEVEL["expected"], total)
            e.emit("OpAtomicStore", done, queue, relaxed, e.uint(0))    # for the next run: every group has counted

        _if(e, first, publish)
        _empty_chain(e, following, total, start, step)

    _if(e, is_last, set_up)        # uniform in the workgroup: read after a barrier
    e.emit("OpBranch", end)
    e.label(end)


_NONE = 0xFFFFFFFF
"""A first index past every table: an invocation at or past the tail's `group_size` sets nothing up."""


def _if(e: Emitter, condition: int, body: Callable[[int], None]) -> None:
    """`body(its first block)` where `condition` holds; the block after is left open."""
    then, merge = e.new_id(), e.new_id()
    e.emit("OpSelectionMerge", merge, "None")
    e.emit("OpBranchConditional", condition, then, merge)
    e.label(then)
    body(then)
    e.emit("OpBranch", merge)
    e.label(merge)


def _empty_chain(e: Emitter, following: int, total: int, start: int, step: int) -> None:
    """Where the next level gets no workgroup (`total` 0), no tail runs in it, nor after it: every
    later level that tails set up (the chain of LEVEL blocks from `following` while `launch_count` or
    `grid_count` is not 0) gets no group, instead of the arguments of an earlier run (each invocation the entries
    `start`, `start + step`, ... of every table)."""
    walk, walked = e.new_id(), e.new_id()
    empty = e.emit("OpIEqual", e.bool_, total, e.uint(0))
    e.emit("OpSelectionMerge", walked, "None")
    e.emit("OpBranchConditional", empty, walk, walked)
    e.label(walk)
    head, check, body, walk_next, merge = (e.new_id() for _ in range(5))
    block_next = e.new_id()
    e.emit("OpBranch", head)
    e.label(head)
    block = e.emit("OpPhi", e.u64, following, walk, block_next, walk_next)
    e.emit("OpLoopMerge", merge, walk_next, "None")
    e.emit("OpBranch", check)
    e.label(check)
    n, grid_n = _load(e, block, abi.LEVEL["launch_count"]), _load(e, block, abi.LEVEL["grid_count"])
    e.emit("OpBranchConditional", e.emit("OpINotEqual", e.bool_, e.emit("OpBitwiseOr", e.u32, n, grid_n), e.uint(0)),
           body, merge)
    e.label(body)
    table, grid_table = _load(e, block, abi.LEVEL["launches"]), _load(e, block, abi.LEVEL["grid_launches"])
    _, after = _loop(e, n, body, lambda i, _, __: _no_groups(e, _entry(e, table, i)), start, step)
    _loop(e, grid_n, after, lambda j, _, __: _no_groups(e, _entry(e, grid_table, j, abi.LEVEL_GRID_LAUNCH_SIZE)),
          start, step)
    e.emit("OpBranch", walk_next)
    e.label(walk_next)
    at = abi.LEVEL["next"]
    address = _address(e, block, at[0])
    e.emit("OpLoad", e.u64, e.emit("OpConvertUToPtr", e.psb(e.u64), address), _ACCESS, at[1], result=block_next)
    e.emit("OpBranch", head)
    e.label(merge)
    e.emit("OpBranch", walked)
    e.label(walked)


def _entry(e: Emitter, table: int, i: int, size: int = abi.LEVEL_LAUNCH_SIZE) -> int:
    """The address of entry `i` of a LEVEL_LAUNCH table (of `size`-byte entries)."""
    return e.emit("OpIAdd", e.u64, table, e.emit("OpIMul", e.u64, e.emit("OpUConvert", e.u64, i),
                                                  e.uint(size, 64)))


def _loop(e: Emitter, n: int, before: int, body: Callable[..., int | None], start: int | None = None,
          step: int | None = None,
          carry: tuple[dict[str, int], Callable[[int], dict[str, int]]] | None = None) -> tuple[int, int]:
    """`body(i, its first block, the sum so far)` for i = start, start + step, ... below n (ids; start
    0 and step 1 where None; the block `before` is open and branches in); returns the sum of what
    `body` returns (0 where None) and the block after the loop, left open.  With `carry` (LEVEL_LAUNCH
    fields by name: those of the first iteration, made before the loop, and a function making those
    of iteration i), body gets them as a fourth argument, and each iteration makes the next one's
    at its end (so their round trip to memory overlaps the one before the loop, or the iteration's)."""
    head, check, first, continue_, merge = (e.new_id() for _ in range(5))
    i_next, total_next = e.new_id(), e.new_id()
    e.emit("OpBranch", head)
    e.label(head)
    i = e.emit("OpPhi", e.u32, e.uint(0) if start is None else start, before, i_next, continue_)
    total = e.emit("OpPhi", e.u32, e.uint(0), before, total_next, continue_)
    carried: dict[str, int] = {}
    carried_next: dict[str, tuple[int, int]] = {}
    for name, value in (carry[0].items() if carry is not None else ()):
        type_ = e.u64 if abi.LEVEL_LAUNCH[name][1] == 8 else e.u32
        carried_next[name] = (e.new_id(), type_)
        carried[name] = e.emit("OpPhi", type_, value, before, carried_next[name][0], continue_)
    e.emit("OpLoopMerge", merge, continue_, "None")
    e.emit("OpBranch", check)
    e.label(check)
    e.emit("OpBranchConditional", e.emit("OpULessThan", e.bool_, i, n), first, merge)
    e.label(first)
    added = body(i, first, total) if carry is None else body(i, first, total, carried)
    e.emit("OpBranch", continue_)
    e.label(continue_)
    e.emit("OpIAdd", e.u32, i, e.uint(1) if step is None else step, result=i_next)
    e.emit("OpIAdd", e.u32, total, added if added is not None else e.uint(0), result=total_next)
    if carry is not None:
        for name, value in carry[1](i_next).items():
            e.emit("OpCopyObject", carried_next[name][1], value, result=carried_next[name][0])
    e.emit("OpBranch", head)
    e.label(merge)
    return total, merge


_SET_UP_FIELDS = ("source", "count", "source_capacity", "context", "group_mul", "group_div", "unit_div", "max_x",
                  "indirect", "fixes", "fix_count")
"""The LEVEL_LAUNCH fields `_set_up` reads."""


def _launch_fields(e: Emitter, table: int, i: int, n: int, fallback: int) -> dict[str, int]:
    """The `_SET_UP_FIELDS` of entry `i` of the LEVEL_LAUNCH `table` of `n` entries, loaded without a
    branch: from `fallback` (the address of a NodeContext, which is longer than an entry) where `i`
    is not below `n` (the values are then unused)."""
    inside = e.emit("OpULessThan", e.bool_, i, n)
    at = e.emit("OpSelect", e.u64, inside, _entry(e, table, i), fallback)
    return {name: _load(e, at, abi.LEVEL_LAUNCH[name]) for name in _SET_UP_FIELDS}


def _set_up(e: Emitter, fields: dict[str, int], block: int) -> int:
    """The meta shader's work for a launch, given its `_SET_UP_FIELDS` (the block `block` is open);
    returns the workgroups it dispatches (x * y)."""
    u32, u64, bool_ = e.u32, e.u64, e.bool_
    count, have = _input_count(e, fields.__getitem__, block)
    product = e.emit("OpIMul", u64, e.emit("OpUConvert", u64, count), e.emit("OpUConvert", u64, fields["group_mul"]))

    def ceil_div(divisor_name: str) -> int:
        divisor = e.emit("OpUConvert", u64, fields[divisor_name])
        return e.emit("OpUDiv", u64, e.emit("OpIAdd", u64, product, e.emit("OpISub", u64, divisor, e.uint(1, 64))),
                      divisor)

    groups = e.emit("OpUConvert", u32, ceil_div("group_div"))
    units = ceil_div("unit_div")
    most = fields["max_x"]
    x = e.emit("OpSelect", u32, e.emit("OpULessThan", bool_, groups, most), groups, most)
    x_div = e.emit("OpSelect", u32, e.emit("OpIEqual", bool_, x, e.uint(0)), e.uint(1), x)
    y = e.emit("OpUDiv", u32, e.emit("OpIAdd", u32, groups, e.emit("OpISub", u32, x_div, e.uint(1))), x_div)
    indirect = fields["indirect"]
    for k, value in enumerate((x, y, e.uint(1))):
        _store(e, indirect, (4 * k, 4), value)
    dispatched = e.emit("OpIMul", u32, x, y)
    fixes = fields["fixes"]
    _loop(e, fields["fix_count"], have, lambda k, _, __: _fix(e, fixes, k, units))
    return dispatched


def _input_count(e: Emitter, field_of: Callable[[str], int], block: int) -> tuple[int, int]:
    """(the records of a launch whose fields `field_of` gives, the block left open): min(*source,
    source_capacity) where `source` is not 0, else `count`; written to its NodeContext's
    `input_count`."""
    u32, bool_ = e.u32, e.bool_
    source, known, capacity = field_of("source"), field_of("count"), field_of("source_capacity")
    read, have = e.new_id(), e.new_id()
    has_source = e.emit("OpINotEqual", bool_, source, e.uint(0, 64))
    e.emit("OpSelectionMerge", have, "None")
    e.emit("OpBranchConditional", has_source, read, have)
    e.label(read)
    produced = e.emit("OpAtomicLoad", u32, e.emit("OpConvertUToPtr", e.psb(u32), source),
                      e.uint(grammar.enumerant("Scope", "QueueFamily")), e.uint(0))
    clamped = e.emit("OpSelect", u32, e.emit("OpULessThan", bool_, produced, capacity), produced, capacity)
    e.emit("OpBranch", have)
    e.label(have)
    count = e.emit("OpPhi", u32, clamped, read, known, block)
    _store(e, field_of("context"), abi.NODE_CONTEXT["input_count"], count)
    return count, have


def _set_up_grid(e: Emitter, entry: int, block: int) -> int:
    """The grid-scan shader's work (`wgc/runtime/grid_setup.py`) for the LEVEL_GRID_LAUNCH at `entry`,
    one record after another (the block `block` is open); returns the workgroups it dispatches."""
    u32, u64, bool_ = e.u32, e.u64, e.bool_
    field = abi.LEVEL_GRID_LAUNCH
    count, have = _input_count(e, lambda name: _load(e, entry, field[name]), block)
    context = _load(e, entry, field["context"])
    records = _load(e, context, abi.NODE_CONTEXT["input_records"])
    stride = e.emit("OpUConvert", u64, _load(e, context, abi.NODE_CONTEXT["input_stride"]))
    at = e.emit("OpUConvert", u64, _load(e, entry, field["grid_at"]))
    bits = _load(e, entry, field["grid_bits"])
    dims = _load(e, entry, field["grid_components"])
    width = e.emit("OpUConvert", u64, e.emit("OpUDiv", u32, bits, e.uint(8)))
    base_at = field["max_grid"][0]
    most = [_load(e, entry, (base_at + 4 * k, 4)) for k in range(3)]
    prefix, shared = _load(e, entry, field["prefix"]), _load(e, entry, field["shared"])
    result = _load(e, entry, field["result"])
    _store(e, result, (4, 4), e.uint(abi.LEVEL_NO_RECORD))

    def component(address: int) -> int:
        """A 32-bit component at `address`, or a 16-bit one in the aligned word holding it."""
        word = _load(e, e.emit("OpBitwiseAnd", u64, address, e.uint(~3 & (1 << 64) - 1, 64)), (0, 4))
        shift = e.emit("OpIMul", u32, e.emit("OpUConvert", u32, e.emit("OpBitwiseAnd", u64, address, e.uint(2, 64))),
                       e.uint(8))
        half = e.emit("OpBitwiseAnd", u32, e.emit("OpShiftRightLogical", u32, word, shift), e.uint(0xFFFF))
        return e.emit("OpSelect", u32, e.emit("OpIEqual", bool_, bits, e.uint(32)), word, half)

    def record(r: int, _: int, running: int) -> int:
        start = e.emit("OpIAdd", u64, e.emit("OpIAdd", u64, records, e.emit("OpIMul", u64, e.emit(
            "OpUConvert", u64, r), stride)), at)
        grid = [component(start)]
        for k in (1, 2):        # a missing component is 1 (its address stays in the record)
            present = e.emit("OpUGreaterThan", bool_, dims, e.uint(k))
            address = e.emit("OpSelect", u64, present, e.emit("OpIAdd", u64, start, e.emit(
                "OpIMul", u64, width, e.uint(k, 64))), start)
            grid.append(e.emit("OpSelect", u32, present, component(address), e.uint(1)))
        beyond = [e.emit("OpUGreaterThan", bool_, g, m) for g, m in zip(grid, most)]
        bad = e.emit("OpLogicalOr", bool_, e.emit("OpLogicalOr", bool_, beyond[0], beyond[1]), beyond[2])
        n = e.emit("OpSelect", u32, bad, e.uint(0), e.emit("OpIMul", u32, e.emit("OpIMul", u32, grid[0], grid[1]),
                                                            grid[2]))
        _store(e, _index(e, prefix, r), (0, 4), e.emit("OpIAdd", u32, running, n))
        _if(e, e.emit("OpINotEqual", bool_, shared, e.uint(0, 64)), lambda _: _store(e, _index(e, shared, r), (0, 4), n))

        def first_bad(_: int) -> None:
            def note(_: int) -> None:
                _store(e, result, (4, 4), r)
                for k in range(3):
                    _store(e, result, (8 + 4 * k, 4), grid[k])
            _if(e, e.emit("OpIEqual", bool_, _load(e, result, (4, 4)), e.uint(abi.LEVEL_NO_RECORD)), note)

        _if(e, bad, first_bad)
        return n

    total, after = _loop(e, count, have, record)
    _store(e, result, (0, 4), total)
    limits = [_load(e, entry, field[name]) for name in ("max_x", "max_y", "max_z")]

    def least(a: int, b: int) -> int:
        return e.emit("OpSelect", u32, e.emit("OpULessThan", bool_, a, b), a, b)

    def ceil_div(a: int, b: int) -> int:     # 0 where b is 0
        b_or_1 = e.emit("OpSelect", u32, e.emit("OpIEqual", bool_, b, e.uint(0)), e.uint(1), b)
        quotient = e.emit("OpUDiv", u32, e.emit("OpIAdd", u32, a, e.emit("OpISub", u32, b_or_1, e.uint(1))), b_or_1)
        return e.emit("OpSelect", u32, e.emit("OpIEqual", bool_, b, e.uint(0)), e.uint(0), quotient)

    x = least(total, limits[0])
    rest = ceil_div(total, x)
    y = least(rest, limits[1])
    z = ceil_div(rest, y)
    indirect = _load(e, entry, field["indirect"])
    for k, value in enumerate((x, y, z)):
        _store(e, indirect, (4 * k, 4), value)
    fixes = _load(e, entry, field["fixes"])
    units = e.emit("OpUConvert", u64, total)
    _loop(e, _load(e, entry, field["fix_count"]), after, lambda k, _, __: _fix(e, fixes, k, units))
    return e.emit("OpIMul", u32, e.emit("OpIMul", u32, x, y), z)


def _index(e: Emitter, base: int, i: int) -> int:
    """The address of u32 `i` of an array at `base`."""
    return e.emit("OpIAdd", e.u64, base, e.emit("OpIMul", e.u64, e.emit("OpUConvert", e.u64, i), e.uint(4, 64)))


def _fix(e: Emitter, fixes: int, k: int, units: int) -> None:
    """Output slot `k`'s capacity of a launch: min(units * per_unit, reserved)."""
    u32, u64 = e.u32, e.u64
    fix = e.emit("OpIAdd", u64, fixes, e.emit("OpIMul", u64, e.emit("OpUConvert", u64, k),
                                                e.uint(abi.LEVEL_FIX_SIZE, 64)))
    want = e.emit("OpIMul", u64, units, e.emit("OpUConvert", u64, _load(e, fix, abi.LEVEL_FIX["per_unit"])))
    reserved = e.emit("OpUConvert", u64, _load(e, fix, abi.LEVEL_FIX["reserved"]))
    least = e.emit("OpSelect", u64, e.emit("OpULessThan", e.bool_, want, reserved), want, reserved)
    _store(e, _load(e, fix, abi.LEVEL_FIX["slot"]), abi.OUTPUT_SLOT["capacity"], e.emit("OpUConvert", u32, least))


def _no_groups(e: Emitter, entry: int) -> None:
    """The launch at `entry` (of either table: `context` and `indirect` are at the same offsets) gets
    no record and no group (x = y = 0)."""
    _store(e, _load(e, entry, abi.LEVEL_LAUNCH["context"]), abi.NODE_CONTEXT["input_count"], e.uint(0))
    indirect = _load(e, entry, abi.LEVEL_LAUNCH["indirect"])
    _store(e, indirect, (0, 4), e.uint(0))
    _store(e, indirect, (4, 4), e.uint(0))


def _address(e: Emitter, base: int, offset: int) -> int:
    return base if offset == 0 else e.emit("OpIAdd", e.u64, base, e.uint(offset, 64))


def _load(e: Emitter, base: int, field: tuple[int, int]) -> int:
    """A u32 or u64 field (offset, size) of an ABI structure at `base`."""
    at, size = field
    type_ = e.u64 if size == 8 else e.u32
    return e.emit("OpLoad", type_, e.emit("OpConvertUToPtr", e.psb(type_), _address(e, base, at)), _ACCESS, size)


def _store(e: Emitter, base: int, field: tuple[int, int], value: int) -> None:
    at, size = field
    type_ = e.u64 if size == 8 else e.u32
    e.emit("OpStore", e.emit("OpConvertUToPtr", e.psb(type_), _address(e, base, at)), value, _ACCESS, size)


class BuilderEmitter:
    """An `Emitter` over the IR lowering's builder (`emulated.py`)."""

    def __init__(self, ml: ModuleLowering, switch: int = 0) -> None:
        self.ml, self.b = ml, ml.b
        self.switch = switch
        """The `tail_switch` constant (declared by the caller: `emulated.py`, once per module)."""
        self.u32, self.u64, self.bool_ = ml.types.id(t.UINT), ml.types.id(t.UINT64), ml.b.type_bool()
        self.made: dict[str, int] = {}
        """The Workgroup variables made (`workgroup_word`), for the entry point's interface."""

    def emit(self, op: str, *operands: Any, result: int | None = None) -> int:
        return self.b.emit(op, *operands, result=result)

    def label(self, id_: int) -> None:
        self.b.label(id_)

    def new_id(self) -> int:
        return self.b.new_id()

    def uint(self, value: int, bits: int = 32) -> int:
        return self.b.constant_uint(value, bits)

    def psb(self, type_: int) -> int:
        return self.b.type_pointer("PhysicalStorageBuffer", type_)

    def f32_type(self) -> int:
        return self.ml.types.id(t.FLOAT)

    def workgroup_word(self, name: str) -> int:
        if name not in self.made:
            self.made[name] = self.b.variable(self.b.type_pointer("Workgroup", self.u32), "Workgroup")
            self.b.name(self.made[name], name)
        return self.made[name]

    def tail_switch(self) -> int:
        assert self.switch, "the tail's specialization constant is declared by the caller"
        return self.switch


def declare_switch(ml: ModuleLowering) -> int:
    """The bool specialization constant `abi.LEVEL_TAIL_SPEC_ID` (default true) in the IR lowering's
    module (call once per module)."""
    b = ml.b
    switch = b.global_instruction("OpSpecConstantTrue", b.type_bool())
    b.decorate(switch, "SpecId", abi.LEVEL_TAIL_SPEC_ID)
    b.name(switch, "emulation_level_tail")
    return switch


def wrap_entry(ml: ModuleLowering, fn: int, name: str, push_block: int, group_size: int, switch: int) -> int:
    """A new function that calls the node's entry function `fn` and then runs the tail (no function
    is open); the NodeContext address is member 0 of the push-constant block `push_block`;
    `group_size` the workgroup's invocations; `switch` the module's `declare_switch` constant."""
    e = BuilderEmitter(ml, switch)
    b = ml.b
    void = b.type_void()
    wrapper = b.begin_function(void, b.type_function(void))
    b.name(wrapper, name)
    b.label()
    b.emit("OpFunctionCall", void, fn)
    index_var = ml.builtin("LocalInvocationIndex", t.UINT)
    local_index = b.emit("OpLoad", e.u32, index_var)
    context = b.emit("OpLoad", e.u64, b.emit("OpAccessChain", b.type_pointer("PushConstant", e.u64), push_block,
                                             b.constant_uint(0)))
    emit_tail(e, context, local_index, group_size)
    b.emit("OpReturn")
    b.end_function()
    ml.function_calls.setdefault(wrapper, set()).add(fn)
    resources.wrapped_entry(ml, fn, wrapper)
    ml.function_globals.setdefault(wrapper, set()).update((index_var, push_block, *e.made.values()))
    return wrapper
