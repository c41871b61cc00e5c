"""Runtime: the records that crossed each level of a run, decoded by their layouts (`--dump-records`).

Input: record bytes as they lie in the scheduler's buffers, and the node's `program.RecordLayout`
(the reflection's field layouts: names, types, offsets, array and matrix strides).
Output: JSON-shaped values: a record is {field: value}; a scalar is a number (bool: true/false;
16-, 32- and 64-bit integers and floats by their type), a vector a list, a matrix a list of its HLSL
rows, an array a (nested) list, a struct member a dict.  `RecordLog` collects, level by level, the
input records of every dispatch with where they came from (the dispatch file's entry records, or
the producing node, level, dispatch, output and, where the producing dispatch ran one thread group,
that group), and the records still waiting when a run was stopped (`--stop-after-level`).

Invariants: decoding reads only the bytes the layout names (padding is never shown); a layout
that reaches past the bytes given reads zeros there, never raises; a layout's decoder is built
once (cached) from its fields; nothing here touches Vulkan (the scheduler hands over bytes).
"""

from __future__ import annotations

import functools
import json
import math
import struct
from typing import Any, Callable

from wgc.cached_dataclass import dataclass, field
from wgc.runtime.program import Field, RecordLayout, scalar_shape

_CODES = {("uint", 8): "B", ("uint", 16): "H", ("uint", 32): "I", ("uint", 64): "Q",
          ("int", 8): "b", ("int", 16): "h", ("int", 32): "i", ("int", 64): "q",
          ("float", 16): "e", ("float", 32): "f", ("float", 64): "d", ("bool", 32): "I"}

Decoder = Callable[[Any, int], Any]
"""Reads one member (or element) from the bytes at an offset."""


def _base_type(type_name: str) -> str:
    return type_name.split("[", 1)[0].strip()


def _finite(value: float) -> Any:
    return value if math.isfinite(value) else str(value)      # JSON has no NaN or infinity: "nan", "inf"


def _values(kind: str, bits: int, count: int) -> Callable[[Any, int], list[Any]]:
    """`count` consecutive scalars of (kind, bits) as a list."""
    unpack = struct.Struct(f"<{count}{_CODES.get((kind, bits), 'I' if bits == 32 else 'B')}").unpack_from
    if kind == "bool":
        return lambda data, at: [bool(v) for v in unpack(data, at)]
    if kind == "float":
        return lambda data, at: [_finite(v) for v in unpack(data, at)]
    return lambda data, at: list(unpack(data, at))


def _element(item: Field, element_size: int) -> Decoder:
    """The decoder of one element (no array dimension) of a non-struct member."""
    kind, bits, shape, _ = scalar_shape(_base_type(item.type), element_size)
    step = bits // 8
    if not shape:
        one = _values(kind, bits, 1)
        return lambda data, at: one(data, at)[0]
    if len(shape) == 1:
        return _values(kind, bits, shape[0])
    rows, columns = shape
    if item.row_major:
        row = _values(kind, bits, columns)
        stride = item.matrix_stride or columns * step
        return lambda data, at: [row(data, at + r * stride) for r in range(rows)]
    column = _values(kind, bits, rows)
    stride = item.matrix_stride or rows * step
    return lambda data, at: [list(r) for r in zip(*(column(data, at + c * stride) for c in range(columns)))]


def _member(item: Field) -> Decoder:
    """The decoder of a member at its offset from the enclosing struct's start."""
    count = math.prod(item.array_dims) if item.array_dims else 1
    if item.array_dims and 0 in item.array_dims:
        return lambda data, base: []
    element_size = item.array_stride or item.size // max(1, count)
    one: Decoder
    if item.fields:
        members = [(f.name, _member(f)) for f in item.fields]
        one = lambda data, at: {name: read(data, at) for name, read in members}       # noqa: E731
    else:
        one = _element(item, element_size)
    offset = item.offset
    if not item.array_dims:
        return lambda data, base: one(data, base + offset)
    stride = item.array_stride or element_size
    inner = item.array_dims[1:]

    def array(data: bytes, base: int) -> list[Any]:
        flat = [one(data, base + offset + k * stride) for k in range(count)]
        for length in reversed(inner):            # nest the innermost dimensions first
            flat = [flat[i:i + length] for i in range(0, len(flat), length)]
        return flat
    return array


@functools.lru_cache(maxsize=256)
def _decoder(layout: RecordLayout) -> Callable[[Any], dict[str, Any]]:
    """The decoder of a whole record: bytes (or a memoryview of them) to {field: value}."""
    members = [(item.name, _member(item)) for item in layout.fields]
    return lambda data: {name: read(data, 0) for name, read in members}


def decode_record(layout: RecordLayout, data: bytes) -> dict[str, Any]:
    """The fields of one record (`data`: its bytes; missing ones read as zeros) by name."""
    if len(data) < layout.size:
        data = bytes(data) + bytes(layout.size - len(data))
    return _decoder(layout)(data)


