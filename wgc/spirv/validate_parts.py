"""Validation of a module of many entry points in parts, so that its cost grows linearly (SPIR-V back end).

Input: a module's words (what `module.py` assembled, or `optimize.py` returned), the target
environment, the validator's options.
Output: `validate` -> the validator's messages, as `wgc.spirv.tools.validate` gives them ([] when
valid).

Why: spirv-val (SPIRV-Tools 2025.5) checks each OpEntryPoint by scanning every instruction before
the module's first OpFunction (it looks for a WorkgroupSize built-in and LocalSizeId modes), so one
run over a module of E entry points costs E times the size of the module's global sections: a graph
of 2,000 nodes spends most of its validation there, 5,000 nodes four times as long per node.

What is validated, precisely:
- A module of at most `PART_ENTRY_POINTS` entry points, or one this module cannot split (decoration
  groups, instructions it does not place), is validated whole, as before.
- A larger one is cut into parts of `PART_ENTRY_POINTS` consecutive entry points. A part is a
  module of its own: the same header (id bound included), every OpCapability, OpExtension,
  OpExtInstImport, OpMemoryModel and debug string, its OpEntryPoints and their execution modes,
  and everything they reach, transitively, in the module's own order: the functions they call,
  the types, constants and variables any of these name, and the names and decorations of all of
  them. What no entry point reaches joins the last part, so every instruction of the module is
  validated in at least one part. Each part must pass spirv-val; across parts this module checks
  the rules one part cannot see: no id is defined twice, no two entry points share an execution
  model and a name, and every execution mode is one of an entry point.
- Any doubt goes to the whole module: a part that fails is not the verdict; the whole module is
  then validated and its messages are returned (a failure is always spirv-val's own, on the whole
  module).
"""

from __future__ import annotations

import functools

from wgc.spirv import grammar, tools

PART_ENTRY_POINTS = 64
"""Entry points per part (and the most a module may have to be validated whole)."""

_HEADER_WORDS = 5
# instructions by the section they belong to, by opcode
_COMMON = frozenset(("OpCapability", "OpExtension", "OpExtInstImport", "OpMemoryModel", "OpString", "OpSource",
                     "OpSourceExtension", "OpSourceContinued", "OpModuleProcessed"))
_ATTACHED = frozenset(("OpName", "OpMemberName", "OpDecorate", "OpMemberDecorate", "OpDecorateId",
                       "OpDecorateString", "OpMemberDecorateString"))
_MODES = frozenset(("OpExecutionMode", "OpExecutionModeId"))
# where a global instruction names ids (words from, words to; None: to its end), when not everywhere
_ID_WORDS: dict[str, tuple[tuple[int, int | None], ...]] = {
    "OpTypeInt": (), "OpTypeFloat": (), "OpConstantStringAMDX": (), "OpSpecConstantStringAMDX": (),
    "OpConstant": ((1, 2),), "OpSpecConstant": ((1, 2),),
    "OpTypeVector": ((2, 3),), "OpTypeMatrix": ((2, 3),), "OpTypeImage": ((2, 3),), "OpTypePointer": ((3, 4),),
    "OpVariable": ((1, 2), (4, None)), "OpSpecConstantOp": ((1, 2), (4, None)),
    "OpDecorateId": ((3, None),), "OpExecutionModeId": ((3, None),),
    "OpName": (), "OpMemberName": (), "OpDecorate": (), "OpMemberDecorate": (), "OpDecorateString": (),
    "OpMemberDecorateString": (), "OpExecutionMode": (),
}
"""Ids named by literals are never followed (a constant's value is not an id); elsewhere in the
global sections every word is taken for an id (`split` keeps only defined ones: at worst a part
holds a global more than it needs)."""


@functools.cache
def _layout(code: int) -> tuple[str, int]:
    """(name, word of the result id: 0 none, 1, or 2 after a result type) of opcode `code`."""
    info = grammar.instruction_by_opcode(code)
    return info.name, (2 if info.has_result_type else 1) if info.has_result else 0


