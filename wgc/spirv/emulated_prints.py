"""printf in the emulated target: records appended to the print buffer (SPIR-V back end).

Input: a `printf(format, args...)` call that `intrinsics._printf` hands over when the target is
`emulated` (the format already folded to a literal: sema, WG0626), and the entry prologue of each
node (`emulated.EmulatedNodes.begin_entry`).
Output: instructions that append one print record to the buffer at NodeContext's `prints`, and one
`OpString` per distinct (format, argument types, place in the source) that describes it to the runtime
(`wgc.emulation_abi`, "Prints": the record's words and the description's JSON are defined there).

Invariants:
- A module without a printf gets nothing from this module: no variable, no instruction, no string.
- In a module with one, each entry prologue stores its flat group and record index in two
  Private variables, so that a print in a helper function (not inlined) reports them as the entry
  function does.
- The buffer is bounded: a record that does not fit is not written and counts in `lost`; once
  `used` has reached the capacity a call adds 0 to it (it cannot wrap around); a buffer address
  of 0 makes the call do nothing.
- Arguments become 32-bit words: bool 0/1, 16-bit values widened (floats to float32), 64-bit
  values split low word first; vectors and matrices component by component.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from wgc import emulation_abi as abi
from wgc import ir
from wgc import types as t
from wgc.irtools import walk
from wgc.irtools.consteval import Folded, fold

from .emulated_memory import load_scalar as _load
from .emulated_memory import offset as _add
from .emulated_memory import pointer as _pointer

if TYPE_CHECKING:
    from .lower import FunctionLowering, ModuleLowering

_U64 = t.UINT64


class PrintState:
    """Per module: whether it prints, its formats, and the Private copies of the prologue's values."""

    def __init__(self, ml: ModuleLowering) -> None:
        self.active = any(isinstance(e, ir.IntrinsicCall) and e.name == "printf"
                          for f in ml.module.functions for e in walk.all_exprs(f))
        self.formats: dict[str, int] = {}
        """[format, kinds, strings] as JSON -> format id."""
        self.flat: int | None = None
        self.record: int | None = None

    def private(self, fl: FunctionLowering) -> tuple[int, int]:
        """The Private variables holding the flat group index and the record index."""
        if self.flat is None or self.record is None:
            pointer = fl.b.type_pointer("Private", fl.types.id(t.UINT))
            self.flat = fl.b.variable(pointer, "Private")
            self.record = fl.b.variable(pointer, "Private")
            fl.b.name(self.flat, "print_group")
            fl.b.name(self.record, "print_record")
        fl.use_global(self.flat)
        fl.use_global(self.record)
        return self.flat, self.record


def begin_entry(fl: FunctionLowering, state: PrintState, flat: int, record: int) -> None:
    """In a module that prints: keep the prologue's flat group and record index for helpers."""
    if not state.active:
        return
    flat_var, record_var = state.private(fl)
    fl.b.emit("OpStore", flat_var, flat)
    fl.b.emit("OpStore", record_var, record)


