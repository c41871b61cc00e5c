"""Runtime input: the dispatch description (`dispatch.json`) read and checked against a program.

Input: the JSON text of a dispatch description (schema in docs/reference.md, "The dispatch description") and the
`program.Program` it drives.  Output: a `Dispatch` (entry records as bytes in wgc's own record
layout, resource contents: buffer bytes, texture and typed-buffer texels with their format and
extent, sampler descriptions; root constants, local root arguments, repeat count), or located
diagnostics (WG0800-WG0803, WG0807, WG0808) pointing into the JSON text.

Invariants: every problem is a diagnostic with the span of the JSON value at fault (never an
exception); records written by field name go through the record layouts of the compile's
reflection (the offsets the SPIR-V module is decorated with); missing record fields are zero;
nothing here touches Vulkan. Memory: the bytes of every resource, texture, entry-record list,
"hex" string and table are counted against the run's bound (`memory_limit`, `wgc run
--max-memory`) before they are made, so `{"bytes": 99999999999}` is WG0811 at that value, not
an allocation; raw records with stride 0 are one record repeated, never expanded here.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Sequence
from typing import Any

from wgc import codes
from wgc.cached_dataclass import dataclass, field
from wgc.diagnostics import Diagnostic, DiagnosticKind
from wgc.runtime.formats import FORMATS, Format, default_format
from wgc.runtime.located_json import JsonSyntaxError, Located, parse_located
from wgc.runtime.program import (Field, NodePlan, Program, RecordLayout, ResourcePlan, grid_problem, record_grid,
                                 scalar_shape)
from wgc.runtime.pipelines import SpecConstantInfo
from wgc.source import SourceFile
from wgc.suggest import closest, listing

ARRAY_FORMATS: dict[str, str] = {
    "uint8": "B", "uint16": "H", "uint32": "I", "uint64": "Q",
    "int8": "b", "int16": "h", "int32": "i", "int64": "q",
    "float16": "e", "float": "f", "float32": "f", "float64": "d",
}
"""The typed arrays resources and root constants may be written as, and their `struct` codes."""

TOP_LEVEL_KEYS = ("inputs", "resources", "root_constants", "local_root_arguments", "repeat", "specialization",
                  "render_target")
MAX_REPEAT = 1 << 20
MAX_GRID_GROUPS = (1 << 24) - 1
"""A dispatch grid's most groups (x*y*z; each component 1..65535: D3D12's NodeDispatchGrid rules)."""


@dataclass
class EntryInput:
    node: NodePlan
    data: bytes
    count: int
    stride: int
    where: Located | None = None
    """The "records" value (diagnostics about these records point at it)."""


@dataclass
class TextureData:
    """One texture (or typed buffer: only `width`): its texels, mip level by mip level (largest
    first), in each level layer by layer, then z, y, x (x fastest)."""

    format: Format
    width: int
    height: int
    depth: int
    layers: int
    mips: int
    data: bytearray

    def level_extent(self, level: int) -> tuple[int, int, int]:
        return (max(1, self.width >> level), max(1, self.height >> level), max(1, self.depth >> level))

    def level_bytes(self, level: int) -> int:
        w, h, d = self.level_extent(level)
        return w * h * d * self.layers * self.format.texel_bytes

    @property
    def size(self) -> int:
        return sum(self.level_bytes(level) for level in range(self.mips))


@dataclass(frozen=True)
class SamplerData:
    """A sampler description, in VkSamplerCreateInfo's terms (numbers are Vulkan enum values)."""

    mag_filter: int
    min_filter: int
    mip_filter: int
    address: tuple[int, int, int]
    compare: int | None
    """VkCompareOp, or None for a sampler that does not compare."""
    border: int
    mip_lod_bias: float
    min_lod: float
    max_lod: float


Descriptor = TextureData | SamplerData


@dataclass
class ResourceData:
    resource: ResourcePlan
    data: bytearray
    """Buffers: their bytes (empty for textures, typed buffers and samplers)."""
    key: str
    """The key the description used ("u0", "space1/t2", a name)."""
    descriptors: list[Descriptor] = field(default_factory=list)
    """Textures, typed buffers and samplers: one per array element (one for a single one)."""


@dataclass
class Dispatch:
    inputs: list[EntryInput] = field(default_factory=list)
    data_bytes: int = 0
    """The bytes of everything below: what the run's memory bound has left for records."""
    resources: dict[str, ResourceData] = field(default_factory=dict)
    """By resource name."""
    root_constants: bytes = b""
    local_root_arguments: tuple[int, bytes] | None = None
    """(stride, table bytes)."""
    local_root_addresses: list[tuple[int, str]] = field(default_factory=list)
    """(byte offset in the table, resource name): root descriptors whose 8 bytes are the device address of
    that resource's buffer, written when the run makes its buffers ("@Name" in "entries")."""
    repeat: int = 1
    specialization: dict[int, bytes] = field(default_factory=dict)
    """SpecId -> the bytes the pipelines specialise it to ("specialization")."""
    render_target: Any = None
    """The `render_target.RenderTarget` of a graph with mesh nodes ("render_target" or its defaults)."""


