"""The record of a broadcasting group whose grid comes from its record (emulation ABI, "grid from
the record"): the prologue's lookup of the group table `grid_records` or search of the prefix sums
`grid_prefix`, and the group's SV_GroupID within the record's grid.

Stage:      back end (emulated SPIR-V), shared by both generators of emulated modules:
            `wgc/spirv/emulated.py` (from wgc's IR) and `wgc/spirv_in/translate.py` (from an AMDX
            module), each through its `emulated_tail.Emitter`.
Input:      an `Emitter` in an open block of the entry function's prologue, outside any branch,
            the ids of the prefix sums' and the group table's addresses (u64; the table's is 0 where
            there is none), the input count (u32) and the flat group index (u32), and the
            generator's `leave_if(condition)`, which returns from the entry function where the
            condition holds.
Output:     (record, group within the record's grid), u32 ids; the emitter is left in an open block.
            The invocation returns where there is no record or `flat` is past the last record's groups.
Invariants: the record is the ABI's: `grid_records[flat]` where there is a table, else the first r
            with `grid_prefix[r] > flat` (records of 0 groups own no group), whatever the guess.
            Three loads find it, before the first return and outside any branch (llvmpipe loads a
            value the group shares once per 8 lanes there, where after a return each is a gather of
            8): the total (`prefix[count - 1]`); then with a table its entry, else `prefix[g]` for
            the guess g (both one load, from the table's or the prefix sums' address); then the
            groups before that record (`prefix[r - 1]`, 0 for record 0).  Every group may make them:
            the indices are clamped to the last record and the last group (a group runs only where
            the total is not 0, so the runtime gives it a prefix sum at least, `wgc.emulation_abi`).
            The guess, computed in a branch only where there is no table (llvmpipe's branches
            compute both sides, and the guess's division would cost the table's groups), interpolates
            at the middle of the group, in f32:
            `g = min(u32((2 flat + 1) * (min(count, 2^31) / (2 total))), count - 1)` (total: the last
            prefix sum; f32 because a GPU, and llvmpipe, divide integers slowly); where every record
            has G groups the exact quotient is `k + (2 j + 1) / 2G` for group j of record k, at least
            1/2G from the next integer, which is more than the rounding (at most about 5.4e-7
            relative with Vulkan's 2.5 ULP division) while the groups number less than about
            900,000, so the guess is the record there (an f32 model in Python, the division's
            result moved by 2.5 ULP either way: no miss up to 10^6 groups; 0.2-1.5 % of the groups
            of 100,000 records of 100), and mostly beyond.  The two loads check it (`prefix[g - 1]
            <= flat < prefix[g]`); where it misses a binary search runs over the side of the guess
            the record is on, one load per halving (a loop: its steps follow the records left, not
            a fixed 32).  `flat` is the workgroup's, so every branch here is uniform in the
            workgroup.  Control flow is structured (selections and a loop with their merge
            instructions), so the same words validate in both generators.
            `group_id` gives SV_GroupID from the group within the grid: a grid component whose
            [NodeMaxDispatchGrid] bound is 1 (or that the record's SV_DispatchGrid lacks) is 1 in every
            record that owns a group (a record of a 0 component owns none; one beyond the bound never
            runs: the runtime refuses it), so it is not loaded (`known_ones`), and the ABI's formula
            divides by it nowhere: SV_GroupID = (l, 0, 0) with no division where y and z are 1 (a
            1-D grid, the common case); otherwise `q = l / gx` (none where gx is 1), x = l - q gx,
            and where z may exceed 1 and y too, `z = q / gy` (the same quotient as `l / (gx gy)`),
            y = q - z gy: at most two divisions, each by a component read from the record.
"""

from __future__ import annotations

from typing import Callable

from .emulated_tail import Emitter


SCALE_MAX = 1 << 31
"""The count the guess scales by is at most this, so that the guess (below it, but for rounding)
converts to a u32 without overflow."""


def known_ones(most: tuple[int, int, int] | None, components: int) -> tuple[bool, bool, bool]:
    """For x, y and z: whether the component is 1 in every record that owns a group (module
    docstring): the record's SV_DispatchGrid has `components` components, `most` is the node's
    [NodeMaxDispatchGrid] (None where the node has none)."""
    return tuple(i >= components or (most is not None and most[i] == 1)  # type: ignore[return-value]
                 for i in range(3))


def group_id(e: Emitter, local: int, component: Callable[[int], int],
             ones: tuple[bool, bool, bool]) -> tuple[int, int, int]:
    """SV_GroupID (x, y, z u32 ids) of group `local` of a record's grid: the ABI's `(l % gx, (l / gx) %
    gy, l / (gx gy))`, with `ones` from `known_ones`; `component(i)` gives the id of the grid's
    component i (called only for those the formula needs: gz never, gx and gy not where `ones`
    makes them 1 or unneeded)."""
    u32 = e.u32
    if ones[1] and ones[2]:
        return local, e.uint(0), e.uint(0)
    if ones[0]:
        x, rows = e.uint(0), local
    else:
        gx = component(0)
        rows = e.emit("OpUDiv", u32, local, gx)
        x = e.emit("OpISub", u32, local, e.emit("OpIMul", u32, rows, gx))
    if ones[2]:
        return x, rows, e.uint(0)
    if ones[1]:
        return x, e.uint(0), rows
    gy = component(1)
    z = e.emit("OpUDiv", u32, rows, gy)
    return x, e.emit("OpISub", u32, rows, e.emit("OpIMul", u32, z, gy)), z


