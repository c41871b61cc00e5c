"""The loop over the distinct node-array indices of a subgroup's invocations (emulation ABI,
"Outputs"): thread-scope allocation and output counts through a node-array subscript add once per
distinct index and subgroup, on subgroups of `PER_KEY_MIN_SUBGROUP` invocations or more.

Stage:      back end (emulated SPIR-V), shared by both generators of emulated modules:
            `wgc/spirv/emulated.py` (from wgc's IR, `EmulatedNodes._subgroup_add_per_key`) and
            `wgc/spirv_in/translate.py` (from an AMDX module, its `allocate` and increment
            functions), each through its `emulated_tail.Emitter`.
Input:      an `Emitter` in an open block, the u32 id of the invocation's index (`key`) and the
            generator's `matched()`, which emits the add of the invocations whose key is the same
            (they share one slot) into the block it is given.
Output:     the loop's instructions; the emitter is left in an open block after it.
Invariants: each round, the invocations whose key equals the first active invocation's
            (OpGroupNonUniformBroadcastFirst) run `matched()` and leave the loop; the others go round
            again: one round per distinct key (one where the key is uniform).  Control flow is
            structured (a loop and a selection with their merge instructions), so the same words
            validate in both generators.  `matched()` must end in the block it started in or in a
            block of its own selections' merges (it emits no terminator of the block it leaves open).
"""

from __future__ import annotations

from typing import Callable

from wgc.spirv import grammar

from .emulated_tail import Emitter


def per_key_loop(e: Emitter, key: int, matched: Callable[[], None]) -> None:
    """The loop (module docstring)."""
    header, body, hit, other, step, merge = (e.new_id() for _ in range(6))
    e.emit("OpBranch", header)
    e.label(header)
    e.emit("OpLoopMerge", merge, step, "None")
    e.emit("OpBranch", body)
    e.label(body)
    first = e.emit("OpGroupNonUniformBroadcastFirst", e.u32, e.uint(grammar.enumerant("Scope", "Subgroup")), key)
    same = e.emit("OpIEqual", e.bool_, key, first)
    e.emit("OpSelectionMerge", other, "None")
    e.emit("OpBranchConditional", same, hit, other)
    e.label(hit)
    matched()
    e.emit("OpBranch", merge)           # these invocations are done: leave the loop
    e.label(other)
    e.emit("OpBranch", step)
    e.label(step)
    e.emit("OpBranch", header)
    e.label(merge)
