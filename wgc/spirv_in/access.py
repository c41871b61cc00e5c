"""What the code of a SPIR-V module does to each variable: reads it, writes it, both or neither
(SPIR-V input stage).

Stage:  spirv_in, beside `graph.py` (which gives each descriptor binding its `access` with it, and
        a node input its RW kind).
Input:  a read module (`reader.Module`).
Output: `variable_access(module) -> dict[variable id, (read, written)]`, for every OpVariable the
        code uses, module-wide (every function of the module; a variable an entry point lists is
        used by that entry point's code only where another does not use it too).
How: the pointers and values derived from a variable (access chains, copies, OpSelect/OpPhi, an
        image or acceleration structure loaded from it, a sampled image made of it, a texel pointer
        into it) are followed to the instructions that use them: OpLoad, OpAtomicLoad, image
        fetches, reads, samples and gathers, ray queries read; OpStore, OpAtomicStore and
        OpImageWrite write; the other atomics read and write; OpCopyMemory writes its target and
        reads its source; a pointer
        handed to a function call is taken as read and written; OpArrayLength, image queries and
        decorations do neither. The decorations NonWritable / NonReadable (on the variable, or on
        every member of its block) then rule a use out.
Invariants: reads the module only; any module gives an answer (unknown instructions that use a
        tracked value count as reads), never an exception.
"""

from __future__ import annotations

from .reader import Instruction, Module

_DERIVE = {"OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpInBoundsPtrAccessChain",
           "OpCopyObject", "OpBitcast", "OpSelect", "OpPhi", "OpSampledImage", "OpImage",
           "OpImageTexelPointer", "OpCopyLogical"}
"""Instructions whose result is (a pointer into, or a view of) what one of their operands is."""
_NEITHER = {"OpArrayLength", "OpImageQuerySize", "OpImageQuerySizeLod", "OpImageQueryLevels",
            "OpImageQuerySamples", "OpImageQueryFormat", "OpImageQueryOrder", "OpImageQueryLod",
            "OpName", "OpDecorate", "OpEntryPoint"}
_WRITE = {"OpStore", "OpAtomicStore", "OpImageWrite"}


def _block_decorated(module: Module, variable: int, name: str) -> bool:
    """The variable, or every member of the block it points to (arrays of blocks unwrapped), has
    decoration `name`."""
    if module.decoration(variable, name) is not None:
        return True
    inst = module.defs.get(variable)
    pointer = module.defs.get(inst.result_type or 0) if inst is not None else None
    if pointer is None or pointer.opname != "OpTypePointer":
        return False
    struct = module.defs.get(pointer.literal(1))
    while struct is not None and struct.opname in ("OpTypeArray", "OpTypeRuntimeArray"):
        struct = module.defs.get(struct.literal(0))
    if struct is None or struct.opname != "OpTypeStruct" or not struct.operands:
        return False
    return all(module.member_decoration(struct.result or 0, i, name) is not None for i in range(len(struct.operands)))


def variable_access(module: Module) -> dict[int, tuple[bool, bool]]:
    """(read, written) of every OpVariable the module's code uses (module docstring)."""
    root: dict[int, int] = {}
    for inst in module.instructions:
        if inst.opname == "OpVariable" and inst.result is not None:
            root[inst.result] = inst.result
    body = [inst for insts in module.functions.values() for inst in insts]
    changed = True
    while changed:                      # OpPhi may name a value defined later: to a fixed point
        changed = False
        for inst in body:
            if inst.result is None or inst.result in root:
                continue
            if inst.opname in _DERIVE or (inst.opname == "OpLoad" and _loads_object(module, inst)):
                sources = [root[i] for i in inst.ids() if i in root]
                if sources:
                    root[inst.result] = sources[0]
                    changed = True
    read: set[int] = set()
    written: set[int] = set()
    for inst in body:
        ids = inst.ids()
        used = [root[i] for i in ids if i in root]
        if not used or inst.opname in _NEITHER or inst.opname in _DERIVE \
                or (inst.opname == "OpLoad" and _loads_object(module, inst)):
            continue                    # derived values are followed: their uses count
        first = root.get(ids[0])
        if inst.opname in _WRITE:
            if first is not None:
                written.add(first)
        elif inst.opname.startswith("OpAtomic") and inst.opname != "OpAtomicLoad":
            if first is not None:
                read.add(first)
                written.add(first)
        elif inst.opname in ("OpCopyMemory", "OpCopyMemorySized"):
            if first is not None:
                written.add(first)
            read.update(root[i] for i in ids[1:2] if i in root)
        elif inst.opname == "OpFunctionCall":
            read.update(used)
            written.update(used)
        else:
            read.update(used)
    found: dict[int, tuple[bool, bool]] = {}
    for variable in read | written:
        readable = not _block_decorated(module, variable, "NonReadable")
        writable = not _block_decorated(module, variable, "NonWritable")
        found[variable] = (variable in read and readable, variable in written and writable)
    return found


def _loads_object(module: Module, inst: Instruction) -> bool:
    """An OpLoad of an image, sampler, sampled image or acceleration structure: a handle, not data."""
    type_ = module.defs.get(inst.result_type or 0)
    return type_ is not None and type_.opname in ("OpTypeImage", "OpTypeSampler", "OpTypeSampledImage",
                                                  "OpTypeAccelerationStructureKHR")