def grid_record(e: Emitter, prefix: int, table: int, count: int, flat: int,
                leave_if: Callable[[int], None]) -> tuple[int, int]:
    """(record, group within its grid) of flat group `flat` (module docstring)."""
    u32, bool_, u64 = e.u32, e.bool_, e.u64

    def address(base: int, index: int) -> int:
        return e.emit("OpIAdd", u64, base, e.emit("OpIMul", u64, e.emit("OpUConvert", u64, index), e.uint(4, 64)))

    def load(where: int) -> int:
        return e.emit("OpLoad", u32, e.emit("OpConvertUToPtr", e.psb(u32), where), "Aligned", 4)

    def less_one(value: int) -> int:
        """value - 1, 0 for 0 (an index every group may read)."""
        return e.emit("OpISub", u32, value, e.emit("OpSelect", u32, e.emit("OpIEqual", bool_, value, e.uint(0)),
                                                     e.uint(0), e.uint(1)))

    last = less_one(count)
    total = load(address(prefix, last))
    has_table = e.emit("OpINotEqual", bool_, table, e.uint(0, 64))
    listed = e.emit("OpSelect", u32, e.emit("OpULessThan", bool_, flat, total), flat, less_one(total))
    top, guessed, merge = e.new_id(), e.new_id(), e.new_id()
    e.emit("OpBranch", top)
    e.label(top)
    e.emit("OpSelectionMerge", merge, "None")
    e.emit("OpBranchConditional", has_table, merge, guessed)
    e.label(guessed)                    # interpolate at the group's middle (module docstring)
    f32 = e.f32_type()
    scale = e.emit("OpSelect", u32, e.emit("OpULessThan", bool_, count, e.uint(SCALE_MAX)), count, e.uint(SCALE_MAX))
    twice = e.emit("OpShiftLeftLogical", u64, e.emit("OpUConvert", u64, total), e.uint(1, 64))
    ratio = e.emit("OpFDiv", f32, e.emit("OpConvertUToF", f32, scale), e.emit("OpConvertUToF", f32, twice))
    middle2 = e.emit("OpIAdd", u64, e.emit("OpShiftLeftLogical", u64, e.emit("OpUConvert", u64, flat), e.uint(1, 64)),
                     e.uint(1, 64))
    guess = e.emit("OpConvertFToU", u32, e.emit("OpFMul", f32, e.emit("OpConvertUToF", f32, middle2), ratio))
    guess = e.emit("OpSelect", u32, e.emit("OpULessThan", bool_, guess, last), guess, last)
    e.emit("OpBranch", merge)
    e.label(merge)
    # the same two loads read the table's entry and the groups before its record, or prefix[guess]
    # and prefix[guess - 1]: outside any branch (llvmpipe then loads once per 8 lanes)
    index = e.emit("OpPhi", u32, listed, top, guess, guessed)
    first = load(address(e.emit("OpSelect", u64, has_table, table, prefix), index))
    found = e.emit("OpSelect", u32, has_table, first, index)
    start = e.emit("OpSelect", u32, e.emit("OpIEqual", bool_, found, e.uint(0)), e.uint(0),
                   load(address(prefix, less_one(found))))
    leave_if(e.emit("OpLogicalOr", bool_, e.emit("OpIEqual", bool_, count, e.uint(0)),
                    e.emit("OpUGreaterThanEqual", bool_, flat, total)))
    hit = e.emit("OpLogicalOr", bool_, has_table, e.emit(
        "OpLogicalAnd", bool_, e.emit("OpULessThanEqual", bool_, start, flat), e.emit("OpULessThan", bool_, flat, first)))
    entered, search, searched = e.new_id(), e.new_id(), e.new_id()
    e.emit("OpBranch", entered)
    e.label(entered)
    e.emit("OpSelectionMerge", searched, "None")
    e.emit("OpBranchConditional", hit, searched, search)

    e.label(search)                     # the record is after the guess (prefix[guess] <= flat) or before it
    after = e.emit("OpULessThanEqual", bool_, first, flat)
    low0 = e.emit("OpSelect", u32, after, e.emit("OpIAdd", u32, index, e.uint(1)), e.uint(0))
    high0 = e.emit("OpSelect", u32, after, last, e.emit("OpISub", u32, index, e.uint(1)))
    below0 = e.emit("OpSelect", u32, after, first, e.uint(0))
    head, body, done = e.new_id(), e.new_id(), e.new_id()
    low_next, high_next, below_next = e.new_id(), e.new_id(), e.new_id()
    e.emit("OpBranch", head)
    e.label(head)                       # the record is in [low, high]; below = prefix[low - 1] (0 for 0)
    low = e.emit("OpPhi", u32, low0, search, low_next, body)
    high = e.emit("OpPhi", u32, high0, search, high_next, body)
    below = e.emit("OpPhi", u32, below0, search, below_next, body)
    more = e.emit("OpULessThan", bool_, low, high)
    e.emit("OpLoopMerge", done, body, "None")
    e.emit("OpBranchConditional", more, body, done)
    e.label(body)
    middle = e.emit("OpIAdd", u32, low, e.emit("OpShiftRightLogical", u32, e.emit("OpISub", u32, high, low),
                                                 e.uint(1)))
    value = load(address(prefix, middle))
    past = e.emit("OpUGreaterThan", bool_, value, flat)
    e.emit("OpSelect", u32, past, low, e.emit("OpIAdd", u32, middle, e.uint(1)), result=low_next)
    e.emit("OpSelect", u32, past, middle, high, result=high_next)
    e.emit("OpSelect", u32, past, below, value, result=below_next)
    e.emit("OpBranch", head)
    e.label(done)
    e.emit("OpBranch", searched)

    e.label(searched)
    record = e.emit("OpPhi", u32, found, entered, low, done)
    groups_before = e.emit("OpPhi", u32, start, entered, below, done)
    return record, e.emit("OpISub", u32, flat, groups_before)