def lower_printf(fl: FunctionLowering, state: PrintState, context: int, entry: tuple[int, int] | None,
                 format_: str, args: list[ir.Expr]) -> None:
    """Append one print record (module docstring); `context` is the u64 NodeContext address,
    `entry` the prologue's (flat group, record index) in an entry function, None in a helper."""
    b = fl.b
    uint, boolean = fl.types.id(t.UINT), b.type_bool()
    words: list[int] = []
    kinds: list[str] = []
    strings: list[str] = []
    for arg in args:
        if isinstance(arg.type, t.StringType):
            folded = fold(arg)
            assert isinstance(folded, Folded) and isinstance(folded.value, str), "sema.target: WG0626"
            strings.append(folded.value)
            kinds.append("s")
            continue
        kind, parts = _argument_words(fl, arg)
        words.extend(parts)
        kinds.append(kind)
    span = fl.current_span
    where = {}
    if span is not None:
        line, column = span.line_col
        where = {"file": span.file.path, "line": line, "column": column}
    key = json.dumps([format_, kinds, strings, where])
    format_id = state.formats.get(key)
    if format_id is None:
        format_id = state.formats[key] = len(state.formats)
        description = {"id": format_id, "format": format_, "args": kinds, "strings": strings, **where}
        b.string(abi.PRINT_FORMAT_PREFIX + json.dumps(description, ensure_ascii=True))
    if entry is not None:
        flat, record = entry
    else:
        flat_var, record_var = state.private(fl)
        flat = b.emit("OpLoad", uint, flat_var)
        record = b.emit("OpLoad", uint, record_var)
    thread = fl.ml.builtin("LocalInvocationIndex", t.UINT)
    fl.use_global(thread)
    u64 = fl.types.id(_U64)
    offset, _ = abi.NODE_CONTEXT["prints"]
    buffer = _load(fl, _add(fl, context, offset), _U64)
    present, done = b.new_id(), b.new_id()
    has_buffer = b.emit("OpINotEqual", boolean, buffer, b.constant_uint(0, 64))
    b.emit("OpSelectionMerge", done, "None")
    b.emit("OpBranchConditional", has_buffer, present, done)
    fl.new_block(present)
    n = fl.uint(abi.PRINT_RECORD_HEADER_WORDS + len(words))
    used = _pointer(fl, _add(fl, buffer, abi.PRINT_BUFFER["used"][0]), t.UINT)
    capacity = _load(fl, _add(fl, buffer, abi.PRINT_BUFFER["capacity"][0]), t.UINT)
    # a full buffer takes nothing more, so that `used` cannot wrap around however many calls follow
    full = b.emit("OpUGreaterThanEqual", boolean,
                  b.emit("OpAtomicLoad", uint, used, fl.ml.scope("Device"), fl.ml.semantics()), capacity)
    taken = b.emit("OpSelect", uint, full, fl.uint(0), n)
    base = b.emit("OpAtomicIAdd", uint, used, fl.ml.scope("Device"), fl.ml.semantics(), taken)
    fits = b.emit("OpLogicalAnd", boolean, b.emit("OpLogicalNot", boolean, full), b.emit(
        "OpLogicalAnd", boolean, b.emit("OpULessThanEqual", boolean, base, capacity),
        b.emit("OpULessThanEqual", boolean, n, b.emit("OpISub", uint, capacity, base))))
    write, lose, inner = b.new_id(), b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", inner, "None")
    b.emit("OpBranchConditional", fits, write, lose)
    fl.new_block(write)
    first = b.emit("OpIAdd", u64, _add(fl, buffer, abi.PRINT_HEADER_SIZE),
                   b.emit("OpIMul", u64, b.emit("OpUConvert", u64, base), b.constant_uint(4, 64)))
    low = b.emit("OpUConvert", uint, context)
    high = b.emit("OpUConvert", uint, b.emit("OpShiftRightLogical", u64, context, b.constant_uint(32, 64)))
    values = [n, fl.uint(format_id), low, high, flat, b.emit("OpLoad", uint, thread), record, *words]
    for i, value in enumerate(values):
        b.emit("OpStore", _pointer(fl, _add(fl, first, 4 * i), t.UINT), value, "Aligned", 4)
    b.emit("OpBranch", inner)
    fl.new_block(lose)
    end, mark, marked = b.emit("OpULessThan", boolean, base, capacity), b.new_id(), b.new_id()
    b.emit("OpSelectionMerge", marked, "None")
    b.emit("OpBranchConditional", end, mark, marked)
    fl.new_block(mark)                           # a size of 0 ends the records the runtime reads
    at = b.emit("OpIAdd", u64, _add(fl, buffer, abi.PRINT_HEADER_SIZE),
                b.emit("OpIMul", u64, b.emit("OpUConvert", u64, base), b.constant_uint(4, 64)))
    b.emit("OpStore", _pointer(fl, at, t.UINT), fl.uint(0), "Aligned", 4)
    b.emit("OpBranch", marked)
    fl.new_block(marked)
    lost = _pointer(fl, _add(fl, buffer, abi.PRINT_BUFFER["lost"][0]), t.UINT)
    b.emit("OpAtomicIAdd", uint, lost, fl.ml.scope("Device"), fl.ml.semantics(), fl.uint(1))
    b.emit("OpBranch", inner)
    fl.new_block(inner)
    b.emit("OpBranch", done)
    fl.new_block(done)


def _argument_words(fl: FunctionLowering, arg: ir.Expr) -> tuple[str, list[int]]:
    """(kind, u32 word ids) of a numeric argument (the description's letter and count)."""
    scalar = t.element_scalar(arg.type)
    assert scalar is not None, f"sema: printf takes numbers, vectors and string literals, not {arg.type}"
    value = fl.value(arg)
    components: list[int] = []
    scalar_id = fl.types.id(scalar)
    if isinstance(arg.type, t.VectorType):
        components = [fl.b.emit("OpCompositeExtract", scalar_id, value, i) for i in range(arg.type.count)]
    elif isinstance(arg.type, t.MatrixType):
        components = [fl.b.emit("OpCompositeExtract", scalar_id, value, r, c)
                      for r in range(arg.type.rows) for c in range(arg.type.columns)]
    else:
        components = [value]
    letter = ""
    words: list[int] = []
    for component in components:
        letter, parts = _scalar_words(fl, component, scalar)
        words.extend(parts)
    count = len(components)
    return letter + (str(count) if not isinstance(arg.type, t.ScalarType) else ""), words


def _scalar_words(fl: FunctionLowering, value: int, scalar: t.ScalarType) -> tuple[str, list[int]]:
    b = fl.b
    uint, u64 = fl.types.id(t.UINT), fl.types.id(_U64)
    kind = scalar.kind
    if kind is t.ScalarKind.BOOL:
        return "b", [b.emit("OpSelect", uint, value, fl.uint(1), fl.uint(0))]
    if scalar.bits == 64:
        wide = b.emit("OpBitcast", u64, value)
        low = b.emit("OpUConvert", uint, wide)
        high = b.emit("OpUConvert", uint, b.emit("OpShiftRightLogical", u64, wide, b.constant_uint(32, 64)))
        return {"uint": "U", "int": "I", "float": "F"}[kind.value], [low, high]
    if kind is t.ScalarKind.FLOAT:
        if scalar.bits != 32:
            value = b.emit("OpFConvert", fl.types.id(t.FLOAT), value)
        return "f", [b.emit("OpBitcast", uint, value)]
    if scalar.bits != 32:
        if kind is t.ScalarKind.INT:
            value = b.emit("OpBitcast", uint, b.emit("OpSConvert", fl.types.id(t.INT), value))
        else:
            value = b.emit("OpUConvert", uint, value)
    elif kind is t.ScalarKind.INT:
        value = b.emit("OpBitcast", uint, value)
    return ("i" if kind is t.ScalarKind.INT else "u"), [value]