class _Invalid(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _fail(where: Located, message: str, kind: DiagnosticKind = codes.DISPATCH_INVALID,
          notes: tuple[str, ...] = ()) -> _Invalid:
    return _Invalid(kind(where.span, message, notes=notes))


class _Allotment:
    """The bytes of the dispatch's data made so far, against the run's memory bound."""

    def __init__(self, limit: int) -> None:
        self.limit, self.used = limit, 0

    def take(self, where: Located, size: int, what: str) -> None:
        """Count `size` bytes of `what` (before they are made); WG0811 at `where` past the bound."""
        if self.used + size > self.limit:
            before = f" with the {self.used} bytes given before it" if self.used else ""
            raise _fail(where, f"{what} takes {size} bytes;{before} that is more than the {self.limit} bytes "
                               "wgc run may use", codes.DISPATCH_TOO_LARGE,
                        notes=("the bound is wgc run's --max-memory (default 1G)",))
        self.used += size


_allotment = _Allotment(0)
"""The allotment of the `read_dispatch` running (set by it)."""


def read_dispatch(source: SourceFile, program: Program, memory_limit: int | None = None,
                  spec_constants: Sequence[SpecConstantInfo] = ()) -> tuple[Dispatch | None, list[Diagnostic]]:
    """Parse and check `source` against `program`; (dispatch, []) or (None, diagnostics).
    `memory_limit`: the bytes a run may use (default `scheduler.DEFAULT_MEMORY_LIMIT`);
    `spec_constants`: the module's specialization constants ("specialization" names them)."""
    global _allotment
    from wgc.runtime.scheduler import DEFAULT_MEMORY_LIMIT

    _allotment = _Allotment(DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit)
    try:
        root = parse_located(source)
    except JsonSyntaxError as problem:
        return None, [codes.DISPATCH_INVALID(problem.span, f"invalid JSON: {problem.message}")]
    diagnostics: list[Diagnostic] = []
    dispatch = Dispatch()
    if not isinstance(root.value, dict):
        return None, [codes.DISPATCH_INVALID(root.span, "a dispatch description is a JSON object "
                                             "(with \"inputs\", \"resources\", ...)")]
    for key, span in root.keys.items():
        if key not in TOP_LEVEL_KEYS:
            close = closest(key, TOP_LEVEL_KEYS)
            diagnostics.append(codes.DISPATCH_INVALID(span, f"unknown member '{key}' (expected one of "
                                                      f"{', '.join(TOP_LEVEL_KEYS)})",
                                                      notes=[f"did you mean '{close[0]}'?"] if close else []))
    members = root.value
    steps = [("inputs", _inputs), ("resources", _resources), ("root_constants", _root_constants),
             ("local_root_arguments", _local_root_arguments), ("repeat", _repeat)]
    for key, reader in steps:
        if key not in members:
            continue
        try:
            reader(members[key], program, dispatch, diagnostics)
        except _Invalid as problem:
            diagnostics.append(problem.diagnostic)
    if "specialization" in members:
        try:
            _specialization(members["specialization"], program, spec_constants, dispatch, diagnostics)
        except _Invalid as problem:
            diagnostics.append(problem.diagnostic)
    from wgc.runtime.render_target import read_render_target

    dispatch.render_target, problems = read_render_target(members.get("render_target"), program)
    diagnostics.extend(problems)
    if dispatch.render_target is not None and not diagnostics:
        try:
            _allotment.take(members.get("render_target", root), dispatch.render_target.bytes, "the render target")
        except _Invalid as problem:
            diagnostics.append(problem.diagnostic)
    if diagnostics:
        return None, diagnostics
    dispatch.data_bytes = _allotment.used
    return dispatch, []


# --------------------------------------------------------------------------- specialization

def read_specialization(source: SourceFile, program: Program,
                        spec_constants: Sequence[SpecConstantInfo] = ()) -> dict[int, bytes]:
    """The valid entries of `source`'s "specialization" alone (SpecId -> bytes), read before the rest
    so that the graph can be read with them first; `read_dispatch` reports the invalid ones."""
    try:
        root = parse_located(source)
    except JsonSyntaxError:
        return {}
    if not isinstance(root.value, dict) or "specialization" not in root.value:
        return {}
    dispatch = Dispatch()
    try:
        _specialization(root.value["specialization"], program, spec_constants, dispatch, [])
    except _Invalid:
        pass
    return dispatch.specialization


def _specialization(value: Located, program: Program, spec_constants: Sequence[SpecConstantInfo],
                    dispatch: Dispatch, diagnostics: list[Diagnostic]) -> None:
    """"specialization": {"<name or SpecId>": value}: the values the pipelines get for the module's
    specialization constants.  One that shapes the graph (a grid, MaxRecords, an array size) is
    refused (WG0812) unless the graph can be read or compiled again with it
    (`Program.graph_specializable`: not a compile's `Result` given to `wgc.run`)."""
    if not isinstance(value.value, dict):
        raise _fail(value, "'specialization' is an object {\"<constant name or constant_id>\": value, ...}")
    by_name = {c.name: c for c in spec_constants if c.name}
    by_id = {c.spec_id: c for c in spec_constants}
    known = ", ".join(f"{c.name or '?'} ({c.spec_id})" for c in spec_constants) or "none"
    for key, item in value.value.items():
        where = Located(key, value.keys[key])
        constant = by_name.get(key) or (by_id.get(int(key)) if key.isdigit() else None)
        shaping = {name: i for i, name in program.graph_spec_ids.items() if name}
        spec_id = constant.spec_id if constant is not None else shaping.get(key, int(key) if key.isdigit() else None)
        try:
            if spec_id in program.graph_spec_ids and not program.graph_specializable:
                raise _fail(where, f"specialization constant '{key}' sets the graph's shape (a dispatch grid, "
                                   "MaxRecords or an array size), which the given compile fixed at its default: "
                                   "wgc run cannot specialise it without compiling the graph again",
                            codes.SPECIALIZATION_SHAPES_GRAPH,
                            notes=("give wgc.run the source (a path or driver.Options) rather than a compile's "
                                   "Result, so that it compiles the graph with this value",))
            if constant is None:
                raise _fail(where, f"the graph's shaders have no specialization constant '{key}'",
                            codes.DISPATCH_UNKNOWN_NAME, notes=(f"its specialization constants: {known}",))
            label = constant.name or f"constant_id {constant.spec_id}"
            out = bytearray(max(4, constant.bits // 8))
            if constant.bits < 32 and constant.kind != "bool":
                raise _fail(where, f"specialization constant '{label}' is {constant.bits}-bit, which wgc run "
                                   "cannot specialise")
            try:
                _scalar(item, constant.kind, constant.bits, f"{constant.kind}{constant.bits}", out, 0)
            except _Invalid as problem:
                raise _fail(item, f"specialization constant '{label}': {problem.diagnostic.message}") from None
            dispatch.specialization[constant.spec_id] = bytes(out)
        except _Invalid as problem:
            diagnostics.append(problem.diagnostic)
    if set(dispatch.specialization) & set(program.graph_spec_ids):
        for node in program.nodes:
            for grid in (node.dispatch_grid, node.max_dispatch_grid):
                if grid is not None and (not all(1 <= g <= 65535 for g in grid)
                                         or grid[0] * grid[1] * grid[2] > MAX_GRID_GROUPS):
                    raise _fail(value, f"with these values node '{node.name}' has the dispatch grid "
                                       f"{tuple(grid)}: each component is 1 to 65535 and their product at most "
                                       f"{MAX_GRID_GROUPS}")


# --------------------------------------------------------------------------- inputs

def _inputs(value: Located, program: Program, dispatch: Dispatch, diagnostics: list[Diagnostic]) -> None:
    if not isinstance(value.value, list):
        raise _fail(value, "'inputs' is a list of entry inputs ({\"entry\": ..., \"records\": ...})")
    for item in value.value:
        try:
            dispatch.inputs.append(_input(item, program))
        except _Invalid as problem:
            diagnostics.append(problem.diagnostic)


def _input(item: Located, program: Program) -> EntryInput:
    if not isinstance(item.value, dict):
        raise _fail(item, "an entry input is an object with \"entry\" and \"records\"")
    for key, span in item.keys.items():
        if key not in ("entry", "records"):
            raise _Invalid(codes.DISPATCH_INVALID(span, f"unknown member '{key}' of an entry input "
                                                  "(expected 'entry' and 'records')"))
    if "entry" not in item.value:
        raise _fail(item, "this entry input has no \"entry\" (the node it launches)")
    node = _entry_node(item.value["entry"], program)
    records = item.value.get("records")
    if records is None:
        raise _fail(item, f"this entry input has no \"records\" for node '{node.label}'")
    if isinstance(records.value, list):
        data = bytearray()
        stride = node.record.stride
        _allotment.take(records, stride * len(records.value), f"{len(records.value)} records of node '{node.label}'")
        for record in records.value:
            encoded = bytearray(stride)
            _encode_record(record, node.record, encoded)
            _check_grid(node, encoded, record)
            data += encoded
        return EntryInput(node, bytes(data), len(records.value), stride, records)
    if isinstance(records.value, dict):
        return _raw_records(records, node)
    raise _fail(records, "\"records\" is a list of records (objects by field name) or "
                         "{\"hex\": ..., \"stride\": N, \"count\": N}")


def _entry_node(entry: Located, program: Program) -> NodePlan:
    if isinstance(entry.value, str):
        name, index = entry.value, 0
    elif isinstance(entry.value, dict) and set(entry.value) <= {"name", "index"} and "name" in entry.value:
        name_value = entry.value["name"]
        index_value = entry.value.get("index")
        if not isinstance(name_value.value, str):
            raise _fail(name_value, "a node's name is a string")
        name = name_value.value
        index = 0
        if index_value is not None:
            index = _natural(index_value, "a node array index")
    else:
        raise _fail(entry, "\"entry\" is a node name or {\"name\": ..., \"index\": N}")
    node = program.node(name, index)
    if node is None:
        label = name if index == 0 else f"{name}[{index}]"
        raise _fail(entry, f"the graph has no node '{label}'", codes.DISPATCH_UNKNOWN_NAME,
                    notes=(_hint(label, sorted({n.label for n in program.nodes}), "its nodes"),))
    return node


def _hint(name: str, choices: list[str], what: str, described: list[str] | None = None) -> str:
    """The note for a name the dispatch file gets wrong: "did you mean 'X'?" when one of `choices`
    is close (`wgc.suggest`), else `what: ...` listing them (or their `described` forms), bounded."""
    close = closest(name, choices)
    if close:
        return f"did you mean '{close[0]}'?"
    return f"{what}: {listing(described if described is not None else choices, quote=False)}"


def resource_hint(program: Program, key: str) -> str:
    """The note for a resource key that names none of `program`'s: a close name or register, or
    the resources with their registers (bounded)."""
    shown = [r for r in program.resources if r.counter_of is None]
    keys = [r.name for r in shown] + [_register_key(r) for r in shown if r.register]
    described = [f"{r.name} ({_register_key(r) if r.register else 'no register'})" for r in shown]
    return _hint(key, keys, "its resources", described)


def _register_key(resource: ResourcePlan) -> str:
    return f"{'' if resource.space == 0 else f'space{resource.space}/'}{resource.register}"


def _raw_records(records: Located, node: NodePlan) -> EntryInput:
    allowed = {"hex", "stride", "count"}
    for key, span in records.keys.items():
        if key not in allowed:
            raise _Invalid(codes.DISPATCH_INVALID(span, f"unknown member '{key}' of raw records "
                                                  "(expected 'hex', 'stride' and 'count')"))
    for key in ("hex", "stride", "count"):
        if key not in records.value:
            raise _fail(records, f"raw records need \"{key}\"")
    data = _hex(records.value["hex"])
    stride = _natural(records.value["stride"], "a stride")
    count = _natural(records.value["count"], "a record count")
    size = node.record.size
    alignment = node.record.alignment
    if stride % max(alignment, 1):
        raise _fail(records.value["stride"], f"stride {stride} is not a multiple of {alignment}, the alignment of a "
                                             f"'{node.record.name}' record of node '{node.label}'")
    if stride and stride < size:
        raise _fail(records.value["stride"], f"stride {stride} is smaller than a '{node.record.name}' record "
                                             f"of node '{node.label}' ({size} bytes)")
    needed = 0 if count == 0 else (size if stride == 0 else stride * (count - 1) + size)
    if len(data) < needed:
        raise _fail(records.value["hex"], f"{count} records of {size} bytes with stride {stride} need {needed} "
                                          f"bytes; the hex string holds {len(data)}")
    checked = min(count, 1) if stride == 0 else count     # stride 0: one record, repeated
    for r in range(checked if node.grid_field is not None else 0):
        _check_grid(node, data[r * stride:r * stride + size], records.value["hex"])
    return EntryInput(node, data, count, stride, records)


def _check_grid(node: NodePlan, record: bytes | bytearray, where: Located) -> None:
    if node.grid_field is None:
        return
    problem = grid_problem(node, record_grid(node, bytes(record)))
    if problem is not None:
        raise _fail(where, problem, codes.GRID_BEYOND_MAX)


def _encode_record(value: Located, record: RecordLayout, out: bytearray) -> None:
    """Write the record `value` (an object by field name) in `record`'s layout into `out`."""
    if not record.fields:
        if not (isinstance(value.value, dict) and not value.value):
            raise _fail(value, f"{record.name} record has no fields: write {{}}")
        return
    _encode_struct(value, record.name, record.fields, out, 0)


def _encode_struct(value: Located, type_name: str, fields: tuple[Field, ...], out: bytearray, offset: int) -> None:
    if not isinstance(value.value, dict):
        raise _fail(value, f"a '{type_name}' is written as an object by field name")
    by_name = {f.name: f for f in fields}
    for name, item in value.value.items():
        field_ = by_name.get(name)
        if field_ is None:
            raise _Invalid(codes.DISPATCH_RECORD_FIELD(
                value.keys[name], f"'{type_name}' has no field '{name}'",
                notes=(_hint(name, [f.name for f in fields], "its fields"),)))
        _encode_field(item, field_, out, offset + field_.offset, f"field '{name}'")


def _encode_field(value: Located, field_: Field, out: bytearray, offset: int, what: str) -> None:
    if not field_.array_dims:
        _encode_element(value, field_, field_.size, out, offset, what)
        return
    stride = field_.array_stride or 0
    flat: list[Located] = []

    def gather(item: Located, dims: tuple[int, ...], where: str) -> None:
        if not isinstance(item.value, list) or len(item.value) != dims[0]:
            raise _fail(item, f"{where} is an array of {dims[0]} elements: write a list of {dims[0]} values")
        for k, element in enumerate(item.value):
            if len(dims) > 1:
                gather(element, dims[1:], f"element {k}")
            else:
                flat.append(element)

    gather(value, field_.array_dims, what)
    for k, element in enumerate(flat):
        _encode_element(element, field_, stride, out, offset + k * stride, f"element {k}")


def _encode_element(value: Located, field_: Field, size: int, out: bytearray, offset: int, what: str) -> None:
    """One (non-array) value of `field_`'s type, `size` bytes, at `offset`."""
    type_name = field_.type.split("[")[0]
    if field_.fields:
        _encode_struct(value, type_name, field_.fields, out, offset)
        return
    kind, bits, shape, scalar_name = scalar_shape(type_name, size)
    width = bits // 8
    if not shape:
        _scalar(value, kind, bits, scalar_name, out, offset)
    elif len(shape) == 1:
        if not isinstance(value.value, list) or len(value.value) != shape[0]:
            raise _fail(value, f"{what} is a '{type_name}': write a list of {shape[0]} numbers")
        for i, item in enumerate(value.value):
            _scalar(item, kind, bits, scalar_name, out, offset + i * width)
    else:
        rows, columns = shape
        if (not isinstance(value.value, list) or len(value.value) != rows
                or any(not isinstance(r.value, list) or len(r.value) != columns for r in value.value)):
            raise _fail(value, f"{what} is a '{type_name}': write {rows} rows of {columns} numbers")
        stride = field_.matrix_stride or width * (columns if field_.row_major else rows)
        for r, row in enumerate(value.value):
            for c, item in enumerate(row.value):
                place = r * stride + c * width if field_.row_major else c * stride + r * width
                _scalar(item, kind, bits, scalar_name, out, offset + place)


def _scalar(value: Located, kind: str, bits: int, name: str, out: bytearray, offset: int) -> None:
    """Write the number `value` as a `kind` ("uint", "int", "float", "bool") of `bits` named `name`."""
    number = value.value
    if kind == "bool":
        if not isinstance(number, bool) and number not in (0, 1):
            raise _fail(value, f"a '{name}' is true, false, 0 or 1")
        struct.pack_into("<I", out, offset, int(bool(number)))
        return
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise _fail(value, f"a '{name}' is a number")
    if kind == "float":
        code = {16: "e", 32: "f", 64: "d"}[bits]
        try:
            struct.pack_into("<" + code, out, offset, float(number))
        except (OverflowError, struct.error):
            raise _fail(value, f"{number} does not fit in a '{name}'") from None
        return
    if isinstance(number, float):
        if not number.is_integer():
            raise _fail(value, f"a '{name}' is an integer, not {number}")
        number = int(number)
    low, high = (0, (1 << bits) - 1) if kind == "uint" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    if not low <= number <= high:
        raise _fail(value, f"{number} is outside the range of a '{name}' ({low}..{high})")
    out[offset:offset + bits // 8] = int(number).to_bytes(bits // 8, "little", signed=kind == "int")


def _natural(value: Located, what: str) -> int:
    if isinstance(value.value, bool) or not isinstance(value.value, int) or value.value < 0:
        raise _fail(value, f"{what} is a non-negative integer")
    return value.value


def _hex(value: Located) -> bytes:
    if not isinstance(value.value, str):
        raise _fail(value, "\"hex\" is a string of hexadecimal digits")
    _allotment.take(value, len(value.value) // 2, "the \"hex\" string")
    try:
        return bytes.fromhex(value.value)
    except ValueError:
        raise _fail(value, "\"hex\" holds something other than pairs of hexadecimal digits") from None


# --------------------------------------------------------------------------- resources

def find_resource(program: Program, key: str) -> ResourcePlan | None:
    """The resource a key names: a register as written ("u0", "b2"), with its space ("space1/t2"), or
    a variable name."""
    space = 0
    register = key
    if "/" in key:
        head, _, register = key.partition("/")
        if not head.startswith("space") or not head[5:].isdigit():
            register = ""
        else:
            space = int(head[5:])
    for resource in program.resources:
        if resource.register is not None and resource.register.lower() == register.lower() and resource.space == space:
            return resource
    for resource in program.resources:
        if resource.name == key:
            return resource
    return None


def typed_bytes(value: Located, what: str) -> bytearray:
    """`{"uint32": [...]}`, `{"float": [...]}` (any of ARRAY_FORMATS), `{"bytes": N}` or `{"hex": "..."}`."""
    forms = ", ".join(f'"{k}"' for k in (*ARRAY_FORMATS, "bytes", "hex"))
    if not isinstance(value.value, dict) or len(value.value) != 1:
        raise _fail(value, f"{what} is an object with one member: one of {forms}")
    (kind, data), = value.value.items()
    if kind == "bytes":
        size = _natural(data, "a byte count")
        _allotment.take(data, size, what)
        return bytearray(size)
    if kind == "hex":
        return bytearray(_hex(data))
    code = ARRAY_FORMATS.get(kind)
    if code is None:
        raise _Invalid(codes.DISPATCH_INVALID(value.keys[kind], f"unknown data form '{kind}' (expected one of {forms})"))
    if not isinstance(data.value, list):
        raise _fail(data, f"\"{kind}\" is a list of numbers")
    size = struct.calcsize("<" + code)
    _allotment.take(data, size * len(data.value), what)
    out = bytearray(size * len(data.value))
    scalar_kind = "float" if "float" in kind else ("int" if kind.startswith("int") else "uint")
    for i, item in enumerate(data.value):
        _scalar(item, scalar_kind, 8 * size, kind, out, i * size)
    return out


def _resources(value: Located, program: Program, dispatch: Dispatch, diagnostics: list[Diagnostic]) -> None:
    if not isinstance(value.value, dict):
        raise _fail(value, "'resources' is an object: register or name -> contents")
    for key, item in value.value.items():
        resource = find_resource(program, key)
        if resource is None:
            diagnostics.append(codes.DISPATCH_UNKNOWN_NAME(value.keys[key], f"the graph has no resource '{key}'",
                                                           notes=(resource_hint(program, key),)))
            continue
        if resource.descriptor is None:
            diagnostics.append(codes.RESOURCE_NOT_SUPPORTED(
                value.keys[key], f"'{resource.name}' is a '{resource.type}': {resource.unsupported}"))
            continue
        if resource.name in dispatch.resources:
            diagnostics.append(codes.DISPATCH_INVALID(value.keys[key], f"'{key}' names '{resource.name}', "
                                                      "which an earlier member already gave"))
            continue
        try:
            if resource.image is None and resource.descriptor != "sampler":
                data = ResourceData(resource, typed_bytes(item, f"the contents of '{key}'"), key)
            else:
                data = ResourceData(resource, bytearray(), key, _descriptors(item, resource))
            dispatch.resources[resource.name] = data
        except _Invalid as problem:
            diagnostics.append(problem.diagnostic)


def _descriptors(value: Located, resource: ResourcePlan) -> list[Descriptor]:
    """The textures, typed buffers or samplers of `resource`: one description, or a list of them for
    an array (as many as it declares; any number from 1 for an unbounded one)."""
    read = _sampler if resource.descriptor == "sampler" else _texture
    if resource.count == 1:
        if isinstance(value.value, list):
            raise _fail(value, f"'{resource.name}' is a single '{resource.type}': describe it with one object, "
                               "not a list")
        return [read(value, resource)]
    if not isinstance(value.value, list):
        wanted = "one or more" if resource.count is None else str(resource.count)
        raise _fail(value, f"'{resource.name}' is an array ('{resource.type}'): write a list of {wanted} "
                           "descriptions, one per element")
    if resource.count is not None and len(value.value) != resource.count:
        raise _fail(value, f"'{resource.name}' has {resource.count} elements; the list describes "
                           f"{len(value.value)}")
    if not value.value:
        raise _fail(value, f"'{resource.name}' is an unbounded array: describe at least one element")
    return [read(item, resource) for item in value.value]


TEXTURE_KEYS = ("format", "width", "height", "depth", "layers", "mips")
SAMPLER_FILTERS = {"point": 0, "linear": 1}
SAMPLER_ADDRESS = {"wrap": 0, "mirror": 1, "clamp": 2, "border": 3, "mirror_once": 4}
SAMPLER_COMPARISONS = {"never": 0, "less": 1, "equal": 2, "less_equal": 3, "greater": 4, "not_equal": 5,
                       "greater_equal": 6, "always": 7}
SAMPLER_BORDERS = {"transparent_black": 0, "opaque_black": 2, "opaque_white": 4}
SAMPLER_KEYS = ("filter", "min_filter", "mag_filter", "mip_filter", "address", "address_u", "address_v",
                "address_w", "comparison", "border_color", "mip_lod_bias", "min_lod", "max_lod")
MAX_LOD = 1000.0
"""VK_LOD_CLAMP_NONE: the default `max_lod` (every mip level)."""


def _choice(value: Located, table: dict[str, int], what: str) -> int:
    if not isinstance(value.value, str) or value.value not in table:
        raise _fail(value, f"{what} is one of {', '.join(repr(k) for k in table)}")
    return table[value.value]


def _number(value: Located, what: str) -> float:
    if isinstance(value.value, bool) or not isinstance(value.value, (int, float)):
        raise _fail(value, f"{what} is a number")
    return float(value.value)


def _sampler(value: Located, resource: ResourcePlan) -> SamplerData:
    """A sampler description (docs/reference.md: filter, address modes, comparison, border colour, LOD range)."""
    if not isinstance(value.value, dict):
        raise _fail(value, "a sampler is an object (\"filter\", \"address\", \"comparison\", ...; {} for "
                           "the defaults)")
    for key, span in value.keys.items():
        if key not in SAMPLER_KEYS:
            raise _Invalid(codes.DISPATCH_INVALID(span, f"unknown member '{key}' of a sampler (expected one of "
                                                        f"{', '.join(SAMPLER_KEYS)})"))
    members = value.value
    base = _choice(members["filter"], SAMPLER_FILTERS, "\"filter\"") if "filter" in members else 1
    filters = [_choice(members[k], SAMPLER_FILTERS, f'"{k}"') if k in members else base
               for k in ("mag_filter", "min_filter", "mip_filter")]
    address = _choice(members["address"], SAMPLER_ADDRESS, "\"address\"") if "address" in members else 2
    modes = tuple(_choice(members[k], SAMPLER_ADDRESS, f'"{k}"') if k in members else address
                  for k in ("address_u", "address_v", "address_w"))
    comparing = resource.type.startswith("SamplerComparisonState")
    compare = None
    if "comparison" in members:
        if not comparing:
            raise _fail(members["comparison"], f"'{resource.name}' is a '{resource.type}', which does not compare: "
                                               "only a SamplerComparisonState takes \"comparison\"")
        compare = _choice(members["comparison"], SAMPLER_COMPARISONS, "\"comparison\"")
    elif comparing:
        compare = SAMPLER_COMPARISONS["less"]
    border = _choice(members["border_color"], SAMPLER_BORDERS, "\"border_color\"") if "border_color" in members \
        else 0
    bias = _number(members["mip_lod_bias"], "\"mip_lod_bias\"") if "mip_lod_bias" in members else 0.0
    low = _number(members["min_lod"], "\"min_lod\"") if "min_lod" in members else 0.0
    high = _number(members["max_lod"], "\"max_lod\"") if "max_lod" in members else MAX_LOD
    if high < low:
        raise _fail(members.get("max_lod", value), f"\"max_lod\" ({high}) is below \"min_lod\" ({low})")
    return SamplerData(filters[0], filters[1], filters[2], modes, compare, border, bias, low, high)  # type: ignore[arg-type]


def _texture(value: Located, resource: ResourcePlan) -> TextureData:
    """A texture or typed buffer description: format, extent, mips, layers and texel data."""
    shape = resource.image
    assert shape is not None
    if not isinstance(value.value, dict):
        raise _fail(value, f"'{resource.name}' is a '{resource.type}': describe it with an object "
                           "(\"format\", \"width\", ..., and its texels)")
    members = value.value
    data_keys = [k for k in members if k not in TEXTURE_KEYS]
    if len(data_keys) > 1:
        raise _Invalid(codes.DISPATCH_INVALID(value.keys[data_keys[1]], f"a second data member '{data_keys[1]}' (a "
                                                                        "texture's texels are one typed array or one "
                                                                        "\"hex\" string)"))
    if "format" in members:
        name = members["format"].value
        format_ = FORMATS.get(name) if isinstance(name, str) else None
        if format_ is None:
            raise _Invalid(codes.TEXTURE_FORMAT(members["format"].span, f"unknown texel format {members['format'].value!r}",
                                                notes=(f"the formats: {', '.join(FORMATS)}",)))
    else:
        default = default_format(shape.component, shape.components)
        if default is None:
            raise _fail(value, f"'{resource.name}' is a '{resource.type}': give its \"format\"")
        format_ = default
    if format_.reads != shape.component:
        raise _Invalid(codes.TEXTURE_FORMAT(
            members["format"].span if "format" in members else value.span,
            f"format {format_.name} holds {format_.reads} values; '{resource.name}' ('{resource.type}') reads "
            f"{shape.component} values"))
    extent = {k: _positive(members[k], f'"{k}"') if k in members else 1 for k in TEXTURE_KEYS[1:]}
    if shape.dim == "Cube" and "layers" not in members:
        extent["layers"] = 6
    _check_extent(value, resource, extent)
    texture = TextureData(format_, extent["width"], extent["height"], extent["depth"], extent["layers"],
                          extent["mips"], bytearray())
    if not data_keys:
        _allotment.take(value, texture.size, f"'{resource.name}' ({texture.width}×{texture.height}×{texture.depth}, "
                                             f"{texture.layers} layers, {texture.mips} mips)")
        texture.data = bytearray(texture.size)
        return texture
    key = data_keys[0]
    if key == "hex":
        texture.data = bytearray(_hex(members[key]))
    elif key == format_.array:
        texture.data = typed_bytes(Located({key: members[key]}, value.span, {key: value.keys[key]}), "texels")
    else:
        raise _Invalid(codes.DISPATCH_INVALID(value.keys[key], f"texels of format {format_.name} are written as "
                                                               f"\"{format_.array}\" or \"hex\", not '{key}'"))
    if len(texture.data) != texture.size:
        texels = texture.size // format_.texel_bytes
        raise _fail(members[key], f"'{resource.name}' holds {texels} texels of {format_.name} ({texture.size} bytes, "
                                  f"{texels * format_.components} \"{format_.array}\" values); this gives "
                                  f"{len(texture.data)} bytes")
    return texture


def _positive(value: Located, what: str) -> int:
    number = _natural(value, what)
    if number == 0:
        raise _fail(value, f"{what} is at least 1")
    return number


def _check_extent(value: Located, resource: ResourcePlan, extent: dict[str, int]) -> None:
    """The extent members a texture of `resource`'s dimension may have, and its mip count."""
    shape = resource.image
    assert shape is not None
    fixed = {"1D": ("height", "depth"), "2D": ("depth",), "Cube": ("depth",), "3D": ("layers",),
             "Buffer": ("height", "depth", "layers", "mips")}[shape.dim]
    if not shape.arrayed and shape.dim != "Cube":
        fixed += ("layers",)
    for key in fixed:
        if extent[key] != 1:
            where = value.value.get(key, value)
            raise _fail(where, f"'{resource.name}' is a '{resource.type}': its \"{key}\" is 1")
    if shape.dim == "Cube":
        if extent["width"] != extent["height"]:
            raise _fail(value, f"the faces of cube texture '{resource.name}' are square: width {extent['width']} "
                               f"and height {extent['height']} differ")
        if extent["layers"] % 6 or (not shape.arrayed and extent["layers"] != 6):
            raise _fail(value.value.get("layers", value), f"cube texture '{resource.name}' has 6 faces per cube: "
                                                          f"\"layers\" is {'a multiple of ' if shape.arrayed else ''}6")
    largest = max(extent["width"], extent["height"], extent["depth"])
    if extent["mips"] > largest.bit_length():
        raise _fail(value.value.get("mips", value), f"a {largest}-texel texture has at most {largest.bit_length()} "
                                                    "mip levels")


def _root_constants(value: Located, program: Program, dispatch: Dispatch, diagnostics: list[Diagnostic]) -> None:
    data = typed_bytes(value, "'root_constants'")
    if len(data) > max(program.push_constant_bytes, 0) and program.push_constant_bytes >= 0:
        if program.push_constant_bytes == 0:
            raise _fail(value, "the graph declares no [[vk::push_constant]] block for root constants")
        raise _fail(value, f"{len(data)} bytes of root constants; the push-constant block holds "
                           f"{program.push_constant_bytes}")
    dispatch.root_constants = bytes(data)


def _local_root_arguments(value: Located, program: Program, dispatch: Dispatch,
                          diagnostics: list[Diagnostic]) -> None:
    if isinstance(value.value, dict) and "entries" in value.value:
        _local_root_entries(value, program, dispatch)
        return
    if not isinstance(value.value, dict) or set(value.value) != {"stride", "hex"}:
        raise _fail(value, "'local_root_arguments' is {\"stride\": N, \"hex\": \"...\"}")
    stride = _natural(value.value["stride"], "a stride")
    table = _hex(value.value["hex"])
    alignment = max((r.alignment for r in program.resources if r.shader_record), default=1)
    if stride % alignment:
        raise _fail(value.value["stride"], f"stride {stride} is not a multiple of {alignment}, the alignment of the "
                                           "graph's [[vk::shader_record_ext]] blocks")
    dispatch.local_root_arguments = (stride, table)


_REGISTER_KEY = re.compile(r"(?:space(\d+)/)?([btu])(\d+)", re.IGNORECASE)


def _local_root_entries(value: Located, program: Program, dispatch: Dispatch) -> None:
    """`{"entries": [{"space1/u0": "@Out", "b0": 30}, ...], "stride": N}`: each entry laid out by the local
    root signature of the nodes whose [NodeLocalRootArgumentsTableIndex] is its index (docs/reference.md)."""
    members = value.value
    for key in members:
        if key not in ("entries", "stride"):
            raise _fail(Located(key, value.keys[key]), f"unknown member '{key}' of 'local_root_arguments' (\"entries\" and \"stride\")")
    entries = members["entries"]
    if not isinstance(entries.value, list):
        raise _fail(entries, "\"entries\" is a list of objects: one table entry each, root parameter -> value")
    layouts: dict[int, tuple[Any, str]] = {}
    for node in program.nodes:
        index = node.local_root_arguments_table_index
        if node.local_root is None or index is None or index < 0:
            continue
        earlier = layouts.setdefault(index, (node.local_root, node.label))
        if earlier[0] != node.local_root:
            raise _fail(entries, f"nodes '{earlier[1]}' and '{node.label}' share table entry {index} but have "
                                 f"different local root signatures ('{earlier[0].name}', '{node.local_root.name}')")
    alignment = 8 if any(p.size == 8 for layout, _ in layouts.values() for p in layout.parameters) else 4
    widest = max((layout.size for layout, _ in layouts.values()), default=0)
    if "stride" in members:
        stride = _natural(members["stride"], "a stride")
        if stride == 0 and len({layout for layout, _ in layouts.values()}) > 1:
            raise _fail(members["stride"], "stride 0 (every node reads one entry) needs a single local root signature")
        if stride == 0 and len(entries.value) != 1:
            raise _fail(entries, "with stride 0 every node reads the first entry: give exactly one")
        if stride and (stride % alignment or stride < widest):
            raise _fail(members["stride"], f"the stride is 0 or a multiple of {alignment} of at least {widest} bytes "
                                           "(the largest local root signature's arguments)")
    else:
        stride = max(alignment, (widest + alignment - 1) // alignment * alignment)
    _allotment.take(entries, max(stride, widest) * len(entries.value), "the local-root-argument table")
    table = bytearray(max(stride, widest) * len(entries.value))
    if stride == 0 and layouts:          # one signature: its layout for the one entry, whatever the indices
        layouts = {0: next(iter(layouts.values()))}
    for index, entry in enumerate(entries.value):
        if not isinstance(entry.value, dict):
            raise _fail(entry, "a table entry is an object: root parameter (\"b0\", \"space1/u0\", a name) -> value")
        if not entry.value:
            continue
        if index not in layouts:
            raise _fail(entry, f"no node with a local root signature has [NodeLocalRootArgumentsTableIndex({index})]",
                        notes=() if layouts else ("local root signatures are read on the emulated path only (not "
                                                  "--path amdx or .spv inputs, whose modules keep descriptors)",))
        layout, label = layouts[index]
        for key, item in entry.value.items():
            parameter = _root_parameter(program, key, layout)
            if parameter is None:
                given = ", ".join(p.describe() for p in layout.parameters if p.kind != "table") or "none"
                raise _fail(Located(key, entry.keys[key]), f"local root signature '{layout.name}' (node '{label}', "
                                                           f"entry {index}) binds no '{key}'",
                            codes.DISPATCH_UNKNOWN_NAME, notes=(f"its root parameters: {given}",))
            at = index * stride + parameter.offset
            if parameter.kind == "constants":
                words = item.value if isinstance(item.value, list) else [item.value]
                if len(words) > parameter.size // 4:
                    raise _fail(item, f"{parameter.describe()} holds {parameter.size // 4} values; "
                                      f"{len(words)} given")
                for i, word in enumerate(words):
                    struct.pack_into("<I", table, at + 4 * i, _word(word if isinstance(word, Located) else item, word))
            elif parameter.kind == "table":
                raise _fail(item, "wgc run reads no descriptor tables from local root arguments")
            elif isinstance(item.value, str) and item.value.startswith("@"):
                name = item.value[1:]
                found = dispatch.resources.get(name)
                if found is None or found.resource.image is not None or found.resource.descriptor not in (
                        "storage buffer", "uniform buffer"):
                    described = [n for n, r in dispatch.resources.items() if r.resource.image is None
                                 and r.resource.descriptor in ("storage buffer", "uniform buffer")]
                    close = closest(name, described)
                    raise _fail(item, f"'{item.value}' names no buffer of \"resources\" (a root descriptor holds "
                                      "the device address of one)", codes.DISPATCH_UNKNOWN_NAME,
                                notes=(f"did you mean '@{close[0]}'?",) if close else
                                (f"buffers given: {listing(described)}" if described else
                                 "describe the buffer in \"resources\" (e.g. by the name of a variable the root "
                                 "descriptor binds) and name it here as \"@Name\"",))
                dispatch.local_root_addresses.append((at, found.resource.name))
            elif isinstance(item.value, int) and not isinstance(item.value, bool) and 0 <= item.value < 1 << 64:
                struct.pack_into("<Q", table, at, item.value)
            else:
                raise _fail(item, f"{parameter.describe()} holds a buffer's address: \"@Name\" (a buffer of "
                                  "\"resources\") or an integer")
    dispatch.local_root_arguments = (stride, bytes(table))


def _word(where: Located, value: object) -> int:
    """A root constant: an integer (32 bits, signed or not) or a float (its float32 bits)."""
    if isinstance(value, Located):
        value = value.value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(where, "a root constant is a number (an integer or a float)")
    if isinstance(value, float):
        try:
            return struct.unpack("<I", struct.pack("<f", value))[0]
        except OverflowError:
            raise _fail(where, f"{value} does not fit in a 32-bit float") from None
    if not -(1 << 31) <= value < 1 << 32:
        raise _fail(where, f"{value} does not fit in 32 bits")
    return value & 0xFFFFFFFF


def _root_parameter(program: Program, key: str, layout: Any) -> Any:
    """The root parameter of `layout` a table entry's key names: a register ("b0", "space1/u0") or the name
    of a variable declared at one."""
    resource = find_resource(program, key)
    if resource is not None and resource.register is not None:
        key = f"space{resource.space}/{resource.register}"
    match = _REGISTER_KEY.fullmatch(key)
    if match is None:
        return None
    return layout.find(match.group(2).lower(), int(match.group(3)), int(match.group(1) or 0))


def _repeat(value: Located, program: Program, dispatch: Dispatch, diagnostics: list[Diagnostic]) -> None:
    repeat = _natural(value, "'repeat'")
    if not 1 <= repeat <= MAX_REPEAT:
        raise _fail(value, f"'repeat' is between 1 and {MAX_REPEAT}")
    dispatch.repeat = repeat


def decode_array(data: bytes, kind: str) -> list[int | float | str]:
    """`data` as a list of `kind` values (a trailing partial element is dropped); NaN and the
    infinities become the strings "nan", "inf" and "-inf" (JSON has no such numbers)."""
    code = ARRAY_FORMATS[kind]
    size = struct.calcsize("<" + code)
    count = len(data) // size
    values = list(struct.unpack_from(f"<{count}{code}", data))
    if code in "efd":
        return [repr(v) if not math.isfinite(v) else v for v in values]
    return values


__all__ = ["Dispatch", "EntryInput", "ResourceData", "read_dispatch", "read_specialization", "find_resource",
           "decode_array", "typed_bytes"]
