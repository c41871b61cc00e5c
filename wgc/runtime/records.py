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
that reaches past the bytes given decodes the missing part as null, never raises; nothing here
touches Vulkan (the scheduler hands over bytes).
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

from wgc.cached_dataclass import dataclass, field
from wgc.runtime.program import Field, RecordLayout, scalar_shape

_CODES = {("uint", 8): "B", ("uint", 16): "H", ("uint", 32): "I", ("uint", 64): "Q",
          ("int", 8): "b", ("int", 16): "h", ("int", 32): "i", ("int", 64): "q",
          ("float", 16): "e", ("float", 32): "f", ("float", 64): "d", ("bool", 32): "I"}


def _base_type(type_name: str) -> str:
    return type_name.split("[", 1)[0].strip()


def _scalar(data: bytes, at: int, kind: str, bits: int) -> Any:
    code = _CODES.get((kind, bits), "I" if bits == 32 else "B")
    size = struct.calcsize(code)
    if at < 0 or at + size > len(data):
        return None
    value = struct.unpack_from("<" + code, data, at)[0]
    if kind == "bool":
        return bool(value)
    if kind == "float" and not math.isfinite(value):
        return str(value)               # JSON has no NaN or infinity: "nan", "inf", "-inf"
    return value


def _value(data: bytes, at: int, item: Field, element_size: int) -> Any:
    """One element (no array dimension) of a non-struct field at byte `at`."""
    kind, bits, shape, _ = scalar_shape(_base_type(item.type), element_size)
    step = bits // 8
    if not shape:
        return _scalar(data, at, kind, bits)
    if len(shape) == 1:
        return [_scalar(data, at + k * step, kind, bits) for k in range(shape[0])]
    rows, columns = shape
    if item.row_major:
        stride = item.matrix_stride or columns * step
        return [[_scalar(data, at + r * stride + c * step, kind, bits) for c in range(columns)] for r in range(rows)]
    stride = item.matrix_stride or rows * step
    return [[_scalar(data, at + c * stride + r * step, kind, bits) for c in range(columns)] for r in range(rows)]


def _member(data: bytes, base: int, item: Field) -> Any:
    count = math.prod(item.array_dims) if item.array_dims else 1
    if item.array_dims and 0 in item.array_dims:
        return []
    element_size = item.size // max(1, count) if not item.array_stride else item.array_stride
    if item.fields:
        def one(at: int) -> Any:
            return {f.name: _member(data, at, f) for f in item.fields}
    else:
        def one(at: int) -> Any:
            return _value(data, at, item, element_size)
    start = base + item.offset
    if not item.array_dims:
        return one(start)
    stride = item.array_stride or element_size
    flat = [one(start + k * stride) for k in range(count)]
    for length in reversed(item.array_dims[1:]):            # nest the innermost dimensions first
        flat = [flat[i:i + length] for i in range(0, len(flat), length)]
    return flat


def decode_record(layout: RecordLayout, data: bytes) -> dict[str, Any]:
    """The fields of one record (`data`: at least the record's bytes) by name."""
    return {item.name: _member(data, 0, item) for item in layout.fields}


def decode_records(layout: RecordLayout, data: bytes, count: int, stride: int) -> list[dict[str, Any]]:
    """`count` records `stride` bytes apart (0: one record, repeated)."""
    size = layout.size
    return [decode_record(layout, data[r * stride:r * stride + size]) for r in range(count)]


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

    def to_json(self) -> dict[str, Any]:
        data = {"node": self.node, "dispatch": self.dispatch, "source": self.source, "first_record": self.first}
        if self.count is not None and self.count != len(self.records):
            data["count"] = self.count
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

    def text(self) -> str:
        """The JSON file `--dump-records` writes: a line per record, so that a diff shows one."""
        lines = ["{", '  "levels": [']
        for li, level in enumerate(self.levels):
            head = {k: v for k, v in level.to_json().items() if k != "dispatches"}
            lines.append("    " + json.dumps(head)[:-1] + ', "dispatches": [')
            lines.extend(_dispatch_lines(level.dispatches, "      "))
            lines.append("    ]}" + ("," if li + 1 < len(self.levels) else ""))
        lines.append("  ],")
        lines.append('  "waiting": [')
        lines.extend(_dispatch_lines(self.waiting, "    "))
        lines.append("  ]")
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