def validate(words: list[int], target_env: str, *, scalar_block_layout: bool = False) -> list[str]:
    """spirv-val's verdict on `words` (see the module docstring): [] when valid, else its messages."""
    parts = split(words) if _more_entry_points(words, PART_ENTRY_POINTS) else None
    if parts is not None and all(not tools.validate(part, target_env, scalar_block_layout=scalar_block_layout)
                                 for part in parts):
        return []
    return tools.validate(words, target_env, scalar_block_layout=scalar_block_layout)


def _more_entry_points(words: list[int], limit: int) -> bool:
    """Whether `words` may hold more than `limit` OpEntryPoints: counted over the instructions before
    the first OpFunction (where they all are), from the headers only; True where the walk cannot
    tell (a malformed count), so that `split` decides. A module `split` would not cut is not decoded
    for nothing (most modules: a decode of every instruction)."""
    entry_point, function = grammar.opcode("OpEntryPoint"), grammar.opcode("OpFunction")
    at, size, found = _HEADER_WORDS, len(words), 0
    while at < size:
        head = words[at]
        code, count = head & 0xFFFF, head >> 16
        if code == function:
            return False
        if code == entry_point:
            found += 1
            if found > limit:
                return True
        if count == 0:
            return True
        at += count
    return False


def split(words: list[int], part_entry_points: int = PART_ENTRY_POINTS) -> list[list[int]] | None:
    """The parts of `words` to validate (see the module docstring), or None: validate it whole."""
    if len(words) < _HEADER_WORDS:
        return None
    spans: list[tuple[int, int]] = []           # (start, end) word of each instruction
    common: list[int] = []                      # instruction indices in every part
    entries: list[int] = []
    modes: dict[int, list[int]] = {}            # entry function -> its execution modes
    attached: dict[int, list[int]] = {}         # id -> its names and decorations
    global_of: dict[int, int] = {}              # id -> the global instruction defining it
    functions: dict[int, tuple[int, int]] = {}  # function id -> (first, last) instruction index
    local_owner: dict[int, int] = {}            # id defined in a function -> the function
    callees: dict[int, list[int]] = {}          # function -> the functions it calls
    names: list[str] = []                       # the opcode name of each instruction
    entry_names: set[tuple[int, bytes]] = set()
    defined: set[int] = set()                   # every result id so far (each is defined once)
    current: int | None = None
    at, index = _HEADER_WORDS, 0
    try:
        while at < len(words):
            count, code = words[at] >> 16, words[at] & 0xFFFF
            if count == 0 or at + count > len(words):
                return None
            name, result_at = _layout(code)
            result = words[at + result_at] if result_at else None
            spans.append((at, at + count))
            names.append(name)
            if result is not None:
                if result in defined:
                    return None
                defined.add(result)
            if current is not None:
                if result is not None:
                    local_owner[result] = current
                if name == "OpFunctionCall":
                    callees[current].append(words[at + 3])
                elif name == "OpFunctionEnd":
                    functions[current] = (functions[current][0], index)
                    current = None
            elif name == "OpFunction":
                if result is None:
                    return None
                current = result
                functions[result] = (index, index)
                callees[result] = []
            elif name in _COMMON:
                common.append(index)
            elif name == "OpEntryPoint":
                key = (words[at + 1], _string_bytes(words, at + 3, at + count))
                if key in entry_names:
                    return None
                entry_names.add(key)
                entries.append(index)
            elif name in _MODES:
                modes.setdefault(words[at + 1], []).append(index)
            elif name in _ATTACHED:
                attached.setdefault(words[at + 1], []).append(index)
            elif result is not None:
                global_of[result] = index
            else:                                # OpLine, decoration groups, ...: not placed here
                return None
            at += count
            index += 1
    except KeyError:                             # an opcode the grammar does not know
        return None
    if current is not None or len(entries) <= part_entry_points:
        return None
    if set(modes) - {words[spans[entry][0] + 2] for entry in entries}:
        return None                              # a mode of something that is no entry point: no part holds it
    globals_ = set(global_of)
    known = globals_ | set(functions)
    common_ids = {words[spans[i][0] + _layout(words[spans[i][0]] & 0xFFFF)[1]] for i in common
                  if _layout(words[spans[i][0]] & 0xFFFF)[1]}
    local_attached: dict[int, list[int]] = {}   # function -> the names and decorations of its ids
    for id_, items in attached.items():
        if id_ in local_owner:
            local_attached.setdefault(local_owner[id_], []).extend(items)
        elif id_ in common_ids:
            common.extend(items)
        elif id_ not in known:                   # names or decorates nothing defined
            return None
    common.sort()
    chosen_everywhere: set[int] = set()

    def uses(item: int) -> set[int]:
        """The defined ids global instruction `item` names."""
        start, end = spans[item]
        pieces = _ID_WORDS.get(names[item], ((1, None),))
        found: set[int] = set()
        for first, last in pieces:
            found.update(words[start + first:end if last is None else start + last])
        return found & known

    def closure(roots: set[int], taken: set[int]) -> set[int]:
        """Every id `roots` reach (definitions, callees, what names and decorations name)."""
        todo = [r for r in roots if r not in taken]
        taken.update(todo)
        while todo:
            id_ = todo.pop()
            if id_ in functions:                 # its callees, and every global word in it
                first, last = functions[id_]
                more = set(words[spans[first][0]:spans[last][1]]) & globals_
                more.update(callees[id_])
                for item in local_attached.get(id_, ()):
                    more |= uses(item)
            else:
                more = uses(global_of[id_])
            for item in attached.get(id_, ()):
                more |= uses(item)
            fresh = more - taken
            taken |= fresh
            todo.extend(fresh)
        return taken

    groups = [entries[i:i + part_entry_points] for i in range(0, len(entries), part_entry_points)]
    reached: list[set[int]] = []
    for group in groups:
        roots: set[int] = set()
        for entry in group:
            start, end = spans[entry]
            function = words[start + 2]
            if function not in functions:
                return None
            roots.add(function)
            roots.update(set(words[_string_end(words, start + 3, end):end]) & known)   # its interface
            for mode in modes.get(function, ()):
                roots |= uses(mode)
        reached.append(closure(roots, set()))
        chosen_everywhere |= reached[-1]
    reached[-1] = closure(known - chosen_everywhere, reached[-1])  # what nothing reaches: the last part
    return [_assemble(words, spans, common, group, modes, attached, local_attached, functions, global_of, ids)
            for group, ids in zip(groups, reached, strict=True)]