def decode_records(layout: RecordLayout, data: bytes, count: int, stride: int) -> list[dict[str, Any]]:
    """`count` records `stride` bytes apart (0: one record, repeated)."""
    size = layout.size
    end = (count - 1) * stride + size if count else 0
    if len(data) < end:
        data = bytes(data) + bytes(end - len(data))
    decode = _decoder(layout)
    if not stride:
        return [decode(data) for _ in range(count)]
    view = memoryview(data)
    return [decode(view[r * stride:r * stride + size]) for r in range(count)]


MAX_RECORDS = 1 << 20
"""Records a `RecordLog` decodes in all (a record is a few hundred bytes of Python objects); more
are counted, not kept."""


@dataclass
class DispatchRecords:
    """The inputs of one dispatch of a level."""

    node: str
    dispatch: int
    """Its index among the level's dispatches (the order of `--trace`)."""
    records: list[dict[str, Any]]
    source: dict[str, Any] | None
    """Where the records came from: {"input": k} (the dispatch file's k-th input), or the producer
    {"node", "level", "dispatch", "output", "index" (node arrays), "group" (or null)}."""
    first: int = 0
    """The index of its first record among those its producer wrote to that output (a split batch)."""
    count: int | None = None
    """Its records in all, where the log's limit kept fewer (`records` holds the first ones)."""
    groups: list[list[int]] | None = None
    """The producer's thread groups that wrote `records`, in runs: [[group, how many records], ...]
    in record order (None: not known; `schedules.MAX_TRACKED_GROUPS`)."""

    def to_json(self) -> dict[str, Any]:
        data = {"node": self.node, "dispatch": self.dispatch, "source": self.source, "first_record": self.first}
        if self.count is not None and self.count != len(self.records):
            data["count"] = self.count
        if self.groups is not None:
            data["groups"] = self.groups
        data["records"] = self.records
        return data


@dataclass
class LevelRecords:
    repeat: int
    level: int
    seconds: float = 0.0
    """Host time of the level (record, submit, wait, read back)."""
    dispatches: list[DispatchRecords] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"repeat": self.repeat, "level": self.level, "milliseconds": round(self.seconds * 1e3, 3),
                "dispatches": [d.to_json() for d in self.dispatches]}


@dataclass
class RecordLog:
    """Every level's input records (`nodes`: the labels to keep; empty: all)."""

    nodes: tuple[str, ...] = ()
    levels: list[LevelRecords] = field(default_factory=list)
    waiting: list[DispatchRecords] = field(default_factory=list)
    """Records produced for the level after a stopped run's last one, by target node."""
    limit: int = MAX_RECORDS
    kept: int = 0
    left_out: int = 0
    """Records not decoded because `limit` were already kept."""

    def take(self, count: int) -> int:
        """How many of `count` more records to keep (the rest are counted in `left_out`)."""
        keep = max(0, min(count, self.limit - self.kept))
        self.kept += keep
        self.left_out += count - keep
        return keep

    def wants(self, label: str, name: str) -> bool:
        return not self.nodes or label in self.nodes or name in self.nodes

    def to_json(self) -> dict[str, Any]:
        return {"levels": [level.to_json() for level in self.levels],
                "waiting": [w.to_json() for w in self.waiting]}

    def text(self, partial: dict[str, Any] | None = None) -> str:
        """The JSON file `--dump-records` writes: a line per record, so that a diff shows one; a run
        that failed (`partial`: `RunResult.partial`) says so in a last field, "partial"."""
        lines = ["{", '  "levels": [']
        for li, level in enumerate(self.levels):
            head = {k: v for k, v in level.to_json().items() if k != "dispatches"}
            lines.append("    " + json.dumps(head)[:-1] + ', "dispatches": [')
            lines.extend(_dispatch_lines(level.dispatches, "      "))
            lines.append("    ]}" + ("," if li + 1 < len(self.levels) else ""))
        lines.append("  ],")
        lines.append('  "waiting": [')
        lines.extend(_dispatch_lines(self.waiting, "    "))
        lines.append("  ]" + (f',\n  "partial": {json.dumps(partial)}' if partial is not None else ""))
        lines.append("}")
        return "\n".join(lines) + "\n"


def _dispatch_lines(dispatches: list[DispatchRecords], indent: str) -> list[str]:
    lines = []
    for di, d in enumerate(dispatches):
        head = {k: v for k, v in d.to_json().items() if k != "records"}
        lines.append(indent + json.dumps(head)[:-1] + ', "records": [')
        lines.extend(f"{indent}  {json.dumps(r)}" + ("," if ri + 1 < len(d.records) else "")
                     for ri, r in enumerate(d.records))
        lines.append(indent + "]}" + ("," if di + 1 < len(dispatches) else ""))
    return lines


__all__ = ["decode_record", "decode_records", "RecordLog", "LevelRecords", "DispatchRecords"]