def _string_end(words: list[int], start: int, end: int) -> int:
    """The word after the literal string starting at word `start`."""
    for at in range(start, end):
        if not words[at] & 0xFF000000:               # its last byte is the terminating zero (or after it)
            return at + 1
    return end


def _string_bytes(words: list[int], start: int, end: int) -> bytes:
    """The bytes of the literal string starting at word `start` (up to its terminating zero)."""
    data = b"".join(w.to_bytes(4, "little") for w in words[start:end])
    return data.partition(b"\0")[0]


def _assemble(words: list[int], spans: list[tuple[int, int]], common: list[int], group: list[int],
              modes: dict[int, list[int]], attached: dict[int, list[int]], local_attached: dict[int, list[int]],
              functions: dict[int, tuple[int, int]], global_of: dict[int, int], ids: set[int]) -> list[int]:
    """The part holding `group`'s entry points and the ids `ids`, in the module's order."""
    keep = set(common) | set(group)
    for entry in group:
        keep.update(modes.get(words[spans[entry][0] + 2], ()))
    for id_ in ids:
        if id_ in functions:
            first, last = functions[id_]
            keep.update(range(first, last + 1))
            keep.update(local_attached.get(id_, ()))
        else:
            keep.add(global_of[id_])
        keep.update(attached.get(id_, ()))
    part = list(words[:_HEADER_WORDS])
    for index in sorted(keep):
        start, end = spans[index]
        part.extend(words[start:end])
    return part
